//! The dataflow of a df program as a PySpark job that tags every record
//! with the JDU path it follows (`coco-translate --emit=pyspark-paths`):
//! the same RDD operators as the sinks job (job.rs), each over records that
//! carry their lineage, with UDFs traced (udf.rs, [`Tracing::Paths`]) and
//! the helpers of paths.py. What reaches a sink, is dropped or fails
//! becomes an end; the driver counts the ends per path, and
//! `coco-bigtest coverage --histogram` maps them to the enumerated paths.
//!
//! [`Tracing::Paths`]: crate::udf::Tracing::Paths

use coco_dataflow::model::{DatasetId, OpKind, Program, Ty};

use crate::{
    job::{holds_float, join_wraps, source_args, source_files},
    python::{str_literal, text},
    udf::function_name,
    writer::Writer,
    ExportError,
};

fn records(id: DatasetId) -> String {
    format!("d{id}")
}

/// The function that keys values of `types` (FloatKey for floats).
fn key_function(types: &[Ty]) -> &'static str {
    if types.iter().any(holds_float) {
        "key_of"
    } else {
        "same"
    }
}

/// `build_paths(sc, inputs, k)`: the ends of every operator (RDDs), the
/// global reduces with their outputs (one record or an end each unless the
/// input is empty), and the RDDs it persisted.
pub fn emit(program: &Program, w: &mut Writer) -> Result<(), ExportError> {
    crate::job::check_pipelines(program)?;
    w.line("def build_paths(sc, inputs, k):");
    w.indent();
    w.line(format!(
        "\"\"\"The records of @{} with their JDU paths: returns the RDDs of ends, the",
        text(&program.name)
    ));
    w.line("global reduces as (op, RDD), and the RDDs persisted (each operator's output");
    w.line("is read twice: its live records and its ends).\"\"\"");
    w.line("from pyspark import StorageLevel");
    w.line("");
    w.line("ends, reduces, persisted = [], [], []");
    w.line("");
    w.line("def live_and_ends(op, items):");
    w.indent();
    w.line("items = items.persist(StorageLevel.MEMORY_AND_DISK)");
    w.line("persisted.append(items)");
    w.line("ends.append(items.filter(is_end))");
    w.line("return items.filter(is_live).map(live_record)");
    w.dedent();
    w.line("");
    for (id, op) in program.ops.iter().enumerate() {
        let input = |i: usize| records(op.inputs[i]);
        let fields_of = |i: usize| &program.ops[op.inputs[i]].fields;
        let udf = op.udf().map(function_name).unwrap_or_default();
        let label = str_literal(&program.op_label(id));
        if op.key_fields() > 1 {
            return Err(ExportError::Unsupported {
                loc: op.loc.clone(),
                what: format!(
                    "a {} keyed by {} fields in the coverage job (the job itself exports)",
                    op.mnemonic(),
                    op.key_fields()
                ),
            });
        }
        let line = match &op.kind {
            OpKind::Source { .. } => {
                format!("source_records(sc, inputs, {}, {label})", source_args(op))
            }
            OpKind::Map { .. } => format!(
                "live_and_ends({id}, {}.flatMap(map_step({id}, {label}, {udf})))",
                input(0)
            ),
            OpKind::Filter { .. } => format!(
                "live_and_ends({id}, {}.flatMap(filter_step({id}, {label}, {udf})))",
                input(0)
            ),
            OpKind::FlatMap { .. } => format!(
                "live_and_ends({id}, {}.flatMap(flat_map_step({id}, {label}, {udf})))",
                input(0)
            ),
            OpKind::Reduce { .. } => {
                // Its output is one record or one end, unless its input is
                // empty: the driver asks which (the empty reduce's path).
                w.line(format!(
                    "out = fold_rdd({}, {id}, {label}, {udf}, False, same, k)",
                    input(0)
                ));
                w.line("out = out.persist(StorageLevel.MEMORY_AND_DISK)");
                w.line("persisted.append(out)");
                w.line(format!("reduces.append(({id}, out))"));
                w.line("ends.append(out.filter(is_end))");
                w.line(format!(
                    "{} = out.filter(is_live).map(live_record)",
                    records(id)
                ));
                continue;
            }
            OpKind::ReduceByKey { .. } => format!(
                "live_and_ends({id}, fold_rdd({}, {id}, {label}, {udf}, True, {}, k))",
                input(0),
                key_function(&fields_of(0)[..1])
            ),
            OpKind::GroupByKey => format!(
                "group_rdd({}, {label}, {}, k)",
                input(0),
                key_function(&fields_of(0)[..1])
            ),
            OpKind::Distinct => format!(
                "distinct_rdd({}, {label}, {}, k)",
                input(0),
                key_function(&op.fields)
            ),
            OpKind::Union => format!(
                "{}.map(union_step(0, {label})).union({}.map(union_step(1, {label})))",
                input(0),
                input(1)
            ),
            OpKind::Join { kind, .. } => {
                let (l_wraps, r_wraps) = join_wraps(program, id, *kind)?;
                let left = &program.ops[op.inputs[0]];
                format!(
                    "live_and_ends({id}, join_rdd({}, {}, {id}, {label}, {}, {}, {}, {l_wraps}, {r_wraps}))",
                    input(0),
                    input(1),
                    key_function(&left.fields[..1]),
                    python_bool(kind.keeps_left_only()),
                    python_bool(kind.keeps_right_only()),
                )
            }
            OpKind::Sink { .. } => {
                w.line(format!(
                    "ends.append({}.map(sink_step({id}, {label})))",
                    input(0)
                ));
                continue;
            }
        };
        w.line(format!("{} = {line}", records(id)));
    }
    w.line("return ends, reduces, persisted");
    w.dedent();
    w.line("");
    w.line("");
    source_files(program, w);
    w.line(format!("PROGRAM = {}", str_literal(&program.name)));
    Ok(())
}

fn python_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}
