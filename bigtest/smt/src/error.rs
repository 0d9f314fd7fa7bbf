//! Why a query has no answer: Z3 rejected the script, a constant or its
//! model value does not fit [`crate::ModelValue`], or Z3 itself failed.
//! (A query Z3 gives up on is not an error but [`crate::Outcome::Unknown`].)

use thiserror::Error;

#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum Error {
    /// Z3 rejected the script: its parser's message (`line 2 column 11:
    /// unknown constant y`), or the name of its error code.
    #[error("{0}")]
    Rejected(String),
    /// Z3's C API reads the script as a C string.
    #[error("the script contains a NUL character")]
    NulInScript,
    #[error("unbalanced parentheses in the script")]
    UnbalancedParentheses,
    #[error("unterminated quoted symbol in the script")]
    UnterminatedSymbol,
    #[error("unterminated string literal in the script")]
    UnterminatedString,
    /// A declared constant of a sort [`crate::Sort`] does not have.
    #[error("constant `{name}` has unsupported sort {sort}")]
    UnsupportedSort { name: String, sort: String },
    #[error("cannot start a thread for Z3: {reason}")]
    NoThread { reason: String },
    #[error("the Z3 thread panicked")]
    WorkerDied,
    #[error("Z3 reported sat but produced no model")]
    NoModel,
    #[error("Z3 could not evaluate `{name}` in the model")]
    Unevaluated { name: String },
    /// An integer value beyond `i64`.
    #[error("the value {value} of `{name}` does not fit in an i64")]
    IntOutOfRange { name: String, value: String },
    /// A real value that is irrational or has a part beyond `i64`.
    #[error("the value {value} of `{name}` is not a rational with i64 numerator and denominator")]
    NotRational { name: String, value: String },
    #[error("the value {value} of `{name}` is not a Boolean")]
    NotBoolean { name: String, value: String },
    #[error("the value {value} is not a string literal")]
    NotStringLiteral { value: String },
    #[error("Z3 could not compute the length of {value}")]
    NoStringLength { value: String },
    #[error("Z3 could not extract character {index} of {value}")]
    NoCharacter { index: u64, value: String },
    /// Z3 printed one character of a string as text that is neither one
    /// character nor an escape of one.
    #[error("Z3 printed a character of {value} as {printed:?}")]
    UnreadableCharacter { value: String, printed: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
