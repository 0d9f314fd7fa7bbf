//! Records that tell faults apart, added to the cases that cover the paths.
//!
//! One record per path covers the path, but the values the solver picks
//! may not separate the program from a faulty one: a record at `g = 12`
//! follows `g > 40`'s false branch for `>`, `>=` and `> 41` alike. Two
//! kinds of extra records do:
//!
//! * **Boundary probes.** For each comparison `a ⋈ b` a path asserts, the
//!   path is solved again with `a - b` pinned at the boundary of the side
//!   it takes and one step inside it (`>`: 1 and 2; `<=`: 0 and -1); a
//!   comparison inside a term (an `ite` from `arith.select`) gets `a = b`.
//!   The sibling path takes the other side, so each comparison meets
//!   -1, 0 and 1, where `>`, `>=`, `<`, `<=` and `==` disagree.
//! * **More than two records per key.** A fold over two records cannot tell
//!   `a + b` from `b + b` when both values are 1 (a word count's pairs); a
//!   third record of one of the folded keys can.
//!
//! Every extra record is kept only where the reference interpreter shows
//! the case still covers what it did and still succeeds.

use coco_smt::{parse_sexprs, SExpr};

use crate::generate::PathSpec;

/// Comparisons the probes pin: `(a - b)` values per side.
const ORDERINGS: [&str; 4] = [">", ">=", "<", "<="];

/// Literals this large are the encodings' own bounds (a parsed number's
/// digits, a source field's range), not comparisons of the program.
const ENCODING_BOUND: i128 = 1_000_000_000;

/// One comparison of a path and the value of `lhs - rhs` to pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The comparison with instance numbers dropped (`map3_1.` read as
    /// `map3.`): the same comparison of another record is probed once.
    pub key: String,
    pub lhs: SExpr,
    pub rhs: SExpr,
    pub difference: i64,
    /// Whether `difference` is the boundary itself (where `>` and `>=`
    /// disagree) rather than one step off it.
    pub boundary: bool,
    /// Conditions held alongside, so that the comparison decides the
    /// outcome of the condition it is part of.
    pub also: Vec<SExpr>,
    /// For a probe across the comparison: the script line asserting it,
    /// and what that line asserts instead (the other conjuncts, if any).
    pub across: Option<(usize, Option<SExpr>)>,
}

