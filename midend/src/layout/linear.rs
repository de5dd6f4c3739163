//! The linear layout itself: a GF(2)-linear map from named input dims to tensor coordinates.
//!
//! A [`LinearLayout`] stores, for each input dim, one basis vector per input bit; basis `j` of dim
//! `d` is the tensor coordinate reached when only bit `j` of `d` is set. Applying the layout XORs
//! the bases of the set bits. Everything else here (rank, injectivity, inverses, composition,
//! broadcast detection, register contiguity) is Gaussian elimination over bit vectors.
//!
//! Internally both sides are flattened into `u64` bit vectors: input bits are concatenated in the
//! order of `in_dims` (the first dim's bit 0 is flat bit 0), and output coordinates are concatenated
//! with output dim 0 in the lowest bits. The 64-bit cap is far beyond any real layout (a CTA has
//! at most 2^10 threads and a tensor at most 2^20-ish elements).

use std::fmt;

/// A named input dimension of a layout.
///
/// `Register`, `Lane`, `Warp` and `Block` are the hardware indices of a distributed layout;
/// `Offset` is the element offset of a shared-memory layout; `Dim(d)` is tensor dimension `d`
/// used as an *input*, which is what the inverse of a layout takes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum InDim {
    Register,
    Lane,
    Warp,
    Block,
    Offset,
    Dim(u8),
}

impl InDim {
    /// The four hardware dims of a distributed (register) layout, in Triton's order.
    pub const HARDWARE: [InDim; 4] = [InDim::Register, InDim::Lane, InDim::Warp, InDim::Block];
}

impl fmt::Display for InDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InDim::Register => write!(f, "register"),
            InDim::Lane => write!(f, "lane"),
            InDim::Warp => write!(f, "warp"),
            InDim::Block => write!(f, "block"),
            InDim::Offset => write!(f, "offset"),
            InDim::Dim(d) => write!(f, "dim{d}"),
        }
    }
}

/// Why a layout could not be built or transformed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LayoutError {
    /// A size that must be a power of two (output dim, tile parameter) is not.
    NotPowerOfTwo { what: &'static str, value: u32 },
    /// A basis vector has the wrong length or a coordinate outside the output shape.
    BadBasis { dim: InDim, index: usize },
    /// The same input dim was listed twice.
    DuplicateDim(InDim),
    /// More than 64 input or output bits.
    TooManyBits,
    /// Ranks or sizes of two layouts, or of a layout and a shape, disagree.
    Mismatch(String),
    /// An inverse was requested from a layout that is not invertible in the needed sense.
    NotInvertible(&'static str),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::NotPowerOfTwo { what, value } => write!(f, "{what} = {value} is not a power of two"),
            LayoutError::BadBasis { dim, index } => write!(f, "basis {index} of `{dim}` is out of range"),
            LayoutError::DuplicateDim(dim) => write!(f, "input dim `{dim}` listed twice"),
            LayoutError::TooManyBits => write!(f, "layout has more than 64 input or output bits"),
            LayoutError::Mismatch(msg) => write!(f, "layout mismatch: {msg}"),
            LayoutError::NotInvertible(why) => write!(f, "layout is not invertible: {why}"),
        }
    }
}

impl std::error::Error for LayoutError {}

/// log2 of a power of two, or an error naming the offending quantity.
pub(crate) fn log2_exact(what: &'static str, value: u32) -> Result<u32, LayoutError> {
    if value.is_power_of_two() {
        Ok(value.trailing_zeros())
    } else {
        Err(LayoutError::NotPowerOfTwo { what, value })
    }
}

/// A linear map over GF(2) from input-dim bits to tensor coordinates.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LinearLayout {
    /// Input dims in a fixed order, each with its bases; every basis has `out_shape.len()`
    /// entries, each below the matching `out_shape` entry. No dim appears twice.
    in_dims: Vec<(InDim, Vec<Vec<u32>>)>,
    /// Size of every output (tensor) dim; all powers of two.
    out_shape: Vec<u32>,
}

impl LinearLayout {
    /// Builds a layout from explicit bases, checking every invariant of the struct.
    pub fn new(in_dims: Vec<(InDim, Vec<Vec<u32>>)>, out_shape: Vec<u32>) -> Result<Self, LayoutError> {
        let mut out_bits = 0;
        for &size in &out_shape {
            out_bits += log2_exact("output dim size", size)?;
        }
        let in_bits: usize = in_dims.iter().map(|(_, bases)| bases.len()).sum();
        if out_bits > 64 || in_bits > 64 {
            return Err(LayoutError::TooManyBits);
        }
        for (pos, (dim, bases)) in in_dims.iter().enumerate() {
            if in_dims[..pos].iter().any(|(other, _)| other == dim) {
                return Err(LayoutError::DuplicateDim(*dim));
            }
            for (index, basis) in bases.iter().enumerate() {
                let fits = basis.len() == out_shape.len() && basis.iter().zip(&out_shape).all(|(c, s)| c < s);
                if !fits {
                    return Err(LayoutError::BadBasis { dim: *dim, index });
                }
            }
        }
        Ok(LinearLayout { in_dims, out_shape })
    }

