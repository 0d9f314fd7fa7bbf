//! The counts per category and the failures worth a look, printed as the
//! table docs/reliability.md holds.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::process::Verdict;

#[derive(Default, Clone, Copy)]
pub struct Counts {
    pub inputs: usize,
    pub ok: usize,
    pub clean_errors: usize,
    pub crashes: usize,
    pub hangs: usize,
    pub wrong: usize,
}

impl Counts {
    pub fn failures(&self) -> usize {
        self.crashes + self.hangs + self.wrong
    }

    fn add(&mut self, other: &Counts) {
        self.inputs += other.inputs;
        self.ok += other.ok;
        self.clean_errors += other.clean_errors;
        self.crashes += other.crashes;
        self.hangs += other.hangs;
        self.wrong += other.wrong;
    }
}

/// One failing input: where it is kept and why it failed.
pub struct Failure {
    pub category: &'static str,
    pub case: String,
    pub verdict: Verdict,
    pub detail: String,
}

#[derive(Default)]
pub struct Tally {
    pub categories: BTreeMap<&'static str, Counts>,
    pub failures: Vec<Failure>,
}

impl Tally {
    /// Counts one input; failures keep `case` (a file or a description to
    /// replay) and the first lines of `detail` (usually stderr).
    pub fn record(&mut self, category: &'static str, case: &str, verdict: Verdict, detail: &str) {
        let counts = self.categories.entry(category).or_default();
        counts.inputs += 1;
        match &verdict {
            Verdict::Ok => counts.ok += 1,
            Verdict::CleanError => counts.clean_errors += 1,
            Verdict::Crash(_) => counts.crashes += 1,
            Verdict::Hang(_) => counts.hangs += 1,
            Verdict::Wrong(_) => counts.wrong += 1,
        }
        if matches!(
            verdict,
            Verdict::Crash(_) | Verdict::Hang(_) | Verdict::Wrong(_)
        ) {
            let detail: String = detail.lines().take(6).collect::<Vec<_>>().join("\n");
            self.failures.push(Failure {
                category,
                case: case.to_string(),
                verdict,
                detail,
            });
        }
    }

    pub fn total(&self) -> Counts {
        let mut total = Counts::default();
        for counts in self.categories.values() {
            total.add(counts);
        }
        total
    }

    /// A Markdown table: one row per category and a total.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "| category | inputs | ok | clean errors | crashes | hangs | silent wrong |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
        let row = |out: &mut String, name: &str, c: &Counts| {
            let _ = writeln!(
                out,
                "| {name} | {} | {} | {} | {} | {} | {} |",
                c.inputs, c.ok, c.clean_errors, c.crashes, c.hangs, c.wrong
            );
        };
        for (name, counts) in &self.categories {
            row(&mut out, name, counts);
        }
        row(&mut out, "**total**", &self.total());
        out
    }

    /// Every failure, for the log.
    pub fn failure_report(&self) -> String {
        let mut out = String::new();
        for f in &self.failures {
            let verdict = match &f.verdict {
                Verdict::Crash(why) => format!("crash ({why})"),
                Verdict::Hang(why) => format!("hang ({why})"),
                Verdict::Wrong(why) => format!("silent wrong ({why})"),
                other => format!("{other:?}"),
            };
            let _ = writeln!(out, "[{}] {}: {verdict}", f.category, f.case);
            for line in f.detail.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
        out
    }
}
