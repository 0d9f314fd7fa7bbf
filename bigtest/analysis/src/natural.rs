//! Natural values for generated data, where its paths leave the choice
//! free.
//!
//! A solver's first model is the smallest it finds: empty fields, numbers
//! 0 to 2, the next unused character as each new key (`[`, `\`, a control
//! character). Such data follows its paths but reads like noise, and it
//! cannot tell `a * 2` from `a + 2` or field 0 from field 1. In the spirit
//! of NaturalSym (FSE'24), each case's text is rewritten token by token
//! into values a reader takes in at a glance, and every rewrite is kept
//! only where the reference interpreter shows the case still behaves as
//! before (the same paths covered by the same records, the same failure).
//!
//! * A *token* is a maximal run of characters between separators: the
//!   sources' delimiters, whitespace, and every character of the program's
//!   string constants that is not a letter or digit (`#`, `,`, `:`).
//! * A text token (empty, or not already a plain word) becomes a word from
//!   [`WORDS`]; a number from -2 to 2 or beyond [`MAX_NATURAL`] becomes a
//!   prime from 3 up (where `+`, `-`, `*` and `/` give different results),
//!   keeping its sign and decimals.
//! * Tokens holding a letters-and-digits part of a program constant
//!   (`test`, `ERROR`) are left alone, and no replacement contains one.
//! * Each token value is rewritten to one fresh value per occurrence
//!   (columns then differ, so a wrong field index shows), else to one
//!   fresh value for all of them (equal keys stay equal), else left as is.
//!   Fresh values occur nowhere else in the case, so equal tokens stay
//!   equal and different ones different.

use std::collections::{BTreeMap, BTreeSet};

/// Readable, distinct, lower-case words (a reader can say them aloud).
const WORDS: [&str; 26] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu",
];

/// Numbers above this read as noise (a solver's 953834753763216).
const MAX_NATURAL: u64 = 99_999;

/// Token occurrences rewritten one at a time at most, per token value:
/// each costs one interpreter run.
const MAX_SINGLE_TRIES: usize = 8;

/// One case's inputs: lines per source.
pub type Inputs = BTreeMap<String, Vec<String>>;

/// What tokens of a program's data may be rewritten to.
pub struct Vocabulary {
    separators: BTreeSet<char>,
    /// Lower-cased letters-and-digits parts of the program's constants.
    protected: Vec<String>,
}

impl Vocabulary {
    /// The vocabulary of a program with these string constants (see
    /// [`coco_dataflow::model::Program::string_constants`]).
    pub fn new(constants: &BTreeSet<String>) -> Self {
        let mut separators: BTreeSet<char> = [' ', '\t'].into_iter().collect();
        let mut protected = Vec::new();
        for constant in constants {
            separators.extend(constant.chars().filter(|c| !c.is_alphanumeric()));
            for part in constant.split(|c: char| !c.is_alphanumeric()) {
                if !part.is_empty() {
                    protected.push(part.to_lowercase());
                }
            }
        }
        Vocabulary {
            separators,
            protected,
        }
    }

    fn protects(&self, text: &str) -> bool {
        let lower = text.to_lowercase();
        self.protected.iter().any(|p| lower.contains(p.as_str()))
    }
}

/// Where a token is: source, line, byte range in the line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct At {
    source: String,
    line: usize,
    start: usize,
    end: usize,
}

/// The tokens of `line` as byte ranges.
fn tokens(line: &str, separators: &BTreeSet<char>) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut start = 0;
    for (i, c) in line.char_indices() {
        if separators.contains(&c) {
            found.push((start, i));
            start = i + c.len_utf8();
        }
    }
    found.push((start, line.len()));
    found
}

/// Every token of `inputs`, in order, with where it is.
fn token_places<'i>(inputs: &'i Inputs, vocabulary: &Vocabulary) -> Vec<(At, &'i str)> {
    let mut found = Vec::new();
    for (source, lines) in inputs {
        for (line, text) in lines.iter().enumerate() {
            for (start, end) in tokens(text, &vocabulary.separators) {
                let at = At {
                    source: source.clone(),
                    line,
                    start,
                    end,
                };
                found.push((at, &text[start..end]));
            }
        }
    }
    found
}

/// What a token value is rewritten as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A number from -2 to 2 or a huge one, with its sign and decimals.
    Number {
        negative: bool,
        decimals: usize,
    },
    Text,
    /// A token of a record a probe pinned: only its characters outside
    /// printable ASCII change, to letters, so its length and everything
    /// else the probe chose stay.
    Printable,
}

fn printable(c: char) -> bool {
    c == ' ' || c.is_ascii_graphic()
}

