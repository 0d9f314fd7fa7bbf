//! A flatMap whose function builds its list element by element: a list
//! comprehension or generator expression (`lambda l: [(w, 1) for w in
//! l.split()]`), or a generator `def` that yields in a `for` loop
//! (Apache Spark's pagerank: `for url in urls: yield (url, rank /
//! num_urls)`).
//!
//! coco's records hold no list of tuples, so such a flatMap is read as the
//! three per-record operators Spark's semantics make equal to it: a
//! `flat_map` over the list the loop iterates, each element carrying the
//! record's values the element reads (`rank`, `num_urls`); a `filter` per
//! `if` of the comprehension; and a `map` that makes the element. Each
//! element is computed from its own record, as Python computes it in the
//! loop, so what raises for one element raises for it alone, and nothing
//! raises for a record whose list is empty.

use std::collections::HashMap;

use crate::{
    error::{unsupported, Result},
    syntax::{Field, Node},
    udf::Scope,
};

/// The name of the record that the filter and the map take: the values
/// carried, then the element.
pub const ELEMENT: &str = "_element";

/// The three parts of a flatMap function that builds its list element by
/// element, as functions of the record and of one element.
#[derive(Debug)]
pub struct Elements {
    /// A `def` of the record (the flatMap's own parameters) returning the
    /// carried values, then the list the loop iterates; or the list alone
    /// when nothing is carried.
    pub list: Node,
    /// How many values each element carries before it.
    pub carried: usize,
    /// `lambda _element: C`, one per `if` of the comprehension, in order:
    /// each a filter, so a later `if` sees only the elements an earlier
    /// one kept, as Python evaluates them.
    pub keep: Vec<Node>,
    /// `lambda _element: E`: the element made.
    pub element: Node,
}

/// What a function's code does before its loop, and the loop.
struct Parts {
    params: Vec<String>,
    /// Plain assignments before the loop, in order (a call's arguments
    /// bound to the callee's parameters first).
    prelude: Vec<Node>,
    /// The loop's target: a name, or a tuple of names over `zip`.
    target: Node,
    iter: Node,
    conditions: Vec<Node>,
    element: Node,
}

/// `f` read as [`Elements`] when it builds its list element by element;
/// `None` for any other function (a split, a list literal), which the
/// flatMap lowers itself.
pub fn elements(scope: &Scope, f: &Node) -> Result<Option<Elements>> {
    let Some(parts) = parts_of(scope, f)? else {
        return Ok(None);
    };
    let (parts, target) = over_indices(scope, parts)?;
    let mut outer: Vec<String> = parts.params.clone();
    for assign in &parts.prelude {
        for target in assign.list("targets") {
            if let Some(name) = target.name() {
                outer.push(name);
            }
        }
    }
    // The record's values the element and the conditions read, in the
    // order they are first read: what each element carries.
    let mut carried: Vec<String> = Vec::new();
    for code in parts.conditions.iter().chain([&parts.element]) {
        for name in names_read(code) {
            if name != target && outer.contains(&name) && !carried.contains(&name) {
                carried.push(name);
            }
        }
    }
    let loc = &f.loc;
    let record = Node::make_name(ELEMENT, loc);
    let mut names: HashMap<String, Node> = HashMap::new();
    if carried.is_empty() {
        names.insert(target.clone(), record);
    } else {
        for (i, name) in carried.iter().enumerate() {
            names.insert(
                name.clone(),
                Node::make_subscript(record.clone(), i as i64, loc),
            );
        }
        names.insert(
            target.clone(),
            Node::make_subscript(record, carried.len() as i64, loc),
        );
    }
    let returned = if carried.is_empty() {
        parts.iter.clone()
    } else {
        let items = carried
            .iter()
            .map(|name| Node::make_name(name, loc))
            .chain([parts.iter.clone()])
            .collect();
        Node::make_tuple(items, loc)
    };
    let mut body = parts.prelude.clone();
    body.push(Node::make(
        "Return",
        &parts.iter.loc,
        vec![("value", Field::Node(returned))],
    ));
    let list = Node::make_def("_elements", &parts.params, body, loc);
    let param = [ELEMENT.to_string()];
    Ok(Some(Elements {
        list,
        carried: carried.len(),
        keep: parts
            .conditions
            .iter()
            .map(|c| Node::make_lambda(&param, c.substitute(&names), &c.loc))
            .collect(),
        element: Node::make_lambda(&param, parts.element.substitute(&names), &parts.element.loc),
    }))
}

