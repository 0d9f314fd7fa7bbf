//! The JDU path a record follows, as both the interpreter and the symbolic
//! executor build it: the operator classes and UDF decisions in dataflow
//! order, with the lineages of the records an operator combines (join,
//! reduce, group, distinct) nested inside its step. Two runs follow the same
//! JDU path exactly when their rendered steps are equal.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// One decision: `filter#2=pass`, `map#1@parse:to_int#3=fail`.
    Label(String),
    /// An operator class combining several records: `join#3=both`.
    Merge { label: String, inputs: Vec<Lineage> },
}

pub type Lineage = Vec<Step>;

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Step::Label(label) => write!(f, "{label}"),
            Step::Merge { label, inputs } => {
                let inputs: Vec<String> = inputs.iter().map(|l| render(l).join(", ")).collect();
                write!(f, "{label}{{{}}}", inputs.join(" | "))
            }
        }
    }
}

/// The steps as the `branches` of a `bigtest.jdu_path`.
pub fn render(lineage: &[Step]) -> Vec<String> {
    lineage.iter().map(|s| s.to_string()).collect()
}

/// The identity of a path: its rendered branches, joined.
pub fn path_key(branches: &[String]) -> String {
    branches.join(" ; ")
}

/// A source record a run read: source name and 0-based record index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    pub source: String,
    pub index: usize,
}
