//! Symbolic execution of UDFs: the [`Domain`] that evaluates UDF ops on
//! terms, and the path state the dataflow enumeration threads through
//! operators (record fields, path condition, declared variables).
//!
//! Strings split by a delimiter are decomposed lazily: the first use pins
//! `s = p0 ++ T1`, and each `df.get` past the known pieces decides whether
//! the string holds more: `T_m = d ++ p_m ++ T_{m+1}`, each piece free of the
//! delimiter and each tail empty or starting with it. So a path only
//! constrains the pieces it reads. In Python a failing `get` says exactly
//! "at most i pieces"; on the JVM, where `String.split` drops the empty
//! pieces at the end, a `get` of piece i succeeds only when some piece from
//! i on is non-empty (or the string holds no delimiter at all), and fails
//! when every piece from i on is empty or missing ([`State::jvm_kept`],
//! [`State::jvm_dropped`]).
//!
//! A split at whitespace (Python's `s.split()`) is decomposed the same way
//! with a single space for the delimiter, except that the first piece is
//! pinned by the first `df.get` (`""` has no piece), and every piece is
//! non-empty printable ASCII without a space: generated data holds one
//! space between pieces and none around them, an under-approximation of
//! the strings whose pieces are those (see docs/bigtest.md).
//!
//! Every UDF op follows the program's host language
//! ([`coco_dataflow::host`]). The text a failing parse is given is printable
//! ASCII, where no host reads other scripts' digits or Unicode spaces.
//! (Constraining every generated string so made solving six times slower
//! on payroll; lengths differ between the hosts only for characters outside
//! the Basic Multilingual Plane, and `generate` measures coverage by
//! running the data, so a record that took another path would show.)

use std::sync::LazyLock;

use coco_dataflow::{
    eval::{Domain, Stop},
    host::{self, Host},
    lineage::Lineage,
    model::{
        ClassPattern, Cmp, Const, DatasetId, FloatBinOp, IntBinOp, SqlCastTarget, StripSide, Ty,
        UdfOp,
    },
    sql,
    value::Value,
};

use super::term::{
    and, app, cmp, div_trunc, eq, floor_div, floor_mod, in_re, int_op, ite, neg, not, or, real,
    Sort, Term,
};

/// A symbolic UDF value.
#[derive(Clone, Debug)]
pub enum Sym {
    Int(Term),
    Real(Term),
    Bool(Term),
    Str(Term),
    /// A list whose elements are all known (group_by_key, constant splits).
    List(Vec<Sym>),
    /// A split of a string: index into [`State::splits`].
    Split(usize),
    /// `df.range start, stop`: the ints `start..stop`, a list whose
    /// length the input decides; a flat_map follows its elements.
    Range {
        start: Term,
        stop: Term,
    },
    Opt {
        present: Term,
        value: Box<Sym>,
    },
}

#[derive(Clone, Debug)]
pub struct SplitState {
    /// The string split: a second split of it by the same delimiter (in
    /// a later UDF of the path, or the same one) is this one, so what one
    /// reads of the pieces holds for the other.
    pub whole: Term,
    pub delimiter: String,
    pub pieces: Vec<Term>,
    /// What follows the known pieces: `""` or the delimiter and more.
    pub tail: Term,
    /// The JVM "piece kept" constraints of this split's gets, by piece.
    pub kept: Vec<(usize, Term)>,
    /// What a piece may hold and how pieces follow each other.
    pub rule: PieceRule,
    /// What `len()` of the split described past the pinned pieces: links
    /// (piece, rest), each with "what precedes is empty, or it is the
    /// delimiter, the piece and the rest" assumed. A later get pins the
    /// next link's piece and a failing one says some link's input is
    /// empty, so the solver relates them without word equations.
    pub links: Vec<(Term, Term)>,
}

/// How a split's pieces look and follow each other, in generated text.
#[derive(Clone, Debug, PartialEq)]
pub enum PieceRule {
    /// `str.split(d)`, the JVM's `String.split`: pieces free of the
    /// delimiter, any of them empty.
    Text,
    /// Python's `s.split()` and `re.findall(C+)`: non-empty pieces of the
    /// class joined by one delimiter (a character outside it), the first
    /// not preceded by it. No piece is pinned until read: a string may
    /// have none.
    Tokens(Class),
    /// `re.split(C)` and `re.split(C+)`: pieces of the class (what is
    /// outside C) joined by one delimiter (a character of C). With `runs`
    /// a piece between two others is not empty: two delimiters side by
    /// side would be one run.
    Fields { class: Class, runs: bool },
    /// The row Python's `csv.reader` reads from a line: pieces free of
    /// the delimiter `,` and of the quote (generated lines hold no
    /// quoting, where the row is the split at commas), any of them empty.
    /// As for tokens, no piece is pinned until read: the empty line has
    /// none.
    Csv,
}

impl PieceRule {
    /// Whether the first piece is pinned only when read (a string may
    /// have no piece at all).
    pub fn lazy_first(&self) -> bool {
        matches!(self, PieceRule::Tokens(_) | PieceRule::Csv)
    }
}

/// How a record met a keyed operator: what its key must differ from when
/// another record of the same path meets the operator too.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyRole {
    /// One output record of a grouping operator (distinct, reduce_by_key,
    /// group_by_key): two records leaving it separately had different keys.
    Group,
    /// A matched join record: its key is on both sides.
    Both,
    /// An unmatched left record: no right record of the path has its key.
    LeftOnly,
    /// An unmatched right record: no left record of the path has its key.
    RightOnly,
}

#[derive(Clone, Debug, PartialEq)]
pub struct KeyUse {
    /// The keyed dataset op.
    pub op: DatasetId,
    pub role: KeyRole,
    /// The key; for distinct, every scalar field of the record.
    pub terms: Vec<Term>,
}

impl KeyUse {
    /// The constraint that `self` and `other`, met by two different records
    /// of one path, imply; `None` when they constrain nothing.
    pub fn apart(&self, other: &KeyUse) -> Option<Term> {
        use KeyRole::*;
        if self.op != other.op || self.terms.len() != other.terms.len() {
            return None;
        }
        // Two matched join records of one path come from four source
        // records: with one key they would match crosswise, four outputs.
        let clash = matches!(
            (&self.role, &other.role),
            (Group, Group)
                | (Both, Both)
                | (LeftOnly, Both | RightOnly)
                | (RightOnly, Both | LeftOnly)
                | (Both, LeftOnly | RightOnly)
        );
        clash.then(|| {
            not(and(self
                .terms
                .iter()
                .zip(&other.terms)
                .map(|(a, b)| eq(a.clone(), b.clone()))
                .collect()))
        })
    }
}

/// One symbolic record on one path.
#[derive(Clone, Debug, Default)]
pub struct State {
    pub fields: Vec<Sym>,
    pub constraints: Vec<Term>,
    /// Constraints the data should meet where the path allows it, solved
    /// as `assert-soft`: an encoding's simple case (a replace that finds
    /// nothing), which the solver answers fast and a reader takes in at a
    /// glance.
    pub preferences: Vec<Term>,
    pub decls: Vec<(String, Sort)>,
    pub splits: Vec<SplitState>,
    pub lineage: Lineage,
    /// Every keyed operator the path passed, with the key.
    pub keys: Vec<KeyUse>,
    /// `(source name, field variables)` per source record the path reads.
    pub records: Vec<(String, Vec<String>)>,
    /// Names fresh variables of this path.
    pub fresh: usize,
    /// Prefix of fresh variable names (the op and instance creating them).
    pub scope: String,
    /// String variables whose one constraint is a shape over a character
    /// class (a whitespace split's piece, a stripped string), so a case
    /// mapping applied later narrows that constraint instead of adding a
    /// second regular expression (Z3 4.8 solves one flat expression about
    /// twice as fast as two).
    pub shaped: Vec<Shaped>,
    /// Whether a join on the path matched a source record with itself
    /// (its sides read a common source): the path's witness where one
    /// record reaches both sides.
    pub matched_itself: bool,
    /// Strings the path knows to start with a constant.
    pub prefixed: Vec<Prefixed>,
}

/// `string` is `prefix ++ rest`: the path took a `startswith(prefix)`.
/// Python's idiom `if s.startswith(P): s = s[len(P):]` then slices off
/// what it tested, and the slice is `rest` itself. Z3 4.8.12 takes
/// seconds over `str.substr` of a string with a known prefix (the length
/// arithmetic against `str.prefixof`), and a tenth of that over the
/// concatenation.
#[derive(Clone, Debug)]
pub struct Prefixed {
    pub string: Term,
    pub prefix: String,
    pub rest: Term,
}

/// A set of printable ASCII characters, as inclusive ranges.
pub type Class = Vec<(char, char)>;

/// Printable ASCII, and the same without the space.
const PRINTABLE: (char, char) = (' ', '~');
const VISIBLE: (char, char) = ('!', '~');

/// What a [`Shaped`] variable's text looks like.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// One or more characters of the class (a whitespace split's piece).
    Word,
    /// Empty, or characters of the class whose ends (the left one, the
    /// right one, or both) are not a space: what a strip leaves.
    Stripped(StripSide),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shaped {
    pub var: Term,
    pub shape: Shape,
    pub class: Class,
    /// The constraint in the path condition that says it.
    pub constraint: Term,
}

/// The characters both classes hold.
fn intersect(a: &Class, b: &Class) -> Class {
    let mut out = Vec::new();
    for &(a0, a1) in a {
        for &(b0, b1) in b {
            let (lo, hi) = (a0.max(b0), a1.min(b1));
            if lo <= hi {
                out.push((lo, hi));
            }
        }
    }
    out
}

/// The printable ASCII characters for which `keep` holds.
fn printable_where(keep: impl Fn(char) -> bool) -> Class {
    let mut class: Class = Vec::new();
    for c in PRINTABLE.0..=PRINTABLE.1 {
        if !keep(c) {
            continue;
        }
        match class.last_mut() {
            Some((_, hi)) if (*hi as u32) + 1 == c as u32 => *hi = c,
            _ => class.push((c, c)),
        }
    }
    class
}

/// A regular expression matching one character of `class`.
fn class_re(class: &Class) -> Term {
    let ranges: Vec<Term> = class
        .iter()
        .map(|&(lo, hi)| {
            app(
                "re.range",
                vec![Term::Str(lo.to_string()), Term::Str(hi.to_string())],
            )
        })
        .collect();
    match ranges.len() {
        0 => Term::Raw("re.none"),
        1 => ranges.into_iter().next().unwrap_or(Term::Raw("re.none")),
        _ => app("re.union", ranges),
    }
}

/// "`var` has `shape` over `class`".
fn shape_constraint(var: &Term, shape: Shape, class: &Class) -> Term {
    let inner = class_re(class);
    let edge = class_re(&intersect(class, &vec![VISIBLE]));
    let empty = app("str.to_re", vec![Term::Str(String::new())]);
    let star = app("re.*", vec![inner.clone()]);
    let re = match shape {
        Shape::Word => app("re.+", vec![inner]),
        Shape::Stripped(StripSide::Both) => app(
            "re.union",
            vec![
                empty,
                edge.clone(),
                app("re.++", vec![edge.clone(), star, edge]),
            ],
        ),
        Shape::Stripped(StripSide::Left) => {
            app("re.union", vec![empty, app("re.++", vec![edge, star])])
        }
        Shape::Stripped(StripSide::Right) => {
            app("re.union", vec![empty, app("re.++", vec![star, edge])])
        }
    };
    app("str.in_re", vec![var.clone(), re])
}

