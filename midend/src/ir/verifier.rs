//! The IR verifier: structural and type invariants that every pass must preserve.
//!
//! It runs after every pass in debug builds and in tests (STYLE rule 12); a failure is an internal
//! compiler error naming the function, the op (in its printed form, with the value numbers
//! `print_module` would give) and what is wrong. What it checks:
//!
//! - storage: handles in range, every op and block used once, `parent` / `parent_op` / value
//!   definitions consistent with the block lists;
//! - arity: operand, result and region counts against the op table (`Opcode::info`);
//! - dominance: every operand is visible where it is used (defined earlier in its block or an
//!   enclosing one, or an argument of an enclosing block), the structured-control-flow rule;
//! - terminators: only at the end of a block, and the right one for each region (`tt.return` for
//!   the function body, `scf.yield`, `scf.condition`, `tt.reduce.return`, `tt.scan.return`) with the
//!   right number and types of values;
//! - types of the common ops (elementwise, casts, shape ops, memory, dot, loops, calls).
//!
//! It is one walk over each body with flat side tables indexed by handle, so its cost is linear in
//! the size of the module.

use std::collections::HashMap;

use super::attrs::Attrs;
use super::body::{Block, Body, Function, Module, Op, Value, ValueDef};
use super::opcode::{Arity, Opcode};
use super::types::{DType, Elem, Type};
use crate::layout::{Encoding, Mma, MmaVersion};

/// An internal-compiler-error description: what is wrong, in which function.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyError {
    pub function: String,
    pub message: String,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "in @{}: {}", self.function, self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Whether `ttng.warp_specialize` may move registers as its attributes say: setmaxnreg moves
/// whole warpgroups to register counts of 24 to 256 in steps of 8, and the consumers get more
/// than the producer. The pass that builds the op asks this before it does.
pub fn register_split_is_legal(
    producer_warps: i64,
    producer_registers: i64,
    consumer_registers: i64,
) -> bool {
    let legal = |n: i64| (24..=256).contains(&n) && n % 8 == 0;
    producer_warps > 0
        && producer_warps % 4 == 0
        && legal(producer_registers)
        && legal(consumer_registers)
        && producer_registers < consumer_registers
}

/// Checks structural and type invariants of every function.
pub fn verify_module(module: &Module) -> Result<(), VerifyError> {
    let mut functions: HashMap<&str, &Function> = HashMap::new();
    for f in &module.functions {
        if functions.insert(f.name.as_str(), f).is_some() {
            let message = "another function has the same name".to_string();
            return Err(VerifyError { function: f.name.clone(), message });
        }
    }
    for f in &module.functions {
        let mut verifier = FunctionVerifier::new(&functions, f);
        verifier.run().map_err(|message| VerifyError { function: f.name.clone(), message })?;
    }
    Ok(())
}

/// A problem description; the caller prefixes the op it is about.
type Check = Result<(), String>;

/// Printed names of values that are not parameters are assigned in print order, like the printer.
const UNNAMED: u32 = u32::MAX;

struct FunctionVerifier<'a> {
    functions: &'a HashMap<&'a str, &'a Function>,
    func: &'a Function,
    body: &'a Body,
    /// Whether each value (by index) is visible at the current point of the walk.
    visible: Vec<bool>,
    /// Whether each op / block (by index) has been met already: each must be used once.
    op_seen: Vec<bool>,
    block_seen: Vec<bool>,
    /// The `%N` each non-parameter value gets in `print_module`, to render ops in messages.
    numbers: Vec<u32>,
    next_number: u32,
    param_names: HashMap<Value, String>,
}

/// Which terminator a block must end with.
#[derive(Clone, Copy, PartialEq)]
enum Ending {
    /// The function body: `tt.return`.
    Return,
    /// A region of an op: this terminator, or nothing where `optional`.
    Region { terminator: Opcode, optional: bool },
    /// A region of an op with no rule here: any terminator, or none.
    Any,
}

fn ty_list(types: &[&Type]) -> String {
    let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    format!("({})", names.join(", "))
}

fn is_int_scalar(t: &Type) -> bool {
    matches!(t, Type::Scalar(Elem::Scalar(d)) if d.is_int())
}

fn is_i1_scalar(t: &Type) -> bool {
    *t == Type::scalar(DType::I1)
}

fn is_i32_scalar(t: &Type) -> bool {
    *t == Type::scalar(DType::I32)
}

/// Shared-memory ring handles and slot indices are i32 scalars.
fn i32_operands(operands: &[&Type]) -> Check {
    match operands.iter().find(|t| !is_i32_scalar(t)) {
        Some(t) => Err(format!("expected an i32 ring or slot, got {t}")),
        None => Ok(()),
    }
}

/// The shape of a scalar or tensor, or an error for descriptors, which have no elements.
fn shape_of(t: &Type) -> Result<&[u32], String> {
    match t {
        Type::Desc { .. } => Err(format!("a descriptor {t} is not a tensor or scalar")),
        _ => Ok(t.shape()),
    }
}

fn scalar_elem(t: &Type) -> Option<DType> {
    match t.elem() {
        Some(Elem::Scalar(d)) => Some(*d),
        _ => None,
    }
}

/// Whether `t` holds (non-pointer) elements of the integer or the float class.
fn has_class(t: &Type, int: bool) -> bool {
    scalar_elem(t).is_some_and(|d| if int { d.is_int() } else { d.is_float() })
}

fn class_name(int: bool) -> &'static str {
    if int {
        "integer"
    } else {
        "float"
    }
}

fn expect_same(what: &str, found: &Type, expected: &Type) -> Check {
    // An expectation built without a layout (from shapes and attributes alone) accepts any
    // layout: which layout a result gets is the layout passes' business, not the op's.
    let layout_free = expected.encoding().is_none() && found.encoding().is_some();
    if found == expected || (layout_free && &found.with_encoding(None) == expected) {
        Ok(())
    } else {
        Err(format!("{what} has type {found}, expected {expected}"))
    }
}

