//! How each stage collective moves its bytes on the GPU: the strided copies
//! before the NCCL call, the addresses the call sends from and receives
//! into, the copies after it, and the staging bytes it needs. Pure, so the
//! same routes are checked on the CPU (a simulation of NCCL over host
//! memory, compared with the CPU backend's `layout` reshuffles) and run on
//! the device (`collectives`).
//!
//! The semantics are the CPU backend's (`crate::collective`):
//!
//! - `reduce_scatter` along `d`: the input's parts along `d`, packed
//!   part-major when they are not contiguous, go to `ncclReduceScatter`, so
//!   rank r receives the reduction of part r;
//! - `all_gather` along `d`: `ncclAllGather` gathers the inputs rank-major,
//!   unpacked along `d` when the parts of the output are not contiguous;
//! - `all_to_all`: the input's part r along `split_dim` (packed when not
//!   contiguous) goes to rank r, and the part received from rank r is part
//!   r of the output along `concat_dim` (received part-major and unpacked
//!   when not contiguous).
//!
//! NCCL defines a call whose send and receive memory overlap only in its
//! in-place form (reduce_scatter: the output is part `rank` of the input;
//! all_gather: the input is part `rank` of the output); any other overlap
//! (views of one buffer) goes through staging first, as the CPU backend
//! copies an overlapping input.

use super::strided::{At, Copy2d, DimParts};

/// A device byte range: `bytes` bytes at address `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub bytes: usize,
}

impl Span {
    pub fn overlaps(&self, other: &Span) -> bool {
        self.bytes > 0
            && other.bytes > 0
            && self.start < other.start + other.bytes as u64
            && other.start < self.start + self.bytes as u64
    }
}

/// One collective on the device: `before`, the NCCL call from `send` into
/// `recv`, then `after`, using `staging` bytes of the stream's staging
/// buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub before: Vec<Copy2d>,
    pub send: At,
    pub recv: At,
    pub after: Vec<Copy2d>,
    pub staging: usize,
}

impl Route {
    fn direct() -> Route {
        Route {
            before: Vec::new(),
            send: At::input(),
            recv: At::output(),
            after: Vec::new(),
            staging: 0,
        }
    }

    /// The input copied whole to staging first (`bytes` bytes).
    fn staged_input(bytes: usize) -> Route {
        Route {
            before: vec![Copy2d::flat(At::input(), At::staging(0), bytes)],
            send: At::staging(0),
            staging: bytes,
            ..Route::direct()
        }
    }
}

/// `reduce_scatter` of `input` (shape `shape`) along `dim` over `size`
/// ranks into `output` on rank `rank`.
pub fn reduce_scatter(
    shape: &[usize],
    elem: usize,
    dim: usize,
    size: usize,
    rank: usize,
    input: Span,
    output: Span,
) -> Route {
    let parts = DimParts::new(shape, elem, dim, size);
    let in_place = output.start == input.start + (rank * parts.part_bytes()) as u64;
    if parts.contiguous() {
        if !input.overlaps(&output) || in_place {
            return Route::direct();
        }
        return Route::staged_input(parts.bytes());
    }
    Route {
        before: parts.pack(At::input(), At::staging(0)),
        send: At::staging(0),
        staging: parts.bytes(),
        ..Route::direct()
    }
}

/// `all_gather` of `input` (shape `shape`) along `dim` over `size` ranks
/// into `output` on rank `rank`.
pub fn all_gather(
    shape: &[usize],
    elem: usize,
    dim: usize,
    size: usize,
    rank: usize,
    input: Span,
    output: Span,
) -> Route {
    let mut whole = shape.to_vec();
    whole[dim] *= size;
    let parts = DimParts::new(&whole, elem, dim, size);
    let in_place = input.start == output.start + (rank * parts.part_bytes()) as u64;
    if parts.contiguous() {
        if !input.overlaps(&output) || in_place {
            return Route::direct();
        }
        return Route::staged_input(parts.part_bytes());
    }
    // NCCL writes staging, so an overlapping input is read before the
    // output is written.
    Route {
        recv: At::staging(0),
        after: parts.unpack(At::staging(0), At::output()),
        staging: parts.bytes(),
        ..Route::direct()
    }
}

