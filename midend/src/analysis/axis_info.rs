//! Axis info: per-dimension contiguity, divisibility and constancy of integer and pointer values,
//! the analysis behind coalescing and vectorized memory access (Triton's `ModuleAxisInfoAnalysis`).
//!
//! # The facts
//!
//! For every integer or pointer value (a scalar counts as a tensor of shape `[1]`), and for each
//! dimension `d`, look at every 1-D slice of the tensor along `d`, cut into aligned blocks:
//!
//! - **contiguity\[d\] = c**: every aligned block of `c` elements holds consecutive values
//!   (`v, v+1, ..., v+c-1`; for pointers, consecutive *elements*, i.e. `p, p+1, ...` in
//!   `tt.addptr` units).
//! - **divisibility\[d\] = k**: the first element of every such contiguous block is a multiple of
//!   `k` (a power of two; for pointers a number of **bytes**). With contiguity 1 it holds for every
//!   element.
//! - **constancy\[d\] = c**: every aligned block of `c` elements holds equal values.
//! - **constant**: when known, every element equals this value (normalized to the value's type:
//!   sign-extended for signed types, zero-extended for unsigned ones).
//!
//! Divisibility is capped at [`MAX_DIVISIBILITY`] (Triton uses 2^62; nothing downstream looks
//! past 16 bytes, and a smaller cap keeps the dumps readable). Zero is divisible by anything and
//! gets the cap.
//!
//! # The lattice
//!
//! Larger numbers are more knowledge. The meet of two facts (a value that is either of them: a
//! loop-carried value, an `scf.if` result) is the gcd per field and per dimension, because a run
//! structure of length `a` and one of length `b` share aligned runs of length `gcd(a, b)`, and a
//! number divisible by either `a` or `b` is divisible by `gcd(a, b)`. Every length the analysis
//! produces is a power of two in practice, so the gcd is also the minimum. The bottom
//! (pessimistic) element is 1 everywhere with no constant: always true.
//!
//! # Seeds and transfer functions
//!
//! Seeds: kernel parameters take `tt.divisibility` / `tt.contiguity` / `tt.constancy` from their
//! argument attributes; `arith.constant` is exact; `tt.make_range` has contiguity = its length;
//! `tt.get_program_id` and `tt.get_num_programs` know nothing. Transfer functions follow Triton's
//! `AxisInfo.cpp` (see each `fn` below) with one deliberate difference: where an operand's run
//! structure is finer than the result's (e.g. `arange + arange`), Triton still uses the operand's
//! run-start divisibility for every result run, which is unsound; here the operand's
//! divisibility is first restricted to the positions where the result's runs start
//! ([`AxisInfo::divisibility_at`]). On Triton's usual patterns both give the same numbers.
//!
//! Hints override computed facts: an op carrying `tt.divisibility`, `tt.contiguity` or
//! `tt.constancy` (one integer per dimension; `tl.multiple_of`, `tl.max_contiguous`,
//! `tl.max_constancy`) has those facts for its single result; a block argument's hint lives on the
//! op owning the block as `tt.divisibility_arg<N>` (and so on), N being the argument index.
//!
//! Control flow: `scf.for` and `scf.while` iterate to a fixed point (carried value = meet of the
//! initial value and what the body yields), falling back to the pessimistic facts after
//! [`MAX_LOOP_ITERATIONS`] rounds; `scf.if` results are the meet of both yields. Unknown ops
//! and `tt.call` results get the pessimistic facts.
//!
//! Expects a verified function (operand shapes agree with the op table's type rules).
//!
//! Assumptions shared with Triton: integer arithmetic on indices does not wrap, and divisions and
//! remainders by constants see non-negative dividends.

use std::fmt;

use super::{sign_extend, zero_extend};
use crate::ir::printer::print_function;
use crate::ir::{
    Attr, Attrs, Block, Body, DType, Function, Module, Op, Opcode, SecondaryMap, Value, ValueData,
};

/// The largest divisibility the analysis claims (the divisibility of zero).
pub const MAX_DIVISIBILITY: u64 = 1 << 30;

/// Rounds of a loop's fixed-point iteration before its carried values are given up on.
const MAX_LOOP_ITERATIONS: usize = 16;

/// What the analysis knows about one value; see the module documentation for the meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisInfo {
    /// One entry per dimension (one for scalars); each is at least 1.
    pub contiguity: Vec<u64>,
    /// One power of two per dimension, at most [`MAX_DIVISIBILITY`]; bytes for pointers.
    pub divisibility: Vec<u64>,
    /// One entry per dimension; each is at least 1.
    pub constancy: Vec<u64>,
    /// The value of every element, when known.
    pub constant: Option<i64>,
}

impl AxisInfo {
    /// Knows nothing: true of every value of this rank.
    pub fn pessimistic(rank: usize) -> AxisInfo {
        AxisInfo {
            contiguity: vec![1; rank],
            divisibility: vec![1; rank],
            constancy: vec![1; rank],
            constant: None,
        }
    }

    /// Every element equals `value`.
    pub fn of_constant(value: i64, shape: &[u64]) -> AxisInfo {
        AxisInfo {
            contiguity: vec![1; shape.len()],
            divisibility: vec![pow2_divisor(value); shape.len()],
            constancy: shape.to_vec(),
            constant: Some(value),
        }
    }

    pub fn rank(&self) -> usize {
        self.contiguity.len()
    }

