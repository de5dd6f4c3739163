//! A typed layer over rspirv's builder: value classes, deduplicated types and constants, one
//! helper per instruction shape, and the structured control-flow constructs the emitter needs.
//! The builder keeps the module's sections; the kernel's function is written as words beside it
//! (`function_words.rs` says why) and appended when the module is assembled ([`Spv::assemble`]).
//!
//! Every IR scalar lives in a SPIR-V value of one [`Class`]: narrow integers (i8, i16, u8, u16)
//! and the bits of f16, bf16 and fp8 live in 32-bit unsigned values, as in the nvptx backend's
//! registers. Pointers are not SPIR-V pointers (logical addressing has no pointer arithmetic):
//! a pointer is a byte offset (`u32`) into the storage buffer of one kernel argument, and that
//! argument is part of the class ([`Class::Ptr`]), so provenance is known statically for every
//! value.
//!
//! The function's first block is the prologue: function variables and per-thread values
//! computed once (thread coordinates, affine bases) are inserted there, before its branch to
//! the body, so they dominate every use. Values defined inside a structured construct never
//! escape it: region results and loop-carried values travel through function variables.

use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Op, StorageClass, Word};
use rustc_hash::FxHashMap;

use crate::function_words::FunctionWords;

/// What a SPIR-V value holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    Bool,
    U32,
    U64,
    F32,
    F64,
    /// A byte offset (u32) into the storage buffer of pointer argument `n` (its binding).
    Ptr(u32),
    /// A 16x16 f32 accumulator cooperative matrix of the subgroup: one tile of a dot's accumulator
    /// that a loop carries in matrices (`cooperative/carried.rs`), not an element of a thread.
    Matrix,
    /// A matrix of the whole workgroup (`SPV_NV_cooperative_matrix2`): a dot's operand or
    /// accumulator tile that the backend loads, multiplies and stores whole
    /// (`cooperative/workgroup.rs`).
    WorkgroupMatrix(WorkgroupMatrix),
}

/// The shape, use and component type of a workgroup-scope cooperative matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WorkgroupMatrix {
    pub rows: u32,
    pub cols: u32,
    /// [`MATRIX_A_USE`], [`MATRIX_B_USE`] or [`ACCUMULATOR_USE`].
    pub usage: u32,
    pub component: trident_midend::ir::DType,
}

impl Class {
    /// Whether values of this class are cooperative matrices (one value per matrix, not per
    /// element).
    pub fn is_matrix(self) -> bool {
        matches!(self, Class::Matrix | Class::WorkgroupMatrix(_))
    }

    /// 32-bit words one element of this class takes in workgroup memory.
    pub fn words(self) -> u32 {
        match self {
            Class::U64 | Class::F64 => 2,
            _ => 1,
        }
    }
}

/// `OpTypeCooperativeMatrixKHR`'s uses: the A operand, the B operand, the accumulator.
pub const MATRIX_A_USE: u32 = 0;
pub const MATRIX_B_USE: u32 = 1;
pub const ACCUMULATOR_USE: u32 = 2;

/// A SPIR-V value id with its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub id: Word,
    pub class: Class,
}

/// GLSL.std.450 extended instructions used here.
pub mod glsl {
    pub const ROUND_EVEN: u32 = 2;
    pub const FABS: u32 = 4;
    pub const SABS: u32 = 5;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const SIN: u32 = 13;
    pub const COS: u32 = 14;
    pub const TANH: u32 = 21;
    pub const EXP: u32 = 27;
    pub const LOG: u32 = 28;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
    pub const FMIN: u32 = 37;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const FMAX: u32 = 40;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FMA: u32 = 50;
    /// IEEE 754 minNum / maxNum: the non-NaN operand where one is NaN.
    pub const NMIN: u32 = 79;
    pub const NMAX: u32 = 80;
    pub const PACK_HALF_2X16: u32 = 58;
    pub const UNPACK_HALF_2X16: u32 = 62;
}

/// Labels of a structured loop under construction.
pub struct LoopLabels {
    pub header: Word,
    pub body: Word,
    pub cont: Word,
    pub merge: Word,
}

