//! Column expressions (`F.col("amount") * 2`, `F.when(...)`, a Python UDF
//! call) lowered into the df function of one DataFrame operator, with Spark
//! SQL's semantics for Spark 3.5 with ANSI mode off (docs/bigtest.md,
//! "DataFrame jobs"): NULL propagates through every operator, `&`/`|`/`~`
//! are three-valued, division by zero and a failed cast give NULL, and a
//! Python UDF's result is coerced to its declared type.
//!
//! A value is an [`SqlVal`]: a presence flag (`None` where the value is
//! never NULL) and the value, which is the type's default where absent.
//! NULL propagation is computed, not branched on, so it adds no JDU paths;
//! what produces a NULL (a zero divisor, a failed cast) and what decides
//! (a `when` condition) is a `cf.cond_br`, a decision of its own.

use std::collections::BTreeMap;

use crate::{
    error::{unsupported, Loc, Result},
    frame::{
        names::{callee, column_reference, functions_call, method_call},
        schema::{Column, SqlTy},
        udf_call::python_udf,
    },
    ir::{Function, Ty, TyText, Value},
    job::Builder,
    syntax::{Constant, Node},
    udf::describe,
};

/// A SQL value in the function being written.
#[derive(Clone, Debug)]
pub struct SqlVal {
    /// `i1`, true where the value is not NULL; `None`: never NULL.
    pub present: Option<Value>,
    pub value: Value,
    pub ty: SqlTy,
}

/// What a column expression may refer to.
pub struct Context<'a> {
    /// The input row's columns and their values.
    pub columns: &'a [(Column, SqlVal)],
    /// Variables of the job that hold Column expressions (`amount =
    /// F.col("amount")`), as their code.
    pub env: &'a BTreeMap<String, Node>,
    /// Variables that hold the DataFrame being transformed (for
    /// `orders["amount"]` and `orders.amount`).
    pub frames: &'a [String],
}

/// The lowering of expressions into `f`.
pub struct Exprs<'a, 'b, 's> {
    pub builder: &'a mut Builder<'s>,
    pub f: &'a mut Function,
    pub cx: &'a Context<'b>,
    /// Whether this is a filter's condition, whose outcome (kept or
    /// dropped) is already the decision an `isNull` would make.
    pub predicate: bool,
}

