//! `tt.histogram`, `tt.sort` and `tt.topk` through workgroup memory, as the nvptx backend does.
//!
//! Histogram: the bins are zeroed in workgroup memory by a strided loop over the invocations,
//! every owned input element adds one to its bin with a workgroup atomic, and after a barrier the
//! bins are read back in the result's layout. Elements outside `[0, bins)` (or masked off) count
//! nowhere.
//!
//! Sort (along the last dim) is a rank sort: each element counts, with a runtime loop over its
//! row, the elements that must precede it (smaller, or equal and earlier, for ascending order)
//! and is written at that rank in a second region; top-k is a descending sort whose first k
//! columns are read back. Simple, exact and stable, and the loop keeps the module small whatever
//! the row length; a bitonic network is the faster form for large rows.

use rspirv::spirv::{Op, Scope};
use trident_midend::codegen::sort::SortOp;
use trident_midend::codegen::{Isa, Lines, LowerSort};
use trident_midend::ir::{DType, Op as IrOp};

use crate::emit::{EResult, Emitter};
use crate::memory::{owner_predicates, Owner};
use crate::spirv::{Class, Reg};
use trident_midend::layout::registers::Affine;

/// Picks element `i` of a register list (splats have one register).
fn pick<T: Copy>(regs: &[T], i: usize) -> T {
    regs[if regs.len() == 1 { 0 } else { i }]
}

impl<'a> LowerSort<'a> for Emitter<'a> {
    fn histogram(e: &mut Self, op: IrOp) -> EResult<()> {
        let data = e.func.body.op(op);
        let x = e.get(data.operands[0])?;
        let mask = data.operands.get(1).map(|&m| e.get(m)).transpose()?;
        let result = data.results[0];
        let dl = e.layout(result)?;
        let bins = dl.shape[0];
        let threads = e.options.threads_per_warp * e.options.num_warps;
        let owners = owner_predicates(e, op, 0)?;
        e.need_shared_words(bins as u64)?;

        // Zero the bins: invocation t clears t, t + threads, ...
        e.barrier();
        let tid = e.tid;
        let step = e.u32c(threads);
        e.strided_loop(tid, bins, step, |e, i| {
            let zero = e.u32c(0);
            e.smem_store_word(i, zero);
        });
        e.barrier();

        let bins_c = e.u32c(bins);
        let workgroup = e.s.const_u32(Scope::Workgroup as u32);
        let relaxed = e.s.const_u32(0);
        for (k, &v) in x.iter().enumerate() {
            let owner = pick(&owners, k);
            if matches!(owner, Owner::Never) {
                continue;
            }
            // A 64-bit value past the last bin must not wrap into range when narrowed.
            let bin = if v.class == Class::U64 {
                let big = e.s.const_of(Class::U64, bins as u64);
                let past = e.s.op(Op::UGreaterThan, Class::Bool, &[v, big]);
                let low = e.s.op(Op::UConvert, Class::U32, &[v]);
                e.s.select(past, bins_c, low)
            } else {
                v
            };
            // Negative values are huge as unsigned, so one comparison bounds both ends.
            let mut counts = e.s.op(Op::ULessThan, Class::Bool, &[bin, bins_c]);
            if let Owner::If(o) = owner {
                counts = e.s.op(Op::LogicalAnd, Class::Bool, &[counts, o]);
            }
            if let Some(m) = &mask {
                counts = e.s.op(Op::LogicalAnd, Class::Bool, &[counts, pick(m, k)]);
            }
            let merge = e.s.begin_if(counts);
            let p = e.smem_word_ptr(bin);
            let one = e.u32c(1);
            let u32t = e.s.u32_ty();
            e.s.inst(Op::AtomicIAdd, u32t, &[p, workgroup, relaxed, one.id]);
            e.s.end_if(merge);
        }
        e.barrier();
        let r = e.read_shared(&dl, &Affine::row_major(&dl.shape), Class::U32);
        e.barrier();
        e.set(result, r);
        Ok(())
    }

    fn sort(e: &mut Self, sort: &SortOp<Reg, Class>) -> EResult<Vec<Reg>> {
        let (src, d, descending, class, l) =
            (&sort.src, sort.dtype, sort.descending, sort.class, &sort.layout);
        let (len, numel) = (sort.row_len() as u32, sort.numel());
        let words = class.words();

        // Region 0 (elements 0..numel): the input; region 1 (numel..2 numel): the sorted rows.
        sort.write_input(e)?;
        let Lines { start: row_f, base: row_base, pos } = e.lines_along(l, l.rank() - 1);
        let words_c = e.u32c(words);
        for (i, &v) in src.iter().enumerate() {
            // The element index of this register's row start.
            let row = e.add_imm(row_base, row_f.eval(&l.reg_coords[i]));
            let count_var = e.s.var(Class::U32);
            let zero = e.u32c(0);
            e.s.store(count_var, zero.id);
            let mut failed = None;
            let one = e.u32c(1);
            e.strided_loop(zero, len, one, |e, j| {
                let element = e.add_u32(row, j);
                let addr = e.s.op(Op::IMul, Class::U32, &[element, words_c]);
                let w = e.ld_shared(class, addr, 0);
                let (before, after) =
                    match (precedes(e, w, v, d, descending), precedes(e, v, w, d, descending)) {
                        (Ok(b), Ok(a)) => (b, a),
                        (Err(error), _) | (_, Err(error)) => {
                            failed = Some(error);
                            return;
                        }
                    };
                // Equal values keep their order: the earlier index goes first.
                let unordered = e.s.op(Op::LogicalOr, Class::Bool, &[before, after]);
                let tie = e.s.op(Op::LogicalNot, Class::Bool, &[unordered]);
                let earlier = e.s.op(Op::ULessThan, Class::Bool, &[j, pos[i]]);
                let tie = e.s.op(Op::LogicalAnd, Class::Bool, &[tie, earlier]);
                let first = e.s.op(Op::LogicalOr, Class::Bool, &[before, tie]);
                let (one, none) = (e.u32c(1), e.u32c(0));
                let step = e.s.select(first, one, none);
                let count = e.s.load(Class::U32, count_var);
                let count = e.add_u32(count, step);
                e.s.store(count_var, count.id);
            });
            if let Some(error) = failed {
                return Err(error);
            }
            // Destination: region 1, same row, at the rank.
            let count = e.s.load(Class::U32, count_var);
            let dest = e.add_u32(row, count);
            let dest = e.add_imm(dest, numel);
            let dest = e.s.op(Op::IMul, Class::U32, &[dest, words_c]);
            e.st_shared(dest, 0, v);
        }
        e.barrier();
        let r = sort.read_sorted(e)?;
        e.barrier();
        Ok(r)
    }
}

/// `a` strictly before `b` in the requested order.
fn precedes(e: &mut Emitter, a: Reg, b: Reg, d: DType, descending: bool) -> EResult<Reg> {
    let (a, b) = if descending { (b, a) } else { (a, b) };
    let op = match d {
        DType::F32 | DType::F64 => Op::FOrdLessThan,
        DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 => {
            let a = crate::arith::widen_to_f32(e, a, d)?;
            let b = crate::arith::widen_to_f32(e, b, d)?;
            return Ok(e.s.op(Op::FOrdLessThan, Class::Bool, &[a, b]));
        }
        d if d.is_unsigned_int() => Op::ULessThan,
        // Narrow signed integers are kept sign-extended in their 32 bits.
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => Op::SLessThan,
        other => return e.unsupported(&format!("sorting {other} values")),
    };
    Ok(e.s.op(op, Class::Bool, &[a, b]))
}
