//! A df program as plain data: the dataset operators of one `func.func` and
//! the UDFs they call, lowered from MLIR once (by `coco_bigtest::
//! extract`) so the interpreter, the symbolic executor and the mutator share
//! one representation that needs no MLIR context.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt,
};

use crate::host::Host;
pub use coco_base::class_pattern::ClassPattern;

/// The type of a record field or UDF value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Int,
    Float,
    Bool,
    Str,
    List(Box<Ty>),
    Option(Box<Ty>),
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Ty::Int => write!(f, "i64"),
            Ty::Float => write!(f, "f64"),
            Ty::Bool => write!(f, "i1"),
            Ty::Str => write!(f, "!df.str"),
            Ty::List(e) => write!(f, "!df.list<{e}>"),
            Ty::Option(e) => write!(f, "!df.option<{e}>"),
        }
    }
}

/// Where an op came from, for diagnostics (`file:line:col`).
pub type Loc = String;

/// One df program: the dataset operators of a function, in program order.
#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    /// The language the job's UDFs run in (the module's `df.host`).
    pub host: Host,
    pub ops: Vec<DatasetOp>,
    pub udfs: BTreeMap<String, Udf>,
}

/// Index of a dataset op in [`Program::ops`]; also the dataset it produces.
pub type DatasetId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JoinKind {
    Inner,
    LeftOuter,
    RightOuter,
    FullOuter,
}

impl JoinKind {
    /// In the order of the ODS enum (the `kind` attribute's value).
    pub const ALL: [JoinKind; 4] = [
        JoinKind::Inner,
        JoinKind::LeftOuter,
        JoinKind::RightOuter,
        JoinKind::FullOuter,
    ];

    pub fn name(self) -> &'static str {
        match self {
            JoinKind::Inner => "inner",
            JoinKind::LeftOuter => "left_outer",
            JoinKind::RightOuter => "right_outer",
            JoinKind::FullOuter => "full_outer",
        }
    }

    /// Whether a left record whose key is not on the right is kept (with
    /// absent right fields) rather than dropped.
    pub fn keeps_left_only(self) -> bool {
        matches!(self, JoinKind::LeftOuter | JoinKind::FullOuter)
    }

    /// Whether a right record whose key is not on the left is kept.
    pub fn keeps_right_only(self) -> bool {
        matches!(self, JoinKind::RightOuter | JoinKind::FullOuter)
    }
}

#[derive(Clone, Debug)]
pub enum OpKind {
    /// Records read from `path` (relative to the program file) or given
    /// inline, fields separated by `delimiter`.
    Source {
        name: String,
        path: Option<String>,
        inline: Option<Vec<String>>,
        delimiter: String,
        /// The fields that hold 32-bit integers (a DataFrame's INT).
        int32: Vec<usize>,
        /// The fields that hold 32-bit floats (a DataFrame's FLOAT).
        float32: Vec<usize>,
    },
    Map {
        udf: String,
    },
    FlatMap {
        udf: String,
    },
    Filter {
        udf: String,
    },
    Reduce {
        udf: String,
    },
    /// `keys`: how many leading fields are the key (1 unless `keys N`).
    ReduceByKey {
        udf: String,
        keys: usize,
    },
    GroupByKey,
    /// A mutant may change `kind` but keeps `fields`: the join then fills an
    /// absent side with default values where the types hold no option.
    Join {
        kind: JoinKind,
        keys: usize,
    },
    Union,
    Distinct,
    Sink {
        name: String,
        path: Option<String>,
    },
}

#[derive(Clone, Debug)]
pub struct DatasetOp {
    pub kind: OpKind,
    pub inputs: Vec<DatasetId>,
    /// Field types of the records this op produces (of its input for sinks).
    pub fields: Vec<Ty>,
    pub loc: Loc,
}

impl DatasetOp {
    /// How many leading fields of the input records key this op: `keys`
    /// of a reduce_by_key or join, 1 for group_by_key.
    pub fn key_fields(&self) -> usize {
        match self.kind {
            OpKind::ReduceByKey { keys, .. } | OpKind::Join { keys, .. } => keys,
            _ => 1,
        }
    }

