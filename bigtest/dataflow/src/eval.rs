//! The UDF evaluator, generic over its value domain: the interpreter runs it
//! on concrete values, BigTest's symbolic executor on terms. Both therefore
//! walk UDFs the same way and name the same decision points, which is what
//! lets a concrete run say which enumerated JDU path each record followed.

use std::collections::BTreeMap;

use crate::model::{Cmp, Const, Op, Region, Udf, UdfOp, ValueId};

/// Why evaluation of a path stopped before returning.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// The real program fails here (`reason` is for people: "division by
    /// zero"). The evaluator has recorded the decision in the trace.
    Fail(String),
    /// The symbolic executor's exploration bound (loop unrolling) was hit;
    /// the path is not enumerated.
    Cut,
    /// A construct the domain cannot evaluate.
    Error(String),
    /// The evaluation ran out of fuel: `@udf` ran more operations on one
    /// call than the evaluator's limit (the payload).
    OutOfFuel { udf: String, fuel: u64 },
}

/// A value domain: how to compute and how to decide.
pub trait Domain {
    type V: Clone;

    fn constant(&mut self, value: &Const) -> Result<Self::V, Stop>;

    /// Evaluates a value op (`kind` is never control flow or a call). A
    /// partial op that fails returns [`Stop::Fail`]; `point` names the op
    /// (`@parse:to_int#3`) for domains that must record the decision.
    fn apply(&mut self, kind: &UdfOp, point: &str, args: &[Self::V]) -> Result<Self::V, Stop>;

    /// Decides a branch on an `i1` value at decision point `point`.
    fn decide(&mut self, cond: &Self::V, point: &str) -> Result<bool, Stop>;

    /// Whether `cond` is a known constant, so deciding it does not fork.
    fn is_constant(&self, cond: &Self::V) -> bool;

    /// Whether an option value is present, where that is known (always in
    /// the concrete domain; a constant on each side of a total op's fork in
    /// the symbolic one).
    fn presence(&self, value: &Self::V) -> Option<bool>;

    /// How often a loop may take a non-constant decision to run its body
    /// again on one path; `None` for no bound. Loops whose trip count is a
    /// constant unroll fully (within the fuel).
    fn loop_bound(&self) -> Option<usize>;

    /// Non-constant decisions taken so far on this path, by branches and
    /// by ops that fork (a `df.get_at` past the pieces known): a loop
    /// whose header forks in an op counts its trips like one that forks
    /// in a `cf.cond_br`.
    fn decisions_taken(&self) -> usize {
        0
    }
}

/// Operations one evaluation may execute before it is declared runaway,
/// unless the evaluator is made [`Evaluator::with_fuel`].
pub const FUEL: u64 = 1_000_000;
/// Nested calls one evaluation may make.
const MAX_DEPTH: usize = 32;

/// Evaluates UDFs of one program. `trace` collects the decisions taken, in
/// order: `@f:if#3=then`, `@f:for#5=iter`, `@f:to_int#2=fail`,
/// `@f:raise#7=fail`, and for the total forms of partial ops
/// `@f:to_int#2=absent` / `=present`.
pub struct Evaluator<'p, D: Domain> {
    udfs: &'p BTreeMap<String, Udf>,
    pub domain: D,
    pub trace: Vec<String>,
    /// The op whose failure stopped the last [`Evaluator::run`], if one
    /// did: what the host raises follows from it
    /// ([`crate::host::python_exception`]).
    pub failed: Option<UdfOp>,
    fuel: u64,
    limit: u64,
    depth: usize,
}

impl<'p, D: Domain> Evaluator<'p, D> {
    pub fn new(udfs: &'p BTreeMap<String, Udf>, domain: D) -> Self {
        Self::with_fuel(udfs, domain, FUEL)
    }

    /// An evaluator that runs at most `fuel` operations per call.
    pub fn with_fuel(udfs: &'p BTreeMap<String, Udf>, domain: D, fuel: u64) -> Self {
        Evaluator {
            udfs,
            domain,
            trace: Vec::new(),
            failed: None,
            fuel,
            limit: fuel,
            depth: 0,
        }
    }

