//! df programs from MLIR to [`coco_dataflow::model`]: the dataset operators
//! of a program function and, transitively, every UDF they call. Anything
//! the model cannot represent is an error naming the op, so no analysis ever
//! runs on a silently simplified program.

use std::collections::{BTreeMap, HashMap};

use coco_dataflow::{
    host::{Host, HOST_ATTRIBUTE},
    model::{
        Block, ClassPattern, Cmp, Const, DatasetOp, FloatBinOp, IntBinOp, JoinKind, Op, OpKind,
        Program, Region, SqlCastTarget, StripSide, Ty, Udf, UdfOp, ValueId,
    },
};
use coco_dialects::{
    df::{
        ops::{self, is_dataset_op},
        types::{dataset_record, record_fields},
        FieldType,
    },
    ir::{
        as_op, body_ops, float_attr, i64_array_attr, int_attr, location_text, nested_ops, op_name,
        raw_op, str_array_attr, str_attr, symbol_attr,
    },
};
use melior::ir::{
    operation::OperationRef, BlockLike, Location, Operation, RegionLike, Type, TypeLike, Value,
    ValueLike,
};

/// Why a program cannot be analysed, at the op responsible.
pub struct ExtractError<'c> {
    pub location: Location<'c>,
    pub message: String,
}

type Result<'c, T> = std::result::Result<T, ExtractError<'c>>;

fn fail<'c, T>(op: &Operation<'c>, message: impl Into<String>) -> Result<'c, T> {
    Err(ExtractError {
        location: op.location(),
        message: message.into(),
    })
}

/// The functions of `module` that hold dataset operators: the df programs.
pub fn program_functions<'c, 'a>(module: &'a Operation<'c>) -> Vec<OperationRef<'c, 'a>> {
    body_ops(module)
        .into_iter()
        .filter(|f| {
            let f = as_op(f);
            op_name(f) == "func.func"
                && nested_ops(f)
                    .iter()
                    .any(|o| op_name(as_op(o)) == ops::SOURCE)
        })
        .collect()
}

pub fn ty(t: Type) -> Option<Ty> {
    fn convert(f: FieldType) -> Ty {
        match f {
            FieldType::Int => Ty::Int,
            FieldType::Float => Ty::Float,
            FieldType::Bool => Ty::Bool,
            FieldType::Str => Ty::Str,
            FieldType::List(e) => Ty::List(Box::new(convert(*e))),
            FieldType::Option(e) => Ty::Option(Box::new(convert(*e))),
        }
    }
    FieldType::from_type(t).map(convert)
}

fn dataset_fields<'c>(op: &Operation<'c>, value: Value<'c, '_>) -> Result<'c, Vec<Ty>> {
    let Some(record) = dataset_record(value.r#type()) else {
        return fail(
            op,
            format!("expected a !df.dataset, found {}", value.r#type()),
        );
    };
    record_fields(record)
        .into_iter()
        .map(|f| ty(f).ok_or(()))
        .collect::<std::result::Result<_, _>>()
        .or_else(|_| {
            fail(
                op,
                format!("record type {record} has a field BigTest cannot model"),
            )
        })
}

