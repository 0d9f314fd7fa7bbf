//! Scripts that are equal up to the names of their constants.
//!
//! A union of two sources copies every JDU path below it once per source a
//! record may come from: the copies' scripts differ only in the names of
//! their variables (`yesterday.f0` for `today.f0`). One answer serves them
//! all, with the model's names mapped across by declaration position, so a
//! caller that solves many scripts need solve each such family once.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

use super::{parse_sexprs, ModelValue, Outcome, SExpr};

/// Answers found so far in this process, by key: `sat` (with the script
/// it was found for) and `unsat` hold whatever the time limit, so a
/// script solved once (a path's condition, solved again to place its
/// records in a new test case; a union's copies) is not solved again.
/// `unknown` is not kept: more time may decide it.
type Answers = HashMap<String, (Renaming, Outcome)>;

fn answers() -> &'static Mutex<Answers> {
    static ANSWERS: OnceLock<Mutex<Answers>> = OnceLock::new();
    ANSWERS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The answer to a script equal to `renaming`'s up to names, in its names.
pub(crate) fn remembered(renaming: &Renaming) -> Option<Outcome> {
    let answers = answers().lock().unwrap_or_else(|e| e.into_inner());
    let (solved, outcome) = answers.get(&renaming.key)?;
    Some(match outcome {
        Outcome::Sat(model) => Outcome::Sat(renaming.translate(solved, model)),
        other => other.clone(),
    })
}

pub(crate) fn remember(renaming: Renaming, outcome: &Outcome) {
    if matches!(outcome, Outcome::Unknown(_)) {
        return;
    }
    let mut answers = answers().lock().unwrap_or_else(|e| e.into_inner());
    let key = renaming.key.clone();
    answers.entry(key).or_insert((renaming, outcome.clone()));
}

/// A script with its declared constants renamed, in declaration order, to
/// names no script declares (`|%0|`, `|%1|`, ...): two scripts with equal
/// [`Renaming::key`]s differ only in the names of their constants.
#[derive(Debug, Clone)]
pub struct Renaming {
    pub key: String,
    /// The script's own names (without bars), in declaration order.
    names: Vec<String>,
}

fn unbar(name: &str) -> &str {
    name.strip_prefix('|')
        .and_then(|n| n.strip_suffix('|'))
        .unwrap_or(name)
}

/// `(declare-const x S)` and `(declare-fun x () S)`: the name `x`.
fn declared(command: &SExpr) -> Option<&str> {
    let SExpr::List(items) = command else {
        return None;
    };
    match items.as_slice() {
        [SExpr::Atom(head), SExpr::Atom(name), _] if head == "declare-const" => Some(unbar(name)),
        [SExpr::Atom(head), SExpr::Atom(name), SExpr::List(params), _]
            if head == "declare-fun" && params.is_empty() =>
        {
            Some(unbar(name))
        }
        _ => None,
    }
}

fn renamed(expr: &SExpr, index: &BTreeMap<&str, usize>) -> SExpr {
    match expr {
        SExpr::Atom(atom) => match index.get(unbar(atom)) {
            // String literals start with a quote, so never match a name.
            Some(i) => SExpr::Atom(format!("|%{i}|")),
            None => SExpr::Atom(atom.clone()),
        },
        SExpr::List(items) => SExpr::List(items.iter().map(|i| renamed(i, index)).collect()),
    }
}

impl Renaming {
    /// `None` for a script this reader cannot take apart (Z3 will say why
    /// when it is solved) or one that declares a name twice.
    pub fn of(script: &[String]) -> Option<Renaming> {
        let commands = parse_sexprs(&script.join("\n")).ok()?;
        let names: Vec<String> = commands
            .iter()
            .filter_map(declared)
            .map(str::to_string)
            .collect();
        let index: BTreeMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        if index.len() != names.len() {
            return None;
        }
        let key = commands
            .iter()
            .map(|c| renamed(c, &index).to_string())
            .collect::<Vec<_>>()
            .join("\n");
        Some(Renaming { key, names })
    }

    /// A model of the script `solved` was made from, in this script's names.
    /// Only meaningful when the two keys are equal.
    pub fn translate(
        &self,
        solved: &Renaming,
        model: &BTreeMap<String, ModelValue>,
    ) -> BTreeMap<String, ModelValue> {
        solved
            .names
            .iter()
            .zip(&self.names)
            .filter_map(|(from, to)| Some((to.clone(), model.get(from)?.clone())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn scripts_equal_up_to_names_share_a_key() {
        let a = Renaming::of(&script(&[
            "(declare-const yesterday.f0 String)",
            "(declare-const |map.p 1| String)",
            "(assert (= yesterday.f0 (str.++ |map.p 1| \"yesterday.f0\")))",
        ]))
        .unwrap();
        let b = Renaming::of(&script(&[
            "(declare-const today.f0 String)",
            "(declare-const map.p1 String)",
            "(assert (= today.f0 (str.++ map.p1 \"yesterday.f0\")))",
        ]))
        .unwrap();
        assert_eq!(a.key, b.key);
        let model = BTreeMap::from([
            ("yesterday.f0".to_string(), ModelValue::Str("xy".into())),
            ("map.p 1".to_string(), ModelValue::Str("x".into())),
        ]);
        assert_eq!(
            b.translate(&a, &model),
            BTreeMap::from([
                ("today.f0".to_string(), ModelValue::Str("xy".into())),
                ("map.p1".to_string(), ModelValue::Str("x".into())),
            ])
        );
    }

    #[test]
    fn literals_and_declaration_order_tell_scripts_apart() {
        let key = |lines: &[&str]| Renaming::of(&script(lines)).unwrap().key;
        let base = key(&["(declare-const x Int)", "(assert (> x 2))"]);
        assert_ne!(base, key(&["(declare-const y Int)", "(assert (> y 3))"]));
        let xy = key(&[
            "(declare-const x Int)",
            "(declare-const y Int)",
            "(assert (> x y))",
        ]);
        let yx = key(&[
            "(declare-const y Int)",
            "(declare-const x Int)",
            "(assert (> x y))",
        ]);
        assert_ne!(xy, yx);
    }

    #[test]
    fn a_name_declared_twice_is_not_renamed() {
        assert!(
            Renaming::of(&script(&["(declare-const x Int)", "(declare-const x Int)"])).is_none()
        );
    }
}
