//! The text of records: how Spark's `sc.textFile` turns a file's bytes into
//! records ([`split_records`]: Hadoop's `LineRecordReader` with its default
//! delimiter, then `Text.toString`), and how tools show a record or a name
//! in a message ([`escape`]).
//!
//! The expected records in the tests below are what `sc.textFile(path)
//! .collect()` returned for the same bytes on Spark 3.5.3 (Hadoop 3.3.4,
//! OpenJDK 17.0.15), with one partition and with 64.

use std::{borrow::Cow, fmt::Write as _};

/// The UTF-8 byte order mark, which spreadsheets write at the start of a
/// "CSV UTF-8" export.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The records Spark reads from a file holding `bytes`, as Hadoop's
/// `LineRecordReader` splits it with the default delimiter:
///
/// * `\n`, `\r` and `\r\n` each end a record (so `a\r\rb` is `a`, ``, `b`);
/// * a last record without a terminator is a record; an empty part after
///   the last terminator is none (`a\n` is one record, the empty file none);
/// * a UTF-8 byte order mark is dropped from the start of the file only
///   (`LineRecordReader.skipUtfByteOrderMark`, applied at offset 0, so on
///   the first split); a file that is just the mark holds no record;
/// * each record's bytes are decoded as `Text.toString` does
///   ([`decode_utf8_as_java`]): malformed UTF-8 becomes U+FFFD.
///
/// Splits do not change the records: a split starting inside a line leaves
/// it to the split before, which reads past its end to finish it.
pub fn split_records(bytes: &[u8]) -> Vec<String> {
    let mut records = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let (end, terminator) = match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(at) if rest[at] == b'\r' && rest.get(at + 1) == Some(&b'\n') => (at, 2),
            Some(at) => (at, 1),
            None => (rest.len(), 0),
        };
        let mut line = &rest[..end];
        if pos == 0 && line.starts_with(BOM) {
            line = &line[BOM.len()..];
            // Hadoop counts the bytes the first line consumed less the mark:
            // none left means no record.
            if line.is_empty() && terminator == 0 {
                break;
            }
        }
        records.push(decode_utf8_as_java(line));
        pos += end + terminator;
    }
    records
}

