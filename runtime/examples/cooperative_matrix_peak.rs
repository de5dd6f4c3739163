//! The tensor-core ceiling a Vulkan driver gives cooperative matrices: a hand-built SPIR-V kernel
//! whose loop only multiplies matrices that stay in registers, no memory traffic but one load of
//! the operands before the loop and one store of the accumulators after it. A GEMM through the
//! same driver cannot run faster than this.
//!
//!     cargo run --release -p trident-runtime --example cooperative_matrix_peak \
//!         [subgroup TM TN WARPS | workgroup BM BN BK THREADS] [STEPS [PROGRAMS]]
//!
//! (defaults `subgroup 4 2 4`, 4096 steps, 2048 programs.)
//! - `subgroup TM TN WARPS`: subgroup-scope 16x16x16 f16 matrices (`VK_KHR_cooperative_matrix`),
//!   each subgroup holding `TM` A matrices, `TN` B matrices and the `TM x TN` f32 accumulators
//!   they give, `WARPS` subgroups of 32 a workgroup; a step is the `TM x TN` independent products.
//! - `workgroup BM BN BK THREADS`: one workgroup-scope product (`VK_NV_cooperative_matrix2`) of
//!   `BM x BK` by `BK x BN` into a `BM x BN` accumulator a step, on `THREADS` invocations.
//!
//! A and B hold 1/16 everywhere, so each element of an accumulator grows by `K / 256` a step; the
//! result is checked (exact in f32) and the time per launch printed with its TFLOP/s. Without an
//! adapter that offers the matrices it says so and exits 0.
//!
//! H100, NVIDIA's Vulkan driver 580 (2026-11-28), TFLOP/s: subgroup scope 4x2 on four warps
//! 653.6, on eight 652.7, 2x2 on four 642.1, 4x4 on four 653.9; workgroup scope 128x256x64 on
//! 256 invocations 634.7, 128x128x64 on 128 636.3, 128x256x32 on 256 653.2, 64x256x64 on 128
//! 537.7. CUDA's `mma.sync` on the same GPU (`scripts/gemm_probe/mma_sync_peak.cu`): 634-668.
//! So the driver's matrices multiply at the tensor cores' `mma.sync` rate; its GEMMs (281-301
//! TFLOP/s, `workgroup_matrix_gemm`) are bound by how their operands reach them.

mod common;

use common::storage_buffer;
use rspirv::binary::Assemble;
use rspirv::dr::Builder;
use rspirv::spirv::{self, BuiltIn, StorageClass};
use trident_midend::ir::DType;
use trident_runtime::wgpu::{BenchLimits, WgpuDevice};
use trident_runtime::{ArgValue, Buffer, Grid};

/// Which matrices a step multiplies (the command line's first words).
#[derive(Clone, Copy, Debug)]
enum Scope {
    /// `tm x tn` subgroup-scope 16x16x16 products a subgroup, `warps` subgroups a workgroup.
    Subgroup { tm: u32, tn: u32, warps: u32 },
    /// One workgroup-scope `bm x bn x bk` product on `threads` invocations.
    Workgroup { bm: u32, bn: u32, bk: u32, threads: u32 },
}

impl Scope {
    /// Invocations a workgroup.
    fn threads(self) -> u32 {
        match self {
            Scope::Subgroup { warps, .. } => warps * 32,
            Scope::Workgroup { threads, .. } => threads,
        }
    }

    /// (rows of A, K, columns of B) of one product, and products a step, for one workgroup.
    fn product(self) -> (u32, u32, u32, u32) {
        match self {
            Scope::Subgroup { tm, tn, warps } => (16, 16, 16, tm * tn * warps),
            Scope::Workgroup { bm, bn, bk, .. } => (bm, bk, bn, 1),
        }
    }

    /// f32 elements of the accumulators a workgroup stores.
    fn accumulator_elements(self) -> u32 {
        let (m, _, n, products) = self.product();
        m * n * products
    }
}

/// The command line: the scope, the steps of the loop and the programs launched.
fn from_args() -> (Scope, u32, u32) {
    let usage = "the arguments are [subgroup TM TN WARPS | workgroup BM BN BK THREADS] [STEPS [PROGRAMS]]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> Option<u32> {
        args.get(i).map(|a| a.parse().unwrap_or_else(|_| panic!("{a}: {usage}")))
    };
    let (scope, rest) = match args.first().map(String::as_str) {
        None => (Scope::Subgroup { tm: 4, tn: 2, warps: 4 }, 4),
        Some("subgroup") => {
            let [tm, tn, warps] = [1, 2, 3].map(|i| number(i).unwrap_or_else(|| panic!("{usage}")));
            (Scope::Subgroup { tm, tn, warps }, 4)
        }
        Some("workgroup") => {
            let [bm, bn, bk, threads] = [1, 2, 3, 4].map(|i| number(i).unwrap_or_else(|| panic!("{usage}")));
            (Scope::Workgroup { bm, bn, bk, threads }, 5)
        }
        Some(other) => panic!("{other}: {usage}"),
    };
    (scope, number(rest).unwrap_or(4096), number(rest + 1).unwrap_or(2048))
}

