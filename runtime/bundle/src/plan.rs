//! The execution plan (`plan.toml`): buffers, kernels and the ordered steps
//! every rank runs. Documented in `docs/bundle.md`; bump `FORMAT_VERSION`
//! on any change an older executor would misread. `Plan::parse` validates
//! what it reads (`validate.rs`).

use std::{fmt, path::Path};

use serde::{Deserialize, Serialize};

use crate::{artifact::Digest, error::Error, error::Result, mesh::MeshAxis, DType};

pub const FORMAT_NAME: &str = "coco-bundle";
/// 2: launch parameters are tables (`LaunchParam`), not prefixed strings.
/// 3: kernels list the element type and shape of each buffer they take
/// (`BufferType`), not only how many, so launches are checked against them.
/// 4: stages may have a device mesh (`Stage::mesh`), collectives an `axis`
/// and inputs and outputs a layout per axis (`Io::axes`).
pub const FORMAT_VERSION: u32 = 4;
pub const PLAN_FILE: &str = "plan.toml";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Always `coco-bundle`.
    pub format: String,
    /// `FORMAT_VERSION` of the writer.
    pub version: u32,
    /// The program the bundle was compiled from (for messages).
    pub source: String,
    /// The world size the bundle was compiled for: local shapes depend on it.
    pub ranks: usize,
    /// The PTX file, its target chip and PTX version, when PTX was emitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx: Option<PtxTarget>,
    /// The shared library with the native kernels, when emitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<String>,
    /// The size and SHA-256 of `native` when the bundle was written
    /// ([`Plan::record_digests`]): the executor loads no other file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_digest: Option<Digest>,
    #[serde(default)]
    pub kernels: Vec<Kernel>,
    /// One stage per function the program runs: a single function runs on
    /// every rank; pipeline programs have one stage per process group.
    pub stages: Vec<Stage>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PtxTarget {
    pub file: String,
    pub chip: String,
    pub features: String,
    /// Whether NVIDIA's libdevice was linked for exp, tanh and the other
    /// transcendentals (else coco's fallback PTX; docs/bundle.md, "GPU
    /// math", has the tolerance of each).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub libdevice: bool,
    /// The size and SHA-256 of `file` when the bundle was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<Digest>,
}

/// A compiled kernel. Native ABI: `void name(void *buffer_0, ...,
/// void *buffer_{n-1}, int64_t rank)` with every buffer dense and row-major.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kernel {
    pub name: String,
    /// The buffer parameters that precede the rank: what the compiled code
    /// reads and writes through each pointer, so a launch that passes a
    /// smaller buffer is refused instead of run out of bounds.
    pub buffers: Vec<BufferType>,
    /// The coco ops the kernel computes, for people reading the plan.
    #[serde(default)]
    pub computes: Vec<String>,
    /// The device launches that make up the kernel on the CUDA backend, in
    /// order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_launches: Vec<GpuLaunch>,
    /// Bytes of each device temporary the launches share
    /// (`LaunchParam::Scratch`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_scratch: Vec<u64>,
}

/// The element type and dense row-major shape of a kernel's buffer
/// parameter: `{ dtype = "f32", shape = [4, 8] }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferType {
    pub dtype: DType,
    pub shape: Vec<usize>,
}

/// `f32[4, 8]`, as messages write buffers.
impl fmt::Display for BufferType {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let dims: Vec<String> = self.shape.iter().map(usize::to_string).collect();
        write!(f, "{}[{}]", self.dtype, dims.join(", "))
    }
}

/// One `gpu.launch_func` of a kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuLaunch {
    /// The PTX entry point.
    pub entry: String,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    /// The entry's parameters, in order.
    pub params: Vec<LaunchParam>,
}

/// One parameter of a device launch: what the runtime passes in that slot.
/// Written as a table tagged by `kind`:
/// `{ kind = "buffer", index = 0 }`, `{ kind = "rank" }`,
/// `{ kind = "constant", dtype = "i64", value = 4096 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LaunchParam {
    /// A device pointer to the kernel's `index`-th buffer parameter: the
    /// launch step's `buffers[index]`, or past those, a peer launch's peer
    /// parts in the order `Step::PeerLaunch` gives.
    Buffer { index: usize },
    /// A device pointer to the kernel's `index`-th temporary
    /// (`gpu_scratch[index]` bytes).
    Scratch { index: usize },
    /// The rank's position in its stage, as an i64. (A struct variant:
    /// serde lets a unit variant of a tagged enum carry any other fields.)
    Rank {},
    /// The position times `factor`, as an i64: a slice offset the host
    /// part of the kernel computes.
    RankTimes { factor: i64 },
    /// A constant of element type `dtype`: an integer for integer types
    /// (`i1` is 0 or 1), a float for float types.
    Constant { dtype: DType, value: Scalar },
}

