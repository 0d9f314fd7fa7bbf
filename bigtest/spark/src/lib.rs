//! df programs as PySpark jobs (`coco-translate --emit=pyspark`).
//!
//! The job is one self-contained Python file that runs unchanged under
//! `spark-submit` on a cluster or with `python` on one machine: every
//! source becomes `textFile` (or `parallelize` for inline records), every
//! operator the RDD method that means the same on Spark (`map`, `filter`,
//! `flatMap`, `reduce`, `reduceByKey`, `groupByKey`, `join` and its outer
//! forms, `union`, `distinct`), every UDF a Python function, and every sink
//! text lines saved with `saveAsTextFile`.
//!
//! The UDFs compute exactly what coco's interpreter computes: arith ops
//! with MLIR's integer semantics (i64 wraps), df string and number ops with
//! the host language's (`df.host`): under `"python"` they are Python's own
//! operations, under `"jvm"` a port of Java's (`String.split`,
//! `Long.parseLong`, ...), both in `coco_df.py`, which the job embeds. A UDF
//! that fails raises, which fails the Spark task and so the job.
//!
//! What Spark adds is the engine: partitioning, shuffles, the order in
//! which it combines records, and job failure. The Spark check
//! (test/src/spark.rs) runs every example's generated test cases through
//! these jobs on Spark and compares them with the interpreter, case by case.

mod job;
pub mod local;
mod paths_job;
pub mod python;
mod udf;
mod writer;

use coco_dataflow::model::Program;
use thiserror::Error;

use crate::writer::Writer;

#[derive(Debug, Error, PartialEq)]
pub enum ExportError {
    #[error("{loc}: cannot export to PySpark: {what}")]
    Unsupported { loc: String, what: String },
}

/// The semantics of the df ops in Python (see the module docs).
const COCO_DF: &str = include_str!("coco_df.py");
/// Argument and Spark helpers both jobs' command lines use.
const CLI: &str = include_str!("cli.py");
/// The sinks job's command line.
const MAIN: &str = include_str!("main.py");
/// The JDU path of a record through each operator, in Python.
const PATHS: &str = include_str!("paths.py");
/// The paths job's command line.
const PATHS_MAIN: &str = include_str!("paths_main.py");

/// What an exported job computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// The program itself: its sinks, saved as text.
    Sinks,
    /// The JDU path every record follows, counted per path (coverage of a
    /// dataset on Spark; `coco-bigtest coverage --histogram`).
    Paths,
}

/// The PySpark job for `program`, read from `source_file` (named in the
/// job's header).
pub fn export(program: &Program, source_file: &str) -> Result<String, ExportError> {
    export_job(program, source_file, Job::Sinks)
}

/// The PySpark job of kind `job` for `program`.
pub fn export_job(program: &Program, source_file: &str, job: Job) -> Result<String, ExportError> {
    match job {
        Job::Sinks => sinks_job(program, source_file),
        Job::Paths => paths_job(program, source_file),
    }
}

fn sinks_job(program: &Program, source_file: &str) -> Result<String, ExportError> {
    let mut w = Writer::default();
    w.line("#!/usr/bin/env python3");
    w.line(format!(
        "\"\"\"PySpark job for @{} ({}), written by coco-translate --emit=pyspark.",
        python::text(&program.name),
        python::text(source_file)
    ));
    w.line("");
    w.line("Run it where Spark runs (the sinks are saved under --output):");
    w.line("");
    w.line(format!(
        "    spark-submit --master yarn {}.py --data hdfs:///tests/case-1 --output hdfs:///out/case-1",
        job::job_name(program)
    ));
    w.line(format!(
        "    python {}.py --data DIR --output OUT    # local[*], with pyspark installed",
        job::job_name(program)
    ));
    w.line("");
    w.line(format!(
        "The df ops have {} semantics (df.host = \"{}\"); a UDF that fails raises, which",
        match program.host {
            coco_dataflow::host::Host::Jvm => "Java/Scala",
            coco_dataflow::host::Host::Python => "Python",
        },
        program.host
    ));
    w.line("fails the job, as it would on the JVM.");
    w.line("\"\"\"");
    w.line("");
    w.line(format!("HOST = \"{}\"", program.host));
    w.line("");
    w.raw(COCO_DF);
    w.line("");
    w.line("");
    w.line("# --- UDFs ---------------------------------------------------------------------");
    w.line("");
    w.line("");
    for udf in program.udfs.values() {
        udf::emit(udf, udf::Tracing::Off, &mut w)?;
        w.line("");
    }
    w.line("# --- the dataflow -------------------------------------------------------------");
    w.line("");
    w.line("");
    job::emit(program, &mut w)?;
    w.raw(CLI);
    w.raw(MAIN);
    Ok(w.finish())
}

