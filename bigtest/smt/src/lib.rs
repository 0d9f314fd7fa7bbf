//! Solves SMT-LIB 2 scripts with Z3 and reads back the model of every
//! declared constant.
//!
//! The script is handed to Z3's own SMT-LIB parser, so every theory Z3
//! understands may appear in assertions; only the constants' sorts are
//! limited to the four that [`ModelValue`] can carry.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

mod alpha;
mod decompose;
mod error;
mod sexpr;

pub use alpha::Renaming;
pub use error::{Error, Result};
pub use sexpr::{parse_sexprs, SExpr};

use std::time::Instant;

use z3::ast::{Bool, Int, Real};
use z3::{Config, Model, SatResult, Solver};

/// A sort of a declared constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Int,
    Real,
    Bool,
    String,
}

/// One declared constant's value in a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelValue {
    Int(i64),
    /// Always in lowest terms with a positive denominator.
    Real {
        numerator: i64,
        denominator: i64,
    },
    Bool(bool),
    Str(String),
}

/// The answer to one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The value of every declared constant, keyed by its name without bars.
    Sat(BTreeMap<String, ModelValue>),
    Unsat,
    /// Why: "timeout", or Z3's own reason (e.g. "(incomplete (theory arithmetic))").
    Unknown(String),
}

/// Solves `script`, a list of SMT-LIB 2 commands (`declare-const`,
/// `declare-fun` of arity 0, `assert`, ...; no `check-sat`), giving the
/// query at most `timeout_ms` milliseconds.
///
/// `(assert-soft F)` (Z3's command; `:weight` and `:id` are ignored) is a
/// preference: the model satisfies as many of them as Z3 keeps after
/// dropping, one at a time, the earliest of each contradiction it finds.
/// Preferences never change whether the script is satisfiable, only which
/// model comes back, and they let an encoding state its simple case (a
/// replace that finds nothing) so Z3 answers fast where the path allows it.
///
/// A script Z3 cannot parse, a constant of a sort other than [`Sort`], or a
/// model value that does not fit [`ModelValue`] (an integer beyond `i64`, an
/// irrational real) is an [`Error`] saying which.
///
/// Z3 runs on a thread of its own with a fresh context. Past the timeout
/// the check is interrupted; should Z3 still not answer within
/// [`GRACE`], the query is reported as `Unknown` and its thread abandoned,
/// so a call returns within `timeout_ms` plus [`GRACE`] whatever Z3 does.
/// A `timeout_ms` of 0 leaves no time at all, not unlimited time.
pub fn solve(script: &[String], timeout_ms: u32) -> Result<Outcome> {
    solve_records(script, &[], timeout_ms, None)
}

/// [`solve`], where Z3 also gives up after `effort` units of its resource
/// count (its `rlimit`), so that whether a hard query is answered depends
/// on the query, not on how fast or loaded the machine is: for the
/// optional work of test generation (probes, extra records), whose data
/// two runs must agree on. The timeout stays as a backstop.
pub fn solve_bounded(script: &[String], timeout_ms: u32, effort: u64) -> Result<Outcome> {
    solve_records(script, &[], timeout_ms, Some(effort))
}

/// [`solve`] (with `effort`, [`solve_bounded`]) of a script over input
/// records: `records` lists each record's field constants. The script is
/// solved record by record where it can be, with what relates two records
/// (a fold's comparison of their values, a join's key) checked once both
/// are chosen: Z3's string solver takes time that grows much faster than
/// the script. The answer is the one [`solve`] gives; only the model may
/// differ.
pub fn solve_records(
    script: &[String],
    records: &[Vec<String>],
    timeout_ms: u32,
    effort: Option<u64>,
) -> Result<Outcome> {
    let renaming = Renaming::of(script);
    if let Some(outcome) = renaming.as_ref().and_then(alpha::remembered) {
        return Ok(outcome);
    }
    let outcome = solve_fresh(script, records, timeout_ms, effort)?;
    if let Some(renaming) = renaming {
        alpha::remember(renaming, &outcome);
    }
    Ok(outcome)
}

