//! The evaluator: walks a function's blocks op by op for one program instance, binding each
//! SSA value to a whole-tensor [`Val`].
//!
//! A [`Frame`] maps the value handles of one function body to their current values (a flat
//! vector indexed by handle, so a lookup is an index). Structured control flow runs its regions
//! through [`Machine::exec_block`], which binds the block arguments, runs the ops and returns
//! the operands of the block's terminator (`scf.yield`, `scf.condition`, `tt.return`,
//! `tt.reduce.return`, ...). Errors raised by an op get that op's span, unless an op nested in
//! its regions already gave a more precise one.

use std::io::Write;
use std::rc::Rc;

use trident_midend::ir::{Block, Function, Module, Op, OpData, Opcode, Span, Type, Value};

use super::memory::{self, Memory};
use super::numerics::{canon, float_to_bits, zext};
use super::value::{err, Data, Desc, Ptr, Res, Val};
use super::{arith, reduce, tensor, RuntimeError};

/// Deepest `tt.call` nesting before the interpreter reports runaway recursion.
const MAX_CALL_DEPTH: usize = 64;

/// The values of one function activation.
pub struct Frame<'m> {
    func: &'m Function,
    env: Vec<Option<Rc<Val>>>,
}

impl Frame<'_> {
    fn get(&self, v: Value) -> Res<Rc<Val>> {
        match self.env.get(v.index()) {
            Some(Some(val)) => Ok(val.clone()),
            _ => err(format!("use of value %{} before it is defined", v.index())),
        }
    }

    fn set(&mut self, v: Value, val: Rc<Val>) -> Res<()> {
        match self.env.get_mut(v.index()) {
            Some(slot) => {
                *slot = Some(val);
                Ok(())
            }
            None => err(format!("value %{} is not in this function", v.index())),
        }
    }
}

/// Attaches `span` to an error that has none yet.
fn with_span(mut e: RuntimeError, span: Span) -> RuntimeError {
    if e.span.is_none() && !span.is_none() {
        e.span = Some(span);
    }
    e
}

/// One program instance's view of the launch: the module, memory and its grid position.
pub struct Machine<'m, 'b> {
    pub module: &'m Module,
    pub mem: Memory<'b>,
    pub pid: [u32; 3],
    pub grid: [u32; 3],
    depth: usize,
    /// Units of work left before the launch stops with an error (see `interp::run_with_budget`):
    /// each op costs one plus the elements of its results.
    pub budget: u64,
}

impl<'m, 'b> Machine<'m, 'b> {
    pub fn new(module: &'m Module, mem: Memory<'b>, grid: [u32; 3]) -> Self {
        Machine { module, mem, pid: [0; 3], grid, depth: 0, budget: u64::MAX }
    }

    /// Runs `func` on `args` and returns the operands of its `tt.return`.
    pub fn call(&mut self, func: &'m Function, args: Vec<Rc<Val>>) -> Res<Vec<Rc<Val>>> {
        if self.depth >= MAX_CALL_DEPTH {
            return err(format!("tt.call nesting deeper than {MAX_CALL_DEPTH} (recursion?)"));
        }
        self.depth += 1;
        let mut frame = Frame { func, env: vec![None; func.body.values.len()] };
        let out = self.exec_block(&mut frame, func.entry, args);
        self.depth -= 1;
        out
    }

    /// Runs `block` with `args` bound to its arguments; returns its terminator's operands
    /// (none when it has no terminator).
    fn exec_block(&mut self, frame: &mut Frame<'m>, block: Block, args: Vec<Rc<Val>>) -> Res<Vec<Rc<Val>>> {
        let func: &'m Function = frame.func;
        let body = &func.body;
        let data = &body.blocks[block];
        if data.args.len() != args.len() {
            return err(format!(
                "block with {} arguments entered with {} values",
                data.args.len(),
                args.len()
            ));
        }
        for (&arg, val) in data.args.iter().zip(args) {
            frame.set(arg, val)?;
        }
        for &op in &data.ops {
            let op_data = body.op(op);
            if op_data.opcode.info().terminator {
                return op_data.operands.iter().map(|&v| frame.get(v)).collect();
            }
            self.exec_op(frame, op).map_err(|e| with_span(e, body.span(op)))?;
        }
        Ok(Vec::new())
    }

