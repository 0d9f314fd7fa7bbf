//! Running a whole program: choosing the functions to run, distributing
//! inputs over ranks (or a mesh), running the stages as coroutines and
//! gathering outputs.

use std::collections::HashMap;

use coco_dialects::{
    coco::{ops as coco_ops, DistTensor, Layout, Mesh, Placement},
    ir::{
        argument_attr, argument_positions, as_op, body_ops, function_signature, int_attr,
        location_text, op_name, ssa_name_at, str_attr, string_value, symbol_attr,
    },
};
use melior::ir::{operation::OperationRef, Operation, Type};

use crate::{
    budget::{self, Limits, MemoryAccount},
    error::{Error, Result},
    exec::{local_type, Channels, Frame, PerRank, Progress, Waiting},
    tensor::{DType, Scalar, Tensor},
};

/// A program input or output as the user sees it: the global tensor, or one
/// tensor per rank for `#coco.local` values (`[ranks, ...global shape]` in
/// files).
#[derive(Clone, Debug, PartialEq)]
pub enum HostValue {
    Global(Tensor),
    PerRank(Vec<Tensor>),
}

impl HostValue {
    /// Bytes the interpreter holds for it.
    pub fn bytes(&self) -> u64 {
        match self {
            HostValue::Global(t) => budget::value_bytes(std::slice::from_ref(t)),
            HostValue::PerRank(parts) => budget::value_bytes(parts),
        }
    }

    /// Every element, row-major (a local value's ranks in order).
    pub fn scalars(&self) -> Vec<Scalar> {
        match self {
            HostValue::Global(t) => t.scalars().collect(),
            HostValue::PerRank(parts) => parts.iter().flat_map(Tensor::scalars).collect(),
        }
    }
}

/// What an argument or result looks like.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// `<function>.arg<i>` or `<function>.result<i>`.
    pub name: String,
    pub dtype: DType,
    pub global_shape: Vec<usize>,
    /// `None` for scalars (the same on every rank). On a mesh: `#coco.local`
    /// when the value differs along some axis (the host holds one tensor
    /// per position on those axes), else `#coco.replicated` (one global
    /// tensor); [`Spec::placement`] says how the ranks hold it.
    pub layout: Option<Layout>,
    /// In a program with a `coco.mesh`: the mesh and the value's layout
    /// along each axis. `None` otherwise (the layout is the same on every
    /// rank of the group, however many there are).
    pub placement: Option<(Mesh, Placement)>,
    /// Into how many groups the world splits for the value's function: its
    /// pipeline stages, or 1 for a function on the whole world. A
    /// `#coco.local` value has one tensor per rank of its group.
    pub groups: usize,
    /// How the program says its seeded values are drawn
    /// (`{coco.input = "normal(0,0.02)"}` on the argument; `None`: the
    /// default, uniform in [0, 1)). `--input` overrides it.
    pub drawn: Option<crate::seeded::Distribution>,
}

impl Spec {
    /// How many tensors the host holds for a `#coco.local` value on a
    /// world of `ranks`: one per position on the mesh's local axes, or one
    /// per rank of the value's group.
    pub fn parts(&self, ranks: usize) -> usize {
        match &self.placement {
            Some((mesh, placement)) => placement.local_part(mesh, 0).1,
            None => ranks / self.groups.max(1),
        }
    }

    /// The layout as the program writes it, for listings.
    pub fn layout_text(&self) -> Option<String> {
        match &self.placement {
            Some((mesh, placement)) => Some(placement.text(mesh)),
            None => self.layout.map(|l| l.to_string()),
        }
    }
}

/// The argument attribute that declares how an input is drawn when seeded:
/// weights of a deep layer drawn from [0, 1) overflow f16, and a check
/// between two all-NaN outputs compares nothing.
pub const INPUT_ATTR: &str = "coco.input";

/// A function the program runs, with the group it runs on.
struct Entry<'c, 'a> {
    name: String,
    op: OperationRef<'c, 'a>,
    /// `(group name, stage)`.
    group: Option<(String, i64)>,
}

