//! Mutation operators for df programs, modelled on fault classes seen in real
//! Spark bugs: a test suite that cannot tell a mutant from the original would
//! not catch that kind of bug either.
//!
//! Every mutant changes one thing and stays well typed, so the interpreter
//! runs it and any difference is a difference in behaviour, never a crash of
//! the tooling. A mutation inside a UDF changes the one `Udf` in
//! [`Program::udfs`] that every caller shares, which is why mutants name UDF
//! ops by UDF (`@parse cmpi#5`) rather than by dataset op.

use std::collections::BTreeSet;

use crate::model::{
    Cmp, FloatBinOp, IntBinOp, JoinKind, Op, OpKind, Program, Region, Udf, UdfOp, ValueId,
};

pub const WRONG_FIELD_OFFSET: &str = "wrong field offset";
pub const WRONG_COLUMN: &str = "wrong column";
pub const WRONG_DELIMITER: &str = "wrong delimiter";
pub const WRONG_COMPARISON: &str = "wrong comparison";
pub const WRONG_JOIN_TYPE: &str = "wrong join type";
pub const SWAPPED_KEY_AND_VALUE: &str = "swapped key and value";
pub const ARITHMETIC_OPERATOR: &str = "arithmetic operator";

/// Every fault class [`mutants`] produces, for reports that list all of them
/// even when a program offers none of some class.
pub const CLASSES: [&str; 7] = [
    WRONG_FIELD_OFFSET,
    WRONG_COLUMN,
    WRONG_DELIMITER,
    WRONG_COMPARISON,
    WRONG_JOIN_TYPE,
    SWAPPED_KEY_AND_VALUE,
    ARITHMETIC_OPERATOR,
];

/// Delimiters a wrong-delimiter mutant picks from: the ones real data files
/// use, so the mutant is a plausible mistake.
const DELIMITERS: [&str; 5] = [",", ";", "\t", " ", "|"];

/// Wrong-column mutants per UDF: the pairs grow quadratically with the
/// parameters, and a few already show whether tests tell columns apart.
const MAX_WRONG_COLUMN: usize = 4;

#[derive(Clone, Debug)]
pub struct Mutant {
    /// Fault class: one of [`CLASSES`].
    pub class: &'static str,
    /// What changed, for people: `@parse cmpi#4: gt -> ge`,
    /// `join#3: inner -> left_outer`, `@parse split#1: "," -> ";"`. The part
    /// before `": "` names every changed op.
    pub description: String,
    /// Location (the `loc` of the mutated op or dataset op; the first one
    /// where a mutation touches several).
    pub loc: String,
    pub program: Program,
}

/// All mutants of `program`, by dataset op order, then UDF name, then op id.
/// Only UDFs the dataset ops reach (directly or through calls) are mutated,
/// each once however often it is used: mutating dead code only makes
/// mutants no test can kill.
pub fn mutants(program: &Program) -> Vec<Mutant> {
    let map_udfs: BTreeSet<&str> = program
        .ops
        .iter()
        .filter_map(|op| match &op.kind {
            OpKind::Map { udf } => Some(udf.as_str()),
            _ => None,
        })
        .collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (id, op) in program.ops.iter().enumerate() {
        dataset_mutants(program, id, &mut out);
        let Some(root) = op.udf() else { continue };
        let mut fresh = BTreeSet::new();
        reach(program, root, &mut seen, &mut fresh);
        for name in fresh {
            let udf = &program.udfs[name];
            udf_mutants(program, udf, map_udfs.contains(name), &mut out);
        }
    }
    out
}

/// Adds `name` and its callees not yet in `seen` to both sets.
fn reach<'p>(
    program: &'p Program,
    name: &str,
    seen: &mut BTreeSet<&'p str>,
    fresh: &mut BTreeSet<&'p str>,
) {
    // Keyed by the map's own string so the sets can outlive `name`.
    let Some((name, udf)) = program.udfs.get_key_value(name) else {
        return;
    };
    if !seen.insert(name) {
        return;
    }
    fresh.insert(name);
    let mut callees = Vec::new();
    udf.body.walk(&mut |op| {
        if let UdfOp::Call { callee } = &op.kind {
            callees.push(callee.as_str());
        }
    });
    for callee in callees {
        reach(program, callee, seen, fresh);
    }
}

