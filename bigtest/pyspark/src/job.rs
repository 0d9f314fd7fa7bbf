//! The RDD level of a job: the function under test (parameters are RDDs,
//! the result an RDD or a tuple of them) or the `__main__` script, read
//! statement by statement into df dataset ops. Each RDD operator with a
//! UDF becomes a df op and a function lowered by [`crate::udf`].

use std::collections::{BTreeMap, HashMap};

use crate::{
    error::{unsupported, ImportError, Loc, Result},
    frame::{
        self,
        schema::{self, Column, SqlTy},
        script::{Format, FrameFile},
    },
    ir::{string_literal, Ty, TyText},
    shape::Shape,
    syntax::{Constant, Field, Node},
    udf::{self, describe, Apply, Scope},
};

/// A source of the program: a parameter of the function under test, or a
/// file the script reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The df source's name (the parameter or variable name).
    pub name: String,
    pub shape: Shape,
    /// In a script: the file `sc.textFile` reads, where it is known.
    pub file: Option<FileArg>,
    /// A DataFrame parameter: its schema as the pytest module writes it
    /// (`job.ORDERS_SCHEMA`, or a DDL string literal), to build it with.
    pub schema: Option<String>,
    /// A DataFrame a script reads (`spark.read.csv(path, schema=S)`): the
    /// file's format, options and columns, which a test writes it with.
    pub read: Option<FrameFile>,
}

/// A file a script reads or writes, as its code names it: what a test
/// passes the script to read a case's data and find its output.
#[derive(Clone, Debug, PartialEq)]
pub enum FileArg {
    /// `sys.argv[N]`.
    Argv(usize),
    /// A constant path.
    Path(String),
}

impl FileArg {
    /// `sys.argv[N]` or a string constant; `None` for anything else.
    fn of(node: &Node) -> Option<FileArg> {
        if let Some(path) = node.str_constant() {
            return Some(FileArg::Path(path));
        }
        if !node.is("Subscript") {
            return None;
        }
        let argv = node.expect("value");
        let is_argv = argv.is("Attribute")
            && argv.str("attr").as_deref() == Some("argv")
            && argv.expect("value").name().as_deref() == Some("sys");
        let index = node.child("slice")?;
        match index.constant()? {
            Constant::Int(digits) if is_argv && index.is("Constant") => {
                digits.parse().ok().map(FileArg::Argv)
            }
            _ => None,
        }
    }
}

/// A sink: an RDD the function returns, or one the script saves.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub name: String,
    pub shape: Shape,
    pub delivery: Delivery,
    /// In a script: the folder `saveAsTextFile` writes, where it is known.
    pub file: Option<FileArg>,
    /// A DataFrame a script writes (`df.write.csv(path)`): the files'
    /// format, options and columns, which a test reads them back with.
    pub write: Option<FrameFile>,
    /// A DataFrame a script collects: its columns' names, each record a
    /// `Row` of them.
    pub row_names: Option<Vec<String>>,
}

/// How the function under test hands an output back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// The RDD itself (in a script: the RDD it saves with saveAsTextFile).
    Rdd,
    /// `rdd.collect()`: a list of the records.
    Collect,
    /// `rdd.count()`: the number of records.
    Count,
    /// `rdd.reduce(f)`: the one record left (the job fails with ValueError
    /// on an empty RDD, as Spark does).
    Reduce,
    /// A DataFrame: its rows, as tuples.
    Frame,
    /// What a script prints, a line per record (`for (w, c) in
    /// rdd.collect(): print(w, c)`), in the order collect gives them: the
    /// records, whose lines the test computes with the print's own Python.
    Printed,
}

/// One `print` of a script, in the order the script runs them: what its
/// standard output holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Print {
    /// One `print` of the driver: each argument's Python source, which
    /// the test evaluates (with the counts the job gives in place) and
    /// writes as `print` does, joined by `sep`.
    Line {
        args: Vec<Vec<crate::driver::Source>>,
        sep: String,
    },
    /// A line per record of output `n` (a [`Delivery::Printed`] sink):
    /// `line`'s arguments for it, joined by `sep`; after `take(limit)`, any
    /// `limit` of them.
    Records {
        output: usize,
        sep: String,
        limit: Option<usize>,
        line: crate::driver::PrintLoop,
    },
    /// `df.show(n, truncate)`: the table Spark prints of output `output`'s
    /// rows (the first `rows` of them), each cell cut to `truncate`
    /// characters where it is positive.
    Table {
        output: usize,
        rows: usize,
        truncate: usize,
        columns: Vec<Column>,
    },
    /// The same, whose records are (sort key, record): in the keys' order,
    /// lines of equal keys in any order (Spark sorts each partition as its
    /// records arrive); after `top`/`takeOrdered`/`take`, the first
    /// `limit` in that order.
    Sorted {
        output: usize,
        sep: String,
        ascending: bool,
        limit: Option<usize>,
        line: crate::driver::PrintLoop,
    },
}

/// What the job is, for the pytest module and the reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The function under test; `None` for a `__main__` script.
    pub entry: Option<String>,
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
    /// Whether the function returns a tuple of RDDs (even of one).
    pub returns_tuple: bool,
    /// A script's standard output, print by print.
    pub printed: Vec<Print>,
    /// A script's command-line arguments that name no file, by index `N`
    /// of `sys.argv[N]`: the text the tests pass (a driver loop's count).
    pub arguments: BTreeMap<usize, String>,
}

/// An RDD while the job is read: the df dataset and its records' shape.
#[derive(Clone, Debug)]
struct Rdd {
    value: String,
    shape: Shape,
    /// `Rdd` until an action turns it into a value of the driver.
    delivery: Delivery,
    /// `spark.read.text(path).rdd`: its records are `Row(value=line)`,
    /// read through `.map(lambda r: r[0])`.
    rows: bool,
    /// After `sortByKey`/`sortBy` (and filters): the order Spark gives its
    /// records, which what the script prints of them keeps.
    order: Option<Order>,
    /// `take(n)`, `top(n)`, `takeOrdered(n)`: the driver gets at most `n`
    /// of the records (the first `n` in `order`, or any `n` without one).
    limit: Option<usize>,
    /// `countByValue()`, `countByKey()`: a dict of the driver, whose
    /// `items()` are the (key, count) records.
    dict: bool,
    /// `map(f)` whose records hold a list (`lambda l: l.split(",")`): not
    /// a dataset of its own, since coco's records hold no lists, but `f`
    /// over `value`'s records, joined to the next map, flatMap or filter
    /// (Spark runs such a chain as one function per record anyway).
    pending: Option<Node>,
}

/// A sort of records: by `key`, a function of one record.
#[derive(Clone, Debug)]
struct Order {
    key: Node,
    ascending: bool,
}

/// What a name of the job's code holds.
#[derive(Clone, Debug)]
enum Binding {
    Rdd(Rdd),
    Rdds(Vec<Rdd>),
    /// The SparkContext, a SparkSession, `sys.argv`: used only to read.
    Context,
    /// A value of a script's driver known before the job runs, as its
    /// code: a constant, `sys.argv[1]`, `int(sys.argv[2])`.
    Driver(Node),
    /// `rdd.count()` in a script: the number of records of output `n`.
    Count(usize),
    /// `argparse.ArgumentParser(...)` and the arguments added so far.
    Parser(crate::driver::Arguments),
    /// `parser.parse_args()`: each `args.NAME`.
    Namespace(crate::driver::Arguments),
    /// `spark.read.text(path)` bound to a name: read through its `.rdd`
    /// (rows of lines), or as a DataFrame of one column, `value`.
    TextFrame(Rdd),
    /// A script's DataFrame code: a DataFrame, a Column expression, a
    /// grouped DataFrame.
    Data(frame::Binding),
}

/// RDD operators, to tell the function under test from UDF helpers.
pub const RDD_OPERATORS: [&str; 24] = [
    "map",
    "flatMap",
    "filter",
    "mapValues",
    "flatMapValues",
    "keys",
    "values",
    "reduce",
    "reduceByKey",
    "groupByKey",
    "join",
    "leftOuterJoin",
    "rightOuterJoin",
    "fullOuterJoin",
    "union",
    "distinct",
    "collect",
    "count",
    "saveAsTextFile",
    "cache",
    "persist",
    "repartition",
    "coalesce",
    "textFile",
];

/// Methods of a DataFrame (and of its `groupBy`, `na` and `write`) that no
/// RDD has: a job calling them is DataFrame code. `filter`, `join`,
/// `union`, `distinct` and `count` exist on both and are told apart by
/// their arguments.
pub(crate) const DATAFRAME_METHODS: [&str; 30] = [
    "select",
    "selectExpr",
    "withColumn",
    "withColumns",
    "withColumnRenamed",
    "drop",
    "where",
    "groupBy",
    "groupby",
    "agg",
    "orderBy",
    "sort",
    "dropDuplicates",
    "drop_duplicates",
    "unionByName",
    "unionAll",
    "crossJoin",
    "na",
    "fillna",
    "dropna",
    "alias",
    "toDF",
    "limit",
    "write",
    "show",
    "toPandas",
    "printSchema",
    "createOrReplaceTempView",
    "rollup",
    "cube",
];

/// SparkSession methods that make DataFrames (`spark.read.csv(...)` reaches
/// the reader's method through the session).
const DATAFRAME_SOURCES: [&str; 11] = [
    "read",
    "csv",
    "json",
    "parquet",
    "orc",
    "text",
    "load",
    "table",
    "sql",
    "createDataFrame",
    "readStream",
];

/// The error for DataFrame code at `loc`.
fn dataframe_code<T>(loc: &Loc, what: &str) -> Result<T> {
    unsupported(
        loc,
        format!(
            "{what} is DataFrame code in a job read as RDD code: a DataFrame job is \
             a function whose parameters are annotated DataFrame, each with its schema \
             in a module constant (orders: DataFrame and ORDERS_SCHEMA; docs/pyspark.md)"
        ),
    )
}

pub struct Builder<'s> {
    scope: &'s Scope,
    /// UDF functions written so far.
    pub udfs: Vec<String>,
    udf_names: HashMap<String, usize>,
    /// Every symbol handed out or reserved (the program's): a UDF name
    /// never repeats one (`map_2` of a lambda beside a `def map_2`).
    taken: std::collections::HashSet<String>,
    /// The program function's lines.
    pub lines: Vec<String>,
    next: usize,
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
    /// Inline entry calls in a script, to refuse recursion.
    calls: Vec<String>,
    /// In a script: the arguments its code reads (`sys.argv[1..=argc]`),
    /// which the generated tests pass.
    argc: Option<usize>,
    pub printed: Vec<Print>,
    /// In a script: the names it binds more than once.
    rebound: HashMap<String, Loc>,
    /// The sources of the files read so far: a file read twice is one
    /// source, so both reads see the same lines.
    read_files: Vec<(FileArg, Rdd)>,
    /// See [`Job::arguments`].
    pub arguments: BTreeMap<usize, String>,
    /// A script's module-level statements (what a CSV read by its header
    /// takes its columns' names from).
    script: Vec<Node>,
    /// Each DataFrame (its df value) made by an operator that keeps its
    /// input's columns, with that input (`frame::Reader::names_of`).
    pub(crate) frame_parents: HashMap<String, String>,
    /// The DataFrames (their df values) as a script reads them.
    frames_read: std::collections::HashSet<String>,
    /// DataFrames (their df values) a script collects: their columns'
    /// names, the fields of each Row.
    collected_rows: HashMap<String, Vec<String>>,
}

/// The trips of a driver loop over `range(int(sys.argv[N]))`: what the
/// tests pass as `sys.argv[N]`. Two trips run the loop's body on what its
/// first trip made, as every later trip does.
const CHOSEN_TRIPS: i64 = 2;

/// The most trips of a driver loop coco unrolls: each trip is operators of
/// its own.
const MAX_DRIVER_TRIPS: usize = 16;

/// The `!df.dataset<...>` type of records of `shape`.
pub fn dataset_type(shape: &Shape) -> String {
    let fields: Vec<String> = shape.fields().iter().map(Ty::mlir).collect();
    if fields.len() == 1 {
        format!("!df.dataset<{}>", fields[0])
    } else {
        format!("!df.dataset<tuple<{}>>", fields.join(", "))
    }
}

impl<'s> Builder<'s> {
    pub fn new(scope: &'s Scope) -> Builder<'s> {
        Builder {
            scope,
            udfs: Vec::new(),
            udf_names: HashMap::new(),
            taken: std::collections::HashSet::new(),
            lines: Vec::new(),
            next: 0,
            inputs: Vec::new(),
            outputs: Vec::new(),
            read_files: Vec::new(),
            arguments: BTreeMap::new(),
            script: Vec::new(),
            frame_parents: HashMap::new(),
            frames_read: std::collections::HashSet::new(),
            collected_rows: HashMap::new(),
            calls: Vec::new(),
            argc: None,
            printed: Vec::new(),
            rebound: HashMap::new(),
        }
    }

    fn dataset(&mut self, text: String, shape: Shape, loc: &Loc) -> Rdd {
        let value = format!("%d{}", self.next);
        self.next += 1;
        self.lines
            .push(format!("  {value} = {text} {}", loc.mlir()));
        Rdd {
            value,
            shape,
            delivery: Delivery::Rdd,
            rows: false,
            order: None,
            limit: None,
            dict: false,
            pending: None,
        }
    }

    /// A DataFrame's rows as the records of an RDD.
    fn frame_rdd(&self, frame: &frame::Frame) -> Rdd {
        Rdd {
            value: frame.value.clone(),
            shape: frame::schema::row_shape(&frame.columns),
            delivery: Delivery::Rdd,
            rows: false,
            order: None,
            limit: None,
            dict: false,
            pending: None,
        }
    }

    // ----- what the DataFrame level (crate::frame) writes with ----------

    pub(crate) fn scope(&self) -> &'s Scope {
        self.scope
    }

    /// A fresh UDF name from `base`, which may hold a column's name: made
    /// a plain symbol first, so no name a schema gives can end up as MLIR.
    pub(crate) fn fresh_udf_name(&mut self, base: &str) -> String {
        self.udf_name(&crate::program_name(base))
    }

    /// A dataset op (`text`: everything after `=`); returns its value.
    pub(crate) fn emit(&mut self, text: String, loc: &Loc) -> String {
        self.dataset(text, Shape::Tuple(Vec::new()), loc).value
    }

