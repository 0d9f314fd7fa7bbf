//! Where a program's input records come from: a data directory holding one
//! file per source (test data, `--data`), or the paths and inline records in
//! the program itself.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use crate::model::{OpKind, Program};

/// The file name a source's records have in a data directory: the base name
/// of its `path`, or `<name>.txt` for inline sources.
pub fn data_file_name(kind: &OpKind) -> Option<String> {
    let OpKind::Source { name, path, .. } = kind else {
        return None;
    };
    Some(match path {
        Some(path) => Path::new(path)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("{name}.txt")),
        None => format!("{name}.txt"),
    })
}

/// The lines of every source of `program`: from `data_dir` when given, else
/// from the program's paths (relative to `base_dir`) and inline records.
/// Errors name the source and the file.
pub fn load_inputs(
    program: &Program,
    base_dir: &Path,
    data_dir: Option<&Path>,
) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut inputs = BTreeMap::new();
    for (_, op) in program.sources() {
        let OpKind::Source {
            name, path, inline, ..
        } = &op.kind
        else {
            continue;
        };
        let file: Option<PathBuf> = match (data_dir, path) {
            (Some(dir), _) => Some(dir.join(data_file_name(&op.kind).unwrap_or_default())),
            (None, Some(path)) => Some(base_dir.join(path)),
            (None, None) => None,
        };
        let lines = match file {
            Some(file) => read_lines(&file).map_err(|e| {
                format!(
                    "{}: source \"{name}\": cannot read {}: {e}",
                    op.loc,
                    file.display()
                )
            })?,
            None => inline.clone().unwrap_or_default(),
        };
        inputs.insert(name.clone(), lines);
    }
    Ok(inputs)
}

/// Lines of a text file, without line terminators; a trailing newline does
/// not make an empty record.
pub fn read_lines(path: &Path) -> std::io::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text.lines().map(|l| l.to_string()).collect())
}
