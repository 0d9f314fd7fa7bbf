//! `df.groupBy(key).agg(...)` as df ops: each row becomes its key and the
//! state of every aggregate (a map), states of one key are combined
//! (`reduce_by_key`), and the states become the aggregates' values (a
//! map). Rows whose key is NULL make one group of their own, as in Spark.
//! Aggregates skip NULL inputs: whether an input is NULL is a decision.
//!
//! One key column: rows of a NULL key are split off and aggregated apart
//! (the key is one df field). Several: the df key is every key column, a
//! NULL-able one as its flag and its value (`reduce_by_key keys N`), so
//! NULLs group together; whether each is NULL is a decision.

use crate::{
    error::{unsupported, Loc, Result},
    frame::{
        expr::{Exprs, SqlVal},
        join::{df_join, keys_clause},
        names::callee,
        ops::{column_named, distinct, map_rows, record_fn, split_null_keys, union_op},
        schema::{row_shape, Column, SqlTy},
        Frame, Reader,
    },
    ir::{Ty, Value},
    job::dataset_type,
    syntax::{Constant, Node},
};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// `count("*")`, `count(lit(1))`, `GroupedData.count()`.
    Rows,
    Count,
    Sum,
    Min,
    Max,
    Avg,
    /// `count_distinct(c)`: the distinct non-NULL values of a group,
    /// counted apart from the fold (a distinct of key and value, then a
    /// count per key joined back).
    Distinct,
}

/// One aggregate: what it computes, over what, and its output name.
struct Agg {
    kind: Kind,
    input: Option<Node>,
    name: String,
    /// A row count kept so the fold has a state when every aggregate asked
    /// for is a `count_distinct`; not in the output.
    hidden: bool,
}

fn parse_agg(item: &Node) -> Result<Agg> {
    let (item, alias) = match item.is("Call").then(|| item.expect("func")) {
        Some(func) if func.is("Attribute") && func.str("attr").as_deref() == Some("alias") => (
            func.expect("value"),
            item.list("args").first().and_then(Node::str_constant),
        ),
        _ => (item.clone(), None),
    };
    let name = callee(&item).unwrap_or_default();
    let args = item.list("args");
    let kind = match name.as_str() {
        "count" => Kind::Count,
        "sum" => Kind::Sum,
        "min" => Kind::Min,
        "max" => Kind::Max,
        "avg" | "mean" => Kind::Avg,
        "count_distinct" | "countDistinct" => Kind::Distinct,
        _ => {
            return unsupported(
                &item.loc,
                format!(
                    "{} is not an aggregate coco-bigtest reads (supported: count, count_distinct of one column, sum, min, max, avg/mean)",
                    crate::frame::names::render(&item)
                ),
            )
        }
    };
    let [arg] = &args[..] else {
        return unsupported(&item.loc, format!("{name}() takes one column"));
    };
    let star = arg.str_constant().as_deref() == Some("*")
        || (callee(arg).as_deref() == Some("lit")
            && arg
                .list("args")
                .first()
                .is_some_and(|a| a.is("Constant") && a.constant() != Some(Constant::None)));
    let (kind, input) = match (kind, star) {
        (Kind::Count, true) => (Kind::Rows, None),
        (_, true) => return unsupported(&arg.loc, format!("{name}() of * or a literal")),
        (kind, false) => (kind, Some(arg.clone())),
    };
    let shown = match &input {
        None => "1".to_string(),
        Some(a) => a
            .str_constant()
            .unwrap_or_else(|| crate::frame::names::render(a)),
    };
    if kind == Kind::Distinct {
        return Ok(Agg {
            kind,
            input,
            name: alias.unwrap_or_else(|| format!("count(DISTINCT {shown})")),
            hidden: false,
        });
    }
    let spark_name = if kind == Kind::Avg {
        "avg"
    } else {
        name.as_str()
    };
    Ok(Agg {
        kind,
        input,
        name: alias.unwrap_or_else(|| format!("{spark_name}({shown})")),
        hidden: false,
    })
}