    /// The op's mnemonic without the dialect prefix (`reduce_by_key`).
    pub fn mnemonic(&self) -> &'static str {
        match self.kind {
            OpKind::Source { .. } => "source",
            OpKind::Map { .. } => "map",
            OpKind::FlatMap { .. } => "flat_map",
            OpKind::Filter { .. } => "filter",
            OpKind::Reduce { .. } => "reduce",
            OpKind::ReduceByKey { .. } => "reduce_by_key",
            OpKind::GroupByKey => "group_by_key",
            OpKind::Join { .. } => "join",
            OpKind::Union => "union",
            OpKind::Distinct => "distinct",
            OpKind::Sink { .. } => "sink",
        }
    }

    pub fn udf(&self) -> Option<&str> {
        match &self.kind {
            OpKind::Map { udf }
            | OpKind::FlatMap { udf }
            | OpKind::Filter { udf }
            | OpKind::Reduce { udf }
            | OpKind::ReduceByKey { udf, .. } => Some(udf),
            _ => None,
        }
    }
}

impl Program {
    /// The strings the program's UDFs and sources name: constants, split
    /// and source delimiters.
    pub fn string_constants(&self) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        for udf in self.udfs.values() {
            udf.body.walk(&mut |op| match &op.kind {
                UdfOp::Const(Const::Str(s)) => {
                    found.insert(s.clone());
                }
                UdfOp::Split { delimiter } => {
                    found.insert(delimiter.clone());
                }
                _ => {}
            });
        }
        for op in &self.ops {
            if let OpKind::Source { delimiter, .. } = &op.kind {
                found.insert(delimiter.clone());
            }
        }
        found
    }

    /// The name that labels op `id` in JDU paths: `filter#3`.
    pub fn op_label(&self, id: DatasetId) -> String {
        format!("{}#{id}", self.ops[id].mnemonic())
    }

    pub fn sources(&self) -> impl Iterator<Item = (DatasetId, &DatasetOp)> {
        self.ops
            .iter()
            .enumerate()
            .filter(|(_, op)| matches!(op.kind, OpKind::Source { .. }))
    }

    /// The ops that consume dataset `id`.
    pub fn consumers(&self, id: DatasetId) -> Vec<DatasetId> {
        (0..self.ops.len())
            .filter(|&c| self.ops[c].inputs.contains(&id))
            .collect()
    }
}

/// An SSA value inside a UDF, numbered densely per UDF.
pub type ValueId = usize;

/// A UDF (`func.func`) in structured form.
#[derive(Clone, Debug)]
pub struct Udf {
    pub name: String,
    pub params: Vec<Ty>,
    pub results: Vec<Ty>,
    pub body: Region,
    /// Number of SSA values, so evaluators can size their environments.
    pub values: usize,
    pub loc: Loc,
}

#[derive(Clone, Debug, Default)]
pub struct Region {
    pub blocks: Vec<Block>,
}

impl Region {
    /// Visits every op of the region and of the regions nested in it, in
    /// order.
    pub fn walk<'a, F: FnMut(&'a Op)>(&'a self, f: &mut F) {
        for block in &self.blocks {
            for op in &block.ops {
                f(op);
                for nested in &op.regions {
                    nested.walk(f);
                }
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub args: Vec<ValueId>,
    pub ops: Vec<Op>,
}

#[derive(Clone, Debug)]
pub struct Op {
    /// Position of the op in its UDF (pre-order), so decision points have
    /// stable names: `to_int#4`.
    pub id: usize,
    pub kind: UdfOp,
    pub operands: Vec<ValueId>,
    pub results: Vec<ValueId>,
    pub regions: Vec<Region>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntBinOp {
    Add,
    Sub,
    Mul,
    /// Signed division, truncating; fails on a zero divisor.
    Div,
    /// Signed remainder; fails on a zero divisor.
    Rem,
    /// `df.floordiv`: Python's `//`, rounding down; fails on a zero divisor.
    FloorDiv,
    /// `df.mod`: Python's `%`, the sign of the divisor; fails on a zero
    /// divisor.
    Mod,
    And,
    Or,
    Xor,
    Max,
    Min,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatBinOp {
    Add,
    Sub,
    Mul,
    /// `arith.divf`: IEEE division (an infinity or NaN on a zero divisor).
    Div,
    /// `df.truediv`: Python's `/`, which fails on a zero divisor.
    TrueDiv,
    Max,
    Min,
}

/// Which ends `df.strip` strips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StripSide {
    Both,
    Left,
    Right,
}

impl StripSide {
    /// In the order of the ODS enum.
    pub const ALL: [StripSide; 3] = [StripSide::Both, StripSide::Left, StripSide::Right];

    pub fn name(self) -> &'static str {
        match self {
            StripSide::Both => "both",
            StripSide::Left => "left",
            StripSide::Right => "right",
        }
    }
}

/// The SQL type `df.sql_cast` casts a string to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SqlCastTarget {
    /// INT: within 32 bits, widened to i64.
    Int,
    /// BIGINT.
    BigInt,
    Double,
    Boolean,
}

impl SqlCastTarget {
    /// In the order of the ODS enum.
    pub const ALL: [SqlCastTarget; 4] = [
        SqlCastTarget::Int,
        SqlCastTarget::BigInt,
        SqlCastTarget::Double,
        SqlCastTarget::Boolean,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SqlCastTarget::Int => "int",
            SqlCastTarget::BigInt => "bigint",
            SqlCastTarget::Double => "double",
            SqlCastTarget::Boolean => "boolean",
        }
    }
}

