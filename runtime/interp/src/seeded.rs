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

/// How one input's elements are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// Every element is this value (a learning rate, a step count).
    Constant(f64),
    /// Uniform in `[low, high)`; integers are rounded down.
    Uniform { low: f64, high: f64 },
    /// Gaussian (Box-Muller over two uniform draws); floats only.
    Normal { mean: f64, std: f64 },
}

/// The forms `--input` accepts, for messages.
pub const DISTRIBUTION_FORMS: &str = "a number (1e-3), uniform(LOW,HIGH) or normal(MEAN,STD)";

impl FromStr for Distribution {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let number = |s: &str| -> Result<f64, String> {
            s.trim()
                .parse::<f64>()
                .map_err(|_| format!("'{}' is not a number", s.trim()))
        };
        let call = |name: &str| -> Option<Result<(f64, f64), String>> {
            let inner = text.strip_prefix(name)?.trim_start().strip_prefix('(')?;
            let inner = inner.strip_suffix(')')?;
            Some(match inner.split(',').collect::<Vec<_>>()[..] {
                [a, b] => number(a).and_then(|a| Ok((a, number(b)?))),
                _ => Err(format!("{name}(...) takes two numbers")),
            })
        };
        if let Some(args) = call("uniform") {
            let (low, high) = args?;
            if !(low.is_finite() && high.is_finite() && low < high) {
                return Err(format!(
                    "uniform({low},{high}) needs finite bounds with LOW < HIGH"
                ));
            }
            return Ok(Distribution::Uniform { low, high });
        }
        if let Some(args) = call("normal") {
            let (mean, std) = args?;
            if !(mean.is_finite() && std.is_finite() && std >= 0.0) {
                return Err(format!(
                    "normal({mean},{std}) needs a finite mean and STD >= 0"
                ));
            }
            return Ok(Distribution::Normal { mean, std });
        }
        number(text)
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

impl Distribution {
    /// Why this distribution cannot fill an input of `dtype`, if it cannot.
    pub fn check(self, dtype: DType) -> Result<(), String> {
        if dtype.is_float() {
            return Ok(());
        }
        match self {
            Distribution::Normal { .. } => {
                Err(format!("normal() needs a float input, not {dtype}"))
            }
            Distribution::Constant(x) => {
                let (min, max) = match dtype {
                    DType::I1 => (0.0, 1.0),
                    DType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
                    _ => (i64::MIN as f64, i64::MAX as f64),
                };
                if x.fract() != 0.0 || !(min..=max).contains(&x) {
                    Err(format!("{x} is not an {dtype} value"))
                } else {
                    Ok(())
                }
            }
            Distribution::Uniform { .. } => Ok(()),
        }
    }

    /// Element `index` of the stream keyed by `key`.
    fn draw(self, dtype: DType, key: u64, index: u64) -> Scalar {
        let value = match self {
            Distribution::Constant(x) => x,
            Distribution::Uniform { low, high } => low + rng::uniform(key, index) * (high - low),
            Distribution::Normal { mean, std } => {
                // Box-Muller; 1 - u keeps the logarithm finite.
                let u1 = 1.0 - rng::uniform(key, 2 * index);
                let u2 = rng::uniform(key, 2 * index + 1);
                mean + std * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            }
        };
        if dtype.is_float() {
            Scalar::Float(value)
        } else {
            Scalar::Int(value.floor() as i64)
        }
    }
}

/// The inputs every run gets when none is chosen: uniform in [0, 1) for
/// floats, 0 to 15 for integers.
const DEFAULT: Distribution = Distribution::Uniform {
    low: 0.0,
    high: 1.0,
};

fn default_for(dtype: DType) -> Distribution {
    if dtype.is_float() {
        DEFAULT
    } else {
        Distribution::Uniform {
            low: 0.0,
            high: 16.0,
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
                    HostValue::PerRank((0..ranks as u64).map(|r| tensor(spec, r + 1)).collect())
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
            drawn: None,
        }
    }

    #[test]
    fn parses_the_three_forms_and_rejects_the_rest() {
        assert_eq!("1e-3".parse(), Ok(Distribution::Constant(1e-3)));
        assert_eq!(
            " uniform( -1 , 2.5 ) ".parse(),
            Ok(Distribution::Uniform {
                low: -1.0,
                high: 2.5
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
            ("f.arg1".to_string(), Distribution::Constant(1e-3)),
            (
                "f.arg2".to_string(),
                Distribution::Uniform {
                    low: -4.0,
                    high: 4.0,
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
        let one = Distribution::Constant(1.0);
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
        assert!(pick("arg1", Distribution::Constant(0.5))
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
}
