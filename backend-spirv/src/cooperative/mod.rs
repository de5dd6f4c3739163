//! `tt.dot` of f16 or bf16 on cooperative matrices (`VK_KHR_cooperative_matrix`), where the
//! device has f16 x f16 -> f32 at 16x16x16 ([`crate::Options::cooperative_matrix_f16`]), or bf16
//! likewise ([`crate::Options::cooperative_matrix_bf16`], `SPV_KHR_bfloat16`); fp8 dots run on
//! the f16 matrices, their operands converted exactly while staged ([`matrix_type`]).
//!
//! A cooperative matrix belongs to a whole subgroup and its element-to-invocation mapping is the
//! driver's: values move in and out of one only through memory. So the dot goes through
//! workgroup memory, as the FMA path does (`dot.rs`), with tensor cores doing the products:
//! 1. A (m x k) and B (k x n) are written as f16 (bf16) into two workgroup arrays, a chunk of K
//!    at a time when both do not fit: each thread writes the elements it holds, four at a time
//!    where it holds four consecutive ones (`staging.rs`), B column-major where its layout holds
//!    it along K ([`BStaging`]); a thread holding several k tests each at run time, as the FMA
//!    path does. Rows are padded by 16 bytes, here and in the accumulator's stage, so that a
//!    matrix load's rows fall in different banks (H100, NVIDIA's Vulkan: fp16 matmul 98 -> 139
//!    TFLOP/s, flash attention d64 19 -> 43).
//! 2. The accumulator goes through a staging array of `band` rows x n f32, one band of rows at a
//!    time: each thread writes its accumulator registers of the band, each subgroup takes 16x16
//!    tiles of the band in turn (`SubgroupId`, then every `NumSubgroups`-th), loads the tile as an
//!    accumulator matrix, adds the products of its A and B tiles over the chunk's K
//!    (`OpCooperativeMatrixMulAddKHR`) and stores it back, and each thread reads its registers
//!    back. `band` is a power of two above every row the thread and warp bits of the
//!    accumulator's layout reach, so which band a register falls in is the same in every thread
//!    (its row is its register's constant row XOR a thread part below `band`), doubled while the
//!    memory allows (fewer bands: fewer barriers, more tiles for the subgroups to share). An
//!    accumulator that is a splat (a fresh product's zeros) is not written: each tile starts as
//!    the value.
//!
//! So the accumulator keeps the layout the rest of the kernel uses, and `D = A B + C` adds in the
//! tensor cores' f32. Tiles go to subgroups by `SubgroupId`, so the split is correct whatever
//! the subgroups' shape. Modules that may take this path declare the Vulkan memory model, which
//! cooperative matrices need (`Spv::vulkan_memory_model`); their workgroup accesses are then
//! `NonPrivatePointer` (without it NVIDIA's driver let a thread read back its own store of the
//! accumulator instead of its subgroup's product).
//!
//! A dot takes this path when its staging fits beside [`RESERVED_BYTES`] of other workgroup memory;
//! what the rest of the kernel needs is known only at the end, and a kernel whose total then
//! exceeds the device's is emitted again leaving exactly that (smaller chunks of K), and at last
//! with every dot on FMA (`crate::emit`).
//!
//! A dot whose loop carries its accumulator, and nothing else in the loop reads it (a GEMM's K
//! loop), keeps the accumulator in the subgroups' matrices from the loop's entry to its exit
//! instead of staging it at every dot ([`carried`]; H100, NVIDIA's Vulkan: the corpus' fp16
//! 4096^3 matmul 20.0 -> 98.2 TFLOP/s); so does one that the loop only scales by rows before
//! the dot (flash attention's output), where the device has per-element operations on matrices.
//!
//! One kernel's cooperative dots share their staging arrays, so they share one operand type
//! ([`operand_type`]): a kernel with f16 and bf16 dots runs its bf16 ones on FMA.
//!
//! Tried and dropped (H100, NVIDIA's Vulkan): the accumulator's stage as `f32vec4`, registers
//! stored and loaded four at a time (attention 54.7 -> 54.6 TFLOP/s, d128 51.1 -> 50.4: the
//! driver already merges the scalar accesses); twice the warps per program for the dot kernels
//! (matmul 179 -> 119, attention d64 44 -> 52, d128 40 -> 35: not a rule); loads of the next K
//! step in registers (`pipeline-dot-loads` past its register budget: matmul 180 -> 152); a
//! carried dot's last chunk of K multiplied at the start of the next iteration, after that
//! iteration's loads are issued (matmul fp16 179.5 -> 177.3, bf16 pointer-cast GEMM 164 -> 147:
//! the loads' latency is not what bounds it); dots outside carried loops on the carried path's
//! subgroup blocks (accumulator into matrices, block products sharing A and B tiles, back into
//! registers) instead of the tile loop per band (attention d64 full 54.6 -> 33.3 TFLOP/s, d128
//! 51.0 -> 48.6: the blocks' matrices beside the registers cost more than the loads saved); a
//! carried dot's A and B in two buffers (chunks of 16 of K, two buffers fitting where two of 32
//! do not), each chunk staged while the previous one is multiplied, one barrier a chunk (matmul
//! fp16 192.8 -> 173.0 TFLOP/s, bf16 183.5 -> 155.0, persistent 195.2 -> 173.8; correct, ci
//! 117/0: the chunks of 16, whose staging each thread guards per chunk, cost more than the
//! overlap gains).
//!
//! A carried accumulator in workgroup-scope matrices of `VK_NV_cooperative_matrix2` instead of
//! the subgroups' tiles (one `band x n` matrix per band of rows, A and B staged as here and loaded
//! as one `band x chunk` and one `chunk x n` matrix per chunk) was slower: the corpus' fp16
//! 4096^3 matmul 194.7 -> 174.4 TFLOP/s (H100, driver 580, chunks of 16: the driver keeps 8 KiB of
//! the 48 for its own staging).
//!
//! Not yet: int8 shapes, and overlapping the next chunk's writes with the current products.
//! Where the device has workgroup-scope matrices of `VK_NV_cooperative_matrix2`, a GEMM's K loop
//! takes them instead ([`workgroup`]): A and B loaded straight from the storage buffers, the
//! driver staging them itself (H100: the 4096^3 fp16 product at 280 TFLOP/s against this path's
//! 193); and where the device also reduces, converts and maps them element by element, a kernel
//! whose every float tensor fits them runs on them whole ([`workgroup_region`]: flash attention
//! with its softmax, 71 -> 195 TFLOP/s at d64 on an H200).
//! (Staging A and B as `f16vec2` pairs, two f16 registers joined by `OpBitFieldInsert`, was
//! tried before the rows were padded and lost, 98.2 -> 86.9 TFLOP/s; with padded rows the same
//! packing into `f16vec4` gains, 159 -> 179.)