/// The answer an earlier query of this process gave `script` (or a copy
/// of it equal up to the names of its constants), without solving it:
/// `None` when none did, or its answer was `unknown`.
pub fn answered(script: &[String]) -> Option<Outcome> {
    Renaming::of(script).as_ref().and_then(alpha::remembered)
}

/// [`solve`] without the answers of earlier scripts.
fn solve_fresh(
    script: &[String],
    records: &[Vec<String>],
    timeout_ms: u32,
    effort: Option<u64>,
) -> Result<Outcome> {
    let deadline = Instant::now() + Duration::from_millis(timeout_ms.into());
    let whole = |script: &[String], deadline: Instant| {
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_millis();
        solve_whole(script, left.min(u32::MAX as u128) as u32, effort)
    };
    if let Some(outcome) = decompose::solve_in_blocks(script, records, deadline, whole) {
        return outcome;
    }
    whole(script, deadline)
}

/// [`solve`] without splitting the script into independent blocks.
fn solve_whole(script: &[String], timeout_ms: u32, effort: Option<u64>) -> Result<Outcome> {
    configure_z3();
    let text = script.join("\n");
    if text.contains('\0') {
        return Err(Error::NulInScript);
    }
    let watch = Arc::new(Mutex::new(Watch::default()));
    let (tx, rx) = mpsc::channel();
    let worker_watch = Arc::clone(&watch);
    thread::Builder::new()
        .name("coco-smt".to_string())
        .spawn(move || {
            let mut config = Config::new();
            if let Some(effort) = effort {
                config.set_param_value("rlimit", &effort.to_string());
            }
            let result = z3::with_z3_config(&config, || solve_in_context(&text, &worker_watch));
            // The caller may have given up on this query already.
            let _ = tx.send(result);
        })
        .map_err(|e| Error::NoThread {
            reason: e.to_string(),
        })?;

    match rx.recv_timeout(Duration::from_millis(timeout_ms.into())) {
        Ok(result) => return result,
        Err(RecvTimeoutError::Disconnected) => return Err(Error::WorkerDied),
        Err(RecvTimeoutError::Timeout) => {}
    }
    {
        let mut watch = lock(&watch);
        watch.expired = true;
        if let Some(ctx) = watch.checking {
            // SAFETY: `checking` is only set while the context is alive and
            // the worker clears it, under this lock, before dropping the
            // context; Z3_interrupt is meant to be called from another thread.
            unsafe { z3_sys::Z3_interrupt(ctx.0) };
        }
    }
    match rx.recv_timeout(GRACE) {
        Ok(result) => result,
        Err(RecvTimeoutError::Disconnected) => Err(Error::WorkerDied),
        Err(RecvTimeoutError::Timeout) => Ok(Outcome::Unknown(
            "timeout (Z3 did not stop when interrupted)".to_string(),
        )),
    }
}

/// How long [`solve`] waits, past the timeout, for an interrupted check.
pub const GRACE: Duration = Duration::from_secs(2);

/// Sets Z3's global parameters, once, before the first context.
///
/// `smt.arith.solver=2` is Z3's earlier arithmetic solver (4.8's default,
/// 6, is the newer one). BigTest's scripts mix string-to-number
/// conversions with linear and some nonlinear arithmetic, and on them the
/// earlier solver answers in about half the time: sensor_peak's probes of
/// a two-reading fold 0.46 s -> 0.28 s each, `coco-bigtest generate` on
/// unit_prices 57 s -> 42 s with every path still decided (docs/benchmarks.md).
fn configure_z3() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| z3::set_global_param("smt.arith.solver", "2"));
}

/// What [`solve`] and its Z3 thread tell each other about the deadline.
#[derive(Default)]
struct Watch {
    /// The context, while its check runs and may be interrupted.
    checking: Option<RawContext>,
    /// The timeout has passed: no check may start, and any that ran was
    /// interrupted.
    expired: bool,
}

#[derive(Clone, Copy)]
struct RawContext(z3_sys::Z3_context);

// SAFETY: only ever used for Z3_interrupt, which Z3 allows from any thread.
unsafe impl Send for RawContext {}

fn lock(watch: &Mutex<Watch>) -> std::sync::MutexGuard<'_, Watch> {
    // The fields stay consistent even if a holder panicked.
    watch.lock().unwrap_or_else(|e| e.into_inner())
}

