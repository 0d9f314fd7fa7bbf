//! JDU path enumeration: every combination of operator equivalence classes
//! and UDF paths a record (or the k records an operator combines) can
//! follow from the sources to a sink, a drop or a failure.
//!
//! States per dataset are computed once per *instance*: operators that
//! combine several records of one dataset (reduce, group, distinct,
//! self-joins) ask for independent copies whose variables carry the instance
//! suffix (`lines_1.f0`).

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    rc::Rc,
};

use coco_dataflow::{
    eval::{Evaluator, Stop},
    host::Host,
    lineage::{may_precede, path_key, render, Step, EMPTY_REDUCE},
    model::{DatasetId, JoinKind, OpKind, Program, Ty},
};
use coco_dialects::bigtest::{Guard, PathKey, PathRecord};

use super::{
    symbolic::{
        absent, declare_all, present, scalar, source_field, sym_eq, sym_le, KeyRole, KeyUse,
        PieceRule, State, Sym, SymDomain,
    },
    term::{app, cmp, int_op, not, or, Sort, Term},
};

/// One enumerated JDU path.
#[derive(Clone, Debug)]
pub struct JduPath {
    pub branches: Vec<String>,
    pub decls: Vec<(String, Sort)>,
    pub constraints: Vec<Term>,
    /// Solved as `assert-soft` ([`State::preferences`]).
    pub preferences: Vec<Term>,
    pub keys: Vec<KeyUse>,
    pub records: Vec<PathRecord>,
    /// The witness a join matching a record with itself gave (see
    /// [`State::matched_itself`]); a path with both witnesses is
    /// [`JduPath::either`].
    matched_itself: bool,
    /// Whether the path is already two witnesses.
    combined: bool,
}

impl JduPath {
    /// The path condition as SMT-LIB commands.
    pub fn script(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .decls
            .iter()
            .map(|(name, sort)| format!("(declare-const {} {})", coco_smt::quote(name), sort.smt()))
            .collect();
        lines.extend(self.constraints.iter().map(|c| format!("(assert {c})")));
        lines.extend(
            self.preferences
                .iter()
                .map(|c| format!("(assert-soft {c})")),
        );
        lines
    }

    /// The keys the path's records pass, for `bigtest-emit` (the first
    /// term of each key use: a distinct's whole-record key is kept apart
    /// by its first field).
    pub fn path_keys(&self) -> Vec<PathKey> {
        self.keys
            .iter()
            .filter_map(|key| {
                Some(PathKey {
                    op: key.op,
                    term: key.terms.first()?.to_string(),
                })
            })
            .collect()
    }

    /// The source records the path reads, with the constants of their
    /// fields.
    pub fn path_records(&self) -> Vec<PathRecord> {
        self.records.clone()
    }

    /// One path of two witnesses of the same branches: `itself`, where a
    /// join matched source records with themselves, and `apart`, where
    /// its sides read different records. Bool `selector` chooses: each
    /// witness's conditions hold under its choice, and a record only one
    /// witness reads is guarded by it. The solver prefers `itself` (fewer
    /// records) and takes `apart` where `itself` is infeasible (the two
    /// sides filter one value apart).
    fn either(itself: &JduPath, apart: &JduPath, selector: &str) -> JduPath {
        let choice = Term::Var(selector.to_string());
        let under = |when: bool, t: &Term| {
            let guard = if when {
                choice.clone()
            } else {
                not(choice.clone())
            };
            app("=>", vec![guard, t.clone()])
        };
        let mut decls = itself.decls.clone();
        declare_all(&mut decls, &apart.decls);
        decls.push((selector.to_string(), Sort::Bool));
        let guarded = |when: bool, terms: &[Term]| -> Vec<Term> {
            terms.iter().map(|t| under(when, t)).collect()
        };
        let mut constraints = guarded(true, &itself.constraints);
        constraints.extend(guarded(false, &apart.constraints));
        let mut preferences = guarded(true, &itself.preferences);
        preferences.extend(guarded(false, &apart.preferences));
        preferences.push(choice.clone());
        let mut keys = itself.keys.clone();
        keys.extend(
            apart
                .keys
                .iter()
                .filter(|k| !itself.keys.contains(k))
                .cloned(),
        );
        let only = |records: &[PathRecord], others: &[PathRecord], value: bool| {
            records
                .iter()
                .map(|r| {
                    let shared = others
                        .iter()
                        .any(|o| o.source == r.source && o.fields == r.fields);
                    PathRecord {
                        guard: (!shared).then(|| Guard {
                            var: selector.to_string(),
                            value,
                        }),
                        ..r.clone()
                    }
                })
                .collect::<Vec<_>>()
        };
        let mut records = only(&itself.records, &apart.records, true);
        records.extend(
            only(&apart.records, &itself.records, false)
                .into_iter()
                .filter(|r| r.guard.is_some()),
        );
        JduPath {
            branches: itself.branches.clone(),
            decls,
            constraints,
            preferences,
            keys,
            records,
            matched_itself: true,
            combined: true,
        }
    }
}

