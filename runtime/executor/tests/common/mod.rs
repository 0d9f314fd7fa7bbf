//! Test support: tiny C kernels compiled into a shared library at test time,
//! bundles written from `Plan` values, `.npy` inputs, and `coco-exec` runs
//! under a hard timeout (a hang fails the test instead of blocking CI).

#![allow(dead_code)]

use std::{
    fs::File,
    path::{Path, PathBuf},
    process::{Command, ExitStatus, Stdio},
    sync::OnceLock,
    time::{Duration, Instant},
};

use coco_base::npy;
use coco_bundle::{Buffer, DType, Io, IoLayout, Kernel, Plan, Stage, Step, View, FORMAT_VERSION};

/// Every child process is killed after this long and the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(60);

pub const EXEC: &str = env!("CARGO_BIN_EXE_coco-exec");

/// The kernels. The ABI is the bundle's: buffer pointers, then the rank's
/// position in its stage. Sizes are fixed, as in compiled kernels.
const KERNELS_C: &str = r#"
#include <stdint.h>
#include <stdlib.h>

/* y = a * x + b over 8 elements; a is a scalar. */
void axpb(const float *a, const float *x, const float *b, float *y, int64_t rank) {
    for (int i = 0; i < 8; i++) y[i] = a[0] * x[i] + b[i];
}

/* x += rank over 4 elements. */
void add_rank(float *x, int64_t rank) {
    for (int i = 0; i < 4; i++) x[i] += (float)rank;
}

/* x *= 2 over 4 elements. */
void twice(float *x, int64_t rank) {
    for (int i = 0; i < 4; i++) x[i] *= 2.0f;
}

void crash_on_rank1(float *x, int64_t rank) {
    if (rank == 1) abort();
}

/* p31[0] = p0[0] + ... + p30[0]: the widest kernel the executor calls. */
#define P(i) float *p##i
void sum32(P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9), P(10),
           P(11), P(12), P(13), P(14), P(15), P(16), P(17), P(18), P(19), P(20),
           P(21), P(22), P(23), P(24), P(25), P(26), P(27), P(28), P(29), P(30),
           P(31), int64_t rank) {
    float *p[31] = {p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13,
                    p14, p15, p16, p17, p18, p19, p20, p21, p22, p23, p24, p25,
                    p26, p27, p28, p29, p30};
    float s = 0.0f;
    for (int i = 0; i < 31; i++) s += p[i][0];
    p31[0] = s;
}
"#;

/// A fresh directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    // Under cargo's per-package scratch space, one folder per test binary.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(env!("CARGO_CRATE_NAME"))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `kernels.so`, compiled once per test binary.
pub fn kernels_so() -> &'static Path {
    static SO: OnceLock<PathBuf> = OnceLock::new();
    SO.get_or_init(|| {
        let dir = scratch("_kernels");
        let source = dir.join("kernels.c");
        std::fs::write(&source, KERNELS_C).unwrap();
        let so = dir.join("kernels.so");
        let status = Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-o"])
            .arg(&so)
            .arg(&source)
            .status()
            .expect("the tests compile their kernels with `cc`");
        assert!(status.success(), "cc failed on the test kernels");
        so
    })
}

/// A native kernel entry taking f32 buffers of `shapes` (parsed, so that
/// fields the format adds later for other backends take their defaults).
pub fn kernel(name: &str, shapes: &[&[usize]]) -> Kernel {
    let buffers: Vec<String> = shapes
        .iter()
        .map(|shape| format!("{{ dtype = \"f32\", shape = {shape:?} }}"))
        .collect();
    let text = format!(
        "format = \"coco-bundle\"\nversion = {FORMAT_VERSION}\nsource = \"k\"\nranks = 1\n\
         [[kernels]]\nname = \"{name}\"\nbuffers = [{}]\n\
         [[stages]]\nfunction = \"f\"\nfirst_rank = 0\nsize = 1\nbuffers = []\nsteps = []\n",
        buffers.join(", ")
    );
    let mut plan = Plan::parse(&text, Path::new("kernel.toml")).unwrap();
    plan.kernels.remove(0)
}

pub fn buffer(name: &str, dtype: DType, shape: &[usize]) -> Buffer {
    Buffer {
        name: name.into(),
        dtype,
        shape: shape.to_vec(),
        input: None,
        output: None,
        view: None,
    }
}

pub trait BufferExt {
    fn input(self, layout: IoLayout) -> Buffer;
    fn output(self, layout: IoLayout) -> Buffer;
    fn view_of(self, base: &str, offset: usize) -> Buffer;
    fn rank_stride(self, stride: usize) -> Buffer;
}

impl BufferExt for Buffer {
    /// An input named like the buffer.
    fn input(mut self, layout: IoLayout) -> Buffer {
        self.input = Some(Io {
            name: self.name.clone(),
            layout,
            axes: Vec::new(),
        });
        self
    }

