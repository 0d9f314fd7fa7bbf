//! The reference interpreter for df programs: Spark's semantics per operator,
//! on records held in memory, recording the JDU path every record follows.
//!
//! A record whose UDF fails (a bad `to_int`, a division by zero) would abort
//! a Spark job; here it is dropped and reported as a [`Failure`], so one run
//! tells everything the data exercises. Callers that want Spark's abort
//! treat a non-empty `failures` as an error.

use std::collections::{hash_map::Entry, BTreeMap, HashMap, HashSet};

use thiserror::Error;

use crate::{
    eval::{Evaluator, Stop},
    host::{self, Host},
    lineage::{render, Lineage, Origin, Step, EMPTY_REDUCE},
    model::{DatasetId, JoinKind, OpKind, Program, Ty},
    value::{Concrete, Key, Value},
};

#[derive(Clone, Debug, Error, PartialEq)]
pub enum Error {
    #[error("{loc}: source \"{name}\" has no data")]
    MissingSource { loc: String, name: String },
    #[error("{loc}: source \"{name}\" record {index} (\"{text}\") {problem}")]
    BadRecord {
        loc: String,
        name: String,
        index: usize,
        text: String,
        problem: String,
    },
    #[error("{loc}: {op}: {message}")]
    Udf {
        loc: String,
        op: String,
        message: String,
    },
}

#[derive(Clone, Debug)]
pub struct Record {
    pub fields: Vec<Value>,
    pub lineage: Lineage,
    pub origins: Vec<Origin>,
}

/// A record reached the end of a JDU path: a sink, a drop or a failure.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    pub branches: Vec<String>,
    pub origins: Vec<Origin>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub loc: String,
    pub op: String,
    pub reason: String,
    /// The Python exception that fails the job, for a `df.host =
    /// "python"` program (`ValueError`); `None` on the JVM.
    pub exception: Option<String>,
    pub origins: Vec<Origin>,
}

#[derive(Clone, Debug, Default)]
pub struct Run {
    /// Per sink, in program order: its name and records.
    pub sinks: Vec<(String, Vec<Vec<Value>>)>,
    pub observations: Vec<Observation>,
    pub failures: Vec<Failure>,
    /// The distinct keys each keyed operator saw (whole records for
    /// distinct), so test generation can keep new records apart from them.
    pub keys: BTreeMap<DatasetId, Vec<Vec<Value>>>,
}

impl Run {
    /// Sink contents as sorted text lines: Spark leaves the order of keyed
    /// results unspecified, so outputs compare as multisets.
    pub fn sink_lines(&self) -> Vec<(String, Vec<String>)> {
        self.sinks
            .iter()
            .map(|(name, records)| {
                let mut lines: Vec<String> = records.iter().map(|r| record_text(r)).collect();
                lines.sort();
                (name.clone(), lines)
            })
            .collect()
    }
}

/// A record as one line: fields separated by commas.
pub fn record_text(fields: &[Value]) -> String {
    let parts: Vec<String> = fields.iter().map(|v| v.to_string()).collect();
    parts.join(",")
}

/// The fields of a source's records that hold 32-bit values.
#[derive(Clone, Copy)]
pub struct Narrow<'a> {
    /// 32-bit integers (a DataFrame's INT): a value beyond is an error.
    pub int32: &'a [usize],
    /// 32-bit floats (a DataFrame's FLOAT): a value reads as the nearest.
    pub float32: &'a [usize],
}