/// A type the emitter asks for repeatedly, as the key of [`Spv`]'s type cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum TypeKey {
    Pointer(StorageClass, Word),
    Vector(Word, u32),
    /// `struct { T, T }` (the result of `OpUMulExtended`).
    Pair(Word),
    /// The 16-bit unsigned integer (only loaded, stored and converted: 16-bit storage).
    U16,
    /// The 16-bit float (cooperative matrices' operands and their workgroup arrays).
    F16,
    /// bfloat16 (`SPV_KHR_bfloat16`: bf16 cooperative matrices' operands and their arrays).
    BF16,
    /// A 16x16 cooperative matrix of a component type, by its use (A, B, accumulator).
    CooperativeMatrix(Word, u32),
    /// A workgroup-scope cooperative matrix.
    WorkgroupMatrix(WorkgroupMatrix),
    /// A two-dimensional tensor layout whose clamped elements read as a constant
    /// (`SPV_NV_tensor_addressing`).
    TensorLayout,
    /// A two-dimensional tensor view that swaps the dimensions (a column-major tile).
    TransposingView,
}

pub struct Spv {
    pub b: Builder,
    /// Type ids by what they are. rspirv's builder deduplicates a type by scanning every global
    /// instruction, constants included, so asking it once per emitted instruction costs time
    /// quadratic in the kernel's size (seconds for a 2^20-element tensor on one warp); asking
    /// this map costs nothing.
    types: FxHashMap<TypeKey, Word>,
    /// The scalar classes' types (bool, u32, u64, f32, f64), asked for by nearly every
    /// instruction: an array, not the map.
    scalar_types: [Option<Word>; 5],
    /// The kernel's function, written as words outside the builder (`function_words.rs`).
    function: Option<FunctionWords>,
    consts: FxHashMap<(Word, u64), Word>,
    pub glsl: Word,
    /// Whether 64-bit integer / float types were used (capabilities added at the end).
    pub uses_int64: bool,
    pub uses_float64: bool,
    /// Whether `OpAtomicFAddEXT` was used (capability and extension added at the end).
    pub uses_atomic_float32_add: bool,
    /// Whether a 16-bit type was used (16-bit storage: capability and extension at the end).
    pub uses_16bit_storage: bool,
    /// Whether the f16 type was used (the `Float16` capability at the end).
    pub uses_float16: bool,
    /// Whether the bfloat16 type was used (`BFloat16TypeKHR` and, since it is only used for
    /// them, `BFloat16CooperativeMatrixKHR` at the end).
    pub uses_bfloat16: bool,
    /// The module declares the Vulkan memory model (cooperative matrices need it): barriers and
    /// fences then also make their writes available and visible (`MakeAvailable`,
    /// `MakeVisible`), which that model does not do implicitly.
    pub vulkan_memory_model: bool,
    /// Whether workgroup-scope matrices were loaded or stored (`SPV_NV_cooperative_matrix2`, and
    /// tensor addressing for their masked tiles: capabilities and extensions at the end).
    pub uses_workgroup_matrices: bool,
    /// Whether a per-element operation ran on matrices (`SPV_NV_cooperative_matrix2`'s
    /// `CooperativeMatrixPerElementOperationsNV` at the end).
    pub uses_per_element_operations: bool,
    /// Whether a row of a workgroup matrix was reduced, or an accumulator converted into an
    /// operand (`CooperativeMatrixReductionsNV`, `CooperativeMatrixConversionsNV` at the end).
    pub uses_matrix_reductions: bool,
    pub uses_matrix_conversions: bool,
    /// Functions besides the kernel's (what per-element operations call), as words.
    helpers: Vec<u32>,
    /// [`Spv::row_scale_function`]'s function, by the table it reads.
    row_scale: Option<(Word, Word)>,
    /// The kernel's function while a helper is written ([`Spv::begin_helper`]).
    parked: Option<FunctionWords>,
    /// Helpers made by [`Spv::begin_helper`], by what their caller says they compute.
    pub helper_functions: FxHashMap<String, Word>,
}

impl Spv {
    pub fn new() -> Spv {
        let mut b = Builder::new();
        b.set_version(1, 3);
        let glsl = b.ext_inst_import("GLSL.std.450");
        Spv {
            b,
            types: FxHashMap::default(),
            scalar_types: [None; 5],
            function: None,
            consts: FxHashMap::default(),
            glsl,
            uses_int64: false,
            uses_float64: false,
            uses_atomic_float32_add: false,
            uses_16bit_storage: false,
            uses_float16: false,
            uses_bfloat16: false,
            vulkan_memory_model: false,
            uses_workgroup_matrices: false,
            uses_per_element_operations: false,
            uses_matrix_reductions: false,
            uses_matrix_conversions: false,
            helpers: Vec::new(),
            row_scale: None,
            parked: None,
            helper_functions: FxHashMap::default(),
        }
    }

