//! The emitter: walks the kernel's TTGIR in program order and writes SPIR-V for each op.
//!
//! Each IR value maps to SPIR-V values (the [`Lowering`] state the emitter dereferences to): one
//! for a scalar (every thread holds the same value), one per register index of the layout for a
//! tensor. Which rule lowers an op, and the rules that do not depend on the instruction set
//! (shape ops, reductions, thread coordinates, layout changes), are the midend's
//! ([`trident_midend::codegen`]); the op families live in their own files (`arith.rs`,
//! `memory.rs`, `control.rs`, `reduce.rs`, `dot.rs`, `sort.rs`, `print.rs`). This file holds the
//! SPIR-V primitives those rules are written on ([`Isa`]: constants, prologue arithmetic,
//! workgroup-memory words, barriers), bit conversions, the storage and uniform bindings, the ops
//! only this backend lowers this way ([`LowerOps::target_op`]), and the kernel frame (entry point,
//! builtins, the folded program id).

use rustc_hash::{FxHashMap, FxHashSet};

use rspirv::dr::Operand;
use rspirv::spirv::{self, Capability, Decoration, Op, Scope, StorageClass, Word};
use trident_midend::codegen::{Isa, LowerOps, Lowering};
use trident_midend::ir::{Attr, Block, DType, Function, Module, Op as IrOp, Opcode, Value};

use crate::spirv::{Class, Reg, Spv};
use crate::{Artifact, AssertSite, Error, HighWindow, Mode, Options, ParamAbi, FIRST_PARAM_WORD};
use trident_midend::layout::registers::{Affine, LayoutInfo};

pub type EResult<T> = Result<T, Error>;

/// The class holding one element of `d` (narrow integers and 16/8-bit float bits live in
/// 32-bit values; narrow signed integers sign-extended).
pub fn class_of(d: DType) -> Class {
    match d {
        DType::I1 => Class::Bool,
        DType::I64 | DType::U64 => Class::U64,
        DType::F32 => Class::F32,
        DType::F64 => Class::F64,
        _ => Class::U32,
    }
}

trident_midend::deref_to_lowering!(Emitter, lowering, Reg);

pub struct Emitter<'a> {
    /// The function, its values' registers and layouts (what every backend tracks alike).
    lowering: Lowering<'a, Reg>,
    pub options: &'a Options,
    pub s: Spv,
    /// A function variable (bool) that holds, in every thread, whether the workgroup's subgroups
    /// are what reductions' shuffles assume (`reduce.rs`); set after the grid check in kernels
    /// with reductions when [`Options::shuffle_span`] allows shuffles, else `None`.
    pub subgroups_ok: Option<Word>,
    /// f32 -> f16 conversions round in integer arithmetic (`arith.rs`): the module may store
    /// 16-bit elements through 16-bit storage and the kernel widens an f16 it computed
    /// ([`widens_a_narrowed_f16`]), a round trip NVIDIA's driver then folds away.
    pub f16_rounding_in_integers: bool,
    /// The workgroup array of u32 words (declared at the end, sized by `smem_words`).
    smem_var: Word,
    smem_words: u32,
    /// One storage-buffer variable per binding: the pointer arguments' (their ordinal is their
    /// binding), then the high windows of windowed buffers.
    buffers: Vec<Word>,
    /// Per pointer argument, its high window when its buffer is bound as two (see
    /// [`crate::HighWindow`]).
    windows: Vec<Option<Window>>,
    /// Per binding, the id of its f32-typed view, reserved on first use by a native float atomic
    /// and declared at the end (like workgroup memory); `None` for bindings without one.
    float_views: Vec<Option<Word>>,
    /// Per binding, the ids of its other views ([`View`]: 16-bit elements, `uvec2`, `uvec4`, f16
    /// and bf16), each reserved on first use and declared at the end; `None` for views a binding
    /// lacks.
    views: Vec<[Option<Word>; View::COUNT]>,
    /// Per binding, whether anything reads or writes it as 32-bit words: a binding with a 16-bit
    /// view is then `Aliased` in both views (else its word view is unused and needs no decoration).
    words_used: Vec<bool>,
    uniform_var: Word,
    uniform_words: u32,
    pub program_ids: [Reg; 3],
    pub num_programs: [Reg; 3],
    /// The binding of the assertion report buffer, when the kernel has `tt.assert`s.
    assert_binding: Option<u32>,
    /// Every `tt.assert` lowered so far; its index plus one is what it reports.
    assert_sites: Vec<AssertSite>,
    /// The print buffer and the print sites lowered so far (`print.rs`).
    pub prints: crate::print::Prints,
    /// The workgroup arrays and builtins of cooperative-matrix dots, once one is lowered
    /// (`cooperative/`); declared at the end, sized by the largest dot.
    pub cooperative: Option<crate::cooperative::Arrays>,
    /// The operand type (f16 or bf16) of the dots that may take cooperative matrices in this
    /// kernel (`cooperative::operand_type`); `None`: every dot is FMA.
    pub cooperative_operand: Option<DType>,
    /// The loop-carried accumulators that may stay in cooperative matrices across their loop
    /// (the loop bodies' arguments, each with its dot: `cooperative/carried.rs`).
    pub carried_dots: FxHashMap<Value, crate::cooperative::carried::Accumulator>,
    /// The row scalings between carried accumulators and their dots (`cooperative/carried.rs`'s
    /// `RowScale`): each `arith.mulf` with its accumulator and factors, and each op that spreads
    /// the factors to the accumulator's shape with its accumulator and `None`.
    pub carried_scales: FxHashMap<IrOp, (Value, Option<Value>)>,
    /// The dots (by product) whose loop carries their accumulator in matrices, with the plan
    /// the loop's entry chose.
    pub carried_plans: FxHashMap<Value, crate::cooperative::carried::Carried>,
    /// The GEMM loops that run on workgroup-scope matrices (`cooperative/workgroup.rs`).
    pub workgroup: crate::cooperative::workgroup::Gemms,
    /// Which form of such a loop is being emitted.
    pub workgroup_version: crate::cooperative::workgroup::Version,
    /// The uniform words read as specialization constants ([`Artifact::specialized_words`]).
    specialized_words: Vec<u32>,
    /// Workgroup memory (bytes) cooperative dots leave to the rest of the kernel.
    pub cooperative_reserve: u32,
    /// Set when the cooperative dots' staging did not fit beside the rest of the kernel: the
    /// bytes of workgroup memory the rest needs (known only once every op is lowered), for
    /// `crate::emit` to lower the kernel again leaving that much.
    pub staging_overflow: std::rc::Rc<std::cell::Cell<Option<u32>>>,
}

/// A typed view of a storage binding besides its u32 words (and the f32 view of native atomics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// `u16` elements (16-bit storage).
    Half = 0,
    /// `uvec2` elements: 8-byte accesses.
    Words2 = 1,
    /// `uvec4` elements: 16-byte accesses.
    Words4 = 2,
    /// f16 elements: the pointers of workgroup matrices' tensor loads and stores.
    Float16 = 3,
    /// bf16 elements, likewise.
    BFloat16 = 4,
}

impl View {
    const COUNT: usize = 5;
    const ALL: [View; View::COUNT] = [View::Half, View::Words2, View::Words4, View::Float16, View::BFloat16];

    /// Words per element of a vector view.
    pub fn words(self) -> u32 {
        match self {
            View::Half | View::Float16 | View::BFloat16 => 0,
            View::Words2 => 2,
            View::Words4 => 4,
        }
    }