/// The functions to run: every function on a process group (in stage order),
/// or else the only function, or the one named `entry`.
fn entries<'c, 'a>(
    module: &'a Operation<'c>,
    entry: Option<&str>,
) -> Result<(Vec<Entry<'c, 'a>>, i64)> {
    let mut stages: HashMap<String, (i64, i64)> = HashMap::new();
    let mut functions = Vec::new();
    for op_ref in body_ops(module) {
        let op = as_op(&op_ref);
        match op_name(op).as_str() {
            coco_ops::PROCESS_GROUP => {
                let name = str_attr(op, "sym_name").unwrap_or_default();
                stages.insert(
                    name,
                    (
                        int_attr(op, "stage").unwrap_or(0),
                        int_attr(op, "num_stages").unwrap_or(1),
                    ),
                );
            }
            "func.func" => functions.push(op_ref),
            _ => {}
        }
    }
    let named = |op: &OperationRef<'c, 'a>| str_attr(as_op(op), "sym_name").unwrap_or_default();
    if let Some(entry) = entry {
        let op = *functions
            .iter()
            .find(|op| named(op) == entry)
            .ok_or_else(|| Error::Program(format!("no function @{entry} in the program")))?;
        return Ok((
            vec![Entry {
                name: entry.to_string(),
                op,
                group: None,
            }],
            1,
        ));
    }
    if !stages.is_empty() {
        let num_stages = stages.values().map(|s| s.1).max().unwrap_or(1);
        let mut entries: Vec<Entry> = functions
            .iter()
            .filter_map(|op| {
                let group = symbol_attr(as_op(op), coco_ops::GROUP_ATTR)?;
                let stage = stages.get(&group)?.0;
                Some(Entry {
                    name: named(op),
                    op: *op,
                    group: Some((group, stage)),
                })
            })
            .collect();
        entries.sort_by_key(|e| e.group.as_ref().map(|g| g.1));
        return Ok((entries, num_stages));
    }
    match functions.as_slice() {
        [op] => Ok((
            vec![Entry {
                name: named(op),
                op: *op,
                group: None,
            }],
            1,
        )),
        [] => Err(Error::Program("the program has no function".into())),
        _ => Err(Error::Program(format!(
            "the program has {} functions; name the one to run (--entry)",
            functions.len()
        ))),
    }
}

fn spec(name: String, ty: Type, mesh: Option<&Mesh>) -> Result<Spec> {
    match DistTensor::from_type(ty) {
        Some(tensor) if mesh.is_some() => {
            let mesh = mesh.expect("checked").clone();
            let placement = tensor
                .placement(&mesh)
                .map_err(|why| Error::Program(format!("{name} {why}")))?;
            let mut spec = spec(name, ty, None)?;
            spec.layout = Some(if placement.has_local() {
                Layout::Local
            } else {
                Layout::Replicated
            });
            spec.placement = Some((mesh, placement));
            Ok(spec)
        }
        Some(tensor) => Ok(Spec {
            dtype: crate::tensor::dtype_of(tensor.element).ok_or_else(|| {
                Error::Program(format!(
                    "{name} has unsupported element type {}",
                    tensor.element
                ))
            })?,
            global_shape: tensor
                .static_shape()
                .ok_or_else(|| Error::Program(format!("{name} has a dynamic shape")))?
                .iter()
                .map(|&d| d as usize)
                .collect(),
            layout: tensor.layout,
            placement: None,
            groups: 1,
            name,
            drawn: None,
        }),
        None => Ok(Spec {
            dtype: crate::tensor::dtype_of(ty)
                .ok_or_else(|| Error::Program(format!("{name} has unsupported type {ty}")))?,
            global_shape: Vec::new(),
            layout: None,
            placement: None,
            groups: 1,
            name,
            drawn: None,
        }),
    }
}

