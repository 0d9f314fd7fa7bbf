//! DataFrame operators as df dataset ops: each computing step is a df
//! function over rows (written with [`super::expr`]), each dataset step one
//! of df's operators.

use std::collections::BTreeMap;

use crate::{
    error::{unsupported, Loc, Result},
    frame::{
        expr::{Context, Exprs, SqlVal},
        names,
        schema::{row_shape, Column, SqlTy},
        Frame, Reader,
    },
    ir::{Function, Ty},
    job::{dataset_type, Builder},
    syntax::{Constant, Node},
};

/// A df function over rows of `columns` being written, with each column
/// bound to its parameters.
struct RowFn {
    f: Function,
    columns: Vec<(Column, SqlVal)>,
}

fn row_fn(name: &str, columns: &[Column], loc: &Loc) -> RowFn {
    let f = Function::new(name, &row_shape(columns).fields(), loc);
    let mut params = f.params().to_vec().into_iter();
    let columns = columns
        .iter()
        .map(|c| {
            let present = c.nullable.then(|| params.next().expect("a flag"));
            let value = params.next().expect("a value");
            (
                c.clone(),
                SqlVal {
                    present,
                    value,
                    ty: c.ty,
                },
            )
        })
        .collect();
    RowFn { f, columns }
}

/// Ends a row function with the output columns `out`: each value
/// normalized (a NULL holds the type's default) so equal rows are equal
/// records. Returns the function's text and the output columns.
fn finish_row(ex: &mut Exprs, out: Vec<(String, SqlVal)>, loc: &Loc) -> Vec<Column> {
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (name, v) in out {
        if let Some(p) = &v.present {
            fields.push(p.clone());
        }
        let value = ex.normalized(&v, loc);
        fields.push(value);
        columns.push(Column {
            name,
            ty: v.ty,
            nullable: v.present.is_some(),
        });
    }
    ex.f.set_results(fields.iter().map(|v| v.ty.clone()).collect());
    ex.f.ret(&fields, loc);
    columns
}

/// `df.map` of `input` by UDF `udf` into rows of `columns`.
fn map_op(
    builder: &mut Builder,
    input: &Frame,
    udf: &str,
    columns: Vec<Column>,
    loc: &Loc,
) -> Frame {
    let value = builder.emit(
        format!(
            "df.map {} @{udf} : {} -> {}",
            input.value,
            dataset_type(&row_shape(&input.columns)),
            dataset_type(&row_shape(&columns))
        ),
        loc,
    );
    Frame { value, columns }
}

/// Writes df function `name` over rows of `frame`'s columns: `body` gets
/// the expression lowering and the columns bound to the parameters, and
/// ends the function. `predicate`: a filter's condition.
#[allow(clippy::too_many_arguments)]
fn write_row_fn<T>(
    builder: &mut Builder,
    name: &str,
    frame: &Frame,
    env: &BTreeMap<String, Node>,
    frames: &[String],
    predicate: bool,
    loc: &Loc,
    body: impl FnOnce(&mut Exprs, &[(Column, SqlVal)]) -> Result<T>,
) -> Result<T> {
    let RowFn { mut f, columns } = row_fn(name, &frame.columns, loc);
    let cx = Context {
        columns: &columns,
        env,
        frames,
    };
    let mut ex = Exprs {
        builder,
        f: &mut f,
        cx: &cx,
        predicate,
    };
    let out = body(&mut ex, &columns)?;
    builder.udfs.push(f.finish());
    Ok(out)
}

/// A map of `frame`'s rows by `body`, which gives the output columns.
pub fn map_rows(
    reader: &mut Reader,
    frame: &Frame,
    base: &str,
    loc: &Loc,
    body: impl FnOnce(&mut Exprs, &[(Column, SqlVal)]) -> Result<Vec<(String, SqlVal)>>,
) -> Result<Frame> {
    let name = reader.builder.fresh_udf_name(base);
    let env = reader.columns_env();
    let frames = reader.names_of(frame);
    let out_columns = write_row_fn(
        reader.builder,
        &name,
        frame,
        &env,
        &frames,
        false,
        loc,
        |ex, columns| {
            let out = body(ex, columns)?;
            Ok(finish_row(ex, out, loc))
        },
    )?;
    Ok(map_op(reader.builder, frame, &name, out_columns, loc))
}

