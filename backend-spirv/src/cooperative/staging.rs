//! Writing a chunk of K of a cooperative dot's A and B into the workgroup staging arrays.
//!
//! Each thread writes the operand elements it holds, at their place in the padded rows of A
//! (`super::a_stride`) and in B's padded rows, or columns where its layout holds it along K
//! (`super::BStaging`). The staging arrays are arrays of `f16vec4` (or `bf16vec4`), and a thread
//! whose layout gives it four consecutive elements of a staged row (the loads' layouts do: their
//! registers run along the contiguous dim) writes them with one 8-byte store: f16 registers' bits
//! are packed into two words (`OpBitFieldInsert`) and bitcast to `f16vec4`, instead of four 2-byte
//! stores of values widened to f32 and narrowed back; bf16 ones are converted from f32 one by one
//! (SPV_KHR_bfloat16 promises conversions, not bitcasts) and put together; fp8 codes become f16
//! bits in integer operations ([`fp8_as_f16`]). Matrix loads read the arrays through vector
//! pointers, their element index and row stride counted in vectors (everything a tile starts at
//! is a multiple of 16 elements).
//!
//! Elsewhere (a layout without such runs) each element is converted and stored alone, into its
//! vector's component.
//!
//! Where K is staged in several chunks, a thread holding elements of several chunks tests each
//! group's k at run time (one test per run of four: a run never straddles chunks, which are
//! multiples of 16 long and start at multiples of 16).

use rustc_hash::FxHashMap;

use rspirv::spirv::{Op, Word};
use trident_midend::codegen::dot::{widen_operand, DotOp};
use trident_midend::codegen::Isa;
use trident_midend::ir::DType;
use trident_midend::layout::registers::{Affine, LayoutInfo};

use super::{a_stride, element_pointer, BStaging, Staging};
use crate::emit::{EResult, Emitter};
use crate::spirv::{Class, Reg};

/// Elements one vector store writes: the components of the staging arrays' elements.
pub(super) const VECTOR_LANES: i64 = 4;

/// A and B's registers as the dot holds them (16-bit floats' bits in the low half of a word),
/// and their k coordinates where K is staged in several chunks.
pub(super) struct Operands {
    a: Vec<Reg>,
    b: Vec<Reg>,
    a_k: Vec<Reg>,
    b_k: Vec<Reg>,
}

pub(super) fn operands(e: &mut Emitter, dot: &DotOp, chunks: i64) -> EResult<Operands> {
    let a = e.get(dot.a)?;
    let b = e.get(dot.b)?;
    let a_k = if chunks > 1 { e.coord_regs(&dot.a_layout, 1) } else { Vec::new() };
    let b_k = if chunks > 1 { e.coord_regs(&dot.b_layout, 0) } else { Vec::new() };
    Ok(Operands { a, b, a_k, b_k })
}

/// One operand's registers and where they go.
struct Operand<'a> {
    /// The staging array's variable.
    var: Word,
    regs: &'a [Reg],
    dtype: DType,
    layout: &'a LayoutInfo,
    /// Each register's element index in the array (its thread part comes from the layout).
    write: Affine,
    k_coords: &'a [Reg],
}

/// Writes this chunk of K of A (row-major, m x chunk) and of B (row-major, chunk x n), rows
/// padded, into the staging arrays.
pub(super) fn stage_operands(
    e: &mut Emitter,
    staging: Staging,
    dot: &DotOp,
    b_staging: BStaging,
    operands: &Operands,
    k0: i64,
) -> EResult<()> {
    let chunk = b_staging.chunk;
    let a = Operand {
        var: staging.a,
        regs: &operands.a,
        dtype: dot.a_type,
        layout: &dot.a_layout,
        write: Affine { coeffs: vec![a_stride(chunk), 1], offset: -k0 },
        k_coords: &operands.a_k,
    };
    let b = Operand {
        var: staging.b,
        regs: &operands.b,
        dtype: dot.b_type,
        layout: &dot.b_layout,
        write: b_staging.write(k0),
        k_coords: &operands.b_k,
    };
    for operand in [a, b] {
        match vector_runs(operand.layout, &operand.write, VECTOR_LANES) {
            Some(runs) => write_runs(e, staging, &operand, &runs, k0, chunk)?,
            None => write_elements(e, staging, &operand, k0, chunk)?,
        }
    }
    Ok(())
}

