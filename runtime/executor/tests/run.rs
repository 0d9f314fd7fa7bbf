//! `coco-exec` on 1, 2 and 4 ranks: kernels, every collective, views,
//! send/recv between stages, the reductions MPI cannot do itself, checked
//! exactly against values computed here with the reference semantics.

mod common;

use coco_bundle::{DType, IoLayout, Reduction, Step};
use common::*;

const F32: DType = DType::F32;
const RANKS: [usize; 3] = [1, 2, 4];

/// The reference reduction: rank order, rounding after each step; avg
/// divides once at the end.
fn fold(dtype: DType, reduction: Reduction, parts: &[T]) -> T {
    let mut acc = parts[0].clone();
    for part in &parts[1..] {
        for (a, &b) in acc.data.iter_mut().zip(&part.data) {
            let x = match reduction {
                Reduction::Sum | Reduction::Avg => *a + b,
                Reduction::Prod => *a * b,
                Reduction::Min => a.min(b),
                Reduction::Max => a.max(b),
            };
            *a = round(dtype, x);
        }
    }
    if reduction == Reduction::Avg {
        for a in &mut acc.data {
            *a = round(dtype, *a / parts.len() as f64);
        }
    }
    acc
}

/// One tensor per rank, distinct everywhere, exact in f32 sums.
fn per_rank(n: usize, shape: &[usize], seed: f64) -> Vec<T> {
    (0..n)
        .map(|r| T::new(shape, |i| seed + (r * 100 + i) as f64 * 0.5))
        .collect()
}

fn all_reduce(reduction: Reduction, input: &str, output: &str) -> Step {
    Step::AllReduce {
        reduction,
        input: input.into(),
        output: output.into(),
        stream: 0,
        axis: None,
    }
}

#[test]
fn elementwise_kernels_scalar_inputs_and_the_rank_argument() {
    for n in RANKS {
        let plan = plan(
            n,
            vec![
                buffer("a", F32, &[]).input(IoLayout::Scalar),
                buffer("x", F32, &[8]).input(IoLayout::Sliced(0)),
                buffer("b", F32, &[8]).input(IoLayout::Replicated),
                buffer("y", F32, &[8]).output(IoLayout::Sliced(0)),
                buffer("r", F32, &[4]).output(IoLayout::Local),
            ],
            vec![
                launch("axpb", &["a", "x", "b", "y"]),
                Step::RecordEvent {
                    event: "e0".into(),
                    stream: 0,
                },
                Step::WaitEvent {
                    event: "e0".into(),
                    stream: 1,
                },
                launch("add_rank", &["r"]),
            ],
        );
        let bundle = Bundle::new(&format!("elementwise-{n}"), &plan);
        let a = T::new(&[], |_| 1.5);
        let x = T::new(&[8 * n], |i| i as f64 * 0.25);
        let b = T::new(&[8], |i| i as f64 - 3.0);
        bundle
            .input("a", F32, &a)
            .input("x", F32, &x)
            .input("b", F32, &b);
        bundle.run(&[]).assert_success();

        let y = T::new(&[8 * n], |i| 1.5 * x.data[i] + b.data[i % 8]);
        assert_eq!(bundle.output("out_y", F32), y, "{n} ranks");
        let r = T::stack(
            &(0..n)
                .map(|p| T::new(&[4], |_| p as f64))
                .collect::<Vec<_>>(),
        );
        assert_eq!(bundle.output("out_r", F32), r, "{n} ranks");
        bundle.remove();
    }
}

#[test]
fn started_by_mpirun_directly() {
    let plan = plan(
        2,
        vec![buffer("r", F32, &[4]).output(IoLayout::Local)],
        vec![launch("add_rank", &["r"])],
    );
    let bundle = Bundle::new("under-mpirun", &plan);
    let outcome = bundle.run_under_mpirun(2, &["--timing"]);
    outcome.assert_success();
    eprintln!("{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("coco-exec: timing over 2 rank(s)"),
        "{}",
        outcome.stderr
    );
    let r = T::stack(&[T::new(&[4], |_| 0.0), T::new(&[4], |_| 1.0)]);
    assert_eq!(bundle.output("out_r", F32), r);
    bundle.remove();
}

