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
        "Constant" => match test.constant()? {
            Constant::Bool(b) => Some(b),
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

/// Where a `print(...)` writes.
pub enum Printed {
    /// Standard output: this expression is the text of the line (without
    /// its line break).
    Stdout(Node),
    /// `file=sys.stderr`: not what the test compares.
    Stderr,
}

/// What `print(args...)` writes: `str(a) + sep + str(b) ...`. `sep` must
/// be a string constant, `end` "\n", `file` `sys.stdout` or `sys.stderr`.
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
    let text = |e: Node| {
        if e.str_constant().is_some() {
            return e;
        }
        Node::make(
            "Call",
            &e.loc.clone(),
            vec![
                ("func", Field::Node(Node::make_name("str", &e.loc))),
                ("args", Field::List(vec![e])),
            ],
        )
    };
    let mut pieces = args.into_iter().map(text);
    let Some(first) = pieces.next() else {
        return Ok(Printed::Stdout(Node::make_str("", loc)));
    };
    let line = pieces.fold(first, |left, right| {
        let joined = Node::make(
            "BinOp",
            loc,
            vec![
                ("left", Field::Node(left)),
                ("op", Field::Node(Node::make("Add", loc, Vec::new()))),
                ("right", Field::Node(Node::make_str(&sep, loc))),
            ],
        );
        Node::make(
            "BinOp",
            loc,
            vec![
                ("left", Field::Node(joined)),
                ("op", Field::Node(Node::make("Add", loc, Vec::new()))),
                ("right", Field::Node(right)),
            ],
        )
    });
    Ok(Printed::Stdout(line))
}