/// Whether B's layout `l` (k x n) gives runs of four only along K: staged column-major, it is
/// written a vector at a time, row-major it would not be (see `super::BStaging`). The padded
/// strides' remainders mod 4 do not depend on the chunk (a multiple of 16), so one of 16 answers
/// for all.
pub(super) fn runs_only_along_k(l: &LayoutInfo, n: i64) -> bool {
    let pad = super::ROW_PAD_HALVES;
    let row_major = Affine { coeffs: vec![n + pad, 1], offset: 0 };
    let column_major = Affine { coeffs: vec![1, 16 + pad], offset: 0 };
    vector_runs(l, &row_major, VECTOR_LANES).is_none()
        && vector_runs(l, &column_major, VECTOR_LANES).is_some()
}

/// Every register the thread owns of layout `l` (a register another thread also holds is written
/// by one of them), in runs of `lanes` whose elements are consecutive under `write` from a
/// multiple of `lanes`, in every thread (each lane's and warp's part of the offset is a multiple
/// of `lanes` too): each run's registers in element order. `None` where some owned register is
/// in no such run.
pub(super) fn vector_runs(l: &LayoutInfo, write: &Affine, lanes: i64) -> Option<Vec<Vec<usize>>> {
    if !l.additive {
        return None;
    }
    let linear = |basis: &[u32]| write.coeffs.iter().zip(basis).map(|(k, &x)| k * i64::from(x)).sum::<i64>();
    if l.lane_bases.iter().chain(&l.warp_bases).any(|basis| linear(basis) % lanes != 0) {
        return None;
    }
    let unique = l.unique_registers();
    let owned: Vec<usize> = (0..l.num_regs()).filter(|&i| unique[i]).collect();
    let at: FxHashMap<i64, usize> = owned.iter().map(|&i| (write.eval(&l.reg_coords[i]), i)).collect();
    if at.len() != owned.len() {
        return None;
    }
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut starts: Vec<i64> = at.keys().copied().filter(|offset| offset.rem_euclid(lanes) == 0).collect();
    starts.sort_unstable();
    for start in starts {
        let run: Option<Vec<usize>> = (0..lanes).map(|j| at.get(&(start + j)).copied()).collect();
        runs.push(run?);
    }
    (runs.len() as i64 * lanes == owned.len() as i64).then_some(runs)
}

/// Writes `operand`'s runs ([`vector_runs`]) a vector at a time.
fn write_runs(
    e: &mut Emitter,
    staging: Staging,
    operand: &Operand<'_>,
    runs: &[Vec<usize>],
    k0: i64,
    chunk: i64,
) -> EResult<()> {
    let base = e.affine_base(operand.layout, &operand.write);
    let shift = e.u32c(VECTOR_LANES.trailing_zeros());
    let base = e.s.op(Op::ShiftRightLogical, Class::U32, &[base, shift]);
    // A run's elements share the chunk its first one is in.
    let keyed = runs.iter().map(|run| (operand.k_coords.get(run[0]).copied(), run));
    crate::dot::in_chunk(e, keyed, k0, chunk, |e, run| {
        let registers: Vec<Reg> = run.iter().map(|&i| operand.regs[i]).collect();
        let vector = vector_of(e, staging, operand.dtype, &registers)?;
        let offset = operand.write.eval(&operand.layout.reg_coords[run[0]]) / VECTOR_LANES;
        let index = e.add_imm(base, offset);
        let pointer = element_pointer(e, operand.var, staging.element, index);
        e.s.store_shared(pointer, vector);
        Ok(())
    })
}

