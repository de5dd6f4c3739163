//! Warp-specialized kernels (sm_90a): `ttng.warp_specialize` and the mbarrier arrays its loops
//! hand slots back through (`ttng.init_barriers`, `ttng.arrive_barrier`).
//!
//! # Roles
//!
//! A kernel holding `ttng.warp_specialize` ops runs with `num_warps` consumer warps (warps
//! `0 .. num_warps`, so every layout of the kernel keeps its meaning) plus one producer
//! warpgroup after them. The first instruction after the prologue splits them, as one if/else
//! (what ptxas needs to honour `setmaxnreg`): the consumers raise their register limit
//! (`setmaxnreg.inc`) and run the kernel; the producer lowers its own (`setmaxnreg.dec`) and
//! waits in a dispatch loop at the end of the kernel for work. The kernel is declared with the
//! register cap the launch allows all warps (`.maxnreg`).
//!
//! # Hand-over
//!
//! At a `ttng.warp_specialize`, the consumers' thread 0 writes the op's number and the scalars
//! the producer region reads from outside into the hand-over area at the bottom of shared
//! memory ([`HANDOVER_BYTES`], below the rings), and both groups pass named barrier 1; the
//! producer reads them, and both pass named barrier 2, after which the area may be written
//! again. Constants are not handed over but rematerialized. The consumers then run the default
//! region and the producer its own region, which jumps back to the dispatch loop at its end. At
//! `tt.return`, thread 0 writes 0, which sends the producer out.
//!
//! Every other barrier of the kernel is among the consumers only (`bar.sync 0, consumers`), and
//! the producer region may have none. Its TMA copies are issued by its first thread.

use trident_midend::ir::{Op, Opcode, Value};
use trident_midend::passes::pipeline_dot_loads::warp_specialize::HANDOVER_BYTES;

use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};
use crate::shared_rings::Ring;

/// The two warp groups of a warp-specialized kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roles {
    pub consumer_threads: u32,
    pub producer_threads: u32,
    pub consumer_registers: u32,
    pub producer_registers: u32,
}

impl Roles {
    /// The roles the kernel's `ttng.warp_specialize` ops ask for (all must agree), if it has any.
    pub fn of(e: &Emitter) -> EResult<Option<Roles>> {
        let body = &e.func.body;
        let mut roles = None;
        for op in body.walk(e.func.entry) {
            if body.opcode(op) != Opcode::WarpSpecialize {
                continue;
            }
            let attrs = &body.op(op).attrs;
            let int = |key: &str| attrs.int(key).unwrap_or(0).clamp(0, 1 << 16) as u32;
            let these = Roles {
                consumer_threads: 32 * e.options.num_warps,
                producer_threads: 32 * int("producer_warps"),
                consumer_registers: int("consumer_registers"),
                producer_registers: int("producer_registers"),
            };
            if roles.is_some_and(|r| r != these) {
                return e.invalid("warp_specialize ops of one kernel ask for different warp groups");
            }
            roles = Some(these);
        }
        Ok(roles)
    }

    pub fn total_threads(&self) -> u32 {
        self.consumer_threads + self.producer_threads
    }

    /// The per-thread register cap every warp starts with: what the register file gives each of
    /// the kernel's threads, in multiples of 8, below what the consumers raise theirs to.
    pub fn entry_registers(&self) -> u32 {
        let even = (64 * 1024 / self.total_threads()) / 8 * 8;
        even.min(self.consumer_registers - 8)
    }
}

/// Code that only the producer warpgroup runs, gathered while the kernel is emitted and placed
/// after it.
#[derive(Default)]
pub struct ProducerCode {
    /// The regions, each behind its label, in op order (op `i + 1` is `labels[i]`).
    pub text: String,
    pub labels: Vec<String>,
}

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    match e.func.body.opcode(op) {
        Opcode::InitBarriers => init_barriers(e, op),
        Opcode::ArriveBarrier => arrive(e, op),
        _ => warp_specialize(e, op),
    }
}

/// The kernel's first instructions: the producer warpgroup leaves for its dispatch loop, the
/// consumers take their registers.
pub fn split_roles(e: &mut Emitter, roles: Roles) {
    let producer = e.reg(Class::Pred);
    e.ins(format!("setp.ge.u32 {producer}, {}, {}", e.tid, roles.consumer_threads));
    e.ins(format!("@{producer} bra $L_ws_producer"));
    e.ins(format!("setmaxnreg.inc.sync.aligned.u32 {}", roles.consumer_registers));
}

