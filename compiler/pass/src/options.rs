//! Typed pass options, declared once: each is a `const` of [`IntOption`],
//! [`BoolOption`], [`ChoiceOption`] or [`TextOption`] that the pass lists in
//! its [`crate::PassInfo`] (for `--list-passes`, `docs/passes.md` and
//! checking a pipeline's `name{key=value}` text) and reads back by type
//! from the parsed [`Options`]. A tool that sets the same values from flags
//! uses the same constants, so a default or a range is written in one place.

use crate::{Error, Result};

/// An integer option with a default and an inclusive range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntOption {
    pub name: &'static str,
    pub summary: &'static str,
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

impl IntOption {
    /// Why `value` is out of range (`must be between 1 and 8, found 9`), or
    /// `None`. Callers prefix what was set: a pass option or a flag.
    pub fn out_of_range(&self, value: i64) -> Option<String> {
        (!(self.min..=self.max).contains(&value)).then(|| {
            format!(
                "must be between {} and {}, found {value}",
                self.min, self.max
            )
        })
    }

    /// `value` checked as the command-line flag of the same name
    /// (`--k must be between ...`), for tools that offer the option as a flag.
    pub fn check_flag(&self, value: i64) -> std::result::Result<i64, String> {
        match self.out_of_range(value) {
            None => Ok(value),
            Some(why) => Err(format!("--{} {why}", self.name)),
        }
    }
}

/// A boolean option: `name`, `name=true`, `name=1`, `name=false`, `name=0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoolOption {
    pub name: &'static str,
    pub summary: &'static str,
    pub default: bool,
}

/// One of a fixed set of words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChoiceOption {
    pub name: &'static str,
    pub summary: &'static str,
    pub default: &'static str,
    pub choices: &'static [&'static str],
}

/// Free text the pass parses itself (a file name, a list of dimensions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextOption {
    pub name: &'static str,
    pub summary: &'static str,
    pub default: &'static str,
}

/// One option a pass declares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PassOption {
    Int(IntOption),
    Bool(BoolOption),
    Choice(ChoiceOption),
    Text(TextOption),
}

impl PassOption {
    pub fn name(&self) -> &'static str {
        match self {
            PassOption::Int(o) => o.name,
            PassOption::Bool(o) => o.name,
            PassOption::Choice(o) => o.name,
            PassOption::Text(o) => o.name,
        }
    }

    pub fn summary(&self) -> &'static str {
        match self {
            PassOption::Int(o) => o.summary,
            PassOption::Bool(o) => o.summary,
            PassOption::Choice(o) => o.summary,
            PassOption::Text(o) => o.summary,
        }
    }

    /// The default as `--list-passes` and `docs/passes.md` print it.
    pub fn default_text(&self) -> String {
        match self {
            PassOption::Int(o) => o.default.to_string(),
            PassOption::Bool(o) => o.default.to_string(),
            PassOption::Choice(o) => o.default.to_string(),
            PassOption::Text(o) => o.default.to_string(),
        }
    }
}

/// Option values for one pass: parsed from pipeline text (checked against
/// the declared options) or set from typed values by a tool.
#[derive(Clone, Debug)]
pub struct Options {
    pass: &'static str,
    values: Vec<(String, String)>,
}

impl Options {
    /// No values: every option takes its default.
    pub fn new(pass: &'static str) -> Options {
        Options {
            pass,
            values: Vec::new(),
        }
    }

    /// Parses the text between the braces of `pass{...}`.
    pub fn parse(pass: &'static str, text: &str, declared: &[PassOption]) -> Result<Options> {
        let mut options = Options::new(pass);
        for item in split_options(text) {
            let (key, value) = item.split_once('=').unwrap_or((item.as_str(), "true"));
            if !declared.iter().any(|o| o.name() == key) {
                let known: Vec<&str> = declared.iter().map(PassOption::name).collect();
                return Err(options.error(if known.is_empty() {
                    format!("unknown option '{key}' (this pass takes no options)")
                } else {
                    format!("unknown option '{key}' (options: {})", known.join(", "))
                }));
            }
            options
                .values
                .push((key.to_string(), value.trim_matches('"').to_string()));
        }
        Ok(options)
    }

    /// Sets an integer option from a typed value (checked when read).
    pub fn with_int(mut self, option: &IntOption, value: i64) -> Options {
        self.values.push((option.name.into(), value.to_string()));
        self
    }

