//! Mutation scores: run every faulty variant of a program
//! ([`coco_dataflow::mutate`]) on the test data and count those the data
//! detects.
//!
//! Each test case is one Spark job, and a mutant is killed when, on some
//! test case, the job's outcome differs from the original's: one fails and
//! the other does not (Spark aborts a job at the first exception, so which
//! record threw is not part of what a user sees), or both succeed with
//! different sinks (compared as multisets, since Spark leaves the order of
//! keyed results unspecified), or the program does not run at all.

use std::collections::BTreeMap;

use coco_dataflow::{
    interp::{self, Run},
    model::Program,
    mutate::{self, Mutant},
};

/// One test case: the lines of every source.
pub type Dataset = BTreeMap<String, Vec<String>>;

/// The outcome of running every mutant of one program.
#[derive(Debug)]
pub struct Score {
    pub mutants: usize,
    pub killed: usize,
    /// Per fault class: (killed, mutants).
    pub per_class: BTreeMap<&'static str, (usize, usize)>,
    /// The mutants no test case detects, in generation order.
    pub survivors: Vec<Mutant>,
}

impl Score {
    /// Killed over all mutants, in percent (100 when there are none).
    pub fn percent(&self) -> f64 {
        if self.mutants == 0 {
            100.0
        } else {
            100.0 * self.killed as f64 / self.mutants as f64
        }
    }
}

/// What a Spark job of one test case ends with.
#[derive(Debug, PartialEq)]
pub enum JobOutcome {
    /// A UDF threw (or an operator failed): the job is aborted, and writes
    /// no output.
    Failed,
    /// Every sink's lines, sorted.
    Succeeded(Vec<(String, Vec<String>)>),
}

impl JobOutcome {
    pub fn of(run: &Run) -> JobOutcome {
        if run.failures.is_empty() {
            JobOutcome::Succeeded(run.sink_lines())
        } else {
            JobOutcome::Failed
        }
    }
}

/// Whether two runs of a program, as Spark jobs, end differently.
pub fn differs(original: &Result<Run, interp::Error>, mutant: &Result<Run, interp::Error>) -> bool {
    match (original, mutant) {
        (Ok(a), Ok(b)) => JobOutcome::of(a) != JobOutcome::of(b),
        (Ok(_), Err(_)) | (Err(_), Ok(_)) => true,
        (Err(_), Err(_)) => false,
    }
}

/// Runs every mutant of `program` on `datasets`. The original must run on
/// each dataset; its error otherwise.
pub fn score(program: &Program, datasets: &[Dataset]) -> Result<Score, interp::Error> {
    let originals: Vec<_> = datasets.iter().map(|d| interp::run(program, d)).collect();
    if let Some(Err(e)) = originals.iter().find(|r| r.is_err()) {
        return Err(e.clone());
    }
    let mutants = mutate::mutants(program);
    let total = mutants.len();
    let mut per_class: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut survivors = Vec::new();
    for mutant in mutants {
        let killed = datasets
            .iter()
            .zip(&originals)
            .any(|(d, original)| differs(original, &interp::run(&mutant.program, d)));
        let entry = per_class.entry(mutant.class).or_default();
        entry.1 += 1;
        if killed {
            entry.0 += 1;
        } else {
            survivors.push(mutant);
        }
    }
    Ok(Score {
        mutants: total,
        killed: per_class.values().map(|(k, _)| k).sum(),
        per_class,
        survivors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use coco_dataflow::{interp::Failure, lineage::Origin};

    fn run_with(sink: &[&str], failing: &[&[usize]]) -> Result<Run, interp::Error> {
        let origins = |indexes: &[usize]| -> Vec<Origin> {
            indexes
                .iter()
                .map(|&index| Origin {
                    source: "lines".into(),
                    index,
                })
                .collect()
        };
        Ok(Run {
            sinks: vec![(
                "out".into(),
                sink.iter()
                    .map(|s| vec![coco_dataflow::value::Value::Str(s.to_string())])
                    .collect(),
            )],
            failures: failing
                .iter()
                .map(|o| Failure {
                    loc: "loc".into(),
                    op: "df.to_int".into(),
                    reason: "not an integer".into(),
                    exception: None,
                    origins: origins(o),
                })
                .collect(),
            ..Run::default()
        })
    }

    #[test]
    fn sinks_compare_as_multisets() {
        assert!(!differs(
            &run_with(&["a", "b"], &[]),
            &run_with(&["b", "a"], &[])
        ));
        assert!(differs(
            &run_with(&["a", "b"], &[]),
            &run_with(&["a", "a"], &[])
        ));
    }

    #[test]
    fn a_job_that_fails_differs_from_one_that_succeeds_only() {
        let original = run_with(&["a"], &[&[0], &[2]]);
        // Spark reports the job's failure, not which records threw.
        assert!(!differs(&original, &run_with(&["b"], &[&[1]])));
        assert!(differs(&original, &run_with(&["a"], &[])));
        assert!(differs(&run_with(&["a"], &[]), &run_with(&["a"], &[&[0]])));
    }
}