/// The map right after a source: every NULL's value set to the default,
/// so equal rows are equal records from the start.
pub fn normalize(builder: &mut Builder, frame: Frame, name: &str, loc: &Loc) -> Result<Frame> {
    if !frame.columns.iter().any(|c| c.nullable) {
        return Ok(frame);
    }
    let udf = builder.fresh_udf_name(&format!("read_{name}"));
    let out_columns = write_row_fn(
        builder,
        &udf,
        &frame,
        &BTreeMap::new(),
        &[],
        false,
        loc,
        |ex, columns| {
            let out = columns
                .iter()
                .map(|(c, v)| (c.name.clone(), v.clone()))
                .collect();
            Ok(finish_row(ex, out, loc))
        },
    )?;
    Ok(map_op(builder, &frame, &udf, out_columns, loc))
}

/// A filter of `frame`'s rows by the boolean `predicate`: a row is kept
/// where it is true, dropped where it is false or NULL (a decision of its
/// own where it may be NULL).
fn filter_rows(
    reader: &mut Reader,
    frame: &Frame,
    base: &str,
    loc: &Loc,
    predicate: impl FnOnce(&mut Exprs, &[(Column, SqlVal)]) -> Result<SqlVal>,
) -> Result<Frame> {
    let name = reader.builder.fresh_udf_name(base);
    let env = reader.columns_env();
    let frames = reader.names_of(frame);
    write_row_fn(
        reader.builder,
        &name,
        frame,
        &env,
        &frames,
        true,
        loc,
        |ex, columns| {
            let v = predicate(ex, columns)?;
            if v.ty != SqlTy::Bool {
                return unsupported(
                    loc,
                    format!(
                        "the filter's condition is a {} Column, not a boolean",
                        v.ty.name()
                    ),
                );
            }
            ex.f.set_results(vec![Ty::Bool]);
            if let Some(p) = &v.present {
                let (known, _) = ex.f.block(&[]);
                let (unknown, _) = ex.f.block(&[]);
                ex.f.cond_br(p, (known, &[]), (unknown, &[]), loc);
                ex.f.switch_to(unknown);
                let no = ex.f.bool(false, loc);
                ex.f.ret(&[no], loc);
                ex.f.switch_to(known);
            }
            ex.f.ret(&[v.value], loc);
            Ok(())
        },
    )?;
    let value = reader.builder.emit(
        format!(
            "df.filter {} @{name} : {}",
            frame.value,
            dataset_type(&row_shape(&frame.columns))
        ),
        loc,
    );
    Ok(Frame {
        value,
        columns: frame.columns.clone(),
    })
}

/// The names a method's arguments give as strings or `[...]` of them.
fn name_args(args: &[Node]) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for a in args {
        if a.is("List") || a.is("Tuple") {
            names.extend(name_args(&a.list("elts"))?);
        } else {
            names.push(a.str_constant()?);
        }
    }
    Some(names)
}

/// The value of keyword argument `name` of `call`.
pub fn keyword(call: &Node, name: &str) -> Option<Node> {
    call.list("keywords")
        .into_iter()
        .find(|k| k.str("arg").as_deref() == Some(name))
        .and_then(|k| k.child("value"))
}

fn column<'c>(frame: &'c Frame, text: &str, loc: &Loc) -> Result<&'c Column> {
    let name = super::names::canonical(frame.columns.iter().map(|c| c.name.as_str()), text, loc)?;
    frame.columns.iter().find(|c| c.name == name).map_or_else(
        || {
            let names: Vec<&str> = frame.columns.iter().map(|c| c.name.as_str()).collect();
            unsupported(
                loc,
                format!(
                    "no column {name}; the DataFrame's columns are {}",
                    names.join(", ")
                ),
            )
        },
        Ok,
    )
}