    fn region(data: &OpData, i: usize) -> Res<Block> {
        match data.regions.get(i) {
            Some(&b) => Ok(b),
            None => err(format!("{} lacks region {i}", data.opcode.name())),
        }
    }

    fn exec_op(&mut self, frame: &mut Frame<'m>, op: Op) -> Res<()> {
        let func: &'m Function = frame.func;
        let body = &func.body;
        let data = body.op(op);
        let args: Vec<Rc<Val>> = data.operands.iter().map(|&v| frame.get(v)).collect::<Res<_>>()?;
        let results: Vec<Rc<Val>> = match data.opcode {
            Opcode::For => self.exec_for(frame, data, &args)?,
            Opcode::If => {
                let cond = args.first().map(|c| c.scalar_i64()).transpose()?.unwrap_or(0);
                let taken = if cond != 0 { 0 } else { 1 };
                match data.regions.get(taken) {
                    Some(&region) => self.exec_block(frame, region, Vec::new())?,
                    None => Vec::new(),
                }
            }
            Opcode::While => self.exec_while(frame, data, args)?,
            Opcode::Reduce | Opcode::Scan => {
                let region = Self::region(data, 0)?;
                let axis = data.attrs.int("axis").unwrap_or(0).max(0) as usize;
                let mut combine = |xs: Vec<Rc<Val>>| self.exec_block(frame, region, xs);
                let out = if data.opcode == Opcode::Reduce {
                    reduce::reduce(&args, axis, &mut combine)?
                } else {
                    let reverse = data.attrs.bool("reverse").unwrap_or(false);
                    reduce::scan(&args, axis, reverse, &mut combine)?
                };
                out.into_iter().map(Rc::new).collect()
            }
            Opcode::Call => {
                let Some(name) = data.attrs.str("callee") else {
                    return err("tt.call without a `callee`");
                };
                let Some(callee) = self.module.function(name) else {
                    return err(format!("tt.call of unknown function @{name}"));
                };
                self.call(callee, args)?
            }
            _ => {
                let refs: Vec<&Val> = args.iter().map(|a| &**a).collect();
                let types: Vec<&Type> = data.operands.iter().map(|&v| body.ty(v)).collect();
                let result_types: Vec<&Type> = data.results.iter().map(|&v| body.ty(v)).collect();
                self.eval_simple(data, &refs, &types, &result_types)?.into_iter().map(Rc::new).collect()
            }
        };
        if results.len() != data.results.len() {
            return err(format!(
                "{} produced {} values for {} results",
                data.opcode.name(),
                results.len(),
                data.results.len()
            ));
        }
        self.charge(results.iter().fold(1u64, |cost, val| cost.saturating_add(val.numel() as u64)))?;
        for (&r, val) in data.results.iter().zip(results) {
            frame.set(r, val)?;
        }
        Ok(())
    }

    /// Takes `cost` units from the launch's work budget, or fails when it is spent.
    fn charge(&mut self, cost: u64) -> Res<()> {
        if cost > self.budget {
            return err("the interpreter's work budget for this launch is spent (a limit its caller set)");
        }
        self.budget -= cost;
        Ok(())
    }

