//! `tt.print` (`tl.device_print`) through a print buffer.
//!
//! SPIR-V for Vulkan has no `printf` (`NonSemantic.DebugPrintf` needs a validation layer to
//! show anything), so a kernel that prints gets one more storage buffer
//! ([`crate::Artifact::print_binding`]) and appends one record per printed element to it; the
//! runtime reads the buffer back after the launch, sorts the records and prints the
//! interpreter's lines. What a record does not carry (the prefix, the element type, `hex`, the
//! shape that turns an element index into `idx (i, j)`, whether `(operand k)` is shown) is
//! static and travels as launch metadata: one [`PrintSite`] per operand of each `tt.print`.
//!
//! The buffer's layout, in 32-bit words:
//! - word 0: the records the kernel tried to append (an atomic counter the kernel bumps; it may
//!   exceed the capacity: the excess was dropped),
//! - word 1: the capacity in records (the runtime writes it before the launch),
//! - then records of [`PRINT_RECORD_WORDS`] words from word [`PRINT_HEADER_WORDS`]: the
//!   thread's print sequence number, the site, the program's linear index
//!   (`x + gx * (y + gy * z)`), the element's row-major index, and the value's bits (low word,
//!   high word).
//!
//! The sequence number counts the prints a thread has executed so far (a function variable).
//! Control flow in a Triton kernel depends only on scalars, which every thread of a program holds
//! alike, so all threads of a program number the same execution of a print the same: sorting by
//! (program, sequence, site, element) gives the interpreter's order, prints in loops included.
//!
//! Each element is printed once, by its owner: the thread and register [`owner_predicates`]
//! picks for a store (replicated lanes, warps and duplicate registers skip it), thread 0 for a
//! scalar; a print without operands appends one record per program, from thread 0. A thread
//! reserves the records of one print with one atomic add (as many as it owns elements) and writes
//! those that fit.
//!
//! Portable modules print the same way: naga makes the buffer an `array<atomic<u32>>` (it is the
//! target of an atomic), the counter an `atomicAdd` and the record words `atomicStore`s, which is
//! valid WGSL. Only 64-bit operands cannot print there, as they cannot exist there.

use rspirv::spirv::{Op, Scope, Word};
use trident_midend::ir::{Function, Op as IrOp, Opcode, Span};
use trident_midend::layout::registers::Affine;

use crate::emit::{EResult, Emitter};
use crate::memory::{owner_predicates, Owner};
use crate::spirv::{Class, Reg};
use crate::{PrintSite, Printed};

/// Words before the first record: the counter and the capacity.
pub const PRINT_HEADER_WORDS: u32 = 2;
/// Words of one record: sequence, site, program, element, value low, value high.
pub const PRINT_RECORD_WORDS: u32 = 6;

/// What the emitter keeps about the kernel's prints.
#[derive(Default)]
pub struct Prints {
    /// The binding of the print buffer, when the kernel has `tt.print`s.
    pub binding: Option<u32>,
    /// Every print site lowered so far; a record names its site by index.
    pub sites: Vec<PrintSite>,
    /// The function variable counting this thread's executed prints (created on first use).
    sequence: Option<Word>,
    /// The program's linear index, computed once in the prologue (on first use).
    program: Option<Reg>,
}

/// Whether the kernel prints anything (then it gets a print buffer).
pub fn any(func: &Function) -> bool {
    func.body.walk(func.entry).into_iter().any(|op| func.body.opcode(op) == Opcode::Print)
}

/// One element this thread may append: whether it owns it, the site, the element's index, the
/// value's two words.
struct Entry {
    owner: Owner,
    site: u32,
    element: Reg,
    low: Reg,
    high: Reg,
}

/// Lowers one `tt.print`: registers its sites, then appends this thread's records.
pub fn lower(e: &mut Emitter, op: IrOp) -> EResult<()> {
    let data = e.func.body.op(op);
    let Some(binding) = e.prints.binding else {
        return e.invalid("tt.print in a kernel without a print buffer");
    };
    let prefix = data.attrs.str("prefix").unwrap_or("").trim().to_string();
    let hex = data.attrs.bool("hex").unwrap_or(false);
    let span: Span = e.func.body.span(op);
    let zero = e.u32c(0);
    let several = data.operands.len() > 1;

    let mut entries = Vec::new();
    if data.operands.is_empty() {
        let printed = Printed::Nothing;
        let site = push_site(
            e,
            PrintSite { prefix: prefix.clone(), operand: None, printed, hex, shape: vec![], span },
        );
        let first = e.s.op(Op::IEqual, Class::Bool, &[e.tid, zero]);
        entries.push(Entry { owner: Owner::If(first), site, element: zero, low: zero, high: zero });
    }
    for (k, &v) in data.operands.iter().enumerate() {
        let ty = e.ty(v).clone();
        let regs = e.get(v)?;
        // fp8 elements print as their value here too (the runtime decodes the bits); only
        // nvptx's `vprintf` needs `hex=True` for them.
        let printed = match regs.first().map(|r| r.class) {
            Some(Class::Ptr(binding)) => Printed::Pointer { binding },
            _ => Printed::Value(ty.dtype()),
        };
        let shape = ty.shape().to_vec();
        let site = push_site(
            e,
            PrintSite {
                prefix: prefix.clone(),
                operand: several.then_some(k as u32),
                printed,
                hex,
                shape,
                span,
            },
        );
        let owners = owner_predicates(e, op, k)?;
        // The row-major index of each register's element: this thread's part (from the
        // prologue) plus the register's constant part (the layout is additive).
        let elements: Vec<Reg> = if ty.is_tensor() {
            let layout = e.layout(v)?;
            let row_major = Affine::row_major(&layout.shape);
            let base = e.affine_base(&layout, &row_major);
            layout.reg_coords.iter().map(|c| e.add_imm(base, row_major.eval(c))).collect()
        } else {
            vec![zero]
        };
        for (i, &reg) in regs.iter().enumerate() {
            let owner = owners[if owners.len() == 1 { 0 } else { i }];
            if matches!(owner, Owner::Never) {
                continue;
            }
            let (low, high) = match reg.class {
                Class::U64 | Class::F64 => e.split64(reg),
                _ => (e.word_bits(reg), zero),
            };
            entries.push(Entry { owner, site, element: elements[i], low, high });
        }
    }
    append(e, binding, &entries);
    Ok(())
}

