//! Global memory: `tt.addptr`, `tt.load`, `tt.store`, `tt.atomic_rmw`, `tt.atomic_cas`.
//!
//! Loads and stores are predicated per element by their mask; a masked-off load lane keeps
//! `other` (or 0). Threads that only hold copies of an element (replicated lanes, warps or
//! duplicate registers of the layout) skip stores and atomics, so every element is written once
//! and every atomic happens once. Scalar stores and atomics run in thread 0; a scalar atomic's
//! old value reaches every thread through shared memory.
//!
//! # Vector accesses
//!
//! A load or store moves `v` elements with one `ld/st.global.v{2,4}` (up to 128 bits) when all of
//! these hold ([`vector_width`]):
//! - the layout puts `v` consecutive elements of one dim in consecutive registers of every thread
//!   (`LinearLayout::register_contiguity`), so register group `k` holds elements `kv .. kv+v-1`
//!   at a coordinate that is a multiple of `v`;
//! - the axis analysis proves the pointers contiguous over those `v` elements and the first one
//!   aligned to `v * elem_bytes`;
//! - the mask is constant over them (or absent), so the first lane's predicate guards the group.
//!
//! 16-bit elements travel packed two per 32-bit word (`mov.b32 %r, {%h0, %h1}`); 8-bit and `i1`
//! elements, and anything that does not qualify, take the scalar path. A masked-off vector load
//! keeps `other`, because its destinations are initialized to it before the predicated load.
//!
//! # Atomics whose result is unused
//!
//! They become `red` (no value comes back, so the memory system need not answer). Triton's
//! default semantics, `acq_rel`, have no `red` form; since nothing reads the result, the acquire
//! half cannot order anything the kernel observes through it, and `red.release` keeps the half
//! that matters for signalling (earlier writes are visible before the update). `relaxed` and
//! `release` stay as they are; `acquire` keeps `atom`. (Triton 3.x emits `atom` here and leaves
//! the choice to ptxas; `red.relaxed` would be cheaper still, at the price of the release order.)

use rustc_hash::FxHashMap;
use trident_midend::ir::{DType, Op, Value};

use trident_midend::codegen::memory::{AtomicOp, AtomicScope, AtomicSem};
use trident_midend::codegen::LowerMemory;

use crate::emit::{class_of, EResult, Emitter};
use crate::ptx::{Class, Reg};
pub(crate) use trident_midend::codegen::memory::owner_predicates;

/// The PTX type of a memory access to elements of `d`.
fn mem_type(d: DType) -> &'static str {
    match d {
        DType::I1 | DType::I8 => "s8",
        DType::U8 | DType::F8E4M3 | DType::F8E5M2 => "u8",
        DType::I16 => "s16",
        DType::U16 => "u16",
        DType::F16 | DType::BF16 => "b16",
        DType::I32 | DType::U32 => "b32",
        DType::F32 => "f32",
        DType::I64 | DType::U64 => "b64",
        DType::F64 => "f64",
    }
}

