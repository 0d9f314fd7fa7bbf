//! DataFrame code of a script: the files it reads with `spark.read` (a
//! reader chain such as `spark.read.schema(S).option("sep", " ").csv(p)`),
//! its DataFrame operators (read by the same [`Reader`] as a DataFrame
//! function's), and the files it writes with `df.write`.
//!
//! A file's text is what a test writes and reads back, so the options that
//! decide it are kept ([`FrameFile`]); Spark's reading of it is part of the
//! program: every column of a file is nullable (Spark reads a file's schema
//! as nullable), and an empty CSV field is NULL.

use std::collections::BTreeMap;

use crate::{
    error::{unsupported, Loc, Result},
    frame::{
        ops,
        schema::{Column, SqlTy},
        Binding, Frame, Reader,
    },
    job::Builder,
    syntax::{Constant, Node},
};

/// The file format of a DataFrame a script reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    /// Lines of text: one string column, `value`.
    Text,
    Json,
    Parquet,
}

impl Format {
    fn named(name: &str) -> Option<Format> {
        Some(match name.to_ascii_lowercase().as_str() {
            "csv" | "com.databricks.spark.csv" => Format::Csv,
            "text" => Format::Text,
            "json" => Format::Json,
            "parquet" => Format::Parquet,
            _ => return None,
        })
    }

    /// Spark's name of the format, as `spark.read.format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Text => "text",
            Format::Json => "json",
            Format::Parquet => "parquet",
        }
    }
}

/// How a script reads or writes a DataFrame's file: what decides the
/// file's text.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameFile {
    pub format: Format,
    /// CSV: the first line names the columns.
    pub header: bool,
    /// CSV: the field separator, quote and escape characters.
    pub sep: char,
    pub quote: char,
    pub escape: char,
    /// Writing CSV: whether leading and trailing whitespace of each value
    /// is dropped (Spark's default when writing, not when reading).
    pub trim_leading: bool,
    pub trim_trailing: bool,
    /// Reading CSV: `inferSchema`, the columns' types taken from the data.
    pub infer_schema: bool,
    pub columns: Vec<Column>,
}

impl FrameFile {
    fn new(format: Format, writing: bool) -> FrameFile {
        FrameFile {
            format,
            header: false,
            sep: ',',
            quote: '"',
            escape: '\\',
            trim_leading: writing,
            trim_trailing: writing,
            infer_schema: false,
            columns: Vec::new(),
        }
    }

    /// The schema as a DDL string (`` `id` INT, `name` STRING ``), which a
    /// test reads the file back with.
    pub fn ddl(&self) -> String {
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                let ty = match c.ty {
                    SqlTy::Long => "BIGINT".to_string(),
                    other => other.name().to_ascii_uppercase(),
                };
                format!("`{}` {ty}", c.name.replace('`', "``"))
            })
            .collect();
        columns.join(", ")
    }
}

/// `spark.read...csv(path)`: the file, its schema and the path's code.
pub struct ReadCall {
    /// What `.read` is taken of (the session), for the caller to check.
    pub session: Node,
    pub file: FrameFile,
    /// The `schema=` keyword or `.schema(S)`, as written.
    pub schema: Option<Node>,
    pub path: Node,
}

/// A reader option's value as Spark takes it: a string (`True` is
/// `"true"`), or `None` for anything but a constant.
fn option_text(value: &Node) -> Option<String> {
    Some(match value.constant()? {
        Constant::Bool(b) => b.to_string(),
        Constant::Str(s) => s,
        Constant::Int(digits) => digits,
        _ => return None,
    })
}

/// One character option (`sep`, `quote`, `escape`).
fn one_char(key: &str, text: &str, loc: &Loc) -> Result<char> {
    // Spark reads "\t" written as two characters as a tab too.
    let text = if text == "\\t" { "\t" } else { text };
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c != '\n' && c != '\r' => Ok(c),
        _ => unsupported(
            loc,
            format!("option {key}={text:?}: coco reads CSV whose {key} is one character (not a line break)"),
        ),
    }
}

/// A boolean option: `True`, `"true"`, `"False"`.
fn flag(key: &str, text: &str, loc: &Loc) -> Result<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => unsupported(loc, format!("option {key}={text:?} is not true or false")),
    }
}