#[test]
fn all_reduce_sum_avg_max_and_in_place() {
    for n in RANKS {
        let plan = plan(
            n,
            vec![
                buffer("x", F32, &[2, 3]).input(IoLayout::Local),
                buffer("s", F32, &[2, 3]).output(IoLayout::Replicated),
                buffer("a", F32, &[2, 3]).output(IoLayout::Replicated),
                buffer("i", DType::I32, &[4]).input(IoLayout::Local),
                buffer("m", DType::I32, &[4]).output(IoLayout::Replicated),
                buffer("p", F32, &[2, 3])
                    .input(IoLayout::Local)
                    .output(IoLayout::Local),
            ],
            vec![
                all_reduce(Reduction::Sum, "x", "s"),
                all_reduce(Reduction::Avg, "x", "a"),
                all_reduce(Reduction::Max, "i", "m"),
                all_reduce(Reduction::Sum, "p", "p"),
            ],
        );
        let bundle = Bundle::new(&format!("all-reduce-{n}"), &plan);
        let x = per_rank(n, &[2, 3], 1.0);
        let i: Vec<T> = (0..n)
            .map(|r| T::new(&[4], |k| ((r * 7 + k * 3) % 5) as f64 - 2.0))
            .collect();
        let p = per_rank(n, &[2, 3], -4.0);
        bundle
            .input("x", F32, &T::stack(&x))
            .input("i", DType::I32, &T::stack(&i))
            .input("p", F32, &T::stack(&p));
        bundle.run(&[]).assert_success();

        assert_eq!(bundle.output("out_s", F32), fold(F32, Reduction::Sum, &x));
        assert_eq!(bundle.output("out_a", F32), fold(F32, Reduction::Avg, &x));
        assert_eq!(
            bundle.output("out_m", DType::I32),
            fold(DType::I32, Reduction::Max, &i)
        );
        let summed = fold(F32, Reduction::Sum, &p);
        assert_eq!(
            bundle.output("out_p", F32),
            T::stack(&vec![summed; n]),
            "{n} ranks"
        );
        bundle.remove();
    }
}

#[test]
fn reduce_scatter_along_dims_0_and_1() {
    for n in RANKS {
        let plan = plan(
            n,
            vec![
                buffer("x", F32, &[2 * n, 3]).input(IoLayout::Local),
                buffer("r0", F32, &[2, 3]).output(IoLayout::Sliced(0)),
                buffer("y", F32, &[2, 2 * n]).input(IoLayout::Local),
                buffer("r1", F32, &[2, 2]).output(IoLayout::Sliced(1)),
            ],
            vec![
                Step::ReduceScatter {
                    reduction: Reduction::Sum,
                    input: "x".into(),
                    output: "r0".into(),
                    dim: 0,
                    stream: 0,
                    axis: None,
                },
                Step::ReduceScatter {
                    reduction: Reduction::Avg,
                    input: "y".into(),
                    output: "r1".into(),
                    dim: 1,
                    stream: 0,
                    axis: None,
                },
            ],
        );
        let bundle = Bundle::new(&format!("reduce-scatter-{n}"), &plan);
        let x = per_rank(n, &[2 * n, 3], 0.0);
        let y = per_rank(n, &[2, 2 * n], 3.0);
        bundle
            .input("x", F32, &T::stack(&x))
            .input("y", F32, &T::stack(&y));
        bundle.run(&[]).assert_success();
        // Sliced outputs hold the whole reduction.
        assert_eq!(bundle.output("out_r0", F32), fold(F32, Reduction::Sum, &x));
        assert_eq!(bundle.output("out_r1", F32), fold(F32, Reduction::Avg, &y));
        bundle.remove();
    }
}

