//! The emitter: walks the kernel's TTGIR in program order and writes PTX for each op.
//!
//! Each IR value maps to registers (the [`Lowering`] state the emitter dereferences to): one for
//! a scalar (every thread holds the same value), one per register index of the layout for a
//! tensor. Which rule lowers an op, and the rules that do not depend on the instruction set
//! (shape ops, reductions, thread coordinates, layout changes), are the midend's
//! ([`trident_midend::codegen`]); the op families live in their own files (`arith.rs`,
//! `memory.rs`, `control.rs`, `reduce.rs`, `dot.rs`, `sort.rs`). This file holds the PTX
//! primitives those rules are written on ([`Isa`]: registers per dtype, prologue arithmetic,
//! shared-memory stores and loads, vectorized where alignment allows, barriers), the ops only
//! PTX lowers this way ([`LowerOps::target_op`]), line info, and the kernel frame.

use rustc_hash::FxHashMap;
use std::fmt::Write;

use trident_midend::codegen::{AffineBases, Isa, LowerOps, Lowering};
use trident_midend::ir::{Attr, Block, DType, Function, Module, Op, Opcode, Span, Type, Value};

use crate::ptx::{f32_lit, f64_lit, Class, Ptx, Reg};
use crate::shared_vectors::{base_alignment, padded_rows, vector_runs};
use crate::{Artifact, Error, Options, ParamAbi};
use trident_midend::layout::registers::{Affine, LayoutInfo};

pub type EResult<T> = Result<T, Error>;

/// The emitter's caches of registers computed in the body (affine and XOR bases), which a
/// warp-specialized producer's code may neither use (the consumers computed them) nor leave to the
/// consumers ([`Emitter::take_body_caches`]).
pub type BodyCaches = (AffineBases<Reg>, FxHashMap<(Vec<u32>, Vec<u32>), (Reg, u32)>);

/// The register class holding one element of `d` (narrow integers live in 32-bit registers,
/// sign- or zero-extended; f16, bf16 and fp8 keep their bits in 16-bit registers).
pub fn class_of(d: DType) -> Class {
    match d {
        DType::I1 => Class::Pred,
        DType::I8 | DType::I16 | DType::I32 | DType::U8 | DType::U16 | DType::U32 => Class::B32,
        DType::I64 | DType::U64 => Class::B64,
        DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 => Class::B16,
        DType::F32 => Class::F32,
        DType::F64 => Class::F64,
    }
}

/// The class of a value's elements (pointers are 64-bit).
pub fn class_of_type(t: &Type) -> Class {
    if t.is_ptr() {
        Class::B64
    } else {
        class_of(t.dtype())
    }
}

trident_midend::deref_to_lowering!(Emitter, lowering, Reg);

pub struct Emitter<'a> {
    /// The function, its values' registers and layouts (what every backend tracks alike).
    lowering: Lowering<'a, Reg>,
    pub options: &'a Options,
    pub ptx: Ptx,
    /// [`Emitter::xor_linear_base`] results by the values of `f` on the lane and warp bases.
    xor_bases: FxHashMap<(Vec<u32>, Vec<u32>), (Reg, u32)>,
    smem: Option<Reg>,
    pub shared_bytes: u32,
    /// Bytes at the bottom of shared memory held by live rings (`ttg.local_alloc`); scratch
    /// (layout changes, reductions, dot staging) starts above them.
    pub ring_top: u32,
    /// Live rings by handle value: their place and geometry.
    pub rings: FxHashMap<Value, crate::shared_rings::Ring>,
    /// Values of `ttg.local_load`: the byte address of their tile in a ring slot (read in place
    /// by the dot) and the ring's row stride in elements.
    pub in_shared: FxHashMap<Value, crate::shared_rings::SharedTile>,
    last_line: u32,
    /// Whether a ping-pong warpgroup dot was lowered: the hand-over's first turn is given in
    /// the prologue and its last taken before `ret` ([`crate::warp_group_dot`]).
    pub takes_turns: bool,
    /// Warpgroup dots whose registers an earlier dot prepared before its own MMAs
    /// ([`crate::warp_group_dot`]): no instruction may write them once that one is in flight.
    pub prepared_dots: FxHashMap<Op, crate::warp_group_dot::Prepared>,
    /// The `tt.make_tensor_descriptor` ops of the kernel whose maps the programs build, in
    /// program order: op `i` builds its tensor map in slot `i` of the program's global scratch
    /// ([`crate::tma`]).
    tensor_map_ops: Vec<Op>,
    /// Those whose maps the runtime encodes on the host instead, in parameter order, and the
    /// generic address of each one's parameter once read.
    host_tensor_maps: Vec<(Op, crate::HostTensorMap, Option<Reg>)>,
    /// The generic address of this program's global scratch, once a tensor map needs it.
    global_scratch: Option<Reg>,
    /// Whether the kernel is persistent (it reads `ttng.program_grid`): it then takes the
    /// launch's program grid as three `.u32` parameters after the global scratch.
    persistent: bool,
    /// The consumer and producer warp groups of a warp-specialized kernel
    /// ([`crate::warp_specialize`]).
    pub roles: Option<crate::warp_specialize::Roles>,
    /// The thread that issues TMA copies and initializes barriers: 0, or the producer's first.
    pub leader: u32,
    /// Whether the producer region is being emitted.
    pub in_producer: bool,
    /// The producer's code, placed after the kernel's.
    pub producer: crate::warp_specialize::ProducerCode,
    /// Where the ring stack starts (above a warp-specialized kernel's hand-over area).
    pub ring_floor: u32,
    /// Module-level declarations the body needs (system calls, string constants), in order.
    pub module_decls: Vec<String>,
    /// The symbol of each string constant declared, by its text.
    pub global_strings: FxHashMap<String, String>,
}

