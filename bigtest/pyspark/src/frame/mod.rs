//! The DataFrame level of a job: a function whose parameters are
//! DataFrames (annotated `DataFrame`, each with its schema in a module
//! constant) and whose result is a DataFrame or a tuple of them, read
//! statement by statement into df dataset ops. A row is a df record of its
//! columns; a column that may be NULL is an `i1` (present) and the value.
//!
//! Every operator that computes (select, withColumn, filter, the steps of
//! an aggregate or a join) is a df function written by [`expr`], with Spark
//! SQL's semantics (docs/bigtest.md, "DataFrame jobs"); the dataset
//! operators are df's own (map, filter, join, reduce_by_key, union,
//! distinct).

mod agg;
pub mod expr;
mod functions;
mod join;
pub mod names;
mod ops;
pub mod schema;
pub mod script;
mod sql_text;
mod udf_call;

use std::collections::BTreeMap;

use crate::{
    error::{unsupported, Loc, Result},
    job::Builder,
    syntax::Node,
    udf::statement_name,
};

use schema::{row_shape, Column};

/// A DataFrame while the job is read: its df dataset and columns.
#[derive(Clone, Debug)]
pub struct Frame {
    pub value: String,
    pub columns: Vec<Column>,
}

/// What a name of the DataFrame code holds.
#[derive(Clone, Debug)]
pub enum Binding {
    Frame(Frame),
    Frames(Vec<Frame>),
    /// A Column expression, kept as code and lowered where it is used.
    Column(Node),
    /// `df.groupBy(keys)`: the frame and its key columns.
    Grouped(Frame, Vec<String>),
}

/// The module-level functions `entry` calls, directly or through them.
pub fn helpers_called(defs: &std::collections::HashMap<String, Node>, entry: &str) -> Vec<String> {
    fn calls(node: &Node, out: &mut Vec<String>) {
        if node.is("Call") {
            if let Some(name) = node.expect("func").name() {
                out.push(name);
            }
        }
        for child in node.children() {
            calls(&child, out);
        }
    }
    let mut found: Vec<String> = Vec::new();
    let mut todo = vec![entry.to_string()];
    while let Some(name) = todo.pop() {
        let Some(def) = defs.get(&name) else {
            continue;
        };
        let mut called = Vec::new();
        for statement in def.list("body") {
            calls(&statement, &mut called);
        }
        for c in called {
            if defs.contains_key(&c) && c != entry && !found.contains(&c) {
                found.push(c.clone());
                todo.push(c);
            }
        }
    }
    found
}

/// Whether `def` takes a DataFrame: a parameter annotated `DataFrame`.
pub fn takes_frames(def: &Node) -> bool {
    def.expect("args")
        .list("args")
        .iter()
        .any(|p| p.child("annotation").is_some_and(|a| is_dataframe(&a)))
}

fn is_dataframe(annotation: &Node) -> bool {
    annotation.name().as_deref() == Some("DataFrame")
        || (annotation.is("Attribute") && annotation.str("attr").as_deref() == Some("DataFrame"))
}

/// The module constant that holds parameter `name`'s schema.
fn schema_constant(builder: &Builder, name: &str) -> Option<String> {
    [
        format!("{}_SCHEMA", name.to_uppercase()),
        format!("{name}_schema"),
    ]
    .into_iter()
    .find(|c| builder.scope().values.contains_key(c))
}

