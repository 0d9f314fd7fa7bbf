//! Every failure ends the job (no rank left waiting) with a non-zero exit
//! status and one line that says what is wrong.

mod common;

use coco_bundle::{DType, IoLayout, Reduction, Step};
use common::*;

const F32: DType = DType::F32;

/// A 2-rank plan: `y = axpb(a, x, b)`.
fn axpb_plan(ranks: usize) -> coco_bundle::Plan {
    plan(
        ranks,
        vec![
            buffer("a", F32, &[]).input(IoLayout::Scalar),
            buffer("x", F32, &[8]).input(IoLayout::Local),
            buffer("b", F32, &[8]).input(IoLayout::Replicated),
            buffer("y", F32, &[8]).output(IoLayout::Local),
        ],
        vec![launch("axpb", &["a", "x", "b", "y"])],
    )
}

fn axpb_bundle(name: &str, ranks: usize) -> Bundle {
    let bundle = Bundle::new(name, &axpb_plan(ranks));
    bundle
        .input("a", F32, &T::new(&[], |_| 2.0))
        .input("x", F32, &T::new(&[ranks, 8], |i| i as f64))
        .input("b", F32, &T::new(&[8], |i| i as f64));
    bundle
}

#[test]
fn ranks_flag_must_match_the_plan() {
    let bundle = axpb_bundle("ranks-flag", 2);
    let outcome = bundle.run(&["--ranks", "3"]);
    outcome.assert_error(&[
        "coco-exec: error: --ranks 3 does not match the bundle, which was compiled for 2 ranks",
    ]);
    bundle.remove();
}

#[test]
fn world_size_must_match_the_plan() {
    let bundle = axpb_bundle("world-size", 2);
    let outcome = bundle.run_under_mpirun(1, &[]);
    outcome.assert_error(&[
        "coco-exec: rank 0: error: the bundle was compiled for 2 ranks, this job has 1",
    ]);
    bundle.remove();
}

#[test]
fn a_plan_of_another_format_version_is_refused() {
    // Version 1 wrote launch parameters as strings: such a plan is named
    // by its version, not misread.
    let bundle = axpb_bundle("old-version", 2);
    let path = bundle.dir.join("plan.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let current = format!("version = {}", coco_bundle::FORMAT_VERSION);
    assert!(text.contains(&current), "{text}");
    std::fs::write(&path, text.replace(&current, "version = 1")).unwrap();
    let outcome = bundle.run(&[]);
    outcome.assert_error(&[
        "plan.toml: plan format version 1; this executor reads version",
        &coco_bundle::FORMAT_VERSION.to_string(),
    ]);
    bundle.remove();
}

#[test]
fn missing_input_file() {
    let bundle = axpb_bundle("missing-input", 2);
    let path = bundle.inputs().join("b.npy");
    std::fs::remove_file(&path).unwrap();
    // Under a foreign launcher each rank finds it missing (a launching
    // coco-exec checks first: tests/job.rs).
    let outcome = bundle.run_under_mpirun(2, &[]);
    outcome.assert_error(&[
        "coco-exec: rank ",
        "error: input 'b': no file",
        &path.display().to_string(),
    ]);
    bundle.remove();
}

#[test]
fn wrong_input_shape() {
    let bundle = axpb_bundle("input-shape", 2);
    // A local input needs one row per rank: [2, 8].
    bundle.input("x", F32, &T::new(&[3, 8], |i| i as f64));
    let outcome = bundle.run(&[]);
    outcome.assert_error(&[
        "error: input 'x':",
        "x.npy has shape [3, 8], expected [2, 8]",
        "buffer 'x' is f32[8] on each of 2 rank(s), layout local",
    ]);
    bundle.remove();
}

#[test]
fn wrong_input_dtype() {
    let bundle = axpb_bundle("input-dtype", 2);
    bundle.input("b", DType::F64, &T::new(&[8], |i| i as f64));
    let outcome = bundle.run(&[]);
    outcome.assert_error(&[
        "error: input 'b':",
        "b.npy",
        "holds f64 elements ('<f8'), expected f32",
    ]);
    bundle.remove();
}

#[test]
fn missing_kernel_symbol() {
    let mut plan = axpb_plan(2);
    plan.kernels.push(kernel("not_compiled", &[&[8]]));
    plan.stages[0].steps.push(launch("not_compiled", &["y"]));
    let bundle = Bundle::new("missing-symbol", &plan);
    bundle
        .input("a", F32, &T::new(&[], |_| 2.0))
        .input("x", F32, &T::new(&[2, 8], |i| i as f64))
        .input("b", F32, &T::new(&[8], |i| i as f64));
    let outcome = bundle.run(&[]);
    outcome.assert_error(&["error: kernel 'not_compiled' is not in", "kernels.so"]);
    bundle.remove();
}

#[test]
fn kernels_of_another_build_are_refused() {
    // The plan was written with this kernels.so: one of another build (here
    // the same library with a byte appended, as a larger build's would
    // differ) is refused before it is loaded, naming both files.
    let bundle = axpb_bundle("other-kernels", 2);
    let so = bundle.dir.join("kernels.so");
    let mut bytes = std::fs::read(&so).unwrap();
    bytes.push(0);
    std::fs::write(&so, &bytes).unwrap();
    let outcome = bundle.run(&[]);
    outcome.assert_error(&[
        "error: ",
        &format!("{}: has {} bytes, but ", so.display(), bytes.len()),
        "plan.toml records",
        "it is not the file the plan was written with",
    ]);
    // The same size, other bytes.
    bytes.pop();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&so, &bytes).unwrap();
    bundle
        .run(&[])
        .assert_error(&["kernels.so: has SHA-256 ", "plan.toml records"]);
    bundle.remove();
}

