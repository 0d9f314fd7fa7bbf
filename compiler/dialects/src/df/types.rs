//! The record model of df programs: which field types exist, how a record
//! type splits into fields, and how a field is read from text. The verifier
//! and BigTest's extraction (`coco_bigtest::extract`) share it; the df
//! interpreter (`coco-dataflow`) works on the extracted model.

use std::fmt;

use melior::{
    ir::{r#type::IntegerType, Type, TypeLike},
    Context,
};

use crate::{ffi, ir};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    Int,
    Float,
    Bool,
    Str,
    List(Box<FieldType>),
    Option(Box<FieldType>),
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            FieldType::Int => write!(f, "i64"),
            FieldType::Float => write!(f, "f64"),
            FieldType::Bool => write!(f, "i1"),
            FieldType::Str => write!(f, "!df.str"),
            FieldType::List(e) => write!(f, "!df.list<{e}>"),
            FieldType::Option(e) => write!(f, "!df.option<{e}>"),
        }
    }
}

impl FieldType {
    /// The field type `ty` denotes; `None` for types a record cannot hold.
    pub fn from_type(ty: Type) -> Option<FieldType> {
        if let Ok(int) = IntegerType::try_from(ty) {
            return match int.width() {
                64 => Some(FieldType::Int),
                1 => Some(FieldType::Bool),
                _ => None,
            };
        }
        let raw = ty.to_raw();
        // SAFETY: pure type queries.
        unsafe {
            if mlir_sys::mlirTypeIsAF64(raw) {
                Some(FieldType::Float)
            } else if ffi::dfTypeIsAString(raw) {
                Some(FieldType::Str)
            } else if ffi::dfTypeIsAList(raw) {
                FieldType::from_type(Type::from_raw(ffi::dfTypeGetParameter(raw)))
                    .map(|e| FieldType::List(Box::new(e)))
            } else if ffi::dfTypeIsAOption(raw) {
                FieldType::from_type(Type::from_raw(ffi::dfTypeGetParameter(raw)))
                    .map(|e| FieldType::Option(Box::new(e)))
            } else {
                None
            }
        }
    }

    /// Whether a source file can hold this field (scalars only).
    pub fn is_scalar(&self) -> bool {
        matches!(
            self,
            FieldType::Int | FieldType::Float | FieldType::Bool | FieldType::Str
        )
    }

    /// Whether `text` is a valid textual field of this (scalar) type, with the
    /// parsing rules of Java's `Integer.parseInt` / `Double.parseDouble` /
    /// `Boolean.parseBoolean`-strict.
    pub fn parses(&self, text: &str) -> bool {
        match self {
            FieldType::Int => text.parse::<i64>().is_ok(),
            FieldType::Float => text.parse::<f64>().is_ok(),
            FieldType::Bool => text == "true" || text == "false",
            FieldType::Str => true,
            FieldType::List(_) | FieldType::Option(_) => false,
        }
    }
}

/// The record type of a `!df.dataset<R>`; `None` for other types.
pub fn dataset_record(ty: Type) -> Option<Type> {
    // SAFETY: pure type queries.
    unsafe {
        ffi::dfTypeIsADataset(ty.to_raw())
            .then(|| Type::from_raw(ffi::dfTypeGetParameter(ty.to_raw())))
    }
}

/// The element type of a `!df.list<T>`; `None` for other types.
pub fn list_element(ty: Type) -> Option<Type> {
    // SAFETY: pure type queries.
    unsafe {
        ffi::dfTypeIsAList(ty.to_raw())
            .then(|| Type::from_raw(ffi::dfTypeGetParameter(ty.to_raw())))
    }
}

/// The element type of a `!df.option<T>`; `None` for other types.
pub fn option_element(ty: Type) -> Option<Type> {
    // SAFETY: pure type queries.
    unsafe {
        ffi::dfTypeIsAOption(ty.to_raw())
            .then(|| Type::from_raw(ffi::dfTypeGetParameter(ty.to_raw())))
    }
}

/// The fields of a record type: the elements of a tuple, or the type itself.
pub fn record_fields(record: Type) -> Vec<Type> {
    ir::tuple_elements(record).unwrap_or_else(|| vec![record])
}

pub fn string_type(context: &Context) -> Type<'_> {
    // SAFETY: the type is owned by `context`.
    unsafe { Type::from_raw(ffi::dfStringTypeGet(context.to_raw())) }
}

pub fn list_type(element: Type) -> Type {
    // SAFETY: the type is owned by the element's context.
    unsafe { Type::from_raw(ffi::dfListTypeGet(element.to_raw())) }
}

pub fn option_type(element: Type) -> Type {
    // SAFETY: as above.
    unsafe { Type::from_raw(ffi::dfOptionTypeGet(element.to_raw())) }
}

pub fn dataset_type(record: Type) -> Type {
    // SAFETY: as above.
    unsafe { Type::from_raw(ffi::dfDatasetTypeGet(record.to_raw())) }
}

/// Renders a list of types as a signature fragment: `(i64, !df.str)`.
pub fn types_text(types: &[Type]) -> String {
    let inner: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    format!("({})", inner.join(", "))
}
