//! The structured parts of a `bigtest.jdu_path`: the keys its records pass
//! and the source records it reads, as dictionary attributes
//! (`{op = 3, term = "..."}`, `{fields = [...], source = "lines"}`).

use melior::{
    ir::{Attribute, AttributeLike, Operation},
    Context, StringRef,
};

use crate::ir::{string_array, string_value};

/// A key the path's records pass at a keyed dataset op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathKey {
    /// The dataset op's index in the program.
    pub op: usize,
    /// The key as an SMT term over the script's constants.
    pub term: String,
}

/// A source record the path reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRecord {
    pub source: String,
    /// The script's constants that are the record's fields, in order.
    pub fields: Vec<String>,
    /// Where the path has two witnesses (a join's sides sharing source
    /// records, or not), a record only one of them reads.
    pub guard: Option<Guard>,
}

/// A record is read when the script's Bool constant `var` is `value` in
/// the model (printed `when = "var"` or `unless = "var"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    pub var: String,
    pub value: bool,
}

/// The elements of array attribute `name` of `op`; `None` when absent or
/// not an array.
fn array<'c>(op: &Operation<'c>, name: &str) -> Option<Vec<Attribute<'c>>> {
    let attr = op.attribute(name).ok()?;
    // SAFETY: pure queries on a valid attribute; attributes are uniqued in
    // the context and live as long as it.
    unsafe {
        let raw = attr.to_raw();
        mlir_sys::mlirAttributeIsAArray(raw).then(|| {
            (0..mlir_sys::mlirArrayAttrGetNumElements(raw))
                .map(|i| Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(raw, i)))
                .collect()
        })
    }
}

/// Entry `name` of dictionary attribute `dict`.
fn entry<'c>(dict: Attribute<'c>, name: &str) -> Option<Attribute<'c>> {
    // SAFETY: pure queries on a valid attribute.
    unsafe {
        let raw = dict.to_raw();
        if !mlir_sys::mlirAttributeIsADictionary(raw) {
            return None;
        }
        let name = StringRef::new(name);
        let found = mlir_sys::mlirDictionaryAttrGetElementByName(raw, name.to_raw());
        (!found.ptr.is_null()).then(|| Attribute::from_raw(found))
    }
}

fn integer(attr: Attribute) -> Option<i64> {
    // SAFETY: pure queries on a valid attribute.
    unsafe {
        let raw = attr.to_raw();
        mlir_sys::mlirAttributeIsAInteger(raw).then(|| mlir_sys::mlirIntegerAttrGetValueInt(raw))
    }
}

/// The `keys` of a `bigtest.jdu_path` (none when absent); `Err` names the
/// first malformed entry.
pub fn keys(op: &Operation) -> Result<Vec<PathKey>, String> {
    array(op, "keys")
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, key)| {
            let op = entry(key, "op")
                .and_then(integer)
                .and_then(|v| usize::try_from(v).ok());
            let term = entry(key, "term").and_then(string_value);
            match (op, term) {
                (Some(op), Some(term)) => Ok(PathKey { op, term }),
                _ => Err(format!(
                    "keys[{i}] must be {{op = <index >= 0>, term = \"<SMT term>\"}}"
                )),
            }
        })
        .collect()
}

/// The `records` of a `bigtest.jdu_path` (none when absent); `Err` names
/// the first malformed entry.
pub fn records(op: &Operation) -> Result<Vec<PathRecord>, String> {
    array(op, "records")
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, record)| {
            let source = entry(record, "source").and_then(string_value);
            let fields = entry(record, "fields").and_then(string_array);
            let guard = [("when", true), ("unless", false)]
                .into_iter()
                .find_map(|(name, value)| {
                    let var = entry(record, name).and_then(string_value)?;
                    Some(Guard { var, value })
                });
            match (source, fields) {
                (Some(source), Some(fields)) => Ok(PathRecord {
                    source,
                    fields,
                    guard,
                }),
                _ => Err(format!(
                    "records[{i}] must be {{fields = [\"<constant>\", ...], source = \"<source name>\"}} (and optionally when/unless = \"<Bool constant>\")"
                )),
            }
        })
        .collect()
}

fn named<'c>(
    context: &'c Context,
    name: &str,
    value: Attribute<'c>,
) -> mlir_sys::MlirNamedAttribute {
    let name = StringRef::new(name);
    // SAFETY: building uniqued attributes in a live context.
    unsafe {
        mlir_sys::mlirNamedAttributeGet(
            mlir_sys::mlirIdentifierGet(context.to_raw(), name.to_raw()),
            value.to_raw(),
        )
    }
}

fn dictionary<'c>(context: &'c Context, entries: &[mlir_sys::MlirNamedAttribute]) -> Attribute<'c> {
    // SAFETY: the entries are valid named attributes of this context.
    unsafe {
        Attribute::from_raw(mlir_sys::mlirDictionaryAttrGet(
            context.to_raw(),
            entries.len() as isize,
            entries.as_ptr(),
        ))
    }
}

/// `keys` as the attribute the op stores.
pub fn keys_attribute<'c>(context: &'c Context, keys: &[PathKey]) -> Vec<Attribute<'c>> {
    use melior::ir::{
        attribute::IntegerAttribute, attribute::StringAttribute, r#type::IntegerType,
    };
    let i64_type = IntegerType::new(context, 64).into();
    keys.iter()
        .map(|key| {
            dictionary(
                context,
                &[
                    named(
                        context,
                        "op",
                        IntegerAttribute::new(i64_type, key.op as i64).into(),
                    ),
                    named(
                        context,
                        "term",
                        StringAttribute::new(context, &key.term).into(),
                    ),
                ],
            )
        })
        .collect()
}

/// `records` as the attribute the op stores.
pub fn records_attribute<'c>(context: &'c Context, records: &[PathRecord]) -> Vec<Attribute<'c>> {
    use melior::ir::attribute::{ArrayAttribute, StringAttribute};
    records
        .iter()
        .map(|record| {
            let fields: Vec<Attribute> = record
                .fields
                .iter()
                .map(|f| StringAttribute::new(context, f).into())
                .collect();
            let mut entries = vec![
                named(
                    context,
                    "fields",
                    ArrayAttribute::new(context, &fields).into(),
                ),
                named(
                    context,
                    "source",
                    StringAttribute::new(context, &record.source).into(),
                ),
            ];
            if let Some(Guard { var, value }) = &record.guard {
                let name = if *value { "when" } else { "unless" };
                entries.push(named(
                    context,
                    name,
                    StringAttribute::new(context, var).into(),
                ));
            }
            dictionary(context, &entries)
        })
        .collect()
}