    /// An output named `out_<buffer>`.
    fn output(mut self, layout: IoLayout) -> Buffer {
        self.output = Some(Io {
            name: format!("out_{}", self.name),
            layout,
            axes: Vec::new(),
        });
        self
    }

    fn view_of(mut self, base: &str, offset: usize) -> Buffer {
        self.view = Some(View {
            of: base.into(),
            offset,
            rank_stride: 0,
        });
        self
    }

    fn rank_stride(mut self, stride: usize) -> Buffer {
        self.view.as_mut().expect("a view").rank_stride = stride;
        self
    }
}

pub fn stage(first_rank: usize, size: usize, buffers: Vec<Buffer>, steps: Vec<Step>) -> Stage {
    Stage {
        function: "main".into(),
        first_rank,
        size,
        buffers,
        steps,
        mesh: Vec::new(),
    }
}

/// A plan of one stage over `ranks` ranks, with the test kernels.
/// `layout` along each axis of a stage's mesh: the file holds the global
/// tensor (`local` when some axis is local, one per local position).
pub fn axes(axes: &[IoLayout]) -> coco_bundle::Io {
    coco_bundle::Io {
        name: String::new(),
        layout: if axes.contains(&IoLayout::Local) {
            IoLayout::Local
        } else {
            IoLayout::Replicated
        },
        axes: axes.to_vec(),
    }
}

/// A mesh of named axes for a stage.
pub fn mesh(axes: &[(&str, usize)]) -> Vec<coco_bundle::MeshAxis> {
    axes.iter()
        .map(|&(name, size)| coco_bundle::MeshAxis {
            name: name.into(),
            size,
        })
        .collect()
}

pub fn plan(ranks: usize, buffers: Vec<Buffer>, steps: Vec<Step>) -> Plan {
    let mut plan = Plan::new("test.mlir", ranks);
    plan.native = Some("kernels.so".into());
    // The sizes the C kernels above read and write.
    plan.kernels = vec![
        kernel("axpb", &[&[], &[8], &[8], &[8]]),
        kernel("add_rank", &[&[4]]),
        kernel("twice", &[&[4]]),
        kernel("crash_on_rank1", &[&[4]]),
        kernel("sum32", &[&[1usize][..]; 32]),
    ];
    plan.stages = vec![stage(0, ranks, buffers, steps)];
    plan
}

pub fn launch(kernel: &str, buffers: &[&str]) -> Step {
    Step::Launch {
        kernel: kernel.into(),
        buffers: buffers.iter().map(|b| b.to_string()).collect(),
        stream: 0,
    }
}

/// A dense tensor of f64 values (the element type is the array's).
#[derive(Clone, Debug, PartialEq)]
pub struct T {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

impl T {
    pub fn new(shape: &[usize], f: impl Fn(usize) -> f64) -> T {
        let n = shape.iter().product();
        T {
            shape: shape.to_vec(),
            data: (0..n).map(f).collect(),
        }
    }

    fn split(&self, dim: usize) -> (usize, usize, usize) {
        (
            self.shape[..dim].iter().product(),
            self.shape[dim],
            self.shape[dim + 1..].iter().product(),
        )
    }

    /// Part `index` of `parts` along `dim`.
    pub fn part(&self, dim: usize, parts: usize, index: usize) -> T {
        let (outer, rows, inner) = self.split(dim);
        let size = rows / parts;
        let mut shape = self.shape.clone();
        shape[dim] = size;
        let mut data = Vec::new();
        for o in 0..outer {
            let start = (o * rows + index * size) * inner;
            data.extend_from_slice(&self.data[start..start + size * inner]);
        }
        T { shape, data }
    }

    pub fn concat(parts: &[T], dim: usize) -> T {
        let (outer, _, inner) = parts[0].split(dim);
        let mut shape = parts[0].shape.clone();
        shape[dim] = parts.iter().map(|p| p.shape[dim]).sum();
        let mut data = Vec::new();
        for o in 0..outer {
            for p in parts {
                let chunk = p.shape[dim] * inner;
                data.extend_from_slice(&p.data[o * chunk..(o + 1) * chunk]);
            }
        }
        T { shape, data }
    }

    /// Row `index` of a stacked tensor.
    pub fn row(&self, index: usize) -> T {
        let mut t = self.part(0, self.shape[0], index);
        t.shape.remove(0);
        t
    }

    pub fn stack(rows: &[T]) -> T {
        let mut shape = vec![rows.len()];
        shape.extend_from_slice(&rows[0].shape);
        T {
            shape,
            data: rows.iter().flat_map(|r| r.data.clone()).collect(),
        }
    }