#[test]
fn all_gather_along_dims_0_and_1() {
    for n in RANKS {
        let plan = plan(
            n,
            vec![
                buffer("x", F32, &[2, 3]).input(IoLayout::Sliced(0)),
                buffer("g0", F32, &[2 * n, 3]).output(IoLayout::Replicated),
                buffer("y", F32, &[2, 3]).input(IoLayout::Sliced(1)),
                buffer("g1", F32, &[2, 3 * n]).output(IoLayout::Local),
            ],
            vec![
                Step::AllGather {
                    input: "x".into(),
                    output: "g0".into(),
                    dim: 0,
                    stream: 0,
                    axis: None,
                },
                Step::AllGather {
                    input: "y".into(),
                    output: "g1".into(),
                    dim: 1,
                    stream: 0,
                    axis: None,
                },
            ],
        );
        let bundle = Bundle::new(&format!("all-gather-{n}"), &plan);
        let x = T::new(&[2 * n, 3], |i| i as f64);
        let y = T::new(&[2, 3 * n], |i| 100.0 - i as f64);
        bundle.input("x", F32, &x).input("y", F32, &y);
        bundle.run(&[]).assert_success();
        assert_eq!(bundle.output("out_g0", F32), x);
        assert_eq!(bundle.output("out_g1", F32), T::stack(&vec![y; n]));
        bundle.remove();
    }
}

#[test]
fn broadcast_and_reduce_to_the_last_rank() {
    for n in RANKS {
        let root = n - 1;
        let plan = plan(
            n,
            vec![
                buffer("x", F32, &[4]).input(IoLayout::Local),
                buffer("b", F32, &[4]).output(IoLayout::Local),
                buffer("o", F32, &[4])
                    .input(IoLayout::Local)
                    .output(IoLayout::Local),
            ],
            vec![
                Step::Broadcast {
                    root,
                    input: "x".into(),
                    output: "b".into(),
                    stream: 0,
                    axis: None,
                },
                Step::Reduce {
                    root,
                    reduction: Reduction::Max,
                    input: "x".into(),
                    output: "o".into(),
                    stream: 0,
                    axis: None,
                },
            ],
        );
        let bundle = Bundle::new(&format!("broadcast-reduce-{n}"), &plan);
        let x: Vec<T> = (0..n)
            .map(|r| T::new(&[4], |i| ((r * 5 + i * 3) % 7) as f64))
            .collect();
        let o = per_rank(n, &[4], -50.0);
        bundle
            .input("x", F32, &T::stack(&x))
            .input("o", F32, &T::stack(&o));
        bundle.run(&[]).assert_success();
        assert_eq!(
            bundle.output("out_b", F32),
            T::stack(&vec![x[root].clone(); n])
        );
        // The root's output is the reduction; the other ranks keep their
        // input (the interpreter's semantics).
        let mut expected = x.clone();
        expected[root] = fold(F32, Reduction::Max, &x);
        assert_eq!(bundle.output("out_o", F32), T::stack(&expected));
        bundle.remove();
    }
}

#[test]
fn all_to_all_both_ways() {
    for n in RANKS {
        let plan = plan(
            n,
            vec![
                buffer("x", F32, &[2 * n, 3]).input(IoLayout::Local),
                buffer("t", F32, &[2, 3 * n]).output(IoLayout::Local),
                buffer("y", F32, &[2, 2 * n]).input(IoLayout::Local),
                buffer("u", F32, &[2 * n, 2]).output(IoLayout::Local),
            ],
            vec![
                Step::AllToAll {
                    input: "x".into(),
                    output: "t".into(),
                    split_dim: 0,
                    concat_dim: 1,
                    stream: 0,
                    axis: None,
                },
                Step::AllToAll {
                    input: "y".into(),
                    output: "u".into(),
                    split_dim: 1,
                    concat_dim: 0,
                    stream: 0,
                    axis: None,
                },
            ],
        );
        let bundle = Bundle::new(&format!("all-to-all-{n}"), &plan);
        let x = per_rank(n, &[2 * n, 3], 0.0);
        let y = per_rank(n, &[2, 2 * n], 7.0);
        bundle
            .input("x", F32, &T::stack(&x))
            .input("y", F32, &T::stack(&y));
        bundle.run(&[]).assert_success();
        // Rank r receives part r of every rank's input, in rank order.
        let t: Vec<T> = (0..n)
            .map(|r| T::concat(&x.iter().map(|q| q.part(0, n, r)).collect::<Vec<_>>(), 1))
            .collect();
        let u: Vec<T> = (0..n)
            .map(|r| T::concat(&y.iter().map(|q| q.part(1, n, r)).collect::<Vec<_>>(), 0))
            .collect();
        assert_eq!(bundle.output("out_t", F32), T::stack(&t), "{n} ranks");
        assert_eq!(bundle.output("out_u", F32), T::stack(&u), "{n} ranks");
        bundle.remove();
    }
}

