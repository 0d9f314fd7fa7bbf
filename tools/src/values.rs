//! Program inputs and outputs as `.npy` files and as text: reading,
//! seeding choices, saving and summarising host values. Shared by the
//! reference run (`run.rs`) and the compiled run (`execute.rs`), which
//! otherwise know nothing of each other.

use std::{collections::HashMap, path::Path};

use coco_interp::{
    input_source_names, npy, resolve_choices, Distribution, HostValue, Scalar, Spec, Tensor,
};

/// The distribution of each input `choices` names, by input name, for the
/// program `module` parsed from `text`.
pub(crate) fn chosen_inputs(
    module: &melior::ir::Operation,
    entry: Option<&str>,
    text: &str,
    specs: &[Spec],
    choices: &[(String, Distribution)],
) -> Result<HashMap<String, Distribution>, String> {
    if choices.is_empty() {
        return Ok(HashMap::new());
    }
    let names = input_source_names(module, entry, text).map_err(|e| e.to_string())?;
    resolve_choices(specs, &names, choices)
}

/// An input or output as `--list-inputs` prints it: element type, global
/// shape and layout (`scalar` without one).
pub(crate) fn describe(spec: &Spec) -> String {
    let layout = spec.layout_text().unwrap_or_else(|| "scalar".to_string());
    format!("{} {:?} {layout}", spec.dtype, spec.global_shape)
}

/// Every input of `specs` from `<dir>/<name>.npy`, checked against its
/// spec. A `#coco.local` input holds one tensor per rank of its group, or
/// on a mesh one per position on the axes it is local along (`Spec::parts`):
/// shape `[parts, ...]`, as `--save-inputs` writes it and the executor
/// reads it.
pub(crate) fn read_inputs(
    dir: &Path,
    specs: &[Spec],
    ranks: usize,
) -> Result<HashMap<String, HostValue>, String> {
    let mut inputs = HashMap::new();
    for spec in specs {
        let path = dir.join(format!("{}.npy", spec.name));
        if !path.exists() {
            return Err(format!(
                "missing input '{}': expected {} ({})",
                spec.name,
                path.display(),
                describe(spec)
            ));
        }
        let tensor = npy::read(&path, spec.dtype).map_err(|e| e.to_string())?;
        let value = if spec.layout == Some(coco_dialects::coco::Layout::Local) {
            let parts = spec.parts(ranks);
            if tensor.shape.first() != Some(&parts) || tensor.shape[1..] != spec.global_shape[..] {
                let per = match &spec.placement {
                    Some((mesh, placement)) => format!(
                        "one tensor per position on the mesh's local axes, for {}",
                        placement.text(mesh)
                    ),
                    None => "one tensor per rank".to_string(),
                };
                return Err(format!(
                    "input '{}' is #coco.local: {} must have shape [{}] ({per}), found {:?}",
                    spec.name,
                    path.display(),
                    std::iter::once(parts)
                        .chain(spec.global_shape.iter().copied())
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    tensor.shape
                ));
            }
            HostValue::PerRank(tensor.split_into(&spec.global_shape))
        } else {
            if tensor.shape != spec.global_shape {
                return Err(format!(
                    "input '{}': {} has shape {:?}, the program expects {:?}",
                    spec.name,
                    path.display(),
                    tensor.shape,
                    spec.global_shape
                ));
            }
            HostValue::Global(tensor)
        };
        inputs.insert(spec.name.clone(), value);
    }
    Ok(inputs)
}

/// Writes every input as `<dir>/<name>.npy`.
pub(crate) fn save_inputs(dir: &Path, inputs: &HashMap<String, HostValue>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, value) in inputs {
        write_value(&dir.join(format!("{name}.npy")), value)?;
    }
    Ok(())
}

/// Writes `value` to `path` whole or not at all (`.npy` files are written
/// to a temporary sibling and renamed into place, replacing a link at
/// `path` rather than writing through it), as the executor writes its
/// outputs.
pub(crate) fn write_value(path: &Path, value: &HostValue) -> Result<(), String> {
    match value {
        HostValue::Global(t) => npy::write_tensor(path, t),
        HostValue::PerRank(parts) => npy::write_tensor(path, &Tensor::stack(parts)),
    }
    .map_err(|e| e.to_string())
}

/// `sum=... min=... max=...` over all elements (all ranks for local values).
pub(crate) fn summary(value: &HostValue) -> String {
    let data: Vec<f64> = value.scalars().into_iter().map(Scalar::to_f64).collect();
    let sum: f64 = data.iter().sum();
    let min = data.iter().copied().fold(f64::INFINITY, f64::min);
    let max = data.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("sum={sum:.6e} min={min:.6e} max={max:.6e}")
}

/// An output file the executor wrote on a world of `ranks`, as a host
/// value (local outputs are stacked per rank of their group, or per
/// position on a mesh's local axes).
pub(crate) fn read_output(path: &Path, spec: &Spec, ranks: usize) -> Result<HostValue, String> {
    let tensor = npy::read(path, spec.dtype).map_err(|e| format!("output '{}': {e}", spec.name))?;
    if spec.layout == Some(coco_dialects::coco::Layout::Local) {
        let part = spec.global_shape.iter().product::<usize>().max(1);
        let parts = spec.parts(ranks);
        if tensor.len() != part * parts {
            return Err(format!(
                "output '{}': {} holds {} elements, expected {parts} x {part}",
                spec.name,
                path.display(),
                tensor.len()
            ));
        }
        Ok(HostValue::PerRank(tensor.split_into(&spec.global_shape)))
    } else {
        Ok(HostValue::Global(tensor))
    }
}