pub mod carried;
mod staging;
pub mod tf32_split;
pub mod workgroup;
pub mod workgroup_region;

use staging::{operands, stage_operands, VECTOR_LANES};

use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass, Word};
use trident_midend::codegen::dot::DotOp;
use trident_midend::codegen::Isa;
use trident_midend::ir::{DType, Function, Opcode};
use trident_midend::layout::registers::{Affine, LayoutInfo};

use crate::emit::{EResult, Emitter};
use crate::spirv::{Class, Reg, Spv, ACCUMULATOR_USE, MATRIX_A_USE, MATRIX_B_USE};
use crate::{Mode, Options};

/// The side of a cooperative matrix tile.
const TILE: i64 = 16;

/// Workgroup memory left to the rest of the kernel (reductions, layout changes) when choosing
/// how much of K one chunk stages, at the first try (see [`crate::emit()`]'s retry): none. Dots'
/// results take register tiles and are stored from them, so most kernels with a dot need no
/// other workgroup memory, and one that does is emitted again leaving exactly what it needs
/// (H100, NVIDIA's Vulkan: 8 KiB left at the first try held the fp16 matmul's 128x256x64 tiles
/// to chunks of 16 of K, 138.6 TFLOP/s; chunks of 32 with none left, 159.5).
pub const RESERVED_BYTES: u32 = 0;

