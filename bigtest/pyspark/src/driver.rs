//! The driver code of a script, read without running it: what runs on the
//! driver around the RDD operators. The pytest module passes the script
//! exactly the arguments its code reads (`sys.argv[1]` .. `sys.argv[N]`),
//! so a usage check on `len(sys.argv)` is decided here; what the script
//! prints is an output, as the text `print` writes.

use crate::{
    error::{unsupported, Loc, Result},
    syntax::{Constant, Field, Node},
};

/// Whether `e` is `sys.argv`.
pub fn is_argv(e: &Node) -> bool {
    e.is("Attribute")
        && e.str("attr").as_deref() == Some("argv")
        && e.expect("value").name().as_deref() == Some("sys")
}

/// `N` of `sys.argv[N]` (a constant N >= 0).
pub fn argv_index(e: &Node) -> Option<usize> {
    if !e.is("Subscript") || !is_argv(&e.expect("value")) {
        return None;
    }
    let index = e.child("slice")?;
    match index.constant()? {
        Constant::Int(digits) if index.is("Constant") => digits.parse().ok(),
        _ => None,
    }
}

/// The arguments the code reads: the largest `N` of `sys.argv[N]` in
/// `body`, 0 for none.
pub fn arguments_read(body: &[Node]) -> usize {
    let mut most = 0;
    let mut work: Vec<Node> = body.to_vec();
    while let Some(node) = work.pop() {
        if let Some(n) = argv_index(&node) {
            most = most.max(n);
        }
        work.extend(node.children());
    }
    most
}

/// The names `body` binds more than once (assignments, loop targets,
/// imports, defs), in any function or block, each with where it is bound
/// again.
pub fn bound_again(body: &[Node]) -> std::collections::HashMap<String, Loc> {
    let mut seen = std::collections::HashSet::new();
    let mut again = std::collections::HashMap::new();
    // In source order: the first binding is the one seen first.
    let mut work: Vec<Node> = body.iter().rev().cloned().collect();
    while let Some(node) = work.pop() {
        let stored = node.is("Name") && node.child("ctx").is_some_and(|c| c.is("Store"));
        let named = matches!(node.kind.as_str(), "FunctionDef" | "ClassDef")
            .then(|| node.str("name"))
            .flatten();
        let aliases: Vec<String> = if node.is("alias") {
            node.str("asname")
                .or_else(|| node.str("name"))
                .into_iter()
                .collect()
        } else {
            Vec::new()
        };
        let names = stored
            .then(|| node.name())
            .flatten()
            .into_iter()
            .chain(named)
            .chain(aliases);
        for name in names {
            if !seen.insert(name.clone()) {
                again.entry(name).or_insert_with(|| node.loc.clone());
            }
        }
        work.extend(node.children().into_iter().rev());
    }
    again
}

/// An int the driver knows before the job runs: a constant, or
/// `len(sys.argv)` (`argc` arguments after the script's name).
fn int_value(e: &Node, argc: usize) -> Option<i64> {
    if e.is("Constant") {
        return match e.constant()? {
            Constant::Int(digits) => digits.parse().ok(),
            _ => None,
        };
    }
    if e.is("UnaryOp") && e.op_kind("op").as_deref() == Some("USub") {
        return int_value(&e.expect("operand"), argc).map(|n| -n);
    }
    if e.is("Call") && e.expect("func").name().as_deref() == Some("len") {
        let args = e.list("args");
        if let [only] = &args[..] {
            if is_argv(only) {
                return i64::try_from(argc + 1).ok();
            }
        }
    }
    None
}

/// The truth of `test` when the script gets `argc` arguments, where only
/// constants and `len(sys.argv)` decide it; `None` when the job's data or
/// anything else could.
pub fn decide(test: &Node, argc: usize) -> Option<bool> {
    match test.kind.as_str() {
        "Compare" => {
            let mut left = int_value(&test.expect("left"), argc)?;
            for (op, right) in test.compare_ops().iter().zip(test.list("comparators")) {
                let right = int_value(&right, argc)?;
                let holds = match op.as_str() {
                    "Eq" => left == right,
                    "NotEq" => left != right,
                    "Lt" => left < right,
                    "LtE" => left <= right,
                    "Gt" => left > right,
                    "GtE" => left >= right,
                    _ => return None,
                };
                if !holds {
                    return Some(false);
                }
                left = right;
            }
            Some(true)
        }
        "BoolOp" => {
            let values: Vec<bool> = test
                .list("values")
                .iter()
                .map(|v| decide(v, argc))
                .collect::<Option<_>>()?;
            Some(match test.op_kind("op").as_deref() {
                Some("And") => values.iter().all(|v| *v),
                _ => values.iter().any(|v| *v),
            })
        }
        "UnaryOp" if test.op_kind("op").as_deref() == Some("Not") => {
            decide(&test.expect("operand"), argc).map(|v| !v)
        }
        // Truth as Python has it.
        "Constant" => match test.constant()? {
            Constant::Bool(b) => Some(b),
            Constant::None => Some(false),
            Constant::Int(digits) => Some(!digits.trim_start_matches(['-', '0']).is_empty()),
            Constant::Str(text) => Some(!text.is_empty()),
            _ => None,
        },
        _ => None,
    }
}