fn walk_mut<F: FnMut(&mut Op)>(region: &mut Region, f: &mut F) {
    for block in &mut region.blocks {
        for op in &mut block.ops {
            f(op);
            for nested in &mut op.regions {
                walk_mut(nested, f);
            }
        }
    }
}

/// Ops of a UDF by id (pre-order), nested regions included.
fn ops_of(udf: &Udf) -> Vec<&Op> {
    let mut ops = Vec::new();
    udf.body.walk(&mut |op| ops.push(op));
    ops.sort_by_key(|op| op.id);
    ops
}

fn label(op: &Op) -> String {
    format!("{}#{}", op.kind.name(), op.id)
}

fn dataset_mutants(program: &Program, id: usize, out: &mut Vec<Mutant>) {
    let op = &program.ops[id];
    let at = program.op_label(id);
    match &op.kind {
        // A single-field record is the whole line: its delimiter is never
        // used, so changing it could not change behaviour.
        OpKind::Source { delimiter, .. } if op.fields.len() > 1 => {
            let wrong = other_delimiter(delimiter);
            let mut mutated = program.clone();
            if let OpKind::Source { delimiter, .. } = &mut mutated.ops[id].kind {
                *delimiter = wrong.to_string();
            }
            out.push(Mutant {
                class: WRONG_DELIMITER,
                description: format!("{at}: {delimiter:?} -> {wrong:?}"),
                loc: op.loc.clone(),
                program: mutated,
            });
        }
        OpKind::Join { kind, keys } => {
            // The BigTest paper's wrong-join class among its three kinds:
            // full_outer is not a mutant target, so scores stay comparable.
            let targets = JoinKind::ALL
                .into_iter()
                .filter(|k| k != kind && *k != JoinKind::FullOuter);
            for other in targets {
                let mut mutated = program.clone();
                mutated.ops[id].kind = OpKind::Join {
                    kind: other,
                    keys: *keys,
                };
                out.push(Mutant {
                    class: WRONG_JOIN_TYPE,
                    description: format!("{at}: {} -> {}", kind.name(), other.name()),
                    loc: op.loc.clone(),
                    program: mutated,
                });
            }
        }
        _ => {}
    }
}

fn other_delimiter(delimiter: &str) -> &'static str {
    DELIMITERS
        .into_iter()
        .find(|d| *d != delimiter)
        .expect("the delimiters differ from each other")
}

/// A copy of `program` with `change` applied to UDF `name`.
fn with_udf(program: &Program, name: &str, change: impl FnOnce(&mut Udf)) -> Program {
    let mut mutated = program.clone();
    if let Some(udf) = mutated.udfs.get_mut(name) {
        change(udf);
    }
    mutated
}

fn udf_mutants(program: &Program, udf: &Udf, is_map: bool, out: &mut Vec<Mutant>) {
    let name = &udf.name;
    let ops = ops_of(udf);
    // Keyed by the op id each mutant belongs to, so whole-UDF mutations sit
    // among the per-op ones in op order.
    let mut found: Vec<(usize, Mutant)> = Vec::new();

    for (first, mutant) in wrong_columns(program, udf, &ops) {
        found.push((first, mutant));
    }

    for op in &ops {
        for (class, kind, change) in alternatives(&op.kind) {
            let id = op.id;
            let mutated = with_udf(program, name, |udf| {
                walk_mut(&mut udf.body, &mut |op| {
                    if op.id == id {
                        op.kind = kind.clone();
                    }
                })
            });
            found.push((
                id,
                Mutant {
                    class,
                    description: format!("@{name} {}: {change}", label(op)),
                    loc: op.loc.clone(),
                    program: mutated,
                },
            ));
        }
    }

    if is_map {
        if let Some(swap) = swapped_key_value(program, udf) {
            found.push(swap);
        }
    }

    found.sort_by_key(|(id, _)| *id);
    out.extend(found.into_iter().map(|(_, mutant)| mutant));
}

