//! The analysis's limits, defined once as typed pass options: the BigTest
//! passes declare them (so `docs/passes.md` and `--list-passes` show these
//! values), `coco-bigtest` offers each as the flag of the same name, and
//! [`crate::enumerate::Limits`] takes its defaults from here.

use coco_pass::options::IntOption;

/// Records combined per reduce/group/distinct, flat_map elements followed,
/// and loop unrolling.
pub const K: IntOption = IntOption {
    name: "k",
    summary:
        "records combined by reduce/group/distinct, flat_map elements followed, and loop unrolling",
    default: 2,
    min: 1,
    max: 8,
};

/// Work the symbolic executor may do on one UDF path, so a constant loop
/// of a billion trips is an error, not a hang.
pub const FUEL: IntOption = IntOption {
    name: "fuel",
    summary: "UDF operations the symbolic executor may run on one UDF path (constant loops run to the end within it)",
    default: 100_000,
    min: 1,
    max: 100_000_000,
};

/// The largest `df.get` index followed into a string split from input:
/// each piece up to it is two solver variables.
pub const MAX_INDEX: IntOption = IntOption {
    name: "max-index",
    summary: "largest df.get index into a string split from input that the analysis follows",
    default: 1_000,
    min: 0,
    max: 1_000_000,
};

/// JDU paths per program, UDF paths per operator and record combinations
/// per operator the enumeration may produce.
pub const MAX_PATHS: IntOption = IntOption {
    name: "max-paths",
    summary: "JDU paths per program, UDF paths per operator and record combinations per operator that the enumeration may produce",
    default: 20_000,
    min: 1,
    max: 10_000_000,
};

/// The solver's time limit per query.
pub const TIMEOUT_MS: IntOption = IntOption {
    name: "timeout-ms",
    summary: "Z3 effort per query, in milliseconds of a quiet machine (counted as work, 1000 rlimit units per ms)",
    default: 10_000,
    min: 1,
    max: 600_000,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_in_their_ranges() {
        for limit in [K, FUEL, MAX_INDEX, MAX_PATHS, TIMEOUT_MS] {
            assert_eq!(limit.out_of_range(limit.default), None, "{}", limit.name);
        }
    }
}
