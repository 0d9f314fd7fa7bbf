//! Python UDFs (lambdas and `def`s of the job's file) lowered to df
//! functions: one `func.func` per RDD operator, the callables it reaches
//! inlined, Python's control flow as `cf` blocks, so every branch the UDF
//! takes is a decision BigTest names (`@map_12:cond_br#7=true`).
//!
//! The subset and its semantics are the table in docs/pyspark.md.

mod csv_row;
mod regex;

pub use csv_row::CSV_ROW;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::{
    error::{unsupported, Loc, Result},
    ir::{BlockId, Function, Ty, TyText, Value},
    shape::{PyVal, Shape},
    syntax::{Constant, Field, Node},
};

/// Modules of the standard library whose functions UDFs may call: `re`
/// (`udf/regex.rs`) and `csv` (`csv.reader` rows).
pub const MODELLED_MODULES: &[&str] = &["re", "csv"];

/// What the UDFs of a file can refer to besides their parameters.
#[derive(Default)]
pub struct Scope {
    /// Module-level `def`s, by name.
    pub defs: HashMap<String, Node>,
    /// Module-level constants (`THRESHOLD = 400`): names with one known
    /// value when a UDF runs (see [`Scope::settle`]).
    pub constants: HashMap<String, Constant>,
    /// Every module-level assignment of one name, by name: schemas
    /// (`ORDERS_SCHEMA = StructType([...])`) and UDFs
    /// (`parse_amount = F.udf(_parse, DoubleType())`) of DataFrame jobs.
    pub values: HashMap<String, Node>,
    /// Module-level names that are neither a constant nor a plain `def`
    /// (bound under an `if` coco cannot decide, in a loop, by an import,
    /// to a computed value, again with another kind of value): a UDF may
    /// not read them as constants, nor take a builtin's name among them
    /// for the builtin.
    pub rebound: HashMap<String, Rebinding>,
    /// `from m import *`: it may rebind any builtin.
    pub star_import: Option<Loc>,
    /// The file's exception classes (`class MyError(ValueError): pass`):
    /// their base class, by name.
    pub exceptions: HashMap<String, String>,
    /// Names bound once, at module level, by `from operator import add`
    /// (to the function's name, `add`) or `import operator` (to ""): a job
    /// passes them as functions (`reduceByKey(add)`).
    pub operators: HashMap<String, String>,
    /// Names bound once, at module level, by an import from a module whose
    /// functions UDFs may call ([`MODELLED_MODULES`]): `import re` binds
    /// `re` to `("re", "")`, `from csv import reader` binds `reader` to
    /// `("csv", "reader")`.
    pub imported: HashMap<String, (String, String)>,
    /// Names the file may change in place: a method other than a read is
    /// called on them (`d.update(...)`), an item or attribute of them is
    /// assigned or deleted, or they are passed to a function other than
    /// `broadcast`. A UDF does not read such a dict as its literal.
    pub mutated: HashSet<String>,
}

/// Where and how a module-level name is bound in a way coco does not
/// take as a constant.
#[derive(Clone, Debug)]
pub struct Rebinding {
    pub loc: Loc,
    /// "assigned under an `if` whose test is not a constant".
    pub how: String,
    /// Bound once, in straight-line module code, to a value that is not a
    /// constant (a dict literal, a call): [`Scope::values`] holds it.
    pub once: bool,
}

/// Variables of the code being lowered.
type Env = BTreeMap<String, PyVal>;

/// An enclosing `try:` whose handler catches `classes`.
struct Handler {
    classes: Vec<String>,
    block: BlockId,
}

/// How an RDD operator calls its UDF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apply {
    /// `map`, `flatMap`: on the record.
    Record,
    /// `filter`: on the record; its truth decides.
    Predicate,
    /// `mapValues`: on the value of a key-value record; the key stays.
    Values,
    /// `reduceByKey`, `reduce`: on two values.
    Pair,
    /// A DataFrame's Python UDF (`F.udf(f, type)`): on the items of a
    /// tuple record, one argument each (the columns it is called with).
    Args,
}

/// Lowers the UDF of one RDD operator: `callable` (a `Lambda`, a
/// `FunctionDef`, or a `Name` of one) applied as `apply` says to records of
/// `record`'s shape, written as df function `name`. Returns the function
/// and the shape of what it produces (`None` for a predicate).
pub fn lower(
    scope: &Scope,
    name: &str,
    callable: &Node,
    apply: Apply,
    record: &Shape,
    loc: &Loc,
) -> Result<(String, Option<Shape>)> {
    let params: Vec<Shape> = match apply {
        Apply::Pair => vec![record.clone(), record.clone()],
        _ => vec![record.clone()],
    };
    let types: Vec<Ty> = params.iter().flat_map(Shape::fields).collect();
    let mut lowering = Lowering {
        scope,
        f: Function::new(name, &types, loc),
        env: Env::new(),
        handlers: Vec::new(),
        returns: Vec::new(),
        calls: Vec::new(),
        loops: Vec::new(),
        local_regex: HashSet::new(),
    };
    let mut values = lowering.f.params().to_vec().into_iter();
    let args: Vec<PyVal> = params
        .iter()
        .map(|shape| lowering.value_of_fields(shape, &mut values, loc))
        .collect::<Result<_>>()?;
    let result = match apply {
        Apply::Values => {
            let PyVal::Tuple(pair) = &args[0] else {
                return unsupported(loc, "mapValues needs key-value records");
            };
            let value = lowering.invoke(callable, vec![pair[1].clone()], loc)?;
            PyVal::Tuple(vec![pair[0].clone(), value])
        }
        Apply::Args => {
            let items = match args.into_iter().next() {
                Some(PyVal::Tuple(items)) => items,
                Some(one) => vec![one],
                None => Vec::new(),
            };
            lowering.invoke(callable, items, loc)?
        }
        _ => lowering.invoke(callable, args, loc)?,
    };
    let f = &mut lowering.f;
    if f.terminated() {
        // Every path fails: the UDF still needs a type.
        return unsupported(loc, "this UDF raises on every path; it has no result type");
    }
    if apply == Apply::Predicate {
        let truth = lowering.truth(&result, loc)?;
        lowering.f.set_results(vec![Ty::Bool]);
        lowering.f.ret(&[truth], loc);
        return Ok((lowering.f.finish(), None));
    }
    let Some(shape) = lowering.unify(&[(result.clone(), loc.clone())], "the UDF's result")? else {
        return unsupported(loc, "this UDF always returns None");
    };
    let leaves = lowering.coerce(&result, &shape, loc)?;
    lowering.f.set_results(shape.fields());
    lowering.f.ret(&leaves, loc);
    Ok((lowering.f.finish(), Some(shape)))
}

struct Lowering<'s> {
    scope: &'s Scope,
    f: Function,
    env: Env,
    handlers: Vec<Handler>,
    /// Per `def` being inlined: the blocks that return and their values.
    returns: Vec<Vec<(BlockId, PyVal, Loc)>>,
    /// The `def`s being inlined, to refuse recursion.
    calls: Vec<String>,
    /// Enclosing `for` loops, innermost last: `None` for one unrolled over
    /// a constant range or tuple.
    loops: Vec<Option<LoopExits>>,
    /// Names an `import re` in the UDF bound to the module.
    local_regex: HashSet<String>,
}

/// Where a `for` loop over a list is left early: the blocks that `break`
/// and `continue`, with the variables each one carries.
#[derive(Clone, Default)]
struct LoopExits {
    breaks: Vec<(BlockId, Env, Loc)>,
    continues: Vec<(BlockId, Env, Loc)>,
}

/// A loop over a list's elements being written: the header block and its
/// arguments, the index and the carried values.
struct ListTrip {
    header: BlockId,
    index: Value,
    carried: Vec<Value>,
}

/// What a lowering wrote, to go back to when a loop is lowered again with
/// wider types for the variables it carries.
struct Snapshot {
    f: Function,
    env: Env,
    returns: Vec<Vec<(BlockId, PyVal, Loc)>>,
    loops: Vec<Option<LoopExits>>,
}

/// How many times a loop is lowered again, each time with the types its
/// carried variables took in the body (`None` before, a str after: a
/// str that may be None). Each widening makes a type more general, and
/// no shape widens more than a few times.
const LOOP_WIDENINGS: usize = 4;

/// The furthest from the end a list is indexed (`xs[-4]`): each step back
/// is one more value the loop carries.
const MAX_FROM_END: i64 = 4;

/// Variables the statements assign anywhere inside them (a `Name` stored
/// to, also as a `for` target or in a tuple).
fn assigned_names(nodes: &[Node], out: &mut BTreeSet<String>) {
    for node in nodes {
        if let Some(name) = node.name() {
            if node.child("ctx").is_some_and(|ctx| ctx.is("Store")) {
                out.insert(name);
            }
        }
        if !node.is("Lambda") {
            assigned_names(&node.children(), out);
        }
    }
}

/// Python's built-in exception classes (3.8 and later) and their base:
/// the one table `except` and `raise` are judged by. An alias
/// (`IOError`) names the class it is (`OSError`) as its own base.
const BUILTIN_EXCEPTIONS: &[(&str, &str)] = &[
    ("BaseException", ""),
    ("SystemExit", "BaseException"),
    ("KeyboardInterrupt", "BaseException"),
    ("GeneratorExit", "BaseException"),
    ("Exception", "BaseException"),
    ("ArithmeticError", "Exception"),
    ("FloatingPointError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("AssertionError", "Exception"),
    ("AttributeError", "Exception"),
    ("BufferError", "Exception"),
    ("EOFError", "Exception"),
    ("ImportError", "Exception"),
    ("ModuleNotFoundError", "ImportError"),
    ("LookupError", "Exception"),
    ("IndexError", "LookupError"),
    ("KeyError", "LookupError"),
    ("MemoryError", "Exception"),
    ("NameError", "Exception"),
    ("UnboundLocalError", "NameError"),
    ("OSError", "Exception"),
    ("EnvironmentError", "OSError"),
    ("IOError", "OSError"),
    ("BlockingIOError", "OSError"),
    ("ChildProcessError", "OSError"),
    ("ConnectionError", "OSError"),
    ("BrokenPipeError", "ConnectionError"),
    ("ConnectionAbortedError", "ConnectionError"),
    ("ConnectionRefusedError", "ConnectionError"),
    ("ConnectionResetError", "ConnectionError"),
    ("FileExistsError", "OSError"),
    ("FileNotFoundError", "OSError"),
    ("InterruptedError", "OSError"),
    ("IsADirectoryError", "OSError"),
    ("NotADirectoryError", "OSError"),
    ("PermissionError", "OSError"),
    ("ProcessLookupError", "OSError"),
    ("TimeoutError", "OSError"),
    ("ReferenceError", "Exception"),
    ("RuntimeError", "Exception"),
    ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"),
    ("StopAsyncIteration", "Exception"),
    ("StopIteration", "Exception"),
    ("SyntaxError", "Exception"),
    ("IndentationError", "SyntaxError"),
    ("TabError", "IndentationError"),
    ("SystemError", "Exception"),
    ("TypeError", "Exception"),
    ("ValueError", "Exception"),
    ("UnicodeError", "ValueError"),
    ("UnicodeDecodeError", "UnicodeError"),
    ("UnicodeEncodeError", "UnicodeError"),
    ("UnicodeTranslateError", "UnicodeError"),
    ("Warning", "Exception"),
    ("BytesWarning", "Warning"),
    ("DeprecationWarning", "Warning"),
    ("FutureWarning", "Warning"),
    ("ImportWarning", "Warning"),
    ("PendingDeprecationWarning", "Warning"),
    ("ResourceWarning", "Warning"),
    ("RuntimeWarning", "Warning"),
    ("SyntaxWarning", "Warning"),
    ("UnicodeWarning", "Warning"),
    ("UserWarning", "Warning"),
];

/// The class a built-in alias is (`IOError` is `OSError`).
fn canonical_exception(name: &str) -> &str {
    match name {
        "EnvironmentError" | "IOError" => "OSError",
        other => other,
    }
}

/// Why a UDF may not `raise` this built-in class, if it may not: what
/// Python or PySpark does instead of failing the task with it.
fn unraisable(class: &str) -> Option<&'static str> {
    Some(match class {
        "BaseException" | "SystemExit" | "KeyboardInterrupt" | "GeneratorExit" => {
            "it is not an Exception: it stops PySpark's Python worker instead of failing the task"
        }
        "StopIteration" | "StopAsyncIteration" => {
            "PySpark turns it into a RuntimeError when it leaves a UDF"
        }
        "UnicodeDecodeError" | "UnicodeEncodeError" | "UnicodeTranslateError" => {
            "its constructor takes five arguments of set types, so raising it usually raises TypeError"
        }
        _ => return None,
    })
}

impl Scope {
    /// The base of exception class `name` (a builtin, or a class of the
    /// file); `None` for `BaseException` and for what is no exception
    /// class.
    fn exception_base(&self, name: &str) -> Option<&str> {
        if let Some(base) = self.exceptions.get(name) {
            return Some(base);
        }
        BUILTIN_EXCEPTIONS
            .iter()
            .find(|(class, _)| *class == name)
            .map(|(_, base)| *base)
            .filter(|base| !base.is_empty())
    }

    /// Refuses `name`, which a UDF reads as `what` ("a constant", "Python's
    /// builtin int"), where the file binds it otherwise.
    fn refuse_rebound<T>(&self, name: &str, loc: &Loc, what: &str) -> Result<T> {
        let Some(r) = self.rebound.get(name) else {
            return unsupported(loc, format!("{name} is not {what}"));
        };
        if r.once
            && self.mutated.contains(name)
            && self
                .values
                .get(name)
                .is_some_and(|v| ["Dict", "Set", "List"].iter().any(|kind| v.is(kind)))
        {
            return unsupported(
                loc,
                format!(
                    "{name} is changed in place by the file (a method such as update() or add() called on it, an item assigned, or passed to a function), so coco cannot tell which entries a UDF sees; a dict or collection a UDF reads is written once, as a literal of constants"
                ),
            );
        }
        unsupported(
            loc,
            format!(
                "{name} is not {what} here: at {} it is {}; coco refuses what it cannot tell rather than guess which value the UDF sees",
                r.loc, r.how
            ),
        )
    }

    /// Refuses `name` as Python's builtin where the module may rebind it
    /// (variables and `def`s of the UDF's own scope are checked by the
    /// caller).
    /// Refuses the builtin `name` where the module may rebind it.
    pub(crate) fn builtin(&self, name: &str, loc: &Loc) -> Result<()> {
        if self.rebound.contains_key(name) {
            return self.refuse_rebound(name, loc, &format!("Python's builtin {name}"));
        }
        if let Some(at) = &self.star_import {
            return unsupported(
                loc,
                format!("`from ... import *` at {at} may rebind the builtin {name}; import the names the job uses instead"),
            );
        }
        Ok(())
    }

    fn is_exception_class(&self, name: &str) -> bool {
        self.exceptions.contains_key(name)
            || BUILTIN_EXCEPTIONS.iter().any(|(class, _)| *class == name)
    }

    /// Whether `except handler:` catches an exception of class `class`:
    /// `handler` is `class` or one of its bases.
    fn catches(&self, handler: &str, class: &str) -> bool {
        let handler = canonical_exception(handler);
        let mut class = canonical_exception(class);
        // The table has no cycles, but a file's classes are only checked to
        // name known bases: bound the walk by the number of classes.
        for _ in 0..=BUILTIN_EXCEPTIONS.len() + self.exceptions.len() {
            if class == handler {
                return true;
            }
            match self.exception_base(class) {
                Some(base) => class = canonical_exception(base),
                None => return false,
            }
        }
        false
    }
}

/// How a module-level statement binds a name, for [`Scope::settle`].
#[derive(Clone, Debug, PartialEq)]
enum Bound {
    Constant(Constant),
    Def,
    /// A class, an import, a computed value: nothing a UDF reads as a
    /// constant. The text says what it is.
    Other(&'static str),
}

/// How [`Scope::rebound`] names a class defined once at module level.
const A_CLASS: &str = "a class of the file";

/// The module-level statements read in order, as Python runs them on
/// import.
#[derive(Default)]
struct ModuleScan {
    /// Each name's binding in straight-line code, with where it is.
    current: HashMap<String, (Bound, Loc)>,
    rebound: HashMap<String, Rebinding>,
    star_import: Option<Loc>,
    exceptions: HashMap<String, String>,
    /// What [`Scope::operators`] is made from.
    operators: HashMap<String, String>,
    /// What [`Scope::imported`] is made from.
    imported: HashMap<String, (String, String)>,
}

/// Whether module statements run unconditionally (`None`), or else how
/// they are nested ("under an `if` at job.py:3:1 whose test ...").
type Flow<'a> = Option<&'a str>;

impl ModuleScan {
    fn bind(&mut self, name: String, loc: &Loc, bound: Bound, flow: Flow) {
        let rebinding = |how: String| Rebinding {
            loc: loc.clone(),
            how,
            once: false,
        };
        if let Some(how) = flow {
            self.rebound
                .entry(name)
                .or_insert_with(|| rebinding(how.to_string()));
            return;
        }
        match self.current.get(&name) {
            // Straight-line code: the last binding is what a UDF sees,
            // when every binding is a constant, or every one a `def`.
            Some((before, _))
                if std::mem::discriminant(before) != std::mem::discriminant(&bound)
                    || matches!(bound, Bound::Other(_)) =>
            {
                self.rebound
                    .entry(name.clone())
                    .or_insert_with(|| rebinding("bound again".into()));
            }
            _ => {}
        }
        self.current.insert(name, (bound, loc.clone()));
    }