    /// Calls UDF `name` on `args`; clears the trace first.
    pub fn run(&mut self, name: &str, args: Vec<D::V>) -> Result<Vec<D::V>, Stop> {
        self.trace.clear();
        self.failed = None;
        self.fuel = self.limit;
        self.depth = 0;
        self.call(name, args)
    }

    fn call(&mut self, name: &str, args: Vec<D::V>) -> Result<Vec<D::V>, Stop> {
        let udfs = self.udfs;
        let Some(udf) = udfs.get(name) else {
            return Err(Stop::Error(format!("call to unknown function @{name}")));
        };
        if self.depth >= MAX_DEPTH {
            return Err(Stop::Error(format!(
                "calls nest deeper than {MAX_DEPTH} at @{name}; recursion is not supported"
            )));
        }
        if args.len() != udf.params.len() {
            return Err(Stop::Error(format!(
                "@{name} takes {} arguments, given {}",
                udf.params.len(),
                args.len()
            )));
        }
        self.depth += 1;
        let mut env: Vec<Option<D::V>> = vec![None; udf.values];
        let result = self.region(udf, &udf.body, args, &mut env);
        self.depth -= 1;
        result
    }

    fn get(env: &[Option<D::V>], udf: &Udf, id: ValueId) -> Result<D::V, Stop> {
        env.get(id).cloned().flatten().ok_or_else(|| {
            Stop::Error(format!(
                "@{}: value %{id} used before it is defined",
                udf.name
            ))
        })
    }

    fn operands(env: &[Option<D::V>], udf: &Udf, ids: &[ValueId]) -> Result<Vec<D::V>, Stop> {
        ids.iter().map(|&id| Self::get(env, udf, id)).collect()
    }

    /// Runs a region from its entry block; returns what its terminator
    /// returns or yields.
    fn region(
        &mut self,
        udf: &Udf,
        region: &Region,
        args: Vec<D::V>,
        env: &mut Vec<Option<D::V>>,
    ) -> Result<Vec<D::V>, Stop> {
        // Re-entries of each block that followed a non-constant decision,
        // and the decision count at its last entry: a cf loop whose
        // decisions all fold to constants unrolls fully, as a
        // constant-bound scf.for does.
        let mut visits = vec![0usize; region.blocks.len()];
        let mut forks_at_entry = vec![None; region.blocks.len()];
        let mut block = 0;
        let mut args = args;
        loop {
            let Some(current) = region.blocks.get(block) else {
                return Err(Stop::Error(format!(
                    "@{}: branch to a missing block",
                    udf.name
                )));
            };
            let forks = self.domain.decisions_taken();
            if forks_at_entry[block] != Some(forks) {
                visits[block] += 1;
                forks_at_entry[block] = Some(forks);
            }
            if let Some(bound) = self.domain.loop_bound() {
                // Entering a block again is one more trip round a cf loop.
                if visits[block] > bound + 1 {
                    return Err(Stop::Cut);
                }
            }
            for (&id, value) in current.args.iter().zip(args.drain(..)) {
                env[id] = Some(value);
            }
            let mut next = None;
            for op in &current.ops {
                if self.fuel == 0 {
                    return Err(Stop::OutOfFuel {
                        udf: udf.name.clone(),
                        fuel: self.limit,
                    });
                }
                self.fuel -= 1;
                match &op.kind {
                    UdfOp::Return | UdfOp::Yield => {
                        return Self::operands(env, udf, &op.operands);
                    }
                    UdfOp::Raise { exception, message } => {
                        self.trace
                            .push(format!("@{}:raise#{}=fail", udf.name, op.id));
                        self.failed = Some(op.kind.clone());
                        return Err(Stop::Fail(match message {
                            Some(message) => format!("{exception}: {message}"),
                            None => exception.clone(),
                        }));
                    }
                    UdfOp::Br { dest } => {
                        next = Some((*dest, Self::operands(env, udf, &op.operands)?));
                        break;
                    }
                    UdfOp::CondBr {
                        true_dest,
                        false_dest,
                        true_args,
                    } => {
                        let cond = Self::get(env, udf, op.operands[0])?;
                        let point = format!("@{}:cond_br#{}", udf.name, op.id);
                        let taken = self.domain.decide(&cond, &point)?;
                        self.trace.push(format!("{point}={taken}"));
                        let (dest, range) = if taken {
                            (*true_dest, 1..1 + true_args)
                        } else {
                            (*false_dest, 1 + true_args..op.operands.len())
                        };
                        next = Some((dest, Self::operands(env, udf, &op.operands[range])?));
                        break;
                    }
                    _ => self.op(udf, op, env)?,
                }
            }
            match next {
                Some((dest, values)) => {
                    block = dest;
                    args = values;
                }
                None => {
                    return Err(Stop::Error(format!(
                        "@{}: a block ends without a terminator",
                        udf.name
                    )))
                }
            }
        }
    }

