//! The Python syntax tree, from CPython's own parser (`ast_dump.py`, run
//! with the interpreter the caller names): a generic tree of CPython's
//! node classes with their fields and locations. The lowering matches on
//! the class names CPython documents (`ast.Call`, `ast.BinOp`, ...).
//!
//! The tree is held compactly and shared: a node's fields are a slice of
//! (interned name, value) pairs behind an `Rc`, so taking a child or
//! cloning a node copies nothing. `serde_json::Value` cost about 1,400
//! bytes per byte of source, mostly maps of owned keys and the subtrees
//! each child access cloned.

use std::{
    cell::RefCell,
    collections::HashSet,
    io::{BufReader, Read, Write},
    process::{Command, Stdio},
    rc::Rc,
};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::{ImportError, Loc, Result};

const AST_DUMP: &str = include_str!("ast_dump.py");

/// The nesting limit's environment variable and default: the same as the
/// MLIR tools' (`coco_dialects::nesting`, which this crate does not link),
/// so one setting governs the whole pipeline.
pub const MAX_NESTING_VAR: &str = "COCO_MAX_NESTING";
pub const DEFAULT_MAX_NESTING: usize = 1000;

/// The largest source the front end reads when `COCO_MAX_PYSPARK_BYTES` is
/// not set. Measured (`/usr/bin/time -v coco-bigtest import`, docs/pyspark.md
/// "The parser"): about 200 bytes of memory and 8 s per MB of source on a
/// quiet machine, CPython's own tree included (3.4 MB of 70,000 statements:
/// 26 s, 910 MB). 1 MiB, some twenty times the largest public job we read,
/// keeps a refusal or an answer within seconds, and memory near 200 MB.
pub const DEFAULT_MAX_SOURCE_BYTES: usize = 1 << 20;
pub const MAX_SOURCE_BYTES_VAR: &str = "COCO_MAX_PYSPARK_BYTES";

/// One value of the tree: what JSON holds, with shared lists and objects.
#[derive(Clone, Debug)]
enum Val {
    /// null, a bool or a non-integer number: ast_dump.py writes none that
    /// the front end reads.
    Other,
    Int(i64),
    Str(Rc<str>),
    List(Rc<[Val]>),
    Obj(Rc<Obj>),
}

/// A node's fields, sorted by name.
#[derive(Debug, Default)]
struct Obj {
    fields: Box<[(Rc<str>, Val)]>,
}

impl Obj {
    fn get(&self, key: &str) -> Option<&Val> {
        self.fields
            .iter()
            .find(|(k, _)| &**k == key)
            .map(|(_, v)| v)
    }