    // ---- types ------------------------------------------------------------------------------

    pub fn ty(&mut self, class: Class) -> Word {
        let slot = match class {
            Class::Bool => 0,
            Class::U32 | Class::Ptr(_) => 1,
            Class::U64 => {
                self.uses_int64 = true;
                2
            }
            Class::F32 => 3,
            Class::F64 => {
                self.uses_float64 = true;
                4
            }
            Class::Matrix => {
                let f32 = self.ty(Class::F32);
                return self.cooperative_matrix_ty(f32, ACCUMULATOR_USE);
            }
            Class::WorkgroupMatrix(matrix) => return self.workgroup_matrix_ty(matrix),
        };
        if let Some(id) = self.scalar_types[slot] {
            return id;
        }
        let id = match slot {
            0 => self.b.type_bool(),
            1 => self.b.type_int(32, 0),
            2 => self.b.type_int(64, 0),
            3 => self.b.type_float(32, None),
            _ => self.b.type_float(64, None),
        };
        self.scalar_types[slot] = Some(id);
        id
    }

    pub fn u32_ty(&mut self) -> Word {
        self.ty(Class::U32)
    }

    /// The 16-bit unsigned integer type, which 16-bit storage allows in storage buffers (loaded,
    /// stored and converted to and from 32 bits, nothing else).
    pub fn u16_ty(&mut self) -> Word {
        self.uses_16bit_storage = true;
        if let Some(&id) = self.types.get(&TypeKey::U16) {
            return id;
        }
        let id = self.b.type_int(16, 0);
        self.types.insert(TypeKey::U16, id);
        id
    }

    /// The 16-bit float type.
    pub fn f16_ty(&mut self) -> Word {
        self.uses_float16 = true;
        if let Some(&id) = self.types.get(&TypeKey::F16) {
            return id;
        }
        let id = self.b.type_float(16, None);
        self.types.insert(TypeKey::F16, id);
        id
    }

    /// The bfloat16 type (`OpTypeFloat 16 BFloat16KHR`), which only converts, moves through
    /// memory and feeds cooperative matrices.
    pub fn bf16_ty(&mut self) -> Word {
        self.uses_bfloat16 = true;
        if let Some(&id) = self.types.get(&TypeKey::BF16) {
            return id;
        }
        let id = self.b.type_float(16, Some(spirv::FPEncoding::BFloat16KHR));
        self.types.insert(TypeKey::BF16, id);
        id
    }

    /// The 16-bit float type of a cooperative dot's operands: f16, or bf16.
    pub fn half_ty(&mut self, dtype: trident_midend::ir::DType) -> Word {
        if dtype == trident_midend::ir::DType::BF16 {
            self.bf16_ty()
        } else {
            self.f16_ty()
        }
    }

    /// A 16x16 cooperative matrix of `component` at subgroup scope, for `usage` (0: A, 1: B, 2:
    /// accumulator).
    pub fn cooperative_matrix_ty(&mut self, component: Word, usage: u32) -> Word {
        let key = TypeKey::CooperativeMatrix(component, usage);
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let (scope, sixteen) = (self.const_u32(spirv::Scope::Subgroup as u32), self.const_u32(16));
        let usage_id = self.const_u32(usage);
        let id = self.b.type_cooperative_matrix_khr(component, scope, sixteen, sixteen, usage_id);
        self.types.insert(key, id);
        id
    }

    /// A cooperative matrix of the whole workgroup.
    pub fn workgroup_matrix_ty(&mut self, matrix: WorkgroupMatrix) -> Word {
        let key = TypeKey::WorkgroupMatrix(matrix);
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let component = match matrix.component {
            trident_midend::ir::DType::F32 => self.ty(Class::F32),
            half => self.half_ty(half),
        };
        let scope = self.const_u32(spirv::Scope::Workgroup as u32);
        let (rows, cols, usage) =
            (self.const_u32(matrix.rows), self.const_u32(matrix.cols), self.const_u32(matrix.usage));
        let id = self.b.type_cooperative_matrix_khr(component, scope, rows, cols, usage);
        self.types.insert(key, id);
        id
    }

