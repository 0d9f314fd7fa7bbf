//! Spark SQL's own semantics where a DataFrame job's columns differ from the
//! host language's: `CAST(string AS type)` with ANSI mode off (Spark 3.5),
//! which is not Python's `int()` or Java's `Long.parseLong`.
//!
//! The rules follow Spark's `UTF8String.toInt`/`toLong`, `Cast.castToDouble`
//! and `StringUtils.isTrueString`; the unit tests below are a table read
//! off Spark 3.5.3 itself (`CAST(s AS INT)` and so on for each text), and
//! the pyspark subset job `frame_casts.py` checks generated data against
//! Spark in CI.

use crate::{
    host::{self, Host},
    model::SqlCastTarget,
    value::Value,
};

/// `CAST(text AS to)`, or `None` where Spark gives NULL.
pub fn cast_str(to: SqlCastTarget, text: &str) -> Option<Value> {
    match to {
        SqlCastTarget::Int => integer(text, i32::MIN.into(), i32::MAX.into()).map(Value::Int),
        SqlCastTarget::BigInt => integer(text, i64::MIN.into(), i64::MAX.into()).map(Value::Int),
        SqlCastTarget::Double => double(text).map(Value::Float),
        SqlCastTarget::Boolean => boolean(text).map(Value::Bool),
    }
}

/// The bytes `UTF8String.trimAll` and the integer parses skip at both
/// ends: `Character.isWhitespace` or `isISOControl` of a (signed) byte,
/// so ASCII's controls, the space and DEL, and no byte of a multi-byte
/// character.
pub fn is_sql_trimmed(byte: u8) -> bool {
    byte <= b' ' || byte == 0x7f
}

fn trim_all(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_ascii() && is_sql_trimmed(c as u8))
}

