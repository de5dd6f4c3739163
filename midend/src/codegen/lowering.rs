//! The target-independent state of lowering one function: the IR, the registers of every value
//! lowered so far, layouts specialized to shapes, per-layout thread-index caches, and the op
//! being lowered (for the span of an error).
//!
//! A backend's emitter owns one and dereferences to it, so `e.get(v)`, `e.layout(v)` or
//! `e.unsupported(..)` read the same in the shared rules and in the backend's own files.

use rustc_hash::FxHashMap;
use std::rc::Rc;

use super::error::{Error, Result};
use super::indexing::{AffineBases, IndexCache};
use crate::analysis::axis_info::{self, AxisInfoMap};
use crate::ir::{Function, Module, Op, Span, Type, Value};
use crate::layout::registers::LayoutInfo;
use crate::passes::uses::UseCounts;

pub struct Lowering<'a, R> {
    /// The module (its source file gives line info and names the kernel in diagnostics).
    pub module: &'a Module,
    /// The function being lowered.
    pub func: &'a Function,
    /// The registers of every value lowered so far: one for a scalar (every thread holds the
    /// same value), one per register index of the layout for a tensor.
    pub vals: FxHashMap<Value, Vec<R>>,
    /// The op being lowered, for error spans.
    pub current: Option<Op>,
    /// The thread's index in its program, its lane in its warp (subgroup) and its warp's index:
    /// 32-bit registers computed in the prologue.
    pub tid: R,
    pub lane: R,
    pub warp: R,
    /// Layouts by encoding text and shape (a layout's registers are computed once).
    layouts: FxHashMap<(String, Vec<u32>), Rc<LayoutInfo>>,
    /// Thread coordinates and affine bases already computed in the prologue.
    pub(super) index: IndexCache<R>,
    /// The function's axis facts (contiguity, divisibility, constancy), which decide how wide
    /// memory accesses may be ([`Lowering::access_width`]).
    pub axis: AxisInfoMap,
    /// The function's use counts, counted on the first question ([`Lowering::uses`]).
    uses: std::cell::OnceCell<UseCounts>,
}

