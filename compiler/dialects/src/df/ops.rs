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
pub const GET_AT: &str = "df.get_at";
pub const SPLIT: &str = "df.split";
pub const REGEX_SPLIT: &str = "df.regex_split";
pub const REGEX_FIND_ALL: &str = "df.regex_find_all";
pub const CSV_ROW: &str = "df.csv_row";
pub const TO_INT: &str = "df.to_int";
pub const TO_FLOAT: &str = "df.to_float";
pub const SQL_CAST: &str = "df.sql_cast";
pub const STR_CONSTANT: &str = "df.str_constant";
pub const REPLACE: &str = "df.replace";
pub const STRIP: &str = "df.strip";
pub const LOWER: &str = "df.lower";
pub const UPPER: &str = "df.upper";
pub const TRUEDIV: &str = "df.truediv";
pub const RAISE: &str = "df.raise";
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

/// Ops whose meaning is Python's alone: the verifier refuses them unless the
/// module's `df.host` is "python", with what each one is in Python.
pub const PYTHON_ONLY: &[(&str, &str)] = &[
    (STRIP, "Python's str.strip()/lstrip()/rstrip()"),
    (LOWER, "Python's str.lower()"),
    (REGEX_SPLIT, "Python's re.split()"),
    (REGEX_FIND_ALL, "Python's re.findall()"),
    (CSV_ROW, "Python's csv.reader"),
    (UPPER, "Python's str.upper()"),
    (
        TRUEDIV,
        "Python's float division (ZeroDivisionError on a zero divisor)",
    ),
];

/// Sides of `df.strip`, in the order of the ODS enum.
pub const STRIP_SIDES: &[&str] = &["both", "left", "right"];

/// Targets of `df.sql_cast`, in the order of the ODS enum.
pub const SQL_CAST_TARGETS: &[&str] = &["int", "bigint", "double", "boolean"];

/// Join kinds, in the order of the ODS enum.
pub const JOIN_KINDS: &[&str] = &["inner", "left_outer", "right_outer", "full_outer"];

pub fn is_dataset_op(name: &str) -> bool {
    DATASET_OPS.contains(&name)
}
