//! Tensor cores for `tt.dot`: gives eligible dots the MMA v2 accumulator layout, and keeps loop
//! accumulators in it (Triton's `accelerate_matmul`, plus the part of `remove_layout_conversions`
//! that matters most for matmul loops).
//!
//! A 2-D dot is eligible on NVIDIA targets of compute capability 8.0 and up when its operands are
//! f16 x f16 or bf16 x bf16 accumulating in f32, or f32 x f32 with `input_precision = "tf32"`,
//! and its shape is a whole number of CTA tiles (`M % 16 wm == 0`, `N % 8 wn == 0`, K a multiple
//! of the instruction's K: 16, or 8 for tf32), with `[wm, wn]` chosen like Triton's
//! `warpsPerTileV2`: a dot chained to another dot (attention's `QK^T` feeding `PV`: they share a
//! def-use component of their block that no conversion cuts) puts every warp along its larger
//! dimension, so chained dots agree on the layout and a row of scores lives in one warp; other
//! dots split the warps by the tile shares. The dot then produces `#ttg.nvidia_mma`; its accumulator operand is converted
//! to that layout before it and its result converted back after it.
//!
//! On Hopper (compute capability 9.0, `sm_90a`), a 16-bit dot (f16 or bf16) or an 8-bit float
//! one (e4m3, e5m2: instruction K 32) becomes a warpgroup MMA instead (`ttng.warp_group_dot`,
//! Triton's MMA v3): warps in warpgroups of 4 along M (`num_warps` a multiple of 4), the
//! instruction's N chosen as Triton's `mmaVersionToInstrShape` does (up to 256), `[wm, wn]` as
//! its `warpsPerTileV3`. trident takes version 3 only where every warp lies along M (`wn = 1`),
//! so that each warpgroup's B columns start on a swizzle block in shared memory; other shapes and
//! tf32 keep version 2.
//!
//! Chained dots (attention) go to version 3 together or not at all, 16-bit only, with every warp
//! along M. An A operand not loaded in the dot's block (attention's `Q`, loaded before the loop,
//! and `P`, computed from the first dot) is read from registers: it is converted to the layout
//! `wgmma` reads A registers in ([`Mma::v3_register_operand`], an accumulator's), right after its
//! definition when that is outside the dot's block (once, before the loop), else right before
//! the dot, where `P`'s conversion disappears in propagate-mma-layout.
//!
//! A dot that stays on FMAs (fp32 with `input_precision = "ieee"`, shapes or types the tensor
//! cores do not take) gets a register-tile accumulator instead ([`fma_encoding`]): 4 x 4 blocks
//! per thread, so that each K step of the backend's outer product loads a few vectors for many
//! FMAs. So does every dot on targets without tensor-core layouts (Vulkan, where a backend may
//! still multiply on cooperative matrices, staging the accumulator from any layout) whose result
//! a conversion can move through shared memory at once ([`converts_in_scratch`]): there the
//! tile also keeps a row of the result within a few lanes of one warp (16 for a 64-wide tile),
//! which the row reductions of attention's softmax cross with a few shuffles, where the layout
//! convert-to-gpu gave (one column per lane, rows split over warps) took five shuffles per row
//! and a trip through shared memory.
//!
//! Second phase: an `scf.for` iter arg whose only uses are conversions to one layout `E` and
//! whose yielded value is a conversion from `E` is carried in `E` instead: the two conversions
//! per iteration become one before and one after the loop. For `acc = tl.dot(a, b, acc)` this
//! keeps the accumulator in tensor-core registers for the whole K loop. Uses converting to a
//! layout `E` reaches by renaming registers count too (attention's accumulator, rescaled in the
//! scores' layout).
//!
//! Expects: TTGIR from convert-to-gpu. Guarantees: a verified module computing the same values.

use std::collections::{HashMap, HashSet};

use crate::ir::{Attrs, Block, Body, Builder, DType, Module, Op, Opcode, Value};
use crate::layout::{Blocked, Encoding, Mma, MmaVersion};
use crate::target::Target;