/// The parameters, prelude and loop of `f`, when it builds its list
/// element by element.
fn parts_of(scope: &Scope, f: &Node) -> Result<Option<Parts>> {
    let def = match f.name() {
        Some(name) if !scope.rebound.contains_key(&name) => scope.defs.get(&name).cloned(),
        _ => None,
    };
    if let Some(def) = def {
        return body_parts(&def, def.param_names(), Vec::new());
    }
    if !f.is("Lambda") {
        return Ok(None);
    }
    let params = f.param_names();
    let body = f.expect("body");
    if let Some(comprehension) = comprehension_parts(&body)? {
        return Ok(Some(Parts {
            params,
            prelude: Vec::new(),
            ..comprehension
        }));
    }
    // `lambda t: g(t[1][0], t[1][1])` where `g` is a generator def: its
    // parameters bound to the arguments, then its own code.
    if !body.is("Call") || !body.list("keywords").is_empty() {
        return Ok(None);
    }
    let Some(callee) = body.expect("func").name() else {
        return Ok(None);
    };
    if scope.rebound.contains_key(&callee) {
        return Ok(None);
    }
    let Some(def) = scope.defs.get(&callee) else {
        return Ok(None);
    };
    let args = body.list("args");
    let callee_params = def.param_names();
    let generator = yields(def);
    let refuse = |why: String| -> Result<Option<Parts>> {
        if generator {
            unsupported(
                &body.loc,
                format!("the generator {callee} is read in a flatMap when {why}"),
            )
        } else {
            Ok(None)
        }
    };
    if args.len() != callee_params.len() || args.iter().any(|a| a.is("Starred")) {
        return refuse(format!(
            "called with one positional argument per parameter ({} here)",
            callee_params.len()
        ));
    }
    // Python evaluates every argument before binding any parameter: bound
    // one by one, no argument may read a parameter bound before it.
    for (i, arg) in args.iter().enumerate() {
        let read = names_read(arg);
        if let Some(p) = callee_params[..i].iter().find(|p| read.contains(p)) {
            return refuse(format!(
                "no argument reads a name that is also its parameter ({p} here): name one of them differently"
            ));
        }
    }
    // The callee's code runs in the lambda's scope here: a name it reads
    // from the module must not be one of the lambda's parameters.
    let mut local: Vec<String> = callee_params.clone();
    let mut stored = std::collections::BTreeSet::new();
    let mut work = def.list("body");
    while let Some(node) = work.pop() {
        if node.child("ctx").is_some_and(|c| c.is("Store")) {
            if let Some(name) = node.name() {
                stored.insert(name);
            }
        }
        work.extend(node.children());
    }
    local.extend(stored);
    for statement in def.list("body") {
        if let Some(name) = names_read(&statement)
            .into_iter()
            .find(|n| params.contains(n) && !local.contains(n))
        {
            return refuse(format!(
                "it reads no module-level name that is also the lambda's parameter ({name} here): name one of them differently"
            ));
        }
    }
    let bindings = callee_params
        .iter()
        .zip(args)
        .map(|(param, arg)| assign(param, arg))
        .collect();
    body_parts(def, params, bindings)
}

