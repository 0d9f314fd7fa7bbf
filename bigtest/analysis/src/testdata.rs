//! Test data on disk: the records `bigtest-emit` produced, written as one
//! file per source in the source's own text format, one directory per test
//! case (`DIR` for case 0, `DIR/case-N` for the others).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use coco_dataflow::{
    io::data_file_name,
    model::{OpKind, Program},
};
use coco_dialects::df::names::{plain_file_name, TEST_DATA};

use crate::output::OutputFolder;

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

/// Writes every source's records into `staged`, under `prefix` (the
/// program's folder when a module holds several); returns the number of
/// test cases. Two sources with one file name are an error naming both.
pub fn write(
    program: &Program,
    records: &[TestRecord],
    prefix: &Path,
    staged: &mut OutputFolder,
) -> crate::Result<usize> {
    let cases = case_count(records);
    let mut texts: BTreeMap<(usize, &str), String> = BTreeMap::new();
    for record in records {
        let text = texts.entry((record.case, &record.source)).or_default();
        text.push_str(&record.text);
        text.push('\n');
    }
    for case in 0..cases {
        let case_dir = if case == 0 {
            prefix.to_path_buf()
        } else {
            prefix.join(format!("case-{case}"))
        };
        for (_, op) in program.sources() {
            let OpKind::Source { name, .. } = &op.kind else {
                continue;
            };
            let file_name = data_file_name(&op.kind).unwrap_or_default();
            let owner = format!("source \"{name}\" at {}", op.loc);
            plain_file_name(&file_name, TEST_DATA).map_err(|problem| {
                crate::Error::DataFileName {
                    owner: owner.clone(),
                    problem,
                }
            })?;
            let text = texts.get(&(case, name.as_str())).map_or("", String::as_str);
            staged.write(&case_dir.join(file_name), &owner, text)?;
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