/// Applies both phases to every function.
pub fn run(module: &mut Module, target: &Target) {
    // Targets without tensor-core layouts (Vulkan: cooperative matrices are the backend's choice,
    // their operands and accumulator staged through shared memory from any layout) give a dot a
    // register tile of OFF_TENSOR_CORE_ROWS-row blocks where its result converts in scratch.
    let tensor_cores = target.compute_capability.is_some_and(|cc| cc >= 80);
    if target.compute_capability.is_some() && !tensor_cores {
        return;
    }
    for function in &mut module.functions {
        let body = &mut function.body;
        let dots: Vec<Op> =
            body.walk(function.entry).into_iter().filter(|&op| body.opcode(op) == Opcode::Dot).collect();
        let chains = chained_dots(body, &dots);
        let chained: HashSet<Op> = chains.iter().flatten().copied().collect();
        let warpgroup =
            if tensor_cores { warpgroup_dots(body, &dots, &chains, target) } else { HashMap::new() };
        // Off tensor cores, the dots of a chain share how rows spread over registers, lanes and
        // warps (the first dot's tile), so that row statistics computed from one dot's result
        // (attention's max and sum) meet the next dot's accumulator without a conversion.
        let mut row_tiles: HashMap<Op, Blocked> = HashMap::new();
        let off_tensor_cores = |body: &Body, dot: Op| {
            register_tile(body, dot, target.threads_per_warp, target.num_warps, OFF_TENSOR_CORE_ROWS)
        };
        if !tensor_cores {
            for chain in &chains {
                let Some(Encoding::Blocked(first)) = off_tensor_cores(body, chain[0]) else {
                    continue;
                };
                for &dot in chain {
                    row_tiles.insert(dot, first.clone());
                }
            }
        }
        let mut replaced = HashMap::new();
        for &dot in &dots {
            let v3 = warpgroup.get(&dot).cloned();
            if v3.is_some() {
                body.ops[dot].opcode = Opcode::WarpGroupDot;
            }
            let fma = || fma_encoding(body, dot, target.threads_per_warp, target.num_warps);
            let encoding = match v3 {
                Some(mma) => Some(Encoding::Mma(mma)),
                None if tensor_cores => {
                    mma_encoding(body, dot, target.num_warps, chained.contains(&dot)).or_else(fma)
                }
                None if !converts_in_scratch(body, dot, target) => None,
                None => match row_tiles.get(&dot) {
                    Some(rows) => same_rows(body, dot, rows),
                    None => off_tensor_cores(body, dot),
                },
            };
            if let Some((old, new)) = encoding.and_then(|enc| give_dot_layout(body, dot, enc)) {
                replaced.insert(old, new);
            }
        }
        replace_uses_except_converts(body, function.entry, &replaced);
        for &dot in &dots {
            if let Some(mma) =
                warpgroup.get(&dot).filter(|_| chained.contains(&dot) && a_in_registers(body, dot))
            {
                give_register_operand_layout(body, dot, mma);
            }
        }
        let loops: Vec<Op> =
            body.walk(function.entry).into_iter().filter(|&op| body.opcode(op) == Opcode::For).collect();
        for lp in loops {
            carry_in_converted_layout(body, lp);
        }
    }
}

/// Whether `dot` (a `tt.dot`, in TTIR or TTGIR) will become a warpgroup MMA on `target`: the
/// choice `run` makes, asked ahead of it (rewrite-tensor-descriptors keeps the descriptor loads
/// of such dots for TMA rings).
pub(crate) fn takes_warpgroup_mma(body: &Body, dot: Op, target: &Target) -> bool {
    if body.opcode(dot) != Opcode::Dot {
        return false;
    }
    let Some(block) = body.op(dot).parent else { return false };
    let dots: Vec<Op> =
        body.blocks[block].ops.iter().copied().filter(|&op| body.opcode(op) == Opcode::Dot).collect();
    let chains = chained_dots(body, &dots);
    warpgroup_dots(body, &dots, &chains, target).contains_key(&dot)
}

/// The dots of `dots` that become warpgroup MMAs on `target`, with their layouts: on Hopper,
/// each dot [`mma_v3_encoding`] accepts, a chain of dots only as a whole (so that the first
/// dot's result is in the layout the second reads).
fn warpgroup_dots(body: &Body, dots: &[Op], chains: &[Vec<Op>], target: &Target) -> HashMap<Op, Mma> {
    let mut out = HashMap::new();
    if target.compute_capability.unwrap_or(0) < 90 {
        return out;
    }
    let chained: HashSet<Op> = chains.iter().flatten().copied().collect();
    for &dot in dots.iter().filter(|d| !chained.contains(d)) {
        if let Some(mma) = mma_v3_encoding(body, dot, target.num_warps, false) {
            out.insert(dot, mma);
        }
    }
    for chain in chains {
        let all: Option<Vec<(Op, Mma)>> = chain
            .iter()
            .map(|&dot| mma_v3_encoding(body, dot, target.num_warps, true).map(|mma| (dot, mma)))
            .collect();
        out.extend(all.into_iter().flatten());
    }
    out
}