fn int_attr(attrs: &Attrs, name: &str) -> Result<i64, String> {
    attrs.get(name).and_then(|a| a.as_int()).ok_or_else(|| format!("missing integer attribute `{name}`"))
}

/// Checks a list of value types against expected types, count first.
fn expect_types(what: &str, found: &[&Type], expected: &[&Type]) -> Check {
    let same = |f: &Type, e: &Type| f == e || (e.encoding().is_none() && f.with_encoding(None) == *e);
    if found.len() != expected.len() || !found.iter().zip(expected).all(|(f, e)| same(f, e)) {
        return Err(format!("{what} have types {}, expected {}", ty_list(found), ty_list(expected)));
    }
    Ok(())
}

impl<'a> FunctionVerifier<'a> {
    fn new(functions: &'a HashMap<&'a str, &'a Function>, func: &'a Function) -> Self {
        let body = &func.body;
        FunctionVerifier {
            functions,
            func,
            body,
            visible: vec![false; body.values.len()],
            op_seen: vec![false; body.ops.len()],
            block_seen: vec![false; body.blocks.len()],
            numbers: vec![UNNAMED; body.values.len()],
            next_number: 0,
            param_names: HashMap::new(),
        }
    }

    fn run(&mut self) -> Check {
        let entry = self.func.entry;
        if entry.index() >= self.body.blocks.len() {
            return Err("the entry block handle is out of range".into());
        }
        if self.body.blocks[entry].parent_op.is_some() {
            return Err("the entry block is also the region of an op".into());
        }
        let n_params = self.func.params().len();
        if self.func.arg_names.len() != n_params || self.func.arg_attrs.len() != n_params {
            return Err(format!(
                "{n_params} parameters but {} names and {} attribute sets",
                self.func.arg_names.len(),
                self.func.arg_attrs.len()
            ));
        }
        for (i, &param) in self.func.params().iter().enumerate() {
            if param.index() < self.body.values.len() {
                self.param_names.insert(param, format!("%{}", printed_param_name(&self.func.arg_names, i)));
            }
        }
        self.block(entry, Ending::Return)
    }

    // ---- names and rendering ------------------------------------------------------------------

    fn number(&mut self, v: Value) {
        if v.index() < self.numbers.len()
            && self.numbers[v.index()] == UNNAMED
            && !self.param_names.contains_key(&v)
        {
            self.numbers[v.index()] = self.next_number;
            self.next_number += 1;
        }
    }

    fn value_name(&self, v: Value) -> String {
        if let Some(name) = self.param_names.get(&v) {
            return name.clone();
        }
        match self.numbers.get(v.index()) {
            Some(&n) if n != UNNAMED => format!("%{n}"),
            _ => "%?".to_string(),
        }
    }

    /// The op's first printed line, without its regions: `%3 = arith.addi %1, %2 : i32`.
    fn render(&self, op: Op) -> String {
        let data = self.body.op(op);
        let mut out = String::new();
        if !data.results.is_empty() {
            let names: Vec<String> = data.results.iter().map(|&r| self.value_name(r)).collect();
            out.push_str(&names.join(", "));
            out.push_str(" = ");
        }
        out.push_str(data.opcode.name());
        if !data.operands.is_empty() {
            let names: Vec<String> = data.operands.iter().map(|&v| self.value_name(v)).collect();
            out.push(' ');
            out.push_str(&names.join(", "));
        }
        if !data.attrs.is_empty() {
            out.push_str(&format!(" {}", data.attrs));
        }
        if !data.results.is_empty() && data.results.iter().all(|r| r.index() < self.body.values.len()) {
            let types: Vec<String> = data.results.iter().map(|&r| self.body.ty(r).to_string()).collect();
            out.push_str(&format!(" : {}", types.join(", ")));
        }
        out
    }

    fn op_error(&self, op: Op, problem: String) -> String {
        format!("`{}`: {problem}", self.render(op))
    }

    // ---- the walk -----------------------------------------------------------------------------

    /// Verifies one block and everything nested in it; its values are visible only meanwhile.
    fn block(&mut self, block: Block, ending: Ending) -> Check {
        if std::mem::replace(&mut self.block_seen[block.index()], true) {
            return Err(format!("block ^{} is used twice", block.index()));
        }
        let data = &self.body.blocks[block];
        for (i, &arg) in data.args.iter().enumerate() {
            if arg.index() >= self.body.values.len() {
                return Err("a block argument handle is out of range".into());
            }
            if self.body.values[arg].def != ValueDef::Arg(block, i as u32) {
                return Err(format!("block argument {} of ^{} records another definition", i, block.index()));
            }
            well_formed(self.body.ty(arg))?;
            self.number(arg);
            self.visible[arg.index()] = true;
        }

        let ops = &data.ops;
        for (position, &op) in ops.iter().enumerate() {
            self.op(op, block)?;
            let is_last = position + 1 == ops.len();
            if self.body.opcode(op).info().terminator && !is_last {
                return Err(self.op_error(op, "a terminator must be the last op of its block".into()));
            }
        }
        self.check_ending(block, ending)?;

        // Leaving the block: nothing defined in it is visible any more.
        for &arg in &data.args {
            self.visible[arg.index()] = false;
        }
        for &op in ops {
            for &result in &self.body.op(op).results {
                self.visible[result.index()] = false;
            }
        }
        Ok(())
    }

