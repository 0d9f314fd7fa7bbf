//! Python regular expressions that are one character class, alone or
//! repeated (`\W+`, `\s+`, `[^a-z']+`, `[,;]`): what jobs give
//! `re.split` and `re.findall` to cut a line into words or fields. The
//! df dialect's verifier parses them, and the dataflow interpreter and
//! BigTest's symbolic encoding give them Python's meaning, so this is the
//! one place that says what such a pattern matches.
//!
//! A pattern of one class cuts text without backtracking: `re.split(C+, s)`
//! gives the text between maximal runs of `C` (empty at an end where a run
//! touches it), `re.split(C, s)` the text between single characters of `C`,
//! and `re.findall(C+, s)` the maximal runs themselves. Anything else
//! (groups, alternation, anchors, other quantifiers, backreferences) is a
//! [`PatternError`] naming the construct.
//!
//! Classes follow Python 3's `re` on `str` patterns: `\w` is what
//! `str.isalnum()` accepts, or `_` (letters, and decimal, digit and numeric
//! characters: general categories L*, Nd, Nl, No); `\d` is a decimal digit
//! (Nd); `\s` is what `str.isspace()` accepts; with `re.ASCII` they are
//! `[a-zA-Z0-9_]`, `[0-9]` and `[ \t\n\r\f\v]`. Ranges compare code
//! points; `re.IGNORECASE` is not modelled.

use std::fmt;

use unicode_general_category::{get_general_category, GeneralCategory};

/// One character class, or one or more characters of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassPattern {
    pub class: CharClass,
    /// `C+`: a run of the class rather than one character.
    pub repeated: bool,
    /// The pattern as written, for messages and generated Python.
    pub source: String,
    /// `re.ASCII`: `\w`, `\d` and `\s` are their ASCII forms.
    pub ascii: bool,
}