/// A method of a DataFrame.
pub fn method(
    reader: &mut Reader,
    frame: Frame,
    method: &str,
    call: &Node,
    loc: &Loc,
) -> Result<Frame> {
    let args = call.list("args");
    let base = format!("{}_{}", snake(method), loc.line);
    match method {
        "select" | "selectExpr" => {
            let mut items: Vec<Node> = args
                .iter()
                .flat_map(|a| if a.is("List") { a.list("elts") } else { vec![a.clone()] })
                .collect();
            if method == "selectExpr" {
                items = items.iter().map(select_expression).collect::<Result<_>>()?;
            }
            if items.is_empty() {
                return unsupported(loc, "select() of no columns");
            }
            // `select("*")` keeps Spark's columns themselves, so a condition
            // on the DataFrame it came from (`df.select("*").where(df.State
            // == "CA")`) still finds them: the same frame, not a copy.
            if let [star] = &items[..] {
                if star.str_constant().as_deref() == Some("*") {
                    return Ok(frame);
                }
            }
            map_rows(reader, &frame, &base, loc, |ex, columns| {
                let mut out = Vec::new();
                for item in &items {
                    if item.str_constant().as_deref() == Some("*") {
                        out.extend(columns.iter().map(|(c, v)| (c.name.clone(), v.clone())));
                        continue;
                    }
                    let (mut name, code) = named(item, ex.cx);
                    let v = match item.str_constant() {
                        Some(text) => {
                            // The column's own name, not the code `"a"` (issue
                            // 52: a later groupBy("a") found no column a).
                            let names = columns.iter().map(|(c, _)| c.name.as_str());
                            name = super::names::canonical(names, &text, &item.loc)?;
                            match columns.iter().find(|(c, _)| c.name == name) {
                                Some((_, v)) => v.clone(),
                                None => return unsupported(&item.loc, format!("no column {name}")),
                            }
                        }
                        None => ex.lower(&code)?,
                    };
                    out.push((name, v));
                }
                Ok(out)
            })
        }
        // `withColumns({"a": ..., "b": ...})` computes every column from
        // the input row, as one `withColumn` does one.
        "withColumn" | "withColumns" => {
            let assignments: Vec<(Node, Node)> = match (method, &args[..]) {
                ("withColumn", [name, value]) => vec![(name.clone(), value.clone())],
                ("withColumns", [dict]) if dict.is("Dict") => {
                    dict.list("keys").into_iter().zip(dict.list("values")).collect()
                }
                ("withColumn", _) => return unsupported(loc, "withColumn() takes a name and a Column"),
                _ => return unsupported(loc, "withColumns() takes a dict of names to Columns"),
            };
            let mut named = Vec::new();
            for (name, value) in assignments {
                let Some(name_text) = name.str_constant() else {
                    return unsupported(&name.loc, format!("{method}()'s column names are string constants"));
                };
                named.push((name_text, value));
            }
            map_rows(reader, &frame, &base, loc, |ex, columns| {
                let mut out: Vec<(String, SqlVal)> =
                    columns.iter().map(|(c, v)| (c.name.clone(), v.clone())).collect();
                for (name, value) in &named {
                    let v = ex.lower(value)?;
                    // Spark replaces a column whose name matches
                    // case-insensitively, and gives it the new spelling.
                    match out.iter_mut().find(|(n, _)| super::names::same_name(n, name)) {
                        Some(slot) => *slot = (name.clone(), v),
                        None => out.push((name.clone(), v)),
                    }
                }
                Ok(out)
            })
        }
        "withColumnRenamed" => {
            let (Some(old), Some(new)) = (
                args.first().and_then(Node::str_constant),
                args.get(1).and_then(Node::str_constant),
            ) else {
                return unsupported(loc, "withColumnRenamed() takes two column names");
            };
            let old = super::names::literal_name(&old, method, loc)?;
            let mut frame = frame;
            for c in &mut frame.columns {
                if super::names::same_name(&c.name, &old) {
                    c.name = new.clone();
                }
            }
            Ok(frame)
        }
        "drop" => {
            let Some(names) = name_args(&args) else {
                return unsupported(loc, "drop() takes column names (string constants)");
            };
            let names: Vec<String> = names
                .iter()
                .map(|n| super::names::literal_name(n, method, loc))
                .collect::<Result<_>>()?;
            map_rows(reader, &frame, &base, loc, |_, columns| {
                Ok(columns
                    .iter()
                    .filter(|(c, _)| !names.iter().any(|n| super::names::same_name(n, &c.name)))
                    .map(|(c, v)| (c.name.clone(), v.clone()))
                    .collect())
            })
        }
        "filter" | "where" => {
            let [cond] = &args[..] else {
                return unsupported(loc, format!("{method}() takes one condition"));
            };
            // `filter("status IN ('A', 'B')")`: the Column code it stands for.
            let cond = match cond.str_constant() {
                Some(text) => super::sql_text::parse(&text, &cond.loc, false)?.0,
                None => cond.clone(),
            };
            let kept = filter_rows(reader, &frame, &base, loc, |ex, _| ex.lower(&cond))?;
            // Columns the condition requires to be non-NULL are no longer
            // NULL-able after it (as Spark's own plan infers), so later
            // steps do not branch on them again.
            let env = reader.columns_env();
            let frames = reader.names_of(&frame);
            let cx = Context { columns: &[], env: &env, frames: &frames };
            let mut required = Vec::new();
            not_null_columns(&cond, &cx, &mut required);
            narrow(reader, kept, &required, loc)
        }
        "union" | "unionAll" | "unionByName" => {
            let [other] = &args[..] else {
                return unsupported(loc, format!("{method}() takes one DataFrame"));
            };
            let other = reader.frame(other)?;
            union(reader, frame, other, method == "unionByName", loc)
        }
        "distinct" => distinct(reader, frame, loc),
        "dropDuplicates" | "drop_duplicates" => {
            let names = match &args[..] {
                [] => None,
                _ => name_args(&args),
            };
            let names = match names {
                // Compared as written, case-insensitively (Spark's resolver).
                Some(names) => Some(
                    names
                        .iter()
                        .map(|n| super::names::literal_name(n, method, loc))
                        .collect::<Result<Vec<_>>>()?,
                ),
                None => None,
            };
            match names {
                Some(names)
                    if !frame
                        .columns
                        .iter()
                        .all(|c| names.iter().any(|n| super::names::same_name(n, &c.name))) =>
                {
                    unsupported(
                    loc,
                    format!("{method}() of a subset of the columns keeps an arbitrary row of each group (Spark does not say which); not supported: keep a chosen row with groupBy and a join"),
                )
                }
                _ => distinct(reader, frame, loc),
            }
        }
        "na.drop" | "dropna" => {
            if keyword(call, "how").and_then(|h| h.str_constant()).is_some_and(|h| h != "any")
                || keyword(call, "thresh").is_some()
                || !args.is_empty()
            {
                return unsupported(loc, format!("{method}() with how, thresh or positional arguments is not supported yet (the default, any NULL in the subset, is)"));
            }
            let subset = match keyword(call, "subset") {
                Some(s) => name_args(&[s]).ok_or_else(|| crate::error::ImportError::Unsupported {
                    loc: loc.clone(),
                    message: "subset takes column names".into(),
                })?,
                None => frame.columns.iter().map(|c| c.name.clone()).collect(),
            };
            // Spelled as the frame spells them: Spark resolves them
            // case-insensitively.
            let subset: Vec<String> = subset
                .iter()
                .map(|name| column(&frame, name, loc).map(|c| c.name.clone()))
                .collect::<Result<_>>()?;
            let nullable: Vec<String> = subset
                .into_iter()
                .filter(|n| frame.columns.iter().any(|c| &c.name == n && c.nullable))
                .collect();
            if nullable.is_empty() {
                return Ok(frame);
            }
            let kept = filter_rows(reader, &frame, &base, loc, |ex, columns| {
                let mut all = ex.f.bool(true, loc);
                for (c, v) in columns {
                    if let (true, Some(p)) = (nullable.contains(&c.name), &v.present) {
                        all = ex.f.binary("andi", &all, p, Ty::Bool, loc);
                    }
                }
                Ok(SqlVal { present: None, value: all, ty: SqlTy::Bool })
            })?;
            narrow(reader, kept, &nullable, loc)
        }
        "na.fill" | "fillna" => {
            let Some(value) = args.first().or(keyword(call, "value").as_ref()).cloned() else {
                return unsupported(loc, format!("{method}() takes the value to fill"));
            };
            let subset = keyword(call, "subset").or_else(|| args.get(1).cloned());
            let subset = match subset {
                Some(s) => {
                    let names = name_args(&[s]).ok_or_else(|| crate::error::ImportError::Unsupported {
                        loc: loc.clone(),
                        message: "subset takes column names".into(),
                    })?;
                    // Spelled as the frame spells them (Spark resolves them
                    // case-insensitively); one that names no column stays.
                    let spelled = names
                        .iter()
                        .map(|n| super::names::canonical(frame.columns.iter().map(|c| c.name.as_str()), n, loc))
                        .collect::<Result<Vec<_>>>()?;
                    Some(spelled)
                }
                None => None,
            };
            let fill = match value.constant() {
                Some(c @ (Constant::Int(_) | Constant::Float(_) | Constant::Str(_) | Constant::Bool(_))) if value.is("Constant") => c,
                _ => return unsupported(&value.loc, format!("{method}() of a constant int, float, str or bool is supported (a dict is not yet)")),
            };
            map_rows(reader, &frame, &base, loc, |ex, columns| {
                let mut out = Vec::new();
                for (c, v) in columns {
                    let chosen = subset.as_ref().is_none_or(|s| s.contains(&c.name));
                    // Spark fills the columns of the value's kind: a number
                    // fills numeric columns (cast to each), a string
                    // string columns, a bool boolean columns.
                    let applies = match (&fill, c.ty) {
                        (Constant::Int(_) | Constant::Float(_), t) => t.is_numeric(),
                        (Constant::Str(_), t) => t == SqlTy::Str,
                        (Constant::Bool(_), t) => t == SqlTy::Bool,
                        _ => false,
                    };
                    match (&v.present, chosen && applies) {
                        (Some(p), true) => {
                            let lit = literal_value(ex, &fill, c.ty, loc)?;
                            let value = ex.f.select(p, &v.value, &lit, loc);
                            out.push((c.name.clone(), SqlVal { present: None, value, ty: c.ty }));
                        }
                        _ => out.push((c.name.clone(), v.clone())),
                    }
                }
                Ok(out)
            })
        }
        "join" => super::join::join(reader, frame, call, loc),
        "cache" | "persist" | "alias" | "repartition" | "coalesce" | "localCheckpoint" => Ok(frame),
        // The rows are the same in any order, and the test compares them
        // as a multiset: an order alone changes nothing it checks.
        "orderBy" | "sort" | "sortWithinPartitions" => Ok(frame),
        "limit" => unsupported(
            loc,
            "limit(): which rows a limit keeps is not supported yet (the output is compared as a multiset)",
        ),
        "rdd" | "toPandas" | "collect" | "show" | "write" | "toDF" | "crossJoin" | "agg" => unsupported(
            loc,
            format!("DataFrame.{method}() is not supported in a DataFrame job yet"),
        ),
        _ => unsupported(
            loc,
            format!("DataFrame.{method}() is not supported (see the supported API in docs/bigtest.md)"),
        ),
    }
}

