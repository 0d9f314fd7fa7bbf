//! Validated builders for coco ops, for passes that create IR. Each builder
//! infers the result type with the layout rules (`rules.rs`) and checks every
//! input before calling MLIR, because the C API aborts on some malformed
//! operations and a failed `build()` carries no location: a mistake here
//! becomes an `Error::Build` naming the op and the reason, never an abort.

use melior::{
    ir::{
        attribute::{DenseI64ArrayAttribute, IntegerAttribute, StringAttribute},
        operation::OperationBuilder,
        r#type::{IntegerType, RankedTensorType},
        Attribute, Identifier, Location, Operation, Type, Value, ValueLike,
    },
    Context,
};

use super::{
    layout::{DistTensor, Layout},
    mesh::{placed_type, shaped_placed_type, Mesh, Placement},
    ops::{self, Reduction},
    rules::{infer_result_layout, LayoutPattern, Operand},
};
use crate::{Error, Result};

/// Where a collective over one mesh axis puts its result: the axis, the
/// mesh, and the result's placement on it.
#[derive(Clone, Copy)]
pub struct OnAxis<'m> {
    pub axis: &'m str,
    pub mesh: &'m Mesh,
    pub placement: &'m Placement,
}

/// Builds coco ops at one location.
pub struct CocoBuilder<'c> {
    context: &'c Context,
    location: Location<'c>,
}

impl<'c> CocoBuilder<'c> {
    pub fn new(context: &'c Context, location: Location<'c>) -> Self {
        CocoBuilder { context, location }
    }

