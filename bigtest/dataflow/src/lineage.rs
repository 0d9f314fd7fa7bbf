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

/// The class of a global `df.reduce` that no record reaches: Spark's
/// `reduce` throws on an empty dataset, so the path ends in a failure
/// (`reduce#4=empty=fail`) and no record follows it.
pub const EMPTY_REDUCE: &str = "empty=fail";

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

/// What the program's structure alone says about where the interpreter puts
/// a record in its dataset: one entry per union or join on the way back
/// from the dataset, most recent first (0: left-hand side, or matched; 1:
/// right-hand side, or unmatched right, which a join emits after all
/// others). Records read from sources come in file order, which test data
/// can choose, so the sources contribute nothing.
fn forced_order(lineage: &[Step]) -> Vec<u8> {
    let mut order = Vec::new();
    let mut steps = lineage;
    'lineage: loop {
        for step in steps.iter().rev() {
            match step {
                // UDF decisions carry `@f:`; classes are `op#i=class`.
                Step::Label(label) if !label.contains('@') => {
                    match label.rsplit_once('=').map(|(_, class)| class) {
                        Some("lhs" | "left-only") => order.push(0),
                        Some("rhs" | "right-only") => order.push(1),
                        _ => {}
                    }
                }
                Step::Label(_) => {}
                Step::Merge { label, inputs } => {
                    if label.ends_with("=both") {
                        order.push(0);
                    }
                    // A matched record sits where its left record does; a
                    // group where its first record does.
                    match inputs.first() {
                        Some(first) => {
                            steps = first;
                            continue 'lineage;
                        }
                        None => break 'lineage,
                    }
                }
            }
        }
        break;
    }
    order
}

/// Whether some input can make the interpreter present a record following
/// `first` before one following `second` in the same dataset (the order in
/// which reduce, group_by_key and distinct see them).
pub fn may_precede(first: &[Step], second: &[Step]) -> bool {
    let (a, b) = (forced_order(first), forced_order(second));
    match a.iter().zip(&b).find(|(x, y)| x != y) {
        Some((x, y)) => x < y,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(text: &str) -> Step {
        Step::Label(text.into())
    }

    fn both(left: Lineage, right: Lineage) -> Step {
        Step::Merge {
            label: "join#2=both".into(),
            inputs: vec![left, right],
        }
    }

    #[test]
    fn union_sides_keep_their_order() {
        let lhs = vec![label("source#0"), label("union#2=lhs")];
        let rhs = vec![label("source#1"), label("union#2=rhs")];
        assert!(may_precede(&lhs, &rhs));
        assert!(!may_precede(&rhs, &lhs));
        assert!(may_precede(&lhs, &lhs));
    }

    #[test]
    fn unmatched_right_records_come_last() {
        let matched = vec![both(vec![label("source#0")], vec![label("source#1")])];
        let unmatched = vec![label("source#1"), label("join#2=right-only")];
        let left_only = vec![label("source#0"), label("join#2=left-only")];
        assert!(may_precede(&matched, &unmatched));
        assert!(!may_precede(&unmatched, &matched));
        // Matched and unmatched left records follow the left input's order.
        assert!(may_precede(&left_only, &matched));
        assert!(may_precede(&matched, &left_only));
    }

    #[test]
    fn udf_decisions_do_not_order() {
        let a = vec![label("source#0"), label("map#1@f:if#2=then")];
        let b = vec![label("source#0"), label("map#1@f:if#2=else")];
        assert!(may_precede(&a, &b) && may_precede(&b, &a));
    }
}
