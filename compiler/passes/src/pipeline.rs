//! Textual pass pipelines, `builtin.module(coco-verify, func.func(cse))`.
//!
//! The MLIR 19 C API cannot register passes written in Rust under a name, so
//! MLIR's own parser would not know `coco-*` arguments. We parse the pipeline
//! here, create coco passes from the registry and hand every other element
//! (`canonicalize{max-iterations=2}`) to `mlirOpPassManagerAddPipeline`, which
//! reports unknown passes and bad options with MLIR's own messages.
//!
//! MLIR stops the process when a pass is added under an op it does not run
//! on (`func.func(coco-split)`), so every pass's anchor is checked first.

use std::ffi::c_void;

use melior::pass::OperationPassManager;
use mlir_sys::{mlirOpPassManagerAddPipeline, MlirStringRef};

use coco_dialects::upstream::pass_anchors;

use crate::{options::Options, registry::find_coco_pass, Error, Result};

/// The op the pass manager of [`add_to`] runs on, and every coco pass.
const MODULE: &str = "builtin.module";

/// The anchor of a pass manager that runs on every op.
const ANY: &str = "any";

#[derive(Clone, Debug, PartialEq)]
pub enum Element {
    /// A pass with its option text (between the braces, if any).
    Pass {
        name: String,
        options: Option<String>,
    },
    /// `anchor(elements)`: elements run on every `anchor` op.
    Nest {
        anchor: String,
        elements: Vec<Element>,
    },
}

impl Element {
    /// The element in MLIR's textual form.
    pub fn text(&self) -> String {
        match self {
            Element::Pass {
                name,
                options: Some(options),
            } => format!("{name}{{{options}}}"),
            Element::Pass {
                name,
                options: None,
            } => name.clone(),
            Element::Nest { anchor, elements } => {
                let inner: Vec<String> = elements.iter().map(Element::text).collect();
                format!("{anchor}({})", inner.join(","))
            }
        }
    }
}

/// Parses a pipeline. A top-level `builtin.module(...)` is unwrapped: the
/// elements returned run on the module.
pub fn parse(text: &str) -> Result<Vec<Element>> {
    let mut parser = Parser {
        text,
        chars: text.char_indices().collect(),
        pos: 0,
    };
    let elements = parser.list()?;
    parser.skip_space();
    if parser.pos < parser.chars.len() {
        return Err(parser.error("unexpected text after the pipeline"));
    }
    match elements.as_slice() {
        [Element::Nest { anchor, elements }] if anchor == "builtin.module" => Ok(elements.clone()),
        _ => Ok(elements),
    }
}

/// Adds `elements` to `manager` (which runs on the module).
pub fn add_to(manager: &OperationPassManager, elements: &[Element], pipeline: &str) -> Result<()> {
    add_under(manager, MODULE, elements, pipeline)
}

/// Adds `elements` to `manager`, which runs on `anchor` ops.
fn add_under(
    manager: &OperationPassManager,
    anchor: &str,
    elements: &[Element],
    pipeline: &str,
) -> Result<()> {
    for element in elements {
        match element {
            Element::Nest {
                anchor: inner,
                elements,
            } => {
                add_under(&manager.nested_under(inner), inner, elements, pipeline)?;
            }
            Element::Pass { name, options } => match find_coco_pass(name) {
                Some(info) => {
                    let options =
                        Options::parse(name, options.as_deref().unwrap_or(""), info.options)?;
                    let pass = (info.create)(&options)?;
                    check_anchor(name, Some(MODULE), anchor, pipeline)?;
                    manager.add_pass(pass);
                }
                None => {
                    let text = element.text();
                    // A pipeline MLIR cannot parse fails below, with its message.
                    for pass in pass_anchors(&text).unwrap_or_default() {
                        check_anchor(&pass.argument, pass.op.as_deref(), anchor, pipeline)?;
                    }
                    add_upstream(manager, &text, pipeline)?;
                }
            },
        }
    }
    Ok(())
}

/// Whether a pass that runs on `op` ops (`None`: any op) may be added to a
/// pass manager on `anchor` ops.
fn check_anchor(pass: &str, op: Option<&str>, anchor: &str, pipeline: &str) -> Result<()> {
    match op {
        Some(op) if op != anchor && anchor != ANY => Err(Error::Pipeline {
            pipeline: pipeline.to_string(),
            message: format!(
                "pass '{pass}' runs on '{op}' ops, not on '{anchor}'; nest it as {op}({pass})"
            ),
        }),
        _ => Ok(()),
    }
}

