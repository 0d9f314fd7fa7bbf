//! `left.join(right, on="key", how=...)` (or `on=["a", "b"]`) as df ops.
//! A NULL key matches nothing, as in SQL: rows with a NULL key column are
//! split off before df's join (a decision of their own) and, where the
//! join kind keeps unmatched rows, put back with the other side's columns
//! NULL. Several key columns are df's `keys N`.

use crate::{
    error::{unsupported, Loc, Result},
    frame::{
        expr::SqlVal,
        names,
        ops::{
            column_named, conform, distinct, keyword, map_rows, record_fn, split_null_keys,
            union_op,
        },
        schema::{row_shape, Column, SqlTy},
        Frame, Reader,
    },
    ir::{Ty, TyText, Value},
    job::dataset_type,
    shape::Shape,
    syntax::Node,
};

#[derive(Clone, Copy, PartialEq)]
enum How {
    Inner,
    Left,
    Right,
    Full,
    Semi,
    Anti,
}

/// `left.join(other, on, how)`.
pub fn join(reader: &mut Reader, left: Frame, call: &Node, loc: &Loc) -> Result<Frame> {
    let args = call.list("args");
    let Some(other) = args.first() else {
        return unsupported(loc, "join() takes the other DataFrame");
    };
    let right = reader.frame(other)?;
    let on = args.get(1).cloned().or_else(|| keyword(call, "on"));
    if let Some(condition) = on.as_ref().filter(|n| n.is("Compare") || n.is("BinOp")) {
        return condition_join(reader, left, right, condition, call, loc);
    }
    let keys = join_keys(on.as_ref(), loc)?;
    // Spark finds each key case-insensitively on each side and names the
    // result's column as the left side spells it; a key spelled as both
    // sides spell it is what the lowering below compares.
    for key in &keys {
        super::names::literal_name(key, "join on", loc)?;
        for (side, frame) in [("left", &left), ("right", &right)] {
            let names = frame.columns.iter().map(|c| c.name.as_str());
            if let Some(i) = super::names::resolve(names, key, loc)? {
                if frame.columns[i].name != *key {
                    return unsupported(
                        loc,
                        format!("join on {key:?}: the {side} side spells the column {:?}; Spark matches them case-insensitively, coco only as spelled: write the key as both sides spell it", frame.columns[i].name),
                    );
                }
            }
        }
    }
    // df's join takes records with a value beside the key: a side of only
    // the key columns gets a constant column, dropped from the result.
    let left = pad(reader, left, keys.len(), "_pad_left", loc)?;
    let right = pad(reader, right, keys.len(), "_pad_right", loc)?;
    let joined = join_frames(reader, left, right, &keys, call, loc)?;
    if !joined.columns.iter().any(|c| c.name.starts_with("_pad_")) {
        return Ok(joined);
    }
    map_rows(
        reader,
        &joined,
        &format!("unpad_{}", loc.line),
        loc,
        |_, columns| {
            Ok(columns
                .iter()
                .filter(|(c, _)| !c.name.starts_with("_pad_"))
                .map(|(c, v)| (c.name.clone(), v.clone()))
                .collect())
        },
    )
}

/// Which side of a join a column of its condition is on.
#[derive(Clone, Copy, PartialEq)]
enum JoinSide {
    Left,
    Right,
}

