//! Concrete values and the concrete evaluation domain: the host language's
//! semantics for each UDF operation ([`crate::host`]), where failures are
//! failures.

use std::fmt;

use crate::{
    eval::{Domain, Stop},
    host::{self, Host, ParseIntError},
    model::{Cmp, Const, FloatBinOp, IntBinOp, Ty, UdfOp},
};

#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    List(Vec<Value>),
    Option(Option<Box<Value>>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:?}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Str(v) => write!(f, "{v}"),
            Value::List(items) => {
                let items: Vec<String> = items.iter().map(|v| v.to_string()).collect();
                write!(f, "[{}]", items.join(";"))
            }
            Value::Option(None) => write!(f, "None"),
            Value::Option(Some(v)) => write!(f, "Some({v})"),
        }
    }
}

/// The most ints one `df.range` makes in the interpreter: a range is a
/// list it holds, one value per element.
const MAX_RANGE: i64 = 1 << 20;

impl Value {
    /// Parses one textual source field as the host's parse does
    /// (`Long.parseLong`, `Double.parseDouble`; `int()`, `float()`).
    pub fn parse(host: Host, text: &str, ty: &Ty) -> Option<Value> {
        match ty {
            Ty::Int => host::parse_int(host, text).ok().map(Value::Int),
            Ty::Float => host::parse_float(host, text).map(Value::Float),
            Ty::Bool => match text {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            Ty::Str => Some(Value::Str(text.to_string())),
            Ty::List(_) | Ty::Option(_) => None,
        }
    }

    /// The value a wrong (mutated) outer join fills an absent side with.
    pub fn default_of(ty: &Ty) -> Value {
        match ty {
            Ty::Int => Value::Int(0),
            Ty::Float => Value::Float(0.0),
            Ty::Bool => Value::Bool(false),
            Ty::Str => Value::Str(String::new()),
            Ty::List(_) => Value::List(Vec::new()),
            Ty::Option(_) => Value::Option(None),
        }
    }

    /// Whether this value is the same as `other` for keying (joins, groups,
    /// distinct): floats compare by bits, as Spark's hashing does.
    /// [`Value::key`] is equal exactly when this holds.
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            (Value::Option(Some(a)), Value::Option(Some(b))) => a.same(b),
            _ => self == other,
        }
    }
}

impl Value {
    /// A total order on values of one type: integers and booleans as
    /// numbers, floats by IEEE totalOrder (`f64::total_cmp`), strings by
    /// code point, lists lexicographically, `None` before any `Some`. The
    /// values of a `group_by_key` list are in this order (Spark gives them
    /// in none; coco fixes one so outputs compare), and coco_df.py's
    /// `sort_key` orders them the same way.
    pub fn total_cmp(&self, other: &Value) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Float(a), Value::Float(b)) => a.total_cmp(b),
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            (Value::List(a), Value::List(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let order = x.total_cmp(y);
                    if order != Ordering::Equal {
                        return order;
                    }
                }
                a.len().cmp(&b.len())
            }
            (Value::Option(a), Value::Option(b)) => match (a, b) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(x), Some(y)) => x.total_cmp(y),
            },
            // Values of different types never share a list.
            _ => self.partial_cmp(other).unwrap_or(Ordering::Equal),
        }
    }
}

/// A value as a hash key, equal exactly when [`Value::same`] holds, so
/// keyed operators find a record's group in constant time, not by a scan of
/// every group.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Int(i64),
    Float(u64),
    Bool(bool),
    Str(String),
    List(Vec<Key>),
    Option(Option<Box<Key>>),
}

impl Value {
    pub fn key(&self) -> Key {
        match self {
            Value::Int(v) => Key::Int(*v),
            Value::Float(v) => Key::Float(v.to_bits()),
            Value::Bool(v) => Key::Bool(*v),
            Value::Str(v) => Key::Str(v.clone()),
            Value::List(items) => Key::List(items.iter().map(Value::key).collect()),
            Value::Option(v) => Key::Option(v.as_ref().map(|v| Box::new(v.key()))),
        }
    }
}

