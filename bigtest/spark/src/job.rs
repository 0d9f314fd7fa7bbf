//! The dataflow of a df program as PySpark RDD calls: a source is
//! `textFile` (or `parallelize` for inline records), each operator the RDD
//! method with Spark's meaning, a sink a dataset of text lines that `main`
//! saves with `saveAsTextFile`.

use coco_dataflow::{
    interp::{left_width, right_width},
    io::data_file_name,
    model::{DatasetId, DatasetOp, JoinKind, OpKind, Program, Ty},
};

use crate::{
    python::{identifier, str_literal, text},
    udf::function_name,
    writer::Writer,
    ExportError,
};

/// The kind of a field as coco_df.py's parse and format helpers name it.
fn kind(ty: &Ty) -> String {
    match ty {
        Ty::Int => "\"i64\"".into(),
        Ty::Float => "\"f64\"".into(),
        Ty::Bool => "\"i1\"".into(),
        Ty::Str => "\"str\"".into(),
        Ty::List(e) => format!("(\"list\", {})", kind(e)),
        Ty::Option(e) => format!("(\"option\", {})", kind(e)),
    }
}

pub fn kinds(fields: &[Ty]) -> String {
    let items: Vec<String> = fields.iter().map(kind).collect();
    format!(
        "({}{})",
        items.join(", "),
        if items.len() == 1 { "," } else { "" }
    )
}

pub fn holds_float(ty: &Ty) -> bool {
    match ty {
        Ty::Float => true,
        Ty::List(e) | Ty::Option(e) => holds_float(e),
        _ => false,
    }
}

/// The Python expression that keys a value of type `ty` held in `value`:
/// floats compare by bits (FloatKey), everything else as itself.
fn key_expr(value: &str, types: &[Ty]) -> String {
    if types.iter().any(holds_float) {
        format!("key_of({value})")
    } else {
        value.to_string()
    }
}

/// The key of a record `r` whose first `keys` fields key it: the field,
/// or the tuple of them.
fn key_of_record(keys: usize) -> String {
    match keys {
        1 => "r[0]".to_string(),
        n => format!("r[:{n}]"),
    }
}

fn dataset(id: DatasetId) -> String {
    format!("d{id}")
}

/// `build(sc, inputs)`: the job's datasets, its sinks as (name, directory,
/// lines) and the datasets no operator reads (`main` forces them, so a
/// failure there fails the job as it does in coco's interpreter).
pub fn emit(program: &Program, w: &mut Writer) -> Result<(), ExportError> {
    check_pipelines(program)?;
    w.line("def build(sc, inputs):");
    w.indent();
    w.line(format!(
        "\"\"\"The datasets of @{}: returns the sinks as (name, directory, RDD of text",
        text(&program.name)
    ));
    w.line("lines) and the datasets no operator reads. `inputs` maps a source name to");
    w.line("a path Spark can read (a file, a directory, an hdfs:// or s3a:// URL).\"\"\"");
    w.line("sinks, unread = [], []");
    for (id, op) in program.ops.iter().enumerate() {
        let input = |i: usize| dataset(op.inputs[i]);
        let fields_of = |i: usize| &program.ops[op.inputs[i]].fields;
        let udf = op.udf().map(function_name).unwrap_or_default();
        let expr = match &op.kind {
            OpKind::Source { .. } => format!("read_source(sc, inputs, {})", source_args(op)),
            OpKind::Map { .. } => format!("{}.map(lambda r: {udf}(*r))", input(0)),
            OpKind::Filter { .. } => format!("{}.filter(lambda r: {udf}(*r)[0])", input(0)),
            OpKind::FlatMap { .. } => {
                // Fields before the list repeat on every element.
                format!(
                    "{}.flatMap(lambda r: [f[:-1] + (x,) for f in [{udf}(*r)] for x in f[-1]])",
                    input(0)
                )
            }
            OpKind::Reduce { .. } => format!(
                // RDD.reduce is an action: it runs here, and raises on an
                // empty dataset as Spark's does.
                "sc.parallelize([{}.reduce(lambda a, b: {udf}(*a, *b))], 1)",
                input(0)
            ),
            OpKind::ReduceByKey { keys, .. } => format!(
                "{}.map(lambda r: ({}, r)).reduceByKey(lambda a, b: a[:{keys}] + {udf}(*a[{keys}:], *b[{keys}:])).values()",
                input(0),
                key_expr(&key_of_record(*keys), &fields_of(0)[..*keys])
            ),
            OpKind::GroupByKey => format!(
                "{}.map(lambda r: ({}, r)).groupByKey().map(lambda kv: grouped(kv[1]))",
                input(0),
                key_expr("r[0]", &fields_of(0)[..1])
            ),
            OpKind::Distinct => {
                if op.fields.iter().any(holds_float) {
                    format!(
                        "{}.map(lambda r: (key_of(r), r)).reduceByKey(lambda a, b: a).values()",
                        input(0)
                    )
                } else {
                    format!("{}.distinct()", input(0))
                }
            }
            OpKind::Union => format!("{}.union({})", input(0), input(1)),
            OpKind::Join { kind, .. } => join(program, id, *kind)?,
            OpKind::Sink { name, path } => {
                let directory = path
                    .as_deref()
                    .and_then(|p| std::path::Path::new(p).file_name())
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_else(|| name.clone());
                w.line(format!(
                    "sinks.append(({}, {}, {}.map(lambda r: format_record({}, r))))",
                    str_literal(name),
                    str_literal(&directory),
                    input(0),
                    kinds(&op.fields)
                ));
                continue;
            }
        };
        w.line(format!("{} = {expr}", dataset(id)));
        if program.consumers(id).is_empty() {
            w.line(format!("unread.append({})", dataset(id)));
        }
    }
    w.line("return sinks, unread");
    w.dedent();
    w.line("");
    w.line("");
    source_files(program, w);
    Ok(())
}