/// `[...]`, `[^...]`, `\w`, `.` or one literal character.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CharClass {
    pub negated: bool,
    pub items: Vec<ClassItem>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassItem {
    /// Code points from the first to the second, both included.
    Range(char, char),
    Word,
    NotWord,
    Digit,
    NotDigit,
    Space,
    NotSpace,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pattern `{pattern}`: {problem}")]
pub struct PatternError {
    pub pattern: String,
    pub problem: String,
}

impl ClassPattern {
    /// Parses Python pattern syntax; `ascii` is the `re.ASCII` flag.
    pub fn parse(source: &str, ascii: bool) -> Result<ClassPattern, PatternError> {
        let fail = |problem: String| PatternError {
            pattern: source.to_string(),
            problem,
        };
        let chars: Vec<char> = source.chars().collect();
        let mut parser = Parser {
            chars: &chars,
            at: 0,
        };
        let class = parser.atom().map_err(fail)?;
        let repeated = match parser.peek() {
            Some('+') => {
                parser.at += 1;
                true
            }
            _ => false,
        };
        if let Some(c) = parser.peek() {
            return Err(fail(match c {
                '*' | '?' | '{' => format!(
                    "the quantifier `{c}` is not supported; a class alone or followed by `+` is (a run that may be empty cuts text between every character)"
                ),
                '+' => "`++` (a possessive quantifier) is not supported".to_string(),
                _ => format!(
                    "only one character class, alone or followed by `+`, is supported (`\\W+`, `[,;]`, `[^a-z]+`); found `{}` after it",
                    chars[parser.at..].iter().collect::<String>()
                ),
            }));
        }
        Ok(ClassPattern {
            class,
            repeated,
            source: source.to_string(),
            ascii,
        })
    }

    /// Whether one character of `c` is a match of the class.
    pub fn matches(&self, c: char) -> bool {
        self.class.matches(c, self.ascii)
    }

    /// Python's `re.split(pattern, s)`.
    pub fn split(&self, s: &str) -> Vec<String> {
        let mut pieces = Vec::new();
        let mut piece = String::new();
        let mut in_run = false;
        for c in s.chars() {
            if self.matches(c) {
                if !(self.repeated && in_run) {
                    pieces.push(std::mem::take(&mut piece));
                }
                in_run = true;
            } else {
                piece.push(c);
                in_run = false;
            }
        }
        pieces.push(piece);
        pieces
    }

    /// Python's `re.findall(pattern, s)`: the runs (or single characters)
    /// of the class, in order.
    pub fn find_all(&self, s: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut run = String::new();
        for c in s.chars() {
            if self.matches(c) {
                run.push(c);
                if !self.repeated {
                    found.push(std::mem::take(&mut run));
                }
            } else if !run.is_empty() {
                found.push(std::mem::take(&mut run));
            }
        }
        if !run.is_empty() {
            found.push(run);
        }
        found
    }
}

impl fmt::Display for ClassPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl CharClass {
    pub fn matches(&self, c: char, ascii: bool) -> bool {
        self.items.iter().any(|item| item.matches(c, ascii)) != self.negated
    }
}

impl ClassItem {
    fn matches(self, c: char, ascii: bool) -> bool {
        match self {
            ClassItem::Range(lo, hi) => (lo..=hi).contains(&c),
            ClassItem::Word => is_word(c, ascii),
            ClassItem::NotWord => !is_word(c, ascii),
            ClassItem::Digit => is_digit(c, ascii),
            ClassItem::NotDigit => !is_digit(c, ascii),
            ClassItem::Space => is_space(c, ascii),
            ClassItem::NotSpace => !is_space(c, ascii),
        }
    }
}

fn is_word(c: char, ascii: bool) -> bool {
    if c.is_ascii() || ascii {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    use GeneralCategory::*;
    matches!(
        get_general_category(c),
        UppercaseLetter
            | LowercaseLetter
            | TitlecaseLetter
            | ModifierLetter
            | OtherLetter
            | DecimalNumber
            | LetterNumber
            | OtherNumber
    )
}

fn is_digit(c: char, ascii: bool) -> bool {
    if c.is_ascii() || ascii {
        return c.is_ascii_digit();
    }
    get_general_category(c) == GeneralCategory::DecimalNumber
}

/// `str.isspace()`: Unicode White_Space and the separators U+001C..U+001F.
pub fn is_python_whitespace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

fn is_space(c: char, ascii: bool) -> bool {
    if ascii {
        return matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c');
    }
    is_python_whitespace(c)
}

struct Parser<'a> {
    chars: &'a [char],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.at += 1;
        c
    }

    fn atom(&mut self) -> Result<CharClass, String> {
        let one = |item| CharClass {
            negated: false,
            items: vec![item],
        };
        match self.next() {
            None => Err("an empty pattern matches everywhere; give a character class".into()),
            Some('[') => self.set(),
            Some('.') => Ok(CharClass {
                negated: true,
                items: vec![ClassItem::Range('\n', '\n')],
            }),
            Some('\\') => match self.escape(false)? {
                Escaped::Item(item) => Ok(one(item)),
                Escaped::Char(c) => Ok(one(ClassItem::Range(c, c))),
            },
            Some(c @ ('(' | ')')) => Err(format!(
                "groups (`{c}`) are not supported; a pattern is one character class, alone or followed by `+`"
            )),
            Some('|') => Err("alternation (`|`) is not supported; put the characters in one class (`[,;]`)".into()),
            Some(c @ ('^' | '$')) => Err(format!("the anchor `{c}` is not supported")),
            Some(c @ ('*' | '+' | '?' | '{')) => Err(format!("nothing to repeat before `{c}`")),
            Some(c) => Ok(one(ClassItem::Range(c, c))),
        }
    }

    /// A `[...]` set, the `[` read.
    fn set(&mut self) -> Result<CharClass, String> {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let c = self
                .next()
                .ok_or_else(|| "unterminated character set (`[` without `]`)".to_string())?;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = match c {
                '\\' => match self.escape(true)? {
                    Escaped::Item(item) => {
                        items.push(item);
                        continue;
                    }
                    Escaped::Char(c) => c,
                },
                '[' if self.peek() == Some(':') => return Err(
                    "POSIX classes (`[:alpha:]`) are not Python syntax; use \\w, \\d or a range"
                        .into(),
                ),
                c => c,
            };
            // `a-z`; a `-` before `]` is itself.
            if self.peek() == Some('-') && !matches!(self.chars.get(self.at + 1), None | Some(']'))
            {
                self.at += 1;
                let hi = match self.next() {
                    Some('\\') => match self.escape(true)? {
                        Escaped::Char(c) => c,
                        Escaped::Item(_) => {
                            return Err(format!(
                                "bad character range {lo}-\\{}",
                                self.chars[self.at - 1]
                            ))
                        }
                    },
                    Some(c) => c,
                    None => return Err("unterminated character set (`[` without `]`)".into()),
                };
                if hi < lo {
                    return Err(format!("bad character range {lo}-{hi}"));
                }
                items.push(ClassItem::Range(lo, hi));
            } else {
                items.push(ClassItem::Range(lo, lo));
            }
        }
        Ok(CharClass { negated, items })
    }

    /// What follows a `\`; `in_set` inside `[...]`.
    fn escape(&mut self, in_set: bool) -> Result<Escaped, String> {
        let c = self
            .next()
            .ok_or_else(|| "a pattern cannot end with a lone backslash".to_string())?;
        Ok(match c {
            'w' => Escaped::Item(ClassItem::Word),
            'W' => Escaped::Item(ClassItem::NotWord),
            'd' => Escaped::Item(ClassItem::Digit),
            'D' => Escaped::Item(ClassItem::NotDigit),
            's' => Escaped::Item(ClassItem::Space),
            'S' => Escaped::Item(ClassItem::NotSpace),
            't' => Escaped::Char('\t'),
            'n' => Escaped::Char('\n'),
            'r' => Escaped::Char('\r'),
            'f' => Escaped::Char('\x0c'),
            'v' => Escaped::Char('\x0b'),
            'a' => Escaped::Char('\x07'),
            'b' if in_set => Escaped::Char('\x08'),
            'x' => Escaped::Char(self.hex(2)?),
            'u' => Escaped::Char(self.hex(4)?),
            'U' => Escaped::Char(self.hex(8)?),
            c if c.is_ascii_alphanumeric() => {
                return Err(match c {
                    'b' | 'B' | 'A' | 'Z' => format!("the anchor `\\{c}` is not supported"),
                    '0'..='9' => {
                        format!("`\\{c}` (a backreference or octal escape) is not supported")
                    }
                    _ => format!("bad escape `\\{c}`"),
                })
            }
            c => Escaped::Char(c),
        })
    }

    fn hex(&mut self, digits: usize) -> Result<char, String> {
        let text: String = self.chars.iter().skip(self.at).take(digits).collect();
        self.at += digits;
        u32::from_str_radix(&text, 16)
            .ok()
            .filter(|_| text.len() == digits)
            .and_then(char::from_u32)
            .ok_or_else(|| format!("bad escape: expected {digits} hex digits, found {text:?}"))
    }
}

