//! Corrupt bundles: one edit of plan.toml (a number set to an extreme or
//! off by one, a string swapped for another of the file or for a path that
//! leaves the output folder, a line deleted, duplicated or swapped, the file
//! cut short) or a broken kernels.so. Run by coco-run: either a clean error,
//! or the pristine outputs (the same contents, whatever the names), and
//! nothing written outside the output folder.

use super::{copy_dir, keep, read_outputs, Category, Env, Outcome};
use crate::cases::npy::Fixture;
use crate::mangle::Rng;
use crate::process::Verdict;

pub struct Plan {
    pub fixture: Fixture,
}

/// Where an output named with an absolute path would land.
fn absolute_escape(index: usize) -> String {
    format!("/tmp/coco-fault-escape-{}-{index}", std::process::id())
}

/// One edit of the plan text; a description of it.
fn edit(text: &str, rng: &mut Rng, index: usize) -> (String, String) {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let strings: Vec<String> = text
        .split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect();
    let values: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(" = "))
        .collect();
    let at = if values.is_empty() {
        0
    } else {
        values[rng.below(values.len())]
    };
    let what = match rng.below(9) {
        0..=2 => {
            // A number.
            let numbers = [
                "0",
                "1",
                "2",
                "3",
                "-1",
                "4294967296",
                "18446744073709551615",
                "9223372036854775807",
                "1.5",
                "64",
                "65",
                "1000000000000",
            ];
            let n = numbers[rng.below(numbers.len())];
            let line = &lines[at];
            let digits: Vec<(usize, usize)> = digit_spans(line);
            if digits.is_empty() {
                return (lines.join("\n"), "no number on the line".into());
            }
            let (a, b) = digits[rng.below(digits.len())];
            lines[at] = format!("{}{n}{}", &line[..a], &line[b..]);
            format!("line {}: number -> {n}", at + 1)
        }
        3..=4 => {
            // A string.
            let escape = absolute_escape(index);
            let tricks = [
                "../../escaped",
                "a/../../../escaped",
                escape.as_str(),
                "",
                ".",
                "..",
                "x\\u0000y",
                "scalar",
                "buffer",
                "f64",
                "bf16",
                "i1",
                "sliced",
            ];
            let line = &lines[at];
            let quotes: Vec<usize> = line.match_indices('"').map(|(i, _)| i).collect();
            if quotes.len() < 2 {
                return (lines.join("\n"), "no string on the line".into());
            }
            let pair = rng.below(quotes.len() / 2) * 2;
            let replacement = if rng.below(2) == 0 && !strings.is_empty() {
                strings[rng.below(strings.len())].clone()
            } else {
                tricks[rng.below(tricks.len())].to_string()
            };
            lines[at] = format!(
                "{}\"{replacement}\"{}",
                &line[..quotes[pair]],
                &line[quotes[pair + 1] + 1..]
            );
            format!("line {}: string -> {replacement:?}", at + 1)
        }
        5 => {
            let removed = lines.remove(at);
            format!("line {} deleted: {removed}", at + 1)
        }
        6 => {
            let line = lines[at].clone();
            lines.insert(at, line);
            format!("line {} duplicated", at + 1)
        }
        7 => {
            let other = rng.below(lines.len());
            lines.swap(at, other);
            format!("lines {} and {} swapped", at + 1, other + 1)
        }
        _ => {
            let cut = rng.below(lines.len());
            lines.truncate(cut);
            format!("cut after line {cut}")
        }
    };
    (lines.join("\n") + "\n", what)
}

fn digit_spans(line: &str) -> Vec<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit()
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'_')
        {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if i == bytes.len() || !bytes[i].is_ascii_alphabetic() {
                spans.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    spans
}

impl Category for Plan {
    fn name(&self) -> &'static str {
        "corrupt bundle"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let mut rng = env.rng(self.name(), index);
        let sandbox = env.sandbox("plan", index);
        let bundle = sandbox.path("bundle");
        let _ = copy_dir(&self.fixture.bundle, &bundle);
        let plan_path = bundle.join("plan.toml");
        let (what, edited) = if rng.below(12) == 0 {
            let so = bundle.join("kernels.so");
            let bytes = std::fs::read(&so).unwrap_or_default();
            let cut = rng.below(bytes.len().max(1));
            let _ = std::fs::write(&so, &bytes[..cut]);
            (format!("kernels.so cut to {cut} bytes"), None)
        } else {
            let text = std::fs::read_to_string(&plan_path).unwrap_or_default();
            let (edited, what) = edit(&text, &mut rng, index);
            let _ = std::fs::write(&plan_path, &edited);
            (what, Some(edited))
        };
        let before = sandbox.snapshot();
        let inputs = self.fixture.inputs.display().to_string();
        // Outputs two levels down, so that `../../x` lands inside the sandbox.
        let args = [
            "bundle",
            "--ranks",
            "2",
            "--inputs",
            inputs.as_str(),
            "--outputs",
            "a/b/out",
        ];
        let (job, invocation) = env.invoke("coco-run", &args, &sandbox);
        let command = format!("coco-run bundle ({what})");
        let Ok(run) = invocation.run() else {
            return Outcome {
                case: command,
                verdict: Verdict::Crash("cannot start coco-run".into()),
                detail: String::new(),
            };
        };
        let escape = absolute_escape(index);
        let verdict = env.judge(&job, &run, |v| {
            let outside = sandbox.changes_outside(&before, &["a/b/out", "bundle"]);
            if std::path::Path::new(&escape).exists() {
                let _ = std::fs::remove_file(&escape);
                return Verdict::Wrong(format!("wrote {escape}, outside the output folder"));
            }
            if !outside.is_empty() {
                return Verdict::Wrong(format!(
                    "outside the output folder: {}",
                    outside.join(", ")
                ));
            }
            if v == Verdict::Ok {
                let mut got: Vec<Vec<u8>> = read_outputs(&sandbox.path("a/b/out"))
                    .into_values()
                    .collect();
                let mut want: Vec<Vec<u8>> = self.fixture.cpu_outputs.values().cloned().collect();
                got.sort();
                want.sort();
                if got != want {
                    return Verdict::Wrong(
                        "ran a corrupt plan and computed different outputs".into(),
                    );
                }
            }
            v
        });
        let case = match (&verdict, &edited) {
            (Verdict::Ok | Verdict::CleanError, _) => command,
            (_, Some(text)) => format!(
                "{command}  (plan: {})",
                keep(env, "plan", index, "plan.toml", text.as_bytes())
            ),
            _ => command,
        };
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