    /// The facts true of a value that is either `self` or `other` (the lattice meet).
    pub fn meet(&self, other: &AxisInfo) -> AxisInfo {
        let field = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(&x, &y)| gcd(x, y)).collect();
        AxisInfo {
            contiguity: field(&self.contiguity, &other.contiguity),
            divisibility: field(&self.divisibility, &other.divisibility),
            constancy: field(&self.constancy, &other.constancy),
            constant: if self.constant == other.constant { self.constant } else { None },
        }
    }

    /// The divisibility of the elements at positions that are multiples of `run` along `dim`.
    ///
    /// Divisibility describes only the first element of each contiguous run: inside a run the
    /// values are `first + j`. A position that is a multiple of `run` sits at an offset `j` within
    /// its run that is a multiple of `gcd(run, contiguity)`, so its value is divisible by
    /// `gcd(divisibility, that offset's power of two)`.
    pub fn divisibility_at(&self, dim: usize, run: u64) -> u64 {
        let contiguity = self.contiguity[dim];
        let divisibility = self.divisibility[dim];
        if run.is_multiple_of(contiguity) {
            divisibility
        } else {
            gcd(divisibility, pow2_part(gcd(run, contiguity)))
        }
    }

    /// A divisibility true of every element, whatever its position.
    pub fn element_divisibility(&self) -> u64 {
        (0..self.rank()).map(|d| self.divisibility_at(d, 1)).fold(MAX_DIVISIBILITY, gcd)
    }

    /// Whether dim `d` is one contiguous run over the whole of `shape[d]`.
    fn is_contiguous_dim(&self, shape: &[u64], d: usize) -> bool {
        self.contiguity[d] == shape[d]
    }

    /// Whether dim `d` holds one value over the whole of `shape[d]`.
    fn is_constant_dim(&self, shape: &[u64], d: usize) -> bool {
        self.constancy[d] == shape[d]
    }
}

impl fmt::Display for AxisInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "contiguity = {:?}, divisibility = {:?}, constancy = {:?}",
            self.contiguity, self.divisibility, self.constancy
        )?;
        if let Some(value) = self.constant {
            write!(f, ", constant = {value}")?;
        }
        Ok(())
    }
}

/// The facts of every integer and pointer value of one function; float and descriptor values
/// have none.
#[derive(Clone, Debug)]
pub struct AxisInfoMap {
    infos: SecondaryMap<ValueData, Option<AxisInfo>>,
}

impl AxisInfoMap {
    pub fn get(&self, value: Value) -> Option<&AxisInfo> {
        self.infos.get(value).as_ref()
    }
}

/// Analyzes one function.
pub fn analyze(function: &Function) -> AxisInfoMap {
    let mut analyzer = Analyzer { body: &function.body, map: AxisInfoMap { infos: SecondaryMap::default() } };
    for (index, &param) in function.params().iter().enumerate() {
        let attrs = function.arg_attrs.get(index).cloned().unwrap_or_default();
        analyzer.seed(param, AxisInfo::pessimistic(analyzer.rank(param)), &attrs, "");
    }
    analyzer.visit_block(function.entry);
    analyzer.map
}

/// Prints every function of the module with, after each line that defines values, one comment
/// line per integer or pointer value giving its facts (`--emit axisinfo`).
pub fn print_axis_info(module: &Module) -> String {
    let mut out = String::new();
    for (i, function) in module.functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let map = analyze(function);
        let names = value_names(function);
        for line in print_function(module, function).lines() {
            out.push_str(line);
            out.push('\n');
            let trimmed = line.trim_start();
            let mut indent = line[..line.len() - trimmed.len()].to_string();
            let defined: Vec<&str> = if trimmed.starts_with("tt.func") {
                indent.push_str("  ");
                names.iter().take(function.params().len()).map(|(name, _)| name.as_str()).collect()
            } else if let Some(args) = trimmed.strip_prefix("^bb0(").and_then(|s| s.strip_suffix("):")) {
                args.split(", ").filter_map(|arg| arg.split(':').next()).collect()
            } else if let Some((results, _)) = trimmed.split_once(" = ").filter(|_| trimmed.starts_with('%'))
            {
                results.split(", ").collect()
            } else {
                Vec::new()
            };
            for name in defined {
                let value = names.iter().find(|(n, _)| n == name).map(|&(_, v)| v);
                if let Some(info) = value.and_then(|v| map.get(v)) {
                    out.push_str(&format!("{indent}// {name}: {info}\n"));
                }
            }
        }
    }
    out
}

/// The printed name of every value of `function`, parameters first, in the printer's order.
fn value_names(function: &Function) -> Vec<(String, Value)> {
    let mut names = Vec::new();
    for (i, &param) in function.params().iter().enumerate() {
        names.push((format!("%{}", param_name(&function.arg_names, i)), param));
    }
    // The printer names an op's results, then each region's arguments before its ops.
    fn walk(body: &Body, block: Block, next: &mut usize, names: &mut Vec<(String, Value)>) {
        for &op in &body.blocks[block].ops {
            for &result in &body.op(op).results {
                names.push((format!("%{next}"), result));
                *next += 1;
            }
            for &region in &body.op(op).regions {
                for &arg in &body.blocks[region].args {
                    names.push((format!("%{next}"), arg));
                    *next += 1;
                }
                walk(body, region, next, names);
            }
        }
    }
    walk(&function.body, function.entry, &mut 0, &mut names);
    names
}

/// The printer's name for parameter `i` (mirrors `printer::unique_param_name`).
fn param_name(names: &[String], i: usize) -> String {
    let name = &names[i];
    let plain = !name.is_empty()
        && !name.as_bytes()[0].is_ascii_digit()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if plain && !names[..i].contains(name) && !name.chars().all(|c| c.is_ascii_digit()) {
        name.clone()
    } else {
        format!("arg{i}")
    }
}

