//! The report `coco-bigtest generate` writes beside the test data: per JDU
//! path its status, branches and the records that cover it, as text for
//! people (`report.txt`) and JSON for tools (`report.json`).

use std::{collections::BTreeMap, fmt::Write as _};

use coco_dialects::bigtest::PathStatus;
use serde::{Serialize, Serializer};

use crate::{coverage::Summary, generate::PathSpec, testdata::TestRecord};

#[derive(Debug, Serialize)]
pub struct Report {
    pub program: String,
    /// Measured by running the program on the written data.
    pub summary: Summary,
    pub paths: Vec<PathReport>,
    pub records: Vec<RecordReport>,
}

#[derive(Debug, Serialize)]
pub struct PathReport {
    pub id: i64,
    #[serde(serialize_with = "status_keyword")]
    pub status: PathStatus,
    pub branches: Vec<String>,
    /// Places (`source:line` or `case-N/source:line`) of the records that
    /// cover the path.
    pub covered_by: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct RecordReport {
    pub case: usize,
    pub source: String,
    /// 1-based line in the source's file of its test case.
    pub line: usize,
    pub text: String,
    pub covers: Vec<i64>,
}

fn status_keyword<S: Serializer>(status: &PathStatus, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(status.keyword())
}

impl Report {
    pub fn new(
        program: &str,
        paths: &[(PathSpec, PathStatus)],
        records: &[TestRecord],
        summary: Summary,
    ) -> Report {
        let mut by_path: BTreeMap<i64, Vec<String>> = BTreeMap::new();
        let mut line_of: BTreeMap<(usize, &str), usize> = BTreeMap::new();
        let mut record_reports = Vec::new();
        for record in records {
            let line = line_of
                .entry((record.case, record.source.as_str()))
                .or_insert(0);
            *line += 1;
            let place = if record.case == 0 {
                format!("{}:{line}", record.source)
            } else {
                format!("case-{}/{}:{line}", record.case, record.source)
            };
            for id in &record.covers {
                by_path.entry(*id).or_default().push(place.clone());
            }
            record_reports.push(RecordReport {
                case: record.case,
                source: record.source.clone(),
                line: *line,
                text: record.text.clone(),
                covers: record.covers.clone(),
            });
        }
        Report {
            program: program.to_string(),
            summary,
            paths: paths
                .iter()
                .map(|(spec, status)| PathReport {
                    id: spec.id,
                    status: *status,
                    branches: spec.branches.clone(),
                    covered_by: by_path.remove(&spec.id).unwrap_or_default(),
                })
                .collect(),
            records: record_reports,
        }
    }

    /// `report.txt`.
    pub fn to_text(&self) -> String {
        let s = &self.summary;
        let mut text = format!(
            "BigTest report for @{}\n\n{} JDU paths: {} feasible, {} infeasible, {} unknown\n{}\n\n",
            self.program,
            s.paths,
            s.feasible,
            s.infeasible,
            s.unknown,
            s.covered_line()
        );
        for path in &self.paths {
            let _ = writeln!(text, "path {} [{}]", path.id, path.status);
            for branch in &path.branches {
                let _ = writeln!(text, "    {branch}");
            }
            if path.covered_by.is_empty() {
                let _ = writeln!(text, "  covered by: nothing\n");
            } else {
                let _ = writeln!(text, "  covered by: {}\n", path.covered_by.join(", "));
            }
        }
        text
    }

    /// `report.json`.
    pub fn to_json(&self) -> String {
        // Plain strings, numbers and lists: serialising cannot fail.
        let mut json = serde_json::to_string_pretty(self).unwrap_or_default();
        json.push('\n');
        json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        let paths = [
            (
                PathSpec {
                    id: 0,
                    branches: vec!["source#0".into(), "filter#1=pass".into()],
                    script: vec![],
                    keys: vec![],
                    records: vec![],
                },
                PathStatus::Sat,
            ),
            (
                PathSpec {
                    id: 1,
                    branches: vec!["source#0".into(), "filter#1=drop".into()],
                    script: vec![],
                    keys: vec![],
                    records: vec![],
                },
                PathStatus::Unsat,
            ),
        ];
        let records = [
            TestRecord {
                case: 0,
                source: "lines".into(),
                text: "a \"quoted\" line".into(),
                covers: vec![0],
            },
            TestRecord {
                case: 1,
                source: "lines".into(),
                text: "b".into(),
                covers: vec![0],
            },
        ];
        let summary = Summary::new(&paths, &std::collections::BTreeSet::from([0]));
        Report::new("p", &paths, &records, summary)
    }

    #[test]
    fn text_lists_each_path_with_the_records_that_cover_it() {
        assert_eq!(
            report().to_text(),
            "BigTest report for @p\n\n2 JDU paths: 1 feasible, 1 infeasible, 0 unknown\n\
covered: 1 of 1 paths not shown infeasible (100.0%)\n\npath 0 [sat]\n    source#0\n    filter#1=pass\n  covered by: lines:1, case-1/lines:1\n\n\
path 1 [unsat]\n    source#0\n    filter#1=drop\n  covered by: nothing\n\n"
        );
    }

    #[test]
    fn json_is_valid_and_escapes_text() {
        let value: serde_json::Value = serde_json::from_str(&report().to_json()).unwrap();
        assert_eq!(value["paths"][1]["status"], "unsat");
        assert_eq!(value["records"][0]["text"], "a \"quoted\" line");
        assert_eq!(value["records"][1]["line"], 1);
        assert_eq!(value["paths"][0]["covered_by"][1], "case-1/lines:1");
        assert_eq!(value["summary"]["coverable"], 1);
        assert_eq!(value["summary"]["unknown"], 0);
    }
}
