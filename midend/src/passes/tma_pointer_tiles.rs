//! TMA for pointer tiles (sm_90a): an unmasked 2-D tile load whose pointers are a kernel
//! argument plus a row-major affine offset, and whose every reader is a warpgroup MMA, becomes a
//! `tt.descriptor_load` of a tensor descriptor over that argument.
//!
//! Attention written with pointers (`k_head + kv_rows[None, :] * HEAD_DIM + d[:, None]`) loads
//! the same tiles as attention written with `tl.make_tensor_descriptor`, but only descriptor
//! loads take the Hopper path: TMA rings filled by a producer warp group, the consumers' Q in
//! shared memory, persistent programs (`pipeline_dot_loads/`). This pass gives pointer tiles
//! that path: the load
//!
//! ```text
//! tt.load(splat(arg + off) + (r0 + i) * S + (c + j))        (a tile of R x C elements)
//! ```
//!
//! becomes `tt.descriptor_load(make_tensor_descriptor(arg, [2^31 - 1, S], [S, 1]), [off / S + r0, 0])`,
//! and a tile read transposed (`d[:, None] + rows[None, :] * S`, contiguous along dimension 0)
//! loads the rows as they lie and `tt.trans`poses them, as `desc.load(...).T` does. The
//! descriptor is made once at the kernel's entry; its tensor map is built by the runtime
//! (`tma.rs`: every operand is a launch scalar).
//!
//! # When
//!
//! - the target has TMA; the load has no mask; its elements are 2 or 4 bytes; its tile is 2-D,
//!   at most 256 a side, its rows a multiple of 16 bytes (a box a tensor map can hold);
//! - its pointers are `splat(p) + offset` with `p` a kernel argument plus scalar offsets, and the
//!   offset affine (`analysis/affine_pointers.rs`) with one dimension of factor 1 (the row's
//!   elements, no wider than `S`) and the other of a constant factor `S` (the row stride) whose
//!   rows are at least 128 bytes and a multiple of 16;
//! - every uniform part of the offset is a multiple of `S` that the pass can divide exactly: a
//!   constant, a scalar times a constant factor that `S` divides, or an argument offset that is
//!   a product by such a constant (`head.to(tl.int64) * N_CTX * HEAD_DIM`); the tile then starts
//!   at column 0 of its rows;
//! - every value the load makes reaches only `tt.dot`s (through `tt.trans`) that will be
//!   warpgroup MMAs (accelerate-matmul's choice, asked ahead), as A or B: other readers would
//!   gain nothing from the copy;
//! - the load sits directly in a loop the pipeliner streams (two stages or more), where TMA rings
//!   replace `cp.async` ones; or outside every loop, in a function where such a loop's tiles go
//!   through TMA (attention's Q, which warp-specialized consumers then read in place). Elsewhere
//!   a copy would wait where the pointer load does not;
//! - the function has one such loop, and the kernel at least 8 warps ([`MIN_WARPS`]): the
//!   warp-specialized, persistent form the descriptors lead to is faster than the `cp.async`
//!   pipeline only there. Measured on the H100 in one command (TFLOP/s, the corpus' pointer-form
//!   attention, before -> with this pass on every such kernel; Triton 3.6): d128 full 462.7 ->
//!   504.2 (449.3); d128 causal, two loops (the diagonal one after the partition is not
//!   persistent) 385.4 -> 362.9 (338.5); d64 on 4 warps full 384.0 -> 314.5 (372.1), causal
//!   321.7 -> 192.4 (276.0). The kernels this rule leaves out compile as before.
//!
//! The row coordinate is 32-bit, as TMA's are: a tile's first row is its offset from the
//! argument over `S`, below 2^31 for every tile the pointer form can read in bounds (rows of at
//! least 128 bytes: 256 GiB). The tensor map declares 2^31 - 1 rows, so no row the kernel reads
//! is outside it, with one difference from the pointer form: a tile whose rows lie before the
//! argument's address (a negative offset) reads zeros, where the pointer form reads the memory
//! there. trident assumes a kernel reads its tensor arguments at and after their addresses.
//!
//! rewrite-tensor-descriptors runs next and keeps these descriptors only where the tensor map
//! can be encoded (the argument's alignment); elsewhere the load goes back to pointers.
//!
//! Expects: TTIR (no layouts), helpers inlined. Guarantees: the same elements loaded (above).