/// The walk: visits ops in program order, so every operand has its facts before its users.
struct Analyzer<'a> {
    body: &'a Body,
    map: AxisInfoMap,
}

impl Analyzer<'_> {
    /// Whether the analysis tracks `value` (integers, `i1` included, and pointers).
    fn tracked(&self, value: Value) -> bool {
        let ty = self.body.ty(value);
        !ty.is_desc() && (ty.is_ptr() || ty.dtype().is_int())
    }

    /// The shape as the analysis sees it: scalars are `[1]`.
    fn shape(&self, value: Value) -> Vec<u64> {
        let shape = self.body.ty(value).shape();
        if shape.is_empty() {
            vec![1]
        } else {
            shape.iter().map(|&d| d as u64).collect()
        }
    }

    fn rank(&self, value: Value) -> usize {
        self.body.ty(value).shape().len().max(1)
    }

    /// The facts of an operand; pessimistic for untracked values.
    fn info(&self, value: Value) -> AxisInfo {
        self.map.get(value).cloned().unwrap_or_else(|| AxisInfo::pessimistic(self.rank(value)))
    }

    /// Records `info` for `value` after applying the hints of `attrs` whose names end in
    /// `suffix` (`""` for results and parameters, `"_arg<N>"` for block arguments).
    fn seed(&mut self, value: Value, mut info: AxisInfo, attrs: &Attrs, suffix: &str) {
        if !self.tracked(value) {
            return;
        }
        let shape = self.shape(value);
        let hints = [
            ("tt.contiguity", &mut info.contiguity),
            ("tt.divisibility", &mut info.divisibility),
            ("tt.constancy", &mut info.constancy),
        ];
        for (name, field) in hints {
            if let Some(hint) =
                attrs.get(&format!("{name}{suffix}")).and_then(|a| hint_values(a, shape.len()))
            {
                *field = hint;
            }
        }
        self.map.infos.set(value, Some(normalize(info, &shape)));
    }

    fn visit_block(&mut self, block: Block) {
        for &op in &self.body.blocks[block].ops {
            self.visit_op(op);
        }
    }

    fn visit_op(&mut self, op: Op) {
        let data = self.body.op(op);
        match data.opcode {
            Opcode::For => self.visit_for(op),
            Opcode::While => self.visit_while(op),
            Opcode::If => self.visit_if(op),
            _ if !data.regions.is_empty() => {
                // Reduce and scan: the combine region's arguments are arbitrary elements.
                for &region in &data.regions {
                    self.seed_pessimistic_args(op, region);
                    self.visit_block(region);
                }
                self.seed_pessimistic_results(op);
            }
            _ if data.results.len() == 1 => {
                let result = data.results[0];
                if self.tracked(result) {
                    let info = self.transfer(op);
                    self.seed(result, info, &data.attrs, "");
                }
            }
            _ => self.seed_pessimistic_results(op),
        }
    }

    fn seed_pessimistic_results(&mut self, op: Op) {
        for &result in &self.body.op(op).results {
            self.seed(result, AxisInfo::pessimistic(self.rank(result)), &Attrs::new(), "");
        }
    }

    fn seed_pessimistic_args(&mut self, owner: Op, block: Block) {
        let infos = self.body.blocks[block].args.iter().map(|&a| Some(AxisInfo::pessimistic(self.rank(a))));
        self.seed_args(owner, block, &infos.collect::<Vec<_>>());
    }

    /// Records the facts of a region's arguments, with the owner's `_arg<N>` hints.
    fn seed_args(&mut self, owner: Op, block: Block, infos: &[Option<AxisInfo>]) {
        let attrs = &self.body.op(owner).attrs;
        for (index, &arg) in self.body.blocks[block].args.iter().enumerate() {
            let info = infos[index].clone().unwrap_or_else(|| AxisInfo::pessimistic(self.rank(arg)));
            self.seed(arg, info, attrs, &format!("_arg{index}"));
        }
    }

    /// The facts of the operands of `block`'s terminator (`scf.yield` or `scf.condition`).
    fn terminator_infos(&self, block: Block, skip: usize) -> Vec<Option<AxisInfo>> {
        let Some(&terminator) = self.body.blocks[block].ops.last() else { return Vec::new() };
        let operands = &self.body.op(terminator).operands;
        operands.iter().skip(skip).map(|&v| self.map.get(v).cloned()).collect()
    }

    /// `scf.for`: the induction variable is divisible by `gcd(lb, step)`; the iteration
    /// arguments iterate to the fixed point `meet(init, yield(args))`.
    fn visit_for(&mut self, op: Op) {
        let data = self.body.op(op);
        let body_block = data.regions[0];
        let lower = self.info(data.operands[0]);
        let step = self.info(data.operands[2]);
        let mut induction = AxisInfo::pessimistic(1);
        induction.divisibility[0] = gcd(lower.element_divisibility(), step.element_divisibility());
        let inits: Vec<Option<AxisInfo>> =
            data.operands[3..].iter().map(|&v| self.map.get(v).cloned()).collect();
        let finals = self.fixed_point(&inits, |analyzer, carried| {
            let mut args = vec![Some(induction.clone())];
            args.extend(carried.iter().cloned());
            analyzer.seed_args(op, body_block, &args);
            analyzer.visit_block(body_block);
            analyzer.terminator_infos(body_block, 0)
        });
        self.seed_results(op, &finals);
    }

    /// `scf.while`: the before region's arguments iterate to the fixed point
    /// `meet(init, yield(after(condition(args))))`; the after region's arguments and the results
    /// are exactly the values `scf.condition` forwards.
    fn visit_while(&mut self, op: Op) {
        let data = self.body.op(op);
        let (before, after) = (data.regions[0], data.regions[1]);
        let inits: Vec<Option<AxisInfo>> = data.operands.iter().map(|&v| self.map.get(v).cloned()).collect();
        self.fixed_point(&inits, |analyzer, carried| {
            analyzer.seed_args(op, before, carried);
            analyzer.visit_block(before);
            let forwarded = analyzer.terminator_infos(before, 1);
            analyzer.seed_args(op, after, &forwarded);
            analyzer.visit_block(after);
            analyzer.terminator_infos(after, 0)
        });
        let results = self.terminator_infos(before, 1);
        self.seed_results(op, &results);
    }

    /// `scf.if`: each result is the meet of what the two regions yield.
    fn visit_if(&mut self, op: Op) {
        let data = self.body.op(op);
        for &region in &data.regions {
            self.visit_block(region);
        }
        let then_infos = self.terminator_infos(data.regions[0], 0);
        let else_infos = data.regions.get(1).map(|&r| self.terminator_infos(r, 0)).unwrap_or_default();
        let results: Vec<Option<AxisInfo>> =
            then_infos.iter().zip(&else_infos).map(|(a, b)| meet_options(a, b)).collect();
        self.seed_results(op, &results);
    }

    /// Records the results of a multi-result op; hints on such an op cannot say which result
    /// they describe, so none are applied.
    fn seed_results(&mut self, op: Op, infos: &[Option<AxisInfo>]) {
        for (index, &result) in self.body.op(op).results.iter().enumerate() {
            let info = infos.get(index).cloned().flatten();
            let info = info.unwrap_or_else(|| AxisInfo::pessimistic(self.rank(result)));
            self.seed(result, info, &Attrs::new(), "");
        }
    }

    /// Iterates `carried = meet(init, visit(carried))` from `carried = init` until it stops
    /// changing, and returns the final carried facts. The gcd-based transfer functions only
    /// lose knowledge as their inputs do, so this converges quickly; if it has not after
    /// [`MAX_LOOP_ITERATIONS`] rounds, the carried values become pessimistic and the body is
    /// visited once more so that its facts hold for any input.
    fn fixed_point(
        &mut self,
        inits: &[Option<AxisInfo>],
        mut visit: impl FnMut(&mut Self, &[Option<AxisInfo>]) -> Vec<Option<AxisInfo>>,
    ) -> Vec<Option<AxisInfo>> {
        let mut carried = inits.to_vec();
        for _ in 0..MAX_LOOP_ITERATIONS {
            let yielded = visit(self, &carried);
            let next: Vec<Option<AxisInfo>> = inits
                .iter()
                .enumerate()
                .map(|(i, init)| meet_options(init, &yielded.get(i).cloned().flatten()))
                .collect();
            if next == carried {
                return carried;
            }
            carried = next;
        }
        let pessimistic: Vec<Option<AxisInfo>> = inits.iter().map(|_| None).collect();
        visit(self, &pessimistic);
        pessimistic
    }

    /// The facts of the single result of a region-free op, before hints.
    fn transfer(&self, op: Op) -> AxisInfo {
        let data = self.body.op(op);
        let result = data.results[0];
        let shape = self.shape(result);
        let rank = shape.len();
        let operand = |i: usize| self.info(data.operands[i]);
        let result_dtype = self.body.ty(result).dtype();
        // Elementwise binary ops index both operands per dimension; a rank mismatch (IR the
        // verifier would reject) gets the pessimistic facts instead of a panic.
        let binary = data.opcode.info().operands == crate::ir::Arity::Exactly(2)
            && !matches!(data.opcode, Opcode::Join | Opcode::Cat);
        if binary && data.operands.iter().any(|&v| self.rank(v) != rank) {
            return AxisInfo::pessimistic(rank);
        }
        let info = match data.opcode {
            Opcode::Constant => match data.attrs.get("value").and_then(Attr::as_int) {
                Some(value) => AxisInfo::of_constant(value, &shape),
                None => AxisInfo::pessimistic(rank),
            },
            Opcode::MakeRange => {
                let start = data.attrs.int("start").unwrap_or(0);
                let end = data.attrs.int("end").unwrap_or(start + 1);
                AxisInfo {
                    contiguity: vec![(end - start).max(1) as u64],
                    divisibility: vec![pow2_divisor(start)],
                    constancy: vec![1],
                    constant: None,
                }
            }
            Opcode::Splat => splat(&operand(0), &shape),
            // A layout conversion moves elements between threads, not values.
            Opcode::ConvertLayout => operand(0),
            Opcode::Broadcast => broadcast(&operand(0), &self.shape(data.operands[0]), &shape),
            Opcode::ExpandDims => expand_dims(&operand(0), data.attrs.int("axis").unwrap_or(0) as usize),
            Opcode::Trans => match data.attrs.ints("order") {
                Some(order) => trans(&operand(0), order),
                None => AxisInfo::pessimistic(rank),
            },
            Opcode::Reshape => reshape(&operand(0), &self.shape(data.operands[0]), &shape),
            Opcode::ExtSI
            | Opcode::ExtUI
            | Opcode::TruncI
            | Opcode::Bitcast
            | Opcode::IntToPtr
            | Opcode::PtrToInt => self.cast(op),
            Opcode::AddI | Opcode::SubI | Opcode::AddPtr => {
                let element_bytes = match data.opcode {
                    Opcode::AddPtr => result_dtype.size_bytes() as u64,
                    _ => 1,
                };
                add_sub(data.opcode, &operand(0), &operand(1), element_bytes)
            }
            Opcode::MulI => mul(&operand(0), &operand(1)),
            Opcode::DivSI | Opcode::DivUI => div(data.opcode, &operand(0), &operand(1), &shape, result_dtype),
            Opcode::RemSI | Opcode::RemUI => rem(data.opcode, &operand(0), &operand(1), &shape, result_dtype),
            Opcode::AndI | Opcode::OrI | Opcode::XOrI => logical(data.opcode, &operand(0), &operand(1)),
            Opcode::ShLI | Opcode::ShRSI | Opcode::ShRUI => {
                shift(data.opcode, &operand(0), &operand(1), &shape, result_dtype)
            }
            Opcode::MaxSI | Opcode::MinSI | Opcode::MaxUI | Opcode::MinUI => {
                max_min(data.opcode, &operand(0), &operand(1), result_dtype)
            }
            Opcode::CmpI => {
                let operand_dtype = self.body.ty(data.operands[0]).dtype();
                cmp(
                    data.attrs.str("predicate").unwrap_or(""),
                    &operand(0),
                    &operand(1),
                    &shape,
                    operand_dtype,
                )
            }
            Opcode::Select => {
                let scalar_condition = !self.body.ty(data.operands[0]).is_tensor();
                select(&operand(0), &operand(1), &operand(2), scalar_condition)
            }
            Opcode::Load => {
                // A loaded value repeats where its pointer (and mask, and `other`) repeat.
                let mut info = AxisInfo::pessimistic(rank);
                info.constancy = (0..rank).map(|d| self.load_constancy(op, d)).collect();
                info
            }
            _ => AxisInfo::pessimistic(rank),
        };
        let info = match info.constant {
            Some(value) => AxisInfo::of_constant(normalize_constant(value, result_dtype), &shape),
            None => info,
        };
        normalize(info, &shape)
    }

    /// The constancy of a load's result along `d`: the gcd of its operands' constancies.
    fn load_constancy(&self, op: Op, d: usize) -> u64 {
        let operands = &self.body.op(op).operands;
        operands.iter().map(|&v| self.info(v).constancy[d]).reduce(gcd).unwrap_or(1)
    }

    /// Integer and pointer casts keep every fact, except where they change what one step means:
    /// contiguity counts elements, so it survives a cast between pointers and integers only
    /// when the pointee is one byte, and a pointer bitcast only when both pointees have one size.
    fn cast(&self, op: Op) -> AxisInfo {
        let data = self.body.op(op);
        let source_type = self.body.ty(data.operands[0]);
        let result_type = self.body.ty(data.results[0]);
        let mut info = self.info(data.operands[0]);
        let step_bytes = |ty: &crate::ir::Type| if ty.is_ptr() { ty.dtype().size_bytes() } else { 1 };
        if step_bytes(source_type) != step_bytes(result_type) {
            info.contiguity.iter_mut().for_each(|c| *c = 1);
        }
        let source_bits = source_type.dtype().bits();
        info.constant = match data.opcode {
            Opcode::ExtSI => info.constant.map(|v| sign_extend(v, source_bits)),
            Opcode::ExtUI => info.constant.map(|v| zero_extend(v, source_bits) as i64),
            _ => info.constant,
        };
        info
    }
}