/// The single-op replacements of `kind`: class, new kind, and the change in
/// words.
fn alternatives(kind: &UdfOp) -> Vec<(&'static str, UdfOp, String)> {
    match kind {
        UdfOp::Get { index, checked } => {
            let mut shifted = vec![index + 1];
            if *index > 0 {
                shifted.push(index - 1);
            }
            shifted
                .into_iter()
                .map(|i| {
                    let change = format!("index {index} -> {i}");
                    let get = UdfOp::Get {
                        index: i,
                        checked: *checked,
                    };
                    (WRONG_FIELD_OFFSET, get, change)
                })
                .collect()
        }
        UdfOp::Split { delimiter } => {
            let wrong = other_delimiter(delimiter);
            vec![(
                WRONG_DELIMITER,
                UdfOp::Split {
                    delimiter: wrong.to_string(),
                },
                format!("{delimiter:?} -> {wrong:?}"),
            )]
        }
        UdfOp::CmpInt(cmp) => wrong_comparisons(*cmp)
            .into_iter()
            .map(|c| (WRONG_COMPARISON, UdfOp::CmpInt(c), cmp_change(*cmp, c)))
            .collect(),
        UdfOp::CmpFloat(cmp) => wrong_comparisons(*cmp)
            .into_iter()
            .map(|c| (WRONG_COMPARISON, UdfOp::CmpFloat(c), cmp_change(*cmp, c)))
            .collect(),
        UdfOp::IntBin(op) => {
            use IntBinOp::*;
            let wrong = match op {
                Add => Sub,
                Sub => Add,
                Mul => Add,
                Div => Mul,
                Rem => Div,
                FloorDiv => Mul,
                Mod => FloorDiv,
                Max => Min,
                Min => Max,
                // Bitwise ops on i1 are the boolean connectives; swapping
                // them is a logic fault, not an arithmetic one.
                And | Or | Xor => return Vec::new(),
            };
            let change = format!("{} -> {}", int_name(*op), int_name(wrong));
            vec![(ARITHMETIC_OPERATOR, UdfOp::IntBin(wrong), change)]
        }
        UdfOp::FloatBin(op) => {
            use FloatBinOp::*;
            let wrong = match op {
                Add => Sub,
                Sub => Add,
                Mul => Div,
                Div | TrueDiv => Mul,
                Max => Min,
                Min => Max,
            };
            let change = format!("{} -> {}", float_name(*op), float_name(wrong));
            vec![(ARITHMETIC_OPERATOR, UdfOp::FloatBin(wrong), change)]
        }
        _ => Vec::new(),
    }
}

/// The off-by-one boundary first, then the negation where it differs.
fn wrong_comparisons(cmp: Cmp) -> Vec<Cmp> {
    use Cmp::*;
    match cmp {
        Lt => vec![Le, Ge],
        Le => vec![Lt, Gt],
        Gt => vec![Ge, Le],
        Ge => vec![Gt, Lt],
        Eq => vec![Ne],
        Ne => vec![Eq],
    }
}

fn cmp_change(from: Cmp, to: Cmp) -> String {
    format!("{} -> {}", from.name(), to.name())
}

fn int_name(op: IntBinOp) -> &'static str {
    match op {
        IntBinOp::Add => "add",
        IntBinOp::Sub => "sub",
        IntBinOp::Mul => "mul",
        IntBinOp::Div => "div",
        IntBinOp::Rem => "rem",
        IntBinOp::FloorDiv => "floordiv",
        IntBinOp::Mod => "mod",
        IntBinOp::And => "and",
        IntBinOp::Or => "or",
        IntBinOp::Xor => "xor",
        IntBinOp::Max => "max",
        IntBinOp::Min => "min",
    }
}

fn float_name(op: FloatBinOp) -> &'static str {
    match op {
        FloatBinOp::Add => "add",
        FloatBinOp::Sub => "sub",
        FloatBinOp::Mul => "mul",
        FloatBinOp::Div => "div",
        FloatBinOp::TrueDiv => "truediv",
        FloatBinOp::Max => "max",
        FloatBinOp::Min => "min",
    }
}