    /// The truth of a module-level `if` test where it is known before the
    /// file runs: a constant, or a constant's name, or `not` of one.
    fn truth(&self, test: &Node) -> Option<bool> {
        if test.is("UnaryOp") && test.op_kind("op").as_deref() == Some("Not") {
            return self.truth(&test.expect("operand")).map(|t| !t);
        }
        let constant = match test.name() {
            Some(name) if !self.rebound.contains_key(&name) => match self.current.get(&name) {
                Some((Bound::Constant(c), _)) => c.clone(),
                _ => return None,
            },
            Some(_) => return None,
            None => crate::job::constant_of(test)?,
        };
        match constant {
            Constant::Int(digits) => Some(
                !digits
                    .trim_start_matches('-')
                    .trim_start_matches('0')
                    .is_empty(),
            ),
            Constant::Float(x) => Some(x != 0.0),
            Constant::Str(s) => Some(!s.is_empty()),
            Constant::Bool(b) => Some(b),
            Constant::None => Some(false),
            Constant::Other(_) => None,
        }
    }

    fn statements(&mut self, body: &[Node], flow: Flow) {
        for s in body {
            self.statement(s, flow);
        }
    }

    fn statement(&mut self, s: &Node, flow: Flow) {
        match s.kind.as_str() {
            "Assign" | "AnnAssign" => {
                let Some(value) = s.child("value") else {
                    return; // `x: int` binds nothing
                };
                let targets = if s.is("Assign") {
                    s.list("targets")
                } else {
                    vec![s.expect("target")]
                };
                for target in targets {
                    match (target.name(), crate::job::constant_of(&value)) {
                        (Some(name), Some(c)) => self.bind(name, &s.loc, Bound::Constant(c), flow),
                        (Some(name), None) => self.bind(
                            name,
                            &s.loc,
                            Bound::Other("assigned a computed value"),
                            flow,
                        ),
                        (None, _) => self.stored(&target, &s.loc, "assigned by unpacking", flow),
                    }
                }
                self.stored(&value, &s.loc, "assigned by `:=`", flow);
            }
            "AugAssign" => self.stored(
                &s.expect("target"),
                &s.loc,
                "changed by an augmented assignment",
                flow,
            ),
            "FunctionDef" | "AsyncFunctionDef" => {
                let name = s.str("name").unwrap_or_default();
                self.bind(name, &s.loc, Bound::Def, flow);
                self.globals(&s.list("body"), &s.loc);
            }
            "ClassDef" => {
                let name = s.str("name").unwrap_or_default();
                if flow.is_none() {
                    if let Some(base) = exception_class_def(s) {
                        self.exceptions.insert(name.clone(), base);
                    }
                }
                self.bind(name, &s.loc, Bound::Other(A_CLASS), flow);
            }
            "Import" | "ImportFrom" => {
                for alias in s.list("names") {
                    let name = alias.str("name").unwrap_or_default();
                    if name == "*" {
                        self.star_import.get_or_insert_with(|| s.loc.clone());
                        continue;
                    }
                    let bound = match alias.str("asname") {
                        Some(asname) => asname,
                        None if s.is("Import") => {
                            name.split('.').next().unwrap_or_default().to_string()
                        }
                        None => name.clone(),
                    };
                    let from_operator = s.str("module").as_deref() == Some("operator")
                        && s.json_int("level").unwrap_or(0) == 0;
                    if flow.is_none() && from_operator {
                        self.operators.insert(bound.clone(), name.clone());
                    } else if flow.is_none() && s.is("Import") && name == "operator" {
                        self.operators.insert(bound.clone(), String::new());
                    }
                    let module = s
                        .str("module")
                        .filter(|_| s.json_int("level").unwrap_or(0) == 0);
                    match module {
                        Some(m) if flow.is_none() && MODELLED_MODULES.contains(&m.as_str()) => {
                            self.imported.insert(bound.clone(), (m, name.clone()));
                        }
                        None if flow.is_none()
                            && s.is("Import")
                            && MODELLED_MODULES.contains(&name.as_str()) =>
                        {
                            self.imported
                                .insert(bound.clone(), (name.clone(), String::new()));
                        }
                        _ => {}
                    }
                    self.bind(bound, &s.loc, Bound::Other("imported"), flow);
                }
            }
            "If" if crate::job::is_main_guard(&s.expect("test")) => {
                // A script runs its job here; an imported module never
                // runs the block. Either way, what it binds is not one
                // value every UDF sees.
                let how = "assigned in the `if __name__ == \"__main__\":` block";
                self.statements(&s.list("body"), Some(how));
                self.statements(&s.list("orelse"), Some(how));
            }
            "If" => match self.truth(&s.expect("test")) {
                Some(truth) => {
                    let branch = s.list(if truth { "body" } else { "orelse" });
                    self.statements(&branch, flow);
                }
                None => {
                    let how = flow.unwrap_or("assigned under an `if` whose test is not a constant");
                    self.statements(&s.list("body"), Some(how));
                    self.statements(&s.list("orelse"), Some(how));
                }
            },
            "Delete" => {
                for target in s.list("targets") {
                    self.stored_or_deleted(&target, &s.loc, "deleted", flow);
                }
            }
            "Expr" | "Return" | "Raise" | "Assert" | "Pass" | "Break" | "Continue" | "Global"
            | "Nonlocal" => self.stored(s, &s.loc, "assigned by `:=`", flow),
            // Loops, try, with, match: what they bind depends on data.
            _ => {
                let how = flow.unwrap_or("bound in a loop, try, with or match statement");
                self.stored(s, &s.loc, "bound", Some(how));
            }
        }
    }

    /// Names an expression or target stores to (`x` in `x := f()`, `a, b`
    /// unpacked, a `for` target, a `match` capture), not inside a nested
    /// function, class or comprehension, whose names are their own.
    fn stored(&mut self, node: &Node, loc: &Loc, how: &'static str, flow: Flow) {
        if let Some(name) = node.name() {
            if node.child("ctx").is_some_and(|ctx| ctx.is("Store")) {
                self.bind(name, loc, Bound::Other(how), flow);
            }
            return;
        }
        if matches!(node.kind.as_str(), "MatchAs" | "MatchStar") {
            if let Some(name) = node.str("name") {
                self.bind(name, loc, Bound::Other(how), flow);
            }
        }
        if node.is("ExceptHandler") {
            if let Some(name) = node.str("name") {
                self.bind(name, loc, Bound::Other(how), flow);
            }
        }
        if node.is("MatchMapping") {
            if let Some(name) = node.str("rest") {
                self.bind(name, loc, Bound::Other(how), flow);
            }
        }
        if matches!(
            node.kind.as_str(),
            "Lambda"
                | "FunctionDef"
                | "AsyncFunctionDef"
                | "ClassDef"
                | "ListComp"
                | "SetComp"
                | "DictComp"
                | "GeneratorExp"
        ) {
            return;
        }
        for child in node.children() {
            if is_statement(&child) {
                self.statement(&child, flow);
            } else {
                self.stored(&child, loc, how, flow);
            }
        }
    }

    fn stored_or_deleted(&mut self, target: &Node, loc: &Loc, how: &'static str, flow: Flow) {
        match target.name() {
            Some(name) => self.bind(name, loc, Bound::Other(how), flow),
            None => {
                for item in target.list("elts") {
                    self.stored_or_deleted(&item, loc, how, flow);
                }
            }
        }
    }

    /// A function that declares `global x` and assigns `x` rebinds the
    /// module's `x` whenever it is called.
    fn globals(&mut self, body: &[Node], def: &Loc) {
        fn has_global(nodes: &[Node]) -> Option<Loc> {
            nodes.iter().find_map(|n| {
                if n.is("Global") {
                    Some(n.loc.clone())
                } else {
                    has_global(&n.children())
                }
            })
        }
        let Some(at) = has_global(body) else {
            return;
        };
        let mut names = BTreeSet::new();
        assigned_names(body, &mut names);
        let how = format!("assigned by the function defined at {def}, which declares it `global`");
        for name in names {
            self.rebound.entry(name).or_insert_with(|| Rebinding {
                loc: at.clone(),
                how: how.clone(),
                once: false,
            });
        }
    }
}

/// Whether `node` is a statement (its class is one of `ast.stmt`'s).
fn is_statement(node: &Node) -> bool {
    matches!(
        node.kind.as_str(),
        "FunctionDef"
            | "AsyncFunctionDef"
            | "ClassDef"
            | "Return"
            | "Delete"
            | "Assign"
            | "TypeAlias"
            | "AugAssign"
            | "AnnAssign"
            | "For"
            | "AsyncFor"
            | "While"
            | "If"
            | "With"
            | "AsyncWith"
            | "Match"
            | "Raise"
            | "Try"
            | "TryStar"
            | "Assert"
            | "Import"
            | "ImportFrom"
            | "Global"
            | "Nonlocal"
            | "Expr"
            | "Pass"
            | "Break"
            | "Continue"
    )
}

/// The base of `class Name(Base): pass` when the class is an exception
/// class coco models: one base, a built-in exception or an earlier class
/// of the file, no keywords or decorators, and a body of `pass`, `...`
/// or a docstring (so constructing and raising it is its base's doing).
fn exception_class_def(class: &Node) -> Option<String> {
    let [base] = &class.list("bases")[..] else {
        return None;
    };
    if !class.list("keywords").is_empty() || !class.list("decorator_list").is_empty() {
        return None;
    }
    let plain = class
        .list("body")
        .iter()
        .all(|s| s.is("Pass") || (s.is("Expr") && s.expect("value").constant().is_some()));
    if !plain {
        return None;
    }
    base.name()
}

impl Scope {
    /// The function of `module` that `name` is bound to by an import
    /// (`""` for the module itself).
    pub fn imported_from(&self, module: &str, name: &str) -> Option<&str> {
        match self.imported.get(name) {
            Some((m, function)) if m == module => Some(function),
            _ => None,
        }
    }

    /// Reads the file's module-level statements as Python runs them on
    /// import, and keeps as constants only the names that hold one known
    /// value when a UDF runs: `NAME = constant` in straight-line code
    /// (the last one), or under an `if` whose test is such a constant.
    /// Everything else a module binds goes to [`Scope::rebound`] with where
    /// and how, and the file's exception classes to
    /// [`Scope::exceptions`].
    pub fn settle(&mut self, body: &[Node]) {
        for statement in body {
            changed_in_place(statement, &mut self.mutated);
        }
        let mut scan = ModuleScan::default();
        scan.statements(body, None);
        // Bound by the import alone: nothing else binds the name.
        self.operators = std::mem::take(&mut scan.operators)
            .into_iter()
            .filter(|(name, _)| !scan.rebound.contains_key(name))
            .collect();
        self.imported = std::mem::take(&mut scan.imported)
            .into_iter()
            .filter(|(name, _)| !scan.rebound.contains_key(name))
            .collect();
        for (name, (bound, loc)) in &scan.current {
            if scan.rebound.contains_key(name) {
                continue;
            }
            let how = match bound {
                Bound::Constant(_) | Bound::Def => continue,
                Bound::Other(how) => how,
            };
            scan.rebound.insert(
                name.clone(),
                Rebinding {
                    loc: loc.clone(),
                    how: how.to_string(),
                    once: true,
                },
            );
        }
        self.constants = scan
            .current
            .into_iter()
            .filter(|(name, _)| !scan.rebound.contains_key(name))
            .filter_map(|(name, (bound, _))| match bound {
                Bound::Constant(c) => Some((name, c)),
                _ => None,
            })
            .collect();
        // A file's exception class is modelled when it is defined once, does
        // not take a builtin's name (the builtin would still be what failing
        // code raises), and its base is a modelled class.
        let mut exceptions = scan.exceptions;
        exceptions.retain(|name, _| {
            !BUILTIN_EXCEPTIONS.iter().any(|(class, _)| class == name)
                && matches!(scan.rebound.get(name), Some(r) if r.how == A_CLASS)
        });
        loop {
            let invalid: Vec<String> = exceptions
                .iter()
                .filter(|(_, base)| {
                    let builtin = BUILTIN_EXCEPTIONS.iter().any(|(class, _)| class == *base)
                        && !scan.rebound.contains_key(*base)
                        && scan.star_import.is_none();
                    !builtin && !exceptions.contains_key(*base)
                })
                .map(|(name, _)| name.clone())
                .collect();
            if invalid.is_empty() {
                break;
            }
            for name in invalid {
                exceptions.remove(&name);
            }
        }
        self.exceptions = exceptions;
        self.rebound = scan.rebound;
        self.star_import = scan.star_import;
    }
}

impl<'s> Lowering<'s> {
    // ----- values and shapes -------------------------------------------

    /// The Python value of record fields of `shape`.
    fn value_of_fields(
        &mut self,
        shape: &Shape,
        values: &mut impl Iterator<Item = Value>,
        loc: &Loc,
    ) -> Result<PyVal> {
        Ok(match shape {
            Shape::Field(_) => PyVal::Scalar(values.next().expect("a value per field")),
            Shape::Tuple(items) => PyVal::Tuple(
                items
                    .iter()
                    .map(|item| self.value_of_fields(item, values, loc))
                    .collect::<Result<_>>()?,
            ),
            Shape::Nullable(inner) => {
                let present = values.next().expect("a flag");
                PyVal::Maybe {
                    present,
                    value: Box::new(self.value_of_fields(inner, values, loc)?),
                }
            }
            Shape::Absent(inner) => {
                let options: Vec<Value> = inner
                    .fields()
                    .iter()
                    .map(|_| values.next().expect("a field"))
                    .collect();
                let present = self.f.op(
                    format!(
                        "df.is_present {} : {}",
                        options[0].name,
                        options[0].ty.mlir()
                    ),
                    Ty::Bool,
                    loc,
                );
                let mut unwrapped = Vec::new();
                for option in &options {
                    let Ty::Option(inner_ty) = &option.ty else {
                        unreachable!("an outer join's fields are options")
                    };
                    let default = self.default(inner_ty, loc)?;
                    unwrapped.push(self.f.op(
                        format!(
                            "df.value_or {}, {} : {}, {}",
                            option.name,
                            default.name,
                            option.ty.mlir(),
                            inner_ty.mlir()
                        ),
                        (**inner_ty).clone(),
                        loc,
                    ));
                }
                let mut unwrapped = unwrapped.into_iter();
                PyVal::Maybe {
                    present,
                    value: Box::new(self.value_of_fields(inner, &mut unwrapped, loc)?),
                }
            }
        })
    }

    /// A placeholder of type `ty` where a value is absent.
    fn default(&mut self, ty: &Ty, loc: &Loc) -> Result<Value> {
        Ok(match ty {
            Ty::Int => self.f.int(0, loc),
            Ty::Float => self.f.float(0.0, loc),
            Ty::Bool => self.f.bool(false, loc),
            Ty::Str => self.f.str("", loc),
            // A split that may be None: a placeholder, never read.
            Ty::List(element) if **element == Ty::Str => {
                let empty = self.f.str("", loc);
                self.f.op(
                    format!("df.split {} \",\" : !df.list<!df.str>", empty.name),
                    Ty::str_list(),
                    loc,
                )
            }
            Ty::List(_) => {
                return unsupported(loc, "a list that may be None is not supported in a UDF")
            }
            Ty::Option(inner) => self.default(inner, loc)?,
        })
    }

    /// The common shape of values that meet at one point (the returns of a
    /// function, the arms of an `if`); `None` alone has none.
    fn unify(&self, values: &[(PyVal, Loc)], what: &str) -> Result<Option<Shape>> {
        let mut shape: Option<Shape> = None;
        let mut nullable = false;
        for (value, loc) in values {
            let Some(next) = value.shape() else {
                nullable = true;
                continue;
            };
            shape = Some(match shape {
                None => next,
                Some(current) => merge_shapes(&current, &next).ok_or_else(|| {
                    crate::error::ImportError::Unsupported {
                        loc: loc.clone(),
                        message: format!(
                            "{what} is {} here and {} elsewhere; a value must keep one type",
                            article(&next.python()),
                            article(&current.python())
                        ),
                    }
                })?,
            });
        }
        Ok(match shape {
            Some(Shape::Nullable(inner)) => Some(Shape::Nullable(inner)),
            Some(shape) if nullable => Some(Shape::Nullable(Box::new(shape))),
            other => other,
        })
    }

