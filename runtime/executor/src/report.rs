//! What a run did and where its time went, per rank, and the job-wide
//! summary `--timing` prints: the slowest rank per line, since a collective
//! job runs at the pace of its slowest rank, and for each step of a
//! one-stage plan the fastest rank too, so skew between ranks (one rank
//! arriving late to a collective and the others waiting) shows.

use crate::{comm::Comm, error::Result};

/// Step kinds, in the order reports list them.
pub const STEP_KINDS: [&str; 13] = [
    "launch",
    "peer_launch",
    "all_reduce",
    "reduce_scatter",
    "all_gather",
    "broadcast",
    "reduce",
    "all_to_all",
    "send",
    "recv",
    "copy",
    "record_event",
    "wait_event",
];

/// How many steps of one kind ran and how long they took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindTime {
    pub kind: &'static str,
    pub count: usize,
    pub seconds: f64,
}

/// One rank's run.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// World rank and size.
    pub rank: usize,
    pub world_size: usize,
    /// The stage this rank ran and its position in it.
    pub stage: usize,
    pub position: usize,
    /// Steps run.
    pub steps: usize,
    /// Bytes this rank contributed to collectives and sends.
    pub bytes_moved: u64,
    /// Per step kind, in [`STEP_KINDS`] order.
    pub kinds: Vec<KindTime>,
    /// Loading the plan and kernels, allocating, setting up communicators.
    pub setup_seconds: f64,
    /// Reading and distributing the inputs.
    pub inputs_seconds: f64,
    /// Running the steps (and completing the sends).
    pub steps_seconds: f64,
    /// How many times the steps ran (`--repeat`).
    pub iterations: usize,
    /// Gathering and writing the outputs.
    pub outputs_seconds: f64,
    /// Per step of the stage, in plan order: what it is (`launch adam_k0`,
    /// `all_gather t3 -> arg1`) and its time summed over the iterations.
    pub step_times: Vec<(String, f64)>,
    /// Whether the plan has one stage (every rank runs the same steps).
    pub one_stage: bool,
    /// The most send buffers the rank held at once: sends in flight keep
    /// a copy of their input until the receiver has it, at most one per
    /// send step whatever `--repeat` is.
    pub send_buffers_peak: usize,
}

impl Report {
    pub(crate) fn new(rank: usize, world_size: usize, stage: usize, position: usize) -> Report {
        Report {
            rank,
            world_size,
            stage,
            position,
            steps: 0,
            bytes_moved: 0,
            kinds: STEP_KINDS
                .iter()
                .map(|&kind| KindTime {
                    kind,
                    ..KindTime::default()
                })
                .collect(),
            setup_seconds: 0.0,
            iterations: 1,
            inputs_seconds: 0.0,
            steps_seconds: 0.0,
            outputs_seconds: 0.0,
            step_times: Vec::new(),
            one_stage: false,
            send_buffers_peak: 0,
        }
    }

    /// Adds `seconds` to step `index` of the stage (`label` names it).
    pub(crate) fn record_step(
        &mut self,
        index: usize,
        label: impl FnOnce() -> String,
        seconds: f64,
    ) {
        if self.step_times.len() <= index {
            self.step_times.resize(index + 1, (String::new(), 0.0));
        }
        let entry = &mut self.step_times[index];
        if entry.0.is_empty() {
            entry.0 = label();
        }
        entry.1 += seconds;
    }

    pub(crate) fn record(&mut self, kind: &str, seconds: f64, bytes: u64) {
        self.steps += 1;
        self.bytes_moved += bytes;
        if let Some(k) = self.kinds.iter_mut().find(|k| k.kind == kind) {
            k.count += 1;
            k.seconds += seconds;
        }
    }

    fn phases(&self) -> [f64; 4] {
        [
            self.setup_seconds,
            self.inputs_seconds,
            self.steps_seconds,
            self.outputs_seconds,
        ]
    }
}

fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The job-wide summary on world rank 0, `None` elsewhere (collective over
/// `world`: every rank must call it).
pub(crate) fn summarize(world: &Comm, report: &Report) -> Result<Option<String>> {
    let mut times: Vec<f64> = report.phases().to_vec();
    times.extend(report.kinds.iter().map(|k| k.seconds));
    times.extend(report.kinds.iter().map(|k| k.count as f64));
    times.push(report.steps as f64);
    times.push(report.send_buffers_peak as f64);
    let max = world.max_f64(&times, 0)?;
    let bytes = world.sum_u64(&[report.bytes_moved], 0)?[0];
    // Per step, slowest and fastest rank (the fastest as the largest
    // negated time); only one-stage plans give every rank the same steps.
    let steps_here: Vec<f64> = report.step_times.iter().map(|s| s.1).collect();
    let negated: Vec<f64> = steps_here.iter().map(|s| -s).collect();
    let (step_max, step_min) = if report.one_stage {
        (world.max_f64(&steps_here, 0)?, world.max_f64(&negated, 0)?)
    } else {
        (Vec::new(), Vec::new())
    };
    if world.rank() != 0 {
        return Ok(None);
    }
    let kinds = STEP_KINDS.len();
    let (phases, rest) = max.split_at(4);
    let (seconds, rest) = rest.split_at(kinds);
    let (counts, rest) = rest.split_at(kinds);
    let (steps, send_buffers) = (rest[0], rest[1] as usize);
    let mut text = format!(
        "timing over {} rank(s), slowest rank per line:\n",
        report.world_size
    );
    let line = |name: &str, s: f64| format!("  {name:<16}{:>10.3} ms\n", s * 1e3);
    text += &line("setup", phases[0]);
    text += &line("inputs", phases[1]);
    text += &format!(
        "  {:<16}{:>10.3} ms  ({} steps, {} moved by all ranks)\n",
        "steps",
        phases[2] * 1e3,
        steps as usize,
        bytes_text(bytes)
    );
    for (i, kind) in STEP_KINDS.iter().enumerate() {
        if counts[i] > 0.0 {
            text += &format!(
                "    {kind:<14}{:>10.3} ms  ({} x)\n",
                seconds[i] * 1e3,
                counts[i] as usize
            );
        }
    }
    if send_buffers > 0 {
        text += &format!("  send buffers held at once, at most: {send_buffers}\n");
    }
    if !step_max.is_empty() {
        text += "  per step, slowest and fastest rank:\n";
        for (i, (label, _)) in report.step_times.iter().enumerate() {
            text += &format!(
                "    {i:>3} {label:<40}{:>10.3} ms  {:>10.3} ms\n",
                step_max[i] * 1e3,
                -step_min[i] * 1e3
            );
        }
    }
    text += &line("outputs", phases[3]);
    // The line benchmarks read.
    text += &format!(
        "  per iteration {:>10.3} ms  ({} iterations)\n",
        phases[2] * 1e3 / report.iterations.max(1) as f64,
        report.iterations.max(1)
    );
    Ok(Some(text.trim_end().to_string()))
}