/// `x` with a path's record instance dropped from each name: `map3_1.v9`
/// is `map3.v9`.
fn uninstanced(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '_' && i > 0 && chars[i - 1].is_ascii_alphanumeric() {
            let digits = chars[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits > 0 && chars.get(i + 1 + digits) == Some(&'.') {
                i += 1 + digits;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The value of an integer literal (`7`, `(- 7)`), if `e` is one.
fn literal(e: &SExpr) -> Option<i128> {
    match e {
        SExpr::Atom(a) => a.split('.').next()?.parse().ok(),
        SExpr::List(items) => match items.as_slice() {
            [SExpr::Atom(minus), inner] if minus == "-" => literal(inner).map(|v| -v),
            _ => None,
        },
    }
}

/// Whether `a ⋈ b` is an encoding's bound rather than the program's: a
/// huge literal, a bare variable at least 0 (a parsed number's magnitude,
/// `(>= map3.v9 0)`), or two literals.
fn encoding_bound(op: &str, a: &SExpr, b: &SExpr) -> bool {
    let huge = |e: &SExpr| literal(e).is_some_and(|v| v.abs() >= ENCODING_BOUND);
    let magnitude =
        op == ">=" && matches!(a, SExpr::Atom(_)) && literal(a).is_none() && literal(b) == Some(0);
    huge(a) || huge(b) || magnitude || (literal(a).is_some() && literal(b).is_some())
}

/// `lhs - rhs` at the boundary of the side `op` holds on, then one step in.
fn side_differences(op: &str) -> Vec<i64> {
    match op {
        ">" => vec![1, 2],
        ">=" => vec![0, 1],
        "<" => vec![-1, -2],
        _ => vec![0, -1],
    }
}

fn negated(op: &str) -> &'static str {
    match op {
        ">" => "<=",
        ">=" => "<",
        "<" => ">=",
        _ => ">",
    }
}

/// The ordering `e` is, as `(op, lhs, rhs)`.
fn ordering(e: &SExpr) -> Option<(&str, &SExpr, &SExpr)> {
    let SExpr::List(items) = e else {
        return None;
    };
    match items.as_slice() {
        [SExpr::Atom(op), a, b] if ORDERINGS.contains(&op.as_str()) => Some((op.as_str(), a, b)),
        _ => None,
    }
}

/// Orderings nested inside `e` (not `e` itself), in order.
fn nested<'e>(e: &'e SExpr, out: &mut Vec<&'e SExpr>) {
    if let SExpr::List(items) = e {
        for item in items {
            if ordering(item).is_some() {
                out.push(item);
            }
            nested(item, out);
        }
    }
}

/// The conjuncts of `e`, nested `and`s flattened.
fn conjuncts(e: &SExpr) -> Vec<&SExpr> {
    match e {
        SExpr::List(items) if matches!(items.first(), Some(SExpr::Atom(a)) if a == "and") => {
            items[1..].iter().flat_map(conjuncts).collect()
        }
        _ => vec![e],
    }
}

/// `e` as an ordering that holds: `(op, lhs, rhs, the ordering as
/// written)`, a negated ordering read as its complement.
fn holding(e: &SExpr) -> Option<(&'static str, &SExpr, &SExpr, &SExpr)> {
    if let SExpr::List(items) = e {
        if let [SExpr::Atom(not), inner] = items.as_slice() {
            if not == "not" {
                let (op, a, b) = ordering(inner)?;
                return Some((negated(op), a, b, inner));
            }
        }
    }
    let (op, a, b) = ordering(e)?;
    let op = ORDERINGS.iter().find(|o| **o == op)?;
    Some((op, a, b, e))
}

/// The probes of `script`'s comparisons. A comparison the path asserts
/// is probed on its side (the boundary and one step in) and across it:
/// the rest of the path held, the comparison's assertion dropped and its
/// difference pinned on the other side, which is the record a faulty
/// comparison would let through to everything after it (an order of
/// amount 0 that a `>=` would join and sum). A comparison among the
/// conjuncts of a condition the path makes false (`not (and (prefixof
/// "#" t) (> (str.len t) 1))`) is probed with the other conjuncts held
/// true, so that it alone decides the outcome. A comparison inside a term
/// (an `ite` from `arith.select`) is pinned at -1, 0 and 1.
pub fn probes(script: &[String]) -> Vec<Probe> {
    let mut found: Vec<Probe> = Vec::new();
    // `boundaries`: how many of `differences` are boundaries (the rest are
    // steps off them).
    let mut push = |op: &str,
                    a: &SExpr,
                    b: &SExpr,
                    (differences, boundaries): (Vec<i64>, usize),
                    also: Vec<SExpr>,
                    across: Option<(usize, Option<SExpr>)>| {
        // `c >= c` (a reducer over one record) is no comparison at all.
        if encoding_bound(op, a, b) || a == b {
            return;
        }
        let key = uninstanced(&format!("({op} {a} {b})"));
        for (i, difference) in differences.into_iter().enumerate() {
            found.push(Probe {
                key: key.clone(),
                lhs: a.clone(),
                rhs: b.clone(),
                difference,
                boundary: i < boundaries,
                also: also.clone(),
                across: across.clone(),
            });
        }
    };
    for (line, text) in script.iter().enumerate() {
        let Ok(commands) = parse_sexprs(text) else {
            continue;
        };
        let [SExpr::List(items)] = commands.as_slice() else {
            continue;
        };
        let [SExpr::Atom(head), body] = items.as_slice() else {
            continue;
        };
        if head != "assert" {
            continue;
        }
        // Conjuncts that hold, or conjuncts of a condition that fails.
        let (parts, fails) = match body {
            SExpr::List(inner) => match inner.as_slice() {
                [SExpr::Atom(not), e] if not == "not" && conjuncts(e).len() > 1 => {
                    (conjuncts(e), true)
                }
                _ => (conjuncts(body), false),
            },
            SExpr::Atom(_) => (vec![body], false),
        };
        let mut inner = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let Some((op, a, b, written)) = holding(part) else {
                nested(part, &mut inner);
                continue;
            };
            let (canonical, _, _) = ordering(written).unwrap_or((op, a, b));
            let others: Vec<SExpr> = parts
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, p)| (*p).clone())
                .collect();
            if fails {
                push(
                    canonical,
                    a,
                    b,
                    (side_differences(negated(op)), 1),
                    others,
                    None,
                );
            } else {
                let rest = match others.len() {
                    0 => None,
                    1 => Some(others[0].clone()),
                    _ => Some(SExpr::List(
                        std::iter::once(SExpr::Atom("and".into()))
                            .chain(others)
                            .collect(),
                    )),
                };
                let across = Some((line, rest));
                push(
                    canonical,
                    a,
                    b,
                    (side_differences(negated(op)), 1),
                    Vec::new(),
                    across,
                );
                push(canonical, a, b, (side_differences(op), 1), Vec::new(), None);
            }
            nested(written, &mut inner);
        }
        for e in inner {
            if let Some((op, a, b)) = ordering(e) {
                // Where an `ite` takes either branch, and the tie.
                push(op, a, b, (vec![0, -1, 1], 3), Vec::new(), None);
            }
        }
    }
    found
}

/// `path` with `probe`'s `lhs - rhs` pinned.
pub fn pinned(path: &PathSpec, probe: &Probe) -> PathSpec {
    let value = if probe.difference < 0 {
        format!("(- {})", probe.difference.unsigned_abs())
    } else {
        probe.difference.to_string()
    };
    let mut pinned = path.clone();
    if let Some((line, rest)) = &probe.across {
        if let Some(text) = pinned.script.get_mut(*line) {
            *text = match rest {
                Some(rest) => format!("(assert {rest})"),
                None => String::new(),
            };
        }
    }
    for condition in &probe.also {
        pinned.script.push(format!("(assert {condition})"));
    }
    pinned.script.push(format!(
        "(assert (= (- {} {}) {value}))",
        probe.lhs, probe.rhs
    ));
    pinned
}