/// `bytes` decoded as Java's UTF-8 decoder does with malformed input
/// replaced (`new String(bytes, UTF_8)`, Hadoop's `Text.toString`). Valid
/// UTF-8 decodes as everywhere. Malformed sequences become U+FFFD with
/// Java's (JDK 17 `sun.nio.cs.UTF_8`) granularity, which differs from
/// [`String::from_utf8_lossy`] on encoded surrogates: `ED A0 80` is one
/// U+FFFD in Java and three in Rust, and `ED A0` before anything but a
/// continuation byte is one in Java and two in Rust. Elsewhere (overlong
/// forms, code points past U+10FFFF, stray continuation bytes, `F5`-`FF`,
/// truncated sequences) both replace the same bytes, each maximal invalid
/// prefix by one U+FFFD.
pub fn decode_utf8_as_java(bytes: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_string();
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    let mut i = 0;
    while i < bytes.len() {
        match java_utf8_step(&bytes[i..]) {
            Ok((c, len)) => {
                out.push(c);
                i += len;
            }
            Err(len) => {
                out.push(char::REPLACEMENT_CHARACTER);
                i += len;
            }
        }
    }
    out
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// One step of `UTF_8.Decoder.decodeArrayLoop` at the start of `rest`
/// (never empty): the character and the bytes it took, or the length of
/// the malformed input that one U+FFFD replaces. A sequence cut short by
/// the end of the input is malformed as a whole (`CharsetDecoder.decode`
/// replaces what remains after an underflow at the end of the input).
fn java_utf8_step(rest: &[u8]) -> Result<(char, usize), usize> {
    let b1 = rest[0];
    let remaining = rest.len();
    let char_of = |code: u32, len: usize| char::from_u32(code).map(|c| (c, len)).ok_or(len);
    match b1 {
        0x00..=0x7F => Ok((b1 as char, 1)),
        0xC2..=0xDF => {
            if remaining < 2 {
                return Err(remaining);
            }
            let b2 = rest[1];
            if !is_continuation(b2) {
                return Err(1);
            }
            char_of(((b1 as u32 & 0x1F) << 6) | (b2 as u32 & 0x3F), 2)
        }
        0xE0..=0xEF => {
            // E0 followed by 80-9F is an overlong form.
            let malformed_2 = |b2: u8| (b1 == 0xE0 && b2 & 0xE0 == 0x80) || !is_continuation(b2);
            if remaining < 3 {
                if remaining > 1 && malformed_2(rest[1]) {
                    return Err(1);
                }
                return Err(remaining);
            }
            let (b2, b3) = (rest[1], rest[2]);
            if malformed_2(b2) {
                return Err(1);
            }
            if !is_continuation(b3) {
                return Err(2);
            }
            let code = ((b1 as u32 & 0x0F) << 12) | ((b2 as u32 & 0x3F) << 6) | (b3 as u32 & 0x3F);
            // An encoded surrogate is malformed as a whole.
            if (0xD800..=0xDFFF).contains(&code) {
                return Err(3);
            }
            char_of(code, 3)
        }
        0xF0..=0xF7 => {
            let malformed_2 = |b2: u8| {
                b1 > 0xF4
                    || (b1 == 0xF0 && !(0x90..=0xBF).contains(&b2))
                    || (b1 == 0xF4 && b2 & 0xF0 != 0x80)
                    || !is_continuation(b2)
            };
            if remaining < 4 {
                if b1 > 0xF4 || (remaining > 1 && malformed_2(rest[1])) {
                    return Err(1);
                }
                if remaining > 2 && !is_continuation(rest[2]) {
                    return Err(2);
                }
                return Err(remaining);
            }
            let (b2, b3, b4) = (rest[1], rest[2], rest[3]);
            let code = ((b1 as u32 & 0x07) << 18)
                | ((b2 as u32 & 0x3F) << 12)
                | ((b3 as u32 & 0x3F) << 6)
                | (b4 as u32 & 0x3F);
            let valid = is_continuation(b2)
                && is_continuation(b3)
                && is_continuation(b4)
                && (0x1_0000..=0x10_FFFF).contains(&code);
            if valid {
                return char_of(code, 4);
            }
            // `malformedN(src, 4)`.
            if malformed_2(b2) {
                Err(1)
            } else if !is_continuation(b3) {
                Err(2)
            } else {
                Err(3)
            }
        }
        // Continuation bytes, C0 and C1 (overlong), F8-FF.
        _ => Err(1),
    }
}

/// Whether `c` is shown as an escape: control characters (C0, DEL, C1),
/// and the invisible format characters that reorder or hide text (bidi
/// controls and isolates, zero-width characters, line and paragraph
/// separators, the byte order mark, tag characters).
fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

/// `text` as a tool shows a data value or a name in a message, a report or
/// a summary, so that it stays on its line and cannot drive the terminal:
/// a backslash is `\\`, tab, newline and carriage return are `\t`, `\n`,
/// `\r`, and every other character [`unprintable`] lists is `\u{XX}`, as
/// Rust's `escape_debug` writes it. Other text (quotes, letters of every
/// script) is left as it is. Borrowed when nothing needs escaping.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\\' || unprintable(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if unprintable(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A whole message or output, lines kept: every [`unprintable`] character
/// but newline and tab becomes `\u{XX}`, and nothing else changes (a
/// backslash stays, so values [`escape`]d before are not escaped twice).
/// The last line of defence for text a tool writes to a terminal.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let shown = |c: char| c == '\n' || c == '\t' || !unprintable(c);
    if text.chars().all(shown) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if shown(c) {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes of a file, and the records `sc.textFile` read from it on Spark
    /// 3.5.3 (the same with 1 and with 64 partitions).
    const SPARK: &[(&[u8], &[&str])] = &[
        (b"a\nb", &["a", "b"]),
        (b"a\rb\r\nc\n\rd", &["a", "b", "c", "", "d"]),
        (b"\n\n", &["", ""]),
        (b"a\r", &["a"]),
        (b"a\r\r\n", &["a", ""]),
        (b"", &[]),
        (b"a\r\nb\r\n", &["a", "b"]),
        (b"a\n\rb", &["a", "", "b"]),
        // The byte order mark: dropped at the start of the file only.
        (b"\xef\xbb\xbfa\nb", &["a", "b"]),
        (b"a\n\xef\xbb\xbfb", &["a", "\u{feff}b"]),
        (b"\xef\xbb\xbf", &[]),
        (b"\xef\xbb\xbf\n", &[""]),
        (b"\xef\xbb\xbf\na", &["", "a"]),
        (b"\xef\xbb\xbf\xef\xbb\xbfa", &["\u{feff}a"]),
        (b"\xef\xbbx\n", &["\u{fffd}x"]),
        (b"\xef\xbb\xbf\ra", &["", "a"]),
        // Other control characters are data.
        (b"a\x00b\n", &["a\u{0}b"]),
        (b"\x1b[2J\x7f\n", &["\u{1b}[2J\u{7f}"]),
        (b"a\xe2\x80\xa8b\n", &["a\u{2028}b"]),
        (b"a\xc2\x85b\n", &["a\u{85}b"]),
        (b"a\x0bb\x0cc\n", &["a\u{b}b\u{c}c"]),
        // Malformed UTF-8.
        (b"\xff\n", &["\u{fffd}"]),
        (b"a\xc3\nb", &["a\u{fffd}", "b"]),
        (b"a\xc3", &["a\u{fffd}"]),
        (b"\xc3(\n", &["\u{fffd}("]),
        (b"\xe2\x82(\n", &["\u{fffd}("]),
        (b"x\xe2\x82\ny", &["x\u{fffd}", "y"]),
        (b"\xed\xa0\x80\n", &["\u{fffd}"]),
        (b"\xed\xa0\xbd\xed\xb8\x80\n", &["\u{fffd}\u{fffd}"]),
        (b"\xf0\x9f\x98", &["\u{fffd}"]),
        (b"\xf0\x9f\x98a\n", &["\u{fffd}a"]),
        (b"\xf0\x9fa\n", &["\u{fffd}a"]),
        (b"\xc0\xaf\n", &["\u{fffd}\u{fffd}"]),
        (b"\xe0\x80\xaf\n", &["\u{fffd}\u{fffd}\u{fffd}"]),
        (b"\xf0\x80\x80\xaf\n", &["\u{fffd}\u{fffd}\u{fffd}\u{fffd}"]),
        (b"\xf4\x90\x80\x80\n", &["\u{fffd}\u{fffd}\u{fffd}\u{fffd}"]),
        (b"\xf5\x80\x80\x80\n", &["\u{fffd}\u{fffd}\u{fffd}\u{fffd}"]),
        (
            b"\xf8\x88\x80\x80\x80\n",
            &["\u{fffd}\u{fffd}\u{fffd}\u{fffd}\u{fffd}"],
        ),
        (b"\x80\x80\xbf\n", &["\u{fffd}\u{fffd}\u{fffd}"]),
        (b"\xe0\xa0\n", &["\u{fffd}"]),
        (b"\xe0\x9f", &["\u{fffd}\u{fffd}"]),
        (b"\xed\x9f\xbf\n", &["\u{d7ff}"]),
        (b"\xf4\x8f\xbf\xbf\n", &["\u{10ffff}"]),
        (b"\xf4\x90", &["\u{fffd}\u{fffd}"]),
        (b"\xf0\x90", &["\u{fffd}"]),
        (b"\xf0\x80", &["\u{fffd}\u{fffd}"]),
        (b"\xe1", &["\u{fffd}"]),
        (b"\xe1\x80", &["\u{fffd}"]),
        (b"\xc2\r\xa9\n", &["\u{fffd}", "\u{fffd}"]),
        (
            b"ok\xe2\x82\xac\xff\xfe\xc3\xa9\xe2\x28\xa1\n",
            &["ok\u{20ac}\u{fffd}\u{fffd}\u{e9}\u{fffd}(\u{fffd}"],
        ),
    ];

    #[test]
    fn records_are_what_spark_text_file_reads() {
        for (bytes, expected) in SPARK {
            assert_eq!(split_records(bytes), *expected, "bytes {bytes:x?}");
        }
    }

    /// Where Java's replacement differs from Rust's: one U+FFFD for an
    /// encoded surrogate, not one per byte.
    #[test]
    fn encoded_surrogates_are_one_replacement_as_in_java() {
        assert_eq!(String::from_utf8_lossy(b"\xed\xa0\x80").chars().count(), 3);
        assert_eq!(decode_utf8_as_java(b"\xed\xa0\x80"), "\u{fffd}");
        assert_eq!(decode_utf8_as_java(b"\xed\xa0("), "\u{fffd}(");
        assert_eq!(decode_utf8_as_java(b"\xed\xa0"), "\u{fffd}");
    }

    #[test]
    fn escapes_keep_values_on_their_line() {
        assert_eq!(escape("plain \"text\" é 5"), "plain \"text\" é 5");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(
            escape("a\nb\r\tc\\d\u{1b}[2J\u{7f}\u{9b}\u{202e}"),
            "a\\nb\\r\\tc\\\\d\\u{1b}[2J\\u{7f}\\u{9b}\\u{202e}"
        );
        assert_eq!(
            escape_controls("line 1\n\tline \\2\u{1b}[2J\r"),
            "line 1\n\tline \\2\\u{1b}[2J\\u{d}"
        );
    }
}
