//! The PySpark front end: a Python file holding an RDD job becomes a df
//! program (`df.host = "python"`) that coco's BigTest passes, interpreter
//! and tools take like any other, with every op located in the Python
//! source (`loc("job.py":12:9)`).
//!
//! The file is parsed by CPython's own `ast` module (`ast_dump.py`, run by
//! the Python the caller names); everything else is here. Layers:
//! [`syntax`] (the tree), [`job`] (RDD operators), [`udf`] (Python UDFs),
//! [`ir`] (the df text), [`pytest`] (the test module of generated cases).

pub mod callables;
pub mod driver;
pub mod elements;
pub mod error;
pub mod files;
pub mod frame;
pub mod ir;
pub mod job;
pub mod pytest;
pub mod shape;
pub mod syntax;
pub mod udf;

use std::collections::HashMap;

pub use error::{ImportError, Loc, Result};
pub use job::Job;

use crate::{
    error::unsupported,
    job::{constant_of, entry_program, is_main_guard, script_program, takes_rdds, Builder},
    udf::Scope,
};

/// How to read the file.
#[derive(Clone, Debug)]
pub struct Options {
    /// The Python interpreter whose `ast` module parses the file.
    pub python: String,
    /// The function under test; by default the only function of the file
    /// that applies RDD operators to its parameters.
    pub entry: Option<String>,
}

