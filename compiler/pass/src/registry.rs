//! What a pass is ([`PassInfo`]) and the set of passes a tool offers
//! ([`Registry`]). Each wing exports one table of `PassInfo` (as Triton keeps
//! registration in one place); a tool composes the tables it links, plus the
//! upstream MLIR passes, as circt-opt and Triton's RegisterTritonDialects.h
//! do. `--list-passes`, `--<pass>` flags, textual pipelines and
//! `docs/passes.md` all read the composed registry.

use melior::pass::Pass;

use crate::{
    options::{Options, PassOption},
    Result,
};

include!(concat!(env!("OUT_DIR"), "/upstream_passes.rs"));

pub struct PassInfo {
    /// The pipeline argument (`coco-verify`).
    pub argument: &'static str,
    pub summary: &'static str,
    /// The contract: what the pass expects, guarantees and says when it does
    /// not apply. Markdown; feeds docs/passes.md.
    pub description: &'static str,
    pub options: &'static [PassOption],
    pub create: fn(&Options) -> Result<Pass>,
}

impl PassInfo {
    /// The pass with `options`, which name this pass.
    pub fn create(&self, options: &Options) -> Result<Pass> {
        (self.create)(options)
    }

    /// The pass with every option at its default.
    pub fn create_default(&self) -> Result<Pass> {
        (self.create)(&Options::new(self.argument))
    }
}

/// The passes a tool offers: Rust passes from the wings' tables, in order,
/// and MLIR's upstream passes.
#[derive(Clone, Copy)]
pub struct Registry {
    tables: &'static [&'static [PassInfo]],
}

impl Registry {
    /// `tables`, in the order `--list-passes` shows them.
    pub const fn new(tables: &'static [&'static [PassInfo]]) -> Registry {
        Registry { tables }
    }

    /// Every Rust pass, in order.
    pub fn passes(&self) -> impl Iterator<Item = &'static PassInfo> {
        self.tables.iter().flat_map(|table| table.iter())
    }

    pub fn find(&self, argument: &str) -> Option<&'static PassInfo> {
        self.passes().find(|p| p.argument == argument)
    }

    /// Upstream passes and pass pipelines: `(argument, summary)`.
    pub fn upstream(&self) -> &'static [(&'static str, &'static str)] {
        UPSTREAM_PASSES
    }

    /// Whether `argument` names a Rust or an upstream pass.
    pub fn is_pass(&self, argument: &str) -> bool {
        self.find(argument).is_some() || UPSTREAM_PASSES.iter().any(|(name, _)| *name == argument)
    }
}