/// `left.join(right, left.a == right.b, how)` (or a `&` of such
/// equalities): each side gets a copy of its key columns (`_on0`, ...),
/// the join is on those, and they are dropped, so the rows are the left
/// side's columns, then the right side's, as Spark gives them.
fn condition_join(
    reader: &mut Reader,
    left: Frame,
    right: Frame,
    condition: &Node,
    call: &Node,
    loc: &Loc,
) -> Result<Frame> {
    let left_names = reader.names_of(&left);
    let right_names = reader.names_of(&right);
    let mut conjuncts = Vec::new();
    let mut todo = vec![condition.clone()];
    while let Some(node) = todo.pop() {
        if node.is("BinOp") && node.op_kind("op").as_deref() == Some("BitAnd") {
            todo.push(node.expect("right"));
            todo.push(node.expect("left"));
            continue;
        }
        conjuncts.push(node);
    }
    // Each side of `==`: a column of one of the two DataFrames.
    let side_of = |node: &Node| -> Result<(JoinSide, String)> {
        let on = |side: JoinSide, name: String| {
            let frame = if side == JoinSide::Left {
                &left
            } else {
                &right
            };
            let names = frame.columns.iter().map(|c| c.name.as_str());
            let name = super::names::canonical(names, &name, &node.loc)?;
            if frame.columns.iter().any(|c| c.name == name) {
                Ok((side, name))
            } else {
                unsupported(
                    &node.loc,
                    format!("no column {name} on that side of the join"),
                )
            }
        };
        let frame_name = match node.kind.as_str() {
            "Attribute" | "Subscript" => node.expect("value").name(),
            _ => None,
        };
        let column = match node.kind.as_str() {
            "Attribute" => node.str("attr"),
            "Subscript" => node.expect("slice").str_constant(),
            "Call" if matches!(names::callee(node).as_deref(), Some("col" | "column")) => {
                node.list("args").first().and_then(Node::str_constant)
            }
            _ => None,
        };
        let Some(column) = column else {
            return unsupported(
                &node.loc,
                "a join condition compares columns of the two DataFrames (left.a == right.b)",
            );
        };
        match frame_name {
            Some(f) if left_names.contains(&f) && right_names.contains(&f) => unsupported(
                &node.loc,
                "a self-join on a condition is not supported yet (both sides are one DataFrame; alias one)",
            ),
            Some(f) if left_names.contains(&f) => on(JoinSide::Left, column),
            Some(f) if right_names.contains(&f) => on(JoinSide::Right, column),
            Some(f) => unsupported(&node.loc, format!("{f} is neither side of the join")),
            None => {
                let found = |frame: &Frame| -> Result<bool> {
                    let names = frame.columns.iter().map(|c| c.name.as_str());
                    let name = super::names::reference(&column, &node.loc)?;
                    Ok(super::names::resolve(names, &name, &node.loc)?.is_some())
                };
                let in_left = found(&left)?;
                let in_right = found(&right)?;
                match (in_left, in_right) {
                    (true, false) => Ok((JoinSide::Left, column)),
                    (false, true) => Ok((JoinSide::Right, column)),
                    (true, true) => unsupported(
                        &node.loc,
                        format!("col(\"{column}\") is on both sides of the join; name the side (left.{column})"),
                    ),
                    (false, false) => unsupported(&node.loc, format!("no column {column} on either side of the join")),
                }
            }
        }
    };
    let mut pairs: Vec<(String, String)> = Vec::new();
    for c in &conjuncts {
        let comparators = c.list("comparators");
        let (true, ["Eq"], [rhs]) = (
            c.is("Compare"),
            &c.compare_ops()
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()[..],
            &comparators[..],
        ) else {
            return unsupported(
                &c.loc,
                "a join condition is an equality of columns, or a & of them (other conditions are not supported yet)",
            );
        };
        let a = side_of(&c.expect("left"))?;
        let b = side_of(rhs)?;
        let (l, r) = match (a, b) {
            ((JoinSide::Left, l), (JoinSide::Right, r))
            | ((JoinSide::Right, r), (JoinSide::Left, l)) => (l, r),
            _ => {
                return unsupported(
                    &c.loc,
                    "each equality of a join condition compares a left column with a right one",
                )
            }
        };
        pairs.push((l, r));
    }
    let how = call
        .list("args")
        .get(2)
        .cloned()
        .or_else(|| keyword(call, "how"))
        .and_then(|n| n.str_constant())
        .unwrap_or_else(|| "inner".into())
        .to_ascii_lowercase()
        .replace('_', "");
    if !matches!(how.as_str(), "semi" | "leftsemi" | "anti" | "leftanti") {
        for c in &left.columns {
            if let Some(d) = right
                .columns
                .iter()
                .find(|d| super::names::same_name(&d.name, &c.name))
            {
                let both = if d.name == c.name {
                    c.name.clone()
                } else {
                    format!(
                        "{} ({} on the right: Spark matches names case-insensitively)",
                        c.name, d.name
                    )
                };
                return unsupported(
                    loc,
                    format!("both sides of the join have a column {both}: Spark keeps both and a later reference to it is ambiguous; rename one first, or join on=\"{}\" where the condition is their equality", c.name),
                );
            }
        }
    }
    // Names for the key copies that neither side uses.
    let taken = |name: &str| {
        left.columns
            .iter()
            .chain(&right.columns)
            .any(|c| c.name == name)
    };
    let mut prefix = "_on".to_string();
    while (0..pairs.len()).any(|i| taken(&format!("{prefix}{i}"))) {
        prefix.insert(0, '_');
    }
    let keys: Vec<String> = (0..pairs.len()).map(|i| format!("{prefix}{i}")).collect();
    let with_keys = |reader: &mut Reader, frame: &Frame, side: JoinSide| -> Result<Frame> {
        map_rows(
            reader,
            frame,
            &format!("join_on_{}", loc.line),
            loc,
            |_, columns| {
                let mut out: Vec<(String, SqlVal)> = columns
                    .iter()
                    .map(|(c, v)| (c.name.clone(), v.clone()))
                    .collect();
                for (key, (l, r)) in keys.iter().zip(&pairs) {
                    let name = if side == JoinSide::Left { l } else { r };
                    let (_, v) = columns
                        .iter()
                        .find(|(c, _)| c.name == *name)
                        .expect("a key column");
                    out.push((key.clone(), v.clone()));
                }
                Ok(out)
            },
        )
    };
    let left = with_keys(reader, &left, JoinSide::Left)?;
    let right = with_keys(reader, &right, JoinSide::Right)?;
    let joined = join_frames(reader, left, right, &keys, call, loc)?;
    map_rows(
        reader,
        &joined,
        &format!("drop_on_{}", loc.line),
        loc,
        |_, columns| {
            Ok(columns
                .iter()
                .filter(|(c, _)| !keys.contains(&c.name))
                .map(|(c, v)| (c.name.clone(), v.clone()))
                .collect())
        },
    )
}

