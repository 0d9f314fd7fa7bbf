//! Test data from solved JDU paths, verified by running the program.
//!
//! Paths are taken in order. A path some record already follows needs no new
//! record (that is how one record serves several paths). Otherwise its
//! constraints are solved together with "keep apart from what is there":
//! each key the path passes through must differ from the keys the current
//! data already sends through that operator, so the new records neither join
//! nor group with old ones. The new records are kept only if the reference
//! interpreter confirms that the path is now followed and every path covered
//! before still is; otherwise the path gets a new test case (a separate
//! dataset), which is what a global `df.reduce` over one record and over two
//! needs.
//!
//! Test cases are shaped like Spark jobs: Spark aborts a job at the first
//! exception a UDF throws, so a record that makes the program fail would
//! hide every other record of its dataset. A path that ends in a failure
//! therefore gets a test case of its own, and the records of every other
//! case must run without any failure; the non-failing paths share cases.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use coco_dataflow::{
    interp::{self, Run},
    lineage::{path_key, EMPTY_REDUCE},
    model::{OpKind, Program},
    value::Value,
};
use coco_dialects::bigtest::{Guard, PathKey, PathRecord};
use coco_smt::{ModelValue, Outcome, SExpr};

use crate::{distinguish, feasibility::Budget, natural};

/// Path ids and the source records (name, index) each path reads.
type Covers = BTreeMap<i64, Vec<(String, usize)>>;

/// Lines per source name.
type Inputs = BTreeMap<String, Vec<String>>;

/// A path records were solved for, with where those records are.
type Placement = (PathSpec, Vec<(String, usize)>);

/// A path as `bigtest-emit` reads it from a `bigtest.jdu_path`.
#[derive(Clone, Debug)]
pub struct PathSpec {
    pub id: i64,
    pub branches: Vec<String>,
    pub script: Vec<String>,
    /// The keys the path's records pass at keyed operators.
    pub keys: Vec<PathKey>,
    /// The source records the path reads.
    pub records: Vec<PathRecord>,
}

impl PathSpec {
    /// Each record's field constants, for [`coco_smt::solve_records`].
    pub fn record_fields(&self) -> Vec<Vec<String>> {
        self.records.iter().map(|r| r.fields.clone()).collect()
    }
}

/// One dataset: lines per source name, and what they cover.
#[derive(Clone, Debug, Default)]
pub struct Case {
    pub inputs: BTreeMap<String, Vec<String>>,
    /// Path ids the data covers, with the source records each path reads.
    pub covers: BTreeMap<i64, Vec<(String, usize)>>,
    run: Option<Run>,
    /// The paths records were solved for, with where those records are.
    placed: Vec<Placement>,
    /// The case of one failing path: its job is meant to fail. Every other
    /// case's job must succeed.
    pub fails: bool,
    /// Records whose numbers a boundary probe pinned: natural values
    /// leave them alone.
    pinned: BTreeSet<(String, usize)>,
}

impl Case {
    /// The case with `inputs` (its records and the new ones), their run,
    /// and `placed` the path the new records were placed for.
    fn grown(&self, inputs: Inputs, run: Run, covers: Covers, placed: Placement) -> Case {
        let mut all = self.placed.clone();
        all.push(placed);
        Case {
            inputs,
            covers,
            run: Some(run),
            placed: all,
            fails: self.fails,
            pinned: self.pinned.clone(),
        }
    }

    /// Whether a run of this case's data behaves as the case must: covers
    /// everything `self` covered (and `path`, when given), and fails only
    /// where the case is a failing path's own.
    fn holds(&self, run: &Run, covers: &Covers, path: Option<i64>) -> bool {
        self.covers.keys().all(|id| covers.contains_key(id))
            && path.is_none_or(|id| covers.contains_key(&id))
            && (self.fails || run.failures.is_empty())
    }
}

/// Whether `path` ends in a failure (a UDF that throws, `...=fail`): such a
/// path fails the whole job on Spark.
pub fn ends_in_failure(path: &PathSpec) -> bool {
    path.branches.last().is_some_and(|b| b.ends_with("=fail"))
}

#[derive(Debug, Default)]
pub struct Generated {
    pub cases: Vec<Case>,
    /// Satisfiable paths the generator could not make the program follow,
    /// with the reason.
    pub missed: Vec<(i64, String)>,
}

/// What each record of a path is: source name and field variables (of
/// both witnesses, where it has two).
fn records(path: &PathSpec) -> Vec<(String, Vec<String>)> {
    path.records
        .iter()
        .map(|r| (r.source.clone(), r.fields.clone()))
        .collect()
}

/// Whether `model` chose the witness that reads `record`.
fn chosen(record: &PathRecord, model: &BTreeMap<String, ModelValue>) -> bool {
    record.guard.as_ref().is_none_or(
        |Guard { var, value }| matches!(model.get(var), Some(ModelValue::Bool(b)) if b == value),
    )
}

/// `path` with the witness `model` chose: only its records, and the
/// choice asserted (a later solve with another path keeps the records
/// placed for this one meaningful).
fn resolved(path: &PathSpec, model: &BTreeMap<String, ModelValue>) -> PathSpec {
    let mut resolved = path.clone();
    let choices: BTreeSet<String> = path
        .records
        .iter()
        .filter_map(|r| Some(r.guard.as_ref()?.var.clone()))
        .collect();
    resolved.records.retain(|r| chosen(r, model));
    for record in &mut resolved.records {
        record.guard = None;
    }
    for var in choices {
        if let Some(ModelValue::Bool(b)) = model.get(&var) {
            resolved
                .script
                .push(format!("(assert (= {} {b}))", coco_smt::quote(&var)));
        }
    }
    resolved
}

fn unquote(name: &str) -> String {
    name.strip_prefix('|')
        .and_then(|n| n.strip_suffix('|'))
        .unwrap_or(name)
        .to_string()
}

/// A concrete key as an SMT-LIB literal of the key's sort.
fn literal(value: &Value) -> Option<String> {
    Some(match value {
        Value::Int(v) if *v < 0 => format!("(- {})", v.unsigned_abs()),
        Value::Int(v) => v.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => coco_smt::string_literal(s),
        Value::Float(f) => super::term::real(*f)?.to_string(),
        _ => return None,
    })
}

/// The text of a model value as a source field.
fn field_text(value: &ModelValue) -> String {
    match value {
        ModelValue::Int(v) => v.to_string(),
        ModelValue::Bool(b) => b.to_string(),
        ModelValue::Str(s) => s.clone(),
        ModelValue::Real {
            numerator,
            denominator,
        } => {
            // Source reals are multiples of 1/100 (see `source_field`).
            let cents = (*numerator as i128 * 100) / (*denominator as i128);
            let sign = if cents < 0 { "-" } else { "" };
            let cents = cents.unsigned_abs();
            format!("{sign}{}.{:02}", cents / 100, cents % 100)
        }
    }
}