    fn op(&mut self, udf: &Udf, op: &Op, env: &mut Vec<Option<D::V>>) -> Result<(), Stop> {
        let results: Vec<D::V> = match &op.kind {
            UdfOp::Const(value) => vec![self.domain.constant(value)?],
            UdfOp::Call { callee } => {
                let args = Self::operands(env, udf, &op.operands)?;
                self.call(callee, args)?
            }
            UdfOp::If => {
                let cond = Self::get(env, udf, op.operands[0])?;
                let point = format!("@{}:if#{}", udf.name, op.id);
                let taken = self.domain.decide(&cond, &point)?;
                self.trace
                    .push(format!("{point}={}", if taken { "then" } else { "else" }));
                let region = &op.regions[usize::from(!taken)];
                if region.blocks.is_empty() {
                    Vec::new()
                } else {
                    self.region(udf, region, Vec::new(), env)?
                }
            }
            UdfOp::For => self.for_loop(udf, op, env)?,
            kind => {
                let args = Self::operands(env, udf, &op.operands)?;
                let point = format!("@{}:{}#{}", udf.name, kind.name(), op.id);
                match self.domain.apply(kind, &point, &args) {
                    Ok(value) => {
                        if kind.is_checked() {
                            if let Some(present) = self.domain.presence(&value) {
                                let side = if present { "present" } else { "absent" };
                                self.trace.push(format!("{point}={side}"));
                            }
                        }
                        vec![value]
                    }
                    Err(Stop::Fail(reason)) => {
                        self.trace.push(format!("{point}=fail"));
                        self.failed = Some(kind.clone());
                        return Err(Stop::Fail(reason));
                    }
                    Err(other) => return Err(other),
                }
            }
        };
        if results.len() != op.results.len() {
            return Err(Stop::Error(format!(
                "@{}: {} produced {} values for {} results",
                udf.name,
                op.kind.name(),
                results.len(),
                op.results.len()
            )));
        }
        for (&id, value) in op.results.iter().zip(results) {
            env[id] = Some(value);
        }
        Ok(())
    }

    fn for_loop(
        &mut self,
        udf: &Udf,
        op: &Op,
        env: &mut Vec<Option<D::V>>,
    ) -> Result<Vec<D::V>, Stop> {
        let operands = Self::operands(env, udf, &op.operands)?;
        let (bounds, inits) = operands.split_at(3);
        let (upper, step) = (&bounds[1], &bounds[2]);
        let mut iv = bounds[0].clone();
        let mut carried = inits.to_vec();
        let point = format!("@{}:for#{}", udf.name, op.id);
        let lt = UdfOp::CmpInt(Cmp::Lt);
        let add = UdfOp::IntBin(crate::model::IntBinOp::Add);
        let mut trips = 0;
        loop {
            let more = self
                .domain
                .apply(&lt, &point, &[iv.clone(), upper.clone()])?;
            let forked = !self.domain.is_constant(&more);
            let taken = self.domain.decide(&more, &point)?;
            self.trace
                .push(format!("{point}={}", if taken { "iter" } else { "exit" }));
            if !taken {
                return Ok(carried);
            }
            if forked {
                trips += 1;
            }
            if self.domain.loop_bound().is_some_and(|bound| trips > bound) {
                return Err(Stop::Cut);
            }
            let mut args = vec![iv.clone()];
            args.extend(carried);
            carried = self.region(udf, &op.regions[0], args, env)?;
            iv = self.domain.apply(&add, &point, &[iv, step.clone()])?;
        }
    }
}
