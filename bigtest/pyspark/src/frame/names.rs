//! Reading a job's Column code: what a node refers to (a column by name,
//! a function of `pyspark.sql.functions`, a Column's method), and the code
//! as the job wrote it, for names and diagnostics.

use crate::{
    frame::expr::Context,
    syntax::{Constant, Node},
    udf::describe,
};

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
pub(super) fn method_call(node: &Node) -> Option<(Node, String, Vec<Node>)> {
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
pub(super) fn functions_call(node: &Node) -> bool {
    if !node.is("Call") {
        return false;
    }
    let func = node.expect("func");
    func.is("Name") || (func.is("Attribute") && func.expect("value").is("Name"))
}