    /// `scf.for`: iv runs from lb while iv < ub (in the iv type's signedness), adding step.
    fn exec_for(&mut self, frame: &mut Frame<'m>, data: &OpData, args: &[Rc<Val>]) -> Res<Vec<Rc<Val>>> {
        if args.len() < 3 {
            return err("scf.for needs lb, ub and step");
        }
        let d = frame.func.body.ty(data.operands[0]).dtype();
        let (lb, ub, step) = (args[0].scalar_i64()?, args[1].scalar_i64()?, args[2].scalar_i64()?);
        let unsigned = d.is_unsigned_int();
        let less = |a: i64, b: i64| if unsigned { (a as u64) < (b as u64) } else { a < b };
        let region = Self::region(data, 0)?;
        let mut carried: Vec<Rc<Val>> = args[3..].to_vec();
        let mut iv = lb;
        if less(iv, ub) && !less(0, step) {
            return err(format!("scf.for with non-positive step {step} would not terminate"));
        }
        while less(iv, ub) {
            // An iteration costs a unit even when its body is empty.
            self.charge(1)?;
            let mut block_args = Vec::with_capacity(1 + carried.len());
            block_args.push(Rc::new(Val::scalar_int(iv)));
            block_args.append(&mut carried);
            carried = self.exec_block(frame, region, block_args)?;
            let next = canon(d, iv.wrapping_add(step));
            if !less(iv, next) {
                // The induction variable wrapped around its type: the loop is over.
                break;
            }
            iv = next;
        }
        Ok(carried)
    }

    /// `scf.while`: before region → scf.condition(cond, values) → after region or exit.
    fn exec_while(&mut self, frame: &mut Frame<'m>, data: &OpData, args: Vec<Rc<Val>>) -> Res<Vec<Rc<Val>>> {
        let before = Self::region(data, 0)?;
        let after = Self::region(data, 1)?;
        let mut carried = args;
        loop {
            self.charge(1)?;
            let mut out = self.exec_block(frame, before, carried)?;
            if out.is_empty() {
                return err("scf.while before region does not end in scf.condition");
            }
            let cond = out.remove(0).scalar_i64()?;
            if cond == 0 {
                return Ok(out);
            }
            carried = self.exec_block(frame, after, out)?;
        }
    }

