//! Corrupt `.npy` inputs: truncated and padded files, wrong dtypes and
//! shapes, decoy and duplicate header keys, broken magic and header
//! lengths, and inputs that are not files (a FIFO, /dev/zero, a folder).
//! Run on the reference and the cpu backend: either a clean error, or the
//! outputs of the pristine inputs (a run that reads a different value from
//! a header it should have refused is a silent wrong result).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{copy_dir, keep, must, read_outputs, Category, Env, Expect, Outcome};
use crate::mangle::Rng;
use crate::process::Verdict;
use crate::sandbox::Sandbox;

/// A float and an integer input, local and replicated, on 2 ranks.
pub const PROGRAM: &str = r#"func.func @mix(%g: tensor<64xf32, #coco.local>, %p: tensor<64xf32, #coco.replicated>, %n: tensor<8xi64, #coco.local>) -> (tensor<64xf32, #coco.replicated>, tensor<8xi64, #coco.replicated>) {
  %s = coco.all_reduce sum %g : tensor<64xf32, #coco.local> -> tensor<64xf32, #coco.replicated>
  %r = arith.addf %s, %p : tensor<64xf32, #coco.replicated>
  %m = coco.all_reduce sum %n : tensor<8xi64, #coco.local> -> tensor<8xi64, #coco.replicated>
  return %r, %m : tensor<64xf32, #coco.replicated>, tensor<8xi64, #coco.replicated>
}
"#;

/// The compiled program, its inputs and the outputs they give, shared by
/// this category and `plan`.
pub struct Fixture {
    pub root: PathBuf,
    pub inputs: PathBuf,
    pub bundle: PathBuf,
    pub reference_outputs: BTreeMap<String, Vec<u8>>,
    pub cpu_outputs: BTreeMap<String, Vec<u8>>,
}

impl Fixture {
    pub fn new(env: &Env) -> Result<Fixture, String> {
        let sandbox = Sandbox::new(&env.out, "fixture").map_err(|e| e.to_string())?;
        let _ = sandbox.write("mix.mlir", PROGRAM.as_bytes());
        must(
            env,
            "coco-run",
            &["mix.mlir", "--ranks", "2", "--save-inputs", "in"],
            &sandbox,
        )?;
        must(
            env,
            "coco-translate",
            &[
                "mix.mlir",
                "--emit=bundle",
                "--ranks",
                "2",
                "-o",
                "mix.bundle",
            ],
            &sandbox,
        )?;
        must(
            env,
            "coco-run",
            &[
                "mix.mlir",
                "--backend",
                "reference",
                "--ranks",
                "2",
                "--inputs",
                "in",
                "--outputs",
                "ref",
            ],
            &sandbox,
        )?;
        must(
            env,
            "coco-run",
            &[
                "mix.bundle",
                "--ranks",
                "2",
                "--inputs",
                "in",
                "--outputs",
                "cpu",
            ],
            &sandbox,
        )?;
        Ok(Fixture {
            inputs: sandbox.path("in"),
            bundle: sandbox.path("mix.bundle"),
            reference_outputs: read_outputs(&sandbox.path("ref")),
            cpu_outputs: read_outputs(&sandbox.path("cpu")),
            root: sandbox.root,
        })
    }
}

pub struct Npy {
    pub fixture: Fixture,
}

/// The header of a version-1 `.npy` file: (start of the dict, its end).
fn header_span(bytes: &[u8]) -> Option<(usize, usize)> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return None;
    }
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    Some((10, (10 + len).min(bytes.len())))
}