fn raw_key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// Extracts the program in `func`; `module` supplies the UDFs.
pub fn extract<'c>(module: &Operation<'c>, func: &Operation<'c>) -> Result<'c, Program> {
    let name = str_attr(func, "sym_name").unwrap_or_default();
    let functions: HashMap<String, OperationRef> = body_ops(module)
        .into_iter()
        .filter(|f| op_name(as_op(f)) == "func.func")
        .filter_map(|f| str_attr(as_op(&f), "sym_name").map(|n| (n, f)))
        .collect();

    // The verifier has checked the name; a module without it is the JVM's.
    let host = str_attr(module, HOST_ATTRIBUTE)
        .and_then(|h| Host::from_name(&h))
        .unwrap_or_default();
    let mut program = Program {
        host,
        name,
        ops: Vec::new(),
        udfs: BTreeMap::new(),
    };
    let mut datasets: HashMap<usize, usize> = HashMap::new();
    for op in body_ops(func) {
        let op = as_op(&op);
        let op_name = op_name(op);
        if op_name == "func.return" {
            continue;
        }
        if !is_dataset_op(&op_name) {
            return fail(
                op,
                format!("'{op_name}' in program @{} is not a dataset operator; BigTest models df programs whose body holds only df dataset operators", program.name),
            );
        }
        let mut inputs = Vec::new();
        for operand in op.operands() {
            match datasets.get(&raw_key(operand)) {
                Some(&id) => inputs.push(id),
                None => return fail(op, "operand is not a dataset produced in this program"),
            }
        }
        let fields = match op.result(0) {
            Ok(result) => dataset_fields(op, result.into())?,
            Err(_) => dataset_fields(
                op,
                op.operand(0).map_err(|_| ExtractError {
                    location: op.location(),
                    message: "sink without input".into(),
                })?,
            )?,
        };
        let udf = || symbol_attr(op, "udf").unwrap_or_default();
        let key_fields = || {
            int_attr(op, "keys")
                .and_then(|k| usize::try_from(k).ok())
                .unwrap_or(1)
                .max(1)
        };
        let kind = match op_name.as_str() {
            ops::SOURCE => OpKind::Source {
                name: str_attr(op, "name").unwrap_or_default(),
                path: str_attr(op, "path"),
                inline: str_array_attr(op, "records"),
                delimiter: str_attr(op, "delimiter").unwrap_or_default(),
                int32: i64_array_attr(op, "int32")
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|i| usize::try_from(i).ok())
                    .collect(),
                float32: i64_array_attr(op, "float32")
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|i| usize::try_from(i).ok())
                    .collect(),
            },
            ops::MAP => OpKind::Map { udf: udf() },
            ops::FLAT_MAP => OpKind::FlatMap { udf: udf() },
            ops::FILTER => OpKind::Filter { udf: udf() },
            ops::REDUCE => OpKind::Reduce { udf: udf() },
            ops::REDUCE_BY_KEY => OpKind::ReduceByKey {
                udf: udf(),
                keys: key_fields(),
            },
            ops::GROUP_BY_KEY => OpKind::GroupByKey,
            ops::JOIN => OpKind::Join {
                kind: JoinKind::ALL[int_attr(op, "kind")
                    .unwrap_or(0)
                    .clamp(0, JoinKind::ALL.len() as i64 - 1)
                    as usize],
                keys: key_fields(),
            },
            ops::UNION => OpKind::Union,
            ops::DISTINCT => OpKind::Distinct,
            ops::SINK => OpKind::Sink {
                name: str_attr(op, "name").unwrap_or_default(),
                path: str_attr(op, "path"),
            },
            _ => return fail(op, format!("'{op_name}' is not modelled by BigTest")),
        };
        let id = program.ops.len();
        if let Ok(result) = op.result(0) {
            datasets.insert(raw_key(result.into()), id);
        }
        let dataset_op = DatasetOp {
            kind,
            inputs,
            fields,
            loc: location_text(op.location()),
        };
        if let Some(udf) = dataset_op.udf() {
            extract_udf(op.location(), udf, &functions, &mut program.udfs)?;
        }
        program.ops.push(dataset_op);
    }
    Ok(program)
}