    /// The type of two-dimensional tensor layouts whose clamped elements read as a constant
    /// (zero unless set).
    pub fn tensor_layout_ty(&mut self) -> Word {
        if let Some(&id) = self.types.get(&TypeKey::TensorLayout) {
            return id;
        }
        let (dimensions, constant_clamp) = (self.const_u32(2), self.const_u32(1));
        let id = self.b.type_tensor_layout_nv(dimensions, constant_clamp);
        self.types.insert(TypeKey::TensorLayout, id);
        id
    }

    /// The type of a two-dimensional tensor view whose dimensions are the layout's, swapped.
    pub fn transposing_view_ty(&mut self) -> Word {
        if let Some(&id) = self.types.get(&TypeKey::TransposingView) {
            return id;
        }
        let (dimensions, swapped) = (self.const_u32(2), [self.const_u32(1), self.const_u32(0)]);
        let no = self.const_of(Class::Bool, 0).id;
        let id = self.b.type_tensor_view_nv(dimensions, no, swapped);
        self.types.insert(TypeKey::TransposingView, id);
        id
    }

    pub fn ptr_ty(&mut self, storage: StorageClass, pointee: Word) -> Word {
        let key = TypeKey::Pointer(storage, pointee);
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let id = self.b.type_pointer(None, storage, pointee);
        self.types.insert(key, id);
        id
    }

    /// A vector of `count` elements of type `element`.
    pub fn vector_ty(&mut self, element: Word, count: u32) -> Word {
        let key = TypeKey::Vector(element, count);
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let id = self.b.type_vector(element, count);
        self.types.insert(key, id);
        id
    }

    /// `struct { T, T }` for `T` = `member`.
    pub fn pair_ty(&mut self, member: Word) -> Word {
        let key = TypeKey::Pair(member);
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let id = self.b.type_struct([member, member]);
        self.types.insert(key, id);
        id
    }

    // ---- constants ----------------------------------------------------------------------------

    fn constant(&mut self, ty: Word, bits: u64, wide: bool) -> Word {
        if let Some(&c) = self.consts.get(&(ty, bits)) {
            return c;
        }
        let c = if wide { self.b.constant_bit64(ty, bits) } else { self.b.constant_bit32(ty, bits as u32) };
        self.consts.insert((ty, bits), c);
        c
    }

    pub fn const_u32(&mut self, v: u32) -> Word {
        let ty = self.u32_ty();
        self.constant(ty, v as u64, false)
    }

    pub fn const_of(&mut self, class: Class, bits: u64) -> Reg {
        let ty = self.ty(class);
        let id = match class {
            Class::Bool => {
                if let Some(&c) = self.consts.get(&(ty, bits)) {
                    c
                } else {
                    let c = if bits != 0 { self.b.constant_true(ty) } else { self.b.constant_false(ty) };
                    self.consts.insert((ty, bits), c);
                    c
                }
            }
            Class::U64 | Class::F64 => self.constant(ty, bits, true),
            _ => self.constant(ty, bits & 0xffff_ffff, false),
        };
        Reg { id, class }
    }

    pub fn const_f32(&mut self, v: f32) -> Reg {
        self.const_of(Class::F32, v.to_bits() as u64)
    }

    pub fn const_reg_u32(&mut self, v: u32) -> Reg {
        self.const_of(Class::U32, v as u64)
    }

    // ---- instructions ---------------------------------------------------------------------

    /// The function under construction.
    fn body(&mut self) -> &mut FunctionWords {
        self.function.as_mut().expect("an instruction outside the function")
    }

    /// Appends `op` with id operands to the current block and returns its result id.
    pub fn inst(&mut self, op: Op, ty: Word, operands: &[Word]) -> Word {
        let id = self.b.id();
        self.body().push_ids(op, Some(ty), Some(id), operands.iter().copied());
        id
    }

    /// Appends an instruction with arbitrary operands (literals, scopes).
    pub fn inst_raw(&mut self, op: Op, ty: Option<Word>, operands: Vec<Operand>) -> Option<Word> {
        let id = ty.map(|_| self.b.id());
        self.body().push_operands(op, ty, id, &operands);
        id
    }