/// Where `body` ends the script: `sys.exit(...)`, `exit(...)`,
/// `quit(...)`, `os._exit(...)` or `raise SystemExit(...)` among its
/// statements.
pub fn exit_in(body: &[Node]) -> Option<Loc> {
    body.iter().find_map(|s| {
        let call = if s.is("Expr") {
            s.expect("value")
        } else if s.is("Raise") {
            let raised = s.child("exc")?;
            let class = if raised.is("Call") {
                raised.expect("func")
            } else {
                raised
            };
            return (class.name().as_deref() == Some("SystemExit")).then(|| s.loc.clone());
        } else {
            return None;
        };
        if !call.is("Call") {
            return None;
        }
        let func = call.expect("func");
        let exits = match func.name().as_deref() {
            Some("exit" | "quit") => true,
            _ => {
                let owner = func.expect("value").name();
                matches!(
                    (owner.as_deref(), func.str("attr").as_deref()),
                    (Some("sys"), Some("exit")) | (Some("os"), Some("_exit"))
                )
            }
        };
        exits.then(|| s.loc.clone())
    })
}

/// Whether `code` reads `sys.argv`.
pub fn mentions_argv(code: &Node) -> bool {
    let mut work = vec![code.clone()];
    while let Some(node) = work.pop() {
        if is_argv(&node) {
            return true;
        }
        work.extend(node.children());
    }
    false
}

/// Where a `print(...)` writes.
pub enum Printed {
    /// Standard output: the line is `sep.join(str(a) for a in args)`.
    Stdout { args: Vec<Node>, sep: String },
    /// `file=sys.stderr`: not what the test compares.
    Stderr,
}

/// What `print(args...)` writes. `sep` must be a string constant, `end`
/// a line break, `file` `sys.stdout` or `sys.stderr`.
pub fn printed(call: &Node) -> Result<Printed> {
    let loc = &call.loc;
    let mut sep = " ".to_string();
    for keyword in call.list("keywords") {
        let value = keyword.expect("value");
        match keyword.str("arg").as_deref() {
            Some("sep") => match value.str_constant() {
                Some(text) => sep = text,
                None => return unsupported(&value.loc, "print's sep is a string constant here"),
            },
            Some("end") if value.str_constant().as_deref() == Some("\n") => {}
            Some("end") => {
                return unsupported(
                    &value.loc,
                    "print(..., end=...) other than a line break is not supported: each print is a line of the output",
                )
            }
            Some("flush") => {}
            Some("file") => {
                let stream = (value.is("Attribute")
                    && value.expect("value").name().as_deref() == Some("sys"))
                .then(|| value.str("attr"))
                .flatten();
                match stream.as_deref() {
                    Some("stderr") => return Ok(Printed::Stderr),
                    Some("stdout") => {}
                    _ => {
                        return unsupported(
                            &value.loc,
                            "print(..., file=...) to anything but sys.stdout or sys.stderr is not supported",
                        )
                    }
                }
            }
            other => {
                return unsupported(
                    &keyword.loc,
                    format!("print's keyword {} is not supported", other.unwrap_or("**")),
                )
            }
        }
    }
    let args = call.list("args");
    if args.iter().any(|a| a.is("Starred")) {
        return unsupported(
            loc,
            "print(*values) is not supported; print the values one by one",
        );
    }
    Ok(Printed::Stdout { args, sep })
}