/// Numbers with at most this many digits round-trip through i64 and f64.
pub const MAX_DIGITS: usize = 15;

impl State {
    pub fn declare(&mut self, name: String, sort: Sort) -> Term {
        self.decls.push((name.clone(), sort));
        Term::Var(name)
    }

    fn fresh(&mut self, what: &str, sort: Sort) -> Term {
        let name = format!("{}.{what}{}", self.scope, self.fresh);
        self.fresh += 1;
        self.declare(name, sort)
    }

    pub fn assume(&mut self, t: Term) {
        if t != Term::Bool(true) {
            self.constraints.push(t);
        }
    }

    /// The preferences of a finished path: its own, then, for Python, no
    /// text after the last piece each split reads (a log line with only the
    /// fields the job looks at), which spares the solver the rest of each
    /// line. The JVM examples' paths were all decided without the shape
    /// preferences, and their plainer data detected fewer mutants
    /// (sales_by_country 87.5% to 68.8%), so there they stay as they were.
    pub fn preferences_at_end(&self, host: Host) -> Vec<Term> {
        let mut all = self.preferences.clone();
        if host != Host::Python {
            return all;
        }
        for split in &self.splits {
            if matches!(split.tail, Term::Var(_)) {
                all.push(eq(split.tail.clone(), Term::Str(String::new())));
            }
        }
        all
    }

    /// What it takes for `other`, a state over some of this path's records,
    /// to happen as well: its conditions this path does not already have,
    /// and `also`. Its variables are declared here.
    pub fn condition_of(&mut self, other: &State, also: impl IntoIterator<Item = Term>) -> Term {
        declare_all(&mut self.decls, &other.decls);
        let mut conditions: Vec<Term> = other
            .constraints
            .iter()
            .filter(|c| !self.constraints.contains(c))
            .cloned()
            .collect();
        conditions.extend(also);
        and(conditions)
    }

    /// `t`, where the path allows it (see [`State::preferences`]).
    pub fn prefer(&mut self, t: Term) {
        if t != Term::Bool(true) {
            self.preferences.push(t);
        }
    }

    /// Whether `var` is one or more ASCII digits by its shape.
    fn digits_only(&self, var: &Term) -> bool {
        self.shaped.iter().any(|s| {
            s.var == *var
                && s.shape == Shape::Word
                && !s.class.is_empty()
                && s.class.iter().all(|&(lo, hi)| '0' <= lo && hi <= '9')
        })
    }

    /// Constrains the fresh variable `var` to `shape` over `class`.
    fn shape(&mut self, var: Term, shape: Shape, class: Class) -> Term {
        let constraint = shape_constraint(&var, shape, &class);
        self.shaped.push(Shaped {
            var,
            shape,
            class,
            constraint: constraint.clone(),
        });
        constraint
    }

    /// Restricts the characters of `s` to `class`: by narrowing the shape
    /// constraint of a shaped variable, or with a new constraint.
    fn restrict(&mut self, s: &Term, class: &Class) {
        if let Some(i) = self.shaped.iter().position(|v| v.var == *s) {
            let narrowed = intersect(&self.shaped[i].class, class);
            let constraint = shape_constraint(s, self.shaped[i].shape, &narrowed);
            let old = std::mem::replace(&mut self.shaped[i].constraint, constraint.clone());
            self.shaped[i].class = narrowed;
            if let Some(at) = self.constraints.iter().position(|c| *c == old) {
                self.constraints[at] = constraint;
                return;
            }
            self.assume(constraint);
            return;
        }
        self.assume(app(
            "str.in_re",
            vec![s.clone(), app("re.*", vec![class_re(class)])],
        ));
    }

    /// Appends `other`'s path to this one (for operators combining records);
    /// `other`'s split indices move past this state's.
    pub fn absorb(&mut self, other: &State) -> Vec<Sym> {
        let offset = self.splits.len();
        self.splits.extend(other.splits.iter().cloned());
        self.constraints.extend(other.constraints.iter().cloned());
        self.preferences.extend(other.preferences.iter().cloned());
        declare_all(&mut self.decls, &other.decls);
        self.keys.extend(other.keys.iter().cloned());
        // A record two members share (one source record through both
        // sides of a join) is still one record.
        for record in &other.records {
            if !self.records.contains(record) {
                self.records.push(record.clone());
            }
        }
        self.shaped.extend(other.shaped.iter().cloned());
        self.fresh = self.fresh.max(other.fresh);
        self.matched_itself |= other.matched_itself;
        self.prefixed.extend(other.prefixed.iter().cloned());
        other.fields.iter().map(|f| shift(f, offset)).collect()
    }

    /// A split of `s` by `delimiter`, with its first piece pinned.
    pub fn split(&mut self, s: Term, delimiter: &str) -> Sym {
        if let Term::Str(text) = &s {
            return Sym::List(
                text.split(delimiter)
                    .map(|p| Sym::Str(Term::Str(p.into())))
                    .collect(),
            );
        }
        self.split_by(s, delimiter, PieceRule::Text)
    }

    /// Python's `s.split()` of a non-constant `s`: runs of whitespace cut
    /// it, which generated text holds as one space.
    pub fn split_whitespace(&mut self, s: Term) -> Sym {
        self.split_by(s, " ", PieceRule::Tokens(vec![VISIBLE]))
    }

    /// The row `csv.reader` reads from a non-constant line `s`. The line
    /// holds no quote at all, not only in the pieces a path reads: a
    /// quote in the rest could open a field that runs past the line.
    pub fn csv_row(&mut self, s: Term) -> Sym {
        self.assume(not(app(
            "str.contains",
            vec![s.clone(), Term::Str("\"".into())],
        )));
        self.split_by(s, ",", PieceRule::Csv)
    }

    /// `re.split(pattern, s)`, or with `find_all` `re.findall(pattern, s)`,
    /// of a non-constant `s`. Generated text separates the pieces by one
    /// character: a space where it may, else a comma, a tab, or the first
    /// printable one (a quote last).
    pub fn pattern_split(
        &mut self,
        s: Term,
        pattern: &ClassPattern,
        find_all: bool,
    ) -> std::result::Result<Sym, String> {
        if find_all && !pattern.repeated {
            return Err(format!(
                "re.findall of one character at a time (`{pattern}`, no `+`)"
            ));
        }
        // The delimiter is a character of the class for a split, one
        // outside it for findall. A quote comes last: in a line that
        // csv.reader also reads, it would open a quoted field.
        let candidates = [' ', ',', '\t']
            .into_iter()
            .chain((PRINTABLE.0..=PRINTABLE.1).filter(|&c| c != '"'))
            .chain(['"']);
        let Some(delimiter) = candidates
            .into_iter()
            .find(|&c| pattern.matches(c) != find_all)
        else {
            return Err(format!(
                "a pattern whose class {} no printable character (`{pattern}`)",
                if find_all { "leaves out" } else { "holds" }
            ));
        };
        let class = printable_where(|c| pattern.matches(c) == find_all);
        let rule = if find_all {
            PieceRule::Tokens(class)
        } else {
            PieceRule::Fields {
                class,
                runs: pattern.repeated,
            }
        };
        Ok(self.split_by(s, &delimiter.to_string(), rule))
    }

    /// The split of `s` by `delimiter` under `rule`. A second split of the
    /// same string the same way is the first one.
    fn split_by(&mut self, s: Term, delimiter: &str, rule: PieceRule) -> Sym {
        if let Some(known) = self.splits.iter().position(|split| {
            split.whole == s && split.delimiter == delimiter && split.rule == rule
        }) {
            return Sym::Split(known);
        }
        let lazy = rule.lazy_first();
        self.splits.push(SplitState {
            whole: s.clone(),
            delimiter: delimiter.into(),
            pieces: Vec::new(),
            tail: s,
            kept: Vec::new(),
            rule,
            links: Vec::new(),
        });
        let list = self.splits.len() - 1;
        if !lazy {
            // Every other split has a first piece: `s = p0 ++ T1`.
            let p0 = self.fresh("p", Sort::Str);
            let t1 = self.fresh("t", Sort::Str);
            let d = Term::Str(delimiter.into());
            self.assume(eq(
                self.splits[list].tail.clone(),
                app("str.++", vec![p0.clone(), t1.clone()]),
            ));
            let piece = self.piece(list, &p0);
            self.assume(piece);
            self.assume(tail_shape(&t1, &d));
            let split = &mut self.splits[list];
            split.pieces.push(p0);
            split.tail = t1;
        }
        Sym::Split(list)
    }

    /// "`p` is a piece of split `list`": free of the delimiter, or made of
    /// its rule's class (at least one character of it for tokens).
    fn piece(&self, list: usize, p: &Term) -> Term {
        let split = &self.splits[list];
        match &split.rule {
            PieceRule::Text => not(app(
                "str.contains",
                vec![p.clone(), Term::Str(split.delimiter.clone())],
            )),
            PieceRule::Tokens(class) => shape_constraint(p, Shape::Word, class),
            PieceRule::Fields { class, .. } => app(
                "str.in_re",
                vec![p.clone(), app("re.*", vec![class_re(class)])],
            ),
            PieceRule::Csv => and(vec![
                not(app("str.contains", vec![p.clone(), Term::Str(",".into())])),
                not(app("str.contains", vec![p.clone(), Term::Str("\"".into())])),
            ]),
        }
    }

    /// What a piece `p` followed by `rest` adds under split `list`'s rule:
    /// a piece of `re.split(C+)` between two others is not empty.
    fn between(&self, list: usize, p: &Term, rest: &Term) -> Term {
        match self.splits[list].rule {
            PieceRule::Fields { runs: true, .. } => or(vec![
                not(eq(p.clone(), Term::Str(String::new()))),
                eq(rest.clone(), Term::Str(String::new())),
            ]),
            _ => Term::Bool(true),
        }
    }

    /// Extends split `list` to `count` pieces (the path reads piece
    /// `count - 1`).
    pub fn extend_split(&mut self, list: usize, count: usize) {
        while self.splits[list].pieces.len() < count {
            if !self.splits[list].links.is_empty() {
                // The next piece is the first link's: what precedes it is
                // not empty.
                let (q, u) = self.splits[list].links.remove(0);
                let tail = self.splits[list].tail.clone();
                self.assume(not(eq(tail, Term::Str(String::new()))));
                if let PieceRule::Tokens(class) = self.splits[list].rule.clone() {
                    let word = self.shape(q.clone(), Shape::Word, class);
                    self.assume(word);
                }
                let split = &mut self.splits[list];
                split.pieces.push(q);
                split.tail = u;
                continue;
            }
            let d = Term::Str(self.splits[list].delimiter.clone());
            let p = self.fresh("p", Sort::Str);
            let t = self.fresh("t", Sort::Str);
            let tail = self.splits[list].tail.clone();
            // The first of a string's tokens starts it; a csv row's first
            // field needs a line that is not empty.
            let lead =
                !(self.splits[list].rule.lazy_first() && self.splits[list].pieces.is_empty());
            if !lead && self.splits[list].rule == PieceRule::Csv {
                self.assume(not(eq(tail.clone(), Term::Str(String::new()))));
            }
            let parts = if lead {
                vec![d.clone(), p.clone(), t.clone()]
            } else {
                vec![p.clone(), t.clone()]
            };
            self.assume(eq(tail, app("str.++", parts)));
            let piece = match self.splits[list].rule.clone() {
                PieceRule::Tokens(class) => self.shape(p.clone(), Shape::Word, class),
                _ => self.piece(list, &p),
            };
            self.assume(piece);
            let between = self.between(list, &p, &t);
            self.assume(between);
            self.assume(tail_shape(&t, &d));
            let split = &mut self.splits[list];
            split.pieces.push(p);
            split.tail = t;
        }
    }