/// Evaluation on concrete values, with the host language's semantics.
#[derive(Default)]
pub struct Concrete {
    pub host: Host,
}

fn mismatch(point: &str, args: &[Value]) -> Stop {
    let kinds: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    Stop::Error(format!("{point}: ill-typed operands {}", kinds.join(", ")))
}

/// Why a division by zero fails, as the host says it (`df.floordiv` and
/// `df.mod` are Python's `//` and `%`, or Java's `Math.floorDiv` and
/// `floorMod`).
fn zero_divisor(host: Host, op: IntBinOp) -> Stop {
    Stop::Fail(
        match (host, op) {
            (Host::Python, IntBinOp::Mod) => "ZeroDivisionError: integer modulo by zero",
            (Host::Python, _) => "ZeroDivisionError: integer division or modulo by zero",
            (Host::Jvm, _) => "ArithmeticException: / by zero",
        }
        .into(),
    )
}

/// How Python writes `op`, for diagnostics.
fn symbol(op: IntBinOp) -> &'static str {
    match op {
        IntBinOp::Add => "+",
        IntBinOp::Sub => "-",
        IntBinOp::Mul => "*",
        IntBinOp::Div => "/",
        IntBinOp::Rem => "rem",
        IntBinOp::FloorDiv => "//",
        IntBinOp::Mod => "%",
        IntBinOp::And => "&",
        IntBinOp::Or => "|",
        IntBinOp::Xor => "^",
        IntBinOp::Max => "max",
        IntBinOp::Min => "min",
    }
}

/// `a op b` on i64 values. The JVM's `long` wraps, as `arith` does;
/// Python's ints are unbounded, so a Python result beyond i64 is one the
/// df model cannot hold: the run stops with an error rather than predict
/// a wrapped value Python never computes.
fn int_op(host: Host, op: IntBinOp, a: i64, b: i64, point: &str) -> Result<i64, Stop> {
    let python = host == Host::Python;
    let exact = |result: Option<i64>, wrapped: i64| match result {
        Some(value) => Ok(value),
        None if !python => Ok(wrapped),
        None => Err(Stop::Error(format!(
            "{point}: the Python integer {a} {} {b} is beyond i64, which the df model cannot hold",
            symbol(op)
        ))),
    };
    Ok(match op {
        IntBinOp::FloorDiv => {
            let q = host::floor_div(a, b).ok_or_else(|| zero_divisor(host, op))?;
            // i64::MIN // -1 is the one quotient beyond i64.
            exact((a != i64::MIN || b != -1).then_some(q), q)?
        }
        IntBinOp::Mod => host::floor_mod(a, b).ok_or_else(|| zero_divisor(host, op))?,
        IntBinOp::Add => exact(a.checked_add(b), a.wrapping_add(b))?,
        IntBinOp::Sub => exact(a.checked_sub(b), a.wrapping_sub(b))?,
        IntBinOp::Mul => exact(a.checked_mul(b), a.wrapping_mul(b))?,
        IntBinOp::Div if b == 0 => return Err(Stop::Fail("division by zero".into())),
        IntBinOp::Div => exact(a.checked_div(b), a.wrapping_div(b))?,
        IntBinOp::Rem if b == 0 => return Err(Stop::Fail("remainder by zero".into())),
        IntBinOp::Rem => a.wrapping_rem(b),
        IntBinOp::And => a & b,
        IntBinOp::Or => a | b,
        IntBinOp::Xor => a ^ b,
        IntBinOp::Max => a.max(b),
        IntBinOp::Min => a.min(b),
    })
}

/// Beyond 2^53 not every integer is a float.
const EXACT_FLOAT_INT: i64 = 1 << 53;

