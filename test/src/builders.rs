//! Checks of the validated coco builders: ops built from Rust verify and
//! print as expected, and invalid requests become errors, not aborts.

use coco_dialects::{
    coco::{CocoBuilder, Reduction},
    context,
    diagnostics::DiagnosticCollector,
    ir::{as_op, body_ops},
    load_module, verify_module, Error,
};
use melior::ir::{operation::OperationRef, BlockLike, Location, RegionLike};

const SKELETON: &str = r#"
func.func @built(%g: tensor<8x4xf32, #coco.local>, %x: tensor<8x16xf32, #coco.replicated>,
                 %w: tensor<16x4xf32, #coco.sliced<1>>, %p: tensor<8x4xf32, #coco.replicated>) {
  return
}
"#;

/// Builds split + reorder-style IR into the skeleton; returns the printed
/// module.
pub fn build_and_print() -> Result<String, String> {
    let context = context();
    let _diagnostics = DiagnosticCollector::attach(&context);
    let module = load_module(&context, SKELETON, "skeleton.mlir").map_err(|e| e.to_string())?;
    let module_op = module.as_operation();
    let func: OperationRef = *body_ops(as_op(&module_op)).first().ok_or("no function")?;
    let block = as_op(&func)
        .region(0)
        .map_err(|e| e.to_string())?
        .first_block()
        .ok_or("no body")?;
    let terminator = block.terminator().ok_or("no terminator")?;
    let arg = |i: usize| block.argument(i).map(Into::into).map_err(|e| e.to_string());
    let builder = CocoBuilder::new(&context, Location::unknown(&context));
    let err = |e: Error| e.to_string();

    let scattered = block.insert_operation_before(
        terminator,
        builder
            .reduce_scatter(Reduction::Sum, arg(0)?, 0)
            .map_err(err)?,
    );
    let gathered = block.insert_operation_before(
        terminator,
        builder
            .all_gather(scattered.result(0).map_err(|e| e.to_string())?.into())
            .map_err(err)?,
    );
    let _ = gathered;
    block.insert_operation_before(terminator, builder.slice(arg(3)?, 1).map_err(err)?);
    block.insert_operation_before(terminator, builder.matmul(arg(1)?, arg(2)?).map_err(err)?);
    block.insert_operation_before(
        terminator,
        builder.all_reduce(Reduction::Avg, arg(0)?).map_err(err)?,
    );

    if !module.as_operation().verify() || verify_module(&module.as_operation()) != 0 {
        return Err(format!(
            "built IR does not verify:\n{}",
            module.as_operation()
        ));
    }

    // Invalid requests: errors that say why, and nothing is inserted.
    let expect_error = |result: coco_dialects::Result<_>, needle: &str| -> Result<(), String> {
        match result {
            Err(e) if e.to_string().contains(needle) => Ok(()),
            Err(e) => Err(format!("wrong error: {e}")),
            Ok(_) => Err(format!("expected an error containing '{needle}'")),
        }
    };
    expect_error(
        builder.all_reduce(Reduction::Sum, arg(1)?),
        "cannot build coco.all_reduce: expects operand layout #coco.local, found #coco.replicated",
    )?;
    expect_error(
        builder.slice(arg(3)?, 2),
        "cannot slice dimension 2 of a rank-2 tensor",
    )?;
    expect_error(
        builder.matmul(arg(1)?, arg(1)?),
        "needs [M, K] x [K, N] operands, found 8x16 and 8x16",
    )?;
    expect_error(
        builder.reduce_scatter(Reduction::Sum, arg(2)?, 0),
        "expects operand layout #coco.local",
    )?;
    Ok(module.as_operation().to_string())
}

const DF_PROGRAM: &str = r#"
func.func @positive(%x: i64) -> i1 {
  %zero = arith.constant 0 : i64
  %ok = arith.cmpi sgt, %x, %zero : i64
  return %ok : i1
}
func.func @program() {
  %s = df.source "numbers" inline ["1"] delimiter "," : !df.dataset<i64>
  %f = df.filter %s @positive : !df.dataset<i64>
  df.sink "out" %f : !df.dataset<i64>
  return
}
"#;

/// Records two paths and a covering record with the bigtest builders;
/// returns the printed module.
pub fn build_bigtest() -> Result<String, String> {
    use coco_dialects::bigtest::{BigtestBuilder, PathKey, PathRecord, PathStatus};
    let context = context();
    let _diagnostics = DiagnosticCollector::attach(&context);
    let module = load_module(&context, DF_PROGRAM, "program.mlir").map_err(|e| e.to_string())?;
    let builder = BigtestBuilder::new(&context, Location::unknown(&context));
    let err = |e: Error| e.to_string();
    let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let body = module.body();
    body.append_operation(
        builder
            .jdu_path(
                0,
                "program",
                PathStatus::Sat,
                &strings(&["filter@positive:pass"]),
                &strings(&[
                    "(declare-const numbers_0.f0 Int)",
                    "(assert (> numbers_0.f0 0))",
                ]),
                &[PathKey {
                    op: 1,
                    term: "numbers_0.f0".into(),
                }],
                &[PathRecord {
                    source: "numbers".into(),
                    fields: strings(&["numbers_0.f0"]),
                    guard: None,
                }],
            )
            .map_err(err)?,
    );
    body.append_operation(
        builder
            .jdu_path(
                1,
                "program",
                PathStatus::Unsat,
                &strings(&["filter@positive:pass"]),
                &strings(&["(> x 0)", "(< x 0)"]),
                &[],
                &[],
            )
            .map_err(err)?,
    );
    body.append_operation(
        builder
            .test_record("program", 0, "numbers", "7", &[0])
            .map_err(err)?,
    );
    if verify_module(&module.as_operation()) != 0 {
        return Err(format!(
            "built IR does not verify:\n{}",
            module.as_operation()
        ));
    }
    match builder.jdu_path(-1, "program", PathStatus::Sat, &[], &[], &[], &[]) {
        Err(e) if e.to_string().contains("id must be >= 0, found -1") => {}
        other => return Err(format!("expected an id error, got {:?}", other.map(|_| ()))),
    }
    // A record covering an unsatisfiable path is rejected by the verifier.
    body.append_operation(
        builder
            .test_record("program", 0, "numbers", "8", &[1])
            .map_err(err)?,
    );
    if verify_module(&module.as_operation()) != 1 {
        return Err("a record covering an unsat path was not rejected".into());
    }
    Ok(module.as_operation().to_string())
}
