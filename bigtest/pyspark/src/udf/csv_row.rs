//! Python's `csv.reader` in jobs: the row of one line of text, as
//! `df.csv_row`. A UDF writes it `next(csv.reader([line]))` (or `reader`
//! from `from csv import reader`); a job's
//! `lines.mapPartitions(csv.reader)` (or `lambda part: reader(part)`,
//! `list(reader(part))`) reads each line of the partition on its own,
//! which `job.rs` turns into a map whose UDF calls [`CSV_ROW`].

use super::{Lowering, Scope};
use crate::{
    error::{unsupported, Result},
    ir::{Ty, TyText},
    shape::PyVal,
    syntax::Node,
};

/// The name of the synthetic call of the row of one line that
/// `mapPartitions(csv.reader)` becomes: no Python name has a space, so no
/// job's code can call it.
pub const CSV_ROW: &str = "csv row";

impl Scope {
    /// Whether `func` names `csv.reader` (`csv.reader`, or `reader` from
    /// `from csv import reader`), and `shadowed` does not rebind it.
    pub fn is_csv_reader(&self, func: &Node, shadowed: &dyn Fn(&str) -> bool) -> bool {
        if let Some(name) = func.name() {
            return !shadowed(&name) && self.imported_from("csv", &name) == Some("reader");
        }
        func.is("Attribute")
            && func.str("attr").as_deref() == Some("reader")
            && func
                .expect("value")
                .name()
                .is_some_and(|m| !shadowed(&m) && self.imported_from("csv", &m) == Some(""))
    }

    /// Whether `f`, passed to `mapPartitions`, reads each line's csv row:
    /// `csv.reader`, `lambda part: reader(part)`, `lambda part:
    /// list(reader(part))`.
    pub fn reads_csv_rows(&self, f: &Node) -> bool {
        let none = |_: &str| false;
        if self.is_csv_reader(f, &none) {
            return true;
        }
        if !f.is("Lambda") {
            return false;
        }
        let [param] = &f.param_names()[..] else {
            return false;
        };
        let mut body = f.expect("body");
        if body.is("Call")
            && body.expect("func").name().as_deref() == Some("list")
            && body.list("args").len() == 1
        {
            body = body.list("args")[0].clone();
        }
        body.is("Call")
            && self.is_csv_reader(&body.expect("func"), &|n| n == param)
            && body.list("keywords").is_empty()
            && matches!(&body.list("args")[..], [arg] if arg.name().as_deref() == Some(param.as_str()))
    }
}

impl Lowering<'_> {
    /// `call` when it reads a csv row; `None` when it does not.
    pub(super) fn csv_call(&mut self, call: &Node) -> Result<Option<PyVal>> {
        let func = call.expect("func");
        let args = call.list("args");
        let shadowed = |name: &str| self.env.contains_key(name);
        let line = match func.name().as_deref() {
            Some(CSV_ROW) => args.first().cloned(),
            Some("next") if !shadowed("next") => match &args[..] {
                [inner]
                    if inner.is("Call")
                        && self.scope.is_csv_reader(&inner.expect("func"), &shadowed) =>
                {
                    if !inner.list("keywords").is_empty() {
                        return unsupported(
                            &inner.loc,
                            "csv.reader with a dialect or format parameters is not supported in a UDF (the default dialect is)",
                        );
                    }
                    match &inner.list("args")[..] {
                        [lines] if lines.is("List") && lines.list("elts").len() == 1 => {
                            Some(lines.list("elts")[0].clone())
                        }
                        _ => {
                            return unsupported(
                                &inner.loc,
                                "csv.reader in a UDF is read as next(csv.reader([line])), the row of one line",
                            )
                        }
                    }
                }
                _ => None,
            },
            _ => None,
        };
        let Some(line) = line else {
            if call.is("Call") && self.scope.is_csv_reader(&func, &shadowed) {
                return unsupported(
                    &call.loc,
                    "csv.reader in a UDF is read as next(csv.reader([line])), the row of one line; for the lines of a partition, rdd.mapPartitions(csv.reader)",
                );
            }
            return Ok(None);
        };
        let s = self.scalar(&line, "csv.reader")?;
        self.check_str(&s, &line)?;
        Ok(Some(PyVal::Scalar(self.f.op(
            format!("df.csv_row {} : !df.list<!df.str>", s.name),
            Ty::str_list(),
            &call.loc,
        ))))
    }
}