    /// JVM: "piece `index` of split `list` is in the list `String.split`
    /// returns": some piece from `index` on is non-empty, or the string
    /// holds no delimiter (then it is its only piece, even when empty).
    /// The pieces up to `index` are pinned.
    pub fn jvm_kept(&self, list: usize, index: usize) -> Term {
        let split = &self.splits[list];
        let d = Term::Str(split.delimiter.clone());
        let mut kept: Vec<Term> = split.pieces[index..]
            .iter()
            .map(|p| not(eq(p.clone(), Term::Str(String::new()))))
            .collect();
        kept.push(not(app(
            "str.in_re",
            vec![split.tail.clone(), delimiter_star(&d)],
        )));
        if index == 0 && split.pieces.len() == 1 {
            kept.push(eq(split.tail.clone(), Term::Str(String::new())));
        }
        or(kept)
    }

    /// JVM: "piece `index` of split `list` is not in the list
    /// `String.split` returns": the string has a delimiter, and every piece
    /// from `index` on is empty or missing. Pieces past the pinned ones are
    /// described with fresh variables, as [`State::at_most`] does.
    pub fn jvm_dropped(&mut self, list: usize, index: usize) -> Term {
        let known = self.splits[list].pieces.len();
        let d = Term::Str(self.splits[list].delimiter.clone());
        let tail = self.splits[list].tail.clone();
        if known > index {
            let mut empty: Vec<Term> = self.splits[list].pieces[index..]
                .iter()
                .map(|p| eq(p.clone(), Term::Str(String::new())))
                .collect();
            empty.push(app("str.in_re", vec![tail.clone(), delimiter_star(&d)]));
            if index == 0 && known == 1 {
                // "" has no delimiter and splits to [""].
                empty.push(not(eq(tail, Term::Str(String::new()))));
            }
            return and(empty);
        }
        self.tail_ends_jvm_list(tail, &d, index - known)
    }

    /// "After `more` further pieces (any), every piece of `tail` is empty
    /// or missing".
    fn tail_ends_jvm_list(&mut self, tail: Term, d: &Term, more: usize) -> Term {
        if more == 0 {
            return app("str.in_re", vec![tail, delimiter_star(d)]);
        }
        let p = self.fresh("q", Sort::Str);
        let t = self.fresh("u", Sort::Str);
        let rest = self.tail_ends_jvm_list(t.clone(), d, more - 1);
        or(vec![
            eq(tail.clone(), Term::Str(String::new())),
            and(vec![
                eq(tail, app("str.++", vec![d.clone(), p.clone(), t])),
                not(app("str.contains", vec![p, d.clone()])),
                rest,
            ]),
        ])
    }

    /// `s` is not empty on this path (a parse of it succeeds). When `s` is
    /// piece j of a split, the JVM's "piece i is kept" constraints of that
    /// split for i <= j hold because of it ([`State::jvm_kept`]: some piece
    /// from i on is non-empty), so they are dropped: Z3 4.8 spends seconds
    /// on their regular expressions (a weblog_bytes fold: 10 s with them).
    pub fn known_nonempty(&mut self, s: &Term) {
        let mut implied = Vec::new();
        for split in &self.splits {
            if let Some(j) = split.pieces.iter().position(|p| p == s) {
                implied.extend(
                    split
                        .kept
                        .iter()
                        .filter(|(i, _)| *i <= j)
                        .map(|(_, t)| t.clone()),
                );
            }
        }
        if !implied.is_empty() {
            self.constraints.retain(|c| !implied.contains(c));
        }
    }

    /// "Split `list` has at most `count` pieces" (false when more are
    /// pinned already).
    pub fn at_most(&mut self, list: usize, count: usize) -> Term {
        let known = self.splits[list].pieces.len();
        if known > count {
            return Term::Bool(false);
        }
        let d = Term::Str(self.splits[list].delimiter.clone());
        let more = count - known;
        let links = self.splits[list].links.len();
        if links > 0 {
            // Some link up to `more` has nothing before it.
            let mut ends: Vec<Term> = (0..=more.min(links))
                .map(|j| eq(self.before_link(list, j), Term::Str(String::new())))
                .collect();
            if more > links {
                let last = self.before_link(list, links);
                let rest = self.tail_at_most(list, last, &d, more - links, true);
                ends.push(rest);
            }
            return or(ends);
        }
        let tail = self.splits[list].tail.clone();
        let lead = !(self.splits[list].rule.lazy_first() && known == 0);
        self.tail_at_most(list, tail, &d, more, lead)
    }

    /// Python's `len()` of split `list`: the number of pieces, exact up to
    /// [`MAX_SIZED_PIECES`] (past that, a fresh Int larger than that). No
    /// decision is taken here, so the concrete run and the path agree on
    /// its labels; the comparison that reads the length decides.
    pub fn size(&mut self, list: usize) -> Term {
        let known = self.splits[list].pieces.len();
        let depth = MAX_SIZED_PIECES.saturating_sub(known);
        self.link(list, depth);
        let more = self.fresh("n", Sort::Int);
        self.assume(cmp(">", more.clone(), Term::Int((known + depth) as i64)));
        // ite(before_0 = "", known, ite(before_1 = "", known + 1, ... more))
        let mut n = more;
        for j in (0..depth).rev() {
            let before = self.before_link(list, j);
            n = ite(
                eq(before, Term::Str(String::new())),
                Term::Int((known + j) as i64),
                n,
            );
        }
        n
    }

    /// What precedes link `j` of split `list`: its tail for the first.
    fn before_link(&self, list: usize, j: usize) -> Term {
        let split = &self.splits[list];
        match j {
            0 => split.tail.clone(),
            _ => split.links[j - 1].1.clone(),
        }
    }

    /// Describes split `list` `depth` links past its pinned pieces.
    fn link(&mut self, list: usize, depth: usize) {
        while self.splits[list].links.len() < depth {
            let j = self.splits[list].links.len();
            let before = self.before_link(list, j);
            let d = Term::Str(self.splits[list].delimiter.clone());
            // The first of a string's tokens starts it.
            let lead = !(self.splits[list].rule.lazy_first()
                && self.splits[list].pieces.is_empty()
                && j == 0);
            let q = self.fresh("q", Sort::Str);
            let u = self.fresh("u", Sort::Str);
            let parts = if lead {
                vec![d.clone(), q.clone(), u.clone()]
            } else {
                vec![q.clone(), u.clone()]
            };
            let piece = self.piece(list, &q);
            self.assume(or(vec![
                eq(before.clone(), Term::Str(String::new())),
                and(vec![
                    eq(before, app("str.++", parts)),
                    piece,
                    self.between(list, &q, &u),
                    tail_shape(&u, &d),
                ]),
            ]));
            self.splits[list].links.push((q, u));
        }
    }

    /// `tail` holds at most `more` further pieces, the first preceded by the
    /// delimiter when `lead`.
    fn tail_at_most(&mut self, list: usize, tail: Term, d: &Term, more: usize, lead: bool) -> Term {
        let empty = eq(tail.clone(), Term::Str(String::new()));
        if more == 0 {
            return empty;
        }
        let p = self.fresh("q", Sort::Str);
        let t = self.fresh("u", Sort::Str);
        let rest = self.tail_at_most(list, t.clone(), d, more - 1, true);
        let parts = if lead {
            vec![d.clone(), p.clone(), t.clone()]
        } else {
            vec![p.clone(), t.clone()]
        };
        let piece = self.piece(list, &p);
        let between = self.between(list, &p, &t);
        or(vec![
            empty,
            and(vec![eq(tail, app("str.++", parts)), piece, between, rest]),
        ])
    }
}

/// The pieces of a split whose count `len()` describes exactly; a path
/// that needs more pieces is solved with "more than this many" only.
pub const MAX_SIZED_PIECES: usize = 12;

/// `d*`: any number of delimiters, nothing else.
fn delimiter_star(d: &Term) -> Term {
    app("re.*", vec![app("str.to_re", vec![d.clone()])])
}

/// A split tail is empty or starts with the delimiter.
fn tail_shape(t: &Term, d: &Term) -> Term {
    or(vec![
        eq(t.clone(), Term::Str(String::new())),
        app("str.prefixof", vec![d.clone(), t.clone()]),
    ])
}

fn shift(sym: &Sym, offset: usize) -> Sym {
    match sym {
        Sym::Split(i) => Sym::Split(i + offset),
        Sym::List(items) => Sym::List(items.iter().map(|s| shift(s, offset)).collect()),
        Sym::Opt { present, value } => Sym::Opt {
            present: present.clone(),
            value: Box::new(shift(value, offset)),
        },
        other => other.clone(),
    }
}

/// A fresh record variable of type `ty`, constrained to what a text file can
/// hold; `None` for types sources cannot have.
pub fn source_field(
    state: &mut State,
    name: String,
    ty: &Ty,
    delimiter: Option<&str>,
) -> Option<Sym> {
    Some(match ty {
        Ty::Int => {
            let v = state.declare(name, Sort::Int);
            let bound = Term::Int(10i64.pow(MAX_DIGITS as u32));
            state.assume(cmp("<", v.clone(), bound.clone()));
            state.assume(cmp("<", neg(bound), v.clone()));
            Sym::Int(v)
        }
        Ty::Float => {
            let v = state.declare(name, Sort::Real);
            // Two decimals print exactly and parse back to the same f64
            // comparisons the path was solved for.
            state.assume(app(
                "is_int",
                vec![app("*", vec![Term::Real(100, 1), v.clone()])],
            ));
            let bound = Term::Real(10i64.pow(12), 1);
            state.assume(cmp("<", v.clone(), bound.clone()));
            state.assume(cmp("<", neg(bound), v.clone()));
            Sym::Real(v)
        }
        Ty::Bool => Sym::Bool(state.declare(name, Sort::Bool)),
        Ty::Str => {
            let v = state.declare(name, Sort::Str);
            for forbidden in ["\n", "\r"].into_iter().chain(delimiter) {
                state.assume(not(app(
                    "str.contains",
                    vec![v.clone(), Term::Str(forbidden.into())],
                )));
            }
            Sym::Str(v)
        }
        Ty::List(_) | Ty::Option(_) => return None,
    })
}

/// The value an absent outer-join side takes.
pub fn absent(ty: &Ty) -> Sym {
    match ty {
        Ty::Option(inner) => Sym::Opt {
            present: Term::Bool(false),
            value: Box::new(default_sym(inner)),
        },
        other => default_sym(other),
    }
}

fn default_sym(ty: &Ty) -> Sym {
    match ty {
        Ty::Int => Sym::Int(Term::Int(0)),
        Ty::Float => Sym::Real(Term::Real(0, 1)),
        Ty::Bool => Sym::Bool(Term::Bool(false)),
        Ty::Str => Sym::Str(Term::Str(String::new())),
        Ty::List(_) => Sym::List(Vec::new()),
        Ty::Option(inner) => absent(&Ty::Option(inner.clone())),
    }
}

/// A present value in a field of type `ty` (wrapped when `ty` is an option).
pub fn present(value: Sym, ty: &Ty) -> Sym {
    match (ty, &value) {
        (Ty::Option(_), Sym::Opt { .. }) => value,
        (Ty::Option(_), _) => Sym::Opt {
            present: Term::Bool(true),
            value: Box::new(value),
        },
        _ => value,
    }
}