/// Adds UDF `name` and every function it calls to `udfs`.
fn extract_udf<'c>(
    user: Location<'c>,
    name: &str,
    functions: &HashMap<String, OperationRef<'c, '_>>,
    udfs: &mut BTreeMap<String, Udf>,
) -> Result<'c, ()> {
    if udfs.contains_key(name) {
        return Ok(());
    }
    let Some(func) = functions.get(name) else {
        return Err(ExtractError {
            location: user,
            message: format!("calls @{name}, which is not a func.func in this module"),
        });
    };
    let func = as_op(func);
    let Some(body) = func.regions().next().filter(|r| r.first_block().is_some()) else {
        return Err(ExtractError {
            location: user,
            message: format!("calls @{name}, an external function without a body; BigTest can only analyse functions it can see"),
        });
    };
    let mut builder = UdfBuilder::default();
    let region = builder.region(&body)?;
    let mut params = Vec::new();
    let mut results = Vec::new();
    if let Some((inputs, outputs)) = coco_dialects::ir::function_signature(func) {
        for t in inputs {
            params.push(
                ty(t).ok_or(()).or_else(|_| {
                    fail(func, format!("parameter type {t} is not a df value type"))
                })?,
            );
        }
        for t in outputs {
            results.push(
                ty(t)
                    .ok_or(())
                    .or_else(|_| fail(func, format!("result type {t} is not a df value type")))?,
            );
        }
    }
    udfs.insert(
        name.to_string(),
        Udf {
            name: name.to_string(),
            params,
            results,
            body: region,
            values: builder.values.len(),
            loc: location_text(func.location()),
        },
    );
    for (callee, call) in builder.callees {
        extract_udf(call, &callee, functions, udfs)?;
    }
    Ok(())
}

#[derive(Default)]
struct UdfBuilder<'c> {
    values: HashMap<usize, ValueId>,
    next_op: usize,
    /// Functions called, with the location of the call.
    callees: Vec<(String, Location<'c>)>,
}

impl<'c> UdfBuilder<'c> {
    fn define(&mut self, value: Value) -> ValueId {
        let id = self.values.len();
        self.values.insert(raw_key(value), id);
        id
    }