    /// A DataFrame parameter's source: rows of `shape`, built by the
    /// pytest module with the schema in module constant `schema`.
    /// `int32`: the record fields of the schema's INT columns.
    pub(crate) fn frame_source(
        &mut self,
        name: &str,
        shape: Shape,
        schema: &str,
        narrow: &schema::Narrow,
        loc: &Loc,
    ) -> Result<String> {
        let rdd = self.source_of(name, None, &[], narrow, shape, loc)?;
        if let Some(input) = self.inputs.last_mut() {
            input.schema = Some(schema.to_string());
        }
        Ok(rdd.value)
    }

    /// A DataFrame the function under test returns.
    pub(crate) fn frame_sink(
        &mut self,
        name: &str,
        value: &str,
        shape: Shape,
        loc: &Loc,
    ) -> Result<()> {
        let rdd = Rdd {
            value: value.to_string(),
            shape,
            delivery: Delivery::Frame,
            rows: false,
            order: None,
            limit: None,
            dict: false,
            pending: None,
        };
        self.sink(name, &rdd, loc)
    }

    /// A fresh UDF name from `base` (`parse`, `parse_1`).
    /// The base is made a plain symbol first (a `def` may have a
    /// non-ASCII name).
    fn udf_name(&mut self, base: &str) -> String {
        let base = crate::program_name(base);
        loop {
            let count = self.udf_names.entry(base.clone()).or_insert(0);
            *count += 1;
            let name = if *count == 1 {
                base.clone()
            } else {
                format!("{base}_{}", *count - 1)
            };
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }

    /// Keeps `symbol` (the program function's) from every UDF name.
    pub(crate) fn reserve(&mut self, symbol: &str) {
        self.taken.insert(symbol.to_string());
    }

    /// A source of text lines named `name`: a file, or `inline` records.
    fn source(&mut self, name: &str, path: Option<&str>, loc: &Loc) -> Result<Rdd> {
        self.source_of(
            name,
            path,
            &[],
            &schema::Narrow::default(),
            Shape::Field(Ty::Str),
            loc,
        )
    }

    /// The source `sc.textFile(path)` or `spark.read.text(path)` (`call`)
    /// reads, named `name`.
    fn text_file(
        &mut self,
        name: &str,
        call: &Node,
        env: &BTreeMap<String, Binding>,
    ) -> Result<Rdd> {
        for keyword in call.list("keywords") {
            let value = keyword.expect("value");
            match keyword.str("arg").as_deref() {
                Some("minPartitions") => {}
                Some("use_unicode") if value.constant() == Some(Constant::Bool(true)) => {}
                Some("use_unicode") => {
                    return unsupported(
                        &keyword.loc,
                        "textFile(..., use_unicode=False) gives records of bytes, which coco does not model (lines of text are str)",
                    )
                }
                other => {
                    return unsupported(
                        &keyword.loc,
                        format!("textFile's argument {} is not supported", other.unwrap_or("**")),
                    )
                }
            }
        }
        let arg = call
            .list("args")
            .into_iter()
            .next()
            .map(|a| driver_code(&a, env));
        let file = arg.as_ref().and_then(FileArg::of);
        if let Some((_, rdd)) = self
            .read_files
            .iter()
            .find(|(f, _)| Some(f) == file.as_ref())
        {
            return Ok(rdd.clone());
        }
        let path = arg.as_ref().and_then(Node::str_constant);
        let rdd = self.source(name, path.as_deref(), &call.loc)?;
        if let Some(input) = self.inputs.last_mut() {
            input.file = file.clone();
        }
        if let Some(file) = file {
            self.read_files.push((file, rdd.clone()));
        }
        Ok(rdd)
    }

    /// A parameter's source: records of `shape`, their fields separated by
    /// tabs in the test data.
    fn source_shaped(&mut self, name: &str, shape: Shape, loc: &Loc) -> Result<Rdd> {
        self.source_of(name, None, &[], &schema::Narrow::default(), shape, loc)
    }

    fn source_of(
        &mut self,
        name: &str,
        path: Option<&str>,
        records: &[String],
        narrow: &schema::Narrow,
        shape: Shape,
        loc: &Loc,
    ) -> Result<Rdd> {
        if self.inputs.iter().any(|i| i.name == name) {
            return unsupported(loc, format!("two inputs named {name}"));
        }
        self.inputs.push(Input {
            name: name.to_string(),
            shape: shape.clone(),
            file: None,
            schema: None,
            read: None,
        });
        let origin = match path {
            Some(path) => format!("path {}", string_literal(path)),
            None => {
                let items: Vec<String> = records.iter().map(|r| string_literal(r)).collect();
                format!("inline [{}]", items.join(", "))
            }
        };
        let text = format!(
            "df.source {} {origin} delimiter \"\\t\"{} : {}",
            string_literal(name),
            narrow.attributes(),
            dataset_type(&shape)
        );
        Ok(self.dataset(text, shape, loc))
    }

    fn sink(&mut self, name: &str, rdd: &Rdd, loc: &Loc) -> Result<()> {
        if let Some(f) = &rdd.pending {
            return list_record(&f.loc, "an output");
        }
        if rdd.limit.is_some() {
            return unsupported(
                loc,
                "the records of take(), top() and takeOrdered() are read where a script prints them (`for x in rdd.take(5): print(x)`); return or save the RDD itself",
            );
        }
        if self.outputs.iter().any(|o| o.name == name) {
            return unsupported(loc, format!("two outputs named {name}"));
        }
        self.outputs.push(Output {
            name: name.to_string(),
            shape: rdd.shape.clone(),
            delivery: rdd.delivery,
            file: None,
            write: None,
            row_names: self.collected_rows.get(&rdd.value).cloned(),
        });
        self.lines.push(format!(
            "  df.sink {} {} : {} {}",
            string_literal(name),
            rdd.value,
            dataset_type(&rdd.shape),
            loc.mlir()
        ));
        Ok(())
    }

    // ----- statements of the function under test or the script ----------

    /// Reads `body` with `env` bound; returns what it `return`s.
    fn body(
        &mut self,
        body: &[Node],
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Option<(Binding, Loc)>> {
        for s in body {
            match s.kind.as_str() {
                "Return" => {
                    let Some(value) = s.child("value") else {
                        return unsupported(&s.loc, "the function under test returns its RDDs");
                    };
                    return Ok(Some((self.binding(&value, env)?, s.loc.clone())));
                }
                "Assign" | "AnnAssign" => {
                    // `counts: RDD[Tuple[str, int]] = ...` binds as `=` does;
                    // a bare annotation binds nothing.
                    let Some(value) = s.child("value") else {
                        continue;
                    };
                    let counts = value.is("Call")
                        && value.expect("func").str("attr").as_deref() == Some("count")
                        && value.list("args").is_empty();
                    let binding = if let Some(parsing) = self.argparse(&value, env)? {
                        parsing
                    } else if self.argc.is_some() && is_driver_value(&value, env) {
                        Binding::Driver(driver_code(&value, env))
                    } else if self.argc.is_some()
                        && frame::names::callee(&value).as_deref() == Some("udf")
                    {
                        // `name = F.udf(f, type)`, which DataFrame code calls
                        // (read where it is called, from the module's own
                        // binding).
                        Binding::Driver(value.clone())
                    } else if self.argc.is_some() && frame::script::is_schema(&value) {
                        // `schema = StructType([...])`, which a read takes.
                        Binding::Driver(value.clone())
                    } else if self.argc.is_some() && self.scope.compiles_pattern(&value) {
                        // `WORD = re.compile(r"\w+")`, which UDFs read.
                        Binding::Driver(value.clone())
                    } else if self.argc.is_some() && counts && !is_frame_code(&value, env) {
                        // (A DataFrame's count() is read with its code below:
                        // a GroupedData's count() is no action.)
                        Binding::Count(self.counted(&value, env)?)
                    } else {
                        self.binding(&value, env)?
                    };
                    let targets = if s.is("Assign") {
                        s.list("targets")
                    } else {
                        vec![s.expect("target")]
                    };
                    for target in targets {
                        bind(&target, binding.clone(), env)?;
                    }
                }
                "Expr" => {
                    let value = s.expect("value");
                    if value.str_constant().is_some() {
                        continue;
                    }
                    self.effect(&value, env)?;
                }
                "If" if is_main_guard(&s.expect("test")) => {
                    // Read only as the script (see `script`).
                }
                "If" if self.argc.is_some() => {
                    if let Some(returned) = self.driver_if(s, env)? {
                        return Ok(Some(returned));
                    }
                }
                "For" if self.argc.is_some() && self.is_range(&s.expect("iter")) => {
                    if let Some(returned) = self.range_loop(s, env)? {
                        return Ok(Some(returned));
                    }
                }
                "For" if self.argc.is_some() => self.print_loop(s, env)?,
                "Pass" | "Import" | "ImportFrom" => {}
                other => {
                    return unsupported(
                        &s.loc,
                        format!(
                            "{} are not supported in the job's RDD code (assignments, calls and return are)",
                            udf::statement_name(other)
                        ),
                    )
                }
            }
        }
        Ok(None)
    }

    /// A statement run for its effect: `rdd.saveAsTextFile(path)`,
    /// `sc.stop()`.
    fn effect(&mut self, call: &Node, env: &mut BTreeMap<String, Binding>) -> Result<()> {
        if call.is("Call") {
            let func = call.expect("func");
            if func.is("Attribute") {
                let method = func.str("attr").unwrap_or_default();
                let receiver = func.expect("value");
                if let Some(Binding::Parser(arguments)) =
                    receiver.name().and_then(|name| env.get_mut(&name))
                {
                    if method != "add_argument" {
                        return unsupported(
                            &call.loc,
                            format!("ArgumentParser.{method}() is not supported (add_argument and parse_args are)"),
                        );
                    }
                    return arguments.add(call);
                }
                if let Some(write) = frame::script::writer_call(call)? {
                    return self.write_frame(write, call, env);
                }
                if method == "show" && is_frame_code(&receiver, env) {
                    return self.show(call, &receiver, env);
                }
                if method == "printSchema" && is_frame_code(&receiver, env) {
                    return self.print_schema(call, &receiver, env);
                }
                if let Some(Binding::Data(frame::Binding::Frame(_)) | Binding::TextFrame(_)) =
                    receiver.name().and_then(|name| env.get(&name))
                {
                    return unsupported(
                        &func.attr_loc(),
                        format!(
                            "DataFrame.{method}() in a script is not supported yet: show() the DataFrame, print its count(), or write it (df.write.csv(path)) to have its rows checked"
                        ),
                    );
                }
                if method == "saveAsTextFile" {
                    let rdd = match self.binding(&receiver, env)? {
                        Binding::Rdd(rdd) if rdd.delivery == Delivery::Rdd => rdd,
                        _ => {
                            return unsupported(
                                &receiver.loc,
                                "saveAsTextFile of something that is not an RDD",
                            )
                        }
                    };
                    let name = receiver
                        .name()
                        .unwrap_or_else(|| format!("output_{}", self.outputs.len()));
                    self.sink(&name, &rdd, &call.loc)?;
                    if let Some(output) = self.outputs.last_mut() {
                        output.file = call
                            .list("args")
                            .first()
                            .map(|a| driver_code(a, env))
                            .as_ref()
                            .and_then(FileArg::of);
                    }
                    return Ok(());
                }
                match self.binding(&receiver, env) {
                    Ok(Binding::Context) => return Ok(()), // sc.stop(), sc.setLogLevel(...)
                    // Caching changes no record: `rdd.cache()` alone.
                    Ok(Binding::Rdd(rdd))
                        if rdd.delivery == Delivery::Rdd
                            && matches!(
                                method.as_str(),
                                "cache" | "persist" | "unpersist" | "checkpoint"
                            ) =>
                    {
                        return Ok(())
                    }
                    _ => {}
                }
            }
            // `main()` of a script: its body is the script's code.
            if let Some(def) = func
                .name()
                .filter(|_| self.argc.is_some() && call.list("args").is_empty())
                .and_then(|name| self.scope.defs.get(&name).cloned())
            {
                let name = def.str("name").unwrap_or_default();
                if def.expect("args").list("args").is_empty() {
                    if self.calls.contains(&name) {
                        return unsupported(&call.loc, format!("{name} calls itself"));
                    }
                    self.calls.push(name);
                    // Its own locals; the script's names stay readable.
                    let mut inner = env.clone();
                    let result = self.body(&def.list("body"), &mut inner);
                    self.calls.pop();
                    return result.map(|_| ());
                }
            }
            if func.name().as_deref() == Some("print") {
                if self.argc.is_none() {
                    return unsupported(&call.loc, "print() in the function under test: return the RDD, or read the file as a script (its `__main__` block), whose prints are its output");
                }
                return self.driver_print(call, env);
            }
        }
        unsupported(
            &call.loc,
            format!(
                "{} whose result is dropped: the job's RDD code assigns, returns or saves its RDDs",
                describe(call)
            ),
        )
    }

    /// What an expression of the RDD code holds.
    fn binding(&mut self, e: &Node, env: &mut BTreeMap<String, Binding>) -> Result<Binding> {
        if let Some(name) = e.name() {
            return match env.get(&name) {
                Some(Binding::Driver(code)) => unsupported(
                    &e.loc,
                    format!(
                        "{name} holds {}, a value of the driver, where the job's RDD code needs an RDD",
                        describe(code)
                    ),
                ),
                Some(b) => Ok(b.clone()),
                None if name == "sys" || name == "SparkContext" || name == "SparkSession" => {
                    Ok(Binding::Context)
                }
                None => unsupported(
                    &e.loc,
                    format!("{name} is not an RDD or the SparkContext here"),
                ),
            };
        }
        if e.is("Tuple") {
            let items = e
                .list("elts")
                .iter()
                .map(|item| match self.binding(item, env)? {
                    Binding::Rdd(rdd) => Ok(rdd),
                    _ => unsupported(&item.loc, "a tuple of the RDD code holds RDDs only"),
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(Binding::Rdds(items));
        }
        if e.is("Attribute") && e.str("attr").as_deref() == Some("rdd") {
            let frame = e.expect("value");
            if let Some(rdd) = self.read_text_rows(&frame, env)? {
                return Ok(Binding::Rdd(rdd));
            }
            if let Some(Binding::TextFrame(rdd)) = frame.name().and_then(|n| env.get(&n)) {
                return Ok(Binding::Rdd(rdd.clone()));
            }
        }
        if e.is("Subscript") || e.is("Attribute") {
            // sys.argv[1], spark.sparkContext
            return match self.binding(&e.expect("value"), env)? {
                Binding::Context => Ok(Binding::Context),
                _ => unsupported(
                    &e.loc,
                    format!(
                        "{} of an RDD is not supported in the job's RDD code",
                        describe(e)
                    ),
                ),
            };
        }
        if !e.is("Call") {
            return unsupported(
                &e.loc,
                format!("{} is not supported in the job's RDD code", describe(e)),
            );
        }
        // `sorted(records, key=f, reverse=True)`: the driver's own sort of
        // collected records; `OrderedDict(...)` of it keeps that order.
        if let Some(records) = ordered_dict(e) {
            return match self.binding(&records, env)? {
                Binding::Rdd(rdd) if rdd.delivery == Delivery::Collect && rdd.order.is_some() => {
                    Ok(Binding::Rdd(Rdd { dict: true, ..rdd }))
                }
                _ => unsupported(
                    &e.loc,
                    "OrderedDict() is read of sorted(...) of collected records (`OrderedDict(sorted(counts.items()))`)",
                ),
            };
        }
        if let Some((order, records)) = driver_sort(e)? {
            return match self.binding(&records, env)? {
                Binding::Rdd(rdd) if rdd.delivery == Delivery::Collect => {
                    // sorted() of a dict is of its keys.
                    let rdd = if rdd.dict { self.dict_keys(&rdd, &e.loc) } else { rdd };
                    Ok(Binding::Rdd(Rdd { order: Some(order), ..rdd }))
                }
                _ => unsupported(
                    &e.loc,
                    "sorted() of the driver is read of collected records (`sorted(rdd.collect())`, `sorted(counts.items())`)",
                ),
            };
        }
        // `lines = spark.read.text(path)`, read later through `lines.rdd`.
        if let Some(rdd) = self.read_text_rows(e, env)? {
            return Ok(Binding::TextFrame(rdd));
        }
        if self.argc.is_some() {
            if let Some(read) = frame::script::reader_call(e)? {
                return self.read_frame(read, e, env).map(Binding::Data);
            }
        }
        let func = e.expect("func");
        if let Some(name) = func.name() {
            return self.call_function(&name, e, env);
        }
        if !func.is("Attribute") {
            return unsupported(&func.loc, format!("calling {}", describe(&func)));
        }
        let method = func.str("attr").unwrap_or_default();
        let receiver = self.binding(&func.expect("value"), env)?;
        match receiver {
            Binding::Context => self.context_method(&method, e, env),
            Binding::Rdd(rdd) if method == "toDF" && self.argc.is_some() => {
                self.frame_of_rdd(&rdd, e).map(Binding::Data)
            }
            Binding::Rdd(rdd) => self.operator(&method, rdd, e, env).map(Binding::Rdd),
            Binding::Rdds(_) => unsupported(&e.loc, format!(".{method}() of a tuple of RDDs")),
            // `df.collect()`: the rows, as a list of the driver (Rows,
            // which a loop may index or read by name).
            Binding::Data(frame::Binding::Frame(frame))
                if method == "collect" && e.list("args").is_empty() && self.argc.is_some() =>
            {
                let names = frame.columns.iter().map(|c| c.name.clone()).collect();
                self.collected_rows.insert(frame.value.clone(), names);
                Ok(Binding::Rdd(Rdd {
                    delivery: Delivery::Collect,
                    ..self.frame_rdd(&frame)
                }))
            }
            // `df.count()`: an action, the number of rows of an output.
            Binding::Data(frame::Binding::Frame(frame))
                if method == "count" && e.list("args").is_empty() && self.argc.is_some() =>
            {
                let name = self.udf_name(&format!("count_{}", e.loc.line));
                let loc = func.attr_loc();
                self.frame_sink(
                    &name,
                    &frame.value,
                    frame::schema::row_shape(&frame.columns),
                    &loc,
                )?;
                Ok(Binding::Count(self.outputs.len() - 1))
            }
            data @ (Binding::TextFrame(_) | Binding::Data(_)) if self.argc.is_some() => {
                // The receiver is read once: the method is applied to what
                // it holds, bound to a name no Python code can spell.
                let receiver = func.expect("value");
                let held = "(receiver)";
                let call = e.replace_with(&|n: &Node| {
                    (n.loc == receiver.loc && n.same_code(&receiver))
                        .then(|| Node::make_name(held, &receiver.loc))
                });
                let mut frames = frames_env(env);
                let data = match data {
                    Binding::Data(data) => data,
                    Binding::TextFrame(rdd) => frame::Binding::Frame(text_frame(&rdd)),
                    _ => unreachable!("matched above"),
                };
                frames.insert(held.to_string(), data);
                frame::script::eval(self, frames, &call).map(Binding::Data)
            }
            Binding::TextFrame(_) | Binding::Data(_) => {
                dataframe_code(&e.loc, &format!("{method}() of spark.read.text(...)"))
            }
            Binding::Driver(_) | Binding::Count(_) | Binding::Parser(_) | Binding::Namespace(_) => {
                unsupported(
                    &e.loc,
                    format!(
                        ".{method}() of {}, a value of the driver, in the job's RDD code",
                        describe(&func.expect("value"))
                    ),
                )
            }
        }
    }

    /// A DataFrame a script reads (`read`, of `call`): a source of its rows
    /// as Spark reads the file.
    fn read_frame(
        &mut self,
        read: frame::script::ReadCall,
        call: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<frame::Binding> {
        let loc = call.expect("func").attr_loc();
        if !matches!(self.binding(&read.session, env), Ok(Binding::Context)) {
            return unsupported(
                &read.session.loc,
                format!("{} is not the SparkSession", describe(&read.session)),
            );
        }
        let mut file = read.file;
        file.columns = match (file.format, read.schema) {
            (Format::Text, _) => vec![Column {
                name: "value".into(),
                ty: SqlTy::Str,
                nullable: false,
            }],
            (_, None) if file.header && !file.infer_schema => {
                let columns = frame::script::header_columns(&self.script);
                if columns.is_empty() {
                    return unsupported(
                        &loc,
                        "a CSV read by its header whose columns the script never names: give its schema (schema=\"name STRING, age INT\")",
                    );
                }
                columns
            }
            (_, None) if file.infer_schema => {
                return unsupported(
                    &loc,
                    "a CSV read with inferSchema takes its columns' types from the data, which coco does not model yet: give its schema (schema=\"name STRING, age INT\", or a StructType)",
                )
            }
            (_, None) => {
                return unsupported(
                    &loc,
                    "a CSV read with neither a schema nor a header is not supported yet (Spark names its columns _c0, _c1, ...): give its schema (schema=\"name STRING, age INT\", or a StructType)",
                )
            }
            (_, Some(schema)) => {
                let mut code = driver_code(&schema, env);
                if let Some(value) = code.name().and_then(|n| self.scope.values.get(&n)) {
                    code = value.clone();
                }
                // Spark reads a file's schema as nullable, whatever it says.
                schema::parse(&code)?
                    .into_iter()
                    .map(|c| Column {
                        nullable: true,
                        ..c
                    })
                    .collect()
            }
        };
        let path = driver_code(&read.path, env);
        let file_arg = FileArg::of(&path);
        if file_arg.is_some()
            && self
                .read_files
                .iter()
                .any(|(f, _)| Some(f) == file_arg.as_ref())
        {
            return unsupported(&loc, "a file read twice is not supported for DataFrames: read it once and reuse the DataFrame");
        }
        let name = format!("input_{}", self.inputs.len());
        let shape = frame::schema::row_shape(&file.columns);
        let rdd = self.source_of(
            &name,
            path.str_constant().as_deref(),
            &[],
            &schema::Narrow::of(&file.columns),
            shape,
            &call.loc,
        )?;
        if let Some(input) = self.inputs.last_mut() {
            input.file = file_arg.clone();
            input.read = Some(file.clone());
        }
        if let Some(f) = file_arg {
            self.read_files.push((f, rdd.clone()));
        }
        let frame = frame::script::read_file(self, rdd.value, &file, &name, &call.loc)?;
        self.frames_read.insert(frame.value.clone());
        Ok(frame::Binding::Frame(frame))
    }

    /// `rdd.toDF()`, `rdd.toDF(["a", "b"])`, `rdd.toDF("a", "b")` (`call`).
    fn frame_of_rdd(&mut self, rdd: &Rdd, call: &Node) -> Result<frame::Binding> {
        if rdd.delivery != Delivery::Rdd || rdd.pending.is_some() || rdd.rows {
            return unsupported(
                &call.loc,
                "toDF() of something that is not an RDD of records",
            );
        }
        let mut names = Vec::new();
        for arg in call.list("args") {
            let items = if arg.is("List") || arg.is("Tuple") {
                arg.list("elts")
            } else {
                vec![arg.clone()]
            };
            for item in items {
                match item.str_constant() {
                    Some(name) => names.push(name),
                    None => {
                        return unsupported(&item.loc, "toDF() takes the columns' names as strings")
                    }
                }
            }
        }
        let names = (!names.is_empty()).then_some(names);
        let loc = call.expect("func").attr_loc();
        let frame =
            frame::script::from_records(self, rdd.value.clone(), &rdd.shape, None, names, &loc)?;
        Ok(frame::Binding::Frame(frame))
    }

    /// `spark.createDataFrame(rdd, schema)` of a script (`call`): the
    /// schema a DDL string, a `StructType`, an atomic type (`StringType()`:
    /// one column, `value`) or a list of names (types inferred).
    fn frame_of_records(
        &mut self,
        call: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<frame::Binding> {
        let loc = call.expect("func").attr_loc();
        let args = call.list("args");
        let mut schema = args.get(1).cloned();
        for k in call.list("keywords") {
            match k.str("arg").as_deref() {
                Some("schema") => schema = k.child("value"),
                Some("verifySchema") => {}
                _ => return unsupported(&k.loc, "createDataFrame() takes data and a schema here"),
            }
        }
        let Some(data) = args.first() else {
            return unsupported(&loc, "createDataFrame() without data");
        };
        let rdd = match self.binding(data, env) {
            Ok(Binding::Rdd(rdd)) if rdd.delivery == Delivery::Rdd && rdd.pending.is_none() && !rdd.rows => rdd,
            _ => {
                return unsupported(
                    &data.loc,
                    "createDataFrame() of a list or a pandas DataFrame in a script is not supported yet: coco reads a script's DataFrames from files or from RDDs",
                )
            }
        };
        let (columns, names) = match schema.map(|s| driver_code(&s, env)) {
            None => (None, None),
            Some(list) if list.is("List") => {
                let names = list
                    .list("elts")
                    .iter()
                    .map(Node::str_constant)
                    .collect::<Option<Vec<_>>>();
                match names {
                    Some(names) => (None, Some(names)),
                    None => {
                        return unsupported(
                            &list.loc,
                            "createDataFrame()'s list of column names holds strings",
                        )
                    }
                }
            }
            Some(atomic)
                if schema::SqlTy::from_node(&atomic).is_some() && !atomic.is("Constant") =>
            {
                let ty = schema::SqlTy::from_node(&atomic).unwrap_or(SqlTy::Str);
                (
                    Some(vec![Column {
                        name: "value".into(),
                        ty,
                        nullable: false,
                    }]),
                    None,
                )
            }
            Some(mut code) => {
                if let Some(value) = code.name().and_then(|n| self.scope.values.get(&n)) {
                    code = value.clone();
                }
                (Some(schema::parse(&code)?), None)
            }
        };
        let frame = frame::script::from_records(self, rdd.value, &rdd.shape, columns, names, &loc)?;
        Ok(frame::Binding::Frame(frame))
    }

    /// `df.printSchema()` of a DataFrame as a script reads it: Spark's tree
    /// of its columns, each nullable (Spark reads a file's schema so).
    /// Of other DataFrames it is refused: the nullability Spark's analysis
    /// gives them is not modelled.
    fn print_schema(
        &mut self,
        call: &Node,
        receiver: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<()> {
        let loc = call.expect("func").attr_loc();
        let columns = match self.binding(receiver, env)? {
            Binding::TextFrame(rdd) => text_frame(&rdd).columns,
            Binding::Data(frame::Binding::Frame(frame)) if self.frames_read.contains(&frame.value) => {
                frame.columns
            }
            _ => {
                return unsupported(
                    &loc,
                    "printSchema() of a DataFrame other than one the script reads is not supported yet: the nullability Spark's analysis gives its columns is not modelled",
                )
            }
        };
        if !call.list("args").is_empty() || !call.list("keywords").is_empty() {
            return unsupported(&loc, "printSchema() takes no arguments here");
        }
        let mut tree = String::from("root\n");
        for c in &columns {
            let ty = match c.ty {
                SqlTy::Str => "string",
                SqlTy::Int => "integer",
                SqlTy::Long => "long",
                SqlTy::Float => "float",
                SqlTy::Double => "double",
                SqlTy::Bool => "boolean",
            };
            tree.push_str(&format!(" |-- {}: {ty} (nullable = true)\n", c.name));
        }
        self.printed.push(Print::Line {
            args: vec![vec![crate::driver::Source::Code(
                coco_spark::python::str_literal(&tree),
            )]],
            sep: " ".into(),
        });
        Ok(())
    }

    /// `df.show(n=20, truncate=True)` of a script (`call`, of `receiver`):
    /// an output whose rows the test prints as Spark's table.
    fn show(
        &mut self,
        call: &Node,
        receiver: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<()> {
        let loc = call.expect("func").attr_loc();
        let frame = match self.binding(receiver, env)? {
            Binding::Data(frame::Binding::Frame(frame)) => frame,
            Binding::TextFrame(rdd) => text_frame(&rdd),
            _ => {
                return unsupported(
                    &receiver.loc,
                    format!("{} is not a DataFrame", describe(receiver)),
                )
            }
        };
        let mut rows = 20;
        let mut truncate = 20;
        let number = |node: &Node| match node.constant() {
            Some(Constant::Int(digits)) => digits.parse::<usize>().ok(),
            Some(Constant::Bool(b)) => Some(if b { 20 } else { 0 }),
            _ => None,
        };
        let keywords: Vec<(String, Node)> = call
            .list("keywords")
            .iter()
            .map(|k| (k.str("arg").unwrap_or_default(), k.expect("value")))
            .collect();
        let given: Vec<(String, Node)> = call
            .list("args")
            .into_iter()
            .zip(["n", "truncate", "vertical"])
            .map(|(a, name)| (name.to_string(), a))
            .chain(keywords)
            .collect();
        for (name, value) in given {
            // `df.show(df.count())`: every row.
            let all_rows = name == "n"
                && value.is("Call")
                && value.expect("func").str("attr").as_deref() == Some("count")
                && value.expect("func").expect("value").same_code(receiver);
            if all_rows {
                rows = usize::MAX;
                continue;
            }
            let Some(n) = number(&value) else {
                return unsupported(
                    &value.loc,
                    format!("show()'s {name} is a constant here (or, for n, the DataFrame's own count())"),
                );
            };
            match name.as_str() {
                "n" => rows = n,
                "truncate" => truncate = n,
                "vertical" if n == 0 => {}
                _ => {
                    return unsupported(
                        &value.loc,
                        format!("show({name}=...) is not supported (n and truncate are)"),
                    )
                }
            }
        }
        let name = self.udf_name(&format!("show_{}", call.loc.line));
        self.frame_sink(
            &name,
            &frame.value,
            frame::schema::row_shape(&frame.columns),
            &loc,
        )?;
        self.printed.push(Print::Table {
            output: self.outputs.len() - 1,
            rows,
            truncate,
            columns: frame.columns,
        });
        Ok(())
    }

    /// `df.write...csv(path)` of a script: an output, the rows written.
    fn write_frame(
        &mut self,
        write: frame::script::WriteCall,
        call: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<()> {
        let loc = call.expect("func").attr_loc();
        if self.argc.is_none() {
            return unsupported(
                &loc,
                "DataFrame.write in the function under test: return the DataFrame, or read the file as a script",
            );
        }
        let frame = match self.binding(&write.frame, env)? {
            Binding::Data(frame::Binding::Frame(frame)) => frame,
            Binding::TextFrame(rdd) => text_frame(&rdd),
            _ => {
                return unsupported(
                    &write.frame.loc,
                    format!("{} is not a DataFrame", describe(&write.frame)),
                )
            }
        };
        let mut file = write.file;
        if file.format == Format::Text && !matches!(&frame.columns[..], [c] if c.ty == SqlTy::Str) {
            return unsupported(
                &loc,
                format!(
                    "Spark's text writer takes one string column; this DataFrame has {}",
                    describe_columns(&frame.columns)
                ),
            );
        }
        file.columns = frame.columns.clone();
        let name = write
            .frame
            .name()
            .unwrap_or_else(|| format!("output_{}", self.outputs.len()));
        let name = if self.outputs.iter().any(|o| o.name == name) {
            format!("{name}_{}", self.outputs.len())
        } else {
            name
        };
        self.frame_sink(
            &name,
            &frame.value,
            frame::schema::row_shape(&frame.columns),
            &call.loc,
        )?;
        if let Some(output) = self.outputs.last_mut() {
            output.file = FileArg::of(&driver_code(&write.path, env));
            output.write = Some(file);
        }
        Ok(())
    }

    /// `spark.read.text(path)` (`call`), when its `.rdd` is taken: a source
    /// of text lines, as `sc.textFile` reads them, whose records are rows.
    fn read_text_rows(
        &mut self,
        call: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Option<Rdd>> {
        if !call.is("Call") {
            return Ok(None);
        }
        let func = call.expect("func");
        if func.str("attr").as_deref() != Some("text") {
            return Ok(None);
        }
        let reader = func.expect("value");
        if reader.str("attr").as_deref() != Some("read")
            || !matches!(
                self.binding(&reader.expect("value"), env),
                Ok(Binding::Context)
            )
        {
            return Ok(None);
        }
        if !call.list("keywords").is_empty() || call.list("args").len() != 1 {
            return unsupported(
                &call.loc,
                "spark.read.text takes one path here (options such as wholetext or lineSep are not supported)",
            );
        }
        let name = format!("input_{}", self.inputs.len());
        let rdd = self.text_file(&name, call, env)?;
        Ok(Some(Rdd { rows: true, ..rdd }))
    }

    /// `argparse.ArgumentParser(...)` or `parser.parse_args()` (`value`):
    /// the binding it makes, or `None` for anything else.
    fn argparse(
        &mut self,
        value: &Node,
        env: &BTreeMap<String, Binding>,
    ) -> Result<Option<Binding>> {
        if !value.is("Call") {
            return Ok(None);
        }
        let func = value.expect("func");
        let creates = func.name().as_deref() == Some("ArgumentParser")
            || (func.str("attr").as_deref() == Some("ArgumentParser")
                && func.expect("value").name().as_deref() == Some("argparse"));
        if creates {
            return Ok(Some(Binding::Parser(crate::driver::Arguments::default())));
        }
        if func.str("attr").as_deref() != Some("parse_args") {
            return Ok(None);
        }
        let Some(Binding::Parser(arguments)) =
            func.expect("value").name().and_then(|n| env.get(&n))
        else {
            return Ok(None);
        };
        if !value.list("args").is_empty() || !value.list("keywords").is_empty() {
            return unsupported(
                &value.loc,
                "parse_args() reads the command line here, without arguments",
            );
        }
        // The test passes the positional arguments.
        self.argc = self.argc.map(|n| n.max(arguments.positionals()));
        Ok(Some(Binding::Namespace(arguments.clone())))
    }

    /// An `if` of a script's driver: decided by the command line the tests
    /// give (`if len(sys.argv) != 2: print(usage); sys.exit(-1)`).
    fn driver_if(
        &mut self,
        s: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Option<(Binding, Loc)>> {
        let argc = self.argc.unwrap_or(0);
        let Some(truth) = crate::driver::decide(&driver_code(&s.expect("test"), env), argc) else {
            return unsupported(
                &s.expect("test").loc,
                "an `if` of the driver code is read when constants and len(sys.argv) decide it; this test depends on something else",
            );
        };
        let branch = s.list(if truth { "body" } else { "orelse" });
        if let Some(at) = crate::driver::exit_in(&branch) {
            let given = match argc {
                0 => "no arguments (its code reads none of sys.argv)".to_string(),
                1 => "the one argument its code reads (sys.argv[1])".to_string(),
                n => format!("the {n} arguments its code reads (sys.argv[1] to sys.argv[{n}])"),
            };
            return unsupported(
                &at,
                format!("the script exits here when given {given}, which is what the generated tests pass"),
            );
        }
        self.body(&branch, env)
    }

    /// Whether `e` is a call of the builtin `range`.
    fn is_range(&self, e: &Node) -> bool {
        e.is("Call")
            && e.expect("func").name().as_deref() == Some("range")
            && !self.scope.defs.contains_key("range")
            && !self.scope.rebound.contains_key("range")
    }

    /// `for i in range(...)` in the driver (pagerank's iterations): its
    /// body read once per trip, each trip's operators its own, `i` the
    /// trip's number.
    fn range_loop(
        &mut self,
        s: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Option<(Binding, Loc)>> {
        let iter = s.expect("iter");
        if !s.list("orelse").is_empty() {
            return unsupported(&s.loc, "for ... else in the driver is not supported");
        }
        let args = iter.list("args");
        if !iter.list("keywords").is_empty() || args.is_empty() || args.len() > 3 {
            return unsupported(&iter.loc, "range() takes one to three arguments");
        }
        let values = args
            .iter()
            .map(|a| self.driver_int(&driver_code(a, env)))
            .collect::<Result<Vec<i64>>>()?;
        let (start, stop, step) = match values[..] {
            [stop] => (0, stop, 1),
            [start, stop] => (start, stop, 1),
            [start, stop, step] => (start, stop, step),
            _ => unreachable!("one to three arguments"),
        };
        if step == 0 {
            return unsupported(
                &iter.loc,
                "range() arg 3 must not be zero (Python raises ValueError)",
            );
        }
        let trips: Vec<i64> = if step > 0 {
            (start..stop)
                .step_by(step as usize)
                .take(MAX_DRIVER_TRIPS + 1)
                .collect()
        } else {
            let mut trips = Vec::new();
            let mut i = start;
            while i > stop && trips.len() <= MAX_DRIVER_TRIPS {
                trips.push(i);
                i += step;
            }
            trips
        };
        if trips.len() > MAX_DRIVER_TRIPS {
            return unsupported(
                &iter.loc,
                format!("this loop of the driver runs more than {MAX_DRIVER_TRIPS} times; coco unrolls a driver loop, each trip its own operators, up to {MAX_DRIVER_TRIPS} trips"),
            );
        }
        let target = s.expect("target");
        if target.name().is_none() {
            return unsupported(
                &target.loc,
                "a driver loop over range() is read with one name as its target",
            );
        }
        for i in trips {
            bind(
                &target,
                Binding::Driver(Node::make_int(i, &target.loc)),
                env,
            )?;
            if let Some(returned) = self.body(&s.list("body"), env)? {
                return Ok(Some(returned));
            }
        }
        Ok(None)
    }

    /// An int of the driver that decides how often a loop runs: a
    /// constant, `int()` of one or of `sys.argv[N]` (the tests pass
    /// [`CHOSEN_TRIPS`] there), and `+`, `-`, `*`, `//` of such.
    fn driver_int(&mut self, e: &Node) -> Result<i64> {
        if let Some(n) = udf::int_constant(e) {
            return Ok(n);
        }
        if e.is("Call") && e.expect("func").name().as_deref() == Some("int") {
            if let [arg] = e.list("args").as_slice() {
                if let Some(n) = crate::driver::argv_index(arg) {
                    let text = self
                        .arguments
                        .entry(n)
                        .or_insert_with(|| CHOSEN_TRIPS.to_string())
                        .clone();
                    if let Ok(value) = text.parse() {
                        return Ok(value);
                    }
                }
                if let Some(value) = arg.str_constant().and_then(|t| t.trim().parse().ok()) {
                    return Ok(value);
                }
                if udf::int_constant(arg).is_some() {
                    return self.driver_int(arg);
                }
            }
        }
        if e.is("BinOp") {
            let left = self.driver_int(&e.expect("left"))?;
            let right = self.driver_int(&e.expect("right"))?;
            let value = match e.op_kind("op").as_deref() {
                Some("Add") => left.checked_add(right),
                Some("Sub") => left.checked_sub(right),
                Some("Mult") => left.checked_mul(right),
                Some("FloorDiv") if right != 0 => Some(
                    left.div_euclid(right) - i64::from(right < 0 && left.rem_euclid(right) != 0),
                ),
                _ => None,
            };
            if let Some(value) = value {
                return Ok(value);
            }
        }
        unsupported(
            &e.loc,
            format!(
                "a loop of the driver is read over range(n), n a constant or int(sys.argv[N]) (the tests pass {CHOSEN_TRIPS}); this bound is {}",
                describe(e)
            ),
        )
    }

    /// `print(...)` in a script's driver, outside a loop: a line whose
    /// values are constants, driver values and counts
    /// (`print("words:", rdd.count())`).
    fn driver_print(&mut self, call: &Node, env: &mut BTreeMap<String, Binding>) -> Result<()> {
        let (args, sep) = match crate::driver::printed(call)? {
            crate::driver::Printed::Stderr => return Ok(()),
            crate::driver::Printed::Stdout { args, sep } => (args, sep),
        };
        let args = args
            .iter()
            .map(|arg| crate::driver::python_source(arg, &mut |e: &Node| self.printed_leaf(e, env)))
            .collect::<Result<Vec<_>>>()?;
        self.printed.push(Print::Line { args, sep });
        Ok(())
    }

    /// The source of a name or call in a printed value: a count, or a
    /// driver value known before the job runs; `None` for what
    /// [`crate::driver::python_source`] reads itself.
    fn printed_leaf(
        &mut self,
        e: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Option<Vec<crate::driver::Source>>> {
        if let Some(name) = e.name() {
            return match env.get(&name).cloned() {
                Some(Binding::Count(output)) => Ok(Some(vec![crate::driver::Source::Count(output)])),
                Some(Binding::Driver(code)) => crate::driver::python_source(&code, &mut |inner: &Node| {
                    self.printed_leaf(inner, env)
                })
                .map(Some),
                Some(_) => unsupported(
                    &e.loc,
                    format!("{name} is an RDD or the Spark context: print its records in a loop over collect(), or its count()"),
                ),
                None => unsupported(&e.loc, format!("{name} is not a value the driver knows here")),
            };
        }
        // The command line is the one the test ran the script with
        // (`process.args`: the Python, then the script and its arguments).
        if let Some(index) = crate::driver::argv_index(e) {
            return Ok(Some(vec![crate::driver::Source::Code(format!(
                "process.args[{}]",
                index + 1
            ))]));
        }
        if crate::driver::is_argv(e) {
            return Ok(Some(vec![crate::driver::Source::Code(
                "process.args[1:]".into(),
            )]));
        }
        if e.is("Call") && e.expect("func").is("Attribute") {
            let method = e.expect("func").str("attr").unwrap_or_default();
            if method == "count" && e.list("args").is_empty() {
                return Ok(Some(vec![crate::driver::Source::Count(
                    self.counted(e, env)?,
                )]));
            }
            if crate::driver::is_str_method(&method) {
                return Ok(None);
            }
            return unsupported(
                &e.loc,
                format!(".{method}() in a printed value is not supported (an RDD's count() is)"),
            );
        }
        Ok(None)
    }

    /// `rdd.count()` in a script: a sink of the RDD, whose records the
    /// test counts; returns the output's index.
    fn counted(&mut self, call: &Node, env: &mut BTreeMap<String, Binding>) -> Result<usize> {
        let rdd = match self.binding(call, env)? {
            Binding::Rdd(rdd) if rdd.delivery == Delivery::Count => rdd,
            // A DataFrame's count(), an output already.
            Binding::Count(output) => return Ok(output),
            _ => return unsupported(&call.loc, "count() of something that is not an RDD"),
        };
        let name = self.udf_name(&format!("count_{}", call.loc.line));
        self.sink(&name, &rdd, &call.loc)?;
        Ok(self.outputs.len() - 1)
    }

    /// `for TARGET in rdd.collect(): print(...)`: each record's line is an
    /// output, in collect()'s order (none, for the test).
    fn print_loop(&mut self, s: &Node, env: &mut BTreeMap<String, Binding>) -> Result<()> {
        let iter = s.expect("iter");
        let mut rdd = match self.binding(&iter, env)? {
            Binding::Rdd(rdd) if rdd.delivery == Delivery::Collect => rdd,
            _ => {
                return unsupported(
                    &iter.loc,
                    "a `for` of the driver code is read over collected records (`for x in rdd.collect():` or a name bound to one); this one loops over something else",
                )
            }
        };
        // A loop over a dict (countByValue's) is over its keys.
        if rdd.dict {
            rdd = self.dict_keys(&rdd, &iter.loc);
        }
        let body = s.list("body");
        if !s.list("orelse").is_empty() {
            return unsupported(
                &s.loc,
                "for ... else over collected records is not supported",
            );
        }
        // What the loop prints of each record is Python the test runs
        // itself, over the records coco predicts: `%`, format specs,
        // `round` and `str()` of any value are Python's own.
        let target = s.expect("target");
        let mut loop_names = Vec::new();
        let target_source = crate::driver::target_source(&target, &mut loop_names)?;
        let one_print = match &body[..] {
            [only]
                if only.is("Expr")
                    && only.expect("value").is("Call")
                    && only.expect("value").expect("func").name().as_deref() == Some("print") =>
            {
                Some(only.expect("value"))
            }
            _ => None,
        };
        let (args, sep, statements) = match &one_print {
            Some(print) => {
                let (args, sep) = match crate::driver::printed(print)? {
                    crate::driver::Printed::Stderr => return Ok(()),
                    crate::driver::Printed::Stdout { args, sep } => (args, sep),
                };
                let args = args
                    .iter()
                    .map(|arg| {
                        crate::driver::python_source(arg, &mut |e: &Node| {
                            if let Some(name) = e.name().filter(|n| loop_names.contains(n)) {
                                return Ok(Some(vec![crate::driver::Source::Code(name)]));
                            }
                            // `row.name` of a collected Row (of a tuple, the
                            // AttributeError Python raises in the script too).
                            let of_record = e.is("Attribute")
                                && e.expect("value")
                                    .name()
                                    .is_some_and(|n| loop_names.contains(&n));
                            if of_record {
                                let record = e.expect("value").name().unwrap_or_default();
                                let attr = e.str("attr").unwrap_or_default();
                                return Ok(Some(vec![crate::driver::Source::Code(format!(
                                    "{record}.{attr}"
                                ))]));
                            }
                            self.printed_leaf(e, env)
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                (args, sep, None)
            }
            None => {
                // A longer body runs as the job's own statements, whose
                // names are the loop's and its assignments'.
                if rdd.limit.is_some() {
                    return unsupported(
                        &s.loc,
                        "a loop over take(), top() or takeOrdered() is read when its body is one print(...)",
                    );
                }
                loop_names.extend(crate::driver::assigned_names(&body));
                let lines = crate::driver::statements_source(&body, 2, &mut |e: &Node| {
                    if let Some(name) = e.name().filter(|n| loop_names.contains(n)) {
                        return Ok(Some(vec![crate::driver::Source::Code(name)]));
                    }
                    self.printed_leaf(e, env)
                })?;
                (Vec::new(), String::new(), Some(lines))
            }
        };
        let at = one_print
            .as_ref()
            .map_or(&s.loc, |print| &print.loc)
            .clone();
        // Sorted records: each with its sort key, for the test to check
        // the order (`sorted` in the driver sorts after Spark's).
        let order = rdd.order.clone();
        let name = self.udf_name(&format!("print_{}", at.line));
        let printed = match &order {
            None => rdd.clone(),
            Some(order) => {
                let record = "_record".to_string();
                let key = apply_to(&order.key, Node::make_name(&record, &s.loc), self.scope)?;
                let pair = Node::make_tuple(vec![key, Node::make_name(&record, &s.loc)], &at);
                let lambda = Node::make_lambda(std::slice::from_ref(&record), pair, &at);
                let key_name = self.udf_name(&format!("sort_key_{}", at.line));
                let (text, shape) = udf::lower(
                    self.scope,
                    &key_name,
                    &lambda,
                    Apply::Record,
                    &rdd.shape,
                    &at,
                )?;
                let Some(shape) = shape else {
                    return unsupported(
                        &order.key.loc,
                        "this sort key has no type coco can give it",
                    );
                };
                self.udfs.push(text);
                self.map(&rdd, &key_name, shape, &at)
            }
        };
        let printed = Rdd {
            delivery: Delivery::Printed,
            limit: None,
            ..printed
        };
        self.sink(&name, &printed, &at)?;
        let output = self.outputs.len() - 1;
        let line = crate::driver::PrintLoop {
            target: target_source,
            args,
            statements,
        };
        self.printed.push(match order {
            None => Print::Records {
                output,
                sep,
                limit: rdd.limit,
                line,
            },
            Some(order) => Print::Sorted {
                output,
                sep,
                ascending: order.ascending,
                limit: rdd.limit,
                line,
            },
        });
        Ok(())
    }

    /// `SparkContext(...)`, `SparkSession.builder...`, or a function of the
    /// file that takes RDDs (inlined).
    fn call_function(
        &mut self,
        name: &str,
        call: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Binding> {
        if matches!(name, "SparkContext" | "SparkConf") {
            return Ok(Binding::Context);
        }
        let Some(def) = self.scope.defs.get(name).cloned() else {
            return unsupported(
                &call.loc,
                format!("{name}() is not supported in the job's RDD code"),
            );
        };
        if self.calls.iter().any(|c| c == name) {
            return unsupported(&call.loc, format!("{name} calls itself"));
        }
        let params: Vec<String> = def.param_names();
        let args = call.list("args");
        if params.len() != args.len() || !call.list("keywords").is_empty() {
            return unsupported(
                &call.loc,
                format!("{name} takes {} positional argument(s)", params.len()),
            );
        }
        let mut inner = BTreeMap::new();
        for (param, arg) in params.iter().zip(&args) {
            inner.insert(param.clone(), self.binding(arg, env)?);
        }
        let given_rdds = inner.values().any(|b| {
            matches!(
                b,
                Binding::Rdd(_)
                    | Binding::Rdds(_)
                    | Binding::Context
                    | Binding::TextFrame(_)
                    | Binding::Data(_)
            )
        });
        self.calls.push(name.to_string());
        let result = self.body(&def.list("body"), &mut inner);
        self.calls.pop();
        let result = match result {
            // `pattern = log_pattern()`: a def of the driver's own values,
            // which coco does not run.
            Err(ImportError::Unsupported { loc, message }) if !given_rdds && !calls_spark(&def) => {
                return unsupported(
                    &call.loc,
                    format!(
                        "{name}() computes a value of the driver (it is given no RDD and calls no RDD operator): coco reads a def the script calls as RDD code and does not run the driver's own functions, and {name}'s code is not RDD code ({loc}: {message})"
                    ),
                )
            }
            other => other?,
        };
        match result {
            Some((binding, _)) => Ok(binding),
            None => unsupported(&call.loc, format!("{name} returns no RDD")),
        }
    }

    fn context_method(
        &mut self,
        method: &str,
        call: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Binding> {
        match method {
            "textFile" => {
                let name = format!("input_{}", self.inputs.len());
                Ok(Binding::Rdd(self.text_file(&name, call, env)?))
            }
            "parallelize" => {
                let name = format!("input_{}", self.inputs.len());
                let records = parallelized(call)?;
                Ok(Binding::Rdd(self.source_of(
                    &name,
                    None,
                    &records,
                    &schema::Narrow::default(),
                    Shape::Field(Ty::Str),
                    &call.loc,
                )?))
            }
            "getOrCreate" | "builder" | "appName" | "master" | "config" | "setAppName"
            | "setMaster" | "set" => Ok(Binding::Context),
            // Every task sees the same value: a UDF reads `b.value` as the
            // constant (udf.rs, constant_dict).
            "broadcast" if call.list("args").len() == 1 => Ok(Binding::Driver(call.clone())),
            "createDataFrame" if self.argc.is_some() => {
                self.frame_of_records(call, env).map(Binding::Data)
            }
            other if DATAFRAME_SOURCES.contains(&other) => {
                let owner = match other {
                    "read" | "table" | "sql" | "createDataFrame" | "readStream" => "SparkSession",
                    _ => "DataFrameReader",
                };
                if self.argc.is_some() {
                    return unsupported(
                        &call.expect("func").attr_loc(),
                        format!("{owner}.{other}() in a script is not supported yet: coco reads a script's DataFrames from files (spark.read.csv(path, schema=S), spark.read.text(path))"),
                    );
                }
                dataframe_code(&call.loc, &format!("{owner}.{other}()"))
            }
            other => unsupported(
                &call.loc,
                format!(
                    "SparkContext.{other}() is not supported in the job{}",
                    rewrite_of(other)
                ),
            ),
        }
    }

    /// One RDD operator applied to `rdd`.
    fn operator(
        &mut self,
        method: &str,
        rdd: Rdd,
        call: &Node,
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Rdd> {
        let loc = &call.expect("func").attr_loc();
        let args: Vec<Node> = call
            .list("args")
            .iter()
            .map(|a| closure_constants(a, env, &self.rebound))
            .collect();
        if rdd.rows {
            return match method {
                "cache" | "persist" | "repartition" | "coalesce" => Ok(rdd),
                "map" if args.len() == 1 && reads_row_value(&args[0]) => Ok(Rdd { rows: false, ..rdd }),
                _ => unsupported(
                    loc,
                    "the rows of spark.read.text(...).rdd are read through .map(lambda r: r[0]) (or r.value), as Spark's examples do; sc.textFile(path) gives the lines themselves",
                ),
            };
        }
        if DATAFRAME_METHODS.contains(&method) {
            return dataframe_code(loc, &format!("{method}()"));
        }
        // A Column expression or a SQL string where an RDD operator takes
        // a function: `df.filter(F.col("amount") > 0)`, `df.filter("x > 0")`.
        if method == "filter" {
            if let Some(arg) = args.first() {
                if ["Compare", "BoolOp", "BinOp", "UnaryOp", "Constant"]
                    .iter()
                    .any(|kind| arg.is(kind))
                {
                    return dataframe_code(&arg.loc, "filter() of a Column expression");
                }
            }
        }
        if let Some(f) = rdd.pending.clone() {
            return self.after_list_record(method, rdd, f, call, &args, env);
        }
        if let Some(action) = action_name(rdd.delivery).filter(|_| !rdd.dict) {
            return unsupported(
                loc,
                format!("{method}() of the result of {action}(): it is a value of the driver, not an RDD"),
            );
        }
        // Partitioning changes no record: `coalesce(1, shuffle=True)`.
        let partitioning = matches!(method, "coalesce" | "repartition")
            && call
                .list("keywords")
                .iter()
                .all(|k| matches!(k.str("arg").as_deref(), Some("shuffle" | "numPartitions")));
        if !call.list("keywords").is_empty()
            && !partitioning
            && !matches!(method, "sortBy" | "sortByKey" | "top" | "takeOrdered")
        {
            return unsupported(
                loc,
                format!("keyword arguments of {method}() are not supported"),
            );
        }
        let udf_arg = |n: usize| -> Result<Node> {
            if args.len() == n {
                Ok(args.first().cloned().unwrap_or_else(|| call.clone()))
            } else {
                unsupported(loc, format!("{method}() takes {n} argument(s) here (numPartitions and other options are not supported)"))
            }
        };
        let key_value = |rdd: &Rdd| -> Result<(Ty, Shape)> {
            match rdd.shape.key_value() {
                Some((k, v)) => Ok((k.clone(), v.clone())),
                None => unsupported(
                    loc,
                    format!("{method}() needs (key, value) pairs with a single key, found records of type {}", rdd.shape.python()),
                ),
            }
        };
        if rdd.dict {
            return match method {
                "items" => {
                    udf_arg(0)?;
                    Ok(Rdd { dict: false, ..rdd })
                }
                "keys" | "values" => {
                    udf_arg(0)?;
                    let (key, count) = key_value(&rdd)?;
                    let (keep, shape) = if method == "keys" {
                        (0..1, Shape::Field(key))
                    } else {
                        (1..2, count)
                    };
                    let projected = self.project(&rdd, method, keep, shape, loc);
                    Ok(Rdd {
                        delivery: Delivery::Collect,
                        ..projected
                    })
                }
                _ => unsupported(
                    loc,
                    format!("the dict {method}() is called on is read through items(), keys() or values() in a print loop"),
                ),
            };
        }
        match method {
            "mapPartitions"
                if rdd.shape == Shape::Field(Ty::Str)
                    && args.len() == 1
                    && self.scope.reads_csv_rows(&args[0]) =>
            {
                // Each line's row: a map no dataset holds (its records are
                // lists), taken into the next map, flatMap or filter.
                let line = "_line".to_string();
                let row = Node::make(
                    "Call",
                    &args[0].loc,
                    vec![
                        (
                            "func",
                            Field::Node(Node::make_name(udf::CSV_ROW, &args[0].loc)),
                        ),
                        (
                            "args",
                            Field::List(vec![Node::make_name(&line, &args[0].loc)]),
                        ),
                        ("keywords", Field::List(Vec::new())),
                    ],
                );
                let f = Node::make_lambda(std::slice::from_ref(&line), row, &args[0].loc);
                Ok(Rdd {
                    pending: Some(f),
                    ..rdd
                })
            }
            "map" | "flatMap" | "filter" | "mapValues" | "flatMapValues" => {
                let f = udf_arg(1)?;
                let apply = match method {
                    "filter" => Apply::Predicate,
                    "mapValues" | "flatMapValues" => {
                        key_value(&rdd)?;
                        Apply::Values
                    }
                    _ => Apply::Record,
                };
                if method == "flatMap" {
                    if let Some(elements) = crate::elements::elements(self.scope, &f)? {
                        return self.flat_map_elements(&rdd, &f, elements, loc);
                    }
                }
                let name = self.name_for(&f, method);
                let (text, shape) = udf::lower(self.scope, &name, &f, apply, &rdd.shape, &f.loc)?;
                self.udfs.push(text);
                let input_type = dataset_type(&rdd.shape);
                match (method, shape) {
                    ("filter", _) => {
                        let mut kept = self.dataset(
                            format!("df.filter {} @{name} : {input_type}", rdd.value),
                            rdd.shape.clone(),
                            loc,
                        );
                        // The records kept are the same values: a sort's
                        // order still applies.
                        if !matches!(rdd.shape, Shape::Nullable(_)) {
                            kept.order = rdd.order.clone();
                        }
                        match &rdd.shape {
                            // `.filter(lambda r: r is not None)`: the records
                            // left are never None; drop the flag.
                            Shape::Nullable(inner) if drops_none(&f) => {
                                let fields = kept.shape.fields().len();
                                let shape = (**inner).clone();
                                Ok(self.project(&kept, &format!("{name}_not_none"), 1..fields, shape, loc))
                            }
                            _ => Ok(kept),
                        }
                    }
                    ("flatMap", Some(Shape::Field(Ty::List(element)))) if *element == Ty::Str => {
                        let shape = Shape::Field(Ty::Str);
                        Ok(self.dataset(
                            format!("df.flat_map {} @{name} : {input_type} -> {}", rdd.value, dataset_type(&shape)),
                            shape,
                            loc,
                        ))
                    }
                    // (key, split): each piece with the key.
                    ("flatMapValues", Some(Shape::Tuple(pair)))
                        if matches!(pair.as_slice(), [_, Shape::Field(Ty::List(e))] if **e == Ty::Str) =>
                    {
                        let shape = Shape::Tuple(vec![pair[0].clone(), Shape::Field(Ty::Str)]);
                        Ok(self.dataset(
                            format!("df.flat_map {} @{name} : {input_type} -> {}", rdd.value, dataset_type(&shape)),
                            shape,
                            loc,
                        ))
                    }
                    ("flatMapValues", Some(Shape::Tuple(pair))) if pair.len() == 2 => unsupported(
                        &f.loc,
                        format!(
                            "a flatMapValues UDF returns a split (list of str) here; this one returns {}",
                            pair[1].python()
                        ),
                    ),
                    ("flatMap", other) => unsupported(
                        &f.loc,
                        format!(
                            "a flatMap UDF returns a split (list of str) here; this one returns {}",
                            other.map(|s| s.python()).unwrap_or_default()
                        ),
                    ),
                    (_, Some(shape)) => {
                        if shape.fields().iter().any(|t| *t == Ty::str_list()) {
                            if method != "map" {
                                return list_record(&f.loc, &format!("{method}()"));
                            }
                            // No dataset of lists: the next operator takes `f` in.
                            self.udfs.pop();
                            return Ok(Rdd { pending: Some(f), ..rdd });
                        }
                        Ok(self.map(&rdd, &name, shape, loc))
                    }
                    (_, None) => unreachable!("map UDFs have a shape"),
                }
            }
            "keys" | "values" => {
                udf_arg(0)?;
                let (key, value) = key_value(&rdd)?;
                let fields = rdd.shape.fields().len();
                let (keep, shape) = if method == "keys" {
                    (0..1, Shape::Field(key))
                } else {
                    (1..fields, value)
                };
                Ok(self.project(&rdd, method, keep, shape, loc))
            }
            "countByValue" | "countByKey" => {
                udf_arg(0)?;
                // Each value (key) with its number of records, as
                // map(lambda x: (x, 1)).reduceByKey(add) counts them.
                let at = &call.loc;
                let record = "_record".to_string();
                let counted = if method == "countByKey" {
                    key_value(&rdd)?;
                    Node::make_subscript(Node::make_name(&record, at), 0, at)
                } else {
                    if !matches!(rdd.shape, Shape::Field(_)) {
                        return unsupported(loc, format!("countByValue() of records of type {} is not supported yet (single values are)", rdd.shape.python()));
                    }
                    Node::make_name(&record, at)
                };
                let pair = Node::make_tuple(vec![counted, Node::make_int(1, at)], at);
                let lambda = Node::make_lambda(std::slice::from_ref(&record), pair, at);
                let name = self.udf_name(&snake(method));
                let (text, shape) =
                    udf::lower(self.scope, &name, &lambda, Apply::Record, &rdd.shape, at)?;
                let Some(shape) = shape else {
                    return unsupported(
                        loc,
                        format!("{method}() of these records is not supported"),
                    );
                };
                self.udfs.push(text);
                let ones = self.map(&rdd, &name, shape, loc);
                let params = ["_a".to_string(), "_b".to_string()];
                let sum = Node::make_binop(
                    Node::make_name(&params[0], at),
                    "Add",
                    Node::make_name(&params[1], at),
                    at,
                );
                let add = Node::make_lambda(&params, sum, at);
                let fold =
                    self.fold_udf(&add, "reduceByKey", &Shape::Field(Ty::Int), "its values")?;
                let counts = self.dataset(
                    format!(
                        "df.reduce_by_key {} @{fold} : {}",
                        ones.value,
                        dataset_type(&ones.shape)
                    ),
                    ones.shape.clone(),
                    loc,
                );
                Ok(Rdd {
                    delivery: Delivery::Collect,
                    dict: true,
                    ..counts
                })
            }
            "take" | "top" | "takeOrdered" => {
                let count = args.first().and_then(|n| match n.constant() {
                    Some(Constant::Int(digits)) if n.is("Constant") => digits.parse::<usize>().ok(),
                    _ => None,
                });
                let Some(count) = count else {
                    return unsupported(
                        loc,
                        format!(
                            "{method}() takes a number of records written as an int constant here"
                        ),
                    );
                };
                let mut key = args.get(1).cloned();
                for keyword in call.list("keywords") {
                    match keyword.str("arg").as_deref() {
                        Some("key") if method != "take" && key.is_none() => {
                            key = Some(keyword.expect("value"))
                        }
                        _ => {
                            return unsupported(
                                &keyword.loc,
                                format!("this argument of {method}() is not supported"),
                            )
                        }
                    }
                }
                if args.len() > 1 + usize::from(method != "take") {
                    return unsupported(
                        loc,
                        format!(
                            "{method}() takes at most {} argument(s)",
                            1 + usize::from(method != "take")
                        ),
                    );
                }
                let at = &call.loc;
                let identity = || {
                    Node::make_lambda(&["_record".to_string()], Node::make_name("_record", at), at)
                };
                let order = match method {
                    "take" => rdd.order.clone(),
                    _ => Some(Order {
                        key: key.unwrap_or_else(identity),
                        ascending: method == "takeOrdered",
                    }),
                };
                Ok(Rdd {
                    delivery: Delivery::Collect,
                    order,
                    limit: Some(count),
                    ..rdd
                })
            }
            "collect" | "count" => {
                udf_arg(0)?;
                Ok(Rdd {
                    delivery: if method == "collect" {
                        Delivery::Collect
                    } else {
                        Delivery::Count
                    },
                    ..rdd
                })
            }
            "reduce" => {
                let f = udf_arg(1)?;
                let name = self.fold_udf(&f, method, &rdd.shape, "the records")?;
                let reduced = self.dataset(
                    format!(
                        "df.reduce {} @{name} : {}",
                        rdd.value,
                        dataset_type(&rdd.shape)
                    ),
                    rdd.shape.clone(),
                    loc,
                );
                Ok(Rdd {
                    delivery: Delivery::Reduce,
                    ..reduced
                })
            }
            "reduceByKey" => {
                let f = udf_arg(1)?;
                // A tuple key (`((a, b), 1)`) is df's key of several fields.
                let (keys, value) = match rdd.shape.tuple_key_value() {
                    Some((n, value)) => (n, value.clone()),
                    None => (1, key_value(&rdd)?.1),
                };
                // A tuple value folds as its fields (df's value is every
                // field after the key); values that may be None do not.
                if value
                    .fields()
                    .iter()
                    .any(|t| matches!(t, Ty::Option(_) | Ty::List(_)))
                    || matches!(value, Shape::Nullable(_) | Shape::Absent(_))
                {
                    return unsupported(loc, format!("reduceByKey over values of type {} is not supported yet (ints, floats, strs and tuples of them are)", value.python()));
                }
                let name = self.fold_udf(&f, method, &value, "its values")?;
                let keys = if keys > 1 {
                    format!(" keys {keys}")
                } else {
                    String::new()
                };
                Ok(self.dataset(
                    format!(
                        "df.reduce_by_key {} @{name}{keys} : {}",
                        rdd.value,
                        dataset_type(&rdd.shape)
                    ),
                    rdd.shape.clone(),
                    loc,
                ))
            }
            "join" | "leftOuterJoin" | "rightOuterJoin" | "fullOuterJoin" => {
                let other_node = udf_arg(1)?;
                let Binding::Rdd(other) = self.binding(&other_node, env)? else {
                    return unsupported(&other_node.loc, format!("{method}() joins with an RDD"));
                };
                // A key of one field, or a tuple of fields (df's `keys N`).
                let keyed = |rdd: &Rdd| -> Result<(Shape, Shape, usize)> {
                    if let (Some((n, value)), Shape::Tuple(items)) =
                        (rdd.shape.tuple_key_value(), &rdd.shape)
                    {
                        return Ok((items[0].clone(), value.clone(), n));
                    }
                    let (key, value) = key_value(rdd)?;
                    Ok((Shape::Field(key), value, 1))
                };
                let (left_key, left_value, keys) = keyed(&rdd)?;
                let (right_key, right_value, _) = keyed(&other)?;
                if left_key != right_key {
                    return unsupported(
                        loc,
                        format!(
                            "{method}() of keys of type {} and {}: they never match",
                            left_key.python(),
                            right_key.python()
                        ),
                    );
                }
                let plain =
                    |shape: &Shape| shape.fields().iter().all(|t| !matches!(t, Ty::Option(_)));
                let (kind, left_side, right_side) = match method {
                    "join" => ("inner", left_value.clone(), right_value.clone()),
                    "leftOuterJoin" => (
                        "left_outer",
                        left_value.clone(),
                        Shape::Absent(Box::new(right_value.clone())),
                    ),
                    "rightOuterJoin" => (
                        "right_outer",
                        Shape::Absent(Box::new(left_value.clone())),
                        right_value.clone(),
                    ),
                    _ => (
                        "full_outer",
                        Shape::Absent(Box::new(left_value.clone())),
                        Shape::Absent(Box::new(right_value.clone())),
                    ),
                };
                if kind != "inner" && !(plain(&left_value) && plain(&right_value)) {
                    return unsupported(
                        loc,
                        "an outer join of the result of another outer join is not supported yet",
                    );
                }
                let shape = Shape::Tuple(vec![left_key, Shape::Tuple(vec![left_side, right_side])]);
                let keys = if keys > 1 {
                    format!(" keys {keys}")
                } else {
                    String::new()
                };
                Ok(self.dataset(
                    format!(
                        "df.join {kind} {}, {}{keys} : {}, {} -> {}",
                        rdd.value,
                        other.value,
                        dataset_type(&rdd.shape),
                        dataset_type(&other.shape),
                        dataset_type(&shape)
                    ),
                    shape,
                    loc,
                ))
            }
            "union" => {
                let other_node = udf_arg(1)?;
                let Binding::Rdd(other) = self.binding(&other_node, env)? else {
                    return unsupported(&other_node.loc, "union() with an RDD");
                };
                if other.shape != rdd.shape {
                    return unsupported(
                        loc,
                        format!(
                            "union() of records of type {} and {} is not supported",
                            rdd.shape.python(),
                            other.shape.python()
                        ),
                    );
                }
                Ok(self.dataset(
                    format!(
                        "df.union {}, {} : {}",
                        rdd.value,
                        other.value,
                        dataset_type(&rdd.shape)
                    ),
                    rdd.shape.clone(),
                    loc,
                ))
            }
            "distinct" => {
                udf_arg(0)?;
                Ok(self.dataset(
                    format!("df.distinct {} : {}", rdd.value, dataset_type(&rdd.shape)),
                    rdd.shape.clone(),
                    loc,
                ))
            }
            // Partitioning and caching do not change the records.
            "cache" | "persist" | "repartition" | "coalesce" => Ok(rdd),
            "groupByKey" => {
                udf_arg(0)?;
                let (key, value) = key_value(&rdd)?;
                let Shape::Field(value) = value else {
                    return unsupported(loc, format!("groupByKey over values of type {} is not supported yet (single values are)", value.python()));
                };
                if matches!(value, Ty::List(_) | Ty::Option(_)) {
                    return unsupported(
                        loc,
                        "groupByKey over lists or optional values is not supported",
                    );
                }
                let shape = Shape::Tuple(vec![
                    Shape::Field(key),
                    Shape::Field(Ty::List(Box::new(value))),
                ]);
                Ok(self.dataset(
                    format!(
                        "df.group_by_key {} : {} -> {}",
                        rdd.value,
                        dataset_type(&rdd.shape),
                        dataset_type(&shape)
                    ),
                    shape,
                    loc,
                ))
            }
            "sortBy" | "sortByKey" => {
                let record = "_record".to_string();
                let at = &call.loc;
                let (key, rest) = if method == "sortByKey" {
                    key_value(&rdd)?;
                    let first = Node::make_subscript(Node::make_name(&record, at), 0, at);
                    (
                        Node::make_lambda(std::slice::from_ref(&record), first, at),
                        &args[..],
                    )
                } else {
                    let Some(f) = args.first() else {
                        return unsupported(loc, "sortBy() takes the key function");
                    };
                    (f.clone(), &args[1..])
                };
                let mut ascending = rest.first().cloned();
                for keyword in call.list("keywords") {
                    match keyword.str("arg").as_deref() {
                        Some("ascending") => ascending = Some(keyword.expect("value")),
                        Some("numPartitions") => {}
                        other => {
                            return unsupported(
                                &keyword.loc,
                                format!(
                                    "{method}'s argument {} is not supported",
                                    other.unwrap_or("**")
                                ),
                            )
                        }
                    }
                }
                let ascending = match ascending.as_ref().map(Node::constant) {
                    None => true,
                    Some(Some(Constant::Bool(b))) => b,
                    _ => {
                        return unsupported(
                            loc,
                            format!("{method}'s ascending is True or False here"),
                        )
                    }
                };
                if rest.len() > 2 {
                    return unsupported(
                        loc,
                        format!("{method}() with a key function (keyfunc) is not supported yet"),
                    );
                }
                // The records are the same; only their order changes.
                Ok(Rdd {
                    order: Some(Order { key, ascending }),
                    ..rdd
                })
            }
            other => unsupported(
                loc,
                format!("RDD.{other}() is not supported{}", rewrite_of(other)),
            ),
        }
    }

    /// The UDF of `reduce` or `reduceByKey`: `f` folds two `operands` into
    /// one of the same shape (`what` names them in the error).
    fn fold_udf(&mut self, f: &Node, method: &str, operands: &Shape, what: &str) -> Result<String> {
        let name = self.name_for(f, method);
        let (text, shape) = udf::lower(self.scope, &name, f, Apply::Pair, operands, &f.loc)?;
        if shape.as_ref() != Some(operands) {
            return unsupported(
                &f.loc,
                format!(
                    "{method}'s function must return {} like {what}; this one returns {}",
                    operands.python(),
                    shape.map(|s| s.python()).unwrap_or_default()
                ),
            );
        }
        self.udfs.push(text);
        Ok(name)
    }

    /// `method` called on records that hold a list, made by `f` from
    /// `rdd`'s: a map, flatMap or filter takes `f` into its own function
    /// (`lambda r: g(f(r))`), so no dataset ever holds the list.
    fn after_list_record(
        &mut self,
        method: &str,
        rdd: Rdd,
        f: Node,
        call: &Node,
        args: &[Node],
        env: &mut BTreeMap<String, Binding>,
    ) -> Result<Rdd> {
        let base = Rdd {
            pending: None,
            ..rdd.clone()
        };
        match (method, args) {
            ("cache" | "persist" | "repartition" | "coalesce", _) => Ok(rdd),
            ("count", []) => self.operator(method, base, call, env),
            ("map" | "flatMap" | "filter", [g]) => {
                let at = &g.loc;
                let record = "_record".to_string();
                let made = apply_to(&f, Node::make_name(&record, at), self.scope)?;
                let body = apply_to(g, made, self.scope)?;
                let composed = Node::make_lambda(std::slice::from_ref(&record), body, at);
                let joined = Node::make(
                    "Call",
                    &call.loc,
                    vec![
                        ("func", Field::Node(call.expect("func").clone())),
                        ("args", Field::List(vec![composed])),
                        ("keywords", Field::List(Vec::new())),
                    ],
                );
                let out = self.operator(method, base, &joined, env)?;
                if method == "filter" {
                    // The records kept still hold the list.
                    return Ok(Rdd {
                        pending: Some(f),
                        ..out
                    });
                }
                Ok(out)
            }
            _ => list_record(&f.loc, &format!("{method}()")),
        }
    }

    /// The keys of a dict of the driver (countByValue's), as collected
    /// records.
    fn dict_keys(&mut self, dict: &Rdd, loc: &Loc) -> Rdd {
        let keys = self.project(dict, "keys", 0..1, Shape::Field(key_of(&dict.shape)), loc);
        Rdd {
            delivery: Delivery::Collect,
            ..keys
        }
    }

    /// `df.map` of `input` by UDF `udf` into records of `shape`.
    fn map(&mut self, input: &Rdd, udf: &str, shape: Shape, loc: &Loc) -> Rdd {
        let text = format!(
            "df.map {} @{udf} : {} -> {}",
            input.value,
            dataset_type(&input.shape),
            dataset_type(&shape)
        );
        self.dataset(text, shape, loc)
    }

    /// `rdd.flatMap(f)` where `f` builds its list element by element: a
    /// flat_map over the list its loop iterates, the `if`s as a filter,
    /// and a map that makes each element (`crate::elements`).
    fn flat_map_elements(
        &mut self,
        rdd: &Rdd,
        f: &Node,
        elements: crate::elements::Elements,
        loc: &Loc,
    ) -> Result<Rdd> {
        let name = self.name_for(f, "flatMap");
        let (text, made) = udf::lower(
            self.scope,
            &name,
            &elements.list,
            Apply::Record,
            &rdd.shape,
            &f.loc,
        )?;
        let element_of = |s: &Shape| match s {
            Shape::Field(Ty::List(e)) => Some(Shape::Field((**e).clone())),
            _ => None,
        };
        let shape = match (&made, elements.carried) {
            (Some(list), 0) => element_of(list),
            (Some(Shape::Tuple(parts)), n) if parts.len() == n + 1 => {
                element_of(&parts[n]).map(|e| {
                    let mut parts = parts.clone();
                    parts[n] = e;
                    Shape::Tuple(parts)
                })
            }
            _ => None,
        };
        let Some(shape) = shape else {
            let what = match (&made, elements.carried) {
                (Some(Shape::Tuple(parts)), n) if parts.len() == n + 1 => parts[n].python(),
                (Some(list), _) => list.python(),
                (None, _) => "nothing".into(),
            };
            return unsupported(
                &f.loc,
                format!("the loop of this flatMap function iterates over {what}; coco follows a loop over a list (a split, a group's values)"),
            );
        };
        self.udfs.push(text);
        let mut out = self.dataset(
            format!(
                "df.flat_map {} @{name} : {} -> {}",
                rdd.value,
                dataset_type(&rdd.shape),
                dataset_type(&shape)
            ),
            shape,
            loc,
        );
        for keep in &elements.keep {
            let keep_name = self.udf_name(&format!("{name}_if"));
            let (text, _) = udf::lower(
                self.scope,
                &keep_name,
                keep,
                Apply::Predicate,
                &out.shape,
                &keep.loc,
            )?;
            self.udfs.push(text);
            out = self.dataset(
                format!(
                    "df.filter {} @{keep_name} : {}",
                    out.value,
                    dataset_type(&out.shape)
                ),
                out.shape.clone(),
                loc,
            );
        }
        let element = &elements.element;
        if element.expect("body").name().as_deref() == Some(crate::elements::ELEMENT) {
            return Ok(out);
        }
        let element_name = self.udf_name(&format!("{name}_element"));
        let (text, shape) = udf::lower(
            self.scope,
            &element_name,
            element,
            Apply::Record,
            &out.shape,
            &element.loc,
        )?;
        let Some(shape) = shape else {
            unreachable!("map UDFs have a shape")
        };
        if shape.fields().iter().any(|t| matches!(t, Ty::List(_))) {
            return unsupported(
                &element.loc,
                "each element this flatMap makes holds a list, and coco's records hold no lists: yield the element's fields (a tuple) instead",
            );
        }
        self.udfs.push(text);
        Ok(self.map(&out, &element_name, shape, loc))
    }

    /// The fields `keep` of `input`'s records (a UDF named from `base`),
    /// as records of `shape`.
    fn project(
        &mut self,
        input: &Rdd,
        base: &str,
        keep: std::ops::Range<usize>,
        shape: Shape,
        loc: &Loc,
    ) -> Rdd {
        let name = self.udf_name(base);
        self.udfs
            .push(projection(&name, &input.shape.fields(), keep, loc));
        self.map(input, &name, shape, loc)
    }

    /// The df name of an operator's UDF: the def's name, or the operator
    /// and line for a lambda (`map_12`).
    fn name_for(&mut self, f: &Node, method: &str) -> String {
        let base = match f.name() {
            Some(name) => name,
            None => format!("{}_{}", snake(method), f.loc.line),
        };
        self.udf_name(&base)
    }
}

/// Whether predicate `f` is false for None: a lambda `r: r is not None`,
/// `r is not None and ...`, or `r` itself.
/// The action that made a value of the driver out of an RDD.
/// Whether `node` is a script's DataFrame code: a chain of calls and
/// attributes on a DataFrame of the script or on a read of one.
fn is_frame_code(node: &Node, env: &BTreeMap<String, Binding>) -> bool {
    let mut at = node.clone();
    loop {
        if let Some(name) = at.name() {
            return matches!(
                env.get(&name),
                Some(Binding::Data(_) | Binding::TextFrame(_))
            );
        }
        if matches!(frame::script::reader_call(&at), Ok(Some(_))) {
            return true;
        }
        at = match at.kind.as_str() {
            "Call" => at.expect("func"),
            "Attribute" | "Subscript" => at.expect("value"),
            _ => return false,
        };
    }
}

/// The frames of a script's names, for its DataFrame code.
fn frames_env(env: &BTreeMap<String, Binding>) -> BTreeMap<String, frame::Binding> {
    env.iter()
        .filter_map(|(name, b)| match b {
            Binding::Data(data) => Some((name.clone(), data.clone())),
            Binding::TextFrame(rdd) => Some((name.clone(), frame::Binding::Frame(text_frame(rdd)))),
            _ => None,
        })
        .collect()
}

/// `spark.read.text(path)` as a DataFrame: one column, `value`, a line.
fn text_frame(rdd: &Rdd) -> frame::Frame {
    frame::Frame {
        value: rdd.value.clone(),
        columns: vec![Column {
            name: "value".into(),
            ty: SqlTy::Str,
            nullable: false,
        }],
    }
}

/// `3 columns (a string, b int, c double)`, for diagnostics.
fn describe_columns(columns: &[Column]) -> String {
    let each: Vec<String> = columns
        .iter()
        .map(|c| format!("{} {}", c.name, c.ty.name()))
        .collect();
    format!("{} columns ({})", columns.len(), each.join(", "))
}

fn action_name(delivery: Delivery) -> Option<&'static str> {
    match delivery {
        Delivery::Rdd | Delivery::Frame => None,
        Delivery::Collect => Some("collect"),
        Delivery::Count => Some("count"),
        Delivery::Reduce => Some("reduce"),
        Delivery::Printed => Some("print"),
    }
}

fn drops_none(f: &Node) -> bool {
    if !f.is("Lambda") {
        return false;
    }
    let params = f.expect("args").list("args");
    let [param] = &params[..] else {
        return false;
    };
    let param = param.str("arg").unwrap_or_default();
    let tests_param = |test: &Node| -> bool {
        if test.name().as_deref() == Some(param.as_str()) {
            return true;
        }
        test.is("Compare")
            && test.expect("left").name().as_deref() == Some(param.as_str())
            && test.compare_ops() == ["IsNot"]
            && test.list("comparators").first().and_then(Node::constant) == Some(Constant::None)
    };
    let body = f.expect("body");
    if body.is("BoolOp") && body.op_kind("op").as_deref() == Some("And") {
        return body.list("values").first().is_some_and(tests_param);
    }
    tests_param(&body)
}

/// A UDF that keeps the fields in `keep` (`keys()`, `values()`).
fn projection(name: &str, fields: &[Ty], keep: std::ops::Range<usize>, loc: &Loc) -> String {
    let mut f = crate::ir::Function::new(name, fields, loc);
    let kept: Vec<_> = f.params()[keep].to_vec();
    f.set_results(kept.iter().map(|v| v.ty.clone()).collect());
    f.ret(&kept, loc);
    f.finish()
}

fn snake(method: &str) -> String {
    let mut out = String::new();
    for c in method.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn bind(target: &Node, binding: Binding, env: &mut BTreeMap<String, Binding>) -> Result<()> {
    if let Some(name) = target.name() {
        env.insert(name, binding);
        return Ok(());
    }
    if target.is("Tuple") || target.is("List") {
        let targets = target.list("elts");
        let Binding::Rdds(items) = binding else {
            return unsupported(
                &target.loc,
                "unpacking something that is not a tuple of RDDs",
            );
        };
        if items.len() != targets.len() {
            return unsupported(
                &target.loc,
                format!("unpacks {} RDDs into {} names", items.len(), targets.len()),
            );
        }
        for (t, rdd) in targets.iter().zip(items) {
            bind(t, Binding::Rdd(rdd), env)?;
        }
        return Ok(());
    }
    unsupported(&target.loc, format!("assignment to {}", describe(target)))
}

/// Whether `value` is a value of the driver known before the job runs:
/// constants, `sys.argv[N]`, `len(sys.argv)`, driver names, and
/// arithmetic, f-strings and `int`/`float`/`str` of them.
fn is_driver_value(value: &Node, env: &BTreeMap<String, Binding>) -> bool {
    if crate::driver::argv_index(value).is_some() || value.is("Constant") {
        return true;
    }
    if let Some(name) = value.name() {
        return matches!(env.get(&name), Some(Binding::Driver(_)));
    }
    if namespace_value(value, env).is_some() {
        return true;
    }
    match value.kind.as_str() {
        "BinOp" => {
            is_driver_value(&value.expect("left"), env)
                && is_driver_value(&value.expect("right"), env)
        }
        "UnaryOp" => is_driver_value(&value.expect("operand"), env),
        "IfExp" | "Compare" | "BoolOp" => value.children().iter().all(|part| {
            // The operator classes (`Gt`, `And`) are children too.
            part.children().is_empty() && !part.is("Name") && !part.is("Constant")
                || is_driver_value(part, env)
        }),
        // A collection of constants (stop words that UDFs test `in`).
        "Set" | "List" | "Tuple" => {
            let elements = value.list("elts");
            !elements.is_empty() && elements.iter().all(|e| constant_of(e).is_some())
        }
        // A dict of constants (a lookup table that UDFs read).
        "Dict" => {
            let (keys, values) = (value.list("keys"), value.list("values"));
            keys.len() == values.len()
                && keys
                    .iter()
                    .chain(&values)
                    .all(|part| constant_of(part).is_some())
        }
        "JoinedStr" => value.list("values").iter().all(|part| {
            part.is("Constant")
                || (part.is("FormattedValue") && is_driver_value(&part.expect("value"), env))
        }),
        "Call" => {
            let args = value.list("args");
            let converts = matches!(
                value.expect("func").name().as_deref(),
                Some("int" | "float" | "str" | "len")
            );
            converts
                && value.list("keywords").is_empty()
                && args.len() == 1
                && (is_driver_value(&args[0], env) || crate::driver::is_argv(&args[0]))
        }
        _ => false,
    }
}

/// `node` with the names it reads that hold driver values replaced by
/// their code (`path = sys.argv[1]; sc.textFile(path)` reads `sys.argv[1]`).
fn driver_code(node: &Node, env: &BTreeMap<String, Binding>) -> Node {
    node.replace_with(&|e: &Node| {
        if let Some(code) = namespace_value(e, env) {
            return Some(code);
        }
        let is_load = e.child("ctx").is_some_and(|c| c.is("Load"));
        match e.name().and_then(|name| env.get(&name)) {
            Some(Binding::Driver(code)) if is_load => Some(code.clone()),
            _ => None,
        }
    })
}

/// A lambda of the driver with the driver's values it reads in place,
/// where they are known before the job runs (`min_length = 4`, an
/// argparse option's default): the same constant in every task. A value
/// of the command line (the test chooses it) or of an action is left as
/// a name, which the UDF lowering refuses.
fn closure_constants(
    f: &Node,
    env: &BTreeMap<String, Binding>,
    rebound: &HashMap<String, Loc>,
) -> Node {
    if !f.is("Lambda") {
        return f.clone();
    }
    let params: Vec<String> = f.param_names();
    let body = f.expect("body");
    // A nested scope may bind a name of its own: leave it as written.
    let mut nested = false;
    let mut work = vec![body.clone()];
    while let Some(node) = work.pop() {
        nested |= matches!(
            node.kind.as_str(),
            "Lambda" | "ListComp" | "SetComp" | "DictComp" | "GeneratorExp" | "NamedExpr"
        );
        work.extend(node.children());
    }
    if nested {
        return f.clone();
    }
    f.replace_with(&|e: &Node| {
        let name = e.name()?;
        // Spark runs a lambda when an action runs, with the values its
        // names hold then: a name the script binds again is no constant.
        if params.contains(&name)
            || rebound.contains_key(&name)
            || !e.child("ctx").is_some_and(|c| c.is("Load"))
        {
            return None;
        }
        let code = match env.get(&name)? {
            Binding::Driver(code) => driver_code(code, env),
            _ => return None,
        };
        (!crate::driver::mentions_argv(&code)).then_some(code)
    })
}

/// What `args.NAME` holds, for `args = parser.parse_args()`.
fn namespace_value(e: &Node, env: &BTreeMap<String, Binding>) -> Option<Node> {
    if !e.is("Attribute") {
        return None;
    }
    let Some(Binding::Namespace(arguments)) = e.expect("value").name().and_then(|n| env.get(&n))
    else {
        return None;
    };
    arguments.value(&e.str("attr")?).cloned()
}

/// The code of `f(value)`, for a function `f` of one record: a lambda's
/// body with `value` for its parameter, or a call of a def or builtin.
fn apply_to(f: &Node, value: Node, scope: &udf::Scope) -> Result<Node> {
    let f = crate::callables::as_lambda(scope, f, 1)?.unwrap_or_else(|| f.clone());
    if f.is("Lambda") {
        let params: Vec<String> = f.param_names();
        let [param] = &params[..] else {
            return unsupported(&f.loc, "a sort key function takes one record");
        };
        let mut names = HashMap::new();
        names.insert(param.clone(), value);
        return Ok(f.expect("body").substitute(&names));
    }
    if f.name().is_some() {
        let loc = f.loc.clone();
        return Ok(Node::make(
            "Call",
            &loc,
            vec![("func", Field::Node(f)), ("args", Field::List(vec![value]))],
        ));
    }
    unsupported(
        &f.loc,
        format!(
            "a sort key is a lambda, a def of the file or a builtin; found {}",
            describe(&f)
        ),
    )
}

/// What to write instead of an operator coco does not read, where there is
/// a rewrite that keeps the job's meaning; else where the list is.
fn rewrite_of(method: &str) -> &'static str {
    match method {
        "mapPartitions" | "mapPartitionsWithIndex" => {
            ": coco reads per-record operators; a function that handles each record on its own is a map or flatMap of one record (`mapPartitions(lambda it: (f(x) for x in it))` is `map(f)`; `mapPartitions(csv.reader)` is read, as each line's row)"
        }
        "foreach" | "foreachPartition" => {
            ": what it does is not an output coco can check; collect() the records and print them in a loop, or save them"
        }
        "wholeTextFiles" | "binaryFiles" => {
            ": coco generates lines of text (sc.textFile); records that are whole files have no rewrite yet"
        }
        "accumulator" => {
            ": an accumulator's value depends on how often tasks run; count with count() or reduce() instead"
        }
        "collectAsMap" => ": collect() the pairs and loop over them (a dict of them keeps one value per key)",
        "first" => ": take(1) in a print loop (`for x in rdd.take(1): print(x)`)",
        _ => " (see docs/pyspark.md for the operators)",
    }
}

/// Whether `def` calls an RDD operator or reads from Spark (`textFile`,
/// `parallelize`, `spark.read`), anywhere in its body.
fn calls_spark(def: &Node) -> bool {
    fn walk(node: &Node) -> bool {
        if node.is("Call") {
            let func = node.expect("func");
            let method = func.str("attr").unwrap_or_default();
            if RDD_OPERATORS.contains(&method.as_str())
                || DATAFRAME_SOURCES.contains(&method.as_str())
                || matches!(
                    method.as_str(),
                    "parallelize" | "wholeTextFiles" | "sparkContext"
                )
            {
                return true;
            }
        }
        node.children().iter().any(walk)
    }
    def.list("body").iter().any(walk)
}

/// `sorted(records, key=f, reverse=True)`: the order and the records.
fn driver_sort(e: &Node) -> Result<Option<(Order, Node)>> {
    if !e.is("Call") || e.expect("func").name().as_deref() != Some("sorted") {
        return Ok(None);
    }
    let args = e.list("args");
    let [records] = &args[..] else {
        return unsupported(&e.loc, "sorted() takes the records to sort");
    };
    let at = &e.loc;
    let mut key = Node::make_lambda(&["_record".to_string()], Node::make_name("_record", at), at);
    let mut ascending = true;
    for keyword in e.list("keywords") {
        let value = keyword.expect("value");
        match (keyword.str("arg").as_deref(), value.constant()) {
            (Some("key"), _) => key = value,
            (Some("reverse"), Some(Constant::Bool(b))) if value.is("Constant") => ascending = !b,
            _ => {
                return unsupported(
                    &keyword.loc,
                    "sorted() takes key= and reverse=True or False here",
                )
            }
        }
    }
    Ok(Some((Order { key, ascending }, records.clone())))
}

/// The argument of `OrderedDict(x)` or `collections.OrderedDict(x)`.
fn ordered_dict(e: &Node) -> Option<Node> {
    if !e.is("Call") || e.list("args").len() != 1 || !e.list("keywords").is_empty() {
        return None;
    }
    let func = e.expect("func");
    let named = func.name().as_deref() == Some("OrderedDict")
        || (func.str("attr").as_deref() == Some("OrderedDict")
            && func.expect("value").name().as_deref() == Some("collections"));
    named.then(|| e.list("args")[0].clone())
}

/// The error for records holding a list (a split) that reach `what`.
fn list_record<T>(loc: &Loc, what: &str) -> Result<T> {
    unsupported(
        loc,
        format!(
            "the records this function makes hold a list (a split), and {what} reads them; coco follows such records only into a map, flatMap or filter, which it joins to this function: map them to fields first (`.map(lambda t: (t[0], t[1]))`) or flatMap the pieces"
        ),
    )
}

/// The type of the key of (key, value) records (a dict's items).
fn key_of(shape: &Shape) -> Ty {
    shape
        .key_value()
        .map(|(key, _)| key.clone())
        .unwrap_or(Ty::Str)
}

/// Whether `f` takes a row of `spark.read.text` to its line: `lambda r:
/// r[0]`, `lambda r: r.value`, `lambda r: r["value"]`.
fn reads_row_value(f: &Node) -> bool {
    if !f.is("Lambda") {
        return false;
    }
    let params: Vec<String> = f.param_names();
    let [param] = &params[..] else {
        return false;
    };
    let body = f.expect("body");
    let of_param = |e: &Node| e.name().as_deref() == Some(param.as_str());
    if body.is("Attribute") {
        return of_param(&body.expect("value")) && body.str("attr").as_deref() == Some("value");
    }
    if body.is("Subscript") && of_param(&body.expect("value")) {
        let index = body.expect("slice");
        return match index.constant() {
            Some(Constant::Int(digits)) => digits == "0",
            Some(Constant::Str(name)) => name == "value",
            _ => false,
        } && index.is("Constant");
    }
    false
}

/// `if __name__ == "__main__":`
pub fn is_main_guard(test: &Node) -> bool {
    test.is("Compare")
        && test.expect("left").name().as_deref() == Some("__name__")
        && test
            .list("comparators")
            .first()
            .and_then(Node::str_constant)
            .as_deref()
            == Some("__main__")
}

/// Whether `def` looks like a function under test: it applies an RDD
/// operator to one of its parameters.
pub fn takes_rdds(def: &Node) -> bool {
    let params: Vec<String> = def.param_names();
    !params.is_empty() && applies_operator(&def.list("body"), &params)
}

fn applies_operator(body: &[Node], params: &[String]) -> bool {
    body.iter().any(|s| mentions_operator(s, params))
}

fn mentions_operator(node: &Node, params: &[String]) -> bool {
    if node.is("Attribute") {
        let method = node.str("attr").unwrap_or_default();
        if RDD_OPERATORS.contains(&method.as_str()) {
            if let Some(name) = node.expect("value").name() {
                if params.contains(&name) {
                    return true;
                }
            }
        }
    }
    node.children()
        .iter()
        .any(|child| mentions_operator(child, params))
}

/// Builds the program of the function under test `entry`.
pub fn entry_program(builder: &mut Builder, def: &Node) -> Result<bool> {
    let mut env = BTreeMap::new();
    for param in def.expect("args").list("args") {
        let name = param.str("arg").unwrap_or_default();
        let shape = match param.child("annotation") {
            Some(annotation) => element_shape(&annotation)?,
            None => Shape::Field(Ty::Str),
        };
        let rdd = builder.source_shaped(&name, shape, &param.loc)?;
        env.insert(name, Binding::Rdd(rdd));
    }
    let name = def.str("name").unwrap_or_default();
    builder.calls.push(name.clone());
    let result = builder.body(&def.list("body"), &mut env)?;
    let Some((binding, loc)) = result else {
        return unsupported(
            &def.loc,
            format!("{name} returns no RDD; the function under test returns its results"),
        );
    };
    match binding {
        Binding::Rdd(rdd) => {
            builder.sink(&name, &rdd, &loc)?;
            Ok(false)
        }
        Binding::Rdds(rdds) => {
            for (i, rdd) in rdds.iter().enumerate() {
                builder.sink(&format!("{name}_{i}"), rdd, &loc)?;
            }
            Ok(true)
        }
        Binding::Context
        | Binding::Driver(_)
        | Binding::Count(_)
        | Binding::Parser(_)
        | Binding::Namespace(_)
        | Binding::TextFrame(_)
        | Binding::Data(_) => unsupported(&loc, format!("{name} returns no RDD")),
    }
}

/// The records of a parameter annotated `RDD[T]`: `str` (lines, the
/// default), `int`, `float`, or tuples of them (`Tuple[str, int]`,
/// `tuple[str, tuple[int, float]]`).
fn element_shape(annotation: &Node) -> Result<Shape> {
    let is_rdd = |base: &Node| {
        base.name().as_deref() == Some("RDD")
            || (base.is("Attribute") && base.str("attr").as_deref() == Some("RDD"))
    };
    if is_rdd(annotation) {
        return Ok(Shape::Field(Ty::Str));
    }
    if annotation.is("Subscript") && is_rdd(&annotation.expect("value")) {
        return record_shape(&annotation.expect("slice"));
    }
    unsupported(&annotation.loc, "a parameter of the function under test is annotated RDD or RDD[T] (T: str, int, float or a tuple of them)")
}

fn record_shape(t: &Node) -> Result<Shape> {
    match t.name().as_deref() {
        Some("str") => return Ok(Shape::Field(Ty::Str)),
        Some("int") => return Ok(Shape::Field(Ty::Int)),
        Some("float") => return Ok(Shape::Field(Ty::Float)),
        _ => {}
    }
    if t.is("Subscript") {
        let base = t.expect("value");
        let tuple = match base.name() {
            Some(name) => name == "tuple" || name == "Tuple",
            None => base.str("attr").as_deref() == Some("Tuple"),
        };
        if tuple {
            let inner = t.expect("slice");
            let items = if inner.is("Tuple") {
                inner.list("elts")
            } else {
                vec![inner]
            };
            if items.iter().any(|i| i.is("Constant")) {
                return unsupported(
                    &t.loc,
                    "variable-length tuples (tuple[int, ...]) are not record types",
                );
            }
            return Ok(Shape::Tuple(
                items.iter().map(record_shape).collect::<Result<_>>()?,
            ));
        }
    }
    unsupported(
        &t.loc,
        format!(
            "{} is not a record type the front end reads (str, int, float, or tuples of them)",
            describe(t)
        ),
    )
}

/// Builds the program of a script: `body` is its `__main__` block, or the
/// module's statements when it has no such block (`at` is where either
/// starts).
pub fn script_program(
    builder: &mut Builder,
    body: &[Node],
    module: &[Node],
    at: &Loc,
) -> Result<()> {
    let mut env = BTreeMap::new();
    // Its functions (`main()`) read the command line too.
    builder.argc = Some(crate::driver::arguments_read(module));
    builder.script = module.to_vec();
    builder.rebound = crate::driver::bound_again(module);
    for s in body {
        if s.is("Assign") {
            // `x = sc.textFile(...)` names its source after x.
            let value = s.expect("value");
            let targets = s.list("targets");
            if let (Some(name), Some(method)) =
                (targets.first().and_then(Node::name), source_call(&value))
            {
                let rdd = if method == "textFile" {
                    builder.text_file(&name, &value, &env)?
                } else {
                    let records = parallelized(&value)?;
                    builder.source_of(
                        &name,
                        None,
                        &records,
                        &schema::Narrow::default(),
                        Shape::Field(Ty::Str),
                        &value.loc,
                    )?
                };
                env.insert(name, Binding::Rdd(rdd));
                continue;
            }
        }
        if let Some((_, loc)) = builder.body(std::slice::from_ref(s), &mut env)? {
            return unsupported(&loc, "return in the script");
        }
    }
    if builder.outputs.is_empty() {
        return unsupported(
            at,
            "the script neither saves nor prints what it computes (saveAsTextFile, df.write, df.show(), a print of collected records or of a count()): it has no output to test",
        );
    }
    Ok(())
}

/// `sc.textFile(...)` or `sc.parallelize(...)`: the method's name.
fn source_call(value: &Node) -> Option<String> {
    if !value.is("Call") {
        return None;
    }
    let method = value.expect("func").str("attr")?;
    matches!(method.as_str(), "textFile" | "parallelize").then_some(method)
}

/// The records of `sc.parallelize([...])`: a literal list of strings.
fn parallelized(call: &Node) -> Result<Vec<String>> {
    let args = call.list("args");
    let Some(items) = args.first().filter(|a| a.is("List") || a.is("Tuple")) else {
        return unsupported(
            &call.loc,
            format!(
                "sc.parallelize of {}: records the driver computes are no input a test can choose (BigTest generates what a job reads: files, or a list of string literals here)",
                args.first().map(describe).unwrap_or_else(|| "nothing".into())
            ),
        );
    };
    items
        .list("elts")
        .iter()
        .map(|item| match item.str_constant() {
            Some(text) if !text.contains(['\n', '\r']) => Ok(text),
            Some(_) => unsupported(
                &item.loc,
                "a parallelized line holds a line break; records are lines of text",
            ),
            None => unsupported(
                &item.loc,
                "sc.parallelize takes string literals (lines of text) in the job",
            ),
        })
        .collect()
}

/// Module constants: `NAME = literal` (also negative numbers).
pub fn constant_of(value: &Node) -> Option<Constant> {
    if value.is("UnaryOp") && value.op_kind("op").as_deref() == Some("USub") {
        return match constant_of(&value.expect("operand"))? {
            Constant::Int(digits) => Some(Constant::Int(format!("-{digits}"))),
            Constant::Float(x) => Some(Constant::Float(-x)),
            _ => None,
        };
    }
    if value.is("Constant") {
        value.constant()
    } else {
        None
    }
}