/// Comparison predicates; integers compare signed, floats ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub const ALL: [Cmp; 6] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

    pub fn holds<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum UdfOp {
    /// `arith.constant`, `df.str_constant`.
    Const(Const),
    IntBin(IntBinOp),
    FloatBin(FloatBinOp),
    /// `arith.negf`.
    FloatNeg,
    CmpInt(Cmp),
    CmpFloat(Cmp),
    /// `arith.select`.
    Select,
    /// `arith.sitofp` i64 -> f64.
    IntToFloat,
    /// `arith.fptosi` f64 -> i64 (truncating).
    FloatToInt,
    /// `arith.extui` i1 -> i64.
    BoolToInt,
    /// `arith.index_cast` between i64 and index: the identity in df.
    IndexCast,
    Split {
        delimiter: String,
    },
    /// `df.split` without a delimiter: Python's `s.split()`, the pieces
    /// between runs of whitespace.
    SplitWhitespace,
    /// `df.regex_split`: Python's `re.split` by a pattern of one character
    /// class (`\W+`).
    RegexSplit {
        pattern: ClassPattern,
    },
    /// `df.regex_find_all`: Python's `re.findall` of such a pattern.
    RegexFindAll {
        pattern: ClassPattern,
    },
    /// `df.csv_row`: the row Python's `csv.reader` reads from one line.
    CsvRow,
    /// Element `index` of a list; fails when the list is too short, or with
    /// `checked` (an `!df.option` result) is absent then.
    Get {
        index: usize,
        checked: bool,
    },
    /// `df.get_at`: element `index` (an operand) of a list, absent past the
    /// end or below 0; always total.
    GetAt,
    Size,
    /// `df.range`: Python's `range(start, stop)` as a list of ints.
    Range,
    /// `df.round`: Spark SQL's `round` (HALF_UP) or, `half_even`,
    /// `bround` of a double at `scale` decimal places.
    Round {
        scale: i64,
        half_even: bool,
    },
    /// Fails when `[start, start + length)` is not inside the string.
    Substr,
    /// `int32`: Integer.parseInt's range (the JVM's `.toInt`). `checked`:
    /// the `!df.option<i64>` form, absent where the parse fails.
    ToInt {
        int32: bool,
        checked: bool,
    },
    /// `checked`: the `!df.option<f64>` form.
    ToFloat {
        checked: bool,
    },
    /// `df.sql_cast`: Spark SQL's cast of a string (ANSI off), absent
    /// where Spark gives NULL; always total.
    SqlCast {
        to: SqlCastTarget,
    },
    ToStr,
    Length,
    Concat,
    Contains,
    StartsWith,
    EndsWith,
    /// `s.find(t)`: the index of the first occurrence, or -1.
    Find,
    /// Every occurrence of the (non-empty) second operand replaced by the
    /// third.
    Replace,
    /// Python's `strip()`, `lstrip()`, `rstrip()` without an argument, or
    /// with `spaces_only` U+0020 alone (Spark SQL's `trim`, `s.strip(" ")`).
    Strip {
        side: StripSide,
        spaces_only: bool,
    },
    Lower,
    Upper,
    StrEq,
    IsPresent,
    ValueOr,
    /// `func.call @callee`.
    Call {
        callee: String,
    },
    /// `scf.if` with the then region first.
    If,
    /// `scf.for %iv = %lb to %ub step %step iter_args(...)`: operands are
    /// lb, ub, step, then the initial iteration values.
    For,
    Yield,
    Return,
    /// `df.raise`: a terminator that fails the UDF with a Python exception
    /// class and an optional message.
    Raise {
        exception: String,
        message: Option<String>,
    },
    /// `cf.br`: successor block index in the enclosing region.
    Br {
        dest: usize,
    },
    /// `cf.cond_br %c, ^t(args), ^f(args)`: operands are the condition, the
    /// `true_args` arguments of `^t`, then those of `^f`.
    CondBr {
        true_dest: usize,
        false_dest: usize,
        true_args: usize,
    },
}