    /// The suffix of the view's name (`x_ptr_16`, `x_ptr_v4`).
    fn suffix(self) -> &'static str {
        match self {
            View::Half => "16",
            View::Words2 => "v2",
            View::Words4 => "v4",
            View::Float16 => "f16",
            View::BFloat16 => "bf16",
        }
    }
}

/// The high window of a windowed buffer: its binding, and the first word it holds (the split,
/// read from the uniform block in the prologue).
#[derive(Clone, Copy)]
struct Window {
    binding: u32,
    split: Reg,
}

impl<'a> Emitter<'a> {
    pub fn new(module: &'a Module, func: &'a Function, options: &'a Options) -> Emitter<'a> {
        let mut s = Spv::new();
        let smem_var = s.b.id();
        let uniform_var = s.b.id();
        let zero = Reg { id: 0, class: Class::U32 };
        Emitter {
            lowering: Lowering::new(module, func, [zero; 3]),
            options,
            s,
            subgroups_ok: None,
            f16_rounding_in_integers: options.direct_16bit_loads()
                || (options.direct_16bit_stores()
                    && widens_a_narrowed_f16(func, options.cooperative_matrix_f16)),
            smem_var,
            smem_words: 0,
            buffers: Vec::new(),
            windows: Vec::new(),
            float_views: Vec::new(),
            views: Vec::new(),
            words_used: Vec::new(),
            uniform_var,
            uniform_words: FIRST_PARAM_WORD,
            program_ids: [zero; 3],
            num_programs: [zero; 3],
            assert_binding: None,
            assert_sites: Vec::new(),
            prints: Default::default(),
            cooperative: None,
            cooperative_operand: None,
            carried_dots: FxHashMap::default(),
            carried_scales: FxHashMap::default(),
            carried_plans: FxHashMap::default(),
            workgroup: Default::default(),
            workgroup_version: Default::default(),
            specialized_words: Vec::new(),
            cooperative_reserve: crate::cooperative::RESERVED_BYTES,
            staging_overflow: Default::default(),
        }
    }

    // ---- values -------------------------------------------------------------------------------

    /// Runs `body(i)` for `i = start, start + step, ...` while `i < end` (a runtime loop; `step`
    /// may be a value known only at run time).
    pub fn strided_loop(
        &mut self,
        start: Reg,
        end: u32,
        step: Reg,
        body: impl FnOnce(&mut Emitter<'a>, Reg),
    ) {
        let i_var = self.s.var(Class::U32);
        self.s.store(i_var, start.id);
        let labels = self.s.begin_loop();
        let i = self.s.load(Class::U32, i_var);
        let end = self.u32c(end);
        let go = self.s.op(Op::ULessThan, Class::Bool, &[i, end]);
        self.s.loop_test(&labels, go);
        body(self, i);
        self.s.end_loop(&labels, |s| {
            let i = s.load(Class::U32, i_var);
            let next = s.op(Op::IAdd, Class::U32, &[i, step]);
            s.store(i_var, next.id);
        });
    }

    /// Refuses 64-bit types in portable mode (naga's WGSL has no i64/f64 by default).
    pub fn check_class(&self, class: Class) -> EResult<()> {
        if self.options.mode == Mode::Portable && matches!(class, Class::U64 | Class::F64) {
            return self.unsupported("64-bit integers and floats in portable mode (use --spirv-mode vulkan)");
        }
        Ok(())
    }

    pub fn u32c(&mut self, v: u32) -> Reg {
        self.s.const_reg_u32(v)
    }

    /// `a + b` on u32 values.
    pub fn add_u32(&mut self, a: Reg, b: Reg) -> Reg {
        self.s.op(Op::IAdd, Class::U32, &[a, b])
    }

    /// [`Isa::add_imm`], for the files that name no trait.
    pub fn add_imm(&mut self, a: Reg, k: i64) -> Reg {
        Isa::add_imm(self, a, k)
    }

    // ---- thread indices -----------------------------------------------------------------------

    /// [`Isa::affine_base`], for the files that name no trait.
    pub fn affine_base(&mut self, l: &LayoutInfo, f: &Affine) -> Reg {
        Isa::affine_base(self, l, f)
    }

    // ---- bits ---------------------------------------------------------------------------------

    /// Whether a float is NaN. f32 tests its bits (naga's WGSL writer has no `isNan`).
    pub fn is_nan(&mut self, f: Reg) -> Reg {
        if f.class == Class::F32 {
            let bits = self.s.op(Op::Bitcast, Class::U32, &[f]);
            let (abs_mask, inf) = (self.u32c(0x7fff_ffff), self.u32c(0x7f80_0000));
            let magnitude = self.s.op(Op::BitwiseAnd, Class::U32, &[bits, abs_mask]);
            self.s.op(Op::UGreaterThan, Class::Bool, &[magnitude, inf])
        } else {
            self.s.op(Op::IsNan, Class::Bool, &[f])
        }
    }

    /// A 32-bit class value as u32 bits (bool: 0/1).
    pub fn word_bits(&mut self, v: Reg) -> Reg {
        match v.class {
            Class::U32 | Class::Ptr(_) => Reg { id: v.id, class: Class::U32 },
            Class::F32 => self.s.op(Op::Bitcast, Class::U32, &[v]),
            Class::Bool => {
                let (one, zero) = (self.u32c(1), self.u32c(0));
                self.s.select(v, one, zero)
            }
            Class::U64 | Class::F64 => unreachable!("64-bit value in one word"),
            Class::Matrix | Class::WorkgroupMatrix(_) => unreachable!("a cooperative matrix is no word"),
        }
    }

    pub fn bits_to_class(&mut self, class: Class, u: Reg) -> Reg {
        match class {
            Class::U32 => u,
            Class::Ptr(_) => Reg { id: u.id, class },
            Class::F32 => self.s.op(Op::Bitcast, Class::F32, &[u]),
            Class::Bool => {
                let zero = self.u32c(0);
                self.s.op(Op::INotEqual, Class::Bool, &[u, zero])
            }
            Class::U64 | Class::F64 => unreachable!("64-bit value from one word"),
            Class::Matrix | Class::WorkgroupMatrix(_) => unreachable!("a cooperative matrix is no word"),
        }
    }

    /// A 64-bit value as (low, high) words.
    pub fn split64(&mut self, v: Reg) -> (Reg, Reg) {
        let u = if v.class == Class::F64 { self.s.op(Op::Bitcast, Class::U64, &[v]) } else { v };
        let lo = self.s.op(Op::UConvert, Class::U32, &[u]);
        let sh = self.s.const_of(Class::U64, 32);
        let h = self.s.op(Op::ShiftRightLogical, Class::U64, &[u, sh]);
        let hi = self.s.op(Op::UConvert, Class::U32, &[h]);
        (lo, hi)
    }

    pub fn join64(&mut self, class: Class, lo: Reg, hi: Reg) -> Reg {
        let l = self.s.op(Op::UConvert, Class::U64, &[lo]);
        let h = self.s.op(Op::UConvert, Class::U64, &[hi]);
        let sh = self.s.const_of(Class::U64, 32);
        let h = self.s.op(Op::ShiftLeftLogical, Class::U64, &[h, sh]);
        let u = self.s.op(Op::BitwiseOr, Class::U64, &[l, h]);
        if class == Class::F64 {
            self.s.op(Op::Bitcast, Class::F64, &[u])
        } else {
            u
        }
    }

    // ---- workgroup memory -------------------------------------------------------------------

    /// Reserves `words` words of workgroup memory (one buffer shared by every use).
    pub fn need_shared_words(&mut self, words: u64) -> EResult<()> {
        let cap = self.options.workgroup_memory_limit as u64 / 4;
        if words > cap {
            return self.exceeds(&format!(
                "{} bytes of workgroup memory (this device allows {})",
                words * 4,
                self.options.workgroup_memory_limit
            ));
        }
        self.smem_words = self.smem_words.max(words as u32);
        Ok(())
    }

    pub fn smem_word_ptr(&mut self, index: Reg) -> Word {
        let u32t = self.s.u32_ty();
        let pty = self.s.ptr_ty(StorageClass::Workgroup, u32t);
        self.s.inst(Op::AccessChain, pty, &[self.smem_var, index.id])
    }

    pub fn smem_store_word(&mut self, index: Reg, v: Reg) {
        let p = self.smem_word_ptr(index);
        self.s.store_shared(p, v.id);
    }

    pub fn smem_load_word(&mut self, index: Reg) -> Reg {
        let p = self.smem_word_ptr(index);
        self.s.load_shared(Class::U32, p)
    }

    /// Stores a value at word index `base + offset` (64-bit values take two words).
    pub fn st_shared(&mut self, base: Reg, offset: i64, v: Reg) {
        let idx = self.add_imm(base, offset);
        if v.class.words() == 2 {
            let (lo, hi) = self.split64(v);
            self.smem_store_word(idx, lo);
            let idx1 = self.add_imm(idx, 1);
            self.smem_store_word(idx1, hi);
        } else {
            let bits = self.word_bits(v);
            self.smem_store_word(idx, bits);
        }
    }

    /// The workgroup-memory word index `affine_base(l, f) * words`, the runtime part of
    /// `f(coordinate)` for this thread's registers of layout `l` (each register adds its own
    /// constant word offset, `f(its coordinate) * words`).
    fn shared_index(&mut self, l: &LayoutInfo, f: &Affine, words: i64) -> Reg {
        let base = self.affine_base(l, f);
        let scale = self.u32c(words as u32);
        self.s.op(Op::IMul, Class::U32, &[base, scale])
    }

    pub fn ld_shared(&mut self, class: Class, base: Reg, offset: i64) -> Reg {
        let idx = self.add_imm(base, offset);
        if class.words() == 2 {
            let lo = self.smem_load_word(idx);
            let idx1 = self.add_imm(idx, 1);
            let hi = self.smem_load_word(idx1);
            self.join64(class, lo, hi)
        } else {
            let w = self.smem_load_word(idx);
            self.bits_to_class(class, w)
        }
    }

    // ---- storage buffers and the uniform block ------------------------------------------------

    /// Runs `access` on word `word` of pointer argument `arg`'s buffer. `access` gets the binding
    /// and the word's index in it, and returns the value it read (if any), which this returns.
    /// A windowed buffer branches on the split: `access` runs in both arms, on the high window
    /// with the index less the split and on the low one with the index as is, and its value
    /// passes the merge through a function variable.
    pub fn at_word(
        &mut self,
        arg: u32,
        word: Reg,
        mut access: impl FnMut(&mut Self, u32, Reg) -> Option<Reg>,
    ) -> Option<Reg> {
        let Some(window) = self.windows.get(arg as usize).copied().flatten() else {
            return access(self, arg, word);
        };
        let high = self.s.op(Op::UGreaterThanEqual, Class::Bool, &[word, window.split]);
        let (low_label, merge) = self.s.begin_if_else(high);
        let local = self.s.op(Op::ISub, Class::U32, &[word, window.split]);
        let var = access(self, window.binding, local).map(|value| {
            let var = self.s.var(value.class);
            self.s.store(var, value.id);
            (var, value.class)
        });
        self.s.else_part(low_label, merge);
        if let (Some((var, _)), Some(value)) = (var, access(self, arg, word)) {
            self.s.store(var, value.id);
        }
        self.s.end_if(merge);
        var.map(|(var, class)| self.s.load(class, var))
    }

    /// A pointer to word `index` of the storage buffer of binding `binding`.
    pub fn buffer_word_ptr(&mut self, binding: u32, index: Reg) -> Word {
        let u32t = self.s.u32_ty();
        let pty = self.s.ptr_ty(StorageClass::StorageBuffer, u32t);
        let zero = self.s.const_u32(0);
        let var = self.buffers[binding as usize];
        self.words_used[binding as usize] = true;
        self.s.inst(Op::AccessChain, pty, &[var, zero, index.id])
    }

    /// Whether pointer argument `arg`'s buffer is bound as two windows.
    pub fn windowed(&self, arg: u32) -> bool {
        self.windows.get(arg as usize).copied().flatten().is_some()
    }

    /// Whether 16-bit elements of pointer argument `arg`'s buffer are loaded directly through its
    /// 16-bit view ([`crate::Options::direct_16bit_loads`]) and the buffer is bound once (a
    /// windowed buffer keeps the word path, whose split is in words).
    pub fn direct_16bit_load(&self, arg: u32) -> bool {
        self.options.direct_16bit_loads() && !self.windowed(arg)
    }

    /// Whether a 16-bit element stored alone into pointer argument `arg`'s buffer is one store
    /// through its 16-bit view ([`crate::Options::direct_16bit_stores`]; a windowed buffer keeps
    /// the word path).
    pub fn direct_16bit_store(&self, arg: u32) -> bool {
        self.options.direct_16bit_stores() && !self.windowed(arg)
    }

    /// A pointer to element `index` of binding `binding` seen as an array of `view` elements.
    pub fn buffer_view_ptr(&mut self, binding: u32, view: View, index: Reg) -> Word {
        let id = match self.views[binding as usize][view as usize] {
            Some(id) => id,
            None => {
                let id = self.s.b.id();
                self.views[binding as usize][view as usize] = Some(id);
                id
            }
        };
        let element = self.view_element_ty(view);
        let pty = self.s.ptr_ty(StorageClass::StorageBuffer, element);
        let zero = self.s.const_u32(0);
        self.s.inst(Op::AccessChain, pty, &[id, zero, index.id])
    }

    /// The element type of a view.
    pub fn view_element_ty(&mut self, view: View) -> Word {
        match view {
            View::Half => self.s.u16_ty(),
            View::Float16 | View::BFloat16 => {
                self.s.uses_16bit_storage = true;
                let dtype = if view == View::BFloat16 { DType::BF16 } else { DType::F16 };
                self.s.half_ty(dtype)
            }
            View::Words2 | View::Words4 => {
                let u32t = self.s.u32_ty();
                self.s.vector_ty(u32t, view.words())
            }
        }
    }

    /// Declares the views reserved by [`Emitter::buffer_view_ptr`]: `struct { T elements[]; }` at
    /// the same set and binding as the u32 view. A binding accessed through more than one view
    /// (its words, its f32 view, these) has every view it uses `Aliased`, so the driver orders
    /// accesses through one against accesses through another.
    #[allow(clippy::needless_range_loop)]
    fn declare_views(&mut self, buffer_names: &[String]) {
        for view in View::ALL {
            if self.views.iter().all(|v| v[view as usize].is_none()) {
                continue;
            }
            let element = self.view_element_ty(view);
            let arr = self.s.b.type_runtime_array(element);
            let stride = match view {
                View::Half | View::Float16 | View::BFloat16 => 2,
                _ => 4 * view.words(),
            };
            self.s.b.decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
            let st = self.s.b.type_struct([arr]);
            self.s.b.decorate(st, Decoration::Block, []);
            self.s.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
            let pty = self.s.ptr_ty(StorageClass::StorageBuffer, st);
            for binding in 0..self.views.len() {
                let Some(id) = self.views[binding][view as usize] else { continue };
                self.s.b.variable(pty, Some(id), StorageClass::StorageBuffer, None);
                self.s.b.decorate(id, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
                self.s.b.decorate(id, Decoration::Binding, [Operand::LiteralBit32(binding as u32)]);
                let float_view = self.float_views[binding].is_some();
                let used = usize::from(self.words_used[binding] || float_view)
                    + self.views[binding].iter().flatten().count();
                if used > 1 {
                    self.s.b.decorate(id, Decoration::Aliased, []);
                }
                let first_extra = self.views[binding].iter().position(Option::is_some) == Some(view as usize);
                if used > 1 && first_extra && self.words_used[binding] && !float_view {
                    // Once per binding (one with an f32 view has its word view decorated already).
                    self.s.b.decorate(self.buffers[binding], Decoration::Aliased, []);
                }
                self.s.b.name(id, format!("{}_{}", buffer_names[binding], view.suffix()));
            }
        }
    }

    /// A pointer to word `index` of binding `binding` read as an f32, through the binding's f32
    /// view. Only native float atomics use it: everything else goes through the u32 words.
    pub fn buffer_f32_ptr(&mut self, binding: u32, index: Reg) -> Word {
        let view = match self.float_views[binding as usize] {
            Some(view) => view,
            None => {
                let view = self.s.b.id();
                self.float_views[binding as usize] = Some(view);
                view
            }
        };
        let f32t = self.s.ty(Class::F32);
        let pty = self.s.ptr_ty(StorageClass::StorageBuffer, f32t);
        let zero = self.s.const_u32(0);
        self.s.inst(Op::AccessChain, pty, &[view, zero, index.id])
    }

    /// Declares the f32 views reserved by [`Emitter::buffer_f32_ptr`]: `struct { f32 words[]; }`
    /// at the same set and binding as the u32 view. Both views of such a binding are `Aliased`,
    /// so the driver orders accesses through one against accesses through the other.
    fn declare_float_views(&mut self, buffer_names: &[String]) {
        if self.float_views.iter().all(Option::is_none) {
            return;
        }
        let f32t = self.s.ty(Class::F32);
        let arr = self.s.b.type_runtime_array(f32t);
        self.s.b.decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
        let st = self.s.b.type_struct([arr]);
        self.s.b.decorate(st, Decoration::Block, []);
        self.s.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        let pty = self.s.ptr_ty(StorageClass::StorageBuffer, st);
        for (binding, view) in self.float_views.clone().into_iter().enumerate() {
            let Some(view) = view else { continue };
            self.s.b.variable(pty, Some(view), StorageClass::StorageBuffer, None);
            self.s.b.decorate(view, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
            self.s.b.decorate(view, Decoration::Binding, [Operand::LiteralBit32(binding as u32)]);
            self.s.b.decorate(view, Decoration::Aliased, []);
            self.s.b.decorate(self.buffers[binding], Decoration::Aliased, []);
            self.s.b.name(view, format!("{}_f32", buffer_names[binding]));
        }
    }

    fn uniform_word(s: &mut Spv, var: Word, word: u32) -> Reg {
        let u32t = s.u32_ty();
        let pty = s.ptr_ty(StorageClass::Uniform, u32t);
        let member = s.const_u32(word);
        let p = s.inst(Op::AccessChain, pty, &[var, member]);
        s.load(Class::U32, p)
    }

    // ---- ops ----------------------------------------------------------------------------------

    // ---- the kernel frame -------------------------------------------------------------------

    /// `tt.assert`: SPIR-V has no trap, so a thread holding a false element reports the site
    /// through the assertion buffer (see [`crate::AssertSite`]): the first report wins a
    /// compare-and-swap of word 0 (0 -> site + 1) and writes its program id to words 1..4; the
    /// runtime reads the buffer back after the launch. The kernel runs on, as a CUDA kernel does
    /// until its trap reaches the host.
    fn device_assert(&mut self, op: IrOp) -> EResult<()> {
        let data = self.func.body.op(op);
        let Some(binding) = self.assert_binding else {
            return self.invalid("tt.assert in a kernel without an assertion buffer");
        };
        let mut failed: Option<Reg> = None;
        let mut seen = Vec::new();
        for c in self.get(data.operands[0])? {
            if seen.contains(&c.id) {
                continue;
            }
            seen.push(c.id);
            let false_here = match c.class {
                Class::Bool => self.s.op(Op::LogicalNot, Class::Bool, &[c]),
                Class::U32 | Class::U64 => {
                    let zero = self.s.const_of(c.class, 0);
                    self.s.op(Op::IEqual, Class::Bool, &[c, zero])
                }
                _ => return self.invalid("tt.assert of a non-integer condition"),
            };
            failed = Some(match failed {
                None => false_here,
                Some(any) => self.s.op(Op::LogicalOr, Class::Bool, &[any, false_here]),
            });
        }
        let Some(failed) = failed else { return Ok(()) };
        let site = self.assert_sites.len() as u32;
        self.assert_sites.push(AssertSite {
            message: data.attrs.str("message").unwrap_or("assertion failed").to_string(),
            span: self.func.body.span(op),
        });
        let report = self.s.begin_if(failed);
        let u32t = self.s.u32_ty();
        let scope = self.s.const_u32(Scope::Device as u32);
        let semantics = self.s.const_u32(0x8 | 0x40);
        let unequal = self.s.const_u32(0x2 | 0x40);
        let word0 = self.s.const_reg_u32(0);
        let flag = self.buffer_word_ptr(binding, word0);
        let value = self.s.const_u32(site + 1);
        let free = self.s.const_u32(0);
        let old =
            self.s.inst(Op::AtomicCompareExchange, u32t, &[flag, scope, semantics, unequal, value, free]);
        let old = Reg { id: old, class: Class::U32 };
        let first = self.s.op(Op::IEqual, Class::Bool, &[old, word0]);
        let won = self.s.begin_if(first);
        for (axis, pid) in self.program_ids.into_iter().enumerate() {
            let index = self.s.const_reg_u32(1 + axis as u32);
            let word = self.buffer_word_ptr(binding, index);
            self.s.store(word, pid.id);
        }
        self.s.end_if(won);
        self.s.end_if(report);
        Ok(())
    }

    /// Declares the bindings, builds the prologue, lowers the body and assembles the module.
    pub fn kernel(mut self) -> EResult<Artifact> {
        let func = self.func;
        let name = func.name.clone();
        let mut threads = self.options.threads_per_warp * self.options.num_warps;

        // Parameters: buffers first (binding = pointer index), scalars in the uniform block.
        let mut params = Vec::new();
        let mut n_buffers = 0u32;
        let mut buffer_names = Vec::new();
        for (index, &p) in func.params().iter().enumerate() {
            let ty = self.ty(p);
            if ty.is_ptr() && !ty.is_tensor() {
                buffer_names.push(func.arg_names.get(index).cloned().unwrap_or_default());
                params.push(ParamAbi::Buffer { binding: n_buffers, high: None });
                n_buffers += 1;
                continue;
            }
            if ty.is_tensor() {
                return self.unsupported("a tensor-typed kernel parameter");
            }
            let d = ty.dtype();
            let word = self.uniform_words;
            let abi = match d {
                DType::F32 => ParamAbi::Float { bytes: 4, word },
                DType::F64 => ParamAbi::Float { bytes: 8, word },
                DType::I64 | DType::U64 => ParamAbi::Int { bytes: 8, word },
                DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 => {
                    return self.unsupported(&format!("a kernel parameter of type {d}"));
                }
                _ => ParamAbi::Int { bytes: 4, word },
            };
            self.uniform_words += if d.bits() == 64 { 2 } else { 1 };
            params.push(abi);
        }

        // Windowed buffers: a second binding each, after the buffers, and a uniform word for
        // the split, after the scalars.
        let mut n_bindings = n_buffers;
        let mut splits = Vec::new();
        for param in params.iter_mut() {
            let ParamAbi::Buffer { binding, high } = param else { continue };
            if !self.options.windowed_buffers.contains(binding) {
                continue;
            }
            *high = Some(HighWindow { binding: n_bindings, split_word: self.uniform_words });
            buffer_names.push(format!("{}_high", buffer_names[*binding as usize]));
            splits.push((*binding, n_bindings, self.uniform_words));
            n_bindings += 1;
            self.uniform_words += 1;
        }

        // The assertion report buffer, after the windows, when the kernel asserts anything.
        let asserts = func.body.walk(func.entry).into_iter().any(|op| func.body.opcode(op) == Opcode::Assert);
        if asserts {
            self.assert_binding = Some(n_bindings);
            buffer_names.push("device_asserts".to_string());
            n_bindings += 1;
        }
        // The print buffer, after the assertion buffer, when the kernel prints anything.
        if crate::print::any(func) {
            self.prints.binding = Some(n_bindings);
            buffer_names.push("device_prints".to_string());
            n_bindings += 1;
        }

        // Storage buffers: struct { u32 words[]; } per binding.
        let u32t = self.s.u32_ty();
        let arr = self.s.b.type_runtime_array(u32t);
        self.s.b.decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
        let st = self.s.b.type_struct([arr]);
        self.s.b.decorate(st, Decoration::Block, []);
        self.s.b.member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        let pty = self.s.ptr_ty(StorageClass::StorageBuffer, st);
        for binding in 0..n_bindings {
            let var = self.s.b.variable(pty, None, StorageClass::StorageBuffer, None);
            self.s.b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
            self.s.b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
            self.s.b.name(var, buffer_names[binding as usize].clone());
            self.buffers.push(var);
        }
        self.float_views = vec![None; n_bindings as usize];
        self.views = vec![[None; View::COUNT]; n_bindings as usize];
        self.words_used = vec![false; n_bindings as usize];
        // The uniform block: one u32 member per word.
        let members: Vec<Word> = (0..self.uniform_words).map(|_| u32t).collect();
        let ust = self.s.b.type_struct(members);
        self.s.b.decorate(ust, Decoration::Block, []);
        for i in 0..self.uniform_words {
            self.s.b.member_decorate(ust, i, Decoration::Offset, [Operand::LiteralBit32(4 * i)]);
        }
        let upty = self.s.ptr_ty(StorageClass::Uniform, ust);
        self.s.b.variable(upty, Some(self.uniform_var), StorageClass::Uniform, None);
        self.s.b.decorate(self.uniform_var, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        self.s.b.decorate(self.uniform_var, Decoration::Binding, [Operand::LiteralBit32(n_bindings)]);

        // Builtins.
        let v3 = self.s.vector_ty(u32t, 3);
        let in_v3 = self.s.ptr_ty(StorageClass::Input, v3);
        let in_u32 = self.s.ptr_ty(StorageClass::Input, u32t);
        let wg_id = self.s.b.variable(in_v3, None, StorageClass::Input, None);
        self.s.b.decorate(wg_id, Decoration::BuiltIn, [Operand::BuiltIn(spirv::BuiltIn::WorkgroupId)]);
        let local_index = self.s.b.variable(in_u32, None, StorageClass::Input, None);
        self.s.b.decorate(
            local_index,
            Decoration::BuiltIn,
            [Operand::BuiltIn(spirv::BuiltIn::LocalInvocationIndex)],
        );

        // The Vulkan memory model, for modules whose f16 or bf16 dots may take cooperative
        // matrices (decided before any barrier is emitted: the model changes their semantics).
        self.cooperative_operand = crate::cooperative::operand_type(self.options, func);
        self.s.vulkan_memory_model = self.cooperative_operand.is_some();
        if let Some(operand) = self.cooperative_operand {
            let scales = self.options.cooperative_matrix_per_element;
            // The workgroup path also takes tf32 dots where it can split them into bf16 parts; the
            // subgroup path keeps the carried dots it does not plan, but for those.
            let tf32 = operand == crate::cooperative::tf32_split::PARTS && self.options.splits_tf32_dots();
            self.carried_dots = crate::cooperative::carried::find(func, self.uses(), operand, scales, tf32);
            self.workgroup =
                crate::cooperative::workgroup::find(func, self.options, operand, &self.carried_dots);
            threads = self.workgroup.invocations.unwrap_or(threads);
            let workgroup = &self.workgroup.accumulators;
            self.carried_dots.retain(|arg, carried| {
                !workgroup.contains_key(arg)
                    && !crate::cooperative::tf32_split::is_tf32_dot(func, carried.dot)
            });
            self.carried_scales = self
                .carried_dots
                .iter()
                .filter_map(|(&acc, carried)| Some((acc, carried.scale.as_ref()?)))
                .flat_map(|(acc, scale)| {
                    let spread = scale.spread.iter().map(move |&op| (op, (acc, None)));
                    spread.chain([(scale.op, (acc, Some(scale.rows)))])
                })
                .collect();
        }

        // Subgroup builtins, for kernels whose reductions may shuffle.
        let reduces = func.body.walk(func.entry).into_iter().any(|op| func.body.opcode(op) == Opcode::Reduce);
        let mut subgroup_builtins = Vec::new();
        if reduces && self.options.shuffle_span() >= 2 {
            for builtin in [spirv::BuiltIn::SubgroupLocalInvocationId, spirv::BuiltIn::SubgroupSize] {
                let var = self.s.b.variable(in_u32, None, StorageClass::Input, None);
                self.s.b.decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
                subgroup_builtins.push(var);
            }
        }

        // The function: a prologue block, then the body.
        let void = self.s.b.type_void();
        let fn_ty = self.s.b.type_function(void, []);
        let main = self.s.begin_function(void, fn_ty);
        self.s.begin_block(None);

        // Prologue values: thread ids, the program id (unfolded), parameters.
        let tpw = self.options.threads_per_warp;
        let uniform_var = self.uniform_var;
        let (tid, lane, warp, linear, total, pids, nprogs) = self.s.in_prologue(|s| {
            let tid = s.load(Class::U32, local_index);
            let tpw_c = s.const_reg_u32(tpw);
            let lane = s.op(Op::UMod, Class::U32, &[tid, tpw_c]);
            let warp = s.op(Op::UDiv, Class::U32, &[tid, tpw_c]);
            let u32t = s.u32_ty();
            let v3t = s.vector_ty(u32t, 3);
            let wg = s.inst(Op::Load, v3t, &[wg_id]);
            let u32t = s.u32_ty();
            let comp = |s: &mut Spv, i: u32| {
                let id = s.inst_raw(
                    Op::CompositeExtract,
                    Some(u32t),
                    vec![Operand::IdRef(wg), Operand::LiteralBit32(i)],
                );
                Reg { id: id.unwrap(), class: Class::U32 }
            };
            let (wx, wy, wz) = (comp(s, 0), comp(s, 1), comp(s, 2));
            let g: Vec<Reg> = (0..3).map(|i| Self::uniform_word(s, uniform_var, i)).collect();
            let dx = Self::uniform_word(s, uniform_var, 3);
            let dy = Self::uniform_word(s, uniform_var, 4);
            // linear = wx + dx * (wy + dy * wz)
            let t = s.op(Op::IMul, Class::U32, &[dy, wz]);
            let t = s.op(Op::IAdd, Class::U32, &[wy, t]);
            let t = s.op(Op::IMul, Class::U32, &[dx, t]);
            let linear = s.op(Op::IAdd, Class::U32, &[wx, t]);
            let gxy = s.op(Op::IMul, Class::U32, &[g[0], g[1]]);
            let total = s.op(Op::IMul, Class::U32, &[gxy, g[2]]);
            let px = s.op(Op::UMod, Class::U32, &[linear, g[0]]);
            let t = s.op(Op::UDiv, Class::U32, &[linear, g[0]]);
            let py = s.op(Op::UMod, Class::U32, &[t, g[1]]);
            let pz = s.op(Op::UDiv, Class::U32, &[linear, gxy]);
            (tid, lane, warp, linear, total, [px, py, pz], [g[0], g[1], g[2]])
        });
        self.tid = tid;
        self.lane = lane;
        self.warp = warp;
        self.program_ids = pids;
        self.num_programs = nprogs;
        for (&p, abi) in func.params().iter().zip(&params) {
            let ty = self.ty(p);
            let d = ty.dtype();
            let reg = match *abi {
                ParamAbi::Buffer { binding, .. } => {
                    Reg { id: self.s.const_u32(0), class: Class::Ptr(binding) }
                }
                ParamAbi::Int { bytes: 4, word } if self.workgroup.specialized.contains(&p) => {
                    let u32t = self.s.u32_ty();
                    let id = self.s.b.spec_constant_bit32(u32t, 0);
                    self.s.b.decorate(id, Decoration::SpecId, [Operand::LiteralBit32(word)]);
                    self.specialized_words.push(word);
                    Reg { id, class: Class::U32 }
                }
                ParamAbi::Int { bytes, word } | ParamAbi::Float { bytes, word } => {
                    let class = class_of(d);
                    self.check_class(class)?;
                    self.s.in_prologue(|s| {
                        let lo = Self::uniform_word(s, uniform_var, word);
                        if bytes == 8 {
                            let hi = Self::uniform_word(s, uniform_var, word + 1);
                            let l = s.op(Op::UConvert, Class::U64, &[lo]);
                            let h = s.op(Op::UConvert, Class::U64, &[hi]);
                            let sh = s.const_of(Class::U64, 32);
                            let h = s.op(Op::ShiftLeftLogical, Class::U64, &[h, sh]);
                            let u = s.op(Op::BitwiseOr, Class::U64, &[l, h]);
                            if class == Class::F64 {
                                s.op(Op::Bitcast, Class::F64, &[u])
                            } else {
                                u
                            }
                        } else {
                            match class {
                                Class::F32 => s.op(Op::Bitcast, Class::F32, &[lo]),
                                Class::Bool => {
                                    let zero = s.const_reg_u32(0);
                                    s.op(Op::INotEqual, Class::Bool, &[lo, zero])
                                }
                                _ => lo,
                            }
                        }
                    })
                }
            };
            self.set(p, vec![reg]);
        }

        self.windows = vec![None; n_buffers as usize];
        for (arg, binding, word) in splits {
            let split = self.s.in_prologue(|s| Self::uniform_word(s, uniform_var, word));
            self.windows[arg as usize] = Some(Window { binding, split });
        }

        // Workgroups past the grid's end (the folded dispatch rounds up) leave at once.
        let past = self.s.op(Op::UGreaterThanEqual, Class::Bool, &[linear, total]);
        let merge = self.s.begin_if(past);
        self.s.ret();
        self.s.begin_block(Some(merge));

        // Subgroup shuffles for reductions, where the workgroup's subgroups allow them.
        if !subgroup_builtins.is_empty() {
            self.check_subgroups(&subgroup_builtins, tid, threads)?;
        }

        self.block(func.entry)?;
        self.s.ret();
        self.s.end_function();

        // Workgroup memory, now that its size is known.
        let mut smem_bytes = self.smem_words * 4;
        let mut interface = vec![wg_id, local_index];
        interface.extend(subgroup_builtins);
        if let Some(arrays) = self.cooperative.take() {
            let staging = arrays.declare(&mut self.s);
            if smem_bytes + staging > self.options.workgroup_memory_limit {
                self.staging_overflow.set(Some(smem_bytes));
                return self.exceeds(&format!(
                    "{} bytes of workgroup memory with the cooperative-matrix staging of its dots (this \
                     device allows {})",
                    smem_bytes + staging,
                    self.options.workgroup_memory_limit
                ));
            }
            smem_bytes += staging;
            interface.extend(arrays.builtins());
        }
        if self.smem_words > 0 {
            let len = self.s.const_u32(self.smem_words);
            let arr = self.s.b.type_array(u32t, len);
            let pty = self.s.ptr_ty(StorageClass::Workgroup, arr);
            self.s.b.variable(pty, Some(self.smem_var), StorageClass::Workgroup, None);
            self.s.b.name(self.smem_var, "smem");
        }
        self.declare_float_views(&buffer_names);
        self.declare_views(&buffer_names);
        if self.s.b.version() >= Some((1, 4)) {
            interface.extend(self.buffers.iter().copied());
            interface.extend(self.float_views.iter().flatten().copied());
            interface.extend(self.views.iter().flatten().flatten().copied());
        }

        // Module header: capabilities, memory model, entry point, local size.
        let mut capabilities = vec![Capability::Shader];
        let mut extensions = Vec::new();
        let mut uses = |used: bool, more: &[Capability], extension: Option<&'static str>| {
            // Each once: two features may need the same capability.
            if used {
                for &capability in more {
                    if !capabilities.contains(&capability) {
                        capabilities.push(capability);
                    }
                }
                if let Some(extension) = extension.filter(|e| !extensions.contains(e)) {
                    extensions.push(extension);
                }
            }
        };
        uses(self.s.uses_int64, &[Capability::Int64], None);
        uses(self.s.uses_float64, &[Capability::Float64], None);
        uses(self.s.uses_float16, &[Capability::Float16], None);
        uses(
            self.s.uses_bfloat16,
            &[Capability::BFloat16TypeKHR, Capability::BFloat16CooperativeMatrixKHR],
            Some("SPV_KHR_bfloat16"),
        );
        uses(
            self.s.uses_atomic_float32_add,
            &[Capability::AtomicFloat32AddEXT],
            Some("SPV_EXT_shader_atomic_float_add"),
        );
        uses(
            self.subgroups_ok.is_some(),
            &[
                Capability::GroupNonUniform,
                Capability::GroupNonUniformVote,
                Capability::GroupNonUniformBallot,
                Capability::GroupNonUniformShuffle,
            ],
            None,
        );
        uses(
            self.s.uses_16bit_storage,
            &[Capability::StorageBuffer16BitAccess],
            Some("SPV_KHR_16bit_storage"),
        );
        // Cooperative matrices need the Vulkan memory model (SPV_KHR_cooperative_matrix, for
        // modules with the Shader capability), device-scope atomics its device scope, and the
        // SubgroupId builtin that spreads their tiles basic subgroup operations.
        let vulkan_memory_model = self.s.vulkan_memory_model;
        uses(
            vulkan_memory_model,
            &[
                Capability::CooperativeMatrixKHR,
                Capability::VulkanMemoryModel,
                Capability::VulkanMemoryModelDeviceScope,
                Capability::GroupNonUniform,
            ],
            Some("SPV_KHR_cooperative_matrix"),
        );
        uses(vulkan_memory_model, &[], Some("SPV_KHR_vulkan_memory_model"));
        uses(
            self.s.uses_workgroup_matrices,
            &[Capability::TensorAddressingNV, Capability::CooperativeMatrixTensorAddressingNV],
            Some("SPV_NV_cooperative_matrix2"),
        );
        uses(self.s.uses_workgroup_matrices, &[], Some("SPV_NV_tensor_addressing"));
        uses(
            self.s.uses_per_element_operations,
            &[Capability::CooperativeMatrixPerElementOperationsNV],
            Some("SPV_NV_cooperative_matrix2"),
        );
        uses(
            self.s.uses_matrix_reductions,
            &[Capability::CooperativeMatrixReductionsNV],
            Some("SPV_NV_cooperative_matrix2"),
        );
        uses(
            self.s.uses_matrix_conversions,
            &[Capability::CooperativeMatrixConversionsNV],
            Some("SPV_NV_cooperative_matrix2"),
        );
        for capability in capabilities {
            self.s.b.capability(capability);
        }
        for extension in extensions {
            self.s.b.extension(extension);
        }
        let memory_model =
            if vulkan_memory_model { spirv::MemoryModel::Vulkan } else { spirv::MemoryModel::GLSL450 };
        self.s.b.memory_model(spirv::AddressingModel::Logical, memory_model);
        self.s.b.entry_point(spirv::ExecutionModel::GLCompute, main, name.clone(), interface);
        self.s.b.execution_mode(main, spirv::ExecutionMode::LocalSize, [threads, 1, 1]);
        let spv = std::mem::replace(&mut self.s, Spv::new());
        Ok(Artifact {
            words: spv.assemble(),
            entry_name: name,
            workgroup_size: [threads, 1, 1],
            workgroup_memory_bytes: smem_bytes,
            params,
            uniform_binding: n_bindings,
            uniform_words: self.uniform_words,
            mode: self.options.mode,
            assert_binding: self.assert_binding,
            asserts: self.assert_sites,
            print_binding: self.prints.binding,
            prints: self.prints.sites,
            specialized_words: std::mem::take(&mut self.specialized_words),
        })
    }
}

impl<'a> Emitter<'a> {
    /// Sets [`Emitter::subgroups_ok`]: whether, in this workgroup, every subgroup is a whole,
    /// aligned run of local invocation indices of at least [`Options::shuffle_span`] invocations
    /// (`SubgroupLocalInvocationId == tid % SubgroupSize`, one base `tid - id` per subgroup, and
    /// a workgroup size that is a multiple of `SubgroupSize`), so that invocation `tid ^ m` for
    /// `m` below the span is `SubgroupLocalInvocationId ^ m` of the same subgroup. Vulkan does
    /// not promise that mapping (drivers do it); a workgroup where a subgroup disagrees votes
    /// through workgroup word 0, and every thread of it reads the same answer, so the branch
    /// reductions take on it is uniform and may hold barriers. `builtins` are the variables of
    /// `SubgroupLocalInvocationId` and `SubgroupSize`.
    fn check_subgroups(&mut self, builtins: &[Word], tid: Reg, threads: u32) -> EResult<()> {
        self.need_shared_words(1)?;
        let zero = self.u32c(0);
        let one = self.u32c(1);
        let first = self.s.op(Op::IEqual, Class::Bool, &[tid, zero]);
        let merge = self.s.begin_if(first);
        self.smem_store_word(zero, one);
        self.s.end_if(merge);
        self.barrier();
        let local = self.s.load(Class::U32, builtins[0]);
        let size = self.s.load(Class::U32, builtins[1]);
        let size_less_one = self.add_imm(size, -1);
        let low = self.s.op(Op::BitwiseAnd, Class::U32, &[tid, size_less_one]);
        let aligned = self.s.op(Op::IEqual, Class::Bool, &[local, low]);
        let base = self.s.op(Op::ISub, Class::U32, &[tid, local]);
        let scope = self.s.const_u32(Scope::Subgroup as u32);
        let u32t = self.s.u32_ty();
        let first_base = self.s.inst(Op::GroupNonUniformBroadcastFirst, u32t, &[scope, base.id]);
        let first_base = Reg { id: first_base, class: Class::U32 };
        let one_base = self.s.op(Op::IEqual, Class::Bool, &[base, first_base]);
        let span = self.u32c(self.options.shuffle_span());
        let wide_enough = self.s.op(Op::UGreaterThanEqual, Class::Bool, &[size, span]);
        let threads = self.u32c(threads);
        let rest = self.s.op(Op::UMod, Class::U32, &[threads, size]);
        let whole = self.s.op(Op::IEqual, Class::Bool, &[rest, zero]);
        let good = self.s.op(Op::LogicalAnd, Class::Bool, &[aligned, one_base]);
        let good = self.s.op(Op::LogicalAnd, Class::Bool, &[good, wide_enough]);
        let good = self.s.op(Op::LogicalAnd, Class::Bool, &[good, whole]);
        let boolt = self.s.ty(Class::Bool);
        let all = self.s.inst(Op::GroupNonUniformAll, boolt, &[scope, good.id]);
        let bad = self.s.op(Op::LogicalNot, Class::Bool, &[Reg { id: all, class: Class::Bool }]);
        let merge = self.s.begin_if(bad);
        self.smem_store_word(zero, zero);
        self.s.end_if(merge);
        self.barrier();
        let word = self.smem_load_word(zero);
        let ok = self.s.op(Op::INotEqual, Class::Bool, &[word, zero]);
        let var = self.s.var(Class::Bool);
        self.s.store(var, ok.id);
        // Word 0 is scratch again for whatever comes next.
        self.barrier();
        self.subgroups_ok = Some(var);
        Ok(())
    }
}

/// The SPIR-V spelling of the primitives the midend's rules are written on: SSA values, constants
/// deduplicated by the builder, prologue code inserted before the prologue block's branch, and
/// scratch memory as one workgroup array of 32-bit words.
impl<'a> Isa<'a> for Emitter<'a> {
    type Reg = Reg;
    type Class = Class;
    const NAME: &'static str = "spirv";

    fn prologue_zero(&mut self) -> Reg {
        self.s.const_reg_u32(0)
    }

    fn prologue_xor_bit(&mut self, acc: Reg, id: Reg, bit: u32, scale: u32) -> Reg {
        self.s.in_prologue(|s| {
            let shift = s.const_reg_u32(bit);
            let one = s.const_reg_u32(1);
            let scale = s.const_reg_u32(scale);
            let t = s.op(Op::ShiftRightLogical, Class::U32, &[id, shift]);
            let t = s.op(Op::BitwiseAnd, Class::U32, &[t, one]);
            let t = s.op(Op::IMul, Class::U32, &[t, scale]);
            s.op(Op::BitwiseXor, Class::U32, &[acc, t])
        })
    }

    fn prologue_mul_add(&mut self, acc: Reg, x: Reg, k: i64) -> Reg {
        self.s.in_prologue(|s| {
            let kc = s.const_reg_u32(k as u32);
            let t = s.op(Op::IMul, Class::U32, &[x, kc]);
            s.op(Op::IAdd, Class::U32, &[acc, t])
        })
    }

    fn add_const(&mut self, a: Reg, k: i64) -> Reg {
        let c = self.u32c(k as u32);
        self.s.op(Op::IAdd, a.class, &[a, c])
    }

    /// A constant of `d` (`value` is the attribute's number).
    fn constant(&mut self, d: DType, value: &Attr) -> EResult<Reg> {
        let class = class_of(d);
        self.check_class(class)?;
        let r = match class {
            Class::Bool => self.s.const_of(Class::Bool, value.as_bool().unwrap_or(false) as u64),
            Class::U32 => {
                let v = match d {
                    d if d.is_float() => d.small_float_bits(value.as_float().unwrap_or(0.0)),
                    _ => crate::arith::normalize_const(value.as_int().unwrap_or(0), d),
                };
                self.s.const_of(Class::U32, v as u64)
            }
            Class::U64 => self.s.const_of(Class::U64, value.as_int().unwrap_or(0) as u64),
            Class::F32 | Class::F64 => {
                let v = value.as_float().unwrap_or(0.0);
                let bits = if class == Class::F32 { (v as f32).to_bits() as u64 } else { v.to_bits() };
                if v.is_finite() {
                    self.s.const_of(class, bits)
                } else {
                    // naga refuses infinite and NaN literals: build them from their bits.
                    let int_class = if class == Class::F32 { Class::U32 } else { Class::U64 };
                    self.s.in_prologue(|s| {
                        let b = s.const_of(int_class, bits);
                        s.op(Op::Bitcast, class, &[b])
                    })
                }
            }
            Class::Ptr(_) => return self.unsupported("a pointer constant"),
            Class::Matrix | Class::WorkgroupMatrix(_) => {
                unreachable!("no dtype's class is a cooperative matrix")
            }
        };
        Ok(r)
    }

    /// Pointer tensors must share one base argument.
    fn element_class(&self, regs: &[Reg]) -> EResult<Class> {
        let class = regs[0].class;
        if regs.iter().any(|r| r.class != class) {
            return self.unsupported("a tensor of pointers into different arguments");
        }
        Ok(class)
    }

    fn block(&mut self, block: Block) -> EResult<()> {
        let ops = self.func.body.blocks[block].ops.clone();
        for op in ops {
            let saved = self.current.replace(op);
            let r = match crate::cooperative::workgroup::lower(self, op) {
                Ok(false) => match crate::cooperative::carried::scale(self, op) {
                    Ok(false) => trident_midend::codegen::lower(self, op),
                    done => done.map(|_| ()),
                },
                done => done.map(|_| ()),
            };
            self.current = saved;
            r?;
        }
        Ok(())
    }

    fn barrier(&mut self) {
        self.s.barrier();
    }

    /// Word `words * write(coordinate)` for each element.
    fn write_shared(&mut self, src: &[Reg], l: &LayoutInfo, write: &Affine, elements: u64) -> EResult<()> {
        let words = self.element_class(src)?.words() as i64;
        self.need_shared_words(elements * words as u64)?;
        let addr = self.shared_index(l, write, words);
        let unique = l.unique_registers();
        for (i, &r) in src.iter().enumerate() {
            if unique[i] {
                let off = write.eval(&l.reg_coords[i]) * words;
                self.st_shared(addr, off, r);
            }
        }
        Ok(())
    }

    fn read_shared(&mut self, dst_l: &LayoutInfo, read: &Affine, class: Class) -> Vec<Reg> {
        let words = class.words() as i64;
        let addr = self.shared_index(dst_l, read, words);
        let mut cache: FxHashMap<i64, Reg> = FxHashMap::default();
        let mut out = Vec::with_capacity(dst_l.num_regs());
        for c in &dst_l.reg_coords {
            let off = read.eval(c) * words;
            let r = match cache.get(&off) {
                Some(&r) => r,
                None => {
                    let r = self.ld_shared(class, addr, off);
                    cache.insert(off, r);
                    r
                }
            };
            out.push(r);
        }
        out
    }

    fn read_shared_at(
        &mut self,
        dst_l: &LayoutInfo,
        read: &Affine,
        index: &[Reg],
        stride: i64,
        class: Class,
    ) -> Vec<Reg> {
        let words = class.words() as i64;
        let addr = self.shared_index(dst_l, read, words);
        let step = self.u32c((stride * words) as u32);
        let mut out = Vec::with_capacity(index.len());
        for (coordinate, &at) in dst_l.reg_coords.iter().zip(index) {
            // A 64-bit index truncated to 32 (an index outside the source is undefined, as in
            // Triton).
            let at = if at.class == Class::U64 { self.s.op(Op::UConvert, Class::U32, &[at]) } else { at };
            let scaled = self.s.op(Op::IMul, Class::U32, &[at, step]);
            let element = self.s.op(Op::IAdd, Class::U32, &[addr, scaled]);
            out.push(self.ld_shared(class, element, read.eval(coordinate) * words));
        }
        out
    }
}

impl<'a> LowerOps<'a> for Emitter<'a> {
    fn target_op(e: &mut Self, op: IrOp) -> EResult<()> {
        let data = e.func.body.op(op);
        use Opcode::*;
        match data.opcode {
            GetProgramId | GetNumPrograms => {
                let axis = data.attrs.int("axis").unwrap_or(0).clamp(0, 2) as usize;
                let r = if data.opcode == GetProgramId { e.program_ids[axis] } else { e.num_programs[axis] };
                e.set(data.results[0], vec![r]);
                Ok(())
            }
            Barrier => {
                e.barrier();
                Ok(())
            }
            // The function's final return is emitted by the kernel frame.
            Return => Ok(()),
            Assert => e.device_assert(op),
            Print => crate::print::lower(e, op),
            MakeTensorDescriptor | DescriptorLoad | DescriptorStore => {
                e.unsupported("tensor descriptors (rewrite them to pointers first)")
            }
            other => e.unsupported(&format!("{} on spirv", other.name())),
        }
    }
}

/// Whether `func` may widen again an f16 it computed (`x.to(tl.float16).to(tl.float32)`, or f16
/// arithmetic feeding more arithmetic): every f16 an op computes is narrowed from f32 here, and
/// is widened again where another op computes with it. Computed f16 values are followed
/// through the ops that only move them (layout and shape changes); loads and constants compute
/// nothing (their bits are read or written out as they are); a store writes its bits, and
/// a dot on cooperative matrices (`cooperative`) stages them: neither widens. Any other use
/// widens, and an op with regions or a `scf.yield` (where this walk stops following) counts as
/// one.
fn widens_a_narrowed_f16(func: &Function, cooperative_dots: bool) -> bool {
    use Opcode::*;
    let body = &func.body;
    let mut computed: FxHashSet<Value> = FxHashSet::default();
    for op in body.walk(func.entry) {
        let data = body.op(op);
        let opcode = body.opcode(op);
        let moves_bits = matches!(opcode, ConvertLayout | Broadcast | ExpandDims | Reshape | Trans | Splat);
        if data.operands.iter().any(|v| computed.contains(v)) {
            match opcode {
                Store => {}
                Dot if cooperative_dots => {}
                _ if moves_bits => computed.extend(data.results.iter().copied()),
                _ => return true,
            }
        } else if data.regions.is_empty() && !moves_bits && !matches!(opcode, Load | Constant) {
            // A loop's or branch's results are what its regions yield, followed there.
            let f16 = |r: &Value| !body.ty(*r).is_ptr() && body.ty(*r).dtype() == DType::F16;
            computed.extend(data.results.iter().copied().filter(f16));
        }
    }
    false
}