/// The grid's axes, as PTX names them.
const GRID_AXES: [&str; 3] = ["x", "y", "z"];

impl<'a> Emitter<'a> {
    pub fn new(module: &'a Module, func: &'a Function, options: &'a Options) -> Emitter<'a> {
        let mut ptx = Ptx::default();
        let tid = ptx.reg(Class::B32);
        let lane = ptx.reg(Class::B32);
        let warp = ptx.reg(Class::B32);
        ptx.prologue_ins(format!("mov.u32 {tid}, %tid.x"));
        ptx.prologue_ins(format!("and.b32 {lane}, {tid}, 31"));
        // The warp index goes through a lane-0 shuffle, as in Triton: ptxas then knows it is the
        // same in every lane and keeps what derives from it (wgmma descriptors, shared-memory
        // bases of a warp's rows) in uniform registers instead of per-thread ones.
        let warp_of_thread = ptx.reg(Class::B32);
        ptx.prologue_ins(format!("shr.u32 {warp_of_thread}, {tid}, 5"));
        ptx.prologue_ins(format!("shfl.sync.idx.b32 {warp}, {warp_of_thread}, 0, 31, -1"));
        // A descriptor whose fields are all launch scalars gets its tensor map from the host.
        let mut tensor_map_ops = Vec::new();
        let mut host_tensor_maps = Vec::new();
        let mut persistent = false;
        for op in func.body.walk(func.entry) {
            persistent |= func.body.opcode(op) == Opcode::ProgramGrid;
            if func.body.opcode(op) != Opcode::MakeTensorDescriptor {
                continue;
            }
            match crate::tma::host_map(func, op) {
                Some(map) => host_tensor_maps.push((op, map, None)),
                None => tensor_map_ops.push(op),
            }
        }
        Emitter {
            lowering: Lowering::new(module, func, [tid, lane, warp]),
            options,
            ptx,
            xor_bases: FxHashMap::default(),
            smem: None,
            takes_turns: false,
            prepared_dots: FxHashMap::default(),
            shared_bytes: 0,
            ring_top: 0,
            rings: FxHashMap::default(),
            in_shared: FxHashMap::default(),
            last_line: 0,
            tensor_map_ops,
            host_tensor_maps,
            global_scratch: None,
            persistent,
            roles: None,
            leader: 0,
            in_producer: false,
            producer: Default::default(),
            ring_floor: 0,
            module_decls: Vec::new(),
            global_strings: FxHashMap::default(),
        }
    }

    /// Takes the caches of registers computed in the body ([`BodyCaches`]), leaving them empty.
    pub fn take_body_caches(&mut self) -> BodyCaches {
        (self.lowering.take_affine_bases(), std::mem::take(&mut self.xor_bases))
    }

    /// Puts back caches taken by [`Emitter::take_body_caches`].
    pub fn restore_body_caches(&mut self, (affine, xor): BodyCaches) {
        self.lowering.restore_affine_bases(affine);
        self.xor_bases = xor;
    }

    // ---- global scratch ---------------------------------------------------------------------

    /// Bytes of global scratch each program needs (a tensor map per descriptor it makes).
    pub fn global_scratch_bytes(&self) -> u32 {
        self.tensor_map_ops.len() as u32 * crate::tma::TENSOR_MAP_BYTES
    }

    /// The global scratch slot of the tensor map that `op` builds.
    pub fn tensor_map_slot(&self, op: Op) -> EResult<u32> {
        match self.tensor_map_ops.iter().position(|&o| o == op) {
            Some(slot) => Ok(slot as u32),
            None => self.invalid("a tensor descriptor made outside the kernel's body"),
        }
    }

    /// The generic address of the host-encoded tensor map of `op` (its kernel parameter), or
    /// `None` when the program builds `op`'s map.
    pub fn host_tensor_map(&mut self, op: Op) -> Option<Reg> {
        let index = self.host_tensor_maps.iter().position(|(o, _, _)| *o == op)?;
        if let Some(r) = self.host_tensor_maps[index].2 {
            return Some(r);
        }
        let (raw, r) = (self.ptx.reg(Class::B64), self.ptx.reg(Class::B64));
        // The parameter's address in the .param space, made generic: TMA reads the map there
        // (a `__grid_constant__` map, as CUDA passes one).
        self.ptx.prologue_ins(format!("mov.b64 {raw}, {}_param_map{index}", self.func.name));
        self.ptx.prologue_ins(format!("cvta.param.u64 {r}, {raw}"));
        self.host_tensor_maps[index].2 = Some(r);
        Some(r)
    }

    /// The global and the generic address of tensor map `slot` of this program: the hidden
    /// scratch parameter plus the program's linear index times the scratch per program.
    pub fn tensor_map_address(&mut self, slot: u32) -> (Reg, Reg) {
        let scratch = match self.global_scratch {
            Some(r) => r,
            None => {
                let name = &self.func.name;
                let (base, pid, tmp, offset, r) = (
                    self.ptx.reg(Class::B64),
                    self.ptx.reg(Class::B32),
                    self.ptx.reg(Class::B32),
                    self.ptx.reg(Class::B64),
                    self.ptx.reg(Class::B64),
                );
                let per_program = self.global_scratch_bytes();
                self.ptx.prologue_ins(format!("ld.param.u64 {base}, [{name}_param_scratch]"));
                // pid = x + nx * (y + ny * z), Horner's rule from the outermost axis.
                self.ptx.prologue_ins(format!("mov.u32 {pid}, %ctaid.z"));
                for axis in ["y", "x"] {
                    self.ptx.prologue_ins(format!("mov.u32 {tmp}, %nctaid.{axis}"));
                    self.ptx.prologue_ins(format!("mul.lo.u32 {pid}, {pid}, {tmp}"));
                    self.ptx.prologue_ins(format!("mov.u32 {tmp}, %ctaid.{axis}"));
                    self.ptx.prologue_ins(format!("add.u32 {pid}, {pid}, {tmp}"));
                }
                self.ptx.prologue_ins(format!("mul.wide.u32 {offset}, {pid}, {per_program}"));
                self.ptx.prologue_ins(format!("add.s64 {r}, {base}, {offset}"));
                self.global_scratch = Some(r);
                r
            }
        };
        let generic = self.reg(Class::B64);
        self.ins(format!("add.s64 {generic}, {scratch}, {}", slot * crate::tma::TENSOR_MAP_BYTES));
        let global = self.reg(Class::B64);
        self.ins(format!("cvta.to.global.u64 {global}, {generic}"));
        (global, generic)
    }

    // ---- registers ----------------------------------------------------------------------------

    pub fn reg(&mut self, class: Class) -> Reg {
        self.ptx.reg(class)
    }

    pub fn ins(&mut self, text: impl AsRef<str>) {
        self.ptx.ins(text)
    }

    // ---- thread indices -----------------------------------------------------------------------

    /// [`Isa::affine_base`], for the files that name no trait.
    pub fn affine_base(&mut self, l: &LayoutInfo, f: &Affine) -> Reg {
        Isa::affine_base(self, l, f)
    }

    /// The thread's part of a byte offset `f(coordinate)` that is linear over GF(2) (a swizzled
    /// shared tile, [`trident_midend::layout::NvmmaShared::byte_offset`]): the XOR of `f` over
    /// the lane and warp bases this thread's id selects, computed in the prologue, and the mask
    /// of bits it may have. A register's offset is then `thread ^ f(reg_coords[i])`.
    pub fn xor_linear_base(&mut self, l: &LayoutInfo, f: &dyn Fn(&[u32]) -> u32) -> (Reg, u32) {
        // The values of `f` on the lane and warp bases determine the result: the cache key.
        let lane_values: Vec<u32> = l.lane_bases.iter().map(|v| f(v)).collect();
        let warp_values: Vec<u32> = l.warp_bases.iter().map(|v| f(v)).collect();
        let key = (lane_values, warp_values);
        if let Some(&cached) = self.xor_bases.get(&key) {
            return cached;
        }
        let mut r = self.prologue_zero();
        let mut mask = 0;
        for (values, id) in [(&key.0, self.lane), (&key.1, self.warp)] {
            for (b, &value) in values.iter().enumerate() {
                if value != 0 {
                    mask |= value;
                    r = self.prologue_xor_bit(r, id, b as u32, value);
                }
            }
        }
        self.xor_bases.insert(key, (r, mask));
        (r, mask)
    }

    /// The address `base + (thread ^ offset)` as a register and an immediate: the immediate is
    /// `offset` itself where its bits miss the thread's (then XOR is addition).
    pub fn xor_address(&mut self, base: Reg, thread: (Reg, u32), offset: u32) -> (Reg, u32) {
        let (t, mask) = thread;
        if offset & mask == 0 {
            let a = self.reg(Class::B32);
            self.ins(format!("add.s32 {a}, {base}, {t}"));
            return (a, offset);
        }
        let x = self.reg(Class::B32);
        self.ins(format!("xor.b32 {x}, {t}, {offset}"));
        self.ins(format!("add.s32 {x}, {base}, {x}"));
        (x, 0)
    }

    // ---- shared memory --------------------------------------------------------------------

    /// The address of the start of shared memory.
    pub fn smem_start(&mut self) -> Reg {
        if let Some(r) = self.smem {
            return r;
        }
        let r = self.ptx.reg(Class::B32);
        self.ptx.prologue_ins(format!("mov.u32 {r}, smem"));
        self.smem = Some(r);
        r
    }

    /// Where scratch shared memory starts: above the live rings, on a multiple of 128 bytes (a
    /// TMA copy's tile needs it; the rings' mbarriers may end between two).
    fn scratch_offset(&self) -> u32 {
        self.ring_top.next_multiple_of(128)
    }

    /// The address where scratch shared memory starts ([`Emitter::scratch_offset`]).
    pub fn smem_base(&mut self) -> Reg {
        let start = self.smem_start();
        let offset = self.scratch_offset();
        if offset == 0 {
            return start;
        }
        let r = self.reg(Class::B32);
        self.ins(format!("add.s32 {r}, {start}, {offset}"));
        r
    }

    /// Records that scratch use needs `bytes` of shared memory (above the live rings).
    pub fn need_shared(&mut self, bytes: u64) -> EResult<()> {
        let cap = if self.options.sm >= 90 { 227 * 1024 } else { 163 * 1024 };
        let bytes = bytes + self.scratch_offset() as u64;
        if bytes > cap {
            return self.exceeds(&format!(
                "a layout change through {bytes} bytes of shared memory (the limit is {cap}); smaller \
                 blocks, fewer pipeline stages or fewer warps need less"
            ));
        }
        self.shared_bytes = self.shared_bytes.max(bytes as u32);
        Ok(())
    }

    /// A barrier of every thread of the program, or in a warp-specialized kernel of every
    /// consumer thread (named barrier 0 with their count).
    pub fn barrier(&mut self) {
        match self.roles {
            Some(roles) => self.ins(format!("bar.sync 0, {}", roles.consumer_threads)),
            None => self.ins("bar.sync 0"),
        }
    }

    /// For an op with an optional predicate operand (the same in every thread): a uniform branch
    /// past what the op emits when it is false, to the label returned (place it with
    /// [`Emitter::end_skip`]); `None` without a predicate.
    pub fn skip_unless(&mut self, pred: Option<Value>, what: &str) -> EResult<Option<String>> {
        let Some(pred) = pred else { return Ok(None) };
        let pred = self.get(pred)?[0];
        let label = self.ptx.label(what);
        self.ins(format!("@!{pred} bra.uni {label}"));
        Ok(Some(label))
    }

    /// The end of what [`Emitter::skip_unless`] branches past.
    pub fn end_skip(&mut self, label: Option<String>) {
        if let Some(label) = label {
            self.ptx.place_label(&label);
        }
    }

    /// Stores a register to shared memory at byte address `addr + offset`.
    pub fn st_shared(&mut self, addr: Reg, offset: i64, v: Reg) {
        match v.class {
            Class::Pred => {
                let t = self.reg(Class::B32);
                self.ins(format!("selp.u32 {t}, 1, 0, {v}"));
                self.ins(format!("st.shared.u32 [{addr}+{offset}], {t}"));
            }
            Class::B16 => self.ins(format!("st.shared.b16 [{addr}+{offset}], {v}")),
            Class::B32 => self.ins(format!("st.shared.b32 [{addr}+{offset}], {v}")),
            Class::B64 => self.ins(format!("st.shared.b64 [{addr}+{offset}], {v}")),
            Class::F32 => self.ins(format!("st.shared.f32 [{addr}+{offset}], {v}")),
            Class::F64 => self.ins(format!("st.shared.f64 [{addr}+{offset}], {v}")),
        }
    }

    pub fn ld_shared(&mut self, class: Class, addr: Reg, offset: i64) -> Reg {
        let r = self.reg(class);
        match class {
            Class::Pred => {
                let t = self.reg(Class::B32);
                self.ins(format!("ld.shared.u32 {t}, [{addr}+{offset}]"));
                self.ins(format!("setp.ne.u32 {r}, {t}, 0"));
            }
            Class::B16 => self.ins(format!("ld.shared.b16 {r}, [{addr}+{offset}]")),
            Class::B32 => self.ins(format!("ld.shared.b32 {r}, [{addr}+{offset}]")),
            Class::B64 => self.ins(format!("ld.shared.b64 {r}, [{addr}+{offset}]")),
            Class::F32 => self.ins(format!("ld.shared.f32 {r}, [{addr}+{offset}]")),
            Class::F64 => self.ins(format!("ld.shared.f64 {r}, [{addr}+{offset}]")),
        }
        r
    }

    /// Stores `regs` (one class, consecutive elements) at byte address `addr + offset` with one
    /// vector store; the caller guarantees the address is aligned to their total size (at most
    /// 16 bytes). 16-bit elements are packed in pairs into 32-bit words first (the lower address
    /// goes to the low half, as PTX vector packing and little-endian memory agree).
    pub fn st_shared_vec(&mut self, addr: Reg, offset: i64, regs: &[Reg]) {
        if regs.len() == 1 {
            return self.st_shared(addr, offset, regs[0]);
        }
        let (words, ty) = match regs[0].class {
            Class::B16 => {
                let words: Vec<Reg> = regs
                    .chunks(2)
                    .map(|pair| {
                        let w = self.reg(Class::B32);
                        self.ins(format!("mov.b32 {w}, {{{}, {}}}", pair[0], pair[1]));
                        w
                    })
                    .collect();
                (words, "b32")
            }
            Class::B32 | Class::Pred => (regs.to_vec(), "b32"),
            Class::F32 => (regs.to_vec(), "f32"),
            Class::B64 => (regs.to_vec(), "b64"),
            Class::F64 => (regs.to_vec(), "f64"),
        };
        let list = words.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ");
        match words.len() {
            1 => self.ins(format!("st.shared.{ty} [{addr}+{offset}], {list}")),
            n => self.ins(format!("st.shared.v{n}.{ty} [{addr}+{offset}], {{{list}}}")),
        }
    }

    /// Loads `count` consecutive elements of `class` from byte address `addr + offset` with one
    /// vector load (the mirror of [`Emitter::st_shared_vec`], same alignment contract).
    pub fn ld_shared_vec(&mut self, class: Class, addr: Reg, offset: i64, count: usize) -> Vec<Reg> {
        if count == 1 {
            return vec![self.ld_shared(class, addr, offset)];
        }
        let (word_class, ty, per_word) = match class {
            Class::B16 => (Class::B32, "b32", 2),
            Class::B32 | Class::Pred => (Class::B32, "b32", 1),
            Class::F32 => (Class::F32, "f32", 1),
            Class::B64 => (Class::B64, "b64", 1),
            Class::F64 => (Class::F64, "f64", 1),
        };
        let words: Vec<Reg> = (0..count / per_word).map(|_| self.reg(word_class)).collect();
        let list = words.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ");
        match words.len() {
            1 => self.ins(format!("ld.shared.{ty} {list}, [{addr}+{offset}]")),
            n => self.ins(format!("ld.shared.v{n}.{ty} {{{list}}}, [{addr}+{offset}]")),
        }
        if per_word == 1 {
            return words;
        }
        let mut out = Vec::with_capacity(count);
        for w in words {
            let (lo, hi) = (self.reg(Class::B16), self.reg(Class::B16));
            self.ins(format!("mov.b32 {{{lo}, {hi}}}, {w}"));
            out.push(lo);
            out.push(hi);
        }
        out
    }

    /// Writes every register of `src` (layout `src_l`) to shared memory at element index
    /// `write(coordinate)`, in a buffer of `elements` elements of `class`. Call
    /// [`Emitter::barrier`] before (the buffer may still be read) and after.
    ///
    /// Registers holding consecutive elements of the buffer go out as one vector store of up to
    /// 16 bytes ([`vector_runs`]) where the address is provably aligned ([`base_alignment`]):
    /// a layout with 8 halves per thread along the contiguous dim writes one `st.shared.v4.b32`
    /// instead of 8 scalar stores. Predicates (stored as words) are never grouped.
    pub fn write_shared(
        &mut self,
        src: &[Reg],
        src_l: &LayoutInfo,
        write: &Affine,
        class: Class,
        elements: u64,
    ) -> EResult<()> {
        let bytes = class.bytes() as i64;
        self.need_shared(elements * bytes as u64)?;
        let addr = self.shared_address(src_l, write, bytes);
        let unique = src_l.unique_registers();
        let mut at: FxHashMap<i64, Reg> = FxHashMap::default();
        let mut order = Vec::new();
        let mut vectorizable = class != Class::Pred;
        for (i, &r) in src.iter().enumerate() {
            if unique[i] {
                let off = write.eval(&src_l.reg_coords[i]) * bytes;
                // Two registers on one address (a non-injective `write`) keep the scalar
                // stores in register order, where the last one wins as before.
                vectorizable &= at.insert(off, r).is_none() && r.class == class;
                order.push((off, r));
            }
        }
        if !vectorizable {
            for (off, r) in order {
                self.st_shared(addr, off, r);
            }
            return Ok(());
        }
        let align = base_alignment(src_l, write, bytes);
        let offsets: Vec<i64> = order.iter().map(|&(off, _)| off).collect();
        for (off, width) in vector_runs(&offsets, bytes, align) {
            let regs: Vec<Reg> = (0..width as i64).map(|j| at[&(off + j * bytes)]).collect();
            self.st_shared_vec(addr, off, &regs);
        }
        Ok(())
    }

    /// The shared-memory byte address `smem + affine_base(l, f) * bytes`, the runtime part of
    /// `f(coordinate)` for this thread's registers of layout `l` (each register adds its own
    /// constant byte offset, `f(its coordinate) * bytes`).
    fn shared_address(&mut self, l: &LayoutInfo, f: &Affine, bytes: i64) -> Reg {
        let smem = self.smem_base();
        let base = self.affine_base(l, f);
        let addr = self.reg(Class::B32);
        self.ins(format!("mad.lo.s32 {addr}, {base}, {bytes}, {smem}"));
        addr
    }

    /// Reads, for every register of layout `dst_l`, the element at index `read(coordinate)`;
    /// consecutive aligned elements come in with one vector load, like [`Emitter::write_shared`].
    pub fn read_shared(&mut self, dst_l: &LayoutInfo, read: &Affine, class: Class) -> Vec<Reg> {
        let bytes = class.bytes() as i64;
        let addr = self.shared_address(dst_l, read, bytes);
        let offsets: Vec<i64> = dst_l.reg_coords.iter().map(|c| read.eval(c) * bytes).collect();
        let align = if class == Class::Pred { 1 } else { base_alignment(dst_l, read, bytes) };
        let mut cache: FxHashMap<i64, Reg> = FxHashMap::default();
        for (off, width) in vector_runs(&offsets, bytes, align) {
            let regs = self.ld_shared_vec(class, addr, off, width);
            for (j, r) in regs.into_iter().enumerate() {
                cache.insert(off + j as i64 * bytes, r);
            }
        }
        offsets.iter().map(|off| cache[off]).collect()
    }

    // ---- module declarations -----------------------------------------------------------------

    /// Declares `text` at module level (once).
    pub fn declare(&mut self, text: &str) {
        if !self.module_decls.iter().any(|d| d == text) {
            self.module_decls.push(text.to_string());
        }
    }

    /// A NUL-terminated string constant in global memory (one per text); its symbol.
    pub fn global_string(&mut self, text: &str) -> String {
        if let Some(name) = self.global_strings.get(text) {
            return name.clone();
        }
        let name = format!("trident_str_{}", self.global_strings.len());
        let bytes: Vec<String> = text.bytes().chain([0]).map(|b| b.to_string()).collect();
        self.declare(&format!(".global .align 1 .b8 {name}[{}] = {{{}}};", bytes.len(), bytes.join(", ")));
        self.global_strings.insert(text.to_string(), name.clone());
        name
    }

    // ---- line info ----------------------------------------------------------------------------

    pub fn line_info(&mut self, span: Span) {
        let Some(src) = &self.module.source else { return };
        if span.is_none() {
            return;
        }
        let (line, col) = src.line_col(span.start);
        if line != self.last_line {
            self.last_line = line;
            let text = src.line_text(line).trim().to_string();
            let _ = writeln!(self.ptx.body, "\t.loc 1 {line} {col}");
            self.ptx.comment(&format!("{line}: {text}"));
        }
    }

    // ---- ops ------------------------------------------------------------------------------------

    /// Lowers every op of a block in order.
    pub fn block(&mut self, block: trident_midend::ir::Block) -> EResult<()> {
        let ops = self.func.body.blocks[block].ops.clone();
        for op in ops {
            self.op(op)?;
        }
        Ok(())
    }

    /// Lowers one op (with its line info and error span).
    pub fn op(&mut self, op: Op) -> EResult<()> {
        let saved = self.current.replace(op);
        self.line_info(self.func.body.span(op));
        let r = trident_midend::codegen::lower(self, op);
        self.current = saved;
        r
    }

    // ---- the kernel frame -------------------------------------------------------------------

    /// Lowers the whole kernel and assembles the PTX module text.
    pub fn kernel(mut self) -> EResult<Artifact> {
        let func = self.func;
        let name = func.name.clone();
        let mut params = Vec::new();
        let mut param_decls = Vec::new();
        for (i, &p) in func.params().iter().enumerate() {
            let ty = self.ty(p).clone();
            let pname = format!("{name}_param_{i}");
            let (abi, decl, ld) = match &ty {
                t if t.is_ptr() => (ParamAbi::Pointer, ".u64", "u64"),
                t => match t.dtype() {
                    DType::I1 | DType::I8 | DType::U8 | DType::I16 | DType::U16 | DType::I32 | DType::U32 => {
                        (ParamAbi::Int(4), ".u32", "u32")
                    }
                    DType::I64 | DType::U64 => (ParamAbi::Int(8), ".u64", "u64"),
                    DType::F32 => (ParamAbi::Float(4), ".f32", "f32"),
                    DType::F64 => (ParamAbi::Float(8), ".f64", "f64"),
                    other => return self.unsupported(&format!("a kernel parameter of type {other}")),
                },
            };
            params.push(abi);
            param_decls.push(format!("\t.param {decl} {pname}"));
            let class = class_of_type(&ty);
            let r = self.reg(class);
            if ty.is_ptr() {
                let raw = self.reg(Class::B64);
                self.ptx.prologue_ins(format!("ld.param.u64 {raw}, [{pname}]"));
                self.ptx.prologue_ins(format!("cvta.to.global.u64 {r}, {raw}"));
            } else if class == Class::Pred {
                let t = self.reg(Class::B32);
                self.ptx.prologue_ins(format!("ld.param.u32 {t}, [{pname}]"));
                self.ptx.prologue_ins(format!("setp.ne.u32 {r}, {t}, 0"));
            } else {
                self.ptx.prologue_ins(format!("ld.param.{ld} {r}, [{pname}]"));
            }
            self.set(p, vec![r]);
        }
        self.roles = crate::warp_specialize::Roles::of(&self)?;
        if let Some(roles) = self.roles {
            self.ring_floor = trident_midend::passes::pipeline_dot_loads::warp_specialize::HANDOVER_BYTES;
            self.ring_top = self.ring_floor;
            self.need_shared(0)?;
            crate::warp_specialize::split_roles(&mut self, roles);
        }
        self.block(func.entry)?;
        if let Some(roles) = self.roles {
            crate::warp_specialize::append_producer_part(&mut self, roles);
        }
        let global_scratch_bytes = self.global_scratch_bytes();
        if global_scratch_bytes > 0 {
            // The runtime passes the global scratch after the kernel's own parameters.
            param_decls.push(format!("\t.param .u64 {name}_param_scratch"));
        }
        // Then a persistent kernel's program grid.
        if self.persistent {
            for axis in GRID_AXES {
                param_decls.push(format!("\t.param .u32 {name}_param_grid_{axis}"));
            }
        }
        // Then the host-encoded tensor maps.
        for index in 0..self.host_tensor_maps.len() {
            param_decls.push(format!(
                "\t.param .align 64 .b8 {name}_param_map{index}[{}]",
                crate::tma::TENSOR_MAP_BYTES
            ));
        }
        let threads = self.roles.map_or(32 * self.options.num_warps, |r| r.total_threads());
        let mut out = String::new();
        let _ = writeln!(
            out,
            "//\n// Generated by trident from {}\n//",
            self.module.source.as_ref().map(|s| s.path.as_str()).unwrap_or("<text>")
        );
        let _ = writeln!(out, ".version 8.4\n.target {}\n.address_size 64\n", self.options.target_name());
        if let Some(src) = &self.module.source {
            let _ = writeln!(out, ".file 1 {:?}", src.path);
        }
        if self.smem.is_some() {
            let _ = writeln!(out, ".extern .shared .align 1024 .b8 smem[];\n");
        }
        for decl in &self.module_decls {
            let _ = writeln!(out, "{decl}");
        }
        // A warp-specialized kernel starts every warp at the register cap the launch allows
        // them all; its warp groups then move registers with setmaxnreg.
        let maxnreg = self.roles.map(|r| format!(".maxnreg {}\n", r.entry_registers())).unwrap_or_default();
        let _ = writeln!(
            out,
            ".visible .entry {name}(\n{}\n)\n.maxntid {threads}, 1, 1\n{maxnreg}{{",
            param_decls.join(",\n")
        );
        out.push_str(&self.ptx.declarations());
        out.push('\n');
        out.push_str(&self.ptx.prologue);
        out.push_str(&self.ptx.body);
        out.push_str("}\n");
        Ok(Artifact {
            ptx: out,
            kernel_name: name,
            threads_per_block: threads,
            shared_bytes: self.shared_bytes,
            params,
            global_scratch_bytes,
            persistent: self.persistent,
            tensor_maps: self.host_tensor_maps.iter().map(|(_, map, _)| map.clone()).collect(),
        })
    }
}

/// The PTX spelling of the primitives the midend's rules are written on.
impl<'a> Isa<'a> for Emitter<'a> {
    type Reg = Reg;
    type Class = Class;
    const NAME: &'static str = "nvptx";

