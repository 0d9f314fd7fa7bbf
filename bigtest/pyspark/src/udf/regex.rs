//! Python's `re` in UDFs: `re.split` and `re.findall` of a pattern that is
//! one character class, alone or followed by `+` (`\W+`, `[,;]`,
//! `[a-z']+`), lowered to `df.regex_split` and `df.regex_find_all`.
//!
//! A job calls them on the module (`re.split(p, s)`, `import re as r`),
//! as names imported from it (`from re import findall`), on
//! `re.compile(p)` in the expression, or on a module-level name bound once
//! to `re.compile(p)` (`WORD = re.compile(r"\w+")`). The pattern is a
//! string constant or a module constant; flags are `re.UNICODE` (Python's
//! default), `re.ASCII` and `re.MULTILINE` (which only anchors read).

use coco_dataflow::model::ClassPattern;

use super::{Lowering, Rebinding, Scope};
use crate::{
    error::{unsupported, Result},
    ir::{Ty, TyText},
    shape::PyVal,
    syntax::{Constant, Node},
};

/// The `re` functions (and compiled-pattern methods) a UDF may call.
const FUNCTIONS: &[&str] = &["split", "findall"];

/// A call into `re`: what it calls and its arguments after the pattern.
enum Target {
    /// `re.split(pattern, s, ...)`, `findall(pattern, s, ...)`.
    Module { function: String },
    /// `re.compile(pattern, flags).split(s)` or `NAME.split(s)`.
    Compiled { function: String, compile: Node },
}

impl Scope {
    /// Whether `value` is `re.compile(...)` (or `compile(...)` imported
    /// from `re`): a value the driver makes once and UDFs read.
    pub fn compiles_pattern(&self, value: &Node) -> bool {
        if !value.is("Call") {
            return false;
        }
        let callee = value.expect("func");
        match callee.name() {
            Some(f) => self.imported_from("re", &f) == Some("compile"),
            None => {
                callee.is("Attribute")
                    && callee.str("attr").as_deref() == Some("compile")
                    && callee
                        .expect("value")
                        .name()
                        .is_some_and(|m| self.imported_from("re", &m) == Some(""))
            }
        }
    }
}