/// `tt.splat`: every element is the scalar, so the result is constant along every dimension
/// and divisible like the scalar.
fn splat(source: &AxisInfo, shape: &[u64]) -> AxisInfo {
    AxisInfo {
        contiguity: vec![1; shape.len()],
        divisibility: vec![source.element_divisibility(); shape.len()],
        constancy: shape.to_vec(),
        constant: source.constant,
    }
}

/// `tt.broadcast`: a stretched size-1 dimension becomes constant over its new length; other
/// dimensions keep their facts.
fn broadcast(source: &AxisInfo, source_shape: &[u64], shape: &[u64]) -> AxisInfo {
    let mut info = source.clone();
    for d in 0..shape.len() {
        if source_shape[d] == 1 && shape[d] != 1 {
            info.contiguity[d] = 1;
            info.constancy[d] = shape[d];
        }
    }
    info
}

/// `tt.expand_dims`: the new size-1 dimension has contiguity and constancy 1 and the
/// divisibility true of every element (Triton's rule, which treats a contiguous run's
/// divisibility as 1).
fn expand_dims(source: &AxisInfo, axis: usize) -> AxisInfo {
    let mut info = source.clone();
    let axis = axis.min(info.rank());
    let divisibility = match source.constant {
        Some(value) => pow2_divisor(value),
        None => source.element_divisibility(),
    };
    info.contiguity.insert(axis, 1);
    info.divisibility.insert(axis, divisibility);
    info.constancy.insert(axis, 1);
    info
}

