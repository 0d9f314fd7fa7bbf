//! The tools as processes: what only a real process shows (stdout on a full
//! disk or a closed pipe, environment limits, devices as input, output
//! files left alone on failure, written whole whatever their name, links in
//! an output folder replaced rather than written through, a FIFO as -o). The lit-style suite runs the tools
//! in-process and cannot see these.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

const OPT: &str = env!("CARGO_BIN_EXE_coco-opt");
const TRANSLATE: &str = env!("CARGO_BIN_EXE_coco-translate");
const RUN: &str = env!("CARGO_BIN_EXE_coco-run");
const BIGTEST: &str = env!("CARGO_BIN_EXE_coco-bigtest");

const PROGRAM: &str = "\
func.func @double(%x: tensor<4xf32, #coco.replicated>) -> tensor<4xf32, #coco.replicated> {
  %y = arith.addf %x, %x : tensor<4xf32, #coco.replicated>
  return %y : tensor<4xf32, #coco.replicated>
}
";

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("coco-tools-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(tool: &str, args: &[&str], env: &[(&str, &str)], stdin: Option<&[u8]>) -> Output {
    let mut command = Command::new(tool);
    command.args(args).envs(env.iter().copied());
    command.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    if let Some(bytes) = stdin {
        // The tool may reject the input before reading it all.
        let _ = child.stdin.take().unwrap().write_all(bytes);
    }
    child.wait_with_output().unwrap()
}

/// [`run`] with its temporary folders, Open MPI's shared memory included,
/// under `tmp`.
fn run_in(tool: &str, args: &[&str], tmp: &Path) -> Output {
    let tmp = tmp.to_str().unwrap();
    run(tool, args, &[("TMPDIR", tmp), ("COCO_SHM_DIR", tmp)], None)
}

