//! `tt.dot` by FMA through shared memory: the correct fallback every shape can take.
//!
//! f32 operands that a pipelined loop keeps in shared-memory rings (`ttg.local_load` of a padded
//! ring) are read in place. Other operands are written to scratch shared memory, widened to f32
//! (rounded to tf32 first when `input_precision` is tf32 and the inputs are f32, as tensor cores
//! would) or kept as 32-bit integers for int8 dots: A transposed (`[K][M + 4]`, so that the rows
//! one thread needs sit side by side, the pad keeping lanes along K off one bank), B row-major.
//! Each thread then walks K in groups of four steps (one after the other where K is at most 64
//! and the thread holds at most 32 accumulators, else in a loop): it loads the A values of its
//! distinct rows and the B values of its distinct columns for the group, as 16-byte vectors
//! where they are consecutive and aligned (along K for a row-major A ring, along M for staged
//! A, along N for B), and updates every accumulator register with one FMA per step (an outer
//! product per k).
//! The accumulator layout decides the ratio of loads to FMAs; accelerate-matmul gives FMA dots
//! 4 x 4 register blocks.
//!
//! Dots whose result has the MMA v2 layout (chosen by the accelerate-matmul pass) use tensor
//! cores instead: the operands are staged in shared memory with padded rows (16-byte vector
//! stores where the operand layout allows; `ldmatrix` rows then hit distinct banks), each warp
//! loads the `mma.sync` fragments of its tiles per K step with `ldmatrix` (`.trans` for B; tf32
//! B by scalar loads) (m16n8k16 for f16 / bf16, m16n8k8 for tf32) and accumulates in place in the
//! registers of the MMA layout, whose order ([`Mma`]'s docs) gives the four accumulators of each
//! instruction. The lane mapping is proven on the CPU by the tests at the end of this file.

use std::collections::HashMap;

use trident_midend::ir::{DType, Op};
use trident_midend::layout::{Encoding, Mma};

use trident_midend::codegen::dot::{widen_operand, DotOp};
use trident_midend::codegen::LowerDot;

use crate::control::CountedLoop;
use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};
use crate::shared_vectors::{base_alignment, gcd, vector_runs};
use trident_midend::layout::registers::{Affine, LayoutInfo};

/// `tt.dot` on tensor cores where the accumulator has the MMA layout, else by FMA.
impl<'a> LowerDot<'a> for Emitter<'a> {
    fn dot(e: &mut Self, op: Op) -> EResult<()> {
        let data = e.func.body.op(op);
        if let Some(Encoding::Mma(mma)) = e.ty(data.results[0]).encoding() {
            let mma = mma.clone();
            return mma_dot(e, op, &mma);
        }
        let dot = DotOp::read(e, op)?;
        fma_dot(e, dot)
    }

    /// `cvt.rna.tf32.f32`.
    fn round_to_tf32(e: &mut Self, r: Reg) -> Reg {
        let bits = e.reg(Class::B32);
        e.ins(format!("cvt.rna.tf32.f32 {bits}, {r}"));
        let f = e.reg(Class::F32);
        e.ins(format!("mov.b32 {f}, {bits}"));
        f
    }
}

/// The most groups of K steps an FMA dot emits one after the other instead of as a loop
/// (K up to 64 in groups of four): straight-line steps let ptxas issue a group's shared-memory
/// loads during the previous group's FMAs and keep the accumulators in place, as Triton's fully
/// unrolled dot does. H100, the corpus' fp32 `ieee` 2048^3 GEMM (64x64x32 tiles): 37.1 ->
/// 41.4 TFLOP/s (Triton 3.6: 40.5). Only dots of at most [`MAX_STRAIGHT_ACCUMULATORS`]
/// accumulator registers a thread: the fp8 attention of `tests/kernels/attn_fwd.py` (64 a
/// thread, on FMA on sm_90a) already spilled 960 bytes, and 1428 unrolled.
const MAX_STRAIGHT_GROUPS: i64 = 16;

/// The most accumulator registers a thread of an FMA dot whose K steps run straight (see
/// [`MAX_STRAIGHT_GROUPS`]): the measured GEMM's 64x64 tile on four warps.
const MAX_STRAIGHT_ACCUMULATORS: usize = 32;

