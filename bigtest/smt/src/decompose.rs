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

use std::collections::{BTreeMap, BTreeSet};
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
    /// Commands over constants of several blocks: checked in the step of
    /// the latest of them.
    links: Vec<Link>,
}

/// An assertion (or preference) over constants of several blocks.
struct Link {
    command: String,
    /// The blocks of its constants, ascending.
    blocks: Vec<usize>,
    /// Its constants' indices.
    vars: Vec<usize>,
    hard: bool,
}

impl Link {
    fn later(&self) -> usize {
        self.blocks.last().copied().unwrap_or(0)
    }
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

/// Union-find over the declared constants, where a set may hold one
/// input record's fields (its anchor): two anchored sets never merge, so
/// each record stays a block of its own and what relates two records is
/// a link between their blocks.
struct Components {
    parent: Vec<usize>,
    /// Per root: the record whose fields the set holds.
    anchor: Vec<Option<usize>>,
}

impl Components {
    fn new(count: usize) -> Self {
        Components {
            parent: (0..count).collect(),
            anchor: vec![None; count],
        }
    }

    fn root(&mut self, x: usize) -> usize {
        find(&mut self.parent, x)
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        if a == b {
            return;
        }
        let (keep, gone) = (a.min(b), a.max(b));
        self.parent[gone] = keep;
        self.anchor[keep] = self.anchor[keep].or(self.anchor[gone]);
    }

