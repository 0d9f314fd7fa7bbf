//! Checks of a plan beyond `Plan::validate`, made by every rank before it
//! allocates or communicates anything, for what would otherwise fail deep
//! inside MPI, corrupt memory, or hang:
//!
//! - each collective's buffers fit it (element types, shapes, dimensions,
//!   divisibility by the stage size);
//! - each `wait_event` follows a `record_event` of the same event;
//! - sends and receives pair up: the k-th send from stage A to stage B
//!   matches the k-th receive in B from A (same element type and size),
//!   every send is received, and the stages cannot deadlock. Sends are
//!   queued (they never wait for their receive), so a simulation that runs
//!   each stage until it reaches a receive whose value has not been sent yet
//!   decides this exactly.
//!
//! The checks depend only on the plan, so every rank of a stage reaches the
//! same verdict.

use std::collections::{BTreeMap, HashSet, VecDeque};

use coco_bundle::{Buffer, Plan, Stage, Step};

use crate::error::{Error, Result};

fn buffer<'a>(stage: &'a Stage, name: &str) -> &'a Buffer {
    stage
        .buffers
        .iter()
        .find(|b| b.name == name)
        .expect("validated plan")
}

fn describe(b: &Buffer) -> String {
    let dims: Vec<String> = b.shape.iter().map(usize::to_string).collect();
    format!("'{}' ({}[{}])", b.name, b.dtype, dims.join(", "))
}

/// `input` and `output` of a collective: same element type, and sizes or
/// shapes as `shapes_fit` says.
fn check_pair(
    stage: &Stage,
    input: &str,
    output: &str,
    shapes_fit: impl Fn(&[usize], &[usize]) -> std::result::Result<(), String>,
) -> std::result::Result<(), String> {
    let (i, o) = (buffer(stage, input), buffer(stage, output));
    if i.dtype != o.dtype {
        return Err(format!(
            "input {} and output {} differ in element type",
            describe(i),
            describe(o)
        ));
    }
    shapes_fit(&i.shape, &o.shape)
        .map_err(|why| format!("input {} and output {}: {why}", describe(i), describe(o)))
}

fn same_size(i: &[usize], o: &[usize]) -> std::result::Result<(), String> {
    if i.iter().product::<usize>() == o.iter().product::<usize>() {
        Ok(())
    } else {
        Err("sizes differ".into())
    }
}

/// The input shape `i`, once `dim` (the step's `what`) is checked to be one
/// of its dimensions.
fn dim_of(i: &[usize], dim: usize, what: &str) -> std::result::Result<Vec<usize>, String> {
    if dim >= i.len() {
        return Err(format!("{what} {dim} is not a dimension of the input"));
    }
    Ok(i.to_vec())
}

fn check_collective(stage: &Stage, step: &Step) -> std::result::Result<(), String> {
    // The ranks it spans: its axis's (a validated plan names only axes the
    // stage has), or the whole stage's.
    let size = stage.axis_size(step.axis()).unwrap_or(stage.size);
    match step {
        Step::AllReduce { input, output, .. }
        | Step::Broadcast { input, output, .. }
        | Step::Reduce { input, output, .. }
        | Step::Copy { input, output, .. } => check_pair(stage, input, output, same_size),
        Step::ReduceScatter {
            input, output, dim, ..
        } => check_pair(stage, input, output, |i, o| {
            let mut expected = dim_of(i, *dim, "dim")?;
            if expected[*dim] % size != 0 {
                return Err(format!(
                    "dimension {dim} ({}) does not split over {size} ranks",
                    expected[*dim]
                ));
            }
            expected[*dim] /= size;
            expect_shape(o, &expected)
        }),
        Step::AllGather {
            input, output, dim, ..
        } => check_pair(stage, input, output, |i, o| {
            let mut expected = dim_of(i, *dim, "dim")?;
            expected[*dim] = gathered(expected[*dim], size)?;
            expect_shape(o, &expected)
        }),
        Step::AllToAll {
            input,
            output,
            split_dim,
            concat_dim,
            ..
        } => check_pair(stage, input, output, |i, o| {
            let mut expected = dim_of(i, *split_dim, "split_dim")?;
            dim_of(i, *concat_dim, "concat_dim")?;
            if expected[*split_dim] % size != 0 {
                return Err(format!(
                    "split dimension {split_dim} ({}) does not split over {size} ranks",
                    expected[*split_dim]
                ));
            }
            expected[*split_dim] /= size;
            expected[*concat_dim] = gathered(expected[*concat_dim], size)?;
            expect_shape(o, &expected)
        }),
        _ => Ok(()),
    }
}