/// `tt.trans`: result dimension `i` is operand dimension `order[i]`, facts included.
fn trans(source: &AxisInfo, order: &[i64]) -> AxisInfo {
    let permute =
        |field: &[u64]| order.iter().map(|&d| field.get(d as usize).copied().unwrap_or(1)).collect();
    if order.len() != source.rank() {
        return AxisInfo::pessimistic(order.len());
    }
    AxisInfo {
        contiguity: permute(&source.contiguity),
        divisibility: permute(&source.divisibility),
        constancy: permute(&source.constancy),
        constant: source.constant,
    }
}

/// `tt.reshape`: runs are not followed through the new shape; only what holds for every
/// element survives (its divisibility, and constancy when the whole tensor is one value).
fn reshape(source: &AxisInfo, source_shape: &[u64], shape: &[u64]) -> AxisInfo {
    let mut info = AxisInfo::pessimistic(shape.len());
    info.divisibility = vec![source.element_divisibility(); shape.len()];
    if (0..source.rank()).all(|d| source.is_constant_dim(source_shape, d)) {
        info.constancy = shape.to_vec();
    }
    info.constant = source.constant;
    info
}

/// `arith.addi`, `arith.subi`, `tt.addptr` (`element_bytes` is the pointee size for `addptr`, 1
/// otherwise).
///
/// Contiguity: a contiguous operand plus one constant over the same block stays contiguous
/// (for `subi` only the left operand may be the contiguous one: `c - arange` decreases).
/// Divisibility: `a + b` is divisible by `gcd(div a, div b)`, with the offset of `addptr`
/// counted in bytes. Constancy: the gcd.
fn add_sub(opcode: Opcode, lhs: &AxisInfo, rhs: &AxisInfo, element_bytes: u64) -> AxisInfo {
    let rank = lhs.rank();
    let mut info = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        let contiguity = match opcode {
            Opcode::SubI => gcd(lhs.contiguity[d], rhs.constancy[d]),
            _ => gcd(lhs.constancy[d], rhs.contiguity[d]).max(gcd(lhs.contiguity[d], rhs.constancy[d])),
        };
        info.contiguity[d] = contiguity;
        let rhs_bytes = multiply_divisibility(rhs.divisibility_at(d, contiguity), element_bytes);
        info.divisibility[d] = gcd(lhs.divisibility_at(d, contiguity), rhs_bytes);
        info.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
    }
    if let (Some(a), Some(b)) = (lhs.constant, rhs.constant) {
        info.constant = Some(match opcode {
            Opcode::SubI => a.wrapping_sub(b),
            _ => a.wrapping_add(b.wrapping_mul(element_bytes as i64)),
        });
    }
    info
}

