//! The host language a df program's UDFs are written in, and what each of
//! the df string and number operations means there.
//!
//! Spark jobs are written in Java or Scala (the JVM) or in Python (PySpark),
//! and the same operation differs between them: `"a,,".split(",")` is
//! `["a"]` on the JVM (trailing empty fields dropped) and `["a", "", ""]` in
//! Python; `" 5"` parses as an integer in Python only; a substring out of
//! range throws on the JVM and is clamped in Python. A program names its
//! host with the module attribute `df.host` ("jvm", the default, or
//! "python"); the interpreter here and the symbolic encoding in
//! coco-bigtest follow it, so a record generated for a path follows that
//! path where the job really runs. The rules, op by op, are in
//! docs/bigtest.md ("Host-language semantics").

pub use coco_base::host::{Host, HOST_ATTRIBUTE};

use crate::model::{FloatBinOp, IntBinOp, StripSide, UdfOp};

/// `s` split around every occurrence of the non-empty `delimiter`.
///
/// JVM (`s.split(Pattern.quote(d))`, limit 0): the string itself when the
/// delimiter does not occur (so `""` gives `[""]`); otherwise every piece,
/// less the empty pieces at the end (so `","` gives `[]`). Python
/// (`s.split(d)`): every piece.
pub fn split(host: Host, s: &str, delimiter: &str) -> Vec<String> {
    let mut pieces: Vec<String> = s.split(delimiter).map(str::to_string).collect();
    if host == Host::Jvm && pieces.len() > 1 {
        while pieces.last().is_some_and(String::is_empty) {
            pieces.pop();
        }
    }
    pieces
}

/// Why a text is not an integer of the host's parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseIntError {
    /// The host throws (`NumberFormatException`, `ValueError`).
    NotAnInteger,
    /// Python parses it, to a value an i64 cannot hold.
    BeyondI64,
}

/// The zero of every run of ten Unicode decimal digits (general category
/// Nd, Unicode 14; Java 17 has Unicode 13, which adds none of these in the
/// Basic Multilingual Plane, the only plane `parseLong` reads digits from).
const DIGIT_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// The value of a Unicode decimal digit (`Character.digit(c, 10)` for the
/// JVM's BMP characters, `unicodedata.decimal` for Python).
fn decimal_digit(c: char) -> Option<u32> {
    let cp = c as u32;
    DIGIT_ZEROS
        .iter()
        .find(|&&zero| (zero..zero + 10).contains(&cp))
        .map(|zero| cp - zero)
}

/// What `int()` and `float()` strip around a number: Unicode White_Space.
/// Not `str.strip()`'s set, which also holds the separators 0x1C-0x1F:
/// `int("\x1c1")` raises (found by coco-spark's differential test).
fn is_python_space(c: char) -> bool {
    c.is_whitespace()
}

/// The integer the host parses from `text`.
///
/// JVM (`Long.parseLong`): one optional `+` or `-`, then one or more
/// decimal digits of the BMP (Unicode's, not only ASCII), within i64.
/// Python (`int()`): surrounding whitespace, one optional sign, decimal
/// digits (any plane) with single underscores between them.
pub fn parse_int(host: Host, text: &str) -> Result<i64, ParseIntError> {
    let body = match host {
        Host::Jvm => text,
        Host::Python => text.trim_matches(is_python_space),
    };
    let (negative, digits) = match body.chars().next() {
        Some('-') => (true, &body[1..]),
        Some('+') => (false, &body[1..]),
        _ => (false, body),
    };
    if digits.is_empty() {
        return Err(ParseIntError::NotAnInteger);
    }
    // Accumulate negatively, as parseLong does, so i64::MIN parses.
    let mut value: i128 = 0;
    let mut previous_underscore = true; // no leading underscore
    for c in digits.chars() {
        if host == Host::Python && c == '_' {
            if previous_underscore {
                return Err(ParseIntError::NotAnInteger);
            }
            previous_underscore = true;
            continue;
        }
        let digit = match decimal_digit(c) {
            Some(d) if host == Host::Python || (c as u32) < 0x10000 => d,
            _ => return Err(ParseIntError::NotAnInteger),
        };
        previous_underscore = false;
        value = value * 10 - i128::from(digit);
        if value < i128::from(i64::MIN) {
            // The JVM throws at once; Python reads on (the text may still
            // be malformed further on).
            if host == Host::Jvm {
                return Err(ParseIntError::NotAnInteger);
            }
            value = i128::from(i64::MIN) - 1;
        }
    }
    if previous_underscore {
        return Err(ParseIntError::NotAnInteger);
    }
    let value = if negative { value } else { -value };
    i64::try_from(value).map_err(|_| match host {
        Host::Jvm => ParseIntError::NotAnInteger,
        Host::Python => ParseIntError::BeyondI64,
    })
}

