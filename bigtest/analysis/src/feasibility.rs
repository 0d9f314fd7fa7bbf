//! Feasibility of JDU paths: one solver query per path, on all cores.
//!
//! Every query that decides a path's feasibility or its data is bounded by
//! work, not time ([`Budget`]): the same program gives the same statuses
//! and the same data on a quiet machine and on one whose cores other work
//! keeps busy.

use coco_dialects::bigtest::PathStatus;
use std::collections::HashMap;

use coco_smt::{Outcome, Renaming};

/// What one solver query may spend. Z3 counts its work (its `rlimit`
/// count), and a query that needs more than `effort` units is `unknown`
/// on every machine, however fast or loaded, so two runs agree on every
/// answer. The wall clock only backs that up: `backstop_ms` ends a query
/// whose work Z3 barely counts (a string search), far beyond the time the
/// effort takes on a quiet machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub effort: u64,
    pub backstop_ms: u32,
}

/// Units of Z3's count that one millisecond of `--timeout-ms` stands for:
/// about what the examples' long queries (over 300 ms) count per
/// millisecond on a 2-core machine (median 820, 10th-90th percentile
/// 340-1930; measured with `COCO_SMT_STATS`, docs/bigtest.md), so the
/// optional steps' short limits (a sharing try, a case joined) keep the
/// reach they had in time. At the default 10 s that is 10 million units,
/// 2.5 times the costliest query the examples need (3.95 million,
/// events_etl).
pub const UNITS_PER_MS: u64 = 1_000;

/// The backstop, as a multiple of `--timeout-ms`: a query ends by effort,
/// not by the clock, unless the machine is this many times slower than a
/// quiet one (load 10 on 2 cores is about 5 times).
pub const BACKSTOP_FACTOR: u32 = 20;

/// The least backstop: the short limits of optional steps (a sharing try
/// gets an eighth of the timeout) still leave a loaded machine its time.
pub const MIN_BACKSTOP_MS: u32 = 60_000;

impl Budget {
    /// The budget `--timeout-ms` (the passes' `timeout-ms`) stands for:
    /// the work a quiet machine does in that time.
    pub fn of_timeout(timeout_ms: u32) -> Budget {
        Budget {
            effort: u64::from(timeout_ms) * UNITS_PER_MS,
            backstop_ms: timeout_ms
                .saturating_mul(BACKSTOP_FACTOR)
                .max(MIN_BACKSTOP_MS),
        }
    }

    /// This budget with at most `effort` units.
    pub fn at_most(self, effort: u64) -> Budget {
        Budget {
            effort: self.effort.min(effort),
            ..self
        }
    }

    /// [`coco_smt::solve_records`] within this budget.
    pub fn solve(self, script: &[String], records: &[Vec<String>]) -> coco_smt::Result<Outcome> {
        coco_smt::solve_records(script, records, self.backstop_ms, Some(self.effort))
    }
}

/// The status a solver outcome gives a path.
pub fn status(outcome: &Outcome) -> PathStatus {
    match outcome {
        Outcome::Sat(_) => PathStatus::Sat,
        Outcome::Unsat => PathStatus::Unsat,
        Outcome::Unknown(_) => PathStatus::Unknown,
    }
}

/// Solves independent scripts on all cores, each within
/// [`Budget::of_timeout`]`(timeout_ms)`; answers in the scripts' order.
/// `records[i]` lists the field constants of each input record script `i`
/// reads (see [`coco_smt::solve_records`]). An `Err` is a script the
/// solver cannot read.
///
/// Scripts equal up to the names of their constants (the copies of a path
/// that a union makes, one per source) are solved once: the others get the
/// same answer, with the model in their own names.
pub fn solve_all(
    scripts: &[&[String]],
    records: &[&[Vec<String>]],
    timeout_ms: u32,
) -> Vec<crate::Result<Outcome>> {
    let renamings: Vec<Option<Renaming>> = scripts.iter().map(|s| Renaming::of(s)).collect();
    // The first script of each family, and each script's family.
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    let mut solved: Vec<usize> = Vec::new();
    let family: Vec<usize> = renamings
        .iter()
        .enumerate()
        .map(|(i, renaming)| {
            let key = renaming.as_ref().map(|r| r.key.as_str());
            match key.and_then(|k| first_of.get(k)) {
                Some(&family) => family,
                None => {
                    if let Some(key) = key {
                        first_of.insert(key, solved.len());
                    }
                    solved.push(i);
                    solved.len() - 1
                }
            }
        })
        .collect();
    let unique: Vec<&[String]> = solved.iter().map(|&i| scripts[i]).collect();
    let budget = Budget::of_timeout(timeout_ms);
    let answers = solve_each(&unique, |i, script| {
        let records = records.get(solved[i]).copied().unwrap_or_default();
        budget.solve(script, records)
    });
    family
        .iter()
        .enumerate()
        .map(|(i, &f)| {
            let answer = match &answers[f] {
                Some(Ok(answer)) => answer,
                Some(Err(error)) => return Err(error.clone().into()),
                None => return Err(crate::Error::NoAnswer),
            };
            let (Outcome::Sat(model), Some(mine), Some(theirs)) =
                (answer, &renamings[i], &renamings[solved[f]])
            else {
                return Ok(answer.clone());
            };
            Ok(Outcome::Sat(mine.translate(theirs, model)))
        })
        .collect()
}

