//! Layouts: which thread holds which tensor element, as linear maps over GF(2).
//!
//! # The model
//!
//! A TTGIR tensor is not stored anywhere as a whole: each element lives in some register of some
//! lane of some warp of some block (CTA). A *layout* is the function from those hardware indices
//! to the tensor coordinate held there. Following Triton 3.x, every layout in trident is a
//! [`LinearLayout`]: a map that is linear over GF(2), the field of bits with XOR as addition.
//!
//! Why GF(2)? Every size involved (tensor dims, warp size, warps per CTA, vector widths, swizzle
//! periods) is a power of two, so an index is just a bundle of bits, and every layout Triton uses
//! (blocked tiling, MMA fragments, dot operands, XOR swizzles, slices, transposes, reshapes) moves
//! each input bit to a fixed output bit pattern. Such a map is fully described by one *basis
//! vector* per input bit, and the image of any index is the XOR of the bases of its set bits:
//! `L(a ^ b) = L(a) ^ L(b)`. Swizzles, which are XORs by design, fit for free; ordinary tiling
//! fits because the bit patterns it adds never overlap, so XOR and `+` agree.
//!
//! The input dims ([`InDim`]):
//! - `register`: the index of a value among those one thread holds (its "elements per thread");
//! - `lane`: the thread within a warp (NVIDIA) or subgroup (Vulkan), 8 to 64 of them;
//! - `warp`: the warp within the CTA;
//! - `block`: the CTA within a cluster (always empty until CGA layouts arrive);
//! - `offset`: for shared-memory layouts, the element offset inside the buffer;
//! - `dimN`: a tensor coordinate used as an input, which is what inverses take.
//!
//! The output dims are the tensor dims, positionally, each of a power-of-two size.
//!
//! # One algebra, several constructors
//!
//! Triton's encodings are constructors of this one type: [`Blocked::to_linear`] builds
//! `#ttg.blocked` (hierarchical identity tiles, repeats in registers, broadcast as zero bases),
//! [`slice`] builds `#ttg.slice` (forget one output dim), [`SwizzledShared::to_linear`] builds
//! `#ttg.swizzled_shared` (offset to coordinate, rows XOR-permuted). MMA and dot-operand layouts
//! will be further constructors of the same type. Nothing downstream needs to know which
//! constructor a layout came from: questions are asked of the linear map.
//!
//! # How a backend uses it
//!
//! - *Which elements does thread `t` own?* `apply(&[(Register, r), (Lane, t % W), (Warp, t / W)])`
//!   for every `r < num_registers()`. The backend emits this as code: each coordinate is an XOR
//!   of constants selected by bits of the lane and warp ids, plus the register's constant part.
//! - *How wide can a load or store be?* [`LinearLayout::register_contiguity`] along the tensor's
//!   contiguous dim, capped by what the axis analysis proves about alignment.
//! - *Is data replicated?* zero bases and [`LinearLayout::free_variable_masks`] say which
//!   register, lane or warp bits only duplicate data; stores and reductions mask them out.
//! - *Where does coordinate `c` live in shared memory?* the inverse of a shared layout, or its
//!   closed form [`SwizzledShared::offset_of`].
//!
//! # Conversions
//!
//! A `convert_layout` from `src` to `dst` is planned from `conv = dst⁻¹ ∘ src`, computed as
//! `src.compose(&dst.pseudo_invert()?)`: for every hardware index of the source it gives the
//! hardware index of the destination holding the same element. If `conv` is the identity the
//! conversion is free; if it only moves register bits it is a register permutation; if it mixes
//! only register and lane bits it is a warp shuffle; otherwise it goes through shared memory,
//! with a swizzled layout chosen so that both sides access it vectorized and conflict-free.
//!
//! # Text form
//!
//! [`LinearLayout`] prints like Triton's `#ttg.linear`, for example
//! `#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0]], warp = [], block = []}>`; a layout
//! with an `offset` input prints as `#ttg.shared_linear`.

mod blocked;
mod encoding;
mod linear;
mod mma;
mod nvmma_shared;
pub mod registers;
mod shared;
mod slice;

use std::fmt;

pub use blocked::Blocked;
pub use encoding::{parse_encoding, Encoding};
pub use linear::{InDim, LayoutError, LinearLayout};
pub use mma::{Mma, MmaVersion};
pub use nvmma_shared::NvmmaShared;
pub use shared::SwizzledShared;
pub use slice::{project_out, slice, Slice};

impl fmt::Display for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let is_shared = self.in_dims().any(|dim| dim == InDim::Offset);
        write!(f, "{}<{{", if is_shared { "#ttg.shared_linear" } else { "#ttg.linear" })?;
        for (position, (dim, bases)) in self.iter_bases().enumerate() {
            if position > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{dim} = [")?;
            for (index, basis) in bases.iter().enumerate() {
                if index > 0 {
                    write!(f, ", ")?;
                }
                write_basis(f, basis)?;
            }
            write!(f, "]")?;
        }
        write!(f, "}}>")
    }
}

/// Writes one basis vector as `[c0, c1, ...]`.
fn write_basis(f: &mut fmt::Formatter<'_>, basis: &[u32]) -> fmt::Result {
    write!(f, "[")?;
    for (index, coord) in basis.iter().enumerate() {
        if index > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{coord}")?;
    }
    write!(f, "]")
}