    pub fn array(&self, dtype: DType) -> npy::Array {
        let mut data = Vec::new();
        for &x in &self.data {
            dtype.store(x, &mut data);
        }
        npy::Array {
            dtype,
            shape: self.shape.clone(),
            data,
        }
    }
}

/// Rounds `x` to `dtype` (floats; integers pass through).
pub fn round(dtype: DType, x: f64) -> f64 {
    let mut bytes = Vec::new();
    dtype.store(x, &mut bytes);
    dtype.load(&bytes, 0)
}

/// A bundle directory with `plan.toml`, `kernels.so` and an `inputs/`
/// folder.
pub struct Bundle {
    pub dir: PathBuf,
}

impl Bundle {
    pub fn new(name: &str, plan: &Plan) -> Bundle {
        let dir = scratch(name);
        std::fs::copy(kernels_so(), dir.join("kernels.so")).unwrap();
        // As coco-translate does: the plan pins the kernels it loads.
        let mut plan = plan.clone();
        plan.record_digests(&dir).unwrap();
        std::fs::write(dir.join("plan.toml"), plan.to_text()).unwrap();
        std::fs::create_dir_all(dir.join("inputs")).unwrap();
        Bundle { dir }
    }

    pub fn inputs(&self) -> PathBuf {
        self.dir.join("inputs")
    }

    pub fn outputs(&self) -> PathBuf {
        self.dir.join("outputs")
    }

    pub fn input(&self, name: &str, dtype: DType, value: &T) -> &Self {
        npy::write(
            &self.inputs().join(format!("{name}.npy")),
            &value.array(dtype),
        )
        .unwrap();
        self
    }

    /// Output `name` as written by the run.
    pub fn output(&self, name: &str, dtype: DType) -> T {
        let path = self.outputs().join(format!("{name}.npy"));
        let array =
            npy::read(&path, dtype).unwrap_or_else(|e| panic!("reading output {name}: {e}"));
        T {
            shape: array.shape.clone(),
            data: (0..array.len())
                .map(|i| dtype.load(&array.data, i))
                .collect(),
        }
    }

    /// `coco-exec BUNDLE --inputs .. --outputs .. ARGS` (it launches mpirun
    /// itself).
    pub fn run(&self, args: &[&str]) -> Outcome {
        let mut command = Command::new(EXEC);
        command
            .arg(&self.dir)
            .arg("--inputs")
            .arg(self.inputs())
            .arg("--outputs")
            .arg(self.outputs())
            .args(args);
        self.spawn(command)
    }

    /// The same, started by `mpirun -n RANKS` directly.
    pub fn run_under_mpirun(&self, ranks: usize, args: &[&str]) -> Outcome {
        let mut forwarded = vec![
            self.dir.clone().into_os_string(),
            "--inputs".into(),
            self.inputs().into_os_string(),
            "--outputs".into(),
            self.outputs().into_os_string(),
        ];
        forwarded.extend(args.iter().map(Into::into));
        let command = coco_runtime::launch::mpirun(ranks, Path::new(EXEC), &forwarded).unwrap();
        self.spawn(command)
    }

    /// Runs `command` in its own process group with a hard timeout.
    pub fn spawn(&self, mut command: Command) -> Outcome {
        use std::os::unix::process::CommandExt;
        let (out, err) = (self.dir.join("stdout"), self.dir.join("stderr"));
        command
            .stdin(Stdio::null())
            .stdout(File::create(&out).unwrap())
            .stderr(File::create(&err).unwrap())
            .process_group(0);
        // The test process may itself run under a launcher (never in CI).
        for var in [
            "OMPI_COMM_WORLD_SIZE",
            "OMPI_COMM_WORLD_RANK",
            "PMI_SIZE",
            "PMIX_RANK",
        ] {
            command.env_remove(var);
        }
        let described = format!("{command:?}");
        let mut child = command.spawn().expect("spawning coco-exec");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > TIMEOUT {
                let group = format!("-{}", child.id());
                // mpirun takes its ranks down on TERM; KILL the group after.
                let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
                std::thread::sleep(Duration::from_secs(2));
                let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
                let _ = child.wait();
                panic!(
                    "timed out after {TIMEOUT:?}: {described}\nstderr:\n{}",
                    std::fs::read_to_string(&err).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Outcome {
            status,
            stdout: std::fs::read_to_string(out).unwrap(),
            stderr: std::fs::read_to_string(err).unwrap(),
        }
    }

    pub fn remove(self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub struct Outcome {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    #[track_caller]
    pub fn assert_success(&self) {
        assert!(
            self.status.success(),
            "coco-exec failed ({}):\n{}{}",
            self.status,
            self.stdout,
            self.stderr
        );
    }

    /// Fails unless the run failed with a line containing every part of
    /// `message`.
    #[track_caller]
    pub fn assert_error(&self, message: &[&str]) {
        // Shown with --nocapture (or when the test fails).
        eprintln!("exit status {}; stderr:\n{}", self.status, self.stderr);
        assert!(
            !self.status.success(),
            "coco-exec succeeded, expected an error {message:?}:\n{}{}",
            self.stdout,
            self.stderr
        );
        assert!(
            self.stderr
                .lines()
                .any(|line| message.iter().all(|part| line.contains(part))),
            "no line of stderr contains {message:?}:\n{}",
            self.stderr
        );
    }
}