fn delimiter_of(program: &Program, source: &str) -> Option<String> {
    program.sources().find_map(|(_, op)| match &op.kind {
        OpKind::Source {
            name, delimiter, ..
        } if name == source => Some(delimiter.clone()),
        _ => None,
    })
}

/// Runs the program on `inputs`; `covers` maps path ids to the records they
/// read.
fn measure(
    program: &Program,
    inputs: &BTreeMap<String, Vec<String>>,
    ids: &BTreeMap<String, i64>,
) -> crate::Result<(Run, Covers)> {
    let run = interp::run(program, inputs)?;
    let mut covers: BTreeMap<i64, Vec<(String, usize)>> = BTreeMap::new();
    // What each path's list holds, so a path many records follow is not a
    // scan of its list per record.
    let mut listed: HashSet<(i64, &str, usize)> = HashSet::new();
    for observation in &run.observations {
        if let Some(&id) = ids.get(&path_key(&observation.branches)) {
            let entry = covers.entry(id).or_default();
            for o in &observation.origins {
                if listed.insert((id, &o.source, o.index)) {
                    entry.push((o.source.clone(), o.index));
                }
            }
        }
    }
    drop(listed);
    Ok((run, covers))
}

/// The sort a script declares `name` with.
fn declared_sort<'s>(script: &'s [String], name: &str) -> Option<&'s str> {
    script.iter().find_map(|line| {
        let rest = line.strip_prefix("(declare-const ")?.strip_suffix(')')?;
        let (n, sort) = rest.rsplit_once(' ')?;
        (unquote(n) == name).then_some(sort)
    })
}

/// Pieces of split strings a path declares (`map1.p0`), by split.
fn pieces(script: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut by_split: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in script {
        let Some(rest) = line.strip_prefix("(declare-const ") else {
            continue;
        };
        let Some((name, _)) = rest.rsplit_once(' ') else {
            continue;
        };
        let name = unquote(name);
        if let Some((scope, piece)) = name.rsplit_once('.') {
            if piece.starts_with('p') && piece[1..].chars().all(|c| c.is_ascii_digit()) {
                by_split
                    .entry(scope.to_string())
                    .or_default()
                    .push(name.clone());
            }
        }
    }
    by_split
}

/// Assertions keeping the keys `script` passes apart from the keys `run`
/// met at the same operators.
fn keys_apart(run: &Run, keys: &[PathKey]) -> Vec<String> {
    let mut apart = Vec::new();
    for PathKey { op, term } in keys {
        for key in run.keys.get(op).into_iter().flatten() {
            if let Some(value) = key.first().and_then(literal) {
                apart.push(format!("(assert (not (= {term} {value})))"));
            }
        }
    }
    apart
}

/// `path`'s condition, with its keys apart from the keys `case` has.
fn apart_script(case: &Case, path: &PathSpec) -> Vec<String> {
    let mut script = path.script.clone();
    if let Some(run) = &case.run {
        script.extend(keys_apart(run, &path.keys));
    }
    script
}

/// The model's values of `vars`, as source field texts.
fn fields_of(model: &BTreeMap<String, ModelValue>, vars: &[String]) -> Vec<String> {
    vars.iter()
        .map(|v| model.get(v).map(field_text).unwrap_or_default())
        .collect()
}

/// Solutions `extend` tries per path before giving up on a case.
const ATTEMPTS: usize = 4;

/// How [`extend`] places a path's records.
#[derive(Clone, Copy)]
struct Placing {
    /// Solutions tried before giving up on the case.
    attempts: usize,
    /// The path the program must then follow: the path itself, or none
    /// for a probe (across a comparison its record takes the other side).
    follows: Option<i64>,
    /// Optional work (probes, extra records): its queries solve within
    /// [`OPTIONAL_EFFORT`].
    optional: bool,
}

impl Placing {
    /// A path's own records, as coverage needs them.
    fn covering(path: &PathSpec) -> Self {
        Placing {
            attempts: ATTEMPTS,
            follows: Some(path.id),
            optional: false,
        }
    }
}

/// Z3's resource count (`rlimit`) that optional work may spend per query:
/// probes, extra records, retries. A query beyond it is given up on
/// whatever the machine's speed, so two runs generate the same data.
/// The examples' optional queries all finish within it (the costliest,
/// sensor_peak's probes of a fold over two readings, up to 2.7 s on a
/// 2-core machine: Z3 counts little of its string and real reasoning), and
/// the timeout stays a backstop.
const OPTIONAL_EFFORT: u64 = 2_000_000;

/// Solves a query of optional work (see [`OPTIONAL_EFFORT`]).
fn solve_optional(
    script: &[String],
    records: &[Vec<String>],
    timeout_ms: u32,
) -> coco_smt::Result<Outcome> {
    Budget::of_timeout(timeout_ms)
        .at_most(OPTIONAL_EFFORT)
        .solve(script, records)
}