/// The name of the assumption literal guarding preference `i`.
fn preference_name(i: usize) -> String {
    format!("coco.prefer.{i}")
}

/// `text` split into its hard commands and the bodies of its
/// `(assert-soft F)` commands, in order.
fn split_preferences(text: &str) -> Result<(String, Vec<String>)> {
    if !text.contains("(assert-soft") {
        return Ok((text.to_string(), Vec::new()));
    }
    let mut hard = Vec::new();
    let mut soft = Vec::new();
    for command in parse_sexprs(text)? {
        match &command {
            SExpr::List(items) if matches!(items.first(), Some(SExpr::Atom(head)) if head == "assert-soft") =>
            {
                // Z3's attributes (`:weight`, `:id`) are accepted and ignored:
                // every preference weighs the same.
                let Some(body) = items.get(1) else {
                    return Err(Error::Rejected("assert-soft without a formula".into()));
                };
                soft.push(body.to_string());
            }
            _ => hard.push(command.to_string()),
        }
    }
    Ok((hard.join("\n"), soft))
}

/// Solves the script's hard commands together with as many of its
/// preferences (`assert-soft`) as hold with them.
///
/// The active preferences are checked as plain assertions on a fresh
/// solver: with assumptions Z3 runs its incremental core, without the
/// preprocessing that makes these scripts fast (4-5 s against 0.2 s for a
/// word-count path). Where they contradict the hard constraints, the same
/// preferences as assumption literals give an unsat core, cheaply, and the
/// earliest preference in it is dropped. With none left the check is the
/// plain one, so the answer is exact: preferences only choose which model.
fn solve_in_context(text: &str, watch: &Mutex<Watch>) -> Result<Outcome> {
    let (hard, preferences) = split_preferences(text)?;
    let mut consts = None;
    let mut active: Vec<usize> = (0..preferences.len()).collect();
    let mut cores: Option<(Solver, Vec<Bool>)> = None;
    loop {
        let mut script = hard.clone();
        for &i in &active {
            script.push_str(&format!("\n(assert {})", preferences[i]));
        }
        let solver = Solver::new();
        solver.from_string(script.as_str());
        // The z3 crate installs no error handler, so a parse error only
        // shows up in the context's error code.
        check_z3_error(&solver)?;
        // Read once Z3 has read the script, which locates syntax errors.
        if consts.is_none() {
            consts = Some(declared_constants(&hard)?);
        }
        let names = consts.clone().unwrap_or_default();
        let Some(result) = interruptible(watch, || counted(&solver, || solver.check())) else {
            return Ok(Outcome::Unknown("timeout".to_string()));
        };
        match result {
            _ if active.is_empty() => return answer(&solver, result, names),
            SatResult::Sat => return answer(&solver, result, names),
            // Given up on (not timed out) with preferences: the plain
            // script may still be decided.
            SatResult::Unknown => {
                active.clear();
                continue;
            }
            SatResult::Unsat => {}
        }
        if cores.is_none() {
            cores = Some(guarded(&hard, &preferences)?);
        }
        let Some((guarded, literals)) = &cores else {
            unreachable!("just built");
        };
        let assumptions: Vec<Bool> = active.iter().map(|&i| literals[i].clone()).collect();
        let Some(result) = interruptible(watch, || {
            counted(guarded, || guarded.check_assumptions(&assumptions))
        }) else {
            return Ok(Outcome::Unknown("timeout".to_string()));
        };
        match result {
            SatResult::Sat => return answer(guarded, result, names),
            SatResult::Unknown => active.clear(),
            SatResult::Unsat => {
                let core = guarded.get_unsat_core();
                match active.iter().position(|&i| core.contains(&literals[i])) {
                    Some(at) => {
                        active.remove(at);
                    }
                    None => return Ok(Outcome::Unsat),
                }
            }
        }
    }
}

