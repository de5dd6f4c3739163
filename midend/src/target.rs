//! What the midend may know about the machine: facts, not syntax.
//!
//! Backends and the runtime fill a [`Target`] from the device (or from `--target`); the TTGIR
//! passes read it to choose layouts (threads per warp, warps per program) and to decide what fits
//! (shared memory). No pass names PTX or SPIR-V.

/// The GPU a module is being compiled for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Threads that execute in lockstep: 32 on NVIDIA, the subgroup size on Vulkan (8 to 64).
    pub threads_per_warp: u32,
    /// Warps per program instance (`num_warps`).
    pub num_warps: u32,
    /// NVIDIA compute capability as major*10+minor (80, 90), `None` for non-NVIDIA targets.
    pub compute_capability: Option<u32>,
    /// Shared (workgroup) memory a program may use, in bytes.
    pub shared_memory_bytes: u32,
    /// Software-pipelining depth (Triton's `num_stages`): from 2 on, the loads feeding dots are
    /// issued an iteration ahead (`pipeline-dot-loads`).
    pub num_stages: u32,
    /// The backend may load the operands of a GEMM loop's f16 or bf16 dot (into f32) whole,
    /// straight from memory into matrices (the spirv backend on workgroup-scope cooperative
    /// matrices, where the driver stages them itself): `pipeline-dot-loads` then leaves the loops
    /// with such dots alone, as operands loaded an iteration ahead into registers could not be.
    pub loads_dot_operands_whole: bool,
    /// With [`Target::loads_dot_operands_whole`], the backend may also load a tf32 dot's f32
    /// operands whole (splitting them into bf16 products: the spirv backend where the device
    /// has bf16 workgroup matrices with per-element operations), so those loops are left alone
    /// too.
    pub loads_tf32_operands_whole: bool,
}

impl Target {
    /// An NVIDIA GPU of compute capability `sm` (80 or 90), without software pipelining (set
    /// `num_stages` for it).
    pub fn nvidia(sm: u32, num_warps: u32) -> Target {
        let shared = if sm >= 90 { 227 * 1024 } else { 163 * 1024 };
        Target {
            threads_per_warp: 32,
            num_warps,
            compute_capability: Some(sm),
            shared_memory_bytes: shared,
            num_stages: 1,
            loads_dot_operands_whole: false,
            loads_tf32_operands_whole: false,
        }
    }

    /// Whether the target copies tiles with the Tensor Memory Accelerator (sm_90 on):
    /// tensor descriptors then stay descriptors (`rewrite-tensor-descriptors`).
    pub fn has_tma(&self) -> bool {
        self.compute_capability.is_some_and(|sm| sm >= 90)
    }

    /// The widest atomic update one thread issues as one instruction, in bits: on sm_90 f32
    /// additions of up to four elements (`red.global.add.v4.f32`), elsewhere, and for every other
    /// atomic, one element (sm_80's atomics are scalar; SPIR-V has no vector atomics). A layout
    /// giving a thread more elements than that only spreads each warp instruction over more
    /// memory sectors.
    pub fn atomic_vector_bits(&self, f32_add: bool) -> u64 {
        if f32_add && self.compute_capability.is_some_and(|sm| sm >= 90) {
            128
        } else {
            32
        }
    }

    /// Whether the code generator after the midend moves a loop's independent loads ahead of the
    /// arithmetic between them, and makes masks predicates (ptxas does; NVIDIA's Vulkan driver
    /// keeps the SPIR-V's order and pays for its selects, and other Vulkan drivers are not
    /// counted on): where it does not, `batch-loop-loads` does both for loops over a row.
    pub fn schedules_loads(&self) -> bool {
        self.compute_capability.is_some()
    }

    pub fn threads_per_program(&self) -> u32 {
        self.threads_per_warp * self.num_warps
    }
}