/// The aggregates a GroupedData method other than `agg` asks for.
fn aggregates(method: &str, call: &Node, loc: &Loc) -> Result<Vec<Agg>> {
    let args = call.list("args");
    match method {
        "count" if args.is_empty() => Ok(vec![Agg {
            kind: Kind::Rows,
            input: None,
            name: "count".into(),
            hidden: false,
        }]),
        "sum" | "min" | "max" | "avg" | "mean" => {
            let kind = match method {
                "sum" => Kind::Sum,
                "min" => Kind::Min,
                "max" => Kind::Max,
                _ => Kind::Avg,
            };
            args.iter()
                .map(|a| match a.str_constant() {
                    Some(c) => Ok(Agg {
                        kind,
                        input: Some(a.clone()),
                        name: format!("{}({c})", if kind == Kind::Avg { "avg" } else { method }),
                        hidden: false,
                    }),
                    None => unsupported(&a.loc, format!("GroupedData.{method}() takes column names")),
                })
                .collect()
        }
        _ => unsupported(
            loc,
            format!("GroupedData.{method}() is not supported (agg, count, sum, min, max, avg and mean are)"),
        ),
    }
}

/// The state fields of an aggregate over values of `ty`.
fn state(kind: Kind, ty: SqlTy) -> Vec<SqlTy> {
    match kind {
        Kind::Rows | Kind::Count => vec![SqlTy::Long],
        // Spark sums a FLOAT as a DOUBLE.
        Kind::Sum if ty.is_floating() => vec![SqlTy::Bool, SqlTy::Double],
        Kind::Sum => vec![SqlTy::Bool, SqlTy::Long],
        Kind::Min | Kind::Max => vec![SqlTy::Bool, ty],
        Kind::Avg => vec![SqlTy::Long, SqlTy::Double],
        Kind::Distinct => Vec::new(),
    }
}

/// A row's group key on one side of a NULL-able key: the key (the first
/// column of keyed rows), or the one constant of the NULL-key side.
/// Which rows a side of an aggregate holds, and so how its key is made.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    /// One key column: the rows whose key is present (the key first, one
    /// field) or the rows whose key is NULL (the key is the default).
    OneKey { present: bool },
    /// Several key columns: every row.
    Keys,
}

/// The df key fields of a row, named; `decide`: whether a NULL-able key
/// column's NULL is a decision here.
fn key_fields(
    ex: &mut Exprs,
    columns: &[(Column, SqlVal)],
    keys: &[Column],
    side: Side,
    decide: bool,
    loc: &Loc,
) -> Vec<(String, SqlVal)> {
    match side {
        Side::OneKey { present: true } => vec![(keys[0].name.clone(), columns[0].1.clone())],
        Side::OneKey { present: false } => {
            let ty = keys[0].ty;
            let v = ex.default(ty, loc);
            vec![(keys[0].name.clone(), plain(v, ty))]
        }
        Side::Keys => {
            let mut out = Vec::new();
            for key in keys {
                let (_, v) = columns
                    .iter()
                    .find(|(c, _)| c.name == key.name)
                    .expect("a key column");
                match &v.present {
                    Some(p) => {
                        if decide {
                            ex.decide(p, loc);
                        }
                        let value = ex.normalized(v, loc);
                        out.push((
                            format!("_{}_present", key.name),
                            plain(p.clone(), SqlTy::Bool),
                        ));
                        out.push((key.name.clone(), plain(value, v.ty)));
                    }
                    None => out.push((key.name.clone(), v.clone())),
                }
            }
            out
        }
    }
}

/// The key columns of an aggregate's output from its record's key fields.
fn key_columns(
    ex: &mut Exprs,
    fields: &[(Column, SqlVal)],
    keys: &[Column],
    side: Side,
    loc: &Loc,
) -> Vec<(String, SqlVal)> {
    match side {
        Side::OneKey { present } => {
            let mut v = fields[0].1.clone();
            if keys[0].nullable {
                v.present = Some(ex.f.bool(present, loc));
            }
            vec![(keys[0].name.clone(), v)]
        }
        Side::Keys => {
            let mut out = Vec::new();
            let mut at = 0;
            for key in keys {
                // A NULL-able key column is its flag and its value
                // (key_fields).
                if key.nullable {
                    out.push((
                        key.name.clone(),
                        SqlVal {
                            present: Some(fields[at].1.value.clone()),
                            ..fields[at + 1].1.clone()
                        },
                    ));
                    at += 2;
                } else {
                    out.push((key.name.clone(), fields[at].1.clone()));
                    at += 1;
                }
            }
            out
        }
    }
}