/// A constant's value as the plan writes it: a TOML integer or float.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Integer(i64),
    Float(f64),
}

impl LaunchParam {
    /// Why the parameter cannot be one of `kernel`'s launch parameters, if
    /// it cannot.
    pub(crate) fn check(&self, kernel: &Kernel) -> std::result::Result<(), String> {
        match *self {
            LaunchParam::Buffer { index } if index >= kernel.buffers.len() => Err(format!(
                "buffer {index}, but the kernel takes {} buffers",
                kernel.buffers.len()
            )),
            LaunchParam::Scratch { index } if index >= kernel.gpu_scratch.len() => Err(format!(
                "scratch {index}, but the kernel has {} temporaries",
                kernel.gpu_scratch.len()
            )),
            LaunchParam::Constant { dtype, value } => match value {
                Scalar::Integer(v) if dtype.is_float() => Err(format!(
                    "the {dtype} constant {v} is an integer; write it as a float"
                )),
                Scalar::Float(v) if !dtype.is_float() => {
                    Err(format!("the {dtype} constant {v} is not an integer"))
                }
                Scalar::Integer(v) if !integer_fits(dtype, v) => {
                    Err(format!("the constant {v} does not fit in {dtype}"))
                }
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

/// For messages: `buffer 0`, `scratch 1`, `rank`, `rank * 4096`,
/// `i64 constant 4096`.
impl fmt::Display for LaunchParam {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            LaunchParam::Buffer { index } => write!(f, "buffer {index}"),
            LaunchParam::Scratch { index } => write!(f, "scratch {index}"),
            LaunchParam::Rank {} => f.write_str("rank"),
            LaunchParam::RankTimes { factor } => write!(f, "rank * {factor}"),
            LaunchParam::Constant { dtype, value } => match value {
                Scalar::Integer(v) => write!(f, "{dtype} constant {v}"),
                Scalar::Float(v) => write!(f, "{dtype} constant {v:?}"),
            },
        }
    }
}

fn integer_fits(dtype: DType, value: i64) -> bool {
    match dtype {
        DType::I1 => value == 0 || value == 1,
        DType::I32 => i32::try_from(value).is_ok(),
        _ => true,
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    /// The coco function.
    pub function: String,
    /// The ranks `first_rank .. first_rank + size` run this stage.
    pub first_rank: usize,
    pub size: usize,
    /// The stage's ranks as a grid of named axes, outermost first, whose
    /// sizes multiply to `size` (empty: one flat group).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mesh: Vec<MeshAxis>,
    pub buffers: Vec<Buffer>,
    pub steps: Vec<Step>,
}

/// A dense buffer of the same local shape on every rank of the stage, or a
/// view of a contiguous part of another buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// Filled from a program input before the first step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Io>,
    /// Written as a program output after the last step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Io>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<View>,
}

/// Sizes of a buffer of a validated plan, whose products cannot overflow
/// (`Plan::validate` checks them first).
impl Buffer {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn bytes(&self) -> usize {
        self.len() * self.dtype.size()
    }

    /// What a kernel parameter must be to take this buffer.
    pub fn ty(&self) -> BufferType {
        BufferType {
            dtype: self.dtype,
            shape: self.shape.clone(),
        }
    }
}

/// `shape.product()` elements of `of` starting at element
/// `offset + rank * rank_stride` (`rank`: the position in the stage), so a
/// rank's slice of a replicated buffer is a view, not a copy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct View {
    pub of: String,
    pub offset: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rank_stride: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl View {
    /// The first element on stage position `rank`.
    pub fn start(&self, rank: usize) -> usize {
        self.offset + rank * self.rank_stride
    }
}

/// How a program input or output maps to files: `name.npy` holds the global
/// tensor (`replicated`, `sliced-<d>`: rank r holds part r along d),
/// one tensor per rank stacked on a leading dimension (`local`), or a 0-d
/// value the same everywhere (`scalar`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Io {
    pub name: String,
    pub layout: IoLayout,
    /// On a stage with a mesh, the layout along each axis (`replicated`,
    /// `local` or `sliced-<d>`): the file holds the global tensor, or with
    /// `layout = "local"` one global tensor per position on the local axes
    /// (row-major over them), and each rank its block (`mesh.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub axes: Vec<IoLayout>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoLayout {
    Scalar,
    Replicated,
    Local,
    Sliced(usize),
}

impl IoLayout {
    pub fn text(self) -> String {
        match self {
            IoLayout::Scalar => "scalar".into(),
            IoLayout::Replicated => "replicated".into(),
            IoLayout::Local => "local".into(),
            IoLayout::Sliced(d) => format!("sliced-{d}"),
        }
    }