use std::collections::HashMap;

use crate::analysis::affine_pointers::{self, AffineOffset};
use crate::ir::{Attr, Attrs, Block, Body, Builder, DType, Elem, Function, Module, Op, Opcode, Type, Value};
use crate::passes::pipeline_dot_loads::pipelined_loop_of;
use crate::passes::rewrite_tensor_descriptors::{dot_readers, DotReaders, Users};
use crate::passes::uses::users_in;
use crate::target::Target;

/// The fewest warps a kernel needs for its tiles to take TMA: two consumer warp groups. With one
/// (attention at d64 on 4 warps) the warp-specialized loop was slower than the `cp.async` one
/// (H100, one command: 384.0 -> 314.5 TFLOP/s full, 321.7 -> 192.4 causal).
const MIN_WARPS: u32 = 8;

/// The largest box dimension of a tensor map.
const MAX_BOX_DIM: u32 = 256;

/// The rows the tensor maps declare: the most a 32-bit coordinate can address.
const ROWS: i64 = i32::MAX as i64;

/// The shortest row (in bytes) the pass takes: with rows this long, 2^31 of them are 256 GiB,
/// more than any GPU's memory, so every row an in-bounds tile reads has a 32-bit coordinate.
const MIN_ROW_BYTES: i64 = 128;

pub fn run(module: &mut Module, target: &Target) {
    if !target.has_tma() || target.num_warps < MIN_WARPS {
        return;
    }
    for function in &mut module.functions {
        let ops = function.body.walk(function.entry);
        if !ops.iter().any(|&op| function.body.opcode(op) == Opcode::Load) {
            continue;
        }
        let users = users_in(&function.body, &ops);
        // (load, plan, the pipelined loop holding it)
        let plans: Vec<(Op, Plan, Option<Op>)> = ops
            .iter()
            .filter_map(|&op| {
                Some((op, plan(function, &users, op, target)?, pipelined_loop_of(&function.body, op, target)))
            })
            .collect();
        // One pipelined loop's tiles, and the tiles loaded once outside every loop beside them
        // (attention's Q, which the warp-specialized consumers then read in place); a lone tile
        // is as fast from registers.
        let mut loops = plans.iter().filter_map(|&(_, _, lp)| lp);
        let Some(first) = loops.next() else { continue };
        if loops.any(|lp| lp != first) {
            continue;
        }
        let plans: Vec<_> = plans
            .into_iter()
            .filter(|&(op, _, lp)| lp.is_some() || !inside_loop(&function.body, op))
            .collect();
        let mut descriptors: HashMap<(Value, Vec<u32>, i64), Value> = HashMap::new();
        let mut replaced = HashMap::new();
        for (op, plan, _) in plans {
            let key = (plan.argument, plan.rows_block.clone(), plan.stride);
            let desc = *descriptors.entry(key).or_insert_with(|| make_descriptor(function, &plan));
            let loaded = rewrite(&mut function.body, op, &plan, desc);
            replaced.insert(function.body.op(op).results[0], loaded);
            function.body.detach_op(op);
        }
        function.body.replace_uses(function.entry, &replaced);
    }
}