/// `arith.sitofp`, rounding to nearest. Python rounds so in `float(n)`
/// and `n + x` too, but compares an int with a float, and divides two
/// ints (`/`), exactly: beyond 2^53 the front end's conversion first can
/// differ from Python, so the run stops with an error there.
fn int_to_float(host: Host, a: i64, point: &str) -> Result<f64, Stop> {
    if host == Host::Python && !(-EXACT_FLOAT_INT..=EXACT_FLOAT_INT).contains(&a) {
        return Err(Stop::Error(format!(
            "{point}: the Python integer {a} is beyond 2^53, where a float need not hold it exactly; not modelled"
        )));
    }
    Ok(a as f64)
}

/// `arith.fptosi`: truncation toward zero. Java's `(long)` saturates
/// (NaN is 0). Python's `int()` is exact beyond i64, where the df model
/// cannot follow, and raises on NaN (ValueError) and the infinities
/// (OverflowError), which the op cannot send to a UDF's `except`: the run
/// stops with an error rather than predict a value or a failure Python
/// would not give. Generated data holds neither (BigTest's floats are
/// reals, bounded; docs/pyspark.md).
fn float_to_int(host: Host, a: f64, point: &str) -> Result<i64, Stop> {
    // -2^63 is the one float at or beyond 2^63 in magnitude that fits.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if host == Host::Jvm || (-TWO_63..TWO_63).contains(&a) {
        return Ok(a as i64);
    }
    Err(Stop::Error(format!(
        "{point}: int({a:?}) in Python is {}, which the df model does not hold",
        if a.is_nan() {
            "a ValueError"
        } else if a.is_infinite() {
            "an OverflowError"
        } else {
            "an integer beyond i64"
        }
    )))
}

fn float_op(op: FloatBinOp, a: f64, b: f64) -> Result<f64, Stop> {
    Ok(match op {
        FloatBinOp::Add => a + b,
        FloatBinOp::Sub => a - b,
        FloatBinOp::Mul => a * b,
        FloatBinOp::Div => a / b,
        FloatBinOp::TrueDiv => host::true_div(a, b)
            .ok_or_else(|| Stop::Fail("ZeroDivisionError: float division by zero".into()))?,
        FloatBinOp::Max => a.max(b),
        FloatBinOp::Min => a.min(b),
    })
}

/// The value of a partial op in its total (`checked`) form: present where
/// it succeeds, absent where it fails.
fn total(checked: bool, result: Result<Value, Stop>) -> Result<Value, Stop> {
    match (checked, result) {
        (false, result) => result,
        (true, Ok(value)) => Ok(Value::Option(Some(Box::new(value)))),
        (true, Err(Stop::Fail(_))) => Ok(Value::Option(None)),
        (true, Err(other)) => Err(other),
    }
}

impl Domain for Concrete {
    type V = Value;

    fn constant(&mut self, value: &Const) -> Result<Value, Stop> {
        Ok(match value {
            Const::Int(v) => Value::Int(*v),
            Const::Float(v) => Value::Float(*v),
            Const::Bool(v) => Value::Bool(*v),
            Const::Str(v) => Value::Str(v.clone()),
        })
    }

