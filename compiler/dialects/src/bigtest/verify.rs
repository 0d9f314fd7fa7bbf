//! Cross references of bigtest ops: the program they describe exists, path ids
//! are unique per program, records name a source of that program, match its
//! text format and cover only existing, feasible paths.

use std::collections::HashMap;

use melior::ir::{Operation, ValueLike};

use super::{path, PathStatus, JDU_PATH, TEST_RECORD};
use crate::{
    df::{
        ops::SOURCE,
        types::{dataset_record, record_fields, FieldType},
        verify::check_record_text,
    },
    ir::{as_op, body_ops, i64_array_attr, int_attr, nested_ops, op_name, str_attr, symbol_attr},
    verify::Reporter,
};

/// A df source as a generated record must match it.
struct Source {
    delimiter: String,
    fields: Vec<FieldType>,
}

pub fn verify(module: &Operation, reporter: &mut Reporter) {
    // program -> source name -> source
    let mut programs: HashMap<String, HashMap<String, Source>> = HashMap::new();
    for op in body_ops(module) {
        let func = as_op(&op);
        if op_name(func) != "func.func" {
            continue;
        }
        let mut sources = HashMap::new();
        for inner in nested_ops(func) {
            let inner = as_op(&inner);
            if op_name(inner) != SOURCE {
                continue;
            }
            let fields = inner
                .result(0)
                .ok()
                .and_then(|r| dataset_record(r.r#type()))
                .map(|record| {
                    record_fields(record)
                        .into_iter()
                        .filter_map(FieldType::from_type)
                        .collect()
                })
                .unwrap_or_default();
            sources.insert(
                str_attr(inner, "name").unwrap_or_default(),
                Source {
                    delimiter: str_attr(inner, "delimiter").unwrap_or_default(),
                    fields,
                },
            );
        }
        programs.insert(str_attr(func, "sym_name").unwrap_or_default(), sources);
    }

    // (program, id) -> status
    let mut paths: HashMap<(String, i64), PathStatus> = HashMap::new();
    let body = body_ops(module);
    for op in &body {
        let op = as_op(op);
        if op_name(op) != JDU_PATH {
            continue;
        }
        let program = symbol_attr(op, "program").unwrap_or_default();
        if !programs.contains_key(&program) {
            reporter.op_error(
                op,
                format!("program @{program} is not a func.func in this module"),
            );
            continue;
        }
        let id = int_attr(op, "id").unwrap_or(-1);
        if id < 0 {
            reporter.op_error(op, format!("id must be >= 0, found {id}"));
            continue;
        }
        let status = PathStatus::of(op);
        if paths.insert((program.clone(), id), status).is_some() {
            reporter.op_error(op, format!("path id {id} is already used for @{program}"));
        }
        if let Err(problem) = path::keys(op) {
            reporter.op_error(op, problem);
        }
        match path::records(op) {
            Err(problem) => reporter.op_error(op, problem),
            Ok(records) => {
                let sources = &programs[&program];
                for record in records {
                    if !sources.contains_key(&record.source) {
                        reporter.op_error(
                            op,
                            format!(
                                "reads a record of source \"{}\", which @{program} does not have",
                                record.source
                            ),
                        );
                    }
                }
            }
        }
    }

    for op in &body {
        let op = as_op(op);
        if op_name(op) != TEST_RECORD {
            continue;
        }
        let program = symbol_attr(op, "program").unwrap_or_default();
        let Some(sources) = programs.get(&program) else {
            reporter.op_error(
                op,
                format!("program @{program} is not a func.func in this module"),
            );
            continue;
        };
        let source_name = str_attr(op, "source").unwrap_or_default();
        let Some(source) = sources.get(&source_name) else {
            let mut known: Vec<&String> = sources.keys().collect();
            known.sort();
            reporter.op_error(
                op,
                format!("@{program} has no df.source named \"{source_name}\" (sources: {known:?})"),
            );
            continue;
        };
        let text = str_attr(op, "text").unwrap_or_default();
        if let Err(problem) = check_record_text(&text, &source.delimiter, &source.fields) {
            reporter.op_error(op, format!("record \"{text}\" {problem}"));
        }
        for id in i64_array_attr(op, "covers").unwrap_or_default() {
            match paths.get(&(program.clone(), id)) {
                None => reporter.op_error(
                    op,
                    format!("covers path {id}, which @{program} does not have"),
                ),
                Some(PathStatus::Unsat) => reporter.op_error(
                    op,
                    format!("covers path {id}, which is unsatisfiable: no record can follow it"),
                ),
                Some(_) => {}
            }
        }
    }
}