    /// The shape of the file that holds a buffer of local shape `local` on
    /// each of `size` ranks (the table in `docs/bundle.md`).
    pub fn file_shape(
        self,
        local: &[usize],
        size: usize,
    ) -> std::result::Result<Vec<usize>, String> {
        let dims = || format!("{local:?}");
        Ok(match self {
            IoLayout::Scalar => {
                if !local.iter().all(|&d| d == 1) {
                    return Err(format!("layout scalar, but shape {}", dims()));
                }
                Vec::new()
            }
            IoLayout::Replicated => local.to_vec(),
            IoLayout::Local => std::iter::once(size).chain(local.iter().copied()).collect(),
            IoLayout::Sliced(dim) => {
                let mut global = local.to_vec();
                let slot = global.get_mut(dim).ok_or_else(|| {
                    format!("layout sliced-{dim}, but only {} dimensions", local.len())
                })?;
                *slot = slot.checked_mul(size).ok_or_else(|| {
                    format!(
                        "layout sliced-{dim} over {size} ranks: dimension {dim} of {} overflows",
                        dims()
                    )
                })?;
                global
            }
        })
    }

    pub fn parse(text: &str) -> Option<IoLayout> {
        Some(match text {
            "scalar" => IoLayout::Scalar,
            "replicated" => IoLayout::Replicated,
            "local" => IoLayout::Local,
            _ => IoLayout::Sliced(text.strip_prefix("sliced-")?.parse().ok()?),
        })
    }
}

impl Serialize for IoLayout {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for IoLayout {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        IoLayout::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown layout '{text}' (expected scalar, replicated, local or sliced-<dim>)"
            ))
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reduction {
    Sum,
    Prod,
    Min,
    Max,
    Avg,
}

/// One step. Steps on one stream run in order; steps on different streams
/// may overlap and are ordered only by events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    Launch {
        kernel: String,
        buffers: Vec<String>,
        #[serde(default)]
        stream: u32,
    },
    /// The one-kernel fused collective: a kernel that also reads and writes
    /// the other ranks' copies of some buffers, which live in memory every
    /// rank of the stage maps (on the CPU an MPI-3 shared-memory window on
    /// one node, reaching other nodes through MPI; on the GPU the peers'
    /// allocations mapped by CUDA IPC, one node).
    /// The stage synchronises before it (so every rank's inputs are
    /// complete) and after it (so every rank's outputs are). The kernel's
    /// parameters are `buffers`, then for each of `peer_reads` one per
    /// position 0..size (part `rank` of that buffer on that position, in
    /// position order, so a reduction folds in rank order), then for each
    /// of `peer_writes` one per other position, rank + 1 ... rank + size - 1
    /// (mod size): part `rank` of that buffer there. A rank's own part of a
    /// written buffer is an ordinary output in `buffers` (a view), so no two
    /// parameters alias. A part is the buffer split into `size` equal
    /// contiguous pieces along its first dimension.
    PeerLaunch {
        kernel: String,
        buffers: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        peer_reads: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        peer_writes: Vec<String>,
        #[serde(default)]
        stream: u32,
    },
    AllReduce {
        reduction: Reduction,
        input: String,
        output: String,
        /// The mesh axis the collective runs over: each row of ranks along
        /// it is a group of its own ([`Step::axis`]; `""`, or none on a
        /// stage without a mesh of two or more axes: the whole stage).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<String>,
        #[serde(default)]
        stream: u32,
    },
    /// Output is part `rank` of the reduction along `dim`.
    ReduceScatter {
        reduction: Reduction,
        input: String,
        output: String,
        dim: usize,
        /// The mesh axis the collective runs over: each row of ranks along
        /// it is a group of its own ([`Step::axis`]; `""`, or none on a
        /// stage without a mesh of two or more axes: the whole stage).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<String>,
        #[serde(default)]
        stream: u32,
    },
    /// Output is every rank's input concatenated along `dim`.
    AllGather {
        input: String,
        output: String,
        dim: usize,
        /// The mesh axis the collective runs over: each row of ranks along
        /// it is a group of its own ([`Step::axis`]; `""`, or none on a
        /// stage without a mesh of two or more axes: the whole stage).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<String>,
        #[serde(default)]
        stream: u32,
    },
    Broadcast {
        root: usize,
        input: String,
        output: String,
        /// The mesh axis the collective runs over: each row of ranks along
        /// it is a group of its own ([`Step::axis`]; `""`, or none on a
        /// stage without a mesh of two or more axes: the whole stage).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<String>,
        #[serde(default)]
        stream: u32,
    },
    /// Output on `root` is the reduction; on other ranks it is a copy of
    /// their input (the interpreter's semantics).
    Reduce {
        root: usize,
        reduction: Reduction,
        input: String,
        output: String,
        /// The mesh axis the collective runs over: each row of ranks along
        /// it is a group of its own ([`Step::axis`]; `""`, or none on a
        /// stage without a mesh of two or more axes: the whole stage).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<String>,
        #[serde(default)]
        stream: u32,
    },
    /// Input split along `split_dim` into one part per rank, part r sent to
    /// rank r; output is the received parts concatenated along `concat_dim`.
    AllToAll {
        input: String,
        output: String,
        split_dim: usize,
        concat_dim: usize,
        /// The mesh axis the collective runs over: each row of ranks along
        /// it is a group of its own ([`Step::axis`]; `""`, or none on a
        /// stage without a mesh of two or more axes: the whole stage).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis: Option<String>,
        #[serde(default)]
        stream: u32,
    },
    /// To the rank at the same position in stage `peer_stage`.
    Send {
        input: String,
        peer_stage: usize,
        #[serde(default)]
        stream: u32,
    },
    Recv {
        output: String,
        peer_stage: usize,
        #[serde(default)]
        stream: u32,
    },
    Copy {
        input: String,
        output: String,
        #[serde(default)]
        stream: u32,
    },
    RecordEvent {
        event: String,
        #[serde(default)]
        stream: u32,
    },
    WaitEvent {
        event: String,
        #[serde(default)]
        stream: u32,
    },
}