/// Parameter `index`'s schema as the `__main__` block gives it: the
/// function under test called with a DataFrame read with a schema
/// (`spark.read.csv(path, schema=ORDERS, header=True)` or
/// `spark.read.schema(ORDERS).csv(path)`, inline or through a variable).
/// The schema is a module constant or a DDL string; returns its code and
/// how the pytest module writes it.
fn schema_from_main(
    builder: &Builder,
    guard: &Node,
    entry: &str,
    index: usize,
) -> Option<(Node, String)> {
    let mut assigned: BTreeMap<String, Node> = BTreeMap::new();
    let mut calls = Vec::new();
    fn walk(
        node: &Node,
        entry: &str,
        assigned: &mut BTreeMap<String, Node>,
        calls: &mut Vec<Node>,
    ) {
        if node.is("Assign") {
            if let [target] = &node.list("targets")[..] {
                if let Some(name) = target.name() {
                    assigned.insert(name, node.expect("value"));
                }
            }
        }
        if node.is("Call") && node.expect("func").name().as_deref() == Some(entry) {
            calls.push(node.clone());
        }
        for child in node.children() {
            walk(&child, entry, assigned, calls);
        }
    }
    for statement in guard.list("body") {
        walk(&statement, entry, &mut assigned, &mut calls);
    }
    let mut arg = calls.first()?.list("args").get(index)?.clone();
    if let Some(bound) = arg.name().and_then(|n| assigned.get(&n)) {
        arg = bound.clone();
    }
    // The schema of a reader chain: a `schema=` keyword or `.schema(S)`.
    let mut schema = None;
    let mut at = Some(arg);
    while let Some(node) = at.take() {
        if !node.is("Call") {
            break;
        }
        let func = node.expect("func");
        for keyword in node.list("keywords") {
            if keyword.str("arg").as_deref() == Some("schema") {
                schema = keyword.child("value");
            }
        }
        if func.str("attr").as_deref() == Some("schema") {
            schema = node.list("args").first().cloned();
        }
        at = func.is("Attribute").then(|| func.expect("value"));
    }
    let schema = schema?;
    if let Some(name) = schema.name() {
        let value = builder.scope().values.get(&name)?.clone();
        return Some((value, format!("job.{name}")));
    }
    let ddl = schema.str_constant()?;
    Some((schema, coco_spark::python::str_literal(&ddl)))
}

/// Builds the program of DataFrame function `def`; returns whether it
/// returns a tuple. `guard` is the file's `__main__` block, where a
/// parameter's schema may be found.
pub fn entry_program(builder: &mut Builder, def: &Node, guard: Option<&Node>) -> Result<bool> {
    let mut env = BTreeMap::new();
    let entry = def.str("name").unwrap_or_default();
    for (index, param) in def.expect("args").list("args").into_iter().enumerate() {
        let name = param.str("arg").unwrap_or_default();
        if !param.child("annotation").is_some_and(|a| is_dataframe(&a)) {
            return unsupported(
                &param.loc,
                format!("parameter {name}: every parameter of a DataFrame function under test is a DataFrame (annotated DataFrame)"),
            );
        }
        let found = match schema_constant(builder, &name) {
            Some(constant) => Some((
                builder.scope().values[&constant].clone(),
                format!("job.{constant}"),
            )),
            None => guard.and_then(|g| schema_from_main(builder, g, &entry, index)),
        };
        let Some((node, constant)) = found else {
            return unsupported(
                &param.loc,
                format!(
                    "parameter {name} is a DataFrame: its schema is the module-level constant {}_SCHEMA (a DDL string or StructType), or the schema the `__main__` block reads it with (spark.read.csv(..., schema=S)); the file has neither",
                    name.to_uppercase()
                ),
            );
        };
        let columns = schema::parse(&node)?;
        let source = builder.frame_source(
            &name,
            row_shape(&columns),
            &constant,
            &schema::Narrow::of(&columns),
            &param.loc,
        )?;
        let frame = ops::normalize(
            builder,
            Frame {
                value: source,
                columns,
            },
            &name,
            &param.loc,
        )?;
        env.insert(name, Binding::Frame(frame));
    }
    let name = def.str("name").unwrap_or_default();
    let mut reader = Reader {
        builder,
        env,
        helpers: Vec::new(),
    };
    let Some((binding, loc)) = reader.body(&def.list("body"))? else {
        return unsupported(
            &def.loc,
            format!("{name} returns no DataFrame; the function under test returns its results"),
        );
    };
    match binding {
        Binding::Frame(frame) => {
            reader
                .builder
                .frame_sink(&name, &frame.value, row_shape(&frame.columns), &loc)?;
            Ok(false)
        }
        Binding::Frames(frames) => {
            for (i, frame) in frames.iter().enumerate() {
                reader.builder.frame_sink(
                    &format!("{name}_{i}"),
                    &frame.value,
                    row_shape(&frame.columns),
                    &loc,
                )?;
            }
            Ok(true)
        }
        _ => unsupported(&loc, format!("{name} returns no DataFrame")),
    }
}

