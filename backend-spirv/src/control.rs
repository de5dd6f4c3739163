//! Structured control flow: `scf.for`, `scf.if` and `scf.while` as SPIR-V structured
//! constructs (`OpLoopMerge`, `OpSelectionMerge`).
//!
//! Conditions and loop bounds are scalars, the same in every thread, so control flow stays
//! uniform and barriers inside regions are legal. SPIR-V values do not cross construct
//! boundaries here: every region argument and result lives in function variables (one per
//! register), stored by the terminator and loaded where the region or the op's results begin.
//! Yielded values are SSA values, so storing them in order is already a parallel copy. A
//! pointer keeps its base argument through a variable; yields that disagree on it are refused.
//!
//! Loops are marked `DontUnroll` and step their induction variable, except one that carries a
//! GEMM's accumulator in a workgroup-scope matrix: it is emitted three times, the fast one in
//! the counted form the driver unrolls and pipelines ([`versioned_gemm`],
//! `cooperative/workgroup.rs`).

use rspirv::spirv::{self, Op, Word};
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
        let ForOp { lower, upper, step, iv_type, mut inits, body, args, results } = op;
        let bounds = Bounds { lower, upper, step, unsigned: iv_type.is_unsigned_int() };
        // Accumulators the loop carries in cooperative matrices: converted here, and back at
        // the exit.
        let mut in_matrices = Vec::new();
        let mut workgroup_gemm = false;
        for (position, &arg) in args[1..].iter().enumerate() {
            // A GEMM's accumulator on a workgroup matrix stays one to its store.
            if workgroup::enter(e, arg, &mut inits[position])? {
                workgroup_gemm = true;
                continue;
            }
            if let Some(plan) = carried::enter(e, arg, &mut inits[position])? {
                in_matrices.push((position, plan));
            }
        }
        let mut out = if workgroup_gemm && in_matrices.is_empty() {
            versioned_gemm(e, bounds, &inits, body, &args)?
        } else {
            emit_loop(e, bounds, Form::Stepped, &inits, body, &args)?
        };
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

/// An `scf.for`'s bounds: from `lower` while below `upper`, by `step` (positive).
#[derive(Clone, Copy)]
struct Bounds {
    lower: Reg,
    upper: Reg,
    step: Reg,
    unsigned: bool,
}

/// How a loop is emitted.
#[derive(Clone, Copy)]
enum Form {
    /// The induction variable from `lower` by `step` while below `upper`, the loop marked
    /// `DontUnroll` ([`crate::spirv::Spv::begin_loop`]).
    Stepped,
    /// The trip count computed before the loop, an index from 0 by 1 below it, the induction
    /// variable `lower + index * step`, no loop control: the form in which NVIDIA's driver
    /// unrolls a workgroup-matrix GEMM's loop and issues each iteration's loads during the
    /// previous one's products (H100: 280 TFLOP/s against 199 for the stepped form, the
    /// corpus' fp16 GEMM with its strides specialized).
    Counted,
}

/// Emits the loop over `body` (arguments `args`: the induction variable, then the carried
/// values, starting as `inits`) and returns the carried values at its exit.
fn emit_loop(
    e: &mut Emitter,
    bounds: Bounds,
    form: Form,
    inits: &[Vec<Reg>],
    body: trident_midend::ir::Block,
    args: &[Value],
) -> EResult<Vec<Vec<Reg>>> {
    let Bounds { lower, upper, step, unsigned } = bounds;
    let mut carried = Slots::new(e, &args[1..], Some(inits))?;
    carried.store(e, inits)?;
    let class = lower.class;
    let counter = e.s.var(class);
    let trips = match form {
        Form::Stepped => {
            e.s.store(counter, lower.id);
            None
        }
        Form::Counted => {
            // (upper - lower - 1) / step + 1 iterations when upper > lower, else none: the
            // difference taken unsigned, which holds it for either signedness.
            let (one, zero) = (e.s.const_of(class, 1), e.s.const_of(class, 0));
            let span = e.s.op(Op::ISub, class, &[upper, lower]);
            let last = e.s.op(Op::ISub, class, &[span, one]);
            let steps = e.s.op(Op::UDiv, class, &[last, step]);
            let count = e.s.op(Op::IAdd, class, &[steps, one]);
            let greater = if unsigned { Op::UGreaterThan } else { Op::SGreaterThan };
            let runs = e.s.op(greater, Class::Bool, &[upper, lower]);
            e.s.store(counter, zero.id);
            Some(e.s.select(runs, count, zero))
        }
    };
    let control = match form {
        Form::Stepped => spirv::LoopControl::DONT_UNROLL,
        Form::Counted => spirv::LoopControl::NONE,
    };
    let labels = e.s.begin_loop_with(control);
    let current = e.s.load(class, counter);
    let iv = match trips {
        None => {
            let below = if unsigned { Op::ULessThan } else { Op::SLessThan };
            let go = e.s.op(below, Class::Bool, &[current, upper]);
            e.s.loop_test(&labels, go);
            current
        }
        Some(trips) => {
            let go = e.s.op(Op::ULessThan, Class::Bool, &[current, trips]);
            e.s.loop_test(&labels, go);
            let offset = e.s.op(Op::IMul, class, &[current, step]);
            e.s.op(Op::IAdd, class, &[lower, offset])
        }
    };
    e.set(args[0], vec![iv]);
    let values = carried.load(e)?;
    bind(e, &args[1..], values);
    e.block(body)?;
    let next = yielded(e, body, 0)?;
    carried.store(e, &next)?;
    let increment = if trips.is_some() { e.s.const_of(class, 1) } else { step };
    e.s.end_loop(&labels, |s| {
        let current = s.load(class, counter);
        let next = s.op(Op::IAdd, class, &[current, increment]);
        s.store(counter, next.id);
    });
    carried.load(e)
}

/// A loop that carries a workgroup-matrix GEMM's accumulator, emitted as three loops
/// (`workgroup::Version`): a survey that loads nothing and finds whether every tile of every
/// iteration is whole and aligned, then either the counted loop of strided loads with no test
/// in its body (which the driver pipelines) or, where some tile is not, the loop that tests
/// each tile as it loads it. The planned loop's body only computes (`workgroup::find`), so
/// running it once more changes nothing.
fn versioned_gemm(
    e: &mut Emitter,
    bounds: Bounds,
    inits: &[Vec<Reg>],
    body: trident_midend::ir::Block,
    args: &[Value],
) -> EResult<Vec<Vec<Reg>>> {
    let outer = e.workgroup_version;
    let all_whole = e.s.var(Class::Bool);
    let yes = e.s.const_of(Class::Bool, 1);
    e.s.store(all_whole, yes.id);
    e.workgroup_version = workgroup::Version::Survey(all_whole);
    emit_loop(e, bounds, Form::Stepped, inits, body, args)?;
    let mut exits = Slots::new(e, &args[1..], Some(inits))?;
    let whole = e.s.load(Class::Bool, all_whole);
    let (other, merge) = e.s.begin_if_else(whole);
    e.workgroup_version = workgroup::Version::Whole;
    let out = emit_loop(e, bounds, Form::Counted, inits, body, args)?;
    exits.store(e, &out)?;
    e.s.else_part(other, merge);
    e.workgroup_version = workgroup::Version::Checked;
    let out = emit_loop(e, bounds, Form::Stepped, inits, body, args)?;
    exits.store(e, &out)?;
    e.s.end_if(merge);
    e.workgroup_version = outer;
    exits.load(e)
}