    /// Whether `vars` lie in sets anchored to two different records.
    fn across_records(&mut self, vars: &[usize]) -> bool {
        let mut seen = None;
        for &v in vars {
            let root = self.root(v);
            if let Some(record) = self.anchor[root] {
                if seen.is_some_and(|r| r != record) {
                    return true;
                }
                seen = Some(record);
            }
        }
        false
    }
}

fn blocks(script: &[String], records: &[Vec<String>]) -> Option<Blocks> {
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
    let mut sets = Components::new(decls.len());
    // A record's fields are one set from the start; records that share a
    // field (the same record of two paths) are one record.
    for (record, fields) in records.iter().enumerate() {
        let vars: Vec<usize> = fields
            .iter()
            .filter_map(|f| declared.get(f.as_str()).copied())
            .collect();
        for &v in &vars {
            let root = sets.root(v);
            sets.anchor[root].get_or_insert(record);
        }
        for pair in vars.windows(2) {
            sets.union(pair[0], pair[1]);
        }
    }
    let mut ties = Vec::new();
    let mut owned = Vec::new();
    for &(command, body) in &assertions {
        let mut names = Vec::new();
        atoms(body, &mut names);
        let vars: Vec<usize> = names
            .iter()
            .filter_map(|n| declared.get(n).copied())
            .collect();
        let hard = command == "assert";
        let tie = (hard
            && (link(body, &declared).is_some() || (disequality(body) && !vars.is_empty())))
            || sets.across_records(&vars);
        if tie {
            ties.push((format!("({command} {body})"), vars, hard));
            continue;
        }
        for pair in vars.windows(2) {
            sets.union(pair[0], pair[1]);
        }
        owned.push((command, body, vars.first().copied()));
    }
    // Blocks numbered in the order of their first declaration.
    let mut number: BTreeMap<usize, usize> = BTreeMap::new();
    let mut block_of = Vec::new();
    for i in 0..decls.len() {
        let root = sets.root(i);
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
    let links = ties
        .into_iter()
        .map(|(command, vars, hard)| {
            let mut blocks: Vec<usize> = vars.iter().map(|&v| block_of[v]).collect();
            blocks.sort_unstable();
            blocks.dedup();
            Link {
                command,
                blocks,
                vars,
                hard,
            }
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
/// `records` lists each input record's fields: constants of two records
/// stay in two blocks, whatever relates them. `None` means "solve the
/// whole script": it is one block, or a step found no model. An
/// unsatisfiable block on its own makes the script `Unsat`.
///
/// A step also holds the links between its block and later ones, over
/// free copies of the later blocks' constants (none of their own
/// assertions): a fold's `max(a, b) >= 30` then makes the first record's
/// choice leave the second one a value, rather than a later step finding
/// none and the whole script being solved after all.
pub(crate) fn solve_in_blocks(
    script: &[String],
    records: &[Vec<String>],
    deadline: Instant,
    solve_whole: impl Fn(&[String], Instant) -> crate::Result<Outcome>,
) -> Option<crate::Result<Outcome>> {
    let blocks = blocks(script, records)?;
    let mut model: BTreeMap<String, ModelValue> = BTreeMap::new();
    for (block, asserts) in blocks.asserts.iter().enumerate() {
        let ahead: Vec<&Link> = blocks
            .links
            .iter()
            .filter(|l| l.hard && l.later() > block && l.blocks.contains(&block))
            .collect();
        let free: BTreeSet<usize> = ahead
            .iter()
            .flat_map(|l| l.vars.iter().copied())
            .filter(|&v| blocks.block_of[v] > block)
            .collect();
        let mut step = Vec::new();
        for (i, ((name, decl), &b)) in blocks.decls.iter().zip(&blocks.block_of).enumerate() {
            if b > block && !free.contains(&i) {
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
            .filter(|l| l.later() == block)
            .map(|l| &l.command)
            .collect();
        step.extend(linked.iter().map(|a| a.to_string()));
        step.extend(ahead.iter().map(|l| l.command.clone()));
        match solve_whole(&step, deadline) {
            Ok(Outcome::Sat(found)) => model.extend(found.into_iter().filter(|(name, _)| {
                blocks
                    .decls
                    .iter()
                    .position(|(n, _)| n == name)
                    .is_some_and(|i| blocks.block_of[i] <= block)
            })),
            // The block alone has no model: neither has the script.
            Ok(Outcome::Unsat) if linked.is_empty() && ahead.is_empty() => {
                return Some(Ok(Outcome::Unsat))
            }
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
        assert!(blocks(&script, &[]).is_none(), "too small to split");
        // Unconstrained constants are blocks of their own.
        script.extend((3..MIN_DECLS).map(|i| format!("(declare-const c{i} Int)")));
        let blocks = blocks(&script, &[]).expect("blocks");
        assert_eq!(&blocks.block_of[..3], &[0, 0, 1]);
        assert_eq!(blocks.links.len(), 1);
        assert_eq!(blocks.links[0].later(), 1);
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
        let blocks = blocks(&script, &[]).expect("blocks");
        assert_eq!(&blocks.block_of[..2], &[0, 1]);
        assert_eq!(blocks.links.len(), 1);
        assert_eq!(blocks.links[0].later(), 1);
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        let whole = |s: &[String], d: Instant| {
            let left = d.saturating_duration_since(Instant::now()).as_millis() as u32;
            crate::solve(s, left)
        };
        let Some(Ok(Outcome::Sat(model))) = solve_in_blocks(&script, &[], deadline, whole) else {
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
    fn what_relates_two_records_is_checked_once_both_are_chosen() {
        // A fold over two readings: the hotter one is at least 30 and one
        // degree above the other. Without the records named, the two
        // comparisons make one block of both readings.
        let mut script = lines(&[
            "(declare-const a String)",
            "(declare-const x Int)",
            "(declare-const b String)",
            "(declare-const y Int)",
            "(assert (and (<= 0 x) (< x 100) (= a (str.from_int x))))",
            "(assert (and (<= 0 y) (< y 100) (= b (str.from_int y))))",
            "(assert (>= (ite (>= x y) x y) 30))",
            "(assert (= (- x y) 1))",
        ]);
        script.extend((4..MIN_DECLS).map(|i| format!("(declare-const c{i} Int)")));
        let records = vec![vec!["a".to_string()], vec!["b".to_string()]];
        let unnamed = blocks(&script, &[]).expect("blocks");
        assert_eq!(&unnamed.block_of[..4], &[0, 0, 0, 0]);
        let named = blocks(&script, &records).expect("blocks");
        assert_eq!(&named.block_of[..4], &[0, 0, 1, 1]);
        assert_eq!(named.links.len(), 2);
        assert!(named.links.iter().all(|l| l.blocks == [0, 1]));
        // The first step sees the links over a free `y`, so its `x` leaves
        // the second record a value: the blocks answer, without the
        // whole script.
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        let whole = |s: &[String], d: Instant| {
            let left = d.saturating_duration_since(Instant::now()).as_millis() as u32;
            crate::solve(s, left)
        };
        let Some(Ok(Outcome::Sat(model))) = solve_in_blocks(&script, &records, deadline, whole)
        else {
            panic!("the blocks have a model");
        };
        let (Some(ModelValue::Int(x)), Some(ModelValue::Int(y))) = (model.get("x"), model.get("y"))
        else {
            panic!("integers x and y in {model:?}");
        };
        assert_eq!(x - y, 1);
        assert!(*x >= 30, "{model:?}");
        assert_eq!(model.get("b"), Some(&ModelValue::Str(y.to_string())));
    }

    #[test]
    fn one_block_is_not_split() {
        let script = lines(&[
            "(declare-const a String)",
            "(declare-const b String)",
            "(assert (= a (str.++ b \"x\")))",
        ]);
        assert!(blocks(&script, &[]).is_none());
    }
}
