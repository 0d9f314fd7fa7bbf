//! What coco says Python's text functions give, against CPython itself
//! (the project's venv, which runs the jobs):
//!
//! * `coco_base::class_pattern`: every pattern of a table, with and
//!   without `re.ASCII`, split and searched over strings chosen for the
//!   classes' edges (Unicode letters, digits, marks and spaces that Rust's
//!   and Python's character predicates disagree on) and over strings drawn
//!   at random from those characters;
//! * `coco_dataflow::host::csv_row`: `csv.reader`'s row of lines drawn
//!   from commas, quotes, spaces and line breaks, and that a line coco
//!   refuses as a quoted field left open does take the next line in.

use std::{io::Write, process::Command};

use coco_base::class_pattern::ClassPattern;
use coco_dataflow::host::{csv_row, CsvRowError};

use crate::spark::venv_python;

const PATTERNS: &[&str] = &[
    r"\W+",
    r"\w+",
    r"\s+",
    r"\S+",
    r"\d+",
    r"\D",
    r"[,;]",
    r"[^a-z']+",
    ".",
    r"[\w'-]+",
    r"[^\w\s]",
    r"\.",
    r"[\x41-\x43]+",
    r"[]a]",
    r"[\s,]+",
    r"\t",
    r"[^\d]+",
    r"_",
];

/// Characters where the predicates are easy to get wrong: ASCII edges,
/// the U+001C..U+001F separators (`\s` to Python), letters of other
/// scripts, a combining mark that Unicode calls Alphabetic but Python
/// does not call a letter (U+0345), numbers that are not decimal digits
/// (`²`, `½`, `Ⅻ`), decimal digits of other scripts, and spaces outside
/// ASCII.
const POOL: &[char] = &[
    'a', 'Z', '0', '9', '_', ' ', '\t', '\n', '\r', '\x0b', '\x0c', '\x1c', '\x1f', ',', ';', '.',
    '\'', '-', ']', 'A', 'B', 'C', 'D', 'é', 'ï', 'İ', 'ǅ', 'ß', '\u{345}', '\u{300}', '²', '½',
    'Ⅻ', '٣', '१', '\u{a0}', '\u{2028}', '\u{3000}', '\u{85}', '中', '𝔘', '\u{200b}',
];

const FIXED: &[&str] = &[
    "",
    "Hello, world!",
    "  a  b\t",
    "naïve café_1",
    "don't-stop",
    "a,,;b",
    "..a",
    "x²½Ⅻ",
];

/// `count` strings of up to 8 characters of `pool`, from a deterministic
/// generator (xorshift), so a failure reproduces.
fn drawn(pool: &[char], count: usize) -> Vec<String> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let len = (next() % 9) as usize;
            (0..len)
                .map(|_| pool[(next() % pool.len() as u64) as usize])
                .collect()
        })
        .collect()
}

fn strings() -> Vec<String> {
    let mut out: Vec<String> = FIXED.iter().map(|s| s.to_string()).collect();
    out.extend(POOL.iter().map(|c| c.to_string()));
    out.extend(drawn(POOL, 200));
    out
}

/// Characters that steer `csv.reader`.
const CSV_POOL: &[char] = &['a', 'b', ',', '"', '"', ' ', '\r', '\n'];

/// A JSON string literal (the cases go to Python as JSON).
fn json(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

const SCRIPT: &str = r#"
import json, re, sys
cases = json.load(sys.stdin)
out = []
for pattern, ascii, text in cases:
    flags = re.ASCII if ascii else 0
    out.append([re.split(pattern, text, flags=flags), re.findall(pattern, text, flags=flags)])
json.dump(out, sys.stdout, ensure_ascii=True)
"#;

/// Per line: `[row or null, error or null, whether the next line joins the row]`.
const CSV_SCRIPT: &str = r#"
import csv, json, sys
out = []
for line in json.load(sys.stdin):
    try:
        row, error = next(csv.reader([line]), None), None
        joins = len(list(csv.reader([line, "x"]))) == 1
    except csv.Error as e:
        row, error, joins = None, str(e), False
    out.append([row, error, joins])
json.dump(out, sys.stdout, ensure_ascii=True)
"#;

/// Runs `script` on `input` with the venv's Python; its stdout.
fn python(script: &str, input: &str) -> Result<Vec<u8>, String> {
    let python = venv_python()?;
    let mut child = Command::new(&python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(input.as_bytes())
        .map_err(|e| e.to_string())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!("{} failed", python.display()));
    }
    Ok(output.stdout)
}

