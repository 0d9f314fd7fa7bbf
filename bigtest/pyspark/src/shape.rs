//! Python values and their shapes. A df record is a flat list of fields; a
//! PySpark record is a Python value (`("host", (3, 2.5))`). A [`Shape`]
//! says how the fields make the value, so UDFs see Python values and the
//! pytest module writes them back as Python literals.

use crate::ir::{Ty, TyText, Value};

/// How a record's fields make one Python value.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// One field.
    Field(Ty),
    Tuple(Vec<Shape>),
    /// The side of an outer join: every field `!df.option<T>`, absent
    /// together; `None` in Python when absent.
    Absent(Box<Shape>),
    /// A value or `None` that a UDF returned: an `i1` field (present)
    /// before the value's fields.
    Nullable(Box<Shape>),
}

impl Shape {
    /// The record's field types, in order.
    pub fn fields(&self) -> Vec<Ty> {
        match self {
            Shape::Field(ty) => vec![ty.clone()],
            Shape::Tuple(items) => items.iter().flat_map(Shape::fields).collect(),
            Shape::Absent(inner) => inner
                .fields()
                .into_iter()
                .map(|ty| Ty::Option(Box::new(ty)))
                .collect(),
            Shape::Nullable(inner) => {
                let mut fields = vec![Ty::Bool];
                fields.extend(inner.fields());
                fields
            }
        }
    }

    /// A key-value pair `(K, V)` whose key is one field: what keyed RDD
    /// operators need (df keys records by their first field).
    pub fn key_value(&self) -> Option<(&Ty, &Shape)> {
        match self {
            Shape::Tuple(items) if items.len() == 2 => match &items[0] {
                Shape::Field(key) if !matches!(key, Ty::Option(_) | Ty::List(_)) => {
                    Some((key, &items[1]))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// A key-value pair whose key is a tuple of plain fields
    /// (`((state, plate), 1)`): the number of key fields, and the value.
    pub fn tuple_key_value(&self) -> Option<(usize, &Shape)> {
        match self {
            Shape::Tuple(items) if items.len() == 2 => match &items[0] {
                Shape::Tuple(keys)
                    if keys.len() > 1
                        && keys.iter().all(|k| {
                            matches!(k, Shape::Field(t) if !matches!(t, Ty::Option(_) | Ty::List(_)))
                        }) =>
                {
                    Some((keys.len(), &items[1]))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// How Python would describe a value of this shape.
    pub fn python(&self) -> String {
        match self {
            Shape::Field(ty) => ty.python().to_string(),
            Shape::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(Shape::python).collect();
                format!("tuple[{}]", inner.join(", "))
            }
            Shape::Absent(inner) | Shape::Nullable(inner) => format!("{} | None", inner.python()),
        }
    }
}

/// A Python value inside a UDF, as the lowering knows it.
#[derive(Clone, Debug, PartialEq)]
pub enum PyVal {
    /// An int, float, bool, str or split list.
    Scalar(Value),
    Tuple(Vec<PyVal>),
    /// The constant `None`.
    None,
    /// `value` when `present` holds, otherwise `None`.
    Maybe {
        present: Value,
        value: Box<PyVal>,
    },
}

impl PyVal {
    /// The shape of this value as a record (`Nullable` for a value that may
    /// be `None`); `None` alone has no shape.
    pub fn shape(&self) -> Option<Shape> {
        match self {
            PyVal::Scalar(v) => Some(Shape::Field(v.ty.clone())),
            PyVal::Tuple(items) => items
                .iter()
                .map(PyVal::shape)
                .collect::<Option<Vec<_>>>()
                .map(Shape::Tuple),
            PyVal::None => None,
            PyVal::Maybe { value, .. } => value.shape().map(|s| Shape::Nullable(Box::new(s))),
        }
    }

    /// The SSA values, in record-field order (a `Maybe`'s flag first).
    pub fn leaves(&self) -> Vec<Value> {
        match self {
            PyVal::Scalar(v) => vec![v.clone()],
            PyVal::Tuple(items) => items.iter().flat_map(PyVal::leaves).collect(),
            PyVal::None => Vec::new(),
            PyVal::Maybe { present, value } => {
                let mut out = vec![present.clone()];
                out.extend(value.leaves());
                out
            }
        }
    }

    /// The same structure over `values` (as many as [`PyVal::leaves`]).
    pub fn rebuild(&self, values: &mut impl Iterator<Item = Value>) -> PyVal {
        match self {
            PyVal::Scalar(_) => PyVal::Scalar(values.next().expect("a value per leaf")),
            PyVal::Tuple(items) => PyVal::Tuple(items.iter().map(|i| i.rebuild(values)).collect()),
            PyVal::None => PyVal::None,
            PyVal::Maybe { value, .. } => PyVal::Maybe {
                present: values.next().expect("a value per leaf"),
                value: Box::new(value.rebuild(values)),
            },
        }
    }

    /// How Python would name this value's type, for diagnostics.
    pub fn python(&self) -> String {
        match self {
            PyVal::None => "None".into(),
            other => other.shape().map(|s| s.python()).unwrap_or_default(),
        }
    }
}
