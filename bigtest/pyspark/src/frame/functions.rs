//! The functions of `pyspark.sql.functions` and the methods of a Column
//! that a job's Column expressions call, as df code with Spark 3.5's
//! semantics (ANSI off): string functions, `split(...).getItem`, `isNull`,
//! `eqNullSafe`, `cast`, `when` chains.

use crate::{
    error::{unsupported, Loc, Result},
    frame::{
        expr::{Exprs, SqlVal},
        names::{callee, functions_call, method_call, render},
        schema::{SqlTy, SUPPORTED_TYPES},
    },
    ir::{Ty, TyText},
    syntax::{Constant, Node},
};

/// The functions of `pyspark.sql.functions` that [`Exprs::function`]
/// reads, for its error.
const FUNCTIONS: &str = "col, lit, expr, when/otherwise, coalesce, split(...).getItem, size(split(...)), lower, upper, trim, ltrim, rtrim, length, concat, concat_ws, substring, greatest, least, round, bround, abs";

impl Exprs<'_, '_, '_> {
    /// An argument of a function of `pyspark.sql.functions` or of a UDF:
    /// a string there names a column (`F.length("name")`).
    pub(super) fn column_arg(&mut self, arg: &Node) -> Result<SqlVal> {
        let Some(text) = arg.str_constant() else {
            return self.lower(arg);
        };
        let names = self.cx.columns.iter().map(|(c, _)| c.name.as_str());
        let name = super::names::canonical(names, &text, &arg.loc)?;
        match self.cx.columns.iter().find(|(c, _)| c.name == name) {
            Some((_, v)) => Ok(v.clone()),
            None => unsupported(&arg.loc, format!("no column {text} (a string argument of a function names a column; use lit() for a string)")),
        }
    }

    /// A function of `pyspark.sql.functions` applied to `args`.
    pub(super) fn function(&mut self, name: &str, args: &[Node], node: &Node) -> Result<SqlVal> {
        let loc = node.loc.clone();
        match (name, args) {
            ("lit", [arg]) => self.lower(arg),
            // `F.expr("amount * 2")`: the Column code of its SQL text.
            ("expr", [arg]) if arg.str_constant().is_some() => {
                let text = arg.str_constant().unwrap_or_default();
                let (code, _) = super::sql_text::parse(&text, &arg.loc, false)?;
                self.lower(&code)
            }
            ("when", [cond, value]) => self.when(vec![(cond.clone(), value.clone())], None, &loc),
            ("coalesce", items) if !items.is_empty() => {
                let values: Vec<SqlVal> = items.iter().map(|i| self.column_arg(i)).collect::<Result<_>>()?;
                self.coalesce(&values, &loc)
            }
            ("lower" | "upper", [arg]) => {
                let a = self.string_arg(arg, name)?;
                let value = self.f.op(format!("df.{name} {}", a.value.name), Ty::Str, &loc);
                Ok(SqlVal { value, ..a })
            }
            // Spark trims U+0020 only (Python's strip() all whitespace).
            ("trim" | "ltrim" | "rtrim", [arg]) => {
                let a = self.string_arg(arg, name)?;
                let side = match name {
                    "trim" => "both",
                    "ltrim" => "left",
                    _ => "right",
                };
                let value = self.f.op(format!("df.strip {} {side} spaces", a.value.name), Ty::Str, &loc);
                Ok(SqlVal { value, ..a })
            }
            ("length", [arg]) => {
                let a = self.string_arg(arg, name)?;
                let value = self.f.op(format!("df.length {}", a.value.name), Ty::Int, &loc);
                Ok(SqlVal { value, present: a.present, ty: SqlTy::Int })
            }
            ("concat", items) if !items.is_empty() => {
                let mut acc: Option<SqlVal> = None;
                for item in items {
                    let v = self.string_arg(item, name)?;
                    acc = Some(match acc {
                        None => v,
                        Some(prev) => {
                            let present = self.both(&prev.present, &v.present, &loc);
                            let value = self.f.df2("concat", &prev.value, &v.value, Ty::Str, &loc);
                            SqlVal { present, value, ty: SqlTy::Str }
                        }
                    });
                }
                Ok(acc.expect("one item"))
            }
            // `concat_ws(sep, ...)` skips NULLs and is never NULL.
            ("concat_ws", [sep, items @ ..]) if !items.is_empty() => {
                let Some(sep) = sep.str_constant() else {
                    return unsupported(&sep.loc, "concat_ws() takes a constant separator first");
                };
                let sep = self.f.str(&sep, &loc);
                let mut acc = self.f.str("", &loc);
                let mut first = self.f.bool(true, &loc);
                for item in items {
                    let v = self.string_arg(item, name)?;
                    let joined = self.f.df2("concat", &sep, &v.value, Ty::Str, &loc);
                    let piece = self.f.select(&first, &v.value, &joined, &loc);
                    let longer = self.f.df2("concat", &acc, &piece, Ty::Str, &loc);
                    match &v.present {
                        None => {
                            acc = longer;
                            first = self.f.bool(false, &loc);
                        }
                        Some(p) => {
                            acc = self.f.select(p, &longer, &acc, &loc);
                            let absent = self.not(p, &loc);
                            first = self.f.binary("andi", &first, &absent, Ty::Bool, &loc);
                        }
                    }
                }
                Ok(SqlVal { present: None, value: acc, ty: SqlTy::Str })
            }
            // `substring(s, pos, len)` with constant `pos >= 1`, `len >= 0`:
            // the 1-based `s[pos - 1 : pos - 1 + len]`, clamped as Spark's
            // and Python's slices both are.
            ("substring", [arg, pos, len]) => {
                let number = |n: &Node| match n.constant() {
                    Some(Constant::Int(d)) if n.is("Constant") => d.parse::<i64>().ok(),
                    _ => None,
                };
                let (Some(pos), Some(len)) = (number(pos), number(len)) else {
                    return unsupported(&loc, "substring() takes a constant position and length");
                };
                if pos < 1 || len < 0 {
                    return unsupported(&loc, "substring() of a position below 1 or a negative length is not supported yet");
                }
                let a = self.string_arg(arg, name)?;
                let start = self.f.int(pos - 1, &loc);
                let count = self.f.int(len, &loc);
                let value = self.f.op(
                    format!("df.substr {}, {}, {}", a.value.name, start.name, count.name),
                    Ty::Str,
                    &loc,
                );
                Ok(SqlVal { value, ..a })
            }
            // `greatest`/`least` skip NULLs: NULL only where every value is.
            ("greatest" | "least", items) if items.len() >= 2 => {
                let values: Vec<SqlVal> = items.iter().map(|i| self.column_arg(i)).collect::<Result<_>>()?;
                let mut ty = values[0].ty;
                for v in &values {
                    ty = match ty.wider(v.ty).filter(|t| t.is_numeric()) {
                        Some(t) => t,
                        None => {
                            return unsupported(
                                &loc,
                                format!("{name}() of {} and {}: numbers of one kind are supported", ty.name(), v.ty.name()),
                            )
                        }
                    };
                }
                let op = match (name, ty) {
                    ("greatest", SqlTy::Double | SqlTy::Float) => "maxnumf",
                    ("least", SqlTy::Double | SqlTy::Float) => "minnumf",
                    ("greatest", _) => "maxsi",
                    _ => "minsi",
                };
                let mut acc = self.cast(&values[0], ty, &loc)?;
                for v in &values[1..] {
                    let v = self.cast(v, ty, &loc)?;
                    let best = self.f.binary(op, &acc.value, &v.value, ty.ty(), &loc);
                    acc = match (&acc.present, &v.present) {
                        (None, None) => SqlVal { present: None, value: best, ty },
                        (pa, pv) => {
                            let t = self.f.bool(true, &loc);
                            let pa = pa.clone().unwrap_or_else(|| t.clone());
                            let pv = pv.clone().unwrap_or(t);
                            let both = self.f.binary("andi", &pa, &pv, Ty::Bool, &loc);
                            let one = self.f.select(&pa, &acc.value, &v.value, &loc);
                            let value = self.f.select(&both, &best, &one, &loc);
                            let present = self.f.binary("ori", &pa, &pv, Ty::Bool, &loc);
                            SqlVal { present: Some(present), value, ty }
                        }
                    };
                }
                Ok(acc)
            }
            // Spark's round (HALF_UP) and bround (HALF_EVEN) of the
            // double's decimal text; an integer keeps its value.
            ("round" | "bround", [arg, ..]) if args.len() <= 2 => {
                let a = self.column_arg(arg)?;
                let scale = match args.get(1) {
                    None => 0,
                    Some(s) => match s.constant().or_else(|| {
                        (callee(s).as_deref() == Some("lit")).then(|| s.list("args").first().and_then(Node::constant)).flatten()
                    }) {
                        Some(Constant::Int(digits)) => digits.parse::<i64>().unwrap_or(i64::MAX),
                        _ => return unsupported(&s.loc, format!("{name}()'s scale is an integer constant here")),
                    },
                };
                if !(0..=12).contains(&scale) {
                    return unsupported(&loc, format!("{name}() at scale {scale}: coco reads scales 0 to 12"));
                }
                match a.ty {
                    // A FLOAT (quarters) rounds to a value it holds too.
                    SqlTy::Double | SqlTy::Float => {
                        let even = if name == "bround" { " half_even" } else { "" };
                        let value = self.f.op(
                            format!("df.round {} scale {scale}{even}", a.value.name),
                            Ty::Float,
                            &loc,
                        );
                        Ok(SqlVal { value, ..a })
                    }
                    SqlTy::Int | SqlTy::Long => Ok(a),
                    other => unsupported(&loc, format!("{name} of a {} column", other.name())),
                }
            }
            ("size", [list]) => self.split_size(list, &loc),
            ("abs", [arg]) => {
                let a = self.column_arg(arg)?;
                if !a.ty.is_numeric() {
                    return unsupported(&loc, format!("abs of a {} column", a.ty.name()));
                }
                let zero = self.default(a.ty, &loc);
                let neg = self.arithmetic("Sub", &SqlVal { present: None, value: zero, ty: a.ty }, &a, &loc)?;
                let (pred, cmp) = if a.ty.is_floating() { ("olt", "arith.cmpf") } else { ("slt", "arith.cmpi") };
                let zero = self.default(a.ty, &loc);
                let negative = self.f.op(
                    format!("{cmp} {pred}, {}, {} : {}", a.value.name, zero.name, a.value.ty.mlir()),
                    Ty::Bool,
                    &loc,
                );
                let value = self.f.select(&negative, &neg.value, &a.value, &loc);
                Ok(SqlVal { value, ..a })
            }
            ("col" | "column", _) => unsupported(&loc, "col() takes one column name (a string constant)"),
            _ => unsupported(
                &loc,
                format!(
                    "{name}() is not a Column function coco-bigtest reads (supported: {FUNCTIONS}, and Python UDFs made with udf)"
                ),
            ),
        }
    }

    pub(super) fn string_arg(&mut self, arg: &Node, function: &str) -> Result<SqlVal> {
        let v = self.column_arg(arg)?;
        if v.ty != SqlTy::Str {
            return unsupported(
                &arg.loc,
                format!(
                    "{function}() of a {} column (cast it to string first)",
                    v.ty.name()
                ),
            );
        }
        Ok(v)
    }

    /// A method of a Column: `isNull()`, `cast("double")`, `when` of a
    /// `when` chain, string tests.
    pub(super) fn column_method(
        &mut self,
        receiver: &Node,
        method: &str,
        args: &[Node],
        node: &Node,
    ) -> Result<SqlVal> {
        let loc = node.loc.clone();
        match (method, args) {
            ("when" | "otherwise", _) => {
                let mut arms = Vec::new();
                let otherwise = if method == "otherwise" {
                    let [value] = args else {
                        return unsupported(&loc, "otherwise() takes one value");
                    };
                    Some(value.clone())
                } else {
                    let [cond, value] = args else {
                        return unsupported(&loc, "when() takes a condition and a value");
                    };
                    arms.push((cond.clone(), value.clone()));
                    None
                };
                // `F.when(c1, v1).when(c2, v2)...`: the arms in order.
                let mut chain = receiver.clone();
                loop {
                    match method_call(&chain) {
                        Some((inner, m, a)) if m == "when" && a.len() == 2 && !functions_call(&chain) => {
                            arms.insert(0, (a[0].clone(), a[1].clone()));
                            chain = inner;
                        }
                        _ => break,
                    }
                }
                match (callee(&chain).as_deref(), &chain.list("args")[..]) {
                    (Some("when"), [cond, value]) => arms.insert(0, (cond.clone(), value.clone())),
                    _ => return unsupported(&chain.loc, "when(...).otherwise(...) starts with F.when(condition, value)"),
                }
                self.when(arms, otherwise, &loc)
            }
            ("alias" | "name", [_]) => self.lower(receiver),
            ("getItem", [index]) => self.get_item(receiver, index, &loc),
            ("isNull" | "isNotNull", []) => {
                let a = self.lower(receiver)?;
                let present = match a.present {
                    Some(p) => {
                        // Whether the value is NULL is what the test asks:
                        // a decision, so the data has both.
                        if !self.predicate {
                            self.decide(&p, &loc);
                        }
                        p
                    }
                    None => self.loc_bool(true, &loc),
                };
                let value = if method == "isNull" { self.not(&present, &loc) } else { present };
                Ok(SqlVal { present: None, value, ty: SqlTy::Bool })
            }
            ("eqNullSafe", [other]) => {
                let a = self.lower(receiver)?;
                let b = self.lower(other)?;
                let equal = self.compare("Eq", &SqlVal { present: None, ..a.clone() }, &SqlVal { present: None, ..b.clone() }, &loc)?.value;
                let t = self.loc_bool(true, &loc);
                let pa = a.present.clone().unwrap_or_else(|| t.clone());
                let pb = b.present.clone().unwrap_or_else(|| t.clone());
                // Both NULL, or both present and equal.
                let same_presence = self.f.op(format!("arith.cmpi eq, {}, {} : i1", pa.name, pb.name), Ty::Bool, &loc);
                let both = self.f.binary("andi", &pa, &pb, Ty::Bool, &loc);
                let equal_values = self.f.binary("andi", &both, &equal, Ty::Bool, &loc);
                let neither = self.f.binary("ori", &pa, &pb, Ty::Bool, &loc);
                let neither = self.not(&neither, &loc);
                let value = self.f.binary("ori", &equal_values, &neither, Ty::Bool, &loc);
                let value = self.f.binary("andi", &value, &same_presence, Ty::Bool, &loc);
                Ok(SqlVal { present: None, value, ty: SqlTy::Bool })
            }
            ("cast" | "astype", [ty]) => {
                let Some(to) = SqlTy::from_node(ty) else {
                    return unsupported(&ty.loc, format!("cast to {}; supported types are {SUPPORTED_TYPES}", render(ty)));
                };
                // `F.lit(None).cast("bigint")`: a typed NULL.
                let untyped_null = |n: &Node| n.is("Constant") && n.constant() == Some(Constant::None);
                if untyped_null(receiver)
                    || (callee(receiver).as_deref() == Some("lit")
                        && receiver.list("args").first().is_some_and(untyped_null))
                {
                    return Ok(self.null_of(to, &loc));
                }
                let a = self.lower(receiver)?;
                self.cast(&a, to, &loc)
            }
            ("startswith" | "endswith" | "contains", [arg]) => {
                // The argument of a Column's method is a value, not a
                // column name.
                let a = self.lower(receiver)?;
                let b = self.lower(arg)?;
                if a.ty != SqlTy::Str || b.ty != SqlTy::Str {
                    return unsupported(&loc, format!("{method}() of {} and {}: both are strings", a.ty.name(), b.ty.name()));
                }
                let op = match method {
                    "startswith" => "starts_with",
                    "endswith" => "ends_with",
                    _ => "contains",
                };
                let present = self.both(&a.present, &b.present, &loc);
                let value = self.f.df2(op, &a.value, &b.value, Ty::Bool, &loc);
                Ok(SqlVal { present, value, ty: SqlTy::Bool })
            }
            ("isin", items) if !items.is_empty() => {
                // `a IN (x, y)`: `a = x OR a = y`, three-valued.
                let a = self.lower(receiver)?;
                let mut acc: Option<SqlVal> = None;
                for item in items {
                    let b = self.lower(item)?;
                    let eq = self.compare("Eq", &a, &b, &loc)?;
                    acc = Some(match acc {
                        None => eq,
                        Some(prev) => self.logic(false, &prev, &eq, &loc)?,
                    });
                }
                Ok(acc.expect("one item"))
            }
            _ => unsupported(
                &node.expect("func").attr_loc(),
                format!(
                    "Column.{method}() is not supported (supported: isNull, isNotNull, eqNullSafe, cast, alias, startswith, endswith, contains, isin, when/otherwise)"
                ),
            ),
        }
    }

    /// `F.split(s, pattern)` (`list`, or a variable holding it): its
    /// pieces and `s`. The pattern is a regular expression in Spark; one
    /// without metacharacters splits as Python's `str.split` does (every
    /// piece kept, trailing empty ones too).
    fn split_pieces(
        &mut self,
        list: &Node,
        what: &str,
        loc: &Loc,
    ) -> Result<(crate::ir::Value, SqlVal)> {
        let mut split = list.clone();
        while let Some(code) = split.name().and_then(|n| self.cx.env.get(&n).cloned()) {
            split = code;
        }
        if callee(&split).as_deref() != Some("split") || !functions_call(&split) {
            return unsupported(
                loc,
                format!(
                    "{what} of {}: coco reads it of F.split(column, pattern), not of other arrays",
                    render(list)
                ),
            );
        }
        let args = split.list("args");
        let (Some(text), Some(pattern)) = (args.first(), args.get(1).and_then(Node::str_constant))
        else {
            return unsupported(&split.loc, "split() takes a column and a constant pattern");
        };
        if args.len() > 2
            || pattern.is_empty()
            || pattern.contains(|c: char| ".$|()[]{}^?*+\\".contains(c))
        {
            return unsupported(
                &split.loc,
                format!("split() on {pattern:?}: a pattern with regular-expression metacharacters (or a limit) is not supported yet; a literal separator is"),
            );
        }
        let s = self.column_arg(text)?;
        if s.ty != SqlTy::Str {
            return unsupported(&text.loc, format!("split() of a {} column", s.ty.name()));
        }
        let list_ty = Ty::List(Box::new(Ty::Str));
        let pieces = self.f.op(
            format!(
                "df.split {} {} : {}",
                s.value.name,
                crate::ir::string_literal(&pattern),
                list_ty.mlir()
            ),
            list_ty,
            loc,
        );
        Ok((pieces, s))
    }

    /// `F.size(F.split(s, pattern))`: the number of pieces; -1 where `s`
    /// is NULL (Spark's spark.sql.legacy.sizeOfNull, on with ANSI off).
    pub(super) fn split_size(&mut self, list: &Node, loc: &Loc) -> Result<SqlVal> {
        let (pieces, s) = self.split_pieces(list, "size()", loc)?;
        let count = self.f.op(
            format!("df.size {} : {}", pieces.name, pieces.ty.mlir()),
            Ty::Int,
            loc,
        );
        let value = match &s.present {
            Some(present) => {
                let none = self.f.int(-1, loc);
                self.f.select(present, &count, &none, loc)
            }
            None => count,
        };
        Ok(SqlVal {
            present: None,
            value,
            ty: SqlTy::Int,
        })
    }

    /// Item `index` of `F.split(s, pattern)`: NULL past the end or where
    /// `s` is NULL, as Spark's `getItem` with ANSI off.
    pub(super) fn get_item(&mut self, list: &Node, index: &Node, loc: &Loc) -> Result<SqlVal> {
        let i = match index.constant() {
            Some(Constant::Int(d)) if index.is("Constant") => d.parse::<usize>().ok(),
            _ => None,
        };
        let Some(i) = i else {
            return unsupported(&index.loc, "getItem takes a constant index of 0 or more");
        };
        let (pieces, s) = self.split_pieces(list, "getItem", loc)?;
        let list_ty = pieces.ty.clone();
        let option_ty = Ty::Option(Box::new(Ty::Str));
        let item = self.f.op(
            format!(
                "df.get {}[{i}] : {} -> {}",
                pieces.name,
                list_ty.mlir(),
                option_ty.mlir()
            ),
            option_ty.clone(),
            loc,
        );
        let item = self.option_value(&item, SqlTy::Str, loc);
        Ok(SqlVal {
            present: self.both(&s.present, &item.present, loc),
            ..item
        })
    }
}