/// The columns a filter condition requires to be non-NULL: those an `&`
/// conjunct tests with `isNotNull()`, or reads where a NULL makes the
/// conjunct NULL (a comparison, arithmetic, `isin`, the string tests), which
/// drops the row. Spark's optimizer infers the same (`isnotnull` filters).
fn not_null_columns(cond: &Node, cx: &Context, out: &mut Vec<String>) {
    if cond.is("BinOp") && cond.op_kind("op").as_deref() == Some("BitAnd") {
        not_null_columns(&cond.expect("left"), cx, out);
        not_null_columns(&cond.expect("right"), cx, out);
        return;
    }
    if let Some(name) = cond.name().and_then(|n| cx.env.get(&n)) {
        return not_null_columns(&name.clone(), cx, out);
    }
    if cond.is("Call") && cond.list("args").is_empty() {
        let func = cond.expect("func");
        if func.is("Attribute") && func.str("attr").as_deref() == Some("isNotNull") {
            if let Some(name) = names::column_reference(&func.expect("value"), cx) {
                out.push(name);
            }
            return;
        }
    }
    strict_columns(cond, cx, out);
}

/// The columns `e` reads where a NULL makes `e` NULL.
fn strict_columns(e: &Node, cx: &Context, out: &mut Vec<String>) {
    if let Some(name) = names::column_reference(e, cx) {
        out.push(name);
        return;
    }
    if let Some(code) = e.name().and_then(|n| cx.env.get(&n)) {
        return strict_columns(&code.clone(), cx, out);
    }
    match e.kind.as_str() {
        "Compare" => {
            let ops = e.compare_ops();
            if let [op] = &ops[..] {
                if matches!(op.as_str(), "Eq" | "NotEq" | "Lt" | "LtE" | "Gt" | "GtE") {
                    strict_columns(&e.expect("left"), cx, out);
                    for right in e.list("comparators") {
                        strict_columns(&right, cx, out);
                    }
                }
            }
        }
        "BinOp" => {
            if matches!(
                e.op_kind("op").as_deref(),
                Some("Add" | "Sub" | "Mult" | "Div" | "Mod")
            ) {
                strict_columns(&e.expect("left"), cx, out);
                strict_columns(&e.expect("right"), cx, out);
            }
        }
        "UnaryOp" if e.op_kind("op").as_deref() == Some("USub") => {
            strict_columns(&e.expect("operand"), cx, out);
        }
        "Call" => {
            let func = e.expect("func");
            let method = func.str("attr").unwrap_or_default();
            if func.is("Attribute")
                && matches!(
                    method.as_str(),
                    "isin" | "startswith" | "endswith" | "contains"
                )
            {
                strict_columns(&func.expect("value"), cx, out);
            }
        }
        _ => {}
    }
}