    /// The identity on one dim: `size` inputs of `in_dim` walk output dim `out_dim` of
    /// `out_shape` (whose size must be at least `size`); other output dims stay 0.
    pub fn identity_1d(
        size: u32,
        in_dim: InDim,
        out_dim: usize,
        out_shape: &[u32],
    ) -> Result<Self, LayoutError> {
        let bits = log2_exact("identity size", size)?;
        let bases = (0..bits)
            .map(|bit| {
                let mut basis = vec![0; out_shape.len()];
                basis[out_dim] = 1 << bit;
                basis
            })
            .collect();
        LinearLayout::new(vec![(in_dim, bases)], out_shape.to_vec())
    }

    /// Input dims in their stored order.
    pub fn in_dims(&self) -> impl Iterator<Item = InDim> + '_ {
        self.in_dims.iter().map(|(dim, _)| *dim)
    }

    /// The bases of one input dim (empty if the layout does not have it).
    pub fn bases(&self, dim: InDim) -> &[Vec<u32>] {
        self.in_dims.iter().find(|(d, _)| *d == dim).map(|(_, bases)| bases.as_slice()).unwrap_or(&[])
    }

    /// Sizes of the output (tensor) dims.
    pub fn out_shape(&self) -> &[u32] {
        &self.out_shape
    }

    /// Number of input bits of `dim` (0 if absent).
    pub fn in_bits(&self, dim: InDim) -> u32 {
        self.bases(dim).len() as u32
    }

    /// Number of distinct values of input `dim`: 2^(number of bases).
    pub fn in_size(&self, dim: InDim) -> u32 {
        1 << self.in_bits(dim)
    }

    /// Registers each thread holds.
    pub fn num_registers(&self) -> u32 {
        self.in_size(InDim::Register)
    }

    /// Total number of input bits over all dims.
    pub fn total_in_bits(&self) -> u32 {
        self.in_dims.iter().map(|(_, bases)| bases.len() as u32).sum()
    }

    /// Total number of output bits (log2 of the tensor's element count).
    pub fn total_out_bits(&self) -> u32 {
        self.out_shape.iter().map(|s| s.trailing_zeros()).sum()
    }

    /// The tensor coordinate of one hardware index; dims not listed are 0, and bits above a
    /// dim's size are ignored (they have no basis).
    pub fn apply(&self, inputs: &[(InDim, u32)]) -> Vec<u32> {
        let mut coords = vec![0; self.out_shape.len()];
        for &(dim, value) in inputs {
            for (bit, basis) in self.bases(dim).iter().enumerate() {
                if value >> bit & 1 == 1 {
                    for (c, b) in coords.iter_mut().zip(basis) {
                        *c ^= b;
                    }
                }
            }
        }
        coords
    }

    /// Bit offset of each output dim inside a flattened coordinate.
    fn out_offsets(&self) -> Vec<u32> {
        let mut offsets = Vec::with_capacity(self.out_shape.len());
        let mut next = 0;
        for size in &self.out_shape {
            offsets.push(next);
            next += size.trailing_zeros();
        }
        offsets
    }

    /// Packs a coordinate vector into one bit vector (output dim 0 in the low bits).
    fn flatten_coords(&self, coords: &[u32]) -> u64 {
        let offsets = self.out_offsets();
        coords.iter().zip(offsets).fold(0, |acc, (&c, off)| acc | (c as u64) << off)
    }

    /// The matrix as columns: the flattened image of every flattened input bit.
    fn columns(&self) -> Vec<u64> {
        let mut columns = Vec::with_capacity(self.total_in_bits() as usize);
        for (_, bases) in &self.in_dims {
            columns.extend(bases.iter().map(|basis| self.flatten_coords(basis)));
        }
        columns
    }

    /// Rank of the map over GF(2): log2 of the number of distinct elements reached.
    pub fn rank(&self) -> u32 {
        Echelon::from_columns(&self.columns()).rank()
    }

    /// Every tensor element is reached by some input.
    pub fn is_surjective(&self) -> bool {
        self.rank() == self.total_out_bits()
    }

    /// No two inputs reach the same element (no broadcast, no duplicated data).
    pub fn is_injective(&self) -> bool {
        self.rank() == self.total_in_bits()
    }

    /// How many inputs reach each element of the image: 2^(in bits - rank). A value above 1
    /// means the data is replicated (broadcast) across registers, lanes, warps or blocks.
    pub fn num_replicas(&self) -> u64 {
        1 << (self.total_in_bits() - self.rank())
    }

    /// For each input dim, the mask of its bits whose basis is zero: flipping such a bit never
    /// changes the element, so those threads or registers hold copies (pure broadcast).
    pub fn zero_bases_mask(&self, dim: InDim) -> u32 {
        let bases = self.bases(dim);
        (0..bases.len())
            .filter(|&bit| bases[bit].iter().all(|&c| c == 0))
            .fold(0, |mask, bit| mask | 1 << bit)
    }

    /// For each input dim, the mask of its *free variables*: bits whose basis is a combination
    /// of earlier bases (in stored dim order, low bits first). Zero bases are the simplest case;
    /// this also catches e.g. two lanes that land on the same element. Setting free bits to 0
    /// picks one canonical owner per element, which is how conversions drop duplicates.
    pub fn free_variable_masks(&self) -> Vec<(InDim, u32)> {
        let mut echelon = Echelon::default();
        let mut masks = Vec::with_capacity(self.in_dims.len());
        let mut flat_bit = 0;
        for (dim, bases) in &self.in_dims {
            let mut mask = 0;
            for (bit, basis) in bases.iter().enumerate() {
                if !echelon.insert(self.flatten_coords(basis), 1 << flat_bit) {
                    mask |= 1 << bit;
                }
                flat_bit += 1;
            }
            masks.push((*dim, mask));
        }
        masks
    }

    /// How many consecutive registers land on consecutive, increasing elements along tensor
    /// dim `dim` (and stay put along the others), in *every* thread and every aligned register
    /// group. This is the vector width a backend may use for a load, store or shared-memory
    /// access along `dim`; it is a power of two.
    ///
    /// The first `2^k` registers must walk `dim` one element at a time; and every other basis
    /// (higher registers, lanes, warps, blocks) must have no bits below `2^k` along `dim`, or the
    /// XOR with it would shuffle the run (a lane basis of 1 turns `0, 1` into `1, 0`).
    pub fn register_contiguity(&self, dim: usize) -> u32 {
        let registers = self.bases(InDim::Register);
        let mut run = 0;
        for (bit, basis) in registers.iter().enumerate() {
            let along = basis.iter().enumerate().all(|(d, &c)| if d == dim { c == 1 << bit } else { c == 0 });
            if !along {
                break;
            }
            run += 1;
        }
        let others: Vec<u32> = self
            .in_dims
            .iter()
            .flat_map(|(in_dim, bases)| {
                let skip = if *in_dim == InDim::Register { run } else { 0 };
                bases.iter().skip(skip).map(|basis| basis.get(dim).copied().unwrap_or(0))
            })
            .collect();
        while run > 0 && others.iter().any(|&c| c & ((1 << run) - 1) != 0) {
            run -= 1;
        }
        1 << run
    }

    /// `outer ∘ self`: apply `self`, then `outer`. `outer` must take this layout's outputs as its
    /// inputs, i.e. have exactly the input dims `Dim(0), Dim(1), ...` with sizes `out_shape`.
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let expected: Vec<(InDim, u32)> =
            self.out_shape.iter().enumerate().map(|(d, &size)| (InDim::Dim(d as u8), size)).collect();
        let actual: Vec<(InDim, u32)> = outer.in_dims().map(|dim| (dim, outer.in_size(dim))).collect();
        if expected != actual {
            return Err(LayoutError::Mismatch(format!(
                "compose: outer takes {actual:?}, inner gives {expected:?}"
            )));
        }
        let in_dims = self
            .in_dims
            .iter()
            .map(|(dim, bases)| {
                let mapped = bases.iter().map(|basis| outer.apply(&as_dim_inputs(basis))).collect();
                (*dim, mapped)
            })
            .collect();
        LinearLayout::new(in_dims, outer.out_shape.clone())
    }

    /// The inverse of a bijective layout: a layout with inputs `Dim(0), Dim(1), ...` (the tensor
    /// coordinates) whose output dim `i` is this layout's `i`-th input dim.
    pub fn invert(&self) -> Result<LinearLayout, LayoutError> {
        if !self.is_injective() {
            return Err(LayoutError::NotInvertible("not injective (data is broadcast)"));
        }
        self.pseudo_invert()
    }

    /// A right inverse of a surjective layout: for each element, the owner whose free variables
    /// (see [`Self::free_variable_masks`]) are all 0. `self.apply(inverse(x)) == x` for every x.
    pub fn pseudo_invert(&self) -> Result<LinearLayout, LayoutError> {
        if !self.is_surjective() {
            return Err(LayoutError::NotInvertible("not surjective (some elements have no owner)"));
        }
        let echelon = Echelon::from_columns(&self.columns());
        let in_shape: Vec<u32> = self.in_dims.iter().map(|(_, bases)| 1 << bases.len()).collect();
        let mut in_dims = Vec::with_capacity(self.out_shape.len());
        for (d, &size) in self.out_shape.iter().enumerate() {
            let bases = (0..size.trailing_zeros())
                .map(|bit| {
                    let mut coords = vec![0; self.out_shape.len()];
                    coords[d] = 1 << bit;
                    let solution =
                        echelon.solve(self.flatten_coords(&coords)).expect("surjective layouts solve");
                    self.unflatten_inputs(solution)
                })
                .collect();
            in_dims.push((InDim::Dim(d as u8), bases));
        }
        LinearLayout::new(in_dims, in_shape)
    }

    /// Splits a flattened input vector into one value per input dim, in stored order.
    fn unflatten_inputs(&self, flat: u64) -> Vec<u32> {
        let mut values = Vec::with_capacity(self.in_dims.len());
        let mut offset = 0;
        for (_, bases) in &self.in_dims {
            let width = bases.len() as u32;
            let mask = if width == 0 { 0 } else { u64::MAX >> (64 - width) };
            values.push(((flat >> offset) & mask) as u32);
            offset += width;
        }
        values
    }

    /// Removes zero bases of `dim`, renumbering its remaining bits. Used where a copy held in
    /// the same thread twice is pointless (zero register bases after a slice).
    pub fn without_zero_bases(&self, dim: InDim) -> LinearLayout {
        let in_dims = self
            .in_dims
            .iter()
            .map(|(d, bases)| {
                let kept = if *d == dim {
                    bases.iter().filter(|basis| basis.iter().any(|&c| c != 0)).cloned().collect()
                } else {
                    bases.clone()
                };
                (*d, kept)
            })
            .collect();
        LinearLayout { in_dims, out_shape: self.out_shape.clone() }
    }

    /// Iterates over input dims with their bases (for printers and constructors).
    pub fn iter_bases(&self) -> impl Iterator<Item = (InDim, &[Vec<u32>])> + '_ {
        self.in_dims.iter().map(|(dim, bases)| (*dim, bases.as_slice()))
    }
}

