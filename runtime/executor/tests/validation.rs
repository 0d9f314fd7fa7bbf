//! Plans and input files that are not what the compiler writes: each is an
//! error of one line, never a crash, a hang, a file written elsewhere or a
//! run on garbage.

mod common;

use std::process::Command;

use coco_bundle::{DType, Io, IoLayout};
use common::*;

const F32: DType = DType::F32;

/// `y = axpb(a, x, b)` on `ranks` ranks, with its inputs.
fn axpb_bundle(name: &str, edit: impl FnOnce(&mut coco_bundle::Plan)) -> Bundle {
    let mut plan = plan(
        2,
        vec![
            buffer("a", F32, &[]).input(IoLayout::Scalar),
            buffer("x", F32, &[8]).input(IoLayout::Local),
            buffer("b", F32, &[8]).input(IoLayout::Replicated),
            buffer("y", F32, &[8]).output(IoLayout::Local),
        ],
        vec![launch("axpb", &["a", "x", "b", "y"])],
    );
    edit(&mut plan);
    let bundle = Bundle::new(name, &plan);
    bundle
        .input("a", F32, &T::new(&[], |_| 2.0))
        .input("x", F32, &T::new(&[2, 8], |i| i as f64))
        .input("b", F32, &T::new(&[8], |i| i as f64));
    bundle
}

/// `coco-exec` on `bundle` with `env` set.
fn run_with_env(bundle: &Bundle, env: &[(&str, &str)]) -> Outcome {
    let mut command = Command::new(EXEC);
    command
        .arg(&bundle.dir)
        .arg("--inputs")
        .arg(bundle.inputs())
        .arg("--outputs")
        .arg(bundle.outputs());
    for (name, value) in env {
        command.env(name, value);
    }
    bundle.spawn(command)
}

#[test]
fn a_launch_passing_a_scalar_for_a_buffer_is_refused() {
    // The kernel writes 8 floats through its last pointer: given the
    // 4-byte scalar, it corrupted the heap (`free(): invalid size`).
    let bundle = axpb_bundle("scalar-for-buffer", |plan| {
        plan.stages[0].steps[0] = launch("axpb", &["a", "x", "b", "a"]);
    });
    bundle.run(&[]).assert_error(&[
        "coco-exec: error: ",
        "plan.toml: stage 0 (@main), step 0 (launch): kernel 'axpb': argument 3 is buffer 'a', \
         f32[] (4 bytes), where the kernel takes f32[8] (32 bytes)",
    ]);
    assert!(!bundle.outputs().exists());
    bundle.remove();
}

#[test]
fn output_and_input_names_are_plain_file_names() {
    let escape = "../../escaped";
    let bundle = axpb_bundle("output-escape", |plan| {
        plan.stages[0].buffers[3].output = Some(Io {
            name: escape.into(),
            layout: IoLayout::Local,
            axes: Vec::new(),
        });
    });
    bundle.run(&[]).assert_error(&[
        "stage 0 (@main): buffer 'y': output '../../escaped' is not a plain file name (it contains '/')",
    ]);
    let written = bundle.outputs().join(format!("{escape}.npy"));
    assert!(!written.exists(), "{} was written", written.display());
    bundle.remove();

    let bundle = axpb_bundle("input-absolute", |plan| {
        plan.stages[0].buffers[1].input = Some(Io {
            name: "/etc/hostname".into(),
            layout: IoLayout::Local,
            axes: Vec::new(),
        });
    });
    bundle
        .run(&[])
        .assert_error(&["buffer 'x': input '/etc/hostname' is not a plain file name"]);
    bundle.remove();
}

#[test]
fn a_stage_larger_than_the_world_is_refused() {
    // ranks = 1 with a stage of 2 ranks tripped an assertion in exec.rs.
    let bundle = axpb_bundle("stage-past-world", |plan| plan.ranks = 1);
    bundle
        .run(&[])
        .assert_error(&["plan.toml: stage 0 (@main) runs ranks 0 .. 2, but the plan has 1 ranks"]);
    bundle.remove();
}

#[test]
fn buffers_over_the_memory_limit_are_refused_by_name() {
    // 800 GB: more than this machine (and the default limit) has.
    let mut plan = plan(
        1,
        vec![buffer("huge", DType::F64, &[100_000_000_000])],
        Vec::new(),
    );
    plan.kernels.clear();
    let bundle = Bundle::new("huge-buffer", &plan);
    bundle.run(&[]).assert_error(&[
        "coco-exec: rank 0: error: stage 0 (@main): buffer 'huge' (f64[100000000000], \
         800000000000 bytes) brings the rank's buffers to 800000000000 bytes, over the limit of",
        "(this machine's memory; set COCO_MAX_MEMORY_BYTES to change it)",
    ]);
    bundle.remove();

    // The limit is configurable, and counts every buffer of the stage.
    let bundle = axpb_bundle("memory-limit", |_| {});
    run_with_env(&bundle, &[("COCO_MAX_MEMORY_BYTES", "64")]).assert_error(&[
        "buffer 'b' (f32[8], 32 bytes) brings the rank's buffers to 68 bytes, \
         over the limit of 64 bytes (COCO_MAX_MEMORY_BYTES=64)",
    ]);
    run_with_env(&bundle, &[("COCO_MAX_MEMORY_BYTES", "100")]).assert_success();
    run_with_env(&bundle, &[("COCO_MAX_MEMORY_BYTES", "lots")])
        .assert_error(&["COCO_MAX_MEMORY_BYTES='lots' is not a number of bytes"]);
    bundle.remove();
}

#[test]
fn inputs_are_read_only_from_regular_files_of_the_right_length() {
    let bundle = axpb_bundle("endless-input", |_| {});
    let x = bundle.inputs().join("x.npy");
    std::fs::remove_file(&x).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &x).unwrap();
    bundle.run(&[]).assert_error(&[
        "input 'x': ",
        "x.npy: not a valid .npy file: a device is not a regular file",
    ]);

    std::fs::remove_file(&x).unwrap();
    let made = Command::new("mkfifo").arg(&x).status();
    if made.is_ok_and(|s| s.success()) {
        // Opening it would wait for a writer forever.
        bundle
            .run(&[])
            .assert_error(&["input 'x': ", "a FIFO is not a regular file"]);
        std::fs::remove_file(&x).unwrap();
    }

    // A file longer than its header says.
    bundle.input("x", F32, &T::new(&[2, 8], |i| i as f64));
    let mut bytes = std::fs::read(&x).unwrap();
    bytes.extend_from_slice(&[0; 4]);
    std::fs::write(&x, bytes).unwrap();
    bundle.run(&[]).assert_error(&[
        "input 'x': ",
        "shape [2, 8] needs 64 bytes of data, the file has 68",
    ]);
    bundle.remove();
}