/// Elements after each staged row of A and B (16 bytes of 16-bit elements) and of the
/// accumulator stage (16 bytes of f32). A matrix load reads rows 16 bytes at a time, eight rows
/// at once on NVIDIA (`ldmatrix`): rows a multiple of 128 bytes apart (B's 256 f16 columns, the
/// stage's 64 f32 ones) would put all eight in the same four banks; 16 more bytes per row spread
/// them over all 32.
const ROW_PAD_HALVES: i64 = 8;
const ROW_PAD_WORDS: i64 = 4;

/// Elements between staged rows of A for a chunk of `chunk` columns of K.
fn a_stride(chunk: i64) -> i64 {
    chunk + ROW_PAD_HALVES
}

/// How B (k x n) is staged for a chunk of `chunk` of K: row-major (a padded row per k), or
/// column-major (a padded column per n) where B's layout gives a thread consecutive k but not
/// consecutive n (attention's `K^T`, loaded along the head dim), so that it too is written four
/// elements a store (`staging.rs`) and loaded as a column-major matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BStaging {
    column_major: bool,
    n: i64,
    chunk: i64,
}

impl BStaging {
    /// `dot`'s B staging for each chunk of K it may take: the orientation does not depend on the
    /// chunk, so its layout is looked at once per plan.
    fn of(dot: &DotOp) -> impl Fn(i64) -> BStaging {
        let (column_major, n) = (staging::runs_only_along_k(&dot.b_layout, dot.n), dot.n);
        move |chunk| BStaging { column_major, n, chunk }
    }

    /// Elements between the first elements of consecutive staged rows (or columns).
    fn stride(self) -> i64 {
        if self.column_major {
            self.chunk + ROW_PAD_HALVES
        } else {
            self.n + ROW_PAD_HALVES
        }
    }

    /// The elements the chunk takes.
    fn elements(self) -> i64 {
        if self.column_major {
            self.n * self.stride()
        } else {
            self.chunk * self.stride()
        }
    }

    /// Where element (k, n) of the chunk at `k0` goes.
    fn write(self, k0: i64) -> Affine {
        if self.column_major {
            Affine { coeffs: vec![1, self.stride()], offset: -k0 }
        } else {
            Affine { coeffs: vec![self.stride(), 1], offset: -k0 * self.stride() }
        }
    }

    /// The first element of the 16x16 tile at chunk-relative row `k` and column `col`.
    fn tile_at(self, e: &mut Emitter, col: Reg, k: i64) -> Reg {
        if self.column_major {
            let stride = e.u32c(self.stride() as u32);
            let columns = e.s.op(Op::IMul, Class::U32, &[col, stride]);
            e.add_imm(columns, k)
        } else {
            e.add_imm(col, k * self.stride())
        }
    }

    /// `OpCooperativeMatrixLoadKHR`'s layout for the tiles.
    fn layout(self) -> u32 {
        if self.column_major {
            COLUMN_MAJOR
        } else {
            ROW_MAJOR
        }
    }
}

/// Elements between rows of the accumulator stage of `n` columns.
fn stage_stride(n: i64) -> i64 {
    n + ROW_PAD_WORDS
}

/// `OpCooperativeMatrixLoadKHR`'s row-major and column-major layouts.
const ROW_MAJOR: u32 = 0;
const COLUMN_MAJOR: u32 = 1;

/// The 16-bit type a dot of `dtype` operands is staged and multiplied in: f16 for f16, and for
/// fp8 (e4m3 and e5m2 values are all f16 values, so the products are the exact ones and the
/// tensor cores' f32 accumulates them, as an fp8 dot does; no driver here lists fp8 matrices),
/// bf16 for bf16; `None` for other types.
pub fn matrix_type(dtype: DType) -> Option<DType> {
    match dtype {
        DType::F16 | DType::F8E4M3 | DType::F8E5M2 => Some(DType::F16),
        DType::BF16 => Some(DType::BF16),
        _ => None,
    }
}