fn push_site(e: &mut Emitter, site: PrintSite) -> u32 {
    e.prints.sites.push(site);
    e.prints.sites.len() as u32 - 1
}

/// Appends `entries` to the print buffer: one atomic add reserves this thread's records, then
/// each owned entry whose slot is below the capacity is written.
fn append(e: &mut Emitter, binding: u32, entries: &[Entry]) {
    let one = e.u32c(1);
    let zero = e.u32c(0);
    let sequence = sequence(e);
    let program = program(e);
    // This thread's sequence number for this print, and the next one.
    let seq = e.s.load(Class::U32, sequence);
    let next = e.s.op(Op::IAdd, Class::U32, &[seq, one]);
    e.s.store(sequence, next.id);
    if entries.is_empty() {
        return;
    }

    // Per entry, 1 where this thread owns it; their sum is what it reserves.
    let counts: Vec<Reg> = entries
        .iter()
        .map(|entry| match entry.owner {
            Owner::If(p) => e.s.select(p, one, zero),
            _ => one,
        })
        .collect();
    let mut total = zero;
    for &c in &counts {
        total = e.s.op(Op::IAdd, Class::U32, &[total, c]);
    }
    let u32t = e.s.u32_ty();
    let scope = e.s.const_u32(Scope::Device as u32);
    // Relaxed: the records are read only after the dispatch completes.
    let relaxed = e.s.const_u32(0);
    let counter = e.buffer_word_ptr(binding, zero);
    let first = e.s.inst(Op::AtomicIAdd, u32t, &[counter, scope, relaxed, total.id]);
    let capacity_word = e.u32c(1);
    let capacity = e.buffer_word_ptr(binding, capacity_word);
    let capacity = e.s.load(Class::U32, capacity);

    let mut slot = Reg { id: first, class: Class::U32 };
    for (entry, &count) in entries.iter().zip(&counts) {
        let fits = e.s.op(Op::ULessThan, Class::Bool, &[slot, capacity]);
        let write = match entry.owner {
            Owner::If(p) => e.s.op(Op::LogicalAnd, Class::Bool, &[p, fits]),
            _ => fits,
        };
        let merge = e.s.begin_if(write);
        let record_words = e.u32c(PRINT_RECORD_WORDS);
        let at = e.s.op(Op::IMul, Class::U32, &[slot, record_words]);
        let at = e.add_imm(at, PRINT_HEADER_WORDS as i64);
        let site = e.u32c(entry.site);
        let words = [seq, site, program, entry.element, entry.low, entry.high];
        for (offset, word) in words.into_iter().enumerate() {
            let index = e.add_imm(at, offset as i64);
            let pointer = e.buffer_word_ptr(binding, index);
            e.s.store(pointer, word.id);
        }
        e.s.end_if(merge);
        slot = e.s.op(Op::IAdd, Class::U32, &[slot, count]);
    }
}

/// The function variable counting this thread's prints, zeroed in the prologue.
fn sequence(e: &mut Emitter) -> Word {
    if let Some(var) = e.prints.sequence {
        return var;
    }
    let var = e.s.var(Class::U32);
    e.s.in_prologue(|s| {
        let zero = s.const_u32(0);
        s.store(var, zero);
    });
    e.prints.sequence = Some(var);
    var
}

/// The program's linear index `x + gx * (y + gy * z)` (the interpreter's order of programs),
/// computed once in the prologue.
fn program(e: &mut Emitter) -> Reg {
    if let Some(r) = e.prints.program {
        return r;
    }
    let ([x, y, z], [gx, gy, _]) = (e.program_ids, e.num_programs);
    let r = e.s.in_prologue(|s| {
        let t = s.op(Op::IMul, Class::U32, &[gy, z]);
        let t = s.op(Op::IAdd, Class::U32, &[y, t]);
        let t = s.op(Op::IMul, Class::U32, &[gx, t]);
        s.op(Op::IAdd, Class::U32, &[x, t])
    });
    e.prints.program = Some(r);
    r
}