    fn check_ending(&self, block: Block, ending: Ending) -> Check {
        let last = self.body.blocks[block].ops.last().copied();
        let last_opcode = last.map(|op| self.body.opcode(op));
        let (wanted, optional) = match ending {
            Ending::Return => (Opcode::Return, false),
            Ending::Region { terminator, optional } => (terminator, optional),
            Ending::Any => return Ok(()),
        };
        match (last, last_opcode) {
            (_, Some(opcode)) if opcode == wanted => Ok(()),
            (Some(op), Some(opcode)) if opcode.info().terminator => {
                Err(self
                    .op_error(op, format!("this block must end in {}, not {}", wanted.name(), opcode.name())))
            }
            _ if optional => Ok(()),
            _ if ending == Ending::Return => Err("the function body does not end in tt.return".into()),
            _ => Err(format!("a region of {} does not end in {}", self.region_owner(block), wanted.name())),
        }
    }

    fn region_owner(&self, block: Block) -> String {
        match self.body.blocks[block].parent_op {
            Some(op) => format!("`{}`", self.render(op)),
            None => "an op".into(),
        }
    }

    fn op(&mut self, op: Op, block: Block) -> Check {
        if op.index() >= self.body.ops.len() {
            return Err(format!("block ^{} holds an op handle out of range", block.index()));
        }
        if std::mem::replace(&mut self.op_seen[op.index()], true) {
            return Err(format!("an op ({}) is listed twice", self.body.opcode(op).name()));
        }
        let data = self.body.op(op);
        let n_values = self.body.values.len();
        if data.results.iter().chain(&data.operands).any(|v| v.index() >= n_values) {
            return Err(format!("an op ({}) holds a value handle out of range", data.opcode.name()));
        }
        // Name values in the printer's order (results, then operands) before rendering anything.
        for &result in &data.results {
            self.number(result);
        }
        for &operand in &data.operands {
            self.number(operand);
        }
        if data.parent != Some(block) {
            return Err(self.op_error(op, "its `parent` is not the block that lists it".into()));
        }
        for (i, &result) in data.results.iter().enumerate() {
            if self.body.values[result].def != ValueDef::Result(op, i as u32) {
                return Err(self.op_error(op, format!("result {i} records another definition")));
            }
            well_formed(self.body.ty(result)).map_err(|p| self.op_error(op, p))?;
        }
        self.check_arity(op).map_err(|p| self.op_error(op, p))?;
        for (i, &operand) in data.operands.iter().enumerate() {
            if !self.visible[operand.index()] {
                let name = self.value_name(operand);
                return Err(self.op_error(op, format!("operand {i} ({name}) is not defined before this use")));
            }
        }

        for (i, &region) in data.regions.iter().enumerate() {
            if region.index() >= self.body.blocks.len() {
                return Err(self.op_error(op, "a region handle is out of range".into()));
            }
            if self.body.blocks[region].parent_op != Some(op) {
                return Err(self.op_error(op, format!("region {i} does not record this op as its parent")));
            }
            self.block(region, region_ending(data.opcode, i, data.results.len()))?;
        }

        self.check_types(op).map_err(|p| self.op_error(op, p))?;
        for &result in &data.results {
            self.visible[result.index()] = true;
        }
        Ok(())
    }

    fn check_arity(&self, op: Op) -> Check {
        let data = self.body.op(op);
        let info = data.opcode.info();
        let counts = [
            ("operands", info.operands, data.operands.len()),
            ("results", info.results, data.results.len()),
            ("regions", Arity::Exactly(info.regions), data.regions.len()),
        ];
        for (what, arity, count) in counts {
            if !arity.accepts(count) {
                let wanted = match arity {
                    Arity::Exactly(n) => format!("{n}"),
                    Arity::Between(lo, hi) => format!("{lo} to {hi}"),
                    Arity::AtLeast(n) => format!("at least {n}"),
                };
                return Err(format!("takes {wanted} {what}, has {count}"));
            }
        }
        Ok(())
    }

    // ---- type rules ---------------------------------------------------------------------------

