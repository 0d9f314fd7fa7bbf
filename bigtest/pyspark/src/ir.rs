//! The df MLIR the front end writes: typed SSA values and blocks of one
//! function at a time, each op with the Python location it came from. The
//! only place that knows the textual syntax of the ops it emits.

use std::fmt::Write;

use crate::error::Loc;

/// The type of a UDF value: the df model's own.
pub use coco_dataflow::model::Ty;

/// How the front end writes and names a [`Ty`].
pub trait TyText {
    /// A split's type.
    fn str_list() -> Self;
    fn is_list(&self) -> bool;
    /// The MLIR type (`!df.list<!df.str>`).
    fn mlir(&self) -> String;
    /// How Python calls a value of this type, for diagnostics.
    fn python(&self) -> &'static str;
}

impl TyText for Ty {
    fn str_list() -> Ty {
        Ty::List(Box::new(Ty::Str))
    }

    fn is_list(&self) -> bool {
        matches!(self, Ty::List(_))
    }

    fn mlir(&self) -> String {
        self.to_string()
    }

    fn python(&self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Float => "float",
            Ty::Bool => "bool",
            Ty::Str => "str",
            Ty::List(_) => "list",
            Ty::Option(_) => "optional value",
        }
    }
}

/// An SSA value of the function being written.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub name: String,
    pub ty: Ty,
}

pub type BlockId = usize;

#[derive(Clone, Default)]
struct Block {
    args: Vec<Value>,
    lines: Vec<String>,
    terminated: bool,
    successors: Vec<BlockId>,
}

/// One `func.func` under construction.
#[derive(Clone)]
pub struct Function {
    name: String,
    params: Vec<Value>,
    results: Option<Vec<Ty>>,
    blocks: Vec<Block>,
    current: BlockId,
    next: usize,
    loc: Loc,
}

/// A string as an MLIR (and JSON-compatible) string literal.
pub fn string_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\{:02X}", c as u32);
            }
            c => {
                let mut buf = [0u8; 4];
                for byte in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\{byte:02X}");
                }
            }
        }
    }
    out.push('"');
    out
}

impl Function {
    pub fn new(name: &str, params: &[Ty], loc: &Loc) -> Function {
        let params: Vec<Value> = params
            .iter()
            .enumerate()
            .map(|(i, ty)| Value {
                name: format!("%arg{i}"),
                ty: ty.clone(),
            })
            .collect();
        Function {
            name: name.to_string(),
            params,
            results: None,
            blocks: vec![Block::default()],
            current: 0,
            next: 0,
            loc: loc.clone(),
        }
    }

    pub fn params(&self) -> &[Value] {
        &self.params
    }

    pub fn results(&self) -> Option<&[Ty]> {
        self.results.as_deref()
    }

    pub fn set_results(&mut self, results: Vec<Ty>) {
        self.results = Some(results);
    }

    fn fresh(&mut self, ty: Ty) -> Value {
        let value = Value {
            name: format!("%{}", self.next),
            ty,
        };
        self.next += 1;
        value
    }

    /// Whether the current block has its terminator: code after a
    /// `return` is unreachable and not written.
    pub fn terminated(&self) -> bool {
        self.blocks[self.current].terminated
    }

    fn line(&mut self, text: String, loc: &Loc) {
        let block = &mut self.blocks[self.current];
        if !block.terminated {
            block.lines.push(format!("  {text} {}", loc.mlir()));
        }
    }

    /// An op with one result of type `ty`: `text` is everything after `=`.
    pub fn op(&mut self, text: String, ty: Ty, loc: &Loc) -> Value {
        let value = self.fresh(ty);
        self.line(format!("{} = {text}", value.name), loc);
        value
    }

    pub fn int(&mut self, value: i64, loc: &Loc) -> Value {
        self.op(format!("arith.constant {value} : i64"), Ty::Int, loc)
    }

    pub fn float(&mut self, value: f64, loc: &Loc) -> Value {
        // Hexadecimal bits: exact, and MLIR's decimal form needs a point
        // Rust's shortest printing may not write.
        self.op(
            format!("arith.constant 0x{:016X} : f64", value.to_bits()),
            Ty::Float,
            loc,
        )
    }

    pub fn bool(&mut self, value: bool, loc: &Loc) -> Value {
        self.op(format!("arith.constant {value}"), Ty::Bool, loc)
    }

    pub fn str(&mut self, value: &str, loc: &Loc) -> Value {
        self.op(
            format!("df.str_constant {}", string_literal(value)),
            Ty::Str,
            loc,
        )
    }

    /// `arith.<op> %a, %b : T` with a result of `a`'s type (or `ty`).
    pub fn binary(&mut self, op: &str, a: &Value, b: &Value, ty: Ty, loc: &Loc) -> Value {
        self.op(
            format!("arith.{op} {}, {} : {}", a.name, b.name, a.ty.mlir()),
            ty,
            loc,
        )
    }

    /// `df.<op> %a, %b` (string ops with two operands).
    pub fn df2(&mut self, op: &str, a: &Value, b: &Value, ty: Ty, loc: &Loc) -> Value {
        self.op(format!("df.{op} {}, {}", a.name, b.name), ty, loc)
    }

