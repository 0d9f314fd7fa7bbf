//! Spark SQL types and the schemas of a job's DataFrames: a DDL string
//! (`"order_id STRING, amount DOUBLE"`) or a `StructType([StructField(...)])`
//! of the job's file, read into typed columns.

use crate::{
    error::{unsupported, Loc, Result},
    ir::Ty,
    shape::Shape,
    syntax::{Constant, Node},
    udf::describe,
};

/// The Spark SQL types a column of a supported job may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlTy {
    Str,
    /// `INT`: 32 bits, wrapping on overflow (ANSI off).
    Int,
    /// `BIGINT`/`LONG`.
    Long,
    /// `FLOAT`: 32 bits, held as the double it widens to exactly. Read
    /// from a file, values are quarters below 2^20, which it holds
    /// exactly; arithmetic on it (rounded to 32 bits) is not modelled.
    Float,
    Double,
    Bool,
}

impl SqlTy {
    /// The df type that holds a value of this type.
    pub fn ty(self) -> Ty {
        match self {
            SqlTy::Str => Ty::Str,
            SqlTy::Int | SqlTy::Long => Ty::Int,
            SqlTy::Float | SqlTy::Double => Ty::Float,
            SqlTy::Bool => Ty::Bool,
        }
    }

    /// Spark's name of the type (`bigint`), for diagnostics.
    pub fn name(self) -> &'static str {
        match self {
            SqlTy::Str => "string",
            SqlTy::Int => "int",
            SqlTy::Long => "bigint",
            SqlTy::Float => "float",
            SqlTy::Double => "double",
            SqlTy::Bool => "boolean",
        }
    }

    /// Whether a value of this type is held as an `f64` (DOUBLE, FLOAT).
    pub fn is_floating(self) -> bool {
        matches!(self, SqlTy::Float | SqlTy::Double)
    }

    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            SqlTy::Int | SqlTy::Long | SqlTy::Float | SqlTy::Double
        )
    }

    /// The type both operands of arithmetic or a comparison are widened
    /// to (Spark's numeric precedence: int < bigint < double).
    pub fn wider(self, other: SqlTy) -> Option<SqlTy> {
        use SqlTy::*;
        match (self, other) {
            (a, b) if a == b => Some(a),
            (Double, b) | (b, Double) if b.is_numeric() => Some(Double),
            (Float, b) | (b, Float) if b.is_numeric() => Some(Float),
            (Long, Int) | (Int, Long) => Some(Long),
            _ => None,
        }
    }

    /// A type named in a DDL string or by `cast("...")`.
    pub fn from_ddl(name: &str) -> Option<SqlTy> {
        Some(match name.to_ascii_lowercase().as_str() {
            "string" => SqlTy::Str,
            "int" | "integer" => SqlTy::Int,
            "bigint" | "long" => SqlTy::Long,
            "float" | "real" => SqlTy::Float,
            "double" => SqlTy::Double,
            "boolean" | "bool" => SqlTy::Bool,
            _ => return None,
        })
    }

    /// A type object of `pyspark.sql.types` (`LongType()`), or its DDL name
    /// as a string (`"bigint"`).
    pub fn from_node(node: &Node) -> Option<SqlTy> {
        if let Some(text) = node.str_constant() {
            return SqlTy::from_ddl(text.trim());
        }
        if !node.is("Call") || !node.list("args").is_empty() {
            return None;
        }
        let func = node.expect("func");
        let name = func.name().or_else(|| func.str("attr"))?;
        Some(match name.as_str() {
            "StringType" => SqlTy::Str,
            "IntegerType" => SqlTy::Int,
            "LongType" => SqlTy::Long,
            "FloatType" => SqlTy::Float,
            "DoubleType" => SqlTy::Double,
            "BooleanType" => SqlTy::Bool,
            _ => return None,
        })
    }
}

/// The types a supported job's columns and UDF results may have, for
/// diagnostics.
pub const SUPPORTED_TYPES: &str = "string, bigint (long), int, float, double, boolean";

/// One column of a DataFrame.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    pub ty: SqlTy,
    /// Whether the column may hold SQL NULL: the record carries an `i1`
    /// (present) before the value, which is the type's default when absent.
    pub nullable: bool,
}

impl Column {
    pub fn shape(&self) -> Shape {
        let field = Shape::Field(self.ty.ty());
        if self.nullable {
            Shape::Nullable(Box::new(field))
        } else {
            field
        }
    }
}