    fn prologue_zero(&mut self) -> Reg {
        let r = self.ptx.reg(Class::B32);
        self.ptx.prologue_ins(format!("mov.u32 {r}, 0"));
        r
    }

    /// `bfe` the bit, scale it, and XOR it into `acc` in place.
    fn prologue_xor_bit(&mut self, acc: Reg, id: Reg, bit: u32, scale: u32) -> Reg {
        let t = self.ptx.reg(Class::B32);
        self.ptx.prologue_ins(format!("bfe.u32 {t}, {id}, {bit}, 1"));
        self.ptx.prologue_ins(format!("mul.lo.u32 {t}, {t}, {scale}"));
        self.ptx.prologue_ins(format!("xor.b32 {acc}, {acc}, {t}"));
        acc
    }

    fn prologue_mul_add(&mut self, acc: Reg, x: Reg, k: i64) -> Reg {
        self.ptx.prologue_ins(format!("mad.lo.s32 {acc}, {x}, {k}, {acc}"));
        acc
    }

    fn add_const(&mut self, a: Reg, k: i64) -> Reg {
        let r = self.reg(Class::B32);
        self.ins(format!("add.s32 {r}, {a}, {k}"));
        r
    }

    fn constant(&mut self, d: DType, value: &Attr) -> EResult<Reg> {
        let class = class_of(d);
        let r = self.reg(class);
        match class {
            Class::Pred => {
                let b = value.as_bool().unwrap_or(false);
                self.ins(format!("setp.ne.u32 {r}, {}, 0", b as u32));
            }
            Class::B32 => {
                let v = value.as_int().unwrap_or(0);
                self.ins(format!("mov.b32 {r}, {}", v as i32 as u32));
            }
            Class::B64 => {
                let v = value.as_int().unwrap_or(0);
                self.ins(format!("mov.b64 {r}, {}", v as u64));
            }
            Class::F32 => {
                let v = value.as_float().unwrap_or(0.0);
                self.ins(format!("mov.f32 {r}, {}", f32_lit(v)));
            }
            Class::F64 => {
                let v = value.as_float().unwrap_or(0.0);
                self.ins(format!("mov.f64 {r}, {}", f64_lit(v)));
            }
            Class::B16 => {
                let v = value.as_float().unwrap_or(0.0);
                let bits = d.small_float_bits(v);
                self.ins(format!("mov.b16 {r}, {bits}"));
            }
        }
        Ok(r)
    }