/// Whether (and how) `token` is rewritten: small numbers and text that is
/// not already a plain word, unless it holds a constant's part.
fn kind(token: &str, vocabulary: &Vocabulary) -> Option<Kind> {
    if vocabulary.protects(token) {
        return None;
    }
    let unsigned = token.strip_prefix('-').unwrap_or(token);
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let numeric = !whole.is_empty()
        && whole.chars().all(|c| c.is_ascii_digit())
        && fraction.chars().all(|c| c.is_ascii_digit())
        && (fraction.is_empty() != unsigned.contains('.'));
    if numeric {
        let unnatural = whole
            .parse::<u64>()
            .map_or(true, |v| v <= 2 || v > MAX_NATURAL);
        return unnatural.then_some(Kind::Number {
            negative: token.starts_with('-'),
            decimals: fraction.len(),
        });
    }
    let plain_word = token.len() > 1 && token.chars().all(|c| c.is_ascii_alphanumeric());
    (!plain_word).then_some(Kind::Text)
}

/// Values not used in the case, in order.
struct Fresh<'v> {
    used: BTreeSet<String>,
    vocabulary: &'v Vocabulary,
    next_word: usize,
    next_number: u64,
}

impl Fresh<'_> {
    fn take(&mut self, kind: Kind, token: &str) -> String {
        if kind == Kind::Printable {
            return self.printable(token);
        }
        loop {
            let candidate = match kind {
                Kind::Printable => unreachable!("handled above"),
                Kind::Text => {
                    let i = self.next_word;
                    self.next_word += 1;
                    let round = i / WORDS.len();
                    let word = WORDS[i % WORDS.len()];
                    if round == 0 {
                        word.to_string()
                    } else {
                        format!("{word}{}", round + 1)
                    }
                }
                Kind::Number { negative, decimals } => {
                    self.next_number += 1;
                    while !is_prime(self.next_number) {
                        self.next_number += 1;
                    }
                    let sign = if negative { "-" } else { "" };
                    let fraction = if decimals > 0 {
                        format!(".{}", "0".repeat(decimals))
                    } else {
                        String::new()
                    };
                    format!("{sign}{}{fraction}", self.next_number)
                }
            };
            if !self.used.contains(&candidate) && !self.vocabulary.protects(&candidate) {
                self.used.insert(candidate.clone());
                return candidate;
            }
        }
    }
}

impl Fresh<'_> {
    /// `token` with its characters outside printable ASCII replaced by one
    /// letter, the first (from `q`) that makes it unused; if none does,
    /// `q` (the interpreter still decides whether it is kept).
    fn printable(&mut self, token: &str) -> String {
        let with = |letter: char| -> String {
            token
                .chars()
                .map(|c| if printable(c) { c } else { letter })
                .collect()
        };
        let chosen = ('q'..='z')
            .chain('a'..'q')
            .map(with)
            .find(|t| !self.used.contains(t) && !self.vocabulary.protects(t))
            .unwrap_or_else(|| with('q'));
        self.used.insert(chosen.clone());
        chosen
    }
}

fn is_prime(n: u64) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

/// `inputs` with the tokens at `places` replaced (ranges of one line
/// replaced from the back so the earlier ones stay valid).
fn rewritten(inputs: &Inputs, places: &[(At, String)]) -> Inputs {
    let mut out = inputs.clone();
    let mut sorted: Vec<&(At, String)> = places.iter().collect();
    sorted.sort_by(|a, b| b.0.cmp(&a.0));
    for (at, text) in sorted {
        if let Some(line) = out.get_mut(&at.source).and_then(|l| l.get_mut(at.line)) {
            line.replace_range(at.start..at.end, text);
        }
    }
    out
}

/// Rewrites `inputs` into natural values wherever `behaves` accepts the
/// result. `pinned` names lines a boundary probe chose: only their
/// characters outside printable ASCII change.
pub fn naturalize(
    inputs: &Inputs,
    vocabulary: &Vocabulary,
    pinned: &BTreeSet<(String, usize)>,
    mut behaves: impl FnMut(&Inputs) -> bool,
) -> Inputs {
    let mut current = inputs.clone();
    // Token values in order of first appearance, with their places.
    let mut values: Vec<(String, Kind, Vec<At>)> = Vec::new();
    let all = token_places(inputs, vocabulary);
    let used = all.iter().map(|(_, token)| token.to_string()).collect();
    for (at, token) in all {
        let kind = if pinned.contains(&(at.source.clone(), at.line)) {
            if token.chars().all(printable) {
                continue;
            }
            Kind::Printable
        } else {
            let Some(kind) = kind(token, vocabulary) else {
                continue;
            };
            kind
        };
        match values.iter_mut().find(|(t, k, _)| t == token && *k == kind) {
            Some((_, _, places)) => places.push(at),
            None => values.push((token.to_string(), kind, vec![at])),
        }
    }
    let mut fresh = Fresh {
        used,
        vocabulary,
        next_word: 0,
        next_number: 2,
    };
    // Every rewrite so far, against the original positions.
    let mut accepted: Vec<(At, String)> = Vec::new();
    let mut attempt = |places: Vec<(At, String)>, accepted: &mut Vec<(At, String)>| {
        let mut all = accepted.clone();
        all.extend(places.iter().cloned());
        let candidate = rewritten(inputs, &all);
        if behaves(&candidate) {
            *accepted = all;
            current = candidate;
            true
        } else {
            false
        }
    };
    for (token, kind, places) in values {
        if places.len() > 1 {
            let each: Vec<(At, String)> = places
                .iter()
                .map(|at| (at.clone(), fresh.take(kind, &token)))
                .collect();
            if attempt(each, &mut accepted) {
                continue;
            }
        }
        let one = fresh.take(kind, &token);
        let all: Vec<(At, String)> = places.iter().map(|at| (at.clone(), one.clone())).collect();
        if attempt(all, &mut accepted) {
            continue;
        }
        if places.len() > 1 {
            for at in places.into_iter().take(MAX_SINGLE_TRIES) {
                attempt(vec![(at, fresh.take(kind, &token))], &mut accepted);
            }
        }
    }
    current
}