/// A solver holding `hard` and each preference guarded by an assumption
/// literal (`literal => preference`), with the literals.
fn guarded(hard: &str, preferences: &[String]) -> Result<(Solver, Vec<Bool>)> {
    let mut script = hard.to_string();
    for (i, body) in preferences.iter().enumerate() {
        let name = quote(&preference_name(i));
        script.push_str(&format!(
            "\n(declare-const {name} Bool)\n(assert (=> {name} {body}))"
        ));
    }
    let solver = Solver::new();
    solver.from_string(script.as_str());
    check_z3_error(&solver)?;
    let literals = (0..preferences.len())
        .map(|i| Bool::new_const(preference_name(i)))
        .collect();
    Ok((solver, literals))
}

/// Runs one check that the deadline may interrupt; `None` when it did (or
/// had passed before the check began).
fn interruptible(watch: &Mutex<Watch>, check: impl FnOnce() -> SatResult) -> Option<SatResult> {
    // Z3 4.8.12's own "timeout" parameter deadlocks when it expires while a
    // tactic's inner timer runs (e.g. the try_for in the QF_NIA tactic), so
    // the deadline is kept by `solve` instead.
    {
        let mut watch = lock(watch);
        if watch.expired {
            return None;
        }
        // Every solver of this thread shares the thread's context.
        watch.checking = Some(RawContext(z3::Context::thread_local().get_z3_context()));
    }
    let result = check();
    let interrupted = {
        let mut watch = lock(watch);
        watch.checking = None;
        watch.expired
    };
    // An interrupt that lands as the check finishes leaves the context
    // cancelled, so even a model could not be read reliably.
    (!interrupted || result == SatResult::Unsat).then_some(result)
}

/// The variable that makes every check print, on stderr, the work Z3
/// counted for it (its `rlimit count`) and its time: the measurement the
/// effort bounds of test generation are derived from (docs/bigtest.md).
pub const STATS_ENV: &str = "COCO_SMT_STATS";

/// Runs `check` of `solver`, reporting its work when [`STATS_ENV`] is set.
fn counted(solver: &Solver, check: impl FnOnce() -> SatResult) -> SatResult {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if !*ON.get_or_init(|| std::env::var_os(STATS_ENV).is_some_and(|v| !v.is_empty())) {
        return check();
    }
    let before = rlimit_count(solver);
    let started = Instant::now();
    let result = check();
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let units = rlimit_count(solver).saturating_sub(before);
    eprintln!("coco-smt: check {result:?} {units} units {ms:.1} ms");
    result
}

/// The work Z3 has counted in the solver's context so far.
fn rlimit_count(solver: &Solver) -> u64 {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(n)) => n.into(),
        Some(z3::StatisticsValue::Double(n)) => n as u64,
        None => 0,
    }
}

/// The outcome of a finished check of `solver`, with the values of `consts`.
fn answer(solver: &Solver, result: SatResult, consts: Vec<(String, Sort)>) -> Result<Outcome> {
    match result {
        SatResult::Unsat => Ok(Outcome::Unsat),
        SatResult::Unknown => Ok(Outcome::Unknown(
            solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".to_string()),
        )),
        SatResult::Sat => {
            let model = solver.get_model().ok_or(Error::NoModel)?;
            let values = consts
                .into_iter()
                .map(|(name, sort)| {
                    let value = model_value(&model, &name, sort)?;
                    Ok((name, value))
                })
                .collect::<Result<_>>()?;
            Ok(Outcome::Sat(values))
        }
    }
}

fn model_value(model: &Model, name: &str, sort: Sort) -> Result<ModelValue> {
    let missing = || Error::Unevaluated {
        name: name.to_string(),
    };
    Ok(match sort {
        Sort::Int => {
            let v = model
                .eval(&Int::new_const(name), true)
                .ok_or_else(missing)?;
            let i = v.as_i64();
            ModelValue::Int(i.ok_or_else(|| Error::IntOutOfRange {
                name: name.to_string(),
                value: v.to_string(),
            })?)
        }
        Sort::Real => {
            let v = model
                .eval(&Real::new_const(name), true)
                .ok_or_else(missing)?;
            let (numerator, denominator) = v.as_rational().ok_or_else(|| Error::NotRational {
                name: name.to_string(),
                value: v.to_string(),
            })?;
            ModelValue::Real {
                numerator,
                denominator,
            }
        }
        Sort::Bool => {
            let v = model
                .eval(&Bool::new_const(name), true)
                .ok_or_else(missing)?;
            let b = v.as_bool();
            ModelValue::Bool(b.ok_or_else(|| Error::NotBoolean {
                name: name.to_string(),
                value: v.to_string(),
            })?)
        }
        Sort::String => {
            let v = model
                .eval(&z3::ast::String::new_const(name), true)
                .ok_or_else(missing)?;
            ModelValue::Str(string_value(model, &v)?)
        }
    })
}