/// Parses the lines of a source into records of `fields`.
pub fn parse_source(
    host: Host,
    loc: &str,
    source: &str,
    lines: &[String],
    delimiter: &str,
    fields: &[Ty],
    narrow: Narrow<'_>,
) -> Result<Vec<Vec<Value>>, Error> {
    let Narrow { int32, float32 } = narrow;
    lines
        .iter()
        .enumerate()
        .map(|(index, text)| {
            let bad = |problem: String| Error::BadRecord {
                loc: loc.into(),
                name: source.into(),
                index,
                text: text.clone(),
                problem,
            };
            let parts: Vec<&str> = if fields.len() == 1 {
                vec![text.as_str()]
            } else {
                text.split(delimiter).collect()
            };
            if parts.len() != fields.len() {
                return Err(bad(format!(
                    "has {} fields separated by \"{delimiter}\", the record type has {}",
                    parts.len(),
                    fields.len()
                )));
            }
            parts
                .iter()
                .zip(fields)
                .enumerate()
                .map(|(i, (part, ty))| {
                    let value = Value::parse(host, part, ty).ok_or_else(|| {
                        bad(format!(
                            "has field #{i} \"{part}\", which is not a valid {ty}"
                        ))
                    })?;
                    match value {
                        Value::Int(v) if int32.contains(&i) && i32::try_from(v).is_err() => {
                            Err(bad(format!(
                                "has field #{i} \"{part}\", which is not a 32-bit integer (an INT)"
                            )))
                        }
                        // What Float.parseFloat reads: the nearest f32.
                        Value::Float(v) if float32.contains(&i) => {
                            Ok(Value::Float(v as f32 as f64))
                        }
                        value => Ok(value),
                    }
                })
                .collect()
        })
        .collect()
}

struct Interp<'p> {
    program: &'p Program,
    eval: Evaluator<'p, Concrete>,
    run: Run,
    /// With `Some(k)`, a group of more than k records gets one step,
    /// `fold{more than k records}`, and its fold's decisions are not
    /// recorded ([`run_collapsed`]).
    collapse_beyond: Option<usize>,
    /// Whether a UDF call's decisions join the record's path (not in a
    /// collapsed fold).
    tracing: bool,
    /// The keys of `run.keys`, hashed, so noting one is not a scan.
    seen_keys: HashMap<DatasetId, HashSet<Vec<Key>>>,
}

/// Runs `program` with the given lines per source name.
pub fn run(program: &Program, inputs: &BTreeMap<String, Vec<String>>) -> Result<Run, Error> {
    run_with(program, inputs, None)
}

/// [`run`], where a group of more than `k` records (a fold, a group, a
/// distinct's duplicates) follows the one step `reduce_by_key#3=fold{more
/// than 2 records}`, without the paths of its records or its fold's
/// decisions: such a path is beyond k whatever it holds, and a group's
/// path is then not as large as the group. This is how coverage of large
/// data is measured, here and on Spark (coco-spark's paths job).
pub fn run_collapsed(
    program: &Program,
    inputs: &BTreeMap<String, Vec<String>>,
    k: usize,
) -> Result<Run, Error> {
    run_with(program, inputs, Some(k))
}

fn run_with(
    program: &Program,
    inputs: &BTreeMap<String, Vec<String>>,
    collapse_beyond: Option<usize>,
) -> Result<Run, Error> {
    let mut interp = Interp {
        program,
        eval: Evaluator::new(&program.udfs, Concrete { host: program.host }),
        run: Run::default(),
        collapse_beyond,
        tracing: true,
        seen_keys: HashMap::new(),
    };
    // A dataset is handed to the last op that reads it, so per-record ops
    // move its records on instead of copying them, and a run holds the live
    // datasets, not every one the program made.
    let mut last_use: Vec<DatasetId> = (0..program.ops.len()).collect();
    for (id, op) in program.ops.iter().enumerate() {
        for &input in &op.inputs {
            last_use[input] = last_use[input].max(id);
        }
    }
    let mut datasets: Vec<Vec<Record>> = Vec::with_capacity(program.ops.len());
    for (id, op) in program.ops.iter().enumerate() {
        let once = |d: DatasetId| op.inputs.iter().filter(|&&i| i == d).count() == 1;
        let mut taken: Vec<Option<Vec<Record>>> = op
            .inputs
            .iter()
            .map(|&d| (last_use[d] == id && once(d)).then(|| std::mem::take(&mut datasets[d])))
            .collect();
        let op_inputs: Vec<Input> = op
            .inputs
            .iter()
            .zip(&mut taken)
            .map(|(&d, owned)| match owned.take() {
                Some(records) => Input::Owned(records),
                None => Input::Shared(&datasets[d]),
            })
            .collect();
        let output = interp.op(id, op_inputs, inputs)?;
        for &input in &op.inputs {
            if last_use[input] == id {
                datasets[input] = Vec::new();
            }
        }
        datasets.push(output);
    }
    Ok(interp.run)
}

