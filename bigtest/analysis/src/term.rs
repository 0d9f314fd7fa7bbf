//! Path constraints as SMT-LIB terms. Constructors fold constants, so
//! decisions on values the program fixes never fork a path, and constraints
//! print as the SMT-LIB 2 text that `bigtest.jdu_path` carries and Z3 reads.

use std::fmt;

use coco_smt::{quote, string_literal};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sort {
    Int,
    Real,
    Bool,
    Str,
}

impl Sort {
    pub fn smt(self) -> &'static str {
        match self {
            Sort::Int => "Int",
            Sort::Real => "Real",
            Sort::Bool => "Bool",
            Sort::Str => "String",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Var(String),
    Int(i64),
    /// An exact rational `numerator / denominator`.
    Real(i64, i64),
    Bool(bool),
    Str(String),
    App(&'static str, Vec<Term>),
    /// Fixed SMT-LIB text, for regular expressions.
    Raw(&'static str),
}

impl Term {
    /// The number of nodes, counted no further than `cap + 1`.
    pub fn size_up_to(&self, cap: usize) -> usize {
        let mut count = 0;
        let mut stack = vec![self];
        while let Some(term) = stack.pop() {
            count += 1;
            if count > cap {
                break;
            }
            if let Term::App(_, args) = term {
                stack.extend(args);
            }
        }
        count
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Term::Var(name) => write!(f, "{}", quote(name)),
            Term::Int(v) if *v < 0 => write!(f, "(- {})", v.unsigned_abs()),
            Term::Int(v) => write!(f, "{v}"),
            Term::Real(n, d) => {
                let magnitude = if *d == 1 {
                    format!("{}.0", n.unsigned_abs())
                } else {
                    format!("(/ {}.0 {d}.0)", n.unsigned_abs())
                };
                if *n < 0 {
                    write!(f, "(- {magnitude})")
                } else {
                    write!(f, "{magnitude}")
                }
            }
            Term::Bool(b) => write!(f, "{b}"),
            Term::Raw(text) => write!(f, "{text}"),
            Term::Str(s) => write!(f, "{}", string_literal(s)),
            Term::App(name, args) => {
                write!(f, "({name}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// An exact rational for a finite f64 (a dyadic fraction), if it fits.
pub fn real(value: f64) -> Option<Term> {
    if !value.is_finite() {
        return None;
    }
    let mut denominator: i64 = 1;
    let mut scaled = value;
    while scaled.fract() != 0.0 {
        denominator = denominator.checked_mul(2)?;
        scaled *= 2.0;
    }
    if scaled.abs() >= 9.0e18 {
        return None;
    }
    Some(Term::Real(scaled as i64, denominator))
}

pub fn app(name: &'static str, args: Vec<Term>) -> Term {
    Term::App(name, args)
}

pub fn not(t: Term) -> Term {
    match t {
        Term::Bool(b) => Term::Bool(!b),
        Term::App("not", mut args) => args.remove(0),
        t => app("not", vec![t]),
    }
}

pub fn and(terms: Vec<Term>) -> Term {
    let mut kept = Vec::new();
    for t in terms {
        match t {
            Term::Bool(true) => {}
            Term::Bool(false) => return Term::Bool(false),
            t => kept.push(t),
        }
    }
    match kept.len() {
        0 => Term::Bool(true),
        1 => kept.remove(0),
        _ => app("and", kept),
    }
}

pub fn or(terms: Vec<Term>) -> Term {
    let mut kept = Vec::new();
    for t in terms {
        match t {
            Term::Bool(false) => {}
            Term::Bool(true) => return Term::Bool(true),
            t => kept.push(t),
        }
    }
    match kept.len() {
        0 => Term::Bool(false),
        1 => kept.remove(0),
        _ => app("or", kept),
    }
}

pub fn eq(a: Term, b: Term) -> Term {
    match (&a, &b) {
        (Term::Int(x), Term::Int(y)) => Term::Bool(x == y),
        (Term::Bool(x), Term::Bool(y)) => Term::Bool(x == y),
        (Term::Str(x), Term::Str(y)) => Term::Bool(x == y),
        (Term::Real(..), Term::Real(..)) => Term::Bool(a == b),
        _ if a == b => Term::Bool(true),
        _ => app("=", vec![a, b]),
    }
}

pub fn ite(c: Term, a: Term, b: Term) -> Term {
    match c {
        Term::Bool(true) => a,
        Term::Bool(false) => b,
        c if a == b => {
            let _ = c;
            a
        }
        c => app("ite", vec![c, a, b]),
    }
}

pub fn is_const(t: &Term) -> bool {
    matches!(
        t,
        Term::Int(_) | Term::Real(..) | Term::Bool(_) | Term::Str(_)
    )
}

/// Integer arithmetic with constant folding (wrapping like i64 when both
/// sides are known; symbolic results are unbounded integers).
pub fn int_op(name: &'static str, a: Term, b: Term) -> Term {
    if let (Term::Int(x), Term::Int(y)) = (&a, &b) {
        match name {
            "+" => return Term::Int(x.wrapping_add(*y)),
            "-" => return Term::Int(x.wrapping_sub(*y)),
            "*" => return Term::Int(x.wrapping_mul(*y)),
            _ => {}
        }
    }
    // `a + (x - a)`, as `s[a:]` makes its end: symbolic integers do not
    // wrap, so this is `x`.
    if name == "+" {
        match (&a, &b) {
            (a, Term::App("-", args)) if args.len() == 2 && args[1] == *a => {
                return args[0].clone()
            }
            (Term::App("-", args), b) if args.len() == 2 && args[1] == *b => {
                return args[0].clone()
            }
            _ => {}
        }
    }
    app(name, vec![a, b])
}

pub fn neg(a: Term) -> Term {
    match a {
        Term::Int(x) => Term::Int(x.wrapping_neg()),
        Term::Real(n, d) => Term::Real(-n, d),
        a => app("-", vec![a]),
    }
}

/// Signed division truncating towards zero, as `arith.divsi` (SMT-LIB's
/// `div` rounds towards negative infinity for positive divisors).
pub fn div_trunc(a: Term, b: Term) -> Term {
    if let (Term::Int(x), Term::Int(y)) = (&a, &b) {
        if *y != 0 {
            return Term::Int(x.wrapping_div(*y));
        }
    }
    let abs = |t: Term| ite(cmp(">=", t.clone(), Term::Int(0)), t.clone(), neg(t));
    let q = app("div", vec![abs(a.clone()), abs(b.clone())]);
    let negative = app(
        "xor",
        vec![cmp("<", a, Term::Int(0)), cmp("<", b, Term::Int(0))],
    );
    ite(negative, neg(q.clone()), q)
}

/// Division rounding down, as Python's `//` (and Java's `Math.floorDiv`).
/// SMT-LIB's `div` is Euclidean (the remainder is never negative): it
/// rounds down for a positive divisor and up for a negative one, so for a
/// negative divisor both signs flip (`div (- a) (- b)` is `floor(a / b)`).
/// Constant operands fold with i64 wrapping; the divisor must be non-zero.
pub fn floor_div(a: Term, b: Term) -> Term {
    match (&a, &b) {
        (Term::Int(x), Term::Int(y)) if *y != 0 => {
            let q = x.wrapping_div(*y);
            let adjust = x.wrapping_rem(*y) != 0 && ((*x < 0) != (*y < 0));
            Term::Int(if adjust { q - 1 } else { q })
        }
        (_, Term::Int(y)) if *y > 0 => app("div", vec![a, b]),
        (_, Term::Int(y)) if *y < 0 => app("div", vec![neg(a), neg(b)]),
        _ => ite(
            cmp(">=", b.clone(), Term::Int(0)),
            app("div", vec![a.clone(), b.clone()]),
            app("div", vec![neg(a), neg(b)]),
        ),
    }
}

/// The remainder with the sign of the divisor, as Python's `%`:
/// `a - b * floor(a / b)` (SMT-LIB's `mod` for a positive divisor).
pub fn floor_mod(a: Term, b: Term) -> Term {
    match (&a, &b) {
        (Term::Int(x), Term::Int(y)) if *y != 0 => {
            let r = x.wrapping_rem(*y);
            Term::Int(if r != 0 && ((r < 0) != (*y < 0)) {
                r + y
            } else {
                r
            })
        }
        (_, Term::Int(y)) if *y > 0 => app("mod", vec![a, b]),
        _ => int_op("-", a.clone(), int_op("*", b.clone(), floor_div(a, b))),
    }
}

pub fn cmp(name: &'static str, a: Term, b: Term) -> Term {
    if let (Term::Int(x), Term::Int(y)) = (&a, &b) {
        return Term::Bool(match name {
            "<" => x < y,
            "<=" => x <= y,
            ">" => x > y,
            ">=" => x >= y,
            _ => return app(name, vec![a, b]),
        });
    }
    app(name, vec![a, b])
}

/// `(str.in_re t (re.++ ...))` over a regex written as SMT-LIB text.
pub fn in_re(t: Term, regex: &'static str) -> Term {
    app("str.in_re", vec![t, Term::Raw(regex)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> Term {
        Term::Var(name.into())
    }

    #[test]
    fn constants_fold_so_fixed_decisions_never_fork() {
        assert_eq!(not(Term::Bool(true)), Term::Bool(false));
        assert_eq!(not(not(var("b"))), var("b"));
        assert_eq!(and(vec![Term::Bool(true), var("b")]), var("b"));
        assert_eq!(and(vec![var("a"), Term::Bool(false)]), Term::Bool(false));
        assert_eq!(or(vec![Term::Bool(false)]), Term::Bool(false));
        assert_eq!(eq(Term::Int(3), Term::Int(3)), Term::Bool(true));
        assert_eq!(eq(var("x"), var("x")), Term::Bool(true));
        assert_eq!(
            ite(Term::Bool(false), Term::Int(1), Term::Int(2)),
            Term::Int(2)
        );
        assert_eq!(cmp("<", Term::Int(1), Term::Int(2)), Term::Bool(true));
    }

    #[test]
    fn size_stops_counting_at_the_cap() {
        let t = app("+", vec![var("a"), app("-", vec![var("b")])]);
        assert_eq!(t.size_up_to(10), 4);
        assert_eq!(t.size_up_to(2), 3);
    }

    #[test]
    fn integer_folding_wraps_like_i64() {
        assert_eq!(
            int_op("+", Term::Int(i64::MAX), Term::Int(1)),
            Term::Int(i64::MIN)
        );
        assert_eq!(neg(Term::Int(i64::MIN)), Term::Int(i64::MIN));
        assert_eq!(div_trunc(Term::Int(-7), Term::Int(2)), Term::Int(-3));
        assert_eq!(
            div_trunc(Term::Int(i64::MIN), Term::Int(-1)),
            Term::Int(i64::MIN)
        );
    }

    #[test]
    fn symbolic_division_truncates_towards_zero() {
        // SMT-LIB's div rounds towards negative infinity; the term divides
        // magnitudes and restores the sign.
        assert_eq!(
            div_trunc(var("a"), Term::Int(2)).to_string(),
            "(ite (xor (< a 0) false) (- (div (ite (>= a 0) a (- a)) 2)) (div (ite (>= a 0) a (- a)) 2))"
        );
    }

    #[test]
    fn floor_division_folds_as_python_rounds() {
        // CPython 3.11: a // b and a % b.
        for (a, b, q, r) in [
            (7, 2, 3, 1),
            (-7, 2, -4, 1),
            (7, -2, -4, -1),
            (-7, -2, 3, -1),
        ] {
            assert_eq!(floor_div(Term::Int(a), Term::Int(b)), Term::Int(q));
            assert_eq!(floor_mod(Term::Int(a), Term::Int(b)), Term::Int(r));
        }
        assert_eq!(floor_div(var("a"), Term::Int(2)).to_string(), "(div a 2)");
        assert_eq!(
            floor_div(var("a"), Term::Int(-2)).to_string(),
            "(div (- a) 2)"
        );
        assert_eq!(floor_mod(var("a"), Term::Int(3)).to_string(), "(mod a 3)");
        assert_eq!(
            floor_div(var("a"), var("b")).to_string(),
            "(ite (>= b 0) (div a b) (div (- a) (- b)))"
        );
    }

    #[test]
    fn terms_print_as_smt_lib() {
        assert_eq!(Term::Int(-5).to_string(), "(- 5)");
        assert_eq!(real(-0.75).unwrap().to_string(), "(- (/ 3.0 4.0))");
        assert_eq!(real(2.0).unwrap().to_string(), "2.0");
        assert_eq!(real(f64::NAN), None);
        assert_eq!(Term::Str("a\"b".into()).to_string(), "\"a\"\"b\"");
        assert_eq!(var("lines_0.f0").to_string(), "lines_0.f0");
        assert_eq!(
            in_re(var("s"), "(re.+ (re.range \"0\" \"9\"))").to_string(),
            "(str.in_re s (re.+ (re.range \"0\" \"9\")))"
        );
    }
}