#[test]
fn send_and_recv_between_two_stages_of_two_ranks() {
    let mut plan = plan(4, Vec::new(), Vec::new());
    plan.stages = vec![
        stage(
            0,
            2,
            vec![
                buffer("x", F32, &[4]).input(IoLayout::Local),
                buffer("w", F32, &[4]).output(IoLayout::Local),
            ],
            vec![
                launch("add_rank", &["x"]),
                Step::Send {
                    input: "x".into(),
                    peer_stage: 1,
                    stream: 0,
                },
                // Overwritten after the send: the value sent must not change.
                launch("twice", &["x"]),
                Step::Recv {
                    output: "w".into(),
                    peer_stage: 1,
                    stream: 0,
                },
            ],
        ),
        stage(
            2,
            2,
            vec![buffer("y", F32, &[4])],
            vec![
                Step::Recv {
                    output: "y".into(),
                    peer_stage: 0,
                    stream: 0,
                },
                launch("twice", &["y"]),
                launch("add_rank", &["y"]),
                Step::Send {
                    input: "y".into(),
                    peer_stage: 0,
                    stream: 0,
                },
            ],
        ),
    ];
    plan.stages[1].function = "second".into();
    let bundle = Bundle::new("send-recv", &plan);
    let x = per_rank(2, &[4], 1.0);
    bundle.input("x", F32, &T::stack(&x));
    bundle.run(&[]).assert_success();
    // Position p: ((x + p) * 2) + p.
    let w: Vec<T> = (0..2)
        .map(|p| T::new(&[4], |i| (x[p].data[i] + p as f64) * 2.0 + p as f64))
        .collect();
    assert_eq!(bundle.output("out_w", F32), T::stack(&w));
    bundle.remove();
}

/// A sender repeating its steps ahead of its receiver keeps at most one
/// buffer per send step: each is freed once the receiver has it, so
/// memory stays flat under `--repeat` (it grew by one copy of the input
/// per iteration). Messages of 64 KiB take MPI's rendezvous path, where a
/// send completes only when the receive does.
#[test]
fn send_buffers_are_freed_once_received() {
    const N: usize = 16384;
    let mut plan = plan(2, Vec::new(), Vec::new());
    plan.stages = vec![
        stage(
            0,
            1,
            vec![buffer("x", F32, &[N]).input(IoLayout::Replicated)],
            vec![Step::Send {
                input: "x".into(),
                peer_stage: 1,
                stream: 0,
            }],
        ),
        stage(
            1,
            1,
            vec![buffer("y", F32, &[N]).output(IoLayout::Replicated)],
            vec![Step::Recv {
                output: "y".into(),
                peer_stage: 0,
                stream: 0,
            }],
        ),
    ];
    plan.stages[1].function = "second".into();
    let bundle = Bundle::new("send-buffers", &plan);
    let x = T::new(&[N], |i| i as f64);
    bundle.input("x", F32, &x);
    let outcome = bundle.run(&["--repeat", "100", "--timing"]);
    outcome.assert_success();
    assert!(
        outcome
            .stderr
            .contains("  send buffers held at once, at most: 1\n"),
        "{}",
        outcome.stderr
    );
    assert_eq!(bundle.output("out_y", F32), x);
    bundle.remove();
}

