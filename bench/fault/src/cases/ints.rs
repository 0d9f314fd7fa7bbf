//! Exact integer arithmetic with known answers: an all_reduce of a local
//! i32/i64 tensor over 1 to 4 ranks, then one arith op with a replicated
//! tensor, on values at the edges (2^53 ± 1, the type's MIN and MAX, -1).
//! The answer is computed here in two's complement at the element width,
//! with coco's total division (docs/interpreter.md: x/0 = 0, x%0 = x,
//! MIN/-1 = MIN, MIN%-1 = 0); both backends must give it bit for bit.

use super::{keep, Category, Env, Outcome};
use crate::mangle::Rng;
use crate::process::Verdict;

pub struct Ints;

const N: usize = 8;

const REDUCTIONS: &[&str] = &["sum", "max", "min", "avg"];
const OPS: &[&str] = &[
    "addi", "subi", "muli", "divsi", "remsi", "andi", "ori", "xori", "maxsi", "minsi",
];

/// Values that expose a float detour or a saturating add.
fn pool(bits: u32) -> Vec<i64> {
    let mut values = vec![
        0,
        1,
        -1,
        2,
        3,
        -7,
        1 << 53,
        (1 << 53) + 1,
        (1 << 53) - 1,
        1 << 62,
        -(1 << 62),
        i64::MAX,
        i64::MIN,
        3_037_000_500,
        i32::MAX as i64,
        i32::MIN as i64,
        46341,
    ];
    if bits == 32 {
        for v in &mut values {
            *v = *v as i32 as i64;
        }
    }
    values
}

/// `x` wrapped to `bits`.
fn wrap(x: i64, bits: u32) -> i64 {
    if bits == 32 {
        x as i32 as i64
    } else {
        x
    }
}

/// One element of `x op y` at the element width.
fn apply(op: &str, x: i64, y: i64, bits: u32) -> i64 {
    let min = if bits == 32 {
        i32::MIN as i64
    } else {
        i64::MIN
    };
    match op {
        "addi" => wrap(x.wrapping_add(y), bits),
        "subi" => wrap(x.wrapping_sub(y), bits),
        "muli" => wrap(x.wrapping_mul(y), bits),
        "andi" => x & y,
        "ori" => x | y,
        "xori" => x ^ y,
        "maxsi" => x.max(y),
        "minsi" => x.min(y),
        "divsi" if y == 0 => 0,
        "remsi" if y == 0 => x,
        "divsi" if x == min && y == -1 => min,
        "remsi" if x == min && y == -1 => 0,
        "divsi" => x / y,
        _ => x % y,
    }
}

/// The all_reduce of one element over the ranks' values.
fn reduce(reduction: &str, values: impl Iterator<Item = i64>, bits: u32) -> i64 {
    match reduction {
        "sum" => values.fold(0, |a, x| wrap(a.wrapping_add(x), bits)),
        "avg" => {
            let values: Vec<i64> = values.collect();
            let sum = values
                .iter()
                .fold(0i64, |a, x| wrap(a.wrapping_add(*x), bits));
            sum / values.len() as i64
        }
        "max" => values.max().unwrap_or(0),
        _ => values.min().unwrap_or(0),
    }
}

/// A `.npy` file of little-endian integers of `shape` (a Python tuple).
fn npy(values: &[i64], shape: &str, bits: u32) -> Vec<u8> {
    let descr = if bits == 32 { "<i4" } else { "<i8" };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let mut data = Vec::new();
    for v in values {
        if bits == 32 {
            data.extend_from_slice(&(*v as i32).to_le_bytes());
        } else {
            data.extend_from_slice(&v.to_le_bytes());
        }
    }
    super::npy::npy_bytes(&dict, &data)
}

fn data(npy: &[u8]) -> Option<&[u8]> {
    if npy.len() < 10 {
        return None;
    }
    let len = u16::from_le_bytes([npy[8], npy[9]]) as usize;
    npy.get(10 + len..)
}