/// What an aggregate reads from a row: a column by name, or an expression.
fn aggregated(ex: &mut Exprs, columns: &[(Column, SqlVal)], input: &Node) -> Result<SqlVal> {
    match input.str_constant() {
        Some(text) => {
            let names = columns.iter().map(|(c, _)| c.name.as_str());
            let name = super::names::canonical(names, &text, &input.loc)?;
            match columns.iter().find(|(c, _)| c.name == name) {
                Some((_, v)) => Ok(v.clone()),
                None => unsupported(&input.loc, format!("no column {name} to aggregate")),
            }
        }
        None => ex.lower(input),
    }
}

fn plain(value: Value, ty: SqlTy) -> SqlVal {
    SqlVal {
        present: None,
        value,
        ty,
    }
}

/// What an output column of `agg(...)` is.
enum Item {
    /// An aggregate, by its output name.
    Aggregate(String),
    /// An expression over aggregates (`F.round(F.sum("x"), 2).alias("r")`):
    /// its name, and its code with each aggregate a column of its own.
    Over(String, Node),
}

/// The aggregates `agg(...)` asks for and its output columns: an argument
/// that is no aggregate itself but holds some is computed over them.
fn agg_items(call: &Node, loc: &Loc) -> Result<(Vec<Agg>, Vec<Item>)> {
    let mut aggs = Vec::new();
    let mut items = Vec::new();
    for arg in call.list("args") {
        if arg.is("Dict") {
            return unsupported(
                loc,
                "agg() of a dict is not supported; write F.sum(\"x\") and the like",
            );
        }
        let (code, alias) = match arg.is("Call").then(|| arg.expect("func")) {
            Some(func) if func.is("Attribute") && func.str("attr").as_deref() == Some("alias") => (
                func.expect("value"),
                arg.list("args").first().and_then(Node::str_constant),
            ),
            _ => (arg.clone(), None),
        };
        if is_aggregate(&code) {
            let agg = parse_agg(&arg)?;
            items.push(Item::Aggregate(agg.name.clone()));
            aggs.push(agg);
            continue;
        }
        let found = std::cell::RefCell::new(Vec::new());
        let first = aggs.len();
        let over = code.replace_with(&|n: &Node| {
            if !is_aggregate(n) {
                return None;
            }
            let mut found = found.borrow_mut();
            let name = format!("__over_{}", first + found.len());
            found.push(n.clone());
            Some(Node::make_call(
                "col",
                vec![Node::make_str(&name, &n.loc)],
                &n.loc,
            ))
        });
        let found = found.into_inner();
        if found.is_empty() {
            // Not an aggregate at all: parse_agg names what it is.
            parse_agg(&arg)?;
        }
        let Some(name) = alias else {
            return unsupported(
                &arg.loc,
                "an expression over aggregates without alias(): Spark names it after its text; give it a name",
            );
        };
        for (k, inner) in found.iter().enumerate() {
            let mut agg = parse_agg(inner)?;
            agg.name = format!("__over_{}", first + k);
            aggs.push(agg);
        }
        items.push(Item::Over(name, over));
    }
    if aggs.is_empty() {
        return unsupported(loc, "agg() of no aggregate");
    }
    Ok((aggs, items))
}

/// Whether `node` calls an aggregate function.
fn is_aggregate(node: &Node) -> bool {
    crate::frame::names::functions_call(node)
        && callee(node).is_some_and(|name| {
            matches!(
                name.as_str(),
                "count"
                    | "sum"
                    | "min"
                    | "max"
                    | "avg"
                    | "mean"
                    | "count_distinct"
                    | "countDistinct"
            )
        })
}

