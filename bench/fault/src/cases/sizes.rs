//! Huge and degenerate sizes, deep nesting, inputs that never end, and
//! options at or past their range: each must end in the tool's own clean
//! error (naming the limit) or a correct run, never an abort, a hang or
//! memory without bound. The second and later rounds (`index / SCENARIOS`
//! >= 1) use the full sizes of the issue (10 MB lines, 1e6 records).

use super::{Category, Env, Expect, Outcome};
use crate::process::Verdict;

pub struct Sizes;

const SCENARIOS: usize = 26;

fn elementwise(shape: &str, ty: &str) -> String {
    let t = format!("tensor<{shape}x{ty}, #coco.replicated>");
    format!("func.func @f(%a: {t}, %b: {t}) -> {t} {{\n  %r = arith.addf %a, %b : {t}\n  return %r : {t}\n}}\n")
}

fn df_udf(body: &str) -> String {
    format!(
        "func.func @udf(%line: !df.str) -> i64 {{\n{body}}}\n\nfunc.func @main() {{\n  %s = df.source \"in\" inline [\"a,b\", \"c\"] delimiter \"\\n\" : !df.dataset<!df.str>\n  %m = df.map %s @udf : !df.dataset<!df.str> -> !df.dataset<i64>\n  df.sink \"out\" %m : !df.dataset<i64>\n  return\n}}\n"
    )
}

fn nested_ifs(depth: usize) -> String {
    let mut body = String::from("func.func @f(%c: i1) {\n");
    for _ in 0..depth {
        body.push_str("scf.if %c {\n");
    }
    for _ in 0..depth {
        body.push_str("}\n");
    }
    body.push_str("return\n}\n");
    body
}

fn nested_regions(depth: usize) -> String {
    let mut body = String::from("func.func @f() {\n");
    for _ in 0..depth {
        body.push_str("\"test.region\"() ({\n");
    }
    for _ in 0..depth {
        body.push_str("}) : () -> ()\n");
    }
    body.push_str("return\n}\n");
    body
}