/// Every use of parameter `i` read from parameter `j` instead, for
/// same-typed pairs; each paired with the id of the first op it changes.
fn wrong_columns(program: &Program, udf: &Udf, ops: &[&Op]) -> Vec<(usize, Mutant)> {
    let Some(entry) = udf.body.blocks.first() else {
        return Vec::new();
    };
    // Parameters are the entry block's arguments; a UDF whose two lists
    // disagree is malformed, and pairing only what both cover keeps the
    // mutants well typed anyway.
    let params: Vec<(ValueId, _)> = entry.args.iter().copied().zip(&udf.params).collect();
    let mut out = Vec::new();
    for (i, &(from, from_ty)) in params.iter().enumerate() {
        for (j, &(to, to_ty)) in params.iter().enumerate() {
            if out.len() == MAX_WRONG_COLUMN {
                return out;
            }
            if i == j || from_ty != to_ty {
                continue;
            }
            let users: Vec<&&Op> = ops
                .iter()
                .filter(|op| op.operands.contains(&from))
                .collect();
            // An unused parameter makes an equivalent mutant.
            let Some(first) = users.first() else { continue };
            let labels: Vec<String> = users.iter().map(|op| label(op)).collect();
            let mutated = with_udf(program, &udf.name, |udf| {
                walk_mut(&mut udf.body, &mut |op| {
                    for operand in &mut op.operands {
                        if *operand == from {
                            *operand = to;
                        }
                    }
                })
            });
            out.push((
                first.id,
                Mutant {
                    class: WRONG_COLUMN,
                    description: format!("@{} {}: arg#{i} -> arg#{j}", udf.name, labels.join(", ")),
                    loc: first.loc.clone(),
                    program: mutated,
                },
            ));
        }
    }
    out
}

