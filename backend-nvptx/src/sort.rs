//! `tt.histogram`, `tt.sort` and `tt.topk` through shared memory.
//!
//! Histogram: the bins are zeroed in shared memory, every owned input element adds one to its bin
//! with a shared-memory atomic, and the result is read back in its layout. Sort (along the last
//! dim) is a rank sort: each element counts the elements of its row that must precede it (smaller,
//! or equal and earlier, for ascending order) and is written at that rank; top-k is a descending
//! sort whose first k columns are read back. Simple, exact and stable; a bitonic network is the
//! faster form for large rows.

use trident_midend::codegen::sort::SortOp;
use trident_midend::codegen::{Isa, Lines, LowerSort};
use trident_midend::ir::{DType, Op};

use crate::emit::{EResult, Emitter};
use crate::memory::{owner_predicates, Owner};
use crate::ptx::{Class, Reg};
use trident_midend::layout::registers::Affine;

impl<'a> LowerSort<'a> for Emitter<'a> {
    fn histogram(e: &mut Self, op: Op) -> EResult<()> {
        let data = e.func.body.op(op);
        let x = e.get(data.operands[0])?;
        let mask = match data.operands.get(1) {
            Some(&m) => Some(e.get(m)?),
            None => None,
        };
        let xd = e.ty(data.operands[0]).dtype();
        let dl = e.layout(data.results[0])?;
        let bins = dl.shape[0] as i64;
        let threads = 32 * e.options.num_warps;
        let owners = owner_predicates(e, op, 0)?;
        e.need_shared((bins * 4) as u64)?;
        let smem = e.smem_base();
        // Zero the bins: thread t clears t, t + threads, ...
        e.barrier();
        let i = e.reg(Class::B32);
        let done = e.reg(Class::Pred);
        let addr = e.reg(Class::B32);
        let top = e.ptx.label("hist_zero");
        let end = e.ptx.label("hist_zero_end");
        e.ins(format!("mov.u32 {i}, {}", e.tid));
        e.ptx.place_label(&top);
        e.ins(format!("setp.ge.s32 {done}, {i}, {bins}"));
        e.ins(format!("@{done} bra {end}"));
        e.ins(format!("mad.lo.s32 {addr}, {i}, 4, {smem}"));
        e.ins(format!("st.shared.u32 [{addr}], 0"));
        e.ins(format!("add.s32 {i}, {i}, {threads}"));
        e.ins(format!("bra {top}"));
        e.ptx.place_label(&end);
        e.barrier();
        for (k, &v) in x.iter().enumerate() {
            let owner = owners[if owners.len() == 1 { 0 } else { k }];
            if matches!(owner, Owner::Never) {
                continue;
            }
            let bin = if xd.bits() == 64 {
                let t = e.reg(Class::B32);
                let big = e.reg(Class::Pred);
                e.ins(format!("setp.gt.u64 {big}, {v}, {bins}"));
                e.ins(format!("cvt.u32.u64 {t}, {v}"));
                e.ins(format!("@{big} mov.u32 {t}, {bins}"));
                t
            } else {
                v
            };
            let p = e.reg(Class::Pred);
            e.ins(format!("setp.lt.u32 {p}, {bin}, {bins}"));
            if let Owner::If(o) = owner {
                e.ins(format!("and.pred {p}, {p}, {o}"));
            }
            if let Some(m) = &mask {
                e.ins(format!("and.pred {p}, {p}, {}", m[if m.len() == 1 { 0 } else { k }]));
            }
            let a = e.reg(Class::B32);
            e.ins(format!("mad.lo.s32 {a}, {bin}, 4, {smem}"));
            e.ins(format!("@{p} red.shared.add.u32 [{a}], 1"));
        }
        e.barrier();
        let r = e.read_shared(&dl, &Affine::row_major(&dl.shape), Class::B32);
        e.set(data.results[0], r);
        Ok(())
    }

    fn sort(e: &mut Self, sort: &SortOp<Reg, Class>) -> EResult<Vec<Reg>> {
        let (src, d, descending, class, l) =
            (&sort.src, sort.dtype, sort.descending, sort.class, &sort.layout);
        let (len, numel) = (sort.row_len(), sort.numel());
        let bytes = class.bytes() as i64;
        // Region 0: the input; region 1: the sorted rows.
        sort.write_input(e)?;
        let smem = e.smem_base();
        let Lines { start: row_f, base: row_base, pos } = e.lines_along(l, l.rank() - 1);
        let mut dests = Vec::with_capacity(src.len());
        for (i, &v) in src.iter().enumerate() {
            let row = e.reg(Class::B32);
            e.ins(format!("add.s32 {row}, {row_base}, {}", row_f.eval(&l.reg_coords[i])));
            let rowaddr = e.reg(Class::B32);
            e.ins(format!("mad.lo.s32 {rowaddr}, {row}, {bytes}, {smem}"));
            let count = e.reg(Class::B32);
            let j = e.reg(Class::B32);
            let addr = e.reg(Class::B32);
            let done = e.reg(Class::Pred);
            let top = e.ptx.label("rank");
            let end = e.ptx.label("rank_end");
            e.ins(format!("mov.u32 {count}, 0"));
            e.ins(format!("mov.u32 {j}, 0"));
            e.ptx.place_label(&top);
            e.ins(format!("setp.ge.s32 {done}, {j}, {len}"));
            e.ins(format!("@{done} bra {end}"));
            e.ins(format!("mad.lo.s32 {addr}, {j}, {bytes}, {rowaddr}"));
            let w = e.ld_shared(class, addr, 0);
            let before = precedes(e, w, v, d, descending)?;
            let after = precedes(e, v, w, d, descending)?;
            // Equal values keep their order: the earlier index goes first.
            let tie = e.reg(Class::Pred);
            let earlier = e.reg(Class::Pred);
            e.ins(format!("or.pred {tie}, {before}, {after}"));
            e.ins(format!("not.pred {tie}, {tie}"));
            e.ins(format!("setp.lt.s32 {earlier}, {j}, {}", pos[i]));
            e.ins(format!("and.pred {tie}, {tie}, {earlier}"));
            e.ins(format!("or.pred {before}, {before}, {tie}"));
            let one = e.reg(Class::B32);
            e.ins(format!("selp.u32 {one}, 1, 0, {before}"));
            e.ins(format!("add.s32 {count}, {count}, {one}"));
            e.ins(format!("add.s32 {j}, {j}, 1"));
            e.ins(format!("bra {top}"));
            e.ptx.place_label(&end);
            // Destination: region 1, same row, at the rank.
            let dest = e.reg(Class::B32);
            e.ins(format!("add.s32 {dest}, {row}, {count}"));
            e.ins(format!("add.s32 {dest}, {dest}, {numel}"));
            e.ins(format!("mad.lo.s32 {dest}, {dest}, {bytes}, {smem}"));
            dests.push(dest);
        }
        for (&v, &dest) in src.iter().zip(&dests) {
            e.st_shared(dest, 0, v);
        }
        e.barrier();
        sort.read_sorted(e)
    }
}

/// `a` strictly before `b` in the requested order, as a predicate.
fn precedes(e: &mut Emitter, a: Reg, b: Reg, d: DType, descending: bool) -> EResult<Reg> {
    let (a, b, ty) = match d {
        DType::F32 => (a, b, "f32"),
        DType::F64 => (a, b, "f64"),
        DType::F16 | DType::BF16 => (e.widen_to_f32(a, d)?, e.widen_to_f32(b, d)?, "f32"),
        DType::I64 => (a, b, "s64"),
        DType::U64 => (a, b, "u64"),
        d if d.is_unsigned_int() => (a, b, "u32"),
        DType::I8 | DType::I16 | DType::I32 => (a, b, "s32"),
        other => return e.unsupported(&format!("sorting {other} values")),
    };
    let p = e.reg(Class::Pred);
    let cmp = if descending { "gt" } else { "lt" };
    e.ins(format!("setp.{cmp}.{ty} {p}, {a}, {b}"));
    Ok(p)
}