/// The producer's part of the kernel, after the consumers' code: its register limit, the
/// dispatch loop, the regions.
pub fn append_producer_part(e: &mut Emitter, roles: Roles) {
    let code = std::mem::take(&mut e.producer);
    let start = e.smem_start();
    let (state, go) = (e.reg(Class::B32), e.reg(Class::Pred));
    e.ptx.place_label("$L_ws_producer");
    e.ins(format!("setmaxnreg.dec.sync.aligned.u32 {}", roles.producer_registers));
    e.ptx.place_label("$L_ws_dispatch");
    e.ins(format!("bar.sync 1, {}", roles.total_threads()));
    e.ins(format!("ld.shared.u32 {state}, [{start}]"));
    for (i, label) in code.labels.iter().enumerate() {
        e.ins(format!("setp.eq.u32 {go}, {state}, {}", i + 1));
        e.ins(format!("@{go} bra {label}"));
    }
    e.ins("ret");
    e.ptx.body.push_str(&code.text);
}

/// At `tt.return` in a warp-specialized kernel: thread 0 sends the producer out.
pub fn release_producer(e: &mut Emitter, roles: Roles) {
    let start = e.smem_start();
    let first = crate::tma::first_thread(e);
    let zero = e.reg(Class::B32);
    e.ins(format!("mov.b32 {zero}, 0"));
    e.ins(format!("@{first} st.shared.u32 [{start}], {zero}"));
    e.ins(format!("bar.sync 1, {}", roles.total_threads()));
}

/// `ttng.warp_specialize`: the hand-over, the default region here, the producer region into
/// [`ProducerCode`].
fn warp_specialize(e: &mut Emitter, op: Op) -> EResult<()> {
    let Some(roles) = e.roles else { return e.invalid("warp_specialize in a kernel without roles") };
    let data = e.func.body.op(op).clone();
    let (default, producer) = (data.regions[0], data.regions[1]);
    let body = &e.func.body;
    let is_constant = |v: Value| body.def_op(v).is_some_and(|d| body.opcode(d) == Opcode::Constant);
    let (constants, handed): (Vec<Value>, Vec<Value>) =
        body.captures(producer).into_iter().partition(|&v| is_constant(v));
    if 8 * (handed.len() as u32 + 1) > HANDOVER_BYTES {
        return e.invalid(format!("a producer region reading {} values from outside", handed.len()));
    }
    let number = e.producer.labels.len() + 1;
    let total = roles.total_threads();

    // Thread 0 writes the op's number and the captured scalars (8 bytes each, after the number).
    let start = e.smem_start();
    let first = crate::tma::first_thread(e);
    let state = e.reg(Class::B32);
    e.ins(format!("mov.b32 {state}, {number}"));
    e.ins(format!("@{first} st.shared.u32 [{start}], {state}"));
    for (i, &v) in handed.iter().enumerate() {
        let r = single(e, v)?;
        store_captured(e, first, r, start, 8 * (i + 1));
    }
    e.ins(format!("bar.sync 1, {total}"));
    e.ins(format!("bar.sync 2, {total}"));

    // The producer region, in its own text: read the hand-over, release it, run.
    let label = format!("$L_ws_region_{number}");
    let consumer_text = std::mem::take(&mut e.ptx.body);
    let consumer_caches = e.take_body_caches();
    let mut saved: Vec<(Value, Option<Vec<Reg>>)> = Vec::new();
    e.ptx.place_label(&label);
    for (i, &v) in handed.iter().enumerate() {
        let class = single(e, v)?.class;
        let r = load_captured(e, class, start, 8 * (i + 1));
        saved.push((v, e.vals.insert(v, vec![r])));
    }
    e.ins(format!("bar.sync 2, {total}"));
    for &v in &constants {
        let def = e.func.body.def_op(v).expect("a constant is an op result");
        saved.push((v, e.vals.get(&v).cloned()));
        e.op(def)?;
    }
    let leader = std::mem::replace(&mut e.leader, roles.consumer_threads);
    e.in_producer = true;
    let region = e.block(producer);
    e.in_producer = false;
    e.leader = leader;
    region?;
    e.ins("bra.uni $L_ws_dispatch");
    let producer_text = std::mem::replace(&mut e.ptx.body, consumer_text);
    e.restore_body_caches(consumer_caches);
    for (v, regs) in saved {
        match regs {
            Some(regs) => e.vals.insert(v, regs),
            None => e.vals.remove(&v),
        };
    }
    e.producer.text.push_str(&producer_text);
    e.producer.labels.push(label);

    // The default region, here.
    e.block(default)?;
    if let Some(&term) = e.func.body.blocks[default].ops.last() {
        let yielded = e.func.body.op(term).operands.clone();
        for (&result, v) in data.results.iter().zip(yielded) {
            let regs = e.get(v)?;
            e.set(result, regs);
        }
    }
    Ok(())
}