/// The inputs a program takes, in order.
pub fn input_specs(module: &Operation, entry: Option<&str>) -> Result<Vec<Spec>> {
    let (entries, num_stages) = entries(module, entry)?;
    let mesh = Mesh::declared(module).map(|d| d.mesh);
    let mut specs = Vec::new();
    for e in &entries {
        let (inputs, _) = function_signature(as_op(&e.op))
            .ok_or_else(|| Error::Program(format!("@{} has no signature", e.name)))?;
        let function = as_op(&e.op);
        for (i, ty) in inputs.into_iter().enumerate() {
            let mut spec = spec(format!("{}.arg{i}", e.name), ty, mesh.as_ref())?;
            if e.group.is_some() {
                spec.groups = usize::try_from(num_stages).unwrap_or(1).max(1);
            }
            if let Some(text) = argument_attr(function, i, INPUT_ATTR).and_then(string_value) {
                let drawn = text
                    .parse::<crate::seeded::Distribution>()
                    .and_then(|d| d.check(spec.dtype).map(|()| d))
                    .map_err(|why| {
                        Error::Program(format!(
                            "{}: {{{INPUT_ATTR} = \"{text}\"}} on {}: {why}",
                            location_text(function.location()),
                            spec.name,
                        ))
                    })?;
                spec.drawn = Some(drawn);
            }
            specs.push(spec);
        }
    }
    Ok(specs)
}

/// The name the source gives each input (`lr` for `%lr: f32`), by input
/// name, read from `source` (the text the module was parsed from) at each
/// argument's location. Inputs whose location is not in `source` have none.
pub fn input_source_names(
    module: &Operation,
    entry: Option<&str>,
    source: &str,
) -> Result<HashMap<String, String>> {
    let (entries, _) = entries(module, entry)?;
    let lines: Vec<&str> = source.lines().collect();
    let mut names = HashMap::new();
    for e in &entries {
        for (i, position) in argument_positions(as_op(&e.op)).into_iter().enumerate() {
            let name = position.and_then(|(line, column)| {
                let text = lines.get((line as usize).checked_sub(1)?)?;
                ssa_name_at(text, column as usize)
            });
            if let Some(name) = name {
                names.insert(format!("{}.arg{i}", e.name), name);
            }
        }
    }
    Ok(names)
}

/// The outputs `run` produces, in its order: each function's results, then
/// the arguments it updates (`coco.update`), by index.
pub fn output_specs(module: &Operation, entry: Option<&str>) -> Result<Vec<Spec>> {
    let (entries, _) = entries(module, entry)?;
    let mesh = Mesh::declared(module).map(|d| d.mesh);
    let mut specs = Vec::new();
    for e in &entries {
        let func = as_op(&e.op);
        let (inputs, results) = function_signature(func)
            .ok_or_else(|| Error::Program(format!("@{} has no signature", e.name)))?;
        for (i, ty) in results.into_iter().enumerate() {
            specs.push(spec(format!("{}.result{i}", e.name), ty, mesh.as_ref())?);
        }
        let mut updated: Vec<usize> = coco_dialects::ir::nested_ops(func)
            .iter()
            .filter(|op| op_name(as_op(op)) == coco_ops::UPDATE)
            .filter_map(|op| {
                let target = as_op(op).operand(0).ok()?;
                let argument = melior::ir::block::BlockArgument::try_from(target).ok()?;
                coco_dialects::ir::is_entry_argument_of(target, func)
                    .then(|| argument.argument_number())
            })
            .collect();
        updated.sort_unstable();
        updated.dedup();
        for i in updated {
            specs.push(spec(
                format!("{}.arg{i}", e.name),
                inputs[i],
                mesh.as_ref(),
            )?);
        }
    }
    Ok(specs)
}

