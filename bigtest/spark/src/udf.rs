//! A UDF as a Python function: one local per SSA value (`v3`), structured
//! ops as Python `if` and `while`, a function with several blocks as a loop
//! over its blocks. Every value op calls the helper in coco_df.py that has
//! its exact semantics, so the function computes what coco's interpreter
//! computes on every input, failures included.
//!
//! Traced ([`Tracing::Paths`], for the coverage job), a function also
//! records the decisions coco's evaluator records (`@f:if#3=then`,
//! `@f:for#5=iter`, `@f:to_int#2=absent`) in `_TRACE`, and names the op it
//! is at in `_AT` before each one that may fail, so that a failure's step
//! (`@f:to_int#2=fail`) is known where it is caught (paths.py).

use coco_dataflow::{
    model::{Const, FloatBinOp, IntBinOp, Op, Region, StripSide, Udf, UdfOp, ValueId},
    text::escape,
};

use crate::{
    python::{float_literal, identifier, str_literal, text},
    writer::Writer,
    ExportError,
};

/// Whether the functions record the JDU path decisions they take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tracing {
    Off,
    Paths,
}

/// The Python name of UDF `name`.
pub fn function_name(name: &str) -> String {
    identifier("udf_", name)
}

fn var(id: ValueId) -> String {
    format!("v{id}")
}

fn vars(ids: &[ValueId]) -> String {
    ids.iter().map(|&id| var(id)).collect::<Vec<_>>().join(", ")
}

/// `a, b = ...` for `targets`, or nothing to assign.
fn assign(w: &mut Writer, targets: &[ValueId], values: &[ValueId]) {
    if targets.is_empty() {
        return;
    }
    w.line(format!("{}, = {},", vars(targets), vars(values)));
}

/// CPython's limits on the nesting inside one function: a body at most 99
/// levels in (its tokenizer's MAXINDENT is 100: "too many levels of
/// indentation") and at most 20 loops inside each other (CO_MAXBLOCKS:
/// "too many statically nested blocks").
const MAX_INDENT: usize = 99;
const MAX_LOOPS: usize = 20;

pub fn emit(udf: &Udf, tracing: Tracing, w: &mut Writer) -> Result<(), ExportError> {
    let cx = Cx { udf, tracing };
    let Some(entry) = udf.body.blocks.first() else {
        return Err(ExportError::Unsupported {
            loc: udf.loc.clone(),
            what: format!("@{} has no body", escape(&udf.name)),
        });
    };
    // The body is `def`'s, or inside `while True:` and `if _block == i:`.
    let (indent, loops) = if udf.body.blocks.len() == 1 {
        (1, 0)
    } else {
        (3, 1)
    };
    check_nesting(udf, &udf.body, indent, loops)?;
    let udf = cx;
    w.line(format!(
        "def {}({}):",
        function_name(&udf.udf.name),
        vars(&entry.args)
    ));
    w.indent();
    w.line(format!(
        "# @{} ({})",
        text(&udf.udf.name),
        text(&udf.udf.loc)
    ));
    if udf.udf.body.blocks.len() == 1 {
        block_ops(udf, &udf.udf.body, 0, w)?;
    } else {
        // cf branches: a loop over the blocks, `_block` naming the next one.
        w.line("_block = 0");
        w.line("while True:");
        w.indent();
        for index in 0..udf.udf.body.blocks.len() {
            w.line(format!("if _block == {index}:"));
            w.indent();
            block_ops(udf, &udf.udf.body, index, w)?;
            w.dedent();
        }
        w.line("raise AssertionError(\"branch to a missing block\")");
        w.dedent();
    }
    w.dedent();
    w.line("");
    Ok(())
}

/// The function being written and how.
#[derive(Clone, Copy)]
struct Cx<'u> {
    udf: &'u Udf,
    tracing: Tracing,
}

impl Cx<'_> {
    /// The evaluator's name of a decision or failure point of `op`
    /// (`@f:to_int#2`, eval.rs).
    fn point(&self, op: &Op, name: &str) -> String {
        format!("@{}:{name}#{}", self.udf.name, op.id)
    }

    /// Records that the function took `step` at `op`'s `name`.
    fn trace(&self, op: &Op, name: &str, step: &str, w: &mut Writer) {
        if self.tracing == Tracing::Paths {
            w.line(format!(
                "_TRACE.append({})",
                str_literal(&format!("{}={step}", self.point(op, name)))
            ));
        }
    }

    /// Names `op` as the one a failure from here on is at.
    fn at(&self, op: &Op, name: &str, w: &mut Writer) {
        if self.tracing == Tracing::Paths {
            w.line(format!("_AT[0] = {}", str_literal(&self.point(op, name))));
        }
    }
}

