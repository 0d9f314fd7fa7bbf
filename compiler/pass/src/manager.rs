//! Filling a pass manager from a parsed pipeline.
//!
//! The MLIR 19 C API cannot register passes written in Rust under a name, so
//! MLIR's own parser would not know `coco-*` arguments. We create Rust passes
//! from the registry and hand every other element
//! (`canonicalize{max-iterations=2}`) to `mlirOpPassManagerAddPipeline`, which
//! reports unknown passes and bad options with MLIR's own messages.
//!
//! MLIR stops the process when a pass is added under an op it does not run
//! on (`func.func(coco-split)`), so every pass's anchor is checked first.

use std::ffi::c_void;

use melior::{
    pass::{OperationPassManager, PassManager},
    Context,
};
use mlir_sys::{mlirOpPassManagerAddPipeline, MlirStringRef};

use coco_dialects::upstream::pass_anchors;

use crate::{options::Options, pipeline::Element, Error, Registry, Result};

/// The op the pass manager of [`add_to`] runs on, and every Rust pass.
const MODULE: &str = "builtin.module";

/// The anchor of a pass manager that runs on every op.
const ANY: &str = "any";

/// A pass manager (verifier on) for `elements`, whose Rust passes come from
/// `registry`; `pipeline_text` is what the user wrote, for messages.
pub fn pass_manager<'c>(
    context: &'c Context,
    registry: &Registry,
    elements: &[Element],
    pipeline_text: &str,
) -> Result<PassManager<'c>> {
    let manager = PassManager::new(context);
    manager.enable_verifier(true);
    add_to(
        &manager.as_operation_pass_manager(),
        registry,
        elements,
        pipeline_text,
    )?;
    Ok(manager)
}

/// Adds `elements` to `manager` (which runs on the module).
pub fn add_to(
    manager: &OperationPassManager,
    registry: &Registry,
    elements: &[Element],
    pipeline: &str,
) -> Result<()> {
    add_under(manager, registry, MODULE, elements, pipeline)
}

/// Adds `elements` to `manager`, which runs on `anchor` ops.
fn add_under(
    manager: &OperationPassManager,
    registry: &Registry,
    anchor: &str,
    elements: &[Element],
    pipeline: &str,
) -> Result<()> {
    for element in elements {
        match element {
            Element::Nest {
                anchor: inner,
                elements,
            } => {
                add_under(
                    &manager.nested_under(inner),
                    registry,
                    inner,
                    elements,
                    pipeline,
                )?;
            }
            Element::Pass { name, options } => match registry.find(name) {
                Some(info) => {
                    let options = Options::parse(
                        info.argument,
                        options.as_deref().unwrap_or(""),
                        info.options,
                    )?;
                    let pass = info.create(&options)?;
                    check_anchor(name, Some(MODULE), anchor, pipeline)?;
                    manager.add_pass(pass);
                }
                None => {
                    let text = element.text();
                    // A pipeline MLIR cannot parse fails below, with its message.
                    for pass in pass_anchors(&text).unwrap_or_default() {
                        check_anchor(&pass.argument, pass.op.as_deref(), anchor, pipeline)?;
                    }
                    add_upstream(manager, &text, pipeline)?;
                }
            },
        }
    }
    Ok(())
}

/// Whether a pass that runs on `op` ops (`None`: any op) may be added to a
/// pass manager on `anchor` ops.
fn check_anchor(pass: &str, op: Option<&str>, anchor: &str, pipeline: &str) -> Result<()> {
    match op {
        Some(op) if op != anchor && anchor != ANY => Err(Error::Pipeline {
            pipeline: pipeline.to_string(),
            message: format!(
                "pass '{pass}' runs on '{op}' ops, not on '{anchor}'; nest it as {op}({pass})"
            ),
        }),
        _ => Ok(()),
    }
}

fn add_upstream(manager: &OperationPassManager, element: &str, pipeline: &str) -> Result<()> {
    unsafe extern "C" fn append(message: MlirStringRef, user_data: *mut c_void) {
        let buffer = &mut *(user_data as *mut String);
        let bytes = std::slice::from_raw_parts(message.data.cast::<u8>(), message.length);
        buffer.push_str(&String::from_utf8_lossy(bytes));
    }
    let mut message = String::new();
    let text = MlirStringRef {
        data: element.as_ptr().cast(),
        length: element.len(),
    };
    // SAFETY: `element` and `message` outlive the call; the callback only
    // appends to `message`.
    let result = unsafe {
        mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            text,
            Some(append),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value == 0 {
        return Err(Error::Pipeline {
            pipeline: pipeline.to_string(),
            message: tidy(&message, element),
        });
    }
    Ok(())
}

/// MLIR's parser reports errors with a caret line; keep the message line.
fn tidy(message: &str, element: &str) -> String {
    let first = message
        .lines()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .unwrap_or("could not parse")
        .trim_start_matches("MLIR Textual PassPipeline Parser:")
        .trim();
    // Drop the `1:1: error:` position, which refers to the element text.
    let first = match first.split_once(" error: ") {
        Some((position, rest)) if position.chars().all(|c| c.is_ascii_digit() || c == ':') => rest,
        _ => first.trim_start_matches("error:").trim(),
    }
    .to_string();
    if first.contains(element) {
        first
    } else {
        format!("{first} (in '{element}')")
    }
}
