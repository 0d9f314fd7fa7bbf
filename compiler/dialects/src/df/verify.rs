//! Rules of the df dialect that ODS cannot express: the module's host
//! language and the ops only Python has, record field types, UDF signatures
//! against their operator, join key types, inline source records, split
//! delimiters and patterns, the result types of the total (`!df.option`) forms of
//! `df.to_int`, `df.to_float` and `df.get`, where `df.raise` may stand, and
//! which ops may appear inside UDFs.

use std::collections::{HashMap, HashSet};

use melior::ir::{Operation, Type, ValueLike};

use super::{
    names::{plain_file_name, JOB_OUTPUT, TEST_DATA},
    ops::{self, is_dataset_op},
    types::{dataset_record, list_element, option_element, record_fields, FieldType},
};
use coco_base::{
    class_pattern::ClassPattern,
    host::{Host, HOST_ATTRIBUTE},
};

use crate::{
    ir::{
        as_op, body_ops, defining_op, dialect_of, enclosing, function_signature, i64_array_attr,
        int_attr, nested_ops, op_name, str_array_attr, str_attr, string_value, symbol_attr,
    },
    verify::Reporter,
};

/// Refuses an op of [`ops::PYTHON_ONLY`] in a module whose host is the JVM.
fn python_only(op: &Operation, name: &str, reporter: &mut Reporter) {
    if let Some((_, what)) = ops::PYTHON_ONLY.iter().find(|(n, _)| *n == name) {
        reporter.op_error(
            op,
            format!(
                "is {what}, which df models under df.host = \"python\" only; \
                 the module's df.host is \"jvm\""
            ),
        );
    }
}

type Signature<'c> = (Vec<Type<'c>>, Vec<Type<'c>>);

pub fn verify(module: &Operation, reporter: &mut Reporter) {
    verify_host(module, reporter);
    let python = str_attr(module, HOST_ATTRIBUTE).as_deref() == Some(Host::Python.name());
    let mut functions: HashMap<String, Signature> = HashMap::new();
    for op in body_ops(module) {
        let op = as_op(&op);
        if op_name(op) == "func.func" {
            if let (Some(name), Some(signature)) =
                (str_attr(op, "sym_name"), function_signature(op))
            {
                functions.insert(name, signature);
            }
        }
    }

    let mut udfs: HashSet<String> = HashSet::new();
    let mut sources_per_program: HashMap<String, HashSet<String>> = HashMap::new();
    let mut sink_folders_per_program: HashMap<String, HashSet<String>> = HashMap::new();
    for op in nested_ops(module) {
        let op = as_op(&op);
        let name = op_name(op);
        if dialect_of(&name) != "df" {
            continue;
        }
        verify_dataset_types(op, reporter);
        match name.as_str() {
            ops::SOURCE => {
                verify_source(op, reporter);
                let func = enclosing(op, "func.func");
                let program = func
                    .as_ref()
                    .and_then(|f| str_attr(as_op(f), "sym_name"))
                    .unwrap_or_default();
                let source = str_attr(op, "name").unwrap_or_default();
                if !sources_per_program.contains_key(&program) {
                    if let (Some(func), Err(problem)) =
                        (&func, plain_file_name(&program, TEST_DATA))
                    {
                        reporter.op_error(as_op(func), format!("df program name {problem}"));
                    }
                }
                if !sources_per_program
                    .entry(program.clone())
                    .or_default()
                    .insert(source.clone())
                {
                    reporter.op_error(
                        op,
                        format!("source name \"{source}\" is already used in @{program}"),
                    );
                }
            }
            ops::MAP | ops::FLAT_MAP | ops::FILTER | ops::REDUCE | ops::REDUCE_BY_KEY => {
                if let Some(udf) = symbol_attr(op, "udf") {
                    verify_udf_use(op, &name, &udf, &functions, reporter);
                    udfs.insert(udf);
                }
            }
            ops::SINK => {
                if let Some(folder) = verify_sink(op, reporter) {
                    let program = enclosing(op, "func.func")
                        .and_then(|f| str_attr(as_op(&f), "sym_name"))
                        .unwrap_or_default();
                    if !sink_folders_per_program
                        .entry(program.clone())
                        .or_default()
                        .insert(folder.clone())
                    {
                        reporter.op_error(
                            op,
                            format!(
                                "sink folder \"{}\" is already written by another sink of @{}",
                                folder.escape_default(),
                                program.escape_default()
                            ),
                        );
                    }
                }
            }
            ops::GROUP_BY_KEY => verify_group_by_key(op, reporter),
            ops::JOIN => verify_join(op, reporter),
            ops::GET => verify_get(op, reporter),
            ops::GET_AT => verify_get_at(op, reporter),
            ops::TO_INT => {
                if op.attribute("int32").is_ok() && python {
                    reporter.op_error(
                        op,
                        "int32 is the JVM's Integer.parseInt; Python's int() has no 32-bit form \
                         (the module's df.host is \"python\")",
                    );
                }
                verify_total_result(op, FieldType::Int, reporter);
            }
            ops::TO_FLOAT => verify_total_result(op, FieldType::Float, reporter),
            ops::SQL_CAST => verify_sql_cast(op, reporter),
            ops::SPLIT => match str_attr(op, "delimiter") {
                Some(d) if d.is_empty() => reporter.op_error(
                    op,
                    "delimiter must not be empty (Java's split would cut between every \
                     character, Python's raises ValueError)",
                ),
                None if !python => reporter.op_error(
                    op,
                    "a split without a delimiter is Python's str.split() (at whitespace); \
                     the module's df.host is \"jvm\": give a delimiter, or set df.host = \"python\"",
                ),
                _ => {}
            },
            ops::REGEX_SPLIT | ops::REGEX_FIND_ALL => {
                let pattern = str_attr(op, "pattern").unwrap_or_default();
                if let Err(e) = ClassPattern::parse(&pattern, op.attribute("ascii").is_ok()) {
                    reporter.op_error(op, format!("{e}"));
                }
                if !python {
                    python_only(op, &name, reporter);
                }
            }
            ops::REPLACE => verify_replace(op, reporter),
            ops::RAISE => verify_raise(op, reporter),
            ops::VALUE_OR => verify_value_or(op, reporter),
            // Stripping spaces only is Spark SQL's trim, on either host.
            ops::STRIP if op.attribute("spaces").is_ok() => {}
            _ if !python => python_only(op, &name, reporter),
            _ => {}
        }
    }

    // UDFs compute on values: a dataset operator inside one would be a nested
    // job, which neither Spark nor our analyses model.
    for op in body_ops(module) {
        let func = as_op(&op);
        if op_name(func) != "func.func"
            || !str_attr(func, "sym_name").is_some_and(|n| udfs.contains(&n))
        {
            continue;
        }
        for inner in nested_ops(func) {
            let inner = as_op(&inner);
            let name = op_name(inner);
            if is_dataset_op(&name) {
                reporter.op_error(
                    inner,
                    format!(
                        "is a dataset operator inside UDF @{}; UDFs may only compute on record values",
                        str_attr(func, "sym_name").unwrap_or_default()
                    ),
                );
            }
        }
    }
}