/// Why a program cannot be enumerated, at dataset op `op`.
#[derive(Debug)]
pub struct EnumError {
    pub op: DatasetId,
    pub message: String,
}

/// The bounds of one enumeration (`crate::bounds` has their defaults and
/// ranges): all its work is bounded by them.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub k: usize,
    /// UDF operations per UDF path.
    pub fuel: u64,
    /// Largest `df.get` index into a split of input text.
    pub max_index: usize,
    /// JDU paths per program, UDF paths and record combinations per op.
    pub max_paths: usize,
}

impl Limits {
    /// `k` with the default of every other limit.
    pub fn with_k(k: usize) -> Limits {
        use crate::bounds::{FUEL, MAX_INDEX, MAX_PATHS};
        Limits {
            k,
            fuel: FUEL.default as u64,
            max_index: MAX_INDEX.default as usize,
            max_paths: MAX_PATHS.default as usize,
        }
    }
}

/// How to raise `limit`, a limit of the enumeration: its
/// `bigtest-jdu-paths` option. (A tool that offers the option as a flag
/// says so itself.)
pub fn raise(limit: &coco_pass::options::IntOption) -> String {
    format!("raise it with bigtest-jdu-paths{{{}=N}}", limit.name)
}

pub struct Enumerator<'p> {
    program: &'p Program,
    k: usize,
    limits: Limits,
    memo: HashMap<(DatasetId, String), Rc<Vec<State>>>,
    paths: Vec<JduPath>,
    /// Paths by their branches: the index in `paths`.
    seen: HashMap<String, usize>,
    /// UDF paths cut by the loop bound, in all.
    pub cut: usize,
    /// The same, per dataset op whose UDF (or a callee) loops.
    cut_at: BTreeMap<DatasetId, usize>,
    ancestors: Vec<BTreeSet<DatasetId>>,
}

/// Enumerates the JDU paths of `program` with bound `k`; also returns how
/// many UDF paths each dataset op had that loop more than k times (they are
/// not enumerated).
pub fn enumerate(
    program: &Program,
    limits: Limits,
) -> Result<(Vec<JduPath>, BTreeMap<DatasetId, usize>), EnumError> {
    let k = limits.k;
    let mut ancestors: Vec<BTreeSet<DatasetId>> = Vec::new();
    for (id, op) in program.ops.iter().enumerate() {
        let mut set = BTreeSet::from([id]);
        for &i in &op.inputs {
            set.extend(ancestors[i].iter().copied());
        }
        ancestors.push(set);
    }
    let mut e = Enumerator {
        program,
        k,
        limits,
        memo: HashMap::new(),
        paths: Vec::new(),
        seen: HashMap::new(),
        cut: 0,
        cut_at: BTreeMap::new(),
        ancestors,
    };
    for id in 0..program.ops.len() {
        if matches!(program.ops[id].kind, OpKind::Sink { .. }) {
            e.states(id, "")?;
        }
    }
    Ok((e.paths, e.cut_at))
}

enum UdfOutcome {
    Returned(State, Vec<Sym>),
    Failed(State),
}

impl<'p> Enumerator<'p> {
    fn error(&self, op: DatasetId, message: impl Into<String>) -> EnumError {
        EnumError {
            op,
            message: message.into(),
        }
    }

    fn label(&self, id: DatasetId, class: &str) -> Step {
        Step::Label(format!("{}={class}", self.program.op_label(id)))
    }

    fn finish(&mut self, id: DatasetId, state: &State, last: Vec<Step>) -> Result<(), EnumError> {
        let mut lineage = state.lineage.clone();
        lineage.extend(last);
        let branches = render(&lineage);
        if let Some(&index) = self.seen.get(&path_key(&branches)) {
            // The same path reached through another instance, or its other
            // witness where a join's sides read a common source.
            let existing = &self.paths[index];
            if !existing.combined && existing.matched_itself != state.matched_itself {
                let other = self.path_of(branches, state);
                let (itself, apart) = if other.matched_itself {
                    (&other, existing)
                } else {
                    (existing, &other)
                };
                self.paths[index] = JduPath::either(itself, apart, &format!("coco.itself.{index}"));
            }
            return Ok(());
        }
        let max = self.limits.max_paths;
        if self.paths.len() >= max {
            return Err(self.error(
                id,
                format!(
                    "more than max-paths={max} JDU paths; lower k (now {}) or {}",
                    self.k,
                    raise(&crate::bounds::MAX_PATHS)
                ),
            ));
        }
        self.seen.insert(path_key(&branches), self.paths.len());
        let path = self.path_of(branches, state);
        self.paths.push(path);
        Ok(())
    }

