//! Structured control flow: `scf.for`, `scf.if` and `scf.while` as uniform branches.
//!
//! Conditions and loop bounds are scalars, the same in every thread, so branches never diverge
//! and barriers inside regions stay legal. Unconditional branches are `bra.uni`; conditional
//! ones are plain `bra`, as LLVM's NVPTX backend emits them: ptxas does not unroll a loop whose
//! back edge is a predicated `bra.uni`. Loops are rotated (a guard, then a bottom-tested body),
//! the form whose unrolled iterations ptxas overlaps. Region arguments and results live in fresh
//! registers allocated before the op; a terminator copies the yielded registers into them through
//! temporaries (a parallel copy, so a yield of swapped values is right).

use trident_midend::codegen::control::{condition, yielded, ForOp, IfOp, WhileOp};
use trident_midend::codegen::LowerControl;

use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};

/// `dst = src`, for any register class.
pub(crate) fn mov(e: &mut Emitter, dst: Reg, src: Reg) {
    let ty = match dst.class {
        Class::Pred => "pred",
        Class::B16 => "b16",
        Class::B32 => "b32",
        Class::B64 => "b64",
        Class::F32 => "f32",
        Class::F64 => "f64",
    };
    e.ins(format!("mov.{ty} {dst}, {src}"));
}

/// Fresh registers shaped like `template` (one per register, even where it repeats).
fn fresh_like(e: &mut Emitter, template: &[Reg]) -> Vec<Reg> {
    template.iter().map(|r| e.reg(r.class)).collect()
}

/// Copies `from` into `to` as a parallel copy. A register copied onto itself is left alone: an
/// asynchronous warpgroup dot accumulates in the loop's own registers, which no instruction may
/// touch while it is in flight.
fn parallel_copy(e: &mut Emitter, to: &[Vec<Reg>], from: &[Vec<Reg>]) {
    let mut temps = Vec::new();
    for (t, f) in to.iter().zip(from) {
        let mut row = Vec::new();
        for (i, &dst) in t.iter().enumerate() {
            let src = f[if f.len() == 1 { 0 } else { i }];
            if src == dst {
                row.push(None);
                continue;
            }
            let tmp = e.reg(dst.class);
            mov(e, tmp, src);
            row.push(Some(tmp));
        }
        temps.push(row);
    }
    for (t, row) in to.iter().zip(temps) {
        for (&dst, tmp) in t.iter().zip(row) {
            if let Some(tmp) = tmp {
                mov(e, dst, tmp);
            }
        }
    }
}

/// Registers for values of the given types, one per layout register (scalars: one).
fn fresh_for_values(
    e: &mut Emitter,
    values: &[trident_midend::ir::Value],
    like: &[Vec<Reg>],
) -> Vec<Vec<Reg>> {
    values.iter().zip(like).map(|(_, l)| fresh_like(e, l)).collect()
}

