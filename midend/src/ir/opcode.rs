//! The op table: every opcode of TTIR (and, later, TTGIR) defined once.
//!
//! Each row gives the Rust variant, the text name, the operand and result arity, the number of
//! regions, the effect class and a one-line doc. The printer, the parser, the verifier and the
//! generic passes (CSE, DCE, LICM) read this table; nothing else lists ops (STYLE rule 8).
//! Type rules that go beyond arity live in `verifier.rs`, keyed by the same opcodes.
//!
//! Signedness lives in the types (see `types.rs`), but integer ops keep MLIR's signed/unsigned
//! names so the text reads like Triton's. Ops marked "trident" have no Triton equivalent: Triton
//! expands them in Python (`tl.sort`, `tl.topk`) and trident keeps them whole until a backend or a
//! later expansion pass lowers them.

/// How many operands or results an op takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Exactly(usize),
    /// Between the two bounds, inclusive.
    Between(usize, usize),
    AtLeast(usize),
}

impl Arity {
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k,
            Arity::Between(lo, hi) => (lo..=hi).contains(&n),
            Arity::AtLeast(lo) => n >= lo,
        }
    }
}

/// What an op does besides computing its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// No side effect: CSE may merge two equal ops, DCE may drop an unused one, LICM may hoist it.
    Pure,
    /// Reads memory (or another mutable state): droppable when unused, but never merged or
    /// hoisted past a write.
    Read,
    /// Writes memory, prints, synchronizes or transfers control: never dropped or moved.
    Write,
}

/// Static facts about one opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    pub name: &'static str,
    pub operands: Arity,
    pub results: Arity,
    pub regions: usize,
    pub effect: Effect,
    /// Ends a block (`scf.yield`, `tt.return`, ...).
    pub terminator: bool,
    pub doc: &'static str,
}