fn check_z3_error(solver: &Solver) -> Result<()> {
    let ctx = solver.get_context().get_z3_context();
    // SAFETY: `ctx` is the live context that owns `solver`; the message is
    // copied before any further Z3 call can overwrite it.
    unsafe {
        let code = z3_sys::Z3_get_error_code(ctx);
        if code == z3_sys::ErrorCode::Ok {
            return Ok(());
        }
        let msg = z3_sys::Z3_get_error_msg(ctx, code);
        let msg = if msg.is_null() {
            format!("Z3 error {code:?}")
        } else {
            let msg = CStr::from_ptr(msg).to_string_lossy();
            let msg = msg.trim();
            // Parse errors come as the text of an SMT-LIB `(error "...")`.
            msg.strip_prefix("(error \"")
                .and_then(|m| m.strip_suffix("\")"))
                .unwrap_or(msg)
                .to_string()
        };
        Err(Error::Rejected(msg))
    }
}

/// An SMT-LIB symbol naming `name`: simple when SMT-LIB allows it, else
/// quoted with bars.
///
/// A name containing `|` or `\` cannot be written as an SMT-LIB symbol at
/// all; it is quoted anyway and Z3 will reject the script.
pub fn quote(name: &str) -> String {
    const EXTRA: &str = "~!@$%^&*_-+=<>.?/";
    let simple = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || EXTRA.contains(c));
    if simple {
        name.to_string()
    } else {
        format!("|{name}|")
    }
}

/// An SMT-LIB 2.6 string literal denoting `s`.
///
/// Characters outside printable ASCII become `\u{HEX}`, and so does the
/// backslash, because a literal one followed by `u{...}` would be read as
/// an escape. Z3 4.8.12 knows characters up to U+2FFFF only and reads an
/// escape beyond that as its literal text.
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\"\""),
            '\\' => out.push_str("\\u{5c}"),
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// The characters of `v`, a string value of `model`.
///
/// Z3 4.8.12 prints printable ASCII literally, the backslash included, and
/// every other character as `\u{HEX}`, so the printed text of a string
/// holding a backslash is ambiguous (`"\u{5c}u{41}"` prints as `\u{41}`, the
/// same as `"A"`); `Z3_get_lstring` garbles characters above 0xFF. Printed
/// one character at a time the text is unambiguous again.
fn string_value(model: &Model, v: &z3::ast::String) -> Result<String> {
    let printed = v.as_string().ok_or_else(|| Error::NotStringLiteral {
        value: v.to_string(),
    })?;
    if !printed.contains('\\') {
        return Ok(printed);
    }
    let len = model
        .eval(&v.length(), true)
        .and_then(|n| n.as_u64())
        .ok_or_else(|| Error::NoStringLength {
            value: v.to_string(),
        })?;
    let mut out = String::with_capacity(len as usize);
    for i in 0..len {
        let one = model
            .eval(&v.at(Int::from_u64(i)), true)
            .and_then(|c| c.as_string())
            .ok_or_else(|| Error::NoCharacter {
                index: i,
                value: v.to_string(),
            })?;
        let mut chars = one.chars();
        let c = match (chars.next(), chars.next()) {
            (Some(c), None) => c,
            _ => decode_escape(&one).ok_or_else(|| Error::UnreadableCharacter {
                value: v.to_string(),
                printed: one.clone(),
            })?,
        };
        out.push(c);
    }
    Ok(out)
}

/// The character `\u{HEX}` (or, as other Z3 versions print, `\uHHHH` or
/// `\xHH`) stands for; `None` for anything else.
fn decode_escape(text: &str) -> Option<char> {
    let digits = if let Some(d) = text.strip_prefix("\\u{") {
        d.strip_suffix('}')?
    } else if let Some(d) = text.strip_prefix("\\u") {
        (d.len() == 4).then_some(d)?
    } else {
        let d = text.strip_prefix("\\x")?;
        (d.len() == 2).then_some(d)?
    };
    if digits.is_empty() || digits.len() > 6 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    char::from_u32(u32::from_str_radix(digits, 16).ok()?)
}