/// An op's input dataset: its own when the op is the dataset's last reader.
enum Input<'d> {
    Owned(Vec<Record>),
    Shared(&'d [Record]),
}

impl<'d> Input<'d> {
    fn records(&self) -> &[Record] {
        match self {
            Input::Owned(records) => records,
            Input::Shared(records) => records,
        }
    }

    fn into_records(self) -> Box<dyn Iterator<Item = Record> + 'd> {
        match self {
            Input::Owned(records) => Box::new(records.into_iter()),
            Input::Shared(records) => Box::new(records.iter().cloned()),
        }
    }
}

impl<'p> Interp<'p> {
    fn label(&self, id: DatasetId, class: &str) -> Step {
        Step::Label(format!("{}={class}", self.program.op_label(id)))
    }

    fn terminate(&mut self, record: &Record, last: Vec<Step>) {
        let mut lineage = record.lineage.clone();
        lineage.extend(last);
        self.run.observations.push(Observation {
            branches: render(&lineage),
            origins: record.origins.clone(),
        });
    }

    /// Calls the UDF of op `id`. `Ok(None)` means the record failed; the
    /// failure and its path are recorded.
    fn call(
        &mut self,
        id: DatasetId,
        args: Vec<Value>,
        record: &mut Record,
    ) -> Result<Option<Vec<Value>>, Error> {
        let op = &self.program.ops[id];
        let udf = op.udf().unwrap_or_default();
        let result = self.eval.run(udf, args);
        let prefix = self.program.op_label(id);
        if self.tracing {
            record.lineage.extend(
                self.eval
                    .trace
                    .iter()
                    .map(|t| Step::Label(format!("{prefix}{t}"))),
            );
        }
        match result {
            Ok(values) => Ok(Some(values)),
            Err(Stop::Fail(reason)) => {
                let exception = match self.program.host {
                    Host::Python => self.eval.failed.as_ref().and_then(host::python_exception),
                    Host::Jvm => None,
                };
                self.run.failures.push(Failure {
                    loc: op.loc.clone(),
                    op: format!("{prefix} (@{udf})"),
                    reason,
                    exception: exception.map(String::from),
                    origins: record.origins.clone(),
                });
                self.terminate(record, Vec::new());
                Ok(None)
            }
            Err(Stop::Cut) => unreachable!("the concrete domain has no loop bound"),
            Err(Stop::OutOfFuel { udf: callee, fuel }) => Err(Error::Udf {
                loc: op.loc.clone(),
                op: format!("{prefix} (@{udf})"),
                message: format!(
                    "@{callee} ran more than {fuel} operations on one record; does it loop forever?"
                ),
            }),
            Err(Stop::Error(message)) => Err(Error::Udf {
                loc: op.loc.clone(),
                op: format!("{prefix} (@{udf})"),
                message,
            }),
        }
    }

    fn note_key(&mut self, id: DatasetId, key: &[Value]) {
        let hashed: Vec<Key> = key.iter().map(Value::key).collect();
        if self.seen_keys.entry(id).or_default().insert(hashed) {
            self.run.keys.entry(id).or_default().push(key.to_vec());
        }
    }