struct Reader<'a, 's> {
    builder: &'a mut Builder<'s>,
    env: BTreeMap<String, Binding>,
    /// The helper functions being inlined, innermost last.
    helpers: Vec<String>,
}

/// DataFrame methods whose result has its input's columns, the same
/// columns: a reference through the input names them on the result.
const KEEPS_COLUMNS: [&str; 15] = [
    "filter",
    "where",
    "distinct",
    "dropDuplicates",
    "drop_duplicates",
    "orderBy",
    "sort",
    "sortWithinPartitions",
    "cache",
    "persist",
    "alias",
    "repartition",
    "coalesce",
    "limit",
    "localCheckpoint",
];

/// How deep helper functions may call helper functions.
const MAX_HELPER_DEPTH: usize = 16;

impl Reader<'_, '_> {
    fn body(&mut self, body: &[Node]) -> Result<Option<(Binding, Loc)>> {
        for s in body {
            match s.kind.as_str() {
                "Return" => {
                    let Some(value) = s.child("value") else {
                        return unsupported(&s.loc, "the function under test returns its DataFrames");
                    };
                    let binding = if value.is("Tuple") {
                        let frames = value
                            .list("elts")
                            .iter()
                            .map(|e| self.frame(e))
                            .collect::<Result<Vec<_>>>()?;
                        Binding::Frames(frames)
                    } else {
                        Binding::Frame(self.frame(&value)?)
                    };
                    return Ok(Some((binding, s.loc.clone())));
                }
                "Assign" => {
                    let value = s.expect("value");
                    let binding = self.binding(&value)?;
                    for target in s.list("targets") {
                        let Some(name) = target.name() else {
                            return unsupported(&target.loc, "assign DataFrames and Columns to plain names");
                        };
                        self.env.insert(name, binding.clone());
                    }
                }
                "Expr" if s.expect("value").str_constant().is_some() => {}
                "Pass" | "Import" | "ImportFrom" => {}
                other => {
                    return unsupported(
                        &s.loc,
                        format!(
                            "{} are not supported in the job's DataFrame code (assignments and return are)",
                            statement_name(other)
                        ),
                    )
                }
            }
        }
        Ok(None)
    }

    /// The DataFrame `node` evaluates to.
    fn frame(&mut self, node: &Node) -> Result<Frame> {
        match self.binding(node)? {
            Binding::Frame(frame) => Ok(frame),
            _ => unsupported(
                &node.loc,
                format!(
                    "{} is not a DataFrame (a Column or a value of the driver?)",
                    names::render(node)
                ),
            ),
        }
    }

    /// Names bound to `frame` (for `orders["amount"]` and `orders.amount`).
    /// Names bound to a DataFrame `frame` was made from by operators
    /// that keep every column (`orders.filter(...).join(items,
    /// orders["id"] == items["order_id"])`): Spark resolves their columns
    /// on `frame` too.
    pub(crate) fn names_of(&self, frame: &Frame) -> Vec<String> {
        let mut values = vec![frame.value.clone()];
        while let Some(parent) = values
            .last()
            .and_then(|v| self.builder.frame_parents.get(v))
        {
            values.push(parent.clone());
        }
        self.env
            .iter()
            .filter(|(_, b)| matches!(b, Binding::Frame(f) if values.contains(&f.value)))
            .map(|(n, _)| n.clone())
            .collect()
    }

    fn columns_env(&self) -> BTreeMap<String, Node> {
        self.env
            .iter()
            .filter_map(|(n, b)| match b {
                Binding::Column(code) => Some((n.clone(), code.clone())),
                _ => None,
            })
            .collect()
    }