fn block_ops(udf: Cx, region: &Region, index: usize, w: &mut Writer) -> Result<(), ExportError> {
    for op in &region.blocks[index].ops {
        emit_op(udf, region, op, w)?;
    }
    Ok(())
}

/// Assigns a branch's arguments to `dest`'s block arguments and names it.
fn branch(region: &Region, dest: usize, args: &[ValueId], w: &mut Writer) {
    if let Some(block) = region.blocks.get(dest) {
        assign(w, &block.args, args);
    }
    w.line(format!("_block = {dest}"));
}

fn emit_op(udf: Cx, region: &Region, op: &Op, w: &mut Writer) -> Result<(), ExportError> {
    let operands = &op.operands;
    match &op.kind {
        UdfOp::Return => {
            w.line(format!(
                "return ({}{})",
                vars(operands),
                trailing_comma(operands)
            ));
        }
        UdfOp::Yield => {
            // Handled by the op that owns the region (`if`, `for`).
        }
        UdfOp::Raise { exception, message } => {
            // The reason the interpreter gives: `ValueError: bad line`.
            let reason = match message {
                Some(message) => format!("{exception}: {message}"),
                None => exception.clone(),
            };
            udf.at(op, "raise", w);
            w.line(format!("raise UdfFailure({})", str_literal(&reason)));
        }
        UdfOp::Br { dest } => {
            branch(region, *dest, operands, w);
            w.line("continue");
        }
        UdfOp::CondBr {
            true_dest,
            false_dest,
            true_args,
        } => {
            w.line(format!("if {}:", var(operands[0])));
            w.indent();
            udf.trace(op, "cond_br", "true", w);
            branch(region, *true_dest, &operands[1..1 + true_args], w);
            w.dedent();
            w.line("else:");
            w.indent();
            udf.trace(op, "cond_br", "false", w);
            branch(region, *false_dest, &operands[1 + true_args..], w);
            w.dedent();
            w.line("continue");
        }
        UdfOp::If => {
            w.line(format!("if {}:", var(operands[0])));
            for (i, nested) in op.regions.iter().enumerate() {
                if i == 1 {
                    w.line("else:");
                }
                w.indent();
                udf.trace(op, "if", if i == 0 { "then" } else { "else" }, w);
                structured_body(udf, nested, op, &[], w)?;
                w.dedent();
            }
            if op.regions.len() < 2 {
                w.line("else:");
                w.indent();
                udf.trace(op, "if", "else", w);
                w.line("pass");
                w.dedent();
            }
        }
        UdfOp::For => {
            let body = op.regions.first().and_then(|r| r.blocks.first());
            let Some(body) = body else {
                return Err(unsupported(udf.udf, op, "scf.for without a body"));
            };
            let (iv, iters) = body.args.split_first().unwrap_or((&0, &[]));
            let (lower, upper, step) = (operands[0], operands[1], operands[2]);
            w.line(format!("{} = {}", var(*iv), var(lower)));
            assign(w, iters, &operands[3..]);
            w.line(format!("while {} < {}:", var(*iv), var(upper)));
            w.indent();
            udf.trace(op, "for", "iter", w);
            structured_body(udf, &op.regions[0], op, iters, w)?;
            w.line(format!("{0} = addi({0}, {1})", var(*iv), var(step)));
            w.dedent();
            udf.trace(op, "for", "exit", w);
            assign(w, &op.results, iters);
        }
        UdfOp::Call { callee } => {
            let call = format!("{}({})", function_name(callee), vars(operands));
            if op.results.is_empty() {
                w.line(call);
            } else {
                w.line(format!("{}, = {call}", vars(&op.results)));
            }
        }
        kind => {
            let expr = value_expr(kind, operands).ok_or_else(|| {
                unsupported(udf.udf, op, &format!("{} has no Python form", kind.name()))
            })?;
            let [result] = op.results[..] else {
                return Err(unsupported(udf.udf, op, "a value op with several results"));
            };
            if !matches!(kind, UdfOp::Const(_)) {
                udf.at(op, kind.name(), w);
            }
            w.line(format!("{} = {expr}", var(result)));
            if kind.is_checked() && udf.tracing == Tracing::Paths {
                // The evaluator records whether a checked op found a value.
                let point = udf.point(op, kind.name());
                w.line(format!(
                    "_TRACE.append({} if len({}) == 1 else {})",
                    str_literal(&format!("{point}=present")),
                    var(result),
                    str_literal(&format!("{point}=absent"))
                ));
            }
        }
    }
    Ok(())
}