#[test]
fn views_alias_their_base_buffer() {
    for n in RANKS {
        let plan = plan(
            n,
            vec![
                buffer("base", F32, &[8])
                    .input(IoLayout::Replicated)
                    .output(IoLayout::Local),
                buffer("lo", F32, &[4]).view_of("base", 0),
                buffer("mid", F32, &[4]).view_of("base", 2),
                buffer("hi", F32, &[2, 2]).view_of("base", 4),
                buffer("c", F32, &[4]).output(IoLayout::Replicated),
            ],
            vec![
                // Overlapping input and output.
                all_reduce(Reduction::Sum, "mid", "hi"),
                launch("add_rank", &["lo"]),
                Step::Copy {
                    input: "hi".into(),
                    output: "c".into(),
                    stream: 0,
                },
            ],
        );
        let bundle = Bundle::new(&format!("views-{n}"), &plan);
        let base = T::new(&[8], |i| i as f64 + 0.5);
        bundle.input("base", F32, &base);
        bundle.run(&[]).assert_success();
        let sums: Vec<f64> = (2..6).map(|i| base.data[i] * n as f64).collect();
        let rows: Vec<T> = (0..n)
            .map(|r| {
                T::new(&[8], |i| {
                    if i < 4 {
                        base.data[i] + r as f64
                    } else {
                        sums[i - 4]
                    }
                })
            })
            .collect();
        assert_eq!(bundle.output("out_base", F32), T::stack(&rows), "{n} ranks");
        assert_eq!(bundle.output("out_c", F32), T::new(&[4], |i| sums[i]));
        bundle.remove();
    }
}

#[test]
fn views_with_a_rank_stride_select_each_ranks_part() {
    for n in RANKS {
        let plan = plan(
            n,
            vec![
                buffer("base", F32, &[1 + 4 * n])
                    .input(IoLayout::Replicated)
                    .output(IoLayout::Local),
                buffer("mine", F32, &[4]).view_of("base", 1).rank_stride(4),
            ],
            vec![launch("add_rank", &["mine"])],
        );
        let bundle = Bundle::new(&format!("rank-stride-{n}"), &plan);
        let base = T::new(&[1 + 4 * n], |i| i as f64);
        bundle.input("base", F32, &base);
        bundle.run(&[]).assert_success();
        let rows: Vec<T> = (0..n)
            .map(|r| {
                T::new(&[1 + 4 * n], |i| {
                    let mine = (1 + 4 * r..1 + 4 * r + 4).contains(&i);
                    base.data[i] + if mine { r as f64 } else { 0.0 }
                })
            })
            .collect();
        assert_eq!(bundle.output("out_base", F32), T::stack(&rows), "{n} ranks");
        bundle.remove();
    }
}