/// A version-1 `.npy` file: `dict` (padded so that data starts at a
/// multiple of 64 bytes, as numpy writes it), then `data`.
pub fn npy_bytes(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut header = dict.to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// `bytes` with its header dict replaced by `dict`.
fn with_header(bytes: &[u8], dict: &str) -> Vec<u8> {
    match header_span(bytes) {
        Some((_, end)) => npy_bytes(dict, &bytes[end..]),
        None => bytes.to_vec(),
    }
}

fn dict_of(bytes: &[u8]) -> String {
    header_span(bytes)
        .map(|(a, b)| String::from_utf8_lossy(&bytes[a..b]).trim().to_string())
        .unwrap_or_default()
}

/// One corruption of `bytes`: its name, the new content (`None` when the
/// file is replaced by something that is not a file), and whether numpy's
/// own reader (and so coco's) must refuse it.
fn corrupt(bytes: &[u8], rng: &mut Rng) -> (String, Option<Vec<u8>>, Expect) {
    let (what, content) = corruption(bytes, rng);
    let expect = if what.contains("(valid)") {
        Expect::Success
    } else if what.contains("fortran_order") || what.contains("header byte") {
        // 1-D data reads the same in either order; a replaced byte may
        // land in padding.
        Expect::Either
    } else {
        Expect::Error
    };
    (what, content, expect)
}

fn corruption(bytes: &[u8], rng: &mut Rng) -> (String, Option<Vec<u8>>) {
    let dict = dict_of(bytes);
    let descr = dict
        .split('\'')
        .skip_while(|s| *s != "descr")
        .nth(2)
        .unwrap_or("<f4")
        .to_string();
    let shape = dict
        .split("'shape': ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .map(|s| format!("{s})"))
        .unwrap_or_else(|| "(64,)".into());
    let header = |d: &str, f: &str, s: &str| {
        format!("{{'descr': '{d}', 'fortran_order': {f}, 'shape': {s}, }}")
    };
    match rng.below(16) {
        0 => {
            let cut = rng.below(bytes.len());
            (
                format!("truncated to {cut} bytes"),
                Some(bytes[..cut].to_vec()),
            )
        }
        1 => {
            let mut out = bytes.to_vec();
            out.extend(std::iter::repeat_n(0x41, 1 + rng.below(100)));
            ("trailing bytes".into(), Some(out))
        }
        2 => {
            let others = [
                "<f8", "<i4", ">f4", "|b1", "<c8", "<u8", "<f2", "garbage", "", "<f4<f4",
            ];
            let d = others[rng.below(others.len())];
            (
                format!("descr {d:?}"),
                Some(with_header(bytes, &header(d, "False", &shape))),
            )
        }
        3 => {
            let shapes = [
                "(8, 8)",
                "(65,)",
                "(63,)",
                "()",
                "(-64,)",
                "(4611686018427387904, 4)",
                "(18446744073709551615,)",
                "(0,)",
                "(64, 1)",
                "(1, 64)",
                "(64",
                "[64]",
                "(6e1,)",
            ];
            let s = shapes[rng.below(shapes.len())];
            (
                format!("shape {s}"),
                Some(with_header(bytes, &header(&descr, "False", s))),
            )
        }
        4 => (
            "fortran_order True".into(),
            Some(with_header(bytes, &header(&descr, "True", &shape))),
        ),
        5 => {
            let dict = format!("{{'descr': '{descr}', 'x': \"'shape': (3,), 'descr': '<f8'\", 'fortran_order': False, 'shape': {shape}, }}");
            ("decoy string value".into(), Some(with_header(bytes, &dict)))
        }
        6 => {
            let dict = format!(
                "{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, 'shape': (3,), }}"
            );
            ("duplicate key".into(), Some(with_header(bytes, &dict)))
        }
        7 => {
            let dict = format!("{{'shape': {shape}, 'descr': '{descr}', 'fortran_order': False}}");
            (
                "reordered keys (valid)".into(),
                Some(with_header(bytes, &dict)),
            )
        }
        8 => {
            let mut out = bytes.to_vec();
            let at = rng.below(8.min(out.len()));
            out[at] ^= 0xff;
            (format!("magic byte {at} flipped"), Some(out))
        }
        9 => {
            let mut out = bytes.to_vec();
            if out.len() > 9 {
                out[8] = 0xff;
                out[9] = 0xff;
            }
            ("header length 65535".into(), Some(out))
        }
        10 => {
            let mut out = bytes.to_vec();
            if let Some((a, b)) = header_span(bytes) {
                let at = a + rng.below(b - a);
                out[at] = [0xff, b'{', b'}', b'\'', b'(', 0][rng.below(6)];
            }
            ("header byte replaced".into(), Some(out))
        }
        11 => ("empty file".into(), Some(Vec::new())),
        12 => {
            let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}}}");
            (
                "no trailing comma (valid)".into(),
                Some(with_header(bytes, &dict)),
            )
        }
        13 => ("a FIFO".into(), None),
        14 => ("a symlink to /dev/zero".into(), None),
        _ => ("a folder".into(), None),
    }
}

impl Category for Npy {
    fn name(&self) -> &'static str {
        "corrupt .npy"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let mut rng = env.rng(self.name(), index);
        let sandbox = env.sandbox("npy", index);
        let inputs = sandbox.path("in");
        let _ = copy_dir(&self.fixture.inputs, &inputs);
        let mut names: Vec<_> = std::fs::read_dir(&inputs)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        names.sort();
        let target = names[rng.below(names.len())].clone();
        let bytes = std::fs::read(&target).unwrap_or_default();
        let (what, content, expect) = corrupt(&bytes, &mut rng);
        let _ = std::fs::remove_file(&target);
        match &content {
            Some(content) => {
                let _ = std::fs::write(&target, content);
            }
            None if what.contains("FIFO") => {
                let path = std::ffi::CString::new(target.as_os_str().as_encoded_bytes())
                    .unwrap_or_default();
                // SAFETY: mkfifo(3) on a path we own.
                unsafe { libc::mkfifo(path.as_ptr(), 0o644) };
            }
            None if what.contains("zero") => {
                let _ = std::os::unix::fs::symlink("/dev/zero", &target);
            }
            None => {
                let _ = std::fs::create_dir(&target);
            }
        }
        let reference = rng.below(2) == 0;
        let bundle = self.fixture.bundle.display().to_string();
        let program = self.fixture.root.join("mix.mlir").display().to_string();
        let mut args = if reference {
            vec![program.as_str(), "--backend", "reference"]
        } else {
            vec![bundle.as_str()]
        };
        args.extend_from_slice(&["--ranks", "2", "--inputs", "in", "--outputs", "out"]);
        let file = target
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let (job, invocation) = env.invoke("coco-run", &args, &sandbox);
        let command = format!(
            "coco-run {} ({file}: {what})",
            if reference {
                "--backend reference"
            } else {
                "bundle"
            }
        );
        let Ok(run) = invocation.run() else {
            return Outcome {
                case: command,
                verdict: Verdict::Crash("cannot start coco-run".into()),
                detail: String::new(),
            };
        };
        let pristine = if reference {
            &self.fixture.reference_outputs
        } else {
            &self.fixture.cpu_outputs
        };
        let verdict = env.judge(&job, &run, |v| {
            if v == Verdict::Ok && &read_outputs(&sandbox.path("out")) != pristine {
                Verdict::Wrong(format!(
                    "accepted {file} ({what}) and computed different outputs"
                ))
            } else {
                expect.judge(v)
            }
        });
        let case = match (&verdict, &content) {
            (Verdict::Ok | Verdict::CleanError, _) => command,
            (_, Some(content)) => format!(
                "{command}  (input: {})",
                keep(env, "npy", index, &file, content)
            ),
            _ => command,
        };
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