/// `all_to_all` of `input` (shape `shape`) over `size` ranks into
/// `output`; part q of the send and of the receive memory is
/// [`all_to_all_part`] bytes at `send`/`recv` plus q times that.
pub fn all_to_all(
    shape: &[usize],
    elem: usize,
    split_dim: usize,
    concat_dim: usize,
    size: usize,
    input: Span,
    output: Span,
) -> Route {
    let split = DimParts::new(shape, elem, split_dim, size);
    let mut received = shape.to_vec();
    received[split_dim] /= size.max(1);
    received[concat_dim] *= size;
    let concat = DimParts::new(&received, elem, concat_dim, size);
    let mut route = Route::direct();
    if !split.contiguous() {
        route.before = split.pack(At::input(), At::staging(0));
        route.send = At::staging(0);
        route.staging = split.bytes();
    } else if input.overlaps(&output) {
        // NCCL's sends and receives must not share memory.
        route = Route::staged_input(split.bytes());
    }
    if !concat.contiguous() {
        route.recv = At::staging(route.staging);
        route.after = concat.unpack(route.recv, At::output());
        route.staging += concat.bytes();
    }
    route
}

/// Bytes each rank sends to each other rank in an `all_to_all` of `shape`.
pub fn all_to_all_part(shape: &[usize], elem: usize, split_dim: usize, size: usize) -> usize {
    DimParts::new(shape, elem, split_dim, size).part_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        cuda::strided::{
            tests::{cases, pattern},
            Place,
        },
        layout,
    };

    /// One rank's memory: its input and output at `input` and `output`
    /// (which may overlap) in one arena, and the staging buffer apart.
    struct Rank {
        arena: Vec<u8>,
        input: Span,
        output: Span,
        staging: Vec<u8>,
    }

    impl Rank {
        /// `input` at byte `input_at` of the arena and an output of
        /// `output_bytes` at `output_at` (`None`: right after the input).
        fn new(
            input: &[u8],
            input_at: usize,
            output_bytes: usize,
            output_at: Option<usize>,
        ) -> Rank {
            let output_at = output_at.unwrap_or(input_at + input.len());
            let mut arena = vec![0; (input_at + input.len()).max(output_at + output_bytes)];
            arena[input_at..input_at + input.len()].copy_from_slice(input);
            Rank {
                arena,
                input: Span {
                    start: input_at as u64,
                    bytes: input.len(),
                },
                output: Span {
                    start: output_at as u64,
                    bytes: output_bytes,
                },
                staging: Vec::new(),
            }
        }

        /// The staging buffer `route` needs, and its copies before NCCL.
        fn prepare(&mut self, route: &Route) {
            self.staging = vec![0; route.staging];
            self.copy(&route.before);
        }

        fn range(&self, at: At, bytes: usize) -> (Place, usize, usize) {
            match at.place {
                Place::Input => (Place::Input, self.input.start as usize + at.offset, bytes),
                Place::Output => (Place::Output, self.output.start as usize + at.offset, bytes),
                Place::Staging => (Place::Staging, at.offset, bytes),
            }
        }

        fn read(&self, at: At, bytes: usize) -> Vec<u8> {
            let (place, from, n) = self.range(at, bytes);
            match place {
                Place::Staging => self.staging[from..from + n].to_vec(),
                _ => self.arena[from..from + n].to_vec(),
            }
        }

        fn write(&mut self, at: At, data: &[u8]) {
            let (place, from, n) = self.range(at, data.len());
            match place {
                Place::Staging => self.staging[from..from + n].copy_from_slice(data),
                _ => self.arena[from..from + n].copy_from_slice(data),
            }
        }

        /// What `cuMemcpy2DAsync` does, row by row (input and output are
        /// the arena, seen at their offsets).
        fn copy(&mut self, copies: &[Copy2d]) {
            for copy in copies {
                for row in 0..copy.height {
                    let data = self.read(copy.src.plus(row * copy.src_pitch), copy.width);
                    self.write(copy.dst.plus(row * copy.dst_pitch), &data);
                }
            }
        }

        fn output(&self) -> Vec<u8> {
            self.read(At::output(), self.output.bytes)
        }
    }

    /// The absolute byte range of `bytes` at `at` in the arena, if there.
    fn arena_range(rank: &Rank, at: At, bytes: usize) -> Option<(usize, usize)> {
        let (place, from, n) = rank.range(at, bytes);
        (place != Place::Staging && n > 0).then_some((from, from + n))
    }

    fn disjoint(a: Option<(usize, usize)>, b: Option<(usize, usize)>) -> bool {
        match (a, b) {
            (Some((a0, a1)), Some((b0, b1))) => a1 <= b0 || b1 <= a0,
            _ => true,
        }
    }

    fn sum_i32(parts: &[Vec<u8>]) -> Vec<u8> {
        let mut out = vec![0u8; parts[0].len()];
        for (i, chunk) in out.chunks_exact_mut(4).enumerate() {
            let total = parts.iter().fold(0i32, |acc, p| {
                acc.wrapping_add(i32::from_le_bytes(p[4 * i..4 * i + 4].try_into().unwrap()))
            });
            chunk.copy_from_slice(&total.to_le_bytes());
        }
        out
    }

    #[test]
    fn reduce_scatter_routes_give_the_cpu_backends_parts() {
        for (shape, dim, size) in cases() {
            let elem = 4;
            let bytes = shape.iter().product::<usize>() * elem;
            let out_bytes = bytes / size;
            let inputs: Vec<Vec<u8>> = (0..size).map(|r| pattern(bytes, r + 3)).collect();
            let total = sum_i32(&inputs);
            // The output apart, at the input's start, in NCCL's in-place
            // spot (part r of the input), and overlapping it by half.
            for placement in 0..4 {
                let mut ranks: Vec<Rank> = (0..size)
                    .map(|r| {
                        let at = [None, Some(0), Some(r * out_bytes), Some(bytes / 2)][placement];
                        Rank::new(&inputs[r], 0, out_bytes, at)
                    })
                    .collect();
                let routes: Vec<Route> = ranks
                    .iter()
                    .enumerate()
                    .map(|(r, m)| reduce_scatter(&shape, elem, dim, size, r, m.input, m.output))
                    .collect();
                for (rank, route) in ranks.iter_mut().zip(&routes) {
                    rank.prepare(route);
                }
                let sent: Vec<Vec<u8>> = ranks
                    .iter()
                    .zip(&routes)
                    .map(|(m, route)| m.read(route.send, bytes))
                    .collect();
                for (r, (rank, route)) in ranks.iter_mut().zip(&routes).enumerate() {
                    // NCCL allows overlap only in place.
                    let send = arena_range(rank, route.send, bytes);
                    let recv = arena_range(rank, route.recv, out_bytes);
                    let in_place = match (send, recv) {
                        (Some((s, _)), Some((o, _))) => o == s + r * out_bytes,
                        _ => false,
                    };
                    assert!(disjoint(send, recv) || in_place, "{shape:?} {dim} {size}");
                    let parts: Vec<Vec<u8>> = sent
                        .iter()
                        .map(|s| s[r * out_bytes..(r + 1) * out_bytes].to_vec())
                        .collect();
                    rank.write(route.recv, &sum_i32(&parts));
                    rank.copy(&route.after);
                    let want = layout::slice(&total, &shape, elem, dim, size, r);
                    assert_eq!(
                        rank.output(),
                        want,
                        "{shape:?} dim {dim} over {size}, rank {r}, placement {placement}"
                    );
                }
            }
        }
    }

    #[test]
    fn all_gather_routes_give_the_cpu_backends_concatenation() {
        for (whole, dim, size) in cases() {
            for elem in [1, 2, 4, 8] {
                let mut shape = whole.clone();
                shape[dim] /= size;
                let bytes = shape.iter().product::<usize>() * elem;
                let out_bytes = bytes * size;
                let inputs: Vec<Vec<u8>> = (0..size).map(|r| pattern(bytes, r + 5)).collect();
                let mut want = vec![0; out_bytes];
                layout::concat_parts(&inputs.concat(), &shape, elem, dim, size, &mut want);
                for placement in 0..4 {
                    // The output apart, at the input's start, in NCCL's
                    // in-place spot (the input is its part r), and
                    // overlapping the input by half.
                    let mut ranks: Vec<Rank> = (0..size)
                        .map(|r| {
                            let (input_at, output_at) = [
                                (0, None),
                                (0, Some(0)),
                                (r * bytes, Some(0)),
                                (0, Some(bytes / 2)),
                            ][placement];
                            Rank::new(&inputs[r], input_at, out_bytes, output_at)
                        })
                        .collect();
                    let routes: Vec<Route> = ranks
                        .iter()
                        .enumerate()
                        .map(|(r, m)| all_gather(&shape, elem, dim, size, r, m.input, m.output))
                        .collect();
                    for (rank, route) in ranks.iter_mut().zip(&routes) {
                        rank.prepare(route);
                    }
                    let sent: Vec<Vec<u8>> = ranks
                        .iter()
                        .zip(&routes)
                        .map(|(m, route)| m.read(route.send, bytes))
                        .collect();
                    let gathered = sent.concat();
                    for (r, (rank, route)) in ranks.iter_mut().zip(&routes).enumerate() {
                        let send = arena_range(rank, route.send, bytes);
                        let recv = arena_range(rank, route.recv, out_bytes);
                        let in_place = match (send, recv) {
                            (Some((s, _)), Some((o, _))) => s == o + r * bytes,
                            _ => false,
                        };
                        assert!(disjoint(send, recv) || in_place, "{shape:?} {dim} {size}");
                        rank.write(route.recv, &gathered);
                        rank.copy(&route.after);
                        assert_eq!(
                            rank.output(),
                            want,
                            "{shape:?} dim {dim} over {size}, elem {elem}, rank {r}, placement {placement}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn all_to_all_routes_give_the_cpu_backends_exchange() {
        for (shape, split_dim, size) in cases() {
            for concat_dim in 0..shape.len() {
                for elem in [1, 4, 8] {
                    let bytes = shape.iter().product::<usize>() * elem;
                    let part = all_to_all_part(&shape, elem, split_dim, size);
                    assert_eq!(part * size, bytes);
                    let inputs: Vec<Vec<u8>> = (0..size).map(|r| pattern(bytes, r + 11)).collect();
                    let mut part_shape = shape.clone();
                    part_shape[split_dim] /= size;
                    // The CPU backend: pack along split_dim, exchange,
                    // concatenate along concat_dim.
                    let packed: Vec<Vec<u8>> = inputs
                        .iter()
                        .map(|i| layout::pack_parts(i, &shape, elem, split_dim, size))
                        .collect();
                    for placement in [None, Some(0), Some(bytes / 2)] {
                        let mut ranks: Vec<Rank> = inputs
                            .iter()
                            .map(|i| Rank::new(i, 0, bytes, placement))
                            .collect();
                        let routes: Vec<Route> = ranks
                            .iter()
                            .map(|m| {
                                all_to_all(
                                    &shape, elem, split_dim, concat_dim, size, m.input, m.output,
                                )
                            })
                            .collect();
                        for (rank, route) in ranks.iter_mut().zip(&routes) {
                            rank.prepare(route);
                        }
                        let sent: Vec<Vec<u8>> = ranks
                            .iter()
                            .zip(&routes)
                            .map(|(m, route)| m.read(route.send, bytes))
                            .collect();
                        for (r, (rank, route)) in ranks.iter_mut().zip(&routes).enumerate() {
                            let send = arena_range(rank, route.send, bytes);
                            let recv = arena_range(rank, route.recv, bytes);
                            assert!(disjoint(send, recv), "{shape:?} {split_dim} {concat_dim}");
                            for (q, from) in sent.iter().enumerate() {
                                rank.write(
                                    route.recv.plus(q * part),
                                    &from[r * part..(r + 1) * part],
                                );
                            }
                            rank.copy(&route.after);
                            let received: Vec<u8> = packed
                                .iter()
                                .flat_map(|p| p[r * part..(r + 1) * part].to_vec())
                                .collect();
                            let mut want = vec![0; bytes];
                            layout::concat_parts(
                                &received,
                                &part_shape,
                                elem,
                                concat_dim,
                                size,
                                &mut want,
                            );
                            assert_eq!(
                                rank.output(),
                                want,
                                "{shape:?} split {split_dim} concat {concat_dim} over {size}, rank {r}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn contiguous_collectives_go_straight_to_nccl() {
        let apart = |bytes| Span { start: 0, bytes };
        let after = |start, bytes| Span { start, bytes };
        // Along dim 0, apart: no copies, no staging.
        let route = reduce_scatter(&[4, 3], 4, 0, 2, 1, apart(48), after(100, 24));
        assert_eq!(route, Route::direct());
        let route = all_gather(&[2, 3], 4, 0, 2, 1, apart(24), after(100, 48));
        assert_eq!(route, Route::direct());
        // NCCL's in-place forms stay direct.
        let route = reduce_scatter(&[4, 3], 4, 0, 2, 1, after(100, 48), after(124, 24));
        assert_eq!(route, Route::direct());
        let route = all_gather(&[2, 3], 4, 0, 2, 1, after(124, 24), after(100, 48));
        assert_eq!(route, Route::direct());
        // Another overlap is staged.
        let route = reduce_scatter(&[4, 3], 4, 0, 2, 1, after(100, 48), after(100, 24));
        assert_eq!(route.staging, 48);
        assert_eq!(route.send, At::staging(0));
        // Along dim 1 of [2, 4] over 2 ranks: a pack of 2 rows per part.
        let route = reduce_scatter(&[2, 4], 4, 1, 2, 0, apart(32), after(100, 16));
        assert_eq!(route.before.len(), 2);
        assert_eq!((route.before[1].height, route.before[1].width), (2, 8));
        assert_eq!(route.staging, 32);
    }
}
