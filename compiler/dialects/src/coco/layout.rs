//! Distributed tensor layouts: the `#coco.local`, `#coco.replicated` and
//! `#coco.sliced<d>` encodings of builtin ranked tensors.

use std::fmt;

use melior::{
    ir::{
        r#type::{RankedTensorType, ShapedTypeLike},
        Attribute, AttributeLike, Type, TypeLike,
    },
    Context,
};

use crate::{ffi, ir};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Every rank holds a full tensor with its own values.
    Local,
    /// Every rank holds the same full tensor.
    Replicated,
    /// Rank `i` holds slice `i` along the dimension.
    Sliced(i64),
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Layout::Local => write!(f, "#coco.local"),
            Layout::Replicated => write!(f, "#coco.replicated"),
            Layout::Sliced(dim) => write!(f, "#coco.sliced<{dim}>"),
        }
    }
}

impl Layout {
    /// The layout an attribute denotes, if it is a coco layout attribute.
    pub fn from_attribute(attribute: Attribute) -> Option<Layout> {
        let raw = attribute.to_raw();
        // SAFETY: pure queries on a valid attribute.
        unsafe {
            if ffi::cocoAttributeIsALocal(raw) {
                Some(Layout::Local)
            } else if ffi::cocoAttributeIsAReplicated(raw) {
                Some(Layout::Replicated)
            } else if ffi::cocoAttributeIsASliced(raw) {
                Some(Layout::Sliced(ffi::cocoSlicedAttrGetDim(raw)))
            } else {
                None
            }
        }
    }

    pub fn to_attribute(self, context: &Context) -> Attribute<'_> {
        // SAFETY: the shim returns attributes owned by `context`.
        unsafe {
            Attribute::from_raw(match self {
                Layout::Local => ffi::cocoLocalAttrGet(context.to_raw()),
                Layout::Replicated => ffi::cocoReplicatedAttrGet(context.to_raw()),
                Layout::Sliced(dim) => ffi::cocoSlicedAttrGet(context.to_raw(), dim),
            })
        }
    }

    pub fn is_sliced(self) -> bool {
        matches!(self, Layout::Sliced(_))
    }
}

/// Why a distributed tensor has no local shape on a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalShapeError {
    Dynamic,
    /// Sliced dimension `dim` of size `size` does not divide by the group.
    NotDivisible {
        dim: usize,
        size: usize,
    },
}

/// A ranked tensor type seen as a distributed tensor: global shape, element
/// type and layout (absent when the tensor has no coco encoding).
#[derive(Clone, Debug)]
pub struct DistTensor<'c> {
    /// Global shape; dynamic sizes are `None`.
    pub shape: Vec<Option<i64>>,
    pub element: Type<'c>,
    /// The layout, when it is one layout on every axis of the mesh (a plain
    /// `#coco.local`, `#coco.replicated` or `#coco.sliced<d>`).
    pub layout: Option<Layout>,
    /// A `#coco.mesh<{...}>` layout: each axis it names with its layout
    /// (by name; [`DistTensor::placement`] orders them by the mesh).
    pub axes: Option<Vec<(String, Layout)>>,
}

impl<'c> DistTensor<'c> {
    /// `None` unless `ty` is a ranked tensor.
    pub fn from_type(ty: Type<'c>) -> Option<Self> {
        let tensor = RankedTensorType::try_from(ty).ok()?;
        let dynamic = ir::dynamic_size();
        let shape = (0..tensor.rank())
            .map(|i| {
                let size = dim_size(ty, i);
                (size != dynamic).then_some(size)
            })
            .collect();
        let encoding = tensor.encoding();
        Some(DistTensor {
            shape,
            element: tensor.element(),
            layout: encoding.and_then(Layout::from_attribute),
            axes: encoding.and_then(mesh_axes),
        })
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Whether the tensor has a coco layout, plain or per mesh axis.
    pub fn has_coco_layout(&self) -> bool {
        self.layout.is_some() || self.axes.is_some()
    }

    /// What the layout rules need to know; `None` without a coco layout.
    pub fn rule_operand(&self) -> Option<super::rules::Operand> {
        Some(super::rules::Operand {
            layout: self.layout?,
            rank: self.rank(),
        })
    }

    /// The shape when every dimension is static.
    pub fn static_shape(&self) -> Option<Vec<i64>> {
        self.shape.iter().copied().collect()
    }

    /// The shape one of `group_size` ranks holds: the global shape, with the
    /// sliced dimension divided by the group size.
    pub fn local_shape(&self, group_size: usize) -> Result<Vec<usize>, LocalShapeError> {
        let global = self.static_shape().ok_or(LocalShapeError::Dynamic)?;
        let mut shape: Vec<usize> = global.iter().map(|&d| d as usize).collect();
        if let Some(Layout::Sliced(dim)) = self.layout {
            let dim = dim as usize;
            if !shape[dim].is_multiple_of(group_size) {
                return Err(LocalShapeError::NotDivisible {
                    dim,
                    size: shape[dim],
                });
            }
            shape[dim] /= group_size;
        }
        Ok(shape)
    }

    /// The shape as MLIR prints it (`8x?x4`).
    pub fn shape_text(&self) -> String {
        if self.shape.is_empty() {
            return "scalar (rank 0)".into();
        }
        self.shape
            .iter()
            .map(|d| d.map_or("?".to_string(), |d| d.to_string()))
            .collect::<Vec<_>>()
            .join("x")
    }
}

/// The axes of a `#coco.mesh<{axis = layout, ...}>` attribute, in the
/// dictionary's order; `None` for any other attribute. An entry whose value
/// is not a coco layout is left out (the placement then reports the axis
/// as missing).
fn mesh_axes(attribute: Attribute) -> Option<Vec<(String, Layout)>> {
    let raw = attribute.to_raw();
    // SAFETY: pure queries on a valid attribute; the dictionary outlives
    // the loop.
    unsafe {
        if !ffi::cocoAttributeIsAMeshLayout(raw) {
            return None;
        }
        let dictionary = ffi::cocoMeshLayoutAttrGetAxes(raw);
        let count = mlir_sys::mlirDictionaryAttrGetNumElements(dictionary);
        Some(
            (0..count)
                .filter_map(|i| {
                    let entry = mlir_sys::mlirDictionaryAttrGetElement(dictionary, i);
                    let name = ir::owned(mlir_sys::mlirIdentifierStr(entry.name));
                    Layout::from_attribute(Attribute::from_raw(entry.attribute))
                        .map(|layout| (name, layout))
                })
                .collect(),
        )
    }
}

fn dim_size(ty: Type, index: usize) -> i64 {
    // SAFETY: `index` is below the rank of a ranked tensor.
    unsafe { mlir_sys::mlirShapedTypeGetDimSize(ty.to_raw(), index as isize) }
}

/// The ranked tensor type with the same shape and element type as `ty` and
/// layout `layout`. `None` when `ty` is not a statically shaped ranked tensor.
pub fn with_layout<'c>(context: &'c Context, ty: Type<'c>, layout: Layout) -> Option<Type<'c>> {
    let tensor = DistTensor::from_type(ty)?;
    let shape = tensor.static_shape()?;
    let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    Some(RankedTensorType::new(&dims, tensor.element, Some(layout.to_attribute(context))).into())
}

/// Layout text for messages: the layout, or "no coco layout".
pub fn describe(layout: Option<Layout>) -> String {
    layout.map_or_else(
        || "a tensor without a coco layout".to_string(),
        |l| l.to_string(),
    )
}