/// The matrix type ([`matrix_type`]) of the dots a kernel may lower on cooperative matrices: f16
/// where the device has f16 matrices and the kernel an f16 or fp8 dot, else bf16 likewise, else
/// bf16 for a kernel with a tf32 dot where the device can split them ([`tf32_split`]);
/// `None` where no dot may (then no matrices, and no Vulkan memory model). Matrices also need a
/// workgroup of whole subgroups (a cooperative matrix needs every invocation of its subgroup). A
/// module that may use them declares the Vulkan memory model, decided before emission.
pub fn operand_type(options: &Options, func: &Function) -> Option<DType> {
    if options.mode != Mode::Vulkan
        || options.subgroup_size == 0
        || !(options.threads_per_warp * options.num_warps).is_multiple_of(options.subgroup_size)
    {
        return None;
    }
    let has_dot_of = |dtype: DType| {
        func.body.walk(func.entry).into_iter().any(|op| {
            func.body.opcode(op) == Opcode::Dot
                && matrix_type(func.body.ty(func.body.op(op).operands[0]).dtype()) == Some(dtype)
        })
    };
    let sixteen_bit =
        [(DType::F16, options.cooperative_matrix_f16), (DType::BF16, options.cooperative_matrix_bf16)]
            .into_iter()
            .find(|&(dtype, device_has)| device_has && has_dot_of(dtype))
            .map(|(dtype, _)| dtype);
    // A kernel of tf32 dots only: their GEMM loops may split them into bf16 products
    // (`tf32_split`); no other path takes f32 operands.
    let tf32 = || {
        let body = &func.body;
        options.splits_tf32_dots()
            && body.walk(func.entry).into_iter().any(|op| tf32_split::is_tf32_dot(func, op))
    };
    sixteen_bit.or_else(|| tf32().then_some(tf32_split::PARTS))
}

/// The elements of each staging array: A and B (16-bit floats) and the accumulator stage (f32).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sizes {
    a_halves: i64,
    b_halves: i64,
    stage_words: i64,
}

/// What one dot stages: A and B (16-bit elements), the accumulator (f32 elements).
#[derive(Clone, Copy)]
struct Need {
    a: i64,
    b: i64,
    stage: i64,
}

impl Need {
    /// What an `m x n` dot stages for a chunk of K (B staged as `b` says) and `band` accumulator
    /// rows (rows padded: [`ROW_PAD_HALVES`]).
    fn of(m: i64, b: BStaging, band: i64) -> Need {
        Need { a: m * a_stride(b.chunk), b: b.elements(), stage: band * stage_stride(b.n) }
    }

    /// What only the accumulator's trips through the stage need (a carried accumulator's entry
    /// and exit).
    fn stage_only(n: i64, band: i64) -> Need {
        Need { a: 0, b: 0, stage: band * stage_stride(n) }
    }
}

impl Sizes {
    /// These sizes grown to hold `need`.
    fn grown(self, need: Need) -> Sizes {
        Sizes {
            a_halves: self.a_halves.max(need.a),
            b_halves: self.b_halves.max(need.b),
            stage_words: self.stage_words.max(need.stage),
        }
    }

    fn bytes(self) -> i64 {
        (self.a_halves + self.b_halves) * 2 + self.stage_words * 4
    }
}

/// The workgroup arrays of the module's cooperative dots and the builtins that spread tiles.
pub struct Arrays {
    /// The arrays' variables, in the order of [`Sizes`]' fields.
    a: Word,
    b: Word,
    stage: Word,
    /// Elements each array needs (the largest dot's).
    sizes: Sizes,
    /// The type id of A's and B's elements (f16 or bf16: the kernel's [`operand_type`]).
    half: Word,
    /// The type id of the arrays' elements: vectors of [`VECTOR_LANES`] halves (`f16vec4` or
    /// `bf16vec4`, written a vector at a time where the layouts allow).
    element: Word,
    subgroup_id: Word,
    num_subgroups: Word,
}

impl Arrays {
    /// Reserves the ids; the variables are declared at the end ([`Arrays::declare`]), outside
    /// the function (a builder inside a block would put them in it).
    fn new(s: &mut Spv, operand: DType) -> Arrays {
        let (subgroup_id, num_subgroups) = (s.b.id(), s.b.id());
        let half = s.half_ty(operand);
        Arrays {
            half,
            element: s.vector_ty(half, VECTOR_LANES as u32),
            a: s.b.id(),
            b: s.b.id(),
            stage: s.b.id(),
            sizes: Sizes::default(),
            subgroup_id,
            num_subgroups,
        }
    }