/// `GroupedData.method(...)` of `frame` grouped by `keys`.
pub fn aggregate(
    reader: &mut Reader,
    frame: Frame,
    keys: &[String],
    method: &str,
    call: &Node,
) -> Result<Frame> {
    let loc = call.expect("func").attr_loc();
    if method != "agg" {
        let aggs = aggregates(method, call, &loc)?;
        return aggregate_all(reader, frame, keys, aggs, &loc);
    }
    let (aggs, items) = agg_items(call, &loc)?;
    if items.iter().all(|i| matches!(i, Item::Aggregate(_))) {
        return aggregate_all(reader, frame, keys, aggs, &loc);
    }
    let computed = aggregate_all(reader, frame, keys, aggs, &loc)?;
    // The keys, then each item: an aggregate as it is, an expression over
    // aggregates computed from them.
    let key_count = computed.columns.len()
        - computed
            .columns
            .iter()
            .filter(|c| c.name.starts_with("__over_"))
            .count()
        - items
            .iter()
            .filter(|i| matches!(i, Item::Aggregate(_)))
            .count();
    map_rows(
        reader,
        &computed,
        &format!("agg_over_{}", loc.line),
        &loc,
        |ex, columns| {
            let mut out: Vec<(String, SqlVal)> = columns[..key_count]
                .iter()
                .map(|(c, v)| (c.name.clone(), v.clone()))
                .collect();
            for item in &items {
                match item {
                    Item::Aggregate(name) => {
                        let (c, v) = columns
                            .iter()
                            .find(|(c, _)| c.name == *name)
                            .expect("an aggregate's column");
                        out.push((c.name.clone(), v.clone()));
                    }
                    Item::Over(name, code) => out.push((name.clone(), ex.lower(code)?)),
                }
            }
            Ok(out)
        },
    )
}