/// Applies option `key` (any case, as Spark takes it) to `file`.
fn apply_option(file: &mut FrameFile, key: &str, value: &Node, writing: bool) -> Result<()> {
    let loc = &value.loc;
    let Some(text) = option_text(value) else {
        return unsupported(
            loc,
            format!("option {key}: coco reads options that are constants (a string or a bool)"),
        );
    };
    let lower = key.to_ascii_lowercase();
    let csv = file.format == Format::Csv;
    match lower.as_str() {
        "header" if csv => file.header = flag(key, &text, loc)?,
        "sep" | "delimiter" if csv => file.sep = one_char(key, &text, loc)?,
        "quote" if csv => file.quote = one_char(key, &text, loc)?,
        "escape" if csv => file.escape = one_char(key, &text, loc)?,
        "ignoreleadingwhitespace" | "ignoretrailingwhitespace" if csv && writing => {
            let on = flag(key, &text, loc)?;
            if lower == "ignoreleadingwhitespace" {
                file.trim_leading = on;
            } else {
                file.trim_trailing = on;
            }
        }
        "ignoreleadingwhitespace" | "ignoretrailingwhitespace" if csv => {
            if flag(key, &text, loc)? {
                return unsupported(
                    loc,
                    format!("option {key}=true when reading is not supported yet: coco models values read as they stand"),
                );
            }
        }
        // With a schema given, Spark infers nothing.
        "inferschema" if csv && !writing => file.infer_schema = flag(key, &text, loc)?,
        // A generated file is never malformed for its schema, and holds
        // no line break inside a value.
        "mode" | "multiline" | "columnnameofcorruptrecord" if !writing => {}
        "encoding" | "charset"
            if matches!(text.to_ascii_lowercase().as_str(), "utf-8" | "utf8") => {}
        "dateformat" | "timestampformat" | "timestampntzformat" | "locale" => {}
        "compression" | "codec" if writing => {}
        "quoteall" | "escapequotes" if csv && writing => {}
        "nullvalue" | "emptyvalue" if text.is_empty() => {}
        _ => {
            return unsupported(
                loc,
                format!(
                    "the {} option {key}={text:?} is not supported (coco reads header, sep, quote, escape{} and options that change no value)",
                    file.format.name(),
                    if writing { ", ignoreLeadingWhiteSpace, ignoreTrailingWhiteSpace" } else { "" }
                ),
            )
        }
    }
    Ok(())
}

/// The methods of a reader or writer chain before its last call.
enum Link {
    Format(Node),
    Schema(Node),
    Option(String, Node),
    Mode,
}

/// The links of a chain ending in `.read` or `.write` (`end`), read from
/// `node` down; returns them (outermost first) and what `end` is taken of.
fn chain(mut node: Node, end: &str) -> Result<Option<(Vec<Link>, Node)>> {
    let mut links = Vec::new();
    loop {
        if node.is("Attribute") && node.str("attr").as_deref() == Some(end) {
            return Ok(Some((links, node.expect("value"))));
        }
        if !node.is("Call") {
            return Ok(None);
        }
        let func = node.expect("func");
        if !func.is("Attribute") {
            return Ok(None);
        }
        let args = node.list("args");
        let method = func.str("attr").unwrap_or_default();
        match (method.as_str(), &args[..]) {
            ("format", [f]) => links.push(Link::Format(f.clone())),
            ("schema", [s]) if end == "read" => links.push(Link::Schema(s.clone())),
            ("option", [k, v]) => match k.str_constant() {
                Some(key) => links.push(Link::Option(key, v.clone())),
                None => return unsupported(&k.loc, "option() takes the option's name as a string"),
            },
            ("options", []) => {
                for k in node.list("keywords") {
                    match k.str("arg") {
                        Some(key) => links.push(Link::Option(key, k.expect("value"))),
                        None => {
                            return unsupported(&k.loc, "options(**dict): name each option (options(header=True))")
                        }
                    }
                }
            }
            ("mode", [_]) if end == "write" => links.push(Link::Mode),
            ("partitionBy" | "bucketBy" | "sortBy", _) if end == "write" => {
                return unsupported(
                    &func.attr_loc(),
                    format!("DataFrameWriter.{method}() is not supported: coco checks a written DataFrame as one folder of rows"),
                )
            }
            _ => return Ok(None),
        }
        node = func.expect("value");
    }
}