/// The staging arrays' vector of the elements of type `dtype` in `registers` (in order): f16 bits
/// packed in pairs and bitcast, other values (bf16, fp8 staged as f16) converted one by one.
fn vector_of(e: &mut Emitter, staging: Staging, dtype: DType, registers: &[Reg]) -> EResult<Word> {
    match dtype {
        DType::F16 => return Ok(packed_halves(e, staging, registers)),
        DType::F8E4M3 | DType::F8E5M2 => return Ok(fp8_as_f16(e, staging, dtype, registers)),
        _ => {}
    }
    let widened = widen_operand(e, registers, dtype, false)?;
    let halves: Vec<Word> =
        widened.iter().map(|value| e.s.inst(Op::FConvert, staging.half, &[value.id])).collect();
    Ok(e.s.inst(Op::CompositeConstruct, staging.element, &halves))
}

/// The `f16vec4` whose lanes' bits are the low halves of `registers`, packed in pairs.
fn packed_halves(e: &mut Emitter, staging: Staging, registers: &[Reg]) -> Word {
    let u32t = e.s.u32_ty();
    let words = e.s.vector_ty(u32t, registers.len() as u32 / 2);
    let sixteen = e.s.const_u32(16);
    let pairs: Vec<Word> = registers
        .chunks(2)
        .map(|pair| e.s.inst(Op::BitFieldInsert, u32t, &[pair[0].id, pair[1].id, sixteen, sixteen]))
        .collect();
    let packed = e.s.inst(Op::CompositeConstruct, words, &pairs);
    e.s.inst(Op::Bitcast, staging.element, &[packed])
}

/// The fp8 codes in `registers` (their low bytes) as an `f16vec4`, exactly, in a few integer
/// operations per element instead of the general widening to f32: an e5m2 code is the top byte
/// of the same f16 (infinities and NaNs included). An e4m3 code's sign, exponent and mantissa
/// moved into f16's places make an f16 2^-8 times the e4m3 value (subnormals too: both formats'
/// subnormals scale by the same power of two), so the vector is multiplied by 256; the one e4m3fn
/// NaN magnitude (0x7f) would read 480 there and is made a NaN.
fn fp8_as_f16(e: &mut Emitter, staging: Staging, dtype: DType, registers: &[Reg]) -> Word {
    let byte = e.u32c(0xff);
    let f16_bits: Vec<Reg> = registers
        .iter()
        .map(|&code| {
            let code = e.s.op(Op::BitwiseAnd, Class::U32, &[code, byte]);
            if dtype == DType::F8E5M2 {
                let eight = e.u32c(8);
                return e.s.op(Op::ShiftLeftLogical, Class::U32, &[code, eight]);
            }
            let (sign_mask, magnitude_mask) = (e.u32c(0x80), e.u32c(0x7f));
            let (eight, seven) = (e.u32c(8), e.u32c(7));
            let sign = e.s.op(Op::BitwiseAnd, Class::U32, &[code, sign_mask]);
            let sign = e.s.op(Op::ShiftLeftLogical, Class::U32, &[sign, eight]);
            let magnitude = e.s.op(Op::BitwiseAnd, Class::U32, &[code, magnitude_mask]);
            let magnitude = e.s.op(Op::ShiftLeftLogical, Class::U32, &[magnitude, seven]);
            e.s.op(Op::BitwiseOr, Class::U32, &[sign, magnitude])
        })
        .collect();
    let vector = packed_halves(e, staging, &f16_bits);
    if dtype == DType::F8E5M2 {
        return vector;
    }
    let lanes = registers.len();
    let splat = |e: &mut Emitter, bits: u32| {
        let scalar = e.s.b.constant_bit32(staging.half, bits);
        e.s.b.constant_composite(staging.element, vec![scalar; lanes])
    };
    let (scale, nan) = (splat(e, 0x5c00), splat(e, 0x7e00));
    let scaled = e.s.inst(Op::FMul, staging.element, &[vector, scale]);
    let magnitude_mask = e.u32c(0x7f);
    let is_nan: Vec<Word> = registers
        .iter()
        .map(|&code| {
            let magnitude = e.s.op(Op::BitwiseAnd, Class::U32, &[code, magnitude_mask]);
            e.s.op(Op::IEqual, Class::Bool, &[magnitude, magnitude_mask]).id
        })
        .collect();
    let bools = {
        let bool_ty = e.s.ty(Class::Bool);
        e.s.vector_ty(bool_ty, lanes as u32)
    };
    let is_nan = e.s.inst(Op::CompositeConstruct, bools, &is_nan);
    e.s.inst(Op::Select, staging.element, &[is_nan, nan, scaled])
}

