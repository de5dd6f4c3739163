//! trident-backend-spirv: TTGIR -> SPIR-V words for Vulkan compute (and, through naga, WGSL).
//!
//! One entry point, [`emit`], takes a verified TTGIR module (every tensor type carries its
//! layout) plus [`Options`] and returns an [`Artifact`]: SPIR-V words and the launch metadata
//! the runtime needs (workgroup size, workgroup memory, the binding ABI). The design is the
//! nvptx backend's: every tensor value lowers to one SPIR-V value per register index of its
//! linear layout, thread coordinates are XORs of lane and warp basis vectors, and layout
//! changes are register renamings or round trips through workgroup memory. What does not depend
//! on SPIR-V is lowered by the midend's `codegen` for both backends (which rule each op takes,
//! shape ops, the steps of reductions and scans, what each op family reads off its op); this
//! crate implements the traits those rules are written on ([`trident_midend::codegen::Isa`] and
//! one per op family) with SPIR-V instructions.
//!
//! What differs is memory. SPIR-V for Vulkan uses logical addressing: there are no pointer
//! values to do arithmetic on. Each pointer argument of the kernel becomes one storage buffer
//! (a runtime array of 32-bit words), and a Triton pointer becomes a byte offset into the
//! buffer of the argument it was derived from. That base argument is tracked statically for
//! every value (its provenance); where it cannot be known (a pointer loaded from memory, an
//! integer cast to a pointer, a select between two arguments), emission stops with
//! [`Error::Unsupported`] and the span of the op. Narrow elements (8 and 16 bits) are extracted
//! from words on load and written with word atomics on store, so no 8/16-bit storage feature is
//! needed; where the device has 16-bit storage ([`Storage16Bit`], Vulkan dialect only),
//! 16-bit elements stored alone (and, when asked, every 16-bit load) go directly through a 16-bit
//! view of the buffer (a second variable at the same binding, decorated `Aliased` when the kernel
//! also reads it as words). 8-bit storage is not used: wgpu does not enable
//! `storageBuffer8BitAccess`. Scalar arguments, the grid size and the folded dispatch size travel
//! in one uniform block (see [`Artifact::uniform_words`]).
//!
//! Float `atomic_add` is the one atomic without a 32-bit integer counterpart: where the device
//! has it ([`Options::float32_atomic_add`]) it is `OpAtomicFAddEXT` on an f32-typed view of the
//! buffer (a second variable at the same binding, both views decorated `Aliased`); elsewhere a
//! compare-and-swap loop on the word.
//!
//! `tl.device_assert` cannot trap in SPIR-V: a kernel with assertions gets one more storage
//! buffer ([`Artifact::assert_binding`]) where the first failing thread records which assertion
//! failed and in which program; the runtime reads it back after the launch and reports the
//! message with its Python line ([`Artifact::asserts`]).
//!
//! `tl.device_print` has no `printf` to call either: a kernel that prints gets a print buffer
//! ([`Artifact::print_binding`]) where each thread appends a record per element it owns (the
//! site, the program, the element's index, the value's bits) past an atomic counter; the runtime
//! reads it back after the launch, sorts the records into the interpreter's order and prints the
//! interpreter's lines, from the static half of each line in [`Artifact::prints`]. The record
//! layout is in `print.rs` ([`PRINT_HEADER_WORDS`], [`PRINT_RECORD_WORDS`]).
//!
//! Two modes ([`Mode`]): `Vulkan` may use every capability lavapipe and desktop drivers have
//! (Int64, Float64); `Portable` restricts itself to what naga's SPIR-V frontend accepts, so the
//! module can be translated to WGSL for Metal, DX12 and WebGPU.
//!
//! This crate imports only `trident-midend`: never the other backend, never the runtime.

mod arith;
mod control;
mod cooperative;
mod dot;
mod emit;
mod function_words;
mod memory;
mod print;
mod reduce;
mod sort;
mod spirv;

pub use print::{PRINT_HEADER_WORDS, PRINT_RECORD_WORDS};