/// `frame` with columns `names` no longer NULL-able: a map that drops
/// their flags, where any has one.
fn narrow(reader: &mut Reader, frame: Frame, names: &[String], loc: &Loc) -> Result<Frame> {
    if !frame
        .columns
        .iter()
        .any(|c| c.nullable && names.contains(&c.name))
    {
        return Ok(frame);
    }
    map_rows(
        reader,
        &frame,
        &format!("not_null_{}", loc.line),
        loc,
        |_, columns| {
            Ok(columns
                .iter()
                .map(|(c, v)| {
                    let v = if names.contains(&c.name) {
                        SqlVal {
                            present: None,
                            ..v.clone()
                        }
                    } else {
                        v.clone()
                    };
                    (c.name.clone(), v)
                })
                .collect())
        },
    )
}

/// A fill value as a constant of column type `ty`.
/// One argument of `selectExpr`: the Column code of its SQL text, named
/// by its `AS` (a bare column keeps its own name).
fn select_expression(item: &Node) -> Result<Node> {
    let Some(text) = item.str_constant() else {
        return unsupported(&item.loc, "selectExpr() takes SQL expressions as strings");
    };
    if text.trim() == "*" {
        return Ok(item.clone());
    }
    let (code, alias) = super::sql_text::parse(&text, &item.loc, true)?;
    match alias {
        Some(name) => Ok(super::sql_text::aliased(code, &name, &item.loc)),
        None if super::names::callee(&code).as_deref() == Some("col") => Ok(code),
        None => unsupported(
            &item.loc,
            format!("selectExpr({text:?}): Spark names such a column after its SQL text; give it a name (`... AS name`)"),
        ),
    }
}