/// How one load becomes a descriptor load.
struct Plan {
    /// The kernel argument the tile's pointers start from.
    argument: Value,
    dtype: DType,
    /// The row stride, in elements.
    stride: i64,
    /// The descriptor's block: the tile as its rows lie in memory (rows, elements of a row).
    rows_block: Vec<u32>,
    /// Whether the load's tile is that block transposed.
    transposed: bool,
    /// The first row: scalar integer values (32 or 64 bits) times factors, summed with a
    /// constant.
    row_terms: Vec<(Value, i64)>,
    row_constant: i64,
}

fn plan(function: &Function, users: &Users, op: Op, target: &Target) -> Option<Plan> {
    let body = &function.body;
    let data = body.op(op);
    if data.opcode != Opcode::Load || data.operands.len() != 1 || data.attrs.bool("volatile") == Some(true) {
        return None;
    }
    let result = data.results[0];
    let shape = body.ty(result).shape().to_vec();
    let dtype = body.ty(result).dtype();
    let elem_bytes = i64::from(dtype.bits().div_ceil(8));
    if shape.len() != 2
        || !matches!(elem_bytes, 2 | 4)
        || !matches!(dot_readers(body, users, result, target), DotReaders { feeds_dot: true, tma_ring: true })
    {
        return None;
    }
    let pointer = affine_pointers::pointer(body, data.operands[0])?;
    let level = &merged(&pointer.levels)?;
    let (stride, transposed) = match level.coeffs[..] {
        [s, 1] if s >= i64::from(shape[1]) => (s, false),
        [1, s] if s >= i64::from(shape[0]) => (s, true),
        _ => return None,
    };
    let row_bytes = stride.checked_mul(elem_bytes)?;
    if row_bytes < MIN_ROW_BYTES || row_bytes % 16 != 0 || i32::try_from(stride).is_err() {
        return None;
    }
    // A box a tensor map can hold: at most 256 a side, rows of a multiple of 16 bytes (else
    // rewrite-tensor-descriptors would take the tile back to masked pointers).
    let width = i64::from(if transposed { shape[0] } else { shape[1] });
    if shape.iter().any(|&d| d > MAX_BOX_DIM) || (width * elem_bytes) % 16 != 0 {
        return None;
    }
    let (argument, offsets) = argument_and_offsets(function, pointer.base)?;
    // The first row: the argument offsets and the level's scalar terms over the stride, each
    // exactly, with 32-bit factors.
    let mut row_terms =
        offsets.into_iter().map(|offset| divided(body, offset, stride)).collect::<Option<Vec<_>>>()?;
    for (&value, &factor) in &level.terms {
        row_terms.push((value, (factor % stride == 0).then_some(factor / stride)?));
    }
    let fits = |k: i64| i32::try_from(k).is_ok();
    if level.constant % stride != 0
        || !fits(level.constant / stride)
        || !row_terms.iter().all(|&(_, k)| fits(k))
    {
        return None;
    }
    let rows_block = if transposed { vec![shape[1], shape[0]] } else { shape };
    Some(Plan {
        argument,
        dtype,
        stride,
        rows_block,
        transposed,
        row_terms,
        row_constant: level.constant / stride,
    })
}

/// The sum of the pointer's `tt.addptr` levels. Each is a 32-bit offset sign-extended on its
/// own; their sum is the element's offset from the base, whose row the pass computes in 32 bits
/// (the module docs say why it fits).
fn merged(levels: &[AffineOffset]) -> Option<AffineOffset> {
    let (first, rest) = levels.split_first()?;
    rest.iter().try_fold(first.clone(), |sum, level| sum.combine(level.clone(), 1))
}

/// Whether `op` runs inside an `scf.for` or `scf.while`, at any depth.
fn inside_loop(body: &Body, op: Op) -> bool {
    let mut at = body.op(op).parent.and_then(|block| body.blocks[block].parent_op);
    while let Some(parent) = at {
        if matches!(body.opcode(parent), Opcode::For | Opcode::While) {
            return true;
        }
        at = body.op(parent).parent.and_then(|block| body.blocks[block].parent_op);
    }
    false
}

