//! Smoke fuzzing of the parse → verify path: thousands of deterministic
//! mutations of the example and test files must each either parse and verify
//! or produce diagnostics, never crash. Runs in-process on one context.

use coco_dialects::{context, diagnostics::DiagnosticCollector, load_module};
use coco_fault::mangle::{mutate, Rng};

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