/// The constants the script declares, in declaration order.
fn declared_constants(text: &str) -> Result<Vec<(String, Sort)>> {
    let mut consts = Vec::new();
    for command in parse_sexprs(text)? {
        let SExpr::List(items) = command else {
            continue;
        };
        let (name, sort) = match items.as_slice() {
            [SExpr::Atom(head), SExpr::Atom(name), sort] if head == "declare-const" => (name, sort),
            [SExpr::Atom(head), SExpr::Atom(name), SExpr::List(args), sort]
                if head == "declare-fun" && args.is_empty() =>
            {
                (name, sort)
            }
            _ => continue,
        };
        let name = name
            .strip_prefix('|')
            .and_then(|n| n.strip_suffix('|'))
            .unwrap_or(name);
        let sort = match sort {
            SExpr::Atom(s) if s == "Int" => Sort::Int,
            SExpr::Atom(s) if s == "Real" => Sort::Real,
            SExpr::Atom(s) if s == "Bool" => Sort::Bool,
            SExpr::Atom(s) if s == "String" => Sort::String,
            other => {
                return Err(Error::UnsupportedSort {
                    name: name.to_string(),
                    sort: other.to_string(),
                })
            }
        };
        consts.push((name.to_string(), sort));
    }
    Ok(consts)
}

#[cfg(test)]
mod tests {

    use super::*;

    fn lines(script: &[&str]) -> Vec<String> {
        script.iter().map(|s| s.to_string()).collect()
    }

    fn sat(script: &[&str]) -> BTreeMap<String, ModelValue> {
        match solve(&lines(script), 10_000) {
            Ok(Outcome::Sat(model)) => model,
            other => panic!("expected sat, got {other:?}"),
        }
    }

    fn string_of(model: &BTreeMap<String, ModelValue>, name: &str) -> String {
        match &model[name] {
            ModelValue::Str(s) => s.clone(),
            other => panic!("{name} is not a string: {other:?}"),
        }
    }

    fn int_of(model: &BTreeMap<String, ModelValue>, name: &str) -> i64 {
        match &model[name] {
            ModelValue::Int(i) => *i,
            other => panic!("{name} is not an int: {other:?}"),
        }
    }

    #[test]
    fn sat_reports_every_declared_constant() {
        let model = sat(&[
            "(declare-const |orders.f1| Int)",
            "(declare-const r Real)",
            "(declare-const b Bool)",
            "(declare-const s String)",
            "(declare-fun |a b| () Int) ; arity-0 declare-fun is a constant too",
            "(declare-const unused Bool)",
            "(assert (= |orders.f1| (- 42)))",
            "(assert (= (* 3.0 r) 2.0)) (assert b)",
            "(assert (= s \"hi\"))",
            "(assert (= |a b| (+ |orders.f1| 1)))",
        ]);
        assert_eq!(model["orders.f1"], ModelValue::Int(-42));
        assert_eq!(
            model["r"],
            ModelValue::Real {
                numerator: 2,
                denominator: 3
            }
        );
        assert_eq!(model["b"], ModelValue::Bool(true));
        assert_eq!(model["s"], ModelValue::Str("hi".to_string()));
        assert_eq!(model["a b"], ModelValue::Int(-41));
        // Model completion gives unconstrained constants a value as well.
        assert!(matches!(model["unused"], ModelValue::Bool(_)));
        assert_eq!(model.len(), 6);
    }

    #[test]
    fn unsat() {
        let script = lines(&[
            "(declare-const x Int)",
            "(assert (> x 5))",
            "(assert (< (* 2 x) 11))",
        ]);
        assert_eq!(solve(&script, 10_000), Ok(Outcome::Unsat));
    }