impl Category for Sizes {
    fn name(&self) -> &'static str {
        "huge sizes and limits"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let sandbox = env.sandbox("sizes", index);
        let full = index / SCENARIOS >= 1;
        let sgd = env
            .repo
            .join("examples/coco/sgd.mlir")
            .display()
            .to_string();
        let write = |name: &str, text: &str| {
            let _ = sandbox.write(name, text.as_bytes());
        };
        let (what, tool, args, expect): (&str, &str, Vec<String>, Expect) = match index % SCENARIOS
        {
            0 => {
                write("p.mlir", &elementwise("99999999999", "f32"));
                (
                    "a 4e11-byte tensor on the reference backend",
                    "coco-run",
                    s(&["p.mlir", "--backend", "reference"]),
                    Expect::Error,
                )
            }
            1 => {
                write("p.mlir", &elementwise("99999999999", "f32"));
                (
                    "a 4e11-byte tensor on the cpu backend",
                    "coco-run",
                    s(&["p.mlir"]),
                    Expect::Error,
                )
            }
            2 => {
                write("p.mlir", &elementwise("200000000000", "f32"));
                (
                    "an 800 GB tensor",
                    "coco-run",
                    s(&["p.mlir", "--ranks", "2"]),
                    Expect::Error,
                )
            }
            3 => (
                "--ranks 100000",
                "coco-run",
                s(&[&sgd, "--ranks", "100000"]),
                Expect::Error,
            ),
            4 => (
                "--ranks 2^64-1",
                "coco-run",
                s(&[&sgd, "--ranks", "18446744073709551615"]),
                Expect::Error,
            ),
            5 => (
                "--ranks 0",
                "coco-run",
                s(&[&sgd, "--ranks", "0"]),
                Expect::Error,
            ),
            6 => {
                write("p.mlir", &df_udf("  %f = df.split %line \",\" : !df.list<!df.str>\n  %x = df.get %f[4294967296] : !df.list<!df.str> -> !df.str\n  %n = df.to_int %x\n  return %n : i64\n"));
                (
                    "df.get at index 2^32",
                    "coco-opt",
                    s(&["p.mlir", "--bigtest-jdu-paths"]),
                    Expect::Either,
                )
            }
            7 => {
                write("p.mlir", &df_udf("  %c0 = arith.constant 0 : i64\n  %c1 = arith.constant 1 : i64\n  %n = arith.constant 5000 : i64\n  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i64) : i64 {\n    %b = arith.addi %a, %i : i64\n    scf.yield %b : i64\n  }\n  return %r : i64\n"));
                (
                    "a constant loop of 5000 trips",
                    "coco-opt",
                    s(&["p.mlir", "--bigtest-jdu-paths"]),
                    Expect::Either,
                )
            }
            8 => {
                write("p.mlir", &nested_ifs(if full { 4000 } else { 3000 }));
                (
                    "scf.if nested 3000-4000 deep",
                    "coco-opt",
                    s(&["p.mlir"]),
                    Expect::Either,
                )
            }
            9 => {
                write("p.mlir", &nested_regions(5000));
                (
                    "regions nested 5000 deep",
                    "coco-opt",
                    s(&["p.mlir", "--allow-unregistered-dialect"]),
                    Expect::Either,
                )
            }
            10 => {
                let depth = 10_000;
                let attr = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
                write(
                    "p.mlir",
                    &format!("func.func @f() attributes {{a = {attr}}} {{\n  return\n}}\n"),
                );
                (
                    "an attribute nested 10000 deep",
                    "coco-opt",
                    s(&["p.mlir"]),
                    Expect::Either,
                )
            }
            11 => {
                let count = if full { 8000 } else { 2000 };
                let text: String = (0..count)
                    .map(|i| format!("func.func @f{i}(%a: i64) -> i64 {{\n  return %a : i64\n}}\n"))
                    .collect();
                write("p.mlir", &text);
                (
                    "2000-8000 functions",
                    "coco-opt",
                    s(&["p.mlir"]),
                    Expect::Success,
                )
            }
            12 => {
                let count = if full { 20_000 } else { 5000 };
                let args: Vec<String> = (0..count).map(|i| format!("%a{i}: i64")).collect();
                write(
                    "p.mlir",
                    &format!("func.func @f({}) {{\n  return\n}}\n", args.join(", ")),
                );
                (
                    "one function with 5000-20000 arguments",
                    "coco-opt",
                    s(&["p.mlir"]),
                    Expect::Success,
                )
            }
            13 => (
                "coco-opt /dev/zero",
                "coco-opt",
                s(&["/dev/zero"]),
                Expect::Error,
            ),
            14 => (
                "a module pass nested under func.func",
                "coco-opt",
                s(&[
                    &sgd,
                    "--pass-pipeline=builtin.module(func.func(coco-split))",
                ]),
                Expect::Error,
            ),
            15 => (
                "--mcpu bogus-cpu",
                "coco-translate",
                s(&[&sgd, "--emit=obj", "--mcpu", "bogus-cpu", "-o", "k.o"]),
                Expect::Error,
            ),
            16 => (
                "--autotune-ranks=0",
                "coco-opt",
                s(&[&sgd, "--coco-autotune=v100-cluster", "--autotune-ranks=0"]),
                Expect::Error,
            ),
            17 => (
                "--ptx-version 999",
                "coco-translate",
                s(&[&sgd, "--emit=ptx", "--ptx-version", "999"]),
                Expect::Error,
            ),
            18 => (
                "--repeat 0",
                "coco-run",
                s(&[&sgd, "--repeat", "0"]),
                Expect::Error,
            ),
            19 => {
                write("p.mlir", &elementwise("4x0", "f32"));
                (
                    "tensor<4x0xf32> on the cpu backend",
                    "coco-run",
                    s(&["p.mlir"]),
                    Expect::Either,
                )
            }
            20 => {
                write("p.mlir", &elementwise("64", "bf16"));
                (
                    "a bf16 program on the cpu backend, checked",
                    "coco-run",
                    s(&["p.mlir", "--ranks", "2", "--check"]),
                    Expect::Success,
                )
            }
            21 => {
                let line = "w ".repeat(if full { 5_000_000 } else { 500_000 });
                write("data/lines.txt", &line);
                (
                    "coco-bigtest run on one 1-10 MB line",
                    "coco-bigtest",
                    big_data_run(env),
                    Expect::Success,
                )
            }
            22 => {
                let count = if full { 1_000_000 } else { 100_000 };
                let text: String = (0..count).map(|i| format!("w{} x y\n", i % 5000)).collect();
                write("data/lines.txt", &text);
                (
                    "coco-bigtest run on 1e5-1e6 lines",
                    "coco-bigtest",
                    big_data_run(env),
                    Expect::Success,
                )
            }
            23 => {
                // A PySpark job of 1e5-1e6 chained maps (3-30 MB of source).
                let count = if full { 1_000_000 } else { 100_000 };
                let mut job = String::from("def job(rdd):\n");
                for i in 0..count {
                    job.push_str(&format!("    rdd = rdd.map(lambda x: x + {i})\n"));
                }
                job.push_str("    return rdd\n");
                write("job.py", &job);
                (
                    "coco-bigtest import of a PySpark job of 1e5-1e6 maps",
                    "coco-bigtest",
                    s(&["import", "job.py", "-o", "job.mlir"]),
                    Expect::Either,
                )
            }
            24 => {
                // A PySpark job whose UDF holds a 10-100 MB string.
                let bytes = if full { 100_000_000 } else { 10_000_000 };
                let job = format!(
                    "def job(rdd):\n    return rdd.filter(lambda line: line != \"{}\")\n",
                    "a".repeat(bytes)
                );
                write("job.py", &job);
                (
                    "coco-bigtest generate on a PySpark job with a 1e7-1e8-byte string",
                    "coco-bigtest",
                    s(&["generate", "job.py", "-o", "out"]),
                    Expect::Either,
                )
            }
            _ => {
                write("p.mlir", super::npy::PROGRAM);
                (
                    "coco-translate --ranks 100000",
                    "coco-translate",
                    s(&["p.mlir", "--emit=plan", "--ranks", "100000"]),
                    Expect::Either,
                )
            }
        };
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (job, invocation) = env.invoke(tool, &refs, &sandbox);
        let shown: Vec<&str> = refs
            .iter()
            .map(|a| if a.len() > 80 { "..." } else { a })
            .collect();
        let command = format!("{what}: {tool} {}", shown.join(" "));
        let Ok(run) = invocation.run() else {
            return Outcome {
                case: command,
                verdict: Verdict::Crash(format!("cannot start {tool}")),
                detail: String::new(),
            };
        };
        let verdict = env.judge(&job, &run, |v| match (v, expect) {
            (Verdict::Ok, Expect::Error) => {
                Verdict::Wrong("accepted an input it must refuse".into())
            }
            (Verdict::CleanError, Expect::Success) => {
                Verdict::Wrong("refused a valid input".into())
            }
            (v, _) => v,
        });
        let verdict = match verdict {
            Verdict::Ok | Verdict::CleanError if run.peak_rss > 6 << 30 => {
                Verdict::Hang(format!("peak memory {} MiB", run.peak_rss >> 20))
            }
            v => v,
        };
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(command, &run, verdict)
    }
}

fn s(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// `coco-bigtest run wordcount.mlir --data data` on up to 10 MB: over the
/// default data limit (the data category checks that refusal), so the
/// limit is raised.
fn big_data_run(env: &Env) -> Vec<String> {
    let wordcount = env.example("bigtest/wordcount.mlir");
    [
        "run",
        &wordcount,
        "--data",
        "data",
        "--max-data-bytes",
        "20000000",
    ]
    .map(String::from)
    .to_vec()
}