#[test]
fn what_stands_in_place_of_kernels_so_is_named() {
    let bundle = axpb_bundle("kernels-kind", 2);
    let so = bundle.dir.join("kernels.so");
    std::fs::remove_file(&so).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &so).unwrap();
    bundle.run(&[]).assert_error(&[
        "kernels.so: a device is not a regular file (the bundle's native kernels)",
    ]);
    std::fs::remove_file(&so).unwrap();
    std::fs::create_dir(&so).unwrap();
    bundle.run(&[]).assert_error(&[
        "kernels.so: a directory is not a regular file (the bundle's native kernels)",
    ]);
    std::fs::remove_dir(&so).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&so).status();
    if made.is_ok_and(|s| s.success()) {
        bundle
            .run(&[])
            .assert_error(&["kernels.so: a FIFO is not a regular file"]);
    }
    bundle.remove();
}

#[test]
fn outputs_replace_a_link_in_the_folder_instead_of_writing_through_it() {
    let bundle = axpb_bundle("output-link", 2);
    let outside = bundle.dir.join("outside.txt");
    std::fs::write(&outside, "precious").unwrap();
    std::fs::create_dir_all(bundle.outputs()).unwrap();
    let link = bundle.outputs().join("out_y.npy");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    bundle.run(&[]).assert_success();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
    assert!(!std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(bundle.output("out_y", F32).shape, [2, 8]);
    bundle.remove();
}

#[test]
fn a_kernel_that_aborts_on_one_rank_ends_the_job() {
    // Rank 0 goes on into an all-reduce that rank 1 never joins: the job
    // must still end (mpirun takes every rank down), not hang.
    let plan = plan(
        2,
        vec![buffer("x", F32, &[4]), buffer("s", F32, &[4])],
        vec![
            launch("crash_on_rank1", &["x"]),
            Step::AllReduce {
                reduction: Reduction::Sum,
                input: "x".into(),
                output: "s".into(),
                stream: 0,
                axis: None,
            },
        ],
    );
    let bundle = Bundle::new("kernel-abort", &plan);
    let outcome = bundle.run(&[]);
    outcome.assert_error(&["coco-exec: error: a rank was killed by signal 6"]);
    bundle.remove();
}

#[test]
fn a_failing_rank_aborts_the_others() {
    // Stage 1 lacks its input; stage 0 is already blocked receiving the
    // value stage 1 would send.
    let mut plan = plan(2, Vec::new(), Vec::new());
    plan.stages = vec![
        stage(
            0,
            1,
            vec![buffer("x", F32, &[4]).output(IoLayout::Replicated)],
            vec![Step::Recv {
                output: "x".into(),
                peer_stage: 1,
                stream: 0,
            }],
        ),
        stage(
            1,
            1,
            vec![buffer("z", F32, &[4]).input(IoLayout::Replicated)],
            vec![Step::Send {
                input: "z".into(),
                peer_stage: 0,
                stream: 0,
            }],
        ),
    ];
    let bundle = Bundle::new("abort-others", &plan);
    // Started by mpirun directly: a launching coco-exec would find the
    // input missing before starting any rank.
    let outcome = bundle.run_under_mpirun(2, &[]);
    outcome.assert_error(&["coco-exec: rank 1: error: input 'z': no file"]);
    assert_eq!(outcome.status.code(), Some(1), "{}", outcome.stderr);
    bundle.remove();
}

#[test]
fn kernels_of_more_than_32_buffers() {
    let names: Vec<String> = (0..33).map(|i| format!("p{i}")).collect();
    let mut plan = plan(
        1,
        names.iter().map(|n| buffer(n, F32, &[1])).collect(),
        vec![launch(
            "wide",
            &names.iter().map(String::as_str).collect::<Vec<_>>(),
        )],
    );
    plan.kernels.push(kernel("wide", &[&[1usize][..]; 33]));
    let bundle = Bundle::new("too-wide", &plan);
    let outcome = bundle.run(&[]);
    outcome.assert_error(&[
        "error: kernel 'wide' takes 33 buffers; this executor calls kernels of at most 32",
    ]);
    bundle.remove();
}

#[test]
fn waits_for_an_event_never_recorded() {
    let plan = plan(
        1,
        vec![buffer("x", F32, &[4])],
        vec![
            Step::WaitEvent {
                event: "ready".into(),
                stream: 1,
            },
            Step::RecordEvent {
                event: "ready".into(),
                stream: 0,
            },
        ],
    );
    let bundle = Bundle::new("event", &plan);
    let outcome = bundle.run(&[]);
    outcome.assert_error(&[
        "error: stage 0 (@main), step 0 (wait_event): waits for event 'ready', which no earlier step records",
    ]);
    bundle.remove();
}

#[test]
fn a_collective_whose_output_does_not_fit() {
    let plan = plan(
        2,
        vec![
            buffer("x", F32, &[2, 3]).input(IoLayout::Local),
            buffer("g", F32, &[2, 6]),
        ],
        vec![Step::AllGather {
            input: "x".into(),
            output: "g".into(),
            dim: 0,
            stream: 0,
            axis: None,
        }],
    );
    let bundle = Bundle::new("collective-shape", &plan);
    bundle.input("x", F32, &T::new(&[2, 2, 3], |i| i as f64));
    let outcome = bundle.run(&[]);
    outcome.assert_error(&[
        "step 0 (all_gather): input 'x' (f32[2, 3]) and output 'g' (f32[2, 6]): the output should have shape [4, 3]",
    ]);
    bundle.remove();
}

#[test]
fn sends_and_receives_must_pair_up() {
    let two_stages = |first: Vec<Step>, second: Vec<Step>| {
        let mut plan = plan(2, Vec::new(), Vec::new());
        plan.stages = vec![
            stage(0, 1, vec![buffer("x", F32, &[4])], first),
            stage(1, 1, vec![buffer("y", F32, &[4])], second),
        ];
        plan
    };
    let send = |buffer: &str| Step::Send {
        input: buffer.into(),
        peer_stage: 0,
        stream: 0,
    };
    let recv = |buffer: &str| Step::Recv {
        output: buffer.into(),
        peer_stage: 0,
        stream: 0,
    };
    let to_1 = |mut step: Step| {
        match &mut step {
            Step::Send { peer_stage, .. } | Step::Recv { peer_stage, .. } => *peer_stage = 1,
            _ => {}
        }
        step
    };

    // Never received.
    // (What is sent is an input: a send of a buffer nothing wrote is
    // refused before the stages pair up.)
    let mut plan = two_stages(vec![to_1(send("x"))], vec![]);
    plan.stages[0].buffers[0] = buffer("x", F32, &[4]).input(IoLayout::Local);
    let bundle = Bundle::new("unreceived", &plan);
    bundle.input("x", F32, &T::new(&[1, 4], |i| i as f64));
    bundle.run(&[]).assert_error(&[
        "stage 0 (@main), step 0 (send) sends 'x' (f32[4]) to stage 1, which never receives it",
    ]);
    bundle.remove();

    // Each waits for the other first.
    let plan = two_stages(
        vec![to_1(recv("x")), to_1(send("x"))],
        vec![recv("y"), send("y")],
    );
    let bundle = Bundle::new("deadlock", &plan);
    bundle
        .run(&[])
        .assert_error(&["the stages deadlock: stage 0 (@main), step 0 (recv) and stage 1"]);
    bundle.remove();
}

/// An output declared replicated along an axis whose ranks hold different
/// values is an error naming the positions, never one of them in silence.
#[test]
fn replicas_that_differ_are_refused() {
    let mut x = buffer("x", F32, &[4]);
    x.input = Some(coco_bundle::Io {
        name: "x".into(),
        ..axes(&[IoLayout::Local, IoLayout::Local])
    });
    // Per-rank values written out as if replicated along tp.
    x.output = Some(coco_bundle::Io {
        name: "out_x".into(),
        ..axes(&[IoLayout::Local, IoLayout::Replicated])
    });
    let mut plan = plan(4, vec![x], Vec::new());
    plan.stages[0].mesh = mesh(&[("dp", 2), ("tp", 2)]);
    let bundle = Bundle::new("replica-mismatch", &plan);
    bundle.input("x", F32, &T::new(&[4, 4], |i| i as f64));
    bundle.run(&[]).assert_error(&[
        "output 'out_x': positions 0 and 1 of stage @main hold the same block with different values (element 0 of the block)",
    ]);
    bundle.remove();
}