/// Which SPIR-V dialect to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// For Vulkan drivers directly (passthrough): Int64 and Float64 where the kernel needs them.
    Vulkan,
    /// Only what naga's SPIR-V frontend accepts (translatable to WGSL): no 64-bit types.
    Portable,
}

/// Which accesses of 16-bit elements (f16, bf16, i16) go through a 16-bit view of their buffer,
/// where the device has 16-bit storage (`storageBuffer16BitAccess`; wgpu enables it with
/// `SHADER_F16` or `SHADER_I16`); only the [`Mode::Vulkan`] dialect uses it. Elsewhere a 16-bit
/// element is read from its word with a shift, and written into it with two word atomics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Storage16Bit {
    /// The device has none, or it is not used.
    #[default]
    Words,
    /// A 16-bit element stored alone (not in a group of whole words, which wide accesses write
    /// as words) is one store through the 16-bit view instead of two word atomics (a matmul
    /// epilogue whose f16 tile gives each thread one element a row: 256 atomics a thread);
    /// loads keep the word path, whose wide accesses were faster on NVIDIA's driver.
    Stores,
    /// Loads and stores of 16-bit elements go through the 16-bit view, one access each.
    LoadsAndStores,
}

/// What the caller fixes for one compilation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    /// The subgroup size the layouts were built for (the midend `Target`'s threads per warp).
    pub threads_per_warp: u32,
    pub num_warps: u32,
    /// Workgroup memory the device allows, in bytes.
    pub workgroup_memory_limit: u32,
    /// The device adds f32 atomically (`VK_EXT_shader_atomic_float`'s
    /// `shaderBufferFloat32AtomicAdd`; wgpu's `SHADER_FLOAT32_ATOMIC`, enabled on the device).
    /// Then `tl.atomic_add` on f32 is one `OpAtomicFAddEXT` through an f32 view of the buffer;
    /// otherwise, and always in [`Mode::Portable`], it is a compare-and-swap loop on the word.
    pub float32_atomic_add: bool,
    /// Pointer arguments (by ordinal among the pointer arguments) whose buffer is larger than
    /// one storage binding may be: each is bound as two windows of the same buffer (see
    /// [`HighWindow`]), so a kernel reaches buffers of up to twice the device's binding limit
    /// (4 GiB, all that u32 byte offsets address, on drivers that allow 2 GiB per binding).
    pub windowed_buffers: Vec<u32>,
    /// Which 16-bit accesses use the device's 16-bit storage ([`Storage16Bit`]).
    pub storage_16bit: Storage16Bit,
    /// In [`Mode::Vulkan`], loads and stores move up to 16 bytes at once (`uvec4` / `uvec2` / `u32`
    /// views of the binding) where the midend's `access_width` allows it; otherwise one element
    /// at a time. The runtime turns it on unless `TRIDENT_VULKAN_WIDE_ACCESS=0`.
    pub wide_accesses: bool,
    /// The smallest subgroup the device may run, where it runs the subgroup operations reductions
    /// use (basic, vote, ballot, shuffle in compute shaders; wgpu's `SUBGROUP`), else 0. In
    /// [`Mode::Vulkan`], reductions then combine lanes `i` and `i ^ m` for `m` below it with
    /// `OpGroupNonUniformShuffleXor` (see `reduce.rs`).
    pub subgroup_size: u32,
    /// The device runs `VK_KHR_cooperative_matrix` with f16 x f16 -> f32 at 16x16x16 (and the
    /// Vulkan memory model it needs) and its subgroup operations. Then an f16 `tl.dot` whose
    /// shape and layouts allow it runs on cooperative matrices (`cooperative/`), and the module
    /// declares the Vulkan memory model; elsewhere the dot is FMA through workgroup memory.
    pub cooperative_matrix_f16: bool,
    /// The device runs bf16 x bf16 -> f32 at 16x16x16 (`VK_KHR_shader_bfloat16` with its
    /// cooperative-matrix feature, beside what [`Options::cooperative_matrix_f16`] needs): a bf16
    /// `tl.dot` takes the same path, its operands staged and multiplied as `OpTypeFloat 16
    /// BFloat16KHR`. (One kernel's cooperative dots share one operand type: f16 where it has f16
    /// dots.)
    pub cooperative_matrix_bf16: bool,
    /// The workgroup-scope cooperative matrices of flexible dimensions
    /// (`VK_NV_cooperative_matrix2`) the device was opened with, with tensor addressing. Then a
    /// GEMM's K loop whose operands are loaded as strided tiles and whose result is stored as
    /// one runs on them, the tiles loaded and stored whole (`cooperative/workgroup.rs`), where
    /// [`Options::cooperative_matrix_f16`] (or bf16) holds too. `None` elsewhere.
    pub workgroup_matrices: Option<WorkgroupMatrices>,
    /// The device runs per-element operations on cooperative matrices
    /// (`VK_NV_cooperative_matrix2`'s `cooperativeMatrixPerElementOperations`), with
    /// [`Options::cooperative_matrix_f16`] (or bf16). Then a loop that scales its carried
    /// accumulator's rows before the dot (`tl.dot(p, v, acc * alpha[:, None])`) still carries it
    /// in matrices, each scaled in place (`cooperative/carried.rs`).
    pub cooperative_matrix_per_element: bool,
}

