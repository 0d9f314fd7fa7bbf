//! Solving a script in independent pieces.
//!
//! A JDU path over several records is, for the most part, one block of
//! constraints per record, tied together by a few equalities between
//! variables (a shared group key, two identical duplicate lines) or
//! disequalities (two groups' keys differ). Z3's string solver takes time
//! that grows much faster than the script, so solving the blocks one after
//! the other, each with the variables of the blocks before it fixed to their
//! model values, answers in a fraction of the time. A model found that way
//! satisfies every assertion of the script; when a step finds none (an
//! earlier block's choice may be what rules it out), the caller solves the
//! whole script instead, so the answer is the same, only faster.

use std::collections::BTreeMap;
use std::time::Instant;

use super::{parse_sexprs, string_literal, ModelValue, Outcome, SExpr};

/// The script split into blocks, or `None` when it is one block (or uses
/// commands other than `declare-const` and `assert`).
struct Blocks {
    /// `(name, declaration)` in declaration order.
    decls: Vec<(String, String)>,
    /// Block of each declared constant.
    block_of: Vec<usize>,
    /// Assertions per block, in order.
    asserts: Vec<Vec<String>>,
    /// Equalities and disequalities between two constants of different
    /// blocks: `(assertion, later block)`.
    links: Vec<(String, usize)>,
}

/// Scripts with fewer declared constants are solved whole.
const MIN_DECLS: usize = 16;

fn unbar(name: &str) -> &str {
    name.strip_prefix('|')
        .and_then(|n| n.strip_suffix('|'))
        .unwrap_or(name)
}

fn atoms<'e>(expr: &'e SExpr, out: &mut Vec<&'e str>) {
    match expr {
        SExpr::Atom(a) => out.push(unbar(a)),
        SExpr::List(items) => items.iter().for_each(|i| atoms(i, out)),
    }
}

/// Whether `expr` is `(not (= a b))`: a disequality is a link whatever its
/// terms, since it rules out one value and nearly every model of the
/// blocks before it leaves the later block another choice (two records'
/// keys differ: `(not (= (str.substr p 0 3) (str.substr q 0 3)))`).
fn disequality(expr: &SExpr) -> bool {
    let SExpr::List(items) = expr else {
        return false;
    };
    match items.as_slice() {
        [SExpr::Atom(not), SExpr::List(inner)] if not == "not" => {
            matches!(inner.as_slice(), [SExpr::Atom(eq), _, _] if eq == "=")
        }
        _ => false,
    }
}

/// `(= x y)` or `(not (= x y))` over two constants: their indices.
fn link(expr: &SExpr, declared: &BTreeMap<&str, usize>) -> Option<(usize, usize)> {
    let SExpr::List(items) = expr else {
        return None;
    };
    let eq = match items.as_slice() {
        [SExpr::Atom(not), inner] if not == "not" => inner,
        _ => expr,
    };
    let SExpr::List(items) = eq else {
        return None;
    };
    match items.as_slice() {
        [SExpr::Atom(op), SExpr::Atom(a), SExpr::Atom(b)] if op == "=" => {
            let (a, b) = (declared.get(unbar(a))?, declared.get(unbar(b))?);
            (a != b).then_some((*a, *b))
        }
        _ => None,
    }
}

fn find(parent: &mut [usize], x: usize) -> usize {
    let mut root = x;
    while parent[root] != root {
        root = parent[root];
    }
    let mut x = x;
    while parent[x] != root {
        let next = parent[x];
        parent[x] = root;
        x = next;
    }
    root
}

fn blocks(script: &[String]) -> Option<Blocks> {
    let text = script.join("\n");
    let commands = parse_sexprs(&text).ok()?;
    let mut decls = Vec::new();
    let mut assertions = Vec::new();
    for command in &commands {
        let SExpr::List(items) = command else {
            return None;
        };
        match items.as_slice() {
            [SExpr::Atom(head), SExpr::Atom(name), _] if head == "declare-const" => {
                decls.push((unbar(name).to_string(), command.to_string()));
            }
            [SExpr::Atom(head), body] if head == "assert" => assertions.push(("assert", body)),
            // A preference belongs to the block of its variables, as an
            // assertion does; each step weighs its own.
            [SExpr::Atom(head), body, ..] if head == "assert-soft" => {
                assertions.push(("assert-soft", body))
            }
            _ => return None,
        }
    }
    let declared: BTreeMap<&str, usize> = decls
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    let mut parent: Vec<usize> = (0..decls.len()).collect();
    let mut links = Vec::new();
    let mut owned = Vec::new();
    for &(command, body) in &assertions {
        let mut names = Vec::new();
        atoms(body, &mut names);
        let vars: Vec<usize> = names
            .iter()
            .filter_map(|n| declared.get(n).copied())
            .collect();
        let tie = link(body, &declared).is_some() || (disequality(body) && !vars.is_empty());
        if command == "assert" && tie {
            links.push((body, vars));
            continue;
        }
        for pair in vars.windows(2) {
            let (a, b) = (find(&mut parent, pair[0]), find(&mut parent, pair[1]));
            parent[a.max(b)] = a.min(b);
        }
        owned.push((command, body, vars.first().copied()));
    }
    // Blocks numbered in the order of their first declaration.
    let mut number: BTreeMap<usize, usize> = BTreeMap::new();
    let mut block_of = Vec::new();
    for i in 0..decls.len() {
        let root = find(&mut parent, i);
        let next = number.len();
        block_of.push(*number.entry(root).or_insert(next));
    }
    // Small scripts are quicker in one call than in several (each call
    // costs a Z3 context). A size rule rather than "whole first, blocks
    // if slow" keeps the answer independent of the machine's speed.
    if number.len() < 2 || decls.len() < MIN_DECLS {
        return None;
    }
    let mut asserts = vec![Vec::new(); number.len()];
    for (command, body, var) in owned {
        asserts[var.map_or(0, |v| block_of[v])].push(format!("({command} {body})"));
    }
    let links = links
        .into_iter()
        .map(|(body, vars)| {
            let later = vars.iter().map(|&v| block_of[v]).max().unwrap_or(0);
            (format!("(assert {body})"), later)
        })
        .collect();
    Some(Blocks {
        decls,
        block_of,
        asserts,
        links,
    })
}

