//! One rank's run of a bundle, independent of the backend: load and check
//! the plan, match it to the job, set up the stage's communicator, fill the
//! inputs, run the steps in plan order, write the outputs.
//!
//! Communicators: the world is split by stage (color = stage index, key =
//! position), so a stage's collectives run over exactly its ranks at their
//! positions; sends and receives between stages use a duplicate of the world,
//! so they can never match traffic of anything else. Both are created only
//! after the plan checks pass, and each is created by every rank (the plan
//! is the same everywhere), as MPI requires. A stage on a mesh splits its
//! communicator once more per axis, for the collectives over that axis.

use std::{path::Path, time::Instant};

use coco_bundle::Plan;

use crate::{
    check,
    comm::Comm,
    cpu::{Cpu, StepContext},
    cuda::Cuda,
    error::{Error, Result},
    io, limits,
    report::Report,
    BackendKind, Options,
};

/// The backend a rank runs its stage on.
enum Backend {
    Cpu(Cpu),
    Cuda(Box<Cuda>),
}

impl Backend {
    fn upload(&mut self, name: &str, data: &[u8]) -> Result<()> {
        match self {
            Backend::Cpu(cpu) => {
                cpu.upload(name, data);
                Ok(())
            }
            Backend::Cuda(cuda) => cuda.upload(name, data),
        }
    }

    fn download(&self, name: &str) -> Result<Vec<u8>> {
        match self {
            Backend::Cpu(cpu) => Ok(cpu.download(name)),
            Backend::Cuda(cuda) => cuda.download(name),
        }
    }

    /// Runs step `index` of the stage (`step`).
    fn run(&mut self, step: &coco_bundle::Step, index: usize, cx: &StepContext) -> Result<u64> {
        match self {
            Backend::Cpu(cpu) => cpu.run(step, index, cx),
            Backend::Cuda(cuda) => cuda.run(step, index),
        }
    }

    /// The most send buffers held at once (the CUDA backend's sends
    /// reuse device buffers of their own).
    fn send_buffers_peak(&self) -> usize {
        match self {
            Backend::Cpu(cpu) => cpu.send_buffers_peak(),
            Backend::Cuda(_) => 0,
        }
    }

    fn finish(&mut self) -> Result<()> {
        match self {
            Backend::Cpu(cpu) => cpu.finish(),
            Backend::Cuda(cuda) => cuda.finish(),
        }
    }

    /// Releases what other ranks share, once the outputs are written.
    fn close(&mut self) -> Result<()> {
        match self {
            Backend::Cpu(cpu) => cpu.close(),
            Backend::Cuda(cuda) => cuda.close(),
        }
    }
}

pub(crate) fn run(
    world: &Comm,
    bundle: &Path,
    inputs: &Path,
    outputs: Option<&Path>,
    options: &Options,
) -> Result<Report> {
    let start = Instant::now();
    let plan = Plan::load(bundle)?;
    if let Some(ranks) = options.ranks {
        if ranks != plan.ranks {
            return Err(Error::World(format!(
                "--ranks {ranks} does not match the bundle, which was compiled for {} ranks",
                plan.ranks
            )));
        }
    }
    if world.size() != plan.ranks {
        let hint = if world.size() == 1 {
            " (run coco-exec without a launcher and it starts mpirun itself, or use \
             mpirun -n N)"
        } else {
            ""
        };
        return Err(Error::World(format!(
            "the bundle was compiled for {} ranks, this job has {}{hint}",
            plan.ranks,
            world.size()
        )));
    }
    let rank = world.rank();
    let (stage_index, position) = plan.stage_of(rank).ok_or_else(|| {
        Error::Internal(format!("rank {rank} is in no stage of a validated plan"))
    })?;
    let stage = &plan.stages[stage_index];
    check::check(&plan, stage_index)?;
    limits::check_stage(&limits::from_env()?, &plan, stage_index)?;

    let stage_comm = world.split(stage_index, position)?;
    if (stage_comm.rank(), stage_comm.size()) != (position, stage.size) {
        return Err(Error::Internal(format!(
            "the communicator of stage {stage_index} has rank {} of {}, expected {position} of {}",
            stage_comm.rank(),
            stage_comm.size(),
            stage.size
        )));
    }
    // One communicator per mesh axis: the ranks that share every other
    // coordinate, ordered along the axis.
    let axes = stage
        .mesh
        .iter()
        .enumerate()
        .map(|(a, _)| {
            let (color, key) = stage.axis_split(a, position);
            stage_comm.split(color, key)
        })
        .collect::<Result<Vec<Comm>>>()?;
    let p2p = world.dup()?;
    let mut cpu = match options.backend {
        BackendKind::Cpu => Backend::Cpu(Cpu::new(
            bundle,
            &plan,
            stage,
            position,
            &stage_comm,
            options.ranks_per_node,
        )?),
        BackendKind::Cuda if !stage.mesh.is_empty() => {
            return Err(Error::Plan(format!(
                "stage {stage_index} (@{}) runs on a device mesh, whose per-axis NCCL communicators the CUDA backend does not create yet; run it with --backend cpu",
                stage.function
            )))
        }
        BackendKind::Cuda => Backend::Cuda(Box::new(Cuda::new(
            bundle,
            &plan,
            stage_index,
            position,
            &stage_comm,
            &p2p,
            options.ranks_per_node,
        )?)),
    };
    let mut report = Report::new(rank, world.size(), stage_index, position);
    report.one_stage = plan.stages.len() == 1;
    report.setup_seconds = start.elapsed().as_secs_f64();

    let start = Instant::now();
    for buffer in &stage.buffers {
        if let Some(input) = &buffer.input {
            let data = io::read_input(inputs, buffer, input, stage, position)?;
            cpu.upload(&buffer.name, &data)?;
        }
    }
    report.inputs_seconds = start.elapsed().as_secs_f64();

    let cx = StepContext {
        plan: &plan,
        stage,
        stage_comm: &stage_comm,
        axes: &axes,
        p2p: &p2p,
        reductions: options.reductions,
    };
    // Every rank starts the timed steps together.
    world.barrier()?;
    let start = Instant::now();
    let iterations = options.repeat.max(1);
    for _ in 0..iterations {
        for (index, step) in stage.steps.iter().enumerate() {
            let began = Instant::now();
            let moved = cpu.run(step, index, &cx).map_err(|e| Error::Step {
                at: plan.step_context(stage_index, index),
                source: Box::new(e),
            })?;
            let seconds = began.elapsed().as_secs_f64();
            report.record(step.op(), seconds, moved);
            report.record_step(index, || step_label(step), seconds);
        }
    }
    cpu.finish()?;
    report.send_buffers_peak = cpu.send_buffers_peak();
    world.barrier()?;
    report.steps_seconds = start.elapsed().as_secs_f64();
    report.iterations = iterations;

    let start = Instant::now();
    for buffer in &stage.buffers {
        if let Some(output) = &buffer.output {
            io::write_output(
                &stage_comm,
                stage,
                outputs,
                buffer,
                output,
                &cpu.download(&buffer.name)?,
            )?;
        }
    }
    cpu.close()?;
    report.outputs_seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// A step as `--timing` lists it: the kernel a launch runs, the buffers a
/// collective or copy reads and writes.
fn step_label(step: &coco_bundle::Step) -> String {
    match step.kernel() {
        Some(kernel) => format!("{} {kernel}", step.op()),
        None => match step.buffers()[..] {
            [input, output] => format!("{} {input} -> {output}", step.op()),
            [one] => format!("{} {one}", step.op()),
            _ => step.op().to_string(),
        },
    }
}
