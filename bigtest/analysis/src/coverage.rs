//! Coverage of datasets: which enumerated JDU paths the program follows on
//! them, and which paths it follows that the bound k leaves out.

use std::collections::BTreeSet;

use coco_dataflow::{lineage::path_key, model::Program};
use coco_dialects::bigtest::PathStatus;

use crate::{generate, generate::PathSpec, mutation::Dataset};

/// What the program did on all the datasets together.
#[derive(Debug, Default)]
pub struct Coverage {
    /// Ids of the enumerated paths some record followed.
    pub covered: BTreeSet<i64>,
    /// Records on which the program fails (Spark would abort the job).
    pub failures: usize,
    /// Paths followed that are not enumerated at this k (more records
    /// combined, later flat_map elements, more loop trips), as path keys.
    pub beyond_k: BTreeSet<String>,
}

impl Coverage {
    /// Covered feasible paths over feasible paths: (hit, feasible).
    pub fn feasible_hit(&self, paths: &[(PathSpec, PathStatus)]) -> (usize, usize) {
        let feasible: Vec<i64> = paths
            .iter()
            .filter(|(_, s)| *s == PathStatus::Sat)
            .map(|(p, _)| p.id)
            .collect();
        let hit = feasible
            .iter()
            .filter(|id| self.covered.contains(id))
            .count();
        (hit, feasible.len())
    }
}

/// Percent of `hit` in `of` (100 when there is nothing to cover).
pub fn percent(hit: usize, of: usize) -> f64 {
    if of == 0 {
        100.0
    } else {
        100.0 * hit as f64 / of as f64
    }
}

/// Runs `program` on each dataset and gathers what it covered.
pub fn measure(
    program: &Program,
    paths: &[(PathSpec, PathStatus)],
    datasets: &[Dataset],
) -> Result<Coverage, String> {
    let specs: Vec<PathSpec> = paths.iter().map(|(p, _)| p.clone()).collect();
    let enumerated: BTreeSet<String> = specs.iter().map(|s| path_key(&s.branches)).collect();
    let mut coverage = Coverage::default();
    for inputs in datasets {
        let (ids, run) = generate::coverage(program, &specs, inputs)?;
        coverage.covered.extend(ids);
        coverage.failures += run.failures.len();
        for observation in &run.observations {
            let key = path_key(&observation.branches);
            if !enumerated.contains(&key) {
                coverage.beyond_k.insert(key);
            }
        }
    }
    Ok(coverage)
}

/// Counts of (sat, unsat, unknown) paths.
pub fn status_counts(paths: &[(PathSpec, PathStatus)]) -> (usize, usize, usize) {
    let count = |s: PathStatus| paths.iter().filter(|(_, status)| *status == s).count();
    (
        count(PathStatus::Sat),
        count(PathStatus::Unsat),
        count(PathStatus::Unknown),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_of_nothing_is_full() {
        assert_eq!(percent(0, 0), 100.0);
        assert_eq!(percent(1, 4), 25.0);
    }
}
