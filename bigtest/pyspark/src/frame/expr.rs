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
    frame::schema::{Column, SqlTy, SUPPORTED_TYPES},
    ir::{Function, Ty, TyText, Value},
    job::Builder,
    shape::Shape,
    syntax::{Constant, Node},
    udf::{self, describe, Apply},
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

/// The name a column computed by `node` gets where no alias names it: the
/// column's own name for a reference, else the code.
pub fn default_name(node: &Node, cx: &Context) -> String {
    if let Some(name) = column_reference(node, cx) {
        return name;
    }
    render(node)
}

/// The code of `node` as the job wrote it (near enough for a diagnostic:
/// `F.col("x").cast("date")`, `(a + b)`).
pub fn render(node: &Node) -> String {
    let list = |nodes: Vec<Node>| nodes.iter().map(render).collect::<Vec<_>>().join(", ");
    match node.kind.as_str() {
        "Name" => node.name().unwrap_or_default(),
        "Constant" => match node.constant() {
            Some(Constant::Str(s)) => format!("{s:?}"),
            Some(Constant::Int(d)) => d,
            Some(Constant::Float(x)) => x.to_string(),
            Some(Constant::Bool(b)) => if b { "True" } else { "False" }.into(),
            Some(Constant::None) => "None".into(),
            _ => describe(node),
        },
        "Attribute" => format!(
            "{}.{}",
            render(&node.expect("value")),
            node.str("attr").unwrap_or_default()
        ),
        "Subscript" => format!(
            "{}[{}]",
            render(&node.expect("value")),
            render(&node.expect("slice"))
        ),
        "List" => format!("[{}]", list(node.list("elts"))),
        "Tuple" => format!("({})", list(node.list("elts"))),
        "Call" => {
            let mut args: Vec<String> = node.list("args").iter().map(render).collect();
            for k in node.list("keywords") {
                args.push(format!(
                    "{}={}",
                    k.str("arg").unwrap_or_default(),
                    render(&k.expect("value"))
                ));
            }
            format!("{}({})", render(&node.expect("func")), args.join(", "))
        }
        "BinOp" | "Compare" => {
            let (op, right) = if node.is("BinOp") {
                (node.op_kind("op").unwrap_or_default(), node.expect("right"))
            } else {
                (
                    node.compare_ops().first().cloned().unwrap_or_default(),
                    node.list("comparators")
                        .first()
                        .cloned()
                        .unwrap_or_else(|| node.clone()),
                )
            };
            let symbol = match op.as_str() {
                "Add" => "+",
                "Sub" => "-",
                "Mult" => "*",
                "Div" => "/",
                "Mod" => "%",
                "BitAnd" => "&",
                "BitOr" => "|",
                "Eq" => "==",
                "NotEq" => "!=",
                "Lt" => "<",
                "LtE" => "<=",
                "Gt" => ">",
                "GtE" => ">=",
                other => other,
            };
            format!(
                "({} {symbol} {})",
                render(&node.expect("left")),
                render(&right)
            )
        }
        "UnaryOp" => {
            let op = match node.op_kind("op").as_deref() {
                Some("USub") => "-",
                Some("Invert") => "~",
                Some("Not") => "not ",
                _ => "",
            };
            format!("{op}{}", render(&node.expect("operand")))
        }
        _ => describe(node),
    }
}

/// `F.col("x")`, `col("x")`, `df["x"]`, `df.x` or `"x"` (where a method
/// takes column names): the column name it refers to.
pub fn column_reference(node: &Node, cx: &Context) -> Option<String> {
    if let Some(name) = node.name() {
        if let Some(code) = cx.env.get(&name) {
            return column_reference(code, cx);
        }
    }
    if node.is("Call") {
        let func = node.expect("func");
        let callee = func.name().or_else(|| func.str("attr"))?;
        if matches!(callee.as_str(), "col" | "column") {
            if let [arg] = &node.list("args")[..] {
                return arg.str_constant();
            }
        }
        return None;
    }
    if node.is("Subscript") {
        let frame = node.expect("value").name()?;
        if cx.frames.contains(&frame) {
            return node.expect("slice").str_constant();
        }
    }
    if node.is("Attribute") {
        let frame = node.expect("value").name()?;
        if cx.frames.contains(&frame) {
            let attr = node.str("attr")?;
            if cx.columns.iter().any(|(c, _)| c.name == attr) {
                return Some(attr);
            }
        }
    }
    None
}

/// The callee's name of a call: `F.when` and `when` are both `when`.
pub fn callee(node: &Node) -> Option<String> {
    if !node.is("Call") {
        return None;
    }
    let func = node.expect("func");
    func.name().or_else(|| func.str("attr"))
}

