//! What subgroup-scope cooperative matrices give a GEMM when the kernel stages its operands
//! itself, as a CUDA kernel before `cp.async` did: a hand-built SPIR-V kernel, `C (f32) = A B` over
//! 4096^3 f16, each program a `BM x BN` tile of C on `WM x WN` subgroups of 32, each subgroup a
//! `BM/WM x BN/WN` block of 16x16 accumulator matrices. Every `BK` step of K is copied from the
//! buffers into workgroup memory (`uvec4`s, rows padded by 16 bytes) and multiplied from there.
//! `DEPTH` 0: one stage, each step loaded, stored, multiplied, with two barriers. `DEPTH` d > 0:
//! two stages and d sets of registers, one barrier a step: step t is multiplied from its stage,
//! then step t + 1 (loaded d steps earlier) goes from its registers to the other stage and step
//! t + 1 + d is loaded into them (the loop unrolled d times, so the sets are named statically).
//!
//!     cargo run --release -p trident-runtime --example subgroup_matrix_gemm [BM BN BK WM WN [DEPTH]]
//!
//! (defaults 128 128 32 2 4 1.) It checks the result (A = 1/64 and B = 1 everywhere, so every
//! element of C is 64) and prints the time per launch and TFLOP/s, for those operands and for
//! random ones. Without an adapter that offers f16 cooperative matrices it says so and exits 0.
//!
//! H100, NVIDIA's Vulkan driver 580 (2026-11-28), TFLOP/s with random operands, `BM BN BK WM WN
//! DEPTH`: 128 128 16 2 2 at depth 1, 2, 4: 208.2, 241.8, 255.2; 128 256 16 2 4 at 2, 4: 221.1,
//! 238.0; 256 128 16 4 2 at 2, 4: 200.7, 232.4; 128 128 32 2 4 at 2: 209.9; 128 128 32 2 2 at 2:
//! 190.4; one stage (depth 0): 128 256 32 2 4 182.1, 128 128 64 2 2 172.4. The SASS has what a
//! CUDA kernel of this shape would (`LDSM`, `HMMA.16816.F32`, `LDG.E.128`, `STS.128`, a
//! bounds check per load from the device's robust buffer access); without asynchronous copies
//! every step's operands pass through registers, and within 48 KiB of workgroup memory only two
//! stages of small steps fit. The driver's own staging of workgroup-scope matrices
//! (`workgroup_matrix_gemm`) does better: 281-301.

mod common;

use common::{storage_buffer, S};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, BuiltIn, StorageClass};
use trident_runtime::wgpu::WgpuDevice;
use trident_runtime::Grid;
/// Programs a group of rows of tiles (Triton's grouped order).
const GROUP_M: u32 = 8;
/// f16 elements a row of a stage is padded by (16 bytes: a matrix load's eight rows of 16 bytes
/// then fall in different banks).
const PAD: u32 = 8;

/// The command line's numbers (see the module doc).
#[derive(Clone, Copy, Debug)]
struct Config {
    bm: u32,
    bn: u32,
    bk: u32,
    wm: u32,
    wn: u32,
    depth: u32,
}

impl Config {
    fn from_args() -> Config {
        let usage = "the arguments are BM BN BK WM WN [DEPTH], or none";
        let args = common::numbers_from_args(usage);
        let config = match args.len() {
            0 => Config { bm: 128, bn: 128, bk: 32, wm: 2, wn: 4, depth: 1 },
            5 | 6 => Config {
                bm: args[0],
                bn: args[1],
                bk: args[2],
                wm: args[3],
                wn: args[4],
                depth: args.get(5).copied().unwrap_or(1),
            },
            _ => panic!("{usage}"),
        };
        assert!((S / config.bk).is_multiple_of(config.depth.max(1)), "DEPTH divides the steps");
        assert!(config.bk.is_multiple_of(16), "BK is a multiple of 16");
        assert!(
            config.bm.is_multiple_of(16 * config.wm) && config.bn.is_multiple_of(16 * config.wn),
            "each subgroup's block is whole 16x16 matrices"
        );
        config
    }

    fn threads(self) -> u32 {
        self.wm * self.wn * 32
    }