/// The key columns of `on`: a column name, or a list of them.
fn join_keys(on: Option<&Node>, loc: &Loc) -> Result<Vec<String>> {
    let Some(on) = on else {
        return unsupported(loc, "a join without on (a cross join) is not supported");
    };
    if let Some(key) = on.str_constant() {
        return Ok(vec![key]);
    }
    if !(on.is("List") || on.is("Tuple")) {
        return unsupported(
            &on.loc,
            "a join on a Column condition is not supported yet; join on column names both sides share (on=\"key\" or on=[\"a\", \"b\"])",
        );
    }
    let mut keys: Vec<String> = Vec::new();
    for item in on.list("elts") {
        match item.str_constant() {
            Some(k) if keys.contains(&k) => {
                return unsupported(&item.loc, format!("join()'s on names column {k} twice"))
            }
            Some(k) => keys.push(k),
            None => return unsupported(&item.loc, "join()'s on is a list of column names"),
        }
    }
    if keys.is_empty() {
        return unsupported(&on.loc, "join()'s on is an empty list");
    }
    Ok(keys)
}

/// `frame` with a constant column `name` where it has only its `keys` key
/// columns.
fn pad(reader: &mut Reader, frame: Frame, keys: usize, name: &str, loc: &Loc) -> Result<Frame> {
    if frame.columns.len() > keys {
        return Ok(frame);
    }
    map_rows(
        reader,
        &frame,
        &format!("pad_{}", loc.line),
        loc,
        |ex, columns| {
            let mut out: Vec<(String, SqlVal)> = columns
                .iter()
                .map(|(c, v)| (c.name.clone(), v.clone()))
                .collect();
            let one = ex.f.bool(true, loc);
            out.push((
                name.to_string(),
                SqlVal {
                    present: None,
                    value: one,
                    ty: SqlTy::Bool,
                },
            ));
            Ok(out)
        },
    )
}

