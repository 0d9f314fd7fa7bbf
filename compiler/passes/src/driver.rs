//! Running a textual pipeline on a module, `coco-optimize` steps included.
//!
//! `coco-optimize{machine=... ranks=...}` cannot be an ordinary MLIR pass:
//! choosing a schedule runs candidate pipelines on copies of the module. So
//! the driver cuts a pipeline at its top-level `coco-optimize` elements
//! ([`plan`]), runs each segment with one pass manager, and applies the
//! autotuner's choice in between ([`run`]). Tools call these; none expands
//! `coco-optimize` itself.

use coco_pass::{
    manager::pass_manager,
    pipeline::{self, Element},
    Registry,
};
use melior::{ir::Module, Context};

use crate::{
    autotune::{self, machine::Machine, optimize},
    registry::REGISTRY,
    Error, Result,
};

/// One step of a planned pipeline.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Ordinary passes, run by one pass manager.
    Passes(Vec<Element>),
    /// Costs every schedule and applies the cheapest.
    Optimize {
        /// A preset name or a machine file.
        machine: String,
        /// World size to plan for; `None`: the machine's.
        ranks: Option<usize>,
    },
}

/// Cuts `elements` at top-level `coco-optimize` elements, whose options are
/// checked here, before any input is read.
pub fn plan(elements: &[Element]) -> Result<Vec<Step>> {
    let mut steps = Vec::new();
    let mut segment = Vec::new();
    for element in elements {
        match element {
            Element::Pass { name, options } if name == optimize::INFO.argument => {
                if !segment.is_empty() {
                    steps.push(Step::Passes(std::mem::take(&mut segment)));
                }
                let (machine, ranks) = optimize::settings(options.as_deref().unwrap_or(""))?;
                steps.push(Step::Optimize { machine, ranks });
            }
            other => segment.push(other.clone()),
        }
    }
    if !segment.is_empty() {
        steps.push(Step::Passes(segment));
    }
    Ok(steps)
}

/// Builds every segment once, so a bad pipeline fails before any input is
/// read, as in mlir-opt.
pub fn check(
    context: &Context,
    registry: &Registry,
    steps: &[Step],
    pipeline_text: &str,
) -> Result<()> {
    for step in steps {
        if let Step::Passes(elements) = step {
            pass_manager(context, registry, elements, pipeline_text)?;
        }
    }
    Ok(())
}

/// What [`run`] reports while it works.
pub enum Event<'a> {
    /// One pass ran (only when running one pass at a time); its text.
    AfterPass(String),
    /// The autotuner costed these candidates (cheapest first) and applied
    /// the first.
    Tuned {
        machine: &'a Machine,
        ranks: usize,
        candidates: &'a [autotune::Candidate],
    },
}

/// Runs `steps` on `module`, creating Rust passes from `registry`. With `one_pass_at_a_time`, every pass gets its
/// own pass manager and an [`Event::AfterPass`] (for
/// `--mlir-print-ir-after-all`). A pass that fails has emitted diagnostics
/// saying why: that is [`coco_pass::Error::Failed`].
pub fn run(
    context: &Context,
    registry: &Registry,
    module: &mut Module,
    steps: &[Step],
    pipeline_text: &str,
    one_pass_at_a_time: bool,
    observe: &mut dyn FnMut(Event, &Module),
) -> Result<()> {
    for step in steps {
        match step {
            Step::Passes(elements) if one_pass_at_a_time => {
                for (anchors, pass) in pipeline::leaves(elements) {
                    let nested =
                        anchors
                            .iter()
                            .rev()
                            .fold(pass.clone(), |inner, anchor| Element::Nest {
                                anchor: anchor.clone(),
                                elements: vec![inner],
                            });
                    pass_manager(context, registry, &[nested], pipeline_text)?
                        .run(module)
                        .map_err(|_| coco_pass::Error::Failed)?;
                    observe(Event::AfterPass(pass.text()), module);
                }
            }
            Step::Passes(elements) => {
                pass_manager(context, registry, elements, pipeline_text)?
                    .run(module)
                    .map_err(|_| coco_pass::Error::Failed)?;
            }
            Step::Optimize { machine, ranks } => {
                autotune_apply(context, module, machine, *ranks, observe)?;
            }
        }
    }
    Ok(())
}

/// Costs every schedule for `machine` (a preset or a file) and applies the
/// cheapest to `module`.
pub fn autotune_apply(
    context: &Context,
    module: &mut Module,
    machine: &str,
    ranks: Option<usize>,
    observe: &mut dyn FnMut(Event, &Module),
) -> Result<()> {
    let machine = Machine::load(machine)?;
    let ranks = ranks.unwrap_or(machine.world_size);
    let candidates = autotune::tune(context, module, &machine, ranks)
        .map_err(|e| Error::Autotune(e.to_string()))?;
    observe(
        Event::Tuned {
            machine: &machine,
            ranks,
            candidates: &candidates,
        },
        module,
    );
    let Some(chosen) = candidates.iter().find(|c| c.rejected.is_none()) else {
        // The program as written says most about why (it is a candidate
        // too, with the empty pipeline).
        let as_written = candidates
            .iter()
            .find(|c| c.pipeline.is_empty())
            .or(candidates.first());
        return Err(Error::Autotune(match as_written {
            Some(autotune::Candidate {
                rejected: Some(reason),
                ..
            }) => format!(
                "no schedule of this program runs on {ranks} ranks ({reason}); plan for a rank count that divides its sliced dimensions (--autotune-ranks, or the machine's world_size)"
            ),
            _ => "the schedule space is empty: no candidate to apply".into(),
        }));
    };
    if chosen.pipeline.is_empty() {
        return Ok(());
    }
    let elements = pipeline::parse(&chosen.pipeline)?;
    // The schedules are pipelines of this wing's passes.
    pass_manager(context, &REGISTRY, &elements, &chosen.pipeline)?
        .run(module)
        .map_err(|_| {
            Error::Autotune(format!(
                "the chosen schedule {} failed when applied (pipeline: {})",
                chosen.schedule, chosen.pipeline
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(name: &str, options: Option<&str>) -> Element {
        Element::Pass {
            name: name.into(),
            options: options.map(str::to_string),
        }
    }

    #[test]
    fn optimize_steps_cut_the_pipeline() {
        let elements = pipeline::parse(
            "builtin.module(coco-verify,coco-optimize{machine=cpu-host ranks=4},cse)",
        )
        .unwrap();
        assert_eq!(
            plan(&elements).unwrap(),
            [
                Step::Passes(vec![pass("coco-verify", None)]),
                Step::Optimize {
                    machine: "cpu-host".into(),
                    ranks: Some(4)
                },
                Step::Passes(vec![pass("cse", None)]),
            ]
        );
    }

    #[test]
    fn bad_optimize_options_fail_when_planned() {
        let elements = pipeline::parse("builtin.module(coco-optimize{ranks=-1})").unwrap();
        assert!(plan(&elements).is_err());
        let elements = pipeline::parse("builtin.module(coco-optimize{speed=9})").unwrap();
        assert!(plan(&elements).is_err());
    }
}