impl Step {
    /// The step's `op`, as the plan writes it (`all_reduce`...).
    pub fn op(&self) -> &'static str {
        match self {
            Step::Launch { .. } => "launch",
            Step::PeerLaunch { .. } => "peer_launch",
            Step::AllReduce { .. } => "all_reduce",
            Step::ReduceScatter { .. } => "reduce_scatter",
            Step::AllGather { .. } => "all_gather",
            Step::Broadcast { .. } => "broadcast",
            Step::Reduce { .. } => "reduce",
            Step::AllToAll { .. } => "all_to_all",
            Step::Send { .. } => "send",
            Step::Recv { .. } => "recv",
            Step::Copy { .. } => "copy",
            Step::RecordEvent { .. } => "record_event",
            Step::WaitEvent { .. } => "wait_event",
        }
    }

    /// The mesh axis a collective runs over; `None`: the whole stage (the
    /// plan's `axis = ""`, or no `axis`, which `Plan::validate` accepts
    /// only where it cannot mean anything else).
    pub fn axis(&self) -> Option<&str> {
        self.axis_field().filter(|axis| !axis.is_empty())
    }

    /// Whether the step is a collective over a group of the stage (one
    /// that has an `axis`).
    pub fn is_collective(&self) -> bool {
        matches!(
            self,
            Step::AllReduce { .. }
                | Step::ReduceScatter { .. }
                | Step::AllGather { .. }
                | Step::Broadcast { .. }
                | Step::Reduce { .. }
                | Step::AllToAll { .. }
        )
    }

    /// A collective's `axis` as the plan writes it.
    pub fn axis_field(&self) -> Option<&str> {
        match self {
            Step::AllReduce { axis, .. }
            | Step::ReduceScatter { axis, .. }
            | Step::AllGather { axis, .. }
            | Step::Broadcast { axis, .. }
            | Step::Reduce { axis, .. }
            | Step::AllToAll { axis, .. } => axis.as_deref(),
            _ => None,
        }
    }

    /// A collective's `axis`, to set it.
    pub fn axis_mut(&mut self) -> Option<&mut Option<String>> {
        match self {
            Step::AllReduce { axis, .. }
            | Step::ReduceScatter { axis, .. }
            | Step::AllGather { axis, .. }
            | Step::Broadcast { axis, .. }
            | Step::Reduce { axis, .. }
            | Step::AllToAll { axis, .. } => Some(axis),
            _ => None,
        }
    }

    /// The kernel a launch step runs.
    pub fn kernel(&self) -> Option<&str> {
        match self {
            Step::Launch { kernel, .. } | Step::PeerLaunch { kernel, .. } => Some(kernel),
            _ => None,
        }
    }

    /// The names of the buffers the step reads and writes, to rename them.
    pub fn buffers_mut(&mut self) -> Vec<&mut String> {
        match self {
            Step::Launch { buffers, .. } => buffers.iter_mut().collect(),
            Step::PeerLaunch {
                buffers,
                peer_reads,
                peer_writes,
                ..
            } => buffers
                .iter_mut()
                .chain(peer_reads.iter_mut())
                .chain(peer_writes.iter_mut())
                .collect(),
            Step::AllReduce { input, output, .. }
            | Step::ReduceScatter { input, output, .. }
            | Step::AllGather { input, output, .. }
            | Step::Broadcast { input, output, .. }
            | Step::Reduce { input, output, .. }
            | Step::AllToAll { input, output, .. }
            | Step::Copy { input, output, .. } => vec![input, output],
            Step::Send { input, .. } => vec![input],
            Step::Recv { output, .. } => vec![output],
            Step::RecordEvent { .. } | Step::WaitEvent { .. } => Vec::new(),
        }
    }

    pub fn stream(&self) -> u32 {
        match self {
            Step::Launch { stream, .. }
            | Step::PeerLaunch { stream, .. }
            | Step::AllReduce { stream, .. }
            | Step::ReduceScatter { stream, .. }
            | Step::AllGather { stream, .. }
            | Step::Broadcast { stream, .. }
            | Step::Reduce { stream, .. }
            | Step::AllToAll { stream, .. }
            | Step::Send { stream, .. }
            | Step::Recv { stream, .. }
            | Step::Copy { stream, .. }
            | Step::RecordEvent { stream, .. }
            | Step::WaitEvent { stream, .. } => *stream,
        }
    }

    /// The buffers the step reads and writes.
    /// The buffer the step reads by name (a collective's, a copy's or a
    /// send's input); a launch's arguments are not split into reads and
    /// writes.
    pub fn input(&self) -> Option<&str> {
        match self {
            Step::AllReduce { input, .. }
            | Step::ReduceScatter { input, .. }
            | Step::AllGather { input, .. }
            | Step::Broadcast { input, .. }
            | Step::Reduce { input, .. }
            | Step::AllToAll { input, .. }
            | Step::Copy { input, .. }
            | Step::Send { input, .. } => Some(input),
            _ => None,
        }
    }

    pub fn buffers(&self) -> Vec<&str> {
        match self {
            Step::Launch { buffers, .. } => buffers.iter().map(String::as_str).collect(),
            Step::PeerLaunch {
                buffers,
                peer_reads,
                peer_writes,
                ..
            } => buffers
                .iter()
                .chain(peer_reads)
                .chain(peer_writes)
                .map(String::as_str)
                .collect(),
            Step::AllReduce { input, output, .. }
            | Step::ReduceScatter { input, output, .. }
            | Step::AllGather { input, output, .. }
            | Step::Broadcast { input, output, .. }
            | Step::Reduce { input, output, .. }
            | Step::AllToAll { input, output, .. }
            | Step::Copy { input, output, .. } => vec![input, output],
            Step::Send { input, .. } => vec![input],
            Step::Recv { output, .. } => vec![output],
            Step::RecordEvent { .. } | Step::WaitEvent { .. } => Vec::new(),
        }
    }
}