/// What `VK_NV_cooperative_matrix2` offers at workgroup scope (see [`Options::workgroup_matrices`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct WorkgroupMatrices {
    pub granules: Vec<MatrixGranule>,
    /// The largest M, N or K of one matrix.
    pub max_dimension: u32,
    /// The device also reduces the rows of these matrices, converts an accumulator into an
    /// operand, and runs per-element operations on them (`cooperativeMatrixReductions`,
    /// `cooperativeMatrixConversions`, `cooperativeMatrixPerElementOperations`): a loop whose
    /// every tensor is such a matrix, an attention's softmax included, may run on them
    /// (`cooperative/workgroup_region.rs`).
    pub element_operations: bool,
}

/// One workgroup-scope shape: `D (m x n) = A (m x k) B (k x n) + C` where M, N and K are
/// multiples of `m`, `n` and `k`, A and B of `operand`, C and D of `accumulator`, in workgroups
/// of exactly `invocations`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixGranule {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub invocations: u32,
    pub operand: trident_midend::ir::DType,
    pub accumulator: trident_midend::ir::DType,
}

impl Options {
    /// Whether 16-bit elements are loaded directly ([`Storage16Bit::LoadsAndStores`]). Portable
    /// modules keep the word path: naga's WGSL has no 16-bit integers to view a buffer with.
    pub fn direct_16bit_loads(&self) -> bool {
        self.storage_16bit == Storage16Bit::LoadsAndStores && self.mode == Mode::Vulkan
    }

    /// Whether 16-bit elements stored alone are stored directly (anything but
    /// [`Storage16Bit::Words`]), in the Vulkan dialect.
    pub fn direct_16bit_stores(&self) -> bool {
        self.storage_16bit != Storage16Bit::Words && self.mode == Mode::Vulkan
    }

    /// Whether tf32 dots may be split into bf16 products on workgroup matrices
    /// (`cooperative::tf32_split`): bf16 cooperative matrices, and workgroup-scope ones with
    /// per-element operations, reductions and conversions.
    pub fn splits_tf32_dots(&self) -> bool {
        self.cooperative_matrix_bf16
            && self.cooperative_matrix_per_element
            && self.workgroup_matrices.as_ref().is_some_and(|offered| offered.element_operations)
    }

    /// The largest lane distance reductions cross with subgroup shuffles (a power of two, below
    /// the subgroup size and the layout warp), or 0 for none: portable modules and devices without
    /// subgroup operations go through workgroup memory only.
    pub fn shuffle_span(&self) -> u32 {
        if self.mode != Mode::Vulkan || self.subgroup_size < 2 {
            return 0;
        }
        let size = 1u32 << (31 - self.subgroup_size.leading_zeros());
        size.min(self.threads_per_warp)
    }