    fn op(
        &mut self,
        id: DatasetId,
        op_inputs: Vec<Input>,
        inputs: &BTreeMap<String, Vec<String>>,
    ) -> Result<Vec<Record>, Error> {
        let program = self.program;
        let op = &program.ops[id];
        let input = |i: usize| -> &[Record] { op_inputs[i].records() };
        let mut out = Vec::new();
        match &op.kind {
            OpKind::Source {
                name,
                delimiter,
                int32,
                float32,
                ..
            } => {
                let lines = inputs.get(name).ok_or_else(|| Error::MissingSource {
                    loc: op.loc.clone(),
                    name: name.clone(),
                })?;
                for (index, fields) in parse_source(
                    program.host,
                    &op.loc,
                    name,
                    lines,
                    delimiter,
                    &op.fields,
                    Narrow { int32, float32 },
                )?
                .into_iter()
                .enumerate()
                {
                    out.push(Record {
                        fields,
                        lineage: vec![Step::Label(program.op_label(id))],
                        origins: vec![Origin {
                            source: name.clone(),
                            index,
                        }],
                    });
                }
            }
            OpKind::Map { .. } => {
                for mut record in op_inputs.into_iter().flat_map(Input::into_records) {
                    let args = std::mem::take(&mut record.fields);
                    if let Some(fields) = self.call(id, args, &mut record)? {
                        record.fields = fields;
                        out.push(record);
                    }
                }
            }
            OpKind::Filter { .. } => {
                for mut record in op_inputs.into_iter().flat_map(Input::into_records) {
                    if let Some(keep) = self.call(id, record.fields.clone(), &mut record)? {
                        if keep == [Value::Bool(true)] {
                            record.lineage.push(self.label(id, "pass"));
                            out.push(record);
                        } else {
                            self.terminate(&record, vec![self.label(id, "drop")]);
                        }
                    }
                }
            }
            OpKind::FlatMap { .. } => {
                for mut record in op_inputs.into_iter().flat_map(Input::into_records) {
                    // The elements replace the fields: copying the input
                    // line into each would be quadratic in its length.
                    let args = std::mem::take(&mut record.fields);
                    let Some(result) = self.call(id, args, &mut record)? else {
                        continue;
                    };
                    // Fields before the list repeat on every element.
                    let mut fields = result;
                    let items = match fields.pop() {
                        Some(Value::List(items)) => items,
                        _ => {
                            return Err(Error::Udf {
                                loc: op.loc.clone(),
                                op: program.op_label(id),
                                message: "the UDF must return a list last".into(),
                            })
                        }
                    };
                    if items.is_empty() {
                        self.terminate(&record, vec![self.label(id, "empty")]);
                    }
                    for (j, item) in items.into_iter().enumerate() {
                        let mut element = record.clone();
                        element.fields = fields.iter().cloned().chain([item]).collect();
                        element.lineage.push(self.label(id, &format!("elem{j}")));
                        out.push(element);
                    }
                }
            }
            OpKind::Reduce { .. } => {
                let group: Vec<&Record> = input(0).iter().collect();
                if group.is_empty() {
                    // Spark's RDD.reduce throws on an empty RDD
                    // (UnsupportedOperationException "empty collection";
                    // PySpark: ValueError), which fails the job. That is a
                    // JDU path of its own, which no record follows; where
                    // a record failed before, Spark has failed the job there.
                    if self.run.failures.is_empty() {
                        self.terminate(
                            &Record {
                                fields: Vec::new(),
                                lineage: Lineage::default(),
                                origins: Vec::new(),
                            },
                            vec![self.label(id, EMPTY_REDUCE)],
                        );
                    }
                    self.run.failures.push(Failure {
                        loc: op.loc.clone(),
                        op: "df.reduce".into(),
                        reason: "the dataset is empty (Spark's reduce throws: empty collection)"
                            .into(),
                        // PySpark's RDD.reduce: "Can not reduce() empty RDD".
                        exception: (self.program.host == Host::Python).then(|| "ValueError".into()),
                        origins: Vec::new(),
                    });
                } else if let Some(record) = self.fold(id, &group, None)? {
                    out.push(record);
                }
            }
            OpKind::ReduceByKey { keys, .. } => {
                for group in self.groups(id, input(0)) {
                    let key = group[0].fields[..*keys].to_vec();
                    if let Some(record) = self.fold(id, &group, Some(key))? {
                        out.push(record);
                    }
                }
            }
            OpKind::GroupByKey => {
                for group in self.groups(id, input(0)) {
                    let key = group[0].fields[0].clone();
                    let mut values: Vec<Value> =
                        group.iter().map(|r| r.fields[1].clone()).collect();
                    // In coco's fixed order: Spark's depends on partitioning.
                    values.sort_by(Value::total_cmp);
                    out.push(self.combine(
                        id,
                        &group,
                        "single",
                        "group",
                        vec![key, Value::List(values)],
                    ));
                }
            }
            OpKind::Distinct => {
                let mut groups: Vec<Vec<&Record>> = Vec::new();
                let mut index: HashMap<Vec<Key>, usize> = HashMap::new();
                for record in input(0) {
                    self.note_key(id, &record.fields);
                    let key = record.fields.iter().map(Value::key).collect();
                    group_into(&mut groups, &mut index, key, record);
                }
                for group in groups {
                    let fields = group[0].fields.clone();
                    out.push(self.combine(id, &group, "unique", "duplicate", fields));
                }
            }
            OpKind::Union => {
                for (side, name) in op_inputs.into_iter().zip(["lhs", "rhs"]) {
                    for mut record in side.into_records() {
                        record.lineage.push(self.label(id, name));
                        out.push(record);
                    }
                }
            }
            OpKind::Join { kind, .. } => {
                out = self.join(id, *kind, input(0), input(1));
            }
            OpKind::Sink { name, .. } => {
                let mut records = Vec::new();
                for record in op_inputs.into_iter().flat_map(Input::into_records) {
                    self.terminate(&record, vec![Step::Label(program.op_label(id))]);
                    records.push(record.fields);
                }
                self.run.sinks.push((name.clone(), records));
            }
        }
        Ok(out)
    }

