//! df programs without MLIR: the [`model`] BigTest and the interpreter share,
//! the UDF evaluator generic over its value domain ([`eval`]), the host
//! language's semantics of each string and number op ([`host`]), concrete
//! values ([`value`]), Spark SQL's casts ([`sql`]), the reference interpreter with JDU-path recording
//! ([`interp`], [`lineage`]), input loading ([`io`]) and the text of records
//! as Spark reads and tools show it ([`text`]).

pub mod eval;
pub mod host;
pub mod interp;
pub mod io;
pub mod lineage;
pub mod model;
pub mod mutate;
pub mod sql;
pub mod text;
pub mod value;