/// The record shape of rows of `columns`.
pub fn row_shape(columns: &[Column]) -> Shape {
    Shape::Tuple(columns.iter().map(Column::shape).collect())
}

/// The record fields of a source that hold 32-bit values: INT columns'
/// (kept within 32 bits) and FLOAT columns' (read as 32-bit floats). A
/// NULL-able column is its flag and then its value.
#[derive(Clone, Debug, Default)]
pub struct Narrow {
    pub int32: Vec<usize>,
    pub float32: Vec<usize>,
}

impl Narrow {
    pub fn of(columns: &[Column]) -> Narrow {
        let mut narrow = Narrow::default();
        let mut field = 0;
        for c in columns {
            field += usize::from(c.nullable);
            match c.ty {
                SqlTy::Int => narrow.int32.push(field),
                SqlTy::Float => narrow.float32.push(field),
                _ => {}
            }
            field += 1;
        }
        narrow
    }

    /// The df source's attributes: ` int32 [1] float32 [3]`.
    pub fn attributes(&self) -> String {
        let list = |name: &str, fields: &[usize]| {
            if fields.is_empty() {
                return String::new();
            }
            let fields: Vec<String> = fields.iter().map(usize::to_string).collect();
            format!(" {name} [{}]", fields.join(", "))
        };
        format!(
            "{}{}",
            list("int32", &self.int32),
            list("float32", &self.float32)
        )
    }
}

/// The columns a schema (`node`: a DDL string or a `StructType`) names.
pub fn parse(node: &Node) -> Result<Vec<Column>> {
    let columns = match node.str_constant() {
        Some(ddl) => parse_ddl(&ddl, &node.loc)?,
        None => parse_struct(node)?,
    };
    if columns.is_empty() {
        return unsupported(&node.loc, "a schema with no columns");
    }
    for (i, c) in columns.iter().enumerate() {
        if let Some(d) = columns[..i]
            .iter()
            .find(|d| crate::frame::names::same_name(&d.name, &c.name))
        {
            if d.name == c.name {
                return unsupported(&node.loc, format!("two columns named {}", c.name));
            }
            return unsupported(
                &node.loc,
                format!("columns {:?} and {:?} differ only in case: Spark resolves column names case-insensitively (spark.sql.caseSensitive is off), so a reference to either is ambiguous; rename one", d.name, c.name),
            );
        }
    }
    Ok(columns)
}

/// A word of a DDL string, as Spark's SQL lexer splits it.
#[derive(Clone, Debug, PartialEq)]
enum Word {
    /// Letters, digits and `_` (Spark's identifiers are ASCII).
    Plain(String),
    /// `` `a.b` ``, with ``` `` ``` for a backtick.
    Quoted(String),
    /// `,` `:` `(` `<` and the other single characters the grammar has.
    Punct(char),
    /// `'...'` or `"..."`: a string literal, never a name.
    Literal,
}

/// The words of `ddl`, or why Spark's lexer rejects it: it skips only
/// ` \t\n\r` and comments (not a no-break space or a form feed) and reads
/// no other character outside quotes (not a NUL, `$` or `.`).
fn ddl_words(ddl: &str) -> std::result::Result<Vec<Word>, String> {
    let chars: Vec<char> = ddl.chars().collect();
    let mut words = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | '\r' => i += 1,
            '-' if chars.get(i + 1) == Some(&'-') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                let close = (i + 2..chars.len().saturating_sub(1))
                    .find(|&j| chars[j] == '*' && chars[j + 1] == '/')
                    .ok_or("a /* comment that does not end")?;
                i = close + 2;
            }
            '`' => {
                let mut name = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("a backtick that is not closed".into()),
                        Some('`') if chars.get(i + 1) == Some(&'`') => {
                            name.push('`');
                            i += 2;
                        }
                        Some('`') => break,
                        Some(&c) => {
                            name.push(c);
                            i += 1;
                        }
                    }
                }
                i += 1;
                words.push(Word::Quoted(name));
            }
            '\'' | '"' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != c {
                    j += if chars[j] == '\\' { 2 } else { 1 };
                }
                if j >= chars.len() {
                    return Err(format!("a {c} that is not closed"));
                }
                i = j + 1;
                words.push(Word::Literal);
            }
            c if c.is_ascii_alphanumeric() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                words.push(Word::Plain(chars[start..i].iter().collect()));
            }
            ',' | ':' | '(' | ')' | '<' | '>' => {
                words.push(Word::Punct(c));
                i += 1;
            }
            c => {
                return Err(format!(
                    "the character {:?} (U+{:04X}) outside backticks",
                    c, c as u32
                ))
            }
        }
    }
    Ok(words)
}

