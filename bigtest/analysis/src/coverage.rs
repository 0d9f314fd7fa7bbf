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
    /// Datasets on which a global reduce sees no record (Spark's reduce
    /// throws, which fails the job).
    pub empty_reduces: usize,
    /// Paths followed that are not enumerated at this k (more records
    /// combined, later flat_map elements, more loop trips), as path keys.
    pub beyond_k: BTreeSet<String>,
}

/// The coverage figure: of the paths not shown infeasible (`sat` and
/// `unknown`), how many the data covers. An unknown path is one the solver
/// gave up on, not one it ruled out, so it counts as not covered unless the
/// data happens to follow it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    pub paths: usize,
    pub feasible: usize,
    pub infeasible: usize,
    pub unknown: usize,
    /// Paths not shown infeasible: `feasible + unknown`.
    pub coverable: usize,
    /// Of those, the ones the data covers.
    pub covered: usize,
}

impl Summary {
    pub fn new(paths: &[(PathSpec, PathStatus)], covered: &BTreeSet<i64>) -> Summary {
        let (feasible, infeasible, unknown) = status_counts(paths);
        let covered = paths
            .iter()
            .filter(|(p, s)| *s != PathStatus::Unsat && covered.contains(&p.id))
            .count();
        Summary {
            paths: paths.len(),
            feasible,
            infeasible,
            unknown,
            coverable: feasible + unknown,
            covered,
        }
    }

    pub fn percent(&self) -> f64 {
        percent(self.covered, self.coverable)
    }

    /// `covered: 3 of 4 paths not shown infeasible (75.0%)`, with what the
    /// unknown paths are when there are any.
    pub fn covered_line(&self) -> String {
        let mut line = format!(
            "covered: {} of {} paths not shown infeasible ({:.1}%)",
            self.covered,
            self.coverable,
            self.percent()
        );
        if self.unknown > 0 {
            line.push_str(&format!(
                "; {} of them unknown (the solver gave up), which count as not covered unless the data follows them",
                self.unknown
            ));
        }
        line
    }

    /// Why a run with unknown paths is incomplete, and what to do about it;
    /// `None` when every path was decided.
    pub fn unknown_problem(&self, program: &str, timeout_ms: i64) -> Option<String> {
        (self.unknown > 0).then(|| {
            format!(
                "@{program}: {} of {} JDU paths are unknown: Z3 gave up on them within --timeout-ms {timeout_ms} (a timeout or an undecided theory), so the data may miss them; raise --timeout-ms to decide them",
                self.unknown, self.paths
            )
        })
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
) -> crate::Result<Coverage> {
    let specs: Vec<PathSpec> = paths.iter().map(|(p, _)| p.clone()).collect();
    let enumerated: BTreeSet<String> = specs.iter().map(|s| path_key(&s.branches)).collect();
    let mut coverage = Coverage::default();
    for inputs in datasets {
        let (ids, run) = generate::coverage(program, &specs, inputs)?;
        coverage.covered.extend(ids);
        let (of_records, empty): (Vec<_>, Vec<_>) =
            run.failures.iter().partition(|f| !f.origins.is_empty());
        coverage.failures += of_records.len();
        coverage.empty_reduces += empty.len();
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

#[cfg(test)]
mod summary_tests {
    use super::*;

    fn path(id: i64) -> PathSpec {
        PathSpec {
            id,
            branches: vec![],
            script: vec![],
            keys: vec![],
            records: vec![],
        }
    }

    #[test]
    fn unknown_paths_count_as_not_covered() {
        let paths = [
            (path(0), PathStatus::Sat),
            (path(1), PathStatus::Unknown),
            (path(2), PathStatus::Unknown),
            (path(3), PathStatus::Unsat),
        ];
        let summary = Summary::new(&paths, &BTreeSet::from([0, 3]));
        assert_eq!((summary.covered, summary.coverable), (1, 3));
        assert!(summary
            .covered_line()
            .starts_with("covered: 1 of 3 paths not shown infeasible (33.3%); 2 of them unknown"));
        assert!(summary
            .unknown_problem("p", 1)
            .unwrap()
            .contains("raise --timeout-ms"));
        let none_unknown = Summary::new(&paths[..1], &BTreeSet::new());
        assert_eq!(none_unknown.unknown_problem("p", 1), None);
    }
}