    /// `uvec4`s a row of A's stage (BK halves and the pad) and of B's (BN and the pad).
    fn a_row(self) -> u32 {
        (self.bk + PAD) / 8
    }

    fn b_row(self) -> u32 {
        (self.bn + PAD) / 8
    }

    /// `uvec4`s of one stage: A's `BM` rows, then B's `BK`.
    fn stage_vectors(self) -> u32 {
        self.bm * self.a_row() + self.bk * self.b_row()
    }

    /// Stages of workgroup memory: two where steps are loaded ahead.
    fn stages(self) -> u32 {
        if self.depth == 0 {
            1
        } else {
            2
        }
    }

    fn workgroup_bytes(self) -> u32 {
        16 * self.stages() * self.stage_vectors()
    }
}

/// The kernel's SPIR-V: bindings 0 and 1 are A and B (`uvec4` arrays, eight f16 an element), 2 is
/// C (f32).
fn module(config: Config) -> Vec<u32> {
    let Config { bm, bn, bk, wm, wn, depth } = config;
    let stages = config.stages();
    let threads = config.threads();
    let (tm, tn) = (bm / wm / 16, bn / wn / 16);
    let mut b = common::matrix_module(&[]);
    let u32t = b.type_int(32, 0);
    let f32t = b.type_float(32, None);
    let uvec4 = b.type_vector(u32t, 4);
    let uvec3 = b.type_vector(u32t, 3);
    let c = |b: &mut Builder, v: u32| b.constant_bit32(u32t, v);
    let subgroup = c(&mut b, spirv::Scope::Subgroup as u32);
    let [a_ty, b_ty, c_ty] = common::gemm_matrix_types(&mut b, subgroup, (16, 16, 16));
    let va = storage_buffer(&mut b, uvec4, 16, 0);
    let vb = storage_buffer(&mut b, uvec4, 16, 1);
    let vc = storage_buffer(&mut b, f32t, 4, 2);
    let p_uvec4 = b.type_pointer(None, StorageClass::StorageBuffer, uvec4);
    let p_f32 = b.type_pointer(None, StorageClass::StorageBuffer, f32t);
    let stage_len = c(&mut b, stages * config.stage_vectors());
    let stage_array = b.type_array(uvec4, stage_len);
    let p_stage = b.type_pointer(None, StorageClass::Workgroup, stage_array);
    let stage = b.variable(p_stage, None, StorageClass::Workgroup, None);
    let p_stage_uvec4 = b.type_pointer(None, StorageClass::Workgroup, uvec4);
    let wid = common::builtin_uvec3(&mut b, BuiltIn::WorkgroupId);
    let lid = common::builtin_uvec3(&mut b, BuiltIn::LocalInvocationId);
    let main = common::begin_main(&mut b);
    let p_fn_u = b.type_pointer(None, StorageClass::Function, u32t);
    let p_fn_c = b.type_pointer(None, StorageClass::Function, c_ty);
    let p_fn_v = b.type_pointer(None, StorageClass::Function, uvec4);
    let step_var = b.variable(p_fn_u, None, StorageClass::Function, None);
    let accumulators: Vec<u32> =
        (0..tm * tn).map(|_| b.variable(p_fn_c, None, StorageClass::Function, None)).collect();
    // The `uvec4`s each invocation copies a step: A's, then B's.
    let (a_copies, b_copies) = (bm * bk / 8 / threads, bk * bn / 8 / threads);
    assert!(a_copies >= 1 && b_copies >= 1, "every invocation copies A and B");
    let sets = depth.max(1);
    let held: Vec<Vec<u32>> = (0..sets)
        .map(|_| {
            (0..a_copies + b_copies).map(|_| b.variable(p_fn_v, None, StorageClass::Function, None)).collect()
        })
        .collect();
    let zero = c(&mut b, 0);
    let zero_f = b.constant_bit32(f32t, 0f32.to_bits());
    let czero = b.composite_construct(c_ty, None, [zero_f]).unwrap();
    for &acc in &accumulators {
        b.store(acc, czero, None, []).unwrap();
    }
    let w = b.load(uvec3, None, wid, None, []).unwrap();
    let w0 = b.composite_extract(u32t, None, w, [0]).unwrap();
    let l = b.load(uvec3, None, lid, None, []).unwrap();
    let local = b.composite_extract(u32t, None, l, [0]).unwrap();
    // Triton's grouped order: GROUP_M rows of tiles, column by column.
    let in_group = c(&mut b, GROUP_M * (S / bn));
    let groupc = c(&mut b, GROUP_M);
    let gid = b.u_div(u32t, None, w0, in_group).unwrap();
    let first_m = b.i_mul(u32t, None, gid, groupc).unwrap();
    let r = b.u_mod(u32t, None, w0, in_group).unwrap();
    let rm = b.u_mod(u32t, None, r, groupc).unwrap();
    let pid_m = b.i_add(u32t, None, first_m, rm).unwrap();
    let pid_n = b.u_div(u32t, None, r, groupc).unwrap();
    let (cbm, cbn) = (c(&mut b, bm), c(&mut b, bn));
    let row0 = b.i_mul(u32t, None, pid_m, cbm).unwrap();
    let col0 = b.i_mul(u32t, None, pid_n, cbn).unwrap();
    let thirty_two = c(&mut b, 32);
    let warp = b.u_div(u32t, None, local, thirty_two).unwrap();
    let cwn = c(&mut b, wn);
    let warp_m = b.u_div(u32t, None, warp, cwn).unwrap();
    let warp_n = b.u_mod(u32t, None, warp, cwn).unwrap();
    let non_private = spirv::MemoryAccess::NON_PRIVATE_POINTER;
    let row_major = c(&mut b, 0);
    let s_vec = c(&mut b, S / 8);
    // Copy `i` of A (i < a_copies) or B: its `uvec4` of the buffer at step `k` (in halves) and
    // its place in a stage, relative to the stage's start.
    let copy_at = |b: &mut Builder, i: u32, k: u32| -> (u32, u32) {
        let (is_a, j) = if i < a_copies { (true, i) } else { (false, i - a_copies) };
        let first = c(b, j * threads);
        let v = b.i_add(u32t, None, local, first).unwrap();
        let per_row = c(b, if is_a { bk / 8 } else { bn / 8 });
        let row = b.u_div(u32t, None, v, per_row).unwrap();
        let col = b.u_mod(u32t, None, v, per_row).unwrap();
        let k_vec = {
            let eight = c(b, 8);
            b.u_div(u32t, None, k, eight).unwrap()
        };
        let global = if is_a {
            let r = b.i_add(u32t, None, row0, row).unwrap();
            let at = b.i_mul(u32t, None, r, s_vec).unwrap();
            let at = b.i_add(u32t, None, at, k_vec).unwrap();
            b.i_add(u32t, None, at, col).unwrap()
        } else {
            let r = b.i_add(u32t, None, k, row).unwrap();
            let at = b.i_mul(u32t, None, r, s_vec).unwrap();
            let eight = c(b, 8);
            let c0 = b.u_div(u32t, None, col0, eight).unwrap();
            let at = b.i_add(u32t, None, at, c0).unwrap();
            b.i_add(u32t, None, at, col).unwrap()
        };
        let stride = c(b, if is_a { config.a_row() } else { config.b_row() });
        let in_stage = b.i_mul(u32t, None, row, stride).unwrap();
        let in_stage = if is_a {
            in_stage
        } else {
            let a_part = c(b, bm * config.a_row());
            b.i_add(u32t, None, in_stage, a_part).unwrap()
        };
        let in_stage = b.i_add(u32t, None, in_stage, col).unwrap();
        (global, in_stage)
    };
    // Loads step `k`'s copies into the registers of set `set`.
    let fetch = |b: &mut Builder, k: u32, set: u32| {
        for (i, &var) in held[set as usize].iter().enumerate() {
            let (global, _) = copy_at(b, i as u32, k);
            let buffer = if (i as u32) < a_copies { va } else { vb };
            let p = b.access_chain(p_uvec4, None, buffer, [zero, global]).unwrap();
            let v = b.load(uvec4, None, p, None, []).unwrap();
            b.store(var, v, None, []).unwrap();
        }
    };
    // Stores the registers of set `set` to stage `s` (a u32 id).
    let deposit = |b: &mut Builder, s: u32, set: u32| {
        let per_stage = c(b, config.stage_vectors());
        let base = b.i_mul(u32t, None, s, per_stage).unwrap();
        for (i, &var) in held[set as usize].iter().enumerate() {
            let (_, in_stage) = copy_at(b, i as u32, zero);
            let at = b.i_add(u32t, None, base, in_stage).unwrap();
            let p = b.access_chain(p_stage_uvec4, None, stage, [at]).unwrap();
            let v = b.load(uvec4, None, var, None, []).unwrap();
            b.store(p, v, Some(non_private), []).unwrap();
        }
    };
    let barrier = |b: &mut Builder| {
        let workgroup = c(b, spirv::Scope::Workgroup as u32);
        let semantics = spirv::MemorySemantics::ACQUIRE_RELEASE
            | spirv::MemorySemantics::WORKGROUP_MEMORY
            | spirv::MemorySemantics::MAKE_AVAILABLE
            | spirv::MemorySemantics::MAKE_VISIBLE;
        let semantics = c(b, semantics.bits());
        b.control_barrier(workgroup, workgroup, semantics).unwrap();
    };
    // The products of stage `s`: each subgroup's block of accumulators, 16 of K at a time.
    let multiply = |b: &mut Builder, s: u32| {
        let per_stage = c(b, config.stage_vectors());
        let base = b.i_mul(u32t, None, s, per_stage).unwrap();
        let (a_row, b_row) = (c(b, config.a_row()), c(b, config.b_row()));
        let block_rows = c(b, bm / wm);
        let first_row = b.i_mul(u32t, None, warp_m, block_rows).unwrap();
        let block_cols = c(b, bn / wn / 8);
        let first_col = b.i_mul(u32t, None, warp_n, block_cols).unwrap();
        // A matrix of type `ty` whose first row starts at vector `at` of the stage, rows `stride`
        // vectors apart.
        let load_matrix = |b: &mut Builder, ty: u32, at: u32, stride: u32| {
            let at = b.i_add(u32t, None, at, base).unwrap();
            let p = b.access_chain(p_stage_uvec4, None, stage, [at]).unwrap();
            b.cooperative_matrix_load_khr(ty, None, p, row_major, Some(stride), Some(non_private), [])
                .unwrap()
        };
        for kk in 0..bk / 16 {
            let a_mats: Vec<u32> = (0..tm)
                .map(|i| {
                    let r = c(b, i * 16);
                    let row = b.i_add(u32t, None, first_row, r).unwrap();
                    let at = b.i_mul(u32t, None, row, a_row).unwrap();
                    let k_vec = c(b, kk * 2);
                    let at = b.i_add(u32t, None, at, k_vec).unwrap();
                    load_matrix(b, a_ty, at, a_row)
                })
                .collect();
            let b_mats: Vec<u32> = (0..tn)
                .map(|j| {
                    let k_row = c(b, bm * config.a_row() + kk * 16 * config.b_row());
                    let col = c(b, j * 2);
                    let col = b.i_add(u32t, None, first_col, col).unwrap();
                    let at = b.i_add(u32t, None, k_row, col).unwrap();
                    load_matrix(b, b_ty, at, b_row)
                })
                .collect();
            for i in 0..tm {
                for j in 0..tn {
                    let var = accumulators[(i * tn + j) as usize];
                    let acc = b.load(c_ty, None, var, None, []).unwrap();
                    let acc = b
                        .cooperative_matrix_mul_add_khr(
                            c_ty,
                            None,
                            a_mats[i as usize],
                            b_mats[j as usize],
                            acc,
                            None,
                        )
                        .unwrap();
                    b.store(var, acc, None, []).unwrap();
                }
            }
        }
    };
    let cbk = c(&mut b, bk);
    let csteps = c(&mut b, S / bk);
    let one = c(&mut b, 1);
    let two = c(&mut b, 2);
    let last = c(&mut b, S / bk - 1);
    let glsl = b.ext_inst_import("GLSL.std.450");
    // Loaded ahead: step 0 staged, steps 1 to d in their sets (set `step % d`).
    if depth > 0 {
        fetch(&mut b, zero, 0);
        deposit(&mut b, zero, 0);
        for step in 1..=depth {
            let k = c(&mut b, step * bk);
            fetch(&mut b, k, step % depth);
        }
        barrier(&mut b);
    }
    b.store(step_var, zero, None, []).unwrap();
    let counted = common::CountedLoop::open(&mut b, step_var, csteps);
    let t = counted.value;
    if depth > 0 {
        for u in 0..depth {
            // Step `t + u`: multiply its stage, move step `t + u + 1` from its set to the other
            // stage (read last in the step before, behind the previous barrier), load step
            // `t + u + 1 + d` into the set (clamped to the last step: loaded again, never used).
            let cu = c(&mut b, u);
            let tu = b.i_add(u32t, None, t, cu).unwrap();
            let s = b.u_mod(u32t, None, tu, two).unwrap();
            multiply(&mut b, s);
            let other = b.i_sub(u32t, None, one, s).unwrap();
            let set = (u + 1) % depth;
            deposit(&mut b, other, set);
            let ahead = c(&mut b, 1 + depth);
            let after = b.i_add(u32t, None, tu, ahead).unwrap();
            let after =
                b.ext_inst(u32t, None, glsl, 38, [Operand::IdRef(after), Operand::IdRef(last)]).unwrap();
            let k = b.i_mul(u32t, None, after, cbk).unwrap();
            fetch(&mut b, k, set);
            barrier(&mut b);
        }
    } else {
        let k = b.i_mul(u32t, None, t, cbk).unwrap();
        fetch(&mut b, k, 0);
        deposit(&mut b, zero, 0);
        barrier(&mut b);
        multiply(&mut b, zero);
        barrier(&mut b);
    }
    let advance = c(&mut b, depth.max(1));
    counted.close(&mut b, advance);
    let s_c = c(&mut b, S);
    let block_rows = c(&mut b, bm / wm);
    let block_cols = c(&mut b, bn / wn);
    let first_row = b.i_mul(u32t, None, warp_m, block_rows).unwrap();
    let first_row = b.i_add(u32t, None, row0, first_row).unwrap();
    let first_col = b.i_mul(u32t, None, warp_n, block_cols).unwrap();
    let first_col = b.i_add(u32t, None, col0, first_col).unwrap();
    for i in 0..tm {
        for j in 0..tn {
            let r = c(&mut b, i * 16);
            let row = b.i_add(u32t, None, first_row, r).unwrap();
            let at = b.i_mul(u32t, None, row, s_c).unwrap();
            let col = c(&mut b, j * 16);
            let col = b.i_add(u32t, None, first_col, col).unwrap();
            let at = b.i_add(u32t, None, at, col).unwrap();
            let p = b.access_chain(p_f32, None, vc, [zero, at]).unwrap();
            let acc = b.load(c_ty, None, accumulators[(i * tn + j) as usize], None, []).unwrap();
            b.cooperative_matrix_store_khr(p, acc, row_major, Some(s_c), Some(non_private), []).unwrap();
        }
    }
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "gemm", [wid, lid]);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, [threads, 1, 1]);
    b.module().assemble()
}

