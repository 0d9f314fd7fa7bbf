//! `Plan::validate`: every field the executor indexes memory with, checked
//! when the plan is read, before anything is allocated or any rank
//! communicates. A plan is text anyone can edit, so nothing in it is
//! trusted: names resolve, sizes are computed with checked arithmetic,
//! stages tile exactly the world, views stay inside their base, each launch
//! passes the buffers its kernel was compiled for, and file names stay in
//! their directory. Each error names where it is (stage, step, kernel,
//! argument); `Plan::parse` adds the file.

use std::collections::{HashMap, HashSet};

use crate::plan::{Buffer, BufferType, Io, IoLayout, Kernel, LaunchParam, Plan, Stage, Step};

type Checked = Result<(), String>;

/// Why `name` cannot name a file inside a directory the user chose (the
/// inputs, the outputs, the bundle), if it cannot: it must be one plain
/// file name, so that a plan never reads or writes anywhere else.
pub fn check_file_name(name: &str) -> Checked {
    let why = if name.is_empty() {
        "it is empty"
    } else if name.contains('/') {
        "it contains '/'"
    } else if name.contains('\0') {
        "it contains a NUL byte"
    } else if name == "." || name == ".." {
        "it names a directory"
    } else {
        return Ok(());
    };
    Err(format!("'{name}' is not a plain file name ({why})"))
}

/// `f32[4, 8]`.
fn describe(buffer: &Buffer) -> String {
    buffer.ty().to_string()
}

/// The bytes of an array of type `ty`, if one allocation can hold them.
fn bytes(ty: &BufferType) -> Option<usize> {
    ty.dtype.array_bytes(&ty.shape)
}

impl Plan {
    /// Checks everything the executor relies on (see the module comment).
    pub fn validate(&self) -> Checked {
        for (what, file) in [
            ("native", self.native.as_deref()),
            ("ptx.file", self.ptx.as_ref().map(|p| p.file.as_str())),
        ] {
            if let Some(file) = file {
                check_file_name(file).map_err(|e| format!("`{what}`: {e}"))?;
            }
        }
        for (what, digest) in [
            ("native_digest", self.native_digest.as_ref()),
            (
                "ptx.digest",
                self.ptx.as_ref().and_then(|p| p.digest.as_ref()),
            ),
        ] {
            if let Some(digest) = digest {
                digest.check().map_err(|e| format!("`{what}`: {e}"))?;
            }
        }
        if self.native_digest.is_some() && self.native.is_none() {
            return Err("`native_digest` without `native`".into());
        }
        self.check_kernels()?;
        self.check_tiling()?;
        // Output name -> the stage and buffer that writes it.
        let mut outputs: HashMap<&str, String> = HashMap::new();
        for (index, stage) in self.stages.iter().enumerate() {
            self.check_stage(index, stage, &mut outputs)?;
        }
        Ok(())
    }

