//! `coco-optimize{machine=... ranks=...}`: the autotuner's choice as a
//! pipeline element. It cannot run as an ordinary pass (choosing means
//! running candidate pipelines on copies of the module), so the driver
//! ([`crate::driver`]) runs it between the segments of a pipeline.

use melior::pass::Pass;

use coco_pass::{
    options::{IntOption, Options, PassOption, TextOption},
    PassInfo, Result,
};

/// The machine planned for when none is named (here and by
/// `coco-opt --coco-autotune`).
pub const DEFAULT_MACHINE: &str = "v100-cluster";

/// The largest world size the autotuner plans for (here and
/// `coco-opt --autotune-ranks`).
pub const MAX_RANKS: usize = 65_536;

const RANKS: IntOption = IntOption {
    name: "ranks",
    summary: "world size to plan for (0: the machine's)",
    default: 0,
    min: 0,
    max: MAX_RANKS as i64,
};

const MACHINE: TextOption = TextOption {
    name: "machine",
    summary: "a preset (v100-cluster, h100-node, cpu-host) or a TOML file",
    default: DEFAULT_MACHINE,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-optimize",
    summary: "Apply the autotuner's cheapest schedule for a machine (run by the pipeline driver)",
    description: "Costs every schedule of the autotuner's space on `machine` with `ranks` ranks and applies \
                  the cheapest, exactly as `--coco-autotune` does; see docs/autotune.md. The pipeline driver runs \
                  it in place, so passes before and after it run on the program before and after the choice.",
    options: &[
        PassOption::Text(MACHINE),
        PassOption::Int(RANKS),
    ],
    create,
};

fn create(options: &Options) -> Result<Pass> {
    Err(options.error(
        "coco-optimize chooses a pipeline with the autotuner and runs only at the top level of a \
                  pipeline, `builtin.module(coco-optimize{...})`, not nested under another op"
            .into(),
    ))
}

/// `(machine, ranks)` of a `coco-optimize{...}` element.
pub fn settings(options: &str) -> Result<(String, Option<usize>)> {
    let options = Options::parse(INFO.argument, options, INFO.options)?;
    let machine = options.text(&MACHINE).to_string();
    let ranks = options.int(&RANKS)?;
    Ok((machine, (ranks > 0).then_some(ranks as usize)))
}