fn fma_dot(e: &mut Emitter, dot: DotOp) -> EResult<()> {
    let DotOp { a: a_v, b: b_v, c: c_v, result, a_type: in_type, b_type, integer, tf32, .. } = dot;
    let (al, bl, cl) = (dot.a_layout, dot.b_layout, dot.c_layout);
    let (rank, m, k, n, batch) = (dot.rank, dot.m, dot.k, dot.n, dot.batch);
    let b_elems = batch * k * n;
    let class = if integer { Class::B32 } else { Class::F32 };
    // f32 tiles of a pipelined loop's rings are read in place; other operands are staged.
    let ring_tile = |e: &Emitter, v| {
        e.in_shared.get(&v).copied().filter(|t| t.swizzle.is_none() && e.ty(v).dtype() == DType::F32)
    };
    let (a_ring, b_ring) = (ring_tile(e, a_v), ring_tile(e, b_v));

    // Staged: A transposed at element 0 (`[.., K][M + pad]`: a thread's rows are consecutive,
    // and the pad keeps the writes of lanes along K off one bank), B row-major right after it.
    let pad = if m % 4 == 0 { 4 } else { 0 };
    let a_stride = m + pad;
    let a_batch = k * a_stride;
    let b_offset = batch * a_batch;
    let total = (b_offset + b_elems) as u64;
    // Staging waits for slower warps still reading the scratch, and publishes what it wrote.
    let staged = a_ring.is_none() || b_ring.is_none();
    if staged {
        e.barrier();
    }
    let smem = e.smem_base();
    // Each operand: its byte address for the thread's first element at k = 0, the element
    // offset of each result register's operand element (A[.., row, k] or B[.., k, col]) from
    // it, and the elements one k step moves.
    let a = match a_ring {
        Some(tile) => {
            let at = Affine { coeffs: vec![tile.row_stride, 0], offset: 0 };
            FmaOperand::at(e, &cl, tile.addr, at, 1)
        }
        None => {
            let regs = e.get(a_v)?;
            let widened = widen_operand(e, &regs, in_type, tf32)?;
            let write = Affine {
                coeffs: if rank == 3 { vec![a_batch, 1, a_stride] } else { vec![1, a_stride] },
                offset: 0,
            };
            e.write_shared(&widened, &al, &write, class, total)?;
            let at = Affine { coeffs: if rank == 3 { vec![a_batch, 1, 0] } else { vec![1, 0] }, offset: 0 };
            FmaOperand::at(e, &cl, smem, at, a_stride)
        }
    };
    let b = match b_ring {
        Some(tile) if tile.column_major => {
            let at = Affine { coeffs: vec![0, tile.row_stride], offset: 0 };
            FmaOperand::at(e, &cl, tile.addr, at, 1)
        }
        Some(tile) => {
            FmaOperand::at(e, &cl, tile.addr, Affine { coeffs: vec![0, 1], offset: 0 }, tile.row_stride)
        }
        None => {
            let regs = e.get(b_v)?;
            let widened = widen_operand(e, &regs, b_type, tf32)?;
            let mut write = Affine::row_major(&bl.shape);
            write.offset = b_offset;
            e.write_shared(&widened, &bl, &write, class, total)?;
            let at =
                Affine { coeffs: if rank == 3 { vec![k * n, 0, 1] } else { vec![0, 1] }, offset: b_offset };
            FmaOperand::at(e, &cl, smem, at, n)
        }
    };
    if staged {
        e.barrier();
    }
    let c_regs = e.get(c_v)?;
    let acc: Vec<Reg> = c_regs
        .iter()
        .map(|&c| {
            let r = e.reg(class);
            e.ins(format!("mov.{} {r}, {c}", if integer { "b32" } else { "f32" }));
            r
        })
        .collect();
    // Steps of `unroll` k at once, so that an operand read along K (a row-major A ring) loads
    // 16-byte vectors.
    let unroll = if k % 4 == 0 { 4 } else { 1 };
    let groups = k / unroll;
    let straight = groups <= MAX_STRAIGHT_GROUPS && cl.reg_coords.len() <= MAX_STRAIGHT_ACCUMULATORS;
    let k_loop = (!straight).then(|| CountedLoop::open(e, "dot_k", groups, 1));
    // Straight: every group, each at its constant offset; else the loop's one body, at its
    // induction variable.
    let bodies = if straight { groups } else { 1 };
    for group in 0..bodies {
        let at = match &k_loop {
            Some(lp) => GroupAt::Register(lp.iv),
            None => GroupAt::Constant(group),
        };
        let a_vals = a.load_steps(e, &cl, class, at, unroll);
        let b_vals = b.load_steps(e, &cl, class, at, unroll);
        for j in 0..unroll {
            for (i, c) in cl.reg_coords.iter().enumerate() {
                let av = a_vals[&a.offset(c, j)];
                let bv = b_vals[&b.offset(c, j)];
                if integer {
                    e.ins(format!("mad.lo.s32 {}, {av}, {bv}, {}", acc[i], acc[i]));
                } else {
                    e.ins(format!("fma.rn.f32 {}, {av}, {bv}, {}", acc[i], acc[i]));
                }
            }
        }
    }
    if let Some(k_loop) = k_loop {
        k_loop.close(e);
    }
    e.set(result, acc);
    Ok(())
}

/// One operand of an FMA dot in shared memory (see [`fma_dot`]).
struct FmaOperand {
    /// Byte address of the thread's element at k = 0 (the base plus its coordinates' part).
    ptr: Reg,
    /// Element offset from `ptr` of the operand element each result register multiplies.
    at: Affine,
    /// Elements one k step moves.
    k_step: i64,
    /// The alignment of `ptr`, in bytes.
    align: i64,
}