fn add_upstream(manager: &OperationPassManager, element: &str, pipeline: &str) -> Result<()> {
    unsafe extern "C" fn append(message: MlirStringRef, user_data: *mut c_void) {
        let buffer = &mut *(user_data as *mut String);
        let bytes = std::slice::from_raw_parts(message.data.cast::<u8>(), message.length);
        buffer.push_str(&String::from_utf8_lossy(bytes));
    }
    let mut message = String::new();
    let text = MlirStringRef {
        data: element.as_ptr().cast(),
        length: element.len(),
    };
    // SAFETY: `element` and `message` outlive the call; the callback only
    // appends to `message`.
    let result = unsafe {
        mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            text,
            Some(append),
            &mut message as *mut String as *mut c_void,
        )
    };
    if result.value == 0 {
        return Err(Error::Pipeline {
            pipeline: pipeline.to_string(),
            message: tidy(&message, element),
        });
    }
    Ok(())
}

/// MLIR's parser reports errors with a caret line; keep the message line.
fn tidy(message: &str, element: &str) -> String {
    let first = message
        .lines()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .unwrap_or("could not parse")
        .trim_start_matches("MLIR Textual PassPipeline Parser:")
        .trim();
    // Drop the `1:1: error:` position, which refers to the element text.
    let first = match first.split_once(" error: ") {
        Some((position, rest)) if position.chars().all(|c| c.is_ascii_digit() || c == ':') => rest,
        _ => first.trim_start_matches("error:").trim(),
    }
    .to_string();
    if first.contains(element) {
        first
    } else {
        format!("{first} (in '{element}')")
    }
}

/// Every pass of `elements` with the anchors it is nested under, in order.
/// Used to run and print a pipeline one pass at a time.
pub fn leaves(elements: &[Element]) -> Vec<(Vec<String>, Element)> {
    let mut out = Vec::new();
    fn walk(elements: &[Element], path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Element)>) {
        for element in elements {
            match element {
                Element::Nest { anchor, elements } => {
                    path.push(anchor.clone());
                    walk(elements, path, out);
                    path.pop();
                }
                pass => out.push((path.clone(), pass.clone())),
            }
        }
    }
    walk(elements, &mut Vec::new(), &mut out);
    out
}

struct Parser<'t> {
    text: &'t str,
    chars: Vec<(usize, char)>,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|&(_, c)| c)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> Error {
        let offset = self
            .chars
            .get(self.pos)
            .map_or(self.text.len(), |&(i, _)| i);
        Error::Pipeline {
            pipeline: self.text.to_string(),
            message: format!("{what} at offset {offset}"),
        }
    }

    /// Comma-separated elements up to the end or a closing parenthesis.
    fn list(&mut self) -> Result<Vec<Element>> {
        let mut elements = Vec::new();
        loop {
            self.skip_space();
            if matches!(self.peek(), None | Some(')')) {
                return Ok(elements);
            }
            elements.push(self.element()?);
            self.skip_space();
            match self.peek() {
                Some(',') => self.pos += 1,
                None | Some(')') => return Ok(elements),
                Some(c) => return Err(self.error(&format!("expected ',' or ')' but found '{c}'"))),
            }
        }
    }

    fn element(&mut self) -> Result<Element> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '$'))
        {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error("expected a pass or operation name"));
        }
        let name: String = self.chars[start..self.pos]
            .iter()
            .map(|&(_, c)| c)
            .collect();
        self.skip_space();
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let elements = self.list()?;
                if self.peek() != Some(')') {
                    return Err(self.error(&format!("expected ')' to close '{name}('")));
                }
                self.pos += 1;
                Ok(Element::Nest {
                    anchor: name,
                    elements,
                })
            }
            Some('{') => {
                self.pos += 1;
                let begin = self.pos;
                let (mut depth, mut quoted) = (1, false);
                while let Some(c) = self.peek() {
                    match c {
                        '"' => quoted = !quoted,
                        '{' if !quoted => depth += 1,
                        '}' if !quoted => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
                if self.peek() != Some('}') {
                    return Err(
                        self.error(&format!("expected '}}' to close the options of '{name}'"))
                    );
                }
                let options: String = self.chars[begin..self.pos]
                    .iter()
                    .map(|&(_, c)| c)
                    .collect();
                self.pos += 1;
                Ok(Element::Pass {
                    name,
                    options: Some(options),
                })
            }
            _ => Ok(Element::Pass {
                name,
                options: None,
            }),
        }
    }
}
