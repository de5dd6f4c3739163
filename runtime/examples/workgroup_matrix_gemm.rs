//! What workgroup-scope cooperative matrices (`VK_NV_cooperative_matrix2`) give a GEMM, before
//! the spirv backend emits them: a hand-built SPIR-V kernel, `C (f32) = A B` over 4096^3 f16,
//! each program a `BM x BN` tile of C held in one workgroup-scope accumulator, its K loop loading
//! `BM x BK` of A and `BK x BN` of B straight from the storage buffers into workgroup-scope
//! matrices (the driver stages them through shared memory itself) for one
//! `OpCooperativeMatrixMulAddKHR` a step. It checks the result (A = 1/64 and B = 1 everywhere, so
//! every element of C is 64) and prints the time per launch and TFLOP/s, for those constant
//! operands and again for random ones.
//!
//!     cargo run --release -p trident-runtime \
//!         --example workgroup_matrix_gemm [BM BN BK THREADS GROUP_M VARIANT [BAND [EXIT]]]
//!
//! (defaults 128 256 64 256 8 0 BM 0; `GROUP_M` orders the programs as the Triton tutorial's
//! grouped order does.)
//! - `VARIANT`: 0 loads each step's A and B with `OpCooperativeMatrixLoadKHR` (a row stride over
//!   the buffer); 1 loads the next step's before the current product (the matrices live across
//!   the loop's back edge); 2 loads them as slices of tensor layouts
//!   (`OpCooperativeMatrixLoadTensorNV`, `SPV_NV_tensor_addressing`: what is outside the tensor
//!   reads as 0, which would give masked loads); from 3 on, `VARIANT - 1` steps a trip, all
//!   their loads first, then their products.
//! - `BAND` splits the accumulator into matrices of `BAND` rows, each with its own slice of A.
//! - `EXIT`: 0 stores the accumulator straight to C; 1 to 3 pass it through a workgroup stage of
//!   `TRIDENT_EXAMPLE_STAGE_ROWS` rows (default 32), a band at a time, every invocation then
//!   copying its share of the band to C, as a backend would read its registers: 1 stores the
//!   band's rows of the whole matrix through a tensor view's clip
//!   (`OpCooperativeMatrixStoreTensorNV`), 2 and 3 store the whole matrix (a tensor layout, a
//!   row stride; the matrix no taller than the stage); 4 declares the stage and touches one
//!   element of it, storing the accumulator straight to C (what the stage's presence costs); 5
//!   stores the whole matrix to a global scratch tile of the program and every invocation copies
//!   its share of it to C.
//!
//! Without an adapter that offers the matrices it says so and exits 0.
//!
//! H100, NVIDIA's Vulkan driver 580 (2026-11-27), TFLOP/s, every result checked. Variant 0:
//! 128x256x64 on 256 invocations 281 (grouped or not); 128x128x64 on 128 257; 128x256x32 186;
//! 128x128x64 on 256 179; 64x256x64 169; 256x128x64 115; 128x256x128 63; 256x256x32 9.3.
//! Variant 1: 31-98 at every shape tried. Variant 2 (tensor slices): 128x256x64 187; 128x256x32
//! 201; 128x128x64 on 256 187, on 128 128. Two steps a trip (variant 3): **128x256x64 301.7**,
//! 128x128x64 on 128 264, 128x256x32 197; three or four steps a trip: 46-64 at 64 of K, 70-203
//! at 32. The accumulator in bands of 64 rows: 233 (247 at two steps a trip); of 32 rows: 178
//! (180; tensor slices 187): it has to stay one matrix of the whole tile. The exit through a
//! stage (variant 3, 128x256x64): the clipped stores are right, but slow: stages of 32, 16, 8,
//! 4 and 2 rows 42, 54, 70, 108 and 67; the stage alone, unused, costs at 32 rows (33 KiB
//! beside the driver's own 8: 46.8) and little at 8 or 4 rows (285) or 1 (301): the
//! accumulator has to leave as a matrix stored to its destination: 302; through a global
//! scratch tile (`EXIT=5`, the whole matrix stored, then copied out element by element) 243.
//! Random operands instead of the constant ones (same session, 2026-11-27): variant 0 283.0 ->
//! 279.3, variant 3 299.0 -> 297.7, variant 2 186.4 -> 183.5: the data barely matters.
//! Invocations per tile (same session, variant 0 unless said): 256 accumulator elements an
//! invocation spill and crawl, 128x256x64 on 128 invocations 25.4 (variant 3: 24.1),
//! 128x256x32 on 128 27.8, 256x128x64 on 128 26.7, 128x128x64 on 64 24.4; 64x256x64 on 128
//! 159.1; against 128x256x64 on 256 282.2 (variant 3: 301.2). 128 elements an invocation is
//! the driver's shape: the backend narrows a GEMM's workgroup to it, never widens.
//! Beside it, the corpus' fp16 matmul through the backend's subgroup matrices ran at 194.7 and
//! Triton 3.6 on CUDA at 651-664 (so 0.45 of Triton at best here). Workgroup-scope matrices fed
//! from the backend's own staging in workgroup memory instead (the accumulator carried in them,
//! A and B staged as today) ran the corpus matmul at 174.4: the gain is in loading them from the
//! buffers, where the driver stages.
//!
//! Variables that change the kernel (2026-11-28, same driver; TFLOP/s with random operands,
//! variant 0 then variant 3, 128x256x64 on 256): `TRIDENT_EXAMPLE_PRIVATE_LOADS=1` (A and B loaded
//! without `NonPrivatePointer`) 281.2, 301.3; `TRIDENT_EXAMPLE_NON_WRITABLE=1` (A and B declared
//! `NonWritable`) 280.4, 300.6; both 280.6, 299.8; against 280.7, 299.1 without: the driver's
//! `LDG.E.128.STRONG.SM` stay. `TRIDENT_EXAMPLE_SAME_TILE=1` (every program reads the first
//! program's tiles, so nothing comes from past L2): 325.1, 341.6 (in a later command variant 3
//! ran 342.0 with the constant operands and 233.4 with the random ones: the clocks drop under
//! the tensor cores' load). The driver's loop (its SASS
//! through `scripts/vulkan_sass.py`) unrolls eight steps, each staging A and B from registers
//! into one buffer of workgroup memory with four barriers; that staging, not the products
//! (`cooperative_matrix_peak`: 635 TFLOP/s at this shape), bounds it.

