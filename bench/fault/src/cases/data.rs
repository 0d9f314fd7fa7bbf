//! Big and special data files for `coco-bigtest run`, `coverage` and
//! `mutate` (wordcount, whose one source reads `lines.txt` from `--data`):
//! a FIFO, a link to /dev/zero, a folder, a sparse 1 GB file and a 200 MB
//! one must be refused with a clean error that names the limit, never read
//! until memory runs out or block; data as spreadsheets export it (a BOM,
//! lone `\r`, invalid UTF-8) and 200,000 lines within the limit must run;
//! and escape sequences in a data line must not reach the terminal raw.

use std::io::Write;
use std::time::Duration;

use super::{Category, Env, Outcome};
use crate::process::Verdict;

pub struct Data;

#[derive(Clone, Copy, Debug)]
enum File {
    Fifo,
    DevZero,
    Folder,
    Sparse1G,
    Big200M,
    Spreadsheet,
    Lines200k,
    Escapes,
}

const FILES: &[File] = &[
    File::Fifo,
    File::DevZero,
    File::Folder,
    File::Sparse1G,
    File::Big200M,
    File::Spreadsheet,
    File::Lines200k,
    File::Escapes,
];

const COMMANDS: &[&str] = &["run", "coverage", "mutate"];

/// Peak memory a run within the data limit may take.
const PEAK_LIMIT: u64 = 4 << 30;

fn make(file: File, path: &std::path::Path) -> std::io::Result<()> {
    match file {
        File::Fifo => {
            let status = std::process::Command::new("mkfifo").arg(path).status()?;
            if !status.success() {
                return Err(std::io::Error::other("mkfifo failed"));
            }
        }
        File::DevZero => std::os::unix::fs::symlink("/dev/zero", path)?,
        File::Folder => std::fs::create_dir_all(path)?,
        File::Sparse1G => std::fs::File::create(path)?.set_len(1 << 30)?,
        File::Big200M => {
            let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
            let line = b"the quick brown fox jumps over the lazy dog\n";
            for _ in 0..(200 << 20) / line.len() {
                out.write_all(line)?;
            }
            out.flush()?;
        }
        File::Spreadsheet => std::fs::write(
            path,
            b"\xef\xbb\xbfalpha beta\rgamma\r\ndelta \xff\xfe epsilon\n\n",
        )?,
        File::Lines200k => {
            let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
            for i in 0..200_000 {
                writeln!(out, "w{} x{}", i % 97, i % 13)?;
            }
            out.flush()?;
        }
        File::Escapes => std::fs::write(path, b"\x1b[2J\x1b[Hcleared\tscreen\x07\n")?,
    }
    Ok(())
}

/// Whether `file` must be refused (else it must run).
fn refused(file: File) -> bool {
    matches!(
        file,
        File::Fifo | File::DevZero | File::Folder | File::Sparse1G | File::Big200M
    )
}

impl Category for Data {
    fn name(&self) -> &'static str {
        "big and special data files"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let file = FILES[index % FILES.len()];
        let command = COMMANDS[(index / FILES.len()) % COMMANDS.len()];
        let sandbox = env.sandbox("data", index);
        let program = env.example("bigtest/wordcount.mlir");
        let case =
            format!("coco-bigtest {command} wordcount.mlir --data DIR, DIR/lines.txt {file:?}");
        let data = sandbox.path("data");
        if let Err(e) =
            std::fs::create_dir_all(&data).and_then(|()| make(file, &data.join("lines.txt")))
        {
            return Outcome::not_run(case, format!("cannot make the data: {e}"));
        }
        let args = [command, program.as_str(), "--data", "data"];
        let (job, mut invocation) = env.invoke("coco-bigtest", &args, &sandbox);
        if matches!(file, File::Lines200k) {
            invocation.timeout = invocation.timeout.max(Duration::from_secs(600));
        }
        let run = match invocation.run() {
            Ok(run) => run,
            Err(e) => return Outcome::not_run(case, format!("cannot start: {e}")),
        };
        let verdict = env.judge(&job, &run, |verdict| {
            let printed = [&run.stdout[..], &run.stderr[..]].concat();
            if printed.contains(&0x1b) || printed.contains(&0x07) {
                return Verdict::Wrong(
                    "a control character of the data reached the terminal".into(),
                );
            }
            if run.peak_rss > PEAK_LIMIT {
                return Verdict::Wrong(format!("peak memory {} MB", run.peak_rss >> 20));
            }
            match (refused(file), verdict) {
                (true, Verdict::Ok) => Verdict::Wrong(format!("read a {file:?} as data")),
                (true, Verdict::CleanError) => {
                    let text = run.stderr_text();
                    if text.contains("lines.txt") {
                        Verdict::CleanError
                    } else {
                        Verdict::Wrong("the refusal does not name the file".into())
                    }
                }
                // A failing case (a run whose UDF throws) is a result, not
                // a refusal of the data: coco-bigtest run exits non-zero
                // with the job's error.
                (false, v) => v,
                (true, v) => v,
            }
        });
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