    fn path_of(&self, branches: Vec<String>, state: &State) -> JduPath {
        JduPath {
            branches,
            decls: state.decls.clone(),
            constraints: state.constraints.clone(),
            preferences: state.preferences_at_end(self.program.host),
            keys: state.keys.clone(),
            records: state
                .records
                .iter()
                .map(|(source, fields)| PathRecord {
                    source: source.clone(),
                    fields: fields.clone(),
                    guard: None,
                })
                .collect(),
            matched_itself: state.matched_itself,
            combined: false,
        }
    }

    /// Every UDF path of op `id`'s UDF on `args`, from `state`.
    fn run_udf(
        &mut self,
        id: DatasetId,
        state: &State,
        args: Vec<Sym>,
        inst: &str,
    ) -> Result<Vec<UdfOutcome>, EnumError> {
        let program = self.program;
        let udf = program.ops[id].udf().unwrap_or_default();
        let prefix_label = program.op_label(id);
        let mut outcomes = Vec::new();
        let mut prefix: Vec<bool> = Vec::new();
        let mut start = state.clone();
        start.scope = format!("{}{}{inst}", program.ops[id].mnemonic(), id);
        start.fresh = 0;
        loop {
            let domain = SymDomain::new(
                start.clone(),
                program.host,
                prefix.clone(),
                self.k,
                self.limits.max_index,
            );
            let mut eval = Evaluator::with_fuel(&program.udfs, domain, self.limits.fuel);
            let result = eval.run(udf, args.clone());
            let mut path = eval.domain.state.clone();
            path.lineage.extend(
                eval.trace
                    .iter()
                    .map(|t| Step::Label(format!("{prefix_label}{t}"))),
            );
            match result {
                Ok(values) => outcomes.push(UdfOutcome::Returned(path, values)),
                Err(Stop::Fail(_)) => outcomes.push(UdfOutcome::Failed(path)),
                Err(Stop::Cut) => {
                    self.cut += 1;
                    *self.cut_at.entry(id).or_default() += 1;
                }
                Err(Stop::Error(message)) => {
                    return Err(self.error(id, format!("in UDF @{udf}: {message}")))
                }
                Err(Stop::OutOfFuel { udf: callee, fuel }) => {
                    return Err(self.error(
                        id,
                        format!(
                            "in UDF @{udf}: @{callee} runs more than fuel={fuel} operations on one path (a loop too long to unroll?); {}",
                            raise(&crate::bounds::FUEL)
                        ),
                    ))
                }
            }
            // Depth-first: flip the last decision that took its first side.
            let mut decisions = eval.domain.decisions;
            while decisions.last() == Some(&false) {
                decisions.pop();
            }
            match decisions.last_mut() {
                Some(last) => *last = false,
                None => break,
            }
            prefix = decisions;
            let max = self.limits.max_paths;
            if outcomes.len() + self.cut > max {
                return Err(self.error(
                    id,
                    format!(
                        "UDF @{udf} has more than max-paths={max} paths; {}",
                        raise(&crate::bounds::MAX_PATHS)
                    ),
                ));
            }
        }
        if outcomes.is_empty() && self.cut > 0 {
            return Err(self.error(
                id,
                format!(
                    "UDF @{udf} has no path that finishes within {} loop iterations; its trip count cannot be bounded",
                    self.k
                ),
            ));
        }
        Ok(outcomes)
    }

    /// Instances for the inputs of a two-input op: their own, unless the
    /// inputs share an ancestor (their variables would collide).
    fn side_instances(&self, id: DatasetId, inst: &str) -> (String, String) {
        let op = &self.program.ops[id];
        let (a, b) = (op.inputs[0], op.inputs[1]);
        if self.ancestors[a].is_disjoint(&self.ancestors[b]) {
            (inst.to_string(), inst.to_string())
        } else {
            (format!("{inst}_l"), format!("{inst}_r"))
        }
    }

    /// k-tuples of independent input states (instances `inst_0..inst_{k-1}`).
    fn tuples(&mut self, input: DatasetId, inst: &str) -> Result<Vec<Vec<State>>, EnumError> {
        let mut tuples: Vec<Vec<State>> = vec![Vec::new()];
        for j in 0..self.k {
            let states = self.states(input, &format!("{inst}_{j}"))?;
            let mut next = Vec::new();
            for t in &tuples {
                for s in states.iter() {
                    // Orders the interpreter never produces (a union's rhs
                    // before its lhs) are not paths.
                    if !t.iter().all(|m| may_precede(&m.lineage, &s.lineage)) {
                        continue;
                    }
                    let mut t = t.clone();
                    t.push(s.clone());
                    next.push(t);
                }
                let max = self.limits.max_paths;
                if next.len() > max {
                    return Err(self.error(
                        input,
                        format!(
                            "more than max-paths={max} record combinations at k={}; lower k or {}",
                            self.k,
                            raise(&crate::bounds::MAX_PATHS)
                        ),
                    ));
                }
            }
            tuples = next;
        }
        Ok(tuples)
    }