/// `base` as a kernel argument plus scalar integer offsets (`tt.addptr` of scalars).
fn argument_and_offsets(function: &Function, base: Value) -> Option<(Value, Vec<Value>)> {
    let body = &function.body;
    let mut offsets = Vec::new();
    let mut at = base;
    for _ in 0..16 {
        if function.params().contains(&at) {
            return Some((at, offsets));
        }
        let def = body.def_op(at)?;
        if body.opcode(def) != Opcode::AddPtr || !body.ty(at).shape().is_empty() {
            return None;
        }
        offsets.push(body.op(def).operands[1]);
        at = body.op(def).operands[0];
    }
    None
}

/// `offset / stride` as (value, factor), when `offset` is a product of a value by a constant that
/// `stride` divides.
fn divided(body: &Body, offset: Value, stride: i64) -> Option<(Value, i64)> {
    let def = body.def_op(offset)?;
    let data = body.op(def);
    match data.opcode {
        Opcode::MulI => {
            let constant = |v: Value| crate::analysis::trip_count::constant(body, v);
            let (value, factor) = match (constant(data.operands[0]), constant(data.operands[1])) {
                (_, Some(c)) => (data.operands[0], c),
                (Some(c), None) => (data.operands[1], c),
                (None, None) => return None,
            };
            (factor % stride == 0).then_some((value, factor / stride))
        }
        _ => None,
    }
}

/// `tt.make_tensor_descriptor(argument, [ROWS, stride], [stride, 1])` at the kernel's entry.
fn make_descriptor(function: &mut Function, plan: &Plan) -> Value {
    let entry = function.entry;
    let mut b = Builder::at(&mut function.body, entry, 0);
    let rows = b.const_int(DType::I32, ROWS);
    let width = b.const_int(DType::I32, plan.stride);
    let stride = b.const_int(DType::I64, plan.stride);
    let one = b.const_int(DType::I64, 1);
    let ty = Type::Desc { dtype: plan.dtype, block: plan.rows_block.clone() };
    b.value(
        Opcode::MakeTensorDescriptor,
        vec![plan.argument, rows, width, stride, one],
        ty,
        Attrs::new().with("padding", Attr::Str("zero".into())),
    )
}

/// The descriptor load (and transpose) before `op`; returns the value that replaces the load's.
fn rewrite(body: &mut Body, op: Op, plan: &Plan, desc: Value) -> Value {
    let block: Block = body.op(op).parent.expect("a load in a block");
    let index = body.blocks[block].ops.iter().position(|&o| o == op).expect("the load in its block");
    let span = body.span(op);
    let mut b = Builder::at(body, block, index);
    b.span = span;
    let mut row = b.const_int(DType::I32, plan.row_constant);
    for &(value, factor) in &plan.row_terms {
        let mut value = value;
        if b.ty(value).dtype() == DType::I64 {
            value = b.value(Opcode::TruncI, vec![value], Type::scalar(DType::I32), Attrs::new());
        }
        if factor != 1 {
            let factor = b.const_int(DType::I32, factor);
            value = b.value(Opcode::MulI, vec![value, factor], Type::scalar(DType::I32), Attrs::new());
        }
        row = b.value(Opcode::AddI, vec![row, value], Type::scalar(DType::I32), Attrs::new());
    }
    let column = b.const_int(DType::I32, 0);
    let tile = Type::tensor(Elem::Scalar(plan.dtype), &plan.rows_block);
    let loaded = b.value(Opcode::DescriptorLoad, vec![desc, row, column], tile, Attrs::new());
    if !plan.transposed {
        return loaded;
    }
    let shape = [plan.rows_block[1], plan.rows_block[0]];
    b.value(
        Opcode::Trans,
        vec![loaded],
        Type::tensor(Elem::Scalar(plan.dtype), &shape),
        Attrs::new().with("order", Attr::Ints(vec![1, 0])),
    )
}
