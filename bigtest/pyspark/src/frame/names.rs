//! Reading a job's Column code: what a node refers to (a column by name,
//! a function of `pyspark.sql.functions`, a Column's method), and the code
//! as the job wrote it, for names and diagnostics.

use crate::{
    error::{unsupported, Loc, Result},
    frame::expr::Context,
    syntax::{Constant, Node},
    udf::describe,
};

/// The name a column computed by `node` gets where no alias names it: the
/// column's own name for a reference, else the code.
pub fn default_name(node: &Node, cx: &Context) -> String {
    if let Some(text) = column_reference(node, cx) {
        // `col("`a.b`")` is named a.b, as Spark names it.
        let names = cx.columns.iter().map(|(c, _)| c.name.as_str());
        return canonical(names, &text, &node.loc).unwrap_or(text);
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
    frame_attribute(
        node,
        cx.frames,
        cx.columns.iter().map(|(c, _)| c.name.as_str()),
    )
}

/// `df.x`, `df` one of `frames` and `x` one of `columns`: the column `x`.
pub fn frame_attribute<'c>(
    node: &Node,
    frames: &[String],
    mut columns: impl Iterator<Item = &'c str>,
) -> Option<String> {
    if !node.is("Attribute") || !frames.contains(&node.expect("value").name()?) {
        return None;
    }
    let attr = node.str("attr")?;
    columns.any(|c| c == attr).then_some(attr)
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

/// Whether Spark's default resolver (`spark.sql.caseSensitive` off: Java's
/// `equalsIgnoreCase`) takes `a` and `b` for one column name.
pub fn same_name(a: &str, b: &str) -> bool {
    fn fold(c: char) -> char {
        let mut upper = c.to_uppercase();
        match (upper.next(), upper.next()) {
            (Some(u), None) => {
                let mut lower = u.to_lowercase();
                match (lower.next(), lower.next()) {
                    (Some(l), None) => l,
                    _ => u,
                }
            }
            _ => c,
        }
    }
    a.chars().count() == b.chars().count()
        && a.chars()
            .zip(b.chars())
            .all(|(x, y)| x == y || fold(x) == fold(y))
}

/// The column a reference's text names (`col("a")`, `df["a"]`, a name
/// given to `select` or `groupBy`), read as Spark reads it: backticks quote
/// (`` col("`a.b`") `` is the column `a.b`), and a dot outside them reaches
/// into a struct column (`col("a.b")` is field `b` of `a`), which no
/// supported schema has.
pub fn reference(text: &str, loc: &Loc) -> Result<String> {
    let mut parts = vec![String::new()];
    let mut chars = text.chars().peekable();
    let mut quoted_part = false;
    while let Some(c) = chars.next() {
        match c {
            '`' if parts.last().is_some_and(String::is_empty) && !quoted_part => {
                quoted_part = true;
                loop {
                    match chars.next() {
                        None => {
                            return unsupported(
                                loc,
                                format!("Spark rejects the column name {text:?}: a backtick that is not closed"),
                            )
                        }
                        Some('`') if chars.peek() == Some(&'`') => {
                            chars.next();
                            parts.last_mut().expect("a part").push('`');
                        }
                        Some('`') => break,
                        Some(c) => parts.last_mut().expect("a part").push(c),
                    }
                }
                if chars.peek().is_some_and(|&c| c != '.') {
                    return unsupported(
                        loc,
                        format!(
                            "Spark rejects the column name {text:?}: text after a closing backtick"
                        ),
                    );
                }
            }
            '.' => {
                parts.push(String::new());
                quoted_part = false;
            }
            c => parts.last_mut().expect("a part").push(c),
        }
    }
    match &parts[..] {
        [one] => Ok(one.clone()),
        _ => unsupported(
            loc,
            format!(
                "Spark reads the column name {text:?} as field {} of struct column {} (a dot outside backticks reaches into a struct), and struct columns are not supported; a column whose name holds a dot is written in backticks: \"`{}`\"",
                parts[1..].join("."),
                parts[0],
                text.replace('`', "``")
            ),
        ),
    }
}

/// The index of the column `name` (already read by [`reference`]) among
/// `names`, as Spark resolves it: case-insensitively, and an error when
/// two columns match.
pub fn resolve<'n>(
    names: impl IntoIterator<Item = &'n str>,
    name: &str,
    loc: &Loc,
) -> Result<Option<usize>> {
    let matches: Vec<(usize, &str)> = names
        .into_iter()
        .enumerate()
        .filter(|(_, n)| same_name(n, name))
        .collect();
    match &matches[..] {
        [] => Ok(None),
        [(i, _)] => Ok(Some(*i)),
        _ => {
            let found: Vec<&str> = matches.iter().map(|(_, n)| *n).collect();
            unsupported(
                loc,
                format!(
                    "the column name {name} is ambiguous: Spark resolves names case-insensitively and this DataFrame has {}",
                    found.join(" and ")
                ),
            )
        }
    }
}

/// A column name that methods such as `drop` and `withColumnRenamed`
/// compare as it is (Spark does not read backticks or dots there): those
/// with either are refused rather than guessed at.
pub fn literal_name(text: &str, method: &str, loc: &Loc) -> Result<String> {
    if text.contains(['.', '`']) {
        return unsupported(
            loc,
            format!("{method}() of the column name {text:?}: names with a dot or a backtick are not supported there"),
        );
    }
    Ok(text.to_string())
}

/// The column a reference's text names, spelled as the DataFrame spells
/// it (`"NAME"` finds `name`): Spark's reading ([`reference`]) and
/// resolution ([`resolve`]). A name that matches none comes back as read,
/// for the caller's "no column" error.
pub fn canonical<'n>(
    names: impl IntoIterator<Item = &'n str>,
    text: &str,
    loc: &Loc,
) -> Result<String> {
    let name = reference(text, loc)?;
    let names: Vec<&str> = names.into_iter().collect();
    Ok(match resolve(names.iter().copied(), &name, loc)? {
        Some(i) => names[i].to_string(),
        None => name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc() -> Loc {
        Loc {
            file: "job.py".into(),
            line: 1,
            column: 1,
        }
    }

    #[test]
    fn names_resolve_case_insensitively_and_ambiguously_as_spark_does() {
        assert!(same_name("State", "STATE") && !same_name("größe", "GRÖSSE"));
        let names = ["name", "v"];
        assert_eq!(canonical(names, "NAME", &loc()).unwrap(), "name");
        let err = resolve(["name", "NAME"], "Name", &loc())
            .unwrap_err()
            .to_string();
        assert!(err.contains("is ambiguous"), "{err}");
    }

    #[test]
    fn backticks_quote_a_dot_and_a_bare_dot_reaches_into_a_struct() {
        assert_eq!(reference("`a.b`", &loc()).unwrap(), "a.b");
        assert_eq!(reference("`a``b`", &loc()).unwrap(), "a`b");
        let err = reference("a.b", &loc()).unwrap_err().to_string();
        assert!(err.contains("as field b of struct column a"), "{err}");
        let err = reference("`a", &loc()).unwrap_err().to_string();
        assert!(err.contains("not closed"), "{err}");
    }
}