/// Checks the program against `limits` before any of its values exist:
/// its element operations ([`budget::check_work`]), and its inputs, which
/// the caller holds (one copy, one per rank for `#coco.local` values) and
/// the ranks hold again (a copy per rank, a slice each for
/// `#coco.sliced<d>`). An 800 GB input is an error naming it, not an
/// allocation abort. [`run`] checks every op's results as it goes.
pub fn check_program(
    module: &Operation,
    entry: Option<&str>,
    ranks: usize,
    limits: &Limits,
) -> Result<()> {
    let (entries, num_stages) = entries(module, entry)?;
    // Before any input is drawn: a mesh's local axes decide how many
    // tensors the host holds for an input.
    if entry.is_none() {
        if let Some((location, message)) =
            coco_dialects::coco::world::mesh_size_error(module, ranks)
        {
            return Err(Error::NotDivisibleByStages { location, message });
        }
    }
    let group_size = ranks / usize::try_from(num_stages.max(1)).unwrap_or(1).max(1);
    let declared = Mesh::declared(module).map(|d| d.mesh);
    let functions: Vec<(&Operation, Mesh)> = entries
        .iter()
        .map(|e| {
            let size = if e.group.is_some() { group_size } else { ranks };
            let mesh = declared.clone().unwrap_or_else(|| Mesh::flat(size.max(1)));
            (as_op(&e.op), mesh)
        })
        .collect();
    let mut memory = MemoryAccount::new(limits.memory.clone());
    for spec in input_specs(module, entry)? {
        let copies = match spec.layout {
            Some(Layout::Local) => 2 * ranks as u64,
            Some(Layout::Sliced(_)) => 2,
            _ => 1 + ranks as u64,
        };
        let elements = spec
            .global_shape
            .iter()
            .try_fold(copies, |n, &d| n.checked_mul(d as u64))
            .unwrap_or(u64::MAX);
        let bytes = budget::bytes_of(elements);
        memory.check(
            &format!(
                "input '{}' ({} {:?})",
                spec.name, spec.dtype, spec.global_shape
            ),
            bytes,
        )?;
        memory.add(bytes);
    }
    budget::check_work(&functions, &limits.work)
}

fn check_tensor(spec: &Spec, tensor: &Tensor, what: &str) -> Result<()> {
    if tensor.dtype != spec.dtype || tensor.shape != spec.global_shape {
        return Err(Error::BadInput {
            name: spec.name.clone(),
            expected: format!("{} {:?}", spec.dtype, spec.global_shape),
            found: format!("{} {:?}{what}", tensor.dtype, tensor.shape),
        });
    }
    Ok(())
}

/// Splits a host value over the ranks of a mesh: rank `r` holds the part
/// of its position on the local axes, cut to its block along the sliced
/// ones.
fn distribute_on_mesh(
    spec: &Spec,
    mesh: &Mesh,
    placement: &Placement,
    value: &HostValue,
) -> Result<PerRank> {
    let (_, count) = placement.local_part(mesh, 0);
    let parts: Vec<&Tensor> = match value {
        HostValue::PerRank(parts) if placement.has_local() => {
            if parts.len() != count {
                return Err(Error::BadInput {
                    name: spec.name.clone(),
                    expected: format!(
                        "one tensor per position on the mesh's local axes ({count}, for {})",
                        placement.text(mesh)
                    ),
                    found: format!("{} tensors", parts.len()),
                });
            }
            parts.iter().collect()
        }
        HostValue::Global(t) if !placement.has_local() => vec![t],
        HostValue::Global(t) => {
            return Err(Error::BadInput {
                name: spec.name.clone(),
                expected: format!(
                    "one tensor per position on the mesh's local axes ({count}, for {}), shape [{count}, {:?}]",
                    placement.text(mesh),
                    spec.global_shape
                ),
                found: format!("one tensor of shape {:?}", t.shape),
            })
        }
        HostValue::PerRank(_) => {
            return Err(Error::BadInput {
                name: spec.name.clone(),
                expected: "one global tensor".into(),
                found: "one tensor per rank".into(),
            })
        }
    };
    for part in &parts {
        check_tensor(spec, part, "")?;
    }
    crate::exec::placed_shape(
        placement,
        mesh,
        &spec.global_shape,
        &format!("input '{}'", spec.name),
    )?;
    Ok((0..mesh.size())
        .map(|rank| {
            let (part, _) = placement.local_part(mesh, rank);
            let blocks = placement.blocks(mesh, rank, spec.global_shape.len());
            crate::compute::block_of(parts[part], &blocks)
        })
        .collect())
}

