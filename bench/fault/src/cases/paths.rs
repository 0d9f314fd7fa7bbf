//! Path tricks and output safety: df source names that climb out of `-o`,
//! output folders holding the user's files, outputs that already exist,
//! `-o -` for a directory output, names that collide, and a run that fails
//! while its output file exists. Nothing outside the output folder may
//! change, and no file the tool did not create may be deleted or changed.

use super::{Category, Env, Outcome};
use crate::process::Verdict;
use crate::sandbox::Sandbox;

pub struct Paths;

/// A df program with two inline sources named `first` and `second`.
pub fn df_program(first: &str, second: &str) -> String {
    format!(
        r#"func.func @positive(%x: i64) -> i1 {{
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sgt, %x, %zero : i64
  return %ok : i1
}}

func.func @main() {{
  %a = df.source "{first}" inline ["1", "-2"] delimiter "," : !df.dataset<i64>
  %b = df.source "{second}" inline ["3"] delimiter "," : !df.dataset<i64>
  %u = df.union %a, %b : !df.dataset<i64>
  %f = df.filter %u @positive : !df.dataset<i64>
  df.sink "out" %f : !df.dataset<i64>
  return
}}
"#
    )
}

const ESCAPES: &[&str] = &[
    "../../escaped.txt",
    "../escaped.txt",
    "a/../../../escaped.txt",
    "/tmp/coco-fault-escaped.txt",
    "..",
    ".",
    "",
    "report.txt",
    "report.json",
    "sub/ok.txt",
    "x\\00y",
    "case-0",
];

/// The scenarios, each with variants (`index / SCENARIOS`).
const SCENARIOS: usize = 8;