#[test]
fn half_precision_and_i1_reductions_fold_in_rank_order() {
    let f16 = DType::F16;
    let bf16 = DType::BF16;
    let i1 = DType::I1;
    for n in RANKS {
        let plan = plan(
            n,
            vec![
                buffer("h", f16, &[4]).input(IoLayout::Local),
                buffer("hs", f16, &[4]).output(IoLayout::Replicated),
                buffer("ha", f16, &[4]).output(IoLayout::Replicated),
                buffer("hr", f16, &[1]).output(IoLayout::Sliced(0)),
                buffer("hm", f16, &[4]).output(IoLayout::Local),
                buffer("g", bf16, &[4]).input(IoLayout::Local),
                buffer("gs", bf16, &[4]).output(IoLayout::Replicated),
                buffer("k", i1, &[4]).input(IoLayout::Local),
                buffer("ko", i1, &[4]).output(IoLayout::Replicated),
                buffer("ka", i1, &[4]).output(IoLayout::Replicated),
                // 5 elements: unequal shares of the fold across ranks.
                buffer("u", f16, &[5]).input(IoLayout::Local),
                buffer("us", f16, &[5]).output(IoLayout::Replicated),
            ],
            vec![
                all_reduce(Reduction::Sum, "h", "hs"),
                all_reduce(Reduction::Avg, "h", "ha"),
                Step::ReduceScatter {
                    reduction: Reduction::Sum,
                    input: "h".into(),
                    output: "hr".into(),
                    dim: 0,
                    stream: 0,
                    axis: None,
                },
                Step::Reduce {
                    root: 0,
                    reduction: Reduction::Sum,
                    input: "h".into(),
                    output: "hm".into(),
                    stream: 0,
                    axis: None,
                },
                all_reduce(Reduction::Sum, "g", "gs"),
                all_reduce(Reduction::Max, "k", "ko"),
                all_reduce(Reduction::Min, "k", "ka"),
                all_reduce(Reduction::Prod, "u", "us"),
            ],
        );
        let plan = if n == 4 {
            plan
        } else {
            // `hr` is one element per rank: only a 4-rank stage splits 4.
            let mut plan = plan;
            let stage = &mut plan.stages[0];
            stage.buffers.retain(|b| b.name != "hr");
            stage.steps.retain(|s| !s.buffers().contains(&"hr"));
            plan
        };
        let bundle = Bundle::new(&format!("half-{n}"), &plan);
        // 2048 + 1 is a tie in f16 that rounds back to 2048; in rank order
        // the sum stays 2048, where an exact sum would give 2052.
        let h: Vec<T> = (0..n)
            .map(|r| {
                T::new(&[4], |i| match (r, i) {
                    (0, 0) => 2048.0,
                    (_, 0) => 1.0,
                    (_, 1) => 0.1 * (r + 1) as f64,
                    (_, 2) => -3.5 + r as f64,
                    _ => 1000.0 / (r + 3) as f64,
                })
            })
            .map(|t| T::new(&t.shape, |i| round(f16, t.data[i])))
            .collect();
        let g: Vec<T> = (0..n)
            .map(|r| {
                T::new(&[4], |i| match (r, i) {
                    (0, 0) => 256.0,
                    _ => round(bf16, 1.0 + 0.01 * i as f64),
                })
            })
            .collect();
        let k: Vec<T> = (0..n)
            .map(|r| T::new(&[4], |i| f64::from(u8::from((r + i) % 2 == 0 || i == 3))))
            .collect();
        let u: Vec<T> = (0..n)
            .map(|r| T::new(&[5], |i| round(f16, 1.1 + 0.37 * (r * 5 + i) as f64)))
            .collect();
        bundle
            .input("u", f16, &T::stack(&u))
            .input("h", f16, &T::stack(&h))
            .input("g", bf16, &T::stack(&g))
            .input("k", i1, &T::stack(&k));
        bundle.run(&[]).assert_success();

        let hs = fold(f16, Reduction::Sum, &h);
        if n == 4 {
            assert_eq!(hs.data[0], 2048.0, "rank order, rounding each step");
            assert_eq!(bundle.output("out_hr", f16), hs);
        }
        assert_eq!(bundle.output("out_hs", f16), hs, "{n} ranks");
        assert_eq!(bundle.output("out_ha", f16), fold(f16, Reduction::Avg, &h));
        let mut hm = h.clone();
        hm[0] = hs.clone();
        assert_eq!(bundle.output("out_hm", f16), T::stack(&hm));
        assert_eq!(
            bundle.output("out_gs", bf16),
            fold(bf16, Reduction::Sum, &g)
        );
        assert_eq!(bundle.output("out_ko", i1), fold(i1, Reduction::Max, &k));
        assert_eq!(bundle.output("out_ka", i1), fold(i1, Reduction::Min, &k));
        assert_eq!(bundle.output("out_us", f16), fold(f16, Reduction::Prod, &u));
        bundle.remove();
    }
}

#[test]
fn exact_reductions_fold_f32_in_rank_order() {
    let n = 4;
    let plan = plan(
        n,
        vec![
            buffer("x", F32, &[4]).input(IoLayout::Local),
            buffer("s", F32, &[4]).output(IoLayout::Replicated),
            buffer("r", F32, &[1]).output(IoLayout::Sliced(0)),
            buffer("m", F32, &[4]).output(IoLayout::Local),
        ],
        vec![
            all_reduce(Reduction::Sum, "x", "s"),
            Step::ReduceScatter {
                reduction: Reduction::Sum,
                input: "x".into(),
                output: "r".into(),
                dim: 0,
                stream: 0,
                axis: None,
            },
            Step::Reduce {
                root: 2,
                reduction: Reduction::Sum,
                input: "x".into(),
                output: "m".into(),
                stream: 0,
                axis: None,
            },
        ],
    );
    let bundle = Bundle::new("exact", &plan);
    // 2^24 + 1 rounds back to 2^24 in f32: rank order gives 2^24 where
    // (r0 + r1) + (r2 + r3) gives 2^24 + 2.
    let x: Vec<T> = (0..n)
        .map(|r| T::new(&[4], |i| if r == 0 { 16777216.0 } else { 1.0 + i as f64 }))
        .collect();
    bundle.input("x", F32, &T::stack(&x));
    bundle.run(&["--exact-reductions"]).assert_success();
    let s = fold(F32, Reduction::Sum, &x);
    assert_eq!(s.data[0], 16777216.0);
    assert_eq!(bundle.output("out_s", F32), s);
    assert_eq!(bundle.output("out_r", F32), s);
    let mut m = x.clone();
    m[2] = s;
    assert_eq!(bundle.output("out_m", F32), T::stack(&m));
    bundle.remove();
}