fn paths_job(program: &Program, source_file: &str) -> Result<String, ExportError> {
    let mut w = Writer::default();
    let name = job::job_name(program);
    w.line("#!/usr/bin/env python3");
    w.line(format!(
        "\"\"\"JDU paths of @{} ({}) on Spark, written by coco-translate --emit=pyspark-paths.",
        python::text(&program.name),
        python::text(source_file)
    ));
    w.line("");
    w.line("Runs the program's operators on a dataset with every record tagged with the");
    w.line("JDU path it follows, and writes how many records follow each path, which");
    w.line("coco-bigtest turns into a coverage report:");
    w.line("");
    w.line(format!(
        "    spark-submit --master yarn {name}_paths.py --input SOURCE=hdfs:///logs/2026-12 --histogram paths.json"
    ));
    w.line(format!(
        "    coco-bigtest coverage {} --histogram paths.json",
        python::text(source_file)
    ));
    w.line("");
    w.line(format!(
        "The df ops have {} semantics (df.host = \"{}\"), as in the job coco-translate",
        match program.host {
            coco_dataflow::host::Host::Jvm => "Java/Scala",
            coco_dataflow::host::Host::Python => "Python",
        },
        program.host
    ));
    w.line("--emit=pyspark writes; a record whose UDF fails ends its path here instead of");
    w.line("failing the job, so one run measures every record.");
    w.line("\"\"\"");
    w.line("");
    w.line(format!("HOST = \"{}\"", program.host));
    w.line("");
    w.raw(COCO_DF);
    w.raw(PATHS);
    w.line("");
    w.line("");
    w.line("# --- UDFs, tracing the decisions they take -----------------------------------");
    w.line("");
    w.line("");
    for udf in program.udfs.values() {
        udf::emit(udf, udf::Tracing::Paths, &mut w)?;
        w.line("");
    }
    w.line("# --- the dataflow -------------------------------------------------------------");
    w.line("");
    w.line("");
    paths_job::emit(program, &mut w)?;
    w.raw(CLI);
    w.raw(PATHS_MAIN);
    Ok(w.finish())
}

#[cfg(test)]
mod tests {
    //! coco_df.py against the interpreter's own host semantics
    //! (`coco_dataflow::host`), op by op, on the same inputs, per host: the
    //! exported UDFs are exact only if the helper and the interpreter agree.

    use std::{io::Write, process::Command};

    use coco_dataflow::{
        host::{self, Host},
        model::{SqlCastTarget, StripSide},
        value::Value,
    };

    use super::COCO_DF;

    /// Strings that hit the rules' corners, and a deterministic spread of
    /// short strings over the characters that matter to them.
    fn inputs() -> Vec<String> {
        let mut inputs: Vec<String> = [
            "",
            " ",
            ",",
            "a,,",
            ",a",
            " ,",
            "a,b",
            "1",
            "-1",
            "+1",
            " 1",
            "1 ",
            "1_000",
            "_1",
            "1__0",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "2147483647",
            "2147483648",
            "-2147483648",
            "-2147483649",
            "\u{663}\u{661}",
            "\u{1d7d9}",
            "1.5",
            "-1.5e3",
            "1e5",
            ".5",
            "1.",
            ".",
            "e5",
            "1e",
            "1e+",
            "NaN",
            "-Infinity",
            "Infinity",
            "inf",
            "nan",
            "1f",
            "1.5D",
            "0x10",
            "1e400",
            "\u{e9}t\u{e9}",
            "\u{1f600}ab",
            "a\u{1f600}",
            "\t1\n",
            "\u{1c}1",
            "1\u{a0}",
            "  a  b \t c\n",
            "\u{85}x\u{3000}",
            "aaa",
            "\u{391}\u{3a3} \u{3a3}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let alphabet: Vec<char> = "019-+.eE, _afdN\u{1f600}\u{663}\tA\u{df}\u{130}\u{a0}\u{1c}"
            .chars()
            .collect();
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..400 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (state >> 60) as usize % 7;
            let mut s = String::new();
            for i in 0..len {
                let pick = (state >> (8 * i % 56)) as usize % alphabet.len();
                s.push(alphabet[pick]);
            }
            inputs.push(s);
        }
        inputs
    }