    /// Records of `input` grouped by their key fields, in first-seen order.
    fn groups<'r>(&mut self, id: DatasetId, input: &'r [Record]) -> Vec<Vec<&'r Record>> {
        let keys = self.program.ops[id].key_fields();
        let mut groups: Vec<Vec<&Record>> = Vec::new();
        let mut index: HashMap<Vec<Key>, usize> = HashMap::new();
        for record in input {
            self.note_key(id, &record.fields[..keys]);
            let key = record.fields[..keys].iter().map(Value::key).collect();
            group_into(&mut groups, &mut index, key, record);
        }
        groups
    }

    /// The record standing for a group: one record keeps its lineage plus
    /// the `single` class; several merge under the `many` class.
    fn combine(
        &self,
        id: DatasetId,
        group: &[&Record],
        single: &str,
        many: &str,
        fields: Vec<Value>,
    ) -> Record {
        if let [only] = group {
            let mut record = (*only).clone();
            record.lineage.push(self.label(id, single));
            record.fields = fields;
            return record;
        }
        if let Some(k) = self.collapse_beyond.filter(|&k| group.len() > k) {
            return Record {
                fields,
                lineage: vec![Step::Label(format!(
                    "{}={many}{{more than {k} records}}",
                    self.program.op_label(id)
                ))],
                // The first record's: coverage asks only whether a failure
                // is a record's, and a group's every origin, copied on by
                // each later operator, grows with the data.
                origins: group[0].origins.clone(),
            };
        }
        Record {
            fields,
            lineage: vec![Step::Merge {
                label: format!("{}={many}", self.program.op_label(id)),
                inputs: group.iter().map(|r| r.lineage.clone()).collect(),
            }],
            origins: group.iter().flat_map(|r| r.origins.clone()).collect(),
        }
    }

    /// Folds a group through the op's UDF: `reduce` folds whole records,
    /// `reduce_by_key` (with `key`) the values.
    fn fold(
        &mut self,
        id: DatasetId,
        group: &[&Record],
        key: Option<Vec<Value>>,
    ) -> Result<Option<Record>, Error> {
        // Keyed: the value is every field after the key.
        let values = |r: &Record| match &key {
            Some(key) => r.fields[key.len()..].to_vec(),
            None => r.fields.clone(),
        };
        let mut record = self.combine(id, group, "single", "fold", Vec::new());
        let mut acc = Some(values(group[0]));
        self.tracing = self.collapse_beyond.is_none_or(|k| group.len() <= k);
        let mut calls = group[1..].iter();
        // Until the records run out or a call fails (`acc` is then None).
        let folded = loop {
            let Some(next) = calls.next() else {
                break Ok(());
            };
            let Some(so_far) = acc.take() else {
                break Ok(());
            };
            let mut args = so_far;
            args.extend(values(next));
            match self.call(id, args, &mut record) {
                Ok(result) => acc = result,
                Err(e) => break Err(e),
            }
        };
        self.tracing = true;
        folded?;
        let Some(acc) = acc else {
            return Ok(None);
        };
        record.fields = match key {
            Some(key) => key.into_iter().chain(acc).collect(),
            None => acc,
        };
        Ok(Some(record))
    }

    fn join(
        &mut self,
        id: DatasetId,
        kind: JoinKind,
        left: &[Record],
        right: &[Record],
    ) -> Vec<Record> {
        let op = &self.program.ops[id];
        let (fields, keys) = (&op.fields, op.key_fields());
        let (l_width, r_width) = (left_width(self.program, id), right_width(self.program, id));
        // Output field types of the non-key fields of each side.
        let (l_types, r_types) = (
            &fields[keys..l_width],
            &fields[l_width..l_width + r_width - keys],
        );
        let key_of = |r: &Record| -> Vec<Key> { r.fields[..keys].iter().map(Value::key).collect() };
        let side = |values: Option<&[Value]>, types: &[Ty]| -> Vec<Value> {
            types
                .iter()
                .enumerate()
                .map(|(i, ty)| match (values, ty) {
                    (Some(v), Ty::Option(_)) => match &v[i] {
                        // A mutant keeps option types where the original
                        // join had them.
                        o @ Value::Option(_) => o.clone(),
                        v => Value::Option(Some(Box::new(v.clone()))),
                    },
                    (Some(v), _) => v[i].clone(),
                    (None, Ty::Option(_)) => Value::Option(None),
                    // Only a mutated join leaves a plain field absent.
                    (None, ty) => Value::default_of(ty),
                })
                .collect()
        };
        for r in left.iter().chain(right) {
            self.note_key(id, &r.fields[..keys]);
        }
        // Right records by key, in input order: each left record meets its
        // matches in the order a scan of the right side would.
        let mut by_key: HashMap<Vec<Key>, Vec<usize>> = HashMap::new();
        for (j, r) in right.iter().enumerate() {
            by_key.entry(key_of(r)).or_default().push(j);
        }
        let mut out = Vec::new();
        let mut right_matched = vec![false; right.len()];
        let label = self.program.op_label(id);
        for l in left {
            let mut matched = false;
            for &j in by_key.get(&key_of(l)).into_iter().flatten() {
                let r = &right[j];
                matched = true;
                right_matched[j] = true;
                let mut record_fields = l.fields[..keys].to_vec();
                record_fields.extend(side(Some(&l.fields[keys..]), l_types));
                record_fields.extend(side(Some(&r.fields[keys..]), r_types));
                out.push(Record {
                    fields: record_fields,
                    lineage: vec![Step::Merge {
                        label: format!("{label}=both"),
                        inputs: vec![l.lineage.clone(), r.lineage.clone()],
                    }],
                    origins: l.origins.iter().chain(&r.origins).cloned().collect(),
                });
            }
            if !matched {
                let class = self.label(id, "left-only");
                if kind.keeps_left_only() {
                    let mut record = l.clone();
                    record.fields = l.fields[..keys].to_vec();
                    record.fields.extend(side(Some(&l.fields[keys..]), l_types));
                    record.fields.extend(side(None, r_types));
                    record.lineage.push(class);
                    out.push(record);
                } else {
                    self.terminate(l, vec![class]);
                }
            }
        }
        for (r, matched) in right.iter().zip(right_matched) {
            if matched {
                continue;
            }
            let class = self.label(id, "right-only");
            if kind.keeps_right_only() {
                let mut record = r.clone();
                record.fields = r.fields[..keys].to_vec();
                record.fields.extend(side(None, l_types));
                record.fields.extend(side(Some(&r.fields[keys..]), r_types));
                record.lineage.push(class);
                out.push(record);
            } else {
                self.terminate(r, vec![class]);
            }
        }
        out
    }
}

