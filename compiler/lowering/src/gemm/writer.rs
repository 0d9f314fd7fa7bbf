//! SSA names, index constants and indentation for generated GEMM code: the
//! CPU helpers' function bodies and the GPU kernels' launch bodies.

use std::{collections::BTreeSet, fmt::Write as _};

pub(super) struct Writer {
    pub body: String,
    pub depth: usize,
    /// Every name starts with it: code written into a function that
    /// already has names (a `gpu.launch` body) cannot redefine one.
    prefix: String,
    /// Spaces before the body's outermost lines.
    indent: usize,
    constants: BTreeSet<usize>,
    counter: usize,
}

impl Writer {
    /// A writer whose names start with `prefix`, whose outermost lines are
    /// indented by `indent` levels of two spaces, and which defines the
    /// index constants `constants` (and every one [`Writer::index`] asks
    /// for).
    pub fn new(prefix: &str, indent: usize, constants: &[usize]) -> Writer {
        Writer {
            body: String::new(),
            depth: 0,
            prefix: prefix.to_string(),
            indent,
            constants: constants.iter().copied().collect(),
            counter: 0,
        }
    }

    pub fn line(&mut self, text: &str) {
        let _ = writeln!(
            self.body,
            "{}{text}",
            "  ".repeat(self.depth + self.indent + 2)
        );
    }

    pub fn open(&mut self, text: &str) {
        self.line(&format!("{text} {{"));
        self.depth += 1;
    }

    pub fn close(&mut self, text: &str) {
        self.depth -= 1;
        self.line(&format!("}}{text}"));
    }

    pub fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("%{}{prefix}{}", self.prefix, self.counter)
    }

    /// A fresh name defined as `value` (the text after `=`).
    pub fn def(&mut self, prefix: &str, value: &str) -> String {
        let name = self.fresh(prefix);
        self.line(&format!("{name} = {value}"));
        name
    }

    /// Closes a `scf.if`'s then-region and opens its else-region.
    pub fn otherwise(&mut self) {
        self.close(" else {");
        self.depth += 1;
    }

    /// The index constant `n`, defined by [`Writer::constant_lines`].
    pub fn index(&mut self, n: usize) -> String {
        self.constants.insert(n);
        format!("%{}c{n}", self.prefix)
    }

    pub fn op(&mut self, prefix: &str, op: &str, a: &str, b: &str) -> String {
        let r = self.fresh(prefix);
        self.line(&format!("{r} = arith.{op} {a}, {b} : index"));
        r
    }

    pub fn add(&mut self, a: &str, b: &str) -> String {
        self.op("i", "addi", a, b)
    }

    pub fn add_const(&mut self, a: &str, n: usize) -> String {
        if n == 0 {
            return a.to_string();
        }
        let c = self.index(n);
        self.add(a, &c)
    }

    pub fn mul_const(&mut self, a: &str, n: usize) -> String {
        let c = self.index(n);
        self.op("i", "muli", a, &c)
    }

    /// `min(n, bound - start)`: the extent of a block starting at `start`.
    pub fn extent(&mut self, bound: usize, start: &str, block: usize) -> String {
        let bound = self.index(bound);
        let left = self.op("i", "subi", &bound, start);
        let block = self.index(block);
        self.op("n", "minsi", &block, &left)
    }

    /// The definitions of the index constants used, `levels` deep.
    pub fn constant_lines(&self, levels: usize) -> String {
        let pad = "  ".repeat(levels);
        self.constants
            .iter()
            .map(|n| format!("{pad}%{}c{n} = arith.constant {n} : index\n", self.prefix))
            .collect()
    }
}