    fn check_kernels(&self) -> Checked {
        let mut names = HashMap::new();
        for kernel in &self.kernels {
            let context = format!("kernel '{}'", kernel.name);
            if names.insert(kernel.name.as_str(), ()).is_some() {
                return Err(format!("{context} is declared twice"));
            }
            for (b, ty) in kernel.buffers.iter().enumerate() {
                if bytes(ty).is_none() {
                    return Err(format!(
                        "{context}: buffer {b} ({ty}) is larger than one allocation can be"
                    ));
                }
            }
            for (l, launch) in kernel.gpu_launches.iter().enumerate() {
                let context = format!("{context}: launch {l} ({})", launch.entry);
                for (p, param) in launch.params.iter().enumerate() {
                    param
                        .check(kernel)
                        .map_err(|e| format!("{context}, parameter {p}: {e}"))?;
                }
                // The driver takes 32-bit sizes.
                for (what, dims) in [("grid", launch.grid), ("block", launch.block)] {
                    if dims.iter().any(|&d| d == 0 || u32::try_from(d).is_err()) {
                        return Err(format!(
                            "{context}: {what} {dims:?} has a size that is 0 or over {}",
                            u32::MAX
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The stages' ranks are exactly `0..ranks`, each rank in one stage.
    fn check_tiling(&self) -> Checked {
        if self.ranks == 0 {
            return Err("`ranks` must be at least 1".into());
        }
        let mut order: Vec<usize> = (0..self.stages.len()).collect();
        order.sort_by_key(|&i| self.stages[i].first_rank);
        let mut next = 0usize;
        // The stage that ends at `next`.
        let mut previous = 0;
        for i in order {
            let stage = &self.stages[i];
            let context = format!("stage {i} (@{})", stage.function);
            if stage.size == 0 {
                return Err(format!("{context} has no ranks (`size` = 0)"));
            }
            let end = stage.first_rank.checked_add(stage.size).ok_or_else(|| {
                format!(
                    "{context}: ranks {} .. {} + {} overflow",
                    stage.first_rank, stage.first_rank, stage.size
                )
            })?;
            if stage.first_rank > next {
                return Err(format!("rank {next} belongs to no stage"));
            }
            if stage.first_rank < next {
                return Err(format!(
                    "rank {} belongs to stage {} and {context}",
                    stage.first_rank, previous
                ));
            }
            if end > self.ranks {
                return Err(format!(
                    "{context} runs ranks {} .. {end}, but the plan has {} ranks",
                    stage.first_rank, self.ranks
                ));
            }
            next = end;
            previous = i;
        }
        if next != self.ranks {
            return Err(format!("rank {next} belongs to no stage"));
        }
        Ok(())
    }

    fn check_stage<'p>(
        &'p self,
        index: usize,
        stage: &'p Stage,
        outputs: &mut HashMap<&'p str, String>,
    ) -> Checked {
        let context = format!("stage {index} (@{})", stage.function);
        check_mesh(stage).map_err(|e| format!("{context}: {e}"))?;
        let mut buffers: HashMap<&str, &Buffer> = HashMap::new();
        for buffer in &stage.buffers {
            let at = format!("{context}: buffer '{}'", buffer.name);
            if buffers.insert(&buffer.name, buffer).is_some() {
                return Err(format!("{at} is declared twice"));
            }
            if bytes(&buffer.ty()).is_none() {
                return Err(format!(
                    "{at} ({}) is larger than one allocation can be",
                    describe(buffer)
                ));
            }
            for (what, io) in [("input", &buffer.input), ("output", &buffer.output)] {
                if let Some(io) = io {
                    check_io(buffer, io, stage).map_err(|e| format!("{at}: {what} {e}"))?;
                }
            }
            if let Some(io) = &buffer.output {
                if let Some(other) = outputs.insert(&io.name, at.clone()) {
                    return Err(format!(
                        "{at}: output '{}' is also written by {other}",
                        io.name
                    ));
                }
            }
        }
        for buffer in &stage.buffers {
            check_view(stage, &buffers, buffer).map_err(|e| format!("{context}: {e}"))?;
        }
        for (i, step) in stage.steps.iter().enumerate() {
            self.check_step(stage, &buffers, step)
                .map_err(|e| format!("{}: {e}", self.step_context(index, i)))?;
        }
        check_outputs_written(stage).map_err(|e| format!("{context}: {e}"))?;
        check_reads_written(stage).map_err(|e| format!("{context}: {e}"))
    }

    fn check_step(&self, stage: &Stage, buffers: &HashMap<&str, &Buffer>, step: &Step) -> Checked {
        for name in step.buffers() {
            if !buffers.contains_key(name) {
                return Err(format!("unknown buffer '{name}'"));
            }
        }
        match step {
            Step::Launch {
                kernel,
                buffers: args,
                ..
            } => {
                let k = self
                    .kernel(kernel)
                    .ok_or_else(|| format!("unknown kernel '{kernel}'"))?;
                check_launch(k, args, buffers, stage.size)
                    .map_err(|e| format!("kernel '{kernel}': {e}"))
            }
            Step::PeerLaunch {
                kernel,
                buffers: args,
                peer_reads,
                peer_writes,
                ..
            } => {
                let k = self
                    .kernel(kernel)
                    .ok_or_else(|| format!("unknown kernel '{kernel}'"))?;
                check_peer_launch(k, args, peer_reads, peer_writes, buffers, stage.size)
                    .map_err(|e| format!("kernel '{kernel}': {e}"))
            }
            Step::Send { peer_stage, .. } | Step::Recv { peer_stage, .. } => {
                let peer = self
                    .stages
                    .get(*peer_stage)
                    .ok_or_else(|| format!("names stage {peer_stage}, which does not exist"))?;
                if peer.size != stage.size {
                    return Err(format!(
                        "pairs with stage {peer_stage} of {} ranks, this stage has {}",
                        peer.size, stage.size
                    ));
                }
                Ok(())
            }
            _ => {
                // The whole stage and one axis of it are both groups a
                // compiled collective may run over: with two or more axes,
                // a plan that does not say which would run whatever an
                // edit left.
                if stage.mesh.len() > 1 && step.is_collective() && step.axis_field().is_none() {
                    return Err(format!(
                        "has no `axis`: on a mesh of {} axes ({}) a collective names the axis \
                         it runs over, or `axis = \"\"` for the whole stage",
                        stage.mesh.len(),
                        mesh_text(stage)
                    ));
                }
                let size = stage.axis_size(step.axis()).ok_or_else(|| {
                    format!(
                        "runs over axis \"{}\", which the stage's mesh does not have",
                        step.axis().unwrap_or_default()
                    )
                })?;
                match step {
                    Step::Broadcast { root, .. } | Step::Reduce { root, .. } if *root >= size => {
                        Err(format!("root {root} in a group of {size} ranks"))
                    }
                    _ => Ok(()),
                }
            }
        }
    }
}

/// Every output that is not also an input is written by some step, itself
/// or through a view: a plan cut short (or a step deleted) would otherwise
/// write the zeros it was allocated with as a result.
fn check_outputs_written(stage: &Stage) -> Checked {
    let mut touched: HashSet<&str> = stage.steps.iter().flat_map(|s| s.buffers()).collect();
    // A view and the buffer it views share memory: a write to one is a write to both.
    for buffer in &stage.buffers {
        if let Some(view) = &buffer.view {
            if touched.contains(buffer.name.as_str()) || touched.contains(view.of.as_str()) {
                touched.insert(&buffer.name);
                touched.insert(&view.of);
            }
        }
    }
    for buffer in &stage.buffers {
        if let (Some(io), None) = (&buffer.output, &buffer.input) {
            if !touched.contains(buffer.name.as_str()) {
                return Err(format!(
                    "output '{}' (buffer '{}') is written by no step (is the plan complete?)",
                    io.name, buffer.name
                ));
            }
        }
    }
    Ok(())
}

/// A step that reads a buffer by name (a collective's, a copy's or a
/// send's input) reads what an input file or an earlier step put there,
/// itself or through a view: a buffer nothing wrote holds the zeros it was
/// allocated with, and an edited plan that reads one would compute from
/// them and exit 0. (A launch's arguments are not split into reads and
/// writes, so a launch counts as writing all of them.)
fn check_reads_written(stage: &Stage) -> Checked {
    let memory_of = |name: &str| -> String {
        stage
            .buffers
            .iter()
            .find(|b| b.name == name)
            .and_then(|b| b.view.as_ref())
            .map_or_else(|| name.to_string(), |view| view.of.clone())
    };
    let mut written: HashSet<String> = stage
        .buffers
        .iter()
        .filter(|b| b.input.is_some())
        .map(|b| memory_of(&b.name))
        .collect();
    for (index, step) in stage.steps.iter().enumerate() {
        if let Some(input) = step.input() {
            if !written.contains(&memory_of(input)) {
                return Err(format!(
                    "step {index} reads buffer '{input}', which neither an input file nor an \
                     earlier step writes"
                ));
            }
        }
        written.extend(step.buffers().into_iter().map(memory_of));
    }
    Ok(())
}

/// `dp = 2, tp = 2`, for messages.
fn mesh_text(stage: &Stage) -> String {
    let axes: Vec<String> = stage
        .mesh
        .iter()
        .map(|a| format!("{:?} = {}", a.name, a.size))
        .collect();
    axes.join(", ")
}

/// A stage's mesh has named axes of at least one rank that span exactly
/// its ranks.
fn check_mesh(stage: &Stage) -> Checked {
    if stage.mesh.is_empty() {
        return Ok(());
    }
    let mut span = 1usize;
    for (a, axis) in stage.mesh.iter().enumerate() {
        if axis.name.is_empty() || axis.size == 0 {
            return Err(format!("mesh axis {a} needs a name and at least one rank"));
        }
        if stage.mesh[..a].iter().any(|b| b.name == axis.name) {
            return Err(format!("mesh axis \"{}\" is named twice", axis.name));
        }
        span = span.saturating_mul(axis.size);
    }
    if span != stage.size {
        return Err(format!(
            "the mesh spans {span} ranks, but the stage has {}",
            stage.size
        ));
    }
    Ok(())
}

/// The file of `io` has a shape for its layout, and one allocation holds it.
fn check_io(buffer: &Buffer, io: &Io, stage: &Stage) -> Checked {
    check_file_name(&io.name)?;
    if !io.axes.is_empty() && stage.mesh.is_empty() {
        return Err(format!(
            "'{}' has axis layouts, but the stage has no mesh",
            io.name
        ));
    }
    // A plain layout and per-axis ones read and write the file
    // differently (`replicated` is every rank's whole buffer, or with
    // `axes` the global tensor of their blocks): a mesh stage says which.
    if !stage.mesh.is_empty() && io.axes.is_empty() && io.layout != IoLayout::Scalar {
        return Err(format!(
            "'{}' has layout {} but no `axes`: on a stage with a mesh ({}) every input and \
             output but a scalar gives its layout along each axis",
            io.name,
            io.layout.text(),
            mesh_text(stage)
        ));
    }
    io.check_axes(stage, buffer.shape.len())?;
    let shape = io.file_shape(&buffer.shape, stage)?;
    if buffer.dtype.array_bytes(&shape).is_none() {
        return Err(format!(
            "'{}': the file's shape {shape:?} is larger than one allocation can be",
            io.name
        ));
    }
    Ok(())
}

/// A view is of a plain buffer of its element type, and fits inside it on
/// every position of the stage (the last one starts furthest in).
fn check_view(stage: &Stage, buffers: &HashMap<&str, &Buffer>, buffer: &Buffer) -> Checked {
    let Some(view) = &buffer.view else {
        return Ok(());
    };
    let name = &buffer.name;
    let base = buffers
        .get(view.of.as_str())
        .ok_or_else(|| format!("view '{name}' of unknown buffer '{}'", view.of))?;
    if base.view.is_some() || base.dtype != buffer.dtype {
        return Err(format!(
            "view '{name}' must view a plain buffer of its element type"
        ));
    }
    let last = stage.size - 1;
    let end = last
        .checked_mul(view.rank_stride)
        .and_then(|s| s.checked_add(view.offset))
        .and_then(|start| Some((start, start.checked_add(buffer.len())?)));
    match end {
        Some((_, end)) if end <= base.len() => Ok(()),
        Some((start, end)) => Err(format!(
            "view '{name}' (elements {start}..{end} on the last rank) runs past '{}' ({} elements)",
            view.of,
            base.len()
        )),
        None => Err(format!(
            "view '{name}' (offset {} + rank * {}) overflows",
            view.offset, view.rank_stride
        )),
    }
}

/// Each argument of a launch is a buffer of the element type and size the
/// kernel's code was compiled for, and rank-dependent launch parameters fit
/// an i64 on every position.
fn check_launch(
    kernel: &Kernel,
    args: &[String],
    buffers: &HashMap<&str, &Buffer>,
    size: usize,
) -> Checked {
    if kernel.buffers.len() != args.len() {
        return Err(format!(
            "passes {} buffers to a kernel that takes {}",
            args.len(),
            kernel.buffers.len()
        ));
    }
    // Element type and size are what memory safety needs; the shape may
    // differ (a reshape passes the same bytes).
    for (i, (arg, expected)) in args.iter().zip(&kernel.buffers).enumerate() {
        let buffer = buffers[arg.as_str()];
        let found = buffer.ty();
        if found.dtype != expected.dtype || bytes(&found) != bytes(expected) {
            return Err(format!(
                "argument {i} is buffer '{arg}', {found} ({} bytes), where the kernel takes {expected} ({} bytes)",
                buffer.bytes(),
                bytes(expected).unwrap_or_default()
            ));
        }
    }
    let last = i64::try_from(size - 1).map_err(|_| format!("a stage of {size} ranks"))?;
    for launch in &kernel.gpu_launches {
        for param in &launch.params {
            if let LaunchParam::RankTimes { factor } = *param {
                if factor.checked_mul(last).is_none() {
                    return Err(format!(
                        "launch {}: rank * {factor} overflows an i64 on rank {last}",
                        launch.entry
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A peer launch passes its own buffers as a launch does, then one part
/// of each peer-read buffer per position and of each peer-written buffer
/// per other position (`Step::PeerLaunch`); a part is `1/size` of its
/// buffer, split along the first dimension, and no buffer is both read and
/// written on the peers (another rank could be reading what one writes).
fn check_peer_launch(
    kernel: &Kernel,
    args: &[String],
    peer_reads: &[String],
    peer_writes: &[String],
    buffers: &HashMap<&str, &Buffer>,
    size: usize,
) -> Checked {
    let peer_params = peer_reads.len() * size + peer_writes.len() * (size - 1);
    if kernel.buffers.len() != args.len() + peer_params {
        return Err(format!(
            "passes {} buffers and {peer_params} peer parts to a kernel that takes {} parameters",
            args.len(),
            kernel.buffers.len()
        ));
    }
    let own = Kernel {
        buffers: kernel.buffers[..args.len()].to_vec(),
        ..kernel.clone()
    };
    check_launch(&own, args, buffers, size)?;
    if let Some(both) = peer_reads.iter().find(|r| peer_writes.contains(r)) {
        return Err(format!(
            "buffer '{both}' is both read and written on the peers"
        ));
    }
    let counts = peer_reads
        .iter()
        .map(|r| (r, size))
        .chain(peer_writes.iter().map(|w| (w, size - 1)));
    let mut param = args.len();
    for (name, count) in counts {
        let buffer = buffers[name.as_str()];
        let rows = buffer.shape.first().copied().unwrap_or(1);
        if rows % size != 0 {
            return Err(format!(
                "peer buffer '{name}' ({}) does not split into {size} equal parts along its first dimension",
                buffer.ty()
            ));
        }
        let part = BufferType {
            dtype: buffer.dtype,
            shape: buffer
                .shape
                .iter()
                .enumerate()
                .map(|(d, &n)| if d == 0 { n / size } else { n })
                .collect(),
        };
        for expected in &kernel.buffers[param..param + count] {
            if expected.dtype != part.dtype || bytes(expected) != bytes(&part) {
                return Err(format!(
                    "parameter {param} is a part of peer buffer '{name}', {part}, where the kernel takes {expected}"
                ));
            }
            param += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        plan::{GpuLaunch, IoLayout, View},
        DType,
    };

    fn ty(shape: &[usize]) -> BufferType {
        BufferType {
            dtype: DType::F32,
            shape: shape.to_vec(),
        }
    }

    fn buffer(name: &str, shape: &[usize]) -> Buffer {
        Buffer {
            name: name.into(),
            dtype: DType::F32,
            shape: shape.to_vec(),
            input: None,
            output: None,
            view: None,
        }
    }

    fn io(name: &str, layout: IoLayout) -> Option<Io> {
        Some(Io {
            name: name.into(),
            layout,
            axes: Vec::new(),
        })
    }

    /// Two ranks of `y = axpb(a, x, b)`, `a` a 0-d scalar.
    fn sample() -> Plan {
        let mut plan = Plan::new("t.mlir", 2);
        plan.native = Some("kernels.so".into());
        plan.kernels.push(Kernel {
            name: "axpb".into(),
            buffers: vec![ty(&[]), ty(&[8]), ty(&[8]), ty(&[8])],
            computes: Vec::new(),
            gpu_launches: Vec::new(),
            gpu_scratch: Vec::new(),
        });
        let mut a = buffer("a", &[]);
        a.input = io("f.arg0", IoLayout::Scalar);
        let mut x = buffer("x", &[8]);
        x.input = io("f.arg1", IoLayout::Local);
        let mut y = buffer("y", &[8]);
        y.output = io("f.result0", IoLayout::Local);
        plan.stages.push(Stage {
            function: "f".into(),
            first_rank: 0,
            size: 2,
            buffers: vec![a, x, buffer("b", &[8]), y],
            steps: vec![Step::Launch {
                kernel: "axpb".into(),
                buffers: ["a", "x", "b", "y"].map(String::from).to_vec(),
                stream: 0,
            }],
            mesh: Vec::new(),
        });
        plan
    }

    fn error(plan: &Plan) -> String {
        plan.validate().unwrap_err()
    }

    #[test]
    fn the_sample_is_valid() {
        sample().validate().unwrap();
    }

    /// The sample's stage as a [dp = 2, tp = 1] mesh.
    fn on_mesh() -> Plan {
        let mut plan = sample();
        plan.stages[0].mesh = vec![
            crate::MeshAxis {
                name: "dp".into(),
                size: 2,
            },
            crate::MeshAxis {
                name: "tp".into(),
                size: 1,
            },
        ];
        plan.stages[0].spell_out_mesh();
        plan
    }

    fn all_reduce(axis: Option<&str>) -> Step {
        Step::AllReduce {
            reduction: crate::Reduction::Sum,
            input: "y".into(),
            output: "b".into(),
            stream: 0,
            axis: axis.map(String::from),
        }
    }

    #[test]
    fn a_collective_on_a_mesh_of_several_axes_says_its_group() {
        let mut plan = on_mesh();
        plan.stages[0].steps.push(all_reduce(Some("dp")));
        // Steps other than collectives have no group to name.
        plan.stages[0].steps.push(Step::RecordEvent {
            event: "e".into(),
            stream: 0,
        });
        plan.validate().unwrap();
        // Deleting `axis` would run over the whole stage instead of dp.
        *plan.stages[0].steps[1].axis_mut().unwrap() = None;
        assert_eq!(
            error(&plan),
            "stage 0 (@f), step 1 (all_reduce): has no `axis`: on a mesh of 2 axes \
             (\"dp\" = 2, \"tp\" = 1) a collective names the axis it runs over, or \
             `axis = \"\"` for the whole stage"
        );
        // The whole stage, said so.
        *plan.stages[0].steps[1].axis_mut().unwrap() = Some(String::new());
        plan.validate().unwrap();
        assert_eq!(plan.stages[0].steps[1].axis(), None);
        // What the compiler writes for the whole stage is that.
        let mut compiled = on_mesh();
        compiled.stages[0].steps.push(all_reduce(None));
        compiled.stages[0].spell_out_mesh();
        assert_eq!(compiled.stages[0].steps[1].axis_field(), Some(""));
        compiled.validate().unwrap();
        let text = compiled.to_text();
        assert!(text.contains("axis = \"\"\n"), "{text}");
        let parsed = Plan::parse(&text, std::path::Path::new("plan.toml")).unwrap();
        assert_eq!(parsed, compiled);
        // One axis spans the whole stage: leaving it out says the same.
        let mut one = sample();
        one.stages[0].mesh = vec![crate::MeshAxis {
            name: "dp".into(),
            size: 2,
        }];
        one.stages[0].spell_out_mesh();
        one.stages[0].steps.push(all_reduce(None));
        one.validate().unwrap();
        assert_eq!(one.stages[0].steps[1].axis_field(), None);
    }

    #[test]
    fn inputs_and_outputs_on_a_mesh_give_their_axis_layouts() {
        let plan = on_mesh();
        let x = plan.stages[0].buffers[1].input.as_ref().unwrap();
        assert_eq!(x.axes, vec![IoLayout::Local; 2]);
        assert_eq!(x.plain_layout(), Some(IoLayout::Local));
        // The scalar has no layout per axis.
        assert!(plan.stages[0].buffers[0]
            .input
            .as_ref()
            .unwrap()
            .axes
            .is_empty());
        // Deleting `axes` would read each rank's block as the whole file.
        let mut edited = on_mesh();
        edited.stages[0].buffers[1].input = Some(Io {
            name: "f.arg1".into(),
            layout: IoLayout::Replicated,
            axes: vec![IoLayout::Sliced(0), IoLayout::Replicated],
        });
        edited.validate().unwrap();
        assert_eq!(
            edited.stages[0].buffers[1]
                .input
                .as_ref()
                .unwrap()
                .plain_layout(),
            None
        );
        edited.stages[0].buffers[1]
            .input
            .as_mut()
            .unwrap()
            .axes
            .clear();
        assert_eq!(
            error(&edited),
            "stage 0 (@f): buffer 'x': input 'f.arg1' has layout replicated but no `axes`: \
             on a stage with a mesh (\"dp\" = 2, \"tp\" = 1) every input and output but a \
             scalar gives its layout along each axis"
        );
        let mut edited = on_mesh();
        edited.stages[0].buffers[3]
            .output
            .as_mut()
            .unwrap()
            .axes
            .clear();
        assert!(
            error(&edited).starts_with(
                "stage 0 (@f): buffer 'y': output 'f.result0' has layout local but no `axes`"
            ),
            "{}",
            error(&edited)
        );
        // A plain sliced layout spans every axis: per axis, the file holds
        // the global tensor.
        let mut sliced = sample();
        sliced.stages[0].buffers[1].input.as_mut().unwrap().layout = IoLayout::Sliced(0);
        sliced.stages[0].mesh = on_mesh().stages[0].mesh.clone();
        sliced.stages[0].spell_out_mesh();
        let x = sliced.stages[0].buffers[1].input.as_ref().unwrap();
        assert_eq!(
            (x.layout, x.axes.clone(), x.plain_layout()),
            (
                IoLayout::Replicated,
                vec![IoLayout::Sliced(0); 2],
                Some(IoLayout::Sliced(0))
            )
        );
        sliced.validate().unwrap();
    }

    #[test]
    fn meshes_span_their_stage_and_collectives_name_their_axes() {
        on_mesh().validate().unwrap();
        let mut plan = on_mesh();
        plan.stages[0].mesh[1].size = 2;
        assert_eq!(
            error(&plan),
            "stage 0 (@f): the mesh spans 4 ranks, but the stage has 2"
        );
        let mut plan = on_mesh();
        plan.stages[0].mesh[1].name = "dp".into();
        assert_eq!(
            error(&plan),
            "stage 0 (@f): mesh axis \"dp\" is named twice"
        );

        let mut plan = on_mesh();
        plan.stages[0].steps.push(Step::Broadcast {
            root: 1,
            input: "y".into(),
            output: "b".into(),
            stream: 0,
            axis: Some("tp".into()),
        });
        assert!(
            error(&plan).ends_with("root 1 in a group of 1 ranks"),
            "{}",
            error(&plan)
        );
        let Step::Broadcast { axis, .. } = &mut plan.stages[0].steps[1] else {
            unreachable!()
        };
        *axis = Some("pp".into());
        assert!(
            error(&plan).ends_with("runs over axis \"pp\", which the stage's mesh does not have"),
            "{}",
            error(&plan)
        );
    }

    #[test]
    fn axis_layouts_describe_the_mesh() {
        let mut plan = on_mesh();
        plan.stages[0].buffers[1].input = Some(Io {
            name: "f.arg1".into(),
            layout: IoLayout::Replicated,
            axes: vec![IoLayout::Sliced(0), IoLayout::Replicated],
        });
        plan.validate().unwrap();
        plan.stages[0].buffers[1].input.as_mut().unwrap().axes.pop();
        assert!(error(&plan).ends_with("'f.arg1' gives 1 axis layouts for a mesh of 2 axes"));
        plan.stages[0].buffers[1].input.as_mut().unwrap().axes = vec![IoLayout::Local; 2];
        assert!(error(&plan)
            .ends_with("'f.arg1' has layout replicated with axis layouts, expected local"));
        let mut flat = sample();
        flat.stages[0].buffers[1].input.as_mut().unwrap().axes = vec![IoLayout::Local];
        assert!(error(&flat).ends_with("'f.arg1' has axis layouts, but the stage has no mesh"));
    }

    #[test]
    fn launch_arguments_must_have_the_kernels_types() {
        // The scalar where an 8-element buffer is expected: the kernel
        // would write 32 bytes into 4.
        let mut plan = sample();
        let Step::Launch { buffers, .. } = &mut plan.stages[0].steps[0] else {
            unreachable!()
        };
        buffers.swap(0, 3);
        assert_eq!(
            error(&plan),
            "stage 0 (@f), step 0 (launch): kernel 'axpb': argument 0 is buffer 'y', \
             f32[8] (32 bytes), where the kernel takes f32[] (4 bytes)"
        );
        let mut plan = sample();
        plan.stages[0].buffers[2].dtype = DType::I32;
        assert!(error(&plan).contains(
            "argument 2 is buffer 'b', i32[8] (32 bytes), where the kernel takes f32[8]"
        ));
        let mut plan = sample();
        plan.kernels[0].buffers.pop();
        assert!(error(&plan).contains("passes 4 buffers to a kernel that takes 3"));
    }

    /// The sample's kernel as a peer launch on 2 ranks: `x` read on the
    /// peers (a part of 4 elements on each), `y` written there (its own
    /// part is the view `y_part`).
    fn peer_sample() -> Plan {
        let mut plan = sample();
        plan.kernels[0].buffers = vec![ty(&[]), ty(&[4]), ty(&[4]), ty(&[4]), ty(&[4]), ty(&[4])];
        let mut own = buffer("y_part", &[4]);
        own.view = Some(View {
            of: "y".into(),
            offset: 0,
            rank_stride: 4,
        });
        let stage = &mut plan.stages[0];
        stage.buffers.push(own);
        stage.buffers.push(buffer("b4", &[4]));
        stage.steps = vec![Step::PeerLaunch {
            kernel: "axpb".into(),
            buffers: ["a", "b4", "y_part"].map(String::from).to_vec(),
            peer_reads: vec!["x".into()],
            peer_writes: vec!["y".into()],
            stream: 0,
        }];
        plan
    }

    #[test]
    fn peer_launches_pass_one_part_per_peer() {
        peer_sample().validate().unwrap();
        let mut plan = peer_sample();
        plan.kernels[0].buffers.pop();
        assert!(
            error(&plan)
                .contains("passes 3 buffers and 3 peer parts to a kernel that takes 5 parameters"),
            "{}",
            error(&plan)
        );
        let mut plan = peer_sample();
        plan.kernels[0].buffers[4] = ty(&[8]);
        assert!(
            error(&plan).contains(
                "parameter 4 is a part of peer buffer 'x', f32[4], where the kernel takes f32[8]"
            ),
            "{}",
            error(&plan)
        );
        let mut plan = peer_sample();
        let Step::PeerLaunch { peer_writes, .. } = &mut plan.stages[0].steps[0] else {
            unreachable!()
        };
        *peer_writes = vec!["x".into()];
        assert!(error(&plan).contains("buffer 'x' is both read and written on the peers"));
        let mut plan = peer_sample();
        plan.stages[0].buffers[1].shape = vec![7];
        assert!(
            error(&plan).contains("does not split into 2 equal parts"),
            "{}",
            error(&plan)
        );
    }

    #[test]
    fn file_names_stay_in_their_directory() {
        for (name, why) in [
            ("../../X", "it contains '/'"),
            ("/tmp/X", "it contains '/'"),
            ("a\0b", "it contains a NUL byte"),
            ("..", "it names a directory"),
            ("", "it is empty"),
        ] {
            let mut plan = sample();
            plan.stages[0].buffers[3].output = io(name, IoLayout::Local);
            let message = error(&plan);
            assert!(
                message.starts_with("stage 0 (@f): buffer 'y': output '")
                    && message.ends_with(&format!("is not a plain file name ({why})")),
                "{message}"
            );
            let mut plan = sample();
            plan.stages[0].buffers[0].input = io(name, IoLayout::Scalar);
            assert!(
                error(&plan).contains("buffer 'a': input '"),
                "{}",
                error(&plan)
            );
        }
        let mut plan = sample();
        plan.native = Some("/usr/lib/libc.so.6".into());
        assert!(error(&plan).starts_with("`native`: '/usr/lib/libc.so.6' is not a plain"));
        assert!(check_file_name("adam.arg0").is_ok());
    }

    #[test]
    fn stages_tile_exactly_the_world() {
        // ranks = 1 with a stage of 2: the executor asserted on it.
        let mut plan = sample();
        plan.ranks = 1;
        assert_eq!(
            error(&plan),
            "stage 0 (@f) runs ranks 0 .. 2, but the plan has 1 ranks"
        );
        let mut plan = sample();
        plan.stages[0].size = 0;
        assert_eq!(error(&plan), "stage 0 (@f) has no ranks (`size` = 0)");
        let mut plan = sample();
        plan.stages[0].first_rank = usize::MAX;
        assert!(error(&plan).contains("overflow"), "{}", error(&plan));
        let mut plan = sample();
        plan.ranks = usize::MAX;
        assert_eq!(error(&plan), "rank 2 belongs to no stage");
        let mut plan = sample();
        let mut second = plan.stages[0].clone();
        second.first_rank = 1;
        second.size = 1;
        plan.ranks = 2;
        plan.stages[0].size = 2;
        plan.stages.push(second);
        assert!(error(&plan).starts_with("rank 1 belongs to stage 0 and stage 1"));
        plan.stages.clear();
        assert_eq!(error(&plan), "rank 0 belongs to no stage");
        plan.ranks = 0;
        assert_eq!(error(&plan), "`ranks` must be at least 1");
    }

    #[test]
    fn sizes_are_computed_without_overflow() {
        let mut plan = sample();
        plan.stages[0].buffers[2].shape = vec![4611686018427387904, 4];
        assert_eq!(
            error(&plan),
            "stage 0 (@f): buffer 'b' (f32[4611686018427387904, 4]) is larger than one allocation can be"
        );
        // The buffer fits, its file over two ranks does not.
        let mut plan = sample();
        plan.stages[0].buffers[1].shape = vec![isize::MAX as usize / 4];
        plan.kernels[0].buffers[1] = ty(&[isize::MAX as usize / 4]);
        assert!(
            error(&plan).contains("the file's shape [2, "),
            "{}",
            error(&plan)
        );
        let mut plan = sample();
        plan.kernels[0].buffers[1] = ty(&[usize::MAX, 2]);
        assert!(error(&plan).starts_with("kernel 'axpb': buffer 1 (f32[18446744073709551615, 2])"));
        // A view whose start overflows.
        let mut plan = sample();
        plan.stages[0].buffers.push(Buffer {
            view: Some(View {
                of: "b".into(),
                offset: 1,
                rank_stride: usize::MAX,
            }),
            ..buffer("v", &[1])
        });
        assert_eq!(
            error(&plan),
            "stage 0 (@f): view 'v' (offset 1 + rank * 18446744073709551615) overflows"
        );
        let mut plan = sample();
        plan.stages[0].buffers[0].input = io("f.arg0", IoLayout::Sliced(3));
        assert!(error(&plan).ends_with("layout sliced-3, but only 0 dimensions"));
    }

    #[test]
    fn outputs_are_written_once() {
        let mut plan = sample();
        plan.stages[0].buffers[2].output = io("f.result0", IoLayout::Local);
        assert_eq!(
            error(&plan),
            "stage 0 (@f): buffer 'y': output 'f.result0' is also written by stage 0 (@f): buffer 'b'"
        );
    }

    #[test]
    fn outputs_are_written_by_a_step() {
        let mut plan = sample();
        plan.stages[0].steps.clear();
        assert!(error(&plan).contains("is written by no step (is the plan complete?)"));
    }

    #[test]
    fn collectives_read_what_was_written() {
        // An all_reduce of `y` after the launch that writes it is valid;
        // one of `b`, which nothing writes, read the zeros it was
        // allocated with (a fault-harness edit of a real plan ran so).
        let reduce = |input: &str| Step::AllReduce {
            reduction: crate::plan::Reduction::Sum,
            input: input.into(),
            output: "y".into(),
            stream: 0,
            axis: None,
        };
        let mut plan = sample();
        plan.stages[0].steps.push(reduce("y"));
        plan.validate().unwrap();
        let mut plan = sample();
        plan.stages[0].steps.insert(0, reduce("b"));
        assert!(error(&plan).contains(
            "step 0 reads buffer 'b', which neither an input file nor an earlier step writes"
        ));
    }

    #[test]
    fn gpu_launch_sizes_and_offsets_fit() {
        let launch = |grid: [u64; 3], params: Vec<LaunchParam>| GpuLaunch {
            entry: "axpb_kernel".into(),
            grid,
            block: [64, 1, 1],
            params,
        };
        let mut plan = sample();
        plan.kernels[0].gpu_launches = vec![launch([1 << 32, 1, 1], Vec::new())];
        assert!(error(&plan).starts_with(
            "kernel 'axpb': launch 0 (axpb_kernel): grid [4294967296, 1, 1] has a size that is 0 or over"
        ));
        let mut plan = sample();
        plan.ranks = 3;
        plan.stages[0].size = 3;
        plan.kernels[0].gpu_launches = vec![launch(
            [1, 1, 1],
            vec![LaunchParam::RankTimes { factor: i64::MAX }],
        )];
        assert!(error(&plan).ends_with(
            "launch axpb_kernel: rank * 9223372036854775807 overflows an i64 on rank 2"
        ));
    }
}
