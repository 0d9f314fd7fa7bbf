//! Feasibility of JDU paths: one solver query per path, on all cores.

use coco_dialects::bigtest::PathStatus;
use std::collections::HashMap;

use coco_smt::{Outcome, Renaming};

/// The status a solver outcome gives a path.
pub fn status(outcome: &Outcome) -> PathStatus {
    match outcome {
        Outcome::Sat(_) => PathStatus::Sat,
        Outcome::Unsat => PathStatus::Unsat,
        Outcome::Unknown(_) => PathStatus::Unknown,
    }
}

/// Solves independent scripts on all cores; answers in the scripts' order.
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
    let answers = solve_each(&unique, |i, script| {
        let records = records.get(solved[i]).copied().unwrap_or_default();
        coco_smt::solve_records(script, records, timeout_ms, None)
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