/// The tensor that blocks at their indices (one per combination, `counts`
/// blocks along each dimension) make up, concatenated dimension by
/// dimension, innermost first.
fn join_blocks(mut pieces: Vec<(Vec<usize>, Tensor)>, counts: &[usize]) -> Option<Tensor> {
    for dim in (0..counts.len()).rev().filter(|&d| counts[d] > 1) {
        let mut rows: std::collections::BTreeMap<Vec<usize>, Vec<(usize, Tensor)>> =
            std::collections::BTreeMap::new();
        for (mut at, t) in pieces {
            let index = at[dim];
            at[dim] = 0;
            rows.entry(at).or_default().push((index, t));
        }
        pieces = rows
            .into_iter()
            .map(|(at, mut row)| {
                row.sort_by_key(|(index, _)| *index);
                let row: Vec<Tensor> = row.into_iter().map(|(_, t)| t).collect();
                (at, Tensor::concat(&row, dim))
            })
            .collect();
    }
    pieces.into_iter().next().map(|(_, t)| t)
}

/// Joins the ranks' blocks into what the user sees: one global tensor per
/// position on the local axes; ranks that hold the same block (replicated
/// axes) must hold it bitwise alike.
fn gather_on_mesh(
    spec: &Spec,
    mesh: &Mesh,
    placement: &Placement,
    parts: PerRank,
    location: &str,
) -> Result<HostValue> {
    let (_, count) = placement.local_part(mesh, 0);
    let rank_of_tensor = spec.global_shape.len();
    let mut values = Vec::with_capacity(count);
    for local in 0..count {
        let mut blocks: Vec<(Vec<usize>, &Tensor, usize)> = Vec::new();
        for (rank, part) in parts.iter().enumerate() {
            if placement.local_part(mesh, rank).0 != local {
                continue;
            }
            let at: Vec<usize> = placement
                .blocks(mesh, rank, rank_of_tensor)
                .into_iter()
                .map(|(_, index)| index)
                .collect();
            match blocks.iter().find(|(key, _, _)| *key == at) {
                Some((_, first, first_rank)) => {
                    if let Some(index) = part
                        .scalars()
                        .zip(first.scalars())
                        .position(|(a, b)| a.bits() != b.bits())
                    {
                        return Err(Error::ReplicaMismatch {
                            location: location.to_string(),
                            what: format!("{} (rank {first_rank} and rank {rank})", spec.name),
                            rank,
                            index,
                            a: part.get(index),
                            b: first.get(index),
                        });
                    }
                }
                None => blocks.push((at, part, rank)),
            }
        }
        let counts: Vec<usize> = placement
            .blocks(mesh, 0, rank_of_tensor)
            .into_iter()
            .map(|(count, _)| count)
            .collect();
        let pieces: Vec<(Vec<usize>, Tensor)> = blocks
            .into_iter()
            .map(|(at, t, _)| (at, t.clone()))
            .collect();
        values.push(join_blocks(pieces, &counts).unwrap_or_else(|| {
            Tensor::filled(spec.dtype, spec.global_shape.clone(), Scalar::Int(0))
        }));
    }
    Ok(if placement.has_local() {
        HostValue::PerRank(values)
    } else {
        HostValue::Global(values.into_iter().next().expect("one part"))
    })
}