    /// Declares the arrays at their sizes and the builtins; returns the arrays' bytes.
    pub fn declare(&self, s: &mut Spv) -> u32 {
        let u32t = s.u32_ty();
        let input = s.ptr_ty(StorageClass::Input, u32t);
        for (var, which) in
            [(self.subgroup_id, BuiltIn::SubgroupId), (self.num_subgroups, BuiltIn::NumSubgroups)]
        {
            s.b.variable(input, Some(var), StorageClass::Input, None);
            s.b.decorate(var, Decoration::BuiltIn, [rspirv::dr::Operand::BuiltIn(which)]);
        }
        let f32 = s.ty(Class::F32);
        let sizes = self.sizes;
        for (var, element, len, name) in [
            (self.a, self.element, sizes.a_halves / VECTOR_LANES, "cooperative_a"),
            (self.b, self.element, sizes.b_halves / VECTOR_LANES, "cooperative_b"),
            (self.stage, f32, sizes.stage_words, "cooperative_stage"),
        ] {
            let len = s.const_u32(len as u32);
            let array = s.b.type_array(element, len);
            let pointer = s.ptr_ty(StorageClass::Workgroup, array);
            s.b.variable(pointer, Some(var), StorageClass::Workgroup, None);
            s.b.name(var, name);
        }
        sizes.bytes() as u32
    }

    /// The builtin input variables (for the entry point's interface).
    pub fn builtins(&self) -> [Word; 2] {
        [self.subgroup_id, self.num_subgroups]
    }
}

/// How a dot stages: `band` accumulator rows at a time, `chunk` of K at a time.
struct Plan {
    band: i64,
    /// How B is staged, and the chunk of K staged at a time (`b.chunk`).
    b: BStaging,
}

/// The plan of `dot` on cooperative matrices, `None` where it cannot take them (then FMA).
fn plan(e: &Emitter, dot: &DotOp) -> Option<Plan> {
    if !takes_matrices(e, dot) {
        return None;
    }
    let mut band = band_rows(dot)?;
    let b_of = BStaging::of(dot);
    let need = |chunk: i64, band: i64| Need::of(dot.m, b_of(chunk), band);
    let chunk = chunk_of_k(e, dot, |chunk| need(chunk, band))?;
    // Bands as tall as the memory left allows: each band costs three barriers, and its tiles are
    // all the work the subgroups share between two of them.
    while dot.m % (band * 2) == 0 && fits(e, need(chunk, band * 2)) {
        band *= 2;
    }
    Some(Plan { band, b: b_of(chunk) })
}

/// Whether `dot`'s types and shape fit 16x16x16 tiles of the kernel's cooperative operand type
/// (which implies the memory model cooperative matrices need).
fn takes_matrices(e: &Emitter, dot: &DotOp) -> bool {
    let DotOp { a_type, b_type, integer, rank, batch, m, k, n, .. } = *dot;
    e.cooperative_operand.is_some()
        && matrix_type(a_type) == e.cooperative_operand
        && b_type == a_type
        && !integer
        && rank == 2
        && batch == 1
        && m % TILE == 0
        && n % TILE == 0
        && k % TILE == 0
}

/// The rows of the accumulator staged at a time: a power of two (at least a tile) above every
/// row the layout's thread and warp bits reach, so that which band a register falls in is the
/// same in every thread. `None` where the layout is not additive or the bands do not divide M.
fn band_rows(dot: &DotOp) -> Option<i64> {
    let c = &dot.c_layout;
    // Bands need a register's row to be its constant row plus a thread part on other bits.
    if !c.additive {
        return None;
    }
    let top_row = c.lane_bases.iter().chain(&c.warp_bases).map(|basis| basis[0]).max().unwrap_or(0);
    let band = i64::from((top_row + 1).next_power_of_two()).max(TILE);
    (dot.m % band == 0).then_some(band)
}