    fn binding(&mut self, node: &Node) -> Result<Binding> {
        if let Some(name) = node.name() {
            if let Some(b) = self.env.get(&name) {
                return Ok(b.clone());
            }
        }
        // `df.rdd`, `df.write`: the RDD API or a sink inside the function.
        if node.is("Attribute") {
            if let Some(attr @ ("rdd" | "write" | "writeStream")) = node.str("attr").as_deref() {
                if let Binding::Frame(_) = self.binding(&node.expect("value"))? {
                    return unsupported(
                        &node.attr_loc(),
                        format!("DataFrame.{attr} in the function under test is not supported: it returns its DataFrames (RDD code and writes belong outside it)"),
                    );
                }
            }
        }
        if node.is("Call") {
            let func = node.expect("func");
            if let Some(helper) = self.helper(&func) {
                return self.inline(&helper, node);
            }
            if func.is("Attribute") {
                let method = func.str("attr").unwrap_or_default();
                let receiver = func.expect("value");
                // `df.na.drop()`, `df.na.fill(0)`.
                if receiver.is("Attribute") && receiver.str("attr").as_deref() == Some("na") {
                    if let Binding::Frame(frame) = self.binding(&receiver.expect("value"))? {
                        let op = format!("na.{method}");
                        return self.frame_method(frame, &op, node).map(Binding::Frame);
                    }
                }
                match self.binding(&receiver)? {
                    Binding::Frame(frame) if matches!(method.as_str(), "groupBy" | "groupby") => {
                        return self.group_by(frame, node)
                    }
                    Binding::Frame(frame) => {
                        return self.frame_method(frame, &method, node).map(Binding::Frame)
                    }
                    Binding::Grouped(frame, keys) => {
                        return agg::aggregate(self, frame, &keys, &method, node)
                            .map(Binding::Frame)
                    }
                    _ => {}
                }
            }
        }
        // Anything else is a Column expression, checked where it is used.
        Ok(Binding::Column(node.clone()))
    }

    /// The module-level function `func` names, where it is a helper of
    /// the DataFrame code (not a UDF: no decorator).
    fn helper(&self, func: &Node) -> Option<Node> {
        let name = func.name()?;
        if self.env.contains_key(&name) {
            return None;
        }
        let def = self.builder.scope().defs.get(&name)?;
        def.list("decorator_list").is_empty().then(|| def.clone())
    }

    /// A call of helper `def` (`def clean(df): return df.filter(...)`),
    /// read as if its body stood here: its parameters bound to the
    /// caller's DataFrames and constants, its result what it returns.
    fn inline(&mut self, def: &Node, call: &Node) -> Result<Binding> {
        let name = def.str("name").unwrap_or_default();
        if self.helpers.contains(&name) {
            return unsupported(
                &call.loc,
                format!("{name}() calls itself: recursive helpers are not supported"),
            );
        }
        if self.helpers.len() >= MAX_HELPER_DEPTH {
            return unsupported(
                &call.loc,
                format!("helpers nested deeper than {MAX_HELPER_DEPTH} calls"),
            );
        }
        let args = def.expect("args");
        let params: Vec<String> = args
            .list("args")
            .iter()
            .map(|p| p.str("arg").unwrap_or_default())
            .collect();
        if !args.list("vararg").is_empty()
            || args.child("vararg").is_some()
            || args.child("kwarg").is_some()
            || !args.list("kwonlyargs").is_empty()
        {
            return unsupported(&def.loc, format!("{name}() takes *args, **kwargs or keyword-only parameters: a helper of the DataFrame code takes plain parameters"));
        }
        // Defaults align with the last parameters.
        let defaults = args.list("defaults");
        let mut bound: Vec<Option<Node>> = vec![None; params.len()];
        for (i, d) in defaults.iter().enumerate() {
            bound[params.len() - defaults.len() + i] = Some(d.clone());
        }
        let given = call.list("args");
        if given.len() > params.len() {
            return unsupported(
                &call.loc,
                format!(
                    "{name}() takes {} arguments, {} given",
                    params.len(),
                    given.len()
                ),
            );
        }
        for (i, a) in given.iter().enumerate() {
            bound[i] = Some(a.clone());
        }
        for k in call.list("keywords") {
            let key = k.str("arg").unwrap_or_default();
            match params.iter().position(|p| *p == key) {
                Some(i) => bound[i] = k.child("value"),
                None => return unsupported(&k.loc, format!("{name}() has no parameter {key}")),
            }
        }
        // DataFrames are bound by name; constants and Column expressions
        // stand in the body as code, where the Spark calls read them.
        let mut env = BTreeMap::new();
        let mut code = std::collections::HashMap::new();
        for (param, arg) in params.iter().zip(bound) {
            let Some(arg) = arg else {
                return unsupported(
                    &call.loc,
                    format!("{name}() is called without its parameter {param}"),
                );
            };
            match self.binding(&arg)? {
                Binding::Frames(_) => {
                    return unsupported(
                        &arg.loc,
                        format!("{name}()'s parameter {param} is a tuple of DataFrames: pass them one by one"),
                    )
                }
                Binding::Column(c) => {
                    code.insert(param.clone(), c);
                }
                frame => {
                    env.insert(param.clone(), frame);
                }
            }
        }
        let body: Vec<Node> = def
            .list("body")
            .iter()
            .map(|s| s.substitute(&code))
            .collect();
        let caller = std::mem::replace(&mut self.env, env);
        self.helpers.push(name.clone());
        let result = self.body(&body);
        self.helpers.pop();
        self.env = caller;
        match result? {
            Some((binding @ (Binding::Frame(_) | Binding::Frames(_)), _)) => Ok(binding),
            _ => unsupported(
                &def.loc,
                format!(
                    "{name}() returns no DataFrame; a helper of the DataFrame code returns one"
                ),
            ),
        }
    }

