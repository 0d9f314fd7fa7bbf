//! Pass options in MLIR's textual form: `name{key=value key2=value2}`.

use crate::{Error, Result};

/// One option a pass accepts.
#[derive(Clone, Copy, Debug)]
pub struct PassOption {
    pub name: &'static str,
    pub summary: &'static str,
    pub default: OptionDefault,
}

/// A pass option's default, printed by `--list-passes` and `docs/passes.md`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptionDefault {
    Text(&'static str),
    Int(i64),
    Bool(bool),
}

impl std::fmt::Display for OptionDefault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionDefault::Text(text) => f.write_str(text),
            OptionDefault::Int(value) => write!(f, "{value}"),
            OptionDefault::Bool(value) => write!(f, "{value}"),
        }
    }
}

impl PassOption {
    /// The option for a bounded integer defined by the analysis.
    pub const fn bounded(bound: &coco_bigtest::bounds::Bound) -> PassOption {
        PassOption {
            name: bound.name,
            summary: bound.summary,
            default: OptionDefault::Int(bound.default),
        }
    }
}

/// Parsed `key=value` pairs, checked against a pass's declared options.
#[derive(Clone, Debug, Default)]
pub struct Options {
    values: Vec<(String, String)>,
}

impl Options {
    /// Parses the text between the braces of `pass{...}`.
    pub fn parse(pass: &str, text: &str, declared: &[PassOption]) -> Result<Options> {
        let mut values = Vec::new();
        for item in split_options(text) {
            let (key, value) = item.split_once('=').unwrap_or((item.as_str(), "true"));
            if !declared.iter().any(|o| o.name == key) {
                let known: Vec<&str> = declared.iter().map(|o| o.name).collect();
                return Err(Error::PassOption {
                    pass: pass.to_string(),
                    message: if known.is_empty() {
                        format!("unknown option '{key}' (this pass takes no options)")
                    } else {
                        format!("unknown option '{key}' (options: {})", known.join(", "))
                    },
                });
            }
            values.push((key.to_string(), value.trim_matches('"').to_string()));
        }
        Ok(Options { values })
    }

    fn raw(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The raw text of an option, if given.
    pub fn string(&self, key: &str) -> Option<&str> {
        self.raw(key)
    }

    pub fn bool(&self, pass: &str, key: &str, default: bool) -> Result<bool> {
        match self.raw(key) {
            None => Ok(default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(other) => Err(Error::PassOption {
                pass: pass.into(),
                message: format!("option '{key}' expects true or false, found '{other}'"),
            }),
        }
    }

    /// A bounded integer option: its default when absent, an error naming
    /// the pass when out of range.
    pub fn bounded(&self, pass: &str, bound: &coco_bigtest::bounds::Bound) -> Result<i64> {
        let value = self.int(pass, bound.name, bound.default)?;
        bound.check(value).map_err(|message| Error::PassOption {
            pass: pass.into(),
            message,
        })
    }

    fn int(&self, pass: &str, key: &str, default: i64) -> Result<i64> {
        match self.raw(key) {
            None => Ok(default),
            Some(text) => text.parse().map_err(|_| Error::PassOption {
                pass: pass.into(),
                message: format!("option '{key}' expects an integer, found '{text}'"),
            }),
        }
    }
}

/// Splits on spaces outside quotes and braces, as MLIR's option parser does.
fn split_options(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let (mut depth, mut quoted) = (0i32, false);
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '{' | '[' | '(' if !quoted => depth += 1,
            '}' | ']' | ')' if !quoted => depth -= 1,
            ' ' if !quoted && depth == 0 => {
                if !current.is_empty() {
                    items.push(std::mem::take(&mut current));
                }
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.is_empty() {
        items.push(current);
    }
    items
}