    fn apply(&mut self, kind: &UdfOp, point: &str, args: &[Value]) -> Result<Value, Stop> {
        use Value::*;
        Ok(match (kind, args) {
            (UdfOp::IntBin(op), [Int(a), Int(b)]) => Int(int_op(self.host, *op, *a, *b, point)?),
            (UdfOp::IntBin(op), [Bool(a), Bool(b)]) => Bool(match op {
                IntBinOp::And | IntBinOp::Min | IntBinOp::Mul => *a && *b,
                IntBinOp::Or | IntBinOp::Max => *a || *b,
                IntBinOp::Xor | IntBinOp::Add | IntBinOp::Sub => *a ^ *b,
                IntBinOp::Div | IntBinOp::Rem | IntBinOp::FloorDiv | IntBinOp::Mod => {
                    return Err(mismatch(point, args))
                }
            }),
            (UdfOp::FloatBin(op), [Float(a), Float(b)]) => Float(float_op(*op, *a, *b)?),
            (UdfOp::FloatNeg, [Float(a)]) => Float(-a),
            (UdfOp::CmpInt(cmp), [Int(a), Int(b)]) => Bool(cmp.holds(a, b)),
            (UdfOp::CmpInt(cmp), [Bool(a), Bool(b)]) => Bool(match cmp {
                Cmp::Eq => a == b,
                Cmp::Ne => a != b,
                // i1 compares as a signed integer: true is -1.
                _ => cmp.holds(-i64::from(*a), -i64::from(*b)),
            }),
            // Ordered predicates (`arith.cmpf oeq .. one`): false when
            // either side is NaN, `one` included (Rust's `!=` is not).
            (UdfOp::CmpFloat(Cmp::Ne), [Float(a), Float(b)]) => {
                Bool(a.partial_cmp(b).is_some_and(|o| o.is_ne()))
            }
            (UdfOp::CmpFloat(cmp), [Float(a), Float(b)]) => Bool(cmp.holds(a, b)),
            (UdfOp::Select, [Bool(c), a, b]) => {
                if *c {
                    a.clone()
                } else {
                    b.clone()
                }
            }
            (UdfOp::IntToFloat, [Int(a)]) => Float(int_to_float(self.host, *a, point)?),
            (UdfOp::FloatToInt, [Float(a)]) => Int(float_to_int(self.host, *a, point)?),
            (UdfOp::BoolToInt, [Bool(a)]) => Int(i64::from(*a)),
            (UdfOp::IndexCast, [Int(a)]) => Int(*a),
            (UdfOp::Split { delimiter }, [Str(s)]) => {
                if delimiter.is_empty() {
                    // The verifier refuses it; a hand-built model may not.
                    return Err(Stop::Error(format!(
                        "{point}: df.split with an empty delimiter"
                    )));
                }
                List(
                    host::split(self.host, s, delimiter)
                        .into_iter()
                        .map(Str)
                        .collect(),
                )
            }
            (UdfOp::SplitWhitespace, [Str(s)]) => {
                List(host::split_whitespace(s).into_iter().map(Str).collect())
            }
            (UdfOp::RegexSplit { pattern }, [Str(s)]) => {
                List(pattern.split(s).into_iter().map(Str).collect())
            }
            (UdfOp::RegexFindAll { pattern }, [Str(s)]) => {
                List(pattern.find_all(s).into_iter().map(Str).collect())
            }
            (UdfOp::CsvRow, [Str(s)]) => match host::csv_row(s) {
                Ok(row) => List(row.into_iter().map(Str).collect()),
                Err(host::CsvRowError::Python(message)) => {
                    return Err(Stop::Fail(format!("csv.Error: {message}")))
                }
                Err(host::CsvRowError::QuotedPastLine) => {
                    return Err(Stop::Error(format!(
                        "{point}: a quoted field open at the end of the line {s:?}: csv.reader reads the next line into the row, which is not modelled"
                    )))
                }
            },
            (UdfOp::Get { index, checked }, [List(items)]) => {
                let element = match items.get(*index) {
                    Some(v) => Ok(v.clone()),
                    None => Err(Stop::Fail(format!(
                        "index {index} is past the end of a list of {}",
                        items.len()
                    ))),
                };
                total(*checked, element)?
            }
            (UdfOp::GetAt, [List(items), Int(index)]) => {
                let element = usize::try_from(*index).ok().and_then(|i| items.get(i));
                Value::Option(element.map(|v| Box::new(v.clone())))
            }
            (UdfOp::Size, [List(items)]) => Int(items.len() as i64),
            (UdfOp::Round { scale, half_even }, [Float(x)]) => {
                Float(sql_round(*x, *scale, *half_even))
            }
            (UdfOp::Range, [Int(start), Int(stop)]) => {
                let size = stop.saturating_sub(*start).max(0);
                if size > MAX_RANGE {
                    return Err(Stop::Error(format!(
                        "range({start}, {stop}) holds {size} ints, more than the interpreter makes ({MAX_RANGE})"
                    )));
                }
                List((*start..*stop).map(Int).collect())
            }
            (UdfOp::Substr, [Str(s), Int(start), Int(length)]) => {
                match host::substring(self.host, s, *start, *length) {
                    Some(sub) => Str(sub),
                    None => {
                        return Err(Stop::Fail(format!(
                            "substring [{start}, {start} + {length}) is outside \"{s}\""
                        )))
                    }
                }
            }
            (UdfOp::ToInt { int32, checked }, [Str(s)]) => {
                let parsed = match host::parse_int(self.host, s) {
                    Ok(v) if *int32 && i32::try_from(v).is_err() => {
                        Err(Stop::Fail(format!("\"{s}\" is not a 32-bit integer")))
                    }
                    Ok(v) => Ok(Int(v)),
                    Err(ParseIntError::NotAnInteger) => {
                        Err(Stop::Fail(format!("\"{s}\" is not an integer")))
                    }
                    Err(ParseIntError::BeyondI64) => {
                        return Err(Stop::Error(format!(
                            "{point}: \"{s}\" parses to an integer beyond i64, which the df model cannot hold"
                        )))
                    }
                };
                total(*checked, parsed)?
            }
            (UdfOp::ToFloat { checked }, [Str(s)]) => {
                let parsed = host::parse_float(self.host, s)
                    .map(Float)
                    .ok_or_else(|| Stop::Fail(format!("\"{s}\" is not a number")));
                total(*checked, parsed)?
            }
            (UdfOp::SqlCast { to }, [Str(s)]) => {
                Value::Option(crate::sql::cast_str(*to, s).map(Box::new))
            }
            (UdfOp::ToStr, [Int(v)]) => Str(v.to_string()),
            (UdfOp::ToStr, [Float(v)]) => Str(host::format_float(self.host, *v)),
            (UdfOp::ToStr, [Bool(v)]) => Str(host::format_bool(self.host, *v)),
            (UdfOp::Length, [Str(s)]) => Int(host::length(self.host, s)),
            (UdfOp::Concat, [Str(a), Str(b)]) => Str(format!("{a}{b}")),
            (UdfOp::Contains, [Str(a), Str(b)]) => Bool(a.contains(b.as_str())),
            (UdfOp::StartsWith, [Str(a), Str(b)]) => Bool(a.starts_with(b.as_str())),
            (UdfOp::EndsWith, [Str(a), Str(b)]) => Bool(a.ends_with(b.as_str())),
            (UdfOp::Find, [Str(a), Str(b)]) => Int(host::find(self.host, a, b)),
            (UdfOp::Replace, [Str(s), Str(old), Str(new)]) => match host::replace(s, old, new) {
                Some(replaced) => Str(replaced),
                None => {
                    return Err(Stop::Error(format!(
                        "{point}: df.replace of an empty string, which would insert the \
                         replacement between every character, is not modelled"
                    )))
                }
            },
            (UdfOp::Strip { side, spaces_only }, [Str(s)]) => {
                Str(host::strip(s, *side, *spaces_only))
            }
            (UdfOp::Lower, [Str(s)]) => Str(host::lower(s)),
            (UdfOp::Upper, [Str(s)]) => Str(host::upper(s)),
            (UdfOp::StrEq, [Str(a), Str(b)]) => Bool(a == b),
            (UdfOp::IsPresent, [Option(o)]) => Bool(o.is_some()),
            (UdfOp::ValueOr, [Option(o), default]) => match o {
                Some(v) => (**v).clone(),
                None => default.clone(),
            },
            _ => return Err(mismatch(point, args)),
        })
    }

