//! `coco-optimize{machine=... ranks=...}`: the autotuner's choice as a
//! pipeline element. It cannot run as an ordinary pass (choosing means
//! running candidate pipelines on copies of the module), so tools expand it
//! before building the pass manager; see `coco_tools::opt`.

use melior::pass::Pass;

use crate::{
    options::{Options, PassOption},
    registry::PassInfo,
    Error, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-optimize",
    summary: "Apply the autotuner's cheapest schedule for a machine (expanded by coco-opt)",
    description: "Costs every schedule of the autotuner's space on `machine` with `ranks` ranks and applies \
                  the cheapest, exactly as `--coco-autotune` does; see docs/autotune.md. coco-opt expands \
                  it in place, so passes before and after it run on the program before and after the choice.",
    options: &[
        PassOption { name: "machine", summary: "a preset (v100-cluster, h100-node, cpu-host) or a TOML file", default: "v100-cluster" },
        PassOption { name: "ranks", summary: "world size to plan for (0: the machine's)", default: "0" },
    ],
    create,
};

fn create(_options: &Options) -> Result<Pass> {
    Err(Error::PassOption {
        pass: INFO.argument.into(),
        message: "coco-optimize chooses a pipeline with the autotuner and only runs from coco-opt, which expands it".into(),
    })
}

/// `(machine, ranks)` of a `coco-optimize{...}` element.
pub fn settings(options: &str) -> Result<(String, Option<usize>)> {
    let options = Options::parse(INFO.argument, options, INFO.options)?;
    let machine = options
        .string("machine")
        .unwrap_or("v100-cluster")
        .to_string();
    let ranks = options.int(INFO.argument, "ranks", 0)?;
    if ranks < 0 {
        return Err(Error::PassOption {
            pass: INFO.argument.into(),
            message: format!("option 'ranks' must be >= 0, found {ranks}"),
        });
    }
    Ok((machine, (ranks > 0).then_some(ranks as usize)))
}