fn main() {
    let config = Config::from_args();
    let device = match WgpuDevice::open(None) {
        Ok(Some(device)) if device.cooperative_matrix_f16() => device,
        Ok(_) => {
            println!(
                "subgroup_matrix_gemm: no Vulkan adapter here with f16 cooperative matrices (see `trident devices`)"
            );
            return;
        }
        Err(error) => panic!("{error}"),
    };
    let limit = device.workgroup_memory_limit();
    if config.workgroup_bytes() > limit {
        println!(
            "subgroup_matrix_gemm {config:?}: its stages take {} bytes of workgroup memory, the device has {limit}",
            config.workgroup_bytes()
        );
        return;
    }
    let artifact = common::artifact(module(config), "gemm", config.threads(), 3, config.workgroup_bytes());
    let grid = Grid([(S / config.bm) * (S / config.bn), 1, 1]);
    let [(constant_ms, constant), (random_ms, random)] = common::gemm(&device, &artifact, grid, Vec::new());
    println!(
        "subgroup_matrix_gemm {config:?} ({} bytes of workgroup memory): constant operands {constant_ms:.4} ms, \
         {constant:.1} TFLOP/s; random operands {random_ms:.4} ms, {random:.1} TFLOP/s",
        config.workgroup_bytes(),
    );
}