/// `arith.muli`: contiguity survives only a multiplication by the constant 1; divisibilities
/// multiply (a contiguous operand counts as divisible by 1 except at run starts); constancy is
/// the gcd.
fn mul(lhs: &AxisInfo, rhs: &AxisInfo) -> AxisInfo {
    let rank = lhs.rank();
    let mut info = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        let lhs_kept = if rhs.constant == Some(1) { lhs.contiguity[d] } else { 1 };
        let rhs_kept = if lhs.constant == Some(1) { rhs.contiguity[d] } else { 1 };
        let contiguity = lhs_kept.max(rhs_kept);
        info.contiguity[d] = contiguity;
        info.divisibility[d] =
            multiply_divisibility(lhs.divisibility_at(d, contiguity), rhs.divisibility_at(d, contiguity));
        info.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
    }
    info.constant = match (lhs.constant, rhs.constant) {
        (Some(a), Some(b)) => Some(a.wrapping_mul(b)),
        (Some(0), None) | (None, Some(0)) => Some(0),
        _ => None,
    };
    info
}

/// `arith.divsi` / `arith.divui`. Contiguity survives only a division by 1. Constancy (Triton's
/// rule): a run `k*g, ..., k*g + g-1` divided by a constant that `g` divides gives one value, so
/// a contiguous dividend over a constant divisor is constant in blocks of
/// `gcd(contiguity, div lhs, div rhs)`. Divisibility: kept by a division by 1; divided by an
/// exact power-of-two divisor; 1 otherwise.
fn div(opcode: Opcode, lhs: &AxisInfo, rhs: &AxisInfo, shape: &[u64], dtype: DType) -> AxisInfo {
    let rank = lhs.rank();
    let mut info = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        let contiguity = if rhs.constant == Some(1) { lhs.contiguity[d] } else { 1 };
        info.contiguity[d] = contiguity;
        let mut constancy = gcd(lhs.constancy[d], rhs.constancy[d]);
        if lhs.is_contiguous_dim(shape, d) && rhs.is_constant_dim(shape, d) {
            let blocks = gcd(lhs.contiguity[d], gcd(lhs.divisibility[d], rhs.divisibility[d]));
            constancy = constancy.max(blocks);
        }
        info.constancy[d] = constancy;
        let dividend = lhs.divisibility_at(d, contiguity);
        info.divisibility[d] = match rhs.constant {
            Some(1) => dividend,
            Some(p) if p > 0 && (p as u64).is_power_of_two() && dividend.is_multiple_of(p as u64) => {
                dividend / p as u64
            }
            _ => 1,
        };
    }
    info.constant = match (lhs.constant, rhs.constant) {
        (Some(a), Some(b)) if b != 0 => match opcode {
            Opcode::DivSI => a.checked_div(b),
            _ => zero_extend(a, dtype.bits()).checked_div(zero_extend(b, dtype.bits())).map(|v| v as i64),
        },
        (Some(0), _) => Some(0),
        _ => None,
    };
    info
}