/// A `print` in a loop over collected records (`for w, c in records:
/// print(w, c)`): the loop's target and the print's arguments, as Python
/// source the test evaluates for each record.
#[derive(Clone, Debug, PartialEq)]
pub struct PrintLoop {
    pub target: String,
    pub args: Vec<Vec<Source>>,
    /// A body of more than one print (`clean = w.strip()`, `if clean:
    /// print(clean, c)`): its lines of Python, which the test runs for each
    /// record to learn what it prints (nothing, a line, or several).
    pub statements: Option<Vec<Vec<Source>>>,
}

/// The names statements bind (assignment targets, nested blocks too).
pub fn assigned_names(body: &[Node]) -> Vec<String> {
    let mut names = Vec::new();
    for s in body {
        match s.kind.as_str() {
            "Assign" => {
                for target in s.list("targets") {
                    let _ = target_source(&target, &mut names);
                }
            }
            "AugAssign" => {
                let _ = target_source(&s.expect("target"), &mut names);
            }
            "If" => {
                names.extend(assigned_names(&s.list("body")));
                names.extend(assigned_names(&s.list("orelse")));
            }
            _ => {}
        }
    }
    names
}

/// The Python source of the statements a loop over collected records runs
/// for each record, a line each, indented `depth` levels: assignments,
/// `if`/`else`, `print` (to stderr: dropped) and `continue` (the end of
/// this record's run), so the test runs the job's own code.
pub fn statements_source(
    body: &[Node],
    depth: usize,
    leaf: &mut dyn FnMut(&Node) -> Result<Option<Vec<Source>>>,
) -> Result<Vec<Vec<Source>>> {
    let pad = "    ".repeat(depth);
    let code = |text: String| Source::Code(text);
    let mut lines = Vec::new();
    for s in body {
        match s.kind.as_str() {
            "Assign" => {
                let targets = s.list("targets");
                let [target] = &targets[..] else {
                    return unsupported(&s.loc, "a chained assignment (a = b = ...) in a loop over collected records is not supported");
                };
                let target = target_source(target, &mut Vec::new())?;
                let mut line = vec![code(format!("{pad}{target} = "))];
                line.extend(python_source(&s.expect("value"), leaf)?);
                lines.push(line);
            }
            "AugAssign" => {
                let Some(name) = s.expect("target").name() else {
                    return unsupported(&s.loc, "an augmented assignment to anything but a name in a loop over collected records is not supported");
                };
                let op = match s.op_kind("op").as_deref() {
                    Some("Add") => "+=",
                    Some("Sub") => "-=",
                    Some("Mult") => "*=",
                    Some("Div") => "/=",
                    Some("FloorDiv") => "//=",
                    Some("Mod") => "%=",
                    _ => return unsupported(&s.loc, "this augmented assignment in a loop over collected records is not supported"),
                };
                let mut line = vec![code(format!("{pad}{name} {op} "))];
                line.extend(python_source(&s.expect("value"), leaf)?);
                lines.push(line);
            }
            "If" => {
                let mut line = vec![code(format!("{pad}if "))];
                line.extend(python_source(&s.expect("test"), leaf)?);
                line.push(code(":".into()));
                lines.push(line);
                lines.extend(statements_source(&s.list("body"), depth + 1, leaf)?);
                let orelse = s.list("orelse");
                if !orelse.is_empty() {
                    lines.push(vec![code(format!("{pad}else:"))]);
                    lines.extend(statements_source(&orelse, depth + 1, leaf)?);
                }
            }
            "Expr"
                if s.expect("value").is("Call")
                    && s.expect("value").expect("func").name().as_deref() == Some("print") =>
            {
                let call = s.expect("value");
                if let Printed::Stdout { args, sep } = printed(&call)? {
                    let mut line = vec![code(format!("{pad}print("))];
                    for arg in &args {
                        line.extend(python_source(arg, leaf)?);
                        line.push(code(", ".into()));
                    }
                    line.push(code(format!(
                        "sep={})",
                        coco_spark::python::str_literal(&sep)
                    )));
                    lines.push(line);
                }
            }
            "Pass" => lines.push(vec![code(format!("{pad}pass"))]),
            "Continue" => lines.push(vec![code(format!("{pad}return"))]),
            _ => {
                return unsupported(
                    &s.loc,
                    format!(
                        "{} in a loop over collected records is not supported (assignments, if/else, print and continue are)",
                        crate::udf::describe(s)
                    ),
                )
            }
        }
    }
    if lines.is_empty() {
        lines.push(vec![code(format!("{pad}pass"))]);
    }
    Ok(lines)
}