/// The float the host parses from `text`, if it does.
///
/// JVM (`Double.parseDouble`): characters up to U+0020 trimmed at both
/// ends; `NaN`, `Infinity` with an optional sign; ASCII decimal digits with
/// an optional point and exponent, and an optional `f`, `F`, `d` or `D`
/// suffix; hexadecimal floats are not accepted here (a documented gap).
/// Python (`float()`): surrounding whitespace; `nan`, `inf`, `infinity` in
/// any case with an optional sign; decimal digits (any Unicode decimal digit)
/// with single underscores between digits, an optional point and exponent.
pub fn parse_float(host: Host, text: &str) -> Option<f64> {
    match host {
        Host::Jvm => {
            let body = text.trim_matches(|c: char| c <= ' ');
            let (sign, rest) = split_sign(body);
            match rest {
                "NaN" => return Some(f64::NAN),
                "Infinity" => return Some(sign * f64::INFINITY),
                _ => {}
            }
            let rest = rest.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(rest);
            decimal_float(rest, |c| c.is_ascii_digit().then(|| c as u32 - '0' as u32))
                .map(|x| sign * x)
        }
        Host::Python => {
            let body = text.trim_matches(is_python_space);
            let (sign, rest) = split_sign(body);
            match rest.to_ascii_lowercase().as_str() {
                "nan" => return Some(f64::NAN),
                "inf" | "infinity" => return Some(sign * f64::INFINITY),
                _ => {}
            }
            let ascii = python_digits(rest)?;
            decimal_float(&ascii, |c| {
                c.is_ascii_digit().then(|| c as u32 - '0' as u32)
            })
            .map(|x| sign * x)
        }
    }
}

fn split_sign(text: &str) -> (f64, &str) {
    match text.chars().next() {
        Some('-') => (-1.0, &text[1..]),
        Some('+') => (1.0, &text[1..]),
        _ => (1.0, text),
    }
}

/// Python's number text with Unicode digits made ASCII and underscores
/// (allowed only between two digits) removed; `None` when an underscore is
/// misplaced.
fn python_digits(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            let digit_at = |j: Option<usize>| {
                j.and_then(|j| chars.get(j))
                    .and_then(|&c| decimal_digit(c))
                    .is_some()
            };
            if !digit_at(i.checked_sub(1)) || !digit_at(Some(i + 1)) {
                return None;
            }
            continue;
        }
        match decimal_digit(c) {
            Some(d) => out.push(char::from_digit(d, 10)?),
            None => out.push(c),
        }
    }
    Some(out)
}

/// `digits [. digits] [(e|E) [+-] digits]`, at least one digit before the
/// exponent, read with Rust's correctly rounded parser (both hosts round
/// correctly).
fn decimal_float(text: &str, digit: impl Fn(char) -> Option<u32>) -> Option<f64> {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    let all_digits = |s: &str| s.chars().all(|c| digit(c).is_some());
    if whole.len() + fraction.len() == 0 || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    if let Some(exponent) = exponent {
        let unsigned = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        if unsigned.is_empty() || !all_digits(unsigned) {
            return None;
        }
    }
    text.parse().ok()
}