/// A source's arguments to coco_df.py's readers: its name, its inline
/// records (or None), its delimiter and its fields' kinds.
pub fn source_args(op: &DatasetOp) -> String {
    let OpKind::Source {
        name,
        inline,
        delimiter,
        int32,
        ..
    } = &op.kind
    else {
        return String::new();
    };
    let inline = match inline {
        Some(lines) => {
            let items: Vec<String> = lines.iter().map(|l| str_literal(l)).collect();
            format!("[{}]", items.join(", "))
        }
        None => "None".into(),
    };
    // An INT field reads as "i32": a value beyond 32 bits is no record.
    let items: Vec<String> = op
        .fields
        .iter()
        .enumerate()
        .map(|(i, ty)| match ty {
            Ty::Int if int32.contains(&i) => "\"i32\"".to_string(),
            ty => kind(ty),
        })
        .collect();
    format!(
        "{}, {inline}, {}, ({}{})",
        str_literal(name),
        str_literal(delimiter),
        items.join(", "),
        if items.len() == 1 { "," } else { "" }
    )
}

/// `SOURCE_FILES`: the file each source reads under --data, as
/// coco-bigtest names it.
pub fn source_files(program: &Program, w: &mut Writer) {
    w.line("SOURCE_FILES = {");
    for (_, op) in program.sources() {
        if let (OpKind::Source { name, .. }, Some(file)) = (&op.kind, data_file_name(&op.kind)) {
            w.line(format!(
                "    {}: {},",
                str_literal(name),
                str_literal(&file)
            ));
        }
    }
    w.line("}");
}

/// A join: both sides keyed by their key fields, Spark's join,
/// leftOuterJoin, rightOuterJoin or fullOuterJoin, and the pair flattened into one record
/// whose fields from an outer side are options.
fn join(program: &Program, id: DatasetId, kind: JoinKind) -> Result<String, ExportError> {
    let op = &program.ops[id];
    let left = &program.ops[op.inputs[0]];
    let (l_flags, r_flags) = join_wraps(program, id, kind)?;
    let method = match kind {
        JoinKind::Inner => "join",
        JoinKind::LeftOuter => "leftOuterJoin",
        JoinKind::RightOuter => "rightOuterJoin",
        JoinKind::FullOuter => "fullOuterJoin",
    };
    let keys = op.key_fields();
    let key = key_expr(&key_of_record(keys), &left.fields[..keys]);
    Ok(format!(
        "{l}.map(lambda r: ({key}, r)).{method}({r}.map(lambda r: ({key}, r))).map(lambda kv: joined(kv[1], {l_flags}, {r_flags}, {keys}))",
        l = dataset(op.inputs[0]),
        r = dataset(op.inputs[1]),
    ))
}