    /// An error about this pass's options, naming the pass.
    pub fn error(&self, message: String) -> Error {
        Error::PassOption {
            pass: self.pass.into(),
            message,
        }
    }

    fn raw(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of an integer option: its default when absent, an error
    /// naming the pass when not an integer or out of range.
    pub fn int(&self, option: &IntOption) -> Result<i64> {
        let value = match self.raw(option.name) {
            None => option.default,
            Some(text) => text.parse().map_err(|_| {
                self.error(format!(
                    "option '{}' expects an integer, found '{text}'",
                    option.name
                ))
            })?,
        };
        match option.out_of_range(value) {
            None => Ok(value),
            Some(why) => Err(self.error(format!("option '{}' {why}", option.name))),
        }
    }

    pub fn bool(&self, option: &BoolOption) -> Result<bool> {
        match self.raw(option.name) {
            None => Ok(option.default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(other) => Err(self.error(format!(
                "option '{}' expects true or false, found '{other}'",
                option.name
            ))),
        }
    }

    /// The chosen word, one of `option.choices`.
    pub fn choice(&self, option: &ChoiceOption) -> Result<&'static str> {
        let Some(text) = self.raw(option.name) else {
            return Ok(option.default);
        };
        option
            .choices
            .iter()
            .copied()
            .find(|c| *c == text)
            .ok_or_else(|| {
                self.error(format!(
                    "option '{}' expects {}, found '{text}'",
                    option.name,
                    alternatives(option.choices)
                ))
            })
    }

    pub fn text(&self, option: &TextOption) -> &str {
        self.raw(option.name).unwrap_or(option.default)
    }
}

/// `a`, `a or b`, `a, b or c`.
fn alternatives(choices: &[&str]) -> String {
    match choices {
        [] => String::new(),
        [only] => only.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
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

#[cfg(test)]
mod tests {
    use super::*;

    const K: IntOption = IntOption {
        name: "k",
        summary: "",
        default: 2,
        min: 1,
        max: 8,
    };
    const STRICT: BoolOption = BoolOption {
        name: "strict",
        summary: "",
        default: false,
    };
    const VIA: ChoiceOption = ChoiceOption {
        name: "via",
        summary: "",
        default: "a",
        choices: &["a", "b", "c"],
    };
    const DECLARED: &[PassOption] = &[
        PassOption::Int(K),
        PassOption::Bool(STRICT),
        PassOption::Choice(VIA),
    ];

    fn parse(text: &str) -> Result<Options> {
        Options::parse("test-pass", text, DECLARED)
    }

    #[test]
    fn defaults_apply_when_absent() {
        let options = parse("").unwrap();
        assert_eq!(options.int(&K).unwrap(), 2);
        assert!(!options.bool(&STRICT).unwrap());
        assert_eq!(options.choice(&VIA).unwrap(), "a");
    }

    #[test]
    fn values_are_read_by_type() {
        let options = parse("k=3 strict via=c").unwrap();
        assert_eq!(options.int(&K).unwrap(), 3);
        assert!(options.bool(&STRICT).unwrap());
        assert_eq!(options.choice(&VIA).unwrap(), "c");
    }

    #[test]
    fn bad_values_name_the_pass_and_option() {
        let message = |r: Result<_>| r.map(|_: ()| ()).unwrap_err().to_string();
        assert_eq!(
            message(parse("k=9").unwrap().int(&K).map(drop)),
            "test-pass: option 'k' must be between 1 and 8, found 9"
        );
        assert_eq!(
            message(parse("k=x").unwrap().int(&K).map(drop)),
            "test-pass: option 'k' expects an integer, found 'x'"
        );
        assert_eq!(
            message(parse("via=d").unwrap().choice(&VIA).map(drop)),
            "test-pass: option 'via' expects a, b or c, found 'd'"
        );
        assert_eq!(
            message(parse("speed=1").map(drop)),
            "test-pass: unknown option 'speed' (options: k, strict, via)"
        );
        assert_eq!(
            K.check_flag(0).unwrap_err(),
            "--k must be between 1 and 8, found 0"
        );
    }

    #[test]
    fn typed_values_are_checked_like_text() {
        let options = Options::new("test-pass").with_int(&K, 5);
        assert_eq!(options.int(&K).unwrap(), 5);
        assert!(Options::new("test-pass").with_int(&K, 0).int(&K).is_err());
    }
}
