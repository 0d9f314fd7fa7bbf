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
        for bound in [K, TIMEOUT_MS] {
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
