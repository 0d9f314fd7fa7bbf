//! `coco-opt`: parse, verify, transform and print coco/df/bigtest IR, with
//! mlir-opt's interface: input file or stdin, `-o`, `--pass-pipeline`,
//! `--<pass>` flags, `--split-input-file`, `--verify-diagnostics`,
//! `--mlir-print-ir-after-all`, `--mlir-print-op-generic`,
//! `--mlir-print-debuginfo`, `--list-passes`.
//!
//! Every input is parsed (ODS verification included) and then checked by the
//! semantic verifier before any pass runs; after the pipeline the verifier
//! runs again, so a pass that breaks an invariant is caught here.

mod expected;

use std::{fmt::Write as _, path::Path};

use clap::Parser;
use coco_dialects::{
    context,
    diagnostics::{DiagnosticCollector, Severity},
    load_module, verify_module,
};
use coco_pass::pipeline::{self, Element};
use coco_passes::{
    autotune::{
        self,
        optimize::{self, DEFAULT_MACHINE},
    },
    driver::{self, Event, Step},
};
use melior::{
    ir::{operation::OperationPrintingFlags, Module},
    Context,
};

use crate::{
    passes::REGISTRY,
    source::{self, Chunk},
    Output,
};

#[derive(Parser, Debug)]
#[command(
    name = "coco-opt",
    version,
    about = "Parse, verify, transform and print coco, df and bigtest MLIR",
    after_help = format!(
        "Any pass can also be given as a flag, as with mlir-opt: `--canonicalize`, \
         `--coco-verify`, `--cse`, `--canonicalize=\"max-iterations=2\"`. See --list-passes.\n\n{}",
        source::input_limits_help()
    )
)]
struct Cli {
    /// Input file; `-` reads standard input.
    #[arg(default_value = "-")]
    input: String,

    /// Output file; `-` writes standard output. The file is replaced only
    /// when every input succeeds, and whole (written beside it, then renamed).
    #[arg(short = 'o', default_value = "-", value_name = "FILE")]
    output: String,

    /// A textual pass pipeline, e.g. `builtin.module(coco-verify,canonicalize)`.
    #[arg(long = "pass-pipeline", value_name = "PIPELINE")]
    pass_pipeline: Option<String>,

    /// Process each chunk separated by the marker (default `// -----`) on its own.
    #[arg(long = "split-input-file", num_args = 0..=1, require_equals = true,
          default_missing_value = "// -----", value_name = "MARKER")]
    split_input_file: Option<String>,

    /// Check diagnostics against `expected-error {{...}}` comments in the input.
    #[arg(long = "verify-diagnostics")]
    verify_diagnostics: bool,

    /// Print the IR to stderr after every pass.
    #[arg(long = "mlir-print-ir-after-all")]
    print_ir_after_all: bool,

    /// Print operations in the generic form.
    #[arg(long = "mlir-print-op-generic")]
    print_op_generic: bool,

    /// Print locations with the IR.
    #[arg(long = "mlir-print-debuginfo")]
    print_debuginfo: bool,

    /// Allow operations of dialects that are not registered.
    #[arg(long = "allow-unregistered-dialect")]
    allow_unregistered_dialect: bool,

    /// List coco and upstream passes with one-line descriptions, then exit.
    #[arg(long = "list-passes")]
    list_passes: bool,

    /// Choose and apply the cheapest CoCoNet schedule for a machine (a preset:
    /// v100-cluster, h100-node, cpu-host; or a TOML file), before any other pass.
    #[arg(long = "coco-autotune", num_args = 0..=1, require_equals = true,
          default_missing_value = DEFAULT_MACHINE, value_name = "MACHINE")]
    coco_autotune: Option<String>,

    /// World size the autotuner plans for (default: the machine's; at most 65536).
    #[arg(long = "autotune-ranks", value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=optimize::MAX_RANKS as i64))]
    autotune_ranks: Option<u32>,

    /// Print every schedule the autotuner costed, and its choice, to stderr.
    #[arg(long = "autotune-report")]
    autotune_report: bool,
}

/// Runs coco-opt with `args` (`args[0]` is the program name). `stdin`
/// replaces standard input when given.
pub fn run(args: &[String], stdin: Option<&[u8]>) -> Output {
    let mut output = Output::default();
    let (cli_args, pass_flags) = split_pass_flags(args);
    let cli: Cli = match crate::parse_args(&cli_args) {
        Ok(cli) => cli,
        Err(output) => return output,
    };
    let mut err = String::new();
    output.code = match run_cli(&cli, &pass_flags, stdin, &mut output.stdout, &mut err) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(err, "coco-opt: error: {message}");
            1
        }
    };
    output.stderr = err.into_bytes();
    output
}

/// Separates `--<pass>[=options]` flags (in order) from the other arguments,
/// and accepts LLVM's single-dash spelling of long options.
fn split_pass_flags(args: &[String]) -> (Vec<String>, Vec<Element>) {
    let mut rest = Vec::new();
    let mut passes = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        if i == 0 || arg == "-" || arg == "--" || !arg.starts_with('-') {
            rest.push(arg.clone());
            continue;
        }
        let long = if arg.starts_with("--") || arg.len() <= 2 {
            arg.clone()
        } else {
            format!("-{arg}")
        };
        let body = long.trim_start_matches('-');
        let (name, value) = match body.split_once('=') {
            Some((name, value)) => (
                name,
                Some(value.trim_matches(|c| c == '"' || c == '\'').to_string()),
            ),
            None => (body, None),
        };
        if long.starts_with("--") && REGISTRY.is_pass(name) {
            passes.push(Element::Pass {
                name: name.to_string(),
                options: value,
            });
        } else {
            rest.push(long);
        }
    }
    (rest, passes)
}

