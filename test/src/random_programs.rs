//! Property-based differential testing: random well-layouted coco programs
//! (an all_reduce of a local gradient, then random element-wise computations
//! mixing it with replicated parameters and a scalar, updates of the
//! parameters) under random pipelines of coco passes must give bitwise the
//! same outputs as the original on 1 to 4 ranks.

use proptest::{
    prelude::*,
    test_runner::{Config, TestCaseError, TestRunner},
};

use crate::{coco_opt, differential};

#[derive(Clone, Debug)]
pub enum Step {
    Unary(u8, usize),
    Binary(u8, usize, usize),
}

#[derive(Clone, Debug)]
pub struct Program {
    pub reduction: u8,
    pub params: usize,
    pub steps: Vec<Step>,
    /// For each parameter, the step whose value updates it (if any).
    pub updates: Vec<Option<usize>>,
}

const UNARY: &[&str] = &["arith.negf", "math.absf", "math.tanh"];
const BINARY: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.maximumf",
    "arith.minimumf",
];
const REDUCTIONS: &[&str] = &["sum", "avg", "max", "min"];
/// Divisible by 1, 2, 3, 4 and 8.
const SIZE: usize = 48;

fn program_strategy() -> impl Strategy<Value = Program> {
    (0u8..4, 1usize..4, 1usize..10).prop_flat_map(|(reduction, params, steps)| {
        let step = prop_oneof![
            (0u8..UNARY.len() as u8, 0usize..64).prop_map(|(k, a)| Step::Unary(k, a)),
            (0u8..BINARY.len() as u8, 0usize..64, 0usize..64)
                .prop_map(|(k, a, b)| Step::Binary(k, a, b)),
        ];
        (
            Just(reduction),
            Just(params),
            proptest::collection::vec(step, steps),
            proptest::collection::vec(proptest::option::of(0usize..64), params),
        )
            .prop_map(|(reduction, params, steps, updates)| Program {
                reduction,
                params,
                steps,
                updates,
            })
    })
}

impl Program {
    pub fn text(&self) -> String {
        let t = format!("tensor<{SIZE}xf32, #coco.replicated>");
        let mut params = String::new();
        for i in 0..self.params {
            params.push_str(&format!(", %p{i}: {t}"));
        }
        let mut body = format!(
            "  %r = coco.all_reduce {} %g : tensor<{SIZE}xf32, #coco.local> -> {t}\n  %s = tensor.splat %scale : {t}\n",
            REDUCTIONS[self.reduction as usize % REDUCTIONS.len()]
        );
        let mut values: Vec<String> = vec!["%r".into(), "%s".into()];
        values.extend((0..self.params).map(|i| format!("%p{i}")));
        for (i, step) in self.steps.iter().enumerate() {
            let line = match step {
                Step::Unary(k, a) => {
                    format!("{} {} : {t}", UNARY[*k as usize], values[a % values.len()])
                }
                Step::Binary(k, a, b) => {
                    format!(
                        "{} {}, {} : {t}",
                        BINARY[*k as usize],
                        values[a % values.len()],
                        values[b % values.len()]
                    )
                }
            };
            body.push_str(&format!("  %v{i} = {line}\n"));
            values.push(format!("%v{i}"));
        }
        for (i, update) in self.updates.iter().enumerate() {
            if let Some(u) = update {
                body.push_str(&format!(
                    "  coco.update %p{i}, {} : {t}\n",
                    values[u % values.len()]
                ));
            }
        }
        let last = values.last().expect("non-empty");
        format!(
            "func.func @prog(%g: tensor<{SIZE}xf32, #coco.local>{params}, %scale: f32) -> {t} {{\n{body}  return {last} : {t}\n}}\n"
        )
    }
}

fn pipeline_strategy() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0u8..3,
    )
        .prop_map(|(split, reorder, clean, slice, fuse)| {
            let mut parts = Vec::new();
            if split {
                parts.push("coco-split");
                if reorder {
                    parts.push("coco-reorder");
                }
            }
            if clean {
                parts.push("canonicalize,cse");
            }
            if slice {
                parts.push("coco-as-slice");
            }
            match fuse {
                1 => parts.push("coco-fuse"),
                2 => parts.push("coco-fuse{collectives=false}"),
                _ => {}
            }
            if parts.is_empty() {
                parts.push("coco-verify");
            }
            parts.join(",")
        })
}

/// Runs `cases` random programs under random pipelines.
pub fn check(cases: u32) -> Result<(), String> {
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let dir = std::env::temp_dir().join("coco-filetests");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let result = runner.run(
        &(program_strategy(), pipeline_strategy()),
        |(program, pipeline)| {
            let path = dir.join(format!("random-{}.mlir", std::process::id()));
            std::fs::write(&path, program.text())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let path = path.to_string_lossy().into_owned();
            let parsed = coco_opt(&[&path], None);
            if parsed.code != 0 {
                return Err(TestCaseError::fail(format!(
                    "generated program is invalid:\n{}\n{}",
                    program.text(),
                    String::from_utf8_lossy(&parsed.stderr)
                )));
            }
            differential::check_ranks(
                &path,
                &pipeline,
                differential::Agreement::Bitwise,
                &[1, 2, 3, 4],
            )
            .map(|_| ())
            .map_err(|e| {
                TestCaseError::fail(format!(
                    "{e}\nprogram:\n{}pipeline: {pipeline}",
                    program.text()
                ))
            })
        },
    );
    result.map_err(|e| e.to_string())
}
