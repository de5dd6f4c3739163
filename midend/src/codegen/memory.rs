//! Global memory: `tt.addptr`, `tt.load`, `tt.store`, `tt.atomic_rmw`, `tt.atomic_cas`, and which
//! thread writes each element.
//!
//! Every target writes an element once and runs an atomic once: a thread that holds only a copy
//! of an element (a replicated lane or warp, a duplicate register of the layout) skips it, and a
//! scalar, which every thread holds, is written by thread 0 ([`owner_predicates`]). How an address
//! is formed and an access spelled (pointers and vector accesses in PTX, word indices into
//! storage buffers in SPIR-V) is the target's [`LowerMemory`].

use super::error::Result;
use super::isa::Isa;
use crate::analysis::axis_info::AxisInfo;
use crate::ir::{DType, Op, Opcode};
use crate::layout::registers::LayoutInfo;

/// The target's rules for global memory (its `memory.rs`).
pub trait LowerMemory<'a>: Isa<'a> {
    fn addptr(e: &mut Self, op: Op) -> Result<()>;
    fn load(e: &mut Self, op: Op) -> Result<()>;
    fn store(e: &mut Self, op: Op) -> Result<()>;
    fn atomic(e: &mut Self, op: AtomicOp<Self::Reg>) -> Result<()>;

    /// A predicate: this is the program's first thread.
    fn is_first_thread(e: &mut Self) -> Self::Reg;

    /// A predicate: the thread's lane and warp bits under the masks are all zero (it holds the
    /// first copy of elements that those bits replicate).
    fn is_first_copy(e: &mut Self, lane_mask: u32, warp_mask: u32) -> Self::Reg;
}

/// `tt.atomic_rmw` or `tt.atomic_cas`, its operands read.
pub struct AtomicOp<R> {
    pub op: Op,
    pub is_cas: bool,
    /// The pointers.
    pub ptr: Vec<R>,
    /// The value (rmw: value then mask; cas: compare then value).
    pub args: Vec<Vec<R>>,
    /// The element type of the result.
    pub dtype: DType,
    /// The memory order asked for (`sem`; Triton's default is `acq_rel`).
    pub sem: AtomicSem,
    /// Who must see it (`scope`; Triton's default is `gpu`).
    pub scope: AtomicScope,
    /// Some op of the kernel reads the old values it returns.
    pub result_used: bool,
}

/// The memory order of an atomic (its `sem` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicSem {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

impl AtomicSem {
    fn read(name: Option<&str>) -> AtomicSem {
        match name {
            Some("relaxed") => AtomicSem::Relaxed,
            Some("acquire") => AtomicSem::Acquire,
            Some("release") => AtomicSem::Release,
            _ => AtomicSem::AcqRel,
        }
    }

    /// Later reads and writes of the thread wait for it.
    pub fn acquires(self) -> bool {
        matches!(self, AtomicSem::Acquire | AtomicSem::AcqRel)
    }

    /// Earlier reads and writes of the thread are visible before it.
    pub fn releases(self) -> bool {
        matches!(self, AtomicSem::Release | AtomicSem::AcqRel)
    }

    /// The order an atomic whose old value nothing reads needs: the acquire half orders later
    /// accesses after a read whose value the kernel never observes, so it orders nothing the
    /// kernel can tell; `acq_rel` is then `release`. `acquire` stays (as Triton leaves it).
    pub fn without_reader(self) -> AtomicSem {
        match self {
            AtomicSem::AcqRel => AtomicSem::Release,
            other => other,
        }
    }
}

/// The scope of an atomic (its `scope` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicScope {
    /// The program (`cta`).
    Cta,
    /// The device (`gpu`).
    Gpu,
    /// The system (`sys`).
    Sys,
}

impl AtomicScope {
    fn read(name: Option<&str>) -> AtomicScope {
        match name {
            Some("cta") => AtomicScope::Cta,
            Some("sys") => AtomicScope::Sys,
            _ => AtomicScope::Gpu,
        }
    }
}

