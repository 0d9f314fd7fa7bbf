//! Python source text: literals and names that read back exactly.

use std::fmt::Write as _;

/// A Python string literal holding exactly `s`: printable ASCII as itself,
/// everything else as an escape, so the job file is ASCII whatever the
/// program's constants hold.
pub fn str_literal(s: &str) -> String {
    format!("\"{}\"", text(s))
}

/// `s` for a comment or a docstring of the job: the body of its string
/// literal (`"` and `\` escaped, nothing outside printable ASCII), so that
/// no name, location or file name of the program can end the comment or the
/// docstring (a newline, a `"""`) and become code.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out
}

/// A Python float expression equal to `x` bit for bit.
pub fn float_literal(x: f64) -> String {
    if x.is_nan() {
        "math.nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "math.inf" } else { "-math.inf" }.into()
    } else {
        // Rust's `{:?}` is the shortest text that reads back to x, and
        // Python reads it the same way ("1e-7", "0.1", "-0.0").
        format!("{x:?}")
    }
}

/// A Python identifier for the MLIR symbol `name`: `prefix` and the name
/// itself when it is made of letters, digits and `_` (nearly always) and
/// does not start with `x_`, else `prefix`, `x_` and the name with `_`
/// doubled and anything else written `_hex_`, so two symbols never meet.
pub fn identifier(prefix: &str, name: &str) -> String {
    if !name.starts_with("x_") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return format!("{prefix}{name}");
    }
    let mut out = format!("{prefix}x_");
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if c == '_' {
            out.push_str("__");
        } else {
            let _ = write!(out, "_{:x}_", c as u32);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_escape_what_python_would_misread() {
        assert_eq!(str_literal("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(
            str_literal("\t\n\u{e9}\u{20ac}\u{1f600}"),
            r#""\x09\x0a\xe9\u20ac\U0001f600""#
        );
        assert_eq!(text("a\n\"\"\"b"), r#"a\x0a\"\"\"b"#);
        assert_eq!(float_literal(0.1), "0.1");
        assert_eq!(float_literal(-0.0), "-0.0");
        assert_eq!(float_literal(1e300), "1e300");
        assert_eq!(float_literal(f64::NEG_INFINITY), "-math.inf");
    }

    #[test]
    fn identifiers_keep_symbols_apart() {
        assert_eq!(identifier("udf_", "parse"), "udf_parse");
        assert_ne!(identifier("udf_", "a_b"), identifier("udf_", "a.b"));
        assert_eq!(identifier("udf_", "by_country"), "udf_by_country");
        assert_ne!(identifier("udf_", "x_a_2e_b"), identifier("udf_", "a.b"));
        assert_ne!(identifier("udf_", "a._2e_b"), identifier("udf_", "a_.b"));
    }
}
