//! A script's DataFrame files as Spark 3.5 reads and writes them: the CSV
//! text of a case's rows that a script's reader takes back as the same
//! rows, and what a row a script writes holds once Spark's writer and
//! reader have been through it.
//!
//! Checked against Spark itself (docs/pyspark.md, "DataFrame scripts"):
//! the CSV writer drops each value's leading and trailing whitespace unless
//! told not to, writes NULL as an empty field and `""` as `""`, and the
//! reader reads both as NULL; the text writer writes NULL as an empty line.

use coco_dataflow::value::Value;

use crate::{
    frame::script::{Format, FrameFile},
    job::Input,
    shape::Shape,
};

/// One field's text: a string always quoted (so a separator, a quote or
/// whitespace inside it stays its own), its quote and escape characters
/// escaped; NULL an empty field.
pub fn field_text(value: Option<&Value>, file: &FrameFile) -> String {
    match value {
        None => String::new(),
        Some(Value::Str(s)) => {
            let mut out = String::new();
            out.push(file.quote);
            for c in s.chars() {
                if c == file.quote || (c == file.escape && file.escape != file.quote) {
                    out.push(file.escape);
                }
                out.push(c);
            }
            out.push(file.quote);
            out
        }
        Some(Value::Int(n)) => n.to_string(),
        Some(Value::Float(x)) => java_double(*x),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Option(inner)) => field_text(inner.as_deref(), file),
        Some(Value::List(_)) => unreachable!("a DataFrame column holds no list"),
    }
}

/// A double as Java's parser reads it back to the same value.
fn java_double(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        // Rust prints the shortest digits that read back to `x`.
        format!("{x:?}")
    }
}

/// The lines of a CSV file of `rows` (each a value per column): the
/// header first where the file has one.
pub fn lines(file: &FrameFile, rows: &[Vec<Option<Value>>]) -> Vec<String> {
    let sep = file.sep.to_string();
    let mut out = Vec::new();
    if file.header {
        let names: Vec<String> = file
            .columns
            .iter()
            .map(|c| field_text(Some(&Value::Str(c.name.clone())), file))
            .collect();
        out.push(names.join(&sep));
    }
    for row in rows {
        let fields: Vec<String> = row.iter().map(|v| field_text(v.as_ref(), file)).collect();
        out.push(fields.join(&sep));
    }
    out
}

/// What a value written to `file` reads back as: in CSV, a string without
/// the whitespace the writer drops, and NULL where nothing is left; in
/// text, an empty line for NULL.
pub fn read_back(value: Option<Value>, file: &FrameFile) -> Option<Value> {
    match file.format {
        Format::Csv => {}
        Format::Text => return Some(value.unwrap_or_else(|| Value::Str(String::new()))),
        Format::Json | Format::Parquet => return value,
    }
    match value {
        Some(Value::Str(s)) => {
            // The writer's whitespace is the JVM's: every char up to ' '.
            let space = |c: char| c <= ' ';
            let mut text: &str = &s;
            if file.trim_leading {
                text = text.trim_start_matches(space);
            }
            if file.trim_trailing {
                text = text.trim_end_matches(space);
            }
            (!text.is_empty()).then(|| Value::Str(text.to_string()))
        }
        other => other,
    }
}

/// The record fields of one input line: its tab-separated fields read as
/// `shape`'s types.
pub fn line_values(shape: &Shape, line: &str) -> Vec<Value> {
    line.split('\t')
        .zip(shape.fields())
        .map(|(text, ty)| match ty {
            crate::ir::Ty::Int => text
                .parse()
                .map(Value::Int)
                .unwrap_or(Value::Str(text.into())),
            crate::ir::Ty::Float => text
                .parse()
                .map(Value::Float)
                .unwrap_or(Value::Str(text.into())),
            crate::ir::Ty::Bool => match text {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::Str(text.into()),
            },
            _ => Value::Str(text.into()),
        })
        .collect()
}

/// A row's value per column from its record `fields` (a NULL-able
/// column's flag and value): `None` where NULL.
pub fn row_columns(shape: &Shape, fields: &[Value]) -> Vec<Option<Value>> {
    let Shape::Tuple(columns) = shape else {
        return fields.iter().cloned().map(Some).collect();
    };
    let mut fields = fields.iter();
    columns
        .iter()
        .map(|column| match column {
            Shape::Nullable(_) => {
                let present = matches!(fields.next(), Some(Value::Bool(true)));
                let value = fields.next().cloned();
                value.filter(|_| present)
            }
            _ => fields.next().cloned(),
        })
        .collect()
}

/// The lines of the CSV file a case gives a script's input read with
/// `spark.read.csv` (`records`: the case's records of it, as df text), or
/// `None` for other inputs.
pub fn case_lines(input: &Input, records: &[String]) -> Option<Vec<String>> {
    let file = input.read.as_ref().filter(|f| f.format == Format::Csv)?;
    let rows: Vec<Vec<Option<Value>>> = records
        .iter()
        .map(|l| row_columns(&input.shape, &line_values(&input.shape, l)))
        .collect();
    Some(lines(file, &rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(escape: char) -> FrameFile {
        FrameFile {
            format: Format::Csv,
            header: false,
            sep: ',',
            quote: '"',
            escape,
            trim_leading: true,
            trim_trailing: true,
            infer_schema: false,
            columns: Vec::new(),
        }
    }

    #[test]
    fn strings_are_quoted_with_their_quotes_escaped() {
        let s = Value::Str("q\"x,y\\z".into());
        assert_eq!(field_text(Some(&s), &csv('\\')), "\"q\\\"x,y\\\\z\"");
        assert_eq!(field_text(Some(&s), &csv('"')), "\"q\"\"x,y\\z\"");
        assert_eq!(field_text(None, &csv('\\')), "");
        assert_eq!(field_text(Some(&Value::Float(1e20)), &csv('\\')), "1e20");
        assert_eq!(field_text(Some(&Value::Float(-0.0)), &csv('\\')), "-0.0");
    }

    #[test]
    fn written_strings_lose_outer_whitespace_and_empty_is_null() {
        let file = csv('\\');
        let back = |s: &str| read_back(Some(Value::Str(s.into())), &file);
        assert_eq!(back(" a b\t"), Some(Value::Str("a b".into())));
        assert_eq!(back("\t"), None);
        assert_eq!(back(""), None);
        let kept = FrameFile {
            trim_leading: false,
            trim_trailing: false,
            ..file.clone()
        };
        assert_eq!(
            read_back(Some(Value::Str(" a ".into())), &kept),
            Some(Value::Str(" a ".into()))
        );
    }
}
