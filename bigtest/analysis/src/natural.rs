//! What generated data prefers where its path leaves the choice free:
//! values a reader takes in at a glance and that tell faults apart.
//!
//! A solver's first model is the smallest it finds: empty fields, numbers
//! 0 to 2, the same value in every column. Such data follows its path but
//! reads like noise, and it cannot tell `a * 2` from `a + 2` or field 0
//! from field 1. In the spirit of NaturalSym (FSE'24), generation asks for
//! natural values as preferences (`assert-soft`, which never change a
//! path's feasibility, only its model): split pieces are non-empty, the
//! numbers a record carries lie in 3..=999, and they differ from each
//! other.

use std::collections::BTreeSet;

/// Numbers a record carries prefer this range: small enough to read, and
/// clear of 0, 1 and 2, where `+`, `-`, `*` and `/` agree with each other
/// (`2 * 2 = 2 + 2`, `x * 1 = x / 1`, `x + 0 = x - 0`).
const NATURAL_NUMBERS: (i64, i64) = (3, 999);

/// The declared constants of a script: `(name, sort)`.
fn declarations(script: &[String]) -> Vec<(String, String)> {
    script
        .iter()
        .filter_map(|line| {
            let rest = line.strip_prefix("(declare-const ")?.strip_suffix(')')?;
            let (name, sort) = rest.rsplit_once(' ')?;
            Some((name.to_string(), sort.to_string()))
        })
        .collect()
}

/// The variable's role, from the names the symbolic executor gives:
/// `scope.pN` a split piece, `scope.vN` a parsed number's magnitude,
/// `source.fN` a source field.
fn role(name: &str) -> Option<char> {
    let bare = name.trim_matches('|');
    let (_, last) = bare.rsplit_once('.')?;
    let mut chars = last.chars();
    let role = chars.next()?;
    let rest = chars.as_str();
    (!rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit())).then_some(role)
}

/// `(assert-soft …)` lines asking for natural values of `script`'s
/// variables, least important first (the solver drops the earliest
/// preference a contradiction involves).
pub fn preferences(script: &[String]) -> Vec<String> {
    let mut numbers = Vec::new();
    let mut pieces = Vec::new();
    let already: BTreeSet<&str> = script
        .iter()
        .filter(|l| l.starts_with("(assert-soft "))
        .map(String::as_str)
        .collect();
    for (name, sort) in declarations(script) {
        match (role(&name), sort.as_str()) {
            (Some('v' | 'f'), "Int" | "Real") => numbers.push((name, sort)),
            (Some('p'), "String") => pieces.push(name),
            _ => {}
        }
    }
    let mut soft = Vec::new();
    if numbers.len() > 1 {
        let names: Vec<&str> = numbers.iter().map(|(n, _)| n.as_str()).collect();
        soft.push(format!("(distinct {})", names.join(" ")));
    }
    let (low, high) = NATURAL_NUMBERS;
    for (name, sort) in &numbers {
        let (low, high) = if sort == "Real" {
            (format!("{low}.0"), format!("{high}.0"))
        } else {
            (low.to_string(), high.to_string())
        };
        soft.push(format!("(and (>= {name} {low}) (<= {name} {high}))"));
    }
    for piece in &pieces {
        soft.push(format!("(not (= {piece} \"\"))"));
    }
    soft.into_iter()
        .map(|f| format!("(assert-soft {f})"))
        .filter(|line| !already.contains(line.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn numbers_and_pieces_get_preferences() {
        let script = lines(&[
            "(declare-const map3.p0 String)",
            "(declare-const map3.t1 String)",
            "(declare-const map3.v9 Int)",
            "(declare-const orders.f1 Int)",
            "(declare-const map3.n8 Bool)",
        ]);
        assert_eq!(
            preferences(&script),
            lines(&[
                "(assert-soft (distinct map3.v9 orders.f1))",
                "(assert-soft (and (>= map3.v9 3) (<= map3.v9 999)))",
                "(assert-soft (and (>= orders.f1 3) (<= orders.f1 999)))",
                "(assert-soft (not (= map3.p0 \"\")))",
            ])
        );
    }

    #[test]
    fn tails_flags_and_other_names_get_none() {
        let script = lines(&[
            "(declare-const map3.t1 String)",
            "(declare-const map3.n8 Bool)",
            "(declare-const map3.e4 Int)",
            "(declare-const x Int)",
        ]);
        assert!(preferences(&script).is_empty());
    }
}