/// Rewrites the text tokens of the lines of `inputs` not in `kept`, one
/// occurrence at a time, each to a fresh word, until `done` accepts the
/// result (which is returned); `inputs` unchanged when it never does.
/// Generation uses it on a record whose list elements were copied from
/// one another, so that the copies' keys differ.
pub fn freshen(
    inputs: &Inputs,
    vocabulary: &Vocabulary,
    kept: &BTreeSet<(String, usize)>,
    mut done: impl FnMut(&Inputs) -> bool,
) -> Inputs {
    let all = token_places(inputs, vocabulary);
    let used = all.iter().map(|(_, token)| token.to_string()).collect();
    let places: Vec<At> = all
        .into_iter()
        .filter(|(at, token)| {
            !kept.contains(&(at.source.clone(), at.line))
                && !token.is_empty()
                && !vocabulary.protects(token)
                && token.parse::<f64>().is_err()
        })
        .map(|(at, _)| at)
        .collect();
    let mut fresh = Fresh {
        used,
        vocabulary,
        next_word: 0,
        next_number: 2,
    };
    let mut rewrites: Vec<(At, String)> = Vec::new();
    for at in places.into_iter().take(MAX_SINGLE_TRIES) {
        rewrites.push((at, fresh.take(Kind::Text, "")));
        let candidate = rewritten(inputs, &rewrites);
        if done(&candidate) {
            return candidate;
        }
    }
    inputs.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary(constants: &[&str]) -> Vocabulary {
        Vocabulary::new(&constants.iter().map(|s| s.to_string()).collect())
    }

    fn inputs(lines: &[&str]) -> Inputs {
        [(
            "s".to_string(),
            lines.iter().map(|l| l.to_string()).collect(),
        )]
        .into_iter()
        .collect()
    }

    #[test]
    fn tokens_split_at_separators() {
        let v = vocabulary(&[",", "#ad"]);
        let line = ",B,#x 2";
        let found: Vec<&str> = tokens(line, &v.separators)
            .into_iter()
            .map(|(s, e)| &line[s..e])
            .collect();
        assert_eq!(found, ["", "B", "", "x", "2"]);
    }

    #[test]
    fn columns_get_distinct_words_and_numbers_primes() {
        let v = vocabulary(&[","]);
        let out = naturalize(&inputs(&[",,2", "B,\u{1},0"]), &v, &BTreeSet::new(), |_| {
            true
        });
        assert_eq!(out["s"], ["alpha,bravo,3", "charlie,delta,5"]);
    }

    #[test]
    fn equal_keys_stay_equal_where_the_program_needs_it() {
        let v = vocabulary(&[","]);
        // The "program" needs both lines' first fields equal.
        let behaves = |i: &Inputs| {
            let first: Vec<&str> = i["s"]
                .iter()
                .map(|l| l.split(',').next().unwrap())
                .collect();
            first[0] == first[1]
        };
        let out = naturalize(&inputs(&["B,1", "B,2"]), &v, &BTreeSet::new(), behaves);
        assert_eq!(out["s"], ["charlie,3", "charlie,5"]);
    }

    #[test]
    fn constants_and_pinned_records_are_kept() {
        let v = vocabulary(&[",", "test"]);
        let keep: BTreeSet<(String, usize)> = [("s".to_string(), 0)].into_iter().collect();
        let out = naturalize(&inputs(&["mytest,0", "x,-1.00"]), &v, &keep, |_| true);
        assert_eq!(out["s"], ["mytest,0", "alpha,-3.00"]);
        let out = naturalize(&inputs(&["#\u{8e}D,0"]), &v, &keep, |_| true);
        assert_eq!(out["s"], ["#qD,0"]);
    }

    #[test]
    fn freshen_rewrites_new_words_until_accepted() {
        let v = vocabulary(&[",", ":"]);
        let kept: BTreeSet<(String, usize)> = [("s".to_string(), 0)].into_iter().collect();
        // Accepted once the two items of line 1 differ.
        let out = freshen(&inputs(&["old:1", "x:3,x:3"]), &v, &kept, |i| {
            let items: Vec<&str> = i["s"][1].split(',').collect();
            items[0] != items[1]
        });
        assert_eq!(out["s"], ["old:1", "alpha:3,x:3"]);
    }

    #[test]
    fn a_rewrite_the_program_rejects_is_undone() {
        let v = vocabulary(&[","]);
        let out = naturalize(&inputs(&["\u{0},1"]), &v, &BTreeSet::new(), |i| {
            i["s"][0].starts_with('\u{0}')
        });
        assert_eq!(out["s"], ["\u{0},3"]);
    }
}
