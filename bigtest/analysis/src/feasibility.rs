//! Feasibility of JDU paths: one solver query per path, on all cores.

use coco_dialects::bigtest::PathStatus;
use coco_smt::Outcome;

/// The status a solver outcome gives a path.
pub fn status(outcome: &Outcome) -> PathStatus {
    match outcome {
        Outcome::Sat(_) => PathStatus::Sat,
        Outcome::Unsat => PathStatus::Unsat,
        Outcome::Unknown(_) => PathStatus::Unknown,
    }
}

/// Solves independent scripts on all cores; answers in the scripts' order.
/// An `Err` is a script the solver cannot read.
pub fn solve_all(scripts: &[&[String]], timeout_ms: u32) -> Vec<crate::Result<Outcome>> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(scripts.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut answers: Vec<Option<crate::Result<Outcome>>> = scripts.iter().map(|_| None).collect();
    let done = std::sync::Mutex::new(&mut answers);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(script) = scripts.get(i) else {
                    break;
                };
                let answer = coco_smt::solve(script, timeout_ms).map_err(crate::Error::from);
                done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(answer);
            });
        }
    });
    answers
        .into_iter()
        .map(|a| a.unwrap_or(Err(crate::Error::NoAnswer)))
        .collect()
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
        let statuses: Vec<PathStatus> = solve_all(&scripts, 10_000)
            .iter()
            .map(|a| status(a.as_ref().expect("readable")))
            .collect();
        assert_eq!(
            statuses,
            [PathStatus::Unsat, PathStatus::Sat, PathStatus::Unsat]
        );
    }

    #[test]
    fn an_unreadable_script_is_an_error() {
        let bad = vec!["(assert (> x".to_string()];
        let answers = solve_all(&[&bad], 1_000);
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