impl<'a> LowerControl<'a> for Emitter<'a> {
    fn scf_for(e: &mut Self, op: ForOp<Reg>) -> EResult<()> {
        let ForOp { lower: lb, upper: ub, step, iv_type, inits, body, args, results } = op;
        let wide = iv_type.bits() == 64;
        let (ity, class) = if wide { ("s64", Class::B64) } else { ("s32", Class::B32) };
        // Carried registers: expanded to one per layout register (inits may be splats).
        let mut carried = Vec::new();
        for (k, &a) in args[1..].iter().enumerate() {
            let n = if e.ty(a).is_tensor() { e.layout(a)?.num_regs() } else { 1 };
            let regs: Vec<Reg> = (0..n).map(|_| e.reg(inits[k][0].class)).collect();
            carried.push(regs);
        }
        parallel_copy(e, &carried, &inits);
        let iv = e.reg(class);
        mov(e, iv, lb);
        let top = e.ptx.label("for");
        let end = e.ptx.label("for_end");
        let skip = e.reg(Class::Pred);
        e.ins(format!("setp.ge.{ity} {skip}, {iv}, {ub}"));
        e.ins(format!("@{skip} bra {end}"));
        e.ptx.place_label(&top);
        e.set(args[0], vec![iv]);
        for (k, &a) in args[1..].iter().enumerate() {
            e.set(a, carried[k].clone());
        }
        e.block(body)?;
        let next = yielded(e, body, 0)?;
        parallel_copy(e, &carried, &next);
        e.ins(format!("add.{ity} {iv}, {iv}, {step}"));
        let again = e.reg(Class::Pred);
        e.ins(format!("setp.lt.{ity} {again}, {iv}, {ub}"));
        e.ins(format!("@{again} bra {top}"));
        e.ptx.place_label(&end);
        for (k, &r) in results.iter().enumerate() {
            e.set(r, carried[k].clone());
        }
        Ok(())
    }

    fn scf_if(e: &mut Self, op: IfOp<Reg>) -> EResult<()> {
        let IfOp { cond, then_block, else_block, results } = op;
        let mut outs = Vec::new();
        for &r in &results {
            let ty = e.ty(r).clone();
            let n = if ty.is_tensor() { e.layout(r)?.num_regs() } else { 1 };
            let class = crate::emit::class_of_type(&ty);
            outs.push((0..n).map(|_| e.reg(class)).collect::<Vec<_>>());
        }
        let else_label = e.ptx.label("else");
        let end = e.ptx.label("endif");
        e.ins(format!("@!{cond} bra {else_label}"));
        e.block(then_block)?;
        let y = yielded(e, then_block, 0)?;
        parallel_copy(e, &outs, &y);
        e.ins(format!("bra.uni {end}"));
        e.ptx.place_label(&else_label);
        e.block(else_block)?;
        let y = yielded(e, else_block, 0)?;
        parallel_copy(e, &outs, &y);
        e.ptx.place_label(&end);
        for (k, &r) in results.iter().enumerate() {
            e.set(r, outs[k].clone());
        }
        Ok(())
    }

    fn scf_while(e: &mut Self, op: WhileOp<Reg>) -> EResult<()> {
        let WhileOp { inits, before, after, before_args, after_args, results } = op;
        let mut carried = Vec::new();
        for (k, &a) in before_args.iter().enumerate() {
            let n = if e.ty(a).is_tensor() { e.layout(a)?.num_regs() } else { 1 };
            carried.push((0..n).map(|_| e.reg(inits[k][0].class)).collect::<Vec<_>>());
        }
        parallel_copy(e, &carried, &inits);
        let forwarded = fresh_for_values(e, &after_args, &carried);
        let top = e.ptx.label("while");
        let end = e.ptx.label("while_end");
        e.ptx.place_label(&top);
        for (k, &a) in before_args.iter().enumerate() {
            e.set(a, carried[k].clone());
        }
        e.block(before)?;
        let cond = condition(e, before)?;
        let values = yielded(e, before, 1)?;
        parallel_copy(e, &forwarded, &values);
        e.ins(format!("@!{cond} bra {end}"));
        for (k, &a) in after_args.iter().enumerate() {
            e.set(a, forwarded[k].clone());
        }
        e.block(after)?;
        let next = yielded(e, after, 0)?;
        parallel_copy(e, &carried, &next);
        e.ins(format!("bra.uni {top}"));
        e.ptx.place_label(&end);
        for (k, &r) in results.iter().enumerate() {
            e.set(r, forwarded[k].clone());
        }
        Ok(())
    }
}

/// A loop over a trip count known when compiling (`0..count` by `step`), bottom-tested like
/// `scf.for`'s so ptxas unrolls it. `open` places the top label; `close` steps and branches back.
pub struct CountedLoop {
    pub iv: Reg,
    top: String,
    count: i64,
    step: i64,
}

impl CountedLoop {
    /// Starts the loop; the body follows. `count` must be positive.
    pub fn open(e: &mut Emitter, name: &str, count: i64, step: i64) -> CountedLoop {
        debug_assert!(count > 0 && step > 0);
        let iv = e.reg(Class::B32);
        e.ins(format!("mov.u32 {iv}, 0"));
        let top = e.ptx.label(name);
        e.ptx.place_label(&top);
        CountedLoop { iv, top, count, step }
    }

    /// Ends the body: steps the induction variable and loops while it is below the count.
    pub fn close(self, e: &mut Emitter) {
        let CountedLoop { iv, top, count, step } = self;
        e.ins(format!("add.s32 {iv}, {iv}, {step}"));
        let again = e.reg(Class::Pred);
        e.ins(format!("setp.lt.s32 {again}, {iv}, {count}"));
        e.ins(format!("@{again} bra {top}"));
    }
}