/// The Python source of a loop target (`word`, `(w, (a, b))`), and the
/// names it binds.
pub fn target_source(target: &Node, names: &mut Vec<String>) -> Result<String> {
    if let Some(name) = target.name() {
        names.push(name.clone());
        return Ok(name);
    }
    if target.is("Tuple") || target.is("List") {
        let items = target
            .list("elts")
            .iter()
            .map(|item| target_source(item, names))
            .collect::<Result<Vec<_>>>()?;
        return Ok(format!("({},)", items.join(", ")));
    }
    unsupported(
        &target.loc,
        format!(
            "a loop over records that binds {}",
            crate::udf::describe(target)
        ),
    )
}

/// Builtins a printed value may call: pure functions of their arguments.
const PRINTABLE_BUILTINS: [&str; 15] = [
    "str", "int", "float", "bool", "len", "round", "abs", "repr", "format", "min", "max", "sum",
    "sorted", "tuple", "list",
];

/// `str` methods a printed value may call.
const STR_METHODS: [&str; 22] = [
    "encode",
    "decode",
    "split",
    "startswith",
    "endswith",
    "zfill",
    "format",
    "upper",
    "lower",
    "strip",
    "lstrip",
    "rstrip",
    "title",
    "capitalize",
    "replace",
    "join",
    "ljust",
    "rjust",
    "center",
    "zfill",
    "split",
    "encode",
];

/// Whether a printed value may call the `str` method `name`.
pub fn is_str_method(name: &str) -> bool {
    STR_METHODS.contains(&name)
}

/// A piece of the Python source of a value the driver prints: code, or a
/// number known once the job has run (`rdd.count()`, the records of the
/// output it names).
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Code(String),
    Count(usize),
}