    /// Merges a tuple of states under class `label`; returns the merged
    /// state and each member's fields (split indices adjusted). Members are
    /// different records, so what they met separately keeps them apart: two
    /// groups of one grouping operator have different keys, and an unmatched
    /// join record shares no key with the other side.
    fn merge(&self, id: DatasetId, class: &str, members: &[State]) -> (State, Vec<Vec<Sym>>) {
        self.merge_sharing(id, class, members, false)
    }

    /// [`Self::merge`] of members that may share source records (`shared`:
    /// a join's sides enumerated under one instance).
    fn merge_sharing(
        &self,
        id: DatasetId,
        class: &str,
        members: &[State],
        shared: bool,
    ) -> (State, Vec<Vec<Sym>>) {
        let mut merged = State::default();
        let mut fields = Vec::new();
        for (i, m) in members.iter().enumerate() {
            for earlier in &members[..i] {
                for a in &earlier.keys {
                    // Where the members share records, the same key use
                    // twice is one record's, not two records'.
                    let one_record = |b: &&KeyUse| shared && *b == a;
                    for b in m.keys.iter().filter(|b| !one_record(b)) {
                        if let Some(apart) = a.apart(b) {
                            merged.assume(apart);
                        }
                    }
                }
            }
            fields.push(merged.absorb(m));
        }
        merged.lineage = vec![Step::Merge {
            label: format!("{}={class}", self.program.op_label(id)),
            inputs: members.iter().map(|m| m.lineage.clone()).collect(),
        }];
        (merged, fields)
    }

    fn key_use(&self, id: DatasetId, role: KeyRole, terms: Vec<Term>) -> KeyUse {
        KeyUse {
            op: id,
            role,
            terms,
        }
    }

    /// What identifies a group: the key fields for group_by_key and
    /// reduce_by_key, the whole record for distinct (records that differ in
    /// any field are different).
    fn group_key(
        &self,
        id: DatasetId,
        grouping: bool,
        fields: &[Sym],
    ) -> Result<Vec<Term>, EnumError> {
        if grouping {
            return self.key_terms(id, &fields[..self.program.ops[id].key_fields()]);
        }
        let key = self.key_term(id, &fields[0])?;
        Ok(fields
            .iter()
            .map(scalar)
            .collect::<Option<Vec<&Term>>>()
            .map(|terms| terms.into_iter().cloned().collect())
            // Records with option or list fields are kept apart by their
            // first field only, which is stricter than needed but sound.
            .unwrap_or_else(|| vec![key]))
    }

    /// In a match of two sides that read one source, each side's source
    /// records also go down the other side. A group the path formed on one
    /// side (one record alone, or a fold of exactly k) holds no other
    /// record, so none of the other side's own records may arrive at that
    /// grouping op with the group's key. Where they arrive the way the
    /// group's records did (the same parse, no filter), the match is
    /// infeasible: a user alone in one aggregate and folded with another
    /// event in the other. Variables the arrival introduces stay free,
    /// which only weakens the constraint.
    fn groups_stay_whole(
        &mut self,
        merged: &mut State,
        left: &State,
        right: &State,
    ) -> Result<(), EnumError> {
        for (side, other) in [(left, right), (right, left)] {
            let groups = side.keys.iter().filter(|u| u.role == KeyRole::Group);
            for group in groups {
                let op = &self.program.ops[group.op];
                let grouping = !matches!(op.kind, OpKind::Distinct);
                let input = op.inputs[0];
                let mut reaches = Vec::new();
                let strangers = other.records.iter().filter(|r| !side.records.contains(r));
                for (source, vars) in strangers {
                    let Some(inst) = record_instance(source, vars) else {
                        continue;
                    };
                    for arrival in self.states(input, inst)?.iter() {
                        if arrival.records.len() != 1 || arrival.records[0].1 != *vars {
                            continue;
                        }
                        let key = self.group_key(group.op, grouping, &arrival.fields)?;
                        let same_key = group
                            .terms
                            .iter()
                            .zip(&key)
                            .map(|(a, b)| super::term::eq(a.clone(), b.clone()));
                        reaches.push(merged.condition_of(arrival, same_key));
                    }
                }
                if !reaches.is_empty() {
                    merged.assume(not(or(reaches)));
                }
            }
        }
        Ok(())
    }

