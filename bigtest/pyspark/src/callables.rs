//! Functions a job passes by name where a UDF goes: Python's builtins
//! (`map(str)`, `reduceByKey(max)`) and the `operator` module's
//! (`reduceByKey(add)`, `operator.mul`, `itemgetter(1)`), each read as the
//! lambda it stands for, so the UDF lowering has one kind of callable.

use crate::{
    error::{unsupported, Result},
    syntax::{Field, Node},
    udf::Scope,
};

/// Builtins the UDF lowering calls, as functions: each takes the arguments
/// the operator passes (`max` folds two values in `reduceByKey`, and takes
/// a group's list in `mapValues`).
const BUILTINS: [&str; 10] = [
    "str", "int", "float", "bool", "len", "abs", "min", "max", "sum", "list",
];

/// `operator` functions of two operands, as the `ast` operator class of
/// `a OP b`.
const BINARY: [(&str, &str); 9] = [
    ("add", "Add"),
    ("concat", "Add"),
    ("sub", "Sub"),
    ("mul", "Mult"),
    ("truediv", "Div"),
    ("floordiv", "FloorDiv"),
    ("mod", "Mod"),
    ("pow", "Pow"),
    ("matmul", "MatMult"),
];

/// `operator` comparisons, as the `ast` class of `a OP b`.
const COMPARISONS: [(&str, &str); 6] = [
    ("lt", "Lt"),
    ("le", "LtE"),
    ("eq", "Eq"),
    ("ne", "NotEq"),
    ("ge", "GtE"),
    ("gt", "Gt"),
];

/// The lambda that `callable` (a function passed by name, or
/// `itemgetter(i)`) stands for, when called with `arity` arguments; `None`
/// when it is no builtin or `operator` function (a `def` of the file, a
/// lambda, or something the caller refuses).
pub fn as_lambda(scope: &Scope, callable: &Node, arity: usize) -> Result<Option<Node>> {
    let loc = &callable.loc;
    let params: Vec<String> = (0..arity).map(|i| format!("_{i}")).collect();
    let arg = |i: usize| Node::make_name(&params[i], loc);
    if let Some(name) = callable.name() {
        if scope.defs.contains_key(&name) {
            return Ok(None);
        }
        if let Some(function) = scope.operators.get(&name) {
            if !function.is_empty() {
                return operator_function(function, callable, &params).map(Some);
            }
        }
        if BUILTINS.contains(&name.as_str()) {
            scope.builtin(&name, loc)?;
            let call = Node::make(
                "Call",
                loc,
                vec![
                    ("func", Field::Node(callable.clone())),
                    ("args", Field::List((0..arity).map(arg).collect())),
                ],
            );
            return Ok(Some(Node::make_lambda(&params, call, loc)));
        }
        return Ok(None);
    }
    // `operator.add`, with `import operator`.
    if callable.is("Attribute") {
        let module = callable.expect("value").name().unwrap_or_default();
        if scope.operators.get(&module).is_some_and(String::is_empty) {
            let function = callable.str("attr").unwrap_or_default();
            return operator_function(&function, callable, &params).map(Some);
        }
        return Ok(None);
    }
    // `itemgetter(1)`, `operator.itemgetter(0, 2)`: the record's fields.
    if callable.is("Call") {
        let func = callable.expect("func");
        let function = match (func.name(), func.is("Attribute")) {
            (Some(name), _) => scope.operators.get(&name).cloned(),
            (None, true) => {
                let module = func.expect("value").name().unwrap_or_default();
                scope
                    .operators
                    .get(&module)
                    .filter(|m| m.is_empty())
                    .map(|_| func.str("attr").unwrap_or_default())
            }
            _ => None,
        };
        if function.as_deref() != Some("itemgetter") {
            return Ok(None);
        }
        let indices = callable.list("args");
        if indices.is_empty() || !callable.list("keywords").is_empty() {
            return unsupported(loc, "itemgetter takes one or more positions");
        }
        if arity != 1 {
            return unsupported(
                loc,
                format!(
                    "itemgetter(...) makes a function of one argument; here it is given {arity}"
                ),
            );
        }
        let item = |index: Node| {
            Node::make(
                "Subscript",
                &index.loc.clone(),
                vec![
                    ("value", Field::Node(arg(0))),
                    ("slice", Field::Node(index)),
                    ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
                ],
            )
        };
        let body = if indices.len() == 1 {
            item(indices[0].clone())
        } else {
            Node::make(
                "Tuple",
                loc,
                vec![
                    ("elts", Field::List(indices.into_iter().map(item).collect())),
                    ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
                ],
            )
        };
        return Ok(Some(Node::make_lambda(&params, body, loc)));
    }
    Ok(None)
}

/// The lambda of `operator.<function>` given `params`.
fn operator_function(function: &str, at: &Node, params: &[String]) -> Result<Node> {
    let loc = &at.loc;
    let arg = |i: usize| Node::make_name(&params[i], loc);
    let want = |n: usize| -> Result<()> {
        if params.len() == n {
            Ok(())
        } else {
            unsupported(
                loc,
                format!(
                    "operator.{function} takes {n} argument(s); here it is given {}",
                    params.len()
                ),
            )
        }
    };
    let op = |class: &str| Node::make(class, loc, Vec::new());
    let body = if let Some((_, class)) = BINARY.iter().find(|(f, _)| *f == function) {
        want(2)?;
        Node::make_binop(arg(0), class, arg(1), loc)
    } else if let Some((_, class)) = COMPARISONS.iter().find(|(f, _)| *f == function) {
        want(2)?;
        Node::make(
            "Compare",
            loc,
            vec![
                ("left", Field::Node(arg(0))),
                ("ops", Field::List(vec![op(class)])),
                ("comparators", Field::List(vec![arg(1)])),
            ],
        )
    } else if let Some(class) = match function {
        "neg" => Some("USub"),
        "pos" => Some("UAdd"),
        "not_" => Some("Not"),
        _ => None,
    } {
        want(1)?;
        Node::make(
            "UnaryOp",
            loc,
            vec![
                ("op", Field::Node(op(class))),
                ("operand", Field::Node(arg(0))),
            ],
        )
    } else if function == "truth" || function == "abs" {
        want(1)?;
        let builtin = if function == "truth" { "bool" } else { "abs" };
        Node::make(
            "Call",
            loc,
            vec![
                ("func", Field::Node(Node::make_name(builtin, loc))),
                ("args", Field::List(vec![arg(0)])),
            ],
        )
    } else {
        return unsupported(
            loc,
            format!(
                "operator.{function} is not supported as a function (add, sub, mul, truediv, floordiv, mod, pow, concat, the comparisons, neg, not_, truth, abs and itemgetter are)"
            ),
        );
    };
    Ok(Node::make_lambda(params, body, loc))
}
