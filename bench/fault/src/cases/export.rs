//! The exported PySpark job as an attack surface: a df program whose
//! names, UDF symbol, UDF location, sink name and input file name are
//! hostile (newlines, `"""`, backslashes, Python code, Unicode line
//! separators), through `coco-translate --emit=pyspark`. A sink name that
//! leaves the output folder (`../X`, an absolute path, `.`, empty) must be
//! refused and no job written; any other program must give a job that
//! test/export/check_names.py accepts: ASCII, the syntax tree of the same
//! program with plain names, and nothing run when imported and its UDFs
//! called.

use super::{keep, Category, Env, Outcome};
use crate::mangle::Rng;
use crate::process::Verdict;

pub struct Export;

/// Pieces that have ended a comment, a docstring or a string in exported
/// Python, or that Python's tokenizer treats specially.
pub const PIECES: &[&str] = &[
    "\n",
    "\r",
    "\r\n",
    "\u{b}",
    "\u{c}",
    "\u{85}",
    "\u{2028}",
    "\"\"\"",
    "'''",
    "\"",
    "'",
    "\\",
    "\\N",
    "\\x",
    "#",
    ":",
    "    ",
    "\t",
    "__import__('os').system('exit 3')",
    "import os; os._exit(7)",
    ");",
    "\u{e9}",
    "\u{1f600}",
    "\u{202e}",
    "plain",
];

/// Sink names that would leave the output folder or be the folder itself.
pub const ESCAPING_SINKS: &[&str] = &["../X", "/tmp/X", "", ".", "..", "a/../../X", "a\\b"];

/// One program's names.
#[derive(Clone, Debug)]
pub struct Names {
    pub program: String,
    pub udf: String,
    pub location: String,
    pub source: String,
    pub sink: String,
    pub file: String,
}

impl Names {
    /// Plain names, for the twin whose job every hostile one must match.
    pub fn plain() -> Names {
        Names {
            program: "program".into(),
            udf: "udf".into(),
            location: "file".into(),
            source: "source".into(),
            sink: "sink".into(),
            file: "file".into(),
        }
    }

    /// Random hostile names; program, source, sink and file names are
    /// valid file names (the verifier refuses the rest).
    pub fn hostile(rng: &mut Rng) -> Names {
        let mut names = Names {
            program: file_name(hostile(rng)),
            udf: hostile(rng),
            location: hostile(rng),
            source: file_name(hostile(rng)),
            sink: file_name(hostile(rng)),
            file: file_name(hostile(rng)),
        };
        // Two functions of one module cannot share a symbol.
        if names.program == names.udf {
            names.program.push_str("_p");
        }
        names
    }

    /// The df program with these names.
    pub fn program(&self) -> String {
        let udf = mlir_string(&self.udf);
        format!(
            r#"module attributes {{df.host = "python"}} {{
func.func @{udf}(%line: !df.str) -> !df.str {{
  %n = df.length %line
  %c1 = arith.constant 1 : i64
  %long = arith.cmpi sgt, %n, %c1 : i64
  %r = scf.if %long -> (!df.str) {{
    scf.yield %line : !df.str
  }} else {{
    %x = df.str_constant {constant}
    scf.yield %x : !df.str
  }}
  return %r : !df.str
}} loc({location}:1:1)
func.func @{program}() {{
  %lines = df.source {source} inline ["a", "bc"] delimiter "," : !df.dataset<!df.str>
  %out = df.map %lines @{udf} : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink {sink} %out : !df.dataset<!df.str>
  return
}}
}}
"#,
            constant = mlir_string(&self.udf),
            location = mlir_string(&self.location),
            program = mlir_string(&self.program),
            source = mlir_string(&self.source),
            sink = mlir_string(&self.sink),
        )
    }
}