/// The Python the front end runs when none is named: `COCO_PYTHON`, else
/// `python3`.
pub fn default_python() -> String {
    std::env::var("COCO_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// A job read from Python.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The df module's text.
    pub mlir: String,
    pub job: Job,
    /// The df program's name (the function under test, or the file's stem).
    pub program: String,
    /// The file's text as CPython decoded it (its BOM dropped, a declared
    /// encoding such as Latin-1 decoded): what locations count in and
    /// diagnostics quote.
    pub text: String,
}

/// Reads the PySpark job in `source` (named `file` in locations).
pub fn import(file: &str, source: &str, options: &Options) -> Result<Imported> {
    import_bytes(file, source.as_bytes(), options)
}

/// Reads the PySpark job whose file holds `source`, decoded as CPython
/// decodes it (a UTF-8 BOM, a `# coding:` declaration).
pub fn import_bytes(file: &str, source: &[u8], options: &Options) -> Result<Imported> {
    let syntax::Parsed { module, text } = syntax::parse(&options.python, file, source)?;
    let mut scope = Scope {
        defs: HashMap::new(),
        constants: HashMap::new(),
        values: HashMap::new(),
        ..Scope::default()
    };
    let mut guard = None;
    let mut order = Vec::new();
    for statement in module.list("body") {
        match statement.kind.as_str() {
            "FunctionDef" => {
                let name = statement.str("name").unwrap_or_default();
                order.push(name.clone());
                scope.defs.insert(name, statement);
            }
            "Assign" => {
                let targets = statement.list("targets");
                if let [target] = &targets[..] {
                    if let Some(name) = target.name() {
                        let value = statement.expect("value");
                        if let Some(constant) = constant_of(&value) {
                            scope.constants.insert(name.clone(), constant);
                        }
                        scope.values.insert(name, value);
                    }
                }
            }
            "If" if is_main_guard(&statement.expect("test")) => guard = Some(statement),
            _ => {}
        }
    }
    // Which module names hold one value when a UDF runs, and what else
    // the module binds (udf::Scope::settle).
    scope.settle(&module.list("body"));
    let entry = match &options.entry {
        Some(name) => match scope.defs.get(name) {
            Some(def) => Some(def.clone()),
            None => {
                return unsupported(
                    &module.loc,
                    format!("--entry {name}: the file defines no function {name} at module level"),
                )
            }
        },
        None => {
            let mut candidates: Vec<&String> = order
                .iter()
                .filter(|n| takes_rdds(&scope.defs[*n]) || frame::takes_frames(&scope.defs[*n]))
                .collect();
            // Helpers a DataFrame function calls (`def clean(df): ...`)
            // are part of it, not jobs of their own.
            let frames: Vec<&String> = candidates
                .iter()
                .copied()
                .filter(|n| frame::takes_frames(&scope.defs[*n]))
                .collect();
            if let [entry] = frames[..] {
                let called = frame::helpers_called(&scope.defs, entry);
                if candidates
                    .iter()
                    .all(|c| *c == entry || called.contains(*c))
                {
                    candidates = vec![entry];
                }
            }
            match candidates[..] {
                [one] => Some(scope.defs[one].clone()),
                [] => None,
                _ => {
                    let names: Vec<&str> = candidates.iter().map(|s| s.as_str()).collect();
                    return unsupported(
                        &scope.defs[candidates[1]].loc,
                        format!("several functions apply RDD operators to their parameters ({}); name the one under test with --entry", names.join(", ")),
                    );
                }
            }
        }
    };
    // A script without a `__main__` block runs its actions as the module
    // runs: a constant bound again may change between them, so a UDF may
    // not read it as the value the module leaves.
    if entry.is_none() && guard.is_none() {
        for (name, loc) in driver::bound_again(&module.list("body")) {
            if scope.constants.remove(&name).is_some() {
                scope.rebound.insert(
                    name,
                    udf::Rebinding {
                        loc,
                        how:
                            "bound again in the script, whose actions may run between its bindings"
                                .into(),
                        once: false,
                    },
                );
            }
        }
    }
    let stem = std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "job".into());
    let mut builder = Builder::new(&scope);
    if let Some(def) = &entry {
        builder.reserve(&def.str("name").unwrap_or_default());
    } else {
        builder.reserve(&program_name(&stem));
    }
    // The program function is the `def` or the `__main__` block: what
    // BigTest reports about the whole program points there.
    let (program, returns_tuple, entry_name, at) = match (&entry, &guard) {
        (Some(def), _) => {
            let name = def.str("name").unwrap_or_default();
            let tuple = if frame::takes_frames(def) {
                frame::entry_program(&mut builder, def, guard.as_ref())?
            } else {
                entry_program(&mut builder, def)?
            };
            (name.clone(), tuple, Some(name), def.loc.mlir())
        }
        (None, Some(guard)) => {
            script_program(
                &mut builder,
                &guard.list("body"),
                &module.list("body"),
                &guard.loc,
            )?;
            (program_name(&stem), false, None, guard.loc.mlir())
        }
        (None, None) => {
            // A script without a `__main__` block: its module-level code.
            let script: Vec<_> = module
                .list("body")
                .into_iter()
                .filter(|s| {
                    !matches!(
                        s.kind.as_str(),
                        "FunctionDef" | "ClassDef" | "Import" | "ImportFrom"
                    )
                })
                .filter(|s| !(s.is("Expr") && s.expect("value").str_constant().is_some()))
                .collect();
            if script
                .iter()
                .all(|s| s.is("Assign") && constant_of(&s.expect("value")).is_some())
            {
                return unsupported(
                    &module.loc,
                    "no function under test (a function whose parameters are RDDs and that applies RDD operators to them) and no script (module-level code or an `if __name__ == \"__main__\":` block)",
                );
            }
            script_program(&mut builder, &script, &module.list("body"), &module.loc)?;
            (program_name(&stem), false, None, module.loc.mlir())
        }
    };
    let mut mlir = String::from("module attributes {df.host = \"python\"} {\n");
    for udf in &builder.udfs {
        mlir.push_str(udf);
    }
    mlir.push_str(&format!("func.func @{}() {{\n", symbol(&program)));
    for line in &builder.lines {
        mlir.push_str(line);
        mlir.push('\n');
    }
    mlir.push_str(&format!(
        "  func.return {at}\n}} {at}\n}} {}\n",
        module.loc.mlir()
    ));
    Ok(Imported {
        mlir,
        job: Job {
            entry: entry_name,
            inputs: builder.inputs.clone(),
            outputs: builder.outputs.clone(),
            returns_tuple,
            printed: builder.printed.clone(),
            arguments: builder.arguments.clone(),
        },
        program,
        text,
    })
}

/// `name` as an MLIR symbol: bare when it is a bare identifier
/// (`[A-Za-z_][A-Za-z0-9_$.]*`), else quoted (`@"計算"`, as Python allows
/// any Unicode letter in a name).
pub(crate) fn symbol(name: &str) -> String {
    let bare = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        name.to_string()
    } else {
        ir::string_literal(name)
    }
}

/// A df symbol made from a file's stem or a column's name (`web-log` ->
/// `web_log`).
pub(crate) fn program_name(stem: &str) -> String {
    let mut name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}