/// "These two values are equal", for keys and distinct records.
pub fn sym_eq(a: &Sym, b: &Sym) -> crate::Result<Term> {
    Ok(match (a, b) {
        (Sym::Int(x), Sym::Int(y))
        | (Sym::Real(x), Sym::Real(y))
        | (Sym::Bool(x), Sym::Bool(y))
        | (Sym::Str(x), Sym::Str(y)) => eq(x.clone(), y.clone()),
        (Sym::List(x), Sym::List(y)) => {
            if x.len() != y.len() {
                return Ok(Term::Bool(false));
            }
            let parts: crate::Result<Vec<Term>> =
                x.iter().zip(y).map(|(a, b)| sym_eq(a, b)).collect();
            and(parts?)
        }
        (
            Sym::Opt {
                present: p,
                value: v,
            },
            Sym::Opt {
                present: q,
                value: w,
            },
        ) => and(vec![
            eq(p.clone(), q.clone()),
            or(vec![not(p.clone()), sym_eq(v, w)?]),
        ]),
        _ => return Err(crate::Error::SplitListComparison),
    })
}

/// "`a` comes no later than `b`" in the order coco gives a group's values
/// (`Value::total_cmp`: numbers, `False` before `True`, strings by code
/// point, `None` first); `None` for lists, which groups do not hold.
pub fn sym_le(a: &Sym, b: &Sym) -> Option<Term> {
    Some(match (a, b) {
        (Sym::Int(x), Sym::Int(y)) | (Sym::Real(x), Sym::Real(y)) => {
            cmp("<=", x.clone(), y.clone())
        }
        (Sym::Str(x), Sym::Str(y)) => app("str.<=", vec![x.clone(), y.clone()]),
        (Sym::Bool(x), Sym::Bool(y)) => or(vec![not(x.clone()), y.clone()]),
        (
            Sym::Opt {
                present: p,
                value: v,
            },
            Sym::Opt {
                present: q,
                value: w,
            },
        ) => or(vec![not(p.clone()), and(vec![q.clone(), sym_le(v, w)?])]),
        _ => return None,
    })
}

/// The term of a scalar value (keys must be scalars).
pub fn scalar(sym: &Sym) -> Option<&Term> {
    match sym {
        Sym::Int(t) | Sym::Real(t) | Sym::Bool(t) | Sym::Str(t) => Some(t),
        _ => None,
    }
}

/// Symbolic evaluation of one UDF path: decisions follow `prefix`, then take
/// the first alternative; `decisions` records what was taken.
pub struct SymDomain {
    pub state: State,
    host: Host,
    prefix: Vec<bool>,
    pub decisions: Vec<bool>,
    bound: usize,
    max_index: usize,
}

/// A value's term larger than this many nodes is named: a fresh variable
/// equal to it stands for it from then on. Terms are copied into every
/// value computed from them, so a constant loop accumulating a sum would
/// otherwise build terms as long as its trip count (quadratic work), and
/// `divsi` copies its operands three times (exponential).
pub const MAX_TERM: usize = 1000;

/// Constant strings longer than this are not folded by concatenation: a
/// constant loop doubling a string would otherwise double memory each trip.
pub const MAX_FOLDED_STR: usize = 4096;

impl SymDomain {
    pub fn new(
        state: State,
        host: Host,
        prefix: Vec<bool>,
        bound: usize,
        max_index: usize,
    ) -> Self {
        SymDomain {
            state,
            host,
            prefix,
            decisions: Vec::new(),
            bound,
            max_index,
        }
    }

    /// `value`, with a large term replaced by a fresh variable equal to it.
    fn named(&mut self, value: Sym) -> Sym {
        let (term, sort, wrap): (&Term, Sort, fn(Term) -> Sym) = match &value {
            Sym::Int(t) => (t, Sort::Int, Sym::Int),
            Sym::Real(t) => (t, Sort::Real, Sym::Real),
            Sym::Bool(t) => (t, Sort::Bool, Sym::Bool),
            Sym::Str(t) => (t, Sort::Str, Sym::Str),
            _ => return value,
        };
        if term.size_up_to(MAX_TERM) <= MAX_TERM {
            return value;
        }
        let name = self.state.fresh("e", sort);
        self.state.assume(eq(name.clone(), term.clone()));
        wrap(name)
    }

    /// A string term used in several places: itself when a variable or a
    /// constant, else a fresh variable equal to it.
    fn name_str(&mut self, s: &Term) -> Term {
        if matches!(s, Term::Var(_) | Term::Str(_)) {
            return s.clone();
        }
        let name = self.state.fresh("n", Sort::Str);
        self.state.assume(eq(name.clone(), s.clone()));
        name
    }

    /// A decision point: which side this path takes.
    fn choose(&mut self) -> bool {
        let taken = self
            .prefix
            .get(self.decisions.len())
            .copied()
            .unwrap_or(true);
        self.decisions.push(taken);
        taken
    }

    /// Forks on `cond`: returns which side this path takes and assumes it.
    fn fork(&mut self, cond: Term) -> bool {
        if let Term::Bool(b) = cond {
            return b;
        }
        let taken = self.choose();
        let held = if taken { cond } else { not(cond) };
        self.note_prefix(&held);
        self.state.assume(held);
        taken
    }

    /// Where `held` says a string starts with a constant, names the rest:
    /// `s = prefix ++ rest` (see [`Prefixed`]).
    fn note_prefix(&mut self, held: &Term) {
        let Term::App("str.prefixof", args) = held else {
            return;
        };
        let [Term::Str(prefix), string] = args.as_slice() else {
            return;
        };
        if matches!(string, Term::Str(_))
            || self
                .state
                .prefixed
                .iter()
                .any(|p| p.string == *string && p.prefix == *prefix)
        {
            return;
        }
        let rest = self.state.fresh("r", Sort::Str);
        self.state.assume(eq(
            string.clone(),
            app("str.++", vec![Term::Str(prefix.clone()), rest.clone()]),
        ));
        self.state.prefixed.push(Prefixed {
            string: string.clone(),
            prefix: prefix.clone(),
            rest,
        });
    }

    /// `s[start:]` where the path knows a constant prefix of `s` at least
    /// `start` characters long: the prefix's tail before the named rest.
    fn known_tail(&self, s: &Term, start: &Term, length: &Term) -> Option<Term> {
        let Term::Int(start) = start else {
            return None;
        };
        let start = usize::try_from(*start).ok()?;
        // The slice reaches the end: its length is len(s) - start.
        let to_end = int_op(
            "-",
            app("str.len", vec![s.clone()]),
            Term::Int(start as i64),
        );
        if *length != to_end {
            return None;
        }
        let known = self
            .state
            .prefixed
            .iter()
            .filter(|p| p.string == *s && p.prefix.chars().count() >= start)
            .max_by_key(|p| p.prefix.chars().count())?;
        let head: String = known.prefix.chars().skip(start).collect();
        Some(if head.is_empty() {
            known.rest.clone()
        } else {
            app("str.++", vec![Term::Str(head), known.rest.clone()])
        })
    }

    /// A partial op: continues when `ok` holds, fails otherwise.
    fn guard(&mut self, ok: Term, reason: &str) -> Result<(), Stop> {
        if self.fork(ok) {
            Ok(())
        } else {
            Err(Stop::Fail(reason.into()))
        }
    }
}

fn unsupported(point: &str, what: &str) -> Stop {
    Stop::Error(format!("{point}: {what} is not modelled by BigTest"))
}

/// What `Long.parseLong` reads from printable ASCII.
const INT_RE: &str =
    r#"(re.++ (re.opt (re.union (str.to_re "-") (str.to_re "+"))) (re.+ (re.range "0" "9")))"#;
/// What Python's `int()` reads from printable ASCII: spaces around, and
/// single underscores between digits.
const PY_INT_RE: &str = r#"(re.++ (re.* (str.to_re " ")) (re.opt (re.union (str.to_re "-") (str.to_re "+"))) (re.range "0" "9") (re.* (re.++ (re.opt (str.to_re "_")) (re.range "0" "9"))) (re.* (str.to_re " ")))"#;
/// Printable ASCII: the text of a failing parse, on which the hosts agree
/// that no other script's digits or spaces occur.
const PRINTABLE_RE: &str = r#"(re.* (re.range " " "~"))"#;
const DIGIT_FREE_RE: &str = r#"(re.++ re.all (re.range "0" "9") re.all)"#;
const FRACTION_RE: &str = r#"(re.++ (str.to_re ".") (re.range "0" "9") (re.range "0" "9"))"#;
/// What Spark SQL's integer casts read from printable ASCII: spaces
/// around, a sign, digits with an optional `.` and digits after it, or the
/// point alone.
const SQL_INTEGER_RE: &str = r#"(re.++ (re.* (str.to_re " ")) (re.opt (re.union (str.to_re "-") (str.to_re "+"))) (re.union (re.++ (re.+ (re.range "0" "9")) (re.opt (re.++ (str.to_re ".") (re.* (re.range "0" "9"))))) (re.++ (str.to_re ".") (re.* (re.range "0" "9")))) (re.* (str.to_re " ")))"#;

/// The lower-case words Spark's boolean cast reads: every one, and the
/// true ones.
static SQL_BOOLEAN_WORD_RE: LazyLock<String> = LazyLock::new(|| {
    let all: Vec<&str> = sql::TRUE_TEXTS
        .iter()
        .chain(&sql::FALSE_TEXTS)
        .copied()
        .collect();
    words_re(&all, |w| format!("(str.to_re \"{w}\")"))
});
static SQL_TRUE_WORD_RE: LazyLock<String> =
    LazyLock::new(|| words_re(&sql::TRUE_TEXTS, |w| format!("(str.to_re \"{w}\")")));
/// What Spark's boolean cast reads from printable ASCII: a word in any
/// case with spaces around.
static SQL_BOOLEAN_TEXT_RE: LazyLock<String> = LazyLock::new(|| {
    let all: Vec<&str> = sql::TRUE_TEXTS
        .iter()
        .chain(&sql::FALSE_TEXTS)
        .copied()
        .collect();
    format!(
        "(re.++ {SPACES_RE} {} {SPACES_RE})",
        words_re(&all, caseless_re)
    )
});

fn words_re(words: &[&str], word_re: impl Fn(&str) -> String) -> String {
    let words: Vec<String> = words.iter().map(|w| word_re(w)).collect();
    format!("(re.union {})", words.join(" "))
}

/// `word` in any case, as a regular expression.
fn caseless_re(word: &str) -> String {
    let chars: Vec<String> = word
        .chars()
        .map(|c| {
            let (lower, upper) = (c.to_ascii_lowercase(), c.to_ascii_uppercase());
            if lower == upper {
                format!("(str.to_re \"{c}\")")
            } else {
                format!("(re.union (str.to_re \"{lower}\") (str.to_re \"{upper}\"))")
            }
        })
        .collect();
    match chars.len() {
        1 => chars[0].clone(),
        _ => format!("(re.++ {})", chars.join(" ")),
    }
}

/// The whitespace `df.strip` removes from generated text: spaces.
const SPACES_RE: &str = r#"(re.* (str.to_re " "))"#;
/// The characters `s.lower()` and `s.upper()` leave alone in generated
/// text: printable ASCII without upper-case, or lower-case, letters.
const NO_UPPER: [(char, char); 2] = [(' ', '@'), ('[', '~')];
const NO_LOWER: [(char, char); 2] = [(' ', '`'), ('{', '~')];