/// `df.host`, where the module has it, names a host language.
fn verify_host(module: &Operation, reporter: &mut Reporter) {
    let Ok(attribute) = module.attribute(HOST_ATTRIBUTE) else {
        return;
    };
    let names: Vec<&str> = Host::ALL.iter().map(|h| h.name()).collect();
    let known = string_value(attribute).is_some_and(|name| Host::from_name(&name).is_some());
    if !known {
        reporter.op_error(
            module,
            format!(
                "{HOST_ATTRIBUTE} must be one of \"{}\" (the language the job's UDFs run in), found {attribute}",
                names.join("\", \"")
            ),
        );
    }
}

/// Every dataset type an op produces or consumes holds records of known field
/// types.
fn verify_dataset_types(op: &Operation, reporter: &mut Reporter) {
    let operands = op.operands().map(|v| v.r#type());
    let results = op.results().map(|v| v.r#type());
    for ty in operands.chain(results) {
        let Some(record) = dataset_record(ty) else {
            continue;
        };
        for (i, field) in record_fields(record).into_iter().enumerate() {
            if FieldType::from_type(field).is_none() {
                reporter.op_error(
                    op,
                    format!(
                        "record field #{i} of {ty} has type {field}; fields are i64, f64, i1, !df.str, or lists and options of those"
                    ),
                );
            }
        }
    }
}

fn result_record<'c>(op: &Operation<'c>) -> Option<Type<'c>> {
    dataset_record(op.result(0).ok()?.r#type())
}

fn operand_record<'c>(op: &Operation<'c>, index: usize) -> Option<Type<'c>> {
    dataset_record(op.operand(index).ok()?.r#type())
}