/// The kernel's SPIR-V: bindings 0 and 1 are A and B (f16; every matrix is loaded from their
/// start), 2 is C (f32, each workgroup's accumulators one after another).
fn module(scope: Scope, steps: u32) -> Vec<u32> {
    let workgroup_scope: &[&str] = match scope {
        Scope::Subgroup { .. } => &[],
        Scope::Workgroup { .. } => &["SPV_NV_cooperative_matrix2"],
    };
    let mut b = common::matrix_module(workgroup_scope);
    let u32t = b.type_int(32, 0);
    let f32t = b.type_float(32, None);
    let f16t = b.type_float(16, None);
    let uvec3 = b.type_vector(u32t, 3);
    let c = |b: &mut Builder, v: u32| b.constant_bit32(u32t, v);
    let (m, k, n, _) = scope.product();
    let matrix_scope = match scope {
        Scope::Subgroup { .. } => spirv::Scope::Subgroup,
        Scope::Workgroup { .. } => spirv::Scope::Workgroup,
    };
    let matrix_scope = c(&mut b, matrix_scope as u32);
    let (ck, cn) = (c(&mut b, k), c(&mut b, n));
    let [a_ty, b_ty, c_ty] = common::gemm_matrix_types(&mut b, matrix_scope, (m, k, n));
    let va = storage_buffer(&mut b, f16t, 2, 0);
    let vb = storage_buffer(&mut b, f16t, 2, 1);
    let vc = storage_buffer(&mut b, f32t, 4, 2);
    let p_f16 = b.type_pointer(None, StorageClass::StorageBuffer, f16t);
    let p_f32 = b.type_pointer(None, StorageClass::StorageBuffer, f32t);
    let wid = common::builtin_uvec3(&mut b, BuiltIn::WorkgroupId);
    let lid = common::builtin_uvec3(&mut b, BuiltIn::LocalInvocationId);
    let main = common::begin_main(&mut b);
    let (tm, tn) = match scope {
        Scope::Subgroup { tm, tn, .. } => (tm, tn),
        Scope::Workgroup { .. } => (1, 1),
    };
    let p_fn_u = b.type_pointer(None, StorageClass::Function, u32t);
    let p_fn_c = b.type_pointer(None, StorageClass::Function, c_ty);
    let step_var = b.variable(p_fn_u, None, StorageClass::Function, None);
    let accumulators: Vec<u32> =
        (0..tm * tn).map(|_| b.variable(p_fn_c, None, StorageClass::Function, None)).collect();
    let zero = c(&mut b, 0);
    let zero_f = b.constant_bit32(f32t, 0f32.to_bits());
    let czero = b.composite_construct(c_ty, None, [zero_f]).unwrap();
    for &acc in &accumulators {
        b.store(acc, czero, None, []).unwrap();
    }
    b.store(step_var, zero, None, []).unwrap();
    let non_private = spirv::MemoryAccess::NON_PRIVATE_POINTER;
    let row_major = c(&mut b, 0);
    // Every A and B matrix is the buffers' first elements (all 1/16), each a different load.
    let a_base = b.access_chain(p_f16, None, va, [zero, zero]).unwrap();
    let b_base = b.access_chain(p_f16, None, vb, [zero, zero]).unwrap();
    let a_mats: Vec<u32> = (0..tm)
        .map(|_| {
            b.cooperative_matrix_load_khr(a_ty, None, a_base, row_major, Some(ck), Some(non_private), [])
                .unwrap()
        })
        .collect();
    let b_mats: Vec<u32> = (0..tn)
        .map(|_| {
            b.cooperative_matrix_load_khr(b_ty, None, b_base, row_major, Some(cn), Some(non_private), [])
                .unwrap()
        })
        .collect();
    let csteps = c(&mut b, steps);
    let counted = common::CountedLoop::open(&mut b, step_var, csteps);
    for i in 0..tm {
        for j in 0..tn {
            let var = accumulators[(i * tn + j) as usize];
            let acc = b.load(c_ty, None, var, None, []).unwrap();
            let acc = b
                .cooperative_matrix_mul_add_khr(c_ty, None, a_mats[i as usize], b_mats[j as usize], acc, None)
                .unwrap();
            b.store(var, acc, None, []).unwrap();
        }
    }
    let one = c(&mut b, 1);
    counted.close(&mut b, one);
    // The workgroup's accumulators start at element `workgroup * per_workgroup`; a subgroup's
    // at `subgroup * tm * tn * 256` within them, each 16x16 matrix after the previous one.
    let w = b.load(uvec3, None, wid, None, []).unwrap();
    let w0 = b.composite_extract(u32t, None, w, [0]).unwrap();
    let per_workgroup = c(&mut b, scope.accumulator_elements());
    let first = b.i_mul(u32t, None, w0, per_workgroup).unwrap();
    let first = match scope {
        Scope::Subgroup { .. } => {
            let l = b.load(uvec3, None, lid, None, []).unwrap();
            let l0 = b.composite_extract(u32t, None, l, [0]).unwrap();
            let thirty_two = c(&mut b, 32);
            let subgroup = b.u_div(u32t, None, l0, thirty_two).unwrap();
            let per_subgroup = c(&mut b, tm * tn * 256);
            let offset = b.i_mul(u32t, None, subgroup, per_subgroup).unwrap();
            b.i_add(u32t, None, first, offset).unwrap()
        }
        Scope::Workgroup { .. } => first,
    };
    for (index, &var) in accumulators.iter().enumerate() {
        let offset = c(&mut b, index as u32 * m * n);
        let at = b.i_add(u32t, None, first, offset).unwrap();
        let ptr = b.access_chain(p_f32, None, vc, [zero, at]).unwrap();
        let acc = b.load(c_ty, None, var, None, []).unwrap();
        b.cooperative_matrix_store_khr(ptr, acc, row_major, Some(cn), Some(non_private), []).unwrap();
    }
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "peak", [wid, lid]);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, [scope.threads(), 1, 1]);
    b.module().assemble()
}