    /// The fields of `value` as a record of `shape` (written in the
    /// current block).
    fn coerce(&mut self, value: &PyVal, shape: &Shape, loc: &Loc) -> Result<Vec<Value>> {
        Ok(match (shape, value) {
            (Shape::Nullable(inner), PyVal::None) => {
                let mut out = vec![self.f.bool(false, loc)];
                for ty in inner.fields() {
                    out.push(self.default(&ty, loc)?);
                }
                out
            }
            (Shape::Nullable(inner), PyVal::Maybe { present, value }) => {
                let mut out = vec![present.clone()];
                out.extend(self.coerce(value, inner, loc)?);
                out
            }
            (Shape::Nullable(inner), value) => {
                let mut out = vec![self.f.bool(true, loc)];
                out.extend(self.coerce(value, inner, loc)?);
                out
            }
            (Shape::Tuple(shapes), PyVal::Tuple(items)) => shapes
                .iter()
                .zip(items)
                .map(|(s, v)| self.coerce(v, s, loc))
                .collect::<Result<Vec<_>>>()?
                .concat(),
            (_, value) => value.leaves(),
        })
    }

    /// Joins control flow: each arm (a block, sealed, with the values it
    /// carries) branches to one new block, whose arguments are the values.
    fn join(
        &mut self,
        arms: Vec<(BlockId, Vec<PyVal>, Loc)>,
        what: &[String],
    ) -> Result<Vec<PyVal>> {
        let width = what.len();
        if arms.is_empty() {
            // No arm falls through: what follows is unreachable.
            let (block, _) = self.f.block(&[]);
            self.f.switch_to(block);
            self.f.seal();
            return Ok(vec![PyVal::None; width]);
        }
        // A value every arm shares was made before they split, so it
        // reaches the join as it is; the others become block arguments.
        let mut shapes = Vec::with_capacity(width);
        let mut shared = Vec::with_capacity(width);
        for (position, name) in what.iter().enumerate() {
            let values: Vec<(PyVal, Loc)> = arms
                .iter()
                .map(|(_, values, loc)| (values[position].clone(), loc.clone()))
                .collect();
            if values.iter().all(|(v, _)| *v == values[0].0) {
                shared.push(Some(values[0].0.clone()));
                shapes.push(None);
            } else {
                shared.push(None);
                shapes.push(self.unify(&values, name)?);
            }
        }
        let types: Vec<Ty> = shapes.iter().flatten().flat_map(Shape::fields).collect();
        let (block, args) = self.f.block(&types);
        for (arm, values, loc) in &arms {
            self.f.reopen(*arm);
            let mut leaves = Vec::new();
            for (value, shape) in values.iter().zip(&shapes) {
                if let Some(shape) = shape {
                    leaves.extend(self.coerce(value, shape, loc)?);
                }
            }
            self.f.br(block, &leaves, loc);
        }
        self.f.switch_to(block);
        let loc = arms[0].2.clone();
        let mut args = args.into_iter();
        shapes
            .iter()
            .zip(shared)
            .map(|(shape, shared)| match (shape, shared) {
                (_, Some(value)) => Ok(value),
                (Some(shape), None) => self.value_of_fields(shape, &mut args, &loc),
                (None, None) => Ok(PyVal::None),
            })
            .collect::<Result<_>>()
    }

    /// Joins arms that carry variable environments: variables every arm
    /// has survive, with their values merged.
    fn join_envs(&mut self, arms: Vec<(BlockId, Env, Loc)>) -> Result<Env> {
        let Some((_, first, _)) = arms.first() else {
            self.join(Vec::new(), &[])?;
            return Ok(Env::new());
        };
        let names: Vec<String> = first
            .keys()
            .filter(|name| arms.iter().all(|(_, env, _)| env.contains_key(*name)))
            .cloned()
            .collect();
        let arms = arms
            .into_iter()
            .map(|(block, env, loc)| (block, names.iter().map(|n| env[n].clone()).collect(), loc))
            .collect();
        let values = self.join(arms, &names)?;
        Ok(names.into_iter().zip(values).collect())
    }

    // ----- calls -------------------------------------------------------

    /// Calls a lambda or `def` (inlined) on `args`.
    fn invoke(&mut self, callable: &Node, args: Vec<PyVal>, loc: &Loc) -> Result<PyVal> {
        if let Some(lambda) = crate::callables::as_lambda(self.scope, callable, args.len())? {
            return self.invoke(&lambda, args, loc);
        }
        let callable = match callable.name() {
            Some(name) => match self.scope.defs.get(&name) {
                Some(_) if self.scope.rebound.contains_key(&name) => {
                    return self.scope.refuse_rebound(&name, &callable.loc, "a function")
                }
                Some(def) => def.clone(),
                None => {
                    return unsupported(
                        &callable.loc,
                        format!("{name} is not a function defined in this file; a UDF is a lambda or a def of the job's file"),
                    )
                }
            },
            None => callable.clone(),
        };
        if !callable.is("Lambda") && !callable.is("FunctionDef") {
            return unsupported(
                &callable.loc,
                format!(
                    "a UDF must be a lambda or a def of the job's file, found {}",
                    describe(&callable)
                ),
            );
        }
        let params = parameters(&callable)?;
        if params.len() != args.len() {
            return unsupported(
                loc,
                format!(
                    "{} takes {} argument(s) but is called with {}",
                    callable.str("name").unwrap_or_else(|| "the lambda".into()),
                    params.len(),
                    args.len()
                ),
            );
        }
        let saved_env = std::mem::take(&mut self.env);
        // The caller's `try`s stay: what the callee raises and does not
        // catch itself propagates to them, as in Python.
        for (param, arg) in params.iter().zip(args) {
            self.env.insert(param.clone(), arg);
        }
        let result = if callable.is("Lambda") {
            self.expr(&callable.expect("body"))
        } else {
            let name = callable.str("name").unwrap_or_default();
            if self.calls.contains(&name) {
                return unsupported(
                    loc,
                    format!("{name} calls itself; recursion is not supported in a UDF"),
                );
            }
            self.calls.push(name);
            self.returns.push(Vec::new());
            let body = self.block(&callable.list("body"));
            let mut returns = self.returns.pop().unwrap_or_default();
            self.calls.pop();
            body?;
            if !self.f.terminated() {
                // Falling off the end returns None.
                returns.push((self.f.seal(), PyVal::None, callable.loc.clone()));
            }
            let arms = returns
                .into_iter()
                .map(|(block, value, loc)| (block, vec![value], loc))
                .collect();
            self.join(arms, &["the returned value".to_string()])
                .map(|mut values| values.remove(0))
        };
        self.env = saved_env;
        result
    }

    // ----- statements --------------------------------------------------

    fn block(&mut self, statements: &[Node]) -> Result<()> {
        for statement in statements {
            if self.f.terminated() {
                break;
            }
            self.statement(statement)?;
        }
        Ok(())
    }

    fn statement(&mut self, s: &Node) -> Result<()> {
        match s.kind.as_str() {
            "Return" => {
                let value = match s.child("value") {
                    Some(value) => self.expr(&value)?,
                    None => PyVal::None,
                };
                if self.f.terminated() {
                    return Ok(());
                }
                let block = self.f.seal();
                match self.returns.last_mut() {
                    Some(returns) => returns.push((block, value, s.loc.clone())),
                    None => return unsupported(&s.loc, "return outside a function"),
                }
                Ok(())
            }
            "Assign" => {
                let value = self.expr(&s.expect("value"))?;
                for target in s.list("targets") {
                    self.assign(&target, value.clone())?;
                }
                Ok(())
            }
            "AnnAssign" => match s.child("value") {
                Some(value) => {
                    let value = self.expr(&value)?;
                    self.assign(&s.expect("target"), value)
                }
                None => Ok(()),
            },
            "AugAssign" => {
                let target = s.expect("target");
                let Some(name) = target.name() else {
                    return unsupported(
                        &target.loc,
                        "augmented assignment to anything but a variable is not supported in a UDF",
                    );
                };
                let current = self.variable(&name, &target.loc)?;
                let operand = self.expr(&s.expect("value"))?;
                let op = s.op_kind("op").unwrap_or_default();
                let value = self.binary(&op, current, operand, &s.loc)?;
                self.env.insert(name, value);
                Ok(())
            }
            "If" => {
                if let Some(truth) = self.known_truth(&s.expect("test")) {
                    return self.block(&s.list(if truth { "body" } else { "orelse" }));
                }
                let (then_block, else_block) = self.condition(&s.expect("test"))?;
                let before = self.env.clone();
                let mut arms = Vec::new();
                for (block, body, narrowed) in [
                    (then_block.0, s.list("body"), then_block.1),
                    (else_block.0, s.list("orelse"), else_block.1),
                ] {
                    self.f.switch_to(block);
                    self.env = narrowed.unwrap_or_else(|| before.clone());
                    self.block(&body)?;
                    if !self.f.terminated() {
                        arms.push((self.f.seal(), std::mem::take(&mut self.env), s.loc.clone()));
                    }
                }
                self.env = self.join_envs(arms)?;
                Ok(())
            }
            "Try" => self.try_statement(s),
            "Raise" => {
                let class = match s.child("exc") {
                    Some(exc) => self.raised(&exc)?,
                    None => {
                        return unsupported(
                            &s.loc,
                            "a bare raise (re-raise) is not supported in a UDF",
                        )
                    }
                };
                if let Some(cause) = s.child("cause") {
                    if !matches!(cause.constant(), Some(Constant::None)) || !cause.is("Constant") {
                        return unsupported(
                            &cause.loc,
                            "raise ... from an exception is not supported in a UDF (from None is)",
                        );
                    }
                }
                if self.f.terminated() {
                    return Ok(());
                }
                self.fail(&class, &s.loc);
                Ok(())
            }
            "Assert" => {
                let (ok, failed) = self.condition(&s.expect("test"))?;
                self.f.switch_to(failed.0);
                self.fail("AssertionError", &s.loc);
                self.f.switch_to(ok.0);
                if let Some(env) = ok.1 {
                    self.env = env;
                }
                Ok(())
            }
            "For" => self.for_statement(s),
            "Break" | "Continue" => {
                let exits = match self.loops.last_mut() {
                    Some(Some(exits)) => exits,
                    Some(None) => return unsupported(
                        &s.loc,
                        "break and continue are supported in a loop over a list, not in one unrolled over a range or tuple",
                    ),
                    None => return unsupported(&s.loc, "break and continue outside a loop"),
                };
                let block = self.f.seal();
                let arm = (block, self.env.clone(), s.loc.clone());
                if s.is("Break") {
                    exits.breaks.push(arm);
                } else {
                    exits.continues.push(arm);
                }
                Ok(())
            }
            "Pass" => Ok(()),
            "Import" | "ImportFrom" => self.local_import(s),
            "Expr" => {
                let value = s.expect("value");
                if value.str_constant().is_some() {
                    return Ok(()); // a docstring
                }
                unsupported(&s.loc, "an expression statement does nothing in a UDF (its value is dropped); assign or return it")
            }
            other => unsupported(
                &s.loc,
                format!("{} are not supported in a UDF", statement_name(other)),
            ),
        }
    }

    fn assign(&mut self, target: &Node, value: PyVal) -> Result<()> {
        if let Some(name) = target.name() {
            self.env.insert(name, value);
            return Ok(());
        }
        if target.is("Tuple") || target.is("List") {
            let targets = target.list("elts");
            let items = match value {
                PyVal::Tuple(items) => items,
                PyVal::Scalar(Value { ty: Ty::List(_), .. }) => {
                    return unsupported(&target.loc, "unpacking a split into variables is not supported yet; index it (fields[0], fields[1])")
                }
                other => {
                    return unsupported(&target.loc, format!("cannot unpack a {} into {} variables", other.python(), targets.len()))
                }
            };
            if items.len() != targets.len() {
                return unsupported(
                    &target.loc,
                    format!(
                        "unpacks a tuple of {} values into {} variables (ValueError in Python)",
                        items.len(),
                        targets.len()
                    ),
                );
            }
            for (t, v) in targets.iter().zip(items) {
                self.assign(t, v)?;
            }
            return Ok(());
        }
        unsupported(
            &target.loc,
            format!(
                "assignment to {} is not supported in a UDF",
                describe(target)
            ),
        )
    }

    fn try_statement(&mut self, s: &Node) -> Result<()> {
        if !s.list("orelse").is_empty() || !s.list("finalbody").is_empty() {
            return unsupported(
                &s.loc,
                "try ... else and finally are not supported in a UDF",
            );
        }
        let handlers = s.list("handlers");
        if handlers.len() != 1 {
            return unsupported(&s.loc, "a try in a UDF has exactly one except clause");
        }
        let handler = &handlers[0];
        if handler.str("name").is_some() {
            return unsupported(&handler.loc, "except ... as NAME is not supported in a UDF");
        }
        let classes = match handler.child("type") {
            None => return unsupported(
                &handler.loc,
                "a bare except is not supported in a UDF; name the exceptions (except ValueError)",
            ),
            Some(t) if t.is("Tuple") => t
                .list("elts")
                .iter()
                .map(|c| self.exception_name(c))
                .collect::<Result<Vec<_>>>()?,
            Some(t) => vec![self.exception_name(&t)?],
        };
        let before = self.env.clone();
        let (handler_block, _) = self.f.block(&[]);
        self.handlers.push(Handler {
            classes,
            block: handler_block,
        });
        let body = self.block(&s.list("body"));
        self.handlers.pop();
        body?;
        let mut arms = Vec::new();
        if !self.f.terminated() {
            arms.push((self.f.seal(), std::mem::take(&mut self.env), s.loc.clone()));
        }
        // The handler sees the variables as they were before the try: what
        // the body assigned before failing is not known there.
        self.f.switch_to(handler_block);
        self.env = before;
        self.block(&handler.list("body"))?;
        if !self.f.terminated() {
            arms.push((
                self.f.seal(),
                std::mem::take(&mut self.env),
                handler.loc.clone(),
            ));
        }
        self.env = self.join_envs(arms)?;
        Ok(())
    }

    fn for_statement(&mut self, s: &Node) -> Result<()> {
        if !s.list("orelse").is_empty() {
            return unsupported(&s.loc, "for ... else is not supported in a UDF");
        }
        let iter = s.expect("iter");
        let is_range = iter.is("Call") && iter.expect("func").name().as_deref() == Some("range");
        if is_range {
            if self.env.contains_key("range") || self.scope.defs.contains_key("range") {
                return unsupported(
                    &iter.loc,
                    "range is rebound in this file; coco models only Python's builtin range",
                );
            }
            self.scope.builtin("range", &iter.loc)?;
        }
        let items: Vec<PyVal> = if is_range {
            let bounds: Vec<i64> = iter
                .list("args")
                .iter()
                .map(|a| match int_constant(a) {
                    Some(n) => Ok(n),
                    None => unsupported(
                        &a.loc,
                        "range() in a UDF takes constant bounds (the loop is unrolled)",
                    ),
                })
                .collect::<Result<_>>()?;
            let (start, stop, step) = match bounds[..] {
                [stop] => (0, stop, 1),
                [start, stop] => (start, stop, 1),
                [start, stop, step] if step != 0 => (start, stop, step),
                _ => {
                    return unsupported(
                        &iter.loc,
                        "range() takes 1 to 3 arguments and a non-zero step",
                    )
                }
            };
            let mut items = Vec::new();
            let mut i = start;
            while (step > 0 && i < stop) || (step < 0 && i > stop) {
                if items.len() >= 1000 {
                    return unsupported(&iter.loc, "a range of more than 1000 steps in a UDF");
                }
                items.push(PyVal::Scalar(self.f.int(i, &iter.loc)));
                i += step;
            }
            items
        } else {
            match self.expr(&iter)? {
                PyVal::Tuple(items) => items,
                PyVal::Scalar(list) if list.ty.is_list() => return self.list_loop(s, list),
                other => {
                    return unsupported(&iter.loc, format!("cannot loop over a {}", other.python()))
                }
            }
        };
        let target = s.expect("target");
        self.loops.push(None);
        for item in items {
            if self.f.terminated() {
                break;
            }
            self.assign(&target, item)?;
            self.block(&s.list("body"))?;
        }
        self.loops.pop();
        Ok(())
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            f: self.f.clone(),
            env: self.env.clone(),
            returns: self.returns.clone(),
            loops: self.loops.clone(),
        }
    }

    fn restore(&mut self, snapshot: Snapshot) {
        self.f = snapshot.f;
        self.env = snapshot.env;
        self.returns = snapshot.returns;
        self.loops = snapshot.loops;
    }

    /// `for x in list:` as a `cf` loop: the header reads element `i` with
    /// `df.get_at` and leaves when it is absent. The variables the body
    /// assigns that exist before the loop are the header's arguments; their
    /// types are found by lowering the body, and again with the types it
    /// gave them until nothing widens.
    fn list_loop(&mut self, s: &Node, list: Value) -> Result<()> {
        let mut assigned = BTreeSet::new();
        assigned_names(&[s.expect("target")], &mut assigned);
        assigned_names(&s.list("body"), &mut assigned);
        let carried: Vec<(String, PyVal)> = self
            .env
            .iter()
            .filter(|(name, _)| assigned.contains(*name))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let mut shapes = carried
            .iter()
            .map(|(name, value)| self.unify(&[(value.clone(), s.loc.clone())], name))
            .collect::<Result<Vec<_>>>()?;
        for _ in 0..LOOP_WIDENINGS {
            let snapshot = self.snapshot();
            match self.list_loop_with(s, &list, &carried, &shapes)? {
                None => return Ok(()),
                Some(wider) => {
                    self.restore(snapshot);
                    shapes = wider;
                }
            }
        }
        unsupported(
            &s.loc,
            "the variables of this loop keep changing type; give each one its type before the loop",
        )
    }