/// Splits a host value over the `group` ranks according to its layout.
fn distribute(spec: &Spec, value: &HostValue, group: usize) -> Result<PerRank> {
    if let Some((mesh, placement)) = &spec.placement {
        return distribute_on_mesh(spec, mesh, placement, value);
    }
    match (spec.layout, value) {
        (Some(Layout::Local), HostValue::PerRank(parts)) => {
            if parts.len() != group {
                return Err(Error::BadInput {
                    name: spec.name.clone(),
                    expected: format!("one tensor per rank ({group})"),
                    found: format!("{} tensors", parts.len()),
                });
            }
            for part in parts {
                check_tensor(spec, part, " on a rank")?;
            }
            Ok(parts.clone())
        }
        (Some(Layout::Local), HostValue::Global(t)) => Err(Error::BadInput {
            name: spec.name.clone(),
            expected: format!(
                "a #coco.local input with one tensor per rank, shape [{group}, {:?}]",
                spec.global_shape
            ),
            found: format!("one tensor of shape {:?}", t.shape),
        }),
        (_, HostValue::PerRank(_)) => Err(Error::BadInput {
            name: spec.name.clone(),
            expected: "one global tensor".into(),
            found: "one tensor per rank".into(),
        }),
        (Some(Layout::Sliced(dim)), HostValue::Global(t)) => {
            check_tensor(spec, t, "")?;
            let dim = dim as usize;
            if !t.shape[dim].is_multiple_of(group) {
                return Err(Error::NotDivisible {
                    world: group,
                    dim,
                    size: t.shape[dim],
                    what: format!("input '{}'", spec.name),
                });
            }
            Ok((0..group).map(|r| t.slice(dim, group, r)).collect())
        }
        (_, HostValue::Global(t)) => {
            check_tensor(spec, t, "")?;
            Ok(vec![t.clone(); group])
        }
    }
}

/// Joins the ranks' parts into what the user sees; replicated values must be
/// identical on every rank.
fn gather(spec: &Spec, parts: PerRank, location: &str) -> Result<HostValue> {
    if let Some((mesh, placement)) = &spec.placement {
        return gather_on_mesh(spec, mesh, placement, parts, location);
    }
    match spec.layout {
        Some(Layout::Local) => Ok(HostValue::PerRank(parts)),
        Some(Layout::Sliced(dim)) => Ok(HostValue::Global(Tensor::concat(&parts, dim as usize))),
        _ => {
            for (rank, part) in parts.iter().enumerate().skip(1) {
                if let Some(index) = part
                    .scalars()
                    .zip(parts[0].scalars())
                    .position(|(a, b)| a.bits() != b.bits())
                {
                    return Err(Error::ReplicaMismatch {
                        location: location.to_string(),
                        what: spec.name.clone(),
                        rank,
                        index,
                        a: part.get(index),
                        b: parts[0].get(index),
                    });
                }
            }
            Ok(HostValue::Global(parts.into_iter().next().unwrap_or_else(
                || Tensor::filled(spec.dtype, Vec::new(), Scalar::Int(0)),
            )))
        }
    }
}

