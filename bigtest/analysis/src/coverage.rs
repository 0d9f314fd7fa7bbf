//! Coverage of datasets: which enumerated JDU paths the program follows on
//! them, how many records follow each, and which paths it follows that the
//! bound k leaves out. Measured by the interpreter ([`measure`]) or on
//! Spark by the paths job (`coco-translate --emit=pyspark-paths`), whose
//! histogram [`from_histogram`] reads.

use std::collections::{BTreeMap, BTreeSet};

use coco_dataflow::{
    interp,
    lineage::{path_key, EMPTY_REDUCE},
    model::{OpKind, Program},
};
use coco_dialects::bigtest::PathStatus;

use crate::{generate::PathSpec, mutation::Dataset};

/// What the program did on all the datasets together.
#[derive(Debug, Default, PartialEq)]
pub struct Coverage {
    /// Ids of the enumerated paths some record followed.
    pub covered: BTreeSet<i64>,
    /// Per enumerated path followed, the records that followed it (a record
    /// an operator combines from several counts once).
    pub records: BTreeMap<i64, u64>,
    /// Records that followed a path beyond k.
    pub beyond_k_records: u64,
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
                "@{program}: {} of {} JDU paths are unknown: Z3 gave up on them within --timeout-ms {timeout_ms} (the effort ran out, or an undecided theory), so the data may miss them; raise --timeout-ms to decide them",
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

/// Runs `program` on each dataset in the interpreter and gathers what it
/// covered. `k` is the bound the paths were enumerated at: a group of more
/// records is beyond k and gets one step (`interp::run_collapsed`), as on
/// Spark.
pub fn measure(
    program: &Program,
    paths: &[(PathSpec, PathStatus)],
    datasets: &[Dataset],
    k: usize,
) -> crate::Result<Coverage> {
    let mut tally = Tally::new(paths);
    for inputs in datasets {
        let run = interp::run_collapsed(program, inputs, k)?;
        let (of_records, empty): (Vec<_>, Vec<_>) =
            run.failures.iter().partition(|f| !f.origins.is_empty());
        tally.coverage.failures += of_records.len();
        tally.coverage.empty_reduces += empty.len();
        for observation in &run.observations {
            tally.add(path_key(&observation.branches), 1);
        }
    }
    Ok(tally.coverage)
}

/// Coverage as the paths job measured it on Spark: per dataset, the
/// records per rendered path (with the operator where each path ends and
/// whether it fails there), and the global reduces whose input was empty.
#[derive(Debug, serde::Deserialize)]
pub struct Histogram {
    pub program: String,
    pub k: i64,
    pub datasets: Vec<DatasetPaths>,
}

#[derive(Debug, serde::Deserialize)]
pub struct DatasetPaths {
    /// (path, operator id, failed, records).
    pub paths: Vec<(String, usize, bool, u64)>,
    pub empty_reduces: Vec<usize>,
}

impl Histogram {
    /// Reads the JSON the paths job writes; `what` names it in errors.
    pub fn parse(text: &str, what: &str) -> Result<Histogram, String> {
        serde_json::from_str(text).map_err(|e| {
            format!("{what}: not a path histogram of coco's paths job (coco-translate --emit=pyspark-paths): {e}")
        })
    }
}

/// What a histogram says the program did, as [`measure`] would report it
/// for the same datasets. `k` is the bound the paths were enumerated at;
/// the histogram must have been made at it, since the job renders a fold of
/// more than k records as beyond k.
pub fn from_histogram(
    program: &Program,
    paths: &[(PathSpec, PathStatus)],
    histogram: &Histogram,
    k: i64,
) -> Result<Coverage, String> {
    if histogram.program != program.name {
        return Err(format!(
            "the histogram is of @{}, not @{}",
            histogram.program, program.name
        ));
    }
    if histogram.k != k {
        return Err(format!(
            "the histogram was made at --k {}, the paths are enumerated at --k {k}; run the job with --k {k}",
            histogram.k
        ));
    }
    let mut tally = Tally::new(paths);
    for dataset in &histogram.datasets {
        for (path, op, failed, records) in &dataset.paths {
            if *op >= program.ops.len() {
                return Err(format!(
                    "the histogram names operator #{op}; @{} has {}",
                    program.name,
                    program.ops.len()
                ));
            }
            if *failed {
                tally.coverage.failures += *records as usize;
            }
            tally.add(path.clone(), *records);
        }
        // The interpreter's rule (interp.rs): an empty global reduce fails
        // the job; its path is followed only when no record failed in an
        // operator before it.
        for &reduce in &dataset.empty_reduces {
            if !matches!(
                program.ops.get(reduce).map(|o| &o.kind),
                Some(OpKind::Reduce { .. })
            ) {
                return Err(format!(
                    "the histogram names operator #{reduce} as a global reduce; it is not one"
                ));
            }
            tally.coverage.empty_reduces += 1;
            let failed_before = dataset
                .paths
                .iter()
                .any(|(_, op, failed, _)| *failed && *op < reduce)
                || dataset.empty_reduces.iter().any(|&r| r < reduce);
            if !failed_before {
                let label = format!("{}={EMPTY_REDUCE}", program.op_label(reduce));
                tally.add(label, 1);
            }
        }
    }
    Ok(tally.coverage)
}

/// Paths followed, counted against the enumerated ones.
struct Tally {
    ids: BTreeMap<String, i64>,
    coverage: Coverage,
}

impl Tally {
    fn new(paths: &[(PathSpec, PathStatus)]) -> Tally {
        Tally {
            ids: paths
                .iter()
                .map(|(p, _)| (path_key(&p.branches), p.id))
                .collect(),
            coverage: Coverage::default(),
        }
    }

    fn add(&mut self, key: String, records: u64) {
        match self.ids.get(&key) {
            Some(&id) => {
                self.coverage.covered.insert(id);
                *self.coverage.records.entry(id).or_default() += records;
            }
            None => {
                self.coverage.beyond_k_records += records;
                self.coverage.beyond_k.insert(key);
            }
        }
    }
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