/// The parts of a `def` (or of a lambda calling it, whose `bindings` bind
/// its parameters): plain assignments, then `for x in xs: yield e` (under
/// one `if` at most) or `return [e for x in xs]`.
fn body_parts(def: &Node, params: Vec<String>, bindings: Vec<Node>) -> Result<Option<Parts>> {
    let mut statements = def.list("body");
    // A docstring.
    if statements
        .first()
        .is_some_and(|s| s.is("Expr") && s.expect("value").str_constant().is_some())
    {
        statements.remove(0);
    }
    let Some((last, before)) = statements.split_last() else {
        return Ok(None);
    };
    let generator = yields(def);
    let name = def.str("name").unwrap_or_default();
    let refuse = |at: &Node, what: &str| -> Result<Option<Parts>> {
        if generator {
            unsupported(
                &at.loc,
                format!(
                    "the generator {name} is read when it is plain assignments, then `for x in xs: yield e` (its body one `yield`, under one `if` at most) as its last statement; {what}"
                ),
            )
        } else {
            Ok(None)
        }
    };
    let mut prelude = bindings;
    for s in before {
        if s.is("For") {
            return refuse(s, "statements after the loop are not read");
        }
        let plain = s.is("Assign")
            && matches!(s.list("targets").as_slice(), [t] if t.name().is_some())
            && !yields(s);
        if !plain {
            return refuse(s, "this statement is not a plain assignment to one name");
        }
        prelude.push(s.clone());
    }
    if last.is("Return") {
        let Some(value) = last.child("value") else {
            return Ok(None);
        };
        return Ok(comprehension_parts(&value)?.map(|comprehension| Parts {
            params,
            prelude,
            ..comprehension
        }));
    }
    if !last.is("For") {
        return refuse(last, "its last statement is not a `for` loop");
    }
    if !last.list("orelse").is_empty() {
        return refuse(last, "for ... else is not read");
    }
    let target = last.expect("target");
    if target.name().is_none() && !is_zip(&last.expect("iter")) {
        return refuse(&target, "the loop's target is not one name");
    }
    let mut conditions = Vec::new();
    let mut body = last.list("body");
    if let [only] = body.as_slice() {
        if only.is("If") && only.list("orelse").is_empty() {
            conditions.push(only.expect("test"));
            body = only.list("body");
        }
    }
    let element = match body.as_slice() {
        [s] if s.is("Expr") && s.expect("value").is("Yield") => s.expect("value").child("value"),
        _ => return refuse(last, "the loop's body is not one `yield`"),
    };
    let Some(element) = element else {
        return refuse(last, "`yield` without a value yields None");
    };
    if conditions.iter().chain([&element]).any(yields) {
        return refuse(last, "a `yield` inside the yielded value is not read");
    }
    Ok(Some(Parts {
        params,
        prelude,
        target,
        iter: last.expect("iter"),
        conditions,
        element,
    }))
}

/// `[e for x in xs if c]` or `(e for x in xs if c)`: one `for` over one
/// name, any number of `if`s. The prelude and parameters are the caller's.
fn comprehension_parts(e: &Node) -> Result<Option<Parts>> {
    if !e.is("ListComp") && !e.is("GeneratorExp") {
        return Ok(None);
    }
    let generators = e.list("generators");
    let [generator] = generators.as_slice() else {
        return unsupported(
            &e.loc,
            "a comprehension with several `for`s in a flatMap is not read yet; flatMap over the outer one and again over the inner",
        );
    };
    if generator.json_int("is_async").unwrap_or(0) != 0 {
        return unsupported(&e.loc, "an async comprehension is not supported");
    }
    let target = generator.expect("target");
    if target.name().is_none() && !is_zip(&generator.expect("iter")) {
        return unsupported(
            &target.loc,
            "a comprehension in a flatMap is read when its target is one name (`for x in xs`), or two over zip(); unpack the element in the expression instead",
        );
    }
    Ok(Some(Parts {
        params: Vec::new(),
        prelude: Vec::new(),
        target,
        iter: generator.expect("iter"),
        conditions: generator.list("ifs"),
        element: e.expect("elt"),
    }))
}

/// Whether `e` calls `zip`.
fn is_zip(e: &Node) -> bool {
    e.is("Call") && e.expect("func").name().as_deref() == Some("zip")
}