/// `arith.remsi` / `arith.remui` (Triton's rules): a contiguous dividend modulo a constant is
/// contiguous in blocks of `gcd(contiguity, div lhs, div rhs)`; the remainder is divisible by
/// `gcd(div lhs, div rhs)`; `x % 1` is 0.
fn rem(opcode: Opcode, lhs: &AxisInfo, rhs: &AxisInfo, shape: &[u64], dtype: DType) -> AxisInfo {
    let rank = lhs.rank();
    let mut info = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        let mut contiguity = 1;
        if lhs.is_contiguous_dim(shape, d) && rhs.is_constant_dim(shape, d) {
            contiguity = gcd(lhs.contiguity[d], gcd(lhs.divisibility[d], rhs.divisibility[d]));
        }
        info.contiguity[d] = contiguity;
        info.divisibility[d] = gcd(lhs.divisibility_at(d, contiguity), rhs.divisibility_at(d, contiguity));
        info.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
    }
    info.constant = match (lhs.constant, rhs.constant) {
        (_, Some(1)) => Some(0),
        (Some(a), Some(b)) if b != 0 => match opcode {
            Opcode::RemSI => a.checked_rem(b),
            _ => zero_extend(a, dtype.bits()).checked_rem(zero_extend(b, dtype.bits())).map(|v| v as i64),
        },
        _ => None,
    };
    info
}

/// `arith.andi` / `ori` / `xori`: no contiguity; constancy is the gcd; `a & b` keeps the zero
/// low bits of either operand (the larger divisibility), `|` and `^` those of both (the gcd).
fn logical(opcode: Opcode, lhs: &AxisInfo, rhs: &AxisInfo) -> AxisInfo {
    let rank = lhs.rank();
    let mut info = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        let (a, b) = (lhs.divisibility_at(d, 1), rhs.divisibility_at(d, 1));
        info.divisibility[d] = if opcode == Opcode::AndI { a.max(b) } else { gcd(a, b) };
        info.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
    }
    if let (Some(a), Some(b)) = (lhs.constant, rhs.constant) {
        info.constant = Some(match opcode {
            Opcode::AndI => a & b,
            Opcode::OrI => a | b,
            _ => a ^ b,
        });
    }
    info
}

/// `arith.shli` / `shrsi` / `shrui`. Contiguity survives only a shift by 0. A constant left
/// shift by `s` multiplies the divisibility by `2^s` (any left shift keeps it); a constant right
/// shift divides it. A contiguous value shifted right by a constant `s` is constant in blocks of
/// `gcd(contiguity, div, 2^s)`, like a division (and, flooring, even for negative values).
fn shift(opcode: Opcode, lhs: &AxisInfo, rhs: &AxisInfo, shape: &[u64], dtype: DType) -> AxisInfo {
    let rank = lhs.rank();
    let bits = dtype.bits();
    let amount = rhs.constant.filter(|&s| s >= 0).map(|s| s as u64);
    // Shifts past 30 bits only ever meet the divisibility cap; clamping keeps `1 << s` finite.
    let factor = amount.map(|s| 1u64 << s.min(30));
    let mut info = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        let contiguity = if amount == Some(0) { lhs.contiguity[d] } else { 1 };
        info.contiguity[d] = contiguity;
        let divisibility = lhs.divisibility_at(d, contiguity);
        let mut constancy = gcd(lhs.constancy[d], rhs.constancy[d]);
        info.divisibility[d] = match (opcode, factor) {
            (Opcode::ShLI, Some(factor)) => multiply_divisibility(divisibility, factor),
            (Opcode::ShLI, None) => divisibility,
            (_, Some(factor)) => {
                if lhs.is_contiguous_dim(shape, d) && rhs.is_constant_dim(shape, d) {
                    let blocks = gcd(lhs.contiguity[d], gcd(lhs.divisibility[d], factor));
                    constancy = constancy.max(blocks);
                }
                (divisibility / factor).max(1)
            }
            (_, None) => 1,
        };
        info.constancy[d] = constancy;
    }
    if let (Some(a), Some(s)) = (lhs.constant, amount) {
        info.constant = Some(match opcode {
            _ if s >= bits as u64 && opcode != Opcode::ShRSI => 0,
            Opcode::ShLI => a << s,
            Opcode::ShRSI => sign_extend(a, bits) >> s.min(63),
            _ => (zero_extend(a, bits) >> s) as i64,
        });
    }
    info
}

/// `arith.maxsi` / `minsi` / `maxui` / `minui`: each element is one of the operands' elements,
/// so the gcd of their per-element divisibilities holds; constancy is the gcd.
fn max_min(opcode: Opcode, lhs: &AxisInfo, rhs: &AxisInfo, dtype: DType) -> AxisInfo {
    let rank = lhs.rank();
    let mut info = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        info.divisibility[d] = gcd(lhs.divisibility_at(d, 1), rhs.divisibility_at(d, 1));
        info.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
    }
    if let (Some(a), Some(b)) = (lhs.constant, rhs.constant) {
        let bits = dtype.bits();
        let (ua, ub) = (zero_extend(a, bits), zero_extend(b, bits));
        info.constant = Some(match opcode {
            Opcode::MaxSI => a.max(b),
            Opcode::MinSI => a.min(b),
            Opcode::MaxUI => ua.max(ub) as i64,
            _ => ua.min(ub) as i64,
        });
    }
    info
}