impl<'a, R: Copy> Lowering<'a, R> {
    /// The state of lowering `func`, whose thread ids are in registers `tid`, `lane`, `warp`.
    pub fn new(module: &'a Module, func: &'a Function, [tid, lane, warp]: [R; 3]) -> Lowering<'a, R> {
        Lowering {
            module,
            func,
            vals: FxHashMap::default(),
            current: None,
            tid,
            lane,
            warp,
            layouts: FxHashMap::default(),
            index: IndexCache::default(),
            axis: axis_info::analyze(func),
            uses: std::cell::OnceCell::new(),
        }
    }

    /// The function's use counts (counted on the first question).
    pub fn uses(&self) -> &UseCounts {
        self.uses.get_or_init(|| UseCounts::compute(&self.func.body, self.func.entry))
    }

    /// Whether no op of the function reads `value` (an atomic whose old values nothing reads).
    pub fn is_unused(&self, value: Value) -> bool {
        self.uses().is_unused(value)
    }

    /// How many consecutive elements of `elem_bits` bits an access through `pointer` (masked by
    /// `mask`) may move at once, up to 16 bytes ([`super::memory::access_width`] over the
    /// pointer's layout and axis facts): 1 for a scalar or where nothing is proven.
    pub fn access_width(&mut self, pointer: Value, mask: Option<Value>, elem_bits: u64) -> Result<usize> {
        if !self.ty(pointer).is_tensor() {
            return Ok(1);
        }
        let layout = self.layout(pointer)?;
        let Some(pointer_info) = self.axis.get(pointer) else { return Ok(1) };
        let mask = match mask {
            Some(m) if self.ty(m).is_tensor() => Some(self.axis.get(m)),
            _ => None,
        };
        Ok(super::memory::access_width(&layout, pointer_info, mask, elem_bits))
    }

    /// Takes the affine bases computed so far, leaving none: code that may not use registers
    /// another part of the kernel computed (a warp-specialized producer) starts afresh.
    pub fn take_affine_bases(&mut self) -> AffineBases<R> {
        std::mem::take(&mut self.index.affine_bases)
    }

    /// Puts back bases taken by [`Lowering::take_affine_bases`].
    pub fn restore_affine_bases(&mut self, bases: AffineBases<R>) {
        self.index.affine_bases = bases;
    }

    // ---- errors -------------------------------------------------------------------------------

    /// A user error: the op being lowered has no rule for `what`.
    pub fn unsupported<T>(&self, what: &str) -> Result<T> {
        let (op, span) = self.current_op();
        Err(Error::Unsupported { op, detail: what.to_string(), span })
    }

    /// A user error: the op being lowered would need more of the target than it has (`what`: how
    /// much of what, and the limit).
    pub fn exceeds<T>(&self, what: &str) -> Result<T> {
        let (op, span) = self.current_op();
        Err(Error::Resources { op, detail: what.to_string(), span })
    }

    /// The name and source span of the op being lowered, for errors.
    fn current_op(&self) -> (String, Option<Span>) {
        match self.current {
            Some(op) => {
                let span = self.func.body.span(op);
                (self.func.body.opcode(op).name().to_string(), Some(span).filter(|s| !s.is_none()))
            }
            None => ("this kernel".to_string(), None),
        }
    }

    /// An internal error: the module is not what a backend expects.
    pub fn invalid<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(Error::Invalid(what.into()))
    }

    // ---- values -------------------------------------------------------------------------------

    pub fn ty(&self, v: Value) -> &'a Type {
        self.func.body.ty(v)
    }

    pub fn get(&self, v: Value) -> Result<Vec<R>> {
        match self.vals.get(&v) {
            Some(r) => Ok(r.clone()),
            None => self.invalid(format!("value {v:?} used before it was lowered")),
        }
    }

    pub fn set(&mut self, v: Value, regs: Vec<R>) {
        self.vals.insert(v, regs);
    }

    // ---- layouts ------------------------------------------------------------------------------

    /// The layout of a tensor type (an error for tensors without an encoding, and for layouts
    /// whose thread and register bits overlap, which the register model cannot address).
    pub fn layout_of_type(&mut self, ty: &Type) -> Result<Rc<LayoutInfo>> {
        let Some(enc) = ty.encoding() else {
            return self.invalid(format!("tensor type {ty} has no layout (run convert-to-gpu first)"));
        };
        let key = (enc.to_string(), ty.shape().to_vec());
        if let Some(l) = self.layouts.get(&key) {
            return Ok(l.clone());
        }
        let linear = match enc.to_linear(ty.shape()) {
            Ok(l) => l,
            Err(e) => return self.invalid(format!("layout of {ty}: {e}")),
        };
        let info = Rc::new(LayoutInfo::new(linear));
        if !info.additive {
            return self.unsupported(&format!("the layout of {ty} (thread and register bits overlap)"));
        }
        self.layouts.insert(key, info.clone());
        Ok(info)
    }

    /// The layout of a tensor value.
    pub fn layout(&mut self, v: Value) -> Result<Rc<LayoutInfo>> {
        let ty = self.ty(v);
        self.layout_of_type(ty)
    }

    /// Registers of a value of type `ty` (1 for scalars).
    pub fn num_regs(&mut self, ty: &Type) -> Result<usize> {
        if ty.is_tensor() {
            Ok(self.layout_of_type(ty)?.num_regs())
        } else {
            Ok(1)
        }
    }
}

/// Implements `Deref` and `DerefMut` from a backend's emitter (a struct with one lifetime) to the
/// [`Lowering`] it keeps in `$field`, whose registers are `$reg`: what [`super::Isa`] asks of it.
#[macro_export]
macro_rules! deref_to_lowering {
    ($emitter:ident, $field:ident, $reg:ty) => {
        impl<'a> std::ops::Deref for $emitter<'a> {
            type Target = $crate::codegen::Lowering<'a, $reg>;

            fn deref(&self) -> &Self::Target {
                &self.$field
            }
        }

        impl<'a> std::ops::DerefMut for $emitter<'a> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.$field
            }
        }
    };
}