    fn operand_types(&self, op: Op) -> Vec<&'a Type> {
        self.body.op(op).operands.iter().map(|&v| self.body.ty(v)).collect()
    }

    fn result_types(&self, op: Op) -> Vec<&'a Type> {
        self.body.op(op).results.iter().map(|&v| self.body.ty(v)).collect()
    }

    fn arg_types(&self, block: Block) -> Vec<&'a Type> {
        self.body.blocks[block].args.iter().map(|&v| self.body.ty(v)).collect()
    }

    /// The last op of `block` if it is a `terminator`.
    fn terminator(&self, block: Block, terminator: Opcode) -> Option<Op> {
        self.body.blocks[block].ops.last().copied().filter(|&op| self.body.opcode(op) == terminator)
    }

    /// Operand types of the terminator of `block`, when it ends in one of the wanted kind.
    fn yielded(&self, block: Block, terminator: Opcode) -> Option<Vec<&'a Type>> {
        self.terminator(block, terminator).map(|op| self.operand_types(op))
    }

    fn check_types(&self, op: Op) -> Check {
        use Opcode::*;
        let data = self.body.op(op);
        let operands = self.operand_types(op);
        let results = self.result_types(op);
        match data.opcode {
            AddI | SubI | MulI | DivSI | DivUI | RemSI | RemUI | AndI | OrI | XOrI | ShLI | ShRSI | ShRUI
            | MaxSI | MinSI | MaxUI | MinUI | MulHiUI | AbsI => elementwise(&operands, results[0], true),
            AddF | SubF | MulF | DivF | RemF | NegF | MaxNumF | MinNumF | MaximumF | MinimumF
            | PreciseSqrt | PreciseDivF | ClampF | Exp | Exp2 | Log | Log2 | Sqrt | Rsqrt | Sin | Cos
            | Tanh | AbsF | Floor | Ceil | Erf | Fma => elementwise(&operands, results[0], false),
            CmpI | CmpF => compare(data.opcode == CmpI, &operands, results[0]),
            Select => select(&operands, results[0]),
            ExtSI | ExtUI | TruncI | ExtF | TruncF | FpToFp | SIToFP | UIToFP | FPToSI | FPToUI | Bitcast
            | IntToPtr | PtrToInt => cast(data.opcode, operands[0], results[0]),
            Constant => constant(&data.attrs, results[0]),
            GetProgramId | GetNumPrograms | ProgramGrid => {
                expect_same("the result", results[0], &Type::scalar(DType::I32))?;
                let axis = int_attr(&data.attrs, "axis")?;
                if !(0..3).contains(&axis) {
                    return Err(format!("axis {axis} is not 0, 1 or 2"));
                }
                Ok(())
            }
            MakeRange => make_range(&data.attrs, results[0]),
            Splat => splat(operands[0], results[0]),
            Broadcast => broadcast(operands[0], results[0]),
            ExpandDims => expand_dims(&data.attrs, operands[0], results[0]),
            Reshape => {
                same_elem(operands[0], results[0])?;
                if operands[0].numel() != results[0].numel() {
                    return Err(format!(
                        "reshape of {} to {} changes the element count",
                        operands[0], results[0]
                    ));
                }
                Ok(())
            }
            Trans => trans(&data.attrs, operands[0], results[0]),
            Join => join(&operands, results[0]),
            Split => split(operands[0], &results),
            Cat => cat(&operands, results[0]),
            Gather => gather(&data.attrs, &operands, results[0]),
            AddPtr => add_ptr(&operands, results[0]),
            Load => load(&operands, results[0]),
            Store => store(&operands),
            AtomicRmw | AtomicCas => atomic(&operands, results[0]),
            MakeTensorDescriptor => make_descriptor(&operands, results[0]),
            DescriptorLoad => descriptor_access(operands[0], results[0], &operands[1..]),
            DescriptorStore => descriptor_access(operands[0], operands[1], &operands[2..]),
            Dot => dot(&operands, results[0]),
            WarpGroupDot => {
                dot(&operands[..3], results[0])?;
                if operands.get(3).is_some_and(|pred| !is_i1_scalar(pred)) {
                    return Err(format!("warpgroup dot predicate {} is not an i1", operands[3]));
                }
                match results[0].encoding() {
                    Some(Encoding::Mma(Mma { version: MmaVersion::V3 { .. }, .. })) => Ok(()),
                    _ => Err(format!("the result {} of a warpgroup dot has no MMA v3 layout", results[0])),
                }
            }
            WarpGroupDotWait => {
                expect_types("results", &results, &operands)?;
                if data.attrs.int("pendings").is_none() {
                    return Err("warp_group_dot_wait needs `pendings`".to_string());
                }
                Ok(())
            }
            Reduce | Scan => self.reduce_or_scan(op, &operands, &results),
            Histogram => {
                let x_shape = shape_of(operands[0])?;
                if let Some(mask) = operands.get(1) {
                    expect_same("the mask", mask, &operands[0].with_dtype(DType::I1))?;
                }
                if x_shape.len() != 1 || !has_class(operands[0], true) {
                    return Err(format!("the input {} is not a 1-d integer tensor", operands[0]));
                }
                if results[0].shape().len() != 1 || !has_class(results[0], true) {
                    return Err(format!("the result {} is not a 1-d integer tensor", results[0]));
                }
                Ok(())
            }
            Sort => expect_same("the result", results[0], operands[0]),
            ConvertLayout => {
                same_elem(operands[0], results[0])?;
                if operands[0].shape() != results[0].shape() || results[0].encoding().is_none() {
                    return Err(format!(
                        "convert_layout from {} to {} must keep the shape and give a layout",
                        operands[0], results[0]
                    ));
                }
                Ok(())
            }
            TopK => same_elem(operands[0], results[0]),
            Call => self.call(&data.attrs, &operands, &results),
            Assert => {
                if scalar_elem(operands[0]) != Some(DType::I1) {
                    return Err(format!("the condition {} is not i1", operands[0]));
                }
                Ok(())
            }
            Return => {
                expect_types("returned values", &operands, &self.func.result_types.iter().collect::<Vec<_>>())
            }
            Condition => {
                if !is_i1_scalar(operands[0]) {
                    return Err(format!("the condition has type {}, expected i1", operands[0]));
                }
                Ok(())
            }
            For => self.scf_for(op, &operands, &results),
            If => self.scf_if(op, &operands, &results),
            While => self.scf_while(op, &operands, &results),
            // Terminators of regions are checked by the op owning the region; the rest have no type
            // rule beyond their arity.
            LocalAlloc => {
                let shape = data.attrs.ints("shape").unwrap_or_default();
                if !is_i32_scalar(results[0]) || data.attrs.int("slots").is_none() || shape.len() != 2 {
                    return Err("local_alloc needs slots and a 2-D shape, and yields an i32".to_string());
                }
                Ok(())
            }
            LocalDealloc => i32_operands(&operands),
            AsyncCopyGlobalToLocal => {
                i32_operands(&operands[..2])?;
                if !operands[2].is_tensor() || !operands[2].is_ptr() {
                    return Err(format!("async copy source {} is not a tensor of pointers", operands[2]));
                }
                match operands.get(3) {
                    Some(mask)
                        if mask.shape() != operands[2].shape() || scalar_elem(mask) != Some(DType::I1) =>
                    {
                        Err(format!("async copy mask {} does not match {}", mask, operands[2]))
                    }
                    _ => Ok(()),
                }
            }
            AsyncTmaCopyGlobalToLocal => {
                i32_operands(&operands[..2])?;
                if !is_i1_scalar(operands[2]) {
                    return Err(format!("TMA copy predicate {} is not an i1", operands[2]));
                }
                let Type::Desc { block, .. } = operands[3] else {
                    return Err(format!("TMA copy source {} is not a tensor descriptor", operands[3]));
                };
                if operands.len() != 4 + block.len() {
                    return Err(format!(
                        "{} offsets for a rank-{} descriptor",
                        operands.len() - 4,
                        block.len()
                    ));
                }
                i32_operands(&operands[4..])
            }
            WaitBarrier => {
                i32_operands(&operands[..3])?;
                if operands.get(3).is_some_and(|pred| !is_i1_scalar(pred)) {
                    return Err(format!("wait predicate {} is not an i1", operands[3]));
                }
                Ok(())
            }
            InitBarriers => {
                let (count, arrivals) = (data.attrs.int("count"), data.attrs.int("arrivals"));
                if !is_i32_scalar(results[0])
                    || count.is_none_or(|c| c <= 0)
                    || arrivals.is_none_or(|a| a <= 0)
                {
                    return Err(
                        "init_barriers needs a positive count and arrivals, and yields an i32".to_string()
                    );
                }
                Ok(())
            }
            ArriveBarrier | AsyncCopyArrive => {
                i32_operands(&operands[..2])?;
                if !is_i1_scalar(operands[2]) {
                    return Err(format!("arrive predicate {} is not an i1", operands[2]));
                }
                Ok(())
            }
            WarpSpecialize => self.warp_specialize(op, &results),
            LocalLoad => {
                i32_operands(&operands)?;
                if !results[0].is_tensor() {
                    return Err(format!("local_load yields {}, not a tensor", results[0]));
                }
                Ok(())
            }
            AsyncCommitGroup | AsyncWait | FenceAsyncShared => Ok(()),
            Yield | ReduceReturn | ScanReturn | Print | Barrier => Ok(()),
        }
    }

    fn scf_for(&self, op: Op, operands: &[&Type], results: &[&Type]) -> Check {
        let (bounds, inits) = operands.split_at(3);
        if !is_int_scalar(bounds[0]) || bounds.iter().any(|t| *t != bounds[0]) {
            return Err(format!("bounds {} are not integer scalars of one type", ty_list(bounds)));
        }
        expect_types("results", results, inits)?;
        let body = self.body.op(op).regions[0];
        let mut expected_args = vec![bounds[0]];
        expected_args.extend_from_slice(inits);
        expect_types("body arguments (iv, iter args...)", &self.arg_types(body), &expected_args)?;
        if let Some(yielded) = self.yielded(body, Opcode::Yield) {
            expect_types("values yielded by the body", &yielded, results)?;
        }
        Ok(())
    }

    fn scf_if(&self, op: Op, operands: &[&Type], results: &[&Type]) -> Check {
        if !is_i1_scalar(operands[0]) {
            return Err(format!("the condition has type {}, expected i1", operands[0]));
        }
        for (region, name) in self.body.op(op).regions.iter().zip(["then", "else"]) {
            if !self.body.blocks[*region].args.is_empty() {
                return Err(format!("the {name} region has arguments"));
            }
            if let Some(yielded) = self.yielded(*region, Opcode::Yield) {
                expect_types(&format!("values yielded by the {name} region"), &yielded, results)?;
            }
        }
        Ok(())
    }

    /// `ttng.warp_specialize`: the default region yields the results; the producer region runs
    /// in other warps, so what it reads from outside must be the same in every thread (scalars),
    /// and it yields nothing.
    fn warp_specialize(&self, op: Op, results: &[&Type]) -> Check {
        let data = self.body.op(op);
        for key in ["producer_warps", "producer_registers", "consumer_registers"] {
            if data.attrs.int(key).is_none_or(|n| n <= 0) {
                return Err(format!("missing positive integer attribute `{key}`"));
            }
        }
        let int = |key: &str| data.attrs.int(key).unwrap_or(0);
        let (producer, consumer) = (int("producer_registers"), int("consumer_registers"));
        if !register_split_is_legal(int("producer_warps"), producer, consumer) {
            return Err(format!(
                "{} producer warps with {producer} registers beside consumers with {consumer}: \
                 setmaxnreg needs whole warpgroups, 24 to 256 registers in steps of 8, more for the consumers",
                int("producer_warps")
            ));
        }
        let (default, producer) = (data.regions[0], data.regions[1]);
        for (region, name) in [(default, "default"), (producer, "producer")] {
            if !self.body.blocks[region].args.is_empty() {
                return Err(format!("the {name} region has arguments"));
            }
        }
        if let Some(yielded) = self.yielded(default, Opcode::Yield) {
            expect_types("values yielded by the default region", &yielded, results)?;
        }
        if self.yielded(producer, Opcode::Yield).is_some_and(|y| !y.is_empty()) {
            return Err("the producer region yields values".to_string());
        }
        if let Some(&tensor) = self.body.captures(producer).iter().find(|&&v| self.body.ty(v).is_tensor()) {
            return Err(format!(
                "the producer region reads the tensor {} from outside",
                self.value_name(tensor)
            ));
        }
        Ok(())
    }

    fn scf_while(&self, op: Op, inits: &[&Type], results: &[&Type]) -> Check {
        let regions = &self.body.op(op).regions;
        let (before, after) = (regions[0], regions[1]);
        expect_types("before-region arguments", &self.arg_types(before), inits)?;
        if let Some(condition) = self.yielded(before, Opcode::Condition) {
            expect_types("values passed by scf.condition", &condition[1..], results)?;
        }
        expect_types("after-region arguments", &self.arg_types(after), results)?;
        if let Some(yielded) = self.yielded(after, Opcode::Yield) {
            expect_types("values yielded by the after region", &yielded, inits)?;
        }
        Ok(())
    }

    fn reduce_or_scan(&self, op: Op, operands: &[&Type], results: &[&Type]) -> Check {
        let data = self.body.op(op);
        let is_reduce = data.opcode == Opcode::Reduce;
        let shape = shape_of(operands[0])?;
        let mut elems = Vec::new();
        for t in operands {
            if !t.is_tensor() || t.shape() != shape {
                return Err(format!("operands {} are not tensors of one shape", ty_list(operands)));
            }
            elems.push(Type::Scalar(t.elem().cloned().unwrap_or(Elem::Scalar(DType::I1))));
        }
        let axis = int_attr(&data.attrs, "axis")?;
        if axis < 0 || axis as usize >= shape.len() {
            return Err(format!("axis {axis} is out of range for rank {}", shape.len()));
        }
        let expected: Vec<Type> = if is_reduce {
            let mut reduced = shape.to_vec();
            reduced.remove(axis as usize);
            operands.iter().map(|t| t.with_shape(&reduced)).collect()
        } else {
            operands.iter().map(|t| (*t).clone()).collect()
        };
        expect_types("results", results, &expected.iter().collect::<Vec<_>>())?;

        let combine = data.regions[0];
        let elem_refs: Vec<&Type> = elems.iter().collect();
        let args: Vec<&Type> = elem_refs.iter().chain(&elem_refs).copied().collect();
        expect_types("combine-region arguments", &self.arg_types(combine), &args)?;
        let terminator = if is_reduce { Opcode::ReduceReturn } else { Opcode::ScanReturn };
        if let Some(returned) = self.yielded(combine, terminator) {
            expect_types("values returned by the combine region", &returned, &elem_refs)?;
        }
        Ok(())
    }

    fn call(&self, attrs: &Attrs, operands: &[&Type], results: &[&Type]) -> Check {
        let callee_name = attrs.str("callee").ok_or("missing string attribute `callee`")?;
        let callee = self.functions.get(callee_name).ok_or_else(|| format!("no function @{callee_name}"))?;
        let params = callee.params();
        if params.iter().any(|p| p.index() >= callee.body.values.len()) {
            return Err(format!("@{callee_name} has a parameter handle out of range"));
        }
        let param_types: Vec<&Type> = params.iter().map(|&p| callee.body.ty(p)).collect();
        expect_types(&format!("arguments of @{callee_name}"), operands, &param_types)?;
        let callee_results: Vec<&Type> = callee.result_types.iter().collect();
        expect_types(&format!("results of @{callee_name}"), results, &callee_results)
    }
}