/// Adds `record` to the group of `key`, a new one at the end if there is
/// none: groups keep first-seen order.
fn group_into<'r, K: std::hash::Hash + Eq>(
    groups: &mut Vec<Vec<&'r Record>>,
    index: &mut HashMap<K, usize>,
    key: K,
    record: &'r Record,
) {
    match index.entry(key) {
        Entry::Occupied(at) => groups[*at.get()].push(record),
        Entry::Vacant(at) => {
            at.insert(groups.len());
            groups.push(vec![record]);
        }
    }
}

/// Number of fields of the left input of join `id` (key included).
pub fn left_width(program: &Program, id: DatasetId) -> usize {
    program.ops[program.ops[id].inputs[0]].fields.len()
}

/// Number of fields of the right input of join `id` (key included).
pub fn right_width(program: &Program, id: DatasetId) -> usize {
    program.ops[program.ops[id].inputs[1]].fields.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DatasetOp;

    fn op(kind: OpKind, inputs: Vec<DatasetId>, fields: Vec<Ty>) -> DatasetOp {
        DatasetOp {
            kind,
            inputs,
            fields,
            loc: "t.mlir:1:1".into(),
        }
    }

    /// Keyed operators over many distinct keys: a scan of every group per
    /// record made this quadratic (minutes at this size in a debug build);
    /// hashed keys keep it linear. Not timed: a regression shows as a test
    /// that takes far longer than its neighbours.
    #[test]
    fn keyed_ops_on_many_keys_keep_input_order() {
        let pair = vec![Ty::Int, Ty::Int];
        let program = Program {
            host: Host::Jvm,
            name: "keys".into(),
            ops: vec![
                op(
                    OpKind::Source {
                        name: "pairs".into(),
                        path: None,
                        inline: None,
                        delimiter: ",".into(),
                        int32: Vec::new(),
                        float32: Vec::new(),
                    },
                    vec![],
                    pair.clone(),
                ),
                op(OpKind::Distinct, vec![0], pair.clone()),
                op(
                    OpKind::Join {
                        kind: JoinKind::Inner,
                        keys: 1,
                    },
                    vec![1, 0],
                    vec![Ty::Int, Ty::Int, Ty::Int],
                ),
                op(
                    OpKind::Sink {
                        name: "out".into(),
                        path: None,
                    },
                    vec![2],
                    vec![Ty::Int, Ty::Int, Ty::Int],
                ),
            ],
            udfs: BTreeMap::new(),
        };
        let n = 20_000;
        // Every key twice: distinct folds the two lines of a key, and the
        // join matches each left record with both right ones, in
        // right-input order.
        let lines: Vec<String> = (0..2 * n)
            .map(|i| format!("{},{}", i % n, i / n * (i % n)))
            .collect();
        let run = run(&program, &BTreeMap::from([("pairs".to_string(), lines)])).unwrap();
        let (_, out) = &run.sinks[0];
        assert_eq!(out.len(), 4 * n - 2);
        let int = |v: usize| Value::Int(v as i64);
        assert_eq!(out[2], [int(1), int(0), int(0)]);
        assert_eq!(out[3], [int(1), int(0), int(1)]);
        assert_eq!(run.keys[&1].len(), 2 * n - 1);
        assert_eq!(run.keys[&2].len(), n);
    }
}
