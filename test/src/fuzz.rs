//! Smoke fuzzing of the parse → verify path: thousands of deterministic
//! mutations of the example and test files must each either parse and verify
//! or produce diagnostics, never crash. Runs in-process on one context.

use coco_dialects::{context, diagnostics::DiagnosticCollector, load_module};

/// xorshift64*: deterministic, dependency-free.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Tokens that make mutations reach the verifiers, not just the lexer.
const SPLICES: &[&str] = &[
    "#coco.local",
    "#coco.replicated",
    "#coco.sliced<0>",
    "#coco.sliced<1>",
    "#coco.sliced<7>",
    "sum",
    "avg",
    "max",
    "f16",
    "f32",
    "i64",
    "!df.str",
    "!df.list<i64>",
    "tuple<i64, f64>",
    "8x16",
    "1024",
    "0",
    "-1",
    "@stage0",
    "@missing",
    ")",
    "(",
    "{",
    "}",
    "%0",
    ",",
    ":",
    "->",
    "coco.all_reduce",
    "coco.matmul",
    "df.map",
    "\"",
    "inner",
    "left_outer",
    "bigtest.jdu_path",
];

/// One mutation of `text`.
pub fn mutate(text: &str, rng: &mut Rng) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return String::new();
    }
    let at = rng.below(chars.len());
    let len = 1 + rng.below(12.min(chars.len() - at));
    let mut out: Vec<char> = Vec::with_capacity(chars.len() + 16);
    match rng.below(6) {
        0 => {
            out.extend(&chars[..at]);
            out.extend(&chars[at + len..]);
        }
        1 => {
            out.extend(&chars[..at]);
            out.extend(SPLICES[rng.below(SPLICES.len())].chars());
            out.extend(&chars[at..]);
        }
        2 => {
            out.extend(&chars[..at]);
            out.extend(SPLICES[rng.below(SPLICES.len())].chars());
            out.extend(&chars[at + len..]);
        }
        3 => {
            let lines: Vec<&str> = text.lines().collect();
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            let mut lines = lines;
            lines.swap(a, b);
            return lines.join("\n");
        }
        4 => {
            let lines: Vec<&str> = text.lines().collect();
            let a = rng.below(lines.len());
            let mut lines = lines;
            lines.remove(a);
            return lines.join("\n");
        }
        _ => out.extend(&chars[..at]),
    }
    out.into_iter().collect()
}

/// Parses and verifies every file listed in `$COCO_FUZZ_REPLAY` (one path per
/// line) on one context, to reproduce a crash that needs several inputs.
pub fn replay(list: &str) {
    let context = context();
    for path in list.lines() {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let collector = DiagnosticCollector::attach(&context);
        let _ = load_module(&context, &text, "fuzz.mlir");
        drop(collector);
    }
}

/// Feeds `count` mutations of each input through parse and verify; returns
/// (variants tried, variants that parsed and verified).
pub fn smoke(inputs: &[String], count: usize, seed: u64) -> (usize, usize) {
    let context = context();
    let mut rng = Rng::new(seed);
    let mut valid = 0;
    let mut tried = 0;
    for _ in 0..count {
        let input = &inputs[rng.below(inputs.len())];
        let mut text = mutate(input, &mut rng);
        if rng.below(3) == 0 {
            text = mutate(&text, &mut rng);
        }
        if let Ok(dir) = std::env::var("COCO_FUZZ_DUMP") {
            // Writes every variant to disk, to reproduce a crash out of process.
            let _ = std::fs::write(format!("{dir}/variant-{tried}.mlir"), &text);
            tried += 1;
            continue;
        }
        let collector = DiagnosticCollector::attach(&context);
        if load_module(&context, &text, "fuzz.mlir").is_ok() {
            valid += 1;
        }
        drop(collector);
        tried += 1;
    }
    (tried, valid)
}