/// Types the printer can write but no op may produce: a tensor of rank 0 (use the scalar type).
fn well_formed(t: &Type) -> Check {
    match t {
        Type::Tensor { shape, .. } if shape.is_empty() => Err(format!("{t} has no dimensions")),
        _ => Ok(()),
    }
}

/// The terminator a region must end with.
fn region_ending(opcode: Opcode, region: usize, n_results: usize) -> Ending {
    // Regions of ops without results may leave out an empty `scf.yield`, as in MLIR.
    let yield_optional = n_results == 0;
    match (opcode, region) {
        (Opcode::For | Opcode::If, _) => {
            Ending::Region { terminator: Opcode::Yield, optional: yield_optional }
        }
        (Opcode::WarpSpecialize, 0) => Ending::Region { terminator: Opcode::Yield, optional: yield_optional },
        (Opcode::WarpSpecialize, _) => Ending::Region { terminator: Opcode::Yield, optional: true },
        (Opcode::While, 0) => Ending::Region { terminator: Opcode::Condition, optional: false },
        (Opcode::While, _) => Ending::Region { terminator: Opcode::Yield, optional: false },
        (Opcode::Reduce, _) => Ending::Region { terminator: Opcode::ReduceReturn, optional: false },
        (Opcode::Scan, _) => Ending::Region { terminator: Opcode::ScanReturn, optional: false },
        _ => Ending::Any,
    }
}