pub fn check() -> Result<String, String> {
    let mut summary = patterns()?;
    summary.push_str(&csv_rows()?);
    Ok(summary)
}

fn csv_rows() -> Result<String, String> {
    let mut lines: Vec<String> = ["", "a,b", "\"a,b\",c", "\"a\"\"b\"", "a\"b", "\"a\"x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    lines.extend(drawn(CSV_POOL, 400));
    let input = format!(
        "[{}]",
        lines.iter().map(|l| json(l)).collect::<Vec<_>>().join(",")
    );
    type Expected = (Option<Vec<String>>, Option<String>, bool);
    let expected: Vec<Expected> =
        serde_json::from_slice(&python(CSV_SCRIPT, &input)?).map_err(|e| e.to_string())?;
    let mut wrong = Vec::new();
    for (line, (row, error, joins)) in lines.iter().zip(&expected) {
        let agrees = match csv_row(line) {
            Ok(ours) => row.as_ref() == Some(&ours) && !joins,
            Err(CsvRowError::Python(message)) => error.as_deref() == Some(message.as_str()),
            Err(CsvRowError::QuotedPastLine) => *joins,
        };
        if !agrees {
            wrong.push(format!(
                "{line:?}: CPython row {row:?} error {error:?} joins the next line {joins}, coco {:?}",
                csv_row(line)
            ));
        }
    }
    if wrong.is_empty() {
        Ok(format!(
            "{} csv.reader lines agree with CPython's csv\n",
            lines.len()
        ))
    } else {
        Err(format!(
            "{} of {} csv.reader lines differ from CPython:\n{}",
            wrong.len(),
            lines.len(),
            wrong[..wrong.len().min(20)].join("\n")
        ))
    }
}

fn patterns() -> Result<String, String> {
    let texts = strings();
    let mut cases = Vec::new();
    for pattern in PATTERNS {
        for ascii in [false, true] {
            for text in &texts {
                cases.push((*pattern, ascii, text.clone()));
            }
        }
    }
    let input = format!(
        "[{}]",
        cases
            .iter()
            .map(|(p, a, t)| format!("[{}, {a}, {}]", json(p), json(t)))
            .collect::<Vec<_>>()
            .join(",")
    );
    let expected: Vec<(Vec<String>, Vec<String>)> =
        serde_json::from_slice(&python(SCRIPT, &input)?).map_err(|e| e.to_string())?;
    let mut wrong = Vec::new();
    for ((pattern, ascii, text), (split, found)) in cases.iter().zip(&expected) {
        let p = ClassPattern::parse(pattern, *ascii).map_err(|e| e.to_string())?;
        if p.split(text) != *split || p.find_all(text) != *found {
            wrong.push(format!(
                "{pattern} ascii={ascii} on {text:?}: CPython split {split:?} findall {found:?}, coco {:?} {:?}",
                p.split(text),
                p.find_all(text)
            ));
        }
    }
    if wrong.is_empty() {
        Ok(format!(
            "{} pattern x string cases agree with CPython's re\n",
            cases.len()
        ))
    } else {
        Err(format!(
            "{} of {} cases differ from CPython:\n{}",
            wrong.len(),
            cases.len(),
            wrong[..wrong.len().min(20)].join("\n")
        ))
    }
}