impl<'a> LowerMemory<'a> for Emitter<'a> {
    fn addptr(e: &mut Self, op: Op) -> EResult<()> {
        let data = e.func.body.op(op);
        let ptr = e.get(data.operands[0])?;
        let off = e.get(data.operands[1])?;
        let pointee = e.ty(data.operands[0]).dtype();
        let size = pointee.size_bytes();
        let off_type = e.ty(data.operands[1]).dtype();
        let n = ptr.len().max(off.len());
        let mut cache = rustc_hash::FxHashMap::default();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let (p, o) = (ptr[if ptr.len() == 1 { 0 } else { i }], off[if off.len() == 1 { 0 } else { i }]);
            if let Some(&r) = cache.get(&(p, o)) {
                out.push(r);
                continue;
            }
            let r = e.reg(Class::B64);
            if off_type.bits() == 64 {
                // A shift rather than a multiply for power-of-two element sizes: ptxas then adds the
                // scaled offset with a plain 64-bit add (IADD3/IADD3.X, the scaled offset in a uniform
                // register when it is one) instead of a wide multiply-add that first copies the pointer.
                let t = e.reg(Class::B64);
                if size.is_power_of_two() {
                    e.ins(format!("shl.b64 {t}, {o}, {}", size.trailing_zeros()));
                } else {
                    e.ins(format!("mul.lo.s64 {t}, {o}, {size}"));
                }
                e.ins(format!("add.s64 {r}, {p}, {t}"));
            } else if off_type.is_unsigned_int() {
                e.ins(format!("mad.wide.u32 {r}, {o}, {size}, {p}"));
            } else {
                e.ins(format!("mad.wide.s32 {r}, {o}, {size}, {p}"));
            }
            cache.insert((p, o), r);
            out.push(r);
        }
        e.set(data.results[0], out);
        Ok(())
    }

    fn load(e: &mut Self, op: Op) -> EResult<()> {
        let data = e.func.body.op(op);
        let ptr = e.get(data.operands[0])?;
        let mask = match data.operands.get(1) {
            Some(&m) => Some(e.get(m)?),
            None => None,
        };
        let other = match data.operands.get(2) {
            Some(&o) => Some(e.get(o)?),
            None => None,
        };
        let d = e.ty(data.results[0]).dtype();
        let class = class_of(d);
        let volatile = data.attrs.bool("volatile").unwrap_or(false);
        let space =
            if volatile { "volatile.global".to_string() } else { format!("global{}", cache_suffix(e, op)) };
        let ty = mem_type(d);
        let width = vector_width(e, data.operands[0], data.operands.get(1).copied(), d)?;
        if width > 1 {
            let out = load_vectors(e, &ptr, mask.as_deref(), other.as_deref(), d, &space, width);
            e.set(data.results[0], out);
            return Ok(());
        }
        let n = ptr.len();
        let mut out = Vec::with_capacity(n);
        let mut cache = rustc_hash::FxHashMap::default();
        for i in 0..n {
            let p = ptr[i];
            let m = mask.as_ref().map(|m| m[if m.len() == 1 { 0 } else { i }]);
            let o = other.as_ref().map(|o| o[if o.len() == 1 { 0 } else { i }]);
            if let Some(&r) = cache.get(&(p, m, o)) {
                out.push(r);
                continue;
            }
            let r = e.reg(class);
            // The destination starts as `other` (or zero) so masked-off lanes keep it.
            match (o, class) {
                (Some(o), Class::Pred) => e.ins(format!("mov.pred {r}, {o}")),
                (Some(o), _) => e.ins(format!("mov.{} {r}, {o}", mov_type(class))),
                (None, Class::Pred) => e.ins(format!("setp.ne.u32 {r}, 0, 0")),
                (None, _) => e.ins(format!("mov.{} {r}, {}", mov_type(class), zero_literal(class))),
            }
            let pred = m.map(|m| format!("@{m} ")).unwrap_or_default();
            if class == Class::Pred {
                let t = e.reg(Class::B32);
                e.ins(format!("mov.u32 {t}, 0"));
                e.ins(format!("{pred}ld.{space}.s8 {t}, [{p}]"));
                e.ins(format!("{pred}setp.ne.u32 {r}, {t}, 0"));
            } else {
                e.ins(format!("{pred}ld.{space}.{ty} {r}, [{p}]"));
            }
            cache.insert((p, m, o), r);
            out.push(r);
        }
        e.set(data.results[0], out);
        Ok(())
    }

    fn store(e: &mut Self, op: Op) -> EResult<()> {
        let data = e.func.body.op(op);
        let ptr = e.get(data.operands[0])?;
        let val = e.get(data.operands[1])?;
        let mask = match data.operands.get(2) {
            Some(&m) => Some(e.get(m)?),
            None => None,
        };
        let d = e.ty(data.operands[1]).dtype();
        let ty = mem_type(d);
        let space = format!(
            "global{}",
            match cache_suffix(e, op).as_str() {
                c @ (".wb" | ".cg" | ".cs" | ".wt") => c.to_string(),
                _ => String::new(),
            }
        );
        let owners = owner_predicates(e, op, 0)?;
        let width = vector_width(e, data.operands[0], data.operands.get(2).copied(), d)?;
        if width > 1 {
            let what = format!("st.{space}");
            let vector_ty = vector_mem_type(d);
            return store_vectors(e, &ptr, &val, mask.as_deref(), &owners, width, |e, pred, p, words| {
                e.ins(format!("{pred}{what}{} [{p}], {}", vector_suffix(words, vector_ty), word_list(words)));
            });
        }
        for i in 0..ptr.len() {
            let owner = owners[if owners.len() == 1 { 0 } else { i }];
            if matches!(owner, Owner::Never) {
                continue;
            }
            let m = mask.as_ref().map(|m| m[if m.len() == 1 { 0 } else { i }]);
            let pred = and_pred(e, owner.pred(), m).map(|p| format!("@{p} ")).unwrap_or_default();
            let v = val[if val.len() == 1 { 0 } else { i }];
            if v.class == Class::Pred {
                let t = e.reg(Class::B32);
                e.ins(format!("selp.u32 {t}, 1, 0, {v}"));
                e.ins(format!("{pred}st.{space}.u8 [{}], {t}", ptr[i]));
            } else {
                e.ins(format!("{pred}st.{space}.{ty} [{}], {v}", ptr[i]));
            }
        }
        Ok(())
    }

    fn atomic(e: &mut Self, atomic: AtomicOp<Reg>) -> EResult<()> {
        let AtomicOp { op, is_cas, ptr, args, dtype: d, sem, scope, result_used } = atomic;
        let data = e.func.body.op(op);
        let scope = match scope {
            AtomicScope::Cta => "cta",
            AtomicScope::Gpu => "gpu",
            AtomicScope::Sys => "sys",
        };
        let kind = data.attrs.str("atomic_rmw_op").unwrap_or("add").to_string();
        let bits = d.bits();
        let bty = if bits == 64 { "b64" } else { "b32" };
        let (opname, ty) = if is_cas {
            ("cas".to_string(), bty.to_string())
        } else {
            match kind.as_str() {
                "fadd" => ("add".to_string(), if d == DType::F64 { "f64".into() } else { "f32".into() }),
                "add" => ("add".to_string(), if bits == 64 { "u64".into() } else { "u32".into() }),
                "max" => ("max".to_string(), if bits == 64 { "s64".into() } else { "s32".into() }),
                "min" => ("min".to_string(), if bits == 64 { "s64".into() } else { "s32".into() }),
                "umax" => ("max".to_string(), if bits == 64 { "u64".into() } else { "u32".into() }),
                "umin" => ("min".to_string(), if bits == 64 { "u64".into() } else { "u32".into() }),
                "and" | "or" | "xor" => (kind.clone(), bty.to_string()),
                "xchg" => ("exch".to_string(), bty.to_string()),
                other => return e.invalid(format!("atomic op {other}")),
            }
        };
        if d.bits() < 32 {
            return e.unsupported(&format!("atomics on {d} elements"));
        }
        let owners = owner_predicates(e, op, 0)?;
        let class = class_of(d);
        let scalar = !e.ty(data.results[0]).is_tensor();
        // Without a reader of the old value the update becomes `red` (see the module doc for the
        // semantics); `exch` and compare-and-swap have no `red` form.
        let red_sem = match sem.without_reader() {
            AtomicSem::Relaxed => Some("relaxed"),
            AtomicSem::Release => Some("release"),
            _ => None,
        };
        let reduction = red_sem.filter(|_| !is_cas && opname != "exch" && !result_used);
        if let Some(red_sem) = reduction {
            let zero = e.reg(class);
            e.ins(format!("mov.{} {zero}, {}", mov_type(class), zero_literal(class)));
            // sm_90 adds f32 vectors of 2 or 4 in one reduction, as it loads and stores them.
            let width = if e.options.sm >= 90 && opname == "add" && ty == "f32" && args[0].len() == ptr.len()
            {
                vector_width(e, data.operands[0], data.operands.get(2).copied(), d)?
            } else {
                1
            };
            for first in (0..ptr.len()).step_by(width) {
                let owner = owners[if owners.len() == 1 { 0 } else { first }];
                if matches!(owner, Owner::Never) {
                    continue;
                }
                let pick = |a: &Vec<Reg>, i: usize| a[if a.len() == 1 { 0 } else { i }];
                let mask = args.get(1).map(|m| pick(m, first));
                let pred = and_pred(e, owner.pred(), mask).map(|p| format!("@{p} ")).unwrap_or_default();
                let values: Vec<String> =
                    (first..first + width).map(|i| pick(&args[0], i).to_string()).collect();
                let vector = if width > 1 { format!(".v{width}") } else { String::new() };
                e.ins(format!(
                    "{pred}red.{red_sem}.{scope}.global.{opname}{vector}.{ty} [{}], {}",
                    ptr[first],
                    word_list(&values)
                ));
            }
            e.set(data.results[0], vec![zero; ptr.len()]);
            return Ok(());
        }
        let mut out = Vec::with_capacity(ptr.len());
        for i in 0..ptr.len() {
            let owner = owners[if owners.len() == 1 { 0 } else { i }];
            let r = e.reg(class);
            e.ins(format!("mov.{} {r}, {}", mov_type(class), zero_literal(class)));
            if matches!(owner, Owner::Never) {
                out.push(r);
                continue;
            }
            let pick = |a: &Vec<Reg>| a[if a.len() == 1 { 0 } else { i }];
            // rmw: (val[, mask]); cas: (cmp, val)
            let mask = if !is_cas { args.get(1).map(pick) } else { None };
            let pred = and_pred(e, owner.pred(), mask).map(|p| format!("@{p} ")).unwrap_or_default();
            let operands = if is_cas {
                format!("{}, {}", pick(&args[0]), pick(&args[1]))
            } else {
                format!("{}", pick(&args[0]))
            };
            e.ins(format!(
                "{pred}atom.{}.{scope}.global.{opname}.{ty} {r}, [{}], {operands}",
                ptx_sem(sem),
                ptr[i]
            ));
            out.push(r);
        }
        if scalar {
            // Thread 0 did the atomic: share its old value with every thread.
            e.barrier();
            let smem = e.smem_base();
            e.need_shared(8)?;
            let p = e.reg(Class::Pred);
            e.ins(format!("setp.eq.u32 {p}, {}, 0", e.tid));
            let t = out[0];
            let st = match class {
                Class::B64 => "b64",
                Class::F32 => "f32",
                Class::F64 => "f64",
                _ => "b32",
            };
            e.ins(format!("@{p} st.shared.{st} [{smem}], {t}"));
            e.barrier();
            let r = e.reg(class);
            e.ins(format!("ld.shared.{st} {r}, [{smem}]"));
            e.barrier();
            out = vec![r];
        }
        e.set(data.results[0], out);
        Ok(())
    }

    fn is_first_thread(e: &mut Self) -> Reg {
        let p = e.reg(Class::Pred);
        e.ins(format!("setp.eq.u32 {p}, {}, 0", e.tid));
        p
    }

    fn is_first_copy(e: &mut Self, lane_mask: u32, warp_mask: u32) -> Reg {
        let t = e.reg(Class::B32);
        let u = e.reg(Class::B32);
        let p = e.reg(Class::Pred);
        e.ins(format!("and.b32 {t}, {}, {lane_mask}", e.lane));
        e.ins(format!("and.b32 {u}, {}, {warp_mask}", e.warp));
        e.ins(format!("or.b32 {t}, {t}, {u}"));
        e.ins(format!("setp.eq.u32 {p}, {t}, 0"));
        p
    }
}