/// A dimension of `rows` on each of `size` ranks, concatenated.
fn gathered(rows: usize, size: usize) -> std::result::Result<usize, String> {
    rows.checked_mul(size)
        .ok_or_else(|| format!("{rows} rows on each of {size} ranks overflow"))
}

fn expect_shape(o: &[usize], expected: &[usize]) -> std::result::Result<(), String> {
    if o == expected {
        Ok(())
    } else {
        Err(format!("the output should have shape {expected:?}"))
    }
}

/// Checks stage `index` of `plan` (and how every stage's sends and receives
/// pair up).
pub fn check(plan: &Plan, index: usize) -> Result<()> {
    let stage = &plan.stages[index];
    let mut recorded = HashSet::new();
    for (i, step) in stage.steps.iter().enumerate() {
        let fail =
            |message: String| Error::Plan(format!("{}: {message}", plan.step_context(index, i)));
        check_collective(stage, step).map_err(fail)?;
        match step {
            Step::RecordEvent { event, .. } => {
                recorded.insert(event.as_str());
            }
            Step::WaitEvent { event, .. } if !recorded.contains(event.as_str()) => {
                return Err(fail(format!(
                    "waits for event '{event}', which no earlier step records"
                )));
            }
            _ => {}
        }
    }
    check_point_to_point(plan)
}

/// A value sent and not yet received: where it was sent and its buffer.
struct InFlight<'a> {
    step: usize,
    buffer: &'a Buffer,
}

fn check_point_to_point(plan: &Plan) -> Result<()> {
    let stages = &plan.stages;
    if !stages
        .iter()
        .flat_map(|s| &s.steps)
        .any(|s| matches!(s, Step::Send { .. } | Step::Recv { .. }))
    {
        return Ok(());
    }
    let mut next = vec![0usize; stages.len()];
    let mut queues: BTreeMap<(usize, usize), VecDeque<InFlight>> = BTreeMap::new();
    loop {
        let mut progress = false;
        for (s, stage) in stages.iter().enumerate() {
            while let Some(step) = stage.steps.get(next[s]) {
                match step {
                    Step::Send {
                        input, peer_stage, ..
                    } => queues
                        .entry((s, *peer_stage))
                        .or_default()
                        .push_back(InFlight {
                            step: next[s],
                            buffer: buffer(stage, input),
                        }),
                    Step::Recv {
                        output, peer_stage, ..
                    } => {
                        let Some(sent) = queues
                            .get_mut(&(*peer_stage, s))
                            .and_then(VecDeque::pop_front)
                        else {
                            break;
                        };
                        let received = buffer(stage, output);
                        if sent.buffer.dtype != received.dtype
                            || sent.buffer.len() != received.len()
                        {
                            return Err(Error::Plan(format!(
                                "{} receives {} from {}, which sends {}",
                                plan.step_context(s, next[s]),
                                describe(received),
                                plan.step_context(*peer_stage, sent.step),
                                describe(sent.buffer)
                            )));
                        }
                    }
                    _ => {}
                }
                next[s] += 1;
                progress = true;
            }
        }
        if next.iter().zip(stages).all(|(&n, s)| n == s.steps.len()) {
            break;
        }
        if !progress {
            let stuck: Vec<String> = next
                .iter()
                .enumerate()
                .filter(|&(s, &n)| n < stages[s].steps.len())
                .map(|(s, &n)| plan.step_context(s, n))
                .collect();
            return Err(Error::Plan(format!(
                "the stages deadlock: {} wait(s) for a value never sent before it",
                stuck.join(" and ")
            )));
        }
    }
    for ((from, to), queue) in queues {
        if let Some(sent) = queue.front() {
            return Err(Error::Plan(format!(
                "{} sends {} to stage {to}, which never receives it",
                plan.step_context(from, sent.step),
                describe(sent.buffer)
            )));
        }
    }
    Ok(())
}
