//! Timing a one-rank bundle's kernels in this process, without MPI: what
//! the GEMM tile tuner measures (`coco-translate --tune-gemms`). Buffers
//! are the plan's, zero-filled; a kernel's time does not depend on the
//! values it multiplies (no data-dependent branches, and zeros are not
//! denormals).

use std::{collections::HashMap, ffi::c_void, path::Path, time::Instant};

use coco_bundle::{Plan, Step};

use super::{kernels::Kernels, memory::Memory};
use crate::error::{Error, Result};

/// Each launch of the bundle at `bundle` (one stage, one rank), in plan
/// order: the kernel's name and its fastest of `repeat` runs in seconds,
/// after one run that faults its memory in.
pub fn time_kernels(bundle: &Path, repeat: usize) -> Result<Vec<(String, f64)>> {
    let plan = Plan::load(bundle).map_err(|e| Error::Plan(e.to_string()))?;
    let [stage] = plan.stages.as_slice() else {
        return Err(Error::Plan(format!(
            "{}: timing runs one stage, the plan has {}",
            bundle.display(),
            plan.stages.len()
        )));
    };
    if stage.size != 1 {
        return Err(Error::Plan(format!(
            "{}: timing runs one rank, the stage has {}",
            bundle.display(),
            stage.size
        )));
    }
    let memory = Memory::new(stage, 0, &HashMap::new())?;
    let kernels = Kernels::load(bundle, &plan, stage)?;
    let mut times = Vec::new();
    for step in &stage.steps {
        let Step::Launch {
            kernel, buffers, ..
        } = step
        else {
            continue;
        };
        let pointers: Vec<*mut c_void> = buffers
            .iter()
            .map(|b| memory.region(b).ptr.cast())
            .collect();
        let mut best = f64::INFINITY;
        for run in 0..=repeat.max(1) {
            let start = Instant::now();
            // SAFETY: the pointers are the plan's buffers, allocated at
            // their declared sizes; no slice of the memory is alive.
            unsafe { kernels.launch(kernel, &pointers, 0)? };
            if run > 0 {
                best = best.min(start.elapsed().as_secs_f64());
            }
        }
        times.push((kernel.clone(), best));
    }
    Ok(times)
}