fn literal_value(
    ex: &mut Exprs,
    fill: &Constant,
    ty: SqlTy,
    loc: &Loc,
) -> Result<crate::ir::Value> {
    Ok(match (fill, ty) {
        (Constant::Int(d), SqlTy::Double) => ex.f.float(d.parse::<f64>().unwrap_or(0.0), loc),
        (Constant::Float(x), SqlTy::Double) => ex.f.float(*x, loc),
        // A FLOAT column's fill is the 32-bit float nearest the value.
        (Constant::Int(d), SqlTy::Float) => ex.f.float(d.parse::<f32>().unwrap_or(0.0).into(), loc),
        (Constant::Float(x), SqlTy::Float) => ex.f.float((*x as f32).into(), loc),
        (Constant::Int(d), SqlTy::Int | SqlTy::Long) => ex.f.int(d.parse().unwrap_or(0), loc),
        // Spark casts a float fill to an integer column (truncating).
        (Constant::Float(x), SqlTy::Int | SqlTy::Long) => ex.f.int(x.trunc() as i64, loc),
        (Constant::Str(s), SqlTy::Str) => ex.f.str(s, loc),
        (Constant::Bool(b), SqlTy::Bool) => ex.f.bool(*b, loc),
        _ => return unsupported(loc, "a fill value of another type than the column's"),
    })
}

