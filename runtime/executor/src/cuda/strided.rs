//! Where the parts of a row-major tensor along one dimension lie, as 2-D
//! copies (`cuMemcpy2DAsync`): the device counterpart of
//! [`crate::layout`]'s `pack_parts` and `concat_parts`. Pure arithmetic on
//! byte offsets, so it is unit tested on the CPU against those functions.
//!
//! Seen along dimension `d`, a tensor of shape `S` is `outer` rows (the
//! product of `S[..d]`), each `S[d] * inner * elem` bytes (`inner`: the
//! product of `S[d+1..]`). Split into `P` equal parts along `d`, every row
//! holds one chunk of `S[d] / P * inner * elem` bytes of each part, in part
//! order: part `q` is the chunk at byte `q * chunk` of every row, `outer`
//! rows of `chunk` bytes whose pitch is the row. That is exactly one 2-D
//! copy, from the tensor to a part-major staging buffer (pack) or back
//! (unpack), so a collective along any dimension is its dimension-0 NCCL
//! call between strided copies.

/// Which memory a copy reads or writes: the step's input, its output, or
/// the staging buffer of the step's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Input,
    Output,
    Staging,
}

/// A byte offset into one of the [`Place`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub place: Place,
    pub offset: usize,
}

impl At {
    pub fn input() -> At {
        At {
            place: Place::Input,
            offset: 0,
        }
    }

    pub fn output() -> At {
        At {
            place: Place::Output,
            offset: 0,
        }
    }

    pub fn staging(offset: usize) -> At {
        At {
            place: Place::Staging,
            offset,
        }
    }

    /// `bytes` further on.
    pub fn plus(self, bytes: usize) -> At {
        At {
            offset: self.offset + bytes,
            ..self
        }
    }
}

/// `height` rows of `width` bytes from `src` (rows `src_pitch` bytes
/// apart) to `dst` (rows `dst_pitch` bytes apart): one `cuMemcpy2D`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy2d {
    pub src: At,
    pub src_pitch: usize,
    pub dst: At,
    pub dst_pitch: usize,
    pub width: usize,
    pub height: usize,
}

impl Copy2d {
    /// `bytes` contiguous bytes.
    pub fn flat(src: At, dst: At, bytes: usize) -> Copy2d {
        Copy2d {
            src,
            src_pitch: bytes,
            dst,
            dst_pitch: bytes,
            width: bytes,
            height: 1,
        }
    }

    /// Whether source and destination are each one contiguous range, so a
    /// linear copy of [`Copy2d::bytes`] does the same.
    pub fn is_linear(&self) -> bool {
        self.height <= 1 || (self.src_pitch == self.width && self.dst_pitch == self.width)
    }

    pub fn bytes(&self) -> usize {
        self.width * self.height
    }
}

/// A row-major tensor split into `parts` equal parts along one dimension:
/// `outer` rows, each holding one `chunk`-byte piece of every part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimParts {
    pub outer: usize,
    pub chunk: usize,
    pub parts: usize,
}

impl DimParts {
    /// The tensor of `shape` (`elem` bytes per element) split into `parts`
    /// along `dim`; `shape[dim]` is a multiple of `parts` (the plan checks
    /// say so before anything runs).
    pub fn new(shape: &[usize], elem: usize, dim: usize, parts: usize) -> DimParts {
        let outer = shape[..dim].iter().product();
        let inner: usize = shape[dim + 1..].iter().product();
        DimParts {
            outer,
            chunk: shape[dim] / parts.max(1) * inner * elem,
            parts,
        }
    }

    /// Bytes from one row to the next in the whole tensor.
    pub fn pitch(&self) -> usize {
        self.parts * self.chunk
    }

    /// Bytes of one part.
    pub fn part_bytes(&self) -> usize {
        self.outer * self.chunk
    }

    /// Bytes of the whole tensor.
    pub fn bytes(&self) -> usize {
        self.parts * self.part_bytes()
    }

    /// Whether the parts already lie one after the other (one row), as
    /// `layout::parts_contiguous` says; an empty tensor counts as such.
    pub fn contiguous(&self) -> bool {
        self.outer <= 1
    }

    /// Copies that put every part of the tensor at `whole`, part-major,
    /// at `packed` (`layout::pack_parts`).
    pub fn pack(&self, whole: At, packed: At) -> Vec<Copy2d> {
        (0..self.parts)
            .map(|q| Copy2d {
                src: whole.plus(q * self.chunk),
                src_pitch: self.pitch(),
                dst: packed.plus(q * self.part_bytes()),
                dst_pitch: self.chunk,
                width: self.chunk,
                height: self.outer,
            })
            .filter(|c| c.bytes() > 0)
            .collect()
    }