    /// One try of [`Lowering::list_loop`] with the carried variables of
    /// `shapes`. Returns the wider shapes the body gave them, if any, in
    /// which case what was written is to be thrown away.
    fn list_loop_with(
        &mut self,
        s: &Node,
        list: &Value,
        carried: &[(String, PyVal)],
        shapes: &[Option<Shape>],
    ) -> Result<Option<Vec<Option<Shape>>>> {
        let loc = &s.loc;
        let Ty::List(element) = &list.ty else {
            return unsupported(loc, format!("cannot loop over a {}", list.ty.python()));
        };
        let element = (**element).clone();
        let mut entry = Vec::new();
        for ((_, value), shape) in carried.iter().zip(shapes) {
            if let Some(shape) = shape {
                entry.extend(self.coerce(value, shape, loc)?);
            }
        }
        let trip = self.open_list_loop(entry, loc);
        // The header's variables, for the body and for the exit.
        let mut fields = trip.carried.iter().cloned();
        let mut at_header = self.env.clone();
        for ((name, _), shape) in carried.iter().zip(shapes) {
            let value = match shape {
                Some(shape) => self.value_of_fields(shape, &mut fields, loc)?,
                None => PyVal::None,
            };
            at_header.insert(name.clone(), value);
        }
        let (item, done) = self.next_element(&trip, list, element, loc)?;
        self.env = at_header.clone();
        self.loops.push(Some(LoopExits::default()));
        self.assign(&s.expect("target"), PyVal::Scalar(item))?;
        self.block(&s.list("body"))?;
        let mut exits = self.loops.pop().flatten().unwrap_or_default();
        if !self.f.terminated() {
            let env = std::mem::take(&mut self.env);
            exits.continues.push((self.f.seal(), env, loc.clone()));
        }

        // The types every trip gives the carried variables.
        let mut wider = Vec::with_capacity(carried.len());
        for (name, before) in carried {
            let mut values = vec![(before.clone(), loc.clone())];
            for (_, env, at) in &exits.continues {
                if let Some(value) = env.get(name) {
                    values.push((value.clone(), at.clone()));
                }
            }
            wider.push(self.unify(&values, name)?);
        }
        if wider != shapes {
            return Ok(Some(wider));
        }
        for (block, env, at) in &exits.continues {
            self.f.reopen(*block);
            let mut back = Vec::new();
            for ((name, _), shape) in carried.iter().zip(shapes) {
                if let Some(shape) = shape {
                    back.extend(self.coerce(&env[name], shape, at)?);
                }
            }
            self.next_trip(&trip, back, at);
        }

        self.f.switch_to(done);
        let mut arms = vec![(self.f.seal(), at_header, loc.clone())];
        arms.extend(exits.breaks);
        self.env = self.join_envs(arms)?;
        Ok(None)
    }

    /// The class an `except` names: a built-in exception class (aliases
    /// by the class they are) or one of the file's.
    fn exception_name(&self, node: &Node) -> Result<String> {
        let Some(name) = node.name() else {
            return unsupported(
                &node.loc,
                format!("{} is not an exception class name", describe(node)),
            );
        };
        if self.env.contains_key(&name) {
            return unsupported(
                &node.loc,
                format!("{name} is a variable here; an except clause names a built-in exception class or a class of this file"),
            );
        }
        if self.scope.exceptions.contains_key(&name) {
            return Ok(name);
        }
        if let Some(r) = self.scope.rebound.get(&name) {
            if r.how == A_CLASS {
                return unsupported(
                    &node.loc,
                    format!("class {name} (at {}) is not modelled: coco models a file's exception class written `class {name}(Base): pass`, with one exception class as its base", r.loc),
                );
            }
        }
        if self.scope.defs.contains_key(&name) {
            return unsupported(
                &node.loc,
                format!("{name} is a def of this file, not an exception class"),
            );
        }
        if self.scope.is_exception_class(&name) {
            self.scope.builtin(&name, &node.loc)?;
            return Ok(canonical_exception(&name).to_string());
        }
        if self.scope.rebound.contains_key(&name) {
            return self
                .scope
                .refuse_rebound(&name, &node.loc, "an exception class");
        }
        unsupported(
            &node.loc,
            format!(
                "{name} is neither a built-in exception class nor an exception class of this file"
            ),
        )
    }

    /// The class `raise exc` raises (`ValueError`, `ValueError("...")`),
    /// after the constructor's arguments are evaluated: they may fail first.
    fn raised(&mut self, exc: &Node) -> Result<String> {
        let class = if exc.is("Call") {
            if !exc.list("keywords").is_empty() {
                return unsupported(
                    &exc.loc,
                    "keyword arguments of an exception are not supported in a UDF",
                );
            }
            for arg in exc.list("args") {
                self.expr(&arg)?;
                if self.f.terminated() {
                    break;
                }
            }
            exc.expect("func")
        } else {
            exc.clone()
        };
        let name = self.exception_name(&class)?;
        let refuse = |why: &str| unsupported(&class.loc, format!("raise {name}: {why}"));
        if !self.scope.catches("Exception", &name) {
            return refuse("it is not an Exception: it stops PySpark's Python worker instead of failing the task");
        }
        for builtin in [
            "StopIteration",
            "StopAsyncIteration",
            "UnicodeDecodeError",
            "UnicodeEncodeError",
            "UnicodeTranslateError",
        ] {
            if self.scope.catches(builtin, &name) {
                return refuse(unraisable(builtin).unwrap_or_default());
            }
        }
        Ok(name)
    }

    /// Fails with Python exception `class`: to the innermost handler that
    /// catches it, or out of the UDF (the Spark task, and the job, fail).
    fn fail(&mut self, class: &str, loc: &Loc) {
        match self.handler(class) {
            Some(block) => self.f.br(block, &[], loc),
            None => self.f.raise(class, loc),
        }
    }

    /// Continues where `ok` holds; fails with `class` where it does not.
    fn fail_unless(&mut self, ok: &Value, class: &str, loc: &Loc) {
        let (then, _) = self.f.block(&[]);
        let (otherwise, _) = self.f.block(&[]);
        self.f.cond_br(ok, (then, &[]), (otherwise, &[]), loc);
        self.f.switch_to(otherwise);
        self.fail(class, loc);
        self.f.switch_to(then);
    }

    fn handler(&self, class: &str) -> Option<BlockId> {
        self.handlers
            .iter()
            .rev()
            .find(|h| h.classes.iter().any(|c| self.scope.catches(c, class)))
            .map(|h| h.block)
    }

    // ----- conditions --------------------------------------------------

    /// Branches on `test`'s truth: returns the two new blocks (true, false),
    /// each with the environment narrowed there, if `test` narrows a
    /// variable (`x is not None`).
    #[allow(clippy::type_complexity)]
    fn condition(
        &mut self,
        test: &Node,
    ) -> Result<((BlockId, Option<Env>), (BlockId, Option<Env>))> {
        let value = self.expr(test)?;
        let cond = self.truth(&value, &test.loc)?;
        let (then_block, _) = self.f.block(&[]);
        let (else_block, _) = self.f.block(&[]);
        self.f
            .cond_br(&cond, (then_block, &[]), (else_block, &[]), &test.loc);
        let (on_true, on_false) = self.narrowing(test);
        Ok(((then_block, on_true), (else_block, on_false)))
    }

    /// The environments where `test` is true and false, when it tests a
    /// variable against None (`x is None`, `x is not None`, `x`).
    fn narrowing(&self, test: &Node) -> (Option<Env>, Option<Env>) {
        let narrowed = |name: &str| -> Option<Env> {
            let PyVal::Maybe { value, .. } = self.env.get(name)? else {
                return None;
            };
            let mut env = self.env.clone();
            env.insert(name.to_string(), (**value).clone());
            Some(env)
        };
        let cleared = |name: &str| -> Option<Env> {
            let mut env = self.env.clone();
            env.insert(name.to_string(), PyVal::None);
            Some(env)
        };
        if test.is("Compare") && test.list("comparators").len() == 1 {
            let left = test.expect("left");
            let right = &test.list("comparators")[0];
            if let (Some(name), Some(Constant::None)) = (left.name(), right.constant()) {
                if matches!(self.env.get(&name), Some(PyVal::Maybe { .. })) {
                    match test.compare_ops()[0].as_str() {
                        "IsNot" => return (narrowed(&name), cleared(&name)),
                        "Is" => return (cleared(&name), narrowed(&name)),
                        _ => {}
                    }
                }
            }
        }
        (None, None)
    }

    /// The truth of `test` where the lowering knows it: `x is None` or
    /// `x is not None` of a variable that is None, or never is, here. A
    /// loop's variable set to None before it is None in the first lowering
    /// of its body; code that only runs when it is not None is then not
    /// lowered, as Python would not run it.
    fn known_truth(&self, test: &Node) -> Option<bool> {
        if !test.is("Compare") || test.list("comparators").len() != 1 {
            return None;
        }
        let name = test.expect("left").name()?;
        if !matches!(test.list("comparators")[0].constant(), Some(Constant::None)) {
            return None;
        }
        let is_none = match self.env.get(&name)? {
            PyVal::None => true,
            PyVal::Maybe { .. } => return None,
            PyVal::Scalar(_) | PyVal::Tuple(_) => false,
        };
        match test.compare_ops()[0].as_str() {
            "Is" => Some(is_none),
            "IsNot" => Some(!is_none),
            _ => None,
        }
    }

    /// Python's truth value of `value`, as an `i1`.
    fn truth(&mut self, value: &PyVal, loc: &Loc) -> Result<Value> {
        Ok(match value {
            PyVal::None => self.f.bool(false, loc),
            PyVal::Tuple(items) => self.f.bool(!items.is_empty(), loc),
            PyVal::Maybe { present, value } => {
                let inner = self.truth(value, loc)?;
                self.f.binary("andi", present, &inner, Ty::Bool, loc)
            }
            PyVal::Scalar(v) => match v.ty {
                Ty::Bool => v.clone(),
                Ty::Int => {
                    let zero = self.f.int(0, loc);
                    self.f.op(
                        format!("arith.cmpi ne, {}, {} : i64", v.name, zero.name),
                        Ty::Bool,
                        loc,
                    )
                }
                Ty::Float => {
                    let zero = self.f.float(0.0, loc);
                    // NaN is true in Python: unordered-or-not-equal.
                    self.f.op(
                        format!("arith.cmpf une, {}, {} : f64", v.name, zero.name),
                        Ty::Bool,
                        loc,
                    )
                }
                Ty::Str => {
                    let n = self.f.op(format!("df.length {}", v.name), Ty::Int, loc);
                    let zero = self.f.int(0, loc);
                    self.f.op(
                        format!("arith.cmpi ne, {}, {} : i64", n.name, zero.name),
                        Ty::Bool,
                        loc,
                    )
                }
                Ty::List(_) => {
                    let n = self.f.op(
                        format!("df.size {} : {}", v.name, v.ty.mlir()),
                        Ty::Int,
                        loc,
                    );
                    let zero = self.f.int(0, loc);
                    self.f.op(
                        format!("arith.cmpi ne, {}, {} : i64", n.name, zero.name),
                        Ty::Bool,
                        loc,
                    )
                }
                Ty::Option(_) => return unsupported(loc, "an optional value's truth"),
            },
        })
    }

    // ----- expressions -------------------------------------------------

    fn variable(&mut self, name: &str, loc: &Loc) -> Result<PyVal> {
        if let Some(value) = self.env.get(name) {
            return Ok(value.clone());
        }
        if let Some(constant) = self.scope.constants.get(name).cloned() {
            return self.constant(&constant, loc);
        }
        if self.scope.rebound.contains_key(name) {
            return self.scope.refuse_rebound(name, loc, "a constant");
        }
        if self.scope.defs.contains_key(name) {
            return unsupported(
                loc,
                format!("{name} is a function; a UDF may call it but not use it as a value"),
            );
        }
        unsupported(
            loc,
            format!("{name} is not defined here (a UDF sees its parameters, its variables and the file's constants)"),
        )
    }

    fn constant(&mut self, constant: &Constant, loc: &Loc) -> Result<PyVal> {
        Ok(match constant {
            Constant::Int(digits) => match digits.parse::<i64>() {
                Ok(n) => PyVal::Scalar(self.f.int(n, loc)),
                Err(_) => {
                    return unsupported(
                        loc,
                        format!(
                            "the integer {digits} is beyond 64 bits, which coco's df programs hold"
                        ),
                    )
                }
            },
            Constant::Float(x) => PyVal::Scalar(self.f.float(*x, loc)),
            Constant::Str(s) => PyVal::Scalar(self.f.str(s, loc)),
            Constant::Bool(b) => PyVal::Scalar(self.f.bool(*b, loc)),
            Constant::None => PyVal::None,
            Constant::Other(kind) => {
                return unsupported(loc, format!("{kind} constants are not supported in a UDF"))
            }
        })
    }

    /// A value that must not be None here: Python raises TypeError when it
    /// is.
    fn unwrap(&mut self, value: PyVal, loc: &Loc) -> Result<PyVal> {
        match value {
            PyVal::Maybe { present, value } => {
                self.fail_unless(&present, "TypeError", loc);
                self.unwrap(*value, loc)
            }
            PyVal::None => {
                self.fail("TypeError", loc);
                Ok(PyVal::None)
            }
            other => Ok(other),
        }
    }

    /// `node`'s value, which must be a scalar of one of `types`.
    fn scalar(&mut self, node: &Node, what: &str) -> Result<Value> {
        let value = self.expr(node)?;
        self.as_scalar(value, &node.loc, what)
    }

    fn as_scalar(&mut self, value: PyVal, loc: &Loc, what: &str) -> Result<Value> {
        match self.unwrap(value, loc)? {
            PyVal::Scalar(v) => Ok(v),
            PyVal::None if self.f.terminated() => Ok(self.f.bool(false, loc)),
            other => unsupported(
                loc,
                format!("{what} needs a single value, found a {}", other.python()),
            ),
        }
    }

    fn expr(&mut self, e: &Node) -> Result<PyVal> {
        let loc = &e.loc;
        match e.kind.as_str() {
            "Constant" => self.constant(&e.constant().unwrap_or(Constant::None), loc),
            "Name" => self.variable(&e.name().unwrap_or_default(), loc),
            "Tuple" => {
                let items = e
                    .list("elts")
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Result<Vec<_>>>()?;
                Ok(PyVal::Tuple(items))
            }
            "BinOp" => {
                let left_node = e.expect("left");
                if let (Some(format), Some("Mod")) =
                    (left_node.str_constant(), e.op_kind("op").as_deref())
                {
                    let args = match self.expr(&e.expect("right"))? {
                        PyVal::Tuple(items) => items,
                        single => vec![single],
                    };
                    return Ok(PyVal::Scalar(self.percent_format(&format, args, loc)?));
                }
                let left = self.expr(&left_node)?;
                let right = self.expr(&e.expect("right"))?;
                self.binary(&e.op_kind("op").unwrap_or_default(), left, right, loc)
            }
            "UnaryOp" => {
                let operand = self.expr(&e.expect("operand"))?;
                match e.op_kind("op").as_deref() {
                    Some("Not") => {
                        let truth = self.truth(&operand, loc)?;
                        let one = self.f.bool(true, loc);
                        Ok(PyVal::Scalar(self.f.binary(
                            "xori",
                            &truth,
                            &one,
                            Ty::Bool,
                            loc,
                        )))
                    }
                    Some("USub") => {
                        let v = self.as_scalar(operand, loc, "-")?;
                        match v.ty {
                            Ty::Int => {
                                let zero = self.f.int(0, loc);
                                Ok(PyVal::Scalar(self.f.binary(
                                    "subi",
                                    &zero,
                                    &v,
                                    Ty::Int,
                                    loc,
                                )))
                            }
                            Ty::Float => Ok(PyVal::Scalar(self.f.op(
                                format!("arith.negf {} : f64", v.name),
                                Ty::Float,
                                loc,
                            ))),
                            _ => unsupported(
                                loc,
                                format!("unary - of a {} (TypeError in Python)", v.ty.python()),
                            ),
                        }
                    }
                    Some("UAdd") => Ok(operand),
                    _ => unsupported(loc, "the ~ operator is not supported in a UDF"),
                }
            }
            "BoolOp" => self.bool_op(e),
            // The end of a dict lookup's chain (dict_lookup): no key was
            // equal. The value is never used: the block fails.
            "CocoKeyError" => {
                let unused = PyVal::Scalar(self.f.str("", &e.loc));
                self.fail("KeyError", &e.loc);
                Ok(unused)
            }
            "Compare" => self.compare(e),
            "IfExp" => {
                let (then_block, else_block) = self.condition(&e.expect("test"))?;
                let before = self.env.clone();
                let mut arms = Vec::new();
                for (block, branch, narrowed) in [
                    (then_block.0, e.expect("body"), then_block.1),
                    (else_block.0, e.expect("orelse"), else_block.1),
                ] {
                    self.f.switch_to(block);
                    self.env = narrowed.unwrap_or_else(|| before.clone());
                    let value = self.expr(&branch)?;
                    if !self.f.terminated() {
                        arms.push((self.f.seal(), vec![value], branch.loc.clone()));
                    }
                }
                self.env = before;
                Ok(self
                    .join(arms, &["the conditional expression".to_string()])?
                    .remove(0))
            }
            "Subscript" => self.subscript(e),
            "Call" => self.call(e),
            "JoinedStr" => {
                let mut pieces = Vec::new();
                for part in e.list("values") {
                    if let Some(s) = part.str_constant() {
                        pieces.push(self.f.str(&s, &part.loc));
                    } else if part.is("FormattedValue") {
                        if part.child("format_spec").is_some() {
                            return unsupported(&part.loc, "format specifications in f-strings ({x:.2f}) are not supported yet");
                        }
                        if part.json_int("conversion").unwrap_or(-1) != -1 {
                            return unsupported(
                                &part.loc,
                                "conversions in f-strings ({x!r}) are not supported in a UDF",
                            );
                        }
                        let value = self.expr(&part.expect("value"))?;
                        pieces.push(self.str_of(value, &part.loc)?);
                    } else {
                        return unsupported(&part.loc, "this f-string part is not supported");
                    }
                }
                if pieces.is_empty() {
                    pieces.push(self.f.str("", loc));
                }
                Ok(PyVal::Scalar(self.concat_all(pieces, loc)))
            }
            "Attribute" => unsupported(
                loc,
                format!(
                    "attribute .{} is not supported in a UDF (only str methods, called)",
                    e.str("attr").unwrap_or_default()
                ),
            ),
            other => unsupported(
                loc,
                format!("{} are not supported in a UDF", expression_name(other)),
            ),
        }
    }

