//! Seeded program inputs, and the distributions a user can choose per input
//! (`coco-run --input lr=1e-3 --input grad='normal(0,0.02)'`).
//!
//! Every input not chosen is uniform in [0, 1) (integers: 0 to 15). Values
//! are drawn from a counter-based generator keyed by (seed, input name,
//! rank), so an input's values do not depend on which other inputs exist or
//! were chosen, and every backend sees the same values for the same seed.

use std::{collections::HashMap, fmt, str::FromStr};

use coco_dialects::coco::Layout;

use crate::{
    program::{HostValue, Spec},
    rng,
    tensor::{DType, Scalar, Tensor},
};

/// A number as the user wrote it: a literal that denotes an integer
/// (`12`, `-3`, `1e3`, `2.50e1`) exactly, as an [`Number::Int`]; any other
/// (`0.5`, `1e-3`, `inf`) as the nearest f64. Integer inputs take their
/// values from the exact form, so `9007199254740993` (2^53 + 1) is not
/// rounded to 2^53 on its way through a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    fn parse(text: &str) -> Result<Number, String> {
        let text = text.trim();
        if let Some(value) = exact_integer(text) {
            return Ok(Number::Int(value));
        }
        let x = text
            .parse::<f64>()
            .map_err(|_| format!("'{text}' is not a number"))?;
        let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
        if x.is_infinite() && !text.to_ascii_lowercase().contains("inf") {
            return Err(format!("{text} overflows every float type to infinity"));
        }
        if x == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
            return Err(format!("{text} underflows every float type to 0"));
        }
        Ok(Number::Float(x))
    }

    /// The value as an f64 (the nearest, for integers beyond 2^53).
    pub fn to_f64(self) -> f64 {
        match self {
            Number::Int(v) => v as f64,
            Number::Float(x) => x,
        }
    }

    /// For messages: integers in full, floats as Rust writes them
    /// (`1e39`, not forty digits).
    fn text(self) -> String {
        match self {
            Number::Int(v) => v.to_string(),
            Number::Float(x) => format!("{x:?}").trim_end_matches(".0").to_string(),
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Number::Int(v) => write!(f, "{v}"),
            Number::Float(x) => write!(f, "{x}"),
        }
    }
}

/// The integer a decimal literal (`[+-]DIGITS[.DIGITS][e[+-]DIGITS]`)
/// denotes exactly, if it denotes one that an i128 holds; `-0` and the
/// like stay floats (a float input keeps its sign).
fn exact_integer(text: &str) -> Option<i128> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // DIGITS x 10^(exponent - fraction digits), without the zeros that
    // change nothing.
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    let mut scale = i64::from(exponent) - fraction.len() as i64;
    let significant = digits.trim_end_matches('0');
    scale += (digits.len() - significant.len()) as i64;
    if significant.is_empty() {
        return (!negative).then_some(0);
    }
    if scale < 0 || significant.len() > 39 || scale > 39 {
        return None; // a fraction, or beyond any i128
    }
    let mut value: i128 = significant.parse().ok()?;
    for _ in 0..scale {
        value = value.checked_mul(10)?;
    }
    Some(if negative { -value } else { value })
}

/// How one input's elements are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// Every element is this value (a learning rate, a step count).
    Constant(Number),
    /// Uniform in `[low, high)`; integers are rounded down.
    Uniform { low: Number, high: Number },
    /// Gaussian (Box-Muller over two uniform draws); floats only.
    Normal { mean: f64, std: f64 },
}

/// The forms `--input` accepts, for messages.
pub const DISTRIBUTION_FORMS: &str = "a number (1e-3), uniform(LOW,HIGH) or normal(MEAN,STD)";