/// `arith.cmpi` (Triton's rules): the result is constant where both operands are; besides, a
/// contiguous run compared with a constant `c` can only change value at `c` (for `<`, `>=`) or
/// `c + 1` (for `>`, `<=`), so with both sides divisible by `g` the result is constant in
/// aligned blocks of `gcd(contiguity, g)`.
fn cmp(predicate: &str, lhs: &AxisInfo, rhs: &AxisInfo, shape: &[u64], operand_dtype: DType) -> AxisInfo {
    let rank = lhs.rank();
    let mut info = AxisInfo::pessimistic(rank);
    let is_gt_or_le = matches!(predicate, "sgt" | "ugt" | "sle" | "ule");
    let is_lt_or_ge = matches!(predicate, "slt" | "ult" | "sge" | "uge");
    for d in 0..rank {
        let mut constancy = gcd(lhs.constancy[d], rhs.constancy[d]);
        let divisibility = gcd(lhs.divisibility[d], rhs.divisibility[d]);
        if is_gt_or_le && lhs.is_constant_dim(shape, d) {
            // constant > run, constant <= run.
            constancy = constancy.max(gcd(rhs.contiguity[d], divisibility));
        } else if is_lt_or_ge && rhs.is_constant_dim(shape, d) {
            // run < constant, run >= constant.
            constancy = constancy.max(gcd(lhs.contiguity[d], divisibility));
        }
        info.constancy[d] = constancy;
    }
    if let (Some(a), Some(b)) = (lhs.constant, rhs.constant) {
        let bits = operand_dtype.bits();
        let (sa, sb) = (sign_extend(a, bits), sign_extend(b, bits));
        let (ua, ub) = (zero_extend(a, bits), zero_extend(b, bits));
        let result = match predicate {
            "eq" => Some(a == b),
            "ne" => Some(a != b),
            "slt" => Some(sa < sb),
            "sle" => Some(sa <= sb),
            "sgt" => Some(sa > sb),
            "sge" => Some(sa >= sb),
            "ult" => Some(ua < ub),
            "ule" => Some(ua <= ub),
            "ugt" => Some(ua > ub),
            "uge" => Some(ua >= ub),
            _ => None,
        };
        info.constant = result.map(i64::from);
    }
    info
}

/// `arith.select`: a known condition picks one side; otherwise the result has the facts both
/// sides share, cut where a tensor condition may switch sides.
fn select(condition: &AxisInfo, lhs: &AxisInfo, rhs: &AxisInfo, scalar_condition: bool) -> AxisInfo {
    match condition.constant {
        Some(0) => return rhs.clone(),
        Some(_) => return lhs.clone(),
        None => {}
    }
    let rank = lhs.rank();
    let mut info = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        let switch = if scalar_condition { u64::MAX } else { condition.constancy[d] };
        let contiguity = gcd_capped(gcd(lhs.contiguity[d], rhs.contiguity[d]), switch);
        info.contiguity[d] = contiguity;
        info.constancy[d] = gcd_capped(gcd(lhs.constancy[d], rhs.constancy[d]), switch);
        info.divisibility[d] = gcd(lhs.divisibility_at(d, contiguity), rhs.divisibility_at(d, contiguity));
    }
    info.constant = if lhs.constant == rhs.constant { lhs.constant } else { None };
    info
}

/// `gcd(a, b)`, where `b == u64::MAX` stands for "no limit".
fn gcd_capped(a: u64, b: u64) -> u64 {
    if b == u64::MAX {
        a
    } else {
        gcd(a, b)
    }
}

/// Parses one hint: an integer list with one entry per dimension, or a single integer for every
/// dimension (the form kernel parameters carry). Non-positive entries make the hint invalid.
fn hint_values(attr: &Attr, rank: usize) -> Option<Vec<u64>> {
    let values = match attr {
        Attr::Ints(values) if values.len() == rank => values.clone(),
        Attr::Int(value) => vec![*value; rank],
        _ => return None,
    };
    values.iter().map(|&v| u64::try_from(v).ok().filter(|&v| v > 0)).collect()
}

/// Restores the invariants every fact keeps: lengths between 1 and the dimension's size,
/// divisibilities powers of two within the cap.
fn normalize(mut info: AxisInfo, shape: &[u64]) -> AxisInfo {
    if info.rank() != shape.len() {
        return AxisInfo::pessimistic(shape.len());
    }
    for (d, &size) in shape.iter().enumerate() {
        info.contiguity[d] = info.contiguity[d].clamp(1, size.max(1));
        info.constancy[d] = info.constancy[d].clamp(1, size.max(1));
        info.divisibility[d] = pow2_part(info.divisibility[d]).min(MAX_DIVISIBILITY);
    }
    info
}

/// The constant as the result type holds it: wrapped to its width, sign-extended for signed
/// types (and `i1`, read as 0 or 1), zero-extended for unsigned ones and pointers.
fn normalize_constant(value: i64, dtype: DType) -> i64 {
    match dtype {
        DType::I1 => value & 1,
        _ if dtype.is_signed_int() => sign_extend(value, dtype.bits()),
        _ => zero_extend(value, dtype.bits()) as i64,
    }
}

/// The largest power of two dividing `value`, capped; zero is divisible by anything.
fn pow2_divisor(value: i64) -> u64 {
    if value == 0 {
        MAX_DIVISIBILITY
    } else {
        (1u64 << value.trailing_zeros()).min(MAX_DIVISIBILITY)
    }
}

/// The largest power of two dividing a positive `value` (1 for 0, which never occurs).
fn pow2_part(value: u64) -> u64 {
    if value == 0 {
        1
    } else {
        1 << value.trailing_zeros()
    }
}

/// The product of two divisibilities, capped.
fn multiply_divisibility(a: u64, b: u64) -> u64 {
    a.saturating_mul(b).min(MAX_DIVISIBILITY)
}

fn meet_options(a: &Option<AxisInfo>, b: &Option<AxisInfo>) -> Option<AxisInfo> {
    match (a, b) {
        (Some(a), Some(b)) if a.rank() == b.rank() => Some(a.meet(b)),
        _ => None,
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
