//! An insertion cursor that creates ops at the end of a block (or at a position in it), stamping
//! each with the current span.
//!
//! The builder checks nothing about types: it is the frontend's and the passes' job to build
//! well-typed ops, and the verifier's to catch them when they do not. The typed helpers here only
//! compute result types for the common shape-preserving cases.

use super::attrs::{Attr, Attrs};
use super::body::{Block, Body, Op, Value};
use super::opcode::Opcode;
use super::span::Span;
use super::types::{DType, Elem, Type};

/// Where new ops go.
pub struct Builder<'a> {
    pub body: &'a mut Body,
    pub block: Block,
    /// `None` appends; `Some(i)` inserts at index i and advances.
    pub position: Option<usize>,
    pub span: Span,
}

impl<'a> Builder<'a> {
    /// A builder appending to `block`.
    pub fn at_end(body: &'a mut Body, block: Block) -> Self {
        Builder { body, block, position: None, span: Span::NONE }
    }

    /// A builder inserting before the op at `index` of `block`.
    pub fn at(body: &'a mut Body, block: Block, index: usize) -> Self {
        Builder { body, block, position: Some(index), span: Span::NONE }
    }

    /// Creates an op at the cursor and returns it.
    pub fn op(&mut self, opcode: Opcode, operands: Vec<Value>, result_types: &[Type], attrs: Attrs) -> Op {
        self.op_with_regions(opcode, operands, result_types, attrs, Vec::new())
    }

    pub fn op_with_regions(
        &mut self,
        opcode: Opcode,
        operands: Vec<Value>,
        result_types: &[Type],
        attrs: Attrs,
        regions: Vec<Block>,
    ) -> Op {
        let op = self.body.create_op(opcode, operands, result_types, attrs, regions, self.span);
        match self.position.as_mut() {
            None => self.body.append_op(self.block, op),
            Some(i) => {
                self.body.insert_op(self.block, *i, op);
                *i += 1;
            }
        }
        op
    }

    /// Creates a single-result op and returns the result.
    pub fn value(&mut self, opcode: Opcode, operands: Vec<Value>, ty: Type, attrs: Attrs) -> Value {
        let op = self.op(opcode, operands, &[ty], attrs);
        self.body.ops[op].results[0]
    }

    pub fn ty(&self, v: Value) -> Type {
        self.body.values[v].ty.clone()
    }

    /// An elementwise op whose result has the type of its first operand.
    pub fn same_type(&mut self, opcode: Opcode, operands: Vec<Value>) -> Value {
        let ty = self.ty(operands[0]);
        self.value(opcode, operands, ty, Attrs::new())
    }

    /// A constant of type `ty` (splatted when `ty` is a tensor).
    pub fn constant(&mut self, ty: Type, value: Attr) -> Value {
        self.value(Opcode::Constant, vec![], ty, Attrs::new().with("value", value))
    }

    pub fn const_int(&mut self, d: DType, v: i64) -> Value {
        let value = if d == DType::I1 { Attr::Bool(v != 0) } else { Attr::Int(v) };
        self.constant(Type::scalar(d), value)
    }

    pub fn const_float(&mut self, d: DType, v: f64) -> Value {
        self.constant(Type::scalar(d), Attr::Float(v))
    }

    pub fn splat(&mut self, v: Value, shape: &[u32]) -> Value {
        let ty = self.ty(v).with_shape(shape);
        self.value(Opcode::Splat, vec![v], ty, Attrs::new())
    }

    /// `tt.make_range {start, end}`: the i32 tensor `start .. end`.
    pub fn make_range(&mut self, start: i64, end: i64) -> Value {
        let ty = Type::tensor(Elem::Scalar(DType::I32), &[(end - start) as u32]);
        self.value(
            Opcode::MakeRange,
            vec![],
            ty,
            Attrs::new().with("start", Attr::Int(start)).with("end", Attr::Int(end)),
        )
    }

    /// `tt.broadcast` of `v` to `shape`.
    pub fn broadcast(&mut self, v: Value, shape: &[u32]) -> Value {
        let ty = self.ty(v).with_shape(shape);
        self.value(Opcode::Broadcast, vec![v], ty, Attrs::new())
    }

    /// `v` with a size-1 dimension inserted at `axis`: `tt.expand_dims` of a tensor, and for a
    /// scalar (whose only axis is 0) a one-element tensor through `tt.splat`, as Triton's
    /// `expand_dims` does for a value that is not a block.
    pub fn expand_dims(&mut self, v: Value, axis: usize) -> Value {
        let mut shape = self.ty(v).shape().to_vec();
        if shape.is_empty() {
            return self.splat(v, &[1]);
        }
        shape.insert(axis, 1);
        let ty = self.ty(v).with_shape(&shape);
        self.value(Opcode::ExpandDims, vec![v], ty, Attrs::new().with("axis", Attr::Int(axis as i64)))
    }

    pub fn cmpi(&mut self, predicate: &str, a: Value, b: Value) -> Value {
        let ty = self.ty(a).with_elem(Elem::Scalar(DType::I1));
        self.value(Opcode::CmpI, vec![a, b], ty, Attrs::new().with("predicate", Attr::Str(predicate.into())))
    }

    pub fn cmpf(&mut self, predicate: &str, a: Value, b: Value) -> Value {
        let ty = self.ty(a).with_elem(Elem::Scalar(DType::I1));
        self.value(Opcode::CmpF, vec![a, b], ty, Attrs::new().with("predicate", Attr::Str(predicate.into())))
    }

    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        self.value(Opcode::Select, vec![cond, a, b], ty, Attrs::new())
    }

    /// A conversion op to `ty`.
    pub fn cast(&mut self, opcode: Opcode, v: Value, ty: Type) -> Value {
        self.value(opcode, vec![v], ty, Attrs::new())
    }
}
