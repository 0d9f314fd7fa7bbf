//! What the reference interpreter may spend, checked before it is spent.
//!
//! - **Memory.** The interpreter holds every element as 8 bytes (an `f64`
//!   or an `i64`), once per rank that holds it. Before an op runs, the
//!   values alive at that point (the function's live set, values in flight
//!   between pipeline stages, the host's inputs and outputs), the op's
//!   operands and its results must fit the memory limit of
//!   [`coco_base::memory`]; otherwise the op is named in an error. Checking
//!   inputs alone let a 2.5 GiB intermediate abort the process under an
//!   8 GiB `ulimit -v`.
//! - **Work.** The element operations of the whole program are estimated
//!   from its types before anything runs (a matmul costs `m·n·k` a rank,
//!   other ops one per element they read or write) and must stay under
//!   [`WORK_LIMIT_ENV`]: a paper-scale program that would take the
//!   interpreter hours is refused in milliseconds, naming its costliest op.
//!   The estimate is exact in the dimensions that matter (it follows the
//!   types, and the interpreter has no loops), not in the constant factor.

use coco_base::memory::MemoryLimit;
use coco_dialects::{
    coco::{ops as coco_ops, Mesh},
    ir::{as_op, location_text, nested_ops, op_name},
};
use melior::ir::{Operation, Type, ValueLike};

use crate::{
    error::{Error, Result},
    exec::local_type,
    tensor::Tensor,
};

/// The variable that sets the work limit, in element operations.
pub const WORK_LIMIT_ENV: &str = "COCO_MAX_INTERP_WORK";

/// The default work limit: about six minutes of the interpreter on one core
/// of the CI machine (1.3e8 element operations a second, docs/reliability.md):
/// Adam at 64M parameters on 4 ranks fits, the hours a paper-scale layer
/// would take do not.
pub const DEFAULT_WORK_LIMIT: u64 = 50_000_000_000;

/// Bytes the interpreter holds for one element.
const ELEMENT_BYTES: u64 = 8;

/// The work limit, and where it came from (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkLimit {
    pub operations: u64,
    pub source: String,
}

impl WorkLimit {
    /// From `$COCO_MAX_INTERP_WORK`, else the default.
    pub fn from_env() -> Result<WorkLimit> {
        WorkLimit::parse(std::env::var(WORK_LIMIT_ENV).ok().as_deref())
    }

    pub fn parse(value: Option<&str>) -> Result<WorkLimit> {
        match value {
            Some(text) => {
                let operations = text.trim().parse::<u64>().map_err(|_| {
                    Error::Program(format!(
                        "{WORK_LIMIT_ENV}='{text}' is not a number of element operations"
                    ))
                })?;
                Ok(WorkLimit {
                    operations,
                    source: format!("{WORK_LIMIT_ENV}={text}"),
                })
            }
            None => Ok(WorkLimit {
                operations: DEFAULT_WORK_LIMIT,
                source: format!("the default; set {WORK_LIMIT_ENV} to change it"),
            }),
        }
    }
}

/// Both limits of one interpreter run.
#[derive(Clone, Debug)]
pub struct Limits {
    pub memory: MemoryLimit,
    pub work: WorkLimit,
}

impl Limits {
    /// `COCO_MAX_MEMORY_BYTES` (lowered to what the process can get) and
    /// `COCO_MAX_INTERP_WORK`, or their defaults.
    pub fn from_env() -> Result<Limits> {
        Ok(Limits {
            memory: MemoryLimit::from_env().map_err(Error::Program)?,
            work: WorkLimit::from_env()?,
        })
    }
}

/// Bytes the interpreter holds for `elements` elements.
pub fn bytes_of(elements: u64) -> u64 {
    elements.saturating_mul(ELEMENT_BYTES)
}

/// Bytes the interpreter holds for one value on every rank.
pub fn value_bytes(parts: &[Tensor]) -> u64 {
    parts
        .iter()
        .fold(0u64, |n, t| n.saturating_add(bytes_of(t.len() as u64)))
}

/// The memory the interpreter's values take, against the limit.
#[derive(Clone, Debug)]
pub struct MemoryAccount {
    limit: MemoryLimit,
    /// Bytes of values alive now: the host's inputs and outputs, the running
    /// function's live set, values sent and not yet received.
    held: u64,
}

impl MemoryAccount {
    pub fn new(limit: MemoryLimit) -> MemoryAccount {
        MemoryAccount { limit, held: 0 }
    }

    pub fn held(&self) -> u64 {
        self.held
    }

    pub fn add(&mut self, bytes: u64) {
        self.held = self.held.saturating_add(bytes);
    }

    pub fn release(&mut self, bytes: u64) {
        self.held = self.held.saturating_sub(bytes);
    }

    /// Checks that `bytes` more fit beside what is held; `what` says who
    /// asks (an op and its location, an input).
    pub fn check(&self, what: &str, bytes: u64) -> Result<()> {
        let total = self.held.saturating_add(bytes);
        if total > self.limit.bytes {
            return Err(Error::OverMemory {
                what: what.to_string(),
                bytes,
                total,
                limit: self.limit.bytes,
                set_by: self.limit.source.clone(),
            });
        }
        Ok(())
    }
}

/// The elements of a value of type `ty` on one rank of `mesh` (0 where
/// its type says nothing: the run reports those).
fn local_elements(ty: Type, mesh: &Mesh) -> u64 {
    match local_type(ty, mesh, "") {
        Ok((_, shape, _)) => shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
            .unwrap_or(u64::MAX),
        Err(_) => 0,
    }
}

/// The element operations of `op` on the ranks of `mesh`: one per element
/// each rank reads or writes, and `m·n·k` for a matmul's local `m×k · k×n`.
/// Ops with regions cost what their bodies cost.
pub fn op_work(op: &Operation, mesh: &Mesh) -> u64 {
    let name = op_name(op);
    if op.regions().next().is_some() || name == "func.return" || name == coco_ops::YIELD {
        return 0;
    }
    let results: u64 = op
        .results()
        .map(|r| local_elements(r.r#type(), mesh))
        .fold(0, u64::saturating_add);
    let per_rank = if name == coco_ops::MATMUL {
        let k = op
            .operand(0)
            .ok()
            .and_then(|a| local_type(a.r#type(), mesh, "").ok())
            .and_then(|(_, shape, _)| shape.last().copied())
            .unwrap_or(1) as u64;
        results.saturating_mul(k.max(1))
    } else {
        op.operands()
            .map(|v| local_elements(v.r#type(), mesh))
            .fold(results, u64::saturating_add)
    };
    per_rank.saturating_mul(mesh.size() as u64)
}

/// Checks the work of running `functions` (each on its group's ranks, as
/// a mesh) against `limit`, before any of it is done.
pub fn check_work(functions: &[(&Operation, Mesh)], limit: &WorkLimit) -> Result<()> {
    let mut total: u64 = 0;
    let mut costliest: Option<(u64, String)> = None;
    for (function, mesh) in functions {
        for op_ref in nested_ops(function) {
            let op = as_op(&op_ref);
            let work = op_work(op, mesh);
            total = total.saturating_add(work);
            if costliest.as_ref().is_none_or(|(w, _)| work > *w) {
                costliest = Some((
                    work,
                    format!("'{}' at {}", op_name(op), location_text(op.location())),
                ));
            }
        }
    }
    if total > limit.operations {
        let (work, op) = costliest.unwrap_or_default();
        return Err(Error::OverWork {
            total,
            op,
            work,
            limit: limit.operations,
            set_by: limit.source.clone(),
        });
    }
    Ok(())
}
