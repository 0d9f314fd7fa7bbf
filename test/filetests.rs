//! The filetest binary: one trial per `test/**/*.mlir` file, plus round
//! trips, examples, generated-docs freshness and the fuzz smoke test.
//!
//! Run one file: `cargo test -p coco-filetests --test filetests -- coco/ops.mlir`.
//! Regenerate committed docs: `COCO_BLESS=1 cargo test -p coco-filetests --test filetests -- docs`.

use coco_filetests::{
    builders, compiled, differential, fuzz, layers, mlir_files, oracles, random_programs,
    repo_root, runner, spark, test_dir, world_sizes, writes,
};
use libtest_mimic::{Arguments, Failed, Trial};

/// A trial; with `COCO_TEST_TIMES=1` it prints how long it took (to find
/// what to move behind `REQUIRES: slow`).
fn timed(
    name: impl Into<String>,
    test: impl FnOnce() -> Result<(), Failed> + Send + 'static,
) -> Trial {
    let name = name.into();
    if std::env::var_os("COCO_TEST_TIMES").is_none() {
        return Trial::test(name, test);
    }
    let label = name.clone();
    Trial::test(name, move || {
        let start = std::time::Instant::now();
        let result = test();
        eprintln!("time: {:8.2}s {label}", start.elapsed().as_secs_f64());
        result
    })
}