/// Lowers a global-memory op.
pub fn lower<'a, B: LowerMemory<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    match data.opcode {
        Opcode::AddPtr => B::addptr(e, op),
        Opcode::Load => B::load(e, op),
        Opcode::Store => B::store(e, op),
        _ => {
            let atomic = AtomicOp {
                op,
                is_cas: data.opcode == Opcode::AtomicCas,
                ptr: e.get(data.operands[0])?,
                args: data.operands[1..].iter().map(|&v| e.get(v)).collect::<Result<_>>()?,
                dtype: e.ty(data.results[0]).dtype(),
                sem: AtomicSem::read(data.attrs.str("sem")),
                scope: AtomicScope::read(data.attrs.str("scope")),
                result_used: !e.is_unused(data.results[0]),
            };
            B::atomic(e, atomic)
        }
    }
}

/// Whether this thread's copy of an element is the one that writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner<R> {
    Always,
    Never,
    /// When the predicate holds.
    If(R),
}

impl<R: Copy> Owner<R> {
    /// The predicate, `None` for an unconditional owner (and for `Never`).
    pub fn pred(self) -> Option<R> {
        match self {
            Owner::If(p) => Some(p),
            _ => None,
        }
    }
}

/// Per register of operand `value_index` of `op`: whether this thread writes that element (one
/// entry for a scalar).
pub fn owner_predicates<'a, B: LowerMemory<'a>>(
    e: &mut B,
    op: Op,
    value_index: usize,
) -> Result<Vec<Owner<B::Reg>>> {
    let v = e.func.body.op(op).operands[value_index];
    if !e.ty(v).is_tensor() {
        // A scalar: every thread holds it; thread 0 acts.
        return Ok(vec![Owner::If(B::is_first_thread(e))]);
    }
    let l = e.layout(v)?;
    let (lane_mask, warp_mask) = l.replica_masks();
    let thread_pred = if lane_mask != 0 || warp_mask != 0 {
        Owner::If(B::is_first_copy(e, lane_mask, warp_mask))
    } else {
        Owner::Always
    };
    let unique = l.unique_registers();
    Ok(unique.into_iter().map(|u| if u { thread_pred } else { Owner::Never }).collect())
}

/// How many consecutive registers of an access may move as one, for elements of `elem_bits` bits,
/// up to 16 bytes: a power of two, 1 when nothing is proven. `layout` is the pointer tensor's,
/// `pointer` its axis facts; `mask` is `None` without a tensor mask, `Some(None)` for a tensor
/// mask without facts, `Some(Some(info))` with them.
///
/// The registers of a group must walk one dim element by element in every thread
/// (`LinearLayout::register_contiguity`, the dim whose run is longest), the pointers must be
/// contiguous over the group and its first address aligned to the group's bytes, and the mask
/// constant over the group, so that the first register's mask guards all of it. Both backends
/// vectorize from this rule (PTX `ld.global.v4`, SPIR-V `uvec4` views).
pub fn access_width(
    layout: &LayoutInfo,
    pointer: &AxisInfo,
    mask: Option<Option<&AxisInfo>>,
    elem_bits: u64,
) -> usize {
    // The dim whose elements a thread's registers walk the longest.
    let (dim, registers) = (0..layout.rank())
        .map(|dim| (dim, layout.linear.register_contiguity(dim) as u64))
        .max_by_key(|&(dim, run)| (run, dim))
        .unwrap_or((0, 1));
    let mask_constancy = match mask {
        Some(Some(info)) => info.constancy[dim],
        Some(None) => 1,
        None => u64::MAX,
    };
    let elem_bytes = elem_bits / 8;
    let mut width = registers.min(128 / elem_bits);
    while width > 1 {
        // Runs of `contiguity` elements start at addresses divisible by `divisibility` bytes; a
        // group starts `k * width` elements into a run, so it is aligned when the run start is.
        let contiguous = pointer.contiguity[dim].is_multiple_of(width);
        let aligned = pointer.divisibility[dim].is_multiple_of(width * elem_bytes);
        let masked_alike = mask_constancy == u64::MAX || mask_constancy.is_multiple_of(width);
        if contiguous && aligned && masked_alike {
            break;
        }
        width /= 2;
    }
    width as usize
}