    #[test]
    fn string_constraints_model_satisfies_them() {
        let model = sat(&[
            "(declare-const x String)",
            "(declare-const y String)",
            "(declare-const n Int)",
            "(assert (str.in_re x (re.+ (re.range \"0\" \"9\"))))",
            "(assert (= (str.len x) 3))",
            "(assert (= n (str.to_int x)))",
            "(assert (> n 500))",
            "(assert (= y (str.++ \"id-\" x)))",
            "(assert (str.prefixof \"id-9\" y))",
            "(assert (str.contains y \"7\"))",
            "(assert (= (str.substr y 5 1) \"3\"))",
        ]);
        let (x, y, n) = (
            string_of(&model, "x"),
            string_of(&model, "y"),
            int_of(&model, "n"),
        );
        assert_eq!(x.len(), 3);
        assert!(x.bytes().all(|b| b.is_ascii_digit()), "{x:?}");
        assert_eq!(x.parse::<i64>().unwrap(), n);
        assert!(n > 500);
        assert_eq!(y, format!("id-{x}"));
        assert!(y.starts_with("id-9") && y.contains('7'), "{y:?}");
        assert_eq!(&y[5..6], "3");
    }

    #[test]
    fn str_to_int_of_a_signed_string_is_minus_one() {
        // SMT-LIB's str.to_int reads digits only; anything else maps to -1.
        let model = sat(&[
            "(declare-const n Int)",
            "(assert (= n (str.to_int \"-5\")))",
        ]);
        assert_eq!(model["n"], ModelValue::Int(-1));
    }

    #[test]
    fn hard_query_times_out_as_unknown() {
        // x^3 + y^3 + z^3 = 33 was open until 2019; its smallest solution
        // has 16-digit numbers, far beyond what Z3 finds in 50 ms. The
        // deadline falls inside the QF_NIA tactic's 2 s try_for, where Z3
        // 4.8.12's own timeout deadlocks.
        let script = lines(&[
            "(declare-const x Int)",
            "(declare-const y Int)",
            "(declare-const z Int)",
            "(assert (= (+ (* x x x) (* y y y) (* z z z)) 33))",
        ]);
        // Plain "timeout", not "Z3 did not stop when interrupted": Z3
        // honoured the interrupt within the grace period.
        let outcome = solve(&script, 50);
        assert_eq!(outcome, Ok(Outcome::Unknown("timeout".to_string())));
    }

    #[test]
    fn queries_on_many_threads_are_independent() {
        // Each thread declares `x` with a different sort; a shared context
        // would reject or confuse the redeclarations.
        let handles: Vec<_> = (0..8)
            .map(|i| {
                thread::spawn(move || {
                    let script = if i % 2 == 0 {
                        lines(&["(declare-const x Int)", &format!("(assert (= x {i}))")])
                    } else {
                        lines(&[
                            "(declare-const x String)",
                            &format!("(assert (= x (str.from_int {i})))"),
                        ])
                    };
                    (i, solve(&script, 10_000))
                })
            })
            .collect();
        for handle in handles {
            let (i, outcome) = handle.join().unwrap();
            let expected = if i % 2 == 0 {
                ModelValue::Int(i)
            } else {
                ModelValue::Str(i.to_string())
            };
            assert_eq!(
                outcome,
                Ok(Outcome::Sat(BTreeMap::from([("x".to_string(), expected)])))
            );
        }
    }

    #[test]
    fn malformed_scripts_are_errors() {
        for script in [
            &["(declare-const x Int)", "(assert (= x 1)"][..],
            &["(assert (= y 1))"],
            &["(declare-const x Int)", "(assert (= x \"a\"))"],
            &["(declare-const x Int)", "(assert (+ x 1))"],
            &["(declare-const x Foo)"],
        ] {
            match solve(&lines(script), 10_000) {
                Err(Error::Rejected(msg)) => assert!(msg.contains("line "), "{msg}"),
                other => panic!("{script:?} gave {other:?}"),
            }
        }
        // Z3 can parse these, but the constants' values do not fit the API.
        for script in [
            &["(declare-const b (_ BitVec 8))"][..],
            &[
                "(declare-const x Int)",
                "(assert (= x 100000000000000000000))",
            ],
            &["(declare-const r Real)", "(assert (= (* r r) 2.0))"],
        ] {
            assert!(solve(&lines(script), 10_000).is_err(), "{script:?}");
        }
        assert!(solve(&["(assert true)\0".to_string()], 10_000).is_err());
    }