/// The largest chunk of K (K halved until it fits, a multiple of a tile dividing K) whose
/// staging fits the workgroup memory the dots may take: `needs(chunk)` gives what it stages. The
/// arrays are shared by the kernel's dots, each as large as the largest need.
fn chunk_of_k(e: &Emitter, dot: &DotOp, needs: impl Fn(i64) -> Need) -> Option<i64> {
    let mut chunk = dot.k;
    while chunk > TILE && !fits(e, needs(chunk)) {
        chunk /= 2;
    }
    // Every chunk stages each operand register of the thread under a test of its k, as the FMA
    // path does: past its bound on those writes, the dot is left to FMA, which says so.
    let operand_registers = (dot.a_layout.num_regs() + dot.b_layout.num_regs()) as u64;
    let chunks = (dot.k / chunk.max(1)) as u64;
    let bounded = chunks <= 1 || chunks * operand_registers <= crate::dot::MAX_CHUNKED_WRITES;
    (bounded && fits(e, needs(chunk)) && chunk % TILE == 0 && dot.k % chunk == 0).then_some(chunk)
}

/// Whether the staging arrays, grown to hold `need`, fit the workgroup memory the dots may take.
fn fits(e: &Emitter, need: Need) -> bool {
    let budget = i64::from(e.options.workgroup_memory_limit) - i64::from(e.cooperative_reserve);
    let reserved = e.cooperative.as_ref().map_or(Sizes::default(), |arrays| arrays.sizes);
    reserved.grown(need).bytes() <= budget
}

/// The staging arrays (`A`, `B`, the accumulator stage) and the subgroup builtins, as one
/// dot sees them.
#[derive(Clone, Copy)]
struct Staging {
    a: Word,
    b: Word,
    stage: Word,
    subgroup_id: Word,
    num_subgroups: Word,
    /// The type id of A's and B's elements.
    half: Word,
    /// The A and B arrays' element type ([`Arrays::element`]).
    element: Word,
}

impl Staging {
    /// A 16x16 tile of A as the cooperative matrix of type `ty`, from its array's 16-bit
    /// element `at` with rows `stride` elements apart (both multiples of the arrays' vector
    /// width: the load counts in vectors).
    fn load_a_tile(self, e: &mut Emitter, at: Reg, stride: i64, ty: Word) -> Word {
        let at = self.vector_index(e, at);
        let stride = e.s.const_u32((stride / VECTOR_LANES) as u32);
        load_matrix(e, self.a, self.element, at, stride, ty, ROW_MAJOR)
    }

    /// The 16x16 tile of B at chunk-relative row `k` and column `col`, staged as `b` says, as
    /// the cooperative matrix of type `ty`.
    fn load_b_tile(self, e: &mut Emitter, b: BStaging, col: Reg, k: i64, ty: Word) -> Word {
        let at = b.tile_at(e, col, k);
        let at = self.vector_index(e, at);
        let stride = e.s.const_u32((b.stride() / VECTOR_LANES) as u32);
        load_matrix(e, self.b, self.element, at, stride, ty, b.layout())
    }

    /// The accumulator tile of type `ty` at f32 element `at` of the stage (rows of `n` columns).
    fn load_stage_tile(self, e: &mut Emitter, at: Reg, n: i64, ty: Word) -> Word {
        let f32 = e.s.ty(Class::F32);
        let stride = e.s.const_u32(stage_stride(n) as u32);
        load_matrix(e, self.stage, f32, at, stride, ty, ROW_MAJOR)
    }

    /// Stores `matrix` as the accumulator tile at f32 element `at` of the stage (rows of `n`
    /// columns).
    fn store_stage_tile(self, e: &mut Emitter, at: Reg, n: i64, matrix: Word) {
        let f32 = e.s.ty(Class::F32);
        let pointer = element_pointer(e, self.stage, f32, at);
        let (layout, stride) = (e.s.const_u32(ROW_MAJOR), e.s.const_u32(stage_stride(n) as u32));
        let access = e.s.shared_access();
        e.s.build(|b| b.cooperative_matrix_store_khr(pointer, matrix, layout, Some(stride), access, []));
    }