    /// Whether f32 `atomic_add` is emitted as the native `OpAtomicFAddEXT`. Portable modules keep
    /// the loop: naga reads the op, but the f32 view shares its binding with the u32 one, which
    /// WGSL does not allow, and the view becomes `array<atomic<f32>>`, which is not WGSL.
    pub fn native_float32_atomic_add(&self) -> bool {
        self.float32_atomic_add && self.mode == Mode::Vulkan
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Vulkan,
            threads_per_warp: 32,
            num_warps: 4,
            workgroup_memory_limit: 32 * 1024,
            float32_atomic_add: false,
            windowed_buffers: Vec::new(),
            storage_16bit: Storage16Bit::Words,
            wide_accesses: false,
            subgroup_size: 0,
            cooperative_matrix_f16: false,
            cooperative_matrix_bf16: false,
            workgroup_matrices: None,
            cooperative_matrix_per_element: false,
        }
    }
}

/// How one kernel parameter reaches the shader (in parameter order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamAbi {
    /// A storage buffer (read-write, an array of 32-bit words) at this binding of set 0. Native
    /// float atomics add a second, f32-typed view of the same binding (both decorated `Aliased`).
    /// A buffer in [`Options::windowed_buffers`] binds only its low window here and has a
    /// `high` one.
    Buffer { binding: u32, high: Option<HighWindow> },
    /// An integer of `bytes` (4 or 8) at uniform word `word` (8-byte values: low word first).
    Int { bytes: u32, word: u32 },
    /// A float of `bytes` (4 or 8) at uniform word `word`.
    Float { bytes: u32, word: u32 },
}

/// The second window of a buffer bound twice. The low window (the parameter's own binding)
/// starts at byte 0; the high one at `binding` starts at byte `split`, whose word index
/// (`split / 4`) the caller writes to uniform word `split_word`. The kernel reads and writes
/// word `w` through the low window when `w < split / 4`, else word `w - split / 4` of the high
/// one. The caller picks `split` so that both windows fit a binding and the low one covers
/// `[0, split)`; `split` must respect the device's storage-buffer offset alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HighWindow {
    pub binding: u32,
    pub split_word: u32,
}

/// Uniform words 0..3 hold the grid (programs per axis), words 3..5 the folded dispatch's
/// workgroup counts along x and y; parameters start at this word.
pub const FIRST_PARAM_WORD: u32 = 6;

/// The compiled kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Artifact {
    pub words: Vec<u32>,
    /// The entry point's name (the kernel's name).
    pub entry_name: String,
    pub workgroup_size: [u32; 3],
    /// Workgroup memory the kernel declares, in bytes.
    pub workgroup_memory_bytes: u32,
    pub params: Vec<ParamAbi>,
    /// The binding of the uniform block (after the buffers, their high windows, the assertion
    /// buffer and the print buffer).
    pub uniform_binding: u32,
    /// Size of the uniform block in 32-bit words.
    pub uniform_words: u32,
    pub mode: Mode,
    /// The binding of the assertion report buffer (four u32 words, zeroed before the launch),
    /// present when the kernel has `tl.device_assert`s. After the launch, word 0 is 0 if no
    /// assertion failed, else the index in [`Artifact::asserts`] plus one of a failed one, and
    /// words 1..4 the program id (x, y, z) that reported it.
    pub assert_binding: Option<u32>,
    /// The kernel's assertions, in the order their reports number them.
    pub asserts: Vec<AssertSite>,
    /// The binding of the print buffer, present when the kernel has `tl.device_print`s: two
    /// header words (the records the kernel tried to append, zeroed before the launch; the
    /// capacity in records, written before the launch), then records of
    /// [`PRINT_RECORD_WORDS`] words: the thread's print sequence number, the site (an index in
    /// [`Artifact::prints`]), the program's linear index `x + gx * (y + gy * z)`, the element's
    /// row-major index, and the value's bits (low word, high word). Records past the capacity are
    /// counted, not written.
    pub print_binding: Option<u32>,
    /// The kernel's print sites, one per operand of each `tl.device_print` (one for a print
    /// without operands), in the order records number them.
    pub prints: Vec<PrintSite>,
    /// Uniform words (of 32-bit integer parameters) that the module reads as specialization
    /// constants instead, each with its word as `SpecId`: the value must be given when the
    /// pipeline is created ([`specialize`] writes it into the words; Vulkan's
    /// `VkSpecializationInfo` does the same), and the uniform block still holds it. The
    /// workgroup-matrix GEMMs take their row strides so (`cooperative/workgroup.rs`).
    pub specialized_words: Vec<u32>,
}