    fn region(&mut self, region: &melior::ir::RegionRef<'c, '_>) -> Result<'c, Region> {
        // Block indices first, so branches can name blocks defined later.
        let mut raw_blocks = Vec::new();
        let mut block = region.first_block();
        while let Some(b) = block {
            raw_blocks.push(b);
            block = b.next_in_region();
        }
        let index: HashMap<usize, usize> = raw_blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (b.to_raw().ptr as usize, i))
            .collect();
        let mut blocks = Vec::new();
        for b in &raw_blocks {
            let mut out = Block::default();
            for i in 0..b.argument_count() {
                let arg = b.argument(i).expect("argument index in range");
                out.args.push(self.define(arg.into()));
            }
            // SAFETY: walking the live ops of a block that is not mutated.
            let mut raw = unsafe { mlir_sys::mlirBlockGetFirstOperation(b.to_raw()) };
            while !raw.ptr.is_null() {
                let o = unsafe { OperationRef::from_raw(raw) };
                out.ops.push(self.op(as_op(&o), &index)?);
                raw = unsafe { mlir_sys::mlirOperationGetNextInBlock(raw) };
            }
            blocks.push(out);
        }
        Ok(Region { blocks })
    }

    fn op(&mut self, op: &Operation<'c>, blocks: &HashMap<usize, usize>) -> Result<'c, Op> {
        let id = self.next_op;
        self.next_op += 1;
        let name = op_name(op);
        let mut operands = Vec::new();
        for v in op.operands() {
            match self.values.get(&raw_key(v)) {
                Some(&id) => operands.push(id),
                None => {
                    return fail(
                        op,
                        format!("'{name}' uses a value defined outside its function"),
                    )
                }
            }
        }
        let result_type = op.result(0).ok().map(|r| r.r#type());
        let kind = self.kind(op, &name, result_type, blocks)?;
        let mut regions = Vec::new();
        for region in op.regions() {
            regions.push(self.region(&region)?);
        }
        let results = op.results().map(|r| self.define(r.into())).collect();
        Ok(Op {
            id,
            kind,
            operands,
            results,
            regions,
            loc: location_text(op.location()),
        })
    }

    fn kind(
        &mut self,
        op: &Operation<'c>,
        name: &str,
        result_type: Option<Type<'c>>,
        blocks: &HashMap<usize, usize>,
    ) -> Result<'c, UdfOp> {
        let int_cmp = |p: i64| match p {
            0 => Some(Cmp::Eq),
            1 => Some(Cmp::Ne),
            2 => Some(Cmp::Lt),
            3 => Some(Cmp::Le),
            4 => Some(Cmp::Gt),
            5 => Some(Cmp::Ge),
            _ => None,
        };
        let float_cmp = |p: i64| match p {
            1 => Some(Cmp::Eq),
            2 => Some(Cmp::Gt),
            3 => Some(Cmp::Ge),
            4 => Some(Cmp::Lt),
            5 => Some(Cmp::Le),
            6 => Some(Cmp::Ne),
            _ => None,
        };
        let successor = |i: isize| -> Option<usize> {
            // SAFETY: successor queries on a live terminator.
            unsafe {
                if i >= mlir_sys::mlirOperationGetNumSuccessors(raw_op(op)) {
                    return None;
                }
                let block = mlir_sys::mlirOperationGetSuccessor(raw_op(op), i);
                blocks.get(&(block.ptr as usize)).copied()
            }
        };
        let successor_args = |i: isize| -> usize {
            // SAFETY: as above.
            unsafe {
                let block = mlir_sys::mlirOperationGetSuccessor(raw_op(op), i);
                mlir_sys::mlirBlockGetNumArguments(block) as usize
            }
        };
        // The total form of a partial op has an `!df.option` result.
        let checked = || matches!(result_type.and_then(ty), Some(Ty::Option(_)));
        Ok(match name {
            "arith.constant" => {
                // Loop bounds may be `index`; df models them as i64.
                let t = result_type.and_then(|t| if t.is_index() { Some(Ty::Int) } else { ty(t) });
                match t {
                    Some(Ty::Int) => UdfOp::Const(Const::Int(int_attr(op, "value").unwrap_or(0))),
                    Some(Ty::Bool) => {
                        UdfOp::Const(Const::Bool(int_attr(op, "value").unwrap_or(0) != 0))
                    }
                    Some(Ty::Float) => {
                        UdfOp::Const(Const::Float(float_attr(op, "value").unwrap_or(0.0)))
                    }
                    _ => return fail(op, "constants in UDFs must be i64, f64 or i1"),
                }
            }
            "df.str_constant" => UdfOp::Const(Const::Str(str_attr(op, "value").unwrap_or_default())),
            "arith.addi" => UdfOp::IntBin(IntBinOp::Add),
            "arith.subi" => UdfOp::IntBin(IntBinOp::Sub),
            "arith.muli" => UdfOp::IntBin(IntBinOp::Mul),
            "arith.divsi" => UdfOp::IntBin(IntBinOp::Div),
            "arith.remsi" => UdfOp::IntBin(IntBinOp::Rem),
            "arith.andi" => UdfOp::IntBin(IntBinOp::And),
            "arith.ori" => UdfOp::IntBin(IntBinOp::Or),
            "arith.xori" => UdfOp::IntBin(IntBinOp::Xor),
            "arith.maxsi" => UdfOp::IntBin(IntBinOp::Max),
            "arith.minsi" => UdfOp::IntBin(IntBinOp::Min),
            "arith.addf" => UdfOp::FloatBin(FloatBinOp::Add),
            "arith.subf" => UdfOp::FloatBin(FloatBinOp::Sub),
            "arith.mulf" => UdfOp::FloatBin(FloatBinOp::Mul),
            "arith.divf" => UdfOp::FloatBin(FloatBinOp::Div),
            "arith.maximumf" | "arith.maxnumf" => UdfOp::FloatBin(FloatBinOp::Max),
            "arith.minimumf" | "arith.minnumf" => UdfOp::FloatBin(FloatBinOp::Min),
            "arith.negf" => UdfOp::FloatNeg,
            "arith.cmpi" => match int_attr(op, "predicate").and_then(int_cmp) {
                Some(c) => UdfOp::CmpInt(c),
                None => return fail(op, "unsigned integer comparisons are not modelled by BigTest; df integers are signed"),
            },
            "arith.cmpf" => match int_attr(op, "predicate").and_then(float_cmp) {
                Some(c) => UdfOp::CmpFloat(c),
                None => return fail(op, "only ordered float comparisons (oeq, one, olt, ole, ogt, oge) are modelled by BigTest"),
            },
            "arith.select" => UdfOp::Select,
            "arith.sitofp" => UdfOp::IntToFloat,
            "arith.fptosi" => UdfOp::FloatToInt,
            "arith.extui" => UdfOp::BoolToInt,
            "arith.index_cast" => UdfOp::IndexCast,
            "df.split" => match str_attr(op, "delimiter") {
                Some(delimiter) => UdfOp::Split { delimiter },
                None => UdfOp::SplitWhitespace,
            },
            "df.csv_row" => UdfOp::CsvRow,
            "df.regex_split" | "df.regex_find_all" => {
                let source = str_attr(op, "pattern").unwrap_or_default();
                let pattern = match ClassPattern::parse(&source, op.attribute("ascii").is_ok()) {
                    Ok(pattern) => pattern,
                    Err(e) => return fail(op, e.to_string()),
                };
                if name == "df.regex_split" {
                    UdfOp::RegexSplit { pattern }
                } else {
                    UdfOp::RegexFindAll { pattern }
                }
            }
            "df.get" => UdfOp::Get {
                index: int_attr(op, "index").unwrap_or(0).max(0) as usize,
                checked: checked(),
            },
            "df.get_at" => UdfOp::GetAt,
            "df.size" => UdfOp::Size,
            "df.range" => UdfOp::Range,
            "df.round" => UdfOp::Round {
                scale: int_attr(op, "scale").unwrap_or(0),
                half_even: op.attribute("half_even").is_ok(),
            },
            "df.substr" => UdfOp::Substr,
            "df.to_int" => UdfOp::ToInt {
                int32: op.attribute("int32").is_ok(),
                checked: checked(),
            },
            "df.to_float" => UdfOp::ToFloat { checked: checked() },
            "df.sql_cast" => UdfOp::SqlCast {
                to: SqlCastTarget::ALL[int_attr(op, "target").unwrap_or(0).clamp(0, 3) as usize],
            },
            "df.to_str" => UdfOp::ToStr,
            "df.length" => UdfOp::Length,
            "df.concat" => UdfOp::Concat,
            "df.contains" => UdfOp::Contains,
            "df.starts_with" => UdfOp::StartsWith,
            "df.ends_with" => UdfOp::EndsWith,
            "df.find" => UdfOp::Find,
            "df.replace" => UdfOp::Replace,
            "df.strip" => UdfOp::Strip {
                side: StripSide::ALL[int_attr(op, "side").unwrap_or(0).clamp(0, 2) as usize],
                spaces_only: op.attribute("spaces").is_ok(),
            },
            "df.lower" => UdfOp::Lower,
            "df.upper" => UdfOp::Upper,
            "df.floordiv" => UdfOp::IntBin(IntBinOp::FloorDiv),
            "df.mod" => UdfOp::IntBin(IntBinOp::Mod),
            "df.truediv" => UdfOp::FloatBin(FloatBinOp::TrueDiv),
            "df.raise" => UdfOp::Raise {
                exception: str_attr(op, "exception").unwrap_or_default(),
                message: str_attr(op, "message"),
            },
            "df.str_eq" => UdfOp::StrEq,
            "df.is_present" => UdfOp::IsPresent,
            "df.value_or" => UdfOp::ValueOr,
            "func.call" => {
                let callee = symbol_attr(op, "callee").unwrap_or_default();
                self.callees.push((callee.clone(), op.location()));
                UdfOp::Call { callee }
            }
            "func.return" => UdfOp::Return,
            "scf.yield" => UdfOp::Yield,
            "scf.if" => UdfOp::If,
            "scf.for" => UdfOp::For,
            "cf.br" => UdfOp::Br {
                dest: successor(0).unwrap_or(0),
            },
            "cf.cond_br" => UdfOp::CondBr {
                true_dest: successor(0).unwrap_or(0),
                false_dest: successor(1).unwrap_or(0),
                true_args: successor_args(0),
            },
            "scf.while" => {
                return fail(op, "'scf.while' is a loop whose trip count BigTest cannot bound; use scf.for with bounds")
            }
            other => {
                return fail(op, format!("'{other}' is not modelled by BigTest's symbolic execution of UDFs"))
            }
        })
    }
}