/// The output name and code of a `select` item (`expr.alias("n")`).
fn named(item: &Node, cx: &Context) -> (String, Node) {
    if item.is("Call") {
        let func = item.expect("func");
        if func.is("Attribute") && matches!(func.str("attr").as_deref(), Some("alias" | "name")) {
            if let Some(name) = item.list("args").first().and_then(Node::str_constant) {
                return (name, func.expect("value"));
            }
        }
    }
    (names::default_name(item, cx), item.clone())
}

/// `df.distinct` of `frame`'s rows.
pub fn distinct(reader: &mut Reader, frame: Frame, loc: &Loc) -> Result<Frame> {
    let value = reader.builder.emit(
        format!(
            "df.distinct {} : {}",
            frame.value,
            dataset_type(&row_shape(&frame.columns))
        ),
        loc,
    );
    Ok(Frame {
        value,
        columns: frame.columns,
    })
}

/// Rows of `frame` as rows of `target` (same types; NULL-able where the
/// target is): a map where the records differ.
pub fn conform(
    reader: &mut Reader,
    frame: Frame,
    target: &[Column],
    order: &[usize],
    loc: &Loc,
) -> Result<Frame> {
    let same = frame.columns.len() == target.len()
        && order.iter().enumerate().all(|(i, &j)| i == j)
        && frame
            .columns
            .iter()
            .zip(target)
            .all(|(a, b)| a.nullable == b.nullable);
    if same {
        return Ok(Frame {
            value: frame.value,
            columns: target.to_vec(),
        });
    }
    let target = target.to_vec();
    let order = order.to_vec();
    map_rows(
        reader,
        &frame,
        &format!("conform_{}", loc.line),
        loc,
        |ex, columns| {
            let mut out = Vec::new();
            for (t, &j) in target.iter().zip(&order) {
                let mut v = columns[j].1.clone();
                if t.nullable && v.present.is_none() {
                    v.present = Some(ex.f.bool(true, loc));
                }
                out.push((t.name.clone(), v));
            }
            Ok(out)
        },
    )
}

fn union(
    reader: &mut Reader,
    left: Frame,
    right: Frame,
    by_name: bool,
    loc: &Loc,
) -> Result<Frame> {
    if left.columns.len() != right.columns.len() {
        return unsupported(
            loc,
            format!(
                "union of {} and {} columns: Spark fails the job",
                left.columns.len(),
                right.columns.len()
            ),
        );
    }
    let order: Vec<usize> = if by_name {
        left.columns
            .iter()
            .map(|c| {
                right
                    .columns
                    .iter()
                    .position(|d| d.name == c.name)
                    .ok_or_else(|| crate::error::ImportError::Unsupported {
                        loc: loc.clone(),
                        message: format!(
                            "unionByName: the other DataFrame has no column {}",
                            c.name
                        ),
                    })
            })
            .collect::<Result<_>>()?
    } else {
        (0..left.columns.len()).collect()
    };
    let mut target = Vec::new();
    for (c, &j) in left.columns.iter().zip(&order) {
        let d = &right.columns[j];
        if c.ty != d.ty {
            return unsupported(
                loc,
                format!("union of column {} ({}) with {} ({}): Spark would widen the type; cast one side", c.name, c.ty.name(), d.name, d.ty.name()),
            );
        }
        target.push(Column {
            nullable: c.nullable || d.nullable,
            ..c.clone()
        });
    }
    let identity: Vec<usize> = (0..left.columns.len()).collect();
    let left = conform(reader, left, &target, &identity, loc)?;
    let right = conform(reader, right, &target, &order, loc)?;
    let value = reader.builder.emit(
        format!(
            "df.union {}, {} : {}",
            left.value,
            right.value,
            dataset_type(&row_shape(&target))
        ),
        loc,
    );
    Ok(Frame {
        value,
        columns: target,
    })
}

fn snake(method: &str) -> String {
    let mut out = String::new();
    for c in method.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.push('_');
        }
    }
    out
}

