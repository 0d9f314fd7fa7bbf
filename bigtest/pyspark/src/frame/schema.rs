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
    Double,
    Bool,
}

impl SqlTy {
    /// The df type that holds a value of this type.
    pub fn ty(self) -> Ty {
        match self {
            SqlTy::Str => Ty::Str,
            SqlTy::Int | SqlTy::Long => Ty::Int,
            SqlTy::Double => Ty::Float,
            SqlTy::Bool => Ty::Bool,
        }
    }

    /// Spark's name of the type (`bigint`), for diagnostics.
    pub fn name(self) -> &'static str {
        match self {
            SqlTy::Str => "string",
            SqlTy::Int => "int",
            SqlTy::Long => "bigint",
            SqlTy::Double => "double",
            SqlTy::Bool => "boolean",
        }
    }

    pub fn is_numeric(self) -> bool {
        matches!(self, SqlTy::Int | SqlTy::Long | SqlTy::Double)
    }

    /// The type both operands of arithmetic or a comparison are widened
    /// to (Spark's numeric precedence: int < bigint < double).
    pub fn wider(self, other: SqlTy) -> Option<SqlTy> {
        use SqlTy::*;
        match (self, other) {
            (a, b) if a == b => Some(a),
            (Double, b) | (b, Double) if b.is_numeric() => Some(Double),
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
            "DoubleType" => SqlTy::Double,
            "BooleanType" => SqlTy::Bool,
            _ => return None,
        })
    }
}

/// The types a supported job's columns and UDF results may have, for
/// diagnostics.
pub const SUPPORTED_TYPES: &str = "string, bigint (long), int, double, boolean";

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
        if columns[..i].iter().any(|d| d.name == c.name) {
            return unsupported(&node.loc, format!("two columns named {}", c.name));
        }
    }
    Ok(columns)
}

/// `"name TYPE [NOT NULL], ..."`.
fn parse_ddl(ddl: &str, loc: &Loc) -> Result<Vec<Column>> {
    let mut columns = Vec::new();
    for part in ddl.split(',') {
        let words: Vec<&str> = part.split_whitespace().collect();
        let (name, ty, rest) = match words.as_slice() {
            [name, ty, rest @ ..] => (*name, *ty, rest),
            [] if ddl.trim().is_empty() => break,
            _ => {
                return unsupported(
                    loc,
                    format!("the schema's column {:?} is not `name TYPE`", part.trim()),
                )
            }
        };
        let name = name.trim_matches('`').to_string();
        let ty = SqlTy::from_ddl(ty.trim_end_matches(':')).ok_or_else(|| {
            crate::error::ImportError::Unsupported {
                loc: loc.clone(),
                message: format!(
                    "column {name} has type {ty}; supported types are {SUPPORTED_TYPES}"
                ),
            }
        })?;
        let nullable = match rest {
            [] => true,
            [not, null] if not.eq_ignore_ascii_case("not") && null.eq_ignore_ascii_case("null") => {
                false
            }
            _ => {
                return unsupported(
                    loc,
                    format!(
                        "column {name}: `{}` is not supported in a schema",
                        rest.join(" ")
                    ),
                )
            }
        };
        columns.push(Column { name, ty, nullable });
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
    fn numeric_types_widen_as_spark_does() {
        assert_eq!(SqlTy::Int.wider(SqlTy::Long), Some(SqlTy::Long));
        assert_eq!(SqlTy::Long.wider(SqlTy::Double), Some(SqlTy::Double));
        assert_eq!(SqlTy::Str.wider(SqlTy::Long), None);
        assert_eq!(SqlTy::Bool.wider(SqlTy::Bool), Some(SqlTy::Bool));
    }
}