    const FLOATS: [f64; 16] = [
        1e7,
        9999999.0,
        1e-3,
        0.000999,
        123456789.0,
        0.1,
        1e21,
        5e-324,
        1.7976931348623157e308,
        -0.0,
        100.0,
        1234567.0,
        1e16,
        1e-5,
        2.5e-7,
        -3.25,
    ];

    fn rust_results(host: Host, strings: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for s in strings {
            let pieces = host::split(host, s, ",");
            out.push(format!("{}:{}", pieces.len(), pieces.join("\u{1}")));
            out.push(match host::parse_int(host, s) {
                Ok(v) => v.to_string(),
                Err(host::ParseIntError::NotAnInteger) => "fail".into(),
                Err(host::ParseIntError::BeyondI64) => "beyond".into(),
            });
            out.push(match host::parse_float(host, s) {
                Some(v) => format!("{v:?}"),
                None => "fail".into(),
            });
            out.push(host::length(host, s).to_string());
            for (start, length) in [(0, 1), (1, 2), (-1, 2), (2, -1), (0, 9)] {
                out.push(match host::substring(host, s, start, length) {
                    Some(v) => v,
                    None => "fail".into(),
                });
            }
            out.push(host::find(host, s, ",").to_string());
            out.push(host::find(host, s, "a").to_string());
            out.push(host::replace(s, ",", ";;").unwrap_or_default());
            out.push(if s.ends_with('1') { "True" } else { "False" }.into());
            // Python's own str methods (df.host = "python" only).
            let words = host::split_whitespace(s);
            out.push(format!("{}:{}", words.len(), words.join("\u{1}")));
            for side in StripSide::ALL {
                out.push(host::strip(s, side, false));
                out.push(host::strip(s, side, true));
            }
            out.push(host::lower(s));
            out.push(host::upper(s));
            // Spark SQL's casts, the same on both hosts.
            for to in SqlCastTarget::ALL {
                out.push(match coco_dataflow::sql::cast_str(to, s) {
                    None => "null".into(),
                    Some(Value::Float(v)) => format!("{v:?}"),
                    Some(Value::Bool(b)) => if b { "True" } else { "False" }.into(),
                    Some(v) => v.to_string(),
                });
            }
        }
        for x in FLOATS {
            out.push(host::format_float(host, x));
        }
        for (a, b) in INT_PAIRS {
            for result in [host::floor_div(a, b), host::floor_mod(a, b)] {
                out.push(result.map_or("fail".into(), |v| v.to_string()));
            }
        }
        for (a, b) in [(7.0, -2.0), (1.0, 0.0), (1.0, -0.0), (1e308, 1e-10)] {
            out.push(host::true_div(a, b).map_or("fail".into(), |v| format!("{v:?}")));
        }
        out
    }

    const INT_PAIRS: [(i64, i64); 8] = [
        (7, 2),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (5, 0),
        (i64::MIN, -1),
        (i64::MIN, 3),
        (-1, i64::MAX),
    ];

    /// Results per input string, in the order both sides push them.
    const PER_STRING: usize = 27;

    const PYTHON_SIDE: &str = r#"
import json, sys
strings, floats, int_pairs = json.load(sys.stdin)
out = []
def attempt(f):
    try:
        return f()
    except UdfFailure:
        return "fail"
    except ModelError:
        return "beyond"
for s in strings:
    pieces = split(s, ",")
    out.append("%d:%s" % (len(pieces), "\x01".join(pieces)))
    out.append(attempt(lambda: str(to_int(s, False))))
    out.append(attempt(lambda: _rust_float(to_float(s))))
    out.append(str(length(s)))
    for start, n in [(0, 1), (1, 2), (-1, 2), (2, -1), (0, 9)]:
        out.append(attempt(lambda: substr(s, start, n)))
    out.append(str(find(s, ",")))
    out.append(str(find(s, "a")))
    out.append(replace(s, ",", ";;"))
    out.append(str(s.endswith("1")))
    words = tuple(s.split())
    out.append("%d:%s" % (len(words), "\x01".join(words)))
    out.append(s.strip())
    out.append(s.strip(" "))
    out.append(s.lstrip())
    out.append(s.lstrip(" "))
    out.append(s.rstrip())
    out.append(s.rstrip(" "))
    out.append(s.lower())
    out.append(s.upper())
    for target in ("int", "bigint", "double", "boolean"):
        v = sql_cast_or_none(s, target)
        if not v:
            out.append("null")
        elif isinstance(v[0], float):
            out.append(_rust_float(v[0]))
        else:
            out.append(str(v[0]))
for x in floats:
    out.append(to_str(x))
for a, b in int_pairs:
    out.append(attempt(lambda: str(floordiv(a, b))))
    out.append(attempt(lambda: str(mod(a, b))))
for a, b in [(7.0, -2.0), (1.0, 0.0), (1.0, -0.0), (1e308, 1e-10)]:
    out.append(attempt(lambda: _rust_float(truediv(a, b))))
json.dump(out, sys.stdout)
"#;

