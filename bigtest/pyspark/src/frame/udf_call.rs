//! Python UDFs of a DataFrame job (`F.udf(f, type)`, `@udf`): found by
//! name, lowered as df functions of their own by the RDD front end's UDF
//! lowering, and called from a Column expression with their result coerced
//! to the declared type as Spark 3.5 does.

use crate::{
    error::{unsupported, Loc, Result},
    frame::{
        expr::{Exprs, SqlVal},
        names::{callee, render},
        schema::{SqlTy, SUPPORTED_TYPES},
    },
    ir::Ty,
    job::Builder,
    shape::Shape,
    syntax::Node,
    udf::{self, Apply},
};

/// A Python UDF of the job: what a column expression calls.
pub struct PythonUdf {
    pub callable: Node,
    pub returns: SqlTy,
}

/// The Python UDF `name` names, if it is one: a module-level `name =
/// F.udf(f, type)` or a `def` decorated with `@udf` / `@F.udf(type)`.
pub fn python_udf(builder: &Builder, name: &str, at: &Loc) -> Result<Option<PythonUdf>> {
    let scope = builder.scope();
    let return_type = |call: &Node, positional: usize| -> Result<SqlTy> {
        let mut ty = call.list("args").get(positional).cloned();
        for keyword in call.list("keywords") {
            if keyword.str("arg").as_deref() == Some("returnType") {
                ty = keyword.child("value");
            }
        }
        match ty {
            // PySpark's default return type.
            None => Ok(SqlTy::Str),
            Some(ty) => SqlTy::from_node(&ty).map_or_else(
                || {
                    unsupported(
                        &ty.loc,
                        format!(
                            "the UDF's return type is {}; supported types are {SUPPORTED_TYPES}",
                            render(&ty)
                        ),
                    )
                },
                Ok,
            ),
        }
    };
    if let Some(value) = scope.values.get(name) {
        if callee(value).as_deref() == Some("udf") {
            let Some(callable) = value.list("args").first().cloned() else {
                return unsupported(&value.loc, "udf() takes the Python function first");
            };
            return Ok(Some(PythonUdf {
                callable,
                returns: return_type(value, 1)?,
            }));
        }
        if callee(value).as_deref() == Some("pandas_udf") {
            return unsupported(at, format!("{name} is a pandas_udf; Python UDFs of scalars (udf) are supported, pandas UDFs are not"));
        }
    }
    if let Some(def) = scope.defs.get(name) {
        for decorator in def.list("decorator_list") {
            let is_udf = |n: &Node| {
                n.name().as_deref() == Some("udf") || n.str("attr").as_deref() == Some("udf")
            };
            if is_udf(&decorator) {
                return Ok(Some(PythonUdf {
                    callable: def.clone(),
                    returns: SqlTy::Str,
                }));
            }
            if decorator.is("Call") && is_udf(&decorator.expect("func")) {
                return Ok(Some(PythonUdf {
                    callable: def.clone(),
                    returns: return_type(&decorator, 0)?,
                }));
            }
        }
    }
    Ok(None)
}

impl Exprs<'_, '_, '_> {
    /// A call of Python UDF `name` on column arguments: the UDF is a df
    /// function of its own (its branches are the UDF's decisions), and
    /// its result is coerced to the declared type as Spark does: a value
    /// of another Python type is NULL, except that a string column takes
    /// any value's `toString`.
    pub(super) fn call_udf(
        &mut self,
        name: &str,
        python: &PythonUdf,
        args: &[Node],
        loc: &Loc,
    ) -> Result<SqlVal> {
        let values: Vec<SqlVal> = args
            .iter()
            .map(|a| self.column_arg(a))
            .collect::<Result<_>>()?;
        let shapes: Vec<Shape> = values
            .iter()
            .map(|v| {
                let field = Shape::Field(v.ty.ty());
                if v.present.is_some() {
                    Shape::Nullable(Box::new(field))
                } else {
                    field
                }
            })
            .collect();
        let record = Shape::Tuple(shapes);
        let udf_name = self.builder.fresh_udf_name(name);
        let (text, returned) = udf::lower(
            self.builder.scope(),
            &udf_name,
            &python.callable,
            Apply::Args,
            &record,
            loc,
        )?;
        self.builder.udfs.push(text);
        let returned = returned.expect("a UDF's result");
        let (nullable, returned_ty) = match &returned {
            Shape::Field(t) => (false, t.clone()),
            Shape::Nullable(inner) => match &**inner {
                Shape::Field(t) => (true, t.clone()),
                other => return unsupported(loc, format!("{name} returns {}; a UDF of a supported job returns one value of {SUPPORTED_TYPES}", other.python())),
            },
            other => return unsupported(loc, format!("{name} returns {}; a UDF of a supported job returns one value of {SUPPORTED_TYPES}", other.python())),
        };
        let mut operands = Vec::new();
        for v in &values {
            if let Some(p) = &v.present {
                operands.push(p.clone());
            }
            operands.push(v.value.clone());
        }
        let results = self.f.call(&udf_name, &operands, &returned.fields(), loc);
        let (present, value) = if nullable {
            (Some(results[0].clone()), results[1].clone())
        } else {
            (None, results[0].clone())
        };
        let to = python.returns;
        let coerced = match (&returned_ty, to) {
            (Ty::Int, SqlTy::Long) | (Ty::Float, SqlTy::Double) | (Ty::Str, SqlTy::Str) | (Ty::Bool, SqlTy::Bool) => value,
            (Ty::Int, SqlTy::Int) => self.wrap(value, SqlTy::Int, loc),
            (Ty::Int, SqlTy::Str) => self.f.op(format!("df.to_str {} : i64", value.name), Ty::Str, loc),
            (Ty::Bool, SqlTy::Str) => {
                let t = self.f.str("true", loc);
                let f = self.f.str("false", loc);
                self.f.select(&value, &t, &f, loc)
            }
            (Ty::Float, SqlTy::Str) => {
                return unsupported(loc, format!("{name} returns a float for a string column: Spark prints it with Java's Double.toString, which is not modelled yet"))
            }
            // Another Python type than the declared one: NULL.
            _ => return Ok(self.null_of(to, loc)),
        };
        Ok(SqlVal {
            present,
            value: coerced,
            ty: to,
        })
    }
}