/// The format a `.format(f)` link names.
fn format_of(f: &Node) -> Result<Format> {
    let name = f.str_constant().unwrap_or_default();
    Format::named(&name).map_or_else(
        || {
            unsupported(
                &f.loc,
                format!("format {name:?} is not supported (csv, text, json and parquet are)"),
            )
        },
        Ok,
    )
}

/// `call` as a reader chain (`spark.read.csv(path, schema=S, header=True)`,
/// `spark.read.format("csv").option("sep", ";").load(path)`), or `None`.
pub fn reader_call(call: &Node) -> Result<Option<ReadCall>> {
    if !call.is("Call") {
        return Ok(None);
    }
    let func = call.expect("func");
    if !func.is("Attribute") {
        return Ok(None);
    }
    let method = func.str("attr").unwrap_or_default();
    if !matches!(
        method.as_str(),
        "csv" | "text" | "json" | "parquet" | "load" | "orc" | "table"
    ) {
        return Ok(None);
    }
    let Some((links, session)) = chain(func.expect("value"), "read")? else {
        return Ok(None);
    };
    let mut format = Format::named(&method);
    let mut schema = None;
    let mut options = Vec::new();
    // The chain's innermost link is applied first; a later one wins.
    for link in links.into_iter().rev() {
        match link {
            Link::Format(f) => format = Some(format_of(&f)?),
            Link::Schema(s) => schema = Some(s),
            Link::Option(k, v) => options.push((k, v)),
            Link::Mode => {}
        }
    }
    let mut path = call.list("args").first().cloned();
    for k in call.list("keywords") {
        match k.str("arg").as_deref() {
            Some("schema") => schema = k.child("value"),
            Some("path") => path = k.child("value"),
            Some("format") => format = Some(format_of(&k.expect("value"))?),
            Some(key) => options.push((key.to_string(), k.expect("value"))),
            None => return unsupported(&k.loc, "**options in a read: name each option"),
        }
    }
    let loc = func.attr_loc();
    let Some(format) = format else {
        return unsupported(
            &loc,
            format!("DataFrameReader.{method}() of a format coco does not model (csv and text files are read)"),
        );
    };
    if matches!(format, Format::Json | Format::Parquet) {
        return unsupported(
            &loc,
            format!("reading {} files is not supported yet: coco generates a script's inputs as CSV or text files", format.name()),
        );
    }
    if call.list("args").len() > 1 {
        return unsupported(
            &loc,
            "a read of several paths is not supported: read one file",
        );
    }
    let Some(path) = path else {
        return unsupported(&loc, "a read without a path");
    };
    let mut file = FrameFile::new(format, false);
    for (key, value) in &options {
        if format == Format::Text {
            return unsupported(
                &value.loc,
                format!("spark.read.text's option {key} is not supported (a text file is read line by line, as it stands)"),
            );
        }
        apply_option(&mut file, key, value, false)?;
    }
    if format == Format::Csv {
        let quoted = file.quote == file.sep;
        if quoted {
            return unsupported(&loc, "a CSV read whose quote is its separator");
        }
    }
    Ok(Some(ReadCall {
        session,
        file,
        schema,
        path,
    }))
}

/// `df.write...csv(path)` (`call`): what is written, and how.
pub struct WriteCall {
    /// The DataFrame's code (what `.write` is taken of).
    pub frame: Node,
    pub file: FrameFile,
    pub path: Node,
}

