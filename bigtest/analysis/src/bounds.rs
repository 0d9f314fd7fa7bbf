//! The analysis's integer options, defined once: the passes declare them
//! from here (so `docs/passes.md` and `--list-passes` show these values),
//! and `coco-bigtest` uses the same defaults and ranges.

/// An integer option with a default and an inclusive range.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// The option's name: `k` is `bigtest-jdu-paths{k=3}` and `--k 3`.
    pub name: &'static str,
    pub summary: &'static str,
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

impl Bound {
    /// `value` if it lies in the range; otherwise why not, naming the pass
    /// option (`option 'k' must be ...`).
    pub fn check(&self, value: i64) -> Result<i64, String> {
        self.check_as(&format!("option '{}'", self.name), value)
    }

    /// The same for the command-line flag (`--k must be ...`).
    pub fn check_flag(&self, value: i64) -> Result<i64, String> {
        self.check_as(&format!("--{}", self.name), value)
    }

    /// How to raise this limit of pass `pass`: its pass option and flag.
    pub fn raise(&self, pass: &str) -> String {
        format!(
            "raise it with {pass}{{{name}=N}} or coco-bigtest --{name} N",
            name = self.name
        )
    }

    fn check_as(&self, what: &str, value: i64) -> Result<i64, String> {
        if (self.min..=self.max).contains(&value) {
            Ok(value)
        } else {
            Err(format!(
                "{what} must be between {} and {}, found {value}",
                self.min, self.max
            ))
        }
    }
}

/// Records combined per reduce/group/distinct, flat_map elements followed,
/// and loop unrolling.
pub const K: Bound = Bound {
    name: "k",
    summary:
        "records combined by reduce/group/distinct, flat_map elements followed, and loop unrolling",
    default: 2,
    min: 1,
    max: 8,
};

/// Work the symbolic executor may do on one UDF path, so a constant loop
/// of a billion trips is an error, not a hang.
pub const FUEL: Bound = Bound {
    name: "fuel",
    summary: "UDF operations the symbolic executor may run on one UDF path (constant loops run to the end within it)",
    default: 100_000,
    min: 1,
    max: 100_000_000,
};

/// The largest `df.get` index followed into a string split from input:
/// each piece up to it is two solver variables.
pub const MAX_INDEX: Bound = Bound {
    name: "max-index",
    summary: "largest df.get index into a string split from input that the analysis follows",
    default: 1_000,
    min: 0,
    max: 1_000_000,
};

/// JDU paths per program, UDF paths per operator and record combinations
/// per operator the enumeration may produce.
pub const MAX_PATHS: Bound = Bound {
    name: "max-paths",
    summary: "JDU paths per program, UDF paths per operator and record combinations per operator that the enumeration may produce",
    default: 20_000,
    min: 1,
    max: 10_000_000,
};

/// The solver's time limit per query.
pub const TIMEOUT_MS: Bound = Bound {
    name: "timeout-ms",
    summary: "Z3 time limit per query, in milliseconds",
    default: 10_000,
    min: 1,
    max: 600_000,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_in_their_ranges() {
        for bound in [K, FUEL, MAX_INDEX, MAX_PATHS, TIMEOUT_MS] {
            assert_eq!(bound.check(bound.default), Ok(bound.default));
        }
    }

    #[test]
    fn values_out_of_range_name_the_option() {
        assert_eq!(
            K.check(9).unwrap_err(),
            "option 'k' must be between 1 and 8, found 9"
        );
        assert_eq!(
            TIMEOUT_MS.check_flag(0).unwrap_err(),
            "--timeout-ms must be between 1 and 600000, found 0"
        );
        assert!(TIMEOUT_MS.check(600_001).is_err());
    }
}