    /// The index of the vector holding 16-bit element `index` of the A or B array.
    fn vector_index(self, e: &mut Emitter, index: Reg) -> Reg {
        let shift = e.u32c(VECTOR_LANES.trailing_zeros());
        e.s.op(Op::ShiftRightLogical, Class::U32, &[index, shift])
    }

    /// A pointer to 16-bit element `index` of the A or B array `var`: its component of the
    /// vector holding it.
    fn scalar_pointer(self, e: &mut Emitter, var: Word, index: Reg) -> Word {
        let vector = self.vector_index(e, index);
        let mask = e.u32c(VECTOR_LANES as u32 - 1);
        let component = e.s.op(Op::BitwiseAnd, Class::U32, &[index, mask]);
        let pointer = e.s.ptr_ty(StorageClass::Workgroup, self.half);
        e.s.inst(Op::AccessChain, pointer, &[var, vector.id, component.id])
    }
}

/// The module's staging arrays, grown to hold `need`.
fn reserve(e: &mut Emitter, need: Need) -> Staging {
    let operand =
        e.cooperative_operand.expect("a cooperative dot in a kernel with a cooperative operand type");
    let arrays = e.cooperative.get_or_insert_with(|| Arrays::new(&mut e.s, operand));
    arrays.sizes = arrays.sizes.grown(need);
    Staging {
        half: arrays.half,
        element: arrays.element,
        a: arrays.a,
        b: arrays.b,
        stage: arrays.stage,
        subgroup_id: arrays.subgroup_id,
        num_subgroups: arrays.num_subgroups,
    }
}

/// Lowers `dot` on cooperative matrices when it can take them; `Ok(false)` leaves it to FMA.
pub fn try_dot(e: &mut Emitter, dot: &DotOp) -> EResult<bool> {
    if carried::product(e, dot)? {
        return Ok(true);
    }
    let Some(Plan { band, b: b_staging }) = plan(e, dot) else { return Ok(false) };
    let DotOp { m, k, n, .. } = *dot;
    let cl = dot.c_layout.clone();
    let chunk = b_staging.chunk;
    let chunks = k / chunk;
    let operands = operands(e, dot, chunks)?;
    let mut acc = e.get(dot.c)?;
    let staging = reserve(e, Need::of(m, b_staging, band));
    for index in 0..chunks {
        let k0 = index * chunk;
        // 1. This chunk's A and B, once the previous chunk's readers are done.
        e.barrier();
        stage_operands(e, staging, dot, b_staging, &operands, k0)?;
        // 2. The accumulator, a band of rows at a time. A splat (a fresh product's zeros) needs
        // no staging in: each tile starts as the value.
        let splat = if index == 0 { splat_value(&acc) } else { None };
        for first_row in (0..m).step_by(band as usize) {
            let elements = band_elements(e, staging, &cl, n, first_row, band);
            e.barrier();
            if splat.is_none() {
                for &(i, pointer) in &elements {
                    e.s.store_shared(pointer, acc[i].id);
                }
                e.barrier();
            }
            band_products(e, staging, b_staging, first_row, band, splat);
            e.barrier();
            for &(i, pointer) in &elements {
                acc[i] = e.s.load_shared(Class::F32, pointer);
            }
        }
    }
    e.set(dot.result, acc);
    Ok(true)
}

/// The value every register of `regs` holds, where they are a splat (one id).
fn splat_value(regs: &[Reg]) -> Option<Word> {
    regs.iter().all(|reg| reg.id == regs[0].id).then(|| regs[0].id)
}

/// The accumulator registers (of layout `cl`, `n` columns) whose row lies in the band of `band`
/// rows at `first_row` (the same registers in every thread: [`band_rows`]), each with the pointer
/// to its element in the stage (row-major, band-relative rows).
fn band_elements(
    e: &mut Emitter,
    staging: Staging,
    cl: &LayoutInfo,
    n: i64,
    first_row: i64,
    band: i64,
) -> Vec<(usize, Word)> {
    let at = Affine { coeffs: vec![stage_stride(n), 1], offset: -first_row * stage_stride(n) };
    let base = e.affine_base(cl, &at);
    let f32 = e.s.ty(Class::F32);
    (0..cl.num_regs())
        .filter(|&i| (i64::from(cl.reg_coords[i][0]) / band) * band == first_row)
        .map(|i| {
            let index = e.add_imm(base, at.eval(&cl.reg_coords[i]));
            (i, element_pointer(e, staging.stage, f32, index))
        })
        .collect()
}

