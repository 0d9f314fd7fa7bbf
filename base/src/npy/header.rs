//! The `.npy` header: a Python dictionary literal with exactly the keys
//! `descr` (a string), `fortran_order` (`True` or `False`) and `shape` (a
//! tuple of integers), as `numpy.lib.format` writes it:
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
//!
//! It is parsed, not searched: finding `'shape'` by text matching misreads
//! a header whose string value contains `'shape': (9,)`, or that names a
//! key twice. Strings are Python's single- or double-quoted literals
//! without escapes (no descriptor NumPy writes needs one); a tuple of one
//! element needs its trailing comma, as in Python (`(3)` is an integer).

use std::fmt;

/// What a header says about its array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
}

/// The header text for `descr` and `shape` (C order), unpadded.
pub fn format(descr: &str, shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape_text = match dims.len() {
        0 => "()".to_string(),
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}")
}

/// Why a header does not parse, and at which byte of it.
#[derive(Debug, PartialEq, Eq)]
pub struct HeaderError {
    pub at: usize,
    pub message: String,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "header byte {}: {}", self.at, self.message)
    }
}

type Parsed<T> = Result<T, HeaderError>;

enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Bool(_) => "a boolean",
            Value::Tuple(_) => "a tuple",
        }
    }
}

const KEYS: [&str; 3] = ["descr", "fortran_order", "shape"];

struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn fail<T>(&self, message: impl Into<String>) -> Parsed<T> {
        Err(HeaderError {
            at: self.at,
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    /// Consumes `c` (after any space) if it comes next.
    fn eat(&mut self, c: u8) -> bool {
        self.skip_space();
        let found = self.peek() == Some(c);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect(&mut self, c: u8, what: &str) -> Parsed<()> {
        if self.eat(c) {
            Ok(())
        } else {
            self.fail(format!("expected {what}"))
        }
    }

    fn string(&mut self) -> Parsed<String> {
        self.skip_space();
        let Some(quote @ (b'\'' | b'"')) = self.peek() else {
            return self.fail("expected a quoted string");
        };
        let start = self.at + 1;
        let Some(length) = self.text[start..].iter().position(|&c| c == quote) else {
            return self.fail("unterminated string");
        };
        let body = &self.text[start..start + length];
        if let Some(escape) = body.iter().position(|&c| c == b'\\' || c == b'\n') {
            self.at = start + escape;
            return self.fail("escapes and line breaks in strings are not supported");
        }
        self.at = start + length + 1;
        // The header is checked to be UTF-8 before parsing.
        Ok(String::from_utf8_lossy(body).into_owned())
    }

    fn integer(&mut self) -> Parsed<usize> {
        self.skip_space();
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        let digits = std::str::from_utf8(&self.text[start..self.at]).unwrap_or_default();
        if digits.is_empty() {
            self.at = start;
            return self.fail("expected a dimension (a non-negative integer)");
        }
        digits.parse().or_else(|_| {
            self.at = start;
            self.fail(format!("dimension {digits} is too large"))
        })
    }

    fn tuple(&mut self) -> Parsed<Vec<usize>> {
        self.expect(b'(', "'('")?;
        let mut items = Vec::new();
        if self.eat(b')') {
            return Ok(items);
        }
        loop {
            items.push(self.integer()?);
            if self.eat(b')') {
                if items.len() == 1 {
                    return self.fail("a one-element tuple needs a trailing comma: (n,)");
                }
                return Ok(items);
            }
            self.expect(b',', "',' or ')' in the shape")?;
            if self.eat(b')') {
                return Ok(items);
            }
        }
    }

    fn value(&mut self) -> Parsed<Value> {
        self.skip_space();
        match self.peek() {
            Some(b'\'' | b'"') => Ok(Value::Str(self.string()?)),
            Some(b'(') => Ok(Value::Tuple(self.tuple()?)),
            _ => {
                for (word, value) in [("True", true), ("False", false)] {
                    if self.text[self.at..].starts_with(word.as_bytes()) {
                        self.at += word.len();
                        return Ok(Value::Bool(value));
                    }
                }
                self.fail("expected a string, True, False or a tuple")
            }
        }
    }
}

/// Parses a header (the bytes between the length field and the data,
/// padding and final newline included).
pub fn parse(text: &str) -> Parsed<Header> {
    let mut cursor = Cursor {
        text: text.as_bytes(),
        at: 0,
    };
    let mut values: [Option<Value>; 3] = [None, None, None];
    cursor.expect(b'{', "'{' (a dictionary)")?;
    if !cursor.eat(b'}') {
        loop {
            let key_at = {
                cursor.skip_space();
                cursor.at
            };
            let key = cursor.string()?;
            let Some(slot) = KEYS.iter().position(|k| *k == key) else {
                cursor.at = key_at;
                return cursor.fail(format!(
                    "unknown key '{key}' (a .npy header has 'descr', 'fortran_order' and 'shape')"
                ));
            };
            if values[slot].is_some() {
                cursor.at = key_at;
                return cursor.fail(format!("key '{key}' appears twice"));
            }
            cursor.expect(b':', "':' after the key")?;
            values[slot] = Some(cursor.value()?);
            if cursor.eat(b'}') {
                break;
            }
            cursor.expect(b',', "',' or '}' after a value")?;
            if cursor.eat(b'}') {
                break;
            }
        }
    }
    cursor.skip_space();
    if cursor.at != text.len() {
        return cursor.fail("text after the dictionary");
    }
    let [descr, fortran_order, shape] = values;
    let missing = |key: &str| HeaderError {
        at: text.len(),
        message: format!("no '{key}' in the header"),
    };
    let wrong = |key: &str, expected: &str, found: &Value| HeaderError {
        at: 0,
        message: format!("'{key}' is {}, expected {expected}", found.kind()),
    };
    Ok(Header {
        descr: match descr.ok_or_else(|| missing("descr"))? {
            Value::Str(s) => s,
            other => return Err(wrong("descr", "a string", &other)),
        },
        fortran_order: match fortran_order.ok_or_else(|| missing("fortran_order"))? {
            Value::Bool(b) => b,
            other => return Err(wrong("fortran_order", "True or False", &other)),
        },
        shape: match shape.ok_or_else(|| missing("shape"))? {
            Value::Tuple(t) => t,
            other => return Err(wrong("shape", "a tuple", &other)),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(descr: &str, shape: &[usize]) -> Header {
        Header {
            descr: descr.into(),
            fortran_order: false,
            shape: shape.to_vec(),
        }
    }

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_what_numpy_writes() {
        for (text, expected) in [
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }   \n",
                header("<f4", &[2, 3]),
            ),
            (
                "{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }\n",
                header("<i8", &[5]),
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                header("<f8", &[]),
            ),
            // Any key order, double quotes, no trailing comma, spaces.
            (
                "{ \"shape\" : ( 4 , 0 ) , 'fortran_order':False,'descr':\"|b1\"}",
                header("|b1", &[4, 0]),
            ),
        ] {
            assert_eq!(parse(text).unwrap(), expected, "{text}");
        }
        assert!(
            parse("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2)}")
                .unwrap()
                .fortran_order
        );
        let text = format("<f2", &[7]);
        assert_eq!(parse(&text).unwrap(), header("<f2", &[7]));
    }

    #[test]
    fn a_decoy_string_is_a_value_not_a_key() {
        // Text matching found the first `'shape'`, inside `descr`'s value.
        let decoy = "{'descr': \"'shape': (9,)\", 'fortran_order': False, 'shape': (2,)}";
        assert_eq!(parse(decoy).unwrap().shape, [2]);
        assert_eq!(parse(decoy).unwrap().descr, "'shape': (9,)");
        // A decoy under another key is an unknown key.
        let extra =
            "{'descr': '<f4', 'x': \"'shape': (9,)\", 'fortran_order': False, 'shape': (2,)}";
        assert!(error(extra).contains("unknown key 'x'"), "{}", error(extra));
    }

    #[test]
    fn rejects_duplicate_and_missing_keys() {
        let twice = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (3,)}";
        assert_eq!(error(twice), "header byte 56: key 'shape' appears twice");
        let missing = "{'descr': '<f4', 'fortran_order': False}";
        assert!(error(missing).contains("no 'shape' in the header"));
        let wrong = "{'descr': '<f4', 'fortran_order': 'no', 'shape': (2,)}";
        assert!(error(wrong).contains("'fortran_order' is a string, expected True or False"));
    }

    #[test]
    fn rejects_malformed_dictionaries() {
        for (text, expected) in [
            ("", "expected '{'"),
            ("{'descr': '<f4'", "expected ',' or '}'"),
            ("{'descr': '<f4}", "unterminated string"),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3)}",
                "trailing comma",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}",
                "non-negative",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
                "text after",
            ),
            (
                "{'descr': '<\\f4', 'fortran_order': False, 'shape': (2,)}",
                "escapes",
            ),
            (
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
                "expected a string",
            ),
            (
                "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}",
                "expected ','",
            ),
        ] {
            let message = error(text);
            assert!(message.contains(expected), "{text}: {message}");
        }
    }

    #[test]
    fn dimensions_that_overflow_are_errors() {
        let text =
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999, 4)}";
        assert!(error(text).contains("dimension 99999999999999999999999 is too large"));
        // Each dimension fits; their product is the caller's to check.
        let text = "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4)}";
        assert_eq!(parse(text).unwrap().shape, [4611686018427387904, 4]);
    }
}