    /// `op` on registers, producing a value of `class`.
    pub fn op(&mut self, op: Op, class: Class, args: &[Reg]) -> Reg {
        let ty = self.ty(class);
        let id = self.b.id();
        self.body().push_ids(op, Some(ty), Some(id), args.iter().map(|r| r.id));
        Reg { id, class }
    }

    /// Appends to the current block the one instruction that `write` makes with rspirv's
    /// builder (its encoding of operands the emitter passes rarely: memory operands, loop
    /// controls, cooperative-matrix layouts), returning what `write` returns. Not for
    /// terminators: the builder ends its block after one.
    pub fn build<T>(&mut self, write: impl FnOnce(&mut Builder) -> Result<T, rspirv::dr::Error>) -> T {
        let out = write(&mut self.b).expect("the builder's scratch block");
        let instruction = self.b.pop_instruction().expect("an instruction in the scratch block");
        debug_assert!(
            self.b.pop_instruction().is_err(),
            "{:?} wrote more than one instruction",
            instruction.class.opcode
        );
        self.body().push_instruction(&instruction);
        out
    }

    /// A GLSL.std.450 instruction.
    pub fn ext(&mut self, which: u32, class: Class, args: &[Reg]) -> Reg {
        let ty = self.ty(class);
        let glsl = self.glsl;
        let ops = args.iter().map(|r| Operand::IdRef(r.id));
        let id = self.build(|b| b.ext_inst(ty, None, glsl, which, ops));
        Reg { id, class }
    }

    /// Begins the kernel's function (of type `fn_ty`, returning `return_ty`) with its prologue
    /// block selected; returns the function's id.
    pub fn begin_function(&mut self, return_ty: Word, fn_ty: Word) -> Word {
        assert!(self.function.is_none(), "one function per module");
        let id = self.b.id();
        let prologue = self.b.id();
        self.function = Some(FunctionWords::new(id, return_ty, fn_ty, prologue));
        // The scratch block of `build`, in a function of the builder's that is never assembled.
        self.b.begin_function(return_ty, None, spirv::FunctionControl::NONE, fn_ty).expect("scratch");
        self.b.begin_block(None).expect("scratch");
        id
    }

    /// Opens a block labelled `label` (a fresh label when `None`) and selects it.
    pub fn begin_block(&mut self, label: Option<Word>) -> Word {
        let label = label.unwrap_or_else(|| self.b.id());
        self.body().begin_block(label);
        label
    }

    /// Ends the function (the prologue gets its branch to the body then: see
    /// `function_words.rs`).
    pub fn end_function(&mut self) {
        self.b.end_function().expect("scratch");
        self.body().select_block(None);
    }

    /// The function a per-element operation calls to multiply each element of an f32 matrix by
    /// its row's factor: `(row, column, element, first_row) -> element * table[first_row + row]`,
    /// `table` a workgroup array of f32 holding the factors (of the rows of the tensor the matrix
    /// is a tile of, `first_row` the tile's first). Made once per table.
    pub fn row_scale_function(&mut self, table: Word) -> Word {
        if let Some((known, function)) = self.row_scale {
            assert_eq!(known, table, "one table of row factors per module");
            return function;
        }
        let (u32t, f32t) = (self.u32_ty(), self.ty(Class::F32));
        let (function, params) = self.begin_helper(f32t, &[u32t, u32t, f32t, u32t]);
        let &[row, _, element, first_row] = params.as_slice() else { unreachable!("four parameters") };
        let index = self.inst(Op::IAdd, u32t, &[first_row, row]);
        let factor_ptr = self.ptr_ty(StorageClass::Workgroup, f32t);
        let pointer = self.inst(Op::AccessChain, factor_ptr, &[table, index]);
        let factor = self.load_shared(Class::F32, pointer);
        let product = self.inst(Op::FMul, f32t, &[element, factor.id]);
        self.end_helper(product);
        self.row_scale = Some((table, function));
        function
    }