/// A sink's name, and the base name of its path where it has one, name the
/// folder its records are saved in under an output folder (the exported
/// job's `--output`), so each must be a plain file name. Returns that
/// folder.
fn verify_sink(op: &Operation, reporter: &mut Reporter) -> Option<String> {
    let name = str_attr(op, "name").unwrap_or_default();
    if let Err(problem) = plain_file_name(&name, JOB_OUTPUT) {
        reporter.op_error(op, format!("sink name {problem}"));
        return None;
    }
    let Some(path) = str_attr(op, "path") else {
        return Some(name);
    };
    match std::path::Path::new(&path).file_name() {
        Some(base) => {
            let base = base.to_string_lossy().into_owned();
            if let Err(problem) = plain_file_name(&base, JOB_OUTPUT) {
                reporter.op_error(op, format!("sink path's base name {problem}"));
                return None;
            }
            Some(base)
        }
        None => Some(name),
    }
}

fn verify_source(op: &Operation, reporter: &mut Reporter) {
    if let Err(problem) = plain_file_name(&str_attr(op, "name").unwrap_or_default(), TEST_DATA) {
        reporter.op_error(op, format!("source name {problem}"));
    }
    let path = str_attr(op, "path");
    if path.as_deref().is_some_and(|p| p.contains('\0')) {
        reporter.op_error(op, "path contains a NUL character");
    }
    let records = str_array_attr(op, "records");
    match (&path, &records) {
        (Some(_), Some(_)) => {
            reporter.op_error(op, "takes either a path or inline records, not both")
        }
        (None, None) => reporter.op_error(op, "needs a path or inline records"),
        _ => {}
    }
    let delimiter = str_attr(op, "delimiter").unwrap_or_default();
    if delimiter.is_empty() {
        reporter.op_error(op, "delimiter must not be empty");
        return;
    }
    let Some(record) = result_record(op) else {
        return;
    };
    let fields: Vec<Option<FieldType>> = record_fields(record)
        .into_iter()
        .map(FieldType::from_type)
        .collect();
    // Unknown field types were reported with the dataset type.
    let Some(fields) = fields.into_iter().collect::<Option<Vec<FieldType>>>() else {
        return;
    };
    if let Some((i, field)) = fields.iter().enumerate().find(|(_, f)| !f.is_scalar()) {
        reporter.op_error(
            op,
            format!("reads text, so record fields must be i64, f64, i1 or !df.str; field #{i} is {field}"),
        );
        return;
    }
    for i in i64_array_attr(op, "int32").unwrap_or_default() {
        let field = usize::try_from(i).ok().and_then(|i| fields.get(i));
        if field != Some(&FieldType::Int) {
            reporter.op_error(
                op,
                format!("int32 names field #{i}, which is not an i64 field of the record"),
            );
        }
    }
    for i in i64_array_attr(op, "float32").unwrap_or_default() {
        let field = usize::try_from(i).ok().and_then(|i| fields.get(i));
        if field != Some(&FieldType::Float) {
            reporter.op_error(
                op,
                format!("float32 names field #{i}, which is not an f64 field of the record"),
            );
        }
    }
    for (r, line) in records.iter().flatten().enumerate() {
        if let Err(problem) = check_record_text(line, &delimiter, &fields) {
            reporter.op_error(op, format!("inline record #{r} (\"{line}\") {problem}"));
        }
    }
}

/// Checks one line of a source against its field types. Shared with the
/// bigtest verifier for generated records.
pub fn check_record_text(line: &str, delimiter: &str, fields: &[FieldType]) -> Result<(), String> {
    let parts: Vec<&str> = if fields.len() == 1 {
        vec![line]
    } else {
        line.split(delimiter).collect()
    };
    if parts.len() != fields.len() {
        return Err(format!(
            "has {} fields separated by \"{delimiter}\", the record type has {}",
            parts.len(),
            fields.len()
        ));
    }
    for (i, (text, field)) in parts.iter().zip(fields).enumerate() {
        if !field.parses(text) {
            return Err(format!(
                "has field #{i} \"{text}\", which is not a valid {field}"
            ));
        }
    }
    Ok(())
}

fn texts(types: &[Type]) -> Vec<String> {
    types.iter().map(|t| t.to_string()).collect()
}