/// `words` with each specialization constant whose `SpecId` `values` lists made an ordinary
/// constant of that value (its `SpecId` decoration dropped), as a pipeline specialized with
/// those values would see it.
pub fn specialize(words: &[u32], values: &[(u32, u32)]) -> Vec<u32> {
    const DECORATE: u32 = 71;
    const SPEC_ID: u32 = 1;
    const SPEC_CONSTANT: u32 = 50;
    const CONSTANT: u32 = 43;
    let header = words.len().min(5);
    let instructions = || {
        let mut at = header;
        std::iter::from_fn(move || {
            let count = (*words.get(at)? >> 16) as usize;
            let instruction = words.get(at..at + count.max(1))?;
            at += count.max(1);
            Some(instruction)
        })
    };
    let mut given = rustc_hash::FxHashMap::default();
    for inst in instructions() {
        if inst[0] & 0xFFFF == DECORATE && inst.len() == 4 && inst[2] == SPEC_ID {
            if let Some(&(_, value)) = values.iter().find(|(id, _)| *id == inst[3]) {
                given.insert(inst[1], value);
            }
        }
    }
    let mut out = words[..header].to_vec();
    for inst in instructions() {
        let opcode = inst[0] & 0xFFFF;
        if opcode == DECORATE && inst.len() == 4 && inst[2] == SPEC_ID && given.contains_key(&inst[1]) {
            continue;
        }
        match given.get(inst.get(2).unwrap_or(&0)) {
            Some(&value) if opcode == SPEC_CONSTANT && inst.len() == 4 => {
                out.extend([(4 << 16) | CONSTANT, inst[1], inst[2], value]);
            }
            _ => out.extend_from_slice(inst),
        }
    }
    out
}

/// One `tl.device_assert` of the kernel: its message and where it is in the Python source.
#[derive(Clone, Debug, PartialEq)]
pub struct AssertSite {
    pub message: String,
    pub span: trident_midend::ir::Span,
}

/// One operand of a `tl.device_print` (or a print without operands): the static half of its
/// lines, `pid (x, y, z) idx (i, j) PREFIX (operand K) VALUE`.
#[derive(Clone, Debug, PartialEq)]
pub struct PrintSite {
    /// The prefix, trimmed (as the interpreter prints it).
    pub prefix: String,
    /// `Some(k)` when the print has several operands and this is operand `k` (its lines say
    /// `(operand k)`).
    pub operand: Option<u32>,
    pub printed: Printed,
    /// `hex=True`: the value's bits in hexadecimal.
    pub hex: bool,
    /// The operand's shape (empty for a scalar): a record's element index is row-major in it.
    pub shape: Vec<u32>,
    pub span: trident_midend::ir::Span,
}

/// What a print site's records hold in their value words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Printed {
    /// Nothing: a print without operands (one line per program, `pid (x, y, z) PREFIX`).
    Nothing,
    /// Elements of this type: their bits (narrow types in the low bits of the low word; bool as
    /// 0 or 1; 64-bit types over both words).
    Value(trident_midend::ir::DType),
    /// Pointers into the buffer of the pointer argument bound at `binding`: the byte offset.
    Pointer { binding: u32 },
}

/// Why a module could not be lowered to SPIR-V (the midend's error, shared by both backends).
pub use trident_midend::codegen::Error;