impl SymDomain {
    /// Assumes `text` is the canonical text of an integer of at most
    /// `max_digits` digits: an optional "-" and digits without leading zeros
    /// ("-0" allowed). Returns `(negative, magnitude)` as fresh variables.
    /// Test data only needs some text of each value, and Z3 finds models of
    /// `str.from_int` on an integer chosen by arithmetic far faster than of
    /// `str.to_int` on a string it must guess; the parse then also appears
    /// once in the path condition however often the value is used.
    /// Text that parses as an integer on every host and in Spark SQL: a
    /// sign where the path needs one and at most MAX_DIGITS digits, within
    /// 32 bits for `int32`. Its value.
    fn integer_text(&mut self, s: &Term, int32: bool) -> Term {
        let (negative, magnitude) = self.parse_signed(s.clone(), MAX_DIGITS);
        self.state.known_nonempty(s);
        let value = ite(negative, neg(magnitude.clone()), magnitude);
        if int32 {
            self.state
                .assume(cmp(">=", value.clone(), Term::Int(i32::MIN.into())));
            self.state
                .assume(cmp("<=", value.clone(), Term::Int(i32::MAX.into())));
        }
        value
    }

    /// Text that parses as a float on every host and in Spark SQL: an
    /// integer part and an optional two-digit fraction, whose value is
    /// exact. Its value, a real.
    fn decimal_text(&mut self, s: &Term) -> Term {
        let whole = self.state.fresh("w", Sort::Str);
        let fraction = self.state.fresh("f", Sort::Str);
        self.state.assume(eq(
            s.clone(),
            app("str.++", vec![whole.clone(), fraction.clone()]),
        ));
        self.state.assume(or(vec![
            eq(fraction.clone(), Term::Str(String::new())),
            in_re(fraction.clone(), FRACTION_RE),
        ]));
        // Whole numbers where the path allows them: Z3 decides
        // the fraction's digits about three times slower than
        // the integer part alone, and a boundary probe pins a
        // whole number anyway (sensor_peak: 1.6 s -> 1.1 s,
        // the same mutation score).
        self.state
            .prefer(eq(fraction.clone(), Term::Str(String::new())));
        let (negative, magnitude) = self.parse_signed(whole, 12);
        self.state.known_nonempty(s);
        let units = app("to_real", vec![magnitude]);
        let cents = ite(
            eq(fraction.clone(), Term::Str(String::new())),
            Term::Int(0),
            app(
                "str.to_int",
                vec![app(
                    "str.substr",
                    vec![fraction, Term::Int(1), Term::Int(2)],
                )],
            ),
        );
        let hundredths = app("/", vec![app("to_real", vec![cents]), Term::Real(100, 1)]);
        // "-1.50" is -(1 + 0.50).
        let value = app("+", vec![units, hundredths]);
        ite(negative, neg(value.clone()), value)
    }

    /// Printable text that no float parse reads: no digit and no `n`
    /// (so neither `inf`, `Infinity` nor `NaN`).
    fn not_a_number_text(&mut self, s: &Term) {
        self.state.assume(in_re(s.clone(), PRINTABLE_RE));
        self.state.assume(not(in_re(s.clone(), DIGIT_FREE_RE)));
        for n in ["n", "N"] {
            self.state.assume(not(app(
                "str.contains",
                vec![s.clone(), Term::Str(n.into())],
            )));
        }
    }

    /// `df.sql_cast`: one fork, present or absent (NULL). The present side
    /// is text that Spark reads the plain way (digits, or one of the
    /// boolean words in lower case); the absent side printable ASCII
    /// outside everything the cast accepts, so a witness is NULL on Spark
    /// too.
    fn sql_cast(&mut self, to: SqlCastTarget, point: &str, args: &[Sym]) -> Result<Sym, Stop> {
        let [Sym::Str(s)] = args else {
            return Err(unsupported(
                point,
                "df.sql_cast of a value that is not a string",
            ));
        };
        let present = |value| Sym::Opt {
            present: Term::Bool(true),
            value: Box::new(value),
        };
        let absent = Sym::Opt {
            present: Term::Bool(false),
            value: Box::new(match to {
                SqlCastTarget::Int | SqlCastTarget::BigInt => Sym::Int(Term::Int(0)),
                SqlCastTarget::Double => Sym::Real(Term::Real(0, 1)),
                SqlCastTarget::Boolean => Sym::Bool(Term::Bool(false)),
            }),
        };
        if let Term::Str(text) = s {
            return Ok(match sql::cast_str(to, text) {
                None => absent,
                Some(Value::Int(v)) => present(Sym::Int(Term::Int(v))),
                Some(Value::Bool(b)) => present(Sym::Bool(Term::Bool(b))),
                Some(Value::Float(v)) => {
                    present(Sym::Real(real(v).ok_or_else(|| {
                        unsupported(point, "a non-finite f64 constant")
                    })?))
                }
                Some(_) => return Err(unsupported(point, "df.sql_cast's result")),
            });
        }
        if self.choose() {
            return Ok(present(match to {
                SqlCastTarget::Int => Sym::Int(self.integer_text(s, true)),
                SqlCastTarget::BigInt => Sym::Int(self.integer_text(s, false)),
                SqlCastTarget::Double => Sym::Real(self.decimal_text(s)),
                SqlCastTarget::Boolean => {
                    self.state.known_nonempty(s);
                    self.state
                        .assume(in_re(s.clone(), SQL_BOOLEAN_WORD_RE.as_str()));
                    Sym::Bool(in_re(s.clone(), SQL_TRUE_WORD_RE.as_str()))
                }
            }));
        }
        self.state.assume(in_re(s.clone(), PRINTABLE_RE));
        match to {
            SqlCastTarget::Int | SqlCastTarget::BigInt => {
                self.state.assume(not(in_re(s.clone(), SQL_INTEGER_RE)))
            }
            SqlCastTarget::Double => self.not_a_number_text(s),
            SqlCastTarget::Boolean => self
                .state
                .assume(not(in_re(s.clone(), SQL_BOOLEAN_TEXT_RE.as_str()))),
        }
        Ok(absent)
    }

    fn parse_signed(&mut self, text: Term, max_digits: usize) -> (Term, Term) {
        let negative = self.state.fresh("n", Sort::Bool);
        let magnitude = self.state.fresh("v", Sort::Int);
        let digits = app("str.from_int", vec![magnitude.clone()]);
        self.state
            .assume(cmp(">=", magnitude.clone(), Term::Int(0)));
        self.state.assume(cmp(
            "<",
            magnitude.clone(),
            Term::Int(10i64.pow(max_digits as u32)),
        ));
        self.state.assume(eq(
            text,
            ite(
                negative.clone(),
                app("str.++", vec![Term::Str("-".into()), digits.clone()]),
                digits,
            ),
        ));
        // A sign only where the path needs a negative number (see
        // `State::preferences_at_end` for why Python's only).
        if self.host == Host::Python {
            self.state.prefer(not(negative.clone()));
        }
        (negative, magnitude)
    }
}

impl Domain for SymDomain {
    type V = Sym;

    fn apply(&mut self, kind: &UdfOp, point: &str, args: &[Sym]) -> Result<Sym, Stop> {
        let value = self.apply_op(kind, point, args)?;
        Ok(self.named(value))
    }

    fn constant(&mut self, value: &Const) -> Result<Sym, Stop> {
        Ok(match value {
            Const::Int(v) => Sym::Int(Term::Int(*v)),
            Const::Float(v) => Sym::Real(
                real(*v).ok_or_else(|| Stop::Error(format!("float constant {v} is not finite")))?,
            ),
            Const::Bool(v) => Sym::Bool(Term::Bool(*v)),
            Const::Str(v) => Sym::Str(Term::Str(v.clone())),
        })
    }

    fn decide(&mut self, cond: &Sym, point: &str) -> Result<bool, Stop> {
        match cond {
            Sym::Bool(t) => Ok(self.fork(t.clone())),
            _ => Err(Stop::Error(format!("{point}: condition is not an i1"))),
        }
    }

    fn is_constant(&self, cond: &Sym) -> bool {
        matches!(cond, Sym::Bool(Term::Bool(_)))
    }

    fn presence(&self, value: &Sym) -> Option<bool> {
        match value {
            Sym::Opt {
                present: Term::Bool(b),
                ..
            } => Some(*b),
            _ => None,
        }
    }

    fn loop_bound(&self) -> Option<usize> {
        Some(self.bound)
    }

    fn decisions_taken(&self) -> usize {
        self.decisions.len()
    }
}

impl SymDomain {
    /// The total form of a partial op: the same fork as the failing form,
    /// whose failing side continues with an absent value and the other
    /// side with a present one, so a following `df.is_present` is a
    /// constant and does not fork again.
    fn total(&mut self, kind: &UdfOp, point: &str, args: &[Sym]) -> Result<Sym, Stop> {
        let (partial, absent) = match kind {
            UdfOp::SqlCast { to } => return self.sql_cast(*to, point, args),
            UdfOp::ToInt { int32, .. } => (
                UdfOp::ToInt {
                    int32: *int32,
                    checked: false,
                },
                Sym::Int(Term::Int(0)),
            ),
            UdfOp::ToFloat { .. } => (
                UdfOp::ToFloat { checked: false },
                Sym::Real(Term::Real(0, 1)),
            ),
            UdfOp::Get { index, .. } => {
                let element = match args.first() {
                    Some(Sym::List(items)) => items.first().cloned(),
                    _ => None,
                };
                (
                    UdfOp::Get {
                        index: *index,
                        checked: false,
                    },
                    element.unwrap_or(Sym::Str(Term::Str(String::new()))),
                )
            }
            UdfOp::GetAt => {
                // A loop's index folds to a constant each trip: the trip
                // is `df.get` of that element, in its total form.
                return match args {
                    [list, Sym::Int(Term::Int(index))] => match usize::try_from(*index) {
                        Ok(index) => self.total(
                            &UdfOp::Get {
                                index,
                                checked: true,
                            },
                            point,
                            std::slice::from_ref(list),
                        ),
                        Err(_) => Ok(Sym::Opt {
                            present: Term::Bool(false),
                            value: Box::new(Sym::Str(Term::Str(String::new()))),
                        }),
                    },
                    _ => Err(unsupported(
                        point,
                        "df.get_at with an index computed from the input (in a loop it counts from 0)",
                    )),
                };
            }
            _ => return self.apply_op(kind, point, args),
        };
        match self.apply_op(&partial, point, args) {
            Ok(value) => Ok(Sym::Opt {
                present: Term::Bool(true),
                value: Box::new(value),
            }),
            Err(Stop::Fail(_)) => Ok(Sym::Opt {
                present: Term::Bool(false),
                value: Box::new(absent),
            }),
            Err(other) => Err(other),
        }
    }

