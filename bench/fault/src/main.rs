//! `coco-fault`: runs the fault-and-bad-input categories against the built
//! tools and prints one table (inputs, ok, clean errors, crashes, hangs,
//! silent wrong results); exits 1 when any input crashed, hung or was
//! silently wrong. CI runs a slice (`--count 300`); bench/fault.sh runs the
//! long one. See docs/reliability.md.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Parser;
use coco_fault::cases::{
    data::Data, export::Export, groups::Groups, ints::Ints, ir::Ir, kernels::Kernels, mesh::Mesh,
    npy, paths::Paths, plan::Plan, planted::Planted, ranks::Ranks, sizes::Sizes, sweep::Sweep,
    values::Values, Category, Env,
};
use coco_fault::tally::Tally;

#[derive(Parser)]
#[command(
    version,
    about = "Hostile inputs, corrupt files and killed ranks against coco's tools"
)]
struct Cli {
    /// Where the tools are (coco-opt, coco-translate, coco-run, coco-bigtest, coco-exec).
    #[arg(long, default_value = "target/debug")]
    bin: PathBuf,
    /// The repository (its examples/ and test/ are the seed programs).
    #[arg(long, default_value = ".")]
    repo: PathBuf,
    /// The harness's folder: sandboxes, and failing inputs under failures/.
    #[arg(long, default_value = "target/fault")]
    out: PathBuf,
    /// Inputs in all, shared out between the categories.
    #[arg(long, default_value_t = 300)]
    count: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cases run at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Only these categories (ir, npy, plan, paths, sizes, ints, ranks, export, groups,
    /// data, sweep, values, kernels, planted, mesh).
    #[arg(long = "category")]
    categories: Vec<String>,
    /// The first case index (to replay case I: --category C --first I --count 1).
    #[arg(long, default_value_t = 0)]
    first: usize,
    /// The deadline of one run, in seconds.
    #[arg(long, default_value_t = 90)]
    timeout_s: u64,
    /// Print every case, its verdict and the first line it printed to stderr.
    #[arg(long)]
    verbose: bool,
    /// Also write the table (Markdown) to this file.
    #[arg(long)]
    table: Option<PathBuf>,
}

/// Cases per category for `count` inputs in all: the process-heavy
/// categories (ranks, sizes, paths) are fixed scenario lists run once or
/// twice; the rest is shared by weight.
fn shares(count: usize, only_one: bool) -> Vec<(&'static str, usize)> {
    if only_one {
        return [
            "ir", "npy", "plan", "paths", "sizes", "ints", "ranks", "export", "groups", "data",
            "sweep", "values", "kernels", "planted", "mesh",
        ]
        .iter()
        .map(|c| (*c, count))
        .collect();
    }
    let long = count >= 5000;
    let ranks = if long { 48 } else { 8 };
    let sizes = if long { 52 } else { 26 };
    let paths = if long { 96 } else { 16 };
    let groups = if long { 16 } else { 4 };
    let data = if long { 48 } else { 8 };
    let sweep = if long { 12 } else { 3 };
    let kernels = if long { 48 } else { 8 };
    // Every output of every plant: 7 scenarios by 3 plants.
    let planted = 21;
    // Each axis line of the mesh bundle's plan deleted once.
    let mesh = 4;
    let rest = count
        .saturating_sub(ranks + sizes + paths + groups + data + sweep + kernels + planted + mesh);
    let ints = rest * 6 / 100;
    let npy = rest * 10 / 100;
    let plan = rest * 10 / 100;
    let export = rest * 6 / 100;
    let values = rest * 4 / 100;
    let ir = rest - ints - npy - plan - export - values;
    vec![
        ("ir", ir),
        ("npy", npy),
        ("plan", plan),
        ("paths", paths),
        ("sizes", sizes),
        ("ints", ints),
        ("ranks", ranks),
        ("export", export),
        ("groups", groups),
        ("data", data),
        ("sweep", sweep),
        ("values", values),
        ("kernels", kernels),
        ("planted", planted),
        ("mesh", mesh),
    ]
}

fn main() {
    let cli = Cli::parse();
    let absolute = |p: &PathBuf| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
    let _ = std::fs::create_dir_all(&cli.out);
    let env = Env::new(
        absolute(&cli.bin),
        absolute(&cli.repo),
        absolute(&cli.out),
        Duration::from_secs(cli.timeout_s),
        cli.seed,
    );
    for tool in [
        "coco-opt",
        "coco-translate",
        "coco-run",
        "coco-bigtest",
        "coco-exec",
    ] {
        if !env.tool(tool).is_file() {
            eprintln!("coco-fault: error: {} not found (build the tools first: cargo build --workspace --bins)", env.tool(tool).display());
            std::process::exit(2);
        }
    }
    let wanted = |name: &str| cli.categories.is_empty() || cli.categories.iter().any(|c| c == name);
    let tally = Mutex::new(Tally::default());
    let started = Instant::now();
    for (name, count) in shares(cli.count, cli.categories.len() == 1) {
        if !wanted(name) || count == 0 {
            continue;
        }
        let category: Box<dyn Category> = match build(name, &env) {
            Ok(category) => category,
            Err(e) => {
                eprintln!("coco-fault: error: set-up of {name} failed: {e}");
                std::process::exit(2);
            }
        };
        let next = AtomicUsize::new(cli.first);
        let end = cli.first + count;
        // Killed-rank and whole-group cases time how a job ends and look
        // at /dev/shm: they run alone.
        let jobs = if matches!(name, "ranks" | "groups" | "sweep") {
            1
        } else {
            cli.jobs.max(1)
        };
        let category_started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                scope.spawn(|| loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= end {
                        break;
                    }
                    let outcome = category.case(&env, index);
                    if cli.verbose {
                        let said = outcome.detail.lines().next().unwrap_or_default();
                        eprintln!(
                            "[{name} {index}] {:?}: {}\n    {said}",
                            outcome.verdict, outcome.case
                        );
                    }
                    tally.lock().unwrap_or_else(|e| e.into_inner()).record(
                        category.name(),
                        &outcome.case,
                        outcome.verdict,
                        &outcome.detail,
                    );
                });
            }
        });
        eprintln!(
            "coco-fault: {name}: {count} cases in {:.0} s",
            category_started.elapsed().as_secs_f64()
        );
    }
    let tally = tally.into_inner().unwrap_or_else(|e| e.into_inner());
    let table = tally.table();
    println!("{table}");
    println!(
        "seed {}, {} inputs in {:.0} s",
        cli.seed,
        tally.total().inputs,
        started.elapsed().as_secs_f64()
    );
    if let Some(path) = &cli.table {
        let _ = std::fs::write(path, &table);
    }
    let report = tally.failure_report();
    if !report.is_empty() {
        println!("\nfailures:\n{report}");
    }
    std::process::exit(if tally.total().failures() > 0 { 1 } else { 0 });
}

fn build(name: &str, env: &Env) -> Result<Box<dyn Category>, String> {
    Ok(match name {
        "ir" => Box::new(Ir::new(&env.repo)),
        "npy" => Box::new(npy::Npy {
            fixture: npy::Fixture::new(env)?,
        }),
        "plan" => Box::new(Plan {
            fixture: npy::Fixture::new(env)?,
        }),
        "paths" => Box::new(Paths),
        "sizes" => Box::new(Sizes),
        "ints" => Box::new(Ints),
        "export" => Box::new(Export),
        "groups" => Box::new(Groups::new(env)?),
        "data" => Box::new(Data),
        "sweep" => Box::new(Sweep::new(env)?),
        "values" => Box::new(Values),
        "kernels" => Box::new(Kernels::new(env)?),
        "planted" => Box::new(Planted),
        "mesh" => Box::new(Mesh::new(env)?),
        _ => Box::new(Ranks::new(env)?),
    })
}
