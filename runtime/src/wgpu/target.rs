//! What a SPIR-V compilation is built for: the facts of a Vulkan adapter (or defaults without
//! one) and of the launch's buffers, as one value.
//!
//! It lives in the runtime because the runtime reads these facts from the adapter and because the
//! on-disk cache keys SPIR-V artifacts by every field of it ([`crate::cache::keys`]); the root
//! package fills it in (`trident::cli::spirv::target_for`) and turns it into the spirv backend's
//! `Options` when it lowers a module. Nothing here decides code generation beyond the layout warp
//! width, [`SpirvTarget::threads_for`].

use trident_backend_spirv::{Mode, Storage16Bit};

/// The warp width the spirv layouts are built for where the adapter's subgroups are not exactly
/// 32 wide ([`layout_warp_width`]), where the device allows `64 * num_warps` invocations per
/// workgroup (else 32, see [`SpirvTarget::threads_for`]). The width decides how many elements each invocation holds;
/// reductions shuffle only across the lanes one hardware subgroup holds and check the subgroups'
/// shape at run time ([`SpirvTarget::subgroup_size`]; the spirv backend's `reduce.rs`), so no
/// layout depends on the subgroup size. Lavapipe (subgroup size 8) runs barriers as
/// coroutine suspends, and its compile time grows with the values live across them: built for 8
/// the flash-attention kernels take minutes to compile, for 32 up to a minute on a loaded 2-core
/// machine, for 64 half that.
pub const SPIRV_THREADS_PER_WARP: u32 = 64;

/// The layout warp width for an adapter whose subgroups are `min..=max` lanes wide (`subgroups`:
/// it runs subgroup operations): 32 where every subgroup is 32 lanes (NVIDIA), so that a kernel's
/// `num_warps` warps hold the elements a CUDA GPU's would (a thread of a 64-wide warp holds half
/// as many, and keeps half as many bytes of a loop's loads in flight: layernorm's rows ran at
/// half their bandwidth), and a warp's reduction needs no workgroup memory; else
/// [`SPIRV_THREADS_PER_WARP`].
pub fn layout_warp_width(subgroups: bool, min: u32, max: u32) -> u32 {
    if subgroups && min == 32 && max == 32 {
        32
    } else {
        SPIRV_THREADS_PER_WARP
    }
}

/// The Vulkan facts a SPIR-V compilation needs (from the adapter and the launch's buffers, or
/// defaults without them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpirvTarget {
    pub mode: Mode,
    /// The widest layout warp: [`layout_warp_width`] of the adapter, [`SPIRV_THREADS_PER_WARP`]
    /// without one.
    pub threads_per_warp: u32,
    /// The most invocations a workgroup may have: a kernel whose `num_warps` warps of
    /// `threads_per_warp` would exceed it is built for warps of 32.
    pub max_workgroup_invocations: u32,
    pub workgroup_memory_bytes: u32,
    /// The device adds f32 atomically (see `trident_backend_spirv::Options::float32_atomic_add`);
    /// used only by modules in the Vulkan dialect.
    pub float32_atomic_add: bool,
    /// Pointer arguments (by ordinal among the pointer arguments) whose buffers are larger than
    /// one storage binding of the device: they are bound as two windows (see
    /// `trident_backend_spirv::Options::windowed_buffers`).
    pub windowed_buffers: Vec<u32>,
    /// Which 16-bit accesses use the device's 16-bit storage (see
    /// `trident_backend_spirv::Storage16Bit`); used only by modules in the Vulkan dialect.
    pub storage_16bit: Storage16Bit,
    /// Loads and stores of up to 16 bytes at once (see
    /// `trident_backend_spirv::Options::wide_accesses`), when asked for
    /// ([`super::WIDE_ACCESS_ENV`]); used only by modules in the Vulkan dialect.
    pub wide_accesses: bool,
    /// The adapter's smallest subgroup size where it runs subgroup operations, else 0 (see
    /// `trident_backend_spirv::Options::subgroup_size`); used only by modules in the Vulkan dialect.
    pub subgroup_size: u32,
    /// `tl.dot` of f16 through cooperative matrices (see
    /// `trident_backend_spirv::Options::cooperative_matrix_f16`); Vulkan dialect only.
    pub cooperative_matrix_f16: bool,
    /// `tl.dot` of bf16 through cooperative matrices (see
    /// `trident_backend_spirv::Options::cooperative_matrix_bf16`); Vulkan dialect only.
    pub cooperative_matrix_bf16: bool,
    /// GEMM loops on workgroup-scope matrices (see
    /// `trident_backend_spirv::Options::workgroup_matrices`); Vulkan dialect only.
    pub workgroup_matrices: Option<trident_backend_spirv::WorkgroupMatrices>,
    /// Per-element operations on cooperative matrices (see
    /// `trident_backend_spirv::Options::cooperative_matrix_per_element`); Vulkan dialect only.
    pub cooperative_matrix_per_element: bool,
}

impl SpirvTarget {
    /// The layout warp width for a kernel of `num_warps` warps.
    pub fn threads_for(&self, num_warps: u32) -> u32 {
        if self.threads_per_warp * num_warps <= self.max_workgroup_invocations {
            self.threads_per_warp
        } else {
            self.threads_per_warp.min(32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{layout_warp_width, SPIRV_THREADS_PER_WARP};

    #[test]
    fn warps_are_32_wide_only_where_every_subgroup_is() {
        // NVIDIA: subgroups of exactly 32 lanes with subgroup operations.
        assert_eq!(layout_warp_width(true, 32, 32), 32);
        // lavapipe (8), AMD (64, or 32 to 64 where wave32 and wave64 both run), Intel (8 to 32),
        // and an adapter without subgroup operations keep the 64-wide layouts.
        for (subgroups, min, max) in
            [(true, 8, 8), (true, 64, 64), (true, 32, 64), (true, 8, 32), (false, 32, 32)]
        {
            assert_eq!(layout_warp_width(subgroups, min, max), SPIRV_THREADS_PER_WARP, "{min}..{max}");
        }
    }
}