impl Category for Ints {
    fn name(&self) -> &'static str {
        "exact integers"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let mut rng: Rng = env.rng(self.name(), index);
        let bits = [32, 64][rng.below(2)];
        let ty = format!("i{bits}");
        let reduction = REDUCTIONS[rng.below(REDUCTIONS.len())];
        let op = OPS[rng.below(OPS.len())];
        let ranks = 1 + rng.below(4);
        let values = pool(bits);
        let pick = |rng: &mut Rng| {
            if rng.below(4) == 0 {
                wrap(rng.next_u64() as i64, bits)
            } else {
                values[rng.below(values.len())]
            }
        };
        // A local input is one row per rank.
        let a: Vec<i64> = (0..N * ranks).map(|_| pick(&mut rng)).collect();
        let b: Vec<i64> = (0..N)
            .map(|_| {
                if op.ends_with("si") && rng.below(3) > 0 {
                    [1, -1, 2, 7][rng.below(4)]
                } else {
                    pick(&mut rng)
                }
            })
            .collect();
        let local = format!("tensor<{N}x{ty}, #coco.local>");
        let replicated = format!("tensor<{N}x{ty}, #coco.replicated>");
        let program = format!(
            "func.func @f(%a: {local}, %b: {replicated}) -> {replicated} {{\n  %s = coco.all_reduce {reduction} %a : {local} -> {replicated}\n  %r = arith.{op} %s, %b : {replicated}\n  return %r : {replicated}\n}}\n"
        );
        let expected: Vec<i64> = (0..N)
            .map(|i| {
                apply(
                    op,
                    reduce(reduction, (0..ranks).map(|r| a[r * N + i]), bits),
                    b[i],
                    bits,
                )
            })
            .collect();
        let local_shape = format!("({ranks}, {N})");
        let replicated_shape = format!("({N},)");
        let sandbox = env.sandbox("ints", index);
        let _ = sandbox.write("f.mlir", program.as_bytes());
        let _ = sandbox.write("in/f.arg0.npy", &npy(&a, &local_shape, bits));
        let _ = sandbox.write("in/f.arg1.npy", &npy(&b, &replicated_shape, bits));
        let backend = ["reference", "cpu"][rng.below(2)];
        let ranks_text = ranks.to_string();
        let args = [
            "f.mlir",
            "--backend",
            backend,
            "--ranks",
            &ranks_text,
            "--inputs",
            "in",
            "--outputs",
            "out",
        ];
        let command =
            format!("coco-run --backend {backend} --ranks {ranks}: {reduction} then {op} on {ty}");
        let (job, invocation) = env.invoke("coco-run", &args, &sandbox);
        let Ok(run) = invocation.run() else {
            return Outcome {
                case: command,
                verdict: Verdict::Crash("cannot start coco-run".into()),
                detail: String::new(),
            };
        };
        let verdict = env.judge(&job, &run, |v| match v {
            // An op a backend does not implement, said so, is honest.
            Verdict::CleanError if run.stderr_text().contains("is not supported") => v,
            Verdict::CleanError => Verdict::Wrong("refused a program with a defined answer".into()),
            _ => {
                let got = std::fs::read(sandbox.path("out/f.result0.npy")).unwrap_or_default();
                let want = &expected;
                let want_bytes = npy(want, &replicated_shape, bits);
                if data(&got) == data(&want_bytes) {
                    Verdict::Ok
                } else {
                    Verdict::Wrong(format!("result differs from the exact answer {want:?}"))
                }
            }
        });
        let case = if matches!(verdict, Verdict::Ok | Verdict::CleanError) {
            command
        } else {
            let kept = keep(env, "ints", index, "f.mlir", program.as_bytes());
            let _ = keep(
                env,
                "ints",
                index,
                "f.arg0.npy",
                &npy(&a, &local_shape, bits),
            );
            let _ = keep(
                env,
                "ints",
                index,
                "f.arg1.npy",
                &npy(&b, &replicated_shape, bits),
            );
            format!("{command}  (program: {kept})")
        };
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