/// Tries to add records following `path` to `case`. Solvers like short,
/// equal strings; when those make records group with each other, later
/// attempts ask for pairwise distinct split pieces, then for other values.
fn extend(
    program: &Program,
    case: &Case,
    path: &PathSpec,
    ids: &BTreeMap<String, i64>,
    timeout_ms: u32,
    placing: Placing,
) -> crate::Result<Option<Case>> {
    let Placing {
        attempts,
        follows,
        optional,
    } = placing;
    let script = apart_script(case, path);
    // Second line of defence: pieces of one split differ, and no piece or
    // source field reuses a key the case already has (a token of the new
    // line could otherwise join an old group).
    let mut distinct = Vec::new();
    for names in pieces(&path.script).values().filter(|n| n.len() > 1) {
        let names: Vec<String> = names.iter().map(|n| coco_smt::quote(n)).collect();
        distinct.push(format!("(assert (distinct {}))", names.join(" ")));
    }
    if let Some(run) = &case.run {
        let seen: BTreeSet<String> = run
            .keys
            .values()
            .flatten()
            .filter_map(|k| k.first())
            .filter_map(|v| match v {
                Value::Str(_) => literal(v),
                _ => None,
            })
            .collect();
        let candidates = pieces(&path.script)
            .into_values()
            .flatten()
            .chain(records(path).into_iter().flat_map(|(_, vars)| vars))
            .filter(|v| declared_sort(&path.script, v) == Some("String"));
        for var in candidates {
            for value in &seen {
                distinct.push(format!(
                    "(assert (not (= {} {value})))",
                    coco_smt::quote(&var)
                ));
            }
        }
    }
    if let Some(case) = place_known_model(program, case, path, ids, follows)? {
        return Ok(Some(case));
    }
    let mut blocked: Vec<String> = Vec::new();
    let siblings = sibling_copies(path);
    let mut previous: Option<BTreeMap<String, ModelValue>> = None;
    for attempt in 0..attempts {
        let mut attempt_script = script.clone();
        let copies: Vec<String> = match (&previous, attempt) {
            (Some(model), 1) => siblings
                .iter()
                .filter_map(|(earlier, element)| match model.get(element) {
                    Some(ModelValue::Str(text)) => Some(format!(
                        "(assert (= {} {}))",
                        coco_smt::quote(earlier),
                        coco_smt::string_literal(text)
                    )),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let copying = !copies.is_empty();
        if copying {
            attempt_script.extend(copies);
        } else if attempt > 0 {
            attempt_script.extend(distinct.iter().cloned());
        }
        attempt_script.extend(blocked.iter().cloned());
        let fields = path.record_fields();
        let answer = if copying || optional {
            solve_optional(&attempt_script, &fields, timeout_ms)?
        } else {
            Budget::of_timeout(timeout_ms).solve(&attempt_script, &fields)?
        };
        let model = match answer {
            Outcome::Sat(model) => model,
            // The copy may not fit where the element did (a piece bound by
            // position): the other attempts go on.
            Outcome::Unsat | Outcome::Unknown(_) if copying => continue,
            Outcome::Unsat if attempt == 1 && !distinct.is_empty() => {
                // The path needs equal pieces; try other values instead.
                distinct.clear();
                continue;
            }
            Outcome::Unsat => return Ok(None),
            Outcome::Unknown(reason) => return Err(crate::Error::SolverGaveUp { reason }),
        };
        previous = Some(model.clone());
        match place_model(program, case, path, ids, follows, &model, copying)? {
            Placed::Holds(case) => return Ok(Some(case)),
            Placed::Off { differ } => {
                if !differ.is_empty() {
                    blocked.push(format!("(assert (or {}))", differ.join(" ")));
                }
            }
        }
    }
    Ok(None)
}

/// `case` with the records of `path`'s own model, where the solver has it
/// already (the solve pass's answer, a probe's) and the case still behaves
/// with them, words freshened where they met the case's keys: no query
/// to keep them apart from the case's keys.
fn place_known_model(
    program: &Program,
    case: &Case,
    path: &PathSpec,
    ids: &BTreeMap<String, i64>,
    follows: Option<i64>,
) -> crate::Result<Option<Case>> {
    if case.run.is_none() {
        return Ok(None);
    }
    let Some(Outcome::Sat(model)) = coco_smt::answered(&path.script) else {
        return Ok(None);
    };
    Ok(
        match place_model(program, case, path, ids, follows, &model, true)? {
            Placed::Holds(case) => Some(case),
            Placed::Off { .. } => None,
        },
    )
}

/// What [`place_model`] made of a model.
enum Placed {
    /// The case with the model's records, which the program follows as
    /// the case must.
    Holds(Case),
    /// It does not: assertions that another model differs from this one
    /// in some string field.
    Off { differ: Vec<String> },
}

/// Adds the records `model` gives `path` to `case` and runs the program.
/// With `freshen`, a run that is off the path (the new records share a key
/// with old ones, or with each other) is retried with the new lines' words
/// freshened one occurrence at a time.
fn place_model(
    program: &Program,
    case: &Case,
    path: &PathSpec,
    ids: &BTreeMap<String, i64>,
    follows: Option<i64>,
    model: &BTreeMap<String, ModelValue>,
    freshen: bool,
) -> crate::Result<Placed> {
    let mut inputs = case.inputs.clone();
    for (_, op) in program.sources() {
        if let OpKind::Source { name, .. } = &op.kind {
            inputs.entry(name.clone()).or_default();
        }
    }
    let mut differ = Vec::new();
    let mut positions = Vec::new();
    let path = resolved(path, model);
    for (source, vars) in records(&path) {
        let delimiter = delimiter_of(program, &source).unwrap_or_default();
        let fields = fields_of(model, &vars);
        for (var, value) in vars.iter().zip(&fields) {
            if let Some(ModelValue::Str(_)) = model.get(var) {
                differ.push(format!(
                    "(not (= {} {}))",
                    coco_smt::quote(var),
                    coco_smt::string_literal(value)
                ));
            }
        }
        let lines = inputs.entry(source.clone()).or_default();
        positions.push((source, lines.len()));
        lines.push(fields.join(&delimiter));
    }
    let (mut run, mut covers) = measure(program, &inputs, ids)?;
    if freshen && !case.holds(&run, &covers, follows) {
        let old: BTreeSet<(String, usize)> = case
            .inputs
            .iter()
            .flat_map(|(s, lines)| (0..lines.len()).map(move |i| (s.clone(), i)))
            .collect();
        let vocabulary = natural::Vocabulary::new(&program.string_constants());
        let mut found = None;
        let freshened = natural::freshen(&inputs, &vocabulary, &old, |candidate| {
            match measure(program, candidate, ids) {
                Ok((r, c)) if case.holds(&r, &c, follows) => {
                    found = Some((r, c));
                    true
                }
                _ => false,
            }
        });
        if let Some((r, c)) = found {
            inputs = freshened;
            run = r;
            covers = c;
        }
    }
    if !case.holds(&run, &covers, follows) {
        return Ok(Placed::Off { differ });
    }
    Ok(Placed::Holds(case.grown(
        inputs,
        run,
        covers,
        (path, positions),
    )))
}

/// For a path that follows element j >= 1 of a flat_map's list, that the
/// elements before it are copies of it: the path leaves them free, and the
/// solver's choice (an empty item) may fail the job when the rest of the
/// program runs on them. The list's pieces are the last j + 1 pieces the
/// flat_map's UDF declares (`flat_map1.p4`, `flat_map1.p6`); in a path
/// over several records the k-th element named in its branches is
/// instance k's (`flat_map1_1.p6`).
///
/// Pairs `(earlier piece, element piece)`: [`extend`] fixes each earlier
/// piece to the text the element piece had in the previous model. Solved
/// as equations between the two variables instead, a fold over two second
/// elements asks Z3 for word equations (`x ++ "," ++ x`) that it does not
/// decide in time; with the copy a constant, the script is as easy as the
/// path's own.
fn sibling_copies(path: &PathSpec) -> Vec<(String, String)> {
    let mut elements: Vec<(String, usize)> = Vec::new();
    for branch in &path.branches {
        let mut rest = branch.as_str();
        while let Some(at) = rest.find("flat_map#") {
            rest = &rest[at + "flat_map#".len()..];
            let id: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let Some(class) = rest[id.len()..].strip_prefix("=elem") else {
                continue;
            };
            let digits: String = class.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(j) = digits.parse() {
                elements.push((id, j));
            }
        }
    }
    let by_scope = pieces(&path.script);
    let mut copies = Vec::new();
    for (k, (id, j)) in elements.iter().enumerate() {
        let nth = elements[..k]
            .iter()
            .filter(|(other, _)| other == id)
            .count();
        let several = elements.iter().filter(|(other, _)| other == id).count() > 1;
        let scope = if several {
            format!("flat_map{id}_{nth}")
        } else {
            format!("flat_map{id}")
        };
        let Some(list) = by_scope.get(&scope) else {
            continue;
        };
        let mut list = list.clone();
        list.sort_by_key(|name| {
            name.rsplit_once(".p")
                .and_then(|(_, n)| n.parse::<usize>().ok())
                .unwrap_or(0)
        });
        if *j == 0 || list.len() <= *j {
            continue;
        }
        let element = &list[list.len() - 1];
        copies.extend(
            list[list.len() - 1 - j..list.len() - 1]
                .iter()
                .map(|other| (other.clone(), element.clone())),
        );
    }
    copies
}

/// Declarations and assertions of both scripts, each variable declared once;
/// `None` when one name has two sorts.
fn conjoin(a: &[String], b: &[String]) -> Option<Vec<String>> {
    let mut joint: Vec<String> = a.to_vec();
    for line in b {
        if let Some(rest) = line.strip_prefix("(declare-const ") {
            let name = rest.rsplit_once(' ')?.0;
            let prefix = format!("(declare-const {name} ");
            match joint.iter().find(|l| l.starts_with(&prefix)) {
                Some(existing) if existing == line => continue,
                Some(_) => return None,
                None => {}
            }
        }
        joint.push(line.clone());
    }
    Some(joint)
}

/// Tries to make records already placed for another path also follow
/// `path`: the two paths' conditions are solved together over their common
/// record variables (instance `_0` of one path is instance `_0` of the
/// other), the other path's records are rewritten in place and only the
/// records `path` has on its own are added. Kept only if the program then
/// follows `path` and everything the case covered before.
fn share(
    program: &Program,
    case: &Case,
    path: &PathSpec,
    ids: &BTreeMap<String, i64>,
    timeout_ms: u32,
) -> Option<Case> {
    let mine = records(path);
    let my_vars: BTreeSet<&String> = mine.iter().flat_map(|(_, v)| v).collect();
    // Few, short tries: sharing is an optimisation, and a failed try costs
    // a solver call.
    const TRIES: usize = 1;
    let timeout_ms = (timeout_ms / 8).clamp(100, 1000);
    let candidates = case.placed.iter().rev().filter(|(other, _)| {
        records(other)
            .iter()
            .any(|(_, vars)| vars.iter().any(|v| my_vars.contains(v)))
    });
    for (other, positions) in candidates.take(TRIES) {
        if groups_differ(other, path) {
            continue;
        }
        let theirs = records(other);
        let Some(mut script) = conjoin(&other.script, &path.script) else {
            continue;
        };
        // Keys of the other records: what the rewritten ones stay apart from.
        let mut rest = case.inputs.clone();
        let mut sorted = positions.clone();
        sorted.sort_by_key(|p| std::cmp::Reverse(p.1));
        for (source, index) in &sorted {
            if let Some(lines) = rest.get_mut(source) {
                if *index < lines.len() {
                    lines.remove(*index);
                }
            }
        }
        let Ok(rest_run) = interp::run(program, &rest) else {
            continue;
        };
        script.extend(keys_apart(&rest_run, &other.keys));
        script.extend(keys_apart(&rest_run, &path.keys));
        let mut fields = other.record_fields();
        fields.extend(path.record_fields());
        let Ok(Outcome::Sat(model)) = Budget::of_timeout(timeout_ms).solve(&script, &fields) else {
            continue;
        };
        let text = |source: &str, vars: &[String]| {
            let delimiter = delimiter_of(program, source).unwrap_or_default();
            fields_of(&model, vars).join(&delimiter)
        };
        let mut inputs = case.inputs.clone();
        for ((source, vars), (at_source, index)) in theirs.iter().zip(positions) {
            if let Some(line) = inputs.get_mut(at_source).and_then(|l| l.get_mut(*index)) {
                *line = text(source, vars);
            }
        }
        let mut my_positions = Vec::new();
        let path = resolved(path, &model);
        for (source, vars) in &records(&path) {
            match theirs.iter().position(|(s, v)| s == source && v == vars) {
                Some(i) => my_positions.push(positions[i].clone()),
                None => {
                    let lines = inputs.entry(source.clone()).or_default();
                    my_positions.push((source.clone(), lines.len()));
                    lines.push(text(source, vars));
                }
            }
        }
        let Ok((run, covers)) = measure(program, &inputs, ids) else {
            continue;
        };
        if case.holds(&run, &covers, Some(path.id)) {
            return Some(case.grown(inputs, run, covers, (path, my_positions)));
        }
    }
    None
}

/// The group a path combines at a keyed operator, when every record of
/// the path is a member of it (one branch reads sources, and it is the
/// group's) and each member is a source record of its own (no flat_map
/// or join among them): `("reduce_by_key#5", "{source#0, ... | ...}")`.
fn sole_group(path: &PathSpec) -> Option<(&str, &str)> {
    let mut reading = path.branches.iter().filter(|b| b.contains("source#"));
    let branch = reading.next()?;
    if reading.next().is_some() {
        return None;
    }
    // The branch's own operator: the first mark, not one nested in its
    // members.
    let (at, len) = ["=fold{", "=group{", "=duplicate{"]
        .iter()
        .filter_map(|mark| branch.find(mark).map(|at| (at, mark.len())))
        .min()?;
    let (op, members) = (&branch[..at], &branch[at + len - 1..]);
    let own_records = !members.contains("flat_map#") && !members.contains("join#");
    (own_records && !op.contains(['{', '|', ','])).then_some((op, members))
}

/// Whether two paths combine different groups at one keyed operator, each
/// path's records all members of its group (see [`sole_group`]). A record
/// both paths read is then a member of both groups, so one group of the
/// data would have to be two different ones: sharing can only fail, and
/// the solver takes its time to say so (payroll: 12 such tries, 80 ms
/// each).
fn groups_differ(a: &PathSpec, b: &PathSpec) -> bool {
    match (sole_group(a), sole_group(b)) {
        (Some((op, members)), Some((their_op, theirs))) => op == their_op && members != theirs,
        _ => false,
    }
}

/// The global `df.reduce`s a path passes (`reduce#3`).
fn global_reduces(path: &PathSpec) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for branch in &path.branches {
        let mut rest = branch.as_str();
        while let Some(at) = rest.find("reduce#") {
            let label: String = rest[at..].chars().take_while(|c| *c != '=').collect();
            // `reduce_by_key#` does not match: `reduce#` needs the `#` next.
            let preceded = at > 0 && rest.as_bytes()[at - 1].is_ascii_alphanumeric();
            if !preceded {
                found.insert(label.clone());
            }
            rest = &rest[at + label.len()..];
        }
    }
    found
}

/// A global `df.reduce` has one output record per dataset, so two paths
/// through it never share a test case; trying would only cost solver calls.
fn single_output_clash(case: &Case, path: &PathSpec) -> bool {
    let mine = global_reduces(path);
    !mine.is_empty()
        && case
            .placed
            .iter()
            .any(|(other, _)| !global_reduces(other).is_disjoint(&mine))
}

/// Sharing attempts that may fail in a row before a program stops sharing.
/// Sharing is an optimisation (fewer records) that costs a solver call
/// per try; where records keep not sharing (`unit_prices`: 0 of 503 tries,
/// 21 of its 73 s), later paths stop paying for it. The examples' shares
/// never fail this often in a row, so their data is unchanged.
const MAX_FAILED_SHARES: usize = 32;

/// Existing cases a path is tried in (besides the first) before it gets a
/// case of its own.
const MAX_CASES_TRIED: usize = 3;

/// Records a case may hold and still be joined. Every record already
/// there adds its keys to the "keep apart" assertions of the next path
/// solved into the case, and Z3's time grows with them: on `dedup_union`
/// (four-line paths through strip, lower and a prefix) joins of larger
/// cases mostly ran out of time, 250 s of its 390.
const MAX_JOINED_RECORDS: usize = 16;

impl Case {
    fn records(&self) -> usize {
        self.inputs.values().map(Vec::len).sum()
    }
}

/// Whether `path` passes a keyed operator with a constant key the case
/// already uses there (all unmatched products grouped as "unknown"): its
/// records would join that group, whatever the solver picks. The key is
/// constant where its term is a literal or the path asserts it equal to
/// one (a category named "unknown" grouped with the unmatched products).
fn constant_key_clash(case: &Case, path: &PathSpec) -> bool {
    let Some(run) = &case.run else {
        return false;
    };
    let forced = forced_values(&path.script);
    path.keys.iter().any(|PathKey { op, term }| {
        let constant = forced
            .get(term.as_str())
            .map_or(term.as_str(), String::as_str);
        run.keys
            .get(op)
            .into_iter()
            .flatten()
            .any(|key| key.first().and_then(literal).as_deref() == Some(constant))
    })
}

/// The terms `script` asserts equal to a literal (`(assert (= t "x"))`),
/// with the literal.
fn forced_values(script: &[String]) -> BTreeMap<String, String> {
    let is_literal = |e: &SExpr| match e {
        SExpr::Atom(a) => a.starts_with('"') || a.parse::<i64>().is_ok(),
        SExpr::List(_) => false,
    };
    let mut forced = BTreeMap::new();
    for line in script.iter().filter(|l| l.starts_with("(assert (= ")) {
        let Ok(commands) = coco_smt::parse_sexprs(line) else {
            continue;
        };
        let [SExpr::List(assert)] = commands.as_slice() else {
            continue;
        };
        let [_, SExpr::List(eq)] = assert.as_slice() else {
            continue;
        };
        if let [SExpr::Atom(op), a, b] = eq.as_slice() {
            if op != "=" {
                continue;
            }
            match (is_literal(a), is_literal(b)) {
                (false, true) => forced.insert(a.to_string(), b.to_string()),
                (true, false) => forced.insert(b.to_string(), a.to_string()),
                _ => None,
            };
        }
    }
    forced
}

/// Generates test cases covering the satisfiable `paths` of `program`.
pub fn generate(program: &Program, paths: &[PathSpec], timeout_ms: u32) -> Generated {
    let ids: BTreeMap<String, i64> = paths
        .iter()
        .map(|p| (path_key(&p.branches), p.id))
        .collect();
    let mut generated = Generated::default();
    // Paths over several records first: their records tend to cover the
    // one-record paths on the way.
    let mut order: Vec<&PathSpec> = paths.iter().collect();
    order.sort_by_key(|p| std::cmp::Reverse(records(p).len()));
    let mut failed_shares = 0;
    for path in order {
        if generated
            .cases
            .iter()
            .any(|c| c.covers.contains_key(&path.id))
        {
            continue;
        }
        let mut placed = false;
        let mut problem = String::from("no dataset makes the program follow it");
        let count = generated.cases.len();
        let fails = ends_in_failure(path);
        // The first case and the latest ones: a path that fits none of them
        // gets a case of its own rather than a solver call per case. A
        // failing path always gets its own; no other joins it.
        let tried = (0..=count).filter(|&i| {
            let shared = i < count;
            (i == count || !fails)
                && (i == 0 || i + MAX_CASES_TRIED > count)
                && !(shared && generated.cases[i].fails)
                && !(shared && generated.cases[i].records() >= MAX_JOINED_RECORDS)
        });
        let mut gave_up_sharing = false;
        for index in tried {
            if gave_up_sharing && index < count {
                continue;
            }
            let case = generated.cases.get(index).cloned().unwrap_or(Case {
                fails,
                ..Case::default()
            });
            if single_output_clash(&case, path) || constant_key_clash(&case, path) {
                continue;
            }
            if failed_shares < MAX_FAILED_SHARES {
                if let Some(shared) = share(program, &case, path, &ids, timeout_ms) {
                    generated.cases[index] = shared;
                    placed = true;
                    failed_shares = 0;
                    break;
                }
                failed_shares += 1;
            }
            // Joining a case is an optimisation, like sharing: a path the
            // solver does not place quickly among other records gets a
            // case of its own, with the full budget.
            let limit = if index < count {
                (timeout_ms / 4).clamp(500, 2500).min(timeout_ms)
            } else {
                timeout_ms
            };
            match extend(program, &case, path, &ids, limit, Placing::covering(path)) {
                Ok(Some(case)) => {
                    if index == generated.cases.len() {
                        generated.cases.push(case);
                    } else {
                        generated.cases[index] = case;
                    }
                    placed = true;
                    break;
                }
                Ok(None) => {}
                Err(e) => {
                    gave_up_sharing = index < count;
                    problem = e.to_string();
                }
            }
        }
        if !placed {
            generated.missed.push((path.id, problem));
        }
    }
    place_missed(program, paths, &mut generated, &ids, timeout_ms);
    for case in &mut generated.cases {
        minimize(program, case, &ids);
    }
    add_dropped_records(program, paths, &mut generated, &ids, timeout_ms);
    add_probes(program, paths, &mut generated, &ids, timeout_ms);
    add_third_records(program, paths, &mut generated, &ids, timeout_ms);
    let vocabulary = natural::Vocabulary::new(&program.string_constants());
    for case in &mut generated.cases {
        naturalize(program, case, &ids, &vocabulary);
    }
    // A case with no records (an empty reduce with nothing to drop before
    // it) exists only as a case after it does (the output's cases are
    // numbered by their records, see `testdata::case_count`): such cases
    // come first.
    generated.cases.sort_by_key(|c| c.records() > 0);
    generated
}

/// Places the paths the first round missed in the cases made since: a
/// path whose own records fail the job elsewhere (a join's records, none
/// of them reaching a global reduce, which then fails on no input) holds
/// among records that keep the rest of the job going. Paths over several
/// records are placed first, so such a path was tried before any case
/// had those records.
fn place_missed(
    program: &Program,
    paths: &[PathSpec],
    generated: &mut Generated,
    ids: &BTreeMap<String, i64>,
    timeout_ms: u32,
) {
    let missed = std::mem::take(&mut generated.missed);
    for (id, problem) in missed {
        let Some(path) = paths.iter().find(|p| p.id == id) else {
            generated.missed.push((id, problem));
            continue;
        };
        let fails = ends_in_failure(path);
        let mut placed = false;
        for index in 0..generated.cases.len().min(MAX_CASES_TRIED) {
            let case = &generated.cases[index];
            if case.fails || fails || single_output_clash(case, path) {
                continue;
            }
            if let Ok(Some(case)) = extend(
                program,
                case,
                path,
                ids,
                timeout_ms,
                Placing::covering(path),
            ) {
                generated.cases[index] = case;
                placed = true;
                break;
            }
        }
        if !placed && !fails {
            // The record may fail the job in another branch of the program
            // (a second map of the same source whose get fails): solve it
            // with paths that get through those branches.
            if let Some(merged) = surviving_elsewhere(program, paths, path) {
                // A try beyond the paths' own: a short budget, as for
                // sharing a case.
                let limit = (timeout_ms / 4).clamp(500, 2500).min(timeout_ms);
                if let Ok(Some(case)) = extend(
                    program,
                    &Case::default(),
                    &merged,
                    ids,
                    limit,
                    Placing::covering(path),
                ) {
                    generated.cases.push(case);
                    placed = true;
                }
            }
        }
        if !placed {
            generated.missed.push((id, problem));
        }
    }
}

/// The dataset op a branch label names (`map#4@parse:get#1=fail` is 4).
fn labelled_op(branch: &str) -> Option<usize> {
    let (_, rest) = branch.split_once('#')?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Whether dataset op `ancestor` feeds op `op`, or is it.
fn feeds(program: &Program, ancestor: usize, op: usize) -> bool {
    let mut work = vec![op];
    let mut seen = BTreeSet::new();
    while let Some(id) = work.pop() {
        if id == ancestor {
            return true;
        }
        if seen.insert(id) {
            if let Some(op) = program.ops.get(id) {
                work.extend(op.inputs.iter().copied());
            }
        }
    }
    false
}

/// `path` (one record) with the constraints of a path that gets through
/// each op where a one-record path of the same source fails and that
/// `path` does not pass: one record that follows `path` and fails nowhere
/// else. `None` when no op needs it or no such path exists.
fn surviving_elsewhere(program: &Program, paths: &[PathSpec], path: &PathSpec) -> Option<PathSpec> {
    let [record] = path.records.as_slice() else {
        return None;
    };
    let same_record = |p: &PathSpec| matches!(p.records.as_slice(), [r] if r.source == record.source && r.fields == record.fields);
    let end = path.branches.last().and_then(|b| labelled_op(b))?;
    let mut failing: Vec<usize> = paths
        .iter()
        .filter(|p| ends_in_failure(p) && same_record(p))
        .filter_map(|p| p.branches.last().and_then(|b| labelled_op(b)))
        .filter(|&op| !feeds(program, op, end))
        .collect();
    failing.sort_unstable();
    failing.dedup();
    let mut script = path.script.clone();
    for op in &failing {
        let survivor = paths.iter().find(|p| {
            p.id != path.id
                && !ends_in_failure(p)
                && same_record(p)
                && p.branches
                    .last()
                    .and_then(|b| labelled_op(b))
                    .is_some_and(|e| feeds(program, *op, e))
        })?;
        for line in &survivor.script {
            let keep = line.starts_with("(assert") || line.starts_with("(declare-const");
            if keep && !script.contains(line) {
                script.push(line.clone());
            }
        }
    }
    if failing.is_empty() {
        return None;
    }
    // Declarations first: an assertion may name a constant the other
    // path declares.
    script.sort_by_key(|line| !line.starts_with("(declare-const"));
    Some(PathSpec {
        script,
        ..path.clone()
    })
}

/// Whether `path` is the empty dataset reaching a global reduce.
fn empty_reduce(path: &PathSpec) -> bool {
    path.branches.len() == 1 && path.branches[0].ends_with(&format!("={EMPTY_REDUCE}"))
}

impl Case {
    /// Whether the case is an empty reduce's: it fails only because no
    /// record reaches a global reduce, so it may hold records that some
    /// operator before the reduce drops.
    fn empty_reduce(&self, paths: &[PathSpec]) -> bool {
        self.fails
            && paths
                .iter()
                .any(|p| empty_reduce(p) && self.covers.contains_key(&p.id))
    }
}

/// Records that do not reach the reduce, for the empty reduce's case: a
/// reader sees why the job fails (every reading implausible), and a fault
/// that lets one of them through shows. Records of up to
/// [`MAX_DROPPED_PATHS`] paths are added, each kept only where the reduce
/// still sees no record.
fn add_dropped_records(
    program: &Program,
    paths: &[PathSpec],
    generated: &mut Generated,
    ids: &BTreeMap<String, i64>,
    timeout_ms: u32,
) {
    // Optional work: bounded by effort, the timeout only a backstop.
    let limit = timeout_ms;
    let droppable: Vec<&PathSpec> = paths
        .iter()
        .filter(|p| !ends_in_failure(p) && records(p).len() == 1 && global_reduces(p).is_empty())
        .collect();
    for index in 0..generated.cases.len() {
        if !generated.cases[index].empty_reduce(paths) {
            continue;
        }
        let mut added = 0;
        for path in &droppable {
            if added == MAX_DROPPED_PATHS {
                break;
            }
            let placing = Placing {
                attempts: 1,
                optional: true,
                ..Placing::covering(path)
            };
            if let Ok(Some(case)) =
                extend(program, &generated.cases[index], path, ids, limit, placing)
            {
                generated.cases[index] = case;
                added += 1;
            }
        }
    }
}

/// Paths whose records an empty reduce's case gets.
const MAX_DROPPED_PATHS: usize = 2;

/// Rewrites the case's text into natural values ([`natural`]) wherever the
/// program still follows the same paths with the same records and fails
/// as before.
fn naturalize(
    program: &Program,
    case: &mut Case,
    ids: &BTreeMap<String, i64>,
    vocabulary: &natural::Vocabulary,
) {
    let failed = |run: &Run| {
        let mut ops: Vec<&str> = run.failures.iter().map(|f| f.op.as_str()).collect();
        ops.sort();
        ops.dedup();
        ops.join(",")
    };
    let Some(before) = case.run.as_ref().map(failed) else {
        return;
    };
    let mut last = None;
    let inputs = natural::naturalize(
        &case.inputs,
        vocabulary,
        &case.pinned,
        |inputs| match measure(program, inputs, ids) {
            Ok((run, covers)) if covers == case.covers && failed(&run) == before => {
                last = Some((run, covers));
                true
            }
            _ => false,
        },
    );
    if inputs != case.inputs {
        // The last accepted rewrite is the result.
        if let Some((run, covers)) = last {
            case.inputs = inputs;
            case.run = Some(run);
            case.covers = covers;
        }
    }
}

/// `case` with the records of its latest path pinned.
fn with_pinned(mut case: Case) -> Case {
    if let Some((_, positions)) = case.placed.last() {
        case.pinned.extend(positions.iter().cloned());
    }
    case
}

/// Boundary probes solved and placed per program; more would make the
/// data larger than a reader takes in.
const MAX_PROBES: usize = 16;

/// Adds the boundary probes of [`distinguish`] to the succeeding cases:
/// into the first case whose data still behaves with them, else into a
/// case of their own. A probe the path does not allow, or that the
/// solver does not answer quickly, is skipped: the paths are covered
/// already.
fn add_probes(
    program: &Program,
    paths: &[PathSpec],
    generated: &mut Generated,
    ids: &BTreeMap<String, i64>,
    timeout_ms: u32,
) {
    let candidates: Vec<&PathSpec> = paths.iter().filter(|p| !ends_in_failure(p)).collect();
    // Optional work: bounded by effort, the timeout only a backstop.
    let limit = timeout_ms;
    let groups: Vec<_> = distinguish::plan(&candidates)
        .into_iter()
        .take(MAX_PROBES)
        .collect();
    // Each group's first probe, solved on every core at once: the answers
    // are remembered (coco_smt's alpha memo), so the loop below, which
    // places them in order, finds them solved. Bounded by effort, each
    // answer is the one a lone solve gives, so the data stays the same.
    let first: Vec<PathSpec> = groups
        .iter()
        .filter_map(|group| group.first())
        .map(|(i, probe)| probe_path(candidates[*i], probe))
        .collect();
    let scripts: Vec<&[String]> = first.iter().map(|p| p.script.as_slice()).collect();
    crate::feasibility::solve_each(&scripts, |i, script| {
        solve_optional(script, &first[i].record_fields(), limit)
    });
    for group in groups {
        for (i, probe) in group.into_iter().take(MAX_PROBE_TRIES) {
            let path = probe_path(candidates[i], &probe);
            let fields = path.record_fields();
            if !matches!(
                solve_optional(&path.script, &fields, limit),
                Ok(Outcome::Sat(_))
            ) {
                continue;
            }
            if place_probe(program, paths, generated, &path, ids, limit) {
                break;
            }
        }
    }
}

/// `path` with `probe`'s difference pinned. A probe's text stays as the
/// solver picks it (its length may be the point), so it asks for distinct,
/// non-empty pieces: two records of a fold then tell their fields apart.
fn probe_path(path: &PathSpec, probe: &distinguish::Probe) -> PathSpec {
    let mut path = distinguish::pinned(path, probe);
    let all: Vec<String> = pieces(&path.script).into_values().flatten().collect();
    if all.len() > 1 {
        let names: Vec<String> = all.iter().map(|n| coco_smt::quote(n)).collect();
        path.script
            .push(format!("(assert-soft (distinct {}))", names.join(" ")));
    }
    for piece in &all {
        path.script.push(format!(
            "(assert-soft (not (= {} \"\")))",
            coco_smt::quote(piece)
        ));
    }
    path
}

/// A probe's records: one solution, bounded, on whichever side.
const PROBE: Placing = Placing {
    attempts: 1,
    follows: None,
    optional: true,
};

/// Ways to reach one probe tried before giving up on it.
const MAX_PROBE_TRIES: usize = 3;

/// Places the records of `path` (a pinned probe) in a succeeding case or
/// an empty reduce's: the latter first, then the one covering the path,
/// whose records give the probe the context the path needs (the other
/// side of a join), else a case of their own.
fn place_probe(
    program: &Program,
    paths: &[PathSpec],
    generated: &mut Generated,
    path: &PathSpec,
    ids: &BTreeMap<String, i64>,
    limit: u32,
) -> bool {
    let mut order: Vec<usize> = (0..generated.cases.len())
        .filter(|&c| !generated.cases[c].fails || generated.cases[c].empty_reduce(paths))
        .collect();
    // An empty reduce's case first: a record it keeps is one every
    // operator before the reduce drops, and a fault that lets it through
    // turns the job's failure into a result.
    order.sort_by_key(|&c| {
        let case = &generated.cases[c];
        (!case.fails, !case.covers.contains_key(&path.id))
    });
    for c in order.into_iter().take(MAX_CASES_TRIED) {
        if let Ok(Some(case)) = extend(program, &generated.cases[c], path, ids, limit, PROBE) {
            generated.cases[c] = with_pinned(case);
            return true;
        }
    }
    match extend(program, &Case::default(), path, ids, limit, PROBE) {
        Ok(Some(case)) => {
            generated.cases.push(with_pinned(case));
            true
        }
        _ => false,
    }
}

/// The reducer of a fold over two records sees each operand once, and
/// when both are equal (a word count's `1`s) it cannot tell `a + b` from
/// `b + b`. For each keyed operator some succeeding case folds two
/// records at, this adds a case of those records and a third record of
/// their key: a copy of the first, or where a copy would not reach the
/// fold (a `df.distinct` before it) another solution of the path with the
/// same key. Kept only where the third record reaches the fold and the
/// case runs without a failure.
fn add_third_records(
    program: &Program,
    paths: &[PathSpec],
    generated: &mut Generated,
    ids: &BTreeMap<String, i64>,
    timeout_ms: u32,
) {
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut added = Vec::new();
    for path in paths {
        let Some(op) = path
            .branches
            .iter()
            .find_map(|b| b.split_once("=fold{").map(|(op, _)| op.to_string()))
        else {
            continue;
        };
        if done.contains(&op) {
            continue;
        }
        let Some(case) = generated
            .cases
            .iter()
            .find(|c| !c.fails && c.covers.contains_key(&path.id))
        else {
            continue;
        };
        let mut inputs: BTreeMap<String, Vec<String>> = case
            .inputs
            .keys()
            .map(|source| (source.clone(), Vec::new()))
            .collect();
        // The records of one group that follows the path (the case may
        // have several).
        let wanted = path_key(&path.branches);
        let Some(records) = case.run.as_ref().and_then(|run| {
            let observation = run
                .observations
                .iter()
                .find(|o| path_key(&o.branches) == wanted)?;
            let mut records: Vec<(String, usize)> = observation
                .origins
                .iter()
                .map(|o| (o.source.clone(), o.index))
                .collect();
            records.dedup();
            Some(records)
        }) else {
            continue;
        };
        for (source, index) in &records {
            if let Some(line) = case.inputs.get(source).and_then(|l| l.get(*index)) {
                inputs.entry(source.clone()).or_default().push(line.clone());
            }
        }
        let Some((first_source, first_index)) = records.first() else {
            continue;
        };
        let copy = case.inputs[first_source][*first_index].clone();
        let third =
            std::iter::once(Some((first_source.clone(), copy))).chain(std::iter::once_with(|| {
                another_record(program, path, &inputs, &op, timeout_ms)
            }));
        for (source, line) in third.flatten() {
            let mut with_third = inputs.clone();
            with_third.entry(source).or_default().push(line);
            let Ok((run, covers)) = measure(program, &with_third, ids) else {
                continue;
            };
            let folds_three = run
                .observations
                .iter()
                .flat_map(|o| &o.branches)
                .any(|b| fold_width(b, &op) >= 3);
            if run.failures.is_empty() && folds_three {
                done.insert(op.clone());
                added.push(Case {
                    inputs: with_third,
                    covers,
                    run: Some(run),
                    placed: Vec::new(),
                    fails: false,
                    pinned: BTreeSet::new(),
                });
                break;
            }
        }
    }
    generated.cases.extend(added);
}

/// How many records `branch` folds at `op` (`reduce_by_key#3=fold{a | b}`
/// folds 2); 0 for a branch of another operator.
fn fold_width(branch: &str, op: &str) -> usize {
    let Some(parts) = branch
        .strip_prefix(op)
        .and_then(|rest| rest.strip_prefix("=fold{"))
    else {
        return 0;
    };
    let mut depth = 0;
    let mut width = 1;
    for c in parts.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            '|' if depth == 0 => width += 1,
            _ => {}
        }
    }
    width
}

/// A record of `path`'s first source other than the lines of `inputs`,
/// with the key those lines meet at `op` (`reduce_by_key#3`).
fn another_record(
    program: &Program,
    path: &PathSpec,
    inputs: &BTreeMap<String, Vec<String>>,
    op: &str,
    timeout_ms: u32,
) -> Option<(String, String)> {
    let op_id: usize = op.rsplit_once('#')?.1.parse().ok()?;
    let run = interp::run(program, inputs).ok()?;
    let key = run.keys.get(&op_id)?.first()?.first().and_then(literal)?;
    let term = &path.keys.iter().find(|k| k.op == op_id)?.term;
    let record = path.records.first()?;
    let mut script = path.script.clone();
    script.push(format!("(assert (= {term} {key}))"));
    for var in &record.fields {
        if declared_sort(&path.script, var) != Some("String") {
            continue;
        }
        for line in inputs.get(&record.source).into_iter().flatten() {
            script.push(format!(
                "(assert (not (= {} {})))",
                coco_smt::quote(var),
                coco_smt::string_literal(line)
            ));
        }
    }
    let Ok(Outcome::Sat(model)) = solve_optional(&script, &path.record_fields(), timeout_ms) else {
        return None;
    };
    let path = resolved(path, &model);
    let record = path.records.first()?;
    let delimiter = delimiter_of(program, &record.source).unwrap_or_default();
    Some((
        record.source.clone(),
        fields_of(&model, &record.fields).join(&delimiter),
    ))
}

/// Drops every record the case's paths do not need: records added for one
/// path often also cover paths whose own records came earlier. Each removal
/// is kept only if the program still follows every path the case covered.
fn minimize(program: &Program, case: &mut Case, ids: &BTreeMap<String, i64>) {
    let sources: Vec<String> = case.inputs.keys().cloned().collect();
    for source in sources.iter().rev() {
        let mut index = case.inputs[source].len();
        while index > 0 {
            index -= 1;
            let mut inputs = case.inputs.clone();
            if let Some(lines) = inputs.get_mut(source) {
                lines.remove(index);
            }
            let Ok((run, covers)) = measure(program, &inputs, ids) else {
                continue;
            };
            if case.holds(&run, &covers, None) {
                *case = Case {
                    inputs,
                    covers,
                    run: Some(run),
                    // Positions are stale now; nothing is placed after this.
                    placed: Vec::new(),
                    fails: case.fails,
                    pinned: case.pinned.clone(),
                };
            }
        }
    }
}

/// Paths covered by running `program` on `inputs`: `(covered ids, run)`.
pub fn coverage(
    program: &Program,
    paths: &[PathSpec],
    inputs: &BTreeMap<String, Vec<String>>,
) -> crate::Result<(BTreeSet<i64>, Run)> {
    let ids: BTreeMap<String, i64> = paths
        .iter()
        .map(|p| (path_key(&p.branches), p.id))
        .collect();
    let (run, covers) = measure(program, inputs, &ids)?;
    Ok((covers.into_keys().collect(), run))
}

#[cfg(test)]
mod tests {
    use super::{forced_values, PathSpec};

    fn path(branches: &[&str]) -> PathSpec {
        PathSpec {
            id: 0,
            branches: branches.iter().map(|b| b.to_string()).collect(),
            script: Vec::new(),
            keys: Vec::new(),
            records: Vec::new(),
        }
    }

    #[test]
    fn folds_of_different_records_cannot_share_one() {
        let fold = |second: &str| {
            path(&[
                &format!("reduce_by_key#5=fold{{source#0, map#4@pay:cond_br#2=true | {second}}}"),
                "sink#6",
            ])
        };
        let a = fold("source#0, map#4@pay:cond_br#2=true");
        let b = fold("source#1, map#4@pay:cond_br#2=false");
        assert!(super::groups_differ(&a, &b));
        assert!(!super::groups_differ(&a, &a));
        // One line may put two elements into the group: no conclusion.
        let items = |j: usize| {
            path(&[&format!(
                "reduce_by_key#5=fold{{source#0, flat_map#2=elem0 | source#0, flat_map#2=elem{j}}}"
            )])
        };
        assert!(!super::groups_differ(&items(0), &items(1)));
        // A record outside the group may be the shared one.
        let outside = path(&[&a.branches[0], "source#2, filter#3=drop"]);
        assert!(!super::groups_differ(&outside, &b));
        // A group nested in a member is not the branch's own.
        let nested =
            path(&["group_by_key#8=group{distinct#4=duplicate{source#0 | source#0} | source#1}"]);
        assert_eq!(
            super::sole_group(&nested).map(|(op, _)| op),
            Some("group_by_key#8")
        );
    }

    #[test]
    fn a_key_asserted_equal_to_a_literal_is_constant() {
        // unit_prices: a category named "unknown" grouped with the
        // unmatched products, whose key is the constant "unknown".
        let script: Vec<String> = [
            "(declare-const categories_0.f1 String)",
            "(declare-const n Int)",
            "(assert (= categories_0.f1 \"unknown\"))",
            "(assert (= 3 n))",
            "(assert (= (str.len categories_0.f1) n))",
            "(assert (not (= categories_0.f1 \"tools\")))",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let forced = forced_values(&script);
        assert_eq!(
            forced.get("categories_0.f1").map(String::as_str),
            Some("\"unknown\"")
        );
        assert_eq!(forced.get("n").map(String::as_str), Some("3"));
        assert_eq!(forced.len(), 2, "{forced:?}");
    }

    #[test]
    fn fold_width_counts_top_level_records() {
        let branch = "reduce_by_key#5=fold{source#0, map#1 | distinct#1=duplicate{source#0 | source#0}, map#1 | source#0}";
        assert_eq!(super::fold_width(branch, "reduce_by_key#5"), 3);
        assert_eq!(super::fold_width(branch, "reduce_by_key#4"), 0);
        assert_eq!(
            super::fold_width("reduce_by_key#5=single", "reduce_by_key#5"),
            0
        );
    }
}