/// A `Column` method call `receiver.method(args)`: its parts.
fn method_call(node: &Node) -> Option<(Node, String, Vec<Node>)> {
    if !node.is("Call") {
        return None;
    }
    let func = node.expect("func");
    if !func.is("Attribute") {
        return None;
    }
    Some((
        func.expect("value"),
        func.str("attr").unwrap_or_default(),
        node.list("args"),
    ))
}

/// Whether `node` calls a function of `pyspark.sql.functions` (`F.lit`,
/// `functions.lit` or an imported `lit`), not a Column's method.
fn functions_call(node: &Node) -> bool {
    if !node.is("Call") {
        return false;
    }
    let func = node.expect("func");
    func.is("Name") || (func.is("Attribute") && func.expect("value").is("Name"))
}

/// A Python UDF of the job: what a column expression calls.
pub struct PythonUdf {
    pub callable: Node,
    pub returns: SqlTy,
}

/// The Python UDF `name` names, if it is one: a module-level `name =
/// F.udf(f, type)` or a `def` decorated with `@udf` / `@F.udf(type)`.
pub fn python_udf(builder: &Builder, name: &str, at: &Loc) -> Result<Option<PythonUdf>> {
    let scope = builder.scope();
    let return_type = |call: &Node, positional: usize| -> Result<SqlTy> {
        let mut ty = call.list("args").get(positional).cloned();
        for keyword in call.list("keywords") {
            if keyword.str("arg").as_deref() == Some("returnType") {
                ty = keyword.child("value");
            }
        }
        match ty {
            // PySpark's default return type.
            None => Ok(SqlTy::Str),
            Some(ty) => SqlTy::from_node(&ty).map_or_else(
                || {
                    unsupported(
                        &ty.loc,
                        format!(
                            "the UDF's return type is {}; supported types are {SUPPORTED_TYPES}",
                            render(&ty)
                        ),
                    )
                },
                Ok,
            ),
        }
    };
    if let Some(value) = scope.values.get(name) {
        if callee(value).as_deref() == Some("udf") {
            let Some(callable) = value.list("args").first().cloned() else {
                return unsupported(&value.loc, "udf() takes the Python function first");
            };
            return Ok(Some(PythonUdf {
                callable,
                returns: return_type(value, 1)?,
            }));
        }
        if callee(value).as_deref() == Some("pandas_udf") {
            return unsupported(at, format!("{name} is a pandas_udf; Python UDFs of scalars (udf) are supported, pandas UDFs are not"));
        }
    }
    if let Some(def) = scope.defs.get(name) {
        for decorator in def.list("decorator_list") {
            let is_udf = |n: &Node| {
                n.name().as_deref() == Some("udf") || n.str("attr").as_deref() == Some("udf")
            };
            if is_udf(&decorator) {
                return Ok(Some(PythonUdf {
                    callable: def.clone(),
                    returns: SqlTy::Str,
                }));
            }
            if decorator.is("Call") && is_udf(&decorator.expect("func")) {
                return Ok(Some(PythonUdf {
                    callable: def.clone(),
                    returns: return_type(&decorator, 0)?,
                }));
            }
        }
    }
    Ok(None)
}