    pub fn select(&mut self, cond: &Value, a: &Value, b: &Value, loc: &Loc) -> Value {
        self.op(
            format!(
                "arith.select {}, {}, {} : {}",
                cond.name,
                a.name,
                b.name,
                a.ty.mlir()
            ),
            a.ty.clone(),
            loc,
        )
    }

    pub fn call(&mut self, callee: &str, args: &[Value], results: &[Ty], loc: &Loc) -> Vec<Value> {
        let values: Vec<Value> = results.iter().map(|ty| self.fresh(ty.clone())).collect();
        let names = |vs: &[Value]| {
            vs.iter()
                .map(|v| v.name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let types = |ts: Vec<String>| ts.join(", ");
        let call = format!(
            "func.call @{callee}({}) : ({}) -> ({})",
            names(args),
            types(args.iter().map(|v| v.ty.mlir()).collect()),
            types(results.iter().map(Ty::mlir).collect())
        );
        let text = if values.is_empty() {
            call
        } else {
            format!("{} = {call}", names(&values))
        };
        self.line(text, loc);
        values
    }

    /// A new block with arguments of `types`; the current block stays.
    pub fn block(&mut self, types: &[Ty]) -> (BlockId, Vec<Value>) {
        let args: Vec<Value> = types.iter().map(|ty| self.fresh(ty.clone())).collect();
        self.blocks.push(Block {
            args: args.clone(),
            ..Block::default()
        });
        (self.blocks.len() - 1, args)
    }

    pub fn switch_to(&mut self, block: BlockId) {
        self.current = block;
    }

    fn terminate(&mut self, text: String, loc: &Loc) {
        self.line(text, loc);
        self.blocks[self.current].terminated = true;
    }

    fn successor(&self, block: BlockId, args: &[Value]) -> String {
        if args.is_empty() {
            format!("^bb{block}")
        } else {
            let names: Vec<&str> = args.iter().map(|v| v.name.as_str()).collect();
            let types: Vec<String> = args.iter().map(|v| v.ty.mlir()).collect();
            format!("^bb{block}({} : {})", names.join(", "), types.join(", "))
        }
    }

    pub fn br(&mut self, block: BlockId, args: &[Value], loc: &Loc) {
        if self.terminated() {
            return;
        }
        self.blocks[self.current].successors.push(block);
        let text = format!("cf.br {}", self.successor(block, args));
        self.terminate(text, loc);
    }

    pub fn cond_br(
        &mut self,
        cond: &Value,
        then: (BlockId, &[Value]),
        otherwise: (BlockId, &[Value]),
        loc: &Loc,
    ) {
        if self.terminated() {
            return;
        }
        let successors = &mut self.blocks[self.current].successors;
        successors.extend([then.0, otherwise.0]);
        let text = format!(
            "cf.cond_br {}, {}, {}",
            cond.name,
            self.successor(then.0, then.1),
            self.successor(otherwise.0, otherwise.1)
        );
        self.terminate(text, loc);
    }

    pub fn ret(&mut self, values: &[Value], loc: &Loc) {
        let text = if values.is_empty() {
            "func.return".to_string()
        } else {
            let names: Vec<&str> = values.iter().map(|v| v.name.as_str()).collect();
            let types: Vec<String> = values.iter().map(|v| v.ty.mlir()).collect();
            format!("func.return {} : {}", names.join(", "), types.join(", "))
        };
        self.terminate(text, loc);
    }

    /// A terminator of the df dialect (`df.raise "ValueError"`).
    pub fn raise(&mut self, class: &str, loc: &Loc) {
        self.terminate(format!("df.raise {}", string_literal(class)), loc);
    }

    /// Ends the current block for now without a terminator: a `return`
    /// whose values are written once every return's type is known.
    pub fn seal(&mut self) -> BlockId {
        self.blocks[self.current].terminated = true;
        self.current
    }

    /// Reopens a block [`Function::seal`]ed, to write its terminator.
    pub fn reopen(&mut self, block: BlockId) {
        self.blocks[block].terminated = false;
        self.current = block;
    }

    pub fn current(&self) -> BlockId {
        self.current
    }

    /// The function's text. Blocks no branch reaches are left out.
    pub fn finish(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.ty.mlir()))
            .collect();
        let results: Vec<String> = self.results.iter().flatten().map(Ty::mlir).collect();
        let mut out = format!(
            "func.func @{}({}) -> ({}) {{\n",
            self.name,
            params.join(", "),
            results.join(", ")
        );
        let reached = self.reached();
        for (id, block) in self.blocks.iter().enumerate() {
            if !reached[id] {
                continue;
            }
            if id > 0 {
                let args: Vec<String> = block
                    .args
                    .iter()
                    .map(|a| format!("{}: {}", a.name, a.ty.mlir()))
                    .collect();
                if args.is_empty() {
                    let _ = writeln!(out, "^bb{id}:");
                } else {
                    let _ = writeln!(out, "^bb{id}({}):", args.join(", "));
                }
            }
            for line in &block.lines {
                let _ = writeln!(out, "{line}");
            }
        }
        let _ = writeln!(out, "}} {}", self.loc.mlir());
        out
    }

    fn reached(&self) -> Vec<bool> {
        let mut reached = vec![false; self.blocks.len()];
        let mut work = vec![0];
        while let Some(id) = work.pop() {
            if !std::mem::replace(&mut reached[id], true) {
                work.extend(&self.blocks[id].successors);
            }
        }
        reached
    }
}
