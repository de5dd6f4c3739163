//! Global memory: `tt.addptr`, `tt.load`, `tt.store`, `tt.atomic_rmw`, `tt.atomic_cas`.
//!
//! Loads and stores are predicated per element by their mask; a masked-off load lane keeps
//! `other` (or 0). Threads that only hold copies of an element (replicated lanes, warps or
//! duplicate registers of the layout) skip stores and atomics, so every element is written once
//! and every atomic happens once. Scalar stores and atomics run in thread 0; a scalar atomic's
//! old value reaches every thread through shared memory.

use trident_midend::ir::{DType, Op, Opcode};

use crate::emit::{class_of, EResult, Emitter};
use crate::ptx::{Class, Reg};

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

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
    match data.opcode {
        Opcode::AddPtr => addptr(e, op),
        Opcode::Load => load(e, op),
        Opcode::Store => store(e, op),
        _ => atomic(e, op),
    }
}

fn addptr(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
    let ptr = e.get(data.operands[0])?;
    let off = e.get(data.operands[1])?;
    let pointee = e.ty(data.operands[0]).dtype();
    let size = pointee.size_bytes();
    let off_type = e.ty(data.operands[1]).dtype();
    let n = ptr.len().max(off.len());
    let mut cache = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (p, o) = (ptr[if ptr.len() == 1 { 0 } else { i }], off[if off.len() == 1 { 0 } else { i }]);
        if let Some(&r) = cache.get(&(p, o)) {
            out.push(r);
            continue;
        }
        let r = e.reg(Class::B64);
        if off_type.bits() == 64 {
            let t = e.reg(Class::B64);
            e.ins(format!("mul.lo.s64 {t}, {o}, {size}"));
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

fn cache_suffix(e: &Emitter, op: Op) -> String {
    let attrs = &e.func.body.op(op).attrs;
    match attrs.str("cache") {
        Some(c @ (".ca" | ".cg" | ".cs" | ".lu" | ".cv")) => c.to_string(),
        _ => String::new(),
    }
}

fn load(e: &mut Emitter, op: Op) -> EResult<()> {
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
    let n = ptr.len();
    let mut out = Vec::with_capacity(n);
    let mut cache = std::collections::HashMap::new();
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
#[derive(Clone, Copy)]
pub(crate) enum Owner {
    Always,
    Never,
    If(Reg),
}

impl Owner {
    fn pred(self) -> Option<Reg> {
        match self {
            Owner::If(p) => Some(p),
            _ => None,
        }
    }
}

/// Per register of operand `value_index`: whether this thread writes that element.
pub(crate) fn owner_predicates(e: &mut Emitter, op: Op, value_index: usize) -> EResult<Vec<Owner>> {
    let v = e.func.body.op(op).operands[value_index];
    let ty = e.ty(v).clone();
    if !ty.is_tensor() {
        // A scalar: every thread holds it; thread 0 acts.
        let p = e.reg(Class::Pred);
        e.ins(format!("setp.eq.u32 {p}, {}, 0", e.tid));
        return Ok(vec![Owner::If(p)]);
    }
    let l = e.layout(v)?;
    let (lane_mask, warp_mask) = l.replica_masks();
    let thread_pred = if lane_mask != 0 || warp_mask != 0 {
        let t = e.reg(Class::B32);
        let u = e.reg(Class::B32);
        let p = e.reg(Class::Pred);
        e.ins(format!("and.b32 {t}, {}, {lane_mask}", e.lane));
        e.ins(format!("and.b32 {u}, {}, {warp_mask}", e.warp));
        e.ins(format!("or.b32 {t}, {t}, {u}"));
        e.ins(format!("setp.eq.u32 {p}, {t}, 0"));
        Owner::If(p)
    } else {
        Owner::Always
    };
    let unique = l.unique_registers();
    Ok(unique.into_iter().map(|u| if u { thread_pred } else { Owner::Never }).collect())
}

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

fn store(e: &mut Emitter, op: Op) -> EResult<()> {
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

fn atomic(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op);
    let is_cas = data.opcode == Opcode::AtomicCas;
    let ptr = e.get(data.operands[0])?;
    let args: Vec<Vec<Reg>> = data.operands[1..].iter().map(|&v| e.get(v)).collect::<EResult<_>>()?;
    let d = e.ty(data.results[0]).dtype();
    let sem = match data.attrs.str("sem").unwrap_or("acq_rel") {
        s @ ("relaxed" | "acquire" | "release" | "acq_rel") => s.to_string(),
        _ => "acq_rel".to_string(),
    };
    let scope = match data.attrs.str("scope").unwrap_or("gpu") {
        "cta" => "cta",
        "sys" => "sys",
        _ => "gpu",
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
        e.ins(format!("{pred}atom.{sem}.{scope}.global.{opname}.{ty} {r}, [{}], {operands}", ptr[i]));
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