/// Turns a coordinate vector into `apply` inputs for a layout indexed by tensor dims.
fn as_dim_inputs(coords: &[u32]) -> Vec<(InDim, u32)> {
    coords.iter().enumerate().map(|(d, &c)| (InDim::Dim(d as u8), c)).collect()
}

/// Row echelon form of a set of GF(2) vectors, remembering which inputs built each row.
///
/// `rows[p]`, when present, is a vector whose highest set bit is `p`, together with the mask of
/// original input bits whose XOR produced it. Reducing from the highest pivot down clears one bit
/// per step and never sets a higher one, so a vector reduces to 0 exactly when it is in the span.
#[derive(Default)]
struct Echelon {
    rows: Vec<Option<(u64, u64)>>,
}

impl Echelon {
    fn from_columns(columns: &[u64]) -> Self {
        let mut echelon = Echelon::default();
        for (bit, &column) in columns.iter().enumerate() {
            echelon.insert(column, 1 << bit);
        }
        echelon
    }

    /// Reduces `vector` by the current rows; returns the remainder and the inputs combined.
    fn reduce(&self, mut vector: u64, mut combination: u64) -> (u64, u64) {
        for pivot in (0..self.rows.len()).rev() {
            if let Some((row, row_combination)) = self.rows[pivot] {
                if vector >> pivot & 1 == 1 {
                    vector ^= row;
                    combination ^= row_combination;
                }
            }
        }
        (vector, combination)
    }

    /// Adds a vector; returns false if it was already in the span (a free variable).
    fn insert(&mut self, vector: u64, combination: u64) -> bool {
        if self.rows.is_empty() {
            self.rows = vec![None; 64];
        }
        let (rest, combination) = self.reduce(vector, combination);
        if rest == 0 {
            return false;
        }
        let pivot = 63 - rest.leading_zeros() as usize;
        self.rows[pivot] = Some((rest, combination));
        true
    }

    fn rank(&self) -> u32 {
        self.rows.iter().filter(|row| row.is_some()).count() as u32
    }

    /// An input combination whose image is `target`, if one exists. Only pivot columns are
    /// used, so free variables come out as 0.
    fn solve(&self, target: u64) -> Option<u64> {
        let (rest, combination) = self.reduce(target, 0);
        (rest == 0).then_some(combination)
    }
}