fn cache_suffix(e: &Emitter, op: Op) -> String {
    let attrs = &e.func.body.op(op).attrs;
    match attrs.str("cache") {
        Some(c @ (".ca" | ".cg" | ".cs" | ".lu" | ".cv")) => c.to_string(),
        _ => String::new(),
    }
}

/// Zero in the literal syntax of a register class.
fn zero_literal(class: Class) -> &'static str {
    match class {
        Class::F32 => "0f00000000",
        Class::F64 => "0d0000000000000000",
        _ => "0",
    }
}

fn mov_type(class: Class) -> &'static str {
    match class {
        Class::B16 => "b16",
        Class::B32 => "b32",
        Class::B64 => "b64",
        Class::F32 => "f32",
        Class::F64 => "f64",
        Class::Pred => "pred",
    }
}

/// Whether this thread's copy of an element is the one that writes it.
pub(crate) type Owner = trident_midend::codegen::memory::Owner<Reg>;

/// `a && b` for optional predicates.
fn and_pred(e: &mut Emitter, a: Option<Reg>, b: Option<Reg>) -> Option<Reg> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => {
            let p = e.reg(Class::Pred);
            e.ins(format!("and.pred {p}, {a}, {b}"));
            Some(p)
        }
    }
}

/// PTX's spelling of a memory order.
fn ptx_sem(sem: AtomicSem) -> &'static str {
    match sem {
        AtomicSem::Relaxed => "relaxed",
        AtomicSem::Acquire => "acquire",
        AtomicSem::Release => "release",
        AtomicSem::AcqRel => "acq_rel",
    }
}