impl FromStr for Distribution {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let call = |name: &str| -> Option<Result<(Number, Number), String>> {
            let inner = text.strip_prefix(name)?.trim_start().strip_prefix('(')?;
            let inner = inner.strip_suffix(')')?;
            Some(match inner.split(',').collect::<Vec<_>>()[..] {
                [a, b] => Number::parse(a).and_then(|a| Ok((a, Number::parse(b)?))),
                _ => Err(format!("{name}(...) takes two numbers")),
            })
        };
        if let Some(args) = call("uniform") {
            let (low, high) = args?;
            let below = match (low, high) {
                (Number::Int(l), Number::Int(h)) => l < h,
                _ => low.to_f64() < high.to_f64(),
            };
            if !(low.to_f64().is_finite() && high.to_f64().is_finite() && below) {
                return Err(format!(
                    "uniform({low},{high}) needs finite bounds with LOW < HIGH"
                ));
            }
            return Ok(Distribution::Uniform { low, high });
        }
        if let Some(args) = call("normal") {
            let (mean, std) = args?;
            let (mean, std) = (mean.to_f64(), std.to_f64());
            if !(mean.is_finite() && std.is_finite() && std >= 0.0) {
                return Err(format!(
                    "normal({mean},{std}) needs a finite mean and STD >= 0"
                ));
            }
            return Ok(Distribution::Normal { mean, std });
        }
        Number::parse(text)
            .map(Distribution::Constant)
            .map_err(|e| format!("{e}; expected {DISTRIBUTION_FORMS}"))
    }
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Distribution::Constant(x) => write!(f, "{x}"),
            Distribution::Uniform { low, high } => write!(f, "uniform({low},{high})"),
            Distribution::Normal { mean, std } => write!(f, "normal({mean},{std})"),
        }
    }
}

