//! The pass registry: every coco pass's argument, summary, contract, options
//! and constructor, in one table (as Triton keeps registration in one place),
//! plus the upstream pass list. `coco-opt --list-passes`, `--<pass>` flags,
//! textual pipelines and `docs/passes.md` all read this table.

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

/// Every coco pass, in the order `--list-passes` shows them.
pub fn coco_passes() -> &'static [PassInfo] {
    &[
        crate::verify::INFO,
        crate::coconet::split::INFO,
        crate::coconet::reorder::INFO,
        crate::coconet::as_slice::INFO,
        crate::coconet::partial_reduce::INFO,
        crate::coconet::fuse::INFO,
        crate::coconet::overlap::INFO,
        crate::coconet::tile::INFO,
        crate::autotune::optimize::INFO,
        crate::bigtest::jdu_paths::INFO,
        crate::bigtest::solve::INFO,
        crate::bigtest::emit::INFO,
        crate::testing::layouts::INFO,
    ]
}

pub fn find_coco_pass(argument: &str) -> Option<&'static PassInfo> {
    coco_passes().iter().find(|p| p.argument == argument)
}

/// Upstream passes and pass pipelines: `(argument, summary)`.
pub fn upstream_passes() -> &'static [(&'static str, &'static str)] {
    UPSTREAM_PASSES
}

/// Whether `argument` names a coco or upstream pass.
pub fn is_pass(argument: &str) -> bool {
    find_coco_pass(argument).is_some() || UPSTREAM_PASSES.iter().any(|(name, _)| *name == argument)
}

/// `docs/passes.md`, generated from this table.
pub fn passes_markdown() -> String {
    let mut out = String::from(
        "<!-- Generated from compiler/passes/src/registry.rs and the pass modules; do not edit.\n     \
         Regenerate: COCO_BLESS=1 cargo test -p coco-filetests --test filetests -- docs -->\n\n\
         # coco passes\n\n\
         Every pass runs in `coco-opt`, by flag (`--coco-verify`) or in a pipeline\n\
         (`--pass-pipeline='builtin.module(coco-verify)'`). Upstream MLIR passes are\n\
         available the same way; `coco-opt --list-passes` lists them all.\n",
    );
    for info in coco_passes() {
        out.push_str(&format!(
            "\n## `{}`\n\n{}\n\n{}\n",
            info.argument, info.summary, info.description
        ));
        if info.options.is_empty() {
            out.push_str("\nOptions: none.\n");
        } else {
            out.push_str("\n| option | default | meaning |\n|---|---|---|\n");
            for option in info.options {
                out.push_str(&format!(
                    "| `{}` | `{}` | {} |\n",
                    option.name, option.default, option.summary
                ));
            }
        }
    }
    out
}