    /// Sets the kernel's function aside and begins a helper function returning `return_ty` with
    /// parameters of `params` types, its body block selected: what is emitted until
    /// [`Spv::end_helper`] goes into it (only values of its own and the module's constants may
    /// be used there). Returns the function's id and its parameters.
    pub fn begin_helper(&mut self, return_ty: Word, params: &[Word]) -> (Word, Vec<Word>) {
        assert!(self.parked.is_none(), "one helper at a time");
        let fn_ty = self.b.type_function(return_ty, params.iter().copied());
        let id = self.b.id();
        let prologue = self.b.id();
        let mut helper = FunctionWords::new(id, return_ty, fn_ty, prologue);
        let params: Vec<Word> = params
            .iter()
            .map(|&ty| {
                let param = self.b.id();
                helper.add_parameter(ty, param);
                param
            })
            .collect();
        let body = self.b.id();
        helper.begin_block(body);
        self.parked = self.function.replace(helper);
        (id, params)
    }

    /// Ends the helper [`Spv::begin_helper`] began, returning `value`, and selects the kernel's
    /// function again where it was.
    pub fn end_helper(&mut self, value: Word) {
        self.body().push_ids(Op::ReturnValue, None, None, [value].into_iter());
        let helper = std::mem::replace(&mut self.function, self.parked.take());
        helper.expect("a helper begun").assemble_into(&mut self.helpers);
    }

    /// The module's words: the builder's sections, then the function.
    pub fn assemble(self) -> Vec<u32> {
        use rspirv::binary::Assemble;
        let mut module = self.b.module();
        module.functions.clear();
        let mut words = module.assemble();
        if let Some(function) = self.function {
            function.assemble_into(&mut words);
        }
        words.extend(self.helpers);
        words
    }

    /// Runs `f` with the prologue block selected: what it appends there dominates the body.
    pub fn in_prologue<T>(&mut self, f: impl FnOnce(&mut Spv) -> T) -> T {
        let saved = self.body().selected_block();
        self.body().select_block(Some(0));
        let out = f(self);
        self.body().select_block(saved);
        out
    }

    /// A function variable of `class` (declared at the top of the prologue).
    pub fn var(&mut self, class: Class) -> Word {
        let ty = self.ty(class);
        let pty = self.ptr_ty(StorageClass::Function, ty);
        let id = self.b.id();
        self.body().var(pty, id);
        id
    }

    pub fn load(&mut self, class: Class, pointer: Word) -> Reg {
        let ty = self.ty(class);
        Reg { id: self.inst(Op::Load, ty, &[pointer]), class }
    }

    pub fn store(&mut self, pointer: Word, value: Word) {
        self.body().push_ids(Op::Store, None, None, [pointer, value].into_iter());
    }

    /// The memory operand of accesses to memory other invocations read or write (workgroup
    /// memory): under the Vulkan memory model an access without `NonPrivatePointer` is private
    /// to its invocation, so the barriers' availability and visibility would not reach it (a
    /// thread could read back its own earlier store instead of another subgroup's).
    pub fn shared_access(&self) -> Option<spirv::MemoryAccess> {
        self.vulkan_memory_model.then_some(spirv::MemoryAccess::NON_PRIVATE_POINTER)
    }

    /// A load of memory other invocations write ([`Spv::shared_access`]).
    pub fn load_shared(&mut self, class: Class, pointer: Word) -> Reg {
        let ty = self.ty(class);
        let access = self.shared_access();
        Reg { id: self.build(|b| b.load(ty, None, pointer, access, [])), class }
    }

    /// A store to memory other invocations read ([`Spv::shared_access`]).
    pub fn store_shared(&mut self, pointer: Word, value: Word) {
        let access = self.shared_access();
        self.build(|b| b.store(pointer, value, access, []));
    }

    pub fn select(&mut self, cond: Reg, a: Reg, b: Reg) -> Reg {
        let ty = self.ty(a.class);
        Reg { id: self.inst(Op::Select, ty, &[cond.id, a.id, b.id]), class: a.class }
    }

    /// A memory fence (`OpMemoryBarrier`) of `scope` with `semantics` (constant ids).
    pub fn memory_barrier(&mut self, scope: Word, semantics: Word) {
        self.build(|b| b.memory_barrier(scope, semantics));
    }