/// `s[start, start + length)`, or `None` where the host throws.
///
/// JVM (`s.substring(start, start + length)`): in UTF-16 code units;
/// throws when `start < 0`, `length < 0` or the end is past the string.
/// Python (`s[start:start + length]`): in code points, never throws; a
/// negative bound counts from the end, bounds are clamped to the string,
/// and an empty range gives "".
pub fn substring(host: Host, s: &str, start: i64, length: i64) -> Option<String> {
    match host {
        Host::Jvm => {
            let units: Vec<u16> = s.encode_utf16().collect();
            let end = start.checked_add(length)?;
            if start < 0 || length < 0 || end > units.len() as i64 {
                return None;
            }
            // A cut through a surrogate pair leaves a lone surrogate, which
            // Java keeps and Rust strings cannot hold: it becomes "?", as
            // Java's UTF-8 encoder (String.getBytes, Hadoop's Text) writes
            // it (bench/host-semantics.py compares with Java's output).
            Some(
                char::decode_utf16(units[start as usize..end as usize].iter().copied())
                    .map(|c| c.unwrap_or('?'))
                    .collect(),
            )
        }
        Host::Python => {
            let chars: Vec<char> = s.chars().collect();
            let len = chars.len() as i64;
            let clamp = |i: i64| {
                let i = if i < 0 { i.saturating_add(len) } else { i };
                i.clamp(0, len) as usize
            };
            let (a, b) = (clamp(start), clamp(start.saturating_add(length)));
            Some(if a < b {
                chars[a..b].iter().collect()
            } else {
                String::new()
            })
        }
    }
}

/// The length of `s`: UTF-16 code units on the JVM, code points in Python.
pub fn length(host: Host, s: &str) -> i64 {
    match host {
        Host::Jvm => s.encode_utf16().count() as i64,
        Host::Python => s.chars().count() as i64,
    }
}

/// The host's text of a boolean: `true` (JVM), `True` (Python).
pub fn format_bool(host: Host, b: bool) -> String {
    match (host, b) {
        (Host::Jvm, true) => "true".into(),
        (Host::Jvm, false) => "false".into(),
        (Host::Python, true) => "True".into(),
        (Host::Python, false) => "False".into(),
    }
}