/// `call` as a writer chain (`df.write.mode("overwrite").csv(path,
/// header=True)`, `df.write.format("json").save(path)`), or `None`.
pub fn writer_call(call: &Node) -> Result<Option<WriteCall>> {
    if !call.is("Call") {
        return Ok(None);
    }
    let func = call.expect("func");
    if !func.is("Attribute") {
        return Ok(None);
    }
    let method = func.str("attr").unwrap_or_default();
    let Some((links, frame)) = chain(func.expect("value"), "write")? else {
        return Ok(None);
    };
    let loc = func.attr_loc();
    let mut format = match method.as_str() {
        "save" => None,
        "saveAsTable" | "insertInto" | "jdbc" | "orc" => {
            return unsupported(
                &loc,
                format!("DataFrameWriter.{method}() is not supported: coco checks DataFrames written to csv, json, parquet or text files"),
            )
        }
        other => match Format::named(other) {
            Some(f) => Some(f),
            None => return Ok(None),
        },
    };
    let mut options = Vec::new();
    for link in links.into_iter().rev() {
        match link {
            Link::Format(f) => format = format.or(Some(format_of(&f)?)),
            Link::Option(k, v) => options.push((k, v)),
            Link::Schema(_) | Link::Mode => {}
        }
    }
    let mut path = call.list("args").first().cloned();
    for k in call.list("keywords") {
        match k.str("arg").as_deref() {
            Some("path") => path = k.child("value"),
            // Every test writes into a folder of its own: the modes agree.
            Some("mode") => {}
            Some("format") => format = Some(format_of(&k.expect("value"))?),
            Some("partitionBy") => {
                return unsupported(&k.loc, "partitionBy is not supported: coco checks a written DataFrame as one folder of rows")
            }
            Some(key) => options.push((key.to_string(), k.expect("value"))),
            None => return unsupported(&k.loc, "**options in a write: name each option"),
        }
    }
    let Some(format) = format else {
        return unsupported(
            &loc,
            "save() without a format: name it (.format(\"csv\")) so a test can read the files back",
        );
    };
    let Some(path) = path else {
        return unsupported(&loc, "a write without a path");
    };
    let mut file = FrameFile::new(format, true);
    for (key, value) in &options {
        apply_option(&mut file, key, value, true)?;
    }
    Ok(Some(WriteCall { frame, file, path }))
}

/// Whether `value` is a schema a script builds (`StructType([...])`).
pub fn is_schema(value: &Node) -> bool {
    value.is("Call") && crate::frame::names::callee(value).is_some_and(|name| name == "StructType")
}

/// The frame of a file the script reads: `value`, the source's records, as
/// Spark reads them. A CSV field that is empty (or `""`) is NULL, so an
/// empty string never reaches the job.
pub fn read_file(
    builder: &mut Builder,
    value: String,
    file: &FrameFile,
    name: &str,
    loc: &Loc,
) -> Result<Frame> {
    let frame = Frame {
        value,
        columns: file.columns.clone(),
    };
    if file.format != Format::Csv {
        return Ok(frame);
    }
    let mut reader = Reader {
        builder,
        env: BTreeMap::new(),
        helpers: Vec::new(),
    };
    ops::map_rows(
        &mut reader,
        &frame,
        &format!("read_{name}"),
        loc,
        |ex, columns| {
            let mut out = Vec::new();
            for (column, v) in columns {
                let mut v = v.clone();
                if column.ty == SqlTy::Str {
                    let empty = ex.f.str("", loc);
                    let is_empty =
                        ex.f.df2("str_eq", &v.value, &empty, crate::ir::Ty::Bool, loc);
                    let filled = ex.not(&is_empty, loc);
                    v.present = ex.both(&v.present, &Some(filled), loc);
                }
                out.push((column.name.clone(), v));
            }
            Ok(out)
        },
    )
}

/// The DataFrame expression `node` of a script, its names bound by `env`.
pub fn eval(builder: &mut Builder, env: BTreeMap<String, Binding>, node: &Node) -> Result<Binding> {
    let mut reader = Reader {
        builder,
        env,
        helpers: Vec::new(),
    };
    reader.binding(node)
}

/// Functions and methods whose string arguments name columns.
const TAKES_COLUMN_NAMES: [&str; 24] = [
    "col",
    "column",
    "groupBy",
    "groupby",
    "select",
    "orderBy",
    "sort",
    "drop",
    "dropDuplicates",
    "sum",
    "count",
    "avg",
    "mean",
    "max",
    "min",
    "countDistinct",
    "first",
    "last",
    "collect_list",
    "collect_set",
    "upper",
    "lower",
    "trim",
    "length",
];

