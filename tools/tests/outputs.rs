//! Output files and folders as the tools write them: whole, through a
//! temporary sibling renamed into place. The sibling's name is short, so
//! any name the file system accepts is an output; and renaming replaces a
//! symbolic link planted in an output folder rather than writing through
//! it, on every backend.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

const OPT: &str = env!("CARGO_BIN_EXE_coco-opt");
const TRANSLATE: &str = env!("CARGO_BIN_EXE_coco-translate");
const RUN: &str = env!("CARGO_BIN_EXE_coco-run");

const PROGRAM: &str = "\
func.func @double(%x: tensor<4xf32, #coco.replicated>) -> tensor<4xf32, #coco.replicated> {
  %y = arith.addf %x, %x : tensor<4xf32, #coco.replicated>
  return %y : tensor<4xf32, #coco.replicated>
}
";

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("coco-outputs")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(tool: &str, args: &[&str], tmp: &Path) -> Output {
    let mut command = Command::new(tool);
    command
        .args(args)
        .env("TMPDIR", tmp)
        .env("COCO_SHM_DIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in [
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
        "PMI_SIZE",
        "PMIX_RANK",
    ] {
        command.env_remove(var);
    }
    command.output().unwrap()
}

fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn any_name_the_file_system_takes_is_an_output() {
    let dir = scratch("long-names");
    let tmp = scratch("long-names-tmp");
    let program = dir.join("p.mlir");
    fs::write(&program, PROGRAM).unwrap();
    // 255 bytes: NAME_MAX. A sibling named after it (`.NAME.tmp-PID-N`)
    // would be longer than any name the file system takes.
    let file = "o".repeat(255);
    let bundle = "b".repeat(255);
    let out = dir.join(&file);
    for _ in 0..2 {
        // Twice: created, then replaced.
        let output = run(
            OPT,
            &[program.to_str().unwrap(), "-o", out.to_str().unwrap()],
            &tmp,
        );
        assert_success(&output);
    }
    assert!(fs::read_to_string(&out).unwrap().contains("@double"));
    let output = run(
        TRANSLATE,
        &[
            program.to_str().unwrap(),
            "--emit=bundle",
            "-o",
            dir.join(&bundle).to_str().unwrap(),
        ],
        &tmp,
    );
    assert_success(&output);
    assert!(dir.join(&bundle).join("plan.toml").is_file());
    assert_eq!(names(&dir), [bundle, file, "p.mlir".to_string()]);
}

/// A link planted in the output folder, to a file outside it: every
/// backend, and --save-inputs, replaces the link and leaves the file.
#[test]
fn links_in_the_output_folder_are_replaced_not_written_through() {
    let dir = scratch("links");
    let tmp = scratch("links-tmp");
    let program = dir.join("p.mlir");
    fs::write(&program, PROGRAM).unwrap();
    let outside = dir.join("precious.txt");
    let (outputs, inputs) = (dir.join("out"), dir.join("in"));
    for (backend, folder, name) in [
        ("cpu", &outputs, "double.result0.npy"),
        ("reference", &outputs, "double.result0.npy"),
        ("cpu", &inputs, "double.arg0.npy"),
    ] {
        fs::write(&outside, "precious").unwrap();
        let _ = fs::remove_dir_all(folder);
        fs::create_dir_all(folder).unwrap();
        std::os::unix::fs::symlink(&outside, folder.join(name)).unwrap();
        let output = run(
            RUN,
            &[
                program.to_str().unwrap(),
                "--backend",
                backend,
                "--outputs",
                outputs.to_str().unwrap(),
                "--save-inputs",
                inputs.to_str().unwrap(),
            ],
            &tmp,
        );
        assert_success(&output);
        assert_eq!(
            fs::read_to_string(&outside).unwrap(),
            "precious",
            "{backend}: {name}"
        );
        let written = fs::symlink_metadata(folder.join(name)).unwrap();
        assert!(written.is_file(), "{backend}: {name}");
        assert_eq!(names(folder), [name.to_string()]);
    }
}

#[test]
fn a_fifo_nobody_reads_is_refused_at_once_and_one_with_a_reader_is_written() {
    let dir = scratch("fifo");
    let program = dir.join("p.mlir");
    fs::write(&program, PROGRAM).unwrap();
    let fifo = dir.join("fifo");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        return;
    }
    let args = [program.to_str().unwrap(), "-o", fifo.to_str().unwrap()];
    // Before: opening the FIFO for writing waited for a reader forever.
    let mut child = Command::new(OPT)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut ended = None;
    for _ in 0..600 {
        if let Some(status) = child.try_wait().unwrap() {
            ended = Some(status);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if ended.is_none() {
        let _ = child.kill();
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(ended.is_some(), "coco-opt -o FIFO waited for a reader");
    assert!(!output.status.success());
    assert!(
        stderr.contains("it is a FIFO that no process reads"),
        "{stderr}"
    );
    // With a reader (as `-o >(gzip)` has), the output goes through.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let mut written = None;
    for _ in 0..100 {
        let output = Command::new(OPT).args(args).output().unwrap();
        if output.status.success() {
            written = Some(output);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(written.is_some(), "coco-opt never wrote to the read FIFO");
    assert!(reader.join().unwrap().contains("func.func @double"));
}