impl FmaOperand {
    fn at(e: &mut Emitter, cl: &LayoutInfo, base: Reg, at: Affine, k_step: i64) -> FmaOperand {
        let thread = e.affine_base(cl, &at);
        let ptr = e.reg(Class::B32);
        e.ins(format!("mad.lo.s32 {ptr}, {thread}, 4, {base}"));
        let align = base_alignment(cl, &at, 4);
        FmaOperand { ptr, at, k_step, align }
    }

    /// Byte offset, from the base of a group of steps, of the element result coordinate `c`
    /// multiplies in step `j` of the group.
    fn offset(&self, c: &[u32], j: i64) -> i64 {
        (self.at.eval(c) + j * self.k_step) * 4
    }

    /// The thread's distinct operand values of the `unroll` steps of group `group`, by
    /// [`FmaOperand::offset`], in as few vector loads as they allow.
    fn load_steps(
        &self,
        e: &mut Emitter,
        cl: &LayoutInfo,
        class: Class,
        group: GroupAt,
        unroll: i64,
    ) -> HashMap<i64, Reg> {
        let group_bytes = self.k_step * 4 * unroll;
        let (base, shift) = match group {
            GroupAt::Register(group) => {
                let base = e.reg(Class::B32);
                e.ins(format!("mad.lo.s32 {base}, {group}, {group_bytes}, {}", self.ptr));
                (base, 0)
            }
            GroupAt::Constant(group) => (self.ptr, group * group_bytes),
        };
        let offsets: Vec<i64> =
            (0..unroll).flat_map(|j| cl.reg_coords.iter().map(move |c| self.offset(c, j))).collect();
        let align = gcd(self.align, group_bytes);
        let mut values = HashMap::new();
        for (off, width) in vector_runs(&offsets, 4, align) {
            for (j, r) in e.ld_shared_vec(class, base, off + shift, width).into_iter().enumerate() {
                values.insert(off + 4 * j as i64, r);
            }
        }
        values
    }
}

/// Which group of K steps an FMA dot loads: the loop's induction variable, or a constant.
#[derive(Clone, Copy)]
enum GroupAt {
    Register(Reg),
    Constant(i64),
}