    /// Constrains `unmatched`, a record with no match on the other side
    /// of join `id`, which reads a source this side reads too: its own
    /// source records also go down `other_side`. Enumerated there under
    /// each record's name, every way some of them arrive gives a key; none
    /// may arrive with this record's key. A condition the record already
    /// has is left out of the disjunction, so a side that every record
    /// reaches unchanged (no filter, a key from the shared parse) makes the
    /// record infeasible outright: the `left-only` paths of a source joined
    /// with an aggregate of itself. Variables the other side introduces
    /// stay free, which only weakens the constraint (it never rules out a
    /// record that can occur).
    fn unmatched_on(
        &mut self,
        id: DatasetId,
        unmatched: &mut State,
        other_side: DatasetId,
    ) -> Result<(), EnumError> {
        let mut reaches = Vec::new();
        let records = unmatched.records.clone();
        for (source, vars) in &records {
            let Some(inst) = record_instance(source, vars) else {
                continue;
            };
            for arrived in self.states(other_side, inst)?.iter() {
                let own = !arrived.records.is_empty()
                    && arrived.records.iter().all(|r| records.contains(r));
                if !own {
                    continue;
                }
                let keys = self.program.ops[id].key_fields();
                let same_key = arrived.fields[..keys]
                    .iter()
                    .zip(&unmatched.fields[..keys])
                    .map(|(a, b)| sym_eq(a, b))
                    .collect::<Result<Vec<Term>, _>>()
                    .map_err(|e| self.error(id, e.to_string()))?;
                reaches.push(unmatched.condition_of(arrived, same_key));
            }
        }
        if !reaches.is_empty() {
            unmatched.assume(not(or(reaches)));
        }
        Ok(())
    }

    /// The terms of a key made of several fields.
    fn key_terms(&self, id: DatasetId, syms: &[Sym]) -> Result<Vec<Term>, EnumError> {
        syms.iter().map(|s| self.key_term(id, s)).collect()
    }

    fn key_term(&self, id: DatasetId, sym: &Sym) -> Result<Term, EnumError> {
        scalar(sym)
            .cloned()
            .ok_or_else(|| self.error(id, "keys must be scalars (i64, f64, i1 or !df.str)"))
    }

