//! trident-backend-nvptx: TTGIR -> PTX text for sm_80 and sm_90a.
//!
//! One entry point, [`emit`], takes a verified TTGIR module (every tensor type carries its
//! layout) plus [`Options`] and returns an [`Artifact`]: PTX text and the launch metadata the
//! runtime needs (threads per block, dynamic shared memory, the parameter ABI). No LLVM: the PTX is
//! written directly, and ptxas (or the driver's JIT) does register allocation and scheduling.
//!
//! What does not depend on PTX is lowered by the midend's `codegen` for both backends: which
//! rule each op takes, shape ops, the steps of reductions and scans, which element each thread
//! holds, what each op family reads off its op. This crate implements the traits those rules are
//! written on ([`trident_midend::codegen::Isa`] and one per op family) with PTX instructions.
//! It imports only `trident-midend`: never the other backend, never the runtime.

mod arith;
mod control;
mod debug_ops;
mod dot;
mod emit;
mod memory;
mod ptx;
mod reduce;
mod shared_rings;
mod shared_vectors;
mod sort;
mod tma;
mod warp_group_dot;
mod warp_specialize;

/// What the caller fixes for one compilation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Compute capability as major*10+minor (80 for sm_80, 90 for sm_90a).
    pub sm: u32,
    pub num_warps: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { sm: 90, num_warps: 4 }
    }
}

impl Options {
    /// The `.target` name: `sm_90a` from compute capability 9.0 on (wgmma and setmaxnreg need
    /// the `a` variant), `sm_XY` below.
    pub fn target_name(&self) -> String {
        if self.sm >= 90 {
            format!("sm_{}a", self.sm)
        } else {
            format!("sm_{}", self.sm)
        }
    }
}

/// How one kernel parameter is passed (in order; `.param` space of the PTX entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamAbi {
    /// A global-memory pointer (`.u64`).
    Pointer,
    /// An integer of the given width in bytes (1, 2, 4, 8), passed by value.
    Int(u32),
    /// A float of the given width in bytes (4 or 8), passed by value.
    Float(u32),
}

/// The compiled kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Artifact {
    pub ptx: String,
    /// The `.entry` name.
    pub kernel_name: String,
    pub threads_per_block: u32,
    /// Dynamic shared memory bytes to request at launch.
    pub shared_bytes: u32,
    pub params: Vec<ParamAbi>,
    /// Bytes of global scratch memory each program needs (the tensor maps of the descriptors it
    /// makes); when not zero, the kernel takes one more `.u64` parameter after `params`: a buffer
    /// of this many bytes per program of the grid, 128-byte aligned, indexed by the program's
    /// linear index (`x + nx * (y + ny * z)`).
    pub global_scratch_bytes: u32,
    /// A persistent kernel: its CTAs walk the program grid themselves (`ttng.program_grid`), so
    /// the runtime launches at most as many CTAs along x as the GPU holds at once (never more
    /// than the grid's programs) and passes the grid it was asked for as three more `.u32`
    /// parameters (x, y, z), after the global scratch and before the tensor maps.
    pub persistent: bool,
    /// The tensor maps the runtime encodes on the host at each launch (descriptors whose fields
    /// are all launch scalars; the backend's `tma` module says which): the kernel takes each as
    /// one more parameter, `.param .align 64 .b8 [128]` (a `CUtensorMap` by value), after the
    /// global scratch.
    pub tensor_maps: Vec<HostTensorMap>,
}

/// A tensor map of a `tt.make_tensor_descriptor` that the runtime encodes on the host: every
/// field a value of the launch's arguments ([`LaunchScalar`], over the kernel's parameters),
/// the rest fixed by the compiler. Dimensions are listed outermost first, as the descriptor
/// lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostTensorMap {
    /// The global address of the tensor's first element.
    pub base: LaunchScalar,
    /// The tensor's extent along each dimension.
    pub dims: Vec<LaunchScalar>,
    /// The distance between neighbours along each dimension, in elements (the innermost is 1).
    pub strides: Vec<LaunchScalar>,
    /// The box one copy moves, per dimension (the innermost at most one swizzle row wide).
    pub box_dims: Vec<u32>,
    /// Bytes per element: 1, 2 or 4 (the map's element type is the unsigned integer of that size).
    pub elem_bytes: u32,
    /// The swizzle: 0 (none), 32, 64 or 128 bytes.
    pub swizzle_bytes: u32,
}

pub use trident_midend::analysis::launch_scalars::{BinaryOp, LaunchScalar};

/// Why a module could not be lowered to PTX (the midend's error, shared by both backends).
pub use trident_midend::codegen::Error;

/// Lowers the kernel of `module` (TTGIR: every tensor has a layout, helpers are inlined) to PTX.
pub fn emit(module: &trident_midend::ir::Module, options: &Options) -> Result<Artifact, Error> {
    let Some(kernel) = module.kernel() else {
        return Err(Error::Invalid("the module has no kernel".into()));
    };
    emit::Emitter::new(module, kernel, options).kernel()
}