/// Lowers the kernel of `module` (TTGIR: every tensor has a layout, helpers are inlined).
pub fn emit(module: &trident_midend::ir::Module, options: &Options) -> Result<Artifact, Error> {
    let Some(kernel) = module.kernel() else {
        return Err(Error::Invalid("the module has no kernel".into()));
    };
    // The cooperative dots' staging may not fit beside what the rest of the kernel turns out to
    // need: then once more leaving exactly that (the dots stage smaller chunks of K), and if a
    // dot that then falls back to FMA needs more still, with every dot on FMA.
    let emitted = |options: &Options, reserve: u32| {
        let mut emitter = emit::Emitter::new(module, kernel, options);
        emitter.cooperative_reserve = reserve;
        let overflow = emitter.staging_overflow.clone();
        (emitter.kernel(), overflow.get())
    };
    let rest_bytes = match emitted(options, cooperative::RESERVED_BYTES) {
        (Err(_), Some(rest_bytes)) => rest_bytes,
        (result, _) => return result,
    };
    match emitted(options, rest_bytes) {
        (Err(_), Some(_)) => {
            let fma =
                Options { cooperative_matrix_f16: false, cooperative_matrix_bf16: false, ..options.clone() };
            emitted(&fma, 0).0
        }
        (result, _) => result,
    }
}

/// The folded dispatch for a grid: workgroup counts per dimension, each at most `max_per_dim`
/// (65535 on Vulkan). Programs are numbered linearly; the kernel recovers the program id from
/// the linear workgroup index and skips the workgroups past the grid's end.
pub fn fold_grid(grid: [u32; 3], max_per_dim: u32) -> Option<[u32; 3]> {
    let total: u64 = grid.iter().map(|&g| g as u64).product();
    if total == 0 {
        return Some([0, 0, 0]);
    }
    if grid.iter().all(|&g| g <= max_per_dim) && grid[1] == 1 && grid[2] == 1 {
        return Some(grid);
    }
    let max = max_per_dim as u64;
    let x = total.min(max);
    let y = total.div_ceil(x).min(max);
    let z = total.div_ceil(x * y);
    if z > max {
        return None;
    }
    Some([x as u32, y as u32, z as u32])
}

/// The module in SPIR-V assembly (rspirv's disassembly), for `--emit spvasm`.
pub fn disassemble(words: &[u32]) -> String {
    use rspirv::binary::Disassemble;
    match rspirv::dr::load_words(words) {
        Ok(module) => module.disassemble(),
        Err(e) => format!("; cannot disassemble: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Specializing sets the constants whose `SpecId`s it is given and leaves the others.
    #[test]
    fn specialize_makes_given_constants_ordinary() {
        use rspirv::binary::{Assemble, Disassemble};
        use rspirv::dr::Operand;
        use rspirv::spirv::Decoration;
        let mut b = rspirv::dr::Builder::new();
        let uint = b.type_int(32, 0);
        let stride = b.spec_constant_bit32(uint, 0);
        b.decorate(stride, Decoration::SpecId, [Operand::LiteralBit32(9)]);
        let other = b.spec_constant_bit32(uint, 5);
        b.decorate(other, Decoration::SpecId, [Operand::LiteralBit32(10)]);
        let words = b.module().assemble();
        let specialized = specialize(&words, &[(9, 4096), (11, 1)]);
        let text = rspirv::dr::load_words(&specialized).unwrap().disassemble();
        assert!(text.contains(&format!("%{stride} = OpConstant  %{uint}  4096")), "{text}");
        assert!(!text.contains("SpecId 9"), "{text}");
        assert!(text.contains(&format!("%{other} = OpSpecConstant  %{uint}  5")), "{text}");
        assert!(text.contains("SpecId 10"), "{text}");
        assert_eq!(specialize(&words, &[]), words);
    }

    #[test]
    fn folds_large_grids() {
        assert_eq!(fold_grid([100, 1, 1], 65535), Some([100, 1, 1]));
        assert_eq!(fold_grid([70000, 1, 1], 65535), Some([65535, 2, 1]));
        assert_eq!(fold_grid([4, 5, 6], 65535), Some([120, 1, 1]));
        assert_eq!(fold_grid([0, 5, 6], 65535), Some([0, 0, 0]));
    }
}