#[test]
fn kernels_of_32_buffers() {
    let mut buffers = vec![buffer("all", F32, &[32])
        .input(IoLayout::Replicated)
        .output(IoLayout::Replicated)];
    let names: Vec<String> = (0..32).map(|i| format!("p{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        buffers.push(buffer(name, F32, &[1]).view_of("all", i));
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let plan = plan(1, buffers, vec![launch("sum32", &refs)]);
    let bundle = Bundle::new("arity-32", &plan);
    bundle.input("all", F32, &T::new(&[32], |i| i as f64));
    bundle.run(&[]).assert_success();
    let expected = T::new(&[32], |i| if i == 31 { 465.0 } else { i as f64 });
    assert_eq!(bundle.output("out_all", F32), expected);
    bundle.remove();
}

/// A [dp = 2, tp = 2] mesh: an input cut into blocks along both axes, an
/// all_gather over tp, an all_reduce over dp of a per-replica value, files
/// joined back from the blocks.
#[test]
fn collectives_over_one_axis_of_a_mesh() {
    let io = |name: &str, layouts: &[IoLayout]| coco_bundle::Io {
        name: name.into(),
        ..axes(layouts)
    };
    let mut x = buffer("x", F32, &[2, 3]);
    x.input = Some(io("x", &[IoLayout::Sliced(0), IoLayout::Sliced(1)]));
    let mut rows = buffer("rows", F32, &[2, 6]);
    rows.output = Some(io("out_rows", &[IoLayout::Sliced(0), IoLayout::Replicated]));
    let mut g = buffer("g", F32, &[4]);
    g.input = Some(io("g", &[IoLayout::Local, IoLayout::Sliced(0)]));
    let mut sum = buffer("sum", F32, &[4]);
    sum.output = Some(io("out_sum", &[IoLayout::Replicated, IoLayout::Sliced(0)]));
    let mut plan = plan(
        4,
        vec![x, rows, g, sum],
        vec![
            Step::AllGather {
                input: "x".into(),
                output: "rows".into(),
                dim: 1,
                stream: 0,
                axis: Some("tp".into()),
            },
            Step::AllReduce {
                reduction: Reduction::Sum,
                input: "g".into(),
                output: "sum".into(),
                stream: 0,
                axis: Some("dp".into()),
            },
        ],
    );
    plan.stages[0].mesh = mesh(&[("dp", 2), ("tp", 2)]);
    let bundle = Bundle::new("mesh-axes", &plan);
    let xs = T::new(&[4, 6], |i| i as f64);
    // One [8] gradient per dp replica; tp halves it.
    let gs = T::new(&[2, 8], |i| (i * i) as f64 * 0.5);
    bundle.input("x", F32, &xs).input("g", F32, &gs);
    bundle.run(&[]).assert_success();
    // Gathering the tp blocks of each dp row rebuilds the whole file.
    assert_eq!(bundle.output("out_rows", F32), xs);
    let replicas: Vec<T> = (0..2)
        .map(|r| T::new(&[8], |i| gs.data[r * 8 + i]))
        .collect();
    assert_eq!(
        bundle.output("out_sum", F32),
        fold(F32, Reduction::Sum, &replicas)
    );
    bundle.remove();
}