    fn decide(&mut self, cond: &Value, point: &str) -> Result<bool, Stop> {
        match cond {
            Value::Bool(b) => Ok(*b),
            other => Err(Stop::Error(format!(
                "{point}: condition is {other:?}, not an i1"
            ))),
        }
    }

    fn is_constant(&self, _cond: &Value) -> bool {
        true
    }

    fn presence(&self, value: &Value) -> Option<bool> {
        match value {
            Value::Option(o) => Some(o.is_some()),
            _ => None,
        }
    }

    fn loop_bound(&self) -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_equal_exactly_when_values_are_the_same() {
        let values = [
            Value::Int(1),
            Value::Float(0.0),
            Value::Float(-0.0),
            Value::Float(f64::NAN),
            Value::Bool(true),
            Value::Str("1".into()),
            Value::List(vec![Value::Float(f64::NAN)]),
            Value::List(vec![]),
            Value::Option(None),
            Value::Option(Some(Box::new(Value::Float(f64::NAN)))),
            Value::Option(Some(Box::new(Value::Int(1)))),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(a.same(b), a.key() == b.key(), "{a:?} vs {b:?}");
            }
        }
    }

    /// `arith.cmpf one` is ordered: NaN is not "not equal" to anything.
    #[test]
    fn ordered_not_equal_is_false_on_nan() {
        let mut domain = Concrete::default();
        let ne = UdfOp::CmpFloat(Cmp::Ne);
        let nan = Value::Float(f64::NAN);
        let one = Value::Float(1.0);
        let apply =
            |d: &mut Concrete, a: &Value, b: &Value| d.apply(&ne, "t", &[a.clone(), b.clone()]);
        assert_eq!(apply(&mut domain, &nan, &one), Ok(Value::Bool(false)));
        assert_eq!(apply(&mut domain, &nan, &nan), Ok(Value::Bool(false)));
        assert_eq!(
            apply(&mut domain, &one, &Value::Float(2.0)),
            Ok(Value::Bool(true))
        );
    }

    /// Python's ints do not wrap: a result beyond i64 stops the run (the
    /// model cannot hold it), where the JVM's `long` wraps.
    #[test]
    fn python_integers_beyond_i64_stop_and_jvm_longs_wrap() {
        let big = Value::Int(i64::MAX);
        let cases = [
            (IntBinOp::Add, big.clone(), Value::Int(1)),
            (IntBinOp::Sub, Value::Int(i64::MIN), Value::Int(1)),
            (
                IntBinOp::Mul,
                Value::Int(3_037_000_500),
                Value::Int(3_037_000_500),
            ),
            (IntBinOp::FloorDiv, Value::Int(i64::MIN), Value::Int(-1)),
        ];
        for (op, a, b) in cases {
            let args = [a.clone(), b.clone()];
            let mut python = Concrete { host: Host::Python };
            match python.apply(&UdfOp::IntBin(op), "@f:1", &args) {
                Err(Stop::Error(message)) => {
                    assert!(message.contains("beyond i64"), "{op:?}: {message}")
                }
                other => panic!("{op:?} {a:?} {b:?} on Python: {other:?}"),
            }
            let mut jvm = Concrete { host: Host::Jvm };
            assert!(
                matches!(
                    jvm.apply(&UdfOp::IntBin(op), "@f:1", &args),
                    Ok(Value::Int(_))
                ),
                "{op:?} wraps on the JVM"
            );
        }
        let mut python = Concrete { host: Host::Python };
        assert_eq!(
            python.apply(
                &UdfOp::IntBin(IntBinOp::Add),
                "@f:1",
                &[Value::Int(i64::MAX - 1), Value::Int(1)]
            ),
            Ok(Value::Int(i64::MAX))
        );
        assert_eq!(
            python.apply(
                &UdfOp::IntBin(IntBinOp::FloorDiv),
                "@f:1",
                &[Value::Int(i64::MIN), Value::Int(1)]
            ),
            Ok(Value::Int(i64::MIN))
        );
    }

    /// Python's `int()` of a float beyond i64, NaN or an infinity is no
    /// i64 (Java's cast saturates).
    #[test]
    fn python_int_of_a_float_beyond_i64_stops() {
        for x in [
            1e19,
            -1e19,
            f64::NAN,
            f64::INFINITY,
            9_223_372_036_854_775_808.0,
        ] {
            let mut python = Concrete { host: Host::Python };
            assert!(
                matches!(
                    python.apply(&UdfOp::FloatToInt, "@f:1", &[Value::Float(x)]),
                    Err(Stop::Error(_))
                ),
                "int({x})"
            );
            let mut jvm = Concrete { host: Host::Jvm };
            assert!(jvm
                .apply(&UdfOp::FloatToInt, "@f:1", &[Value::Float(x)])
                .is_ok());
        }
        let mut python = Concrete { host: Host::Python };
        assert_eq!(
            python.apply(
                &UdfOp::FloatToInt,
                "@f:1",
                &[Value::Float(-9_223_372_036_854_775_808.0)]
            ),
            Ok(Value::Int(i64::MIN))
        );
        assert_eq!(
            python.apply(&UdfOp::FloatToInt, "@f:1", &[Value::Float(-2.7)]),
            Ok(Value::Int(-2))
        );
    }
}