impl Category for Paths {
    fn name(&self) -> &'static str {
        "path tricks"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let sandbox = env.sandbox("paths", index);
        let variant = index / SCENARIOS;
        let (command, args, tool, allowed, expect_error): (
            String,
            Vec<String>,
            &str,
            Vec<&str>,
            bool,
        ) = match index % SCENARIOS {
            0 => {
                // A df source name that leaves -o.
                let name = ESCAPES[variant % ESCAPES.len()];
                let _ = sandbox.write("p.mlir", df_program(name, "second.txt").as_bytes());
                (
                    format!("coco-bigtest generate with a source named {name:?}"),
                    s(&["generate", "p.mlir", "-o", "a/b/out"]),
                    "coco-bigtest",
                    vec!["a/b/out"],
                    false,
                )
            }
            1 => {
                // Two sources whose names collide.
                let pairs = [
                    ("x/times.txt", "y/times.txt"),
                    ("times.txt", "times.txt"),
                    ("t.txt", "./t.txt"),
                    ("a", "a/b"),
                ];
                let (first, second) = pairs[variant % pairs.len()];
                let _ = sandbox.write("p.mlir", df_program(first, second).as_bytes());
                (
                    format!("coco-bigtest generate with sources {first:?} and {second:?}"),
                    s(&["generate", "p.mlir", "-o", "out"]),
                    "coco-bigtest",
                    vec![],
                    true,
                )
            }
            2 => {
                // -o holds the user's own files, some named like ours.
                let _ = sandbox.write("p.mlir", df_program("first.txt", "second.txt").as_bytes());
                let _ = sandbox.write("out/case-0/mine.txt", b"keep me");
                let _ = sandbox.write(
                    &format!("out/case-{}/notes.txt", variant % 4),
                    b"keep me too",
                );
                let _ = sandbox.write("out/unrelated.csv", b"1,2,3");
                (format!("coco-bigtest generate -o a folder with the user's files (variant {variant})"), s(&["generate", "p.mlir", "-o", "out"]), "coco-bigtest", vec![], false)
            }
            3 => {
                // A failing run whose output file exists.
                let _ = sandbox.write("bad.mlir", b"func.func @f( {\n");
                let _ = sandbox.write("prev.mlir", b"// the user's previous output\n");
                let tools = ["coco-opt", "coco-translate"];
                let tool = tools[variant % 2];
                let mut args = s(&["bad.mlir", "-o", "prev.mlir"]);
                if tool == "coco-translate" {
                    args.push("--emit=plan".into());
                }
                (
                    format!("{tool} bad.mlir -o prev.mlir"),
                    args,
                    tool,
                    vec![],
                    true,
                )
            }
            4 => {
                // A bundle over a folder that is not a bundle.
                let _ = sandbox.write("p.mlir", super::npy::PROGRAM.as_bytes());
                let _ = sandbox.write("dest/thesis.tex", b"years of work");
                (
                    "coco-translate --emit=bundle -o a folder with the user's files".into(),
                    s(&["p.mlir", "--emit=bundle", "--ranks", "2", "-o", "dest"]),
                    "coco-translate",
                    vec![],
                    false,
                )
            }
            5 => {
                // -o - for a directory output.
                let _ = sandbox.write("p.mlir", super::npy::PROGRAM.as_bytes());
                let tool_args = if variant.is_multiple_of(2) {
                    (
                        "coco-translate",
                        s(&["p.mlir", "--emit=bundle", "--ranks", "2", "-o", "-"]),
                    )
                } else {
                    let _ =
                        sandbox.write("q.mlir", df_program("first.txt", "second.txt").as_bytes());
                    ("coco-bigtest", s(&["generate", "q.mlir", "-o", "-"]))
                };
                (
                    format!("{} ... -o -", tool_args.0),
                    tool_args.1,
                    tool_args.0,
                    vec![],
                    true,
                )
            }
            6 => {
                // --outputs names an existing file.
                let _ = sandbox.write("p.mlir", super::npy::PROGRAM.as_bytes());
                let _ = sandbox.write("results", b"the user's file");
                let backend = ["reference", "cpu"][variant % 2];
                (
                    format!("coco-run --backend {backend} --outputs an existing file"),
                    s(&[
                        "p.mlir",
                        "--backend",
                        backend,
                        "--ranks",
                        "2",
                        "--outputs",
                        "results",
                    ]),
                    "coco-run",
                    vec![],
                    true,
                )
            }
            _ => {
                // --timeout-ms 1: unknown paths must not count as covered.
                let _ = sandbox.write("p.mlir", df_program("first.txt", "second.txt").as_bytes());
                (
                    "coco-bigtest generate --timeout-ms 1".into(),
                    s(&["generate", "p.mlir", "-o", "out", "--timeout-ms", "1"]),
                    "coco-bigtest",
                    vec!["out"],
                    false,
                )
            }
        };
        let before = sandbox.snapshot();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (job, invocation) = env.invoke(tool, &refs, &sandbox);
        let Ok(run) = invocation.run() else {
            return Outcome {
                case: command,
                verdict: Verdict::Crash(format!("cannot start {tool}")),
                detail: String::new(),
            };
        };
        let scenario = index % SCENARIOS;
        let verdict = env.judge(&job, &run, |v| {
            if std::path::Path::new("/tmp/coco-fault-escaped.txt").exists() {
                let _ = std::fs::remove_file("/tmp/coco-fault-escaped.txt");
                return Verdict::Wrong("wrote /tmp/coco-fault-escaped.txt".into());
            }
            let damaged = damaged(&sandbox, &before, &allowed);
            if !damaged.is_empty() {
                return Verdict::Wrong(damaged.join(", "));
            }
            if expect_error && v == Verdict::Ok {
                return Verdict::Wrong("succeeded where it must refuse".into());
            }
            if scenario == 5 && sandbox.path("-").exists() {
                return Verdict::Wrong("created a folder named '-'".into());
            }
            if scenario == 7 && v == Verdict::Ok {
                let report =
                    std::fs::read_to_string(sandbox.path("out/report.txt")).unwrap_or_default();
                if report.contains("100.0%") && report.contains("unknown") {
                    return Verdict::Wrong("claims 100% coverage with unknown paths".into());
                }
            }
            v
        });
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(command, &run, verdict)
    }
}

fn s(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// Files that existed before and were deleted or changed, and files created
/// outside the allowed folders (creating new files in the output folder
/// the tool was given is its job).
fn damaged(sandbox: &Sandbox, before: &crate::sandbox::Snapshot, allowed: &[&str]) -> Vec<String> {
    let after = sandbox.snapshot();
    let mut out = Vec::new();
    for (path, hash) in before {
        match after.get(path) {
            None => out.push(format!("deleted {}", path.display())),
            Some(h) if h != hash && hash.is_some() => {
                out.push(format!("changed {}", path.display()))
            }
            _ => {}
        }
    }
    let outputs = ["out", "dest", "a/b/out"];
    for path in after.keys() {
        let expected_place = outputs
            .iter()
            .chain(allowed)
            .any(|a| path.starts_with(a) || std::path::Path::new(a).starts_with(path));
        if !before.contains_key(path) && !expected_place {
            out.push(format!("created {}", path.display()));
        }
    }
    out
}