/// Attributes of a DataFrame that are not its columns.
const FRAME_ATTRIBUTES: [&str; 8] = [
    "write",
    "rdd",
    "columns",
    "schema",
    "dtypes",
    "na",
    "stat",
    "writeStream",
];

/// The columns of a CSV a script reads by its header, without a schema:
/// each a nullable string (Spark reads a header's columns so without
/// `inferSchema`), one per name the script gives a column (`col("a")`,
/// `df["a"]`, `df.a`, `groupBy("a")`, `F.sum("a")`). A name that is a
/// column only later (an alias) is one of the file too, which changes
/// nothing a test checks: the file the test writes has exactly these
/// columns, so Spark reads what coco predicts for.
pub fn header_columns(module: &[Node]) -> Vec<Column> {
    fn walk(node: &Node, out: &mut Vec<Node>) {
        out.push(node.clone());
        for child in node.children() {
            walk(&child, out);
        }
    }
    let mut nodes = Vec::new();
    for statement in module {
        walk(statement, &mut nodes);
    }
    // The names that hold DataFrames: assigned a read, or a chain on one.
    let root = |node: &Node| {
        let mut at = node.clone();
        loop {
            at = match at.kind.as_str() {
                "Call" => at.expect("func"),
                "Attribute" | "Subscript" => at.expect("value"),
                _ => return at.name(),
            };
        }
    };
    let mut frames: Vec<String> = Vec::new();
    loop {
        let before = frames.len();
        for assign in nodes.iter().filter(|n| n.is("Assign")) {
            let value = assign.expect("value");
            let reads = {
                let mut inner = Vec::new();
                walk(&value, &mut inner);
                inner
                    .iter()
                    .any(|n| n.is("Attribute") && n.str("attr").as_deref() == Some("read"))
            };
            let chained = root(&value).is_some_and(|r| frames.contains(&r));
            if reads || chained {
                for target in assign.list("targets") {
                    if let Some(name) = target.name().filter(|n| !frames.contains(n)) {
                        frames.push(name);
                    }
                }
            }
        }
        if frames.len() == before {
            break;
        }
    }
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: String| {
        if name != "*" && !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    };
    for node in &nodes {
        if let Some(callee) = crate::frame::names::callee(node) {
            if TAKES_COLUMN_NAMES.contains(&callee.as_str()) {
                for arg in node.list("args") {
                    let items = if arg.is("List") || arg.is("Tuple") {
                        arg.list("elts")
                    } else {
                        vec![arg]
                    };
                    items
                        .iter()
                        .filter_map(Node::str_constant)
                        .for_each(&mut add);
                }
            }
        }
        let on_frame = |n: &Node| {
            n.expect("value")
                .name()
                .is_some_and(|name| frames.contains(&name))
        };
        if node.is("Subscript") && on_frame(node) {
            if let Some(name) = node.expect("slice").str_constant() {
                add(name);
            }
        }
        if node.is("Attribute") && on_frame(node) {
            let attr = node.str("attr").unwrap_or_default();
            let method = FRAME_ATTRIBUTES.contains(&attr.as_str())
                || crate::job::DATAFRAME_METHODS.contains(&attr.as_str())
                || crate::job::RDD_OPERATORS.contains(&attr.as_str());
            if !method {
                add(attr);
            }
        }
    }
    names
        .into_iter()
        .map(|name| Column {
            name,
            ty: SqlTy::Str,
            nullable: true,
        })
        .collect()
}