/// `toml` writes every array of tables as `[[...]]` sections, which would
/// spread each launch parameter (and each kernel buffer type) over two or
/// three lines of its own; they read better as one inline array
/// (`params = [{ kind = "buffer", index = 0 }, { kind = "rank" }]`).
/// Both forms parse to the same plan.
fn inline_launch_params(body: &str) -> String {
    let mut document: toml_edit::DocumentMut = body.parse().expect("toml's output is valid TOML");
    // Digests on one line, beside the file they are of.
    inline_table(document.as_table_mut(), "native_digest");
    if let Some(ptx) = document
        .get_mut("ptx")
        .and_then(toml_edit::Item::as_table_mut)
    {
        inline_table(ptx, "digest");
    }
    // A stage's mesh on one line, after its placement in the world.
    let stages = document
        .get_mut("stages")
        .and_then(toml_edit::Item::as_array_of_tables_mut);
    for stage in stages.into_iter().flat_map(|s| s.iter_mut()) {
        if let Some(item) = stage.remove("mesh") {
            if let Ok(array) = item.into_value() {
                stage.insert("mesh", toml_edit::Item::Value(array));
            }
        }
    }
    let kernels = document
        .get_mut("kernels")
        .and_then(toml_edit::Item::as_array_of_tables_mut);
    for kernel in kernels.into_iter().flat_map(|k| k.iter_mut()) {
        inline(kernel, "buffers");
        // The buffers right after the name, as `Kernel` declares them.
        for key in ["computes", "gpu_scratch"] {
            if let Some(item) = kernel.remove(key) {
                kernel.insert(key, item);
            }
        }
        let launches = kernel
            .get_mut("gpu_launches")
            .and_then(toml_edit::Item::as_array_of_tables_mut);
        for launch in launches.into_iter().flat_map(|l| l.iter_mut()) {
            inline(launch, "params");
        }
    }
    document.to_string()
}