/// The host's text of a float: the shortest digits that read back to it,
/// laid out as `Double.toString` does (plain for 1e-3 <= |x| < 1e7, else
/// `d.dddE±n`; always a digit after the point) or as Python's `repr`
/// (plain for 1e-4 <= |x| < 1e16, else `d.ddde±nn`).
pub fn format_float(host: Host, x: f64) -> String {
    if x.is_nan() {
        return match host {
            Host::Jvm => "NaN",
            Host::Python => "nan",
        }
        .into();
    }
    if x.is_infinite() {
        let text = match host {
            Host::Jvm => "Infinity",
            Host::Python => "inf",
        };
        return if x < 0.0 {
            format!("-{text}")
        } else {
            text.into()
        };
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x == 0.0 {
        return format!("{sign}0.0");
    }
    // Shortest round-trip digits and the decimal exponent: `{:e}` prints
    // "d.ddde<n>".
    let scientific = format!("{:e}", x.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let plain = match host {
        Host::Jvm => (-3..7).contains(&exponent),
        Host::Python => (-4..16).contains(&exponent),
    };
    if plain {
        let point = exponent + 1; // digits before the point
        let text = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        return format!("{sign}{text}");
    }
    let (first, rest) = digits.split_at(1);
    match host {
        Host::Jvm => {
            let rest = if rest.is_empty() { "0" } else { rest };
            format!("{sign}{first}.{rest}E{exponent}")
        }
        Host::Python => {
            let mantissa = if rest.is_empty() {
                first.to_string()
            } else {
                format!("{first}.{rest}")
            };
            let exp_sign = if exponent < 0 { '-' } else { '+' };
            format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.abs())
        }
    }
}

/// Python's `str.isspace()` for one character, what `str.split()` and
/// `str.strip()` take for whitespace (and `\s` in a pattern).
pub use coco_base::class_pattern::is_python_whitespace;

/// Python's `s.split()`: the pieces between runs of whitespace, none empty
/// (`""` and `"  "` give `[]`).
pub fn split_whitespace(s: &str) -> Vec<String> {
    s.split(is_python_whitespace)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// Python's `s.strip()`, `s.lstrip()`, `s.rstrip()` without an argument.
pub fn strip(s: &str, side: StripSide, spaces_only: bool) -> String {
    let stripped = |c: char| {
        if spaces_only {
            c == ' '
        } else {
            is_python_whitespace(c)
        }
    };
    match side {
        StripSide::Both => s.trim_matches(stripped),
        StripSide::Left => s.trim_start_matches(stripped),
        StripSide::Right => s.trim_end_matches(stripped),
    }
    .to_string()
}

/// Python's `s.lower()`: Unicode's full lower-case mapping with the final
/// sigma rule, as Rust's `to_lowercase` (Rust's tables are of a later
/// Unicode version than Python 3.11's 14.0, which matters only for
/// characters added since).
pub fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// Python's `s.upper()` (`"ß"` is `"SS"`).
pub fn upper(s: &str) -> String {
    s.to_uppercase()
}

/// `s.find(sub)` (Python, in code points) or `s.indexOf(sub)` (JVM, in
/// UTF-16 units): the index of the first occurrence, -1 for none.
pub fn find(host: Host, s: &str, sub: &str) -> i64 {
    match s.find(sub) {
        Some(byte) => length(host, &s[..byte]),
        None => -1,
    }
}

/// `s.replace(old, new)` (both hosts): every occurrence, found from the
/// left without overlaps. `None` for an empty `old`, which df does not
/// model.
pub fn replace(s: &str, old: &str, new: &str) -> Option<String> {
    (!old.is_empty()).then(|| s.replace(old, new))
}

/// Python's `a // b` and Java's `Math.floorDiv`: the quotient rounded down,
/// wrapping in i64 as `arith.divsi` does (`i64::MIN // -1`); `None` for a
/// zero divisor.
pub fn floor_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.wrapping_div(b);
    Some(if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Python's `a % b` and Java's `Math.floorMod`: the remainder with the sign
/// of the divisor; `None` for a zero divisor.
pub fn floor_mod(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let r = a.wrapping_rem(b);
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// Python's `a / b` on floats: IEEE division, `None` (ZeroDivisionError)
/// for a zero divisor of either sign.
pub fn true_div(a: f64, b: f64) -> Option<f64> {
    (b != 0.0).then(|| a / b)
}

/// Why [`csv_row`] gives no row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CsvRowError {
    /// `csv.Error`: the job fails (a line break in an unquoted field).
    Python(String),
    /// A quoted field open at the end of the line: `csv.reader` reads the
    /// next line into the same row, which coco does not model.
    QuotedPastLine,
}

/// The row Python's `csv.reader` reads from `line`, one line of a text
/// file (`next(csv.reader([line]))`, and each line of
/// `mapPartitions(csv.reader)`): the default (excel) dialect, fields cut
/// at `,`, `"` quoting with `""` inside quotes, `strict=False`. `""`
/// gives the empty row. A line break inside the line is a `csv.Error`,
/// as CPython's `_csv.c` raises it.
pub fn csv_row(line: &str) -> Result<Vec<String>, CsvRowError> {
    #[derive(PartialEq)]
    enum State {
        StartRecord,
        StartField,
        InField,
        InQuotedField,
        QuoteInQuotedField,
        EatNewline,
    }
    let mut row = Vec::new();
    let mut field = String::new();
    let mut state = State::StartRecord;
    for c in line.chars() {
        if state == State::StartRecord {
            if c == '\n' || c == '\r' {
                state = State::EatNewline;
                continue;
            }
            state = State::StartField;
        }
        match state {
            State::StartField | State::InField => match c {
                '\n' | '\r' => {
                    row.push(std::mem::take(&mut field));
                    state = State::EatNewline;
                }
                '"' if state == State::StartField => state = State::InQuotedField,
                ',' => {
                    row.push(std::mem::take(&mut field));
                    state = State::StartField;
                }
                c => {
                    field.push(c);
                    state = State::InField;
                }
            },
            State::InQuotedField => match c {
                '"' => state = State::QuoteInQuotedField,
                c => field.push(c),
            },
            State::QuoteInQuotedField => match c {
                '"' => {
                    field.push('"');
                    state = State::InQuotedField;
                }
                ',' => {
                    row.push(std::mem::take(&mut field));
                    state = State::StartField;
                }
                '\n' | '\r' => {
                    row.push(std::mem::take(&mut field));
                    state = State::EatNewline;
                }
                c => {
                    field.push(c);
                    state = State::InField;
                }
            },
            State::EatNewline => {
                if c != '\n' && c != '\r' {
                    return Err(CsvRowError::Python(
                        "new-line character seen in unquoted field - do you need to open the file in universal-newline mode?".into(),
                    ));
                }
            }
            State::StartRecord => unreachable!("left above"),
        }
    }
    // The end of the line.
    match state {
        State::StartRecord | State::EatNewline => {}
        State::InQuotedField => return Err(CsvRowError::QuotedPastLine),
        _ => row.push(field),
    }
    Ok(row)
}

/// The Python exception class a failing op raises in a PySpark job, for
/// people reading a failure: `ValueError` for a parse, `IndexError` for a
/// `df.get` past the end, `ZeroDivisionError` for a division, the class a
/// `df.raise` names; `None` for ops that never fail in Python (slicing,
/// the total `!df.option` forms). The failure reasons of the newer ops
/// (`df.floordiv`, `df.mod`, `df.truediv`, `df.raise`) start with the
/// class; the older ones keep the texts that test expectations hold
/// (`"x" is not an integer`), and this function names their class.
pub fn python_exception(op: &UdfOp) -> Option<&str> {
    Some(match op {
        UdfOp::ToInt { checked: false, .. } | UdfOp::ToFloat { checked: false } => "ValueError",
        UdfOp::Get { checked: false, .. } => "IndexError",
        UdfOp::IntBin(IntBinOp::Div | IntBinOp::Rem | IntBinOp::FloorDiv | IntBinOp::Mod)
        | UdfOp::FloatBin(FloatBinOp::TrueDiv) => "ZeroDivisionError",
        UdfOp::Raise { exception, .. } => exception,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(host: Host, s: &str, d: &str) -> Vec<String> {
        split(host, s, d)
    }

    #[test]
    fn jvm_split_drops_trailing_empty_fields() {
        // The examples of issue 13, as Java 17 prints them.
        assert_eq!(pieces(Host::Jvm, " ,", ","), [" "]);
        assert!(pieces(Host::Jvm, ",", ",").is_empty());
        assert_eq!(pieces(Host::Jvm, "a,,", ","), ["a"]);
        assert!(pieces(Host::Jvm, "\n", "\n").is_empty());
        assert_eq!(pieces(Host::Jvm, "", ","), [""]);
        assert_eq!(pieces(Host::Jvm, ",a,,b,", ","), ["", "a", "", "b"]);
        assert_eq!(pieces(Host::Jvm, "a::b", "::"), ["a", "b"]);
    }

    // Expected rows are CPython 3.11's `next(csv.reader([line]), None)`.
    #[test]
    fn csv_rows_are_pythons() {
        let row = |line| csv_row(line).unwrap();
        assert!(row("").is_empty());
        assert_eq!(row("a,b"), ["a", "b"]);
        assert_eq!(row(",a,"), ["", "a", ""]);
        assert_eq!(row("\"a,b\",c"), ["a,b", "c"]);
        assert_eq!(row("\"a\"\"b\""), ["a\"b"]);
        assert_eq!(row("a\"b,c"), ["a\"b", "c"]);
        assert_eq!(row("\"a\"x,y"), ["ax", "y"]);
        assert_eq!(row(" \"a\""), [" \"a\""]);
        assert_eq!(row("\"\""), [""]);
        assert_eq!(row("a\r"), ["a"]);
        assert!(matches!(csv_row("a\rb"), Err(CsvRowError::Python(_))));
        assert_eq!(csv_row("\"a,b"), Err(CsvRowError::QuotedPastLine));
    }

    #[test]
    fn python_split_keeps_every_field() {
        assert_eq!(pieces(Host::Python, "a,,", ","), ["a", "", ""]);
        assert_eq!(pieces(Host::Python, ",", ","), ["", ""]);
        assert_eq!(pieces(Host::Python, "", ","), [""]);
    }

    #[test]
    fn integers_parse_as_each_host_parses_them() {
        use ParseIntError::*;
        let jvm = |s| parse_int(Host::Jvm, s);
        let py = |s| parse_int(Host::Python, s);
        assert_eq!(jvm("+5"), Ok(5));
        assert_eq!(jvm("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(jvm("9223372036854775808"), Err(NotAnInteger));
        assert_eq!(jvm(" 5"), Err(NotAnInteger));
        assert_eq!(jvm("1_000"), Err(NotAnInteger));
        assert_eq!(jvm("\u{663}"), Ok(3)); // ARABIC-INDIC DIGIT THREE
        assert_eq!(jvm("\u{104A3}"), Err(NotAnInteger)); // a surrogate pair
        assert_eq!(jvm(""), Err(NotAnInteger));
        assert_eq!(jvm("-"), Err(NotAnInteger));
        assert_eq!(py(" 5\n"), Ok(5));
        assert_eq!(py("1_000"), Ok(1000));
        assert_eq!(py("1__0"), Err(NotAnInteger));
        assert_eq!(py("_1"), Err(NotAnInteger));
        assert_eq!(py("1_"), Err(NotAnInteger));
        assert_eq!(py("\u{104A3}"), Ok(3));
        assert_eq!(py("9223372036854775808"), Err(BeyondI64));
        assert_eq!(py("99999999999999999999999x"), Err(NotAnInteger));
        assert_eq!(py("-9223372036854775808"), Ok(i64::MIN));
    }

    #[test]
    fn floats_parse_as_each_host_parses_them() {
        let jvm = |s| parse_float(Host::Jvm, s);
        let py = |s| parse_float(Host::Python, s);
        assert_eq!(jvm(" 1.5d "), Some(1.5));
        assert_eq!(jvm("1."), Some(1.0));
        assert_eq!(jvm(".5"), Some(0.5));
        assert_eq!(jvm("."), None);
        assert_eq!(jvm("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(jvm("inf"), None);
        assert_eq!(jvm("1e"), None);
        assert!(jvm("NaN").is_some_and(f64::is_nan));
        assert_eq!(py("inf"), Some(f64::INFINITY));
        assert_eq!(py("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(py("1_0.5"), Some(10.5));
        assert_eq!(py("1.5d"), None);
        assert_eq!(py(" 2e3 "), Some(2000.0));
    }

    #[test]
    fn substrings_fail_on_the_jvm_and_clamp_in_python() {
        assert_eq!(substring(Host::Jvm, "hello", 1, 3).as_deref(), Some("ell"));
        assert_eq!(substring(Host::Jvm, "hello", 3, 3), None);
        assert_eq!(substring(Host::Jvm, "hello", -1, 1), None);
        assert_eq!(
            substring(Host::Python, "hello", 3, 3).as_deref(),
            Some("lo")
        );
        assert_eq!(
            substring(Host::Python, "hello", -2, 1).as_deref(),
            Some("l")
        );
        assert_eq!(substring(Host::Python, "hello", 4, -2).as_deref(), Some(""));
        assert_eq!(
            substring(Host::Jvm, "\u{1F600}b", 1, 2).as_deref(),
            Some("?b")
        );
        assert_eq!(length(Host::Jvm, "a\u{1F600}"), 3);
        assert_eq!(length(Host::Python, "a\u{1F600}"), 2);
    }

    #[test]
    fn floats_print_as_each_host_prints_them() {
        let jvm = |x| format_float(Host::Jvm, x);
        let py = |x| format_float(Host::Python, x);
        assert_eq!(jvm(1.0), "1.0");
        assert_eq!(jvm(1e7), "1.0E7");
        assert_eq!(jvm(1234567.5), "1234567.5");
        assert_eq!(jvm(0.001), "0.001");
        assert_eq!(jvm(0.0001), "1.0E-4");
        assert_eq!(jvm(-1.25e-10), "-1.25E-10");
        assert_eq!(py(1.0), "1.0");
        assert_eq!(py(1e16), "1e+16");
        assert_eq!(py(1.5e16), "1.5e+16");
        assert_eq!(py(123456789012345.6), "123456789012345.6");
        assert_eq!(py(0.0001), "0.0001");
        assert_eq!(py(0.00001), "1e-05");
        assert_eq!(py(-0.0), "-0.0");
        assert_eq!(jvm(f64::NAN), "NaN");
        assert_eq!(py(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn whitespace_split_and_strip_as_python_does() {
        // CPython 3.11: "  a  b \t c\n".split() == ['a', 'b', 'c'],
        // "a\x1cb".split() == ['a', 'b'], "".split() == "   ".split() == [].
        assert_eq!(split_whitespace("  a  b \t c\n"), ["a", "b", "c"]);
        assert_eq!(split_whitespace("a\u{1c}b"), ["a", "b"]);
        assert!(split_whitespace("").is_empty());
        assert!(split_whitespace("   ").is_empty());
        assert_eq!(split_whitespace("\u{a0}x\u{3000}y"), ["x", "y"]);
        // " \t a b\x0b\x1c ".strip() == 'a b'; "  a ".lstrip() == 'a ';
        // "  a ".rstrip() == '  a'; "\xa0a\u2003".strip() == 'a';
        // "\x85a\x1f".strip() == 'a'.
        assert_eq!(strip(" \t a b\u{b}\u{1c} ", StripSide::Both, false), "a b");
        assert_eq!(strip("  a ", StripSide::Left, false), "a ");
        assert_eq!(strip("  a ", StripSide::Right, false), "  a");
        assert_eq!(strip("\u{a0}a\u{2003}", StripSide::Both, false), "a");
        assert_eq!(strip("\u{85}a\u{1f}", StripSide::Both, false), "a");
        // Spark 3.5.3: trim(" \xa0a\xa0 ") == "\xa0a\xa0", ltrim keeps the
        // right end, rtrim the left; tabs and newlines stay.
        assert_eq!(
            strip(" \u{a0}a\u{a0} ", StripSide::Both, true),
            "\u{a0}a\u{a0}"
        );
        assert_eq!(
            strip(" \u{a0}a\u{a0} ", StripSide::Left, true),
            "\u{a0}a\u{a0} "
        );
        assert_eq!(
            strip(" \u{a0}a\u{a0} ", StripSide::Right, true),
            " \u{a0}a\u{a0}"
        );
        assert_eq!(strip("\n a \n", StripSide::Both, true), "\n a \n");
        assert_eq!(strip("   ", StripSide::Both, true), "");
        // The set is exactly str.isspace()'s (29 code points).
        let spaces: Vec<u32> = (0..0x11_0000)
            .filter_map(char::from_u32)
            .filter(|&c| is_python_whitespace(c))
            .map(|c| c as u32)
            .collect();
        let mut python = vec![
            0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0,
        ];
        python.extend([0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);
        python.extend(0x2000..=0x200a);
        python.sort_unstable();
        assert_eq!(spaces, python);
    }

    #[test]
    fn case_find_replace_and_suffixes_as_python_does() {
        // "ABCß".lower() == 'abcß', "abcß".upper() == 'ABCSS',
        // len("İ".lower()) == 2, "ΑΣ".lower() == 'ας', "ﬁ".upper() == 'FI'.
        assert_eq!(lower("ABC\u{df}"), "abc\u{df}");
        assert_eq!(upper("abc\u{df}"), "ABCSS");
        assert_eq!(lower("\u{130}").chars().count(), 2);
        assert_eq!(lower("\u{391}\u{3a3}"), "\u{3b1}\u{3c2}");
        assert_eq!(upper("\u{fb01}"), "FI");
        // "hello".find("l") == 2, .find("z") == -1, .find("") == 0,
        // "a\U0001F600b".find("b") == 2 (Java's indexOf: 3).
        assert_eq!(find(Host::Python, "hello", "l"), 2);
        assert_eq!(find(Host::Python, "hello", "z"), -1);
        assert_eq!(find(Host::Python, "hello", ""), 0);
        assert_eq!(find(Host::Python, "", ""), 0);
        assert_eq!(find(Host::Python, "a\u{1f600}b", "b"), 2);
        assert_eq!(find(Host::Jvm, "a\u{1f600}b", "b"), 3);
        // "aaa".replace("aa", "x") == 'xa', "a,b,,c".replace(",", ";") ==
        // 'a;b;;c', "abc".replace("b", "") == 'ac'.
        assert_eq!(replace("aaa", "aa", "x").as_deref(), Some("xa"));
        assert_eq!(replace("a,b,,c", ",", ";").as_deref(), Some("a;b;;c"));
        assert_eq!(replace("abc", "b", "").as_deref(), Some("ac"));
        assert_eq!(replace("abc", "", "-"), None);
    }

    #[test]
    fn integer_division_rounds_down_as_python_does() {
        // CPython 3.11: a // b and a % b.
        let cases = [
            (7, 2, 3, 1),
            (-7, 2, -4, 1),
            (7, -2, -4, -1),
            (-7, -2, 3, -1),
            (0, 3, 0, 0),
            (6, -3, -2, 0),
            (-6, 3, -2, 0),
            (-1, 5, -1, 4),
            (1, -5, -1, -4),
        ];
        for (a, b, q, r) in cases {
            assert_eq!(floor_div(a, b), Some(q), "{a} // {b}");
            assert_eq!(floor_mod(a, b), Some(r), "{a} % {b}");
        }
        // Python's 2**63 wraps to i64::MIN, as arith.divsi's quotient does.
        assert_eq!(floor_div(i64::MIN, -1), Some(i64::MIN));
        assert_eq!(floor_mod(i64::MIN, -1), Some(0));
        assert_eq!(floor_div(1, 0), None);
        assert_eq!(floor_mod(1, 0), None);
        // 7.0 / -2.0 == -3.5, 1e308 / 1e-10 == inf, 1.0 / -0.0 raises.
        assert_eq!(true_div(7.0, -2.0), Some(-3.5));
        assert_eq!(true_div(1e308, 1e-10), Some(f64::INFINITY));
        assert_eq!(true_div(1.0, -0.0), None);
        assert_eq!(true_div(0.0, 0.0), None);
    }

    #[test]
    fn failing_ops_name_their_python_exception() {
        let to_int = UdfOp::ToInt {
            int32: false,
            checked: false,
        };
        assert_eq!(python_exception(&to_int), Some("ValueError"));
        assert_eq!(
            python_exception(&UdfOp::Get {
                index: 1,
                checked: false
            }),
            Some("IndexError")
        );
        assert_eq!(
            python_exception(&UdfOp::IntBin(IntBinOp::FloorDiv)),
            Some("ZeroDivisionError")
        );
        let raise = UdfOp::Raise {
            exception: "KeyError".into(),
            message: None,
        };
        assert_eq!(python_exception(&raise), Some("KeyError"));
        assert_eq!(python_exception(&UdfOp::ToFloat { checked: true }), None);
        assert_eq!(python_exception(&UdfOp::Substr), None);
    }
}
