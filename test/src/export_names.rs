//! The exported PySpark job treats every name it did not write as data.
//!
//! Random hostile names (newlines, quotes, `"""`, backslashes, `\N`, Python
//! code, Unicode line separators) go into a df program's name, its UDF's
//! symbol, the UDF's location, a source and a sink name, and the input
//! file's own name; `coco-translate --emit=pyspark` exports each, and
//! test/export/check_names.py then requires of every job that it parses,
//! that its syntax tree is the one of the same program with plain names
//! (so no name became code, a comment or a docstring's end), and that
//! importing it and calling its UDFs runs no command, spawns nothing and
//! deletes nothing (an audit hook refuses those events).

use std::path::{Path, PathBuf};

use proptest::{
    prelude::*,
    strategy::ValueTree,
    test_runner::{Config, RngAlgorithm, TestRng, TestRunner},
};

use crate::{repo_root, spark::venv_python};

/// Pieces that have ended a comment, a docstring or a string in exported
/// Python, or that Python's tokenizer treats specially.
const PIECES: &[&str] = &[
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
    "é",
    "\u{1f600}",
    "\u{202e}",
    "plain",
];

fn hostile() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..PIECES.len(), 1..6)
        .prop_map(|picks| picks.into_iter().map(|i| PIECES[i]).collect())
}

/// One program's names.
#[derive(Clone, Debug)]
struct Names {
    program: String,
    udf: String,
    location: String,
    source: String,
    sink: String,
    file: String,
}

fn names() -> impl Strategy<Value = Names> {
    (
        hostile(),
        hostile(),
        hostile(),
        hostile(),
        hostile(),
        hostile(),
    )
        .prop_map(|(program, udf, location, source, sink, file)| Names {
            // Program, source and sink names must be plain file names (the
            // verifier refuses the rest), and so must the input file's.
            program: file_name(program),
            udf,
            location,
            source: file_name(source),
            sink: file_name(sink),
            file: file_name(file),
        })
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
fn mlir_string(s: &str) -> String {
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

fn program(names: &Names) -> String {
    let udf = mlir_string(&names.udf);
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
        constant = mlir_string(&names.udf),
        location = mlir_string(&names.location),
        program = mlir_string(&names.program),
        source = mlir_string(&names.source),
        sink = mlir_string(&names.sink),
    )
}

/// Exports `names`'s program from `dir/<names.file>.mlir` to `job`.
fn export(names: &Names, dir: &Path, job: &Path) -> Result<(), String> {
    let source = dir.join(format!("{}.mlir", names.file));
    std::fs::write(&source, program(names)).map_err(|e| format!("{}: {e}", source.display()))?;
    let output = coco_tools::translate::run(
        &[
            "coco-translate".to_string(),
            source.to_string_lossy().into_owned(),
            "--emit=pyspark".into(),
            "-o".into(),
            job.to_string_lossy().into_owned(),
        ],
        None,
    );
    if output.code != 0 {
        return Err(format!(
            "coco-translate --emit=pyspark on {names:?} exited {}:\n{}",
            output.code,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}

/// Exports `count` random programs and their plain twins, and checks them
/// all in one Python process.
pub fn check(count: usize) -> Result<String, String> {
    let scratch: PathBuf = repo_root().join("target/export-names");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let plain = Names {
        program: "program".into(),
        udf: "udf".into(),
        location: "file".into(),
        source: "source".into(),
        sink: "sink".into(),
        file: "file".into(),
    };
    let mut manifest = Vec::new();
    for index in 0..count {
        let names = names()
            .new_tree(&mut runner)
            .map_err(|e| e.to_string())?
            .current();
        let dir = scratch.join(index.to_string());
        std::fs::create_dir_all(dir.join("plain"))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let (job, twin) = (dir.join("job.py"), dir.join("plain/job.py"));
        export(&names, &dir, &job)?;
        export(&plain, &dir.join("plain"), &twin)?;
        manifest.push(serde_json::json!({
            "job": job,
            "plain": twin,
            "names": format!("{names:?}"),
        }));
    }
    let manifest_path = scratch.join("manifest.json");
    std::fs::write(
        &manifest_path,
        serde_json::Value::Array(manifest).to_string(),
    )
    .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let output = std::process::Command::new(venv_python()?)
        .arg(repo_root().join("test/export/check_names.py"))
        .arg(&manifest_path)
        .current_dir(&scratch)
        .output()
        .map_err(|e| format!("check_names.py: {e}"))?;
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() {
        Ok(report)
    } else {
        Err(format!(
            "check_names.py failed ({}):\n{report}",
            output.status
        ))
    }
}
