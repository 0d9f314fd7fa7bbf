//! Names and classes of df ops.

pub const SOURCE: &str = "df.source";
pub const MAP: &str = "df.map";
pub const FLAT_MAP: &str = "df.flat_map";
pub const FILTER: &str = "df.filter";
pub const REDUCE: &str = "df.reduce";
pub const REDUCE_BY_KEY: &str = "df.reduce_by_key";
pub const GROUP_BY_KEY: &str = "df.group_by_key";
pub const JOIN: &str = "df.join";
pub const UNION: &str = "df.union";
pub const DISTINCT: &str = "df.distinct";
pub const SINK: &str = "df.sink";
pub const GET: &str = "df.get";
pub const SPLIT: &str = "df.split";
pub const TO_INT: &str = "df.to_int";
pub const VALUE_OR: &str = "df.value_or";

/// Operators over datasets (everything else in `df` is a value op used
/// inside UDFs).
pub const DATASET_OPS: &[&str] = &[
    SOURCE,
    MAP,
    FLAT_MAP,
    FILTER,
    REDUCE,
    REDUCE_BY_KEY,
    GROUP_BY_KEY,
    JOIN,
    UNION,
    DISTINCT,
    SINK,
];

/// Join kinds, in the order of the ODS enum.
pub const JOIN_KINDS: &[&str] = &["inner", "left_outer", "right_outer"];

pub fn is_dataset_op(name: &str) -> bool {
    DATASET_OPS.contains(&name)
}