impl UdfOp {
    /// The MLIR-style name used in branch labels and diagnostics.
    pub fn name(&self) -> &'static str {
        match self {
            UdfOp::Const(_) => "constant",
            UdfOp::IntBin(IntBinOp::Div) => "divsi",
            UdfOp::IntBin(IntBinOp::Rem) => "remsi",
            UdfOp::IntBin(IntBinOp::FloorDiv) => "floordiv",
            UdfOp::IntBin(IntBinOp::Mod) => "mod",
            UdfOp::IntBin(_) => "int_op",
            UdfOp::FloatBin(FloatBinOp::TrueDiv) => "truediv",
            UdfOp::FloatBin(_) => "float_op",
            UdfOp::FloatNeg => "negf",
            UdfOp::CmpInt(_) => "cmpi",
            UdfOp::CmpFloat(_) => "cmpf",
            UdfOp::Select => "select",
            UdfOp::IntToFloat => "sitofp",
            UdfOp::FloatToInt => "fptosi",
            UdfOp::BoolToInt => "extui",
            UdfOp::IndexCast => "index_cast",
            UdfOp::Split { .. } | UdfOp::SplitWhitespace => "split",
            UdfOp::RegexSplit { .. } => "regex_split",
            UdfOp::RegexFindAll { .. } => "regex_find_all",
            UdfOp::CsvRow => "csv_row",
            UdfOp::Get { .. } => "get",
            UdfOp::GetAt => "get_at",
            UdfOp::Size => "size",
            UdfOp::Range => "range",
            UdfOp::Round { .. } => "round",
            UdfOp::Substr => "substr",
            UdfOp::ToInt { .. } => "to_int",
            UdfOp::ToFloat { .. } => "to_float",
            UdfOp::SqlCast { .. } => "sql_cast",
            UdfOp::ToStr => "to_str",
            UdfOp::Length => "length",
            UdfOp::Concat => "concat",
            UdfOp::Contains => "contains",
            UdfOp::StartsWith => "starts_with",
            UdfOp::EndsWith => "ends_with",
            UdfOp::Find => "find",
            UdfOp::Replace => "replace",
            UdfOp::Strip { .. } => "strip",
            UdfOp::Lower => "lower",
            UdfOp::Upper => "upper",
            UdfOp::StrEq => "str_eq",
            UdfOp::IsPresent => "is_present",
            UdfOp::ValueOr => "value_or",
            UdfOp::Call { .. } => "call",
            UdfOp::If => "if",
            UdfOp::For => "for",
            UdfOp::Yield => "yield",
            UdfOp::Return => "return",
            UdfOp::Raise { .. } => "raise",
            UdfOp::Br { .. } => "br",
            UdfOp::CondBr { .. } => "cond_br",
        }
    }

    /// Whether this is the total form of a partial op (an `!df.option`
    /// result, absent where the op would fail). The evaluator records
    /// which way it went (`@f:to_int#3=absent`), so the concrete and the
    /// symbolic runs name the same path even when no branch follows.
    pub fn is_checked(&self) -> bool {
        matches!(
            self,
            UdfOp::ToInt { checked: true, .. }
                | UdfOp::ToFloat { checked: true }
                | UdfOp::SqlCast { .. }
                | UdfOp::Get { checked: true, .. }
                | UdfOp::GetAt
        )
    }
}
