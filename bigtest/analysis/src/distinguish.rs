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

use std::collections::BTreeSet;

use coco_smt::{parse_sexprs, SExpr};

use crate::generate::PathSpec;

/// Comparisons the probes pin: `(a - b)` values per side.
const ORDERINGS: [&str; 4] = [">", ">=", "<", "<="];

/// Literals this large are the encodings' own bounds (a parsed number's
/// digits, a source field's range), not comparisons of the program.
const ENCODING_BOUND: i128 = 1_000_000_000;

/// One comparison of a path and the values of `lhs - rhs` to pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The comparison with instance numbers dropped (`map3_1.` read as
    /// `map3.`): the same comparison of another record is probed once.
    pub key: String,
    pub lhs: SExpr,
    pub rhs: SExpr,
    pub differences: Vec<i64>,
    /// Conditions held alongside, so that the comparison decides the
    /// outcome of the condition it is part of.
    pub also: Vec<SExpr>,
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
/// huge literal, or a bare variable against 0 (a parsed magnitude).
fn encoding_bound(a: &SExpr, b: &SExpr) -> bool {
    let huge = |e: &SExpr| literal(e).is_some_and(|v| v.abs() >= ENCODING_BOUND);
    let bare_against_zero = matches!(a, SExpr::Atom(_)) && literal(a).is_none() && literal(b) == Some(0);
    huge(a) || huge(b) || bare_against_zero || (literal(a).is_some() && literal(b).is_some())
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

/// The comparisons `script` asserts or tests, each with the differences to
/// pin. A comparison among the conjuncts of a condition the path makes
/// false (`not (and (prefixof "#" t) (> (str.len t) 1))`) is probed with
/// the other conjuncts held true, so that it alone decides the outcome.
pub fn probes(script: &[String]) -> Vec<Probe> {
    let Ok(commands) = parse_sexprs(&script.join("\n")) else {
        return Vec::new();
    };
    let mut found: Vec<Probe> = Vec::new();
    let mut push = |op: &str, a: &SExpr, b: &SExpr, differences: Vec<i64>, also: Vec<SExpr>| {
        // `c >= c` (a reducer over one record) is no comparison at all.
        if encoding_bound(a, b) || a == b {
            return;
        }
        let key = uninstanced(&format!("({op} {a} {b})"));
        if let Some(known) = found.iter_mut().find(|p| p.key == key) {
            for d in differences {
                if !known.differences.contains(&d) {
                    known.differences.push(d);
                }
            }
        } else {
            found.push(Probe {
                key,
                lhs: a.clone(),
                rhs: b.clone(),
                differences,
                also,
            });
        }
    };
    for command in &commands {
        let SExpr::List(items) = command else {
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
            match holding(part) {
                Some((op, a, b, written)) => {
                    let (canonical, _, _) = ordering(written).unwrap_or((op, a, b));
                    let (side, also) = if fails {
                        let others = parts
                            .iter()
                            .enumerate()
                            .filter(|(j, _)| *j != i)
                            .map(|(_, p)| (*p).clone())
                            .collect();
                        (negated(op), others)
                    } else {
                        (op, Vec::new())
                    };
                    push(canonical, a, b, side_differences(side), also);
                    nested(written, &mut inner);
                }
                None => nested(part, &mut inner),
            }
        }
        for e in inner {
            if let Some((op, a, b)) = ordering(e) {
                push(op, a, b, vec![0], Vec::new());
            }
        }
    }
    found
}

/// `path` with `probe`'s `lhs - rhs` pinned to `difference`.
pub fn pinned(path: &PathSpec, probe: &Probe, difference: i64) -> PathSpec {
    let value = if difference < 0 {
        format!("(- {})", difference.unsigned_abs())
    } else {
        difference.to_string()
    };
    let mut pinned = path.clone();
    for condition in &probe.also {
        pinned.script.push(format!("(assert {condition})"));
    }
    pinned.script.push(format!(
        "(assert (= (- {} {}) {value}))",
        probe.lhs, probe.rhs
    ));
    pinned
}

/// The probes of `paths` worth solving, each comparison and difference
/// once, on the path with the fewest records that has it: `(path index,
/// probe, difference)`.
pub fn plan(paths: &[&PathSpec]) -> Vec<(usize, Probe, i64)> {
    let mut order: Vec<usize> = (0..paths.len()).collect();
    order.sort_by_key(|&i| paths[i].records.len());
    let mut seen: BTreeSet<(String, i64)> = BTreeSet::new();
    let mut planned = Vec::new();
    for i in order {
        for probe in probes(&paths[i].script) {
            for &d in &probe.differences {
                if seen.insert((probe.key.clone(), d)) {
                    planned.push((i, probe.clone(), d));
                }
            }
        }
    }
    planned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sides_give_the_boundary_and_one_step_in() {
        let script = lines(&[
            "(declare-const x Int)",
            "(declare-const y Int)",
            "(assert (> (ite n (- x) x) 40))",
            "(assert (not (<= y x)))",
        ]);
        let found = probes(&script);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].key, "(> (ite n (- x) x) 40)");
        assert_eq!(found[0].differences, vec![1, 2]);
        assert_eq!(found[1].key, "(<= y x)");
        assert_eq!(found[1].differences, vec![1, 2]);
    }

    #[test]
    fn a_failing_conjunction_holds_the_other_conjuncts() {
        let script = lines(&[
            "(assert (not (and (and (str.prefixof \"#\" t) (> (str.len t) 1)) (not (= t \"#ad\")))))",
        ]);
        let found = probes(&script);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].differences, vec![0, -1]);
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
    }

    #[test]
    fn comparisons_inside_terms_are_pinned_equal() {
        let script = lines(&["(assert (= r (ite (>= c1 c2) c1 c2)))"]);
        let found = probes(&script);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].differences, vec![0]);
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
        assert_eq!(planned.len(), 2);
        let pinned = pinned(&a, &planned[0].1, -1);
        assert_eq!(
            pinned.script.last().unwrap(),
            "(assert (= (- map3_0.v9 40) (- 1)))"
        );
        assert_eq!(uninstanced("(> map3_12.v9 x_1)"), "(> map3.v9 x_1)");
    }
}