/// The first two results of a map UDF swapped where they share a type:
/// a pair built as (value, key) instead of (key, value) still type-checks,
/// and then keys the wrong field downstream.
fn swapped_key_value(program: &Program, udf: &Udf) -> Option<(usize, Mutant)> {
    if udf.results.len() < 2 || udf.results[0] != udf.results[1] {
        return None;
    }
    // Only the top-level blocks return from the UDF; nested regions yield.
    let returns: Vec<&Op> = udf
        .body
        .blocks
        .iter()
        .flat_map(|b| &b.ops)
        .filter(|op| op.kind == UdfOp::Return && op.operands.len() >= 2)
        .collect();
    // Returning one value twice makes the swap an equivalent mutant.
    if returns.iter().all(|op| op.operands[0] == op.operands[1]) {
        return None;
    }
    let first = returns[0];
    let labels: Vec<String> = returns.iter().map(|op| label(op)).collect();
    let mutated = with_udf(program, &udf.name, |udf| {
        for block in &mut udf.body.blocks {
            for op in &mut block.ops {
                if op.kind == UdfOp::Return && op.operands.len() >= 2 {
                    op.operands.swap(0, 1);
                }
            }
        }
    });
    Some((
        first.id,
        Mutant {
            class: SWAPPED_KEY_AND_VALUE,
            description: format!("@{} {}: results 0 <-> 1", udf.name, labels.join(", ")),
            loc: first.loc.clone(),
            program: mutated,
        },
    ))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::{
        interp::{self, Error},
        model::{Block, Const, DatasetOp, Ty},
    };

    fn op(id: usize, kind: UdfOp, operands: &[ValueId], results: &[ValueId]) -> Op {
        Op {
            id,
            kind,
            operands: operands.to_vec(),
            results: results.to_vec(),
            regions: Vec::new(),
            loc: String::new(),
        }
    }

    fn region(ops: Vec<Op>) -> Region {
        Region {
            blocks: vec![Block {
                args: Vec::new(),
                ops,
            }],
        }
    }

    /// A UDF whose parameters are values `0..params.len()`; every op gets a
    /// loc of its own so tests can tell which op a mutant points at.
    fn udf(name: &str, params: Vec<Ty>, results: Vec<Ty>, values: usize, ops: Vec<Op>) -> Udf {
        let mut body = Region {
            blocks: vec![Block {
                args: (0..params.len()).collect(),
                ops,
            }],
        };
        walk_mut(&mut body, &mut |op| {
            op.loc = format!("t.df:@{name}:{}", op.id)
        });
        Udf {
            name: name.into(),
            params,
            results,
            body,
            values,
            loc: format!("t.df:@{name}"),
        }
    }

    fn ds(kind: OpKind, inputs: &[usize], fields: Vec<Ty>, line: usize) -> DatasetOp {
        DatasetOp {
            kind,
            inputs: inputs.to_vec(),
            fields,
            loc: format!("t.df:{line}:1"),
        }
    }

    fn source(name: &str, delimiter: &str) -> OpKind {
        OpKind::Source {
            name: name.into(),
            path: None,
            inline: None,
            delimiter: delimiter.into(),
            int32: Vec::new(),
            float32: Vec::new(),
        }
    }

    fn map(udf: &str) -> OpKind {
        OpKind::Map { udf: udf.into() }
    }

    fn get(index: usize) -> UdfOp {
        UdfOp::Get {
            index,
            checked: false,
        }
    }

    fn int(v: i64) -> UdfOp {
        UdfOp::Const(Const::Int(v))
    }

    /// lines -> map @parse -> filter @keep -> join prices -> map @total ->
    /// sink; @total calls @scale, and @unused is reached by nothing.
    fn program() -> Program {
        use Ty::*;
        let parse = udf(
            "parse",
            vec![Str],
            vec![Str, Int],
            9,
            vec![
                op(
                    0,
                    UdfOp::Split {
                        delimiter: ",".into(),
                    },
                    &[0],
                    &[1],
                ),
                op(1, get(0), &[1], &[2]),
                op(2, get(1), &[1], &[3]),
                op(
                    3,
                    UdfOp::ToInt {
                        int32: false,
                        checked: false,
                    },
                    &[3],
                    &[4],
                ),
                op(4, int(10), &[], &[5]),
                op(5, UdfOp::CmpInt(Cmp::Gt), &[4, 5], &[6]),
                op(6, int(0), &[], &[7]),
                op(7, UdfOp::Select, &[6, 4, 7], &[8]),
                op(8, UdfOp::Return, &[2, 8], &[]),
            ],
        );
        let keep = udf(
            "keep",
            vec![Str, Int],
            vec![Bool],
            6,
            vec![
                op(0, int(2), &[], &[2]),
                op(1, UdfOp::IntBin(IntBinOp::Rem), &[1, 2], &[3]),
                op(2, int(0), &[], &[4]),
                op(3, UdfOp::CmpInt(Cmp::Eq), &[3, 4], &[5]),
                op(4, UdfOp::Return, &[5], &[]),
            ],
        );
        let total = udf(
            "total",
            vec![Str, Int, Int],
            vec![Int, Int],
            5,
            vec![
                op(0, UdfOp::IntBin(IntBinOp::Add), &[1, 2], &[3]),
                op(
                    1,
                    UdfOp::Call {
                        callee: "scale".into(),
                    },
                    &[3],
                    &[4],
                ),
                op(2, UdfOp::Return, &[3, 4], &[]),
            ],
        );
        let scale = udf(
            "scale",
            vec![Int],
            vec![Int],
            3,
            vec![
                op(0, int(3), &[], &[1]),
                op(1, UdfOp::IntBin(IntBinOp::Mul), &[0, 1], &[2]),
                op(2, UdfOp::Return, &[2], &[]),
            ],
        );
        let unused = udf(
            "unused",
            vec![Int, Int],
            vec![Bool],
            3,
            vec![
                op(0, UdfOp::CmpInt(Cmp::Lt), &[0, 1], &[2]),
                op(1, UdfOp::Return, &[2], &[]),
            ],
        );
        Program {
            host: crate::host::Host::Jvm,
            name: "prices".into(),
            ops: vec![
                ds(source("lines", ","), &[], vec![Str], 1),
                ds(map("parse"), &[0], vec![Str, Int], 2),
                ds(
                    OpKind::Filter { udf: "keep".into() },
                    &[1],
                    vec![Str, Int],
                    3,
                ),
                ds(source("prices", ","), &[], vec![Str, Int], 4),
                ds(
                    OpKind::Join {
                        kind: JoinKind::Inner,
                        keys: 1,
                    },
                    &[2, 3],
                    vec![Str, Int, Int],
                    5,
                ),
                ds(map("total"), &[4], vec![Int, Int], 6),
                ds(
                    OpKind::Sink {
                        name: "out".into(),
                        path: None,
                    },
                    &[5],
                    vec![Int, Int],
                    7,
                ),
            ],
            udfs: [parse, keep, total, scale, unused]
                .into_iter()
                .map(|u| (u.name.clone(), u))
                .collect(),
        }
    }

    fn inputs() -> BTreeMap<String, Vec<String>> {
        let lines = |ls: &[&str]| ls.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        BTreeMap::from([
            (
                "lines".to_string(),
                lines(&["a,5", "b,20", "c,12", "d,x", "f,11"]),
            ),
            ("prices".to_string(), lines(&["a,1", "b,2", "c,3", "e,4"])),
        ])
    }

    /// Everything a mutant could change, keyed by position: the label and
    /// loc of the original thing, and its contents.
    fn flatten(p: &Program) -> BTreeMap<String, (String, String, String)> {
        let mut out = BTreeMap::new();
        out.insert(
            "name".into(),
            (String::new(), String::new(), p.name.clone()),
        );
        for (id, op) in p.ops.iter().enumerate() {
            let content = format!("{:?} {:?} {:?}", op.kind, op.inputs, op.fields);
            out.insert(format!("#{id}"), (p.op_label(id), op.loc.clone(), content));
        }
        for (name, udf) in &p.udfs {
            let args: Vec<&Vec<ValueId>> = udf.body.blocks.iter().map(|b| &b.args).collect();
            let content = format!("{:?} {:?} {} {args:?}", udf.params, udf.results, udf.values);
            out.insert(
                format!("@{name}"),
                (format!("@{name}"), udf.loc.clone(), content),
            );
            udf.body.walk(&mut |op| {
                let content = format!(
                    "{:?} {:?} {:?} {}",
                    op.kind,
                    op.operands,
                    op.results,
                    op.regions.len()
                );
                let label = format!("@{name} {}", label(op));
                out.insert(
                    format!("@{name} #{}", op.id),
                    (label, op.loc.clone(), content),
                );
            });
        }
        out
    }

    /// Labels and locs (in the original) of everything `mutant` changed.
    fn changed(original: &Program, mutant: &Program) -> Vec<(String, String)> {
        let (before, after) = (flatten(original), flatten(mutant));
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>(),
            "a mutant keeps the shape of the program"
        );
        before
            .iter()
            .filter(|(key, (_, _, content))| after[*key].2 != *content)
            .map(|(_, (label, loc, _))| (label.clone(), loc.clone()))
            .collect()
    }

    /// The labels a description names before its `": "`.
    fn named(description: &str) -> Vec<String> {
        let (what, _) = description
            .split_once(": ")
            .expect("a description says what changed");
        match what.split_once(' ') {
            Some((udf, ops)) if udf.starts_with('@') => {
                ops.split(", ").map(|op| format!("{udf} {op}")).collect()
            }
            _ => vec![what.to_string()],
        }
    }

    fn count(mutants: &[Mutant], class: &str) -> usize {
        mutants.iter().filter(|m| m.class == class).count()
    }

    #[test]
    fn counts_per_class() {
        let all = mutants(&program());
        let counts: Vec<(&str, usize)> = CLASSES.iter().map(|c| (*c, count(&all, c))).collect();
        assert_eq!(
            counts,
            vec![
                // @parse get#1 +1, get#2 +1 and -1.
                (WRONG_FIELD_OFFSET, 3),
                // @total's two i64 parameters, both ways.
                (WRONG_COLUMN, 2),
                // @parse split#0 and the two-field source; not the one-field source.
                (WRONG_DELIMITER, 2),
                // gt: boundary and negation; eq: one.
                (WRONG_COMPARISON, 3),
                (WRONG_JOIN_TYPE, 2),
                // @total returns (i64, i64); @parse's results differ in type.
                (SWAPPED_KEY_AND_VALUE, 1),
                // remsi, add, mul.
                (ARITHMETIC_OPERATOR, 3),
            ]
        );
        assert!(all.iter().all(|m| !m.description.contains("@unused")));
    }

    #[test]
    fn order_and_descriptions() {
        let descriptions: Vec<String> = mutants(&program())
            .into_iter()
            .map(|m| m.description)
            .collect();
        assert_eq!(
            descriptions,
            vec![
                r#"@parse split#0: "," -> ";""#,
                "@parse get#1: index 0 -> 1",
                "@parse get#2: index 1 -> 2",
                "@parse get#2: index 1 -> 0",
                "@parse cmpi#5: gt -> ge",
                "@parse cmpi#5: gt -> le",
                "@keep remsi#1: rem -> div",
                "@keep cmpi#3: eq -> ne",
                r#"source#3: "," -> ";""#,
                "join#4: inner -> left_outer",
                "join#4: inner -> right_outer",
                "@scale int_op#1: mul -> add",
                "@total int_op#0: arg#1 -> arg#2",
                "@total int_op#0: arg#2 -> arg#1",
                "@total int_op#0: add -> sub",
                "@total return#2: results 0 <-> 1",
            ]
        );
    }

    #[test]
    fn each_mutant_changes_what_it_names() {
        let original = program();
        for mutant in mutants(&original) {
            let changed = changed(&original, &mutant.program);
            let labels: Vec<String> = changed.iter().map(|(l, _)| l.clone()).collect();
            assert_eq!(labels, named(&mutant.description), "{}", mutant.description);
            assert_eq!(mutant.loc, changed[0].1, "{}", mutant.description);
        }
    }

    #[test]
    fn mutants_run_and_some_differ() {
        let original = program();
        let inputs = inputs();
        let base = interp::run(&original, &inputs).expect("the original runs");
        assert_eq!(
            base.sink_lines(),
            vec![(
                "out".to_string(),
                vec!["1,3".into(), "15,45".into(), "22,66".into()]
            )]
        );
        let mut survivors = Vec::new();
        for mutant in mutants(&original) {
            let run = interp::run(&mutant.program, &inputs);
            // Records split differently no longer fit the record type: the
            // interpreter rejects the data, as Spark would fail the job.
            if mutant.description.starts_with("source#3") {
                assert!(matches!(run, Err(Error::BadRecord { .. })), "{run:?}");
                continue;
            }
            let run = run.unwrap_or_else(|e| panic!("{}: {e}", mutant.description));
            if run.sink_lines() == base.sink_lines() && run.failures == base.failures {
                survivors.push(mutant.description);
            }
        }
        // These inputs cannot kill them: no value equals the bound 10, and
        // every line finds its price, so a left outer join adds nothing.
        // The 13 other runnable mutants change the output or the failures.
        assert_eq!(
            survivors,
            vec!["@parse cmpi#5: gt -> ge", "join#4: inner -> left_outer"]
        );
    }

    #[test]
    fn right_outer_join_fills_defaults() {
        let original = program();
        let mutant = mutants(&original)
            .into_iter()
            .find(|m| m.description == "join#4: inner -> right_outer")
            .unwrap();
        let run = interp::run(&mutant.program, &inputs()).unwrap();
        // "e" has a price but no line: 0 + 4, times 3.
        assert!(run.sink_lines()[0].1.contains(&"4,12".to_string()));
    }

    /// One UDF with three i64 parameters, one of them used only inside an
    /// `scf.if`, and an unused f64 one.
    fn wide_program() -> Program {
        use Ty::*;
        let mut branch = op(1, UdfOp::If, &[4], &[5]);
        branch.regions = vec![
            region(vec![op(2, UdfOp::Yield, &[2], &[])]),
            region(vec![
                op(3, UdfOp::IntBin(IntBinOp::And), &[0, 2], &[6]),
                op(4, UdfOp::Yield, &[6], &[]),
            ]),
        ];
        let pick = udf(
            "pick",
            vec![Int, Int, Int, Float],
            vec![Int],
            7,
            vec![
                op(0, UdfOp::CmpInt(Cmp::Lt), &[0, 1], &[4]),
                branch,
                op(5, UdfOp::Return, &[5], &[]),
            ],
        );
        Program {
            host: crate::host::Host::Jvm,
            name: "wide".into(),
            ops: vec![
                ds(source("nums", "|"), &[], vec![Int, Int, Int, Float], 1),
                ds(map("pick"), &[0], vec![Int], 2),
                ds(
                    OpKind::Sink {
                        name: "out".into(),
                        path: None,
                    },
                    &[1],
                    vec![Int],
                    3,
                ),
            ],
            udfs: BTreeMap::from([("pick".to_string(), pick)]),
        }
    }

    #[test]
    fn wrong_column_reaches_nested_regions_and_is_capped() {
        let original = wide_program();
        let all = mutants(&original);
        let columns: Vec<&str> = all
            .iter()
            .filter(|m| m.class == WRONG_COLUMN)
            .map(|m| m.description.as_str())
            .collect();
        assert_eq!(
            columns,
            vec![
                "@pick cmpi#0, int_op#3: arg#0 -> arg#1",
                "@pick cmpi#0, int_op#3: arg#0 -> arg#2",
                "@pick cmpi#0: arg#1 -> arg#0",
                "@pick cmpi#0: arg#1 -> arg#2",
            ]
        );
        // And is bitwise, not arithmetic; one result leaves nothing to swap;
        // the source delimiter is "|", so the wrong one is ",".
        assert_eq!(count(&all, ARITHMETIC_OPERATOR), 0);
        assert_eq!(count(&all, SWAPPED_KEY_AND_VALUE), 0);
        assert_eq!(
            all.iter()
                .filter(|m| m.class == WRONG_DELIMITER)
                .map(|m| m.description.as_str())
                .collect::<Vec<_>>(),
            vec![r#"source#0: "|" -> ",""#]
        );
        let inputs = BTreeMap::from([(
            "nums".to_string(),
            vec!["1|2|3|0.5".to_string(), "5|4|6|1.5".to_string()],
        )]);
        let base = interp::run(&original, &inputs).unwrap().sink_lines();
        assert_eq!(base[0].1, vec!["3".to_string(), "4".to_string()]);
        for mutant in all.iter().filter(|m| m.class != WRONG_DELIMITER) {
            let changed = changed(&original, &mutant.program);
            let labels: Vec<String> = changed.iter().map(|(l, _)| l.clone()).collect();
            assert_eq!(labels, named(&mutant.description), "{}", mutant.description);
            interp::run(&mutant.program, &inputs)
                .unwrap_or_else(|e| panic!("{}: {e}", mutant.description));
        }
    }

    #[test]
    fn float_comparisons_and_arithmetic() {
        let all = alternatives(&UdfOp::CmpFloat(Cmp::Le));
        let kinds: Vec<&UdfOp> = all.iter().map(|(_, k, _)| k).collect();
        assert_eq!(
            kinds,
            vec![&UdfOp::CmpFloat(Cmp::Lt), &UdfOp::CmpFloat(Cmp::Gt)]
        );
        assert_eq!(alternatives(&UdfOp::CmpFloat(Cmp::Ne)).len(), 1);
        let mul = alternatives(&UdfOp::FloatBin(FloatBinOp::Mul));
        assert_eq!(mul[0].1, UdfOp::FloatBin(FloatBinOp::Div));
        assert!(alternatives(&UdfOp::IntBin(IntBinOp::Xor)).is_empty());
        assert_eq!(
            alternatives(&UdfOp::Split {
                delimiter: ";".into()
            })[0]
                .2,
            r#"";" -> ",""#
        );
    }

    #[test]
    fn a_udf_used_twice_is_mutated_once() {
        let mut p = program();
        // A second map with @parse on the same source.
        p.ops
            .push(ds(map("parse"), &[0], vec![Ty::Str, Ty::Int], 8));
        let all = mutants(&p);
        assert_eq!(
            all.iter()
                .filter(|m| m.description.starts_with("@parse"))
                .count(),
            6
        );
    }
}