/// Every subgroup's tiles of the band at `first_row`: `stage += A[band rows] B` over the chunk,
/// or `stage = splat + A B` where the accumulator is the splat of the value `splat`.
fn band_products(
    e: &mut Emitter,
    staging: Staging,
    b_staging: BStaging,
    first_row: i64,
    band: i64,
    splat: Option<Word>,
) {
    let BStaging { chunk, n, .. } = b_staging;
    let Staging { subgroup_id, num_subgroups, half, .. } = staging;
    let f32 = e.s.ty(Class::F32);
    let a_ty = e.s.cooperative_matrix_ty(half, MATRIX_A_USE);
    let b_ty = e.s.cooperative_matrix_ty(half, MATRIX_B_USE);
    let c_ty = e.s.cooperative_matrix_ty(f32, ACCUMULATOR_USE);
    let tiles_per_row = (n / TILE) as u32;
    let tiles = (band / TILE) as u32 * tiles_per_row;
    // for tile = SubgroupId; tile < tiles; tile += NumSubgroups
    let start = e.s.load(Class::U32, subgroup_id);
    let step = e.s.load(Class::U32, num_subgroups);
    e.strided_loop(start, tiles, step, |e, tile| {
        let per_row = e.u32c(tiles_per_row);
        let tile_row = e.s.op(Op::UDiv, Class::U32, &[tile, per_row]);
        let tile_col = e.s.op(Op::UMod, Class::U32, &[tile, per_row]);
        // The tile's first element in the stage (band-relative rows) and in A (absolute rows).
        let row_stride = e.u32c((TILE * stage_stride(n)) as u32);
        let col_stride = e.u32c(TILE as u32);
        let stage_rows = e.s.op(Op::IMul, Class::U32, &[tile_row, row_stride]);
        let cols = e.s.op(Op::IMul, Class::U32, &[tile_col, col_stride]);
        let stage_at = e.add_u32(stage_rows, cols);
        let a_row_stride = e.u32c((TILE * a_stride(chunk)) as u32);
        let a_rows = e.s.op(Op::IMul, Class::U32, &[tile_row, a_row_stride]);
        let a_first = e.add_imm(a_rows, first_row * a_stride(chunk));
        let mut c = match splat {
            Some(value) => e.s.inst(Op::CompositeConstruct, c_ty, &[value]),
            None => staging.load_stage_tile(e, stage_at, n, c_ty),
        };
        for step_k in 0..chunk / TILE {
            let a_at = e.add_imm(a_first, step_k * TILE);
            let a = staging.load_a_tile(e, a_at, a_stride(chunk), a_ty);
            let b = staging.load_b_tile(e, b_staging, cols, step_k * TILE, b_ty);
            c = e.s.build(|builder| builder.cooperative_matrix_mul_add_khr(c_ty, None, a, b, c, None));
        }
        staging.store_stage_tile(e, stage_at, n, c);
    });
}

/// A pointer to element `index` of the workgroup array `var` of `element`s.
fn element_pointer(e: &mut Emitter, var: Word, element: Word, index: Reg) -> Word {
    let pointer = e.s.ptr_ty(StorageClass::Workgroup, element);
    e.s.inst(Op::AccessChain, pointer, &[var, index.id])
}

/// Loads a 16x16 cooperative matrix of type `ty` from element `index` of the workgroup array
/// `var` of `element`s, `stride` elements between its rows (or columns: `layout`).
fn load_matrix(
    e: &mut Emitter,
    var: Word,
    element: Word,
    index: Reg,
    stride: Word,
    ty: Word,
    layout: u32,
) -> Word {
    let pointer = element_pointer(e, var, element, index);
    let layout = e.s.const_u32(layout);
    let access = e.s.shared_access();
    e.s.build(|b| b.cooperative_matrix_load_khr(ty, None, pointer, layout, Some(stride), access, []))
}