/// The printer's name for parameter `i` (`printer::unique_param_name`, which is private): the
/// source name when it is a plain identifier no earlier parameter took, `argN` otherwise.
fn printed_param_name(names: &[String], i: usize) -> String {
    let name = &names[i];
    let plain = !name.is_empty()
        && !name.as_bytes()[0].is_ascii_digit()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if plain && !names[..i].contains(name) {
        name.clone()
    } else {
        format!("arg{i}")
    }
}

// ---- type rules of single ops ------------------------------------------------------------------

/// Elementwise ops: every operand has the result type, of the integer or float class.
fn elementwise(operands: &[&Type], result: &Type, int: bool) -> Check {
    if !has_class(result, int) {
        return Err(format!("the result {result} is not of {} type", class_name(int)));
    }
    for (i, t) in operands.iter().enumerate() {
        expect_same(&format!("operand {i}"), t, result)?;
    }
    Ok(())
}

/// Comparisons: equal operands (integers or pointers for cmpi, floats for cmpf), an i1 result of
/// their shape.
fn compare(int: bool, operands: &[&Type], result: &Type) -> Check {
    let lhs = operands[0];
    let class_ok = if int { has_class(lhs, true) || lhs.is_ptr() } else { has_class(lhs, false) };
    if !class_ok {
        return Err(format!("cannot compare values of type {lhs}"));
    }
    expect_same("operand 1", operands[1], lhs)?;
    expect_same("the result", result, &lhs.with_dtype(DType::I1))
}

fn select(operands: &[&Type], result: &Type) -> Check {
    let cond = operands[0];
    let cond_ok = is_i1_scalar(cond) || *cond == result.with_dtype(DType::I1);
    if !cond_ok || result.is_desc() {
        return Err(format!("the condition {cond} is neither i1 nor i1 of the result's shape"));
    }
    expect_same("operand 1", operands[1], result)?;
    expect_same("operand 2", operands[2], result)
}