/// The aggregates `aggs` of `frame` grouped by `keys`: the keys, then each
/// aggregate's column.
fn aggregate_all(
    reader: &mut Reader,
    frame: Frame,
    keys: &[String],
    mut aggs: Vec<Agg>,
    loc: &Loc,
) -> Result<Frame> {
    let loc = loc.clone();
    if aggs.iter().all(|a| a.kind == Kind::Distinct) {
        aggs.push(Agg {
            kind: Kind::Rows,
            input: None,
            name: String::new(),
            hidden: true,
        });
    }
    let key_columns_in: Vec<Column> = keys
        .iter()
        .map(|k| column_named(&frame, k, &loc).cloned())
        .collect::<Result<_>>()?;
    let sides = match keys {
        [key] => {
            let (keyed, nulls) = split_null_keys(reader, &frame, std::slice::from_ref(key), &loc)?;
            let mut sides = vec![(keyed, Side::OneKey { present: true })];
            if let Some(nulls) = nulls {
                sides.push((nulls, Side::OneKey { present: false }));
            }
            sides
        }
        _ => vec![(frame.clone(), Side::Keys)],
    };
    let mut results = Vec::new();
    let mut input_types: Vec<SqlTy> = Vec::new();
    let mut combined: Option<String> = None;
    for (side, key_side) in sides {
        // 1. Each row: its key and every aggregate's state.
        let mut types = Vec::new();
        let mut key_width = 0;
        let states = map_rows(
            reader,
            &side,
            &format!("agg_state_{}", loc.line),
            &loc,
            |ex, columns| {
                let mut out = key_fields(ex, columns, &key_columns_in, key_side, true, &loc);
                key_width = out.len();
                // One decision per NULL-able input, however many aggregates
                // read it.
                let mut decided = std::collections::BTreeSet::new();
                for (i, agg) in aggs.iter().enumerate() {
                    let v = match &agg.input {
                        None => plain(ex.f.int(1, &loc), SqlTy::Long),
                        Some(node) => aggregated(ex, columns, node)?,
                    };
                    if matches!(agg.kind, Kind::Sum | Kind::Min | Kind::Max | Kind::Avg)
                        && !v.ty.is_numeric()
                    {
                        return unsupported(
                            &loc,
                            format!(
                                "{} of a {} column is not supported (numbers are)",
                                agg.name,
                                v.ty.name()
                            ),
                        );
                    }
                    types.push(v.ty);
                    if agg.kind == Kind::Distinct {
                        // Counted apart (step 2b).
                        continue;
                    }
                    let present = match &v.present {
                        Some(p) => {
                            // A NULL input, skipped: a path of its own.
                            if decided.insert(p.name.clone()) {
                                ex.decide(p, &loc);
                            }
                            p.clone()
                        }
                        None => ex.f.bool(true, &loc),
                    };
                    let value = ex.normalized(&v, &loc);
                    let count = |ex: &mut Exprs| {
                        ex.f.op(
                            format!("arith.extui {} : i1 to i64", present.name),
                            Ty::Int,
                            &loc,
                        )
                    };
                    let fields: Vec<SqlVal> = match agg.kind {
                        Kind::Distinct => Vec::new(),
                        Kind::Rows => vec![plain(ex.f.int(1, &loc), SqlTy::Long)],
                        Kind::Count => vec![plain(count(ex), SqlTy::Long)],
                        Kind::Sum | Kind::Min | Kind::Max => {
                            let total = match (agg.kind, v.ty) {
                                (Kind::Sum, SqlTy::Int) => plain(value, SqlTy::Long),
                                _ => plain(value, state(agg.kind, v.ty)[1]),
                            };
                            vec![plain(present, SqlTy::Bool), total]
                        }
                        Kind::Avg => {
                            let x = if v.ty.is_floating() {
                                value
                            } else {
                                ex.f.op(
                                    format!("arith.sitofp {} : i64 to f64", value.name),
                                    Ty::Float,
                                    &loc,
                                )
                            };
                            vec![plain(count(ex), SqlTy::Long), plain(x, SqlTy::Double)]
                        }
                    };
                    for (j, field) in fields.into_iter().enumerate() {
                        out.push((format!("_state{i}_{j}"), field));
                    }
                }
                Ok(out)
            },
        )?;
        if input_types.is_empty() {
            input_types = types;
        }
        // 2. The states of one key, combined.
        let state_types: Vec<Ty> = row_shape(&states.columns[key_width..]).fields();
        let mut both = state_types.clone();
        both.extend(state_types.clone());
        // Both sides' states have one layout: one combining function.
        let combine = match &combined {
            Some(name) => name.clone(),
            None => record_fn(
                reader,
                &format!("agg_combine_{}", loc.line),
                &both,
                &loc,
                |ex, params| {
                    let (a, b) = params.split_at(state_types.len());
                    let mut out = Vec::new();
                    let mut at = 0;
                    for (agg, ty) in aggs.iter().zip(&input_types) {
                        let n = state(agg.kind, *ty).len();
                        let (x, y) = (&a[at..at + n], &b[at..at + n]);
                        at += n;
                        combine(ex, agg.kind, *ty, x, y, &mut out, &loc);
                    }
                    Ok(out)
                },
            )?,
        };
        combined = Some(combine.clone());
        let reduced = reader.builder.emit(
            format!(
                "df.reduce_by_key {} @{combine}{} : {}",
                states.value,
                keys_clause(key_width),
                dataset_type(&row_shape(&states.columns))
            ),
            &loc,
        );
        let mut reduced = Frame {
            value: reduced,
            columns: states.columns.clone(),
        };
        // 2b. Each count_distinct: the side's distinct (key, value) pairs,
        // counted per key where the value is not NULL, joined on the key.
        for agg in aggs.iter().filter(|a| a.kind == Kind::Distinct) {
            let input = agg.input.clone().expect("count_distinct's column");
            let pairs = map_rows(
                reader,
                &side,
                &format!("distinct_{}", loc.line),
                &loc,
                |ex, columns| {
                    let mut out = key_fields(ex, columns, &key_columns_in, key_side, false, &loc);
                    out.push(("_value".to_string(), aggregated(ex, columns, &input)?));
                    Ok(out)
                },
            )?;
            let pairs = distinct(reader, pairs, &loc)?;
            let ones = map_rows(
                reader,
                &pairs,
                &format!("distinct_count_{}", loc.line),
                &loc,
                |ex, columns| {
                    let n = match &columns[key_width].1.present {
                        Some(p) => {
                            ex.f.op(format!("arith.extui {} : i1 to i64", p.name), Ty::Int, &loc)
                        }
                        None => ex.f.int(1, &loc),
                    };
                    let mut out: Vec<(String, SqlVal)> = columns[..key_width]
                        .iter()
                        .map(|(c, v)| (c.name.clone(), v.clone()))
                        .collect();
                    out.push((agg.name.clone(), plain(n, SqlTy::Long)));
                    Ok(out)
                },
            )?;
            let add = record_fn(
                reader,
                &format!("distinct_sum_{}", loc.line),
                &[Ty::Int, Ty::Int],
                &loc,
                |ex, p| Ok(vec![ex.f.binary("addi", &p[0], &p[1], Ty::Int, &loc)]),
            )?;
            let counted = reader.builder.emit(
                format!(
                    "df.reduce_by_key {} @{add}{} : {}",
                    ones.value,
                    keys_clause(key_width),
                    dataset_type(&row_shape(&ones.columns))
                ),
                &loc,
            );
            let counted = Frame {
                value: counted,
                columns: ones.columns,
            };
            reduced = df_join(reader, "inner", &reduced, &counted, key_width, &loc);
        }
        // 3. The aggregates' values.
        let output = map_rows(
            reader,
            &reduced,
            &format!("agg_result_{}", loc.line),
            &loc,
            |ex, columns| {
                let mut out =
                    key_columns(ex, &columns[..key_width], &key_columns_in, key_side, &loc);
                let mut at = key_width;
                let states: usize = aggs
                    .iter()
                    .zip(&input_types)
                    .map(|(a, t)| state(a.kind, *t).len())
                    .sum();
                let mut distinct_at = key_width + states;
                for (agg, ty) in aggs.iter().zip(&input_types) {
                    if agg.kind == Kind::Distinct {
                        out.push((agg.name.clone(), columns[distinct_at].1.clone()));
                        distinct_at += 1;
                        continue;
                    }
                    let n = state(agg.kind, *ty).len();
                    let s: Vec<&SqlVal> = columns[at..at + n].iter().map(|(_, v)| v).collect();
                    at += n;
                    let v = match agg.kind {
                        Kind::Distinct => unreachable!("counted apart"),
                        Kind::Rows | Kind::Count => s[0].clone(),
                        Kind::Sum | Kind::Min | Kind::Max => SqlVal {
                            present: Some(s[0].value.clone()),
                            value: s[1].value.clone(),
                            ty: s[1].ty,
                        },
                        Kind::Avg => {
                            let zero = ex.f.int(0, &loc);
                            let one = ex.f.int(1, &loc);
                            let empty = ex.f.op(
                                format!("arith.cmpi eq, {}, {} : i64", s[0].value.name, zero.name),
                                Ty::Bool,
                                &loc,
                            );
                            let n = ex.f.select(&empty, &one, &s[0].value, &loc);
                            let n = ex.f.op(
                                format!("arith.sitofp {} : i64 to f64", n.name),
                                Ty::Float,
                                &loc,
                            );
                            let value = ex.f.binary("divf", &s[1].value, &n, Ty::Float, &loc);
                            let t = ex.f.bool(true, &loc);
                            let present = ex.f.binary("xori", &empty, &t, Ty::Bool, &loc);
                            SqlVal {
                                present: Some(present),
                                value,
                                ty: SqlTy::Double,
                            }
                        }
                    };
                    if !agg.hidden {
                        out.push((agg.name.clone(), v));
                    }
                }
                Ok(out)
            },
        )?;
        results.push(output);
    }
    let mut results = results.into_iter();
    let first = results.next().expect("the keyed side");
    Ok(match results.next() {
        Some(nulls) => union_op(reader, &first, &nulls, &loc),
        None => first,
    })
}

