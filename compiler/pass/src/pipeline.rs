//! Textual pass pipelines, `builtin.module(coco-verify, func.func(cse))`,
//! parsed into [`Element`]s; [`crate::manager`] turns them into passes.

use crate::{Error, Result};

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

/// `builtin.module(elements)`: the text of a pipeline on the module, for
/// messages (`coco-opt --cse --coco-verify` shows as this).
pub fn module_text(elements: &[Element]) -> String {
    Element::Nest {
        anchor: "builtin.module".into(),
        elements: elements.to_vec(),
    }
    .text()
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