    /// `str(value)`, as `%s` and f-strings also convert: `None` is the
    /// text "None" (on the absent side of an outer join too), never an
    /// error.
    fn str_of(&mut self, value: PyVal, loc: &Loc) -> Result<Value> {
        let value = match value {
            PyVal::None => return Ok(self.f.str("None", loc)),
            PyVal::Maybe { present, value } => {
                let (then, _) = self.f.block(&[]);
                let (otherwise, _) = self.f.block(&[]);
                let (after, args) = self.f.block(&[Ty::Str]);
                self.f.cond_br(&present, (then, &[]), (otherwise, &[]), loc);
                self.f.switch_to(then);
                let text = self.str_of(*value, loc)?;
                self.f.br(after, &[text], loc);
                self.f.switch_to(otherwise);
                let none = self.f.str("None", loc);
                self.f.br(after, &[none], loc);
                self.f.switch_to(after);
                return Ok(args[0].clone());
            }
            other => other,
        };
        let v = self.as_scalar(value, loc, "str()")?;
        Ok(match v.ty {
            Ty::Str => v,
            Ty::Int | Ty::Float | Ty::Bool => self.f.op(
                format!("df.to_str {} : {}", v.name, v.ty.mlir()),
                Ty::Str,
                loc,
            ),
            _ => {
                return unsupported(
                    loc,
                    format!("str() of a {} is not supported in a UDF", v.ty.python()),
                )
            }
        })
    }

    fn bool_op(&mut self, e: &Node) -> Result<PyVal> {
        let is_and = e.op_kind("op").as_deref() == Some("And");
        let operands = e.list("values");
        let before = self.env.clone();
        let mut arms = Vec::new();
        let mut value = self.expr(&operands[0])?;
        for (tested, next) in operands.iter().zip(&operands[1..]) {
            // `a and b` is a when a is false, else b; `or` the other way.
            match self.known_truth(tested) {
                Some(truth) if truth != is_and => break,
                Some(_) => {
                    value = self.expr(next)?;
                    continue;
                }
                None => {}
            }
            let truth = self.truth(&value, &e.loc)?;
            let (rest, _) = self.f.block(&[]);
            let (done, _) = self.f.block(&[]);
            let (on_true, on_false) = if is_and { (rest, done) } else { (done, rest) };
            self.f
                .cond_br(&truth, (on_true, &[]), (on_false, &[]), &e.loc);
            let (when_true, when_false) = self.narrowing(tested);
            self.f.switch_to(done);
            arms.push((self.f.seal(), vec![value], e.loc.clone()));
            self.f.switch_to(rest);
            // `x is None or len(x)`: x is not None where `len` runs.
            if let Some(env) = if is_and { when_true } else { when_false } {
                self.env = env;
            }
            value = self.expr(next)?;
        }
        if !self.f.terminated() {
            arms.push((self.f.seal(), vec![value], e.loc.clone()));
        }
        self.env = before;
        Ok(self
            .join(arms, &["the and/or expression".to_string()])?
            .remove(0))
    }

    fn compare(&mut self, e: &Node) -> Result<PyVal> {
        let ops = e.compare_ops();
        let comparators = e.list("comparators");
        // `word in STOPWORDS`: equal to one of the constants.
        if let ([op], [collection]) = (ops.as_slice(), comparators.as_slice()) {
            if op == "In" || op == "NotIn" {
                if let Some(elements) = self.constant_elements(collection)? {
                    return self.member_of(op == "In", &e.expect("left"), &elements, &e.loc);
                }
            }
        }
        let mut left = self.expr(&e.expect("left"))?;
        if ops.len() == 1 {
            let right = self.expr(&comparators[0])?;
            return Ok(PyVal::Scalar(
                self.compare_pair(&ops[0], left, right, &e.loc)?,
            ));
        }
        // `a < b < c`: b once, and c only when a < b.
        let mut arms = Vec::new();
        for (i, (op, node)) in ops.iter().zip(&comparators).enumerate() {
            let right = self.expr(node)?;
            let holds = self.compare_pair(op, left, right.clone(), &e.loc)?;
            if i + 1 == ops.len() {
                arms.push((self.f.seal(), vec![PyVal::Scalar(holds)], e.loc.clone()));
                break;
            }
            let (rest, _) = self.f.block(&[]);
            let (done, _) = self.f.block(&[]);
            self.f.cond_br(&holds, (rest, &[]), (done, &[]), &e.loc);
            self.f.switch_to(done);
            let no = self.f.bool(false, &e.loc);
            arms.push((self.f.seal(), vec![PyVal::Scalar(no)], e.loc.clone()));
            self.f.switch_to(rest);
            left = right;
        }
        Ok(self.join(arms, &["the comparison".to_string()])?.remove(0))
    }

    /// `left == right` where one side is None or may be: None equals None
    /// alone, and two present values compare as values.
    fn equal_optional(&mut self, left: PyVal, right: PyVal, loc: &Loc) -> Result<Value> {
        Ok(match (left, right) {
            (PyVal::None, PyVal::None) => self.f.bool(true, loc),
            (PyVal::None, PyVal::Maybe { present, .. })
            | (PyVal::Maybe { present, .. }, PyVal::None) => self.not(&present, loc),
            (PyVal::None, _) | (_, PyVal::None) => self.f.bool(false, loc),
            (
                PyVal::Maybe {
                    present: p,
                    value: a,
                },
                PyVal::Maybe {
                    present: q,
                    value: b,
                },
            ) => {
                let values = self.compare_pair("Eq", *a, *b, loc)?;
                let both = self.f.binary("andi", &p, &q, Ty::Bool, loc);
                let both_equal = self.f.binary("andi", &both, &values, Ty::Bool, loc);
                let either = self.f.binary("ori", &p, &q, Ty::Bool, loc);
                let neither = self.not(&either, loc);
                self.f.binary("ori", &both_equal, &neither, Ty::Bool, loc)
            }
            (PyVal::Maybe { present, value }, other) | (other, PyVal::Maybe { present, value }) => {
                let values = self.compare_pair("Eq", *value, other, loc)?;
                self.f.binary("andi", &present, &values, Ty::Bool, loc)
            }
            _ => unreachable!("one side is None or may be"),
        })
    }

    /// `not v` of a bool.
    fn not(&mut self, v: &Value, loc: &Loc) -> Value {
        let one = self.f.bool(true, loc);
        self.f.binary("xori", v, &one, Ty::Bool, loc)
    }

    fn compare_pair(&mut self, op: &str, left: PyVal, right: PyVal, loc: &Loc) -> Result<Value> {
        if op == "Is" || op == "IsNot" {
            let is_none = |v: &PyVal| matches!(v, PyVal::None);
            let present = match (&left, &right) {
                (PyVal::Maybe { present, .. }, r) if is_none(r) => Some(present.clone()),
                (l, PyVal::Maybe { present, .. }) if is_none(l) => Some(present.clone()),
                (l, r) if is_none(l) || is_none(r) => None,
                _ => return unsupported(loc, "`is` compares with None only in a UDF"),
            };
            let is = match present {
                Some(present) => {
                    let one = self.f.bool(true, loc);
                    self.f.binary("xori", &present, &one, Ty::Bool, loc)
                }
                // A value that is never None, or None itself.
                None => self.f.bool(is_none(&left) && is_none(&right), loc),
            };
            return Ok(if op == "Is" {
                is
            } else {
                let one = self.f.bool(true, loc);
                self.f.binary("xori", &is, &one, Ty::Bool, loc)
            });
        }
        if op == "In" || op == "NotIn" {
            let needle = self.as_scalar(left, loc, "in")?;
            let haystack = self.as_scalar(right, loc, "in")?;
            if needle.ty != Ty::Str || haystack.ty != Ty::Str {
                return unsupported(
                    loc,
                    format!(
                        "`in` of a {} in a {} is not supported (str in str is)",
                        needle.ty.python(),
                        haystack.ty.python()
                    ),
                );
            }
            let found = self.f.df2("contains", &haystack, &needle, Ty::Bool, loc);
            return Ok(if op == "In" {
                found
            } else {
                let one = self.f.bool(true, loc);
                self.f.binary("xori", &found, &one, Ty::Bool, loc)
            });
        }
        let optional = |v: &PyVal| matches!(v, PyVal::None | PyVal::Maybe { .. });
        if matches!(op, "Eq" | "NotEq") && (optional(&left) || optional(&right)) {
            // `==` and `!=` take None as a value (only ordering raises
            // TypeError): an outer join's absent side equals None alone.
            let equal = self.equal_optional(left, right, loc)?;
            return Ok(if op == "Eq" {
                equal
            } else {
                self.not(&equal, loc)
            });
        }
        let (a, b) = self.numeric_pair(left, right, loc, op)?;
        let predicate = match op {
            "Eq" => ("eq", "oeq"),
            "NotEq" => ("ne", "une"),
            "Lt" => ("slt", "olt"),
            "LtE" => ("sle", "ole"),
            "Gt" => ("sgt", "ogt"),
            "GtE" => ("sge", "oge"),
            _ => {
                return unsupported(
                    loc,
                    format!("the comparison {op} is not supported in a UDF"),
                )
            }
        };
        Ok(match a.ty {
            Ty::Str => {
                let equal = self.f.df2("str_eq", &a, &b, Ty::Bool, loc);
                match op {
                    "Eq" => equal,
                    "NotEq" => {
                        let one = self.f.bool(true, loc);
                        self.f.binary("xori", &equal, &one, Ty::Bool, loc)
                    }
                    _ => {
                        return unsupported(
                            loc,
                            "ordering strings (<, >) is not supported in a UDF; == and != are",
                        )
                    }
                }
            }
            Ty::Float => self.f.op(
                format!("arith.cmpf {}, {}, {} : f64", predicate.1, a.name, b.name),
                Ty::Bool,
                loc,
            ),
            Ty::Int | Ty::Bool => {
                let pred = if a.ty == Ty::Bool && !matches!(op, "Eq" | "NotEq") {
                    return unsupported(loc, "ordering booleans is not supported in a UDF");
                } else {
                    predicate.0
                };
                self.f.op(
                    format!(
                        "arith.cmpi {pred}, {}, {} : {}",
                        a.name,
                        b.name,
                        a.ty.mlir()
                    ),
                    Ty::Bool,
                    loc,
                )
            }
            _ => {
                return unsupported(
                    loc,
                    format!("comparing a {} is not supported in a UDF", a.ty.python()),
                )
            }
        })
    }

    /// Two operands of one type: an int and a float meet as floats.
    fn numeric_pair(
        &mut self,
        left: PyVal,
        right: PyVal,
        loc: &Loc,
        what: &str,
    ) -> Result<(Value, Value)> {
        let a = self.as_scalar(left, loc, what)?;
        let b = self.as_scalar(right, loc, what)?;
        Ok(match (&a.ty, &b.ty) {
            (x, y) if x == y => (a, b),
            (Ty::Int, Ty::Float) => (self.int_to_float(&a, loc), b),
            (Ty::Float, Ty::Int) => {
                let b = self.int_to_float(&b, loc);
                (a, b)
            }
            (Ty::Bool, Ty::Int) => (self.bool_to_int(&a, loc), b),
            (Ty::Int, Ty::Bool) => {
                let b = self.bool_to_int(&b, loc);
                (a, b)
            }
            (x, y) => {
                return unsupported(
                    loc,
                    format!(
                    "an operation on {} and {} (TypeError in Python, or not supported in a UDF)",
                    article(x.python()),
                    article(y.python())
                ),
                )
            }
        })
    }

    fn int_to_float(&mut self, v: &Value, loc: &Loc) -> Value {
        self.f.op(
            format!("arith.sitofp {} : i64 to f64", v.name),
            Ty::Float,
            loc,
        )
    }

    fn bool_to_int(&mut self, v: &Value, loc: &Loc) -> Value {
        self.f
            .op(format!("arith.extui {} : i1 to i64", v.name), Ty::Int, loc)
    }

    fn binary(&mut self, op: &str, left: PyVal, right: PyVal, loc: &Loc) -> Result<PyVal> {
        let is_str = |v: &PyVal| matches!(v, PyVal::Scalar(Value { ty: Ty::Str, .. }));
        if op == "Mult" && (is_str(&left) || is_str(&right)) {
            return unsupported(
                loc,
                "string repetition (str * int) is not supported in a UDF",
            );
        }
        let (a, b) = self.numeric_pair(left, right, loc, op)?;
        let value =
            match (op, &a.ty) {
                ("Add", Ty::Str) => self.f.df2("concat", &a, &b, Ty::Str, loc),
                ("Add", Ty::Int) => self.f.binary("addi", &a, &b, Ty::Int, loc),
                ("Sub", Ty::Int) => self.f.binary("subi", &a, &b, Ty::Int, loc),
                ("Mult", Ty::Int) => self.f.binary("muli", &a, &b, Ty::Int, loc),
                ("Add", Ty::Float) => self.f.binary("addf", &a, &b, Ty::Float, loc),
                ("Sub", Ty::Float) => self.f.binary("subf", &a, &b, Ty::Float, loc),
                ("Mult", Ty::Float) => self.f.binary("mulf", &a, &b, Ty::Float, loc),
                ("FloorDiv" | "Mod", Ty::Int) => {
                    self.zero_check(&b, loc);
                    let name = if op == "FloorDiv" { "floordiv" } else { "mod" };
                    self.f.df2(name, &a, &b, Ty::Int, loc)
                }
                ("Div", Ty::Int | Ty::Float) => {
                    let a = if a.ty == Ty::Int {
                        self.int_to_float(&a, loc)
                    } else {
                        a
                    };
                    let b = if b.ty == Ty::Int {
                        self.int_to_float(&b, loc)
                    } else {
                        b
                    };
                    self.zero_check(&b, loc);
                    self.f.df2("truediv", &a, &b, Ty::Float, loc)
                }
                ("FloorDiv" | "Mod", Ty::Float) => {
                    return unsupported(loc, "// and % of floats are not supported in a UDF yet")
                }
                ("Mod", Ty::Str) => return unsupported(
                    loc,
                    "%-formatting takes a constant format string in a UDF (\"%s: %d\" % (a, b))",
                ),
                (op, ty) => {
                    return unsupported(
                        loc,
                        format!(
                            "the operator {op} on {} values is not supported in a UDF",
                            ty.python()
                        ),
                    )
                }
            };
        Ok(PyVal::Scalar(value))
    }

    /// Inside a `try` that catches ZeroDivisionError, a zero divisor goes
    /// to the handler; elsewhere the division op fails the UDF itself.
    fn zero_check(&mut self, divisor: &Value, loc: &Loc) {
        let Some(handler) = self.handler("ZeroDivisionError") else {
            return;
        };
        let is_zero = match divisor.ty {
            Ty::Float => {
                let zero = self.f.float(0.0, loc);
                self.f.op(
                    format!("arith.cmpf oeq, {}, {} : f64", divisor.name, zero.name),
                    Ty::Bool,
                    loc,
                )
            }
            _ => {
                let zero = self.f.int(0, loc);
                self.f.op(
                    format!("arith.cmpi eq, {}, {} : i64", divisor.name, zero.name),
                    Ty::Bool,
                    loc,
                )
            }
        };
        let (ok, _) = self.f.block(&[]);
        self.f.cond_br(&is_zero, (handler, &[]), (ok, &[]), loc);
        self.f.switch_to(ok);
    }