    /// Registers of one tensor share a class (pointers are all `.b64`).
    fn element_class(&self, regs: &[Reg]) -> EResult<Class> {
        Ok(regs[0].class)
    }

    fn block(&mut self, block: Block) -> EResult<()> {
        Emitter::block(self, block)
    }

    fn barrier(&mut self) {
        Emitter::barrier(self)
    }

    fn write_shared(&mut self, src: &[Reg], l: &LayoutInfo, write: &Affine, elements: u64) -> EResult<()> {
        Emitter::write_shared(self, src, l, write, src[0].class, elements)
    }

    fn read_shared(&mut self, dst_l: &LayoutInfo, read: &Affine, class: Class) -> Vec<Reg> {
        Emitter::read_shared(self, dst_l, read, class)
    }

    fn read_shared_at(
        &mut self,
        dst_l: &LayoutInfo,
        read: &Affine,
        index: &[Reg],
        stride: i64,
        class: Class,
    ) -> Vec<Reg> {
        let bytes = class.bytes() as i64;
        let addr = self.shared_address(dst_l, read, bytes);
        let mut out = Vec::with_capacity(index.len());
        for (coordinate, &at) in dst_l.reg_coords.iter().zip(index) {
            // The index as 32 bits: a 64-bit one truncated, a 16-bit one widened (an index
            // outside the source is undefined, as in Triton).
            let at = match at.class {
                Class::B64 | Class::B16 => {
                    let narrow = self.reg(Class::B32);
                    let from = if at.class == Class::B64 { "u64" } else { "u16" };
                    self.ins(format!("cvt.u32.{from} {narrow}, {at}"));
                    narrow
                }
                _ => at,
            };
            let element = self.reg(Class::B32);
            self.ins(format!("mad.lo.s32 {element}, {at}, {}, {addr}", stride * bytes));
            out.push(self.ld_shared(class, element, read.eval(coordinate) * bytes));
        }
        out
    }