/// [`solve_all`] without sharing answers; `None` where no thread answered.
/// `solve` on each script (with its index), on as many threads as there
/// are cores; the answers in the scripts' order.
pub fn solve_each(
    scripts: &[&[String]],
    solve: impl Fn(usize, &[String]) -> coco_smt::Result<Outcome> + Sync,
) -> Vec<Option<coco_smt::Result<Outcome>>> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(scripts.len().max(1));
    // Longest first: a script over two records costs Z3 several times one
    // over one, and one started last leaves the other cores idle while it
    // runs (sensor_peak's probes: 3.6 s -> 3.4 s).
    let mut order: Vec<usize> = (0..scripts.len()).collect();
    order.sort_by_cached_key(|&i| {
        std::cmp::Reverse(scripts[i].iter().map(String::len).sum::<usize>())
    });
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut answers: Vec<Option<coco_smt::Result<Outcome>>> =
        scripts.iter().map(|_| None).collect();
    let done = std::sync::Mutex::new(&mut answers);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&i) = order.get(n) else {
                    break;
                };
                let script = scripts[i];
                let answer = solve(i, script);
                done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(answer);
            });
        }
    });
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_keep_the_scripts_order() {
        let sat = vec![
            "(declare-const x Int)".to_string(),
            "(assert (> x 2))".to_string(),
        ];
        let unsat = vec![
            "(declare-const y Int)".to_string(),
            "(assert (and (> y 2) (< y 1)))".to_string(),
        ];
        let scripts: Vec<&[String]> = vec![&unsat, &sat, &unsat];
        let statuses: Vec<PathStatus> = solve_all(&scripts, &[], 10_000)
            .iter()
            .map(|a| status(a.as_ref().expect("readable")))
            .collect();
        assert_eq!(
            statuses,
            [PathStatus::Unsat, PathStatus::Sat, PathStatus::Unsat]
        );
    }

    #[test]
    fn renamed_copies_get_models_in_their_own_names() {
        let copy = |name: &str| {
            vec![
                format!("(declare-const {name} Int)"),
                format!("(assert (= (* {name} 3) 12))"),
            ]
        };
        let (a, b) = (copy("yesterday.f0"), copy("today.f0"));
        let answers = solve_all(&[&a, &b], &[], 10_000);
        for (answer, name) in answers.iter().zip(["yesterday.f0", "today.f0"]) {
            let Ok(Outcome::Sat(model)) = answer else {
                panic!("{answer:?}");
            };
            assert_eq!(
                model.get(name),
                Some(&coco_smt::ModelValue::Int(4)),
                "{model:?}"
            );
            assert_eq!(model.len(), 1);
        }
    }

    #[test]
    fn the_answer_depends_on_work_not_on_the_clock() {
        // 2,204,896 units of Z3's count, which it counts slowly: 3-6 s on a
        // 2-core machine, quiet to loaded. Within the effort 2.5 s of
        // timeout stand for (2.5 million units), so it is answered however
        // long the machine takes; as a 2.5 s wall-clock limit it was
        // `unknown`.
        let script: Vec<String> = [
            "(declare-const s String)",
            "(assert (str.in_re s (re.+ (re.union (str.to_re \"ab\") (str.to_re \"ba\")))))",
            "(assert (= (str.len s) 40))",
            "(assert (str.contains s \"aa\"))",
            "(assert (str.contains s \"bb\"))",
            "(assert (str.prefixof \"abab\" s))",
        ]
        .map(String::from)
        .to_vec();
        let answers = solve_all(&[&script], &[], 2_500);
        let Ok(Outcome::Sat(model)) = &answers[0] else {
            panic!("{:?}", answers[0]);
        };
        let Some(coco_smt::ModelValue::Str(s)) = model.get("s") else {
            panic!("{model:?}");
        };
        assert!(s.len() == 40 && s.starts_with("abab") && s.contains("aa") && s.contains("bb"));
        // With a tenth of that work it is unknown, however fast the machine.
        // (Another script: this process remembers the first one's answer.)
        let mut other = script.clone();
        other.push("(assert (not (= s \"\")))".into());
        let budget = Budget::of_timeout(250);
        assert_eq!(budget.effort, 250_000);
        let answer = budget.solve(&other, &[]);
        // (Z3 words it by where the count ran out: "canceled" in a tactic.)
        assert!(matches!(answer, Ok(Outcome::Unknown(_))), "{answer:?}");
        assert_eq!(budget.backstop_ms, MIN_BACKSTOP_MS);
        assert_eq!(Budget::of_timeout(10_000).backstop_ms, 200_000);
    }

    #[test]
    fn an_unreadable_script_is_an_error() {
        let bad = vec!["(assert (> x".to_string()];
        let answers = solve_all(&[&bad], &[], 1_000);
        assert!(
            matches!(
                answers[0],
                Err(crate::Error::Smt(coco_smt::Error::Rejected(_)))
            ),
            "{:?}",
            answers[0]
        );
    }
}