    /// The inverse of [`DimParts::pack`]: the parts at `packed`,
    /// part-major, concatenated along the dimension into `whole`
    /// (`layout::concat_parts`).
    pub fn unpack(&self, packed: At, whole: At) -> Vec<Copy2d> {
        (0..self.parts)
            .map(|q| Copy2d {
                src: packed.plus(q * self.part_bytes()),
                src_pitch: self.chunk,
                dst: whole.plus(q * self.chunk),
                dst_pitch: self.pitch(),
                width: self.chunk,
                height: self.outer,
            })
            .filter(|c| c.bytes() > 0)
            .collect()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::layout;

    /// Host memory standing in for the device: one byte vector per place.
    pub type Memory = HashMap<Place, Vec<u8>>;

    /// What `cuMemcpy2DAsync` does, on host memory.
    pub fn apply(copy: &Copy2d, memory: &mut Memory) {
        for row in 0..copy.height {
            let from = copy.src.offset + row * copy.src_pitch;
            let bytes = memory[&copy.src.place][from..from + copy.width].to_vec();
            let to = copy.dst.offset + row * copy.dst_pitch;
            memory.get_mut(&copy.dst.place).unwrap()[to..to + copy.width].copy_from_slice(&bytes);
        }
    }

    /// Distinct bytes, so a byte in the wrong place shows.
    pub fn pattern(bytes: usize, seed: usize) -> Vec<u8> {
        (0..bytes)
            .map(|i| (i.wrapping_mul(31) ^ seed.wrapping_mul(97)) as u8)
            .collect()
    }

    /// Shapes, dimensions and part counts that divide them.
    pub fn cases() -> Vec<(Vec<usize>, usize, usize)> {
        let mut cases = Vec::new();
        for shape in [
            vec![8],
            vec![4, 6],
            vec![6, 4],
            vec![2, 3, 4],
            vec![3, 4, 2, 2],
            vec![1, 8, 3],
            vec![2, 0, 4],
        ] {
            for dim in 0..shape.len() {
                for parts in [1, 2, 3, 4] {
                    if shape[dim] % parts == 0 {
                        cases.push((shape.clone(), dim, parts));
                    }
                }
            }
        }
        cases
    }

    #[test]
    fn pack_is_the_cpu_backends_pack_parts() {
        for (shape, dim, parts) in cases() {
            for elem in [1, 2, 4, 8] {
                let geometry = DimParts::new(&shape, elem, dim, parts);
                let bytes = shape.iter().product::<usize>() * elem;
                assert_eq!(geometry.bytes(), bytes, "{shape:?} dim {dim} / {parts}");
                let data = pattern(bytes, 1);
                let mut memory = Memory::from([
                    (Place::Input, data.clone()),
                    (Place::Staging, vec![0; bytes]),
                ]);
                for copy in geometry.pack(At::input(), At::staging(0)) {
                    apply(&copy, &mut memory);
                }
                let want = layout::pack_parts(&data, &shape, elem, dim, parts);
                assert_eq!(
                    memory[&Place::Staging],
                    want,
                    "{shape:?} dim {dim} / {parts}"
                );
                if bytes > 0 {
                    assert_eq!(geometry.contiguous(), layout::parts_contiguous(&shape, dim));
                }
            }
        }
    }

    #[test]
    fn unpack_is_the_cpu_backends_concat_parts() {
        for (shape, dim, parts) in cases() {
            for elem in [1, 2, 8] {
                let mut part_shape = shape.clone();
                part_shape[dim] /= parts;
                let geometry = DimParts::new(&shape, elem, dim, parts);
                let bytes = geometry.bytes();
                let packed = pattern(bytes, 2);
                let mut memory = Memory::from([
                    (Place::Staging, packed.clone()),
                    (Place::Output, vec![0; bytes]),
                ]);
                for copy in geometry.unpack(At::staging(0), At::output()) {
                    apply(&copy, &mut memory);
                }
                let mut want = vec![0; bytes];
                layout::concat_parts(&packed, &part_shape, elem, dim, parts, &mut want);
                assert_eq!(
                    memory[&Place::Output],
                    want,
                    "{shape:?} dim {dim} / {parts}"
                );
            }
        }
    }

    #[test]
    fn geometry_of_a_matrix_split_along_columns() {
        // f32[4, 6] in 3 parts along dim 1: 4 rows of 24 bytes, 8 per part.
        let g = DimParts::new(&[4, 6], 4, 1, 3);
        assert_eq!(
            (g.outer, g.chunk, g.pitch(), g.part_bytes()),
            (4, 8, 24, 32)
        );
        let copies = g.pack(At::input(), At::staging(16));
        assert_eq!(
            copies[2],
            Copy2d {
                src: At {
                    place: Place::Input,
                    offset: 16
                },
                src_pitch: 24,
                dst: At::staging(16 + 64),
                dst_pitch: 8,
                width: 8,
                height: 4,
            }
        );
        assert!(!copies[2].is_linear());
        // Along dim 0 every part is one contiguous block.
        let g = DimParts::new(&[4, 6], 4, 0, 2);
        assert!(g.contiguous());
        assert!(g
            .pack(At::input(), At::staging(0))
            .iter()
            .all(Copy2d::is_linear));
        // Nothing to copy for an empty tensor.
        assert!(DimParts::new(&[2, 0, 4], 4, 2, 2)
            .pack(At::input(), At::staging(0))
            .is_empty());
    }
}