    fn apply_op(&mut self, kind: &UdfOp, point: &str, args: &[Sym]) -> Result<Sym, Stop> {
        use Sym::*;
        if kind.is_checked() {
            return self.total(kind, point, args);
        }
        let zero = Term::Int(0);
        Ok(match (kind, args) {
            (UdfOp::IntBin(op), [Int(a), Int(b)]) => {
                let (a, b) = (a.clone(), b.clone());
                Int(match op {
                    IntBinOp::Add => int_op("+", a, b),
                    IntBinOp::Sub => int_op("-", a, b),
                    IntBinOp::Mul => int_op("*", a, b),
                    IntBinOp::Div | IntBinOp::Rem => {
                        self.guard(not(eq(b.clone(), zero)), "division by zero")?;
                        let q = div_trunc(a.clone(), b.clone());
                        if *op == IntBinOp::Div {
                            q
                        } else {
                            int_op("-", a, int_op("*", b, q))
                        }
                    }
                    IntBinOp::FloorDiv | IntBinOp::Mod => {
                        self.guard(not(eq(b.clone(), zero)), "ZeroDivisionError")?;
                        if *op == IntBinOp::FloorDiv {
                            floor_div(a, b)
                        } else {
                            floor_mod(a, b)
                        }
                    }
                    IntBinOp::Max => ite(cmp(">=", a.clone(), b.clone()), a, b),
                    IntBinOp::Min => ite(cmp("<=", a.clone(), b.clone()), a, b),
                    IntBinOp::And | IntBinOp::Or | IntBinOp::Xor => match (&a, &b) {
                        (Term::Int(x), Term::Int(y)) => Term::Int(match op {
                            IntBinOp::And => x & y,
                            IntBinOp::Or => x | y,
                            _ => x ^ y,
                        }),
                        _ => return Err(unsupported(point, "bitwise arithmetic on symbolic i64")),
                    },
                })
            }
            (UdfOp::IntBin(op), [Bool(a), Bool(b)]) => {
                let (a, b) = (a.clone(), b.clone());
                Bool(match op {
                    IntBinOp::And | IntBinOp::Min | IntBinOp::Mul => and(vec![a, b]),
                    IntBinOp::Or | IntBinOp::Max => or(vec![a, b]),
                    IntBinOp::Xor | IntBinOp::Add | IntBinOp::Sub => not(eq(a, b)),
                    _ => return Err(unsupported(point, "division of i1 values")),
                })
            }
            (UdfOp::FloatBin(op), [Real(a), Real(b)]) => {
                let (a, b) = (a.clone(), b.clone());
                Real(match op {
                    FloatBinOp::Add => app("+", vec![a, b]),
                    FloatBinOp::Sub => app("-", vec![a, b]),
                    FloatBinOp::Mul => app("*", vec![a, b]),
                    FloatBinOp::Div => {
                        // Spark yields Infinity or NaN; reals have neither, so
                        // paths dividing by zero are not explored.
                        self.state.assume(not(eq(b.clone(), Term::Real(0, 1))));
                        app("/", vec![a, b])
                    }
                    FloatBinOp::TrueDiv => {
                        // Python raises where the JVM gives an infinity.
                        self.guard(
                            not(eq(b.clone(), Term::Real(0, 1))),
                            "ZeroDivisionError: float division by zero",
                        )?;
                        app("/", vec![a, b])
                    }
                    FloatBinOp::Max => ite(cmp(">=", a.clone(), b.clone()), a, b),
                    FloatBinOp::Min => ite(cmp("<=", a.clone(), b.clone()), a, b),
                })
            }
            (UdfOp::FloatNeg, [Real(a)]) => Real(neg(a.clone())),
            (UdfOp::CmpInt(c) | UdfOp::CmpFloat(c), [Int(a), Int(b)] | [Real(a), Real(b)]) => {
                Bool(compare(*c, a.clone(), b.clone()))
            }
            (UdfOp::CmpInt(c), [Bool(a), Bool(b)]) => match c {
                Cmp::Eq => Bool(eq(a.clone(), b.clone())),
                Cmp::Ne => Bool(not(eq(a.clone(), b.clone()))),
                _ => return Err(unsupported(point, "ordering i1 values")),
            },
            (UdfOp::Select, [Bool(c), a, b]) => select(c, a, b).ok_or_else(|| {
                unsupported(
                    point,
                    "selecting between lists or options on a symbolic condition",
                )
            })?,
            (UdfOp::IntToFloat, [Int(a)]) => Real(app("to_real", vec![a.clone()])),
            (UdfOp::FloatToInt, [Real(a)]) => Int(ite(
                cmp(">=", a.clone(), Term::Real(0, 1)),
                app("to_int", vec![a.clone()]),
                neg(app("to_int", vec![neg(a.clone())])),
            )),
            (UdfOp::BoolToInt, [Bool(a)]) => Int(ite(a.clone(), Term::Int(1), zero)),
            (UdfOp::IndexCast, [Int(a)]) => Int(a.clone()),
            (UdfOp::Split { delimiter }, [Str(s)]) => match s {
                Term::Str(text) => Sym::List(
                    host::split(self.host, text, delimiter)
                        .into_iter()
                        .map(|p| Sym::Str(Term::Str(p)))
                        .collect(),
                ),
                _ => self.state.split(s.clone(), delimiter),
            },
            (UdfOp::SplitWhitespace, [Str(s)]) => match s {
                Term::Str(text) => Sym::List(
                    host::split_whitespace(text)
                        .into_iter()
                        .map(|p| Sym::Str(Term::Str(p)))
                        .collect(),
                ),
                _ => self.state.split_whitespace(s.clone()),
            },
            (UdfOp::CsvRow, [Str(s)]) => match s {
                Term::Str(text) => match host::csv_row(text) {
                    Ok(row) => Sym::List(row.into_iter().map(|p| Sym::Str(Term::Str(p))).collect()),
                    Err(host::CsvRowError::Python(message)) => {
                        return Err(Stop::Fail(format!("csv.Error: {message}")))
                    }
                    Err(host::CsvRowError::QuotedPastLine) => {
                        return Err(unsupported(
                            point,
                            "a csv line whose quoted field continues on the next line",
                        ))
                    }
                },
                _ => self.state.csv_row(s.clone()),
            },
            (UdfOp::RegexSplit { pattern }, [Str(s)])
            | (UdfOp::RegexFindAll { pattern }, [Str(s)]) => {
                let find_all = matches!(kind, UdfOp::RegexFindAll { .. });
                match s {
                    Term::Str(text) => {
                        let pieces = if find_all {
                            pattern.find_all(text)
                        } else {
                            pattern.split(text)
                        };
                        Sym::List(pieces.into_iter().map(|p| Sym::Str(Term::Str(p))).collect())
                    }
                    _ => match self.state.pattern_split(s.clone(), pattern, find_all) {
                        Ok(split) => split,
                        Err(what) => return Err(unsupported(point, &what)),
                    },
                }
            }
            (UdfOp::Get { index, .. }, [List(items)]) => match items.get(*index) {
                Some(v) => v.clone(),
                None => return Err(Stop::Fail(format!("index {index} past the end"))),
            },
            (UdfOp::Get { index, .. }, [Split(list)]) => {
                if *index > self.max_index {
                    // Every piece up to the index is two variables.
                    return Err(Stop::Error(format!(
                        "{point}: index {index} is beyond max-index={}; {}",
                        self.max_index,
                        crate::enumerate::raise(&crate::bounds::MAX_INDEX)
                    )));
                }
                let list = *list;
                if self.host == Host::Jvm && self.state.splits[list].rule == PieceRule::Text {
                    // One decision per get, whether or not the piece is
                    // pinned: String.split may have dropped it.
                    if self.choose() {
                        self.state.extend_split(list, index + 1);
                        let kept = self.state.jvm_kept(list, *index);
                        self.state.splits[list].kept.push((*index, kept.clone()));
                        self.state.assume(kept);
                    } else {
                        let dropped = self.state.jvm_dropped(list, *index);
                        self.state.assume(dropped);
                        return Err(Stop::Fail(format!("index {index} past the end")));
                    }
                } else if self.state.splits[list].pieces.len() <= *index {
                    // One decision per get ("more than `index` pieces"), so
                    // the path's labels identify it.
                    if self.choose() {
                        self.state.extend_split(list, index + 1);
                    } else {
                        let fewer = self.state.at_most(list, *index);
                        self.state.assume(fewer);
                        return Err(Stop::Fail(format!("index {index} past the end")));
                    }
                }
                Str(self.state.splits[list].pieces[*index].clone())
            }
            (UdfOp::Size, [List(items)]) => Int(Term::Int(items.len() as i64)),
            // Decimal rounding of the exact value (the solver's reals are
            // the decimals the data holds): floor(|x| * 10^s + 1/2), or at
            // exactly half the even neighbour for bround.
            (UdfOp::Round { scale, half_even }, [Real(x)]) => {
                let factor = Term::Real(10i64.pow(scale.clamp(&0, &12).unsigned_abs() as u32), 1);
                if *scale < 0 || *scale > 12 {
                    return Err(unsupported(point, "round() at a scale below 0 or above 12"));
                }
                let magnitude = ite(
                    cmp(">=", x.clone(), Term::Real(0, 1)),
                    x.clone(),
                    neg(x.clone()),
                );
                let scaled = app("*", vec![magnitude, factor.clone()]);
                let floor = app("to_int", vec![scaled.clone()]);
                let fraction = app("-", vec![scaled, app("to_real", vec![floor.clone()])]);
                let half = Term::Real(1, 2);
                let up = if *half_even {
                    let odd = eq(app("mod", vec![floor.clone(), Term::Int(2)]), Term::Int(1));
                    or(vec![
                        cmp(">", fraction.clone(), half.clone()),
                        and(vec![eq(fraction, half), odd]),
                    ])
                } else {
                    cmp(">=", fraction, half)
                };
                let rounded = ite(up, int_op("+", floor.clone(), Term::Int(1)), floor);
                let value = app("/", vec![app("to_real", vec![rounded]), factor]);
                Real(ite(
                    cmp(">=", x.clone(), Term::Real(0, 1)),
                    value.clone(),
                    neg(value),
                ))
            }
            (UdfOp::Range, [Int(start), Int(stop)]) => Range {
                start: start.clone(),
                stop: stop.clone(),
            },
            (UdfOp::Size, [Range { start, stop }]) => Int(ite(
                cmp("<", start.clone(), stop.clone()),
                int_op("-", stop.clone(), start.clone()),
                Term::Int(0),
            )),
            (UdfOp::Size, [Split(list)]) => {
                if self.host == Host::Jvm && self.state.splits[*list].rule == PieceRule::Text {
                    // String.split drops the empty pieces at the end.
                    return Err(unsupported(
                        point,
                        "df.size of a string split from input on the JVM",
                    ));
                }
                Int(self.state.size(*list))
            }
            (UdfOp::Substr, [Str(s), Int(start), Int(length)]) => {
                let len = app("str.len", vec![s.clone()]);
                let ok = and(vec![
                    cmp(">=", start.clone(), zero.clone()),
                    cmp(">=", length.clone(), zero.clone()),
                    cmp(
                        "<=",
                        int_op("+", start.clone(), length.clone()),
                        len.clone(),
                    ),
                ]);
                if let (Term::Str(text), Term::Int(a), Term::Int(n)) = (s, start, length) {
                    return match host::substring(self.host, text, *a, *n) {
                        Some(sub) => Ok(Str(Term::Str(sub))),
                        None => Err(Stop::Fail("substring out of range".into())),
                    };
                }
                if self.host == Host::Python {
                    if let Some(tail) = self.known_tail(s, start, length) {
                        return Ok(Str(tail));
                    }
                    // s[b:b + n]: a negative bound counts from the end,
                    // both clamp to [0, len], and an empty range is "".
                    // The string and its length appear in every bound, so
                    // a compound string is named first (a slice of a
                    // replaced text would otherwise copy the replacement's
                    // terms a dozen times).
                    let s = &self.name_str(s);
                    let written_len = len;
                    let len = app("str.len", vec![s.clone()]);
                    let clamp = |i: Term| match &i {
                        // SMT's str.substr is "" from a start past the end.
                        Term::Int(b) if *b >= 0 => i,
                        _ if i == len || i == written_len => len.clone(),
                        _ => {
                            let i = ite(
                                cmp("<", i.clone(), zero.clone()),
                                int_op("+", i.clone(), len.clone()),
                                i,
                            );
                            let low = ite(cmp("<", i.clone(), zero.clone()), zero.clone(), i);
                            ite(cmp(">", low.clone(), len.clone()), len.clone(), low)
                        }
                    };
                    let from = clamp(start.clone());
                    let to = clamp(int_op("+", start.clone(), length.clone()));
                    // SMT's str.substr is "" for a count below 1 too.
                    let count = int_op("-", to, from.clone());
                    return Ok(Str(app("str.substr", vec![s.clone(), from, count])));
                }
                self.guard(ok, "substring out of range")?;
                Str(app(
                    "str.substr",
                    vec![s.clone(), start.clone(), length.clone()],
                ))
            }
            (UdfOp::ToInt { int32, .. }, [Str(s)]) => {
                if let Term::Str(text) = s {
                    return match host::parse_int(self.host, text) {
                        Ok(v) if *int32 && i32::try_from(v).is_err() => {
                            Err(Stop::Fail("not a 32-bit integer".into()))
                        }
                        Ok(v) => Ok(Int(Term::Int(v))),
                        Err(host::ParseIntError::NotAnInteger) => {
                            Err(Stop::Fail("not an integer".into()))
                        }
                        Err(host::ParseIntError::BeyondI64) => {
                            Err(unsupported(point, "an integer constant beyond i64"))
                        }
                    };
                }
                // The failing side only needs some text that is not a
                // number: one that does not match the integer syntax.
                if self.choose() {
                    // Integer.parseInt's range; beyond it the parse throws,
                    // which the failing side's witness (text outside the
                    // syntax) already covers.
                    Int(self.integer_text(s, *int32))
                } else {
                    // Printable ASCII that the host's parse refuses.
                    let parsed = match self.host {
                        Host::Jvm => INT_RE,
                        Host::Python => PY_INT_RE,
                    };
                    self.state.assume(in_re(s.clone(), PRINTABLE_RE));
                    self.state.assume(not(in_re(s.clone(), parsed)));
                    if self.host == Host::Python && self.state.digits_only(s) {
                        // A run of digits (`re.findall(r"\d+", s)`) always
                        // parses; Z3 4.8 gives up on the regex difference.
                        self.state.assume(Term::Bool(false));
                    }
                    return Err(Stop::Fail("not an integer".into()));
                }
            }
            (UdfOp::ToFloat { .. }, [Str(s)]) => {
                if let Term::Str(text) = s {
                    return match host::parse_float(self.host, text) {
                        Some(v) => real(v)
                            .map(Real)
                            .ok_or_else(|| unsupported(point, "a non-finite f64 constant")),
                        None => Err(Stop::Fail("not a number".into())),
                    };
                }
                // Success: an integer part and an optional two-digit
                // fraction, whose value is exact. Failure: text with no digit
                // and no "n" (so neither "inf" nor "nan").
                if self.choose() {
                    Real(self.decimal_text(s))
                } else {
                    self.not_a_number_text(s);
                    return Err(Stop::Fail("not a number".into()));
                }
            }
            (UdfOp::ToStr, [Int(a)]) => Str(ite(
                cmp(">=", a.clone(), zero),
                app("str.from_int", vec![a.clone()]),
                app(
                    "str.++",
                    vec![
                        Term::Str("-".into()),
                        app("str.from_int", vec![neg(a.clone())]),
                    ],
                ),
            )),
            (UdfOp::ToStr, [Bool(a)]) => Str(ite(
                a.clone(),
                Term::Str(host::format_bool(self.host, true)),
                Term::Str(host::format_bool(self.host, false)),
            )),
            (UdfOp::ToStr, [Real(_)]) => {
                return Err(unsupported(point, "df.to_str of a symbolic f64"))
            }
            (UdfOp::Length, [Str(s)]) => Int(match s {
                Term::Str(text) => Term::Int(host::length(self.host, text)),
                s => app("str.len", vec![s.clone()]),
            }),
            (UdfOp::Concat, [Str(a), Str(b)]) => Str(match (a, b) {
                (Term::Str(x), Term::Str(y)) if x.len() + y.len() <= MAX_FOLDED_STR => {
                    Term::Str(format!("{x}{y}"))
                }
                _ => app("str.++", vec![a.clone(), b.clone()]),
            }),
            (UdfOp::Contains, [Str(a), Str(b)]) => {
                Bool(str_pred("str.contains", a, b, |x, y| x.contains(y)))
            }
            (UdfOp::StartsWith, [Str(a), Str(b)]) => {
                Bool(str_pred("str.prefixof", b, a, |x, y| y.starts_with(x)))
            }
            (UdfOp::EndsWith, [Str(a), Str(b)]) => {
                Bool(str_pred("str.suffixof", b, a, |x, y| y.ends_with(x)))
            }
            (UdfOp::Find, [Str(a), Str(b)]) => Int(match (a, b) {
                (Term::Str(x), Term::Str(y)) => Term::Int(host::find(self.host, x, y)),
                _ => app("str.indexof", vec![a.clone(), b.clone(), Term::Int(0)]),
            }),
            (UdfOp::Replace, [Str(s), Str(old), Str(new)]) => {
                Str(self.replace(point, s, old, new)?)
            }
            (UdfOp::Strip { side, spaces_only }, [Str(s)]) => {
                Str(self.strip(s, *side, *spaces_only))
            }
            (UdfOp::Lower | UdfOp::Upper, [Str(s)]) => Str(match s {
                Term::Str(text) if *kind == UdfOp::Lower => Term::Str(host::lower(text)),
                Term::Str(text) => Term::Str(host::upper(text)),
                _ => {
                    // SMT strings have no case mapping: the path takes text
                    // the mapping leaves alone (an under-approximation).
                    let unchanged = if *kind == UdfOp::Lower {
                        NO_UPPER
                    } else {
                        NO_LOWER
                    };
                    self.state.restrict(s, &unchanged.to_vec());
                    s.clone()
                }
            }),
            (UdfOp::StrEq, [Str(a), Str(b)]) => Bool(eq(a.clone(), b.clone())),
            (UdfOp::IsPresent, [Opt { present, .. }]) => Bool(present.clone()),
            (UdfOp::ValueOr, [Opt { present, value }, default]) => select(present, value, default)
                .ok_or_else(|| unsupported(point, "value_or on an option of a list"))?,
            _ => {
                return Err(Stop::Error(format!(
                    "{point}: operands of unexpected kinds"
                )))
            }
        })
    }
}