// ---- vector accesses ---------------------------------------------------------------------------

/// How many consecutive registers of an access through `pointer` (masked by `mask`, moving
/// elements of `d`) one instruction may move: a power of two, 1 when nothing is proven.
pub(crate) fn vector_width(e: &mut Emitter, pointer: Value, mask: Option<Value>, d: DType) -> EResult<usize> {
    let elem_bits = match d {
        DType::F16 | DType::BF16 => 16,
        DType::I32 | DType::U32 | DType::F32 => 32,
        DType::I64 | DType::U64 | DType::F64 => 64,
        _ => return Ok(1),
    };
    e.access_width(pointer, mask, elem_bits)
}

/// The PTX type of one vector lane: 16-bit elements travel packed in 32-bit words.
fn vector_mem_type(d: DType) -> &'static str {
    match d {
        DType::F16 | DType::BF16 => "b32",
        other => mem_type(other),
    }
}

/// `.v{n}.{ty}` and the braced register list for `n` words, or `.{ty}` alone for one word.
fn vector_suffix(words: &[String], ty: &str) -> String {
    match words.len() {
        1 => format!(".{ty}"),
        n => format!(".v{n}.{ty}"),
    }
}

/// The operand text of `words`: one register, or a braced list.
fn word_list(words: &[String]) -> String {
    match words {
        [one] => one.clone(),
        _ => format!("{{{}}}", words.join(", ")),
    }
}