impl Exprs<'_, '_, '_> {
    fn loc_bool(&mut self, b: bool, loc: &Loc) -> Value {
        self.f.bool(b, loc)
    }

    /// `a && b` of optional flags (`None`: always true).
    fn both(&mut self, a: &Option<Value>, b: &Option<Value>, loc: &Loc) -> Option<Value> {
        match (a, b) {
            (None, None) => None,
            (Some(x), None) | (None, Some(x)) => Some(x.clone()),
            (Some(x), Some(y)) => Some(self.f.binary("andi", x, y, Ty::Bool, loc)),
        }
    }

    fn not(&mut self, v: &Value, loc: &Loc) -> Value {
        let one = self.loc_bool(true, loc);
        self.f.binary("xori", v, &one, Ty::Bool, loc)
    }

    /// The default value of `ty`, where a value is NULL.
    pub fn default(&mut self, ty: SqlTy, loc: &Loc) -> Value {
        match ty {
            SqlTy::Str => self.f.str("", loc),
            SqlTy::Int | SqlTy::Long => self.f.int(0, loc),
            SqlTy::Double => self.f.float(0.0, loc),
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

    fn literal(&mut self, c: &Constant, loc: &Loc) -> Result<SqlVal> {
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

    fn null_of(&mut self, ty: SqlTy, loc: &Loc) -> SqlVal {
        let present = Some(self.loc_bool(false, loc));
        let value = self.default(ty, loc);
        SqlVal { present, value, ty }
    }

    /// The value of column expression `node`.
    pub fn lower(&mut self, node: &Node) -> Result<SqlVal> {
        let loc = node.loc.clone();
        if let Some(name) = column_reference(node, self.cx) {
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
                    ("USub", SqlTy::Double) => {
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

    /// An argument of a function of `pyspark.sql.functions` or of a UDF:
    /// a string there names a column (`F.length("name")`).
    fn column_arg(&mut self, arg: &Node) -> Result<SqlVal> {
        match arg.str_constant() {
            Some(name) => match self.cx.columns.iter().find(|(c, _)| c.name == name) {
                Some((_, v)) => Ok(v.clone()),
                None => unsupported(&arg.loc, format!("no column {name} (a string argument of a function names a column; use lit() for a string)")),
            },
            None => self.lower(arg),
        }
    }

    /// A function of `pyspark.sql.functions` applied to `args`.
    fn function(&mut self, name: &str, args: &[Node], node: &Node) -> Result<SqlVal> {
        let loc = node.loc.clone();
        match (name, args) {
            ("lit", [arg]) => self.lower(arg),
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
            ("abs", [arg]) => {
                let a = self.column_arg(arg)?;
                if !a.ty.is_numeric() {
                    return unsupported(&loc, format!("abs of a {} column", a.ty.name()));
                }
                let zero = self.default(a.ty, &loc);
                let neg = self.arithmetic("Sub", &SqlVal { present: None, value: zero, ty: a.ty }, &a, &loc)?;
                let (pred, cmp) = if a.ty == SqlTy::Double { ("olt", "arith.cmpf") } else { ("slt", "arith.cmpi") };
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
                    "{name}() is not a Column function coco-bigtest reads (supported: col, lit, when/otherwise, coalesce, split(...).getItem, lower, upper, length, concat, concat_ws, substring, abs, and Python UDFs made with udf)"
                ),
            ),
        }
    }

    fn string_arg(&mut self, arg: &Node, function: &str) -> Result<SqlVal> {
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
    fn column_method(
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

    /// Item `index` of `F.split(s, pattern)` (`list`, or a variable
    /// holding it): NULL past the end or where `s` is NULL, as Spark's
    /// `getItem` with ANSI off. The pattern is a regular expression in
    /// Spark; one without metacharacters splits as Python's `str.split`
    /// does (every piece kept, trailing empty ones too).
    fn get_item(&mut self, list: &Node, index: &Node, loc: &Loc) -> Result<SqlVal> {
        let mut split = list.clone();
        while let Some(code) = split.name().and_then(|n| self.cx.env.get(&n).cloned()) {
            split = code;
        }
        if callee(&split).as_deref() != Some("split") || !functions_call(&split) {
            return unsupported(
                loc,
                format!("getItem of {}: items of F.split(column, pattern) are supported (arrays otherwise are not)", render(list)),
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
        let i = match index.constant() {
            Some(Constant::Int(d)) if index.is("Constant") => d.parse::<usize>().ok(),
            _ => None,
        };
        let Some(i) = i else {
            return unsupported(&index.loc, "getItem takes a constant index of 0 or more");
        };
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
            list_ty.clone(),
            loc,
        );
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
        let found = self.f.op(
            format!("df.is_present {} : {}", item.name, option_ty.mlir()),
            Ty::Bool,
            loc,
        );
        let empty = self.f.str("", loc);
        let value = self.f.op(
            format!(
                "df.value_or {}, {} : {}, !df.str",
                item.name,
                empty.name,
                option_ty.mlir()
            ),
            Ty::Str,
            loc,
        );
        let present = match &s.present {
            Some(p) => self.f.binary("andi", p, &found, Ty::Bool, loc),
            None => found,
        };
        Ok(SqlVal {
            present: Some(present),
            value,
            ty: SqlTy::Str,
        })
    }

    /// INT arithmetic wraps at 32 bits, as the JVM's does with ANSI off.
    fn wrap(&mut self, v: Value, ty: SqlTy, loc: &Loc) -> Value {
        if ty != SqlTy::Int {
            return v;
        }
        let half = self.f.int(1 << 31, loc);
        let full = self.f.int(1 << 32, loc);
        let shifted = self.f.binary("addi", &v, &half, Ty::Int, loc);
        let reduced = self.f.df2("mod", &shifted, &full, Ty::Int, loc);
        self.f.binary("subi", &reduced, &half, Ty::Int, loc)
    }

    fn as_double(&mut self, v: &SqlVal, loc: &Loc) -> SqlVal {
        if v.ty == SqlTy::Double {
            return v.clone();
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

    fn arithmetic(&mut self, op: &str, a: &SqlVal, b: &SqlVal, loc: &Loc) -> Result<SqlVal> {
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
    fn guarded_division(
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
            SqlTy::Double => self.f.op(
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
    fn logic(&mut self, and: bool, a: &SqlVal, b: &SqlVal, loc: &Loc) -> Result<SqlVal> {
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

    fn compare(&mut self, op: &str, a: &SqlVal, b: &SqlVal, loc: &Loc) -> Result<SqlVal> {
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
                if ty == SqlTy::Double {
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
    fn when(
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

    fn coalesce(&mut self, values: &[SqlVal], loc: &Loc) -> Result<SqlVal> {
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
            (Int | Long, Double) => self.as_double(v, loc).value,
            (Double, Long) => self.f.op(format!("arith.fptosi {} : f64 to i64", v.value.name), Ty::Int, loc),
            (Double, Int) => {
                let long = self.f.op(format!("arith.fptosi {} : f64 to i64", v.value.name), Ty::Int, loc);
                self.wrap(long, Int, loc)
            }
            (Int | Long, Str) => self.f.op(format!("df.to_str {} : i64", v.value.name), Ty::Str, loc),
            (Bool, Str) => {
                let t = self.f.str("true", loc);
                let f = self.f.str("false", loc);
                self.f.select(&v.value, &t, &f, loc)
            }
            (Bool, Int | Long) => self.f.op(format!("arith.extui {} : i1 to i64", v.value.name), Ty::Int, loc),
            (Int | Long, Bool) => {
                let zero = self.f.int(0, loc);
                self.f.op(format!("arith.cmpi ne, {}, {} : i64", v.value.name, zero.name), Ty::Bool, loc)
            }
            (from, to) => {
                return unsupported(
                    loc,
                    format!(
                        "a cast from {} to {} is not supported yet (Spark's string parsing and double printing differ from Python's; parse in a UDF)",
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

    /// A call of Python UDF `name` on column arguments: the UDF is a df
    /// function of its own (its branches are the UDF's decisions), and
    /// its result is coerced to the declared type as Spark does: a value
    /// of another Python type is NULL, except that a string column takes
    /// any value's `toString`.
    fn call_udf(
        &mut self,
        name: &str,
        python: &PythonUdf,
        args: &[Node],
        loc: &Loc,
    ) -> Result<SqlVal> {
        let values: Vec<SqlVal> = args
            .iter()
            .map(|a| self.column_arg(a))
            .collect::<Result<_>>()?;
        let shapes: Vec<Shape> = values
            .iter()
            .map(|v| {
                let field = Shape::Field(v.ty.ty());
                if v.present.is_some() {
                    Shape::Nullable(Box::new(field))
                } else {
                    field
                }
            })
            .collect();
        let record = Shape::Tuple(shapes);
        let udf_name = self.builder.fresh_udf_name(name);
        let (text, returned) = udf::lower(
            self.builder.scope(),
            &udf_name,
            &python.callable,
            Apply::Args,
            &record,
            loc,
        )?;
        self.builder.udfs.push(text);
        let returned = returned.expect("a UDF's result");
        let (nullable, returned_ty) = match &returned {
            Shape::Field(t) => (false, t.clone()),
            Shape::Nullable(inner) => match &**inner {
                Shape::Field(t) => (true, t.clone()),
                other => return unsupported(loc, format!("{name} returns {}; a UDF of a supported job returns one value of {SUPPORTED_TYPES}", other.python())),
            },
            other => return unsupported(loc, format!("{name} returns {}; a UDF of a supported job returns one value of {SUPPORTED_TYPES}", other.python())),
        };
        let mut operands = Vec::new();
        for v in &values {
            if let Some(p) = &v.present {
                operands.push(p.clone());
            }
            operands.push(v.value.clone());
        }
        let results = self.f.call(&udf_name, &operands, &returned.fields(), loc);
        let (present, value) = if nullable {
            (Some(results[0].clone()), results[1].clone())
        } else {
            (None, results[0].clone())
        };
        let to = python.returns;
        let coerced = match (&returned_ty, to) {
            (Ty::Int, SqlTy::Long) | (Ty::Float, SqlTy::Double) | (Ty::Str, SqlTy::Str) | (Ty::Bool, SqlTy::Bool) => value,
            (Ty::Int, SqlTy::Int) => self.wrap(value, SqlTy::Int, loc),
            (Ty::Int, SqlTy::Str) => self.f.op(format!("df.to_str {} : i64", value.name), Ty::Str, loc),
            (Ty::Bool, SqlTy::Str) => {
                let t = self.f.str("true", loc);
                let f = self.f.str("false", loc);
                self.f.select(&value, &t, &f, loc)
            }
            (Ty::Float, SqlTy::Str) => {
                return unsupported(loc, format!("{name} returns a float for a string column: Spark prints it with Java's Double.toString, which is not modelled yet"))
            }
            // Another Python type than the declared one: NULL.
            _ => return Ok(self.null_of(to, loc)),
        };
        Ok(SqlVal {
            present,
            value: coerced,
            ty: to,
        })
    }
}