mod common;

use common::{storage_buffer, S};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, BuiltIn, Capability, Decoration, StorageClass};
use trident_midend::ir::DType;
use trident_runtime::wgpu::WgpuDevice;
use trident_runtime::{Buffer, Grid};

/// Rows of the workgroup stage the accumulator leaves through (`EXIT` 1 to 4):
/// `TRIDENT_EXAMPLE_STAGE_ROWS`, else 32.
fn stage_rows() -> u32 {
    std::env::var("TRIDENT_EXAMPLE_STAGE_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(32)
}

/// Whether the variable `name` is set to 1 (the experiments of the module doc's last paragraph).
fn knob(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

/// One kernel of the example: the command line's numbers (see the module doc).
#[derive(Clone, Copy, Debug)]
struct Config {
    bm: u32,
    bn: u32,
    bk: u32,
    threads: u32,
    group: u32,
    variant: u32,
    band: u32,
    exit: u32,
}

impl Config {
    /// The configuration the command line gives (the defaults without arguments).
    fn from_args() -> Config {
        let usage = "the arguments are BM BN BK THREADS GROUP_M VARIANT [BAND [EXIT]], or none";
        let args = common::numbers_from_args(usage);
        let (band, exit) = match args.len() {
            0 => {
                return Config {
                    bm: 128,
                    bn: 256,
                    bk: 64,
                    threads: 256,
                    group: 8,
                    variant: 0,
                    band: 128,
                    exit: 0,
                }
            }
            6 => (args[0], 0),
            7 => (args[6], 0),
            8 => (args[6], args[7]),
            _ => panic!("{usage}"),
        };
        let [bm, bn, bk, threads, group, variant] = [0, 1, 2, 3, 4, 5].map(|i| args[i]);
        Config { bm, bn, bk, threads, group, variant, band, exit }
    }

    /// Whether the kernel declares a workgroup stage (`EXIT` 1 to 4).
    fn staged(self) -> bool {
        matches!(self.exit, 1..=4)
    }
}

/// The kernel's SPIR-V: bindings 0, 1, 2 are A and B (`uvec4` arrays, eight f16 an element; f16
/// arrays for tensor slices) and C (f32).
fn module(config: Config) -> Vec<u32> {
    let Config { bm, bn, bk, threads, group, variant, band, exit } = config;
    let staged = config.staged();
    let (prefetch, tensor) = (variant == 1, variant == 2);
    assert!(bm.is_multiple_of(band) && (band == bm || !prefetch), "bands divide BM, and not with variant 1");
    let bands = bm / band;
    let mut b = common::matrix_module(&["SPV_NV_cooperative_matrix2"]);
    if tensor || staged {
        b.capability(Capability::TensorAddressingNV);
        b.capability(Capability::CooperativeMatrixTensorAddressingNV);
        b.extension("SPV_NV_tensor_addressing");
    }
    let glsl = b.ext_inst_import("GLSL.std.450");
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::Vulkan);
    let u32t = b.type_int(32, 0);
    let f32t = b.type_float(32, None);
    let f16t = b.type_float(16, None);
    let uvec4 = b.type_vector(u32t, 4);
    let uvec3 = b.type_vector(u32t, 3);
    let c = |b: &mut Builder, v: u32| b.constant_bit32(u32t, v);
    let scope_wg = c(&mut b, spirv::Scope::Workgroup as u32);
    let (cbm, cbn, cbk) = (c(&mut b, bm), c(&mut b, bn), c(&mut b, bk));
    let cband = c(&mut b, band);
    let [a_ty, b_ty, c_ty] = common::gemm_matrix_types(&mut b, scope_wg, (band, bk, bn));
    // Buffers: A and B as uvec4 arrays, C as f32 array.
    // Tensor loads address f16 elements; strided ones eight at a time.
    let (operand, operand_stride) = if tensor { (f16t, 2) } else { (uvec4, 16) };
    let va = storage_buffer(&mut b, operand, operand_stride, 0);
    let vb = storage_buffer(&mut b, operand, operand_stride, 1);
    if knob("TRIDENT_EXAMPLE_NON_WRITABLE") {
        for v in [va, vb] {
            b.decorate(v, Decoration::NonWritable, []);
        }
    }
    let p_f16 = b.type_pointer(None, StorageClass::StorageBuffer, f16t);
    let vc = storage_buffer(&mut b, f32t, 4, 2);
    // `EXIT=5`: a global scratch buffer, a tile of f32 per program.
    let vs = storage_buffer(&mut b, f32t, 4, 3);
    let p_uvec4 = b.type_pointer(None, StorageClass::StorageBuffer, uvec4);
    let p_f32 = b.type_pointer(None, StorageClass::StorageBuffer, f32t);
    let wid = common::builtin_uvec3(&mut b, BuiltIn::WorkgroupId);
    // The exit through a workgroup stage of `stage_rows()` rows (`EXIT` 1 to 3): per band, the
    // rows of the accumulator the band holds are stored to the stage, then every invocation copies
    // its share of the stage to C (as a backend would read them into registers).
    let stage_stride = bn + 4;
    let (stage, p_stage_f32) = if staged {
        let len = c(&mut b, stage_rows() * stage_stride);
        let array = b.type_array(f32t, len);
        let p_array = b.type_pointer(None, StorageClass::Workgroup, array);
        let stage = b.variable(p_array, None, StorageClass::Workgroup, None);
        (stage, b.type_pointer(None, StorageClass::Workgroup, f32t))
    } else {
        (0, 0)
    };
    // The invocation's index, for the exits that copy to C invocation by invocation.
    let local_id = if exit != 0 { common::builtin_uvec3(&mut b, BuiltIn::LocalInvocationId) } else { 0 };
    let main = common::begin_main(&mut b);
    let p_fn_u = b.type_pointer(None, StorageClass::Function, u32t);
    let p_fn_c = b.type_pointer(None, StorageClass::Function, c_ty);
    let kvar = b.variable(p_fn_u, None, StorageClass::Function, None);
    let cvars: Vec<u32> =
        (0..bands).map(|_| b.variable(p_fn_c, None, StorageClass::Function, None)).collect();
    let p_fn_a = b.type_pointer(None, StorageClass::Function, a_ty);
    let p_fn_b = b.type_pointer(None, StorageClass::Function, b_ty);
    let avar = b.variable(p_fn_a, None, StorageClass::Function, None);
    let bvar = b.variable(p_fn_b, None, StorageClass::Function, None);
    let zero_f = b.constant_bit32(f32t, 0f32.to_bits());
    let czero = b.composite_construct(c_ty, None, [zero_f]).unwrap();
    for &cvar in &cvars {
        b.store(cvar, czero, None, []).unwrap();
    }
    let zero = c(&mut b, 0);
    b.store(kvar, zero, None, []).unwrap();
    let w = b.load(uvec3, None, wid, None, []).unwrap();
    let w0 = b.composite_extract(u32t, None, w, [0]).unwrap();
    // Triton's grouped order: GROUP rows of tiles, column by column.
    let tiles_n = c(&mut b, S / bn);
    let in_group = c(&mut b, group * (S / bn));
    let groupc = c(&mut b, group);
    let gid = b.u_div(u32t, None, w0, in_group).unwrap();
    let first_m = b.i_mul(u32t, None, gid, groupc).unwrap();
    let r = b.u_mod(u32t, None, w0, in_group).unwrap();
    let rm = b.u_mod(u32t, None, r, groupc).unwrap();
    let pid_m = b.i_add(u32t, None, first_m, rm).unwrap();
    let pid_n = b.u_div(u32t, None, r, groupc).unwrap();
    let _ = tiles_n;
    let row0 = b.i_mul(u32t, None, pid_m, cbm).unwrap();
    let col0 = b.i_mul(u32t, None, pid_n, cbn).unwrap();
    // Where the operands are read from: every program's own tiles, or (`TRIDENT_EXAMPLE_SAME_TILE`)
    // the first program's (the whole grid then reads 48 KiB a step, from L2).
    let (load_row0, load_col0) = if knob("TRIDENT_EXAMPLE_SAME_TILE") {
        let zero = c(&mut b, 0);
        (zero, zero)
    } else {
        (row0, col0)
    };
    let s_c = c(&mut b, S);
    let eight = c(&mut b, 8);
    let stride_vec = c(&mut b, S / 8);
    let row_major = c(&mut b, 0);
    let non_private = spirv::MemoryAccess::NON_PRIVATE_POINTER;
    // The operands' loads: `NonPrivatePointer` as the backend's, or private
    // (`TRIDENT_EXAMPLE_PRIVATE_LOADS`: A and B are only read).
    let operand_access =
        if knob("TRIDENT_EXAMPLE_PRIVATE_LOADS") { spirv::MemoryAccess::NONE } else { non_private };
    // Tensor layouts of A and B (S x S, row-major), elements outside them read as 0.
    let (layout_ty, a_layout, b_layout, a_zero, b_zero) = if tensor {
        let (two, constant_clamp) = (c(&mut b, 2), c(&mut b, 1));
        let layout_ty = b.type_tensor_layout_nv(two, constant_clamp);
        let one = c(&mut b, 1);
        let mut layouts = Vec::new();
        for _ in 0..2 {
            let layout = b.create_tensor_layout_nv(layout_ty, None).unwrap();
            let layout = b.tensor_layout_set_dimension_nv(layout_ty, None, layout, [s_c, s_c]).unwrap();
            layouts.push(b.tensor_layout_set_stride_nv(layout_ty, None, layout, [s_c, one]).unwrap());
        }
        let zero_h = b.constant_bit32(f16t, 0);
        let a_zero = b.composite_construct(a_ty, None, [zero_h]).unwrap();
        let b_zero = b.composite_construct(b_ty, None, [zero_h]).unwrap();
        (layout_ty, layouts[0], layouts[1], a_zero, b_zero)
    } else {
        (0, 0, 0, 0, 0)
    };
    let tiles = |b: &mut Builder, k: u32| {
        if tensor {
            let a_base = b.access_chain(p_f16, None, va, [zero, zero]).unwrap();
            let b_base = b.access_chain(p_f16, None, vb, [zero, zero]).unwrap();
            let none = spirv::TensorAddressingOperands::NONE;
            let mut am = Vec::new();
            for i in 0..bands {
                let first = c(b, i * band);
                let row = b.i_add(u32t, None, load_row0, first).unwrap();
                let a_slice =
                    b.tensor_layout_slice_nv(layout_ty, None, a_layout, [row, cband, k, cbk]).unwrap();
                am.push(
                    b.cooperative_matrix_load_tensor_nv(
                        a_ty,
                        None,
                        a_base,
                        a_zero,
                        a_slice,
                        operand_access,
                        none,
                        [],
                    )
                    .unwrap(),
                );
            }
            let b_slice =
                b.tensor_layout_slice_nv(layout_ty, None, b_layout, [k, cbk, load_col0, cbn]).unwrap();
            let bmat = b
                .cooperative_matrix_load_tensor_nv(
                    b_ty,
                    None,
                    b_base,
                    b_zero,
                    b_slice,
                    operand_access,
                    none,
                    [],
                )
                .unwrap();
            return (am, bmat);
        }
        // A's bands at (load_row0 + i * band, k): halves (load_row0 + i * band) * S + k; uvec4 index / 8.
        let mut am = Vec::new();
        for i in 0..bands {
            let first = c(b, i * band);
            let row = b.i_add(u32t, None, load_row0, first).unwrap();
            let a_row = b.i_mul(u32t, None, row, s_c).unwrap();
            let a_at = b.i_add(u32t, None, a_row, k).unwrap();
            let a_at = b.u_div(u32t, None, a_at, eight).unwrap();
            let a_ptr = b.access_chain(p_uvec4, None, va, [zero, a_at]).unwrap();
            am.push(
                b.cooperative_matrix_load_khr(
                    a_ty,
                    None,
                    a_ptr,
                    row_major,
                    Some(stride_vec),
                    Some(operand_access),
                    [],
                )
                .unwrap(),
            );
        }
        let b_row = b.i_mul(u32t, None, k, s_c).unwrap();
        let b_at = b.i_add(u32t, None, b_row, load_col0).unwrap();
        let b_at = b.u_div(u32t, None, b_at, eight).unwrap();
        let b_ptr = b.access_chain(p_uvec4, None, vb, [zero, b_at]).unwrap();
        let bmat = b
            .cooperative_matrix_load_khr(
                b_ty,
                None,
                b_ptr,
                row_major,
                Some(stride_vec),
                Some(operand_access),
                [],
            )
            .unwrap();
        (am, bmat)
    };
    if prefetch {
        let (a0, b0) = tiles(&mut b, zero);
        b.store(avar, a0[0], None, []).unwrap();
        b.store(bvar, b0, None, []).unwrap();
    }
    // A workgroup barrier that makes `memory`'s writes visible.
    let barrier = |b: &mut Builder, memory: spirv::MemorySemantics| {
        let workgroup = c(b, spirv::Scope::Workgroup as u32);
        let semantics = spirv::MemorySemantics::ACQUIRE_RELEASE
            | memory
            | spirv::MemorySemantics::MAKE_AVAILABLE
            | spirv::MemorySemantics::MAKE_VISIBLE;
        let semantics = c(b, semantics.bits());
        b.control_barrier(workgroup, workgroup, semantics).unwrap();
    };
    // Stores `value` to C at row `row0 + row` and column `col0 + col`.
    let store_to_c = |b: &mut Builder, row: u32, col: u32, value: u32| {
        let c_row = b.i_add(u32t, None, row0, row).unwrap();
        let c_at = b.i_mul(u32t, None, c_row, s_c).unwrap();
        let c_col = b.i_add(u32t, None, col0, col).unwrap();
        let c_at = b.i_add(u32t, None, c_at, c_col).unwrap();
        let c_ptr = b.access_chain(p_f32, None, vc, [zero, c_at]).unwrap();
        b.store(c_ptr, value, None, []).unwrap();
    };
    // After the loop.
    let finish = |mut b: Builder| -> Vec<u32> {
        let local = (exit != 0).then(|| {
            let v = b.load(uvec3, None, local_id, None, []).unwrap();
            b.composite_extract(u32t, None, v, [0]).unwrap()
        });
        if exit == 4 {
            // The stage declared and touched (one element through it), the accumulator stored
            // straight to C: what the stage's mere presence costs.
            let local = local.expect("the invocation's index");
            let p = b.access_chain(p_stage_f32, None, stage, [local]).unwrap();
            let one = b.constant_bit32(f32t, 1f32.to_bits());
            b.store(p, one, Some(non_private), []).unwrap();
        }
        if exit == 5 {
            // The whole matrix to the program's scratch tile, then every invocation copies its
            // share of it to C (as a backend would read its registers back).
            let tile = c(&mut b, bm * bn);
            let at = b.i_mul(u32t, None, w0, tile).unwrap();
            let scratch = b.access_chain(p_f32, None, vs, [zero, at]).unwrap();
            let acc = b.load(c_ty, None, cvars[0], None, []).unwrap();
            b.cooperative_matrix_store_khr(scratch, acc, row_major, Some(cbn), Some(non_private), [])
                .unwrap();
            barrier(&mut b, spirv::MemorySemantics::UNIFORM_MEMORY);
            let local = local.expect("the invocation's index");
            for t in 0..bm * bn / threads {
                let step = c(&mut b, t * threads);
                let e = b.i_add(u32t, None, local, step).unwrap();
                let from = b.i_add(u32t, None, at, e).unwrap();
                let p = b.access_chain(p_f32, None, vs, [zero, from]).unwrap();
                let value = b.load(f32t, None, p, Some(non_private), []).unwrap();
                let row = b.u_div(u32t, None, e, cbn).unwrap();
                let col = b.u_mod(u32t, None, e, cbn).unwrap();
                store_to_c(&mut b, row, col, value);
            }
        }
        if staged && exit != 4 {
            let (two, constant_clamp) = (c(&mut b, 2), c(&mut b, 1));
            let layout_ty = b.type_tensor_layout_nv(two, constant_clamp);
            let boolt = b.type_bool();
            let no = b.constant_false(boolt);
            let (p0, p1) = (c(&mut b, 0), c(&mut b, 1));
            let view_ty = b.type_tensor_view_nv(two, no, [p0, p1]);
            let (rows, stride, one) = (c(&mut b, stage_rows()), c(&mut b, stage_stride), c(&mut b, 1));
            let layout = b.create_tensor_layout_nv(layout_ty, None).unwrap();
            let layout = b.tensor_layout_set_dimension_nv(layout_ty, None, layout, [rows, cbn]).unwrap();
            let layout = b.tensor_layout_set_stride_nv(layout_ty, None, layout, [stride, one]).unwrap();
            let view = b.create_tensor_view_nv(view_ty, None).unwrap();
            let local = local.expect("the invocation's index");
            let stage0 = b.access_chain(p_stage_f32, None, stage, [zero]).unwrap();
            for (i, &cvar) in cvars.iter().enumerate() {
                let acc = b.load(c_ty, None, cvar, None, []).unwrap();
                for first in (0..band).step_by(stage_rows() as usize) {
                    barrier(&mut b, spirv::MemorySemantics::WORKGROUP_MEMORY);
                    let (offset, span) = (c(&mut b, first), c(&mut b, bn));
                    match exit {
                        1 => {
                            let clip = b
                                .tensor_view_set_clip_nv(view_ty, None, view, offset, rows, zero, span)
                                .unwrap();
                            b.cooperative_matrix_store_tensor_nv(
                                stage0,
                                acc,
                                layout,
                                non_private,
                                spirv::TensorAddressingOperands::TENSOR_VIEW,
                                [Operand::IdRef(clip)],
                            )
                            .unwrap();
                        }
                        2 => b
                            .cooperative_matrix_store_tensor_nv(
                                stage0,
                                acc,
                                layout,
                                non_private,
                                spirv::TensorAddressingOperands::NONE,
                                [],
                            )
                            .unwrap(),
                        _ => b
                            .cooperative_matrix_store_khr(
                                stage0,
                                acc,
                                row_major,
                                Some(stride),
                                Some(non_private),
                                [],
                            )
                            .unwrap(),
                    }
                    barrier(&mut b, spirv::MemorySemantics::WORKGROUP_MEMORY);
                    // Element e of the band, for e = local + t * threads.
                    for t in 0..stage_rows() * bn / threads {
                        let step = c(&mut b, t * threads);
                        let e = b.i_add(u32t, None, local, step).unwrap();
                        let row = b.u_div(u32t, None, e, cbn).unwrap();
                        let col = b.u_mod(u32t, None, e, cbn).unwrap();
                        let at = b.i_mul(u32t, None, row, stride).unwrap();
                        let at = b.i_add(u32t, None, at, col).unwrap();
                        let p = b.access_chain(p_stage_f32, None, stage, [at]).unwrap();
                        let v = b.load(f32t, None, p, Some(non_private), []).unwrap();
                        let c_first = c(&mut b, i as u32 * band + first);
                        let c_row = b.i_add(u32t, None, c_first, row).unwrap();
                        store_to_c(&mut b, c_row, col, v);
                    }
                }
            }
        } else if exit != 5 {
            for (i, &cvar) in cvars.iter().enumerate() {
                let acc = b.load(c_ty, None, cvar, None, []).unwrap();
                let first = b.constant_bit32(u32t, i as u32 * band);
                let row = b.i_add(u32t, None, row0, first).unwrap();
                let c_row = b.i_mul(u32t, None, row, s_c).unwrap();
                let c_at = b.i_add(u32t, None, c_row, col0).unwrap();
                let c_ptr = b.access_chain(p_f32, None, vc, [zero, c_at]).unwrap();
                b.cooperative_matrix_store_khr(c_ptr, acc, row_major, Some(s_c), Some(non_private), [])
                    .unwrap();
            }
        }
        b.ret().unwrap();
        b.end_function().unwrap();
        let interface = if exit != 0 { vec![wid, local_id] } else { vec![wid] };
        b.entry_point(spirv::ExecutionModel::GLCompute, main, "gemm", interface);
        b.execution_mode(main, spirv::ExecutionMode::LocalSize, [threads, 1, 1]);
        b.module().assemble()
    };
    let counted = common::CountedLoop::open(&mut b, kvar, s_c);
    let k = counted.value;
    if variant >= 3 {
        // `variant - 1` steps a trip: every step's loads, then the products.
        let steps = variant - 1;
        let mut loaded = Vec::new();
        for step in 0..steps {
            let offset = c(&mut b, step * bk);
            let at = b.i_add(u32t, None, k, offset).unwrap();
            loaded.push(tiles(&mut b, at));
        }
        for (i, &cvar) in cvars.iter().enumerate() {
            let mut acc = b.load(c_ty, None, cvar, None, []).unwrap();
            for (am, bmat) in &loaded {
                acc = b.cooperative_matrix_mul_add_khr(c_ty, None, am[i], *bmat, acc, None).unwrap();
            }
            b.store(cvar, acc, None, []).unwrap();
        }
        let step = c(&mut b, steps * bk);
        counted.close(&mut b, step);
        return finish(b);
    }
    let (am, bmat) = if prefetch {
        let am = b.load(a_ty, None, avar, None, []).unwrap();
        let bmat = b.load(b_ty, None, bvar, None, []).unwrap();
        let next = b.i_add(u32t, None, k, cbk).unwrap();
        let last = c(&mut b, S - bk);
        let next = b.ext_inst(u32t, None, glsl, 38, [Operand::IdRef(next), Operand::IdRef(last)]).unwrap();
        let (na, nb) = tiles(&mut b, next);
        b.store(avar, na[0], None, []).unwrap();
        b.store(bvar, nb, None, []).unwrap();
        (vec![am], bmat)
    } else {
        tiles(&mut b, k)
    };
    for (i, &cvar) in cvars.iter().enumerate() {
        let acc = b.load(c_ty, None, cvar, None, []).unwrap();
        let acc = b.cooperative_matrix_mul_add_khr(c_ty, None, am[i], bmat, acc, None).unwrap();
        b.store(cvar, acc, None, []).unwrap();
    }
    counted.close(&mut b, cbk);
    finish(b)
}

fn main() {
    let config = Config::from_args();
    let Config { bm, bn, bk, threads, group, variant, band, exit } = config;
    let device = match WgpuDevice::open(None) {
        Ok(Some(device)) if device.workgroup_matrices().is_some() => device,
        Ok(_) => {
            println!(
                "workgroup_matrix_gemm: no Vulkan adapter here opened with workgroup-scope matrices (it needs \
                 VK_NV_cooperative_matrix2, and TRIDENT_VULKAN_WORKGROUP_MATRICES not 0; see `trident devices`)"
            );
            return;
        }
        Err(error) => panic!("{error}"),
    };
    let words = module(config);
    let workgroup_memory = if config.staged() { stage_rows() * (bn + 4) * 4 } else { 0 };
    let artifact = common::artifact(words, "gemm", threads, 4, workgroup_memory);
    let n = (S * S) as usize;
    // The scratch of `EXIT=5` (one word elsewhere).
    let scratch = Buffer::zeros("scratch", DType::F32, if exit == 5 { n } else { 1 });
    let grid = Grid([(S / bm) * (S / bn), 1, 1]);
    let [(constant_ms, constant), (random_ms, random)] =
        common::gemm(&device, &artifact, grid, vec![scratch]);
    println!(
        "workgroup_matrix_gemm {bm}x{bn}x{bk} on {threads} invocations, group {group}, variant {variant}, \
         bands of {band} rows, exit {exit}: constant operands {constant_ms:.4} ms, {constant:.1} TFLOP/s; random \
         operands {random_ms:.4} ms, {random:.1} TFLOP/s"
    );
}