/// The smallest and largest value of integer type `dtype`.
fn integer_range(dtype: DType) -> (i128, i128) {
    match dtype {
        DType::I1 => (0, 1),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

/// Beyond this magnitude an f64 no longer holds every integer.
const EXACT_F64: f64 = 9007199254740992.0;

/// Why the literal `x` cannot be a value of float type `dtype`: it
/// overflows to infinity, or it is not zero and underflows to zero.
/// Infinities and NaN written as such are values.
fn check_float(x: Number, dtype: DType) -> Result<(), String> {
    let value = x.to_f64();
    let rounded = dtype.round(value);
    let (largest, smallest) = match dtype {
        DType::F64 => (f64::MAX, 5e-324),
        DType::F32 => (f64::from(f32::MAX), 1.401298464324817e-45),
        DType::F16 => (65504.0, 5.960464477539063e-8),
        _ => (3.3895313892515355e38, 9.183549615799121e-41),
    };
    if value.is_finite() && rounded.is_infinite() {
        return Err(format!(
            "{} overflows {dtype} to infinity (its largest finite value is {largest:e})",
            x.text()
        ));
    }
    if value != 0.0 && rounded == 0.0 {
        return Err(format!(
            "{} underflows {dtype} to 0 (its smallest nonzero value is {smallest:e})",
            x.text()
        ));
    }
    Ok(())
}

/// The integer an integer input takes from the literal `x`, if it denotes
/// one exactly.
fn integer_value(x: Number, dtype: DType) -> Result<i128, String> {
    let (min, max) = integer_range(dtype);
    let outside = || format!("{} is outside {dtype}'s range [{min}, {max}]", x.text());
    match x {
        Number::Int(v) if (min..=max).contains(&v) => Ok(v),
        Number::Int(_) => Err(outside()),
        Number::Float(0.0) => Ok(0), // -0
        // Too large for an i128: a whole number, but no integer type's.
        Number::Float(v) if v.is_finite() && v.abs() >= 1e38 => Err(outside()),
        Number::Float(_) => Err(format!("{} is not an {dtype} value", x.text())),
    }
}

impl Distribution {
    /// Why this distribution cannot fill an input of `dtype`, if it cannot:
    /// an integer outside the type's range, a float literal that would
    /// become infinity or 0 in it, `normal` for an integer input.
    pub fn check(self, dtype: DType) -> Result<(), String> {
        if dtype.is_float() {
            return match self {
                Distribution::Constant(x) => check_float(x, dtype),
                Distribution::Uniform { low, high } => {
                    check_float(low, dtype)?;
                    check_float(high, dtype)?;
                    if (high.to_f64() - low.to_f64()).is_infinite() {
                        return Err(format!("uniform({low},{high}) spans more than an f64"));
                    }
                    Ok(())
                }
                Distribution::Normal { mean, std } => {
                    check_float(Number::Float(mean), dtype)?;
                    check_float(Number::Float(std), dtype)
                }
            };
        }
        match self {
            Distribution::Normal { .. } => {
                Err(format!("normal() needs a float input, not {dtype}"))
            }
            Distribution::Constant(x) => integer_value(x, dtype).map(|_| ()),
            Distribution::Uniform { low, high } => {
                let (min, max) = integer_range(dtype);
                let (first, last) = self.integer_bounds().ok_or_else(|| {
                    format!(
                        "uniform({low},{high}): bounds beyond 2^53 must be written as integers \
                         (an f64 does not hold every integer there)"
                    )
                })?;
                if first < min || last > max {
                    return Err(format!(
                        "uniform({low},{high}) draws {dtype} values from {first} to {last}, \
                         outside {dtype}'s range [{min}, {max}]"
                    ));
                }
                Ok(())
            }
        }
    }

    /// The first and last integer a uniform distribution draws (values are
    /// rounded down, HIGH excluded); `None` for float bounds an f64 does not
    /// hold exactly.
    fn integer_bounds(self) -> Option<(i128, i128)> {
        let Distribution::Uniform { low, high } = self else {
            return None;
        };
        let first = match low {
            Number::Int(v) => v,
            Number::Float(x) if x.abs() <= EXACT_F64 => x.floor() as i128,
            Number::Float(_) => return None,
        };
        let last = match high {
            Number::Int(v) => v - 1,
            Number::Float(x) if x.abs() <= EXACT_F64 => x.ceil() as i128 - 1,
            Number::Float(_) => return None,
        };
        Some((first, last.max(first)))
    }

    /// Element `index` of the stream keyed by `key` (the distribution was
    /// [`Distribution::check`]ed for `dtype`).
    fn draw(self, dtype: DType, key: u64, index: u64) -> Scalar {
        if !dtype.is_float() {
            return Scalar::Int(self.draw_integer(dtype, key, index) as i64);
        }
        Scalar::Float(match self {
            Distribution::Constant(x) => x.to_f64(),
            Distribution::Uniform { low, high } => {
                let (low, high) = (low.to_f64(), high.to_f64());
                low + rng::uniform(key, index) * (high - low)
            }
            Distribution::Normal { mean, std } => {
                // Box-Muller; 1 - u keeps the logarithm finite.
                let u1 = 1.0 - rng::uniform(key, 2 * index);
                let u2 = rng::uniform(key, 2 * index + 1);
                mean + std * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            }
        })
    }

    /// An integer element, exactly: never through an f64 that cannot hold it.
    fn draw_integer(self, dtype: DType, key: u64, index: u64) -> i128 {
        match self {
            Distribution::Constant(x) => integer_value(x, dtype).unwrap_or(0),
            Distribution::Uniform { low, high } => {
                let Some((first, last)) = self.integer_bounds() else {
                    return 0;
                };
                let u = rng::uniform(key, index);
                let small = |x: Number| x.to_f64().abs() <= EXACT_F64;
                if small(low) && small(high) {
                    // As always for bounds an f64 holds: the same values
                    // for the same seed as before.
                    let (l, h) = (low.to_f64(), high.to_f64());
                    ((l + u * (h - l)).floor() as i128).clamp(first, last)
                } else {
                    // u is k / 2^53: first + floor(k * span / 2^53).
                    let k = (u * EXACT_F64) as u128;
                    let span = (last - first + 1) as u128;
                    first + ((k * span) >> 53) as i128
                }
            }
            Distribution::Normal { .. } => 0,
        }
    }
}

/// The inputs every run gets when none is chosen: uniform in [0, 1) for
/// floats, 0 to 15 for integers.
const DEFAULT: Distribution = Distribution::Uniform {
    low: Number::Int(0),
    high: Number::Int(1),
};

fn default_for(dtype: DType) -> Distribution {
    if dtype.is_float() {
        DEFAULT
    } else {
        Distribution::Uniform {
            low: Number::Int(0),
            high: Number::Int(16),
        }
    }
}

/// Seeded values for every input of `specs` on `ranks` ranks, each from its
/// chosen distribution (`chosen`, by input name), else the one the program
/// declares (`Spec::drawn`), else the default. Resolve
/// user names first with [`resolve_choices`].
pub fn seeded_inputs(
    specs: &[Spec],
    ranks: usize,
    seed: u64,
    chosen: &HashMap<String, Distribution>,
) -> HashMap<String, HostValue> {
    let tensor = |spec: &Spec, rank: u64| {
        let key = rng::key(&[seed, rng::hash_str(&spec.name), rank]);
        let len: usize = spec.global_shape.iter().product();
        let distribution = chosen
            .get(&spec.name)
            .copied()
            .or(spec.drawn)
            .unwrap_or_else(|| default_for(spec.dtype));
        let values = (0..len as u64).map(|i| distribution.draw(spec.dtype, key, i));
        Tensor::from_scalars(spec.dtype, spec.global_shape.clone(), values)
    };
    specs
        .iter()
        .map(|spec| {
            let value = match spec.layout {
                Some(Layout::Local) => {
                    let parts = spec.parts(ranks) as u64;
                    HostValue::PerRank((0..parts).map(|r| tensor(spec, r + 1)).collect())
                }
                _ => HostValue::Global(tensor(spec, 0)),
            };
            (spec.name.clone(), value)
        })
        .collect()
}

/// [`seeded_inputs`] with every input at its default.
pub fn random_inputs(specs: &[Spec], ranks: usize, seed: u64) -> HashMap<String, HostValue> {
    seeded_inputs(specs, ranks, seed, &HashMap::new())
}

/// Maps each user choice `(name, distribution)` to the input it names:
/// the full name (`adam.arg4`), the argument alone when one function has it
/// (`arg4`), or the name the source gives the argument (`lr` or `%lr`,
/// from `source_names`: input name -> SSA name without `%`). A name that
/// matches no input or several, an input chosen twice, or a distribution
/// the input's type cannot take is an error naming it.
pub fn resolve_choices(
    specs: &[Spec],
    source_names: &HashMap<String, String>,
    choices: &[(String, Distribution)],
) -> Result<HashMap<String, Distribution>, String> {
    let mut resolved: HashMap<String, Distribution> = HashMap::new();
    for (name, distribution) in choices {
        let wanted = name.strip_prefix('%').unwrap_or(name);
        let matches: Vec<&Spec> = specs
            .iter()
            .filter(|s| {
                s.name == *name
                    || s.name
                        .rsplit_once('.')
                        .is_some_and(|(_, arg)| arg == wanted)
                    || source_names.get(&s.name).is_some_and(|n| n == wanted)
            })
            .collect();
        let spec = match matches[..] {
            [spec] => spec,
            [] => {
                let known: Vec<String> = specs
                    .iter()
                    .map(|s| match source_names.get(&s.name) {
                        Some(n) => format!("{} (%{n})", s.name),
                        None => s.name.clone(),
                    })
                    .collect();
                return Err(format!(
                    "--input {name}: the program has no such input; its inputs are {}",
                    known.join(", ")
                ));
            }
            _ => {
                let names: Vec<&str> = matches.iter().map(|s| s.name.as_str()).collect();
                return Err(format!(
                    "--input {name}: names several inputs ({}); use the full name",
                    names.join(", ")
                ));
            }
        };
        distribution
            .check(spec.dtype)
            .map_err(|e| format!("--input {name}: {e}"))?;
        if resolved.insert(spec.name.clone(), *distribution).is_some() {
            return Err(format!("--input {name}: {} is chosen twice", spec.name));
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, dtype: DType, shape: Vec<usize>) -> Spec {
        Spec {
            name: name.into(),
            dtype,
            global_shape: shape,
            layout: Some(Layout::Replicated),
            placement: None,
            groups: 1,
            drawn: None,
        }
    }

    #[test]
    fn parses_the_three_forms_and_rejects_the_rest() {
        assert_eq!(
            "1e-3".parse(),
            Ok(Distribution::Constant(Number::Float(1e-3)))
        );
        assert_eq!(
            " uniform( -1 , 2.5 ) ".parse(),
            Ok(Distribution::Uniform {
                low: Number::Int(-1),
                high: Number::Float(2.5)
            })
        );
        assert_eq!(
            "normal(0,0.02)".parse(),
            Ok(Distribution::Normal {
                mean: 0.0,
                std: 0.02
            })
        );
        for bad in [
            "",
            "lr",
            "uniform(1)",
            "uniform(2,1)",
            "normal(0,-1)",
            "uniform(0,inf)",
            "normal(a,1)",
        ] {
            assert!(bad.parse::<Distribution>().is_err(), "{bad}");
        }
    }

    #[test]
    fn chosen_inputs_follow_their_distribution_and_others_keep_theirs() {
        let specs = vec![
            spec("f.arg0", DType::F32, vec![4096]),
            spec("f.arg1", DType::F32, vec![]),
            spec("f.arg2", DType::I32, vec![64]),
        ];
        let chosen = HashMap::from([
            (
                "f.arg0".to_string(),
                Distribution::Normal {
                    mean: 3.0,
                    std: 0.5,
                },
            ),
            (
                "f.arg1".to_string(),
                Distribution::Constant(Number::Float(1e-3)),
            ),
            (
                "f.arg2".to_string(),
                Distribution::Uniform {
                    low: Number::Int(-4),
                    high: Number::Int(4),
                },
            ),
        ]);
        let seeded = seeded_inputs(&specs, 2, 7, &chosen);
        let values = |name: &str| seeded[name].scalars();
        let normal: Vec<f64> = values("f.arg0").iter().map(|s| s.to_f64()).collect();
        let mean = normal.iter().sum::<f64>() / normal.len() as f64;
        let var = normal.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / normal.len() as f64;
        assert!(
            (mean - 3.0).abs() < 0.05 && (var.sqrt() - 0.5).abs() < 0.05,
            "{mean} {var}"
        );
        assert_eq!(values("f.arg1")[0].to_f64(), f64::from(1e-3f32));
        assert!(values("f.arg2")
            .iter()
            .all(|s| (-4.0..4.0).contains(&s.to_f64())));
        assert!(values("f.arg2").iter().any(|s| s.to_f64() < 0.0));
        // An unchosen input is the same whatever else was chosen.
        let plain = random_inputs(&specs, 2, 7);
        let again = seeded_inputs(&specs[..1], 2, 7, &HashMap::new());
        assert_eq!(plain["f.arg0"], again["f.arg0"]);
    }

    #[test]
    fn names_resolve_by_full_name_argument_or_source_name() {
        let specs = vec![
            spec("f.arg0", DType::F32, vec![]),
            spec("f.arg1", DType::I64, vec![]),
            spec("g.arg0", DType::F32, vec![]),
        ];
        let source = HashMap::from([("f.arg0".to_string(), "lr".to_string())]);
        let one = Distribution::Constant(Number::Int(1));
        let pick =
            |name: &str, d: Distribution| resolve_choices(&specs, &source, &[(name.into(), d)]);
        assert_eq!(
            pick("lr", one).unwrap().keys().collect::<Vec<_>>(),
            ["f.arg0"]
        );
        assert!(pick("%lr", one).unwrap().contains_key("f.arg0"));
        assert!(pick("arg1", one).unwrap().contains_key("f.arg1"));
        assert!(pick("g.arg0", one).unwrap().contains_key("g.arg0"));
        assert!(pick("arg0", one)
            .unwrap_err()
            .contains("names several inputs (f.arg0, g.arg0)"));
        assert!(pick("beta", one)
            .unwrap_err()
            .contains("f.arg0 (%lr), f.arg1, g.arg0"));
        assert!(pick("arg1", Distribution::Constant(Number::Float(0.5)))
            .unwrap_err()
            .contains("0.5 is not an i64 value"));
        let normal = Distribution::Normal {
            mean: 0.0,
            std: 1.0,
        };
        assert!(pick("arg1", normal)
            .unwrap_err()
            .contains("normal() needs a float input"));
        let twice = resolve_choices(
            &specs,
            &source,
            &[("lr".into(), one), ("f.arg0".into(), one)],
        );
        assert!(twice.unwrap_err().contains("f.arg0 is chosen twice"));
    }

    fn constant(text: &str, dtype: DType) -> Result<i64, String> {
        let d: Distribution = text.parse()?;
        d.check(dtype)?;
        match d.draw(dtype, 1, 0) {
            Scalar::Int(v) => Ok(v),
            Scalar::Float(x) => panic!("{x} for {dtype}"),
        }
    }

    #[test]
    fn integer_literals_are_exact_and_checked_against_the_type() {
        // Integers beyond 2^53 keep every digit.
        assert_eq!(
            constant("9007199254740993", DType::I64),
            Ok(9007199254740993)
        );
        assert_eq!(constant("-9223372036854775808", DType::I64), Ok(i64::MIN));
        assert_eq!(constant("9223372036854775807", DType::I64), Ok(i64::MAX));
        assert_eq!(constant("1e3", DType::I32), Ok(1000));
        assert_eq!(constant("2.50e1", DType::I32), Ok(25));
        assert_eq!(constant("-0", DType::I32), Ok(0));
        // 2^63 no longer saturates; 1e19 and 3e9 (for i32) say the range.
        assert_eq!(
            constant("9223372036854775808", DType::I64),
            Err("9223372036854775808 is outside i64's range \
                 [-9223372036854775808, 9223372036854775807]"
                .into())
        );
        assert_eq!(
            constant("1e19", DType::I64),
            Err("10000000000000000000 is outside i64's range \
                 [-9223372036854775808, 9223372036854775807]"
                .into())
        );
        assert_eq!(
            constant("3000000000", DType::I32),
            Err("3000000000 is outside i32's range [-2147483648, 2147483647]".into())
        );
        assert!(constant("1e40", DType::I64)
            .unwrap_err()
            .contains("is outside i64's range"));
        assert_eq!(
            constant("2", DType::I1),
            Err("2 is outside i1's range [0, 1]".into())
        );
        assert_eq!(
            constant("0.5", DType::I32),
            Err("0.5 is not an i32 value".into())
        );
        assert_eq!(
            constant("1e-3", DType::I32),
            Err("0.001 is not an i32 value".into())
        );
    }

    #[test]
    fn uniform_bounds_must_fit_an_integer_type() {
        let check = |text: &str, dtype| text.parse::<Distribution>().unwrap().check(dtype);
        assert_eq!(
            check("uniform(0,5000000000)", DType::I32),
            Err(
                "uniform(0,5000000000) draws i32 values from 0 to 4999999999, outside i32's \
                 range [-2147483648, 2147483647]"
                    .into()
            )
        );
        // HIGH is excluded: every i32 can be drawn.
        check("uniform(-2147483648,2147483648)", DType::I32).unwrap();
        check("uniform(0,2)", DType::I1).unwrap();
        assert!(check("uniform(0,3)", DType::I1).is_err());
        assert!(check("uniform(0,1e19)", DType::I64).is_err());
        assert!(check("uniform(0.0,1e17)", DType::I64).is_ok());
        assert!(check("uniform(0,9007199254740993.5)", DType::I64)
            .unwrap_err()
            .contains("must be written as integers"));
        // Draws over the whole of i64 stay inside it, and cover both halves.
        let d: Distribution = "uniform(-9223372036854775808,9223372036854775808)"
            .parse()
            .unwrap();
        d.check(DType::I64).unwrap();
        let values: Vec<i128> = (0..64).map(|i| d.draw_integer(DType::I64, 3, i)).collect();
        assert!(values.iter().any(|&v| v < 0) && values.iter().any(|&v| v > 0));
        // Bounds an f64 holds draw what they always drew.
        let d: Distribution = "uniform(-4,4)".parse().unwrap();
        for i in 0..100 {
            let old = (-4.0 + rng::uniform(9, i) * 8.0).floor() as i128;
            assert_eq!(d.draw_integer(DType::I32, 9, i), old);
        }
    }

    #[test]
    fn float_literals_that_become_infinite_or_zero_are_refused() {
        let check = |text: &str, dtype| text.parse::<Distribution>().and_then(|d| d.check(dtype));
        assert_eq!(
            check("1e39", DType::F32),
            Err(
                "1e39 overflows f32 to infinity (its largest finite value is \
                 3.4028234663852886e38)"
                    .into()
            )
        );
        assert_eq!(
            check("1e-50", DType::F32),
            Err("1e-50 underflows f32 to 0 (its smallest nonzero value is \
                 1.401298464324817e-45)"
                .into())
        );
        assert!(check("70000", DType::F16)
            .unwrap_err()
            .contains("overflows f16"));
        assert!(check("uniform(0,1e39)", DType::F32).is_err());
        assert!(check("normal(1e39,1)", DType::F32).is_err());
        assert!(check("1e999", DType::F64)
            .unwrap_err()
            .contains("1e999 overflows every float type"));
        assert!(check("1e-999", DType::F64)
            .unwrap_err()
            .contains("1e-999 underflows every float type to 0"));
        // Fine: values in range, subnormals, zero, and infinities written
        // as such.
        for ok in ["3e38", "1e-45", "0", "-0.0", "inf", "-inf", "NaN", "1e300"] {
            let dtype = if ok == "1e300" {
                DType::F64
            } else {
                DType::F32
            };
            check(ok, dtype).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }
}