/// Rewrites table `key` of `table` as an inline table, at the end of the
/// table's keys.
fn inline_table(table: &mut toml_edit::Table, key: &str) {
    if let Some(item) = table.remove(key) {
        let item = match item {
            toml_edit::Item::Table(t) => {
                toml_edit::Item::Value(toml_edit::Value::InlineTable(t.into_inline_table()))
            }
            other => other,
        };
        table.insert(key, item);
    }
}

/// Rewrites array of tables `key` of `table` as an inline array, at the
/// end of the table.
fn inline(table: &mut toml_edit::Table, key: &str) {
    // Arrays of tables come after the table's other keys, so re-inserting
    // at the end keeps the order (and gives the key the usual ` = `).
    if let Some(item) = table.remove(key) {
        let item = match item.into_value() {
            Ok(array) => toml_edit::Item::Value(array),
            Err(item) => item,
        };
        table.insert(key, item);
    }
}

impl Plan {
    pub fn new(source: &str, ranks: usize) -> Plan {
        Plan {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            source: source.into(),
            ranks,
            ptx: None,
            native: None,
            native_digest: None,
            kernels: Vec::new(),
            stages: Vec::new(),
        }
    }

    pub fn to_text(&self) -> String {
        let body = inline_launch_params(&toml::to_string(self).expect("plans always serialise"));
        format!(
            "# coco execution plan; format: docs/bundle.md\n# compiled from {} for {} ranks\n{body}",
            self.source, self.ranks
        )
    }

    pub fn parse(text: &str, path: &Path) -> Result<Plan> {
        let fail = |message: String| Error::Plan {
            path: path.display().to_string(),
            message,
        };
        // Check the version before the schema, so that a bundle from a newer
        // compiler is reported as such rather than as a schema error.
        let raw: toml::Table = text.parse().map_err(|e| fail(format!("{e}")))?;
        if raw.get("format").and_then(|v| v.as_str()) != Some(FORMAT_NAME) {
            return Err(fail(format!(
                "not a coco plan (no `format = \"{FORMAT_NAME}\"`)"
            )));
        }
        match raw.get("version").and_then(|v| v.as_integer()) {
            Some(v) if v == i64::from(FORMAT_VERSION) => {}
            Some(v) if v < i64::from(FORMAT_VERSION) => {
                return Err(fail(format!(
                    "plan format version {v}; this executor reads version {FORMAT_VERSION}: \
                     recompile the bundle with this release's coco-translate --emit=bundle"
                )))
            }
            Some(v) => {
                return Err(fail(format!(
                    "plan format version {v}; this executor reads version {FORMAT_VERSION}: \
                     run the bundle with the coco-exec of the release that compiled it"
                )))
            }
            None => return Err(fail("no `version`".into())),
        }
        let plan: Plan = toml::from_str(text).map_err(|e| fail(format!("{e}")))?;
        plan.validate().map_err(fail)?;
        Ok(plan)
    }

    pub fn load(bundle: &Path) -> Result<Plan> {
        let path = bundle.join(PLAN_FILE);
        // A FIFO or a device would be read forever.
        let metadata = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
        if !metadata.is_file() {
            return Err(Error::Plan {
                path: path.display().to_string(),
                message: "not a regular file".into(),
            });
        }
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        Plan::parse(&text, &path)
    }

    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The stage rank `rank` runs, and its position in it.
    pub fn stage_of(&self, rank: usize) -> Option<(usize, usize)> {
        self.stages
            .iter()
            .position(|s| (s.first_rank..s.first_rank.saturating_add(s.size)).contains(&rank))
            .map(|i| (i, rank - self.stages[i].first_rank))
    }