    /// Ops without regions.
    fn eval_simple(
        &mut self,
        data: &OpData,
        args: &[&Val],
        types: &[&Type],
        results: &[&Type],
    ) -> Res<Vec<Val>> {
        let attrs = &data.attrs;
        let opcode = data.opcode;
        let arg = |i: usize| -> Res<&Val> {
            match args.get(i) {
                Some(v) => Ok(*v),
                None => err(format!("{} lacks operand {i}", opcode.name())),
            }
        };
        let arg_ty = |i: usize| -> Res<&Type> {
            match types.get(i) {
                Some(t) => Ok(*t),
                None => err(format!("{} lacks operand {i}", opcode.name())),
            }
        };
        let Some(&rty) = results.first() else {
            return self.eval_effect(data, args, types).map(|()| Vec::new());
        };
        if let Some(v) = arith::eval(opcode, attrs, args, types, rty)? {
            return Ok(vec![v]);
        }
        let shape = tensor::shape_of(rty);
        let val = match opcode {
            Opcode::GetProgramId | Opcode::GetNumPrograms => {
                let axis = attrs.int("axis").unwrap_or(0);
                if !(0..3).contains(&axis) {
                    return err(format!("{} with axis {axis}", opcode.name()));
                }
                let v = if opcode == Opcode::GetProgramId { self.pid } else { self.grid }[axis as usize];
                Val::scalar_int(canon(rty.dtype(), v as i64))
            }
            Opcode::MakeRange => tensor::make_range(attrs, rty)?,
            Opcode::Splat | Opcode::Broadcast => tensor::broadcast_to(arg(0)?, &shape)?,
            Opcode::ExpandDims | Opcode::Reshape => arg(0)?.reshaped(shape)?,
            Opcode::Trans => tensor::trans(arg(0)?, attrs)?,
            Opcode::Join => tensor::join(arg(0)?, arg(1)?)?,
            Opcode::Split => {
                let (a, b) = tensor::split(arg(0)?)?;
                return Ok(vec![a, b]);
            }
            Opcode::Cat => tensor::cat(arg(0)?, arg(1)?, rty)?,
            Opcode::Gather => {
                tensor::gather(arg(0)?, arg(1)?, attrs.int("axis").unwrap_or(0) as usize, arg_ty(1)?.dtype())?
            }
            Opcode::AddPtr => add_ptr(arg(0)?, arg(1)?, rty.dtype().size_bytes() as i64)?,
            Opcode::Load | Opcode::AtomicRmw | Opcode::AtomicCas if rty.is_ptr() => {
                return err(format!("{} of pointers is not supported", opcode.name()));
            }
            Opcode::Load => {
                memory::load(&self.mem, arg(0)?, args.get(1).copied(), args.get(2).copied(), rty.dtype())?
            }
            Opcode::AtomicRmw => {
                let kind = attrs.str("atomic_rmw_op").unwrap_or("");
                let d = arg_ty(0)?.dtype();
                memory::atomic_rmw(&mut self.mem, kind, arg(0)?, arg(1)?, args.get(2).copied(), d)?
            }
            Opcode::AtomicCas => {
                memory::atomic_cas(&mut self.mem, arg(0)?, arg(1)?, arg(2)?, arg_ty(0)?.dtype())?
            }
            Opcode::MakeTensorDescriptor => make_descriptor(args, attrs)?,
            Opcode::DescriptorLoad => {
                let (desc, block) = descriptor(arg(0)?, arg_ty(0)?)?;
                let offsets = scalars(&args[1..])?;
                let nan = attrs.str("padding").map_or(desc.padding_nan, is_nan_padding);
                let data = memory::descriptor_load(&self.mem, &desc, rty.dtype(), &block, &offsets, nan)?;
                Val::new(shape, data)?
            }
            Opcode::Dot => reduce::dot(arg(0)?, arg(1)?, arg(2)?, arg_ty(0)?.dtype(), rty.dtype(), attrs)?,
            Opcode::Histogram => tensor::histogram(arg(0)?, args.get(1).copied(), arg_ty(0)?.dtype(), rty)?,
            Opcode::Sort => tensor::sort(arg(0)?, rty.dtype(), attrs)?,
            Opcode::TopK => tensor::topk(arg(0)?, rty.dtype(), rty)?,
            _ => return err(format!("the interpreter does not support {}", opcode.name())),
        };
        Ok(vec![val])
    }

    /// Ops with no results: stores, prints, asserts, barriers.
    fn eval_effect(&mut self, data: &OpData, args: &[&Val], types: &[&Type]) -> Res<()> {
        let opcode = data.opcode;
        let need = |n: usize| -> Res<()> {
            if args.len() < n {
                return err(format!("{} needs {n} operands", opcode.name()));
            }
            Ok(())
        };
        match opcode {
            Opcode::Store => {
                need(2)?;
                memory::store(&mut self.mem, args[0], args[1], args.get(2).copied(), types[0].dtype())
            }
            Opcode::DescriptorStore => {
                need(2)?;
                let (desc, block) = descriptor(args[0], types[0])?;
                let offsets = scalars(&args[2..])?;
                memory::descriptor_store(&mut self.mem, &desc, types[1].dtype(), &block, &offsets, args[1])
            }
            Opcode::Print => {
                self.print(data, args, types);
                Ok(())
            }
            Opcode::Assert => {
                need(1)?;
                if args[0].ints()?.contains(&0) {
                    let message = data.attrs.str("message").unwrap_or("assertion failed");
                    let [x, y, z] = self.pid;
                    return err(format!("device assertion failed in program ({x}, {y}, {z}): {message}"));
                }
                Ok(())
            }
            Opcode::Barrier => Ok(()),
            _ => err(format!("the interpreter does not support {}", opcode.name())),
        }
    }