/// The join of `left` and `right` on `keys` (each with a column beside
/// the key columns).
fn join_frames(
    reader: &mut Reader,
    left: Frame,
    right: Frame,
    keys: &[String],
    call: &Node,
    loc: &Loc,
) -> Result<Frame> {
    let args = call.list("args");
    let how_node = args.get(2).cloned().or_else(|| keyword(call, "how"));
    let n = keys.len();
    let how_text = match &how_node {
        None => "inner".to_string(),
        Some(n) => match n.str_constant() {
            Some(h) => h,
            None => return unsupported(&n.loc, "join()'s how is a string constant"),
        },
    };
    let how = match how_text.to_ascii_lowercase().replace('_', "").as_str() {
        "inner" => How::Inner,
        "left" | "leftouter" => How::Left,
        "semi" | "leftsemi" => How::Semi,
        "anti" | "leftanti" => How::Anti,
        "right" | "rightouter" => How::Right,
        "full" | "outer" | "fullouter" => How::Full,
        "cross" => return unsupported(
            how_node.as_ref().map_or(loc, |n| &n.loc),
            "a cross join is not supported (inner, left, right, full, left_semi and left_anti are)",
        ),
        _ => {
            return unsupported(
                how_node.as_ref().map_or(loc, |n| &n.loc),
                format!("{how_text:?} is not a join type Spark knows"),
            )
        }
    };
    let mut left_key_columns = Vec::new();
    for key in keys {
        let lk = column_named(&left, key, loc)?.clone();
        let rk = column_named(&right, key, loc)?.clone();
        if lk.ty != rk.ty {
            return unsupported(
                loc,
                format!(
                    "join on {key} of {} and {}: Spark would cast; cast one side",
                    lk.ty.name(),
                    rk.ty.name()
                ),
            );
        }
        if n > 1 && lk.ty.is_floating() {
            // Spark matches -0.0 with 0.0 and NaN with NaN, which df's
            // key equality does not model for doubles.
            return unsupported(
                loc,
                format!("a double column ({key}) among several join keys is not supported yet"),
            );
        }
        left_key_columns.push(lk);
    }
    if matches!(how, How::Inner | How::Left | How::Right | How::Full) {
        for c in &left.columns {
            if !keys.contains(&c.name)
                && right
                    .columns
                    .iter()
                    .any(|d| super::names::same_name(&d.name, &c.name))
            {
                return unsupported(
                    loc,
                    format!("both sides of the join have a column {}: the result's {} would be ambiguous; rename one first", c.name, c.name),
                );
            }
        }
    }
    let (left_keyed, left_nulls) = split_null_keys(reader, &left, keys, loc)?;
    let (right_keyed, right_nulls) = split_null_keys(reader, &right, keys, loc)?;
    match how {
        How::Inner => Ok(df_join(reader, "inner", &left_keyed, &right_keyed, n, loc)),
        How::Left | How::Right | How::Full => {
            let kind = match how {
                How::Left => "left_outer",
                How::Right => "right_outer",
                _ => "full_outer",
            };
            let joined = df_join(reader, kind, &left_keyed, &right_keyed, n, loc);
            let keeps_left = how != How::Right;
            let keeps_right = how != How::Left;
            let left_rest = left_keyed.columns[n..].to_vec();
            let right_rest = right_keyed.columns[n..].to_vec();
            // A key column is NULL only on rows of a kept side's NULL keys
            // where that side's column may be NULL.
            let nullable_on = |nulls: &Option<Frame>, key: &str| {
                nulls
                    .as_ref()
                    .is_some_and(|f| f.columns.iter().any(|c| c.name == key && c.nullable))
            };
            let mut target: Vec<Column> = left_key_columns
                .iter()
                .map(|k| Column {
                    nullable: (keeps_left && nullable_on(&left_nulls, &k.name))
                        || (keeps_right && nullable_on(&right_nulls, &k.name)),
                    ..k.clone()
                })
                .collect();
            target.extend(left_rest.iter().map(|c| Column {
                nullable: c.nullable || keeps_right,
                ..c.clone()
            }));
            target.extend(right_rest.iter().map(|c| Column {
                nullable: c.nullable || keeps_left,
                ..c.clone()
            }));
            let mut result = unwrap_outer(
                reader,
                &joined,
                &target,
                n,
                left_rest.len() + n,
                keeps_right,
                keeps_left,
                loc,
            )?;
            let sides = [
                (keeps_left, left_nulls, &left_rest),
                (keeps_right, right_nulls, &right_rest),
            ];
            for (kept, nulls, own) in sides {
                let (true, Some(nulls)) = (kept, nulls) else {
                    continue;
                };
                let filled = only_side(reader, &nulls, &target, keys, own, loc)?;
                result = union_op(reader, &result, &filled, loc);
            }
            Ok(result)
        }
        How::Semi | How::Anti => {
            // The right side's distinct keys, each with a flag, so a left
            // row matches at most once and an outer join tells matched
            // rows apart.
            let right_keys = map_rows(
                reader,
                &right_keyed,
                &format!("join_keys_{}", loc.line),
                loc,
                |ex, columns| {
                    let t = ex.f.bool(true, loc);
                    let mut out: Vec<(String, SqlVal)> = columns[..n]
                        .iter()
                        .map(|(c, v)| (c.name.clone(), v.clone()))
                        .collect();
                    out.push((
                        "_matched".to_string(),
                        SqlVal {
                            present: None,
                            value: t,
                            ty: SqlTy::Bool,
                        },
                    ));
                    Ok(out)
                },
            )?;
            let right_keys = distinct(reader, right_keys, loc)?;
            // Spark's output of a semi or anti join on column names: the
            // key columns first, then the left side's other columns.
            let width = left_keyed.columns.len();
            let mut target = left_keyed.columns.clone();
            for (t, k) in target.iter_mut().zip(&left_key_columns) {
                t.nullable = how == How::Anti && k.nullable;
            }
            let first_n: Vec<usize> = (0..width).collect();
            let kept = if how == How::Semi {
                let joined = df_join(reader, "inner", &left_keyed, &right_keys, n, loc);
                project(reader, &joined, &first_n, &target, loc)?
            } else {
                let joined = df_join(reader, "left_outer", &left_keyed, &right_keys, n, loc);
                let mut fields: Vec<Ty> = row_shape(&left_keyed.columns).fields();
                fields.push(Ty::Option(Box::new(Ty::Bool)));
                let unmatched = record_fn(
                    reader,
                    &format!("unmatched_{}", loc.line),
                    &fields,
                    loc,
                    |ex, params| {
                        let last = params.last().expect("the flag");
                        let found = ex.f.op(
                            format!("df.is_present {} : {}", last.name, last.ty.mlir()),
                            Ty::Bool,
                            loc,
                        );
                        let t = ex.f.bool(true, loc);
                        Ok(vec![ex.f.binary("xori", &found, &t, Ty::Bool, loc)])
                    },
                )?;
                let records = crate::job::dataset_type(&Shape::Tuple(
                    fields.iter().map(|t| Shape::Field(t.clone())).collect(),
                ));
                let filtered = reader.builder.emit(
                    format!("df.filter {} @{unmatched} : {records}", joined.value),
                    loc,
                );
                let filtered = Frame {
                    value: filtered,
                    columns: joined.columns.clone(),
                };
                let without_flag = strip_last(reader, &filtered, &fields, width, loc)?;
                let without_flag = Frame {
                    value: without_flag,
                    columns: left_keyed.columns.clone(),
                };
                project(reader, &without_flag, &first_n, &target, loc)?
            };
            match (how, left_nulls) {
                (How::Anti, Some(nulls)) => {
                    let order: Vec<usize> = target
                        .iter()
                        .map(|c| {
                            nulls
                                .columns
                                .iter()
                                .position(|d| d.name == c.name)
                                .expect("a left column")
                        })
                        .collect();
                    let nulls = project(reader, &nulls, &order, &target, loc)?;
                    Ok(union_op(reader, &kept, &nulls, loc))
                }
                _ => Ok(kept),
            }
        }
    }
}