    fn states(&mut self, id: DatasetId, inst: &str) -> Result<Rc<Vec<State>>, EnumError> {
        if let Some(s) = self.memo.get(&(id, inst.to_string())) {
            return Ok(s.clone());
        }
        let program = self.program;
        let op = &program.ops[id];
        let mut out: Vec<State> = Vec::new();
        match &op.kind {
            OpKind::Source {
                name,
                delimiter,
                int32,
                float32,
                ..
            } => {
                let mut state = State::default();
                let delimiter = (op.fields.len() > 1).then_some(delimiter.as_str());
                let mut vars = Vec::new();
                for (i, ty) in op.fields.iter().enumerate() {
                    let var = source_var(name, inst, i);
                    let field =
                        source_field(&mut state, var.clone(), ty, delimiter).ok_or_else(|| {
                            self.error(
                                id,
                                format!("source field #{i} has type {ty}, which text cannot hold"),
                            )
                        })?;
                    // A Python job's boolean source fields are what a
                    // DataFrame column's presence is: rows with values read
                    // better than rows of NULLs, where the path allows.
                    if program.host == Host::Python && *ty == Ty::Bool {
                        if let Sym::Bool(flag) = &field {
                            state.prefer(flag.clone());
                        }
                    }
                    if let (true, Sym::Int(v)) = (int32.contains(&i), &field) {
                        state.assume(super::term::cmp(
                            ">=",
                            v.clone(),
                            Term::Int(i32::MIN.into()),
                        ));
                        state.assume(super::term::cmp(
                            "<=",
                            v.clone(),
                            Term::Int(i32::MAX.into()),
                        ));
                    }
                    if let (true, Sym::Real(v)) = (float32.contains(&i), &field) {
                        // Quarters below 2^20: a 32-bit float holds them
                        // exactly, so the value read is the value solved.
                        let quarters = app("*", vec![Term::Real(4, 1), v.clone()]);
                        state.assume(app("is_int", vec![quarters]));
                        let bound = Term::Real(1 << 20, 1);
                        state.assume(super::term::cmp("<", v.clone(), bound.clone()));
                        state.assume(super::term::cmp("<", super::term::neg(bound), v.clone()));
                    }
                    state.fields.push(field);
                    vars.push(var);
                }
                state.records.push((name.clone(), vars));
                state.lineage.push(Step::Label(program.op_label(id)));
                out.push(state);
            }
            OpKind::Map { .. } | OpKind::Filter { .. } | OpKind::FlatMap { .. } => {
                let input = self.states(op.inputs[0], inst)?;
                for state in input.iter() {
                    for outcome in self.run_udf(id, state, state.fields.clone(), inst)? {
                        match outcome {
                            UdfOutcome::Failed(s) => self.finish(id, &s, Vec::new())?,
                            UdfOutcome::Returned(s, values) => {
                                self.after_udf(id, s, values, &mut out)?
                            }
                        }
                    }
                }
            }
            OpKind::Reduce { .. } | OpKind::ReduceByKey { .. } => {
                let keyed = matches!(op.kind, OpKind::ReduceByKey { .. });
                if !keyed {
                    // No record reaches the reduce: the job fails. Its
                    // dataset (empty sources at least) has no record to
                    // constrain.
                    let empty = State::default();
                    self.finish(id, &empty, vec![self.label(id, EMPTY_REDUCE)])?;
                }
                // Keyed: the first `keys` fields are the key.
                let keys = if keyed { op.key_fields() } else { 0 };
                for state in self.states(op.inputs[0], inst)?.iter() {
                    let mut s = state.clone();
                    if keyed {
                        let key = self.key_terms(id, &s.fields[..keys])?;
                        s.keys.push(self.key_use(id, KeyRole::Group, key));
                    }
                    s.lineage.push(self.label(id, "single"));
                    out.push(s);
                }
                for tuple in self.tuples(op.inputs[0], inst)? {
                    let (mut merged, fields) = self.merge(id, "fold", &tuple);
                    if keyed {
                        let key = self.key_terms(id, &fields[0][..keys])?;
                        for f in &fields[1..] {
                            let other = self.key_terms(id, &f[..keys])?;
                            for (a, b) in key.iter().zip(other) {
                                merged.assume(super::term::eq(a.clone(), b));
                            }
                        }
                        merged.keys.push(self.key_use(id, KeyRole::Group, key));
                    }
                    let values = |f: &Vec<Sym>| f[keys..].to_vec();
                    // Fold left, forking on every application's UDF paths.
                    let mut partial = vec![(merged, values(&fields[0]))];
                    for f in &fields[1..] {
                        let mut next = Vec::new();
                        for (s, acc) in partial {
                            let mut args = acc;
                            args.extend(values(f));
                            for outcome in self.run_udf(id, &s, args, inst)? {
                                match outcome {
                                    UdfOutcome::Failed(s) => self.finish(id, &s, Vec::new())?,
                                    UdfOutcome::Returned(s, result) => next.push((s, result)),
                                }
                            }
                        }
                        partial = next;
                    }
                    for (mut s, acc) in partial {
                        s.fields = fields[0][..keys].iter().cloned().chain(acc).collect();
                        out.push(s);
                    }
                }
            }
            OpKind::GroupByKey | OpKind::Distinct => {
                let grouping = matches!(op.kind, OpKind::GroupByKey);
                let (single, many) = if grouping {
                    ("single", "group")
                } else {
                    ("unique", "duplicate")
                };
                for state in self.states(op.inputs[0], inst)?.iter() {
                    let mut s = state.clone();
                    let key = self.group_key(id, grouping, &s.fields)?;
                    s.keys.push(self.key_use(id, KeyRole::Group, key));
                    if grouping {
                        s.fields = vec![s.fields[0].clone(), Sym::List(vec![s.fields[1].clone()])];
                    }
                    s.lineage.push(self.label(id, single));
                    out.push(s);
                }
                for tuple in self.tuples(op.inputs[0], inst)? {
                    let (mut merged, fields) = self.merge(id, many, &tuple);
                    for f in &fields[1..] {
                        if grouping {
                            let same = sym_eq(&fields[0][0], &f[0])
                                .map_err(|e| self.error(id, e.to_string()))?;
                            merged.assume(same);
                        } else {
                            for (a, b) in fields[0].iter().zip(f) {
                                let same =
                                    sym_eq(a, b).map_err(|e| self.error(id, e.to_string()))?;
                                merged.assume(same);
                            }
                        }
                    }
                    if grouping {
                        // The interpreter gives a group's values in coco's
                        // fixed order: element j of the list is the j-th
                        // smallest, so the members come in that order.
                        for pair in fields.windows(2) {
                            if let Some(sorted) = sym_le(&pair[0][1], &pair[1][1]) {
                                merged.assume(sorted);
                            }
                        }
                    }
                    let key = self.group_key(id, grouping, &fields[0])?;
                    merged.keys.push(self.key_use(id, KeyRole::Group, key));
                    merged.fields = if grouping {
                        vec![
                            fields[0][0].clone(),
                            Sym::List(fields.iter().map(|f| f[1].clone()).collect()),
                        ]
                    } else {
                        fields[0].clone()
                    };
                    out.push(merged);
                }
            }
            OpKind::Join { kind, .. } => self.join(id, *kind, inst, &mut out)?,
            OpKind::Union => {
                for (side, class) in [(0, "lhs"), (1, "rhs")] {
                    for state in self.states(op.inputs[side], inst)?.iter() {
                        let mut s = state.clone();
                        s.lineage.push(self.label(id, class));
                        out.push(s);
                    }
                }
            }
            OpKind::Sink { .. } => {
                let input = self.states(op.inputs[0], inst)?;
                for state in input.iter() {
                    self.finish(id, state, vec![Step::Label(program.op_label(id))])?;
                }
            }
        }
        let out = Rc::new(out);
        self.memo.insert((id, inst.to_string()), out.clone());
        Ok(out)
    }