fn literal(value: &ModelValue) -> String {
    match value {
        ModelValue::Int(v) if *v < 0 => format!("(- {})", v.unsigned_abs()),
        ModelValue::Int(v) => v.to_string(),
        ModelValue::Real {
            numerator,
            denominator,
        } => {
            let magnitude = format!("(/ {}.0 {denominator}.0)", numerator.unsigned_abs());
            if *numerator < 0 {
                format!("(- {magnitude})")
            } else {
                magnitude
            }
        }
        ModelValue::Bool(b) => b.to_string(),
        ModelValue::Str(s) => string_literal(s),
    }
}

/// Solves `script` block by block with `solve_whole` for each step.
/// `None` means "solve the whole script": it is one block, or a step found
/// no model. An unsatisfiable block on its own makes the script `Unsat`.
pub(crate) fn solve_in_blocks(
    script: &[String],
    deadline: Instant,
    solve_whole: impl Fn(&[String], Instant) -> crate::Result<Outcome>,
) -> Option<crate::Result<Outcome>> {
    let blocks = blocks(script)?;
    let mut model: BTreeMap<String, ModelValue> = BTreeMap::new();
    for (block, asserts) in blocks.asserts.iter().enumerate() {
        let mut step = Vec::new();
        for ((name, decl), &b) in blocks.decls.iter().zip(&blocks.block_of) {
            if b > block {
                continue;
            }
            step.push(decl.clone());
            if b < block {
                // Earlier blocks are settled: their values are constants here.
                let value = model.get(name)?;
                step.push(format!(
                    "(assert (= {} {}))",
                    super::quote(name),
                    literal(value)
                ));
            }
        }
        step.extend(asserts.iter().cloned());
        let linked: Vec<&String> = blocks
            .links
            .iter()
            .filter(|(_, later)| *later == block)
            .map(|(a, _)| a)
            .collect();
        step.extend(linked.iter().map(|a| a.to_string()));
        match solve_whole(&step, deadline) {
            Ok(Outcome::Sat(found)) => model.extend(found),
            // The block alone has no model: neither has the script.
            Ok(Outcome::Unsat) if linked.is_empty() => return Some(Ok(Outcome::Unsat)),
            Err(e) => return Some(Err(e)),
            _ => return None,
        }
    }
    Some(Ok(Outcome::Sat(model)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(script: &[&str]) -> Vec<String> {
        script.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn records_tied_by_a_key_are_two_blocks() {
        let mut script = lines(&[
            "(declare-const a String)",
            "(declare-const x Int)",
            "(declare-const b String)",
            "(assert (= a (str.from_int x)))",
            "(assert (> x 5))",
            "(assert (str.prefixof \"k\" b))",
            "(assert (= a b))",
        ]);
        assert!(blocks(&script).is_none(), "too small to split");
        // Unconstrained constants are blocks of their own.
        script.extend((3..MIN_DECLS).map(|i| format!("(declare-const c{i} Int)")));
        let blocks = blocks(&script).expect("blocks");
        assert_eq!(&blocks.block_of[..3], &[0, 0, 1]);
        assert_eq!(blocks.links.len(), 1);
        assert_eq!(blocks.links[0].1, 1);
    }

    #[test]
    fn a_disequality_of_two_records_keys_does_not_merge_them() {
        // Two records whose keys must differ (a group of two products of
        // one category): the disequality ties terms, not constants, and is
        // checked in the later record's step.
        let mut script = lines(&[
            "(declare-const a String)",
            "(declare-const b String)",
            "(assert (<= 3 (str.len a)))",
            "(assert (<= 3 (str.len b)))",
            "(assert (not (= (str.substr a 0 3) (str.substr b 0 3))))",
        ]);
        script.extend((2..MIN_DECLS).map(|i| format!("(declare-const c{i} Int)")));
        let blocks = blocks(&script).expect("blocks");
        assert_eq!(&blocks.block_of[..2], &[0, 1]);
        assert_eq!(blocks.links.len(), 1);
        assert_eq!(blocks.links[0].1, 1);
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        let whole = |s: &[String], d: Instant| {
            let left = d.saturating_duration_since(Instant::now()).as_millis() as u32;
            crate::solve(s, left)
        };
        let Some(Ok(Outcome::Sat(model))) = solve_in_blocks(&script, deadline, whole) else {
            panic!("the blocks have a model");
        };
        let (Some(ModelValue::Str(a)), Some(ModelValue::Str(b))) = (model.get("a"), model.get("b"))
        else {
            panic!("strings a and b in {model:?}");
        };
        let key = |s: &str| s.chars().take(3).collect::<String>();
        assert_ne!(key(a), key(b));
    }

    #[test]
    fn one_block_is_not_split() {
        let script = lines(&[
            "(declare-const a String)",
            "(declare-const b String)",
            "(assert (= a (str.++ b \"x\")))",
        ]);
        assert!(blocks(&script).is_none());
    }
}