/// The chains of dots: dots sharing a def-use component of their block with another dot.
/// Edges join a top-level op of the block to the top-level ops defining its operands (those of
/// nested ops included); conversions cut the component, as in Triton's `hasChainedDot`.
fn chained_dots(body: &Body, dots: &[Op]) -> Vec<Vec<Op>> {
    let mut chains = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    for block in dots.iter().filter_map(|&d| body.op(d).parent) {
        if !blocks.contains(&block) {
            blocks.push(block);
        }
    }
    for block in blocks {
        let ops = &body.blocks[block].ops;
        let index: HashMap<Op, usize> = ops.iter().enumerate().map(|(i, &op)| (op, i)).collect();
        let mut parent: Vec<usize> = (0..ops.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for (i, &op) in ops.iter().enumerate() {
            if body.opcode(op) == Opcode::ConvertLayout {
                continue;
            }
            for nested in body.walk_op(op) {
                for &operand in &body.op(nested).operands {
                    let Some(&j) = body.def_op(operand).and_then(|d| index.get(&d)) else { continue };
                    if body.opcode(ops[j]) != Opcode::ConvertLayout {
                        let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                        parent[a] = b;
                    }
                }
            }
        }
        let mut dots_per_root: HashMap<usize, Vec<Op>> = HashMap::new();
        for (i, &op) in ops.iter().enumerate() {
            if body.opcode(op) == Opcode::Dot {
                dots_per_root.entry(root(&mut parent, i)).or_default().push(op);
            }
        }
        chains.extend(dots_per_root.into_values().filter(|d| d.len() > 1));
    }
    chains
}

/// The MMA v3 (warpgroup) layout a dot can use on Hopper, if any (see the module docs). A
/// `chained` dot puts every warp along M, as its partner does, and takes 16-bit operands; an A
/// operand it reads from registers ([`a_in_registers`]) needs a K the register layout covers
/// ([`Mma::v3_register_operand`]).
fn mma_v3_encoding(body: &Body, dot: Op, num_warps: u32, chained: bool) -> Option<Mma> {
    let data = body.op(dot);
    let (a, b, c) = (body.ty(data.operands[0]), body.ty(data.operands[1]), body.ty(data.operands[2]));
    // The instruction's K covers 32 bytes of each operand row.
    let instr_k = match (a.dtype(), b.dtype()) {
        (DType::F16, DType::F16) | (DType::BF16, DType::BF16) => 16,
        (x, y) if x.is_fp8() && y.is_fp8() && !chained => 32,
        _ => return None,
    };
    if a.shape().len() != 2 || c.dtype() != DType::F32 || !num_warps.is_multiple_of(4) {
        return None;
    }
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let instr_n = Mma::v3_instr_n([m, n], num_warps)?;
    let warps = if chained { [num_warps, 1] } else { Mma::choose_warps_v3([m, n], num_warps) };
    // Rows of both operand tiles must fill a 32-byte swizzle row (K and N at least 16 bytes'
    // worth; an 8-bit B is read K-major, so its N rows need only be whole 8-row groups).
    let fits = warps[1] == 1
        && m.is_multiple_of(16 * warps[0])
        && k.is_multiple_of(instr_k)
        && n >= 16
        && n.is_multiple_of(8);
    let mma = Mma { warps_per_cta: warps, version: MmaVersion::V3 { instr_n, instr_k } };
    let registers_ok = !chained || !a_in_registers(body, dot) || mma.v3_register_operand(k).is_some();
    (fits && registers_ok).then_some(mma)
}

/// Whether a chained warpgroup dot reads its A operand from registers: unless A is loaded in
/// the dot's block (through layout conversions), where pipeline-dot-loads can give it a ring.
/// Attention's `Q` (loaded before the loop) and `P` (computed from the first dot) are.
fn a_in_registers(body: &Body, dot: Op) -> bool {
    let mut a = body.op(dot).operands[0];
    while let Some(def) = body.def_op(a).filter(|&d| body.opcode(d) == Opcode::ConvertLayout) {
        a = body.op(def).operands[0];
    }
    let loaded_here = body.def_op(a).is_some_and(|def| {
        matches!(body.opcode(def), Opcode::Load | Opcode::DescriptorLoad)
            && body.op(def).parent == body.op(dot).parent
    });
    !loaded_here
}

/// Converts the A operand of a chained warpgroup dot to the layout `wgmma` reads from registers
/// ([`Mma::v3_register_operand`]): right after A's definition when that is outside the dot's
/// block (a loop-invariant `Q` converts once, before the loop), else right before the dot. `P`,
/// which propagate-mma-layout leaves in the first dot's accumulator layout, then needs no move.
fn give_register_operand_layout(body: &mut Body, dot: Op, mma: &Mma) {
    let a = body.op(dot).operands[0];
    let ty = body.ty(a).clone();
    let Some(operand) = mma.v3_register_operand(ty.shape()[1]) else { return };
    let want = ty.with_encoding(Some(Encoding::Mma(operand)));
    if ty == want {
        return;
    }
    let Some(block) = body.op(dot).parent else { return };
    let (at, index) = match body.def_op(a) {
        Some(def) if body.op(def).parent != Some(block) => {
            let outer = body.op(def).parent.expect("a defining op sits in a block");
            (outer, body.position(outer, def) + 1)
        }
        _ => (block, body.position(block, dot)),
    };
    let span = body.span(dot);
    let mut b = Builder::at(body, at, index);
    b.span = span;
    let converted = b.value(Opcode::ConvertLayout, vec![a], want, Attrs::new());
    body.ops[dot].operands[0] = converted;
}

/// The MMA layout a dot can use, if any. A chained dot takes all warps along its larger
/// dimension where the shape allows, else the split of [`Mma::choose_warps`].
fn mma_encoding(body: &Body, dot: Op, num_warps: u32, chained: bool) -> Option<Encoding> {
    let data = body.op(dot);
    let (a, b, c) = (body.ty(data.operands[0]), body.ty(data.operands[1]), body.ty(data.operands[2]));
    if a.shape().len() != 2 || c.dtype() != DType::F32 {
        return None;
    }
    let k_step = match (a.dtype(), b.dtype()) {
        (DType::F16, DType::F16) | (DType::BF16, DType::BF16) => 16,
        (DType::F32, DType::F32) if data.attrs.str("input_precision") == Some("tf32") => 8,
        _ => return None,
    };
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    if k % k_step != 0 {
        return None;
    }
    let along_larger = if m >= n { [num_warps, 1] } else { [1, num_warps] };
    let candidates =
        chained.then_some(along_larger).into_iter().chain([Mma::choose_warps([m, n], num_warps)]);
    candidates
        .map(Mma::v2)
        .find(|mma| {
            let [tm, tn] = mma.cta_tile();
            m % tm == 0 && n % tn == 0
        })
        .map(Encoding::Mma)
}

/// The accumulator layout of a dot that stays on FMAs: 4 x 4 register blocks, repeated over
/// the tile (8 rows x 4 columns per thread for 64x64 over 4 warps), so that each K step reads
/// a few vectors of A and B for many FMAs. The blocks are 16 bytes of f32 wide: lanes side by
/// side read B rows as one contiguous 128-byte line per quarter warp (8-wide blocks would put
/// two lanes of a quarter on each bank). The layout convert-to-gpu gave (one column of 32 rows
/// per thread) loads an A and a B value for nearly every FMA. `None` for shapes that are not
/// powers of two or leave a thread under 4 elements.
fn fma_encoding(body: &Body, dot: Op, threads_per_warp: u32, num_warps: u32) -> Option<Encoding> {
    register_tile(body, dot, threads_per_warp, num_warps, 4)
}

/// [`fma_encoding`] with blocks of up to `max_rows` rows.
fn register_tile(
    body: &Body,
    dot: Op,
    threads_per_warp: u32,
    num_warps: u32,
    max_rows: u32,
) -> Option<Encoding> {
    let ty = body.ty(body.op(dot).results[0]);
    let [m, n] = ty.shape()[..] else { return None };
    let threads = threads_per_warp * num_warps;
    let per_thread = (m * n) / threads;
    if !m.is_power_of_two() || !n.is_power_of_two() || per_thread < 4 {
        return None;
    }
    let cols = 4.min(n).min(per_thread);
    let rows = max_rows.min(m).min(per_thread / cols);
    let blocked = Blocked::for_shape(&[m, n], vec![rows, cols], vec![1, 0], threads_per_warp, num_warps);
    Some(Encoding::Blocked(blocked))
}

/// Rows of a thread's blocks off tensor-core layouts: 2, not [`fma_encoding`]'s 4. A backend
/// staging the accumulator for cooperative matrices moves it a band of rows at a time, and a band
/// holds every row a thread and a warp reach (8 x this on 4 warps of 32 lanes): 16-row bands of a
/// 128x64 f32 accumulator leave the staging room for twice the K per pass of 32-row ones. H100,
/// NVIDIA's Vulkan, the corpus' flash attention d64 full: 14.7 TFLOP/s with rows of 2, 10.9 with
/// rows of 4, 12.7 with the layout convert-to-gpu gives (one column per lane).
const OFF_TENSOR_CORE_ROWS: u32 = 2;

/// The register tile of `dot` that spreads rows as `rows` (another dot's tile in its chain) does:
/// the same rows per thread, lanes and warps along M, the rest of the lanes and warps along N with
/// up to 4 columns per thread. `None` where N does not hold them whole.
fn same_rows(body: &Body, dot: Op, rows: &Blocked) -> Option<Encoding> {
    let ty = body.ty(body.op(dot).results[0]);
    let [_, n] = ty.shape()[..] else { return None };
    let lanes = rows.threads_per_warp[0] * rows.threads_per_warp[1];
    let warps = rows.warps_per_cta[0] * rows.warps_per_cta[1];
    let across = (lanes / rows.threads_per_warp[0]) * (warps / rows.warps_per_cta[0]);
    if n % across != 0 {
        return None;
    }
    let cols = 4.min(n / across);
    Some(Encoding::Blocked(Blocked {
        size_per_thread: vec![rows.size_per_thread[0], cols],
        threads_per_warp: vec![rows.threads_per_warp[0], lanes / rows.threads_per_warp[0]],
        warps_per_cta: vec![rows.warps_per_cta[0], warps / rows.warps_per_cta[0]],
        order: vec![1, 0],
    }))
}

/// Whether a conversion of `dot`'s whole result fits the target's shared memory at once (its
/// elements as 32-bit words): off tensor-core layouts, a dot keeps the layout convert-to-gpu
/// gave where it does not (a 128x256 f32 tile is 128 KiB; Vulkan devices allow 32 to 64), since
/// the result leaves the register tile through such a conversion (a matmul's store).
fn converts_in_scratch(body: &Body, dot: Op, target: &Target) -> bool {
    let ty = body.ty(body.op(dot).results[0]);
    ty.numel() * 4 <= u64::from(target.shared_memory_bytes)
}

/// Gives one dot the result layout `enc` (MMA, or an FMA register tile); returns (old result,
/// converted result).
fn give_dot_layout(body: &mut Body, dot: Op, enc: Encoding) -> Option<(Value, Value)> {
    if body.ty(body.op(dot).results[0]).encoding() == Some(&enc) {
        return None;
    }
    let block = body.op(dot).parent?;
    let index = body.blocks[block].ops.iter().position(|&o| o == dot)?;
    let span = body.span(dot);
    let c = body.op(dot).operands[2];
    let result = body.op(dot).results[0];
    let original = body.ty(result).clone();
    let mma_ty = original.with_encoding(Some(enc));
    let mut b = Builder::at(body, block, index);
    b.span = span;
    // A constant accumulator (a dot without `acc`, or `tl.zeros`) is made directly in the MMA
    // layout instead of converted, which would cost a trip through shared memory each time.
    let c_mma = match b.body.def_op(c).filter(|&d| b.body.opcode(d) == Opcode::Constant) {
        Some(constant) => {
            let attrs = b.body.op(constant).attrs.clone();
            b.value(Opcode::Constant, vec![], mma_ty.clone(), attrs)
        }
        None => b.value(Opcode::ConvertLayout, vec![c], mma_ty.clone(), Attrs::new()),
    };
    body.ops[dot].operands[2] = c_mma;
    body.values[result].ty = mma_ty;
    let mut b = Builder::at(body, block, index + 2);
    b.span = span;
    let back = b.value(Opcode::ConvertLayout, vec![result], original, Attrs::new());
    Some((result, back))
}

/// Replaces uses of each key by its value, except in the conversion that defines the value.
fn replace_uses_except_converts(body: &mut Body, root: Block, map: &HashMap<Value, Value>) {
    for op in body.walk(root) {
        let is_the_convert = body.opcode(op) == Opcode::ConvertLayout
            && body.op(op).results.first().is_some_and(|r| map.values().any(|v| v == r));
        if is_the_convert {
            continue;
        }
        for operand in body.ops[op].operands.iter_mut() {
            if let Some(&new) = map.get(operand) {
                *operand = new;
            }
        }
    }
}

/// Every op (in `block` and nested regions) using `v`, with the operand position.
fn uses_in(body: &Body, block: Block, v: Value) -> Vec<(Op, usize)> {
    let mut out = Vec::new();
    for op in body.walk(block) {
        for (i, &o) in body.op(op).operands.iter().enumerate() {
            if o == v {
                out.push((op, i));
            }
        }
    }
    out
}

/// Carries an `scf.for` iter arg in layout `E` when all its uses are conversions to `E` and it
/// yields a conversion from `E` (the second phase described above). Uses converting to a layout
/// that `E` reaches by renaming registers ([`Encoding::converts_in_registers`]: attention's
/// accumulator, rescaled in the first dot's layout) count as well, and then convert from `E`.
pub(crate) fn carry_in_converted_layout(body: &mut Body, lp: Op) {
    let region = body.op(lp).regions[0];
    let Some(&yield_op) = body.blocks[region].ops.last() else { return };
    let n_carried = body.op(lp).results.len();
    for k in 0..n_carried {
        let arg = body.blocks[region].args[k + 1];
        let uses = uses_in(body, region, arg);
        if uses.is_empty() || uses.iter().any(|&(op, _)| body.opcode(op) != Opcode::ConvertLayout) {
            continue;
        }
        let converts: Vec<Op> = uses.iter().map(|&(op, _)| op).collect();
        // The yielded value must be a conversion from E.
        let yielded = body.op(yield_op).operands[k];
        let Some(src_convert) = body.def_op(yielded).filter(|&d| body.opcode(d) == Opcode::ConvertLayout)
        else {
            continue;
        };
        let src = body.op(src_convert).operands[0];
        let carried_ty = body.ty(src).clone();
        let (Some(e), shape) = (carried_ty.encoding(), carried_ty.shape()) else { continue };
        let renames = |op: &Op| {
            let ty = body.ty(body.op(*op).results[0]);
            *ty == carried_ty
                || (ty.dtype() == carried_ty.dtype()
                    && ty.encoding().is_some_and(|to| e.converts_in_registers(to, shape)))
        };
        if !converts.iter().all(renames) {
            continue;
        }
        // Conversions to E disappear; the others now convert from E (their operand is `arg`).
        let same: Vec<Op> =
            converts.into_iter().filter(|&c| *body.ty(body.op(c).results[0]) == carried_ty).collect();
        let original = body.ty(arg).clone();
        // Inside: the arg is E; its conversions become the arg itself; yield the E value.
        body.values[arg].ty = carried_ty.clone();
        let mut map = HashMap::new();
        for c in &same {
            map.insert(body.op(*c).results[0], arg);
        }
        body.replace_uses(region, &map);
        for c in same {
            body.detach_op(c);
        }
        body.ops[yield_op].operands[k] = src;
        // Outside: convert the init before the loop and the result after it.
        let Some(block) = body.op(lp).parent else { return };
        let index = body.blocks[block].ops.iter().position(|&o| o == lp).unwrap_or(0);
        let span = body.span(lp);
        let init = body.op(lp).operands[k + 3];
        let mut b = Builder::at(body, block, index);
        b.span = span;
        let init_e = b.value(Opcode::ConvertLayout, vec![init], carried_ty.clone(), Attrs::new());
        body.ops[lp].operands[k + 3] = init_e;
        let result = body.op(lp).results[k];
        body.values[result].ty = carried_ty.clone();
        let index = body.blocks[block].ops.iter().position(|&o| o == lp).unwrap_or(0);
        let mut b = Builder::at(body, block, index + 1);
        b.span = span;
        let back = b.value(Opcode::ConvertLayout, vec![result], original, Attrs::new());
        let mut outside = HashMap::new();
        outside.insert(result, back);
        let root = block;
        for op in body.walk(root) {
            if op == body.def_op(back).unwrap_or(op) && body.op(op).results.contains(&back) {
                continue;
            }
            for operand in body.ops[op].operands.iter_mut() {
                if let Some(&new) = outside.get(operand) {
                    *operand = new;
                }
            }
        }
    }
}