    /// A workgroup barrier that also orders workgroup memory.
    pub fn barrier(&mut self) {
        let workgroup = self.const_u32(spirv::Scope::Workgroup as u32);
        let mut semantics =
            spirv::MemorySemantics::ACQUIRE_RELEASE | spirv::MemorySemantics::WORKGROUP_MEMORY;
        if self.vulkan_memory_model {
            semantics |= spirv::MemorySemantics::MAKE_AVAILABLE | spirv::MemorySemantics::MAKE_VISIBLE;
        }
        let semantics = self.const_u32(semantics.bits());
        self.build(|b| b.control_barrier(workgroup, workgroup, semantics));
    }

    // ---- structured control flow ----------------------------------------------------------

    pub fn branch(&mut self, target: Word) {
        self.body().push_ids(Op::Branch, None, None, [target].into_iter());
    }

    pub fn branch_conditional(&mut self, cond: Word, then: Word, other: Word) {
        self.body().push_ids(Op::BranchConditional, None, None, [cond, then, other].into_iter());
    }

    pub fn ret(&mut self) {
        self.body().push_ids(Op::Return, None, None, [].into_iter());
    }

    /// Opens `if cond { ... }`; returns the merge label for [`Spv::end_if`].
    pub fn begin_if(&mut self, cond: Reg) -> Word {
        let then = self.b.id();
        let merge = self.b.id();
        self.build(|b| b.selection_merge(merge, spirv::SelectionControl::NONE));
        self.branch_conditional(cond.id, then, merge);
        self.begin_block(Some(then));
        merge
    }

    pub fn end_if(&mut self, merge: Word) {
        self.branch(merge);
        self.begin_block(Some(merge));
    }

    /// Opens `if cond { A } else { B }`: returns (else label, merge label); the then-part follows.
    pub fn begin_if_else(&mut self, cond: Reg) -> (Word, Word) {
        let (_, other, merge) = self.begin_if_else_labelled(cond);
        (other, merge)
    }

    /// [`Spv::begin_if_else`], also returning the then-part's label (for an `OpPhi` at the merge of
    /// values each part computes in its first block).
    pub fn begin_if_else_labelled(&mut self, cond: Reg) -> (Word, Word, Word) {
        let then = self.b.id();
        let other = self.b.id();
        let merge = self.b.id();
        self.build(|b| b.selection_merge(merge, spirv::SelectionControl::NONE));
        self.branch_conditional(cond.id, then, other);
        self.begin_block(Some(then));
        (then, other, merge)
    }

    pub fn else_part(&mut self, other: Word, merge: Word) {
        self.branch(merge);
        self.begin_block(Some(other));
    }

    /// Opens a loop: the condition is computed in the current block after this returns, then
    /// [`Spv::loop_test`] branches to the body or out.
    ///
    /// Every loop is marked `DontUnroll`. The emitter already unrolls what it wants unrolled
    /// (registers); the loops it keeps (k loops of `tl.dot`, partials of a reduction, rank
    /// counts, `scf.for`) have constant trip counts that drivers would otherwise unroll, and
    /// lavapipe then spends a minute compiling a flash-attention kernel instead of seconds.
    pub fn begin_loop(&mut self) -> LoopLabels {
        self.begin_loop_with(spirv::LoopControl::DONT_UNROLL)
    }

    /// [`Spv::begin_loop`] with loop control `control` instead (`NONE` leaves the unrolling to
    /// the driver).
    pub fn begin_loop_with(&mut self, control: spirv::LoopControl) -> LoopLabels {
        let header = self.b.id();
        let test = self.b.id();
        let labels = LoopLabels { header, body: self.b.id(), cont: self.b.id(), merge: self.b.id() };
        self.branch(header);
        self.begin_block(Some(header));
        self.build(|b| b.loop_merge(labels.merge, labels.cont, control, []));
        self.branch(test);
        self.begin_block(Some(test));
        labels
    }

    /// Leaves the loop unless `cond`; the body follows.
    pub fn loop_test(&mut self, labels: &LoopLabels, cond: Reg) {
        self.branch_conditional(cond.id, labels.body, labels.merge);
        self.begin_block(Some(labels.body));
    }

    /// Closes the body; `step` runs in the continue block; code after the loop follows.
    pub fn end_loop(&mut self, labels: &LoopLabels, step: impl FnOnce(&mut Spv)) {
        self.branch(labels.cont);
        self.begin_block(Some(labels.cont));
        step(self);
        self.branch(labels.header);
        self.begin_block(Some(labels.merge));
    }
}