macro_rules! define_ops {
    ($( $variant:ident = $name:literal, ops $ops:expr, res $res:expr, regions $regions:expr,
        $effect:ident, $term:literal, $doc:literal; )*) => {
        /// Every op of the IR.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $( #[doc = $doc] $variant, )* }

        impl Opcode {
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$variant, )* ];

            pub fn info(self) -> OpInfo {
                match self {
                    $( Opcode::$variant => OpInfo {
                        name: $name,
                        operands: $ops,
                        results: $res,
                        regions: $regions,
                        effect: Effect::$effect,
                        terminator: $term,
                        doc: $doc,
                    }, )*
                }
            }

            pub fn name(self) -> &'static str {
                self.info().name
            }

            /// `tt.dot` or its Hopper form `ttng.warp_group_dot`: the ops computing `a @ b + c`.
            pub fn is_dot(self) -> bool {
                matches!(self, Opcode::Dot | Opcode::WarpGroupDot)
            }

            /// The keyword printed between an op's two regions (`scf.if ... else`, `scf.while ... do`,
            /// `ttng.warp_specialize ... producer`).
            pub fn second_region_keyword(self) -> &'static str {
                match self {
                    Opcode::While => "do",
                    Opcode::WarpSpecialize => "producer",
                    _ => "else",
                }
            }

            pub fn from_name(name: &str) -> Option<Opcode> {
                match name {
                    $( $name => Some(Opcode::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

use Arity::{AtLeast, Between, Exactly};

define_ops! {
    // ---- constants and integer arithmetic -------------------------------------------------
    Constant = "arith.constant", ops Exactly(0), res Exactly(1), regions 0, Pure, false,
        "A compile-time constant; attribute `value` (int, float or bool), splatted over tensor results.";
    AddI = "arith.addi", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Wrapping integer addition.";
    SubI = "arith.subi", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Wrapping integer subtraction.";
    MulI = "arith.muli", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Wrapping integer multiplication.";
    DivSI = "arith.divsi", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Signed division, truncating toward zero (C semantics).";
    DivUI = "arith.divui", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Unsigned division.";
    RemSI = "arith.remsi", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Signed remainder with the sign of the dividend (C semantics).";
    RemUI = "arith.remui", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Unsigned remainder.";
    AndI = "arith.andi", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Bitwise and (also logical and on i1).";
    OrI = "arith.ori", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Bitwise or.";
    XOrI = "arith.xori", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Bitwise exclusive or.";
    ShLI = "arith.shli", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Shift left; shift amounts at or above the width give 0.";
    ShRSI = "arith.shrsi", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Arithmetic shift right.";
    ShRUI = "arith.shrui", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Logical shift right.";
    MaxSI = "arith.maxsi", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Signed maximum.";
    MinSI = "arith.minsi", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Signed minimum.";
    MaxUI = "arith.maxui", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Unsigned maximum.";
    MinUI = "arith.minui", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Unsigned minimum.";
    CmpI = "arith.cmpi", ops Exactly(2), res Exactly(1), regions 0, Pure, false,
        "Integer comparison to i1; attribute `predicate`: eq ne slt sle sgt sge ult ule ugt uge.";
    MulHiUI = "tt.mulhiui", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "High half of the unsigned product (Philox).";

    // ---- float arithmetic -------------------------------------------------------------------
    AddF = "arith.addf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Float addition, rounded to the result type.";
    SubF = "arith.subf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Float subtraction.";
    MulF = "arith.mulf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Float multiplication.";
    DivF = "arith.divf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Float division (backends may approximate, as Triton's `/` does).";
    RemF = "arith.remf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Float remainder with the sign of the dividend (C fmod).";
    NegF = "arith.negf", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Float negation.";
    MaxNumF = "arith.maxnumf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Maximum; a NaN operand yields the other operand.";
    MinNumF = "arith.minnumf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Minimum; a NaN operand yields the other operand.";
    MaximumF = "arith.maximumf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Maximum that propagates NaN.";
    MinimumF = "arith.minimumf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Minimum that propagates NaN.";
    CmpF = "arith.cmpf", ops Exactly(2), res Exactly(1), regions 0, Pure, false,
        "Float comparison to i1; attribute `predicate`: oeq one olt ole ogt oge ueq une ult ule ugt uge ord uno.";
    Select = "arith.select", ops Exactly(3), res Exactly(1), regions 0, Pure, false, "Elementwise `cond ? a : b`.";
    PreciseSqrt = "tt.precise_sqrt", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Correctly rounded square root (`tl.sqrt_rn`).";
    PreciseDivF = "tt.precise_divf", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Correctly rounded division (`tl.div_rn`).";
    ClampF = "tt.clampf", ops Exactly(3), res Exactly(1), regions 0, Pure, false, "Clamp x to [lo, hi]; attribute `propagate_nan` (bool).";

    // ---- math ---------------------------------------------------------------------------------
    Exp = "math.exp", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "e^x.";
    Exp2 = "math.exp2", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "2^x.";
    Log = "math.log", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Natural logarithm.";
    Log2 = "math.log2", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Base-2 logarithm.";
    Sqrt = "math.sqrt", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Square root (backends may approximate).";
    Rsqrt = "math.rsqrt", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "1/sqrt(x).";
    Sin = "math.sin", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Sine.";
    Cos = "math.cos", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Cosine.";
    Tanh = "math.tanh", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Hyperbolic tangent.";
    AbsF = "math.absf", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Float absolute value.";
    AbsI = "math.absi", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Integer absolute value (wrapping).";
    Floor = "math.floor", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Round toward -inf.";
    Ceil = "math.ceil", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Round toward +inf.";
    Erf = "math.erf", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Error function.";
    Fma = "math.fma", ops Exactly(3), res Exactly(1), regions 0, Pure, false, "a*b + c with one rounding.";

    // ---- casts ----------------------------------------------------------------------------------
    ExtSI = "arith.extsi", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Sign-extend an integer.";
    ExtUI = "arith.extui", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Zero-extend an integer.";
    TruncI = "arith.trunci", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Truncate an integer (or reinterpret at equal width with other signedness).";
    ExtF = "arith.extf", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Widen a float exactly.";
    TruncF = "arith.truncf", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Narrow a float, rounding to nearest even.";
    FpToFp = "tt.fp_to_fp", ops Exactly(1), res Exactly(1), regions 0, Pure, false,
        "Conversion to or from fp8; attribute `rounding` (rtne) when narrowing; saturates to the largest finite value.";
    SIToFP = "arith.sitofp", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Signed integer to float, round to nearest even.";
    UIToFP = "arith.uitofp", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Unsigned integer (or i1) to float.";
    FPToSI = "arith.fptosi", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Float to signed integer, truncating toward zero.";
    FPToUI = "arith.fptoui", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Float to unsigned integer, truncating toward zero.";
    Bitcast = "tt.bitcast", ops Exactly(1), res Exactly(1), regions 0, Pure, false,
        "Reinterpret the bits at equal width (scalars, or pointers to another pointee type).";
    IntToPtr = "tt.int_to_ptr", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "i64 address to pointer.";
    PtrToInt = "tt.ptr_to_int", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Pointer to i64 address.";

    // ---- program geometry and tensor construction ------------------------------------------------
    GetProgramId = "tt.get_program_id", ops Exactly(0), res Exactly(1), regions 0, Pure, false, "Index of this program along `axis` (0..2).";
    GetNumPrograms = "tt.get_num_programs", ops Exactly(0), res Exactly(1), regions 0, Pure, false, "Grid size along `axis`.";
    MakeRange = "tt.make_range", ops Exactly(0), res Exactly(1), regions 0, Pure, false, "The i32 tensor start..end-1; attributes `start`, `end`.";
    Splat = "tt.splat", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Scalar to a tensor of equal elements.";
    Broadcast = "tt.broadcast", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Stretch size-1 dimensions to the result shape.";
    ExpandDims = "tt.expand_dims", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Insert a size-1 dimension at `axis`.";
    Reshape = "tt.reshape", ops Exactly(1), res Exactly(1), regions 0, Pure, false,
        "Same elements in row-major order, new shape; `allow_reorder` lets backends permute elements.";
    Trans = "tt.trans", ops Exactly(1), res Exactly(1), regions 0, Pure, false, "Permute dimensions: result dim i is operand dim `order[i]`.";
    Join = "tt.join", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Stack two equal-typed tensors along a new minor dimension of size 2.";
    Split = "tt.split", ops Exactly(1), res Exactly(2), regions 0, Pure, false, "Inverse of join: the minor dimension (size 2) into two tensors.";
    Cat = "tt.cat", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Concatenate along dim 0 (element order may be changed).";
    Gather = "tt.gather", ops Exactly(2), res Exactly(1), regions 0, Pure, false,
        "Elements of `src` along `axis` at the positions `index` holds: the result has `index`'s shape.";

    // ---- memory -----------------------------------------------------------------------------------
    AddPtr = "tt.addptr", ops Exactly(2), res Exactly(1), regions 0, Pure, false, "Pointer plus an element offset (scaled by the pointee size).";
    Load = "tt.load", ops Between(1, 3), res Exactly(1), regions 0, Read, false,
        "Load through pointers: (ptr[, mask[, other]]); attributes `cache`, `evict`, `volatile`.";
    Store = "tt.store", ops Between(2, 3), res Exactly(0), regions 0, Write, false,
        "Store through pointers: (ptr, value[, mask]); attributes `cache`, `evict`.";
    AtomicRmw = "tt.atomic_rmw", ops Between(2, 3), res Exactly(1), regions 0, Write, false,
        "Atomic read-modify-write (ptr, val[, mask]) returning the old value; `atomic_rmw_op` is and/or/xor/add/fadd/max/min/umax/umin/xchg; `sem`, `scope`.";
    AtomicCas = "tt.atomic_cas", ops Exactly(3), res Exactly(1), regions 0, Write, false,
        "Atomic compare-and-swap (ptr, cmp, val) returning the old value; `sem`, `scope`.";
    MakeTensorDescriptor = "tt.make_tensor_descriptor", ops AtLeast(3), res Exactly(1), regions 0, Pure, false,
        "Descriptor from (base, shape..., strides...) with the block shape of the result type; `padding`.";
    DescriptorLoad = "tt.descriptor_load", ops AtLeast(2), res Exactly(1), regions 0, Read, false,
        "Load the block at (desc, offsets...); out-of-bounds elements read the padding value.";
    DescriptorStore = "tt.descriptor_store", ops AtLeast(3), res Exactly(0), regions 0, Write, false,
        "Store (desc, value, offsets...); out-of-bounds elements are not written.";

    // ---- linear algebra, reductions, scans ------------------------------------------------------
    Dot = "tt.dot", ops Exactly(3), res Exactly(1), regions 0, Pure, false,
        "d = a @ b + c over the two minor dims (batched over a leading one); `input_precision` tf32/tf32x3/bf16x3/bf16x6/ieee, `max_num_imprecise_acc`.";
    Reduce = "tt.reduce", ops AtLeast(1), res AtLeast(1), regions 1, Pure, false,
        "Reduce operands along `axis` with the combine region (2n scalar args -> n via tt.reduce.return).";
    ReduceReturn = "tt.reduce.return", ops AtLeast(1), res Exactly(0), regions 0, Pure, true, "Terminator of a reduce combine region.";
    Scan = "tt.scan", ops AtLeast(1), res AtLeast(1), regions 1, Pure, false,
        "Inclusive scan along `axis` with the combine region; `reverse` scans from the end.";
    ScanReturn = "tt.scan.return", ops AtLeast(1), res Exactly(0), regions 0, Pure, true, "Terminator of a scan combine region.";
    Histogram = "tt.histogram", ops Between(1, 2), res Exactly(1), regions 0, Pure, false,
        "Count values 0..N-1 (N = result length) of (x[, mask]); other values are ignored.";
    Sort = "tt.sort", ops Exactly(1), res Exactly(1), regions 0, Pure, false,
        "trident: sort along `dim`, ascending unless `descending`.";
    TopK = "tt.topk", ops Exactly(1), res Exactly(1), regions 0, Pure, false,
        "trident: the k largest values along the last dim, largest first (k = result extent).";

    // ---- calls, debugging, synchronization ------------------------------------------------------
    Call = "tt.call", ops AtLeast(0), res AtLeast(0), regions 0, Write, false, "Call the function named by `callee`.";
    Return = "tt.return", ops AtLeast(0), res Exactly(0), regions 0, Write, true, "Return from a function.";
    Print = "tt.print", ops AtLeast(0), res Exactly(0), regions 0, Write, false, "Device print of operands; `prefix`, `hex`.";
    Assert = "tt.assert", ops Exactly(1), res Exactly(0), regions 0, Write, false, "Device assert that every element is true; `message`.";
    Barrier = "gpu.barrier", ops Exactly(0), res Exactly(0), regions 0, Write, false, "Block-wide barrier (`tl.debug_barrier`).";

    // ---- TTGIR -------------------------------------------------------------------------------------
    ConvertLayout = "ttg.convert_layout", ops Exactly(1), res Exactly(1), regions 0, Pure, false,
        "The same tensor in another layout (encoding); the only op that changes a value's layout.";
    LocalAlloc = "ttg.local_alloc", ops Exactly(0), res Exactly(1), regions 0, Write, false,
        "trident: reserve shared memory for `slots` tiles of `shape` (elements of `elem_bytes`), each staged with 16-byte padded rows for tensor-core operands (padded columns with `column_major`), or, with `swizzle_bytes`, as #ttg.nvmma_shared tiles of that swizzle (wgmma operands, 1024-byte aligned); with `tma`, one mbarrier per slot as well (filled by TMA copies); the i32 result names the ring.";
    LocalDealloc = "ttg.local_dealloc", ops Exactly(1), res Exactly(0), regions 0, Write, false,
        "trident: release the ring (the last one reserved first).";
    AsyncCopyGlobalToLocal = "ttg.async_copy_global_to_local", ops Between(3, 4), res Exactly(0), regions 0, Write, false,
        "trident: (ring, slot, pointers[, mask]) copy a tile into a ring slot asynchronously (cp.async); masked-off elements are written as zero.";
    AsyncCommitGroup = "ttg.async_commit_group", ops Exactly(0), res Exactly(0), regions 0, Write, false,
        "Close the group of asynchronous copies issued since the last commit.";
    AsyncCopyArrive = "ttng.async_copy_arrive", ops Exactly(3), res Exactly(0), regions 0, Write, false,
        "trident: (barriers, index, pred) when `pred`, each thread arrives on mbarrier `index` of a ttng.init_barriers array once its earlier asynchronous copies (cp.async) have landed (cp.async.mbarrier.arrive.noinc: the array's `arrivals` count these).";
    AsyncWait = "ttg.async_wait", ops Exactly(0), res Exactly(0), regions 0, Write, false,
        "Wait until at most `num` committed groups of asynchronous copies are still in flight (this thread's copies).";
    AsyncTmaCopyGlobalToLocal = "ttng.async_tma_copy_global_to_local", ops AtLeast(5), res Exactly(0), regions 0, Write, false,
        "(ring, slot, pred, desc, offsets...) when `pred`, copy the descriptor's block at `offsets` into a slot of a `tma` ring with TMA (cp.async.bulk.tensor), completing the slot's mbarrier phase when the bytes land.";
    WaitBarrier = "ttng.wait_barrier", ops Between(3, 4), res Exactly(0), regions 0, Write, false,
        "(ring or barriers, slot, phase[, pred]) when `pred` (always without it), wait until the mbarrier of a `tma` ring's slot (its TMA copy landed) or mbarrier `slot` of a ttng.init_barriers array has completed the phase of parity `phase`.";
    InitBarriers = "ttng.init_barriers", ops Exactly(0), res Exactly(1), regions 0, Write, false,
        "trident: reserve `count` mbarriers in shared memory, each completing a phase after `arrivals` arrivals; the i32 result names the array, released by ttg.local_dealloc (in stack order with the rings).";
    ArriveBarrier = "ttng.arrive_barrier", ops Exactly(3), res Exactly(0), regions 0, Write, false,
        "(barriers, index, pred) when `pred`, each warp arrives once on mbarrier `index` of a ttng.init_barriers array.";
    WarpSpecialize = "ttng.warp_specialize", ops Exactly(0), res AtLeast(0), regions 2, Write, false,
        "Run the default region in the program's `num_warps` warps and, beside it, the producer region in `producer_warps` more warps; per-thread registers move from the producer warpgroup to the default ones (`producer_registers`, `consumer_registers`). The default region yields the results; the producer region reads only scalars from outside and yields nothing.";
    ProgramGrid = "ttng.program_grid", ops Exactly(0), res Exactly(1), regions 0, Pure, false,
        "trident: the launch's grid along `axis` in programs, in a persistent kernel (one whose CTAs walk the grid: tt.get_program_id and tt.get_num_programs then name the CTA and the CTAs launched).";
    LocalLoad = "ttg.local_load", ops Exactly(2), res Exactly(1), regions 0, Read, false,
        "trident: (ring, slot) the tile in a ring slot, as a tensor-core dot operand (read in place by the dot).";

    WarpGroupDot = "ttng.warp_group_dot", ops Between(3, 4), res Exactly(1), regions 0, Read, false,
        "Hopper warpgroup MMA (wgmma): (a, b, c[, pred]) d = a @ b + c with the MMA v3 result layout; with `pred` false nothing is issued and no group is committed (the result is undefined); `is_async` leaves it in flight until a ttng.warp_group_dot_wait. Operands read from shared-memory rings (ttg.local_load) stay there; others are staged by the backend.";
    FenceAsyncShared = "ttng.fence_async_shared", ops Exactly(0), res Exactly(0), regions 0, Write, false,
        "Order this thread's earlier shared-memory writes (generic proxy: st.shared, cp.async) before later reads by the async proxy (wgmma, TMA).";
    WarpGroupDotWait = "ttng.warp_group_dot_wait", ops AtLeast(1), res AtLeast(1), regions 0, Write, false,
        "Wait until at most `pendings` groups of asynchronous warpgroup dots are in flight; yields its operands (the dot results, now complete).";

    // ---- structured control flow -------------------------------------------------------------------
    For = "scf.for", ops AtLeast(3), res AtLeast(0), regions 1, Write, false,
        "Loop (lb, ub, step, inits...); the body's args are (iv, iter_args...), it yields the next iter_args.";
    If = "scf.if", ops Exactly(1), res AtLeast(0), regions 2, Write, false,
        "Branch on an i1 scalar; both regions yield the results (the else region is empty when there are none).";
    While = "scf.while", ops AtLeast(0), res AtLeast(0), regions 2, Write, false,
        "Loop: the before region gets the carried values and ends in scf.condition; the after region yields the next values.";
    Condition = "scf.condition", ops AtLeast(1), res Exactly(0), regions 0, Pure, true,
        "Ends a while's before region: (cond, values...) continue into the after region or leave with the values.";
    Yield = "scf.yield", ops AtLeast(0), res Exactly(0), regions 0, Pure, true, "Ends a for/if/while region.";
}