/// Loads `width` elements per instruction; returns one register per register index.
fn load_vectors(
    e: &mut Emitter,
    ptr: &[Reg],
    mask: Option<&[Reg]>,
    other: Option<&[Reg]>,
    d: DType,
    space: &str,
    width: usize,
) -> Vec<Reg> {
    let class = class_of(d);
    let packed = class == Class::B16;
    let pick = |regs: &[Reg], i: usize| regs[if regs.len() == 1 { 0 } else { i }];
    let mut out = Vec::with_capacity(ptr.len());
    let mut cache: FxHashMap<(Reg, Option<Reg>, Vec<Reg>), Vec<Reg>> = Default::default();
    for first in (0..ptr.len()).step_by(width) {
        let p = ptr[first];
        let m = mask.map(|m| pick(m, first));
        let others: Vec<Reg> =
            other.map(|o| (first..first + width).map(|i| pick(o, i)).collect()).unwrap_or_default();
        if let Some(regs) = cache.get(&(p, m, others.clone())) {
            out.extend(regs.iter().copied());
            continue;
        }
        // The destinations start as `other` (or zero) so that a masked-off group keeps it.
        let element_init = |j: usize| others.get(j).map(|r| r.to_string());
        let words: Vec<Reg> = if packed {
            (0..width / 2)
                .map(|k| {
                    let w = e.reg(Class::B32);
                    match (element_init(2 * k), element_init(2 * k + 1)) {
                        (Some(lo), Some(hi)) => e.ins(format!("mov.b32 {w}, {{{lo}, {hi}}}")),
                        _ => e.ins(format!("mov.b32 {w}, 0")),
                    }
                    w
                })
                .collect()
        } else {
            (0..width)
                .map(|j| {
                    let r = e.reg(class);
                    let init = element_init(j).unwrap_or_else(|| zero_literal(class).to_string());
                    e.ins(format!("mov.{} {r}, {init}", mov_type(class)));
                    r
                })
                .collect()
        };
        let pred = m.map(|m| format!("@{m} ")).unwrap_or_default();
        let list = words.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ");
        let vector_ty = vector_mem_type(d);
        if words.len() == 1 {
            e.ins(format!("{pred}ld.{space}.{vector_ty} {list}, [{p}]"));
        } else {
            e.ins(format!("{pred}ld.{space}.v{}.{vector_ty} {{{list}}}, [{p}]", words.len()));
        }
        let regs: Vec<Reg> = if packed {
            let mut halves = Vec::with_capacity(width);
            for w in words {
                let (lo, hi) = (e.reg(Class::B16), e.reg(Class::B16));
                e.ins(format!("mov.b32 {{{lo}, {hi}}}, {w}"));
                halves.extend([lo, hi]);
            }
            halves
        } else {
            words
        };
        cache.insert((p, m, others), regs.clone());
        out.extend(regs);
    }
    out
}

