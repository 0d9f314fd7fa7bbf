//! Interrupting the Spark job of `coco-bigtest coverage --spark` (Ctrl-C,
//! `timeout`'s SIGTERM) leaves no scratch folder behind: the folder used to
//! be removed only on return, and a signal ended the process first.
//!
//! The test runs itself twice over: the parent starts this binary as the
//! child (the role `coco-bigtest` plays), whose `paths_histogram` runs a
//! stand-in "python" that records that it started and then waits; the
//! parent signals the child once the job runs and checks what is left in
//! the child's private `$TMPDIR`.

use std::{
    os::unix::process::ExitStatusExt,
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use coco_dataflow::{
    host::Host,
    model::{DatasetOp, OpKind, Program, Ty},
};
use coco_spark::local::{paths_histogram, SCRATCH_PREFIX};

/// Set in the child: the folder holding its data and stand-in python.
const CHILD_ENV: &str = "COCO_SPARK_INTERRUPT_CHILD";

fn main() {
    if let Some(dir) = std::env::var_os(CHILD_ENV) {
        child(Path::new(&dir));
        return;
    }
    for (signal, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        interrupted_job_leaves_nothing(signal, name);
        println!("test interrupt::{name} ... ok");
    }
}

/// `lines.txt` through to a sink: the least program with a source file.
fn program() -> Program {
    let op = |kind, inputs| DatasetOp {
        kind,
        inputs,
        fields: vec![Ty::Str],
        loc: "interrupt.mlir:1:1".into(),
    };
    Program {
        name: "lines".into(),
        host: Host::Python,
        ops: vec![
            op(
                OpKind::Source {
                    name: "lines".into(),
                    path: Some("lines.txt".into()),
                    inline: None,
                    delimiter: ",".into(),
                    int32: Vec::new(),
                    float32: Vec::new(),
                },
                vec![],
            ),
            op(
                OpKind::Sink {
                    name: "out".into(),
                    path: None,
                },
                vec![0],
            ),
        ],
        udfs: Default::default(),
    }
}

fn child(dir: &Path) {
    let python = dir.join("python");
    let data = dir.join("data");
    let result = paths_histogram(
        &program(),
        "interrupt.mlir",
        python.to_str().expect("a UTF-8 path"),
        &[&data],
        2,
    );
    // Only reached if the signal did not end the process.
    eprintln!("child: the job returned: {result:?}");
    std::process::exit(3);
}

fn interrupted_job_leaves_nothing(signal: libc::c_int, name: &str) {
    let root = std::env::temp_dir().join(format!(
        "coco-spark-interrupt-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&root);
    let (fixture, tmp) = (root.join("fixture"), root.join("tmp"));
    std::fs::create_dir_all(fixture.join("data")).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(fixture.join("data/lines.txt"), "a\n").unwrap();
    // The job's TMPDIR is inside the scratch folder: its marker shows the
    // job running there.
    let python = fixture.join("python");
    std::fs::write(
        &python,
        "#!/bin/sh\ntouch \"$TMPDIR/started\"\nexec sleep 600\n",
    )
    .unwrap();
    std::fs::set_permissions(&python, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, &fixture)
        .env("TMPDIR", &tmp)
        .spawn()
        .unwrap();
    // Not a timed assertion: the bound only keeps a broken child from
    // hanging the test, and is far beyond a shell's start on any machine.
    let give_up = Instant::now() + Duration::from_secs(300);
    let started = loop {
        if let Some(marker) = scratch_folders(&tmp)
            .iter()
            .map(|f| f.join("tmp/started"))
            .find(|m| m.exists())
        {
            break marker;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "{name}: the child ended before its job started"
        );
        assert!(Instant::now() < give_up, "{name}: the job never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    // SAFETY: kill(2) on our own child, not yet reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        Some(signal),
        "{name}: the child should end by the signal, ended {status}"
    );
    assert!(!started.exists(), "{name}: {} is left", started.display());
    assert_eq!(
        scratch_folders(&tmp),
        Vec::<PathBuf>::new(),
        "{name}: scratch folders left behind"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// The `coco-bigtest-spark-*` folders under `tmp`.
fn scratch_folders(tmp: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(tmp)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(&format!("{SCRATCH_PREFIX}-"))
                })
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}