fn verify_udf_use(
    op: &Operation,
    name: &str,
    udf: &str,
    functions: &HashMap<String, Signature>,
    reporter: &mut Reporter,
) {
    let Some((inputs, results)) = functions.get(udf) else {
        reporter.op_error(op, format!("UDF @{udf} is not a func.func in this module"));
        return;
    };
    let (Some(input), Some(output)) = (operand_record(op, 0), result_record(op)) else {
        return;
    };
    let in_fields = texts(&record_fields(input));
    let out_fields = texts(&record_fields(output));
    let (expected_inputs, expected_results): (Vec<String>, Vec<String>) = match name {
        ops::MAP => (in_fields, out_fields),
        // Fields before the list repeat on every element's record.
        ops::FLAT_MAP if results.len() > 1 && out_fields.len() == results.len() => {
            let (element, fields) = out_fields.split_last().expect("two or more fields");
            let mut expected = fields.to_vec();
            expected.push(format!("!df.list<{element}>"));
            (in_fields, expected)
        }
        ops::FLAT_MAP => (in_fields, vec![format!("!df.list<{output}>")]),
        ops::FILTER => (in_fields, vec!["i1".into()]),
        ops::REDUCE => (
            in_fields.iter().chain(&in_fields).cloned().collect(),
            in_fields,
        ),
        // The value is every field after the key: `(k, (a, b))` in
        // Python is the record tuple<K, A, B>, folded by (A, B, A, B) -> (A, B).
        ops::REDUCE_BY_KEY => {
            let keys = key_fields(op);
            if in_fields.len() <= keys {
                let needed = match keys {
                    1 => "key-value records tuple<K, V...>".to_string(),
                    n => format!("key-value records with {n} key fields and at least one value"),
                };
                reporter.op_error(op, format!("needs {needed}, found {input}"));
                return;
            }
            let value = &in_fields[keys..];
            (value.iter().chain(value).cloned().collect(), value.to_vec())
        }
        _ => return,
    };
    let (found_inputs, found_results) = (texts(inputs), texts(results));
    if found_inputs != expected_inputs || found_results != expected_results {
        reporter.op_error(
            op,
            format!(
                "UDF @{udf} must have type ({}) -> ({}) for this operator, found ({}) -> ({})",
                expected_inputs.join(", "),
                expected_results.join(", "),
                found_inputs.join(", "),
                found_results.join(", ")
            ),
        );
    }
}

fn verify_group_by_key(op: &Operation, reporter: &mut Reporter) {
    let (Some(input), Some(output)) = (operand_record(op, 0), result_record(op)) else {
        return;
    };
    let fields = texts(&record_fields(input));
    if fields.len() != 2 {
        reporter.op_error(
            op,
            format!("needs key-value records tuple<K, V>, found {input}"),
        );
        return;
    }
    let expected = vec![fields[0].clone(), format!("!df.list<{}>", fields[1])];
    let found = texts(&record_fields(output));
    if found != expected {
        reporter.op_error(
            op,
            format!(
                "result records must be tuple<{}>, found {output}",
                expected.join(", ")
            ),
        );
    }
}

fn verify_join(op: &Operation, reporter: &mut Reporter) {
    let (Some(left), Some(right), Some(output)) = (
        operand_record(op, 0),
        operand_record(op, 1),
        result_record(op),
    ) else {
        return;
    };
    let (l, r) = (texts(&record_fields(left)), texts(&record_fields(right)));
    let keys = key_fields(op);
    if l.len() <= keys || r.len() <= keys {
        let key = if keys == 1 {
            "K".to_string()
        } else {
            format!("{keys} key fields")
        };
        reporter.op_error(
            op,
            format!("joins keyed records tuple<{key}, ...> with at least one value; found {left} and {right}"),
        );
        return;
    }
    if l[..keys] != r[..keys] {
        reporter.op_error(
            op,
            format!(
                "join keys must have the same type: left key is {}, right key is {}",
                l[..keys].join(", "),
                r[..keys].join(", ")
            ),
        );
        return;
    }
    let kind = int_attr(op, "kind")
        .and_then(|k| ops::JOIN_KINDS.get(usize::try_from(k).ok()?).copied())
        .unwrap_or("inner");
    let wrap = |fields: &[String], optional: bool| -> Vec<String> {
        fields[keys..]
            .iter()
            .map(|f| {
                if optional {
                    format!("!df.option<{f}>")
                } else {
                    f.clone()
                }
            })
            .collect()
    };
    let mut expected = l[..keys].to_vec();
    expected.extend(wrap(&l, matches!(kind, "right_outer" | "full_outer")));
    expected.extend(wrap(&r, matches!(kind, "left_outer" | "full_outer")));
    let found = texts(&record_fields(output));
    if found != expected {
        reporter.op_error(
            op,
            format!(
                "{kind} join result records must be tuple<{}>, found {output}",
                expected.join(", ")
            ),
        );
    }
}

/// How many leading fields key a `df.reduce_by_key` or `df.join`: its
/// `keys`, 1 without it.
fn key_fields(op: &Operation) -> usize {
    int_attr(op, "keys")
        .and_then(|k| usize::try_from(k).ok())
        .unwrap_or(1)
        .max(1)
}