    /// Map, filter and flat_map after their UDF returned `values`.
    fn after_udf(
        &mut self,
        id: DatasetId,
        mut s: State,
        values: Vec<Sym>,
        out: &mut Vec<State>,
    ) -> Result<(), EnumError> {
        match &self.program.ops[id].kind {
            OpKind::Map { .. } => {
                s.fields = values;
                out.push(s);
            }
            OpKind::Filter { .. } => {
                let Some(Sym::Bool(keep)) = values.first() else {
                    return Err(self.error(id, "filter UDF must return an i1"));
                };
                for (pass, class) in [(true, "pass"), (false, "drop")] {
                    let cond = if pass {
                        keep.clone()
                    } else {
                        not(keep.clone())
                    };
                    if cond == Term::Bool(false) {
                        continue;
                    }
                    let mut t = s.clone();
                    t.assume(cond);
                    if pass {
                        t.lineage.push(self.label(id, class));
                        out.push(t);
                    } else {
                        self.finish(id, &t, vec![self.label(id, class)])?;
                    }
                }
            }
            // Fields before the list repeat on every element's record.
            OpKind::FlatMap { .. } => match values.split_last() {
                Some((Sym::List(items), repeated)) => {
                    if items.is_empty() {
                        self.finish(id, &s, vec![self.label(id, "empty")])?;
                    }
                    for (j, item) in items.iter().take(self.k).enumerate() {
                        let mut t = s.clone();
                        t.fields = repeated.iter().cloned().chain([item.clone()]).collect();
                        t.lineage.push(self.label(id, &format!("elem{j}")));
                        out.push(t);
                    }
                }
                Some((Sym::Split(list), repeated)) => {
                    // Element j needs j + 1 pieces. A Python split by a
                    // delimiter has at least one; on the JVM, String.split drops the empty
                    // pieces at the end, so the list may be empty, and
                    // element j needs a non-empty piece from j on.
                    // Python's s.split() (at whitespace) has no piece for
                    // a blank string.
                    let lazy = s.splits[*list].rule.lazy_first();
                    let jvm =
                        self.program.host == Host::Jvm && s.splits[*list].rule == PieceRule::Text;
                    if jvm {
                        let mut t = s.clone();
                        let dropped = t.jvm_dropped(*list, 0);
                        t.assume(dropped);
                        self.finish(id, &t, vec![self.label(id, "empty")])?;
                    } else if lazy {
                        let mut t = s.clone();
                        let none = t.at_most(*list, 0);
                        if none != Term::Bool(false) {
                            t.assume(none);
                            self.finish(id, &t, vec![self.label(id, "empty")])?;
                        }
                    }
                    for j in 0..self.k {
                        let mut t = s.clone();
                        t.extend_split(*list, j + 1);
                        if jvm {
                            let kept = t.jvm_kept(*list, j);
                            t.assume(kept);
                        }
                        let piece = Sym::Str(t.splits[*list].pieces[j].clone());
                        t.fields = repeated.iter().cloned().chain([piece]).collect();
                        t.lineage.push(self.label(id, &format!("elem{j}")));
                        out.push(t);
                    }
                }
                Some((Sym::Range { start, stop }, repeated)) => {
                    let empty = cmp("<=", stop.clone(), start.clone());
                    if empty != Term::Bool(false) {
                        let mut t = s.clone();
                        t.assume(empty);
                        self.finish(id, &t, vec![self.label(id, "empty")])?;
                    }
                    for j in 0..self.k {
                        let element = int_op("+", start.clone(), Term::Int(j as i64));
                        let within = cmp("<", element.clone(), stop.clone());
                        if within == Term::Bool(false) {
                            break;
                        }
                        let mut t = s.clone();
                        t.assume(within);
                        t.fields = repeated
                            .iter()
                            .cloned()
                            .chain([Sym::Int(element)])
                            .collect();
                        t.lineage.push(self.label(id, &format!("elem{j}")));
                        out.push(t);
                    }
                }
                _ => return Err(self.error(id, "flat_map UDF must return a list")),
            },
            _ => unreachable!("only map, filter and flat_map run a UDF per record"),
        }
        Ok(())
    }