fn trailing_comma(ids: &[ValueId]) -> &'static str {
    if ids.len() == 1 {
        ","
    } else {
        ""
    }
}

/// The ops of a single-block `scf` region, then its `scf.yield` assigned
/// to `targets` (the loop's carried values) or to `owner`'s results.
fn structured_body(
    udf: Cx,
    region: &Region,
    owner: &Op,
    targets: &[ValueId],
    w: &mut Writer,
) -> Result<(), ExportError> {
    let Some(block) = region.blocks.first() else {
        w.line("pass");
        return Ok(());
    };
    if region.blocks.len() > 1 {
        return Err(unsupported(
            udf.udf,
            owner,
            "an scf region with several blocks",
        ));
    }
    w.line("pass");
    for op in &block.ops {
        emit_op(udf, region, op, w)?;
        if op.kind == UdfOp::Yield {
            let targets = if owner.kind == UdfOp::For {
                targets
            } else {
                &owner.results
            };
            assign(w, targets, &op.operands);
        }
    }
    Ok(())
}

/// Refuses, at the op that crosses it, a nesting Python cannot compile
/// (each structured op's body is one level in, an `scf.for` also a loop).
fn check_nesting(
    udf: &Udf,
    region: &Region,
    indent: usize,
    loops: usize,
) -> Result<(), ExportError> {
    for op in region.blocks.iter().flat_map(|b| &b.ops) {
        if op.regions.is_empty() {
            continue;
        }
        let (indent, loops) = (indent + 1, loops + usize::from(op.kind == UdfOp::For));
        if indent > MAX_INDENT || loops > MAX_LOOPS {
            return Err(unsupported(
                udf,
                op,
                &format!(
                    "nested {indent} levels deep with {loops} loops: a Python function allows \
                     at most {MAX_INDENT} levels and {MAX_LOOPS} loops inside each other"
                ),
            ));
        }
        for nested in &op.regions {
            check_nesting(udf, nested, indent, loops)?;
        }
    }
    Ok(())
}

fn unsupported(udf: &Udf, op: &Op, what: &str) -> ExportError {
    ExportError::Unsupported {
        loc: op.loc.clone(),
        what: format!("@{}: {what}", escape(&udf.name)),
    }
}