    /// `coco.all_reduce`: local → replicated.
    pub fn all_reduce(&self, kind: Reduction, input: Value<'c, '_>) -> Result<Operation<'c>> {
        self.layout_op(ops::ALL_REDUCE, &[input], None, Some(kind), None)
    }

    /// `coco.reduce_scatter`: local → sliced along `dim`.
    pub fn reduce_scatter(
        &self,
        kind: Reduction,
        input: Value<'c, '_>,
        dim: i64,
    ) -> Result<Operation<'c>> {
        self.layout_op(ops::REDUCE_SCATTER, &[input], Some(dim), Some(kind), None)
    }

    /// `coco.reduce`: local → local, the reduction on `root`.
    pub fn reduce(
        &self,
        kind: Reduction,
        input: Value<'c, '_>,
        root: i64,
    ) -> Result<Operation<'c>> {
        self.with_root(
            self.layout_op(ops::REDUCE, &[input], None, Some(kind), None)?,
            root,
        )
    }

    /// `coco.broadcast`: root's value → replicated.
    pub fn broadcast(&self, input: Value<'c, '_>, root: i64) -> Result<Operation<'c>> {
        self.with_root(
            self.layout_op(ops::BROADCAST, &[input], None, None, None)?,
            root,
        )
    }

    fn with_root(&self, mut op: Operation<'c>, root: i64) -> Result<Operation<'c>> {
        if root < 0 {
            return Err(Error::Build {
                op: crate::ir::op_name(&op),
                message: format!("root must be >= 0, found {root}"),
            });
        }
        let i64_type = IntegerType::new(self.context, 64).into();
        op.set_attribute("root", IntegerAttribute::new(i64_type, root).into());
        Ok(op)
    }

    /// `coco.all_gather`: sliced → replicated.
    pub fn all_gather(&self, input: Value<'c, '_>) -> Result<Operation<'c>> {
        self.layout_op(ops::ALL_GATHER, &[input], None, None, None)
    }

    /// `coco.slice`: replicated → sliced along `dim`, no communication.
    pub fn slice(&self, input: Value<'c, '_>, dim: i64) -> Result<Operation<'c>> {
        self.layout_op(ops::SLICE, &[input], Some(dim), None, None)
    }

    /// `coco.slice` of `input` to the placement `on.placement` on a mesh:
    /// each rank keeps its block (no communication; `on.axis` is unused).
    pub fn slice_placed(&self, input: Value<'c, '_>, on: OnAxis) -> Result<Operation<'c>> {
        let result = self.placed_result(ops::SLICE, input, on.mesh, on.placement)?;
        OperationBuilder::new(ops::SLICE, self.location)
            .add_operands(&[input])
            .add_results(&[result])
            .build()
            .map_err(|e| Error::Build {
                op: ops::SLICE.to_string(),
                message: e.to_string(),
            })
    }

    /// `coco.reduce_elements` of every element of `input` on a mesh: a
    /// 0-d result placed as `on.placement` (the caller applies the rule
    /// axis by axis: a sliced axis gives partial results, `#coco.local`).
    pub fn reduce_elements_placed(
        &self,
        kind: Reduction,
        input: Value<'c, '_>,
        on: OnAxis,
    ) -> Result<Operation<'c>> {
        let fail = |message: String| Error::Build {
            op: ops::REDUCE_ELEMENTS.to_string(),
            message,
        };
        let element = DistTensor::from_type(input.r#type())
            .ok_or_else(|| fail(format!("operand {} is not a coco tensor", input.r#type())))?
            .element;
        let result = shaped_placed_type(self.context, &[], element, on.mesh, on.placement)
            .ok_or_else(|| fail(format!("no layout {}", on.placement.text(on.mesh))))?;
        OperationBuilder::new(ops::REDUCE_ELEMENTS, self.location)
            .add_operands(&[input])
            .add_results(&[result])
            .add_attributes(&[self.kind_attribute(kind)])
            .build()
            .map_err(|e| fail(e.to_string()))
    }

    /// The type of `op`'s result: `input`'s shape and element type placed
    /// as `placement` on `mesh`.
    fn placed_result(
        &self,
        op: &str,
        input: Value<'c, '_>,
        mesh: &Mesh,
        placement: &Placement,
    ) -> Result<Type<'c>> {
        placed_type(self.context, input.r#type(), mesh, placement).ok_or_else(|| Error::Build {
            op: op.to_string(),
            message: format!(
                "operand {} is not a statically shaped coco tensor",
                input.r#type()
            ),
        })
    }

    /// A reduction's `kind` attribute (an i32, as ODS declares it).
    fn kind_attribute(&self, kind: Reduction) -> (Identifier<'c>, Attribute<'c>) {
        let i32_type = IntegerType::new(self.context, 32).into();
        (
            Identifier::new(self.context, "kind"),
            IntegerAttribute::new(i32_type, kind.value()).into(),
        )
    }

    /// `coco.reduce_elements`: every element of the input to one 0-d value
    /// (a sliced input gives each rank's partial result, `#coco.local`).
    pub fn reduce_elements(&self, kind: Reduction, input: Value<'c, '_>) -> Result<Operation<'c>> {
        self.layout_op(ops::REDUCE_ELEMENTS, &[input], None, Some(kind), None)
    }

    /// `coco.reduce_elements` of the dimensions `dims` only (strictly
    /// increasing): the result keeps the others, and the layout rule says
    /// where a slice goes.
    pub fn reduce_elements_along(
        &self,
        kind: Reduction,
        input: Value<'c, '_>,
        dims: &[i64],
    ) -> Result<Operation<'c>> {
        self.layout_op(ops::REDUCE_ELEMENTS, &[input], None, Some(kind), Some(dims))
    }

    /// An element-wise upstream op (`arith.mulf`, `math.sqrt`, ...) whose
    /// result has the type of its first operand; every operand must have it.
    pub fn elementwise(&self, name: &str, operands: &[Value<'c, '_>]) -> Result<Operation<'c>> {
        let fail = |message: String| Error::Build {
            op: name.to_string(),
            message,
        };
        let first = operands
            .first()
            .ok_or_else(|| fail("needs an operand".into()))?
            .r#type();
        if operands.iter().any(|v| v.r#type() != first) {
            return Err(fail(format!("operands must all have type {first}")));
        }
        OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(&[first])
            .build()
            .map_err(|e| fail(e.to_string()))
    }

    /// `coco.matmul` with Megatron's sharding rules.
    pub fn matmul(&self, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Result<Operation<'c>> {
        self.layout_op(ops::MATMUL, &[lhs, rhs], None, None, None)
    }

    /// A collective `name` over axis `axis` of `mesh`, whose result keeps
    /// the operand's shape and element type and is placed as `placement`
    /// (the caller applies the rule along the axis; the verifier checks
    /// it). `kind` for reductions, `root` for reduce and broadcast.
    pub fn over_axis(
        &self,
        name: &str,
        input: Value<'c, '_>,
        on: OnAxis,
        kind: Option<Reduction>,
        root: Option<i64>,
    ) -> Result<Operation<'c>> {
        let OnAxis {
            axis,
            mesh,
            placement,
        } = on;
        let fail = |message: String| Error::Build {
            op: name.to_string(),
            message,
        };
        let result = self.placed_result(name, input, mesh, placement)?;
        let mut builder = OperationBuilder::new(name, self.location)
            .add_operands(&[input])
            .add_results(&[result])
            .add_attributes(&[(
                Identifier::new(self.context, "axis"),
                StringAttribute::new(self.context, axis).into(),
            )]);
        if let Some(kind) = kind {
            builder = builder.add_attributes(&[self.kind_attribute(kind)]);
        }
        let op = builder.build().map_err(|e| fail(e.to_string()))?;
        match root {
            Some(root) => self.with_root(op, root),
            None => Ok(op),
        }
    }

    /// One op whose result has the first operand's element type; the shape
    /// is the operand's, `[M, N]` for matmul, or without the `reduced`
    /// dimensions for reduce_elements (all of them when `None`).
    fn layout_op(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        sliced_dim: Option<i64>,
        kind: Option<Reduction>,
        reduced: Option<&[i64]>,
    ) -> Result<Operation<'c>> {
        let fail = |message: String| Error::Build {
            op: name.to_string(),
            message,
        };
        let tensors = operands
            .iter()
            .enumerate()
            .map(|(i, v)| {
                DistTensor::from_type(v.r#type())
                    .filter(|t| t.layout.is_some() && t.static_shape().is_some())
                    .ok_or_else(|| {
                        fail(format!(
                            "operand #{i} ({}) is not a statically shaped coco tensor",
                            v.r#type()
                        ))
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        let shape: Vec<i64> = if name == ops::MATMUL {
            let (lhs, rhs) = (
                tensors[0].static_shape().unwrap_or_default(),
                tensors[1].static_shape().unwrap_or_default(),
            );
            if lhs.len() != 2 || rhs.len() != 2 || lhs[1] != rhs[0] {
                return Err(fail(format!(
                    "needs [M, K] x [K, N] operands, found {} and {}",
                    tensors[0].shape_text(),
                    tensors[1].shape_text()
                )));
            }
            vec![lhs[0], rhs[1]]
        } else if name == ops::REDUCE_ELEMENTS {
            let shape = tensors[0].static_shape().unwrap_or_default();
            match reduced {
                Some(dims) => (0..shape.len())
                    .filter(|d| !dims.contains(&(*d as i64)))
                    .map(|d| shape[d])
                    .collect(),
                None => Vec::new(),
            }
        } else {
            tensors[0].static_shape().unwrap_or_default()
        };
        if tensors.iter().any(|t| t.element != tensors[0].element) {
            return Err(fail("operands have different element types".into()));
        }
        let infos: Vec<Operand> = tensors
            .iter()
            .filter_map(DistTensor::rule_operand)
            .collect();
        let layout = match infer_result_layout(name, &infos, shape.len(), kind, reduced)
            .map_err(fail)?
        {
            Some(LayoutPattern::Is(layout)) => layout,
            Some(LayoutPattern::AnySliced) => {
                let dim = sliced_dim.ok_or_else(|| fail("needs the dimension to slice".into()))?;
                if dim < 0 || dim as usize >= shape.len() {
                    return Err(fail(format!(
                        "cannot slice dimension {dim} of a rank-{} tensor",
                        shape.len()
                    )));
                }
                Layout::Sliced(dim)
            }
            other => return Err(fail(format!("has no single result layout ({other:?})"))),
        };
        let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let result: Type = RankedTensorType::new(
            &dims,
            tensors[0].element,
            Some(layout.to_attribute(self.context)),
        )
        .into();
        let mut builder = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(&[result]);
        if let Some(dims) = reduced {
            builder = builder.add_attributes(&[(
                Identifier::new(self.context, "dims"),
                DenseI64ArrayAttribute::new(self.context, dims).into(),
            )]);
        }
        if let Some(kind) = kind {
            builder = builder.add_attributes(&[self.kind_attribute(kind)]);
        }
        builder.build().map_err(|e| fail(e.to_string()))
    }
}