impl Exprs<'_, '_, '_> {
    pub(super) fn loc_bool(&mut self, b: bool, loc: &Loc) -> Value {
        self.f.bool(b, loc)
    }

    /// `a && b` of optional flags (`None`: always true).
    pub(super) fn both(
        &mut self,
        a: &Option<Value>,
        b: &Option<Value>,
        loc: &Loc,
    ) -> Option<Value> {
        match (a, b) {
            (None, None) => None,
            (Some(x), None) | (None, Some(x)) => Some(x.clone()),
            (Some(x), Some(y)) => Some(self.f.binary("andi", x, y, Ty::Bool, loc)),
        }
    }

    pub(super) fn not(&mut self, v: &Value, loc: &Loc) -> Value {
        let one = self.loc_bool(true, loc);
        self.f.binary("xori", v, &one, Ty::Bool, loc)
    }

    /// The default value of `ty`, where a value is NULL.
    pub fn default(&mut self, ty: SqlTy, loc: &Loc) -> Value {
        match ty {
            SqlTy::Str => self.f.str("", loc),
            SqlTy::Int | SqlTy::Long => self.f.int(0, loc),
            SqlTy::Float | SqlTy::Double => self.f.float(0.0, loc),
            SqlTy::Bool => self.f.bool(false, loc),
        }
    }

    /// `v`'s value, or the type's default where it is NULL: what a
    /// record holds, so equal rows are equal field by field.
    pub fn normalized(&mut self, v: &SqlVal, loc: &Loc) -> Value {
        match &v.present {
            None => v.value.clone(),
            Some(p) => {
                let default = self.default(v.ty, loc);
                self.f.select(p, &v.value, &default, loc)
            }
        }
    }

    /// A decision: the path goes one way where `cond` holds and another
    /// where it does not, and both go on in one block.
    pub fn decide(&mut self, cond: &Value, loc: &Loc) {
        let (yes, _) = self.f.block(&[]);
        let (no, _) = self.f.block(&[]);
        let (join, _) = self.f.block(&[]);
        self.f.cond_br(cond, (yes, &[]), (no, &[]), loc);
        self.f.switch_to(yes);
        self.f.br(join, &[], loc);
        self.f.switch_to(no);
        self.f.br(join, &[], loc);
        self.f.switch_to(join);
    }

    pub(super) fn literal(&mut self, c: &Constant, loc: &Loc) -> Result<SqlVal> {
        let (value, ty) = match c {
            Constant::Int(digits) => match digits.parse::<i64>() {
                // Spark types a Python int literal INT where it fits.
                Ok(n) if i32::try_from(n).is_ok() => (self.f.int(n, loc), SqlTy::Int),
                Ok(n) => (self.f.int(n, loc), SqlTy::Long),
                Err(_) => {
                    return unsupported(loc, format!("the literal {digits} does not fit a bigint"))
                }
            },
            Constant::Float(x) => (self.f.float(*x, loc), SqlTy::Double),
            Constant::Str(s) => (self.f.str(s, loc), SqlTy::Str),
            Constant::Bool(b) => (self.f.bool(*b, loc), SqlTy::Bool),
            Constant::None => {
                return unsupported(
                    loc,
                    "an untyped NULL literal (lit(None)); use lit(None).cast(\"type\")",
                )
            }
            Constant::Other(text) => {
                return unsupported(loc, format!("the literal {text} is not a SQL value"))
            }
        };
        Ok(SqlVal {
            present: None,
            value,
            ty,
        })
    }

    pub(super) fn null_of(&mut self, ty: SqlTy, loc: &Loc) -> SqlVal {
        let present = Some(self.loc_bool(false, loc));
        let value = self.default(ty, loc);
        SqlVal { present, value, ty }
    }

    /// The value of column expression `node`.
    pub fn lower(&mut self, node: &Node) -> Result<SqlVal> {
        let loc = node.loc.clone();
        if let Some(text) = column_reference(node, self.cx) {
            let names = self.cx.columns.iter().map(|(c, _)| c.name.as_str());
            let name = super::names::canonical(names, &text, &loc)?;
            return match self.cx.columns.iter().find(|(c, _)| c.name == name) {
                Some((_, v)) => Ok(v.clone()),
                None => {
                    let names: Vec<&str> = self
                        .cx
                        .columns
                        .iter()
                        .map(|(c, _)| c.name.as_str())
                        .collect();
                    unsupported(
                        &loc,
                        format!(
                            "no column {name} here; the DataFrame's columns are {}",
                            names.join(", ")
                        ),
                    )
                }
            };
        }
        if let Some(name) = node.name() {
            if let Some(code) = self.cx.env.get(&name) {
                let code = code.clone();
                return self.lower(&code);
            }
            if let Some(c) = self.builder.scope().constants.get(&name).cloned() {
                return self.literal(&c, &loc);
            }
            return unsupported(
                &loc,
                format!("{name} is not a Column of this job or a module-level constant"),
            );
        }
        if node.is("Constant") {
            let c = node.constant().unwrap_or(Constant::None);
            return self.literal(&c, &loc);
        }
        match node.kind.as_str() {
            // `F.split(s, ",")[1]`: getItem.
            "Subscript" => {
                return self.get_item(&node.expect("value"), &node.expect("slice"), &loc);
            }
            "BinOp" => {
                let op = node.op_kind("op").unwrap_or_default();
                let a = self.lower(&node.expect("left"))?;
                let b = self.lower(&node.expect("right"))?;
                return match op.as_str() {
                    "BitAnd" => self.logic(true, &a, &b, &loc),
                    "BitOr" => self.logic(false, &a, &b, &loc),
                    _ => self.arithmetic(&op, &a, &b, &loc),
                };
            }
            "UnaryOp" => {
                let op = node.op_kind("op").unwrap_or_default();
                let a = self.lower(&node.expect("operand"))?;
                return match (op.as_str(), a.ty) {
                    ("Invert", SqlTy::Bool) => {
                        let value = self.not(&a.value, &loc);
                        Ok(SqlVal { value, ..a })
                    }
                    ("USub", SqlTy::Double | SqlTy::Float) => {
                        let value = self.f.op(format!("arith.negf {} : f64", a.value.name), Ty::Float, &loc);
                        Ok(SqlVal { value, ..a })
                    }
                    ("USub", SqlTy::Int | SqlTy::Long) => {
                        let zero = self.f.int(0, &loc);
                        let value = self.f.binary("subi", &zero, &a.value, Ty::Int, &loc);
                        let value = self.wrap(value, a.ty, &loc);
                        Ok(SqlVal { value, ..a })
                    }
                    ("Not", _) => unsupported(&loc, "`not` of a Column: Python's `not` asks for a Column's truth, which PySpark refuses; use ~"),
                    _ => unsupported(&loc, format!("{op} of a {} column is not supported", a.ty.name())),
                };
            }
            "BoolOp" => {
                return unsupported(
                    &loc,
                    "`and`/`or` of Columns: PySpark refuses a Column's truth; use & and | (with parentheses)",
                )
            }
            "Compare" => {
                let ops = node.compare_ops();
                let comparators = node.list("comparators");
                let ([op], [right]) = (&ops[..], &comparators[..]) else {
                    return unsupported(&loc, "a chained comparison of Columns; compare two at a time and combine with &");
                };
                let a = self.lower(&node.expect("left"))?;
                let b = self.lower(right)?;
                return self.compare(op, &a, &b, &loc);
            }
            "Call" => {}
            _ => {
                return unsupported(
                    &loc,
                    format!("{} is not a Column expression coco-bigtest reads", describe(node)),
                )
            }
        }
        if let Some((receiver, method, args)) = method_call(node) {
            if !functions_call(node)
                || receiver
                    .name()
                    .is_some_and(|n| self.cx.env.contains_key(&n))
            {
                return self.column_method(&receiver, &method, &args, node);
            }
        }
        let name = callee(node).unwrap_or_default();
        let args = node.list("args");
        if let Some(python) = python_udf(self.builder, &name, &loc)? {
            return self.call_udf(&name, &python, &args, &loc);
        }
        self.function(&name, &args, node)
    }

    /// INT arithmetic wraps at 32 bits, as the JVM's does with ANSI off.
    pub(super) fn wrap(&mut self, v: Value, ty: SqlTy, loc: &Loc) -> Value {
        if ty != SqlTy::Int {
            return v;
        }
        let half = self.f.int(1 << 31, loc);
        let full = self.f.int(1 << 32, loc);
        let shifted = self.f.binary("addi", &v, &half, Ty::Int, loc);
        let reduced = self.f.df2("mod", &shifted, &full, Ty::Int, loc);
        self.f.binary("subi", &reduced, &half, Ty::Int, loc)
    }

    pub(super) fn as_double(&mut self, v: &SqlVal, loc: &Loc) -> SqlVal {
        if v.ty.is_floating() {
            // A FLOAT widens to the double that holds it already.
            return SqlVal {
                ty: SqlTy::Double,
                ..v.clone()
            };
        }
        let value = self.f.op(
            format!("arith.sitofp {} : i64 to f64", v.value.name),
            Ty::Float,
            loc,
        );
        SqlVal {
            present: v.present.clone(),
            value,
            ty: SqlTy::Double,
        }
    }

    pub(super) fn arithmetic(
        &mut self,
        op: &str,
        a: &SqlVal,
        b: &SqlVal,
        loc: &Loc,
    ) -> Result<SqlVal> {
        let Some(ty) = a.ty.wider(b.ty).filter(|t| t.is_numeric()) else {
            return unsupported(
                loc,
                format!(
                    "arithmetic of {} and {} (Spark would cast; write the cast)",
                    a.ty.name(),
                    b.ty.name()
                ),
            );
        };
        if ty == SqlTy::Float && op != "Div" {
            return unsupported(
                loc,
                "arithmetic on a float (FLOAT) column rounds to 32 bits, which coco does not model; cast it to double first",
            );
        }
        let present = self.both(&a.present, &b.present, loc);
        if op == "Div" {
            // `/` is always double; a zero divisor gives NULL.
            let x = self.as_double(a, loc);
            let y = self.as_double(b, loc);
            return self.guarded_division(&x, &y, present, "divf", SqlTy::Double, loc);
        }
        let (x, y) = if ty == SqlTy::Double {
            (self.as_double(a, loc), self.as_double(b, loc))
        } else {
            (a.clone(), b.clone())
        };
        let name = match (op, ty) {
            ("Add", SqlTy::Double) => "addf",
            ("Sub", SqlTy::Double) => "subf",
            ("Mult", SqlTy::Double) => "mulf",
            ("Add", _) => "addi",
            ("Sub", _) => "subi",
            ("Mult", _) => "muli",
            ("Mod", SqlTy::Int | SqlTy::Long) => {
                return self.guarded_division(&x, &y, present, "remsi", ty, loc);
            }
            _ => {
                return unsupported(
                    loc,
                    format!(
                        "the operator {op} on {} columns is not supported",
                        ty.name()
                    ),
                )
            }
        };
        let value = self.f.binary(name, &x.value, &y.value, ty.ty(), loc);
        let value = self.wrap(value, ty, loc);
        Ok(SqlVal { present, value, ty })
    }

    /// `a / b` or `a % b`: NULL where `b` is 0 (or NULL), a decision of
    /// its own; the operation runs only where the divisor is not 0.
    pub(super) fn guarded_division(
        &mut self,
        a: &SqlVal,
        b: &SqlVal,
        present: Option<Value>,
        op: &str,
        ty: SqlTy,
        loc: &Loc,
    ) -> Result<SqlVal> {
        let zero = self.default(b.ty, loc);
        let is_zero = match b.ty {
            SqlTy::Double | SqlTy::Float => self.f.op(
                format!("arith.cmpf oeq, {}, {} : f64", b.value.name, zero.name),
                Ty::Bool,
                loc,
            ),
            _ => self.f.op(
                format!("arith.cmpi eq, {}, {} : i64", b.value.name, zero.name),
                Ty::Bool,
                loc,
            ),
        };
        let (by_zero, _) = self.f.block(&[]);
        let (by_value, _) = self.f.block(&[]);
        let (join, args) = self.f.block(&[Ty::Bool, ty.ty()]);
        self.f
            .cond_br(&is_zero, (by_zero, &[]), (by_value, &[]), loc);
        self.f.switch_to(by_zero);
        let absent = self.f.bool(false, loc);
        let default = self.default(ty, loc);
        self.f.br(join, &[absent, default], loc);
        self.f.switch_to(by_value);
        let value = self.f.binary(op, &a.value, &b.value, ty.ty(), loc);
        let known = match present {
            Some(p) => p,
            None => self.f.bool(true, loc),
        };
        self.f.br(join, &[known, value], loc);
        self.f.switch_to(join);
        Ok(SqlVal {
            present: Some(args[0].clone()),
            value: args[1].clone(),
            ty,
        })
    }

    /// `&` (`and`) or `|` of booleans, three-valued (Kleene).
    pub(super) fn logic(&mut self, and: bool, a: &SqlVal, b: &SqlVal, loc: &Loc) -> Result<SqlVal> {
        if a.ty != SqlTy::Bool || b.ty != SqlTy::Bool {
            return unsupported(
                loc,
                format!(
                    "{} of {} and {}: both sides must be boolean Columns",
                    if and { "&" } else { "|" },
                    a.ty.name(),
                    b.ty.name()
                ),
            );
        }
        let op = if and { "andi" } else { "ori" };
        let va = self.normalized(a, loc);
        let vb = self.normalized(b, loc);
        let value = self.f.binary(op, &va, &vb, Ty::Bool, loc);
        let present = match (&a.present, &b.present) {
            (None, None) => None,
            _ => {
                // Known where both are, or where one side alone decides:
                // a present false for `&`, a present true for `|`.
                let t = self.loc_bool(true, loc);
                let pa = a.present.clone().unwrap_or_else(|| t.clone());
                let pb = b.present.clone().unwrap_or_else(|| t.clone());
                let both = self.f.binary("andi", &pa, &pb, Ty::Bool, loc);
                let (da, db) = if and {
                    let na = self.not(&a.value, loc);
                    let nb = self.not(&b.value, loc);
                    (na, nb)
                } else {
                    (a.value.clone(), b.value.clone())
                };
                let a_decides = self.f.binary("andi", &pa, &da, Ty::Bool, loc);
                let b_decides = self.f.binary("andi", &pb, &db, Ty::Bool, loc);
                let either = self.f.binary("ori", &a_decides, &b_decides, Ty::Bool, loc);
                Some(self.f.binary("ori", &both, &either, Ty::Bool, loc))
            }
        };
        Ok(SqlVal {
            present,
            value,
            ty: SqlTy::Bool,
        })
    }

    pub(super) fn compare(
        &mut self,
        op: &str,
        a: &SqlVal,
        b: &SqlVal,
        loc: &Loc,
    ) -> Result<SqlVal> {
        let present = self.both(&a.present, &b.present, loc);
        let value = match (a.ty, b.ty) {
            (SqlTy::Str, SqlTy::Str) => {
                let equal = self.f.df2("str_eq", &a.value, &b.value, Ty::Bool, loc);
                match op {
                    "Eq" => equal,
                    "NotEq" => self.not(&equal, loc),
                    _ => {
                        return unsupported(
                            loc,
                            "ordering comparisons of strings (<, >) are not supported yet; == and != are",
                        )
                    }
                }
            }
            (SqlTy::Bool, SqlTy::Bool) => {
                let pred = match op {
                    "Eq" => "eq",
                    "NotEq" => "ne",
                    _ => {
                        return unsupported(
                            loc,
                            "ordering comparisons of booleans are not supported",
                        )
                    }
                };
                self.f.op(
                    format!("arith.cmpi {pred}, {}, {} : i1", a.value.name, b.value.name),
                    Ty::Bool,
                    loc,
                )
            }
            (x, y) => {
                let Some(ty) = x.wider(y).filter(|t| t.is_numeric()) else {
                    return unsupported(
                        loc,
                        format!(
                            "a comparison of {} and {} (Spark would cast; write the cast)",
                            x.name(),
                            y.name()
                        ),
                    );
                };
                if ty.is_floating() {
                    let (fa, fb) = (self.as_double(a, loc), self.as_double(b, loc));
                    let pred = match op {
                        "Eq" => "oeq",
                        "NotEq" => "une",
                        "Lt" => "olt",
                        "LtE" => "ole",
                        "Gt" => "ogt",
                        _ => "oge",
                    };
                    self.f.op(
                        format!(
                            "arith.cmpf {pred}, {}, {} : f64",
                            fa.value.name, fb.value.name
                        ),
                        Ty::Bool,
                        loc,
                    )
                } else {
                    let pred = match op {
                        "Eq" => "eq",
                        "NotEq" => "ne",
                        "Lt" => "slt",
                        "LtE" => "sle",
                        "Gt" => "sgt",
                        _ => "sge",
                    };
                    self.f.op(
                        format!(
                            "arith.cmpi {pred}, {}, {} : i64",
                            a.value.name, b.value.name
                        ),
                        Ty::Bool,
                        loc,
                    )
                }
            }
        };
        if !matches!(op, "Eq" | "NotEq" | "Lt" | "LtE" | "Gt" | "GtE") {
            return unsupported(
                loc,
                format!("the comparison {op} of Columns is not supported"),
            );
        }
        Ok(SqlVal {
            present,
            value,
            ty: SqlTy::Bool,
        })
    }

    /// `F.when(c1, v1).when(c2, v2).otherwise(v)`: each condition is a
    /// decision (true, or false/NULL), in order; no `otherwise` is NULL.
    pub(super) fn when(
        &mut self,
        arms: Vec<(Node, Node)>,
        otherwise: Option<Node>,
        loc: &Loc,
    ) -> Result<SqlVal> {
        // The result type: the widest of the arms' types, found by
        // lowering each arm in the block it runs in.
        let mut results: Vec<(crate::ir::BlockId, SqlVal)> = Vec::new();
        for (cond, value) in &arms {
            let c = self.lower(cond)?;
            if c.ty != SqlTy::Bool {
                return unsupported(
                    &cond.loc,
                    format!(
                        "when()'s condition is a {} Column, not a boolean",
                        c.ty.name()
                    ),
                );
            }
            let holds = self.normalized(&c, &cond.loc);
            let (then, _) = self.f.block(&[]);
            let (next, _) = self.f.block(&[]);
            self.f.cond_br(&holds, (then, &[]), (next, &[]), &cond.loc);
            self.f.switch_to(then);
            let v = self.lower(value)?;
            results.push((self.f.current(), v));
            self.f.switch_to(next);
        }
        let fallback = match &otherwise {
            Some(node) => Some(self.lower(node)?),
            None => None,
        };
        let mut ty = results[0].1.ty;
        for v in results.iter().map(|(_, v)| v).chain(fallback.as_ref()) {
            ty = match ty.wider(v.ty) {
                Some(t) => t,
                None => {
                    return unsupported(
                        loc,
                        format!(
                            "when()'s values are {} and {}; they must have one type",
                            ty.name(),
                            v.ty.name()
                        ),
                    )
                }
            };
        }
        let fallback = match fallback {
            Some(v) => self.cast(&v, ty, loc)?,
            None => self.null_of(ty, loc),
        };
        let nullable =
            fallback.present.is_some() || results.iter().any(|(_, v)| v.present.is_some());
        let fallback_block = self.f.current();
        results.push((fallback_block, fallback));
        // Arms that are NULL exactly where one earlier value is
        // (`when(c, -x).otherwise(x)`) share its flag: a flag of its own
        // would be a second decision on the same fact for every step after.
        let shared = results[0].1.present.clone().filter(|p| {
            results
                .iter()
                .all(|(_, v)| v.present.as_ref().map(|q| &q.name) == Some(&p.name))
        });
        let carried = if shared.is_some() {
            vec![ty.ty()]
        } else {
            vec![Ty::Bool, ty.ty()]
        };
        let (join, args) = self.f.block(&carried);
        for (block, v) in results {
            self.f.switch_to(block);
            let v = self.cast(&v, ty, loc)?;
            let value = self.normalized(&v, loc);
            if shared.is_some() {
                self.f.br(join, &[value], loc);
                continue;
            }
            let present = match v.present {
                Some(p) => p,
                None => self.loc_bool(true, loc),
            };
            self.f.br(join, &[present, value], loc);
        }
        self.f.switch_to(join);
        Ok(match shared {
            Some(p) => SqlVal {
                present: Some(p),
                value: args[0].clone(),
                ty,
            },
            None => SqlVal {
                present: nullable.then(|| args[0].clone()),
                value: args[1].clone(),
                ty,
            },
        })
    }

    pub(super) fn coalesce(&mut self, values: &[SqlVal], loc: &Loc) -> Result<SqlVal> {
        let mut ty = values[0].ty;
        for v in values {
            ty = ty
                .wider(v.ty)
                .ok_or_else(|| crate::error::ImportError::Unsupported {
                    loc: loc.clone(),
                    message: format!(
                        "coalesce of {} and {}: one type is needed",
                        ty.name(),
                        v.ty.name()
                    ),
                })?;
        }
        let mut acc = self.cast(values.last().expect("one value"), ty, loc)?;
        for v in values.iter().rev().skip(1) {
            let v = self.cast(v, ty, loc)?;
            acc = match &v.present {
                None => v,
                Some(p) => {
                    let value = self.f.select(p, &v.value, &acc.value, loc);
                    let present = acc
                        .present
                        .as_ref()
                        .map(|q| self.f.binary("ori", p, q, Ty::Bool, loc));
                    SqlVal { present, value, ty }
                }
            };
        }
        Ok(acc)
    }

    /// `CAST(v AS to)` with ANSI off. Casts whose Spark semantics the df
    /// ops do not yet reproduce exactly are refused.
    pub fn cast(&mut self, v: &SqlVal, to: SqlTy, loc: &Loc) -> Result<SqlVal> {
        use SqlTy::*;
        let value = match (v.ty, to) {
            (a, b) if a == b => return Ok(v.clone()),
            (Int, Long) => v.value.clone(),
            (Long, Int) => self.wrap(v.value.clone(), Int, loc),
            (Int | Long | Float, Double) => self.as_double(v, loc).value,
            (Double, Long) => self.f.op(format!("arith.fptosi {} : f64 to i64", v.value.name), Ty::Int, loc),
            (Double, Int) => {
                // Java's (int) of a double saturates (3e9 is 2147483647);
                // it is not (int) of the (long).
                let clamped = self.clamp_to_int(&v.value, loc);
                self.f.op(format!("arith.fptosi {} : f64 to i64", clamped.name), Ty::Int, loc)
            }
            (Int | Long, Str) => self.f.op(format!("df.to_str {} : i64", v.value.name), Ty::Str, loc),
            (Bool, Str) => {
                let t = self.f.str("true", loc);
                let f = self.f.str("false", loc);
                self.f.select(&v.value, &t, &f, loc)
            }
            (Bool, Int | Long) => self.f.op(format!("arith.extui {} : i1 to i64", v.value.name), Ty::Int, loc),
            (Str, Int | Long | Double | Bool) => return Ok(self.cast_string(v, to, loc)),
            (Int | Long, Bool) => {
                let zero = self.f.int(0, loc);
                self.f.op(format!("arith.cmpi ne, {}, {} : i64", v.value.name, zero.name), Ty::Bool, loc)
            }
            (from, to) => {
                return unsupported(
                    loc,
                    format!(
                        "a cast from {} to {} is not supported yet (Spark prints doubles as Java does, not as Python does; format in a UDF)",
                        from.name(),
                        to.name()
                    ),
                )
            }
        };
        Ok(SqlVal {
            present: v.present.clone(),
            value,
            ty: to,
        })
    }

    /// `CAST(s AS to)` of a string: `df.sql_cast`, NULL where Spark's
    /// parse fails (ANSI off) as well as where `s` is NULL.
    fn cast_string(&mut self, v: &SqlVal, to: SqlTy, loc: &Loc) -> SqlVal {
        let target = match to {
            SqlTy::Int => "int",
            SqlTy::Long => "bigint",
            SqlTy::Double => "double",
            SqlTy::Bool => "boolean",
            SqlTy::Str | SqlTy::Float => unreachable!("no cast of a string to itself or to float"),
        };
        let option_ty = Ty::Option(Box::new(to.ty()));
        let parsed = self.f.op(
            format!(
                "df.sql_cast {} to {target} : {}",
                v.value.name,
                option_ty.mlir()
            ),
            option_ty.clone(),
            loc,
        );
        let parsed = self.option_value(&parsed, to, loc);
        SqlVal {
            present: self.both(&v.present, &parsed.present, loc),
            ..parsed
        }
    }

    /// The value of an `!df.option` of `ty`'s field as a NULL-able value:
    /// NULL where it is absent.
    pub(super) fn option_value(&mut self, option: &Value, ty: SqlTy, loc: &Loc) -> SqlVal {
        let present = self.f.op(
            format!("df.is_present {} : {}", option.name, option.ty.mlir()),
            Ty::Bool,
            loc,
        );
        let default = self.default(ty, loc);
        let value = self.f.op(
            format!(
                "df.value_or {}, {} : {}, {}",
                option.name,
                default.name,
                option.ty.mlir(),
                ty.ty().mlir()
            ),
            ty.ty(),
            loc,
        );
        SqlVal {
            present: Some(present),
            value,
            ty,
        }
    }

    /// `x` within [-2^31, 2^31 - 1], NaN left as it is (fptosi makes it 0).
    fn clamp_to_int(&mut self, x: &Value, loc: &Loc) -> Value {
        let high = self.f.float(f64::from(i32::MAX), loc);
        let low = self.f.float(f64::from(i32::MIN), loc);
        let above = self.f.op(
            format!("arith.cmpf ogt, {}, {} : f64", x.name, high.name),
            Ty::Bool,
            loc,
        );
        let capped = self.f.select(&above, &high, x, loc);
        let below = self.f.op(
            format!("arith.cmpf olt, {}, {} : f64", capped.name, low.name),
            Ty::Bool,
            loc,
        );
        self.f.select(&below, &low, &capped, loc)
    }
}
