//! Frontend values: what a Python expression evaluates to while a kernel is being lowered.
//!
//! Triton's code generator mixes two worlds, and so does this one: compile-time values
//! ([`Const`]: constexprs, Python literals, dtypes) that are folded as Python would, and runtime
//! values (IR [`Value`]s, scalars or tensors) that become TTIR. Everything else a name can denote
//! inside a kernel (a module such as `tl`, a builtin, a jit function, a bound method, a tuple, a
//! block pointer) is a variant of [`FValue`] too. Loops and branches carry values across regions by
//! flattening an `FValue` into IR values plus a [`Skeleton`] that rebuilds it.

use trident_midend::ir::{DType, Value};

/// A compile-time constant (a `tl.constexpr` or a Python literal).
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    None,
    Bool(bool),
    /// Python ints are unbounded; i128 covers every value a kernel can use.
    Int(i128),
    Float(f64),
    Str(String),
    DType(DType),
    /// `tl.pointer_type(T)`: a pointer dtype (the type of a pointer's `.dtype`).
    PtrType(DType),
}

impl From<&crate::spec::ConstValue> for Const {
    /// A constexpr given on the command line (or by a config) as the lowering's constant.
    fn from(value: &crate::spec::ConstValue) -> Const {
        use crate::spec::ConstValue;
        match value {
            ConstValue::Int(i) => Const::Int(*i as i128),
            ConstValue::Float(f) => Const::Float(*f),
            ConstValue::Bool(b) => Const::Bool(*b),
            ConstValue::DType(d) => Const::DType(*d),
            ConstValue::Str(s) => Const::Str(s.clone()),
            ConstValue::None => Const::None,
        }
    }
}

impl Const {
    pub fn describe(&self) -> String {
        match self {
            Const::None => "None".into(),
            Const::Bool(b) => if *b { "True" } else { "False" }.into(),
            Const::Int(v) => v.to_string(),
            Const::Float(v) => format!("{v:?}"),
            Const::Str(s) => format!("{s:?}"),
            Const::DType(d) => format!("tl.{}", d.triton_name()),
            Const::PtrType(d) => format!("pointer<{}>", d.triton_name()),
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Const::None => false,
            Const::Bool(b) => *b,
            Const::Int(v) => *v != 0,
            Const::Float(v) => *v != 0.0,
            Const::Str(s) => !s.is_empty(),
            Const::DType(_) | Const::PtrType(_) => true,
        }
    }
}

/// A block pointer (`tl.make_block_ptr`): lowered, as in Triton 3.6+, entirely in the frontend
/// to pointer arithmetic and masks; it never appears in the IR.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockPtr {
    pub base: Value,
    pub shape: Vec<Value>,
    pub strides: Vec<Value>,
    pub offsets: Vec<Value>,
    pub block_shape: Vec<u32>,
    pub order: Vec<u32>,
}

/// What a name or expression denotes during lowering.
#[derive(Clone, Debug, PartialEq)]
pub enum FValue {
    Const(Const),
    /// A runtime scalar, tensor or tensor descriptor.
    Tensor(Value),
    Tuple(Vec<FValue>),
    /// A Python module or namespace by canonical path (`triton.language`, `triton.language.math`).
    Module(String),
    /// A function of the Triton language by canonical name (`load`, `math.exp2`, `cdiv`).
    Builtin(String),
    /// A Python builtin (`range`, `min`, `float`, ...).
    PyBuiltin(String),
    /// A `@triton.jit` function of the kernel's file.
    JitFn(String),
    /// A method bound to its receiver (`x.to`, `desc.load`).
    Method(Box<FValue>, String),
    BlockPtr(Box<BlockPtr>),
}

impl FValue {
    pub fn int(v: i128) -> FValue {
        FValue::Const(Const::Int(v))
    }

    pub fn as_const(&self) -> Option<&Const> {
        match self {
            FValue::Const(c) => Some(c),
            _ => None,
        }
    }

    pub fn is_const(&self) -> bool {
        matches!(self, FValue::Const(_))
    }
}

/// The shape of a flattened [`FValue`]: which leaves are runtime values (taken in order from the
/// flat list) and which are compile-time parts kept as they are.
#[derive(Clone, Debug, PartialEq)]
pub enum Skeleton {
    Leaf,
    Kept(FValue),
    Tuple(Vec<Skeleton>),
    BlockPtr { rank: usize, block_shape: Vec<u32>, order: Vec<u32> },
}

/// Splits `v` into its runtime values (pushed to `out`) and the skeleton that rebuilds it.
/// Constants stay in the skeleton; call sites that must carry them at runtime materialize them
/// first.
pub fn flatten(v: &FValue, out: &mut Vec<Value>) -> Skeleton {
    match v {
        FValue::Tensor(x) => {
            out.push(*x);
            Skeleton::Leaf
        }
        FValue::Tuple(items) => Skeleton::Tuple(items.iter().map(|i| flatten(i, out)).collect()),
        FValue::BlockPtr(bp) => {
            out.push(bp.base);
            out.extend(&bp.shape);
            out.extend(&bp.strides);
            out.extend(&bp.offsets);
            Skeleton::BlockPtr {
                rank: bp.shape.len(),
                block_shape: bp.block_shape.clone(),
                order: bp.order.clone(),
            }
        }
        other => Skeleton::Kept(other.clone()),
    }
}

/// Rebuilds a value from its skeleton, taking runtime values from `values` in order.
pub fn rebuild(s: &Skeleton, values: &mut impl Iterator<Item = Value>) -> FValue {
    match s {
        Skeleton::Leaf => FValue::Tensor(values.next().expect("flattened value count mismatch")),
        Skeleton::Kept(v) => v.clone(),
        Skeleton::Tuple(items) => FValue::Tuple(items.iter().map(|i| rebuild(i, values)).collect()),
        Skeleton::BlockPtr { rank, block_shape, order } => {
            let mut take =
                |n: usize| -> Vec<Value> { (0..n).map(|_| values.next().expect("count")).collect() };
            let base = take(1)[0];
            let shape = take(*rank);
            let strides = take(*rank);
            let offsets = take(*rank);
            FValue::BlockPtr(Box::new(BlockPtr {
                base,
                shape,
                strides,
                offsets,
                block_shape: block_shape.clone(),
                order: order.clone(),
            }))
        }
    }
}
