//! `docs/passes.md`, generated from a registry, so the documented argument,
//! contract and option defaults are the ones the code declares.

use crate::Registry;

/// The markdown page for every Rust pass of `registry`.
pub fn passes_markdown(registry: &Registry) -> String {
    let mut out = String::from(
        "<!-- Generated from the pass tables (compiler/passes/src/registry.rs, bigtest/passes/src/lib.rs)\n     \
         as tools/src/passes.rs composes them; do not edit.\n     \
         Regenerate: COCO_BLESS=1 cargo test -p coco-filetests --test filetests -- docs -->\n\n\
         # coco passes\n\n\
         Every pass runs in `coco-opt`, by flag (`--coco-verify`) or in a pipeline\n\
         (`--pass-pipeline='builtin.module(coco-verify)'`). Upstream MLIR passes are\n\
         available the same way; `coco-opt --list-passes` lists them all.\n",
    );
    for info in registry.passes() {
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
                    option.name(),
                    option.default_text(),
                    option.summary()
                ));
            }
        }
    }
    out
}