    /// Rows padded by a vector against bank conflicts ([`padded_rows`]).
    fn conversion_scratch(&self, src: &LayoutInfo, dst: &LayoutInfo) -> Affine {
        padded_rows(src, dst)
    }
}

impl<'a> LowerOps<'a> for Emitter<'a> {
    fn target_op(e: &mut Self, op: Op) -> EResult<()> {
        let data = e.func.body.op(op);
        use Opcode::*;
        match data.opcode {
            ProgramGrid => {
                // The launch's grid, which the runtime passes to a persistent kernel.
                let axis = GRID_AXES[data.attrs.int("axis").unwrap_or(0).clamp(0, 2) as usize];
                let r = e.reg(Class::B32);
                e.ins(format!("ld.param.u32 {r}, [{}_param_grid_{axis}]", e.func.name));
                e.set(data.results[0], vec![r]);
                Ok(())
            }
            GetProgramId | GetNumPrograms => {
                let axis = GRID_AXES[data.attrs.int("axis").unwrap_or(0).clamp(0, 2) as usize];
                let sreg = if data.opcode == GetProgramId { "ctaid" } else { "nctaid" };
                let r = e.reg(Class::B32);
                e.ins(format!("mov.u32 {r}, %{sreg}.{axis}"));
                e.set(data.results[0], vec![r]);
                Ok(())
            }
            Barrier => {
                if e.in_producer {
                    return e.invalid("a block-wide barrier in a warp-specialized producer region");
                }
                e.barrier();
                Ok(())
            }
            InitBarriers | ArriveBarrier | WarpSpecialize => crate::warp_specialize::lower(e, op),
            LocalAlloc
            | LocalDealloc
            | AsyncCopyGlobalToLocal
            | AsyncCommitGroup
            | AsyncWait
            | AsyncCopyArrive
            | LocalLoad
            | AsyncTmaCopyGlobalToLocal
            | WaitBarrier => crate::shared_rings::lower(e, op),
            WarpGroupDot | WarpGroupDotWait | FenceAsyncShared => crate::warp_group_dot::lower(e, op),
            Return => {
                crate::warp_group_dot::end_turns(e);
                if let Some(roles) = e.roles {
                    crate::warp_specialize::release_producer(e, roles);
                }
                e.ins("ret");
                Ok(())
            }
            Assert | Print => crate::debug_ops::lower(e, op),
            MakeTensorDescriptor | DescriptorLoad | DescriptorStore => {
                if e.options.sm < 90 {
                    return e.unsupported("tensor descriptors below sm_90 (rewrite them to pointers first)");
                }
                crate::tma::lower(e, op)
            }
            other => e.unsupported(&format!("{} on nvptx", other.name())),
        }
    }
}