    /// The entries of the dict of constants `node` names, if it names one:
    /// a dict literal, a module-level name bound once to one, or the
    /// `.value` of a broadcast of one (`sc.broadcast({...})`, directly or
    /// through such a name): what every task sees of it.
    fn constant_dict(&self, node: &Node) -> Result<Option<Vec<(Node, Node)>>> {
        let global = |name: &str| self.module_literal(name);
        let literal = |n: &Node| -> Option<Node> {
            if n.is("Dict") {
                return Some(n.clone());
            }
            global(&n.name()?).filter(|v| v.is("Dict"))
        };
        let dict = if node.is("Attribute") && node.str("attr").as_deref() == Some("value") {
            let holder = node.expect("value");
            let holder = match holder.name() {
                Some(name) => match global(&name) {
                    Some(value) => value,
                    None => return Ok(None),
                },
                None => holder,
            };
            let func = if holder.is("Call") {
                holder.child("func")
            } else {
                None
            };
            match func {
                Some(f) if f.str("attr").as_deref() == Some("broadcast") => {
                    match holder.list("args").first().and_then(literal) {
                        Some(dict) => dict,
                        None => {
                            return unsupported(
                                &holder.loc,
                                "a broadcast variable is read in a UDF when it holds a dict of constants (`sc.broadcast({200: \"OK\"})`)",
                            )
                        }
                    }
                }
                _ => return Ok(None),
            }
        } else {
            match literal(node) {
                Some(dict) => dict,
                None => return Ok(None),
            }
        };
        constant_entries(&dict).map(Some)
    }

    /// What module-level `name` is bound to, where a UDF may read that as
    /// its value: bound once, in straight-line code, not changed in place,
    /// and no variable of the UDF.
    fn module_literal(&self, name: &str) -> Option<Node> {
        let once = self.scope.rebound.get(name).is_none_or(|r| r.once);
        if self.env.contains_key(name) || !once || self.scope.mutated.contains(name) {
            return None;
        }
        self.scope.values.get(name).cloned()
    }

    /// The elements of the collection of constants `node` names, for `in`:
    /// a tuple, list or set literal (or a module-level name bound once to
    /// one), or the keys of a dict of constants.
    fn constant_elements(&self, node: &Node) -> Result<Option<Vec<Node>>> {
        if let Some(entries) = self.constant_dict(node)? {
            return Ok(Some(entries.into_iter().map(|(k, _)| k).collect()));
        }
        let literal = match node.name() {
            Some(name) => match self.module_literal(&name) {
                Some(value) => value,
                None => return Ok(None),
            },
            None => node.clone(),
        };
        if !["Tuple", "List", "Set"].iter().any(|kind| literal.is(kind)) {
            return Ok(None);
        }
        let elements = literal.list("elts");
        let mut kinds = elements.iter().map(|e| match crate::job::constant_of(e) {
            Some(Constant::Int(_)) => Some("int"),
            Some(Constant::Str(_)) => Some("str"),
            Some(Constant::Float(_)) => Some("float"),
            _ => None,
        });
        let Some(first) = kinds.next() else {
            return Ok(Some(Vec::new()));
        };
        // A variable element (`x in (a, b)`) is an ordinary comparison.
        let Some(first) = first else {
            return Ok(None);
        };
        if kinds.any(|kind| kind != Some(first)) {
            return unsupported(
                &literal.loc,
                "`in` of a collection of constants is read when they are all of one type (int, float or str) in a UDF",
            );
        }
        Ok(Some(elements))
    }

    /// `needle in elements` (`not in` when `!inside`) for constants: the
    /// needle evaluated once and compared with each, as Python's `==`.
    fn member_of(
        &mut self,
        inside: bool,
        needle: &Node,
        elements: &[Node],
        loc: &Loc,
    ) -> Result<PyVal> {
        let needle = self.expr(needle)?;
        let mut any: Option<Value> = None;
        for element in elements {
            let constant = self.expr(element)?;
            let equal = self.compare_pair("Eq", needle.clone(), constant, loc)?;
            any = Some(match any {
                Some(before) => self.f.binary("ori", &before, &equal, Ty::Bool, loc),
                None => equal,
            });
        }
        let found = match any {
            Some(found) => found,
            None => self.f.bool(false, loc),
        };
        Ok(PyVal::Scalar(if inside {
            found
        } else {
            let one = self.f.bool(true, loc);
            self.f.binary("xori", &found, &one, Ty::Bool, loc)
        }))
    }

    /// `dict[key]`, or `dict.get(key, default)`, of a dict of constants:
    /// the key evaluated once, then compared with each key in turn (what
    /// Python's lookup amounts to for keys of one type); a KeyError where
    /// none is equal and there is no default.
    fn dict_lookup(
        &mut self,
        entries: &[(Node, Node)],
        key: &Node,
        default: Option<&Node>,
        loc: &Loc,
    ) -> Result<PyVal> {
        let value = self.expr(key)?;
        if self.f.terminated() {
            return Ok(value);
        }
        // Not an identifier: no variable of the UDF can have this name.
        let temp = format!("dict key at {}:{}", loc.line, loc.column);
        let saved = self.env.insert(temp.clone(), value);
        let mut chain = match default {
            Some(default) => default.clone(),
            None => Node::make("CocoKeyError", loc, Vec::new()),
        };
        for (k, v) in entries.iter().rev() {
            let test = Node::make(
                "Compare",
                loc,
                vec![
                    ("left", Field::Node(Node::make_name(&temp, loc))),
                    ("ops", Field::List(vec![Node::make("Eq", loc, Vec::new())])),
                    ("comparators", Field::List(vec![k.clone()])),
                ],
            );
            chain = Node::make(
                "IfExp",
                loc,
                vec![
                    ("test", Field::Node(test)),
                    ("body", Field::Node(v.clone())),
                    ("orelse", Field::Node(chain)),
                ],
            );
        }
        let result = self.expr(&chain);
        match saved {
            Some(previous) => {
                self.env.insert(temp, previous);
            }
            None => {
                self.env.remove(&temp);
            }
        }
        result
    }

    fn subscript(&mut self, e: &Node) -> Result<PyVal> {
        let loc = &e.loc;
        if let Some(entries) = self.constant_dict(&e.expect("value"))? {
            return self.dict_lookup(&entries, &e.expect("slice"), None, loc);
        }
        let value = self.expr(&e.expect("value"))?;
        let value = self.unwrap(value, loc)?;
        let index = e.expect("slice");
        if index.is("Slice") {
            if index.child("step").is_some() {
                return unsupported(&index.loc, "slices with a step are not supported in a UDF");
            }
            return match value {
                PyVal::Scalar(s) if s.ty == Ty::Str => {
                    Ok(PyVal::Scalar(self.str_slice(&s, &index, loc)?))
                }
                PyVal::Tuple(items) => {
                    let bound = |n: Option<Node>| {
                        n.map(|n| int_constant(&n).ok_or(n.loc.clone())).transpose()
                    };
                    let (Ok(lower), Ok(upper)) =
                        (bound(index.child("lower")), bound(index.child("upper")))
                    else {
                        return unsupported(
                            &index.loc,
                            "a tuple is sliced by constants only in a UDF",
                        );
                    };
                    let len = items.len() as i64;
                    let clamp = |i: i64| if i < 0 { (i + len).max(0) } else { i.min(len) } as usize;
                    let (lo, hi) = (clamp(lower.unwrap_or(0)), clamp(upper.unwrap_or(len)));
                    Ok(PyVal::Tuple(if lo < hi {
                        items[lo..hi].to_vec()
                    } else {
                        Vec::new()
                    }))
                }
                other => unsupported(
                    loc,
                    format!("slicing a {} is not supported in a UDF", other.python()),
                ),
            };
        }
        match value {
            PyVal::Tuple(items) => match int_constant(&index) {
                Some(i) => {
                    let len = items.len() as i64;
                    let at = if i < 0 { i + len } else { i };
                    if at < 0 || at >= len {
                        return unsupported(&index.loc, format!("tuple index {i} is out of range for a tuple of {len} (IndexError in Python)"));
                    }
                    Ok(items[at as usize].clone())
                }
                None => unsupported(&index.loc, "a tuple is indexed by a constant in a UDF"),
            },
            PyVal::Scalar(list) if list.ty.is_list() => {
                let Ty::List(element) = list.ty.clone() else {
                    unreachable!("a list type")
                };
                // `xs[len(xs) - 1]` is `xs[-1]`: the last element, an
                // IndexError for an empty list, as Python's.
                let len_is_builtin =
                    !self.env.contains_key("len") && !self.scope.defs.contains_key("len");
                let index = if len_is_builtin && is_len_minus_one(&index, &e.expect("value")) {
                    Node::make_int(-1, &index.loc)
                } else {
                    index
                };
                match int_constant(&index) {
                    Some(i) if i >= 0 => Ok(PyVal::Scalar(self.list_get(&list, i, *element, loc)?)),
                    Some(i) if i >= -MAX_FROM_END => {
                        Ok(PyVal::Scalar(self.list_from_end(&list, i.unsigned_abs() as usize, *element, loc)?))
                    }
                    Some(i) => unsupported(
                        &index.loc,
                        format!("index {i} into a list: at most {MAX_FROM_END} from the end are supported"),
                    ),
                    None => {
                        // xs[i]: the element at i (from the end when
                        // negative), IndexError outside [-len, len).
                        let i = self.scalar(&index, "a list index")?;
                        if i.ty != Ty::Int {
                            return unsupported(
                                &index.loc,
                                format!("a list index must be an int, found {}", i.ty.python()),
                            );
                        }
                        // The size only where the index is negative: a
                        // split's size is a long chain of pieces for the
                        // solver, and an index from a range or a loop is
                        // a constant that never takes that branch.
                        let zero = self.f.int(0, loc);
                        let negative = self.f.op(
                            format!("arith.cmpi slt, {}, {} : i64", i.name, zero.name),
                            Ty::Bool,
                            loc,
                        );
                        let (from_end, _) = self.f.block(&[]);
                        let (joined, at) = self.f.block(&[Ty::Int]);
                        self.f.cond_br(&negative, (from_end, &[]), (joined, std::slice::from_ref(&i)), loc);
                        self.f.switch_to(from_end);
                        let len = self.f.op(
                            format!("df.size {} : {}", list.name, list.ty.mlir()),
                            Ty::Int,
                            loc,
                        );
                        let shifted = self.f.binary("addi", &i, &len, Ty::Int, loc);
                        self.f.br(joined, std::slice::from_ref(&shifted), loc);
                        self.f.switch_to(joined);
                        let at = at[0].clone();
                        let (option, present) = self.get_at(&list, &at, loc);
                        self.fail_unless(&present, "IndexError", loc);
                        Ok(PyVal::Scalar(self.value_of(&option, *element, loc)?))
                    }
                }
            }
            PyVal::Scalar(s) if s.ty == Ty::Str => {
                // s[i]: one character, IndexError outside [-len, len).
                let i = self.scalar(&index, "a string index")?;
                if i.ty != Ty::Int {
                    return unsupported(
                        &index.loc,
                        format!("a string index must be an int, found {}", i.ty.python()),
                    );
                }
                let len = self.f.op(format!("df.length {}", s.name), Ty::Int, loc);
                let zero = self.f.int(0, loc);
                let negative = self.f.op(
                    format!("arith.cmpi slt, {}, {} : i64", i.name, zero.name),
                    Ty::Bool,
                    loc,
                );
                let shifted = self.f.binary("addi", &i, &len, Ty::Int, loc);
                let at = self.f.select(&negative, &shifted, &i, loc);
                let low = self.f.op(
                    format!("arith.cmpi sge, {}, {} : i64", at.name, zero.name),
                    Ty::Bool,
                    loc,
                );
                let high = self.f.op(
                    format!("arith.cmpi slt, {}, {} : i64", at.name, len.name),
                    Ty::Bool,
                    loc,
                );
                let inside = self.f.binary("andi", &low, &high, Ty::Bool, loc);
                self.fail_unless(&inside, "IndexError", loc);
                let one = self.f.int(1, loc);
                Ok(PyVal::Scalar(self.f.op(
                    format!("df.substr {}, {}, {}", s.name, at.name, one.name),
                    Ty::Str,
                    loc,
                )))
            }
            other => unsupported(
                loc,
                format!("indexing a {} is not supported in a UDF", other.python()),
            ),
        }
    }

    /// Element `i` (a constant, at least 0) of a list: `df.get`; past the
    /// end an IndexError, to the handler inside a `try` that catches it.
    fn list_get(&mut self, list: &Value, i: i64, element: Ty, loc: &Loc) -> Result<Value> {
        let list_ty = list.ty.mlir();
        Ok(match self.handler("IndexError") {
            Some(handler) => {
                let option_ty = Ty::Option(Box::new(element.clone()));
                let option = self.f.op(
                    format!(
                        "df.get {}[{i}] : {list_ty} -> {}",
                        list.name,
                        option_ty.mlir()
                    ),
                    option_ty,
                    loc,
                );
                self.present_or(&option, handler, element, loc)?
            }
            None => self.f.op(
                format!(
                    "df.get {}[{i}] : {list_ty} -> {}",
                    list.name,
                    element.mlir()
                ),
                element,
                loc,
            ),
        })
    }

    /// `s[lower:upper]` with Python's clamping, as a `df.substr` of
    /// non-negative bounds.
    fn str_slice(&mut self, s: &Value, slice: &Node, loc: &Loc) -> Result<Value> {
        // Under `df.host = "python"`, `df.substr s, b, n` is `s[b:b + n]`
        // with both bounds counting from the end when negative and clamped
        // to the string, so `s[lower:upper]` is `df.substr s, lower,
        // upper - lower` as written: clamping here too would only double
        // the terms the solver sees.
        let bound = |this: &mut Self, node: Option<Node>| -> Result<Option<Value>> {
            let Some(node) = node else {
                return Ok(None);
            };
            let i = this.scalar(&node, "a slice bound")?;
            if i.ty != Ty::Int {
                return unsupported(&node.loc, "slice bounds must be ints");
            }
            Ok(Some(i))
        };
        let lower = bound(self, slice.child("lower"))?;
        let upper = bound(self, slice.child("upper"))?;
        let lower = match lower {
            Some(lower) => lower,
            None => self.f.int(0, loc),
        };
        let upper = match upper {
            Some(upper) => upper,
            None => self.f.op(format!("df.length {}", s.name), Ty::Int, loc),
        };
        let length = self.f.binary("subi", &upper, &lower, Ty::Int, loc);
        Ok(self.f.op(
            format!("df.substr {}, {}, {}", s.name, lower.name, length.name),
            Ty::Str,
            loc,
        ))
    }

    /// The value of a total op's option result, going to `handler` where it
    /// is absent.
    fn present_or(&mut self, option: &Value, handler: BlockId, ty: Ty, loc: &Loc) -> Result<Value> {
        let present = self.f.op(
            format!("df.is_present {} : {}", option.name, option.ty.mlir()),
            Ty::Bool,
            loc,
        );
        let (ok, _) = self.f.block(&[]);
        self.f.cond_br(&present, (ok, &[]), (handler, &[]), loc);
        self.f.switch_to(ok);
        self.value_of(option, ty, loc)
    }

    /// `df.get_at list[index]` (absent past the end) and whether it is
    /// present.
    fn get_at(&mut self, list: &Value, index: &Value, loc: &Loc) -> (Value, Value) {
        let element = match &list.ty {
            Ty::List(element) => (**element).clone(),
            other => other.clone(),
        };
        let option_ty = Ty::Option(Box::new(element));
        let option = self.f.op(
            format!(
                "df.get_at {}[{}] : {} -> {}",
                list.name,
                index.name,
                list.ty.mlir(),
                option_ty.mlir()
            ),
            option_ty.clone(),
            loc,
        );
        let present = self.f.op(
            format!("df.is_present {} : {}", option.name, option_ty.mlir()),
            Ty::Bool,
            loc,
        );
        (option, present)
    }

    /// The value of an option where it is known to be present: `df.value_or`
    /// with a default that is never taken.
    fn value_of(&mut self, option: &Value, ty: Ty, loc: &Loc) -> Result<Value> {
        let default = self.default(&ty, loc)?;
        Ok(self.f.op(
            format!(
                "df.value_or {}, {} : {}, {}",
                option.name,
                default.name,
                option.ty.mlir(),
                ty.mlir()
            ),
            ty,
            loc,
        ))
    }