/// Per side of join `id`, as a Python tuple of booleans, whether each
/// value field becomes an option in the output (the output type is an
/// option and the input's is not): `joined`'s wraps.
pub fn join_wraps(
    program: &Program,
    id: DatasetId,
    kind: JoinKind,
) -> Result<(String, String), ExportError> {
    let op = &program.ops[id];
    let (left, right) = (&program.ops[op.inputs[0]], &program.ops[op.inputs[1]]);
    let (l_width, r_width) = (left_width(program, id), right_width(program, id));
    let outputs = &op.fields;
    let wraps = |inputs: &[Ty], outputs: &[Ty]| -> Vec<bool> {
        inputs
            .iter()
            .zip(outputs)
            .map(|(i, o)| matches!(o, Ty::Option(_)) && !matches!(i, Ty::Option(_)))
            .collect()
    };
    let keys = op.key_fields();
    let l_out = &outputs[keys..l_width];
    let r_out = &outputs[l_width..l_width + r_width - keys];
    let may_be_absent = |side: &[Ty], absent: bool| -> Result<(), ExportError> {
        if absent && !side.iter().all(|t| matches!(t, Ty::Option(_))) {
            return Err(ExportError::Unsupported {
                loc: op.loc.clone(),
                what: format!(
                    "a {} join whose absent side has fields that are not options",
                    kind.name()
                ),
            });
        }
        Ok(())
    };
    may_be_absent(l_out, kind.keeps_right_only())?;
    may_be_absent(r_out, kind.keeps_left_only())?;
    let flags = |v: Vec<bool>| {
        let items: Vec<&str> = v
            .iter()
            .map(|&b| if b { "True" } else { "False" })
            .collect();
        format!(
            "({}{})",
            items.join(", "),
            if items.len() == 1 { "," } else { "" }
        )
    };
    Ok((
        flags(wraps(&left.fields[keys..], l_out)),
        flags(wraps(&right.fields[keys..], r_out)),
    ))
}

/// The most RDD methods PySpark pipelines into one task that coco exports:
/// PySpark composes their functions into one closure nested as deep as the
/// chain, and pickling it for the workers fails ("excessively deep
/// recursion") from about 135 maps on (PySpark 3.5, measured).
const MAX_PIPELINE: usize = 100;

/// Refuses a chain of narrow operators (source, map, filter, flat_map,
/// sink: each one RDD method without a shuffle) longer than
/// [`MAX_PIPELINE`], at the operator that crosses it. A shuffle, a union or
/// an action (`reduce`) ends a chain; a few maps follow a shuffle.
pub fn check_pipelines(program: &Program) -> Result<(), ExportError> {
    let mut chain = vec![0usize; program.ops.len()];
    for (id, op) in program.ops.iter().enumerate() {
        let longest_input = op.inputs.iter().map(|&i| chain[i]).max().unwrap_or(0);
        chain[id] = match op.kind {
            OpKind::Source { .. }
            | OpKind::Map { .. }
            | OpKind::Filter { .. }
            | OpKind::FlatMap { .. }
            | OpKind::Sink { .. } => longest_input + 1,
            OpKind::Union | OpKind::Reduce { .. } => 0,
            OpKind::ReduceByKey { .. }
            | OpKind::GroupByKey
            | OpKind::Distinct
            | OpKind::Join { .. } => 3,
        };
        if chain[id] > MAX_PIPELINE {
            return Err(ExportError::Unsupported {
                loc: op.loc.clone(),
                what: format!(
                    "{} chained operators without a shuffle between them: PySpark pipelines \
                     them into one task whose functions it cannot pickle beyond about 130; \
                     coco exports at most {MAX_PIPELINE}",
                    chain[id]
                ),
            });
        }
    }
    Ok(())
}

/// The Python module-level name of the program function.
pub fn job_name(program: &Program) -> String {
    identifier("", &program.name)
}