impl SymDomain {
    /// `s.replace(old, new)` for a constant, non-empty `old`. Z3 4.8.12
    /// answers `unknown` to any script with `str.replace_all`, so a
    /// symbolic `s` is decomposed as a split is, once, without a decision:
    /// `s = p0 ++ T1`, `T_i = "" or old ++ p_i ++ T_{i+1}` up to k
    /// occurrences (`T_{k+1} = ""`), each piece holding no occurrence that
    /// starts inside it (no `old` in `p_i`, nor in `p_i ++ old[..len - 1]`
    /// when an occurrence follows, so the left-to-right scan finds the
    /// same occurrences: `"aaa"` is `"" ++ "aa" ++ "a"`), and the result
    /// `p0 ++ new ++ p1 ...` over the occurrences present. Strings with
    /// more than k occurrences are not generated (an under-approximation).
    fn replace(&mut self, point: &str, s: &Term, old: &Term, new: &Term) -> Result<Term, Stop> {
        let Term::Str(target) = old else {
            return Err(unsupported(
                point,
                "df.replace of a string that is not a constant",
            ));
        };
        if target.is_empty() {
            return Err(Stop::Error(format!(
                "{point}: df.replace of an empty string, which would insert the replacement \
                 between every character, is not modelled"
            )));
        }
        let concat = |parts: Vec<Term>| -> Term {
            let mut folded: Vec<Term> = Vec::new();
            for part in parts {
                match (folded.last_mut(), &part) {
                    (_, Term::Str(t)) if t.is_empty() => {}
                    (Some(Term::Str(a)), Term::Str(b)) if a.len() + b.len() <= MAX_FOLDED_STR => {
                        a.push_str(b)
                    }
                    _ => folded.push(part),
                }
            }
            match folded.len() {
                0 => Term::Str(String::new()),
                1 => folded.remove(0),
                _ => app("str.++", folded),
            }
        };
        if let Term::Str(text) = s {
            let mut parts = Vec::new();
            for (i, piece) in text.split(target.as_str()).enumerate() {
                if i > 0 {
                    parts.push(new.clone());
                }
                parts.push(Term::Str(piece.into()));
            }
            return Ok(concat(parts));
        }
        let old = Term::Str(target.clone());
        // No occurrence starts inside a piece, even one running on into
        // the next occurrence.
        let overhang: String = {
            let mut chars: Vec<char> = target.chars().collect();
            chars.pop();
            chars.into_iter().collect()
        };
        let empty = Term::Str(String::new());
        // Piece `p` followed by `next` (empty, or an occurrence and more).
        let no_occurrence = |p: &Term, next: &Term| {
            let free = not(app("str.contains", vec![p.clone(), old.clone()]));
            if overhang.is_empty() {
                return free;
            }
            let before_next = app("str.++", vec![p.clone(), Term::Str(overhang.clone())]);
            and(vec![
                free,
                or(vec![
                    eq(next.clone(), empty.clone()),
                    not(app("str.contains", vec![before_next, old.clone()])),
                ]),
            ])
        };
        let p0 = self.state.fresh("r", Sort::Str);
        let mut tail = self.state.fresh("s", Sort::Str);
        self.state
            .assume(eq(s.clone(), app("str.++", vec![p0.clone(), tail.clone()])));
        // Chains of replaces (`w.replace(",", "").replace(".", "")`) are
        // beyond Z3 4.8.12 in full; each finding nothing is solved at once,
        // and where a path needs an occurrence, as few as it can.
        self.state.prefer(eq(tail.clone(), empty.clone()));
        self.state.assume(no_occurrence(&p0, &tail));
        // (tail, piece) per possible occurrence, outermost first.
        let mut links = Vec::new();
        for i in 0..self.bound {
            let p = self.state.fresh("r", Sort::Str);
            let next = if i + 1 < self.bound {
                self.state.fresh("s", Sort::Str)
            } else {
                empty.clone()
            };
            self.state.assume(or(vec![
                eq(tail.clone(), empty.clone()),
                eq(
                    tail.clone(),
                    app("str.++", vec![old.clone(), p.clone(), next.clone()]),
                ),
            ]));
            self.state.assume(no_occurrence(&p, &next));
            if i + 1 < self.bound {
                self.state.prefer(eq(next.clone(), empty.clone()));
            }
            links.push((tail, p));
            tail = next;
        }
        if self.bound == 0 {
            self.state.assume(eq(tail, empty.clone()));
        }
        let mut result = empty.clone();
        for (tail, p) in links.into_iter().rev() {
            result = ite(
                eq(tail, empty.clone()),
                empty.clone(),
                concat(vec![new.clone(), p, result]),
            );
        }
        // The result is an `ite` per occurrence: named, so that what reads
        // it (a slice, a second replace) does not copy them.
        let replaced = concat(vec![p0, result]);
        Ok(self.name_str(&replaced))
    }