    /// Where step `index` of stage `stage` is, for messages:
    /// `stage 0 (@adam), step 3 (all_reduce)`.
    pub fn step_context(&self, stage: usize, index: usize) -> String {
        let s = &self.stages[stage];
        format!(
            "stage {stage} (@{}), step {index} ({})",
            s.function,
            s.steps[index].op()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32x4() -> BufferType {
        BufferType {
            dtype: DType::F32,
            shape: vec![4],
        }
    }

    fn sample() -> Plan {
        let mut plan = Plan::new("adam.mlir", 2);
        plan.native = Some("kernels.so".into());
        plan.kernels.push(Kernel {
            name: "adam_k0".into(),
            buffers: vec![f32x4(), f32x4()],
            computes: vec!["arith.mulf".into()],
            gpu_launches: vec![GpuLaunch {
                entry: "adam_k0_kernel".into(),
                grid: [64, 1, 1],
                block: [64, 1, 1],
                params: vec![
                    LaunchParam::Buffer { index: 1 },
                    LaunchParam::Scratch { index: 0 },
                    LaunchParam::Rank {},
                    LaunchParam::RankTimes { factor: 4096 },
                    LaunchParam::Constant {
                        dtype: DType::I64,
                        value: Scalar::Integer(-3),
                    },
                    LaunchParam::Constant {
                        dtype: DType::F32,
                        value: Scalar::Float(0.5),
                    },
                ],
            }],
            gpu_scratch: vec![256],
        });
        let buffer = |name: &str, input: Option<Io>| Buffer {
            name: name.into(),
            dtype: DType::F32,
            shape: vec![4],
            input,
            output: None,
            view: None,
        };
        plan.stages.push(Stage {
            function: "adam".into(),
            first_rank: 0,
            size: 2,
            buffers: vec![
                buffer(
                    "grad",
                    Some(Io {
                        name: "adam.arg0".into(),
                        layout: IoLayout::Local,
                        axes: Vec::new(),
                    }),
                ),
                buffer("g", None),
            ],
            steps: vec![
                Step::AllReduce {
                    reduction: Reduction::Avg,
                    input: "grad".into(),
                    output: "g".into(),
                    stream: 0,
                    axis: None,
                },
                Step::Launch {
                    kernel: "adam_k0".into(),
                    buffers: vec!["g".into(), "grad".into()],
                    stream: 0,
                },
            ],
            mesh: Vec::new(),
        });
        plan
    }

    #[test]
    fn round_trips_through_text() {
        let plan = sample();
        let text = plan.to_text();
        assert!(text.contains("op = \"all_reduce\""), "{text}");
        assert_eq!(Plan::parse(&text, Path::new("plan.toml")).unwrap(), plan);
    }

    #[test]
    fn launch_params_are_tagged_tables() {
        let text = sample().to_text();
        let params = concat!(
            r#"params = [{ kind = "buffer", index = 1 }, { kind = "scratch", index = 0 }, "#,
            r#"{ kind = "rank" }, { kind = "rank_times", factor = 4096 }, "#,
            r#"{ kind = "constant", dtype = "i64", value = -3 }, "#,
            r#"{ kind = "constant", dtype = "f32", value = 0.5 }]"#,
            "\n",
        );
        assert!(text.contains(params), "{text}");
        // The `[[...]]` form that `toml` writes by itself means the same.
        let sections = text.replace(
            params,
            "\n[[kernels.gpu_launches.params]]\nkind = \"rank\"\n",
        );
        let plan = Plan::parse(&sections, Path::new("plan.toml")).unwrap();
        assert_eq!(
            plan.kernels[0].gpu_launches[0].params,
            [LaunchParam::Rank {}]
        );
    }

    /// The sample's text with its first launch parameter replaced by
    /// `param` (an inline table).
    fn with_first_param(param: &str) -> String {
        let text = sample().to_text();
        let first = r#"{ kind = "buffer", index = 1 }"#;
        assert!(text.contains(first), "{text}");
        text.replacen(first, param, 1)
    }

    fn parse_error(text: &str) -> String {
        Plan::parse(text, Path::new("plan.toml"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn rejects_malformed_launch_params() {
        for (param, expected) in [
            (r#"{ kind = "bufer", index = 1 }"#, "unknown variant `bufer`"),
            (r#"{ kind = "buffer" }"#, "missing field `index`"),
            (
                r#"{ kind = "buffer", index = 1, offset = 2 }"#,
                "unknown field `offset`",
            ),
            (r#"{ kind = "rank", factor = 2 }"#, "unknown field `factor`"),
            (r#"{ kind = "buffer", index = -1 }"#, "invalid value"),
            (r#"{ kind = "rank_times", factor = "4" }"#, "invalid type"),
            (
                r#"{ kind = "constant", dtype = "i8", value = 1 }"#,
                "unknown variant `i8`",
            ),
            (r#"{ index = 1 }"#, "missing field `kind`"),
            (
                r#"{ kind = "buffer", index = 2 }"#,
                "kernel 'adam_k0': launch 0 (adam_k0_kernel), parameter 0: buffer 2, but the kernel takes 2 buffers",
            ),
            (
                r#"{ kind = "scratch", index = 1 }"#,
                "scratch 1, but the kernel has 1 temporaries",
            ),
            (
                r#"{ kind = "constant", dtype = "i32", value = 1.5 }"#,
                "the i32 constant 1.5 is not an integer",
            ),
            (
                r#"{ kind = "constant", dtype = "f32", value = 1 }"#,
                "the f32 constant 1 is an integer",
            ),
            (
                r#"{ kind = "constant", dtype = "i1", value = 2 }"#,
                "the constant 2 does not fit in i1",
            ),
        ] {
            let error = parse_error(&with_first_param(param));
            assert!(error.contains(expected), "{param}: {error}");
        }
        // Version 1's prefixed strings are not parameters.
        let text = sample().to_text();
        let start = text.find("params = [").unwrap();
        let end = start + text[start..].find('\n').unwrap();
        let old = format!(
            "{}params = [\"buffer:1\", \"scratch:0\", \"rank\"]{}",
            &text[..start],
            &text[end..]
        );
        let error = parse_error(&old);
        assert!(
            error.contains("invalid type: string \"buffer:1\""),
            "{error}"
        );
    }

    #[test]
    fn the_gpu_check_reads_this_version() {
        // scripts/gpu/check.py reads plan.json on the GPU machine.
        let script = include_str!("../../../scripts/gpu/check.py");
        assert!(
            script.contains(&format!("\nPLAN_VERSION = {FORMAT_VERSION}\n")),
            "scripts/gpu/check.py reads another plan version than {FORMAT_VERSION}"
        );
    }

    #[test]
    fn rejects_other_versions_and_dangling_names() {
        let text = sample()
            .to_text()
            .replace(&format!("version = {FORMAT_VERSION}"), "version = 7");
        let error = parse_error(&text);
        assert!(
            error.contains(&format!(
                "version 7; this executor reads version {FORMAT_VERSION}"
            )),
            "{error}"
        );
        // A version-1 plan (launch parameters as strings) is named as such,
        // not misread.
        let text = sample()
            .to_text()
            .replace(&format!("version = {FORMAT_VERSION}"), "version = 1");
        let error = parse_error(&text);
        assert!(
            error.contains(&format!(
                "plan format version 1; this executor reads version {FORMAT_VERSION}: \
                 recompile the bundle with this release's coco-translate --emit=bundle"
            )),
            "{error}"
        );

        let mut plan = sample();
        plan.stages[0].steps[1] = Step::Launch {
            kernel: "nope".into(),
            buffers: vec![],
            stream: 0,
        };
        assert!(plan
            .validate()
            .unwrap_err()
            .contains("unknown kernel 'nope'"));

        let mut plan = sample();
        plan.stages[0].size = 1;
        assert!(plan
            .validate()
            .unwrap_err()
            .contains("rank 1 belongs to no stage"));
    }

    #[test]
    fn kernel_buffer_types_are_inline_tables() {
        let text = sample().to_text();
        let buffers = concat!(
            r#"buffers = [{ dtype = "f32", shape = [4] }, "#,
            r#"{ dtype = "f32", shape = [4] }]"#,
            "\n",
        );
        assert!(text.contains(buffers), "{text}");
        // A version-2 kernel (a count of buffers) is no version-3 kernel.
        let old = text.replace(buffers, "buffers = 2\n");
        assert!(parse_error(&old).contains("invalid type: integer `2`, expected a sequence"));
    }
}