    #[test]
    fn string_literal_round_trips_through_z3() {
        for s in [
            "",
            "plain",
            "say \"hi\"",
            "\"\"",
            "back\\slash",
            "\\u{41} is not A",
            "\\x41\\t\\\\",
            "tab\there\nnew\r\0nul\u{7f}",
            "caf\u{e9} \u{3bb} \u{1f600}",
            "trailing\\",
        ] {
            let model = sat(&[
                "(declare-const s String)",
                &format!("(assert (= s {}))", string_literal(s)),
            ]);
            assert_eq!(model["s"], ModelValue::Str(s.to_string()), "{s:?}");
        }
        assert_eq!(string_literal("a\"b\\\u{e9}"), "\"a\"\"b\\u{5c}\\u{e9}\"");
    }

    #[test]
    fn quote_leaves_simple_symbols_alone() {
        assert_eq!(quote("x_1"), "x_1");
        assert_eq!(quote("orders.f1"), "orders.f1");
        assert_eq!(quote("<=>?/~!@$%^&*-+"), "<=>?/~!@$%^&*-+");
        assert_eq!(quote("1x"), "|1x|");
        assert_eq!(quote("a b"), "|a b|");
        assert_eq!(quote(""), "||");
        assert_eq!(quote("caf\u{e9}"), "|caf\u{e9}|");
        let model = sat(&[
            &format!("(declare-const {} Int)", quote("1 weird.name")),
            &format!("(assert (= {} 7))", quote("1 weird.name")),
        ]);
        assert_eq!(model["1 weird.name"], ModelValue::Int(7));
    }

    #[test]
    fn preferences_hold_where_the_script_allows() {
        let model = sat(&[
            "(declare-const x Int)",
            "(declare-const s String)",
            "(assert (> x 2))",
            "(assert-soft (= x 7))",
            "(assert-soft (= s \"ok\") :weight 2)",
        ]);
        assert_eq!(int_of(&model, "x"), 7);
        assert_eq!(string_of(&model, "s"), "ok");
        // The guards are not constants of the script.
        assert_eq!(model.len(), 2);
    }

    #[test]
    fn a_contradicted_preference_is_dropped_and_the_rest_kept() {
        let model = sat(&[
            "(declare-const x Int)",
            "(declare-const y Int)",
            "(assert (> x 2))",
            "(assert-soft (= x 1))",
            "(assert-soft (= y 5))",
            "(assert-soft (< x 0))",
        ]);
        assert!(int_of(&model, "x") > 2);
        assert_eq!(int_of(&model, "y"), 5);
    }

    #[test]
    fn preferences_never_make_a_script_unsatisfiable_or_satisfiable() {
        let unsat = lines(&[
            "(declare-const x Int)",
            "(assert (> x 2))",
            "(assert (< x 1))",
            "(assert-soft (= x 1))",
        ]);
        assert_eq!(solve(&unsat, 10_000), Ok(Outcome::Unsat));
        let model = sat(&[
            "(declare-const x Int)",
            "(assert-soft (= x 1))",
            "(assert-soft (= x 2))",
        ]);
        assert!(matches!(int_of(&model, "x"), 1 | 2));
        let bare = lines(&["(declare-const x Int)", "(assert-soft)"]);
        assert!(matches!(solve(&bare, 10_000), Err(Error::Rejected(_))));
    }

    #[test]
    fn preferences_go_with_their_block() {
        // Enough independent constants to be solved block by block.
        let mut script = vec![
            "(declare-const a String)".to_string(),
            "(declare-const b String)".to_string(),
            "(assert (str.prefixof \"k\" a))".to_string(),
            "(assert-soft (= a \"kk\"))".to_string(),
            "(assert (= (str.len b) 3))".to_string(),
            "(assert-soft (= b \"abc\"))".to_string(),
        ];
        script.extend((0..20).map(|i| format!("(declare-const c{i} Int)")));
        let model = match solve(&script, 10_000) {
            Ok(Outcome::Sat(model)) => model,
            other => panic!("expected sat, got {other:?}"),
        };
        assert_eq!(string_of(&model, "a"), "kk");
        assert_eq!(string_of(&model, "b"), "abc");
    }
}