    fn join(
        &mut self,
        id: DatasetId,
        kind: JoinKind,
        inst: &str,
        out: &mut Vec<State>,
    ) -> Result<(), EnumError> {
        let program = self.program;
        let op = &program.ops[id];
        let (li, ri) = self.side_instances(id, inst);
        let left = self.states(op.inputs[0], &li)?;
        let right = self.states(op.inputs[1], &ri)?;
        // Sides that read a common source: a source record reaches both, so
        // it may match itself. Both sides enumerated under the join's own
        // instance name their records alike: the same records (and a join
        // above that matches this one's records with themselves names
        // them so too). An unmatched record's other side is enumerated
        // under its side's instance: where its own records go there.
        let shares = li != ri;
        let none = || Rc::new(Vec::new());
        let (same_left, same_right) = if shares {
            (
                self.states(op.inputs[0], inst)?,
                self.states(op.inputs[1], inst)?,
            )
        } else {
            (none(), none())
        };
        let keys = op.key_fields();
        let l_width = program.ops[op.inputs[0]].fields.len();
        let l_types = op.fields[keys..l_width].to_vec();
        let r_types = op.fields[l_width..].to_vec();
        let side = |values: Option<&[Sym]>, types: &[coco_dataflow::model::Ty]| -> Vec<Sym> {
            types
                .iter()
                .enumerate()
                .map(|(i, ty)| match values {
                    Some(v) => present(v[i].clone(), ty),
                    None => absent(ty),
                })
                .collect()
        };
        let itself = same_left
            .iter()
            .flat_map(|l| same_right.iter().map(move |r| (l, r, true)));
        let apart = left
            .iter()
            .flat_map(|l| right.iter().map(move |r| (l, r, false)));
        for (l, r, shared) in itself.chain(apart) {
            {
                let (mut merged, fields) =
                    self.merge_sharing(id, "both", &[l.clone(), r.clone()], shared);
                let same = fields[0][..keys]
                    .iter()
                    .zip(&fields[1][..keys])
                    .map(|(a, b)| sym_eq(a, b))
                    .collect::<Result<Vec<Term>, _>>()
                    .map_err(|e| self.error(id, e.to_string()))?;
                if same.contains(&Term::Bool(false)) {
                    continue;
                }
                for same in same {
                    merged.assume(same);
                }
                merged.matched_itself |= shared;
                if shares {
                    self.groups_stay_whole(&mut merged, l, r)?;
                }
                let key = self.key_terms(id, &fields[0][..keys])?;
                merged.keys.push(self.key_use(id, KeyRole::Both, key));
                let mut record = fields[0][..keys].to_vec();
                record.extend(side(Some(&fields[0][keys..]), &l_types));
                record.extend(side(Some(&fields[1][keys..]), &r_types));
                merged.fields = record;
                out.push(merged);
            }
        }
        for (states, class, keeps) in [
            (&left, "left-only", kind.keeps_left_only()),
            (&right, "right-only", kind.keeps_right_only()),
        ] {
            for s in states.iter() {
                let mut s = s.clone();
                let key = self.key_terms(id, &s.fields[..keys])?;
                let role = if class == "left-only" {
                    KeyRole::LeftOnly
                } else {
                    KeyRole::RightOnly
                };
                s.keys.push(self.key_use(id, role, key));
                if shares {
                    let other_side = op.inputs[usize::from(class == "left-only")];
                    self.unmatched_on(id, &mut s, other_side)?;
                }
                if keeps {
                    let values = s.fields[keys..].to_vec();
                    let mut record = s.fields[..keys].to_vec();
                    if class == "left-only" {
                        record.extend(side(Some(&values), &l_types));
                        record.extend(side(None, &r_types));
                    } else {
                        record.extend(side(None, &l_types));
                        record.extend(side(Some(&values), &r_types));
                    }
                    s.fields = record;
                    s.lineage.push(self.label(id, class));
                    out.push(s);
                } else {
                    self.finish(id, &s, vec![self.label(id, class)])?;
                }
            }
        }
        Ok(())
    }
}

/// The variable of field `i` of a record of source `name` at instance
/// `inst`: a path's records are named by where the enumeration met them.
fn source_var(name: &str, inst: &str, i: usize) -> String {
    format!("{name}{inst}.f{i}")
}

/// The instance a record of source `name` with field variables `vars` was
/// enumerated at (the inverse of [`source_var`]).
fn record_instance<'v>(name: &str, vars: &'v [String]) -> Option<&'v str> {
    vars.first()?.strip_prefix(name)?.strip_suffix(".f0")
}