/// Writes `operand` an element at a time: each register widened to f32 and converted to the
/// array's 16-bit type (exactly: it was that type), stored alone (into its vector's component
/// where the array holds vectors).
fn write_elements(
    e: &mut Emitter,
    staging: Staging,
    operand: &Operand<'_>,
    k0: i64,
    chunk: i64,
) -> EResult<()> {
    let widened = widen_operand(e, operand.regs, operand.dtype, false)?;
    let half = staging.half;
    let store = |e: &mut Emitter, base: Reg, offset: i64, value: Reg| {
        let index = e.add_imm(base, offset);
        let converted = e.s.inst(Op::FConvert, half, &[value.id]);
        let pointer = staging.scalar_pointer(e, operand.var, index);
        e.s.store_shared(pointer, converted);
    };
    crate::dot::write_chunk(e, &widened, operand.layout, &operand.write, operand.k_coords, k0, chunk, store)
}

#[cfg(test)]
mod tests {
    use trident_midend::layout::registers::{Affine, LayoutInfo};
    use trident_midend::layout::{InDim, LinearLayout};

    use super::vector_runs;

    /// A 2-D layout of `shape` from register, lane and warp bases (coordinates per dim).
    fn layout(shape: [u32; 2], regs: &[[u32; 2]], lanes: &[[u32; 2]], warps: &[[u32; 2]]) -> LayoutInfo {
        let bases = |b: &[[u32; 2]]| b.iter().map(|v| v.to_vec()).collect::<Vec<_>>();
        let linear = LinearLayout::new(
            vec![
                (InDim::Register, bases(regs)),
                (InDim::Lane, bases(lanes)),
                (InDim::Warp, bases(warps)),
                (InDim::Block, Vec::new()),
            ],
            shape.to_vec(),
        )
        .expect("a layout");
        LayoutInfo::new(linear)
    }

    /// 8 consecutive columns per thread (a load's `sizePerThread = [1, 8]`), 4 lanes along the
    /// columns and 8 along the rows, rows 40 elements apart: two runs of four per row.
    #[test]
    fn eight_consecutive_columns_are_two_runs() {
        let l = layout([8, 32], &[[0, 1], [0, 2], [0, 4]], &[[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], &[]);
        let runs = vector_runs(&l, &Affine { coeffs: vec![40, 1], offset: -32 }, 4).expect("runs");
        assert_eq!(runs, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
    }

    /// A lane whose part of the offset is not a multiple of four (two columns per thread) makes
    /// no runs, nor do rows an odd number of elements apart.
    #[test]
    fn misaligned_threads_or_rows_make_no_runs() {
        let pairs = layout([8, 16], &[[0, 1]], &[[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], &[[4, 0]]);
        assert_eq!(vector_runs(&pairs, &Affine { coeffs: vec![24, 1], offset: 0 }, 4), None);
        let eights =
            layout([8, 32], &[[0, 1], [0, 2], [0, 4]], &[[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], &[]);
        assert_eq!(vector_runs(&eights, &Affine { coeffs: vec![42, 1], offset: 0 }, 4), None);
    }
}