impl Lowering<'_> {
    /// `call` when it calls into Python's `re` module; `None` when it
    /// does not.
    pub(super) fn regex_call(&mut self, call: &Node) -> Result<Option<PyVal>> {
        let func = call.expect("func");
        let Some(target) = self.regex_target(&func)? else {
            return Ok(None);
        };
        let loc = &call.loc;
        let args = call.list("args");
        let keywords = call.list("keywords");
        let keyword = |name: &str| {
            keywords
                .iter()
                .find(|k| k.str("arg").as_deref() == Some(name))
                .map(|k| k.expect("value"))
        };
        if let Some(k) = keywords
            .iter()
            .find(|k| !matches!(k.str("arg").as_deref(), Some("flags" | "maxsplit")))
        {
            return unsupported(
                &k.loc,
                format!(
                    "the keyword {} is not supported in a re call in a UDF (flags= and maxsplit=0 are)",
                    k.str("arg").map_or("**".to_string(), |a| format!("{a}="))
                ),
            );
        }
        let (function, pattern_node, flags, string, rest) = match &target {
            Target::Module { function } => {
                if function == "compile" {
                    return unsupported(
                        loc,
                        "re.compile() in a UDF makes a pattern value, which coco does not hold; call re.split(pattern, s) or re.findall(pattern, s), or bind the compiled pattern to a module-level name",
                    );
                }
                if !FUNCTIONS.contains(&function.as_str()) {
                    return unsupported(
                        &func.attr_loc(),
                        format!("re.{function}() is not supported in a UDF: re.split() and re.findall() of a pattern that is one character class are (docs/pyspark.md)"),
                    );
                }
                let [pattern, string, rest @ ..] = &args[..] else {
                    return unsupported(
                        loc,
                        format!("re.{function}() takes a pattern and a string"),
                    );
                };
                // split(pattern, string, maxsplit=0, flags=0);
                // findall(pattern, string, flags=0).
                let (maxsplit, flags) = match (function.as_str(), rest) {
                    ("split", [maxsplit, flags]) => (Some(maxsplit.clone()), Some(flags.clone())),
                    ("split", [maxsplit]) => (Some(maxsplit.clone()), None),
                    ("findall", [flags]) => (None, Some(flags.clone())),
                    (_, []) => (None, None),
                    _ => return unsupported(loc, format!("too many arguments to re.{function}()")),
                };
                let flags = flags.or_else(|| keyword("flags"));
                (
                    function.clone(),
                    pattern.clone(),
                    flags,
                    string.clone(),
                    maxsplit.or_else(|| keyword("maxsplit")),
                )
            }
            Target::Compiled { function, compile } => {
                if !FUNCTIONS.contains(&function.as_str()) {
                    return unsupported(
                        &func.attr_loc(),
                        format!("the .{function}() method of a compiled pattern is not supported in a UDF (.split() and .findall() are)"),
                    );
                }
                if keyword("flags").is_some() {
                    return unsupported(loc, "a compiled pattern's method takes no flags");
                }
                let [string, rest @ ..] = &args[..] else {
                    return unsupported(loc, format!(".{function}() takes a string"));
                };
                let maxsplit = match (function.as_str(), rest) {
                    ("split", [maxsplit]) => Some(maxsplit.clone()),
                    (_, []) => None,
                    ("findall", _) => {
                        return unsupported(loc, ".findall(s, pos, endpos) is not supported in a UDF; slice the string instead")
                    }
                    _ => return unsupported(loc, format!("too many arguments to .{function}()")),
                };
                let compile_args = compile.list("args");
                let Some(pattern) = compile_args.first() else {
                    return unsupported(&compile.loc, "re.compile() takes a pattern");
                };
                let flags = compile_args.get(1).cloned().or_else(|| {
                    compile
                        .list("keywords")
                        .into_iter()
                        .find(|k| k.str("arg").as_deref() == Some("flags"))
                        .map(|k| k.expect("value"))
                });
                (
                    function.clone(),
                    pattern.clone(),
                    flags,
                    string.clone(),
                    maxsplit.or_else(|| keyword("maxsplit")),
                )
            }
        };
        if let Some(maxsplit) = rest {
            if crate::job::constant_of(&maxsplit) != Some(Constant::Int("0".into())) {
                return unsupported(
                    &maxsplit.loc,
                    "re.split() with maxsplit is not supported in a UDF",
                );
            }
        }
        let ascii = match &flags {
            Some(flags) => self.regex_flags(flags)?,
            None => false,
        };
        let Some(source) = self.pattern_text(&pattern_node) else {
            return unsupported(
                &pattern_node.loc,
                "a re pattern in a UDF must be a string constant (or a module-level name bound once to one)",
            );
        };
        if let Err(e) = ClassPattern::parse(&source, ascii) {
            return unsupported(
                &pattern_node.loc,
                format!("{e} (docs/pyspark.md, \"Regular expressions\")"),
            );
        }
        let s = self.scalar(&string, &format!("re.{function}()"))?;
        self.check_str(&s, &string)?;
        let op = if function == "split" {
            "df.regex_split"
        } else {
            "df.regex_find_all"
        };
        Ok(Some(PyVal::Scalar(self.f.op(
            format!(
                "{op} {} {}{} : !df.list<!df.str>",
                s.name,
                crate::ir::string_literal(&source),
                if ascii { " ascii" } else { "" }
            ),
            Ty::str_list(),
            loc,
        ))))
    }

    /// What `func` calls in `re`, if anything.
    fn regex_target(&self, func: &Node) -> Result<Option<Target>> {
        if let Some(name) = func.name() {
            return Ok(self
                .regex_import(&name)
                .filter(|f| !f.is_empty())
                .map(|function| Target::Module { function }));
        }
        if !func.is("Attribute") {
            return Ok(None);
        }
        let function = func.str("attr").unwrap_or_default();
        let receiver = func.expect("value");
        if let Some(module) = receiver.name() {
            if self.regex_import(&module).is_some_and(|f| f.is_empty()) {
                return Ok(Some(Target::Module { function }));
            }
            if let Some(compile) = self.module_pattern(&module) {
                return Ok(Some(Target::Compiled { function, compile }));
            }
            return Ok(None);
        }
        if receiver.is("Call") {
            let callee = receiver.expect("func");
            if let Some(Target::Module { function: f }) = self.regex_target(&callee)? {
                if f == "compile" {
                    return Ok(Some(Target::Compiled {
                        function,
                        compile: receiver,
                    }));
                }
            }
        }
        Ok(None)
    }

    /// What `name` is bound to by an import from `re`: "" for the module,
    /// else the function's name.
    fn regex_import(&self, name: &str) -> Option<String> {
        if self.env.contains_key(name) {
            return None;
        }
        if self.local_regex.contains(name) {
            return Some(String::new());
        }
        self.scope.imported_from("re", name).map(str::to_string)
    }

    /// `re.compile(...)` when module-level `name` is bound once to it.
    fn module_pattern(&self, name: &str) -> Option<Node> {
        if self.env.contains_key(name) {
            return None;
        }
        let once = self
            .scope
            .rebound
            .get(name)
            .is_none_or(|r: &Rebinding| r.once);
        let value = self.scope.values.get(name).filter(|_| once)?;
        self.scope.compiles_pattern(value).then(|| value.clone())
    }

    /// The text of a pattern: a string constant, or a module constant's.
    fn pattern_text(&self, node: &Node) -> Option<String> {
        if let Some(text) = node.str_constant() {
            return Some(text);
        }
        let name = node.name()?;
        if self.env.contains_key(&name) {
            return None;
        }
        match self.scope.constants.get(&name)? {
            Constant::Str(text) => Some(text.clone()),
            _ => None,
        }
    }

    /// Whether `flags` sets `re.ASCII`; other flags than UNICODE, ASCII
    /// and MULTILINE are refused.
    fn regex_flags(&self, flags: &Node) -> Result<bool> {
        if flags.is("BinOp") && flags.op_kind("op").as_deref() == Some("BitOr") {
            let left = self.regex_flags(&flags.expect("left"))?;
            let right = self.regex_flags(&flags.expect("right"))?;
            return Ok(left || right);
        }
        if crate::job::constant_of(flags) == Some(Constant::Int("0".into())) {
            return Ok(false);
        }
        let module_flag = flags.is("Attribute")
            && flags
                .expect("value")
                .name()
                .is_some_and(|m| self.regex_import(&m).is_some_and(|f| f.is_empty()));
        let flag = flags.str("attr").filter(|_| module_flag);
        match flag.as_deref() {
            Some("U" | "UNICODE" | "M" | "MULTILINE") => Ok(false),
            Some("A" | "ASCII") => Ok(true),
            Some(other) => unsupported(
                &flags.loc,
                format!("the flag re.{other} is not supported in a UDF (re.UNICODE, re.ASCII and re.MULTILINE are)"),
            ),
            None => unsupported(
                &flags.loc,
                "re flags in a UDF must be re.UNICODE, re.ASCII or re.MULTILINE, or several joined by |",
            ),
        }
    }

    /// `import re` (or `import re as r`) inside a UDF: binds the module.
    pub(super) fn local_import(&mut self, statement: &Node) -> Result<()> {
        for alias in statement.list("names") {
            let name = alias.str("name").unwrap_or_default();
            if !statement.is("Import") || name != "re" {
                return unsupported(
                    &statement.loc,
                    format!(
                        "importing {} inside a UDF is not supported (`import re` is; import other names at module level)",
                        if statement.is("Import") { name } else { format!("from {}", statement.str("module").unwrap_or_default()) }
                    ),
                );
            }
            let bound = alias.str("asname").unwrap_or(name);
            self.env.remove(&bound);
            self.local_regex.insert(bound);
        }
        Ok(())
    }
}