/// A DataFrame of an RDD's records (`spark.createDataFrame(rdd, schema)`,
/// `rdd.toDF(names)`): a record per row, a field per column. With
/// `schema`, each field must be of its column's type (Spark's
/// verifySchema fails the job otherwise); an INT column's value outside 32
/// bits fails it with ValueError, as Spark's does. With `names` (toDF),
/// the types are Spark's inference from Python's: str string, int bigint,
/// float double, bool boolean. The records hold no None, so no column is
/// NULL.
pub fn from_records(
    builder: &mut Builder,
    value: String,
    shape: &crate::shape::Shape,
    schema: Option<Vec<Column>>,
    names: Option<Vec<String>>,
    loc: &Loc,
) -> Result<Frame> {
    use crate::{ir::Ty, shape::Shape};
    let fields: Vec<Ty> = match shape {
        Shape::Field(ty) => vec![ty.clone()],
        Shape::Tuple(items) if items.iter().all(|i| matches!(i, Shape::Field(_))) => {
            shape.fields()
        }
        _ => {
            return unsupported(
                loc,
                "a DataFrame of records holding tuples or None (struct or NULL-able columns) is not supported: make each record a flat tuple",
            )
        }
    };
    let columns: Vec<Column> = match schema {
        Some(columns) => {
            if columns.len() != fields.len() {
                return unsupported(
                    loc,
                    format!(
                        "the schema has {} columns, the RDD's records {} fields",
                        columns.len(),
                        fields.len()
                    ),
                );
            }
            for (c, ty) in columns.iter().zip(&fields) {
                let fits = matches!(
                    (c.ty, ty),
                    (SqlTy::Str, Ty::Str)
                        | (SqlTy::Int | SqlTy::Long, Ty::Int)
                        | (SqlTy::Double, Ty::Float)
                        | (SqlTy::Bool, Ty::Bool)
                );
                if !fits {
                    return unsupported(
                        loc,
                        format!(
                            "column {} is {}, and the RDD's field there is a Python {}: Spark fails the job (verifySchema); not supported",
                            c.name,
                            c.ty.name(),
                            crate::ir::TyText::python(ty)
                        ),
                    );
                }
            }
            columns
                .into_iter()
                .map(|c| Column {
                    nullable: false,
                    ..c
                })
                .collect()
        }
        None => {
            if matches!(shape, Shape::Field(_)) {
                return unsupported(
                    loc,
                    "toDF() of an RDD of single values: Spark cannot infer a schema from them; make each record a tuple, or createDataFrame(rdd, StringType())",
                );
            }
            let names =
                names.unwrap_or_else(|| (1..=fields.len()).map(|i| format!("_{i}")).collect());
            if names.len() != fields.len() {
                return unsupported(
                    loc,
                    format!(
                        "toDF() names {} columns; the records have {} fields",
                        names.len(),
                        fields.len()
                    ),
                );
            }
            names
                .into_iter()
                .zip(&fields)
                .map(|(name, ty)| Column {
                    name,
                    ty: match ty {
                        Ty::Str => SqlTy::Str,
                        Ty::Int => SqlTy::Long,
                        Ty::Float => SqlTy::Double,
                        _ => SqlTy::Bool,
                    },
                    nullable: false,
                })
                .collect()
        }
    };
    let frame = Frame { value, columns };
    if !frame.columns.iter().any(|c| c.ty == SqlTy::Int) {
        return Ok(frame);
    }
    let mut reader = Reader {
        builder,
        env: BTreeMap::new(),
        helpers: Vec::new(),
    };
    ops::map_rows(
        &mut reader,
        &frame,
        &format!("rows_{}", loc.line),
        loc,
        |ex, columns| {
            for (column, v) in columns.iter().filter(|(c, _)| c.ty == SqlTy::Int) {
                let _ = column;
                let low = ex.f.int(i32::MIN.into(), loc);
                let high = ex.f.int(i32::MAX.into(), loc);
                let below = ex.f.op(
                    format!("arith.cmpi slt, {}, {} : i64", v.value.name, low.name),
                    crate::ir::Ty::Bool,
                    loc,
                );
                let above = ex.f.op(
                    format!("arith.cmpi sgt, {}, {} : i64", v.value.name, high.name),
                    crate::ir::Ty::Bool,
                    loc,
                );
                let outside = ex.f.binary("ori", &below, &above, crate::ir::Ty::Bool, loc);
                let (bad, _) = ex.f.block(&[]);
                let (good, _) = ex.f.block(&[]);
                ex.f.cond_br(&outside, (bad, &[]), (good, &[]), loc);
                ex.f.switch_to(bad);
                ex.f.raise("ValueError", loc);
                ex.f.switch_to(good);
            }
            Ok(columns
                .iter()
                .map(|(c, v)| (c.name.clone(), v.clone()))
                .collect())
        },
    )
}
