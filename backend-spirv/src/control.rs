//! Structured control flow: `scf.for`, `scf.if` and `scf.while` as SPIR-V structured
//! constructs (`OpLoopMerge`, `OpSelectionMerge`).
//!
//! Conditions and loop bounds are scalars, the same in every thread, so control flow stays
//! uniform and barriers inside regions are legal. SPIR-V values do not cross construct
//! boundaries here: every region argument and result lives in function variables (one per
//! register), stored by the terminator and loaded where the region or the op's results begin.
//! Yielded values are SSA values, so storing them in order is already a parallel copy. A
//! pointer keeps its base argument through a variable; yields that disagree on it are refused.

use rspirv::spirv::{Op, Word};
use trident_midend::codegen::control::{bind, condition, yielded, ForOp, IfOp, WhileOp};
use trident_midend::codegen::{Isa, LowerControl};
use trident_midend::ir::Value;

use crate::cooperative::{carried, workgroup};
use crate::emit::{class_of, EResult, Emitter};
use crate::spirv::{Class, Reg};

/// Function variables for a list of values: one per register, with the classes of `like`
/// (the initial registers, which fix pointer bases) or of the value types.
struct Slots {
    vars: Vec<Vec<(Word, Class)>>,
}

impl Slots {
    fn new(e: &mut Emitter, values: &[Value], like: Option<&[Vec<Reg>]>) -> EResult<Slots> {
        let mut vars = Vec::new();
        for (k, &v) in values.iter().enumerate() {
            let ty = e.ty(v).clone();
            // A value carried in cooperative matrices has one register per matrix.
            let n = match like {
                Some(l) if l[k].first().is_some_and(|r| r.class.is_matrix()) => l[k].len(),
                _ => e.num_regs(&ty)?,
            };
            let mut row = Vec::with_capacity(n);
            for i in 0..n {
                let class = match like {
                    Some(l) => {
                        let regs = &l[k];
                        regs[if regs.len() == 1 { 0 } else { i }].class
                    }
                    None if ty.is_ptr() => Class::Ptr(u32::MAX),
                    None => class_of(ty.dtype()),
                };
                row.push((0, class));
            }
            vars.push(row);
        }
        let mut slots = Slots { vars };
        slots.allocate(e);
        Ok(slots)
    }

    fn allocate(&mut self, e: &mut Emitter) {
        for row in &mut self.vars {
            for slot in row.iter_mut() {
                if slot.0 == 0 && slot.1 != Class::Ptr(u32::MAX) {
                    slot.0 = e.s.var(slot.1);
                }
            }
        }
    }

    /// Stores `values` (splats expand); fixes unknown pointer bases on first store.
    fn store(&mut self, e: &mut Emitter, values: &[Vec<Reg>]) -> EResult<()> {
        for (row, regs) in self.vars.iter_mut().zip(values) {
            for (i, slot) in row.iter_mut().enumerate() {
                let r = regs[if regs.len() == 1 { 0 } else { i }];
                if slot.1 == Class::Ptr(u32::MAX) {
                    slot.1 = r.class;
                    slot.0 = e.s.var(r.class);
                }
                if slot.1 != r.class {
                    return e.unsupported(
                        "a region result whose pointer base argument differs between paths or iterations",
                    );
                }
                e.s.store(slot.0, r.id);
            }
        }
        Ok(())
    }

    fn load(&self, e: &mut Emitter) -> EResult<Vec<Vec<Reg>>> {
        let mut out = Vec::new();
        for row in &self.vars {
            let mut regs = Vec::new();
            for &(var, class) in row {
                if var == 0 {
                    return e.unsupported("a pointer region result that no path defines");
                }
                regs.push(e.s.load(class, var));
            }
            out.push(regs);
        }
        Ok(out)
    }
}

impl<'a> LowerControl<'a> for Emitter<'a> {
    fn scf_for(e: &mut Self, op: ForOp<Reg>) -> EResult<()> {
        let ForOp { lower: lb, upper: ub, step, iv_type, mut inits, body, args, results } = op;
        let unsigned = iv_type.is_unsigned_int();
        // Accumulators the loop carries in cooperative matrices: converted here, and back at
        // the exit.
        let mut in_matrices = Vec::new();
        for (position, &arg) in args[1..].iter().enumerate() {
            // A GEMM's accumulator on a workgroup matrix stays one to its store.
            if workgroup::enter(e, arg, &mut inits[position])? {
                continue;
            }
            if let Some(plan) = carried::enter(e, arg, &mut inits[position])? {
                in_matrices.push((position, plan));
            }
        }
        let mut carried = Slots::new(e, &args[1..], Some(&inits))?;
        carried.store(e, &inits)?;
        let iv_var = e.s.var(lb.class);
        e.s.store(iv_var, lb.id);

        let labels = e.s.begin_loop();
        let iv = e.s.load(lb.class, iv_var);
        let go = e.s.op(if unsigned { Op::ULessThan } else { Op::SLessThan }, Class::Bool, &[iv, ub]);
        e.s.loop_test(&labels, go);
        e.set(args[0], vec![iv]);
        let current = carried.load(e)?;
        bind(e, &args[1..], current);
        e.block(body)?;
        let next = yielded(e, body, 0)?;
        carried.store(e, &next)?;
        e.s.end_loop(&labels, |s| {
            let iv = s.load(lb.class, iv_var);
            let next = s.op(Op::IAdd, lb.class, &[iv, step]);
            s.store(iv_var, next.id);
        });
        let mut out = carried.load(e)?;
        for (position, plan) in in_matrices {
            let layout = e.layout(results[position])?;
            out[position] = carried::leave(e, plan, &out[position], &layout);
        }
        bind(e, &results, out);
        Ok(())
    }

    fn scf_if(e: &mut Self, op: IfOp<Reg>) -> EResult<()> {
        let IfOp { cond, then_block, else_block, results } = op;
        let mut outs = Slots::new(e, &results, None)?;
        let (other, merge) = e.s.begin_if_else(cond);
        e.block(then_block)?;
        let y = yielded(e, then_block, 0)?;
        outs.store(e, &y)?;
        e.s.else_part(other, merge);
        e.block(else_block)?;
        let y = yielded(e, else_block, 0)?;
        outs.store(e, &y)?;
        e.s.end_if(merge);
        let out = outs.load(e)?;
        bind(e, &results, out);
        Ok(())
    }

    fn scf_while(e: &mut Self, op: WhileOp<Reg>) -> EResult<()> {
        let WhileOp { inits, before, after, before_args, after_args, results } = op;
        let mut carried = Slots::new(e, &before_args, Some(&inits))?;
        carried.store(e, &inits)?;
        let mut forwarded = Slots::new(e, &after_args, None)?;

        let labels = e.s.begin_loop();
        let current = carried.load(e)?;
        bind(e, &before_args, current);
        e.block(before)?;
        let cond = condition(e, before)?;
        let values = yielded(e, before, 1)?;
        forwarded.store(e, &values)?;
        e.s.loop_test(&labels, cond);
        let fw = forwarded.load(e)?;
        bind(e, &after_args, fw);
        e.block(after)?;
        let next = yielded(e, after, 0)?;
        carried.store(e, &next)?;
        e.s.end_loop(&labels, |_| {});
        let out = forwarded.load(e)?;
        bind(e, &results, out);
        Ok(())
    }
}