/// `"name TYPE [NOT NULL], ..."`, read as Spark reads it: what Spark's
/// parser rejects is refused with its reason, not read another way.
fn parse_ddl(ddl: &str, loc: &Loc) -> Result<Vec<Column>> {
    let rejected = |why: String| {
        unsupported(
            loc,
            format!("Spark rejects the schema {ddl:?} (a ParseException): {why}"),
        )
    };
    let words = match ddl_words(ddl) {
        Ok(words) => words,
        Err(why) => return rejected(why),
    };
    let mut columns = Vec::new();
    let count = words.iter().filter(|w| **w == Word::Punct(',')).count() + 1;
    for (index, part) in words.split(|w| *w == Word::Punct(',')).enumerate() {
        if part.is_empty() {
            if count == 1 {
                break;
            }
            return rejected(if index + 1 == count {
                "a comma after the last column".into()
            } else {
                "a column with no name or type between commas".into()
            });
        }
        let text = |w: &Word| match w {
            Word::Plain(s) => s.clone(),
            Word::Quoted(s) => format!("`{}`", s.replace('`', "``")),
            Word::Punct(c) => c.to_string(),
            Word::Literal => "a string literal".into(),
        };
        let shown = part.iter().map(text).collect::<Vec<_>>().join(" ");
        let name = match &part[0] {
            Word::Quoted(name) => name.clone(),
            Word::Plain(name) if name.starts_with(|c: char| c.is_ascii_digit()) => {
                // `123` and `1e5` are numbers to Spark's lexer, `1a` a name:
                // backticks say which without guessing.
                return unsupported(
                    loc,
                    format!("the schema's column name {name} starts with a digit; write it in backticks (`{name}`)"),
                );
            }
            Word::Plain(name) => name.clone(),
            other => return rejected(format!("{} where a column name goes", text(other))),
        };
        let mut rest = &part[1..];
        if rest.first() == Some(&Word::Punct(':')) {
            rest = &rest[1..];
        }
        let ty = match rest.first() {
            Some(Word::Plain(ty)) => ty.clone(),
            Some(other) => {
                return rejected(format!("{} where column {name}'s type goes", text(other)))
            }
            None => {
                return unsupported(
                    loc,
                    format!("the schema's column {shown:?} is not `name TYPE`"),
                )
            }
        };
        let rest = &rest[1..];
        let parameterized = matches!(rest.first(), Some(Word::Punct('(' | '<')));
        let sql = match SqlTy::from_ddl(&ty) {
            Some(sql) if !parameterized => sql,
            _ => {
                let full = if parameterized {
                    format!("{ty}{}", rest.iter().map(text).collect::<String>())
                } else {
                    ty.clone()
                };
                return unsupported(
                    loc,
                    format!("column {name} has type {full}; supported types are {SUPPORTED_TYPES}"),
                );
            }
        };
        let is = |w: &Word, keyword: &str| matches!(w, Word::Plain(s) if s.eq_ignore_ascii_case(keyword));
        let nullable = match rest {
            [] => true,
            [not, null] if is(not, "not") && is(null, "null") => false,
            _ => {
                let words: Vec<String> = rest.iter().map(text).collect();
                return unsupported(
                    loc,
                    format!(
                        "column {name}: `{}` is not supported in a schema",
                        words.join(" ")
                    ),
                );
            }
        };
        columns.push(Column {
            name,
            ty: sql,
            nullable,
        });
    }
    Ok(columns)
}