/// The probes of `paths`, one group per comparison and difference,
/// boundaries before steps off them, each
/// group the ways to reach it in the order worth trying: across a
/// comparison first (it reaches the most of the program), on paths that
/// reach a sink first (where a fault shows), then on paths with fewer
/// records. `(path index, probe)`.
pub fn plan(paths: &[&PathSpec]) -> Vec<Vec<(usize, Probe)>> {
    // (comparison, difference) and the ways to probe it.
    type Group = ((String, i64), Vec<(usize, Probe)>);
    let mut groups: Vec<Group> = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        for probe in probes(&path.script) {
            let key = (probe.key.clone(), probe.difference);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, group)) => group.push((i, probe)),
                None => groups.push((key, vec![(i, probe)])),
            }
        }
    }
    let mut groups: Vec<Vec<(usize, Probe)>> = groups
        .into_iter()
        .map(|(_, mut group)| {
            group.sort_by_key(|(i, probe)| {
                let path = paths[*i];
                let shown = path.branches.iter().any(|b| b.starts_with("sink#"));
                (probe.across.is_none(), !shown, path.records.len())
            });
            group
        })
        .collect();
    groups.sort_by_key(|group| !group[0].1.boundary);
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| s.to_string()).collect()
    }

    fn differences(found: &[Probe], key: &str, across: bool) -> Vec<i64> {
        found
            .iter()
            .filter(|p| p.key == key && p.across.is_some() == across)
            .map(|p| p.difference)
            .collect()
    }

    #[test]
    fn sides_give_the_boundary_and_one_step_in_and_across() {
        let script = lines(&[
            "(declare-const x Int)",
            "(declare-const y Int)",
            "(assert (> (ite n (- x) x) 40))",
            "(assert (not (<= y x)))",
        ]);
        let found = probes(&script);
        let first = "(> (ite n (- x) x) 40)";
        assert_eq!(differences(&found, first, false), [1, 2]);
        assert_eq!(differences(&found, first, true), [0, -1]);
        assert_eq!(differences(&found, "(<= y x)", false), [1, 2]);
        assert_eq!(differences(&found, "(<= y x)", true), [0, -1]);
    }

    #[test]
    fn across_drops_the_comparison_and_keeps_the_other_conjuncts() {
        let path = PathSpec {
            id: 0,
            branches: vec![],
            script: lines(&["(assert (and (> x 5) (= s \"a\")))"]),
            keys: vec![],
            records: vec![],
        };
        let found = probes(&path.script);
        let across = found
            .iter()
            .find(|p| p.across.is_some() && p.difference == 0)
            .unwrap();
        assert_eq!(
            pinned(&path, across).script,
            ["(assert (= s \"a\"))", "(assert (= (- x 5) 0))"]
        );
    }

    #[test]
    fn a_failing_conjunction_holds_the_other_conjuncts() {
        let script = lines(&[
            "(assert (not (and (and (str.prefixof \"#\" t) (> (str.len t) 1)) (not (= t \"#ad\")))))",
        ]);
        let found = probes(&script);
        assert_eq!(found.len(), 2);
        assert_eq!(differences(&found, "(> (str.len t) 1)", false), [0, -1]);
        let also: Vec<String> = found[0].also.iter().map(|e| e.to_string()).collect();
        assert_eq!(also, ["(str.prefixof \"#\" t)", "(not (= t \"#ad\"))"]);
    }

    #[test]
    fn encoding_bounds_are_not_probed() {
        let script = lines(&[
            "(assert (>= map3.v9 0))",
            "(assert (< map3.v9 1000000000000000))",
            "(assert (< (- 1000000000000000) orders.f1))",
        ]);
        assert!(probes(&script).is_empty());
        // The program's own `x > 0` is a comparison.
        assert_eq!(probes(&lines(&["(assert (> x 0))"])).len(), 4);
    }

    #[test]
    fn comparisons_inside_terms_are_pinned_around_equal() {
        let script = lines(&["(assert (= r (ite (>= c1 c2) c1 c2)))"]);
        let found = probes(&script);
        assert_eq!(differences(&found, "(>= c1 c2)", false), [0, -1, 1]);
    }

    #[test]
    fn instances_of_one_comparison_are_probed_once() {
        let a = PathSpec {
            id: 0,
            branches: vec![],
            script: lines(&["(assert (> map3_0.v9 40))", "(assert (> map3_1.v9 40))"]),
            keys: vec![],
            records: vec![],
        };
        let planned = plan(&[&a]);
        // Across at 0 and -1, inside at 1 and 2; each from both records.
        assert_eq!(planned.len(), 4);
        assert!(planned.iter().all(|group| group.len() == 2));
        assert_eq!(uninstanced("(> map3_12.v9 x_1)"), "(> map3.v9 x_1)");
    }
}