/// Spark SQL's `round` (HALF_UP) or `bround` (`half_even`) of a double:
/// its shortest decimal text (Java's `Double.toString`, Rust's `{:?}`)
/// rounded at `scale` decimal places, read back as the nearest double. A
/// zero result is +0.0 (a BigDecimal has no sign of zero).
pub fn sql_round(x: f64, scale: i64, half_even: bool) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let text = format!("{:?}", x.abs());
    let (mantissa, exponent) = match text.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i64>().unwrap_or(0)),
        None => (text.clone(), 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((&mantissa, ""));
    let digits: Vec<u8> = whole
        .bytes()
        .chain(fraction.bytes())
        .map(|b| b - b'0')
        .collect();
    // The value is 0.d1d2... * 10^point: `point` digits stand before the
    // decimal point.
    let point = whole.len() as i64 + exponent;
    let kept = point.saturating_add(scale);
    if kept >= digits.len() as i64 {
        return x;
    }
    let (head, rest): (&[u8], &[u8]) = if kept <= 0 {
        (&[], if kept == 0 { &digits[..] } else { &[] })
    } else {
        digits.split_at(kept as usize)
    };
    let mut value: u128 = head.iter().fold(0, |v, d| v * 10 + u128::from(*d));
    let up = match rest.first() {
        None => false,
        Some(&d) if d > 5 => true,
        Some(&d) if d < 5 => false,
        Some(_) if rest[1..].iter().any(|&d| d != 0) => true,
        // Exactly half.
        Some(_) => !half_even || value % 2 == 1,
    };
    value += u128::from(up);
    if value == 0 {
        return 0.0;
    }
    let rounded: f64 = format!("{value}e{}", -scale).parse().unwrap_or(x.abs());
    if x < 0.0 {
        -rounded
    } else {
        rounded
    }
}

#[cfg(test)]
mod round_tests {
    use super::sql_round;

    #[test]
    fn rounds_the_shortest_decimal_text_as_spark_does() {
        assert_eq!(sql_round(2.675, 2, false), 2.68);
        assert_eq!(sql_round(2.665, 2, true), 2.66);
        assert_eq!(sql_round(2.5, 0, true), 2.0);
        assert_eq!(sql_round(3.5, 0, true), 4.0);
        assert_eq!(sql_round(-2.5, 0, false), -3.0);
        assert_eq!(sql_round(0.004, 2, false), 0.0);
        assert!(sql_round(-0.004, 2, false).is_sign_positive());
        assert_eq!(sql_round(1234.5678, -2, false), 1200.0);
        assert_eq!(sql_round(0.05, 1, false), 0.1);
        assert_eq!(sql_round(1e20, 2, false), 1e20);
        assert_eq!(sql_round(9.995, 2, false), 10.0);
        assert!(sql_round(f64::NAN, 2, false).is_nan());
    }
}