/// `UTF8String.toInt`/`toLong`: an optional sign, ASCII digits, and an
/// optional `.` followed by ASCII digits that are dropped (truncation
/// toward zero, so `"-1.9"` is -1). At least one character after the sign,
/// which may be the point alone (`"."` and `"+."` are 0).
fn integer(text: &str, min: i128, max: i128) -> Option<i64> {
    let body = trim_all(text);
    let (negative, rest) = match body.as_bytes().first()? {
        b'-' => (true, &body[1..]),
        b'+' => (false, &body[1..]),
        _ => (false, body),
    };
    if rest.is_empty() {
        return None;
    }
    let (whole, fraction) = match rest.split_once('.') {
        Some((whole, fraction)) => (whole, fraction),
        None => (rest, ""),
    };
    if !whole
        .bytes()
        .chain(fraction.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut magnitude: i128 = 0;
    for digit in whole.bytes() {
        magnitude = magnitude * 10 + i128::from(digit - b'0');
        if magnitude > max + 1 {
            return None;
        }
    }
    let value = if negative { -magnitude } else { magnitude };
    (min..=max)
        .contains(&value)
        .then(|| i64::try_from(value).expect("within i64"))
}

/// `Cast.castToDouble`: `Double.parseDouble` of the text, and where that
/// throws, the special literals of `processFloatingPointSpecialLiterals`.
fn double(text: &str) -> Option<f64> {
    if let Some(x) = host::parse_float(Host::Jvm, text) {
        return Some(x);
    }
    // Java's String.trim: characters up to U+0020.
    match text
        .trim_matches(|c: char| c <= ' ')
        .to_lowercase()
        .as_str()
    {
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

/// The texts `StringUtils.isTrueString` and `isFalseString` accept, after
/// `trimAll` and lower-casing.
pub const TRUE_TEXTS: [&str; 5] = ["t", "true", "y", "yes", "1"];
pub const FALSE_TEXTS: [&str; 5] = ["f", "false", "n", "no", "0"];

fn boolean(text: &str) -> Option<bool> {
    let word = trim_all(text).to_lowercase();
    if TRUE_TEXTS.contains(&word.as_str()) {
        Some(true)
    } else if FALSE_TEXTS.contains(&word.as_str()) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read off Spark 3.5.3 (`spark.sql.ansi.enabled=false`):
    /// `df.select(col("s").cast("int"), ...)` for each text.
    #[allow(clippy::type_complexity)]
    const SPARK: &[(&str, Option<i64>, Option<i64>, Option<f64>, Option<bool>)] = &[
        ("1", Some(1), Some(1), Some(1.0), Some(true)),
        (" 12 ", Some(12), Some(12), Some(12.0), None),
        ("1.9", Some(1), Some(1), Some(1.9), None),
        ("-1.9", Some(-1), Some(-1), Some(-1.9), None),
        (".", Some(0), Some(0), None, None),
        ("+.", Some(0), Some(0), None, None),
        ("-", None, None, None, None),
        ("+", None, None, None, None),
        ("", None, None, None, None),
        ("1_0", None, None, None, None),
        ("1.", Some(1), Some(1), Some(1.0), None),
        (".5", Some(0), Some(0), Some(0.5), None),
        ("1.5x", None, None, None, None),
        ("1e3", None, None, Some(1000.0), None),
        ("\t7\n", Some(7), Some(7), Some(7.0), None),
        ("\x007\x1f", Some(7), Some(7), Some(7.0), None),
        ("\x7f8", Some(8), Some(8), None, None),
        (
            "2147483647",
            Some(2147483647),
            Some(2147483647),
            Some(2147483647.0),
            None,
        ),
        (
            "2147483648",
            None,
            Some(2147483648),
            Some(2147483648.0),
            None,
        ),
        (
            "-2147483648",
            Some(-2147483648),
            Some(-2147483648),
            Some(-2147483648.0),
            None,
        ),
        (
            "9223372036854775807",
            None,
            Some(i64::MAX),
            Some(9.223372036854776e18),
            None,
        ),
        (
            "9223372036854775808",
            None,
            None,
            Some(9.223372036854776e18),
            None,
        ),
        ("0x10", None, None, None, None),
        ("١٢", None, None, None, None),
        ("1 2", None, None, None, None),
        ("+-1", None, None, None, None),
        ("--1", None, None, None, None),
        ("  ", None, None, None, None),
        ("1.2.3", None, None, None, None),
        ("\u{a0}5", None, None, None, None),
        ("00012", Some(12), Some(12), Some(12.0), None),
        ("inf", None, None, Some(f64::INFINITY), None),
        ("-Infinity", None, None, Some(f64::NEG_INFINITY), None),
        ("INF", None, None, Some(f64::INFINITY), None),
        ("1d", None, None, Some(1.0), None),
        ("1f", None, None, Some(1.0), None),
        ("1e", None, None, None, None),
        ("t", None, None, None, Some(true)),
        ("TRUE", None, None, None, Some(true)),
        (" yes ", None, None, None, Some(true)),
        ("Y", None, None, None, Some(true)),
        ("no", None, None, None, Some(false)),
        ("0", Some(0), Some(0), Some(0.0), Some(false)),
        ("2", Some(2), Some(2), Some(2.0), None),
        ("f", None, None, None, Some(false)),
        ("off", None, None, None, None),
        ("\x0bn", None, None, None, Some(false)),
        ("1.0", Some(1), Some(1), Some(1.0), None),
    ];

    #[test]
    fn casts_agree_with_spark() {
        for &(text, int, bigint, double, boolean) in SPARK {
            let got = |to| cast_str(to, text);
            assert_eq!(got(SqlCastTarget::Int), int.map(Value::Int), "int {text:?}");
            assert_eq!(
                got(SqlCastTarget::BigInt),
                bigint.map(Value::Int),
                "bigint {text:?}"
            );
            assert_eq!(
                got(SqlCastTarget::Double),
                double.map(Value::Float),
                "double {text:?}"
            );
            assert_eq!(
                got(SqlCastTarget::Boolean),
                boolean.map(Value::Bool),
                "boolean {text:?}"
            );
        }
    }

    #[test]
    fn nan_texts_are_doubles() {
        for text in ["NaN", "nan", "-NaN", " NAN "] {
            assert!(matches!(double(text), Some(x) if x.is_nan()), "{text:?}");
        }
    }
}
