//! Input values chosen on the command line (`coco-run --input NAME=VALUE`)
//! for i32, i64 and f32 inputs, at and past the edges of each type: 2^53
//! ± 1 (an f64 detour loses them), MIN and MAX, one past them, exponent
//! forms of integers (`9.007199254740993e15`), `uniform(a,b)` bounds, and
//! float literals that overflow to infinity or underflow to 0. A value the
//! type holds must come out exactly (the reference backend prints it); any
//! other must be refused with an error naming the input.

use super::{Category, Env, Outcome};
use crate::mangle::Rng;
use crate::process::Verdict;

pub struct Values;

const PROGRAM: &str = "\
func.func @values(%n: i32, %big: i64, %x: f32) -> (i32, i64, f32) {
  return %n, %big, %x : i32, i64, f32
}
";

/// Integers at the edges of i32 and i64 and of an f64's exact range.
fn edges() -> Vec<i128> {
    let p53 = 1i128 << 53;
    vec![
        0,
        1,
        -1,
        p53 - 1,
        p53,
        p53 + 1,
        -(p53 + 1),
        i32::MAX as i128,
        i32::MAX as i128 + 1,
        i32::MIN as i128,
        i32::MIN as i128 - 1,
        3_000_000_000,
        i64::MAX as i128,
        i64::MAX as i128 + 1,
        i64::MIN as i128,
        i64::MIN as i128 - 1,
        10_000_000_000_000_000_000,
        -5_000_000_000,
    ]
}

/// `value` written plainly, or in an exponent form that is still exactly
/// that integer when it has trailing zeros or digits to move.
fn spell(value: i128, rng: &mut Rng) -> String {
    let plain = value.to_string();
    let (sign, digits) = match plain.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", plain.as_str()),
    };
    if digits.len() < 2 || rng.below(2) == 0 {
        return plain;
    }
    // d.ddd...eK with every digit kept: exact whatever the integer.
    format!(
        "{sign}{}.{}e{}",
        &digits[..1],
        &digits[1..],
        digits.len() - 1
    )
}

/// Float literals for an f32 input and whether f32 holds them (not
/// infinity from a finite literal, not 0 from a nonzero one).
const FLOATS: &[(&str, bool)] = &[
    ("1.5", true),
    ("-0.0", true),
    ("3.4028234663852886e38", true),
    ("3.5e38", false),
    ("1e39", false),
    ("-1e39", false),
    ("1e-45", true),
    ("1e-46", false),
    ("1e-50", false),
    ("inf", true),
    ("0", true),
];

impl Category for Values {
    fn name(&self) -> &'static str {
        "input values at the edges"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let mut rng = env.rng(self.name(), index);
        let edges = edges();
        let sandbox = env.sandbox("values", index);
        let _ = sandbox.write("values.mlir", PROGRAM.as_bytes());
        let (kind, bits) = [("n", 32u32), ("big", 64)][rng.below(2)];
        let mut either = false;
        let (argument, expected): (String, Option<String>) = match rng.below(4) {
            0 | 1 => {
                let value = edges[rng.below(edges.len())];
                let fits = if bits == 32 {
                    i32::try_from(value).is_ok()
                } else {
                    i64::try_from(value).is_ok()
                };
                (
                    format!("{kind}={}", spell(value, &mut rng)),
                    fits.then(|| value.to_string()),
                )
            }
            2 => {
                let (lo, hi) = (edges[rng.below(edges.len())], edges[rng.below(edges.len())]);
                let (lo, hi) = (lo.min(hi), lo.max(hi));
                let (min, max) = if bits == 32 {
                    (i32::MIN as i128, i32::MAX as i128)
                } else {
                    (i64::MIN as i128, i64::MAX as i128)
                };
                // Drawn values are in [lo, hi): bounds that keep them inside
                // the type must be taken, bounds that reach outside refused;
                // an empty range may be either.
                let argument = format!("{kind}=uniform({lo},{hi})");
                if lo >= hi {
                    either = true;
                }
                let fits = lo >= min && hi <= max + 1;
                (argument, fits.then(|| "uniform".to_string()))
            }
            _ => {
                let (literal, fits) = FLOATS[rng.below(FLOATS.len())];
                (format!("x={literal}"), fits.then(|| literal.to_string()))
            }
        };
        let args = [
            "values.mlir",
            "--backend",
            "reference",
            "--input",
            argument.as_str(),
            "--print-values",
        ];
        let case = format!("coco-run values.mlir --input {argument} --print-values");
        let (job, invocation) = env.invoke("coco-run", &args, &sandbox);
        let run = match invocation.run() {
            Ok(run) => run,
            Err(e) => return Outcome::not_run(case, format!("cannot start: {e}")),
        };
        let printed = String::from_utf8_lossy(&run.stdout).into_owned();
        let verdict = env.judge(&job, &run, |verdict| match (&expected, verdict) {
            (_, verdict) if either && verdict == Verdict::CleanError => verdict,
            (None, Verdict::Ok) => Verdict::Wrong(format!("accepted {argument}")),
            (None, Verdict::CleanError) => {
                let name = argument.split('=').next().unwrap_or_default();
                if run.stderr_text().contains(&format!("--input {name}:")) {
                    Verdict::CleanError
                } else {
                    Verdict::Wrong("the refusal does not name the input".into())
                }
            }
            (Some(_), Verdict::CleanError) => Verdict::Wrong(format!("refused {argument}")),
            (Some(value), Verdict::Ok) if argument.starts_with("x=") || value == "uniform" => {
                Verdict::Ok
            }
            (Some(value), Verdict::Ok) => {
                if printed.contains(&format!("[{value}]")) {
                    Verdict::Ok
                } else {
                    Verdict::Wrong(format!("{argument} came out otherwise:\n{printed}"))
                }
            }
            (_, other) => other,
        });
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