    fn call(&mut self, e: &Node) -> Result<PyVal> {
        let loc = &e.loc;
        if let Some(value) = self.regex_call(e)? {
            return Ok(value);
        }
        if let Some(value) = self.csv_call(e)? {
            return Ok(value);
        }
        if !e.list("keywords").is_empty() {
            return unsupported(loc, "keyword arguments are not supported in a UDF call");
        }
        let args = e.list("args");
        if args.iter().any(|a| a.is("Starred")) {
            return unsupported(loc, "*args in a call are not supported in a UDF");
        }
        let func = e.expect("func");
        if func.is("Attribute") {
            return self.method(&func, &args);
        }
        let Some(name) = func.name() else {
            return unsupported(
                &func.loc,
                format!("calling {} is not supported in a UDF", describe(&func)),
            );
        };
        if self.env.contains_key(&name) {
            return unsupported(
                &func.loc,
                format!("{name} is a variable; a UDF calls defs of the file and builtins"),
            );
        }
        if self
            .scope
            .operators
            .get(&name)
            .is_some_and(|f| !f.is_empty())
        {
            // `add(a, b)` with `from operator import add`.
            let values = args
                .iter()
                .map(|a| self.expr(a))
                .collect::<Result<Vec<_>>>()?;
            return self.invoke(&func, values, loc);
        }
        if self.scope.rebound.contains_key(&name) {
            let what = if self.scope.defs.contains_key(&name) {
                "a function".to_string()
            } else {
                format!("Python's builtin {name}")
            };
            return self.scope.refuse_rebound(&name, &func.loc, &what);
        }
        if self.scope.defs.contains_key(&name) {
            let values = args
                .iter()
                .map(|a| self.expr(a))
                .collect::<Result<Vec<_>>>()?;
            return self.invoke(&func, values, loc);
        }
        self.scope.builtin(&name, &func.loc)?;
        let one = |this: &mut Self| -> Result<PyVal> {
            if args.len() != 1 {
                return unsupported(loc, format!("{name}() takes one argument in a UDF"));
            }
            this.expr(&args[0])
        };
        match name.as_str() {
            "int" => {
                let v = one(self)?;
                let v = self.as_scalar(v, loc, "int()")?;
                Ok(PyVal::Scalar(match v.ty {
                    Ty::Int => v,
                    Ty::Bool => self.bool_to_int(&v, loc),
                    Ty::Float => self.f.op(format!("arith.fptosi {} : f64 to i64", v.name), Ty::Int, loc),
                    Ty::Str => self.parse(&v, "to_int", Ty::Int, loc)?,
                    _ => return unsupported(loc, format!("int() of a {}", v.ty.python())),
                }))
            }
            "float" => {
                let v = one(self)?;
                let v = self.as_scalar(v, loc, "float()")?;
                Ok(PyVal::Scalar(match v.ty {
                    Ty::Float => v,
                    Ty::Int => self.int_to_float(&v, loc),
                    Ty::Bool => {
                        let i = self.bool_to_int(&v, loc);
                        self.int_to_float(&i, loc)
                    }
                    Ty::Str => self.parse(&v, "to_float", Ty::Float, loc)?,
                    _ => return unsupported(loc, format!("float() of a {}", v.ty.python())),
                }))
            }
            "str" => {
                let v = one(self)?;
                Ok(PyVal::Scalar(self.str_of(v, loc)?))
            }
            "bool" => {
                let v = one(self)?;
                Ok(PyVal::Scalar(self.truth(&v, loc)?))
            }
            "len" => {
                let v = one(self)?;
                match v {
                    PyVal::Tuple(items) => Ok(PyVal::Scalar(self.f.int(items.len() as i64, loc))),
                    other => {
                        let v = self.as_scalar(other, loc, "len()")?;
                        Ok(PyVal::Scalar(match v.ty {
                            Ty::Str => self.f.op(format!("df.length {}", v.name), Ty::Int, loc),
                            Ty::List(_) => self.f.op(format!("df.size {} : {}", v.name, v.ty.mlir()), Ty::Int, loc),
                            _ => return unsupported(loc, format!("len() of a {} (TypeError in Python)", v.ty.python())),
                        }))
                    }
                }
            }
            "tuple" => match one(self)? {
                // A tuple's items (zip's pairs in a flatMap) are the tuple.
                PyVal::Tuple(items) => Ok(PyVal::Tuple(items)),
                other => unsupported(
                    loc,
                    format!("tuple() of a {} is not supported in a UDF (records hold no lists; tuple() of a tuple is)", other.python()),
                ),
            },
            "range" => {
                // A list of ints: what a flatMap's comprehension iterates
                // (`for i in range(len(xs) - 1)`); loops over a range
                // are lowered by `for_statement`.
                let mut bounds = Vec::new();
                for arg in &args {
                    let v = self.scalar(arg, "range()")?;
                    bounds.push(match v.ty {
                        Ty::Int => v,
                        Ty::Bool => self.bool_to_int(&v, loc),
                        _ => return unsupported(&arg.loc, format!("range() of a {} (TypeError in Python)", v.ty.python())),
                    });
                }
                let (start, stop) = match (bounds.as_slice(), args.get(2).and_then(int_constant)) {
                    ([stop], _) => (self.f.int(0, loc), stop.clone()),
                    ([start, stop], _) | ([start, stop, _], Some(1)) => (start.clone(), stop.clone()),
                    ([_, _, _], _) => return unsupported(&args[2].loc, "range() with a step other than the constant 1 is not supported in a UDF"),
                    _ => return unsupported(loc, "range() takes one to three arguments"),
                };
                let ty = Ty::List(Box::new(Ty::Int));
                Ok(PyVal::Scalar(self.f.op(
                    format!("df.range {}, {} : {}", start.name, stop.name, ty.mlir()),
                    ty,
                    loc,
                )))
            }
            "abs" => {
                let v = one(self)?;
                let v = self.as_scalar(v, loc, "abs()")?;
                Ok(PyVal::Scalar(match v.ty {
                    Ty::Int => {
                        let zero = self.f.int(0, loc);
                        let negative = self.f.op(format!("arith.cmpi slt, {}, {} : i64", v.name, zero.name), Ty::Bool, loc);
                        let negated = self.f.binary("subi", &zero, &v, Ty::Int, loc);
                        self.f.select(&negative, &negated, &v, loc)
                    }
                    Ty::Float => {
                        let zero = self.f.float(0.0, loc);
                        let negative = self.f.op(format!("arith.cmpf olt, {}, {} : f64", v.name, zero.name), Ty::Bool, loc);
                        let negated = self.f.op(format!("arith.negf {} : f64", v.name), Ty::Float, loc);
                        self.f.select(&negative, &negated, &v, loc)
                    }
                    _ => return unsupported(loc, format!("abs() of a {}", v.ty.python())),
                }))
            }
            "sum" | "min" | "max" | "list" if args.len() == 1 => {
                let v = one(self)?;
                let v = self.as_scalar(v, loc, &format!("{name}()"))?;
                let Ty::List(element) = v.ty.clone() else {
                    return unsupported(loc, format!("{name}() of a {} is not supported in a UDF", v.ty.python()));
                };
                if name == "list" {
                    return Ok(PyVal::Scalar(v));
                }
                Ok(PyVal::Scalar(self.list_fold(&name, &v, *element, loc)?))
            }
            "min" | "max" => {
                if args.len() != 2 {
                    return unsupported(loc, format!("{name}() takes two values or one list in a UDF"));
                }
                let a = self.expr(&args[0])?;
                let b = self.expr(&args[1])?;
                let (a, b) = self.numeric_pair(a, b, loc, &name)?;
                // Python keeps the first of equal values: min(a, b) is b
                // only when b < a.
                let op = if name == "min" { "Lt" } else { "Gt" };
                let pick_b = self.compare_pair(op, PyVal::Scalar(b.clone()), PyVal::Scalar(a.clone()), loc)?;
                Ok(PyVal::Scalar(self.f.select(&pick_b, &b, &a, loc)))
            }
            _ => unsupported(
                &func.loc,
                format!("{name}() is not supported in a UDF (builtins: int, float, str, bool, len, abs, min, max, sum, range, tuple; and defs of this file)"),
            ),
        }
    }

    /// `xs[-n]`: a `cf` loop over `df.get_at` keeping the last `n`
    /// elements, then IndexError (to a handler that catches it) when the
    /// list had fewer. BigTest follows it as any loop: k trips that fork,
    /// so a split with more pieces than that is not generated for it.
    fn list_from_end(&mut self, list: &Value, n: usize, element: Ty, loc: &Loc) -> Result<Value> {
        let mut entry = Vec::new();
        for _ in 0..n {
            entry.push(self.default(&element, loc)?);
        }
        let trip = self.open_list_loop(entry, loc);
        let (item, done) = self.next_element(&trip, list, element, loc)?;
        let window = trip.carried.clone();
        let mut back = window[1..].to_vec();
        back.push(item);
        self.next_trip(&trip, back, loc);
        self.f.switch_to(done);
        let needed = self.f.int(n as i64, loc);
        let enough = self.f.op(
            format!("arith.cmpi sge, {}, {} : i64", trip.index.name, needed.name),
            Ty::Bool,
            loc,
        );
        self.fail_unless(&enough, "IndexError", loc);
        Ok(window[0].clone())
    }

    /// `sum(xs)`, `min(xs)`, `max(xs)` of a list of ints or floats (a
    /// group's values): a `cf` loop over `df.get_at`, as `for` lowers.
    /// `min`/`max` of an empty list raise ValueError, as Python's do;
    /// `sum` starts at 0 of the element type (Python's int 0 makes the sum
    /// of an empty float list `0`, not `0.0`; a group is never empty).
    fn list_fold(&mut self, name: &str, list: &Value, element: Ty, loc: &Loc) -> Result<Value> {
        let (add, less, greater) = match element {
            Ty::Int => ("addi", "arith.cmpi slt", "arith.cmpi sgt"),
            Ty::Float => ("addf", "arith.cmpf olt", "arith.cmpf ogt"),
            other => {
                return unsupported(
                    loc,
                    format!(
                        "{name}() of a list of {} is not supported in a UDF (of ints or floats is)",
                        other.python()
                    ),
                )
            }
        };
        let (start, initial) = if name == "sum" {
            let zero = self.default(&element, loc)?;
            (self.f.int(0, loc), zero)
        } else {
            let zero = self.f.int(0, loc);
            let (first, present) = self.get_at(list, &zero, loc);
            self.fail_unless(&present, "ValueError", loc);
            let value = self.value_of(&first, element.clone(), loc)?;
            (self.f.int(1, loc), value)
        };
        let trip = self.open_list_loop_at(start, vec![initial], loc);
        let (x, done) = self.next_element(&trip, list, element.clone(), loc)?;
        let acc = trip.carried[0].clone();
        let next_acc = match name {
            "sum" => self.f.binary(add, &acc, &x, element.clone(), loc),
            _ => {
                // Python keeps the first of equal values.
                let cmp = if name == "min" { less } else { greater };
                let better = self.f.op(
                    format!("{cmp}, {}, {} : {}", x.name, acc.name, element.mlir()),
                    Ty::Bool,
                    loc,
                );
                self.f.select(&better, &x, &acc, loc)
            }
        };
        self.next_trip(&trip, vec![next_acc], loc);
        self.f.switch_to(done);
        Ok(acc)
    }

    /// Starts a loop over a list from element 0, carrying `entry` (see
    /// [`Lowering::open_list_loop_at`]).
    fn open_list_loop(&mut self, entry: Vec<Value>, loc: &Loc) -> ListTrip {
        let start = self.f.int(0, loc);
        self.open_list_loop_at(start, entry, loc)
    }

    /// Branches to a new loop header whose arguments are the index (from
    /// `start`) and values of `entry`'s types, and leaves the header
    /// current: what the loop's variables are is written there, then
    /// [`Lowering::next_element`] ends it.
    fn open_list_loop_at(&mut self, start: Value, entry: Vec<Value>, loc: &Loc) -> ListTrip {
        let mut types = vec![Ty::Int];
        types.extend(entry.iter().map(|v| v.ty.clone()));
        let (header, args) = self.f.block(&types);
        let mut values = vec![start];
        values.extend(entry);
        self.f.br(header, &values, loc);
        self.f.switch_to(header);
        ListTrip {
            header,
            index: args[0].clone(),
            carried: args[1..].to_vec(),
        }
    }

    /// Ends a loop header: reads element `i` with `df.get_at` and goes to
    /// the body while it is present. Leaves the body current; returns the
    /// element and the block the loop leaves to when the elements run out.
    fn next_element(
        &mut self,
        trip: &ListTrip,
        list: &Value,
        element: Ty,
        loc: &Loc,
    ) -> Result<(Value, BlockId)> {
        let (option, present) = self.get_at(list, &trip.index, loc);
        let (body, _) = self.f.block(&[]);
        let (done, _) = self.f.block(&[]);
        self.f.cond_br(&present, (body, &[]), (done, &[]), loc);
        self.f.switch_to(body);
        Ok((self.value_of(&option, element, loc)?, done))
    }

    /// Ends the current block of a loop's body: back to the header with
    /// the next index and `carried`.
    fn next_trip(&mut self, trip: &ListTrip, carried: Vec<Value>, loc: &Loc) {
        let one = self.f.int(1, loc);
        let mut back = vec![self.f.binary("addi", &trip.index, &one, Ty::Int, loc)];
        back.extend(carried);
        self.f.br(trip.header, &back, loc);
    }

    /// `int(s)` / `float(s)`: a total parse going to the handler inside a
    /// `try` that catches ValueError; otherwise one that fails the UDF.
    fn parse(&mut self, s: &Value, op: &str, ty: Ty, loc: &Loc) -> Result<Value> {
        match self.handler("ValueError") {
            Some(handler) => {
                let option_ty = Ty::Option(Box::new(ty.clone()));
                let option = self.f.op(
                    format!("df.{op} {} : {}", s.name, option_ty.mlir()),
                    option_ty,
                    loc,
                );
                self.present_or(&option, handler, ty, loc)
            }
            None => Ok(self.f.op(format!("df.{op} {}", s.name), ty, loc)),
        }
    }