/// df's join of two keyed frames: the key, the left side's other columns,
/// then the right side's (as `!df.option` fields on a side an outer join
/// may leave absent, whose frame columns here are only names for
/// [`unwrap_outer`]).
pub(crate) fn df_join(
    reader: &mut Reader,
    kind: &str,
    left: &Frame,
    right: &Frame,
    keys: usize,
    loc: &Loc,
) -> Frame {
    let mut columns = left.columns.clone();
    columns.extend(right.columns[keys..].iter().cloned());
    let side = |frame: &Frame, absent: bool| {
        let rest = Shape::Tuple(frame.columns[keys..].iter().map(Column::shape).collect());
        if absent {
            Shape::Absent(Box::new(rest))
        } else {
            rest
        }
    };
    // Key columns are never NULL here: one field each.
    let mut shape: Vec<Shape> = left.columns[..keys]
        .iter()
        .map(|c| Shape::Field(c.ty.ty()))
        .collect();
    shape.push(side(left, matches!(kind, "right_outer" | "full_outer")));
    shape.push(side(right, matches!(kind, "left_outer" | "full_outer")));
    let value = reader.builder.emit(
        format!(
            "df.join {kind} {}, {}{} : {}, {} -> {}",
            left.value,
            right.value,
            keys_clause(keys),
            dataset_type(&row_shape(&left.columns)),
            dataset_type(&row_shape(&right.columns)),
            dataset_type(&Shape::Tuple(shape))
        ),
        loc,
    );
    Frame { value, columns }
}

