//! Every file a tool writes goes through the staged writer: a link planted
//! at the output is replaced, never written through (dangling or not); a
//! FIFO there is refused at once, never waited on; `-o -` is standard
//! output; and a file the tool did not write is left alone where the tool
//! promises it (`--pytest`, `--tune-gemms`). Each case ran against the
//! tools as processes, with a precious file outside that must not change.

use std::{
    fs,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

const TRANSLATE: &str = env!("CARGO_BIN_EXE_coco-translate");
const BIGTEST: &str = env!("CARGO_BIN_EXE_coco-bigtest");

const JOB: &str = "\
def lengths(lines):
    return lines.map(lambda line: len(line)).filter(lambda n: n > 3)
";

const GEMM: &str = "\
func.func @mm(%a: tensor<8x4xf32, #coco.replicated>, %b: tensor<4x8xf32, #coco.replicated>) -> tensor<8x8xf32, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<8x4xf32, #coco.replicated>, tensor<4x8xf32, #coco.replicated> -> tensor<8x8xf32, #coco.replicated>
  return %c : tensor<8x8xf32, #coco.replicated>
}
";

/// A test's own folder, removed when the test ends, passed or not.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("coco-outputs-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// Runs `tool`, killing it after a minute: a hang is a failure, not a
/// stuck suite.
fn run(tool: &str, args: &[&str], cwd: &Path) -> (Output, bool) {
    let mut child = Command::new(tool)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut hung = false;
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            hung = true;
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (child.wait_with_output().unwrap(), hung)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

fn is_plain_file(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// The names of `dir` that are a writer's leftovers.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".coco") || n.ends_with(".coco-tmp"))
        .collect()
}

#[test]
fn import_output_replaces_links_refuses_fifos_and_dash_is_stdout() {
    let dir = scratch("import");
    fs::write(dir.join("job.py"), JOB).unwrap();
    let outside = dir.join("precious.txt");
    fs::write(&outside, "precious").unwrap();
    fs::create_dir(dir.join("out")).unwrap();

    // A link to a file outside, and a dangling one: replaced by the file.
    std::os::unix::fs::symlink(&outside, dir.join("out/linked.mlir")).unwrap();
    std::os::unix::fs::symlink(dir.join("made-through.txt"), dir.join("out/dangling.mlir"))
        .unwrap();
    for name in ["out/linked.mlir", "out/dangling.mlir"] {
        let (output, hung) = run(BIGTEST, &["import", "job.py", "-o", name], &dir);
        assert!(
            !hung && output.status.success(),
            "{name}: {}",
            stderr(&output)
        );
        assert!(is_plain_file(&dir.join(name)), "{name}");
        assert!(fs::read_to_string(dir.join(name)).unwrap().contains("df."));
    }
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    assert!(!dir.join("made-through.txt").exists());

    // A FIFO nobody reads: refused at once (before: a hang).
    if mkfifo(&dir.join("out/fifo.mlir")) {
        let (output, hung) = run(BIGTEST, &["import", "job.py", "-o", "out/fifo.mlir"], &dir);
        assert!(!hung, "import -o FIFO waited for a reader");
        assert!(!output.status.success());
        assert!(
            stderr(&output).contains("it is a FIFO"),
            "{}",
            stderr(&output)
        );
    }

    // `-o -` is standard output, not a file named `-`.
    let (output, _) = run(BIGTEST, &["import", "job.py", "-o", "-"], &dir);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("df."));
    assert!(!dir.join("-").exists());
    assert!(leftovers(&dir.join("out")).is_empty());
}

#[test]
fn pytest_module_is_staged_and_leaves_links_and_fifos_alone() {
    let dir = scratch("pytest");
    fs::write(dir.join("job.py"), JOB).unwrap();
    let outside = dir.join("precious.txt");
    fs::write(&outside, "precious").unwrap();
    fs::create_dir(dir.join("tests")).unwrap();
    // The fixed temporary name the writer once used, planted as a link.
    std::os::unix::fs::symlink(&outside, dir.join("tests/.test_job.py.coco-tmp")).unwrap();
    let generate = |pytest: &str| {
        run(
            BIGTEST,
            &["generate", "job.py", "-o", "data", "--pytest", pytest],
            &dir,
        )
    };
    let (output, hung) = generate("tests/test_job.py");
    assert!(!hung && output.status.success(), "{}", stderr(&output));
    assert!(is_plain_file(&dir.join("tests/test_job.py")));
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");

    // A link or a FIFO at the module's own name is not a module coco wrote.
    std::os::unix::fs::symlink(&outside, dir.join("tests/test_linked.py")).unwrap();
    let (output, _) = generate("tests/test_linked.py");
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("is a symbolic link"),
        "{}",
        stderr(&output)
    );
    if mkfifo(&dir.join("tests/test_fifo.py")) {
        let (output, hung) = generate("tests/test_fifo.py");
        assert!(!hung, "--pytest FIFO waited");
        assert!(!output.status.success());
        assert!(stderr(&output).contains("a FIFO"), "{}", stderr(&output));
    }
    let (output, _) = generate("-");
    assert!(!output.status.success());
    assert!(!dir.join("-").exists());
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
    assert_eq!(leftovers(&dir.join("tests")), [".test_job.py.coco-tmp"]);
}

#[test]
fn tune_gemms_writes_only_a_new_file_or_a_tile_table() {
    let dir = scratch("tune");
    fs::write(dir.join("mm.mlir"), GEMM).unwrap();
    let cargo = "[package]\nname = \"mine\"\nversion = \"0.1.0\"\n";
    fs::write(dir.join("Cargo.toml"), cargo).unwrap();
    let (output, _) = run(TRANSLATE, &["mm.mlir", "--tune-gemms", "Cargo.toml"], &dir);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("not a GEMM tile table") && stderr(&output).contains("left alone"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fs::read_to_string(dir.join("Cargo.toml")).unwrap(), cargo);

    // A dangling link is replaced by the table, not followed.
    std::os::unix::fs::symlink(dir.join("made-through.toml"), dir.join("tiles.toml")).unwrap();
    let (output, _) = run(TRANSLATE, &["mm.mlir", "--tune-gemms", "tiles.toml"], &dir);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(is_plain_file(&dir.join("tiles.toml")));
    assert!(!dir.join("made-through.toml").exists());
    // And written again over itself, a table it wrote.
    let (output, _) = run(TRANSLATE, &["mm.mlir", "--tune-gemms", "tiles.toml"], &dir);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(leftovers(&dir).is_empty());
}