fn hostile(rng: &mut Rng) -> String {
    (0..1 + rng.below(5))
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

/// `s` made a valid file name: no separator, not `.` or `..`, and short
/// enough for any file system.
fn file_name(s: String) -> String {
    let mut s: String = s.replace(['/', '\\', '\0'], "_");
    while s.len() > 120 {
        s.pop();
    }
    if s.is_empty() || s == "." || s == ".." {
        s.push_str("_n");
    }
    s
}

/// `s` as an MLIR string literal: printable ASCII but `"` and `\` as
/// itself, every other byte as `\XX`.
pub fn mlir_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        if (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\{b:02X}"));
        }
    }
    out.push('"');
    out
}

impl Category for Export {
    fn name(&self) -> &'static str {
        "export injection and sink paths"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let mut rng = env.rng(self.name(), index);
        let mut names = Names::hostile(&mut rng);
        let escaping = rng.below(4) == 0;
        if escaping {
            names.sink = ESCAPING_SINKS[rng.below(ESCAPING_SINKS.len())].into();
        }
        let sandbox = env.sandbox("export", index);
        let source = format!("{}.mlir", names.file);
        let plain = Names::plain();
        let written = sandbox
            .write(&source, names.program().as_bytes())
            .and_then(|_| sandbox.write("plain/file.mlir", plain.program().as_bytes()));
        if let Err(e) = written {
            return Outcome::not_run(
                format!("{names:?}"),
                format!("cannot write the program: {e}"),
            );
        }
        let case = format!("coco-translate {source:?} --emit=pyspark -o job.py ({names:?})");
        let args = [source.as_str(), "--emit=pyspark", "-o", "job.py"];
        let (job, invocation) = env.invoke("coco-translate", &args, &sandbox);
        let run = match invocation.run() {
            Ok(run) => run,
            Err(e) => return Outcome::not_run(case, format!("cannot start: {e}")),
        };
        let verdict = env.judge(&job, &run, |verdict| {
            if escaping {
                return match verdict {
                    Verdict::Ok => Verdict::Wrong(format!(
                        "exported a sink named {:?}, which leaves the output folder",
                        names.sink
                    )),
                    _ if sandbox.path("job.py").exists() => {
                        Verdict::Wrong("refused, but wrote job.py".into())
                    }
                    other => other,
                };
            }
            if verdict != Verdict::Ok {
                return Verdict::Wrong("refused a program with valid names".into());
            }
            check_job(env, &sandbox, &names)
        });
        let case = if matches!(verdict, Verdict::Ok | Verdict::CleanError) {
            case
        } else {
            let kept = keep(
                env,
                "export",
                index,
                "input.mlir",
                names.program().as_bytes(),
            );
            format!("{case}  (input: {kept})")
        };
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}

/// Exports the plain twin and runs check_names.py on the pair.
fn check_job(env: &Env, sandbox: &crate::sandbox::Sandbox, names: &Names) -> Verdict {
    let (twin_job, twin) = env.invoke(
        "coco-translate",
        &["plain/file.mlir", "--emit=pyspark", "-o", "plain/job.py"],
        sandbox,
    );
    let twin_run = twin.run();
    twin_job.wait_gone(std::time::Duration::from_secs(30));
    twin_job.clean();
    if !twin_run.is_ok_and(|r| r.success()) {
        return Verdict::Crash("the plain twin did not export".into());
    }
    let manifest = serde_json::json!([
        {"job": "job.py", "plain": "plain/job.py", "names": format!("{names:?}")}
    ])
    .to_string();
    if sandbox.write("manifest.json", manifest.as_bytes()).is_err() {
        return Verdict::Crash("cannot write the manifest".into());
    }
    let checked = std::process::Command::new("python3")
        .arg(env.repo.join("test/export/check_names.py"))
        .arg("manifest.json")
        .current_dir(&sandbox.root)
        .output();
    match checked {
        Ok(output) if output.status.success() => Verdict::Ok,
        Ok(output) => Verdict::Wrong(format!(
            "the job is not the program's alone: {}",
            String::from_utf8_lossy(&output.stdout).trim()
        )),
        Err(e) => Verdict::Crash(format!("cannot run python3: {e}")),
    }
}