/// Runs the program on `ranks` simulated ranks within `limits`. Outputs are
/// the results of each function (`<f>.result<i>`) and the new value of every
/// updated input (`<f>.arg<i>`), in that order.
pub fn run(
    module: &Operation,
    ranks: usize,
    entry: Option<&str>,
    inputs: &HashMap<String, HostValue>,
    limits: &Limits,
) -> Result<Vec<(Spec, HostValue)>> {
    if ranks == 0 {
        return Err(Error::Program("the world needs at least one rank".into()));
    }
    check_program(module, entry, ranks, limits)?;
    let mut memory = MemoryAccount::new(limits.memory.clone());
    memory.add(
        inputs
            .values()
            .map(HostValue::bytes)
            .fold(0, u64::saturating_add),
    );
    let (entries, num_stages) = entries(module, entry)?;
    let stages = usize::try_from(num_stages.max(1)).unwrap_or(1);
    if entry.is_none() {
        if let Some((location, message)) =
            coco_dialects::coco::world::stage_split_error(module, ranks)
        {
            return Err(Error::NotDivisibleByStages { location, message });
        }
    }
    if !ranks.is_multiple_of(stages) {
        return Err(Error::NotDivisibleByStages {
            location: "the program".into(),
            message: format!("world size {ranks} does not divide into {stages} pipeline stages"),
        });
    }
    let group_size = ranks / stages;
    let declared = Mesh::declared(module).map(|d| d.mesh);
    // Every stage starts with its inputs on its ranks, then the stages run
    // as coroutines (`Frame::resume`): each in stage order until it waits
    // for a message, round after round, until all have returned.
    struct Stage<'c, 'a, 'e> {
        entry: &'e Entry<'c, 'a>,
        frame: Frame<'c>,
        arg_specs: Vec<Spec>,
        result: Option<crate::exec::FunctionResult>,
        waiting: Option<Waiting>,
    }
    let mut running: Vec<Stage> = Vec::new();
    for e in &entries {
        let func = as_op(&e.op);
        let (arg_types, _) = function_signature(func)
            .ok_or_else(|| Error::Program(format!("@{} has no signature", e.name)))?;
        let size = if e.group.is_some() { group_size } else { ranks };
        let mesh = declared.clone().unwrap_or_else(|| Mesh::flat(size));
        let mut arguments = Vec::new();
        let mut arg_specs = Vec::new();
        for (i, ty) in arg_types.iter().enumerate() {
            let spec = spec(format!("{}.arg{i}", e.name), *ty, declared.as_ref())?;
            // Located as the compiled backends locate it: the function,
            // then the argument.
            local_type(
                *ty,
                &mesh,
                &format!("{}: argument {i}", location_text(func.location())),
            )?;
            let value = inputs
                .get(&spec.name)
                .ok_or_else(|| Error::MissingInput(spec.name.clone()))?;
            arguments.push(distribute(&spec, value, size)?);
            arg_specs.push(spec);
        }
        let mut frame = Frame::new(mesh, e.group.as_ref().map(|g| g.0.clone()), memory);
        frame.start(func, arguments)?;
        memory = std::mem::replace(&mut frame.memory, MemoryAccount::new(limits.memory.clone()));
        running.push(Stage {
            entry: e,
            frame,
            arg_specs,
            result: None,
            waiting: None,
        });
    }
    let mut channels = Channels::new();
    while running.iter().any(|s| s.result.is_none()) {
        let mut moved = false;
        for stage in running.iter_mut().filter(|s| s.result.is_none()) {
            // The account is shared: whichever stage runs holds it.
            std::mem::swap(&mut stage.frame.memory, &mut memory);
            let progress = stage.frame.resume(as_op(&stage.entry.op), &mut channels);
            std::mem::swap(&mut stage.frame.memory, &mut memory);
            match progress? {
                Progress::Finished(result) => {
                    stage.result = Some(result);
                    moved = true;
                }
                Progress::Waiting(wait) => {
                    moved |= stage.waiting.as_ref() != Some(&wait);
                    stage.waiting = Some(wait);
                }
            }
        }
        if !moved {
            // The verifier's deadlock check refuses such programs; one
            // built past it still gets a located error, not a hang.
            let waits: Vec<String> = running
                .iter()
                .filter_map(|s| s.waiting.as_ref().filter(|_| s.result.is_none()))
                .map(|w| format!("{}: coco.recv from @{}", w.location, w.peer))
                .collect();
            return Err(Error::Program(format!(
                "the stages deadlock: every unfinished stage waits for a message never sent ({})",
                waits.join("; ")
            )));
        }
    }
    let mut outputs = Vec::new();
    for stage in running {
        let e = stage.entry;
        let func = as_op(&e.op);
        let (_, result_types) = function_signature(func)
            .ok_or_else(|| Error::Program(format!("@{} has no signature", e.name)))?;
        let Some(result) = stage.result else {
            continue;
        };
        let location = location_text(func.location());
        for (i, (ty, parts)) in result_types.iter().zip(result.results).enumerate() {
            let spec = spec(format!("{}.result{i}", e.name), *ty, declared.as_ref())?;
            let value = gather(&spec, parts, &location)?;
            memory.add(value.bytes());
            outputs.push((spec, value));
        }
        let mut updates = result.updates;
        updates.sort_by_key(|(i, _)| *i);
        for (i, parts) in updates {
            let spec = stage.arg_specs[i].clone();
            let value = gather(&spec, parts, &location)?;
            outputs.push((spec, value));
        }
    }
    Ok(outputs)
}