/// The one register of a scalar value.
fn single(e: &Emitter, v: Value) -> EResult<Reg> {
    match e.get(v)?[..] {
        [r] => Ok(r),
        _ => e.invalid("a producer region reads a tensor from outside"),
    }
}

/// The PTX type a captured register of `class` goes through shared memory as (a predicate as a
/// 32-bit word).
fn shared_type(class: Class) -> &'static str {
    match class {
        Class::B16 => "b16",
        Class::Pred | Class::B32 | Class::F32 => "b32",
        Class::B64 | Class::F64 => "b64",
    }
}

/// Thread `first` stores the captured register `r` at `[base + offset]`.
fn store_captured(e: &mut Emitter, first: Reg, mut r: Reg, base: Reg, offset: usize) {
    let ty = shared_type(r.class);
    if r.class == Class::Pred {
        let word = e.reg(Class::B32);
        e.ins(format!("selp.u32 {word}, 1, 0, {r}"));
        r = word;
    }
    e.ins(format!("@{first} st.shared.{ty} [{base}+{offset}], {r}"));
}

/// A fresh register of `class` loaded from `[base + offset]`, where [`store_captured`] put it.
fn load_captured(e: &mut Emitter, class: Class, base: Reg, offset: usize) -> Reg {
    let r = e.reg(class);
    let ty = shared_type(class);
    if class == Class::Pred {
        let word = e.reg(Class::B32);
        e.ins(format!("ld.shared.{ty} {word}, [{base}+{offset}]"));
        e.ins(format!("setp.ne.u32 {r}, {word}, 0"));
    } else {
        e.ins(format!("ld.shared.{ty} {r}, [{base}+{offset}]"));
    }
    r
}

/// `ttng.init_barriers`: `count` mbarriers on the ring stack, each completing a phase after
/// `arrivals` arrivals, initialized by thread 0 before the consumers' barrier.
fn init_barriers(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let count = data.attrs.int("count").unwrap_or(1).clamp(1, 1 << 10) as u32;
    let arrivals = data.attrs.int("arrivals").unwrap_or(1).clamp(1, 1 << 20);
    let offset = e.ring_top.next_multiple_of(8);
    let ring = Ring::barriers_only(offset, count);
    e.ring_top = offset + ring.bytes;
    e.need_shared(0)?;
    let start = e.smem_start();
    let first = crate::tma::first_thread(e);
    for slot in 0..count {
        e.ins(format!("@{first} mbarrier.init.shared::cta.b64 [{start}+{}], {arrivals}", offset + 8 * slot));
    }
    e.barrier();
    let r = e.reg(Class::B32);
    e.ins(format!("add.s32 {r}, {start}, {offset}"));
    e.rings.insert(data.results[0], ring);
    e.set(data.results[0], vec![r]);
    Ok(())
}

/// `ttng.arrive_barrier`: lane 0 of each warp arrives on the barrier when the predicate holds
/// (the warp's lanes are past the same instructions: what they waited for is done).
fn arrive(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let (_, barrier) = crate::shared_rings::slot_barrier(e, data.operands[0], data.operands[1])?;
    let when = e.get(data.operands[2])?[0];
    let lane0 = e.reg(Class::Pred);
    e.ins(format!("setp.eq.and.u32 {lane0}, {}, 0, {when}", e.lane));
    e.ins(format!("@{lane0} mbarrier.arrive.shared::cta.b64 _, [{barrier}]"));
    Ok(())
}
