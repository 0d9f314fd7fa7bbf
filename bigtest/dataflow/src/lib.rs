//! df programs without MLIR: the [`model`] BigTest and the interpreter share,
//! the UDF evaluator generic over its value domain ([`eval`]), concrete
//! values ([`value`]), the reference interpreter with JDU-path recording
//! ([`interp`], [`lineage`]) and input loading ([`io`]).

pub mod eval;
pub mod interp;
pub mod io;
pub mod lineage;
pub mod model;
pub mod mutate;
pub mod value;