/// Rows split by whether a key column is NULL: the rows whose key
/// columns are all present as keyed rows (the key columns first, in
/// `keys`' order and never NULL, then the other columns: what df's keyed
/// operators take), and the rows with a NULL key column (`None` where no
/// key column is ever NULL). Each filter is a decision, so a NULL key is a
/// JDU path of its own.
pub fn split_null_keys(
    reader: &mut Reader,
    frame: &Frame,
    keys: &[String],
    loc: &Loc,
) -> Result<(Frame, Option<Frame>)> {
    let key_columns: Vec<Column> = keys
        .iter()
        .map(|k| column(frame, k, loc).cloned())
        .collect::<Result<_>>()?;
    let base = keys.join("_");
    let (present, absent) = if key_columns.iter().any(|k| k.nullable) {
        // Whether every key column is present.
        let all_present = |ex: &mut Exprs, columns: &[(Column, SqlVal)]| {
            let flags: Vec<Option<crate::ir::Value>> = key_columns
                .iter()
                .map(|k| {
                    let (_, v) = columns
                        .iter()
                        .find(|(c, _)| c.name == k.name)
                        .expect("a key column");
                    v.present.clone()
                })
                .collect();
            flags
                .into_iter()
                .fold(None, |acc: Option<crate::ir::Value>, p| {
                    ex.both(&acc, &p, loc)
                })
                .expect("a NULL-able key")
        };
        let present = filter_rows(
            reader,
            frame,
            &format!("{base}_present"),
            loc,
            |ex, columns| {
                Ok(SqlVal {
                    present: None,
                    value: all_present(ex, columns),
                    ty: SqlTy::Bool,
                })
            },
        )?;
        let absent = filter_rows(
            reader,
            frame,
            &format!("{base}_null"),
            loc,
            |ex, columns| {
                let all = all_present(ex, columns);
                let value = ex.not(&all, loc);
                Ok(SqlVal {
                    present: None,
                    value,
                    ty: SqlTy::Bool,
                })
            },
        )?;
        (present, Some(absent))
    } else {
        (frame.clone(), None)
    };
    let keyed = map_rows(
        reader,
        &present,
        &format!("key_{base}"),
        loc,
        |_, columns| {
            // Present here: the filter kept only those.
            let mut out: Vec<(String, SqlVal)> = key_columns
                .iter()
                .map(|k| {
                    let (c, v) = columns
                        .iter()
                        .find(|(c, _)| c.name == k.name)
                        .expect("a key column");
                    (
                        c.name.clone(),
                        SqlVal {
                            present: None,
                            ..v.clone()
                        },
                    )
                })
                .collect();
            for (c, v) in columns {
                if !keys.contains(&c.name) {
                    out.push((c.name.clone(), v.clone()));
                }
            }
            Ok(out)
        },
    )?;
    Ok((keyed, absent))
}

/// A df function over records of `fields` (not rows: the steps of an
/// aggregate and a join read df's own record layouts).
pub fn record_fn(
    reader: &mut Reader,
    base: &str,
    fields: &[Ty],
    loc: &Loc,
    body: impl FnOnce(&mut Exprs, &[crate::ir::Value]) -> Result<Vec<crate::ir::Value>>,
) -> Result<String> {
    let name = reader.builder.fresh_udf_name(base);
    let mut f = Function::new(&name, fields, loc);
    let params = f.params().to_vec();
    let env = Default::default();
    let cx = Context {
        columns: &[],
        env: &env,
        frames: &[],
    };
    let mut ex = Exprs {
        builder: reader.builder,
        f: &mut f,
        cx: &cx,
        predicate: false,
    };
    let results = body(&mut ex, &params)?;
    ex.f.set_results(results.iter().map(|v| v.ty.clone()).collect());
    ex.f.ret(&results, loc);
    reader.builder.udfs.push(f.finish());
    Ok(name)
}

pub fn union_op(reader: &mut Reader, a: &Frame, b: &Frame, loc: &Loc) -> Frame {
    let value = reader.builder.emit(
        format!(
            "df.union {}, {} : {}",
            a.value,
            b.value,
            dataset_type(&row_shape(&a.columns))
        ),
        loc,
    );
    Frame {
        value,
        columns: a.columns.clone(),
    }
}

pub fn column_named<'c>(frame: &'c Frame, name: &str, loc: &Loc) -> Result<&'c Column> {
    column(frame, name, loc)
}