/// The Python source of `e`, an argument of a driver `print`, that the
/// test evaluates (so `%`, f-strings and `str()` are Python's own):
/// constants, arithmetic, `%` and f-strings, `str`/`int`/`float`/`len`/
/// `round`/`abs`/`repr` calls, tuples; `leaf` gives the source of names
/// and of calls of the job's own (an action's value).
pub fn python_source(
    e: &Node,
    leaf: &mut dyn FnMut(&Node) -> Result<Option<Vec<Source>>>,
) -> Result<Vec<Source>> {
    if let Some(parts) = leaf(e)? {
        return Ok(parts);
    }
    let code = |text: String| vec![Source::Code(text)];
    let joined = |pieces: Vec<Vec<Source>>, open: &str, sep: &str, close: &str| {
        let mut out = code(open.to_string());
        for (i, piece) in pieces.into_iter().enumerate() {
            if i > 0 {
                out.push(Source::Code(sep.to_string()));
            }
            out.extend(piece);
        }
        out.push(Source::Code(close.to_string()));
        out
    };
    match e.kind.as_str() {
        "Constant" => match e.constant() {
            Some(Constant::Str(text)) => Ok(code(coco_spark::python::str_literal(&text))),
            Some(Constant::Int(digits)) => Ok(code(digits)),
            Some(Constant::Float(x)) => Ok(code(coco_spark::python::float_literal(x))),
            Some(Constant::Bool(b)) => Ok(code(if b { "True" } else { "False" }.into())),
            Some(Constant::None) => Ok(code("None".into())),
            _ => unsupported(&e.loc, "this constant in a printed value is not supported"),
        },
        "BinOp" => {
            let op = match e.op_kind("op").as_deref() {
                Some("Add") => " + ",
                Some("Sub") => " - ",
                Some("Mult") => " * ",
                Some("Div") => " / ",
                Some("FloorDiv") => " // ",
                Some("Mod") => " % ",
                Some("Pow") => " ** ",
                _ => return unsupported(&e.loc, "this operator in a printed value is not supported"),
            };
            let left = python_source(&e.expect("left"), leaf)?;
            let right = python_source(&e.expect("right"), leaf)?;
            Ok(joined(vec![left, right], "(", op, ")"))
        }
        "UnaryOp" => {
            let op = match e.op_kind("op").as_deref() {
                Some("USub") => "(-",
                Some("UAdd") => "(+",
                Some("Not") => "(not ",
                _ => return unsupported(&e.loc, "this operator in a printed value is not supported"),
            };
            let operand = python_source(&e.expect("operand"), leaf)?;
            Ok(joined(vec![operand], op, "", ")"))
        }
        "Tuple" => {
            let items = e
                .list("elts")
                .iter()
                .map(|item| python_source(item, leaf))
                .collect::<Result<Vec<_>>>()?;
            Ok(joined(items, "(", ", ", ",)"))
        }
        "Call" => {
            let func = e.expect("func");
            let mut args = e
                .list("args")
                .iter()
                .map(|a| python_source(a, leaf))
                .collect::<Result<Vec<_>>>()?;
            for keyword in e.list("keywords") {
                let Some(name) = keyword.str("arg") else {
                    return unsupported(&keyword.loc, "**kwargs in a printed value is not supported");
                };
                let mut value = code(format!("{name}="));
                value.extend(python_source(&keyword.expect("value"), leaf)?);
                args.push(value);
            }
            if let Some(name) = func.name() {
                if !PRINTABLE_BUILTINS.contains(&name.as_str()) {
                    return unsupported(
                        &e.loc,
                        format!("a printed value calls {name}(); the builtins {} are read", PRINTABLE_BUILTINS.join(", ")),
                    );
                }
                return Ok(joined(args, &format!("{name}("), ", ", ")"));
            }
            let method = func.str("attr").unwrap_or_default();
            if !func.is("Attribute") || !STR_METHODS.contains(&method.as_str()) {
                return unsupported(
                    &e.loc,
                    format!("a printed value calls {}; str methods ({}) and builtins are read", crate::udf::describe(e), STR_METHODS.join(", ")),
                );
            }
            let mut call = python_source(&func.expect("value"), leaf)?;
            call.insert(0, Source::Code("(".into()));
            call.push(Source::Code(format!(").{method}")));
            call.extend(joined(args, "(", ", ", ")"));
            Ok(call)
        }
        "Subscript" => {
            let value = python_source(&e.expect("value"), leaf)?;
            let index = e.expect("slice");
            let index = if index.is("Slice") {
                let part = |field: &str, leaf: &mut dyn FnMut(&Node) -> Result<Option<Vec<Source>>>| match index.child(field) {
                    Some(bound) => python_source(&bound, leaf),
                    None => Ok(Vec::new()),
                };
                let lower = part("lower", leaf)?;
                let upper = part("upper", leaf)?;
                let step = part("step", leaf)?;
                joined(vec![lower, upper, step], "", ":", "")
            } else {
                python_source(&index, leaf)?
            };
            let mut out = joined(vec![value], "(", "", ")");
            out.extend(joined(vec![index], "[", "", "]"));
            Ok(out)
        }
        "IfExp" => {
            let body = python_source(&e.expect("body"), leaf)?;
            let test = python_source(&e.expect("test"), leaf)?;
            let orelse = python_source(&e.expect("orelse"), leaf)?;
            let mut out = joined(vec![body, test], "(", " if ", " else ");
            out.extend(orelse);
            out.push(Source::Code(")".into()));
            Ok(out)
        }
        "Compare" => {
            let mut out = joined(vec![python_source(&e.expect("left"), leaf)?], "(", "", "");
            for (op, right) in e.compare_ops().iter().zip(e.list("comparators")) {
                let op = match op.as_str() {
                    "Eq" => " == ",
                    "NotEq" => " != ",
                    "Lt" => " < ",
                    "LtE" => " <= ",
                    "Gt" => " > ",
                    "GtE" => " >= ",
                    "In" => " in ",
                    "NotIn" => " not in ",
                    "Is" => " is ",
                    "IsNot" => " is not ",
                    _ => return unsupported(&e.loc, "this comparison in a printed value is not supported"),
                };
                out.push(Source::Code(op.into()));
                out.extend(python_source(&right, leaf)?);
            }
            out.push(Source::Code(")".into()));
            Ok(out)
        }
        "BoolOp" => {
            let op = if e.op_kind("op").as_deref() == Some("And") { " and " } else { " or " };
            let values = e
                .list("values")
                .iter()
                .map(|v| python_source(v, leaf))
                .collect::<Result<Vec<_>>>()?;
            Ok(joined(values, "(", op, ")"))
        }
        "List" => {
            let items = e
                .list("elts")
                .iter()
                .map(|item| python_source(item, leaf))
                .collect::<Result<Vec<_>>>()?;
            Ok(joined(items, "[", ", ", "]"))
        }
        // f"{x:>5}" is "" + format(x, ">5"), with !r and !s as repr and str.
        "JoinedStr" => {
            let mut pieces = vec![code("\"\"".into())];
            for part in e.list("values") {
                if let Some(text) = part.str_constant() {
                    pieces.push(code(coco_spark::python::str_literal(&text)));
                    continue;
                }
                let mut value = python_source(&part.expect("value"), leaf)?;
                let conversion = match part.json_int("conversion").unwrap_or(-1) {
                    -1 => None,
                    114 => Some("repr"),
                    115 => Some("str"),
                    97 => Some("ascii"),
                    _ => return unsupported(&part.loc, "this f-string conversion is not supported"),
                };
                if let Some(conversion) = conversion {
                    value = joined(vec![value], &format!("{conversion}("), "", ")");
                }
                let spec = match part.child("format_spec") {
                    Some(spec) => python_source(&spec, leaf)?,
                    None => code("\"\"".into()),
                };
                pieces.push(joined(vec![value, spec], "format(", ", ", ")"));
            }
            Ok(joined(pieces, "(", " + ", ")"))
        }
        _ => unsupported(
            &e.loc,
            format!(
                "{} in a printed value is not supported (constants, arithmetic, % and f-strings, and str() of the driver's values are)",
                crate::udf::describe(e)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(code: &str) -> Vec<Node> {
        let python = std::env::var("COCO_PYTHON").unwrap_or_else(|_| "python3".into());
        crate::syntax::parse(&python, "job.py", code.as_bytes())
            .expect("parses")
            .module
            .list("body")
    }

    fn test_of(code: &str) -> Node {
        body(code)[0].expect("test")
    }

    #[test]
    fn the_arguments_read_are_the_largest_argv_index() {
        let code = "a = sys.argv[1]\nif x:\n    b = int(sys.argv[3])\n";
        assert_eq!(arguments_read(&body(code)), 3);
        assert_eq!(arguments_read(&body("x = 1\n")), 0);
    }

    #[test]
    fn usage_checks_are_decided_by_the_arguments_read() {
        let check = test_of("if len(sys.argv) != 2:\n    pass\n");
        assert_eq!(decide(&check, 1), Some(false));
        assert_eq!(decide(&check, 2), Some(true));
        let chained = test_of("if 1 < len(sys.argv) <= 3 and not False:\n    pass\n");
        assert_eq!(decide(&chained, 1), Some(true));
        assert_eq!(decide(&chained, 3), Some(false));
        // What the data decides is not decided here.
        assert_eq!(
            decide(&test_of("if lines.count() > 2:\n    pass\n"), 1),
            None
        );
        assert_eq!(
            decide(&test_of("if len(sys.argv[1]) > 2:\n    pass\n"), 1),
            None
        );
    }

    #[test]
    fn names_bound_twice_are_found_anywhere() {
        let code = "n = 1\nk = 2\ndef main():\n    n = 3\n    for w in x:\n        total += 1\nimport os as k\n";
        let again = bound_again(&body(code));
        let mut names: Vec<&str> = again.keys().map(String::as_str).collect();
        names.sort();
        assert_eq!(names, ["k", "n"]);
    }

    #[test]
    fn every_way_to_exit_is_found() {
        for code in [
            "sys.exit(-1)\n",
            "exit(1)\n",
            "quit()\n",
            "os._exit(2)\n",
            "raise SystemExit(1)\n",
            "raise SystemExit\n",
        ] {
            assert!(exit_in(&body(code)).is_some(), "{code}");
        }
        assert!(exit_in(&body("print('usage')\nlog.exit()\n")).is_none());
    }

    #[test]
    fn printed_values_become_python_source() {
        let call = body("print(f'{n:>4} x', '%d%%' % n, str(-n), sep='|')\n")[0].expect("value");
        let Printed::Stdout { args, sep } = printed(&call).unwrap() else {
            panic!("stdout");
        };
        assert_eq!(sep, "|");
        let mut leaf = |e: &Node| -> Result<Option<Vec<Source>>> {
            Ok((e.name().as_deref() == Some("n")).then(|| vec![Source::Count(4)]))
        };
        let sources: Vec<Vec<Source>> = args
            .iter()
            .map(|a| python_source(a, &mut leaf))
            .collect::<Result<_>>()
            .unwrap();
        let text = |parts: &[Source]| -> String {
            parts
                .iter()
                .map(|p| match p {
                    Source::Code(c) => c.clone(),
                    Source::Count(n) => format!("<{n}>"),
                })
                .collect()
        };
        assert_eq!(
            text(&sources[0]),
            r#"("" + format(<4>, ("" + ">4")) + " x")"#
        );
        assert_eq!(text(&sources[1]), r#"("%d%%" % <4>)"#);
        assert_eq!(text(&sources[2]), "str((-<4>))");
        let stderr = body("print('x', file=sys.stderr)\n")[0].expect("value");
        assert!(matches!(printed(&stderr).unwrap(), Printed::Stderr));
        let end = body("print('x', end='')\n")[0].expect("value");
        assert!(printed(&end).is_err());
    }
}

/// An `argparse.ArgumentParser` as the script declares it: what each
/// `args.NAME` holds when the test passes the positional arguments (files)
/// and no option, so options keep their defaults.
#[derive(Clone, Debug, Default)]
pub struct Arguments {
    positionals: usize,
    values: std::collections::BTreeMap<String, Node>,
}

impl Arguments {
    /// `parser.add_argument(...)`.
    pub fn add(&mut self, call: &Node) -> Result<()> {
        let loc = &call.loc;
        let names: Option<Vec<String>> = call.list("args").iter().map(Node::str_constant).collect();
        let Some(names) = names.filter(|n| !n.is_empty()) else {
            return unsupported(loc, "add_argument takes its names as string constants here");
        };
        let mut dest = None;
        let mut convert = None;
        let mut default = None;
        let mut action = None;
        for keyword in call.list("keywords") {
            let value = keyword.expect("value");
            match keyword.str("arg").as_deref() {
                Some("help" | "metavar") => {}
                Some("dest") => dest = value.str_constant(),
                Some("type") => match value.name().as_deref() {
                    Some("int" | "float" | "str") => convert = value.name(),
                    _ => return unsupported(&value.loc, "an argument's type is int, float or str here"),
                },
                Some("default") => default = Some(value),
                Some("action") => action = value.str_constant(),
                Some("required") if value.constant() == Some(Constant::Bool(false)) => {}
                other => {
                    return unsupported(
                        &keyword.loc,
                        format!(
                            "add_argument's {} is not supported (help, metavar, dest, type, default, action and required=False are)",
                            other.unwrap_or("**")
                        ),
                    )
                }
            }
        }
        let converted = |code: Node, convert: &Option<String>| match convert {
            Some(kind) if kind != "str" => Node::make(
                "Call",
                &code.loc.clone(),
                vec![
                    ("func", Field::Node(Node::make_name(kind, &code.loc))),
                    ("args", Field::List(vec![code])),
                ],
            ),
            _ => code,
        };
        let (name, value) = if !names[0].starts_with('-') {
            if names.len() > 1 || default.is_some() || action.is_some() {
                return unsupported(
                    loc,
                    "a positional argument takes one name, and no default or action, here",
                );
            }
            self.positionals += 1;
            let argv = Node::make(
                "Attribute",
                loc,
                vec![
                    ("value", Field::Node(Node::make_name("sys", loc))),
                    ("attr", Field::Str("argv".into())),
                    ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
                ],
            );
            let item = Node::make(
                "Subscript",
                loc,
                vec![
                    ("value", Field::Node(argv)),
                    (
                        "slice",
                        Field::Node(Node::make_int(self.positionals as i64, loc)),
                    ),
                    ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
                ],
            );
            (names[0].clone(), converted(item, &convert))
        } else {
            let long = names
                .iter()
                .find(|n| n.starts_with("--"))
                .unwrap_or(&names[0]);
            let name = long.trim_start_matches('-').replace('-', "_");
            let value = match action.as_deref() {
                Some("store_true") => Node::make_constant("bool", "False", loc),
                Some("store_false") => Node::make_constant("bool", "True", loc),
                None | Some("store") => match default {
                    Some(d) if d.str_constant().is_some() => converted(d, &convert),
                    Some(d) => d,
                    None => Node::make_constant("none", "None", loc),
                },
                Some(other) => {
                    return unsupported(
                        loc,
                        format!("add_argument's action {other:?} is not supported"),
                    )
                }
            };
            (name, value)
        };
        self.values.insert(dest.unwrap_or(name), value);
        Ok(())
    }

    /// The number of positional arguments (`sys.argv[1]` onwards).
    pub fn positionals(&self) -> usize {
        self.positionals
    }

    /// What `args.NAME` holds.
    pub fn value(&self, name: &str) -> Option<&Node> {
        self.values.get(name)
    }
}
