//! SMT-LIB commands as s-expressions: just enough of a reader for the
//! scripts coco writes (declarations, assertions, preferences), which Z3
//! reads in full.

use crate::{Error, Result};

/// One s-expression of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExpr {
    /// A symbol (bars kept), numeral, keyword or string literal, as written.
    Atom(String),
    List(Vec<SExpr>),
}

impl std::fmt::Display for SExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SExpr::Atom(a) => f.write_str(a),
            SExpr::List(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// The commands of `text`. Z3 reads the scripts too, so this need not
/// diagnose errors well.
pub fn parse_sexprs(text: &str) -> Result<Vec<SExpr>> {
    let unbalanced = || Error::UnbalancedParentheses;
    let mut stack: Vec<Vec<SExpr>> = vec![Vec::new()];
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            _ if c.is_whitespace() => {}
            ';' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => stack.push(Vec::new()),
            ')' => {
                let list = stack.pop().ok_or_else(unbalanced)?;
                stack
                    .last_mut()
                    .ok_or_else(unbalanced)?
                    .push(SExpr::List(list));
            }
            '|' => {
                let end = text[start + 1..]
                    .find('|')
                    .map(|i| start + 1 + i)
                    .ok_or(Error::UnterminatedSymbol)?;
                while chars.next_if(|&(i, _)| i <= end).is_some() {}
                stack
                    .last_mut()
                    .ok_or_else(unbalanced)?
                    .push(SExpr::Atom(text[start..=end].to_string()));
            }
            '"' => {
                let mut end = None;
                while let Some((i, c)) = chars.next() {
                    if c == '"' {
                        // A doubled quote stands for one quote inside the literal.
                        if chars.next_if(|&(_, c)| c == '"').is_none() {
                            end = Some(i);
                            break;
                        }
                    }
                }
                let end = end.ok_or(Error::UnterminatedString)?;
                stack
                    .last_mut()
                    .ok_or_else(unbalanced)?
                    .push(SExpr::Atom(text[start..=end].to_string()));
            }
            _ => {
                let mut end = start + c.len_utf8();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() || matches!(c, '(' | ')' | '|' | '"' | ';') {
                        break;
                    }
                    end = i + c.len_utf8();
                    chars.next();
                }
                stack
                    .last_mut()
                    .ok_or_else(unbalanced)?
                    .push(SExpr::Atom(text[start..end].to_string()));
            }
        }
    }
    match (stack.pop(), stack.is_empty()) {
        (Some(top), true) => Ok(top),
        _ => Err(unbalanced()),
    }
}
