//! Mutation scores: run every faulty variant of a program
//! ([`coco_dataflow::mutate`]) on the test data and count those the data
//! detects.
//!
//! A mutant is killed when, on some test case, what a user of the job would
//! see differs from the original: the sinks' contents (compared as
//! multisets, since Spark leaves the order of keyed results unspecified),
//! which input records make the job fail, or whether the program runs at
//! all.

use std::collections::BTreeMap;

use coco_dataflow::{
    interp::{self, Run},
    lineage::Origin,
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

/// The input records behind each failure, as a sorted multiset.
fn failing_records(run: &Run) -> Vec<Vec<Origin>> {
    let mut failing: Vec<Vec<Origin>> = run.failures.iter().map(|f| f.origins.clone()).collect();
    failing.sort();
    failing
}

/// Whether two runs of a program differ in what a user would see.
pub fn differs(original: &Result<Run, interp::Error>, mutant: &Result<Run, interp::Error>) -> bool {
    match (original, mutant) {
        (Ok(a), Ok(b)) => {
            a.sink_lines() != b.sink_lines() || failing_records(a) != failing_records(b)
        }
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
    use coco_dataflow::interp::Failure;

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
    fn a_different_failing_record_kills() {
        let original = run_with(&["a"], &[&[0], &[2]]);
        assert!(!differs(&original, &run_with(&["a"], &[&[2], &[0]])));
        assert!(differs(&original, &run_with(&["a"], &[&[0], &[1]])));
        assert!(differs(&original, &run_with(&["a"], &[&[0]])));
    }
}