    /// `"%s: %d" % (a, b)`: the format is a constant, so it becomes
    /// concatenations of the pieces and the arguments' texts.
    fn percent_format(&mut self, format: &str, args: Vec<PyVal>, loc: &Loc) -> Result<Value> {
        let mut pieces: Vec<Value> = Vec::new();
        let mut literal = String::new();
        let mut args = args.into_iter();
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                literal.push(c);
                continue;
            }
            let spec = chars.next();
            if spec == Some('%') {
                literal.push('%');
                continue;
            }
            if !literal.is_empty() {
                pieces.push(self.f.str(&std::mem::take(&mut literal), loc));
            }
            let Some(arg) = args.next() else {
                return unsupported(
                    loc,
                    "not enough arguments for format string (TypeError in Python)",
                );
            };
            let text = match spec {
                Some('s') => self.str_of(arg, loc)?,
                Some('d') | Some('i') => {
                    let v = self.as_scalar(arg, loc, "%d")?;
                    let n = match v.ty {
                        Ty::Int => v,
                        Ty::Bool => self.bool_to_int(&v, loc),
                        Ty::Float => self.f.op(format!("arith.fptosi {} : f64 to i64", v.name), Ty::Int, loc),
                        _ => return unsupported(loc, format!("%d of a {} (TypeError in Python)", v.ty.python())),
                    };
                    self.str_of(PyVal::Scalar(n), loc)?
                }
                other => {
                    return unsupported(
                        loc,
                        format!(
                            "the conversion %{} is not supported in a UDF (%s, %d, %i and %% are; no flags or widths)",
                            other.map(String::from).unwrap_or_default()
                        ),
                    )
                }
            };
            pieces.push(text);
        }
        if args.next().is_some() {
            return unsupported(
                loc,
                "not all arguments converted during string formatting (TypeError in Python)",
            );
        }
        if !literal.is_empty() || pieces.is_empty() {
            pieces.push(self.f.str(&literal, loc));
        }
        Ok(self.concat_all(pieces, loc))
    }

    /// `"{} and {0}".format(a, b)`: positional fields without format specs.
    fn brace_format(&mut self, format: &str, args: &[Node], loc: &Loc) -> Result<Value> {
        let mut values = Vec::new();
        for arg in args {
            let v = self.expr(arg)?;
            values.push(v);
        }
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut next_auto = 0usize;
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    literal.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    literal.push('}');
                }
                '{' => {
                    let mut field = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => field.push(c),
                            None => {
                                return unsupported(
                                    loc,
                                    "a format string with an unclosed '{' (ValueError in Python)",
                                )
                            }
                        }
                    }
                    // `{0:s}` of a str and `{0:d}` of an int are the value
                    // as str() writes it.
                    let (name, spec) = match field.split_once(':') {
                        Some((name, spec)) => (name, Some(spec)),
                        None => (field.as_str(), None),
                    };
                    let index = if name.is_empty() {
                        next_auto += 1;
                        next_auto - 1
                    } else {
                        match name.parse::<usize>() {
                            Ok(i) => i,
                            Err(_) => {
                                return unsupported(
                                    loc,
                                    format!("the format field {{{field}}} is not supported in a UDF ({{}}, {{0}}, {{0:s}} of a str and {{0:d}} of an int are; no names)"),
                                )
                            }
                        }
                    };
                    let Some(value) = values.get(index).cloned() else {
                        return unsupported(
                            loc,
                            format!("format field {index} has no argument (IndexError in Python)"),
                        );
                    };
                    let ty = match &value {
                        PyVal::Scalar(v) => Some(v.ty.clone()),
                        _ => None,
                    };
                    match (spec, ty) {
                        (None | Some(""), _) | (Some("s"), Some(Ty::Str)) | (Some("d"), Some(Ty::Int)) => {}
                        (Some(spec @ ("s" | "d")), _) => {
                            return unsupported(
                                loc,
                                format!("{{{field}}} of a value that is not a{} (ValueError or TypeError in Python)", if spec == "s" { " str" } else { "n int" }),
                            )
                        }
                        (Some(_), _) => {
                            return unsupported(
                                loc,
                                format!("the format spec of {{{field}}} is not supported in a UDF (:s of a str and :d of an int are)"),
                            )
                        }
                    }
                    if !literal.is_empty() {
                        pieces.push(self.f.str(&std::mem::take(&mut literal), loc));
                    }
                    pieces.push(self.str_of(value, loc)?);
                }
                '}' => {
                    return unsupported(
                        loc,
                        "a single '}' in a format string (ValueError in Python)",
                    )
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() || pieces.is_empty() {
            pieces.push(self.f.str(&literal, loc));
        }
        Ok(self.concat_all(pieces, loc))
    }

    fn concat_all(&mut self, pieces: Vec<Value>, loc: &Loc) -> Value {
        let mut pieces = pieces.into_iter();
        let first = pieces.next().expect("at least one piece");
        pieces.fold(first, |text, piece| {
            self.f.df2("concat", &text, &piece, Ty::Str, loc)
        })
    }

    fn method(&mut self, func: &Node, args: &[Node]) -> Result<PyVal> {
        let loc = &func.attr_loc();
        let method = func.str("attr").unwrap_or_default();
        if let Some(entries) = self.constant_dict(&func.expect("value"))? {
            return match (method.as_str(), args) {
                ("get", [key, default]) => self.dict_lookup(&entries, key, Some(default), loc),
                _ => unsupported(
                    loc,
                    format!(".{method}() of a dict of constants is not supported in a UDF (d[k] and d.get(k, default) are)"),
                ),
            };
        }
        if method == "format" {
            if let Some(format) = func.expect("value").str_constant() {
                return Ok(PyVal::Scalar(self.brace_format(&format, args, loc)?));
            }
        }
        let receiver = self.expr(&func.expect("value"))?;
        let s = self.as_scalar(receiver, loc, &format!(".{method}()"))?;
        if s.ty != Ty::Str {
            return unsupported(
                loc,
                format!(
                    ".{method}() of a {} is not supported in a UDF (str methods are)",
                    s.ty.python()
                ),
            );
        }
        // `s.startswith(("GET", "POST"))`: any of the prefixes (suffixes).
        if let ("startswith" | "endswith", [prefixes]) = (method.as_str(), args) {
            if prefixes.is("Tuple") {
                let op = if method == "startswith" {
                    "starts_with"
                } else {
                    "ends_with"
                };
                let mut any: Option<Value> = None;
                for prefix in prefixes.list("elts") {
                    let Some(text) = prefix.str_constant() else {
                        return unsupported(
                            &prefix.loc,
                            format!(".{method}() of a tuple takes str constants in a UDF"),
                        );
                    };
                    let constant = self.f.str(&text, &prefix.loc);
                    let this = self.f.df2(op, &s, &constant, Ty::Bool, loc);
                    any = Some(match any {
                        Some(before) => self.f.binary("ori", &before, &this, Ty::Bool, loc),
                        None => this,
                    });
                }
                // An empty tuple matches nothing.
                return Ok(PyVal::Scalar(match any {
                    Some(any) => any,
                    None => self.f.bool(false, loc),
                }));
            }
        }
        let mut strings = Vec::new();
        for arg in args {
            let v = self.scalar(arg, &format!(".{method}()"))?;
            strings.push(v);
        }
        let arity = |n: usize| -> Result<()> {
            if strings.len() == n {
                Ok(())
            } else {
                unsupported(loc, format!(".{method}() takes {n} argument(s) in a UDF"))
            }
        };
        let constant_arg = |i: usize| args.get(i).and_then(Node::str_constant);
        Ok(PyVal::Scalar(match method.as_str() {
            "split" => match args.len() {
                0 => self.f.op(format!("df.split {} : !df.list<!df.str>", s.name), Ty::str_list(), loc),
                1 => match constant_arg(0) {
                    Some(sep) if !sep.is_empty() => self.f.op(
                        format!("df.split {} {} : !df.list<!df.str>", s.name, crate::ir::string_literal(&sep)),
                        Ty::str_list(),
                        loc,
                    ),
                    Some(_) => return unsupported(loc, "split(\"\") raises ValueError: empty separator"),
                    None => return unsupported(&args[0].loc, "split() takes a constant separator in a UDF"),
                },
                _ => return unsupported(loc, "split() with maxsplit is not supported in a UDF"),
            },
            "strip" | "lstrip" | "rstrip" => {
                let spaces = match args.len() {
                    0 => "",
                    1 if constant_arg(0).as_deref() == Some(" ") => " spaces",
                    _ => {
                        return unsupported(
                            loc,
                            format!(".{method}(chars) is not supported yet; .{method}() and .{method}(\" \") are"),
                        )
                    }
                };
                let side = match method.as_str() {
                    "strip" => "both",
                    "lstrip" => "left",
                    _ => "right",
                };
                self.f.op(format!("df.strip {} {side}{spaces}", s.name), Ty::Str, loc)
            }
            "lower" | "upper" => {
                arity(0)?;
                self.f.op(format!("df.{method} {}", s.name), Ty::Str, loc)
            }
            "startswith" | "endswith" => {
                arity(1)?;
                self.check_str(&strings[0], &args[0])?;
                let op = if method == "startswith" { "starts_with" } else { "ends_with" };
                self.f.df2(op, &s, &strings[0], Ty::Bool, loc)
            }
            "find" => {
                arity(1)?;
                self.check_str(&strings[0], &args[0])?;
                self.f.df2("find", &s, &strings[0], Ty::Int, loc)
            }
            "replace" => {
                arity(2)?;
                self.check_str(&strings[0], &args[0])?;
                self.check_str(&strings[1], &args[1])?;
                if constant_arg(0).as_deref() == Some("") {
                    return unsupported(&args[0].loc, "replace(\"\", ...) is not supported in a UDF");
                }
                self.f.op(format!("df.replace {}, {}, {}", s.name, strings[0].name, strings[1].name), Ty::Str, loc)
            }
            _ => {
                return unsupported(
                    loc,
                    format!("str.{method}() is not supported in a UDF (split, strip, lstrip, rstrip, lower, upper, startswith, endswith, find, replace are)"),
                )
            }
        }))
    }

    fn check_str(&self, v: &Value, node: &Node) -> Result<()> {
        if v.ty == Ty::Str {
            Ok(())
        } else {
            unsupported(
                &node.loc,
                format!("expected a str argument, found a {}", v.ty.python()),
            )
        }
    }
}

/// The common shape of two, when there is one (`x` and `x | None` meet as
/// `x | None`).
fn merge_shapes(a: &Shape, b: &Shape) -> Option<Shape> {
    match (a, b) {
        _ if a == b => Some(a.clone()),
        (Shape::Nullable(x), y) | (y, Shape::Nullable(x)) => merge_shapes(x, y).map(|s| match s {
            Shape::Nullable(_) => s,
            s => Shape::Nullable(Box::new(s)),
        }),
        (Shape::Tuple(xs), Shape::Tuple(ys)) if xs.len() == ys.len() => xs
            .iter()
            .zip(ys)
            .map(|(x, y)| merge_shapes(x, y))
            .collect::<Option<Vec<_>>>()
            .map(Shape::Tuple),
        _ => None,
    }
}

/// The parameter names of a lambda or def; defaults, `*args` and keyword
/// parameters are refused.
fn parameters(callable: &Node) -> Result<Vec<String>> {
    let args = callable.expect("args");
    if args.child("vararg").is_some()
        || args.child("kwarg").is_some()
        || !args.list("kwonlyargs").is_empty()
    {
        return unsupported(
            &callable.loc,
            "*args, **kwargs and keyword-only parameters are not supported in a UDF",
        );
    }
    if !args.list("defaults").is_empty() {
        return unsupported(
            &callable.loc,
            "parameter defaults are not supported in a UDF",
        );
    }
    // `@udf` / `@F.udf(type)` make a DataFrame's Python UDF of the def:
    // its body is what runs.
    let is_udf = |d: &Node| {
        let d = if d.is("Call") {
            d.expect("func")
        } else {
            d.clone()
        };
        d.name().as_deref() == Some("udf") || d.str("attr").as_deref() == Some("udf")
    };
    if callable.is("FunctionDef") && !callable.list("decorator_list").iter().all(is_udf) {
        return unsupported(
            &callable.loc,
            "decorated functions are not supported as UDFs",
        );
    }
    Ok(args
        .list("posonlyargs")
        .into_iter()
        .chain(args.list("args"))
        .filter_map(|a| a.str("arg"))
        .collect())
}

/// "an int", "a str".
fn article(noun: &str) -> String {
    if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {noun}")
    } else {
        format!("a {noun}")
    }
}

/// An int constant, also negated (`-1`).
/// Whether `index` is `len(list) - 1`, `list` the same code as the list
/// it indexes.
fn is_len_minus_one(index: &Node, list: &Node) -> bool {
    if !index.is("BinOp")
        || index.op_kind("op").as_deref() != Some("Sub")
        || int_constant(&index.expect("right")) != Some(1)
    {
        return false;
    }
    let left = index.expect("left");
    left.is("Call")
        && left.expect("func").name().as_deref() == Some("len")
        && left.list("keywords").is_empty()
        && matches!(left.list("args").as_slice(), [only] if only.same_code(list))
}

pub fn int_constant(node: &Node) -> Option<i64> {
    if node.is("UnaryOp") && node.op_kind("op").as_deref() == Some("USub") {
        return int_constant(&node.expect("operand")).map(|n| -n);
    }
    match node.constant()? {
        Constant::Int(digits) if node.is("Constant") => digits.parse().ok(),
        _ => None,
    }
}

/// How a diagnostic names a node: `x`, "a call", "a dict literal".
pub fn describe(node: &Node) -> String {
    if let Some(name) = node.name() {
        return format!("`{name}`");
    }
    match node.kind.as_str() {
        "Call" => {
            let func = node.expect("func");
            match (func.name(), func.str("attr")) {
                (Some(name), _) => format!("a call of `{name}`"),
                (None, Some(attr)) => format!("a call of .{attr}()"),
                _ => "a call".into(),
            }
        }
        "Attribute" => format!("the attribute .{}", node.str("attr").unwrap_or_default()),
        "Lambda" => "a lambda".into(),
        "Subscript" => "an index or slice".into(),
        "Constant" => "a constant".into(),
        "Tuple" => "a tuple".into(),
        "List" => "a list literal".into(),
        "Dict" => "a dict literal".into(),
        "Set" => "a set literal".into(),
        "IfExp" => "a conditional expression (x if c else y)".into(),
        "BinOp" => "arithmetic".into(),
        "UnaryOp" => "a unary operator".into(),
        "BoolOp" => "an and/or expression".into(),
        "Compare" => "a comparison".into(),
        "JoinedStr" => "an f-string".into(),
        "ListComp" => "a list comprehension".into(),
        "SetComp" => "a set comprehension".into(),
        "DictComp" => "a dict comprehension".into(),
        "GeneratorExp" => "a generator expression".into(),
        "Starred" => "a starred expression".into(),
        "NamedExpr" => "an assignment expression (:=)".into(),
        "Await" => "an await expression".into(),
        "Yield" | "YieldFrom" => "a yield expression".into(),
        // Statements.
        "While" => "a `while` loop".into(),
        "For" | "AsyncFor" => "a `for` loop".into(),
        "Break" => "`break`".into(),
        "Return" => "`return`".into(),
        "Raise" => "`raise`".into(),
        "Try" | "TryStar" => "a `try` statement".into(),
        "With" | "AsyncWith" => "a `with` statement".into(),
        "FunctionDef" | "AsyncFunctionDef" => "a def".into(),
        "ClassDef" => "a class".into(),
        "Import" | "ImportFrom" => "an import".into(),
        "Global" | "Nonlocal" => "a global or nonlocal declaration".into(),
        "Delete" => "`del`".into(),
        "Assert" => "`assert`".into(),
        "Match" => "a `match` statement".into(),
        "Expr" => "an expression statement".into(),
        other => format!("an expression of class {other}"),
    }
}

/// Adds to `names` the names `node` (a statement or expression, nested
/// code included) may change in place (see [`Scope::mutated`]).
fn changed_in_place(node: &Node, names: &mut HashSet<String>) {
    const READS: [&str; 5] = ["get", "keys", "values", "items", "copy"];
    let base = |n: &Node| n.child("value").and_then(|v| v.name());
    match node.kind.as_str() {
        "Call" => {
            let func = node.expect("func");
            if func.is("Attribute") {
                let method = func.str("attr").unwrap_or_default();
                if !READS.contains(&method.as_str()) {
                    names.extend(base(&func));
                }
            }
            if func.str("attr").as_deref() != Some("broadcast") {
                names.extend(node.list("args").iter().filter_map(|a| a.name()));
            }
        }
        "Subscript" | "Attribute" => {
            let stored = node
                .child("ctx")
                .is_some_and(|ctx| ctx.is("Store") || ctx.is("Del"));
            if stored {
                names.extend(base(node));
            }
        }
        _ => {}
    }
    for child in node.children() {
        changed_in_place(&child, names);
    }
}

/// The entries of a dict literal of constants, keys of one type (int or
/// str), a repeated key holding its last value as Python's does.
fn constant_entries(dict: &Node) -> Result<Vec<(Node, Node)>> {
    let keys = dict.list("keys");
    let values = dict.list("values");
    let refuse = |why: &str| unsupported(&dict.loc, format!("a dict read in a UDF {why}"));
    if keys.len() != values.len() {
        return refuse("is written with its entries only (no **d)");
    }
    if keys.is_empty() {
        return refuse("has entries (an empty one always fails with KeyError)");
    }
    let mut entries: Vec<(Node, Node)> = Vec::new();
    let mut key_kind = None;
    for (k, v) in keys.into_iter().zip(values) {
        let key = crate::job::constant_of(&k);
        let kind = match &key {
            Some(Constant::Int(_)) => "int",
            Some(Constant::Str(_)) => "str",
            _ => return refuse("has int or str constants for keys"),
        };
        if *key_kind.get_or_insert(kind) != kind {
            return refuse("has keys of one type (all int or all str)");
        }
        if matches!(crate::job::constant_of(&v), Some(Constant::Other(_)) | None) {
            return refuse("has constants for values");
        }
        match entries
            .iter_mut()
            .find(|(known, _)| crate::job::constant_of(known) == key)
        {
            Some(entry) => entry.1 = v,
            None => entries.push((k, v)),
        }
    }
    Ok(entries)
}

/// Python's name for an expression class, plural.
fn expression_name(kind: &str) -> String {
    match kind {
        "Dict" => "dict literals",
        "Set" => "set literals",
        "List" => "list literals",
        "ListComp" => "list comprehensions",
        "SetComp" => "set comprehensions",
        "DictComp" => "dict comprehensions",
        "GeneratorExp" => "generator expressions",
        "Lambda" => "lambdas inside a UDF",
        "Await" => "await expressions",
        "Yield" | "YieldFrom" => "yield expressions",
        "NamedExpr" => "assignment expressions (:=)",
        "Starred" => "starred expressions",
        "Attribute" => "attributes",
        other => return format!("{other} expressions"),
    }
    .to_string()
}

pub fn statement_name(kind: &str) -> String {
    match kind {
        "While" => "while loops (their trip count cannot be bounded)",
        "With" | "AsyncWith" => "with statements",
        "FunctionDef" | "AsyncFunctionDef" => "nested function definitions",
        "ClassDef" => "class definitions",
        "Import" | "ImportFrom" => "imports",
        "Global" => "global statements",
        "Nonlocal" => "nonlocal statements",
        "Delete" => "del statements",
        "Break" | "Continue" => "break and continue",
        "Match" => "match statements",
        "AsyncFor" => "async for loops",
        other => return format!("{other} statements"),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handlers_catch_subclasses_by_python_hierarchy() {
        let mut scope = Scope::default();
        scope
            .exceptions
            .insert("BadRecord".into(), "ValueError".into());
        scope
            .exceptions
            .insert("Negative".into(), "BadRecord".into());
        let caught = [
            ("LookupError", "KeyError"),
            ("LookupError", "IndexError"),
            ("ArithmeticError", "ZeroDivisionError"),
            ("Exception", "TypeError"),
            ("Exception", "AssertionError"),
            ("BaseException", "ValueError"),
            ("ValueError", "Negative"),
            ("BadRecord", "Negative"),
            ("Exception", "Negative"),
            ("OSError", "IOError"),
            ("IOError", "FileNotFoundError"),
            ("ValueError", "UnicodeError"),
        ];
        for (handler, class) in caught {
            assert!(
                scope.catches(handler, class),
                "except {handler} catches {class}"
            );
        }
        let missed = [
            ("KeyError", "IndexError"),
            ("LookupError", "ValueError"),
            ("ArithmeticError", "TypeError"),
            ("Negative", "BadRecord"),
            ("TypeError", "Negative"),
            ("Exception", "KeyboardInterrupt"),
            ("ValueError", "NoSuchError"),
        ];
        for (handler, class) in missed {
            assert!(
                !scope.catches(handler, class),
                "except {handler} misses {class}"
            );
        }
    }

    #[test]
    fn every_builtin_base_is_in_the_table() {
        for (class, base) in BUILTIN_EXCEPTIONS {
            assert!(
                base.is_empty() || BUILTIN_EXCEPTIONS.iter().any(|(c, _)| c == base),
                "{class}'s base {base}"
            );
        }
    }
}