fn assert_success(output: &Output) {
    assert!(output.status.success(), "{}", stderr(output));
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_full_disk_on_stdout_is_an_error() {
    let dir = scratch("full");
    let program = dir.join("double.mlir");
    fs::write(&program, PROGRAM).unwrap();
    let program = program.to_str().unwrap();
    let wordcount = repo("examples/bigtest/wordcount.mlir");
    let cases: [(&str, &str, Vec<&str>); 4] = [
        (OPT, "coco-opt", vec![program]),
        (TRANSLATE, "coco-translate", vec!["--emit=plan", program]),
        (
            RUN,
            "coco-run",
            vec!["--backend", "reference", "--print-values", program],
        ),
        (BIGTEST, "coco-bigtest", vec!["run", &wordcount]),
    ];
    for (tool, name, args) in cases {
        let output = Command::new(tool)
            .args(&args)
            .stdout(fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{name}: {}", stderr(&output));
        assert!(
            stderr(&output).ends_with(&format!(
                "{name}: error: could not write standard output: No space left on device\n"
            )),
            "{name}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_tool_quietly() {
    let mut child = Command::new(OPT)
        .arg("--list-passes")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the tool writes (it starts MLIR first).
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(141), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
}

#[test]
fn a_failed_run_leaves_the_previous_output_file() {
    let dir = scratch("atomic");
    let (good, bad, out) = (
        dir.join("good.mlir"),
        dir.join("bad.mlir"),
        dir.join("out.mlir"),
    );
    fs::write(&good, PROGRAM).unwrap();
    fs::write(&bad, "func.func @f( {\n").unwrap();
    fs::write(&out, "previous\n").unwrap();
    let (good, bad, out_arg) = (
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
        out.to_str().unwrap(),
    );

    let failed = run(OPT, &[bad, "-o", out_arg], &[], None);
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(fs::read_to_string(&out).unwrap(), "previous\n");

    let succeeded = run(OPT, &[good, "-o", out_arg], &[], None);
    assert_eq!(succeeded.status.code(), Some(0), "{}", stderr(&succeeded));
    assert!(fs::read_to_string(&out)
        .unwrap()
        .contains("func.func @double"));
    // No temporary sibling is left behind.
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");

    // A device is not an output file (standard output is `-o -`).
    let full = run(OPT, &[good, "-o", "/dev/full"], &[], None);
    assert_eq!(full.status.code(), Some(1));
    assert_eq!(
        stderr(&full),
        "coco-opt: error: could not write output file '/dev/full': it is a device, \
         and coco writes only regular files (-o - writes to standard output)\n"
    );
}

#[test]
fn devices_are_not_inputs() {
    let output = run(OPT, &["/dev/zero"], &[], None);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "coco-opt: error: input file '/dev/zero' is not a regular file or a pipe\n"
    );
}

#[test]
fn inputs_larger_than_the_limit_are_rejected() {
    let dir = scratch("size");
    let program = dir.join("double.mlir");
    fs::write(&program, PROGRAM).unwrap();
    let limit = [("COCO_MAX_INPUT_BYTES", "64")];
    let file = run(OPT, &[program.to_str().unwrap()], &limit, None);
    assert_eq!(file.status.code(), Some(1));
    assert_eq!(
        stderr(&file),
        format!(
            "coco-opt: error: input file '{}' is larger than 64 bytes (the limit, set by the \
             environment variable COCO_MAX_INPUT_BYTES)\n",
            program.display()
        )
    );
    let piped = run(
        TRANSLATE,
        &["--emit=plan", "-"],
        &limit,
        Some(PROGRAM.as_bytes()),
    );
    assert_eq!(piped.status.code(), Some(1));
    assert!(
        stderr(&piped).contains("standard input is larger than 64 bytes"),
        "{}",
        stderr(&piped)
    );
    let bad = run(OPT, &["-"], &[("COCO_MAX_INPUT_BYTES", "lots")], Some(b""));
    assert_eq!(
        stderr(&bad),
        "coco-opt: error: COCO_MAX_INPUT_BYTES must be a number of bytes, found 'lots'\n"
    );
}

/// `depth` nested `scf.if` in a function (so `depth + 1` braces).
fn nested(depth: usize) -> String {
    format!(
        "func.func @deep(%c: i1) {{\n{}{}  return\n}}\n",
        "scf.if %c {\n".repeat(depth),
        "}\n".repeat(depth)
    )
}

#[test]
fn nesting_deeper_than_the_limit_is_an_error() {
    // At the default limit MLIR parses, verifies and prints the program.
    let at_limit = run(OPT, &["-"], &[], Some(nested(999).as_bytes()));
    assert_eq!(at_limit.status.code(), Some(0), "{}", stderr(&at_limit));
    // One more level, and far more (MLIR 19 overflowed its stack at about
    // 4,000 levels of scf.if), fail with the place and the limit.
    for depth in [1000, 50_000] {
        let deeper = run(OPT, &["-"], &[], Some(nested(depth).as_bytes()));
        assert_eq!(deeper.status.code(), Some(1), "{}", stderr(&deeper));
        assert!(
            stderr(&deeper).starts_with(
                "<stdin>:1001:11: error: nesting depth exceeds 1000 (the limit, set by the \
                 environment variable COCO_MAX_NESTING)\n"
            ),
            "{}",
            stderr(&deeper)
        );
    }
    let limited = run(
        OPT,
        &["-"],
        &[("COCO_MAX_NESTING", "3")],
        Some(nested(3).as_bytes()),
    );
    assert!(
        stderr(&limited).starts_with("<stdin>:4:11: error: nesting depth exceeds 3 "),
        "{}",
        stderr(&limited)
    );
    let bad = run(
        OPT,
        &["-"],
        &[("COCO_MAX_NESTING", "0")],
        Some(PROGRAM.as_bytes()),
    );
    assert!(
        stderr(&bad).contains("COCO_MAX_NESTING must be a positive integer, found '0'"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn unknown_cpus_are_rejected_before_code_generation() {
    let dir = scratch("mcpu");
    let program = dir.join("double.mlir");
    fs::write(&program, PROGRAM).unwrap();
    let program = program.to_str().unwrap();
    let bogus = run(
        TRANSLATE,
        &["--emit=llvm-ir", "--mcpu", "bogus-cpu", program],
        &[],
        None,
    );
    assert_eq!(bogus.status.code(), Some(1));
    let message = stderr(&bogus);
    assert!(
        message
            .starts_with("coco-translate: error: --mcpu: 'bogus-cpu' is not a CPU LLVM knows for ")
            && message.contains("valid values: native, ")
            && message.contains(", generic,")
            && !message.contains("LLVM ERROR"),
        "{message}"
    );
    let generic = run(
        TRANSLATE,
        &["--emit=llvm-ir", "--mcpu", "generic", program],
        &[],
        None,
    );
    assert_eq!(generic.status.code(), Some(0), "{}", stderr(&generic));
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
        let output = run_in(
            OPT,
            &[program.to_str().unwrap(), "-o", out.to_str().unwrap()],
            &tmp,
        );
        assert_success(&output);
    }
    assert!(fs::read_to_string(&out).unwrap().contains("@double"));
    let output = run_in(
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
        let output = run_in(
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

/// A FIFO or a device as `-o` is refused at once, read or not: the staged
/// writer writes only regular files (`-o -` is standard output).
#[test]
fn a_fifo_or_a_device_as_output_is_refused_at_once() {
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
    for (target, kind) in [
        (fifo.as_path(), "a FIFO"),
        (Path::new("/dev/null"), "a device"),
    ] {
        let args = [program.to_str().unwrap(), "-o", target.to_str().unwrap()];
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
        assert!(ended.is_some(), "coco-opt -o {kind} waited");
        assert!(!output.status.success());
        assert!(
            stderr.contains(&format!("it is {kind}, and coco writes only regular files"))
                && stderr.contains("-o - writes to standard output"),
            "{stderr}"
        );
    }
    assert_eq!(names(&dir), ["fifo", "p.mlir"]);
}

/// Ctrl-C and `timeout` signal coco-run's whole process group while the
/// ranks run: mpirun and the ranks end too, and coco-run ends by the same
/// signal (a shell's 130 for SIGINT, 143 for SIGTERM) with the documented
/// line. coco-run starts as a script's `coco-run ... &` does, with SIGINT
/// ignored: mpirun catches it regardless, and coco-run, ignoring it, then
/// reported a failed job (exit 1).
#[test]
fn a_signal_to_the_process_group_ends_coco_run_by_that_signal() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::time::{Duration, Instant};
    // A limit on a hang, not on speed.
    const BOUND: Duration = Duration::from_secs(60);
    for (signal, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        let dir = scratch(&format!("group-{name}"));
        let program = dir.join("double.mlir");
        fs::write(&program, PROGRAM).unwrap();
        let shm = dir.join("shm");
        fs::create_dir_all(&shm).unwrap();
        let mut command = Command::new(RUN);
        // SAFETY: signal(2) is async-signal-safe; nothing else runs here.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                Ok(())
            });
        }
        let child = command
            .arg(&program)
            .args(["--backend", "cpu", "--ranks", "2", "--repeat", "1000000000"])
            .env("TMPDIR", &dir)
            .env("COCO_SHM_DIR", &shm)
            .env_remove("OMPI_COMM_WORLD_SIZE")
            .env_remove("PMI_SIZE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        // mpirun and both ranks run (their command lines name coco-exec
        // and the bundle in `dir`).
        let key = format!("{}/", dir.display());
        let job = || {
            fs::read_dir("/proc")
                .unwrap()
                .flatten()
                .filter_map(|e| fs::read(e.path().join("cmdline")).ok())
                .map(|c| String::from_utf8_lossy(&c).into_owned())
                .filter(|c| c.contains("coco-exec") && c.contains(&key))
                .count()
        };
        let start = Instant::now();
        while job() < 3 {
            if start.elapsed() > BOUND {
                // SAFETY: kill(2) on the test's own process group.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                panic!("{name}: the job did not start within {BOUND:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: kill(2) on the test's own process group (coco-run leads it).
        assert_eq!(unsafe { libc::kill(-(child.id() as i32), signal) }, 0);
        let output = child.wait_with_output().unwrap();
        let status = output
            .status
            .code()
            .or(output.status.signal().map(|s| 128 + s));
        assert_eq!(status, Some(128 + signal), "{name}: {}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!(
                "coco-run: error: stopped by {name}; the job was ended\n"
            )),
            "{name}: {}",
            stderr(&output)
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
