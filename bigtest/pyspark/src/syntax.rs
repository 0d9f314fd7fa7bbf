//! The Python syntax tree, from CPython's own parser (`ast_dump.py`, run
//! with the interpreter the caller names): a generic tree of CPython's
//! node classes with their fields and locations. The lowering matches on
//! the class names CPython documents (`ast.Call`, `ast.BinOp`, ...).

use std::{
    io::Write,
    process::{Command, Stdio},
};

use serde_json::Value as Json;

use crate::error::{ImportError, Loc, Result};

const AST_DUMP: &str = include_str!("ast_dump.py");

/// One node of the tree.
#[derive(Clone, Debug)]
pub struct Node {
    /// CPython's class name: `Call`, `Name`, `FunctionDef`.
    pub kind: String,
    pub loc: Loc,
    json: Json,
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

/// Parses `source` with CPython's `ast.parse` run by `python` (isolated:
/// `-I`, no site packages, the file's code never runs).
pub fn parse(python: &str, file: &str, source: &str) -> Result<Node> {
    let fail = |reason: String| ImportError::Python {
        python: python.to_string(),
        reason,
    };
    let mut child = Command::new(python)
        .args(["-I", "-S", "-c", AST_DUMP, file])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(e.to_string()))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let text = source.as_bytes().to_vec();
    // A writer thread: a large file would otherwise fill the pipe while the
    // child's output fills the other one.
    let writer = std::thread::spawn(move || stdin.write_all(&text));
    let output = child.wait_with_output().map_err(|e| fail(e.to_string()))?;
    let _ = writer.join();
    if !output.status.success() {
        return Err(fail(format!(
            "{}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let json: Json = serde_json::from_slice(&output.stdout)
        .map_err(|e| fail(format!("unreadable parser output: {e}")))?;
    if let Some(message) = json.get("error").and_then(Json::as_str) {
        return Err(ImportError::Syntax {
            loc: loc_of(file, &json, None),
            message: message.to_string(),
        });
    }
    Ok(Node::new(file, json, None))
}

fn loc_of(file: &str, json: &Json, parent: Option<&Loc>) -> Loc {
    let number = |key: &str| json.get(key).and_then(Json::as_u64).map(|n| n as usize);
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
    fn new(file: &str, json: Json, parent: Option<&Loc>) -> Node {
        let loc = loc_of(file, &json, parent);
        let kind = json
            .get("_")
            .and_then(Json::as_str)
            .unwrap_or("?")
            .to_string();
        Node { kind, loc, json }
    }

    pub fn is(&self, kind: &str) -> bool {
        self.kind == kind
    }

    /// The child node in `field`, if it holds one (`None` for a missing
    /// optional field such as a bare `return`).
    pub fn child(&self, field: &str) -> Option<Node> {
        let json = self.json.get(field)?;
        json.get("_")
            .map(|_| Node::new(&self.loc.file, json.clone(), Some(&self.loc)))
    }

    /// The child node in `field`; the tree always has one there.
    pub fn expect(&self, field: &str) -> Node {
        self.child(field).unwrap_or_else(|| Node {
            kind: "?".into(),
            loc: self.loc.clone(),
            json: Json::Null,
        })
    }

    /// The nodes of a list field (`body`, `args`).
    pub fn list(&self, field: &str) -> Vec<Node> {
        self.json
            .get(field)
            .and_then(Json::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter(|item| item.get("_").is_some())
                    .map(|item| Node::new(&self.loc.file, item.clone(), Some(&self.loc)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A string field (`id`, `attr`, `arg`, `name`).
    pub fn str(&self, field: &str) -> Option<String> {
        self.json.get(field)?.as_str().map(String::from)
    }

    /// Where an `Attribute`'s name starts (`map` of `rdd.map`); its own
    /// location is where the whole expression starts.
    pub fn attr_loc(&self) -> Loc {
        let number = |key: &str| {
            self.json
                .get(key)
                .and_then(Json::as_u64)
                .map(|n| n as usize)
        };
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
        self.json.get(field)?.as_i64()
    }

    /// The value of an `ast.Constant`.
    pub fn constant(&self) -> Option<Constant> {
        let value = self.json.get("value")?;
        let text = value.get("v")?.as_str()?.to_string();
        Some(match value.get("k")?.as_str()? {
            "int" => Constant::Int(text),
            "float" => Constant::Float(text.parse().ok()?),
            "str" => Constant::Str(text),
            "bool" => Constant::Bool(text == "True"),
            "none" => Constant::None,
            _ => Constant::Other(text),
        })
    }

    /// This code with every read of a name in `names` (a `Name` in `Load`
    /// context) replaced by that name's code: a helper's body with its
    /// arguments in place of its parameters.
    pub fn substitute(&self, names: &std::collections::HashMap<String, Node>) -> Node {
        fn walk(json: &Json, names: &std::collections::HashMap<String, Node>) -> Json {
            match json {
                Json::Object(fields) => {
                    let is_load = |f: &serde_json::Map<String, Json>| {
                        f.get("ctx").and_then(|c| c.get("_")).and_then(Json::as_str) == Some("Load")
                    };
                    if fields.get("_").and_then(Json::as_str) == Some("Name") && is_load(fields) {
                        let id = fields.get("id").and_then(Json::as_str).unwrap_or_default();
                        if let Some(code) = names.get(id) {
                            return code.json.clone();
                        }
                    }
                    Json::Object(
                        fields
                            .iter()
                            .map(|(k, v)| (k.clone(), walk(v, names)))
                            .collect(),
                    )
                }
                Json::Array(items) => Json::Array(items.iter().map(|i| walk(i, names)).collect()),
                other => other.clone(),
            }
        }
        Node {
            kind: self.kind.clone(),
            loc: self.loc.clone(),
            json: walk(&self.json, names),
        }
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

    /// Every child node, in field order.
    pub fn children(&self) -> Vec<Node> {
        let Some(fields) = self.json.as_object() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for value in fields.values() {
            let items: Vec<&Json> = match value {
                Json::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            for item in items {
                if item.get("_").is_some() {
                    out.push(Node::new(&self.loc.file, item.clone(), Some(&self.loc)));
                }
            }
        }
        out
    }

    /// The operator classes of a `Compare` node's `ops`.
    pub fn compare_ops(&self) -> Vec<String> {
        self.list("ops").into_iter().map(|n| n.kind).collect()
    }
}