enum Escaped {
    Item(ClassItem),
    Char(char),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(p: &str, s: &str) -> Vec<String> {
        ClassPattern::parse(p, false).unwrap().split(s)
    }

    fn find_all(p: &str, s: &str) -> Vec<String> {
        ClassPattern::parse(p, false).unwrap().find_all(s)
    }

    // Expected values are CPython 3.11's; the filetest
    // `pyspark::cpython-text` compares a larger table with the Python
    // that runs the jobs.
    #[test]
    fn split_is_pythons() {
        assert_eq!(split(r"\W+", "Hello, world!"), ["Hello", "world", ""]);
        assert_eq!(split(r"\W+", ""), [""]);
        assert_eq!(split(r"\W+", "..a"), ["", "a"]);
        assert_eq!(split(r"\s+", " a  b\tc "), ["", "a", "b", "c", ""]);
        assert_eq!(split("[,;]", "a,;b"), ["a", "", "b"]);
        assert_eq!(split(",", ",,"), ["", "", ""]);
        assert_eq!(split(r"[^a-z']+", "don't STOP"), ["don't", ""]);
        assert_eq!(split(r"\W+", "naïve café_1"), ["naïve", "café_1"]);
    }

    #[test]
    fn find_all_is_pythons() {
        assert_eq!(find_all(r"\w+", "Hello, world!"), ["Hello", "world"]);
        assert_eq!(find_all(r"[a-z]+", "ab1cd"), ["ab", "cd"]);
        assert_eq!(find_all(r"\d", "a12"), ["1", "2"]);
        assert!(find_all(r"\w+", "  ").is_empty());
        // U+0345 is Alphabetic in Unicode but not a letter to Python.
        assert_eq!(find_all(r"\w+", "a\u{345}b"), ["a", "b"]);
        assert_eq!(find_all(r"\w+", "x²½Ⅻ"), ["x²½Ⅻ"]);
    }

    #[test]
    fn ascii_flag() {
        let p = ClassPattern::parse(r"\w+", true).unwrap();
        assert_eq!(p.find_all("café"), ["caf"]);
    }

    #[test]
    fn sets_and_escapes() {
        let p = ClassPattern::parse(r"[\w'-]", false).unwrap();
        assert!(p.matches('-') && p.matches('\'') && p.matches('x') && !p.matches(' '));
        let p = ClassPattern::parse(r"[]a]", false).unwrap();
        assert!(p.matches(']') && p.matches('a'));
        let p = ClassPattern::parse(r"\.", false).unwrap();
        assert!(p.matches('.') && !p.matches('a'));
        let p = ClassPattern::parse(r"[\x41-\x43]", false).unwrap();
        assert!(p.matches('B') && !p.matches('D'));
    }

    #[test]
    fn refusals_name_the_construct() {
        let problem = |p: &str| ClassPattern::parse(p, false).unwrap_err().problem;
        assert!(problem("(a)").contains("groups"));
        assert!(problem("a|b").contains("only one character class"));
        assert!(problem(r"\s*").contains("quantifier `*`"));
        assert!(problem("[a-").contains("unterminated"));
        assert!(problem("[z-a]").contains("bad character range"));
        assert!(problem(r"\b").contains("anchor"));
        assert!(problem(r"\1").contains("backreference"));
        assert!(problem("").contains("empty pattern"));
        assert!(problem(r"\q").contains("bad escape"));
    }
}