    fn str(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    fn int(&self, key: &str) -> Option<i64> {
        match self.get(key)? {
            Val::Int(n) => Some(*n),
            _ => None,
        }
    }

    fn obj(&self, key: &str) -> Option<&Rc<Obj>> {
        match self.get(key)? {
            Val::Obj(o) => Some(o),
            _ => None,
        }
    }

    /// Whether this object is a node (has a class name).
    fn is_node(&self) -> bool {
        self.get("_").is_some()
    }
}

thread_local! {
    /// Field names and short strings (class names, `Load`, identifiers)
    /// repeat throughout a tree: one allocation each.
    static INTERNED: RefCell<HashSet<Rc<str>>> = RefCell::new(HashSet::new());
}

fn intern(text: &str) -> Rc<str> {
    if text.len() > 32 {
        return Rc::from(text);
    }
    INTERNED.with(|set| {
        let mut set = set.borrow_mut();
        if let Some(found) = set.get(text) {
            return found.clone();
        }
        let shared: Rc<str> = Rc::from(text);
        set.insert(shared.clone());
        shared
    })
}

impl<'de> Deserialize<'de> for Val {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Val, D::Error> {
        struct ValVisitor;
        impl<'de> Visitor<'de> for ValVisitor {
            type Value = Val;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> std::result::Result<Val, E> {
                Ok(Val::Other)
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<Val, E> {
                Ok(Val::Other)
            }
            fn visit_i64<E>(self, n: i64) -> std::result::Result<Val, E> {
                Ok(Val::Int(n))
            }
            fn visit_u64<E>(self, n: u64) -> std::result::Result<Val, E> {
                Ok(i64::try_from(n).map_or(Val::Other, Val::Int))
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<Val, E> {
                Ok(Val::Other)
            }
            fn visit_str<E>(self, s: &str) -> std::result::Result<Val, E> {
                Ok(Val::Str(intern(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Val, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Val>()? {
                    items.push(item);
                }
                Ok(Val::List(items.into()))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Val, A::Error> {
                let mut fields = Vec::new();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let value = map.next_value::<Val>()?;
                    fields.push((intern(&key), value));
                }
                // By name, as serde_json's map held them: the order the
                // lowering's walks ([`Node::children`]) were written against.
                fields.sort_by(|a: &(Rc<str>, Val), b| a.0.cmp(&b.0));
                Ok(Val::Obj(Rc::new(Obj {
                    fields: fields.into(),
                })))
            }
        }
        deserializer.deserialize_any(ValVisitor)
    }
}

/// One node of the tree.
#[derive(Clone, Debug)]
pub struct Node {
    /// CPython's class name: `Call`, `Name`, `FunctionDef`.
    pub kind: String,
    pub loc: Loc,
    obj: Rc<Obj>,
}

/// A constant's value, as `ast.Constant` holds it.
#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    /// Decimal digits; Python ints are unbounded.
    Int(String),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    /// bytes, complex, Ellipsis: named for the error.
    Other(String),
}

/// A parsed file: its tree and its text as CPython decoded it.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub module: Node,
    /// The source as CPython read it (a BOM dropped, a declared encoding
    /// decoded): what locations count lines and columns in.
    pub text: String,
}

/// The nesting limit: `COCO_MAX_NESTING` if set to a positive integer,
/// otherwise [`DEFAULT_MAX_NESTING`].
pub fn max_nesting() -> std::result::Result<usize, String> {
    match std::env::var(MAX_NESTING_VAR) {
        Err(_) => Ok(DEFAULT_MAX_NESTING),
        Ok(text) => match text.trim().parse::<usize>() {
            Ok(limit) if limit > 0 => Ok(limit),
            _ => Err(format!(
                "{MAX_NESTING_VAR} must be a positive integer, found '{text}'"
            )),
        },
    }
}

/// The source size limit: `COCO_MAX_PYSPARK_BYTES` if set, otherwise
/// [`DEFAULT_MAX_SOURCE_BYTES`].
pub fn max_source_bytes() -> std::result::Result<usize, String> {
    match std::env::var(MAX_SOURCE_BYTES_VAR) {
        Err(_) => Ok(DEFAULT_MAX_SOURCE_BYTES),
        Ok(text) => text.trim().parse::<usize>().map_err(|_| {
            format!("{MAX_SOURCE_BYTES_VAR} must be a number of bytes, found '{text}'")
        }),
    }
}

/// Parses `source` (the file's bytes) with CPython's `ast.parse` run by
/// `python` (isolated: `-I`, no site packages, the file's code never runs).
pub fn parse(python: &str, file: &str, source: &[u8]) -> Result<Parsed> {
    let limits = max_nesting().and_then(|n| Ok((n, max_source_bytes()?)));
    let (nesting, max_bytes) = limits.map_err(|message| ImportError::Unsupported {
        loc: Loc {
            file: file.to_string(),
            line: 1,
            column: 1,
        },
        message,
    })?;
    parse_with(python, file, source, nesting, max_bytes)
}

/// [`parse`] under the given nesting and source size limits.
pub fn parse_with(
    python: &str,
    file: &str,
    source: &[u8],
    nesting: usize,
    max_bytes: usize,
) -> Result<Parsed> {
    let at_start = Loc {
        file: file.to_string(),
        line: 1,
        column: 1,
    };
    // Checked before CPython runs: its tree and ours grow with the source
    // (docs/pyspark.md, "The parser").
    if source.len() > max_bytes {
        return Err(ImportError::Unsupported {
            loc: at_start,
            message: format!(
                "the file is {} bytes, more than the front end reads ({max_bytes} bytes: \
                 reading a job takes about {MEMORY_PER_SOURCE_BYTE} bytes of memory per byte of \
                 source); set {MAX_SOURCE_BYTES_VAR} to change the limit",
                source.len()
            ),
        });
    }
    let fail = |reason: String| ImportError::Python {
        python: python.to_string(),
        reason,
    };
    let mut child = Command::new(python)
        .args(["-I", "-S", "-c", AST_DUMP, file, &nesting.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(e.to_string()))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let text = source.to_vec();
    // Writer and stderr threads: a large file would otherwise fill one pipe
    // while the child waits on another.
    let writer = std::thread::spawn(move || stdin.write_all(&text));
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    // Read as it arrives: the JSON text is never held whole.
    let mut output = BufReader::new(stdout);
    let mut reader = serde_json::Deserializer::from_reader(&mut output);
    // The tree is as deep as the code (bounded by the nesting limit in
    // ast_dump.py), deeper than serde_json's default 128 levels; the tools
    // run on a 256 MiB stack.
    reader.disable_recursion_limit();
    let read = Val::deserialize(&mut reader).and_then(|v| reader.end().map(|_| v));
    drop(reader);
    INTERNED.with(|set| set.borrow_mut().clear());
    // Whatever is left (after unreadable output): the child must not block
    // on a full pipe while we wait for it.
    let _ = std::io::copy(&mut output, &mut std::io::sink());
    let status = child.wait().map_err(|e| fail(e.to_string()))?;
    let _ = writer.join();
    let stderr = errors.join().unwrap_or_default();
    if !status.success() {
        return Err(fail(format!(
            "{}: {}",
            status,
            String::from_utf8_lossy(&stderr).trim()
        )));
    }
    let top = match read {
        Ok(Val::Obj(top)) => top,
        Ok(_) => return Err(fail("unreadable parser output: not an object".into())),
        Err(e) => return Err(fail(format!("unreadable parser output: {e}"))),
    };
    if let Some(message) = top.str("error") {
        return Err(ImportError::Syntax {
            loc: loc_of(file, &top, None),
            message: message.to_string(),
        });
    }
    if let Some(message) = top.str("unsupported") {
        return Err(ImportError::Unsupported {
            loc: loc_of(file, &top, None),
            message: message.to_string(),
        });
    }
    let Some(tree) = top.obj("tree") else {
        return Err(fail("unreadable parser output: no tree".into()));
    };
    // ast.parse accepted the bytes, so without a declared encoding they
    // are UTF-8 (a BOM makes the parser send the text).
    let text = match top.str("text") {
        Some(text) => text.to_string(),
        None => String::from_utf8_lossy(source).into_owned(),
    };
    Ok(Parsed {
        module: Node::new(file, tree.clone(), None),
        text,
    })
}

/// Peak memory per byte of source, as measured (docs/pyspark.md, "The
/// parser": 1.3 MB of source, 260 MB; 5.2 MB, 1.0 GB; CPython's tree in
/// the parser process is the larger part).
pub const MEMORY_PER_SOURCE_BYTE: usize = 200;

fn loc_of(file: &str, obj: &Obj, parent: Option<&Loc>) -> Loc {
    let number = |key: &str| obj.int(key).and_then(|n| usize::try_from(n).ok());
    match (number("l"), number("c")) {
        (Some(line), Some(column)) => Loc {
            file: file.to_string(),
            line,
            column,
        },
        _ => parent.cloned().unwrap_or(Loc {
            file: file.to_string(),
            line: 1,
            column: 1,
        }),
    }
}

impl Node {
    fn new(file: &str, obj: Rc<Obj>, parent: Option<&Loc>) -> Node {
        let loc = loc_of(file, &obj, parent);
        let kind = obj.str("_").unwrap_or("?").to_string();
        Node { kind, loc, obj }
    }

    fn of(&self, obj: &Rc<Obj>) -> Node {
        Node::new(&self.loc.file, obj.clone(), Some(&self.loc))
    }

    pub fn is(&self, kind: &str) -> bool {
        self.kind == kind
    }

    /// The child node in `field`, if it holds one (`None` for a missing
    /// optional field such as a bare `return`).
    pub fn child(&self, field: &str) -> Option<Node> {
        let obj = self.obj.obj(field)?;
        obj.is_node().then(|| self.of(obj))
    }

    /// The child node in `field`; the tree always has one there.
    pub fn expect(&self, field: &str) -> Node {
        self.child(field).unwrap_or_else(|| Node {
            kind: "?".into(),
            loc: self.loc.clone(),
            obj: Rc::default(),
        })
    }

    /// The nodes of a list field (`body`, `args`).
    pub fn list(&self, field: &str) -> Vec<Node> {
        match self.obj.get(field) {
            Some(Val::List(items)) => items
                .iter()
                .filter_map(|item| match item {
                    Val::Obj(obj) if obj.is_node() => Some(self.of(obj)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A string field (`id`, `attr`, `arg`, `name`).
    pub fn str(&self, field: &str) -> Option<String> {
        self.obj.str(field).map(String::from)
    }

    /// Where an `Attribute`'s name starts (`map` of `rdd.map`); its own
    /// location is where the whole expression starts.
    pub fn attr_loc(&self) -> Loc {
        let number = |key: &str| self.obj.int(key).and_then(|n| usize::try_from(n).ok());
        match (number("al"), number("ac")) {
            (Some(line), Some(column)) => Loc {
                file: self.loc.file.clone(),
                line,
                column,
            },
            _ => self.loc.clone(),
        }
    }

    /// An integer field (`conversion` of a `FormattedValue`).
    pub fn json_int(&self, field: &str) -> Option<i64> {
        self.obj.int(field)
    }

    /// The value of an `ast.Constant`.
    pub fn constant(&self) -> Option<Constant> {
        let value = self.obj.obj("value")?;
        let text = value.str("v")?.to_string();
        Some(match value.str("k")? {
            "int" => Constant::Int(text),
            "float" => Constant::Float(text.parse().ok()?),
            "str" => Constant::Str(text),
            "bool" => Constant::Bool(text == "True"),
            "none" => Constant::None,
            _ => Constant::Other(text),
        })
    }

    /// This code with each node for which `replacement` gives code
    /// replaced by it (outermost first; a replacement is not walked).
    pub fn replace_with(&self, replacement: &dyn Fn(&Node) -> Option<Node>) -> Node {
        fn walk(parent: &Node, val: &Val, replacement: &dyn Fn(&Node) -> Option<Node>) -> Val {
            match val {
                Val::Obj(obj) if obj.is_node() => {
                    Val::Obj(parent.of(obj).replace_with(replacement).obj)
                }
                Val::Obj(obj) => Val::Obj(obj.clone()),
                Val::List(items) => {
                    Val::List(items.iter().map(|i| walk(parent, i, replacement)).collect())
                }
                other => other.clone(),
            }
        }
        if let Some(code) = replacement(self) {
            return code;
        }
        let obj = Rc::new(Obj {
            fields: self
                .obj
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), walk(self, v, replacement)))
                .collect(),
        });
        Node {
            kind: self.kind.clone(),
            loc: self.loc.clone(),
            obj,
        }
    }

    /// This code with every read of a name in `names` (a `Name` in `Load`
    /// context) replaced by that name's code: a helper's body with its
    /// arguments in place of its parameters.
    pub fn substitute(&self, names: &std::collections::HashMap<String, Node>) -> Node {
        fn walk_obj(obj: &Rc<Obj>, names: &std::collections::HashMap<String, Node>) -> Rc<Obj> {
            let is_load = obj.obj("ctx").and_then(|c| c.str("_")) == Some("Load");
            if obj.str("_") == Some("Name") && is_load {
                if let Some(code) = names.get(obj.str("id").unwrap_or_default()) {
                    return code.obj.clone();
                }
            }
            Rc::new(Obj {
                fields: obj
                    .fields
                    .iter()
                    .map(|(k, v)| (k.clone(), walk(v, names)))
                    .collect(),
            })
        }
        fn walk(val: &Val, names: &std::collections::HashMap<String, Node>) -> Val {
            match val {
                Val::Obj(obj) => Val::Obj(walk_obj(obj, names)),
                Val::List(items) => Val::List(items.iter().map(|i| walk(i, names)).collect()),
                other => other.clone(),
            }
        }
        // The node itself may be a name replaced: its class is the code's.
        let obj = walk_obj(&self.obj, names);
        Node {
            kind: obj.str("_").unwrap_or(&self.kind).to_string(),
            loc: self.loc.clone(),
            obj,
        }
    }

    /// Whether `self` and `other` are the same code, wherever each is
    /// written: the same classes, names and constants (`xs` in
    /// `xs[len(xs) - 1]`).
    pub fn same_code(&self, other: &Node) -> bool {
        fn same(a: &Val, b: &Val) -> bool {
            match (a, b) {
                (Val::Int(x), Val::Int(y)) => x == y,
                (Val::Str(x), Val::Str(y)) => x == y,
                (Val::List(x), Val::List(y)) => {
                    x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| same(a, b))
                }
                (Val::Obj(x), Val::Obj(y)) => {
                    let located = |obj: &Obj| -> Vec<(Rc<str>, Val)> {
                        obj.fields
                            .iter()
                            .filter(|(k, _)| !matches!(&**k, "l" | "c" | "al" | "ac"))
                            .cloned()
                            .collect()
                    };
                    let (x, y) = (located(x), located(y));
                    x.len() == y.len()
                        && x.iter()
                            .zip(y.iter())
                            .all(|((k, a), (l, b))| k == l && same(a, b))
                }
                (Val::Other, Val::Other) => true,
                _ => false,
            }
        }
        self.kind == other.kind && same(&Val::Obj(self.obj.clone()), &Val::Obj(other.obj.clone()))
    }

    /// `Name` nodes' identifier.
    pub fn name(&self) -> Option<String> {
        if self.is("Name") {
            self.str("id")
        } else {
            None
        }
    }

    /// A string constant's text.
    pub fn str_constant(&self) -> Option<String> {
        match self.constant()? {
            Constant::Str(s) if self.is("Constant") => Some(s),
            _ => None,
        }
    }

    /// The operator class of `BinOp`/`UnaryOp`/`BoolOp`/`Compare` nodes'
    /// `field` (`Add`, `FloorDiv`, `Not`, `And`, `Lt`).
    pub fn op_kind(&self, field: &str) -> Option<String> {
        self.child(field).map(|n| n.kind)
    }

    /// Every child node, by field name.
    pub fn children(&self) -> Vec<Node> {
        let mut out = Vec::new();
        for (_, value) in self.obj.fields.iter() {
            let items: &[Val] = match value {
                Val::List(items) => items,
                other => std::slice::from_ref(other),
            };
            for item in items {
                if let Val::Obj(obj) = item {
                    if obj.is_node() {
                        out.push(self.of(obj));
                    }
                }
            }
        }
        out
    }

    /// The operator classes of a `Compare` node's `ops`.
    pub fn compare_ops(&self) -> Vec<String> {
        self.list("ops").into_iter().map(|n| n.kind).collect()
    }

    /// Code the front end writes itself, for a construct the job spells
    /// another way (`reduceByKey(add)` is read as `lambda _0, _1: _0 + _1`):
    /// a node of class `kind` at `loc`, so diagnostics point at the job's
    /// own text.
    pub fn make(kind: &str, loc: &Loc, fields: Vec<(&str, Field)>) -> Node {
        let mut all: Vec<(Rc<str>, Val)> = vec![
            (Rc::from("_"), Val::Str(Rc::from(kind))),
            (Rc::from("l"), Val::Int(loc.line as i64)),
            (Rc::from("c"), Val::Int(loc.column as i64)),
        ];
        for (name, field) in fields {
            let value = match field {
                Field::Node(node) => Val::Obj(node.obj),
                Field::List(nodes) => {
                    Val::List(nodes.into_iter().map(|n| Val::Obj(n.obj)).collect())
                }
                Field::Str(text) => Val::Str(Rc::from(text.as_str())),
            };
            all.push((Rc::from(name), value));
        }
        all.sort_by(|a, b| a.0.cmp(&b.0));
        Node::new(
            &loc.file,
            Rc::new(Obj {
                fields: all.into_boxed_slice(),
            }),
            None,
        )
    }

    /// A read of the variable `id` (`ast.Name` in `Load` context).
    pub fn make_name(id: &str, loc: &Loc) -> Node {
        Node::make(
            "Name",
            loc,
            vec![
                ("id", Field::Str(id.to_string())),
                ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
            ],
        )
    }

    /// `lambda params: body`.
    pub fn make_lambda(params: &[String], body: Node, loc: &Loc) -> Node {
        let args = params
            .iter()
            .map(|p| Node::make("arg", loc, vec![("arg", Field::Str(p.clone()))]))
            .collect();
        Node::make(
            "Lambda",
            loc,
            vec![
                (
                    "args",
                    Field::Node(Node::make(
                        "arguments",
                        loc,
                        vec![("args", Field::List(args))],
                    )),
                ),
                ("body", Field::Node(body)),
            ],
        )
    }

    /// `def name(params): body`, undecorated.
    pub fn make_def(name: &str, params: &[String], body: Vec<Node>, loc: &Loc) -> Node {
        let args = params
            .iter()
            .map(|p| Node::make("arg", loc, vec![("arg", Field::Str(p.clone()))]))
            .collect();
        Node::make(
            "FunctionDef",
            loc,
            vec![
                ("name", Field::Str(name.to_string())),
                (
                    "args",
                    Field::Node(Node::make(
                        "arguments",
                        loc,
                        vec![("args", Field::List(args))],
                    )),
                ),
                ("body", Field::List(body)),
                ("decorator_list", Field::List(Vec::new())),
            ],
        )
    }

    /// `f(args)`, `f` a name (a builtin, a def of the file).
    pub fn make_call(f: &str, args: Vec<Node>, loc: &Loc) -> Node {
        Node::make(
            "Call",
            loc,
            vec![
                ("func", Field::Node(Node::make_name(f, loc))),
                ("args", Field::List(args)),
                ("keywords", Field::List(Vec::new())),
            ],
        )
    }

    /// `left op right`, `op` an `ast` operator class (`Add`).
    pub fn make_binop(left: Node, op: &str, right: Node, loc: &Loc) -> Node {
        Node::make(
            "BinOp",
            loc,
            vec![
                ("left", Field::Node(left)),
                ("op", Field::Node(Node::make(op, loc, Vec::new()))),
                ("right", Field::Node(right)),
            ],
        )
    }

    /// `(items...)`.
    pub fn make_tuple(items: Vec<Node>, loc: &Loc) -> Node {
        Node::make(
            "Tuple",
            loc,
            vec![
                ("elts", Field::List(items)),
                ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
            ],
        )
    }

    /// `value[index]`, an integer index.
    pub fn make_subscript(value: Node, index: i64, loc: &Loc) -> Node {
        Node::make(
            "Subscript",
            loc,
            vec![
                ("value", Field::Node(value)),
                ("slice", Field::Node(Node::make_int(index, loc))),
                ("ctx", Field::Node(Node::make("Load", loc, Vec::new()))),
            ],
        )
    }

    /// The names of a lambda's or def's positional parameters.
    pub fn param_names(&self) -> Vec<String> {
        self.expect("args")
            .list("args")
            .iter()
            .filter_map(|a| a.str("arg"))
            .collect()
    }

    /// An integer constant.
    pub fn make_int(value: i64, loc: &Loc) -> Node {
        Node::make_constant("int", &value.to_string(), loc)
    }

    /// A string constant.
    pub fn make_str(text: &str, loc: &Loc) -> Node {
        Node::make_constant("str", text, loc)
    }

    /// An `ast.Constant` as ast_dump.py writes it: its value a plain object
    /// (`k`ind and `v`alue), not a node.
    pub(crate) fn make_constant(kind: &str, text: &str, loc: &Loc) -> Node {
        let value = Rc::new(Obj {
            fields: Box::new([
                (Rc::from("k"), Val::Str(Rc::from(kind))),
                (Rc::from("v"), Val::Str(Rc::from(text))),
            ]),
        });
        let node = Node::make("Constant", loc, Vec::new());
        let mut fields = node.obj.fields.to_vec();
        fields.push((Rc::from("value"), Val::Obj(value)));
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        Node::new(
            &loc.file,
            Rc::new(Obj {
                fields: fields.into_boxed_slice(),
            }),
            None,
        )
    }
}

/// A field of a node the front end makes ([`Node::make`]).
pub enum Field {
    Node(Node),
    List(Vec<Node>),
    Str(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python() -> String {
        std::env::var("COCO_PYTHON").unwrap_or_else(|_| "python3".into())
    }

    #[test]
    fn a_source_over_the_size_limit_is_refused_before_python_runs() {
        // No Python at that path: the limit is checked first.
        let err = parse_with("/nonexistent/python", "job.py", &[b'#'; 101], 1000, 100)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "job.py:1:1: the file is 101 bytes, more than the front end reads (100 bytes"
            ) && err.contains("set COCO_MAX_PYSPARK_BYTES"),
            "{err}"
        );
    }

    #[test]
    fn a_tree_deeper_than_serde_jsons_default_limit_is_read() {
        // 300 terms: a BinOp chain about 600 JSON levels deep.
        let terms: Vec<String> = (0..300).map(|i| format!("x{i}")).collect();
        let source = format!("y = {}\n", terms.join(" + "));
        let parsed = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let parsed = parse_with(&python(), "job.py", source.as_bytes(), 1000, 1 << 20);
                parsed.map(|p| p.module.list("body")[0].expect("value").kind)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(parsed.unwrap(), "BinOp");
    }

    #[test]
    fn a_none_constant_keeps_its_value() {
        let parsed = parse_with(&python(), "job.py", b"x = None\n", 1000, 1 << 20).unwrap();
        let value = parsed.module.list("body")[0].expect("value");
        assert_eq!(value.constant(), Some(Constant::None));
    }

    #[test]
    fn children_come_by_field_name() {
        let parsed = parse_with(
            &python(),
            "job.py",
            b"if a:\n    b\nelse:\n    c\n",
            1000,
            1 << 20,
        )
        .unwrap();
        let kinds: Vec<String> = parsed.module.list("body")[0]
            .children()
            .into_iter()
            .map(|n| n.kind)
            .collect();
        // body, orelse, test: the order serde_json's map gave.
        assert_eq!(kinds, ["Expr", "Expr", "Name"]);
    }
}