fn main() {
    let (scope, steps, programs) = from_args();
    let device = match WgpuDevice::open(None) {
        Ok(Some(device)) => device,
        Ok(None) => {
            println!("cooperative_matrix_peak: no Vulkan adapter here");
            return;
        }
        Err(error) => panic!("{error}"),
    };
    let offered = match scope {
        Scope::Subgroup { .. } => device.cooperative_matrix_f16(),
        Scope::Workgroup { .. } => device.workgroup_matrices().is_some(),
    };
    if !offered {
        println!(
            "cooperative_matrix_peak: the Vulkan adapter here was not opened with the {scope:?} matrices this \
             needs (see `trident devices`)"
        );
        return;
    }
    let artifact = common::artifact(module(scope, steps), "peak", scope.threads(), 3, 0);
    let (m, k, n, products) = scope.product();
    let sixteenth = half::f16::from_f32(1.0 / 16.0).to_bits().to_le_bytes();
    let operand = |elements: u32| -> Vec<u8> { (0..elements).flat_map(|_| sixteenth).collect() };
    let c_len = (programs * scope.accumulator_elements()) as usize;
    let mut buffers = vec![
        Buffer { bytes: operand(m * k), ..Buffer::zeros("a", DType::F16, 0) },
        Buffer { bytes: operand(k * n), ..Buffer::zeros("b", DType::F16, 0) },
        Buffer::zeros("c", DType::F32, c_len),
    ];
    let grid = Grid([programs, 1, 1]);
    let args = [ArgValue::Buffer(0), ArgValue::Buffer(1), ArgValue::Buffer(2)];
    device.launch(&artifact, grid, &args, &mut buffers).expect("launch");
    let expected = (steps * k) as f32 / 256.0;
    let wrong = buffers[2]
        .bytes
        .chunks_exact(4)
        .filter(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]) != expected)
        .count();
    assert_eq!(wrong, 0, "{wrong} of {c_len} accumulator elements are not {expected}");
    let limits = BenchLimits { min_runs: 10, max_runs: 100, budget: std::time::Duration::from_secs(2) };
    let stats = device.bench(&artifact, grid, &args, &mut buffers, limits).expect("bench");
    let flops = 2.0 * f64::from(m * n * k) * f64::from(products) * f64::from(steps) * f64::from(programs);
    println!(
        "cooperative_matrix_peak {scope:?}, {steps} steps, {programs} programs: {:.4} ms, {:.1} TFLOP/s",
        stats.median_ms,
        flops / (stats.median_ms * 1e-3) / 1e12
    );
}