/// `tt.dot` on tensor cores; the result (and accumulator) has the MMA v2 layout.
///
/// Shared staging ([`Staging`]): A is stored row-major `[m][k + pad]`, B row-major
/// `[k][n + pad]` right after it, with `pad` = 16 bytes of elements. The padding keeps every row
/// 16-byte aligned (what `ldmatrix` and the vector stores of [`Emitter::write_shared`] need) and
/// shifts consecutive rows by 4 banks, so the 8 row addresses of one `ldmatrix` 8x8 matrix (16
/// bytes each) cover all 32 banks once: conflict-free for any K and N that are multiples of 8
/// (f16) or 4 (f32) elements, which the accelerate-matmul pass guarantees (K % 16 or K % 8,
/// N % 8 wn).
///
/// Fragments (PTX ISA, "Matrix fragments for mma.m16n8k16 / m16n8k8"; `g = lane / 4`,
/// `t = lane % 4`). m16n8k16 A (16x16, 4 words of two halves): word 0 = A[g][2t..2t+1],
/// word 1 = A[g+8][2t..], word 2 = A[g][2t+8..], word 3 = A[g+8][2t+8..]; B (16x8, 2 words):
/// word 0 = B[2t..2t+1][g], word 1 = B[2t+8..2t+9][g]. m16n8k8 tf32 A: A[g][t], A[g+8][t],
/// A[g][t+4], A[g+8][t+4]; B: B[t][g], B[t+4][g]. Accumulators: c0, c1 = C[g][2t..2t+1],
/// c2, c3 = C[g+8][2t..], which are registers `4 j .. 4 j + 3` of the MMA layout for tile `j`
/// (see [`Mma`]).
///
/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16` loads four 8x8 b16 matrices; lanes `8i .. 8i+7`
/// give the addresses of the 8 rows of matrix `i` (16 contiguous bytes each), and destination
/// word `i` of lane `l` receives row `l / 4`, bytes `4 (l % 4) .. 4 (l % 4) + 3` of matrix `i`:
/// "row g, halves 2t and 2t+1". So A's four words are the matrices (rows 0-7, k 0-7), (rows
/// 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15): lane `l` points at row `l % 16`,
/// column `8 (l / 16)`. For tf32 a 16-byte row holds 4 floats and lane `l` receives float `t` of
/// row `g`, i.e. A[g][t]: the same lane addressing (column `4 (l / 16)` floats) yields m16n8k8's
/// A words.
///
/// With `.trans`, word `i` of lane `l` instead holds elements `[2t][g]` and `[2t+1][g]` of
/// matrix `i` as stored: for B stored `[k][n]` that is B[2t..2t+1][g], m16n8k16's B word for one
/// 8-row K half. One `x4.trans` covers two N tiles of the warp: matrices (k 0-7, tile j), (k
/// 8-15, tile j), (k 0-7, tile j+1), (k 8-15, tile j+1); lane `l` points at k row `l % 16` in
/// the columns of tile `j + l / 16`. tf32 B cannot use `.trans` (it would transpose 16-bit
/// halves), so it keeps two scalar `ld.shared.b32` per N tile.
///
/// A B operand read in place from a column-major ring (`ttg.local_alloc {column_major}`, for a
/// tile loaded with K contiguous, such as attention's `K^T`) is stored `[n][k + pad]`: B's
/// fragment words are then rows of that storage, so plain `ldmatrix` (no `.trans`) loads them,
/// with lane `l` at n row `8 wn_idx + 8 wn (l / 16) + l % 8`, k column `8 ((l / 8) % 2)`.
///
/// The K steps run as a loop (ptxas keeps the fragments of one step live, 4 per M tile and 2 per
/// N tile, next to the accumulators). Fully unrolling the steps was tried: ptxas 13.5 then falls
/// into a 32-register, 8 KB-spill allocation on the persistent 128x256x64 kernel.
/// The test `mma_fragments_multiply` replays this whole lane mapping on the CPU.
fn mma_dot(e: &mut Emitter, op: Op, mma: &Mma) -> EResult<()> {
    let data = e.func.body.op(op);
    let (a_v, b_v, c_v) = (data.operands[0], data.operands[1], data.operands[2]);
    let result = data.results[0];
    let in_type = e.ty(a_v).dtype();
    let (al, bl) = (e.layout(a_v)?, e.layout(b_v)?);
    let (class, bytes, instr) = match in_type {
        DType::F16 => (Class::B16, 2i64, "m16n8k16.row.col.f32.f16.f16.f32"),
        DType::BF16 => (Class::B16, 2, "m16n8k16.row.col.f32.bf16.bf16.f32"),
        DType::F32 => (Class::F32, 4, "m16n8k8.row.col.f32.tf32.tf32.f32"),
        other => return e.unsupported(&format!("tensor-core dots on {other}")),
    };
    let [wm, wn] = mma.warps_per_cta;
    // Operands already staged in a shared ring (`ttg.local_load`) are read in place; the others
    // are staged here, A at the start of scratch and B after it.
    let (a_in_shared, b_in_shared) = (e.in_shared.get(&a_v).copied(), e.in_shared.get(&b_v).copied());
    let b_column_major = b_in_shared.is_some_and(|tile| tile.column_major);
    let st = Staging::new([al.shape[0], al.shape[1], bl.shape[1]], [wm, wn], bytes, b_column_major);
    let tf32 = st.tf32();
    if a_in_shared.is_some_and(|tile| tile.column_major) {
        return e.invalid("a column-major ring can only hold a dot's B operand");
    }
    for (staged, stride) in [(a_in_shared, st.sa()), (b_in_shared, st.sb())] {
        if staged.is_some_and(|tile| tf32 || tile.row_stride != stride) {
            return e.invalid("a dot operand in shared memory must be a 16-bit tile staged with padded rows");
        }
    }
    if a_in_shared.is_none() || b_in_shared.is_none() {
        let total = (st.a_elems() + st.b_elems()) as u64;
        e.barrier();
        if a_in_shared.is_none() {
            let a_regs = e.get(a_v)?;
            let a_regs = if tf32 { widen_operand(e, &a_regs, in_type, true)? } else { a_regs };
            e.write_shared(&a_regs, &al, &Affine { coeffs: vec![st.sa(), 1], offset: 0 }, class, total)?;
        }
        if b_in_shared.is_none() {
            let b_regs = e.get(b_v)?;
            let b_regs = if tf32 { widen_operand(e, &b_regs, in_type, true)? } else { b_regs };
            let place = Affine { coeffs: vec![st.sb(), 1], offset: st.a_elems() };
            e.write_shared(&b_regs, &bl, &place, class, total)?;
        }
        e.barrier();
    }

    // Per-lane byte addresses of this lane's fragment rows for K step 0 and tile 0: the PTX
    // transcription of `Staging::a_lane` and `Staging::b_lane`; every other tile and K step is
    // a constant offset from these (`Staging::a_tile`, `Staging::b_tile`).
    let scratch = e.smem_base();
    let a_start = a_in_shared.map_or(scratch, |tile| tile.addr);
    let b_start = match b_in_shared {
        Some(tile) => tile.addr,
        None => {
            let r = e.reg(Class::B32);
            e.ins(format!("add.s32 {r}, {scratch}, {}", st.a_elems() * bytes));
            r
        }
    };
    let lane = e.lane;
    let (wn_idx, wm_idx) = (e.reg(Class::B32), e.reg(Class::B32));
    e.ins(format!("rem.u32 {wn_idx}, {}, {wn}", e.warp));
    e.ins(format!("div.u32 {wm_idx}, {}, {wn}", e.warp));
    let (row16, half) = (e.reg(Class::B32), e.reg(Class::B32));
    e.ins(format!("and.b32 {row16}, {lane}, 15"));
    e.ins(format!("shr.u32 {half}, {lane}, 4"));
    // A: row 16 wm_idx + l % 16, column (16 bytes of elements) * (l / 16).
    let a_ptr = e.reg(Class::B32);
    e.ins(format!("mad.lo.s32 {a_ptr}, {wm_idx}, 16, {row16}"));
    e.ins(format!("mul.lo.s32 {a_ptr}, {a_ptr}, {}", st.sa() * bytes));
    e.ins(format!("mad.lo.s32 {a_ptr}, {half}, 16, {a_ptr}"));
    e.ins(format!("add.s32 {a_ptr}, {a_ptr}, {a_start}"));
    let b_ptr = e.reg(Class::B32);
    if tf32 {
        // B[t][8 wn_idx + g] for the scalar loads: k row t = l % 4, column g = l / 4.
        let (g, t) = (e.reg(Class::B32), e.reg(Class::B32));
        e.ins(format!("shr.u32 {g}, {lane}, 2"));
        e.ins(format!("and.b32 {t}, {lane}, 3"));
        e.ins(format!("mad.lo.s32 {g}, {wn_idx}, 8, {g}"));
        e.ins(format!("mad.lo.s32 {b_ptr}, {t}, {}, {g}", st.sb()));
    } else if b_column_major {
        // B^T: n row 8 wn_idx + 8 wn (l / 16) + l % 8, k column 8 ((l / 8) % 2).
        let (row, col) = (e.reg(Class::B32), e.reg(Class::B32));
        e.ins(format!("and.b32 {row}, {lane}, 7"));
        e.ins(format!("mad.lo.s32 {row}, {half}, {}, {row}", 8 * st.wn));
        e.ins(format!("mad.lo.s32 {row}, {wn_idx}, 8, {row}"));
        e.ins(format!("shr.u32 {col}, {lane}, 3"));
        e.ins(format!("and.b32 {col}, {col}, 1"));
        e.ins(format!("mul.lo.s32 {col}, {col}, {}", st.row16()));
        e.ins(format!("mad.lo.s32 {b_ptr}, {row}, {}, {col}", st.sb()));
    } else {
        // B: k row l % 16, column 8 wn_idx + 8 wn (l / 16) (the warp's next N tile).
        let col = e.reg(Class::B32);
        e.ins(format!("mul.lo.s32 {col}, {half}, {}", 8 * st.wn));
        e.ins(format!("mad.lo.s32 {col}, {wn_idx}, 8, {col}"));
        e.ins(format!("mad.lo.s32 {b_ptr}, {row16}, {}, {col}", st.sb()));
    }
    e.ins(format!("mad.lo.s32 {b_ptr}, {b_ptr}, {bytes}, {b_start}"));

    let c_regs = e.get(c_v)?;
    let acc: Vec<Reg> = c_regs
        .iter()
        .map(|&c| {
            let r = e.reg(Class::F32);
            e.ins(format!("mov.f32 {r}, {c}"));
            r
        })
        .collect();
    let k_loop = CountedLoop::open(e, "mma_k", st.k, st.k_step());
    let kreg = k_loop.iv;
    // K moves A by one element per k and B by one row (one element when B is column-major).
    let (a_k, b_k) = (e.reg(Class::B32), e.reg(Class::B32));
    e.ins(format!("mad.lo.s32 {a_k}, {kreg}, {bytes}, {a_ptr}"));
    e.ins(format!("mad.lo.s32 {b_k}, {kreg}, {}, {b_ptr}", st.b_k_stride() * bytes));
    let a_frags: Vec<Vec<Reg>> =
        (0..st.mt_count()).map(|mt| ldmatrix(e, "", 4, a_k, st.a_tile(mt, 0) * bytes)).collect();
    let mut b_frags: Vec<Vec<Reg>> = Vec::new();
    if tf32 {
        for nt in 0..st.nt_count() {
            let off = st.b_tile(nt, 0) * bytes;
            let words = [0, 4 * st.sb() * bytes]
                .iter()
                .map(|&r| {
                    let x = e.reg(Class::B32);
                    e.ins(format!("ld.shared.b32 {x}, [{b_k}+{}]", off + r));
                    x
                })
                .collect();
            b_frags.push(words);
        }
    } else {
        for nt in (0..st.nt_count()).step_by(2) {
            // An odd last tile takes `.x2`: lanes 0-15 address tile nt's two K halves, and the
            // addresses of lanes 16-31 are ignored.
            let count = if nt + 1 < st.nt_count() { 4 } else { 2 };
            let trans = if b_column_major { "" } else { ".trans" };
            let words = ldmatrix(e, trans, count, b_k, st.b_tile(nt, 0) * bytes);
            b_frags.extend(words.chunks(2).map(|w| w.to_vec()));
        }
    }
    for (mt, a) in a_frags.iter().enumerate() {
        for (nt, b) in b_frags.iter().enumerate() {
            let r0 = st.acc_register(mt as i64, nt as i64);
            let (c0, c1, c2, c3) = (acc[r0], acc[r0 + 1], acc[r0 + 2], acc[r0 + 3]);
            e.ins(format!(
                "mma.sync.aligned.{instr} {{{c0}, {c1}, {c2}, {c3}}}, {{{}, {}, {}, {}}}, {{{}, {}}}, {{{c0}, {c1}, {c2}, {c3}}}",
                a[0], a[1], a[2], a[3], b[0], b[1]
            ));
        }
    }
    k_loop.close(e);
    e.set(result, acc);
    Ok(())
}

/// The geometry of a tensor-core dot: shapes, warps, the padded shared staging and where each
/// warp's fragments sit in it. Offsets are in elements; the emitter multiplies by `bytes`.
struct Staging {
    m: i64,
    k: i64,
    n: i64,
    wm: i64,
    wn: i64,
    /// Bytes per element: 2 (f16 / bf16, m16n8k16) or 4 (tf32, m16n8k8).
    bytes: i64,
    /// B is stored `[n][k + pad]` (a column-major ring) instead of `[k][n + pad]`.
    b_column_major: bool,
}

impl Staging {
    fn new([m, k, n]: [u32; 3], [wm, wn]: [u32; 2], bytes: i64, b_column_major: bool) -> Staging {
        Staging { m: m as i64, k: k as i64, n: n as i64, wm: wm as i64, wn: wn as i64, bytes, b_column_major }
    }

    fn tf32(&self) -> bool {
        self.bytes == 4
    }

    /// K per instruction: 16 halves or 8 tf32 values, i.e. 32 bytes either way.
    fn k_step(&self) -> i64 {
        32 / self.bytes
    }

    /// Elements per 16-byte row piece: the padding, and one `ldmatrix` row.
    fn row16(&self) -> i64 {
        16 / self.bytes
    }

    /// Row strides of A and B in shared memory, padded by 16 bytes.
    fn sa(&self) -> i64 {
        self.k + self.row16()
    }

    fn sb(&self) -> i64 {
        if self.b_column_major {
            self.k + self.row16()
        } else {
            self.n + self.row16()
        }
    }

    /// B's size in elements.
    fn b_elems(&self) -> i64 {
        (if self.b_column_major { self.n } else { self.k }) * self.sb()
    }

    /// How far one k moves B's addresses, in elements.
    fn b_k_stride(&self) -> i64 {
        if self.b_column_major {
            1
        } else {
            self.sb()
        }
    }

    /// Where B starts (A's size).
    fn a_elems(&self) -> i64 {
        self.m * self.sa()
    }

    /// M tiles (16 rows) and N tiles (8 columns) per warp.
    fn mt_count(&self) -> i64 {
        self.m / (16 * self.wm)
    }

    fn nt_count(&self) -> i64 {
        self.n / (8 * self.wn)
    }

    /// The row address `lane` gives to A's `ldmatrix.x4` for M tile 0, K step 0: row
    /// `16 wm_idx + l % 16`, column `row16 * (l / 16)`.
    #[cfg(test)]
    fn a_lane(&self, lane: i64, wm_idx: i64) -> i64 {
        (16 * wm_idx + lane % 16) * self.sa() + self.row16() * (lane / 16)
    }

    /// For f16 / bf16: the row address `lane` gives to B's `ldmatrix.x4.trans` for N tiles 0 and
    /// 1, K step 0: k row `l % 16`, column `8 wn_idx + 8 wn (l / 16)`. For tf32: the address of
    /// B[t][8 wn_idx + g] (the first scalar load).
    #[cfg(test)]
    fn b_lane(&self, lane: i64, wn_idx: i64) -> i64 {
        let (row, col) = if self.b_column_major {
            (8 * wn_idx + 8 * self.wn * (lane / 16) + lane % 8, self.row16() * ((lane / 8) % 2))
        } else if self.tf32() {
            (lane % 4, 8 * wn_idx + lane / 4)
        } else {
            (lane % 16, 8 * wn_idx + 8 * self.wn * (lane / 16))
        };
        self.a_elems() + row * self.sb() + col
    }

    /// The offset of M tile `mt` at K step `step` from the lane's A address.
    fn a_tile(&self, mt: i64, step: i64) -> i64 {
        mt * 16 * self.wm * self.sa() + step * self.k_step()
    }

    /// The offset of N tile `nt` at K step `step` from the lane's B address.
    fn b_tile(&self, nt: i64, step: i64) -> i64 {
        if self.b_column_major {
            nt * 8 * self.wn * self.sb() + step * self.k_step()
        } else {
            nt * 8 * self.wn + step * self.k_step() * self.sb()
        }
    }

    /// The MMA-layout register holding accumulator c0 of tile (mt, nt); c1..c3 follow. Register
    /// bits ([`Mma`]): column, row + 8, then the N repetitions, then the M repetitions.
    fn acc_register(&self, mt: i64, nt: i64) -> usize {
        ((nt << 2) | (mt << (2 + self.nt_count().trailing_zeros()))) as usize
    }
}

/// `ldmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16` from `[ptr + offset]` (each lane
/// supplies its own row address): `count` 32-bit words.
fn ldmatrix(e: &mut Emitter, trans: &str, count: usize, ptr: Reg, offset: i64) -> Vec<Reg> {
    let words: Vec<Reg> = (0..count).map(|_| e.reg(Class::B32)).collect();
    let list = words.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ");
    e.ins(format!("ldmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16 {{{list}}}, [{ptr}+{offset}]"));
    words
}

#[cfg(test)]
mod tests {
    //! Proves the tensor-core indexing without a GPU: stages A and B as [`mma_dot`] does, replays
    //! `ldmatrix` (PTX ISA semantics) at the lane addresses of [`Staging`], feeds the words to
    //! the `mma.sync` fragment definitions, scatters the accumulators through the MMA layout's
    //! register order, and checks that the result is A @ B.

    use super::Staging;
    use trident_midend::layout::{InDim, Mma};

    /// The element offsets one lane's 32-bit word `word` of an 8x8 b16 matrix covers, given the
    /// 8 row addresses of that matrix (element offsets of 16-byte rows).
    fn ldmatrix_word(rows: &[i64], lane: i64, bytes: i64, trans: bool) -> Vec<i64> {
        let (g, t) = (lane / 4, lane % 4);
        if trans {
            // 16-bit elements [2t][g] and [2t + 1][g] of the matrix as stored.
            vec![rows[(2 * t) as usize] + g, rows[(2 * t + 1) as usize] + g]
        } else {
            // Row g, bytes 4t .. 4t + 3.
            (0..4 / bytes).map(|j| rows[g as usize] + 4 * t / bytes + j).collect()
        }
    }

    /// `ldmatrix.x{count}`: every lane's `count` words, as element offsets, from the per-lane
    /// row addresses (lanes 8i .. 8i+7 address matrix i).
    fn ldmatrix(addr: &[i64], count: usize, bytes: i64, trans: bool) -> Vec<Vec<Vec<i64>>> {
        (0..32)
            .map(|lane| {
                (0..count).map(|i| ldmatrix_word(&addr[8 * i..8 * i + 8], lane, bytes, trans)).collect()
            })
            .collect()
    }

    fn check(m: u32, k: u32, n: u32, num_warps: u32, bytes: i64) {
        check_with(m, k, n, Mma::choose_warps([m, n], num_warps), bytes, false);
    }

    fn check_with(m: u32, k: u32, n: u32, warps: [u32; 2], bytes: i64, b_column_major: bool) {
        let num_warps = warps[0] * warps[1];
        let mma = Mma::v2(warps);
        let st = Staging::new([m, k, n], warps, bytes, b_column_major);
        let (mi, ki, ni) = (m as usize, k as usize, n as usize);
        // Small integers: every product and sum is exact in f64.
        let a: Vec<f64> = (0..mi * ki).map(|i| ((i * 7 + 3) % 11) as f64 - 5.0).collect();
        let b: Vec<f64> = (0..ki * ni).map(|i| ((i * 5 + 1) % 13) as f64 - 6.0).collect();
        let mut smem = vec![f64::NAN; (st.a_elems() + st.b_elems()) as usize];
        for r in 0..mi {
            for c in 0..ki {
                smem[r * st.sa() as usize + c] = a[r * ki + c];
            }
        }
        for r in 0..ki {
            for c in 0..ni {
                let at = if b_column_major {
                    c as i64 * st.sb() + r as i64
                } else {
                    r as i64 * st.sb() + c as i64
                };
                smem[(st.a_elems() + at) as usize] = b[r * ni + c];
            }
        }
        let layout = mma.to_linear(&[m, n]).unwrap();
        let mut c_out = vec![f64::NAN; mi * ni];
        let (k_step, half) = (st.k_step(), st.k_step() / 2);
        let elems_per_word = (4 / bytes) as usize;
        for warp in 0..(warps[0] * warps[1]) as i64 {
            let (wm_idx, wn_idx) = (warp / st.wn, warp % st.wn);
            let regs = 4 * (st.mt_count() * st.nt_count()) as usize;
            let mut acc = vec![vec![0.0f64; regs]; 32];
            for step in 0..st.k / k_step {
                let a_words: Vec<Vec<Vec<Vec<i64>>>> = (0..st.mt_count())
                    .map(|mt| {
                        let addr: Vec<i64> =
                            (0..32).map(|l| st.a_lane(l, wm_idx) + st.a_tile(mt, step)).collect();
                        ldmatrix(&addr, 4, bytes, false)
                    })
                    .collect();
                // b_words[nt][lane] = two words (element offsets).
                let mut b_words: Vec<Vec<Vec<Vec<i64>>>> = Vec::new();
                if st.tf32() {
                    for nt in 0..st.nt_count() {
                        let lanes = (0..32)
                            .map(|l| {
                                let base = st.b_lane(l, wn_idx) + st.b_tile(nt, step);
                                vec![vec![base], vec![base + 4 * st.sb()]]
                            })
                            .collect();
                        b_words.push(lanes);
                    }
                } else {
                    for nt in (0..st.nt_count()).step_by(2) {
                        let count = if nt + 1 < st.nt_count() { 4 } else { 2 };
                        let addr: Vec<i64> =
                            (0..32).map(|l| st.b_lane(l, wn_idx) + st.b_tile(nt, step)).collect();
                        let words = ldmatrix(&addr, count, bytes, !b_column_major);
                        for pair in 0..count / 2 {
                            b_words.push(words.iter().map(|w| w[2 * pair..2 * pair + 2].to_vec()).collect());
                        }
                    }
                }
                for mt in 0..st.mt_count() {
                    for nt in 0..st.nt_count() {
                        // Rebuild the 16 x k_step A tile and k_step x 8 B tile from the lanes'
                        // words by the PTX fragment definitions, then multiply.
                        let mut at = vec![vec![f64::NAN; k_step as usize]; 16];
                        let mut bt = vec![vec![f64::NAN; 8]; k_step as usize];
                        for lane in 0..32usize {
                            let (g, t) = (lane / 4, lane % 4);
                            let aw = &a_words[mt as usize][lane];
                            let bw = &b_words[nt as usize][lane];
                            for (w, (row, col)) in
                                [(g, 0), (g + 8, 0), (g, half as usize), (g + 8, half as usize)]
                                    .iter()
                                    .enumerate()
                            {
                                for j in 0..elems_per_word {
                                    at[*row][col + elems_per_word * t + j] = smem[aw[w][j] as usize];
                                }
                            }
                            for (w, krow) in [0, half as usize].iter().enumerate() {
                                for j in 0..elems_per_word {
                                    bt[krow + elems_per_word * t + j][g] = smem[bw[w][j] as usize];
                                }
                            }
                        }
                        let r0 = st.acc_register(mt, nt);
                        for (lane, lane_acc) in acc.iter_mut().enumerate() {
                            let (g, t) = (lane / 4, lane % 4);
                            for (j, (row, col)) in
                                [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]
                                    .iter()
                                    .enumerate()
                            {
                                let dot: f64 = (0..k_step as usize).map(|x| at[*row][x] * bt[x][*col]).sum();
                                lane_acc[r0 + j] += dot;
                            }
                        }
                    }
                }
            }
            for (lane, regs) in acc.iter().enumerate() {
                for (reg, &v) in regs.iter().enumerate() {
                    let c = layout.apply(&[
                        (InDim::Register, reg as u32),
                        (InDim::Lane, lane as u32),
                        (InDim::Warp, warp as u32),
                        (InDim::Block, 0),
                    ]);
                    c_out[c[0] as usize * ni + c[1] as usize] = v;
                }
            }
        }
        for r in 0..mi {
            for c in 0..ni {
                let want: f64 = (0..ki).map(|x| a[r * ki + x] * b[x * ni + c]).sum();
                assert_eq!(
                    c_out[r * ni + c],
                    want,
                    "C[{r}][{c}] of {m}x{k}x{n}, {num_warps} warps, {bytes}-byte elements"
                );
            }
        }
    }

    #[test]
    fn mma_fragments_multiply() {
        // f16 / bf16 (m16n8k16): the perf tiles, small tiles, and one N tile per warp (`.x2`).
        check(128, 64, 256, 8, 2);
        check(128, 64, 128, 8, 2);
        check(32, 32, 32, 4, 2);
        check(64, 32, 64, 4, 2);
        check(16, 16, 8, 1, 2);
        check(16, 32, 32, 4, 2);
        // tf32 (m16n8k8).
        check(128, 32, 128, 8, 4);
        check(32, 32, 32, 4, 4);
        check(16, 8, 8, 1, 4);
        // B read in place from a column-major ring (attention's K^T), with the chained-dot
        // warps (all along M) and the split ones, and an odd last N tile (`.x2`).
        for (m, k, n, warps) in [
            (128u32, 128u32, 64u32, [8u32, 1u32]),
            (128, 64, 128, [4, 1]),
            (64, 64, 32, [4, 1]),
            (128, 64, 128, [2, 4]),
            (16, 16, 8, [1, 1]),
            (32, 32, 8, [2, 1]),
        ] {
            check_with(m, k, n, warps, 2, true);
        }
    }

    /// Shared staging rows are 16-byte aligned and their 8 `ldmatrix` row addresses hit 8
    /// distinct 16-byte bank groups (conflict-free), for the perf shapes.
    #[test]
    fn mma_staging_is_aligned_and_conflict_free() {
        for (m, k, n, bytes) in [(128u32, 64u32, 256u32, 2i64), (128, 64, 128, 2), (128, 32, 128, 4)] {
            let warps = Mma::choose_warps([m, n], 8);
            let st = Staging::new([m, k, n], warps, bytes, false);
            for (stride, base) in [(st.sa(), 0), (st.sb(), st.a_elems())] {
                assert_eq!((stride * bytes) % 16, 0);
                assert_eq!((base * bytes) % 16, 0);
                let groups: std::collections::HashSet<i64> =
                    (0..8).map(|r| (r * stride * bytes / 16) % 8).collect();
                assert_eq!(groups.len(), 8, "{m}x{k}x{n}: 8 rows of stride {stride} share banks");
            }
        }
    }
}