    fn python_results(host: Host, strings: &[String]) -> Vec<String> {
        let program = format!("HOST = \"{host}\"\n{COCO_DF}\n{PYTHON_SIDE}");
        let mut child = Command::new("python3")
            .args(["-c", &program])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs (scripts/setup.sh installs it)");
        let floats: Vec<f64> = FLOATS.to_vec();
        let input = format!(
            "[{}, [{}], [{}]]",
            serde_json_like(strings),
            floats
                .iter()
                .map(|f| format!("{f:?}"))
                .collect::<Vec<_>>()
                .join(","),
            INT_PAIRS
                .iter()
                .map(|(a, b)| format!("[{a}, {b}]"))
                .collect::<Vec<_>>()
                .join(",")
        );
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "python3 failed");
        parse_json_strings(&String::from_utf8(output.stdout).unwrap())
    }

    /// A JSON array of strings (no serde in this crate's dependencies).
    fn serde_json_like(strings: &[String]) -> String {
        let items: Vec<String> = strings
            .iter()
            .map(|s| {
                let mut out = String::from("\"");
                for c in s.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                        c => out.push(c),
                    }
                }
                out.push('"');
                out
            })
            .collect();
        format!("[{}]", items.join(","))
    }

    /// The strings of a JSON array that Python's json.dump wrote (ASCII,
    /// `\uXXXX` escapes, surrogate pairs for the astral planes).
    fn parse_json_strings(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '"' {
                continue;
            }
            let mut units: Vec<u16> = Vec::new();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => match chars.next() {
                        Some('u') => {
                            let hex: String = (0..4).filter_map(|_| chars.next()).collect();
                            units.push(u16::from_str_radix(&hex, 16).unwrap());
                        }
                        Some('n') => units.push(10),
                        Some('t') => units.push(9),
                        Some('r') => units.push(13),
                        Some('b') => units.push(8),
                        Some('f') => units.push(12),
                        Some(other) => units.push(other as u16),
                        None => {}
                    },
                    c => units.push(c as u16),
                }
            }
            out.push(
                char::decode_utf16(units)
                    .map(|c| c.unwrap_or('?'))
                    .collect(),
            );
        }
        out
    }

    #[test]
    fn coco_df_py_agrees_with_the_interpreter_on_both_hosts() {
        let strings = inputs();
        for host in Host::ALL {
            let rust = rust_results(host, &strings);
            let python = python_results(host, &strings);
            assert_eq!(rust.len(), python.len(), "{host}: result counts");
            let per_string = PER_STRING;
            let mut wrong = Vec::new();
            for (i, (r, p)) in rust.iter().zip(&python).enumerate() {
                if r != p {
                    let after_strings = i.saturating_sub(per_string * strings.len());
                    let subject = strings
                        .get(i / per_string)
                        .map(|s| format!("{s:?}"))
                        .or_else(|| FLOATS.get(after_strings).map(|x| format!("{x:?}")))
                        .unwrap_or_else(|| {
                            format!("number pair #{}", after_strings - FLOATS.len())
                        });
                    wrong.push(format!(
                        "{host} #{} on {subject}: interpreter {r:?}, coco_df.py {p:?}",
                        i % per_string
                    ));
                }
            }
            assert!(
                wrong.is_empty(),
                "{} disagreements:\n{}",
                wrong.len(),
                wrong.join("\n")
            );
        }
    }
}