/// `parts` with a loop over `zip(xs, xs[c:])` (the bigram idiom) read as
/// a loop over indices: `for _index in range(len(xs) - c)`, the target
/// `(xs[_index], xs[_index + c])`, as zip stops at the shorter list. Also
/// returns the loop's target name.
fn over_indices(scope: &Scope, mut parts: Parts) -> Result<(Parts, String)> {
    if !is_zip(&parts.iter) || scope.defs.contains_key("zip") || scope.rebound.contains_key("zip") {
        let Some(name) = parts.target.name() else {
            return unsupported(&parts.target.loc, "the loop's target is not one name");
        };
        return Ok((parts, name));
    }
    let zip = parts.iter.clone();
    let loc = &zip.loc;
    let refuse = || -> Result<(Parts, String)> {
        unsupported(
            loc,
            "zip() in a flatMap is read over one list and slices of it from a constant (`zip(xs, xs[1:])`)",
        )
    };
    let args = zip.list("args");
    if args.len() != 2 || !zip.list("keywords").is_empty() {
        return refuse();
    }
    // Each argument as (list, constant start).
    let mut sliced = Vec::new();
    for arg in &args {
        let slice = arg.child("slice");
        match slice {
            Some(slice) if arg.is("Subscript") && slice.is("Slice") => {
                let start = slice.child("lower").map(|l| crate::udf::int_constant(&l));
                match (start, slice.child("upper"), slice.child("step")) {
                    (Some(Some(c)), None, None) if c >= 0 => sliced.push((arg.expect("value"), c)),
                    (None, None, None) => sliced.push((arg.expect("value"), 0)),
                    _ => return refuse(),
                }
            }
            _ => sliced.push((arg.clone(), 0)),
        }
    }
    let (list, first) = sliced[0].clone();
    let (other, second) = sliced[1].clone();
    if !list.same_code(&other) {
        return refuse();
    }
    let index = "_index".to_string();
    let at = |offset: i64| -> Node {
        let i = Node::make_name(&index, loc);
        let i = if offset == 0 {
            i
        } else {
            Node::make_binop(i, "Add", Node::make_int(offset, loc), loc)
        };
        Node::make(
            "Subscript",
            loc,
            vec![
                ("value", Field::Node(list.clone())),
                ("slice", Field::Node(i)),
                ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
            ],
        )
    };
    let pair = [at(first), at(second)];
    let mut names: HashMap<String, Node> = HashMap::new();
    if let Some(name) = parts.target.name() {
        names.insert(name, Node::make_tuple(pair.to_vec(), loc));
    } else {
        let items = parts.target.list("elts");
        let named: Vec<Option<String>> = items.iter().map(Node::name).collect();
        match named.as_slice() {
            [Some(a), Some(b)] if parts.target.is("Tuple") || parts.target.is("List") => {
                names.insert(a.clone(), pair[0].clone());
                names.insert(b.clone(), pair[1].clone());
            }
            _ => {
                return unsupported(
                    &parts.target.loc,
                    "a loop over zip() is read with one name or two as its target",
                )
            }
        }
    }
    let len = Node::make_call("len", vec![list.clone()], loc);
    let shorter = first.max(second);
    let count = if shorter == 0 {
        len
    } else {
        Node::make_binop(len, "Sub", Node::make_int(shorter, loc), loc)
    };
    parts.iter = Node::make_call("range", vec![count], loc);
    parts.element = parts.element.substitute(&names);
    parts.conditions = parts
        .conditions
        .iter()
        .map(|c| c.substitute(&names))
        .collect();
    parts.target = Node::make_name(&index, loc);
    Ok((parts, index))
}

/// `name = value`.
fn assign(name: &str, value: Node) -> Node {
    let loc = value.loc.clone();
    let target = Node::make(
        "Name",
        &loc,
        vec![
            ("id", Field::Str(name.to_string())),
            ("ctx", Field::Node(Node::make("Store", &loc, Vec::new()))),
        ],
    );
    Node::make(
        "Assign",
        &loc,
        vec![
            ("targets", Field::List(vec![target])),
            ("value", Field::Node(value)),
        ],
    )
}

/// The names `code` reads, in the order they appear.
fn names_read(code: &Node) -> Vec<String> {
    let mut found = Vec::new();
    let mut work = vec![code.clone()];
    while let Some(node) = work.pop() {
        if let Some(name) = node.name() {
            if node.child("ctx").is_some_and(|c| c.is("Load")) && !found.contains(&name) {
                found.push(name);
            }
        }
        work.extend(node.children().into_iter().rev());
    }
    found
}

/// Whether `code` holds a `yield` outside nested functions.
fn yields(code: &Node) -> bool {
    let mut work = code.children();
    while let Some(node) = work.pop() {
        if node.is("Yield") || node.is("YieldFrom") {
            return true;
        }
        if !matches!(node.kind.as_str(), "FunctionDef" | "Lambda" | "ClassDef") {
            work.extend(node.children());
        }
    }
    false
}