    /// Python's `strip()`/`lstrip()`/`rstrip()`: `s = lead ++ core ++
    /// trail` with `lead` and `trail` spaces and `core` printable ASCII,
    /// empty or starting (lstrip) and ending (rstrip) with a character
    /// other than a space. Generated text therefore has only spaces around
    /// what is kept, which is printable ASCII (an under-approximation:
    /// Python strips every `str.isspace()` character).
    /// Generated text holds no whitespace but spaces, so Python's strip
    /// and Spark's trim (`spaces_only`) are the same encoding.
    fn strip(&mut self, s: &Term, side: StripSide, spaces_only: bool) -> Term {
        if let Term::Str(text) = s {
            return Term::Str(host::strip(text, side, spaces_only));
        }
        let core = self.state.fresh("c", Sort::Str);
        let mut parts = Vec::new();
        if side != StripSide::Right {
            let lead = self.state.fresh("l", Sort::Str);
            self.state.assume(in_re(lead.clone(), SPACES_RE));
            parts.push(lead);
        }
        parts.push(core.clone());
        if side != StripSide::Left {
            let trail = self.state.fresh("z", Sort::Str);
            self.state.assume(in_re(trail.clone(), SPACES_RE));
            parts.push(trail);
        }
        self.state.assume(eq(s.clone(), app("str.++", parts)));
        let kept = self
            .state
            .shape(core.clone(), Shape::Stripped(side), vec![PRINTABLE]);
        self.state.assume(kept);
        core
    }
}

fn compare(c: Cmp, a: Term, b: Term) -> Term {
    match c {
        Cmp::Eq => eq(a, b),
        Cmp::Ne => not(eq(a, b)),
        Cmp::Lt => cmp("<", a, b),
        Cmp::Le => cmp("<=", a, b),
        Cmp::Gt => cmp(">", a, b),
        Cmp::Ge => cmp(">=", a, b),
    }
}

fn str_pred(name: &'static str, a: &Term, b: &Term, f: fn(&str, &str) -> bool) -> Term {
    match (a, b) {
        (Term::Str(x), Term::Str(y)) => Term::Bool(f(x, y)),
        _ => app(name, vec![a.clone(), b.clone()]),
    }
}

/// `c ? a : b` on values of the same kind.
fn select(c: &Term, a: &Sym, b: &Sym) -> Option<Sym> {
    if let Term::Bool(taken) = c {
        return Some(if *taken { a.clone() } else { b.clone() });
    }
    let pick = |x: &Term, y: &Term| ite(c.clone(), x.clone(), y.clone());
    Some(match (a, b) {
        (Sym::Int(x), Sym::Int(y)) => Sym::Int(pick(x, y)),
        (Sym::Real(x), Sym::Real(y)) => Sym::Real(pick(x, y)),
        (Sym::Bool(x), Sym::Bool(y)) => Sym::Bool(pick(x, y)),
        (Sym::Str(x), Sym::Str(y)) => Sym::Str(pick(x, y)),
        _ => return None,
    })
}

/// Adds the declarations of `more` that `decls` lacks.
pub fn declare_all(decls: &mut Vec<(String, Sort)>, more: &[(String, Sort)]) {
    for d in more {
        if !decls.contains(d) {
            decls.push(d.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JVM split read at pieces 0 and 2, as `df.get` leaves it.
    fn split_read_at_0_and_2() -> (State, Vec<Term>) {
        let mut state = State::default();
        let line = state.declare("line".into(), Sort::Str);
        let Sym::Split(list) = state.split(line, ",") else {
            panic!("a variable splits lazily");
        };
        let mut kept = Vec::new();
        for index in [0, 2] {
            state.extend_split(list, index + 1);
            let term = state.jvm_kept(list, index);
            state.splits[list].kept.push((index, term.clone()));
            state.assume(term.clone());
            kept.push(term);
        }
        (state, kept)
    }

    #[test]
    fn a_non_empty_piece_implies_the_kept_rule_up_to_it() {
        let (mut state, kept) = split_read_at_0_and_2();
        let piece2 = state.splits[0].pieces[2].clone();
        state.known_nonempty(&piece2);
        for term in &kept {
            assert!(!state.constraints.contains(term), "{term} is implied");
        }
    }

    #[test]
    fn an_earlier_piece_leaves_the_later_kept_rules() {
        let (mut state, kept) = split_read_at_0_and_2();
        let piece0 = state.splits[0].pieces[0].clone();
        state.known_nonempty(&piece0);
        assert!(!state.constraints.contains(&kept[0]));
        // Piece 0 being non-empty says nothing about pieces 2 and on.
        assert!(state.constraints.contains(&kept[1]));
    }

    fn python_domain() -> (SymDomain, Term) {
        let mut state = State::default();
        let s = state.declare("s".into(), Sort::Str);
        (SymDomain::new(state, Host::Python, Vec::new(), 2, 1000), s)
    }

    /// `s.strip().lower()`: the case mapping narrows the class of the
    /// stripped text's one regular expression, it adds none.
    #[test]
    fn lower_narrows_what_strip_left() {
        let (mut domain, s) = python_domain();
        let strip = UdfOp::Strip {
            side: StripSide::Both,
            spaces_only: false,
        };
        let Ok(Sym::Str(core)) = domain.apply_op(&strip, "t", &[Sym::Str(s)]) else {
            panic!("strip gives a string");
        };
        let regexes = |d: &SymDomain| {
            d.state
                .constraints
                .iter()
                .filter(|c| matches!(c, Term::App("str.in_re", args) if args[0] == core))
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(regexes(&domain).len(), 1);
        let Ok(Sym::Str(lowered)) = domain.apply_op(&UdfOp::Lower, "t", &[Sym::Str(core.clone())])
        else {
            panic!("lower gives a string");
        };
        assert_eq!(lowered, core);
        let after = regexes(&domain);
        assert_eq!(after.len(), 1, "{after:?}");
        assert!(
            after[0].contains(r#"(re.range "!" "@") (re.range "[" "~")"#),
            "{}",
            after[0]
        );
    }

    /// A plain string gets the case constraint of its own.
    #[test]
    fn upper_of_a_plain_string_constrains_it() {
        let (mut domain, s) = python_domain();
        let Ok(Sym::Str(upper)) = domain.apply_op(&UdfOp::Upper, "t", &[Sym::Str(s.clone())])
        else {
            panic!("upper gives a string");
        };
        assert_eq!(upper, s);
        assert_eq!(
            domain.state.constraints.last().map(|c| c.to_string()),
            Some(r#"(str.in_re s (re.* (re.union (re.range " " "`") (re.range "{" "~"))))"#.into())
        );
    }

    /// Replacing in a constant string folds; a symbolic one decomposes into
    /// at most k occurrences without a decision.
    #[test]
    fn replace_folds_constants_and_does_not_fork() {
        let (mut domain, s) = python_domain();
        let str = |t: &str| Sym::Str(Term::Str(t.into()));
        let replaced = domain.apply_op(&UdfOp::Replace, "t", &[str("aaa"), str("aa"), str("x")]);
        assert!(matches!(replaced, Ok(Sym::Str(Term::Str(t))) if t == "xa"));
        let symbolic = domain.apply_op(&UdfOp::Replace, "t", &[Sym::Str(s), str(","), str(";")]);
        assert!(matches!(symbolic, Ok(Sym::Str(_))));
        assert!(domain.decisions.is_empty());
        let empty = domain.apply_op(&UdfOp::Replace, "t", &[str("a"), str(""), str("x")]);
        assert!(matches!(empty, Err(Stop::Error(_))));
    }

    /// The total form forks as the failing one does: absent on one side,
    /// present on the other, each a constant.
    #[test]
    fn total_parse_forks_into_constant_presence() {
        let to_int = UdfOp::ToInt {
            int32: false,
            checked: true,
        };
        for (prefix, expected) in [(vec![true], true), (vec![false], false)] {
            let mut state = State::default();
            let s = state.declare("s".into(), Sort::Str);
            let mut domain = SymDomain::new(state, Host::Python, prefix, 2, 1000);
            let value = domain.apply_op(&to_int, "t", &[Sym::Str(s)]);
            let Ok(Sym::Opt { present, .. }) = value else {
                panic!("the total form gives an option");
            };
            assert_eq!(present, Term::Bool(expected));
            assert_eq!(domain.decisions.len(), 1);
        }
    }

    /// `(s + "x")[1:]`: the string is named once, the constant start and
    /// the end at the length need no clamp, so the term has no `ite`.
    #[test]
    fn a_python_tail_slice_is_a_plain_substring() {
        let (mut domain, s) = python_domain();
        let compound = app("str.++", vec![s, Term::Str("x".into())]);
        let len = app("str.len", vec![compound.clone()]);
        let start = Term::Int(1);
        let length = int_op("-", len, start.clone());
        let Ok(Sym::Str(slice)) = domain.apply_op(
            &UdfOp::Substr,
            "t",
            &[Sym::Str(compound), Sym::Int(start), Sym::Int(length)],
        ) else {
            panic!("a slice gives a string");
        };
        let text = slice.to_string();
        assert!(!text.contains("ite"), "{text}");
        assert!(text.starts_with("(str.substr "), "{text}");
        assert_eq!(domain.state.constraints.len(), 1);
        // A negative start still counts from the end.
        let (mut domain, s) = python_domain();
        let Ok(Sym::Str(slice)) = domain.apply_op(
            &UdfOp::Substr,
            "t",
            &[Sym::Str(s), Sym::Int(Term::Int(-2)), Sym::Int(Term::Int(2))],
        ) else {
            panic!("a slice gives a string");
        };
        assert!(slice.to_string().contains("ite"), "{slice}");
    }

    /// `if s.startswith("mailto:"): s = s[7:]`: on the side that took the
    /// test, `s = "mailto:" ++ r` and the slice is `r` (or the prefix's
    /// tail before it), not a substring; the other side knows nothing.
    #[test]
    fn a_slice_after_startswith_is_the_named_rest() {
        let slice = |domain: &mut SymDomain, s: &Term, start: i64| {
            let length = int_op("-", app("str.len", vec![s.clone()]), Term::Int(start));
            match domain.apply_op(
                &UdfOp::Substr,
                "t",
                &[
                    Sym::Str(s.clone()),
                    Sym::Int(Term::Int(start)),
                    Sym::Int(length),
                ],
            ) {
                Ok(Sym::Str(t)) => t.to_string(),
                other => panic!("{other:?}"),
            }
        };
        let starts = |s: &Term| app("str.prefixof", vec![Term::Str("mailto:".into()), s.clone()]);
        let (mut domain, s) = python_domain();
        assert!(domain.fork(starts(&s)));
        let rest = domain.state.prefixed[0].rest.to_string();
        assert_eq!(slice(&mut domain, &s, 7), rest);
        assert_eq!(
            slice(&mut domain, &s, 4),
            format!("(str.++ \"to:\" {rest})")
        );
        assert!(slice(&mut domain, &s, 8).starts_with("(str.substr "));
        let mut domain = SymDomain::new(State::default(), Host::Python, vec![false], 2, 1000);
        let s = domain.state.declare("s".into(), Sort::Str);
        assert!(!domain.fork(starts(&s)));
        assert!(domain.state.prefixed.is_empty());
        assert!(slice(&mut domain, &s, 7).starts_with("(str.substr "));
    }
}