fn run_cli(
    cli: &Cli,
    pass_flags: &[Element],
    stdin: Option<&[u8]>,
    stdout: &mut Vec<u8>,
    err: &mut String,
) -> Result<i32, String> {
    if cli.list_passes {
        stdout.extend_from_slice(list_passes().as_bytes());
        return Ok(0);
    }
    let (pipeline_text, elements) = match (&cli.pass_pipeline, pass_flags.is_empty()) {
        (Some(_), false) => {
            return Err("--pass-pipeline cannot be combined with individual pass flags".into());
        }
        (Some(text), true) => (
            text.clone(),
            pipeline::parse(text).map_err(|e| e.to_string())?,
        ),
        (None, _) => (pipeline::module_text(pass_flags), pass_flags.to_vec()),
    };

    let context = context();
    context.set_allow_unregistered_dialects(cli.allow_unregistered_dialect);
    // Fail on a bad pipeline before reading any input, as mlir-opt does.
    let steps = driver::plan(&elements).map_err(|e| e.to_string())?;
    driver::check(&context, &REGISTRY, &steps, &pipeline_text).map_err(|e| e.to_string())?;

    let filename = if cli.input == "-" {
        "<stdin>".to_string()
    } else {
        cli.input.clone()
    };
    let text = source::read_input(&cli.input, stdin)?;
    let chunks = source::split(&text, cli.split_input_file.as_deref());

    let mut printed = Vec::new();
    let mut failed = false;
    for chunk in &chunks {
        let collector = DiagnosticCollector::attach(&context);
        let result = process_chunk(&context, cli, chunk, &filename, &steps, &pipeline_text, err);
        let diagnostics = collector.take();
        drop(collector);
        if cli.verify_diagnostics {
            let (mut expectations, problems) =
                expected::parse(&text, chunk.first_line, chunk.last_line, &filename);
            let mut failures = problems;
            failures.extend(expected::check(&mut expectations, &diagnostics, &filename));
            for failure in &failures {
                let _ = writeln!(err, "{failure}");
            }
            failed |= !failures.is_empty();
        } else {
            for diag in &diagnostics {
                err.push_str(&source::render(diag, &filename, &text));
            }
            failed |= diagnostics.iter().any(|d| d.severity == Severity::Error) || result.is_none();
        }
        if let Some(ir) = result {
            printed.push(ir);
        }
    }

    let joined = printed.join("// -----\n");
    if cli.output == "-" {
        stdout.extend_from_slice(joined.as_bytes());
    } else if !failed {
        crate::write_output_atomically(Path::new(&cli.output), joined.as_bytes())?;
    }
    Ok(i32::from(failed))
}

/// Parses, verifies and transforms one chunk; returns the printed IR, or
/// `None` when a diagnostic already says why not.
fn process_chunk(
    context: &Context,
    cli: &Cli,
    chunk: &Chunk,
    filename: &str,
    steps: &[Step],
    pipeline_text: &str,
    err: &mut String,
) -> Option<String> {
    let mut module = load_module(context, &chunk.text, filename).ok()?;
    let mut observe = |event: Event, module: &Module| match event {
        Event::AfterPass(pass) => {
            let _ = writeln!(err, "// -----// IR Dump After {pass} //----- //");
            err.push_str(&print_module(module, cli));
        }
        Event::Tuned {
            machine,
            ranks,
            candidates,
        } => {
            if cli.autotune_report {
                err.push_str(&autotune::report(machine, ranks, candidates));
            }
        }
    };
    let mut result = Ok(());
    if let Some(machine) = &cli.coco_autotune {
        result = driver::autotune_apply(
            context,
            &mut module,
            machine,
            cli.autotune_ranks.map(|n| n as usize),
            &mut observe,
        );
    }
    if result.is_ok() && !steps.is_empty() {
        result = driver::run(
            context,
            &REGISTRY,
            &mut module,
            steps,
            pipeline_text,
            cli.print_ir_after_all,
            &mut observe,
        );
    }
    match result {
        Ok(()) => {}
        // The pass's diagnostics say why.
        Err(e) if e.is_failed_pass() => return None,
        Err(e) => {
            let _ = writeln!(err, "coco-opt: error: {e}");
            return None;
        }
    }
    if !steps.is_empty()
        && (!module.as_operation().verify() || verify_module(&module.as_operation()) > 0)
    {
        let _ = writeln!(
            err,
            "coco-opt: error: the IR produced by the pass pipeline fails verification; \
             this is a bug in a pass (pipeline: {pipeline_text})"
        );
        return None;
    }
    Some(print_module(&module, cli))
}

fn print_module(module: &Module, cli: &Cli) -> String {
    let mut flags = OperationPrintingFlags::new();
    if cli.print_op_generic {
        flags = flags.print_generic_operation_form();
    }
    if cli.print_debuginfo {
        flags = flags.enable_debug_info(true, false);
    }
    let mut text = module
        .as_operation()
        .to_string_with_flags(flags)
        .unwrap_or_else(|_| module.as_operation().to_string());
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

fn list_passes() -> String {
    let mut out = String::from("coco passes:\n");
    for info in REGISTRY.passes() {
        let _ = writeln!(out, "  --{:<40} {}", info.argument, info.summary);
        for option in info.options {
            let _ = writeln!(
                out,
                "      {:<36} {} (default: {})",
                format!("{}=", option.name()),
                option.summary(),
                option.default_text()
            );
        }
    }
    out.push_str("\nupstream passes and pipelines:\n");
    for (name, summary) in REGISTRY.upstream() {
        let _ = writeln!(out, "  --{name:<40} {summary}");
    }
    out
}