fn verify_get(op: &Operation, reporter: &mut Reporter) {
    let (Ok(list), Ok(result)) = (op.operand(0), op.result(0)) else {
        return;
    };
    if let Some(index) = int_attr(op, "index") {
        if index < 0 {
            reporter.op_error(op, format!("index must be >= 0, found {index}"));
        }
    }
    if let Some(element) = list_element(list.r#type()) {
        let result = result.r#type();
        if element != result && option_element(result) != Some(element) {
            reporter.op_error(
                op,
                format!(
                    "result type must be the list's element type {element}, found {result} \
                     (or !df.option<{element}>, the form that never fails)"
                ),
            );
        }
    }
}

fn verify_get_at(op: &Operation, reporter: &mut Reporter) {
    let (Ok(list), Ok(result)) = (op.operand(0), op.result(0)) else {
        return;
    };
    if let Some(element) = list_element(list.r#type()) {
        let result = result.r#type();
        if option_element(result) != Some(element) {
            reporter.op_error(
                op,
                format!("result type must be !df.option<{element}> (absent past the end), found {result}"),
            );
        }
    }
}

/// `df.to_int` / `df.to_float`: the plain type, or an option of it for the
/// total form (absent where the parse fails).
fn verify_total_result(op: &Operation, plain: FieldType, reporter: &mut Reporter) {
    let Ok(result) = op.result(0) else {
        return;
    };
    let ty = result.r#type();
    let element = option_element(ty).and_then(FieldType::from_type);
    let ok = match option_element(ty) {
        Some(_) => element.as_ref() == Some(&plain),
        None => FieldType::from_type(ty).as_ref() == Some(&plain),
    };
    if !ok {
        reporter.op_error(
            op,
            format!("result type must be {plain}, or !df.option<{plain}> for the form that never fails, found {ty}"),
        );
    }
}

/// `df.sql_cast`: the option of the target's df type (int and bigint are
/// both i64, as df holds every integer).
fn verify_sql_cast(op: &Operation, reporter: &mut Reporter) {
    let (Ok(result), Some(target)) = (op.result(0), int_attr(op, "target")) else {
        return;
    };
    let (name, element) = match target {
        0 => ("int", FieldType::Int),
        1 => ("bigint", FieldType::Int),
        2 => ("double", FieldType::Float),
        _ => ("boolean", FieldType::Bool),
    };
    let ty = result.r#type();
    if option_element(ty).and_then(FieldType::from_type).as_ref() != Some(&element) {
        reporter.op_error(
            op,
            format!(
                "result type of a cast to {name} must be !df.option<{element}> (absent where Spark gives NULL), found {ty}"
            ),
        );
    }
}

/// `df.replace` with an empty `old` inserts `new` between every character in
/// both Python and Java; df does not model that, so a constant one is refused.
fn verify_replace(op: &Operation, reporter: &mut Reporter) {
    let Ok(old) = op.operand(1) else {
        return;
    };
    let empty_constant = defining_op(old).is_some_and(|def| {
        let def = as_op(&def);
        op_name(def) == ops::STR_CONSTANT && str_attr(def, "value").as_deref() == Some("")
    });
    if empty_constant {
        reporter.op_error(
            op,
            "old must not be empty (Python and Java would insert the replacement between every character)",
        );
    }
}

/// `df.raise` ends a block of a function's body (an `scf` region ends in
/// `scf.yield`), and names its exception class as a Python identifier.
fn verify_raise(op: &Operation, reporter: &mut Reporter) {
    let parent = op.parent_operation();
    if parent.is_none_or(|p| op_name(as_op(&p)) != "func.func") {
        reporter.op_error(
            op,
            "must end a block of a func.func body (branch there with cf.cond_br from inside \
             structured control flow)",
        );
    }
    let class = str_attr(op, "exception").unwrap_or_default();
    let mut chars = class.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        reporter.op_error(
            op,
            format!(
                "exception class must be a Python identifier such as \"ValueError\", found \"{}\"",
                class.escape_default()
            ),
        );
    }
}

fn verify_value_or(op: &Operation, reporter: &mut Reporter) {
    let (Ok(option), Ok(result)) = (op.operand(0), op.result(0)) else {
        return;
    };
    if let Some(element) = option_element(option.r#type()) {
        if element != result.r#type() {
            reporter.op_error(
                op,
                format!(
                    "default and result must have the option's element type {element}, found {}",
                    result.r#type()
                ),
            );
        }
    }
}