    /// `tt.print`: one line per element, `pid (x, y, z) idx (i, j) prefix value`.
    fn print(&self, data: &OpData, args: &[&Val], types: &[&Type]) {
        let prefix = data.attrs.str("prefix").unwrap_or("").trim();
        let hex = data.attrs.bool("hex").unwrap_or(false);
        let [x, y, z] = self.pid;
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        if args.is_empty() {
            let _ = writeln!(out, "pid ({x}, {y}, {z}) {prefix}");
        }
        for (k, (val, ty)) in args.iter().zip(types).enumerate() {
            let d = ty.dtype();
            let st = super::value::strides(&val.shape);
            for i in 0..val.numel() {
                let idx: Vec<String> =
                    st.iter().zip(&val.shape).map(|(s, n)| ((i / s) % n).to_string()).collect();
                let text = match &val.data {
                    Data::Int(v) if hex => format!("0x{:x}", zext(d.bits(), v[i])),
                    Data::Int(v) if d.is_unsigned_int() => (v[i] as u64).to_string(),
                    Data::Int(v) => v[i].to_string(),
                    Data::Float(v) if hex => format!("0x{:x}", float_to_bits(d, v[i])),
                    Data::Float(v) => super::printf_float(v[i]),
                    Data::Ptr(v) => format!("<buffer {} + {}>", v[i].buf, v[i].off),
                    Data::Desc(_) => "<tensor descriptor>".to_string(),
                };
                let mut line = format!("pid ({x}, {y}, {z}) idx ({})", idx.join(", "));
                if !prefix.is_empty() {
                    line.push(' ');
                    line.push_str(prefix);
                }
                if args.len() > 1 {
                    line.push_str(&format!(" (operand {k})"));
                }
                let _ = writeln!(out, "{line} {text}");
            }
        }
    }
}

/// `tt.addptr`: pointers advanced by `offsets` elements of `size` bytes.
fn add_ptr(ptrs: &Val, offsets: &Val, size: i64) -> Res<Val> {
    let shape = super::value::elementwise_shape(&[ptrs, offsets])?;
    let (ps, os) = (ptrs.ptrs()?, offsets.ints()?);
    let n: usize = shape.iter().product();
    let out = (0..n)
        .map(|i| {
            let p = ps[super::value::lane(ps.len(), i)];
            let o = os[super::value::lane(os.len(), i)];
            Ptr { buf: p.buf, off: p.off.wrapping_add(o.wrapping_mul(size)) }
        })
        .collect();
    Val::new(shape, Data::Ptr(out))
}

/// The integers of scalar operands (descriptor offsets, shapes, strides).
fn scalars(args: &[&Val]) -> Res<Vec<i64>> {
    args.iter().map(|v| v.scalar_i64()).collect()
}

fn is_nan_padding(s: &str) -> bool {
    s.to_ascii_lowercase().contains("nan")
}

/// `tt.make_tensor_descriptor` from (base, shape..., strides...).
fn make_descriptor(args: &[&Val], attrs: &trident_midend::ir::Attrs) -> Res<Val> {
    if args.len() < 3 || args.len().is_multiple_of(2) {
        return err(format!("tt.make_tensor_descriptor with {} operands", args.len()));
    }
    let rank = (args.len() - 1) / 2;
    let base = match args[0].ptrs()? {
        [p] => *p,
        _ => return err("tt.make_tensor_descriptor base must be a scalar pointer"),
    };
    let padding_nan = match attrs.get("padding") {
        Some(trident_midend::ir::Attr::Str(s)) => is_nan_padding(s),
        Some(a) => a.as_int() == Some(2),
        None => false,
    };
    let desc =
        Desc { base, shape: scalars(&args[1..1 + rank])?, strides: scalars(&args[1 + rank..])?, padding_nan };
    Val::new(Vec::new(), Data::Desc(Rc::new(desc)))
}

/// The descriptor held by `val` and the block shape of its type.
fn descriptor(val: &Val, ty: &Type) -> Res<(Rc<Desc>, Vec<usize>)> {
    let (Data::Desc(desc), Type::Desc { block, .. }) = (&val.data, ty) else {
        return err("expected a tensor descriptor operand");
    };
    Ok((desc.clone(), block.iter().map(|&d| d as usize).collect()))
}
