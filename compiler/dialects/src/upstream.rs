//! Questions to upstream MLIR and LLVM that their C APIs cannot answer,
//! asked before the call that would otherwise stop the process: MLIR aborts
//! on a pass added under an op it is not anchored on, and LLVM never says
//! whether it knows a CPU name (it warns and carries on, or aborts later).

use std::ffi::c_void;

use mlir_sys::MlirStringRef;

use crate::ffi::{self, lent_string, string_ref};

/// A pass of an upstream pipeline element and the op it runs on.
#[derive(Clone, Debug, PartialEq)]
pub struct PassAnchor {
    /// The pass's pipeline argument (`cse`).
    pub argument: String,
    /// The op it must be nested under (`builtin.module`); `None`: any op.
    pub op: Option<String>,
}

/// The passes `element` (upstream pass elements without an anchor, such as
/// `canonicalize{max-iterations=2}`) adds, with their anchors; `Err` is
/// MLIR's parse error. Registered passes only: call after
/// [`crate::context`] registered them.
pub fn pass_anchors(element: &str) -> Result<Vec<PassAnchor>, String> {
    unsafe extern "C" fn on_pass(argument: MlirStringRef, op: MlirStringRef, data: *mut c_void) {
        let out = &mut *(data as *mut (Vec<PassAnchor>, String));
        let op = lent_string(op);
        out.0.push(PassAnchor {
            argument: lent_string(argument),
            op: (!op.is_empty()).then_some(op),
        });
    }
    unsafe extern "C" fn on_error(message: MlirStringRef, data: *mut c_void) {
        let out = &mut *(data as *mut (Vec<PassAnchor>, String));
        out.1.push_str(&lent_string(message));
    }
    let mut out: (Vec<PassAnchor>, String) = (Vec::new(), String::new());
    // SAFETY: `element` and `out` outlive the call; the callbacks only
    // append to `out`.
    let parsed = unsafe {
        ffi::cocoPipelinePassAnchors(
            string_ref(element),
            on_pass,
            on_error,
            &mut out as *mut _ as *mut c_void,
        )
    };
    if parsed {
        Ok(out.0)
    } else {
        Err(out.1)
    }
}

/// The host's target triple and every CPU name LLVM knows for it (what
/// `llc -mcpu=help` lists); `None` when the host target is not linked in.
pub fn host_cpus() -> Option<(String, Vec<String>)> {
    unsafe extern "C" fn on_triple(triple: MlirStringRef, data: *mut c_void) {
        (*(data as *mut (String, Vec<String>))).0 = lent_string(triple);
    }
    unsafe extern "C" fn on_cpu(cpu: MlirStringRef, data: *mut c_void) {
        (*(data as *mut (String, Vec<String>)))
            .1
            .push(lent_string(cpu));
    }
    let mut out = (String::new(), Vec::new());
    // SAFETY: `out` outlives the call; the callbacks only write to it.
    let found =
        unsafe { ffi::cocoHostTargetCpus(on_triple, on_cpu, &mut out as *mut _ as *mut c_void) };
    found.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_of_upstream_passes() {
        let _context = crate::context();
        let anchors = pass_anchors("cse,gpu-kernel-outlining").unwrap();
        assert_eq!(
            anchors,
            [
                PassAnchor {
                    argument: "cse".into(),
                    op: None
                },
                PassAnchor {
                    argument: "gpu-kernel-outlining".into(),
                    op: Some("builtin.module".into())
                },
            ]
        );
        assert!(pass_anchors("no-such-pass")
            .unwrap_err()
            .contains("no-such-pass"));
    }

    #[test]
    fn the_host_target_knows_its_cpus() {
        let (triple, cpus) = host_cpus().unwrap();
        assert!(!triple.is_empty());
        assert!(cpus.iter().any(|c| c == "generic"), "{cpus:?}");
        assert!(!cpus.iter().any(|c| c == "bogus-cpu"));
    }
}