/// Casts keep the shape and convert between the element classes their name says.
fn cast(opcode: Opcode, from: &Type, to: &Type) -> Check {
    if shape_of(from)? != shape_of(to)? {
        return Err(format!("a cast from {from} to {to} changes the shape"));
    }
    let (int, float, ptr) =
        (|t: &Type| has_class(t, true), |t: &Type| has_class(t, false), |t: &Type| t.is_ptr());
    let ok = match opcode {
        Opcode::ExtSI | Opcode::ExtUI | Opcode::TruncI => int(from) && int(to),
        Opcode::ExtF | Opcode::TruncF | Opcode::FpToFp => float(from) && float(to),
        Opcode::SIToFP | Opcode::UIToFP => int(from) && float(to),
        Opcode::FPToSI | Opcode::FPToUI => float(from) && int(to),
        Opcode::IntToPtr => int(from) && ptr(to),
        Opcode::PtrToInt => ptr(from) && int(to),
        // Bitcasts reinterpret pointers as other pointers, or scalars at an equal width.
        _ => (ptr(from) && ptr(to)) || (!ptr(from) && !ptr(to) && from.dtype().bits() == to.dtype().bits()),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{} cannot convert {from} to {to}", opcode.name()))
    }
}

fn constant(attrs: &Attrs, result: &Type) -> Check {
    if result.is_desc() {
        return Err("a constant cannot be a descriptor".into());
    }
    match attrs.get("value") {
        Some(super::attrs::Attr::Int(_) | super::attrs::Attr::Float(_) | super::attrs::Attr::Bool(_)) => {
            Ok(())
        }
        _ => Err("missing int, float or bool attribute `value`".into()),
    }
}

fn make_range(attrs: &Attrs, result: &Type) -> Check {
    let (start, end) = (int_attr(attrs, "start")?, int_attr(attrs, "end")?);
    let expected = Type::tensor(Elem::Scalar(DType::I32), &[(end - start).max(0) as u32]);
    if end <= start || !result.is_tensor() {
        return Err(format!("the range {start}..{end} is empty"));
    }
    expect_same("the result", result, &expected)
}

fn same_elem(from: &Type, to: &Type) -> Check {
    if from.elem().is_none() || from.elem() != to.elem() {
        return Err(format!("element types of {from} and {to} differ"));
    }
    Ok(())
}

fn splat(from: &Type, to: &Type) -> Check {
    if !matches!(from, Type::Scalar(_)) || !to.is_tensor() {
        return Err(format!("splat goes from a scalar to a tensor, not from {from} to {to}"));
    }
    same_elem(from, to)
}

fn broadcast(from: &Type, to: &Type) -> Check {
    same_elem(from, to)?;
    let (from_shape, to_shape) = (from.shape(), to.shape());
    let compatible = from_shape.len() == to_shape.len()
        && from_shape.iter().zip(to_shape).all(|(&f, &t)| f == t || f == 1);
    if !compatible {
        return Err(format!("cannot broadcast {from} to {to}"));
    }
    Ok(())
}

fn expand_dims(attrs: &Attrs, from: &Type, to: &Type) -> Check {
    if !from.is_tensor() {
        return Err(format!(
            "the operand must be a tensor, not {from} (a scalar becomes one through tt.splat)"
        ));
    }
    same_elem(from, to)?;
    let axis = int_attr(attrs, "axis")?;
    let mut shape = shape_of(from)?.to_vec();
    if axis < 0 || axis as usize > shape.len() {
        return Err(format!("axis {axis} is out of range for {from}"));
    }
    shape.insert(axis as usize, 1);
    expect_same("the result", to, &from.with_shape(&shape))
}

fn trans(attrs: &Attrs, from: &Type, to: &Type) -> Check {
    same_elem(from, to)?;
    let shape = shape_of(from)?;
    let order = attrs.ints("order").ok_or("missing integer-list attribute `order`")?;
    let mut used = vec![false; shape.len()];
    let mut permuted = Vec::with_capacity(shape.len());
    for &dim in order {
        let slot = usize::try_from(dim).ok().filter(|&d| d < shape.len()).and_then(|d| used.get_mut(d));
        match slot {
            Some(seen) if !*seen => *seen = true,
            _ => {
                return Err(format!("order {order:?} is not a permutation of the {} dimensions", shape.len()))
            }
        }
        permuted.push(shape[dim as usize]);
    }
    if permuted.len() != shape.len() {
        return Err(format!("order {order:?} is not a permutation of the {} dimensions", shape.len()));
    }
    expect_same("the result", to, &from.with_shape(&permuted))
}

fn join(operands: &[&Type], result: &Type) -> Check {
    expect_same("operand 1", operands[1], operands[0])?;
    let mut shape = shape_of(operands[0])?.to_vec();
    shape.push(2);
    expect_same("the result", result, &operands[0].with_shape(&shape))
}

fn split(from: &Type, results: &[&Type]) -> Check {
    let shape = shape_of(from)?;
    if shape.last() != Some(&2) {
        return Err(format!("the minor dimension of {from} is not 2"));
    }
    let half = from.with_shape(&shape[..shape.len() - 1]);
    expect_same("result 0", results[0], &half)?;
    expect_same("result 1", results[1], &half)
}

fn cat(operands: &[&Type], result: &Type) -> Check {
    expect_same("operand 1", operands[1], operands[0])?;
    let mut shape = shape_of(operands[0])?.to_vec();
    match shape.first_mut() {
        Some(dim0) => *dim0 *= 2,
        None => return Err("cannot concatenate scalars".into()),
    }
    expect_same("the result", result, &operands[0].with_shape(&shape))
}