/// The combined state of one aggregate from states `x` and `y`.
fn combine(
    ex: &mut Exprs,
    kind: Kind,
    ty: SqlTy,
    x: &[Value],
    y: &[Value],
    out: &mut Vec<Value>,
    loc: &Loc,
) {
    let add = |ex: &mut Exprs, a: &Value, b: &Value| {
        if a.ty == Ty::Float {
            ex.f.binary("addf", a, b, Ty::Float, loc)
        } else {
            ex.f.binary("addi", a, b, Ty::Int, loc)
        }
    };
    match kind {
        // No state in the fold: counted apart.
        Kind::Distinct => {}
        Kind::Rows | Kind::Count => out.push(add(ex, &x[0], &y[0])),
        Kind::Avg => {
            out.push(add(ex, &x[0], &y[0]));
            out.push(add(ex, &x[1], &y[1]));
        }
        Kind::Sum => {
            out.push(ex.f.binary("ori", &x[0], &y[0], Ty::Bool, loc));
            out.push(add(ex, &x[1], &y[1]));
        }
        Kind::Min | Kind::Max => {
            let op = match (kind, ty) {
                (Kind::Min, SqlTy::Double | SqlTy::Float) => "minnumf",
                (Kind::Max, SqlTy::Double | SqlTy::Float) => "maxnumf",
                (Kind::Min, _) => "minsi",
                _ => "maxsi",
            };
            let both = ex.f.binary("andi", &x[0], &y[0], Ty::Bool, loc);
            let best = ex.f.binary(op, &x[1], &y[1], x[1].ty.clone(), loc);
            let one = ex.f.select(&x[0], &x[1], &y[1], loc);
            let value = ex.f.select(&both, &best, &one, loc);
            out.push(ex.f.binary("ori", &x[0], &y[0], Ty::Bool, loc));
            out.push(value);
        }
    }
}