fn main() {
    let arguments = Arguments::from_args();
    // Paths in RUN lines, diagnostics and snapshots are relative to test/.
    std::env::set_current_dir(test_dir()).expect("test/ exists");

    if let Ok(list) = std::env::var("COCO_FUZZ_REPLAY") {
        fuzz::replay(&std::fs::read_to_string(list).unwrap_or_default());
        return;
    }
    let mut trials = Vec::new();
    let slow_enabled = coco_filetests::slow_tests();
    for path in mlir_files(&test_dir(), &test_dir()) {
        let path = path.to_string_lossy().into_owned();
        let file = path.clone();
        let source = std::fs::read_to_string(&path).unwrap_or_default();
        // `// REQUIRES: slow` (as in lit): minutes of work, run by
        // bench/bigtest.sh or with COCO_SLOW_TESTS=1; CI runs a small
        // variant of each.
        let slow = runner::requires_slow(&source);
        let name = if slow && !slow_enabled {
            format!("{path} (slow: set COCO_SLOW_TESTS=1)")
        } else {
            path.clone()
        };
        trials.push(
            timed(name, move || runner::run_file(&file).map_err(Failed::from))
                .with_ignored_flag(slow && !slow_enabled),
        );
        if !runner::expects_failure(&source) {
            trials.push(timed(format!("round-trip::{path}"), move || {
                runner::round_trip(&path).map_err(Failed::from)
            }));
        }
    }
    for path in mlir_files(&repo_root().join("examples"), &test_dir()) {
        let path = path.to_string_lossy().into_owned();
        trials.push(timed(format!("example::{path}"), move || {
            runner::round_trip(&path).map_err(Failed::from)
        }));
    }
    // The Spark check: every example's generated cases on Apache Spark.
    // unit_prices takes minutes to generate; CI runs its small variant.
    let mut spark_programs: Vec<std::path::PathBuf> =
        mlir_files(&repo_root().join("examples/bigtest"), &test_dir())
            .into_iter()
            .filter(|p| slow_enabled || !p.ends_with("unit_prices.mlir"))
            .collect();
    spark_programs.push("bigtest/unit_prices-small.mlir".into());
    spark_programs.push("bigtest/reduce-by-key-pair.mlir".into());
    spark_programs.push("tools/coco-translate/pyspark.mlir".into());
    spark_programs.push("bigtest/paper/clicks_by_plan.mlir".into());
    spark_programs.push("bigtest/paper/order_items.mlir".into());
    spark_programs.push("bigtest/composite-keys.mlir".into());
    spark_programs.push("spark/python_text.mlir".into());
    trials.push(timed("spark::examples", move || {
        let faults = test_dir().join("spark/faults.json");
        let summary = spark::check(&spark_programs, &faults).map_err(Failed::from)?;
        eprint!("{summary}");
        Ok(())
    }));
    // The PySpark check: every example job's own function, on Spark, on
    // every case generated for it, through the pytest module coco writes.
    trials.push(timed("pyspark::examples", || {
        let summary = coco_filetests::pyspark_jobs::check(
            &repo_root().join("examples/pyspark"),
            &[
                test_dir().join("pyspark/jobs"),
                repo_root().join("examples/pyspark/wild"),
            ],
        )
        .map_err(Failed::from)?;
        eprint!("{summary}");
        Ok(())
    }));
    // re.split and re.findall of one character class, and csv.reader rows,
    // as CPython gives them.
    trials.push(timed("pyspark::cpython-text", || {
        let summary = coco_filetests::cpython_text::check().map_err(Failed::from)?;
        eprint!("{summary}");
        Ok(())
    }));
    trials.push(timed("pyspark::wild-as-published", || {
        let summary = coco_filetests::pyspark_jobs::wild_as_published(
            &repo_root().join("examples/pyspark/wild"),
        )
        .map_err(Failed::from)?;
        eprint!("{summary}");
        Ok(())
    }));
    // The export treats names as data and refuses what Python or PySpark
    // cannot run.
    trials.push(timed("export::hostile-names", || {
        let summary = coco_filetests::export_names::check(150).map_err(Failed::from)?;
        eprint!("{summary}");
        Ok(())
    }));
    // Coverage of production-sized data on Spark against the interpreter's.
    trials.push(timed("spark::coverage", || {
        let summary = coco_filetests::spark_coverage::check(&[
            "../examples/bigtest/hashtag_trends.mlir",
            "../examples/pyspark/sessions.py",
            "../examples/bigtest/sensor_peak.mlir",
            "../examples/bigtest/payroll.mlir",
            "spark/stock_moves.mlir",
        ])
        .map_err(Failed::from)?;
        eprint!("{summary}");
        Ok(())
    }));
    trials.push(timed("spark::job-command-line", || {
        coco_filetests::spark_cli::check().map_err(Failed::from)
    }));
    trials.push(timed("export::limits", || {
        coco_filetests::export_limits::check().map_err(Failed::from)
    }));
    trials.push(timed("builders::coco", || {
        let printed = builders::build_and_print().map_err(Failed::from)?;
        runner::check_snapshot("builders__coco", &printed, "src/builders.rs").map_err(Failed::from)
    }));
    trials.push(timed("builders::bigtest", || {
        let printed = builders::build_bigtest().map_err(Failed::from)?;
        runner::check_snapshot("builders__bigtest", &printed, "src/builders.rs")
            .map_err(Failed::from)
    }));
    // Every example under every pipeline, on 1, 2, 3, 4 and 8 ranks.
    // None of these reassociate floating point, so results must be bitwise equal.
    let pipelines = [
        "coco-verify",
        "canonicalize,cse",
        "coco-split",
        "coco-reorder",
        "coco-as-slice",
        "coco-tile",
        "coco-split{via=reduce-broadcast}",
        "coco-split{dim=0},canonicalize,cse",
        "coco-split,coco-reorder",
        "coco-split,coco-reorder,canonicalize,cse",
        "coco-split,coco-reorder,canonicalize,cse,coco-as-slice",
        "coco-split,coco-reorder,canonicalize,cse,coco-as-slice{keep=1},canonicalize",
        "coco-fuse",
        "coco-split,coco-reorder,canonicalize,cse,coco-as-slice{keep=1},coco-fuse",
        "coco-split,coco-reorder,canonicalize,cse,coco-as-slice,coco-fuse{kernels=false}",
        "coco-overlap{chunks=2}",
        "coco-split,coco-reorder,canonicalize,cse,coco-fuse{kernels=false},coco-overlap",
        "coco-split,coco-reorder,canonicalize,cse,coco-fuse,coco-overlap{chunks=8}",
        "coco-split,coco-reorder,canonicalize,cse,coco-fuse,coco-overlap,coco-tile",
        "coco-split,coco-reorder,canonicalize,cse,coco-partial-reduce",
        "coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-partial-reduce,canonicalize,cse,coco-fuse",
    ];
    for path in mlir_files(&repo_root().join("examples/coco"), &test_dir()) {
        let path = path.to_string_lossy().into_owned();
        // Paper-scale programs are for the autotuner; they are too large to interpret.
        if path.contains("/paper/") {
            continue;
        }
        let source = std::fs::read_to_string(repo_root().join(path.trim_start_matches("../")))
            .unwrap_or_default();
        // A program on a mesh runs on its one world; the passes leave it
        // as written, so the pipelines' differential checks and the
        // program compiled for the CPU backend (MPI communicators per
        // axis) apply.
        let mesh_world = oracles::mesh_world(&source);
        if let Some(world) = mesh_world {
            // Compiled as written, as the autotuner plans it for its world,
            // and under the passes that apply on a mesh (split over an
            // axis, in both forms; reorder onto its slices; overlap).
            let schedules: [(&str, Vec<String>); 5] = [
                ("as-written", Vec::new()),
                (
                    "autotuned",
                    vec![
                        "--coco-autotune=h100-node".into(),
                        format!("--autotune-ranks={world}"),
                    ],
                ),
                (
                    "split-overlap",
                    vec![
                        "--pass-pipeline=builtin.module(coco-split,canonicalize,cse,coco-overlap{chunks=2})"
                            .into(),
                    ],
                ),
                (
                    "rs-c-ag",
                    vec!["--pass-pipeline=builtin.module(coco-split,coco-reorder,canonicalize,cse)".into()],
                ),
                (
                    "split-reduce-broadcast",
                    vec!["--pass-pipeline=builtin.module(coco-split{via=reduce-broadcast})".into()],
                ),
            ];
            for (name, schedule) in schedules {
                let file = path.clone();
                trials.push(timed(format!("compiled::{path}::{name}"), move || {
                    let schedule: Vec<&str> = schedule.iter().map(String::as_str).collect();
                    compiled::check(&file, &schedule, &[world]).map_err(Failed::from)
                }));
            }
            for pipeline in pipelines {
                let file = path.clone();
                trials.push(timed(
                    format!("differential::{path}::{pipeline}"),
                    move || {
                        differential::check_ranks(
                            &file,
                            pipeline,
                            differential::agreement_for(pipeline),
                            &[world],
                        )
                        .map(|_| ())
                        .map_err(Failed::from)
                    },
                ));
            }
            continue;
        }
        let file = path.clone();
        trials.push(timed(
            format!("differential::{path}::autotune-schedule-space"),
            move || {
                differential::check_schedule_space(&file)
                    .map(|_| ())
                    .map_err(Failed::from)
            },
        ));
        // NVIDIA's assembler on the PTX of every one of those schedules
        // (the compiled:: trials cover the compiled schedules with and
        // without libdevice).
        let ptx_ranks = 4;
        let file = path.clone();
        trials.push(timed(format!("ptxas::{path}::every-pipeline"), move || {
            let mut assembled = std::collections::HashSet::new();
            for pipeline in pipelines {
                compiled::assemble_pipeline(&file, pipeline, ptx_ranks, &mut assembled)
                    .map_err(|e| Failed::from(format!("{pipeline}: {e}")))?;
            }
            Ok(())
        }));
        for pipeline in pipelines {
            let file = path.clone();
            trials.push(timed(
                format!("differential::{path}::{pipeline}"),
                move || {
                    differential::check(&file, pipeline, differential::agreement_for(pipeline))
                        .map(|_| ())
                        .map_err(Failed::from)
                },
            ));
        }
    }
    for path in mlir_files(&repo_root().join("examples/coco"), &test_dir()) {
        let path = path.to_string_lossy().into_owned();
        let text = std::fs::read_to_string(repo_root().join(path.trim_start_matches("../")))
            .unwrap_or_default();
        // Paper-scale programs are only costed; mesh programs have their
        // compiled trial above, on their one world.
        if path.contains("/paper/") || oracles::mesh_world(&text).is_some() {
            continue;
        }
        // Two pipeline stages need an even world.
        let sizes: &'static [usize] = if text.contains("coco.process_group") {
            &[2, 4]
        } else {
            compiled::world_sizes()
        };
        let reduces = text.contains("coco.norm") || text.contains("coco.reduce_elements");
        if reduces || text.contains("coco.softmax") || text.contains("coco.layer_norm") {
            let file = path.clone();
            trials.push(timed(
                format!("compiled::{path}::tree-reductions"),
                move || compiled::check_tree_reductions(&file, sizes).map_err(Failed::from),
            ));
        }
        if text.contains("coco.matmul") {
            let file = path.clone();
            trials.push(timed(format!("compiled::{path}::fused-gemms"), move || {
                compiled::check_fused_gemms(&file, sizes).map_err(Failed::from)
            }));
            let file = path.clone();
            trials.push(timed(format!("compiled::{path}::gpu-tiles"), move || {
                compiled::check_gpu_tiles(&file, sizes).map_err(Failed::from)
            }));
        }
        for (name, schedule) in compiled::SCHEDULES {
            if (*name == compiled::PARTIAL_REDUCE || *name == compiled::PARTIAL_REDUCE_UNFUSED)
                && !reduces
            {
                continue;
            }
            let file = path.clone();
            let schedule_sizes = compiled::schedule_world_sizes(name, sizes);
            let slow = !slow_enabled && compiled::heavy_in_ci(&path, name);
            let trial_name = if slow {
                format!("compiled::{path}::{name} (slow: set COCO_SLOW_TESTS=1)")
            } else {
                format!("compiled::{path}::{name}")
            };
            trials.push(
                timed(trial_name, move || {
                    compiled::check(&file, schedule, &schedule_sizes).map_err(Failed::from)
                })
                .with_ignored_flag(slow),
            );
        }
    }
    // The autotuner's choice runs at the world size it planned for.
    for path in mlir_files(&repo_root().join("examples/coco"), &test_dir()) {
        let path = path.to_string_lossy().into_owned();
        if path.contains("/paper/") {
            continue;
        }
        trials.push(timed(format!("world-sizes::{path}"), move || {
            world_sizes::check(&path).map_err(Failed::from)
        }));
    }
    // GPU execution: every single-function example on one GPU through the
    // CUDA backend, checked against the interpreter; ignored (with the
    // reason in its name) where no CUDA driver and NCCL load.
    let cuda = coco_runtime::cuda::available();
    for path in mlir_files(&repo_root().join("examples/coco"), &test_dir()) {
        let path = path.to_string_lossy().into_owned();
        let text = std::fs::read_to_string(repo_root().join(path.trim_start_matches("../")))
            .unwrap_or_default();
        if path.contains("/paper/")
            || text.contains("coco.process_group")
            || text.contains("coco.mesh")
        {
            continue;
        }
        let file = path.clone();
        let name = match &cuda {
            Ok(()) => format!("cuda::{path}"),
            Err(why) => format!("cuda::{path} (skipped: {why})"),
        };
        trials.push(
            timed(name, move || {
                compiled::check_cuda(&file).map_err(Failed::from)
            })
            .with_ignored_flag(cuda.is_err()),
        );
    }
    // Examples against their numpy oracles (examples/coco/oracles).
    for (script, example) in oracles::oracles() {
        let name = example
            .strip_prefix(repo_root())
            .unwrap_or(&example)
            .display()
            .to_string();
        trials.push(timed(format!("oracle::{name}"), move || {
            oracles::check(&script, &example)
                .map(|_| ())
                .map_err(Failed::from)
        }));
    }
    trials.push(timed(
        "differential::comparison-detects-differences",
        || differential::self_test().map_err(Failed::from),
    ));
    trials.push(timed("differential::random-programs", || {
        let cases = std::env::var("COCO_PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(200);
        random_programs::check(cases).map_err(Failed::from)
    }));
    trials.push(timed("snapshots::none-orphaned", || {
        let orphans = runner::orphan_snapshots();
        if orphans.is_empty() {
            Ok(())
        } else {
            Err(Failed::from(format!(
                "test/snapshots has files no RUN line writes: {}",
                orphans.join(", ")
            )))
        }
    }));
    trials.push(timed("architecture::crates-follow-the-layers", || {
        let metadata = layers::metadata().map_err(Failed::from)?;
        layers::check(&metadata).map_err(Failed::from)
    }));
    trials.push(timed("architecture::a-wrong-edge-is-rejected", || {
        let metadata = layers::metadata().map_err(Failed::from)?;
        // The table rejects each; the wing rule also rejects the compiler
        // using BigTest (its passes, its analysis).
        for (from, to, wing) in [
            ("coco-dialects", "coco-passes", None),
            ("coco-runtime", "coco-dialects", None),
            ("coco-base", "coco-bundle", None),
            ("coco-passes", "coco-bigtest", Some("compiler")),
            ("coco-lowering", "coco-bigtest-passes", Some("compiler")),
        ] {
            let wrong = layers::with_edge(&metadata, from, to);
            let wing_rejects = |message: &str| match wing {
                None => true,
                Some(wing) => message.contains(&format!("the {wing}/ wing may not use")),
            };
            match layers::check(&wrong) {
                Err(message)
                    if message.contains(&format!("{from} depends on {to}"))
                        && wing_rejects(&message) => {}
                other => {
                    return Err(Failed::from(format!(
                        "the edge {from} -> {to} was not rejected: {other:?}"
                    )))
                }
            }
        }
        Ok(())
    }));
    trials.push(timed("writes::go-through-the-staged-writer", || {
        writes::check(&writes::scan(&repo_root())).map_err(Failed::from)
    }));
    trials.push(timed("writes::a-new-write-is-caught", || {
        let mut found = writes::scan(&repo_root());
        *found.entry("tools/src/bigtest.rs".into()).or_default() += 1;
        let comments_and_tests = writes::writes_in(
            "// std::fs::write(a, b)\nlet f = std::fs::File::create(p)?;\n\
             #[cfg(test)]\nmod tests {\n    std::fs::write(x, y).unwrap();\n}\n",
        );
        match writes::check(&found) {
            Err(message)
                if message.contains("tools/src/bigtest.rs") && comments_and_tests == 1 =>
            {
                Ok(())
            }
            other => Err(Failed::from(format!(
                "a new write was not caught ({other:?}), or comments and tests counted ({comments_and_tests})"
            ))),
        }
    }));
    trials.push(timed("docs::generated-docs-are-current", || {
        coco_filetests::docs_current().map_err(Failed::from)
    }));
    trials.push(timed("docs::code-map", || {
        coco_filetests::docs_drift::check_workspace().map_err(Failed::from)
    }));
    trials.push(timed("docs::code-map-drift-is-detected", || {
        coco_filetests::docs_drift::self_test().map_err(Failed::from)
    }));
    trials.push(timed("fuzz::mangled-inputs-never-crash", || {
        let mut inputs = Vec::new();
        for base in [repo_root().join("examples"), test_dir()] {
            for path in mlir_files(&base, &test_dir()) {
                inputs
                    .push(std::fs::read_to_string(&path).map_err(|e| Failed::from(e.to_string()))?);
            }
        }
        let count: usize = std::env::var("COCO_FUZZ_COUNT")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(5000);
        let seed: u64 = std::env::var("COCO_FUZZ_SEED")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0xc0c0_f022);
        let (tried, valid) = fuzz::smoke(&inputs, count, seed);
        println!("fuzz: {tried} variants, {valid} still valid, no crash");
        Ok(())
    }));
    libtest_mimic::run(&arguments, trials).exit();
}