/// ` keys N` for a key of several fields, nothing for one.
pub(crate) fn keys_clause(keys: usize) -> String {
    if keys > 1 {
        format!(" keys {keys}")
    } else {
        String::new()
    }
}

/// Rows of `target` from one side's rows whose key is NULL (`nulls`, in
/// that side's column order): the key and `own` columns as they are, the
/// other side's NULL.
fn only_side(
    reader: &mut Reader,
    nulls: &Frame,
    target: &[Column],
    keys: &[String],
    own: &[Column],
    loc: &Loc,
) -> Result<Frame> {
    let filled = map_rows(
        reader,
        nulls,
        &format!("unmatched_{}", loc.line),
        loc,
        |ex, columns| {
            let mut out = Vec::new();
            for t in target {
                let mine = keys.contains(&t.name) || own.iter().any(|c| c.name == t.name);
                match columns.iter().find(|(c, _)| mine && c.name == t.name) {
                    Some((_, v)) => out.push((t.name.clone(), v.clone())),
                    None => {
                        let present = Some(ex.f.bool(false, loc));
                        let value = ex.default(t.ty, loc);
                        out.push((
                            t.name.clone(),
                            SqlVal {
                                present,
                                value,
                                ty: t.ty,
                            },
                        ));
                    }
                }
            }
            Ok(out)
        },
    )?;
    let identity: Vec<usize> = (0..target.len()).collect();
    conform(reader, filled, target, &identity, loc)
}

