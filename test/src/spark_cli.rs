//! An exported job run as a user runs it (`python job.py --data DIR
//! --output OUT`) on Apache Spark, with every name hostile: the program,
//! its UDF and the UDF's location carry Python that would create a file,
//! the data folder's name is a glob with a comma and braces beside decoy
//! folders that the glob would match, the sink's name holds glob
//! characters, and the output folder's name a colon. The job must read the
//! data folder it was given, write the sink under the output folder, and
//! run nothing but the program. A data folder that textFile cannot read
//! literally (a comma) is refused before Spark starts.

use std::{path::Path, process::Command};

use crate::{
    repo_root,
    spark::{self, venv_python},
};

/// Python that creates `PWNED` in the working folder if it ever runs.
const PAYLOAD: &str = "__import__('os').system('touch PWNED')";

fn program() -> String {
    let code = |prefix: &str| format!("{prefix}\\0A    {PAYLOAD}\\0A#");
    let udf = code("udf");
    format!(
        r#"module attributes {{df.host = "python"}} {{
func.func @"{udf}"(%line: !df.str) -> !df.str {{
  %n = df.length %line
  %c1 = arith.constant 1 : i64
  %long = arith.cmpi sgt, %n, %c1 : i64
  %r = scf.if %long -> (!df.str) {{
    %bang = df.str_constant "!"
    %x = df.concat %line, %bang
    scf.yield %x : !df.str
  }} else {{
    %x = df.str_constant "short"
    scf.yield %x : !df.str
  }}
  return %r : !df.str
}} loc("{location}":1:1)
func.func @"prog\22\22\22;{PAYLOAD};\22\22\22"() {{
  %lines = df.source "lines" path "in.txt" delimiter "," : !df.dataset<!df.str>
  %out = df.map %lines @"{udf}" : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "s[1],{{x}}" %out : !df.dataset<!df.str>
  return
}}
}}
"#,
        location = code("file")
    )
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn check() -> Result<(), String> {
    let dir = repo_root().join("target/spark-cli");
    let _ = std::fs::remove_dir_all(&dir);
    // The input file's own name carries a docstring's end and a payload.
    let source = dir.join(format!("x\"\"\";{PAYLOAD};\"\"\".mlir"));
    write(&source, &program())?;
    let job = dir.join("job.py");
    spark::export(&source.to_string_lossy(), &job)?;
    // The data, and decoys that the globs `[1]`, `{y}`, `*` and `?` would read
    // instead; a colon's folder beside them breaks any glob of their parent.
    write(&dir.join("case[1]{y}*?/in.txt"), "a\nbc\n")?;
    for decoy in ["case1y", "case1yz", "case1", "case[1]", "a:b"] {
        write(&dir.join(decoy).join("in.txt"), "decoy\n")?;
    }
    let refused = Command::new(venv_python()?)
        .arg(&job)
        .args(["--data", "a,b", "--output", "out"])
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("{}: {e}", job.display()))?;
    let stderr = String::from_utf8_lossy(&refused.stderr);
    if refused.status.success()
        || !stderr.contains("a,b/in.txt: Spark's textFile splits its argument at commas")
    {
        return Err(format!(
            "--data a,b: expected a refusal, got {}:\n{stderr}",
            refused.status
        ));
    }
    let run = Command::new(venv_python()?)
        .arg(&job)
        .args(["--data", "case[1]{y}*?", "--output", "out:put"])
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("{}: {e}", job.display()))?;
    if !run.status.success() {
        return Err(format!(
            "the job failed ({}):\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    if dir.join("PWNED").exists() {
        return Err("a name of the program ran as Python (PWNED exists)".into());
    }
    let sink = dir.join("out:put/s[1],{x}");
    let mut lines = Vec::new();
    let entries = std::fs::read_dir(&sink).map_err(|e| format!("{}: {e}", sink.display()))?;
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with("part-") {
            let text = std::fs::read_to_string(entry.path()).map_err(|e| e.to_string())?;
            lines.extend(text.lines().map(String::from));
        }
    }
    lines.sort();
    if lines != ["bc!", "short"] {
        return Err(format!(
            "{}: expected the sink [\"bc!\", \"short\"], found {lines:?}",
            sink.display()
        ));
    }
    Ok(())
}