/// Writes `width` elements per instruction through `emit(e, predicate prefix, pointer, words)`,
/// where `words` are the 32- or 64-bit source registers (16-bit values packed in pairs). A group whose registers have different owners (never the case for the
/// layouts that pass [`vector_width`], but cheap to check) goes element by element.
fn store_vectors(
    e: &mut Emitter,
    ptr: &[Reg],
    val: &[Reg],
    mask: Option<&[Reg]>,
    owners: &[Owner],
    width: usize,
    emit: impl Fn(&mut Emitter, &str, Reg, &[String]),
) -> EResult<()> {
    let pick = |regs: &[Reg], i: usize| regs[if regs.len() == 1 { 0 } else { i }];
    let owner_of = |i: usize| owners[if owners.len() == 1 { 0 } else { i }];
    for first in (0..ptr.len()).step_by(width) {
        let owner = owner_of(first);
        let same_owner = (first..first + width).all(|i| match (owner_of(i), owner) {
            (Owner::Never, Owner::Never) | (Owner::Always, Owner::Always) => true,
            (Owner::If(a), Owner::If(b)) => a == b,
            _ => false,
        });
        if !same_owner {
            return e.invalid("a vector store over registers with different owners");
        }
        if matches!(owner, Owner::Never) {
            continue;
        }
        let m = mask.map(|m| pick(m, first));
        let pred = and_pred(e, owner.pred(), m).map(|p| format!("@{p} ")).unwrap_or_default();
        let values: Vec<Reg> = (first..first + width).map(|i| pick(val, i)).collect();
        let words: Vec<String> = if values[0].class == Class::B16 {
            values
                .chunks(2)
                .map(|pair| {
                    let w = e.reg(Class::B32);
                    e.ins(format!("mov.b32 {w}, {{{}, {}}}", pair[0], pair[1]));
                    w.to_string()
                })
                .collect()
        } else {
            values.iter().map(|r| r.to_string()).collect()
        };
        emit(e, &pred, ptr[first], &words);
    }
    Ok(())
}
