//! Test data on disk: the records `bigtest-emit` produced, written as one
//! file per source in the source's own text format, one directory per test
//! case (`DIR` for case 0, `DIR/case-N` for the others).

use std::path::{Path, PathBuf};

use coco_dataflow::{
    io::data_file_name,
    model::{OpKind, Program},
};

/// One `bigtest.test_record`: a line of a source's file in a test case.
#[derive(Clone, Debug, PartialEq)]
pub struct TestRecord {
    pub case: usize,
    pub source: String,
    pub text: String,
    /// The JDU path ids this record makes the program follow.
    pub covers: Vec<i64>,
}

/// The data directories of a generated test set: `dir`, then `dir/case-N`
/// for N = 1, 2, ... as long as they exist.
pub fn case_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![dir.to_path_buf()];
    for n in 1.. {
        let case = dir.join(format!("case-{n}"));
        if !case.is_dir() {
            break;
        }
        dirs.push(case);
    }
    dirs
}

/// The number of test cases `records` span (at least one).
pub fn case_count(records: &[TestRecord]) -> usize {
    records.iter().map(|r| r.case + 1).max().unwrap_or(1)
}

/// Writes every source's records under `dir`; returns the number of test
/// cases.
pub fn write(program: &Program, records: &[TestRecord], dir: &Path) -> Result<usize, String> {
    let cases = case_count(records);
    // Cases of an earlier run would read as part of this test set.
    for stale in case_dirs(dir).into_iter().skip(1) {
        std::fs::remove_dir_all(&stale)
            .map_err(|e| format!("cannot remove {}: {e}", stale.display()))?;
    }
    for case in 0..cases {
        let case_dir = if case == 0 {
            dir.to_path_buf()
        } else {
            dir.join(format!("case-{case}"))
        };
        std::fs::create_dir_all(&case_dir)
            .map_err(|e| format!("cannot create {}: {e}", case_dir.display()))?;
        for (_, op) in program.sources() {
            let OpKind::Source { name, .. } = &op.kind else {
                continue;
            };
            let file = case_dir.join(data_file_name(&op.kind).unwrap_or_default());
            let mut text = String::new();
            for record in records
                .iter()
                .filter(|r| r.case == case && &r.source == name)
            {
                text.push_str(&record.text);
                text.push('\n');
            }
            std::fs::write(&file, text)
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        }
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(case: usize) -> TestRecord {
        TestRecord {
            case,
            source: "lines".into(),
            text: "a".into(),
            covers: vec![0],
        }
    }

    #[test]
    fn cases_count_from_the_highest_case() {
        assert_eq!(case_count(&[]), 1);
        assert_eq!(case_count(&[record(0), record(2), record(1)]), 3);
    }

    #[test]
    fn case_dirs_stop_at_the_first_gap() {
        let dir = std::env::temp_dir().join(format!("coco-testdata-{}", std::process::id()));
        for case in ["case-1", "case-2", "case-4"] {
            std::fs::create_dir_all(dir.join(case)).unwrap();
        }
        let dirs = case_dirs(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(dirs, [dir.clone(), dir.join("case-1"), dir.join("case-2")]);
    }
}