    fn frame_method(&mut self, frame: Frame, method: &str, call: &Node) -> Result<Frame> {
        let loc = call.expect("func").attr_loc();
        let parent = frame.value.clone();
        let result = ops::method(self, frame, method, call, &loc)?;
        if KEEPS_COLUMNS.contains(&method) && result.value != parent {
            self.builder
                .frame_parents
                .insert(result.value.clone(), parent);
        }
        Ok(result)
    }

    /// `df.groupBy(key)`: a GroupedData, whose method (`agg`, `count`)
    /// comes next.
    fn group_by(&mut self, frame: Frame, call: &Node) -> Result<Binding> {
        let loc = call.expect("func").attr_loc();
        let args = call.list("args");
        let names = self.names_of(&frame);
        let env = self.columns_env();
        let cx = expr::Context {
            columns: &[],
            env: &env,
            frames: &names,
        };
        // `groupBy("a", col("b"))` or `groupBy(["a", "b"])`.
        let items = match &args[..] {
            [list] if list.is("List") || list.is("Tuple") => list.list("elts"),
            _ => args.clone(),
        };
        if items.is_empty() {
            return unsupported(
                &loc,
                "groupBy() without a key (a global aggregate, one row even of no input) is not supported yet",
            );
        }
        let mut keys: Vec<String> = Vec::new();
        for item in &items {
            let Some(text) = item
                .str_constant()
                .or_else(|| names::column_reference(item, &cx))
                .or_else(|| {
                    let columns = frame.columns.iter().map(|c| c.name.as_str());
                    names::frame_attribute(item, &names, columns)
                })
            else {
                return unsupported(&item.loc, "groupBy() takes column names or col(name)");
            };
            let key = names::canonical(
                frame.columns.iter().map(|c| c.name.as_str()),
                &text,
                &item.loc,
            )?;
            if !frame.columns.iter().any(|c| c.name == key) {
                return unsupported(&item.loc, format!("no column {key} to group by"));
            }
            if keys.contains(&key) {
                return unsupported(&item.loc, format!("groupBy() names column {key} twice"));
            }
            if items.len() > 1 {
                let ty = frame.columns.iter().find(|c| c.name == key).map(|c| c.ty);
                if ty.is_some_and(schema::SqlTy::is_floating) {
                    // Spark groups -0.0 with 0.0 and NaN with NaN, which
                    // df's key equality does not model for doubles.
                    return unsupported(
                        &item.loc,
                        format!(
                            "a double column ({key}) among several group keys is not supported yet"
                        ),
                    );
                }
            }
            keys.push(key);
        }
        Ok(Binding::Grouped(frame, keys))
    }
}