/// `StructType([StructField("name", LongType(), True), ...])`.
fn parse_struct(node: &Node) -> Result<Vec<Column>> {
    let callee = |n: &Node| -> Option<String> {
        if !n.is("Call") {
            return None;
        }
        let func = n.expect("func");
        func.name().or_else(|| func.str("attr"))
    };
    if callee(node).as_deref() != Some("StructType") {
        return unsupported(
            &node.loc,
            format!(
                "a DataFrame's schema is a DDL string or StructType([...]) of the job's file, found {}",
                describe(node)
            ),
        );
    }
    let fields = match node.list("args").first() {
        Some(list) if list.is("List") || list.is("Tuple") => list.list("elts"),
        _ => return unsupported(&node.loc, "StructType takes a list of StructField"),
    };
    let mut columns = Vec::new();
    for field in fields {
        if callee(&field).as_deref() != Some("StructField") {
            return unsupported(
                &field.loc,
                format!(
                    "expected StructField(name, type), found {}",
                    crate::frame::names::render(&field)
                ),
            );
        }
        let args = field.list("args");
        let mut nullable_arg = args.get(2).cloned();
        for keyword in field.list("keywords") {
            if keyword.str("arg").as_deref() == Some("nullable") {
                nullable_arg = keyword.child("value");
            }
        }
        let (Some(name), Some(ty)) = (args.first().and_then(Node::str_constant), args.get(1))
        else {
            return unsupported(&field.loc, "StructField takes a constant name and a type");
        };
        let Some(sql) = SqlTy::from_node(ty) else {
            return unsupported(
                &ty.loc,
                format!(
                    "column {name} has type {}; supported types are {SUPPORTED_TYPES}",
                    crate::frame::names::render(ty)
                ),
            );
        };
        let nullable = match nullable_arg.as_ref().map(|n| n.constant()) {
            None => true,
            Some(Some(Constant::Bool(b))) => b,
            Some(_) => return unsupported(&field.loc, "StructField's nullable is True or False"),
        };
        columns.push(Column {
            name,
            ty: sql,
            nullable,
        });
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc() -> Loc {
        Loc {
            file: "job.py".into(),
            line: 1,
            column: 1,
        }
    }

    #[test]
    fn a_ddl_string_gives_typed_nullable_columns() {
        let columns = parse_ddl("id BIGINT NOT NULL, name string, `score` DOUBLE", &loc()).unwrap();
        let got: Vec<(&str, SqlTy, bool)> = columns
            .iter()
            .map(|c| (c.name.as_str(), c.ty, c.nullable))
            .collect();
        assert_eq!(
            got,
            [
                ("id", SqlTy::Long, false),
                ("name", SqlTy::Str, true),
                ("score", SqlTy::Double, true)
            ]
        );
        // A NULL-able column is its presence flag and its value.
        assert_eq!(columns[1].shape().fields(), [Ty::Bool, Ty::Str]);
        assert_eq!(columns[0].shape().fields(), [Ty::Int]);
    }

    #[test]
    fn an_unknown_type_is_named_in_the_error() {
        let err = parse_ddl("day DATE", &loc()).unwrap_err().to_string();
        assert!(err.contains("column day has type DATE"), "{err}");
    }

    #[test]
    fn what_spark_parses_in_a_ddl_string_is_read_as_spark_reads_it() {
        let columns = parse_ddl(
            "a: STRING,\n`b.c` BIGINT\tNOT NULL, `d``e` int /* note */, `` double -- end",
            &loc(),
        )
        .unwrap();
        let got: Vec<(&str, SqlTy, bool)> = columns
            .iter()
            .map(|c| (c.name.as_str(), c.ty, c.nullable))
            .collect();
        assert_eq!(
            got,
            [
                ("a", SqlTy::Str, true),
                ("b.c", SqlTy::Long, false),
                ("d`e", SqlTy::Int, true),
                ("", SqlTy::Double, true)
            ]
        );
        // A NUL is a name's only inside backticks.
        assert_eq!(parse_ddl("`a\0b` STRING", &loc()).unwrap()[0].name, "a\0b");
    }

    #[test]
    fn ddl_strings_spark_rejects_are_refused_as_spark_refuses_them() {
        // Each was checked with pyspark 3.5's createDataFrame([], ddl): a
        // ParseException.
        for ddl in [
            "a\0b STRING",
            "a\u{a0}STRING",
            "a STRING,\u{a0}b INT",
            "\"\"\" STRING",
            "a STRING,",
            " , a STRING",
            "a.b STRING",
            "a$b STRING",
            "a\x0bSTRING",
            "a\x0cSTRING",
            "\u{e9} STRING",
        ] {
            let err = parse_ddl(ddl, &loc()).unwrap_err().to_string();
            assert!(err.contains("Spark rejects the schema"), "{ddl:?}: {err}");
        }
    }

    #[test]
    fn numeric_types_widen_as_spark_does() {
        assert_eq!(SqlTy::Int.wider(SqlTy::Long), Some(SqlTy::Long));
        assert_eq!(SqlTy::Long.wider(SqlTy::Double), Some(SqlTy::Double));
        assert_eq!(SqlTy::Str.wider(SqlTy::Long), None);
        assert_eq!(SqlTy::Bool.wider(SqlTy::Bool), Some(SqlTy::Bool));
    }
}