/// Rows of `target` from an outer join's records: the `keys` key columns,
/// then the left side's columns (from `!df.option` fields where
/// `left_optional`), then the right side's (likewise), NULL where a side
/// is absent.
#[allow(clippy::too_many_arguments)]
fn unwrap_outer(
    reader: &mut Reader,
    joined: &Frame,
    target: &[Column],
    keys: usize,
    plain: usize,
    left_optional: bool,
    right_optional: bool,
    loc: &Loc,
) -> Result<Frame> {
    let optional = |ts: Vec<Ty>, yes: bool| -> Vec<Ty> {
        if yes {
            ts.into_iter().map(|t| Ty::Option(Box::new(t))).collect()
        } else {
            ts
        }
    };
    let mut fields: Vec<Ty> = joined.columns[..keys].iter().map(|c| c.ty.ty()).collect();
    fields.extend(optional(
        row_shape(&joined.columns[keys..plain]).fields(),
        left_optional,
    ));
    fields.extend(optional(
        row_shape(&joined.columns[plain..]).fields(),
        right_optional,
    ));
    let name = record_fn(
        reader,
        &format!("join_row_{}", loc.line),
        &fields,
        loc,
        |ex, params| {
            let mut out: Vec<Value> = Vec::new();
            let mut it = params.iter();
            for key in &target[..keys] {
                if key.nullable {
                    out.push(ex.f.bool(true, loc));
                }
                out.push(it.next().expect("a key field").clone());
            }
            let sides = [
                (&joined.columns[keys..plain], left_optional),
                (&joined.columns[plain..], right_optional),
            ];
            for (columns, optional) in sides {
                for c in columns {
                    let flag = c.nullable.then(|| it.next().expect("a flag").clone());
                    let value = it.next().expect("a value").clone();
                    if !optional {
                        // A side that is always there: as it was, NULL-able
                        // where the target says so.
                        let t = &target[out_index(target, &c.name)];
                        match flag {
                            Some(flag) => out.push(flag),
                            None if t.nullable => out.push(ex.f.bool(true, loc)),
                            None => {}
                        }
                        out.push(value);
                        continue;
                    }
                    let present = |ex: &mut crate::frame::expr::Exprs, o: &Value| {
                        ex.f.op(
                            format!("df.is_present {} : {}", o.name, o.ty.mlir()),
                            Ty::Bool,
                            loc,
                        )
                    };
                    let unwrap = |ex: &mut crate::frame::expr::Exprs, o: &Value, ty: &Ty| {
                        let default = match ty {
                            Ty::Bool => ex.f.bool(false, loc),
                            Ty::Int => ex.f.int(0, loc),
                            Ty::Float => ex.f.float(0.0, loc),
                            _ => ex.f.str("", loc),
                        };
                        ex.f.op(
                            format!(
                                "df.value_or {}, {} : {}, {}",
                                o.name,
                                default.name,
                                o.ty.mlir(),
                                ty.mlir()
                            ),
                            ty.clone(),
                            loc,
                        )
                    };
                    match flag {
                        Some(flag) => {
                            out.push(unwrap(ex, &flag, &Ty::Bool));
                            out.push(unwrap(ex, &value, &c.ty.ty()));
                        }
                        None => {
                            out.push(present(ex, &value));
                            out.push(unwrap(ex, &value, &c.ty.ty()));
                        }
                    }
                }
            }
            Ok(out)
        },
    )?;
    let input = dataset_type(&Shape::Tuple(
        fields.iter().map(|t| Shape::Field(t.clone())).collect(),
    ));
    let value = reader.builder.emit(
        format!(
            "df.map {} @{name} : {input} -> {}",
            joined.value,
            dataset_type(&row_shape(target))
        ),
        loc,
    );
    Ok(Frame {
        value,
        columns: target.to_vec(),
    })
}

fn out_index(target: &[Column], name: &str) -> usize {
    target
        .iter()
        .position(|c| c.name == name)
        .expect("a target column")
}

/// The records of `frame` (fields `fields`) without their last field.
fn strip_last(
    reader: &mut Reader,
    frame: &Frame,
    fields: &[Ty],
    keep: usize,
    loc: &Loc,
) -> Result<String> {
    let kept_types: Vec<Ty> = row_shape(&frame.columns[..keep]).fields();
    let name = record_fn(
        reader,
        &format!("drop_flag_{}", loc.line),
        fields,
        loc,
        |_, params| Ok(params[..kept_types.len()].to_vec()),
    )?;
    let input = dataset_type(&Shape::Tuple(
        fields.iter().map(|t| Shape::Field(t.clone())).collect(),
    ));
    Ok(reader.builder.emit(
        format!(
            "df.map {} @{name} : {input} -> {}",
            frame.value,
            dataset_type(&row_shape(&frame.columns[..keep]))
        ),
        loc,
    ))
}

/// `frame`'s columns in `order` (indices into it), as rows of `target`.
fn project(
    reader: &mut Reader,
    frame: &Frame,
    order: &[usize],
    target: &[Column],
    loc: &Loc,
) -> Result<Frame> {
    conform(reader, frame.clone(), target, order, loc)
}