/// The Python expression of a value op on `args`.
fn value_expr(kind: &UdfOp, args: &[ValueId]) -> Option<String> {
    let a = |i: usize| args.get(i).map(|&id| var(id)).unwrap_or_default();
    let call = |helper: &str| format!("{helper}({})", vars(args));
    Some(match kind {
        UdfOp::Const(Const::Int(v)) => v.to_string(),
        UdfOp::Const(Const::Float(v)) => float_literal(*v),
        UdfOp::Const(Const::Bool(v)) => if *v { "True" } else { "False" }.into(),
        UdfOp::Const(Const::Str(v)) => str_literal(v),
        UdfOp::IntBin(op) => call(match op {
            IntBinOp::Add => "addi",
            IntBinOp::Sub => "subi",
            IntBinOp::Mul => "muli",
            IntBinOp::Div => "divsi",
            IntBinOp::Rem => "remsi",
            IntBinOp::FloorDiv => "floordiv",
            IntBinOp::Mod => "mod",
            IntBinOp::And => "andi",
            IntBinOp::Or => "ori",
            IntBinOp::Xor => "xori",
            IntBinOp::Max => "maxi",
            IntBinOp::Min => "mini",
        }),
        UdfOp::FloatBin(FloatBinOp::Add) => format!("({} + {})", a(0), a(1)),
        UdfOp::FloatBin(FloatBinOp::Sub) => format!("({} - {})", a(0), a(1)),
        UdfOp::FloatBin(FloatBinOp::Mul) => format!("({} * {})", a(0), a(1)),
        UdfOp::FloatBin(FloatBinOp::Div) => call("divf"),
        UdfOp::FloatBin(FloatBinOp::TrueDiv) => call("truediv"),
        UdfOp::FloatBin(FloatBinOp::Max) => call("maxf"),
        UdfOp::FloatBin(FloatBinOp::Min) => call("minf"),
        UdfOp::FloatNeg => format!("(-{})", a(0)),
        UdfOp::CmpInt(cmp) => format!("cmpi(\"{}\", {}, {})", cmp.name(), a(0), a(1)),
        UdfOp::CmpFloat(cmp) => format!("cmpf(\"{}\", {}, {})", cmp.name(), a(0), a(1)),
        UdfOp::Select => format!("({} if {} else {})", a(1), a(0), a(2)),
        UdfOp::IntToFloat => format!("float({})", a(0)),
        UdfOp::FloatToInt => call("fptosi"),
        UdfOp::BoolToInt => format!("int({})", a(0)),
        UdfOp::IndexCast => a(0),
        UdfOp::Split { delimiter } => format!("split({}, {})", a(0), str_literal(delimiter)),
        UdfOp::SplitWhitespace => format!("tuple({}.split())", a(0)),
        UdfOp::RegexSplit { pattern } | UdfOp::RegexFindAll { pattern } => format!(
            "tuple(re.{}({}, {}{}))",
            if matches!(kind, UdfOp::RegexSplit { .. }) {
                "split"
            } else {
                "findall"
            },
            str_literal(&pattern.source),
            a(0),
            if pattern.ascii {
                ", flags=re.ASCII"
            } else {
                ""
            }
        ),
        UdfOp::CsvRow => call("csv_row"),
        UdfOp::Get {
            index,
            checked: false,
        } => format!("get({}, {index})", a(0)),
        UdfOp::Get {
            index,
            checked: true,
        } => format!("get_or_none({}, {index})", a(0)),
        UdfOp::GetAt => format!("get_at_or_none({}, {})", a(0), a(1)),
        UdfOp::Size => format!("len({})", a(0)),
        UdfOp::Range => format!("list(range({}, {}))", a(0), a(1)),
        UdfOp::Round { scale, half_even } => format!(
            "sql_round({}, {scale}, {})",
            a(0),
            if *half_even { "True" } else { "False" }
        ),
        UdfOp::Substr => call("substr"),
        UdfOp::ToInt { int32, checked } => format!(
            "{}({}, {})",
            if *checked { "to_int_or_none" } else { "to_int" },
            a(0),
            if *int32 { "True" } else { "False" }
        ),
        UdfOp::ToFloat { checked: false } => call("to_float"),
        UdfOp::ToFloat { checked: true } => call("to_float_or_none"),
        UdfOp::SqlCast { to } => format!("sql_cast_or_none({}, \"{}\")", a(0), to.name()),
        UdfOp::ToStr => call("to_str"),
        UdfOp::Length => call("length"),
        UdfOp::Concat => format!("({} + {})", a(0), a(1)),
        UdfOp::Contains => format!("({} in {})", a(1), a(0)),
        UdfOp::StartsWith => format!("{}.startswith({})", a(0), a(1)),
        UdfOp::EndsWith => format!("{}.endswith({})", a(0), a(1)),
        UdfOp::Find => call("find"),
        UdfOp::Replace => call("replace"),
        // Python-only ops (the verifier refuses them under df.host = "jvm",
        // except a strip of spaces).
        UdfOp::Strip { side, spaces_only } => format!(
            "{}.{}({})",
            a(0),
            match side {
                StripSide::Both => "strip",
                StripSide::Left => "lstrip",
                StripSide::Right => "rstrip",
            },
            if *spaces_only { "\" \"" } else { "" }
        ),
        UdfOp::Lower => format!("{}.lower()", a(0)),
        UdfOp::Upper => format!("{}.upper()", a(0)),
        UdfOp::StrEq => format!("({} == {})", a(0), a(1)),
        UdfOp::IsPresent => format!("(len({}) == 1)", a(0)),
        UdfOp::ValueOr => call("value_or"),
        UdfOp::Call { .. }
        | UdfOp::If
        | UdfOp::For
        | UdfOp::Yield
        | UdfOp::Return
        | UdfOp::Raise { .. }
        | UdfOp::Br { .. }
        | UdfOp::CondBr { .. } => return None,
    })
}
