//! `coco_base::class_pattern` against CPython: every pattern of a table,
//! with and without `re.ASCII`, split and searched over strings chosen for
//! the classes' edges (Unicode letters, digits, marks and spaces that
//! Rust's and Python's character predicates disagree on) and over strings
//! drawn at random from those characters. The Python that runs the jobs
//! (the project's venv) gives the expected lists.

use std::{io::Write, process::Command};

use coco_base::class_pattern::ClassPattern;

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

/// A deterministic generator (xorshift), so a failure reproduces.
fn strings() -> Vec<String> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out: Vec<String> = FIXED.iter().map(|s| s.to_string()).collect();
    out.extend(POOL.iter().map(|c| c.to_string()));
    for _ in 0..200 {
        let len = (next() % 9) as usize;
        out.push(
            (0..len)
                .map(|_| POOL[(next() % POOL.len() as u64) as usize])
                .collect(),
        );
    }
    out
}

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

pub fn check() -> Result<String, String> {
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
    let python = venv_python()?;
    let mut child = Command::new(&python)
        .args(["-c", SCRIPT])
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
    let expected: Vec<(Vec<String>, Vec<String>)> =
        serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
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