/// `tt.gather`: an integer index of the source's rank, of its shape but along `axis`; the result
/// has the index's shape, layout and the source's elements (the source may have any layout).
fn gather(attrs: &Attrs, operands: &[&Type], result: &Type) -> Check {
    let (src, index) = (operands[0], operands[1]);
    let (src_shape, index_shape) = (shape_of(src)?, shape_of(index)?);
    let axis = attrs.int("axis").ok_or("missing integer attribute `axis`")?;
    if !(0..src_shape.len() as i64).contains(&axis) {
        return Err(format!("axis {axis} is not a dimension of {src}"));
    }
    if !has_class(index, true) {
        return Err(format!("the index {index} is not an integer tensor"));
    }
    let others_match = src_shape.len() == index_shape.len()
        && src_shape.iter().zip(index_shape).enumerate().all(|(d, (s, i))| d as i64 == axis || s == i);
    if !others_match {
        return Err(format!("the index {index} does not match the source {src} but along axis {axis}"));
    }
    same_elem(src, result)?;
    if result.shape() != index_shape || result.encoding() != index.encoding() {
        return Err(format!("the result {result} does not have the index's shape and layout {index}"));
    }
    Ok(())
}

/// `ptr + offset`: integer offsets of the pointer's shape; the result is the pointer type.
fn add_ptr(operands: &[&Type], result: &Type) -> Check {
    let (ptr, offset) = (operands[0], operands[1]);
    if !ptr.is_ptr() {
        return Err(format!("operand 0 has type {ptr}, expected pointers"));
    }
    if !has_class(offset, true) || offset.shape() != ptr.shape() {
        return Err(format!("the offset {offset} is not an integer of the pointer's shape {ptr}"));
    }
    expect_same("the result", result, ptr)
}

/// The type a pointer (tensor) loads: its pointee with its shape.
fn pointee(ptr: &Type) -> Result<Type, String> {
    match ptr.elem() {
        Some(Elem::Ptr(d)) => Ok(ptr.with_dtype(*d)),
        _ => Err(format!("operand 0 has type {ptr}, expected pointers")),
    }
}

fn load(operands: &[&Type], result: &Type) -> Check {
    let value = pointee(operands[0])?;
    expect_same("the result", result, &value)?;
    if let Some(mask) = operands.get(1) {
        expect_same("the mask", mask, &operands[0].with_dtype(DType::I1))?;
    }
    if let Some(other) = operands.get(2) {
        expect_same("the `other` value", other, &value)?;
    }
    Ok(())
}

fn store(operands: &[&Type]) -> Check {
    let value = pointee(operands[0])?;
    expect_same("the stored value", operands[1], &value)?;
    if let Some(mask) = operands.get(2) {
        expect_same("the mask", mask, &operands[0].with_dtype(DType::I1))?;
    }
    Ok(())
}

/// `atomic_rmw (ptr, val[, mask])` and `atomic_cas (ptr, cmp, val)`: values and result of the
/// pointee type; only rmw has a mask (its third operand), cas has a value there.
fn atomic(operands: &[&Type], result: &Type) -> Check {
    let value = pointee(operands[0])?;
    expect_same("the result", result, &value)?;
    expect_same("operand 1", operands[1], &value)?;
    if let Some(third) = operands.get(2) {
        let mask = operands[0].with_dtype(DType::I1);
        if **third != mask && **third != value {
            return Err(format!("operand 2 has type {third}, expected {mask} or {value}"));
        }
    }
    Ok(())
}

/// `(base, shape..., strides...)` with one shape and one stride per block dimension.
fn make_descriptor(operands: &[&Type], result: &Type) -> Check {
    let Type::Desc { dtype, block } = result else {
        return Err(format!("the result {result} is not a tensor descriptor"));
    };
    expect_same("the base", operands[0], &Type::ptr(*dtype))?;
    if operands.len() != 1 + 2 * block.len() {
        return Err(format!("expected a base and {} shape and stride operands", 2 * block.len()));
    }
    if let Some(bad) = operands[1..].iter().find(|t| !is_int_scalar(t)) {
        return Err(format!("shape and stride operands must be integer scalars, not {bad}"));
    }
    Ok(())
}

/// Descriptor load/store: the value holds the block's elements; one integer offset per dimension.
fn descriptor_access(desc: &Type, value: &Type, offsets: &[&Type]) -> Check {
    let Type::Desc { dtype, block } = desc else {
        return Err(format!("operand 0 has type {desc}, expected a tensor descriptor"));
    };
    let block_numel: u64 = block.iter().map(|&d| d as u64).product();
    if scalar_elem(value) != Some(*dtype) || value.numel() != block_numel {
        return Err(format!("the value {value} does not hold the block of {desc}"));
    }
    if offsets.len() != block.len() || offsets.iter().any(|t| !is_int_scalar(t)) {
        return Err(format!("expected {} integer scalar offsets, found {}", block.len(), ty_list(offsets)));
    }
    Ok(())
}

/// `a [.., M, K] @ b [.., K, N] + c [.., M, N]`, the result typed like `c`.
fn dot(operands: &[&Type], result: &Type) -> Check {
    let (a, b, c) = (operands[0].shape(), operands[1].shape(), operands[2].shape());
    let rank = a.len();
    let ranks_ok = (rank == 2 || rank == 3) && b.len() == rank && c.len() == rank;
    if !ranks_ok {
        return Err(format!("operands {} are not all rank 2 or all rank 3", ty_list(operands)));
    }
    let (m, k, n) = (a[rank - 2], a[rank - 1], b[rank - 1]);
    let batch_ok = rank == 2 || (a[0] == b[0] && a[0] == c[0]);
    if b[rank - 2] != k || c[rank - 2] != m || c[rank - 1] != n || !batch_ok {
        return Err(format!("shapes {} do not multiply", ty_list(operands)));
    }
    expect_same("the result", result, operands[2])
}
