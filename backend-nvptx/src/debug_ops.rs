//! `tt.print` and `tt.assert` (`tl.device_print`, `tl.device_assert`) through the PTX ABI's
//! system calls, as Triton lowers them.
//!
//! `tt.print` calls `vprintf` once per register of each operand, from every thread that holds it
//! (a broadcast layout prints an element once per copy, as Triton does), with the line the
//! interpreter prints: `pid (x, y, z) idx (i, j) prefix value` (` (operand k)` after the prefix
//! when there are several operands). Integers print as `%d`/`%u`/`%lld`/`%llu`, floats as `%f`
//! (widened to double, as C varargs are), `hex=True` as `0x%x`/`0x%llx` of the bits, pointers as
//! `0x%llx` (fp8 values print only with `hex=True`). The arguments go into a local buffer laid out as `vprintf` reads it (each at its own
//! alignment). A print of no operand prints `pid (x, y, z) prefix` once per thread.
//!
//! `tt.assert` calls `__assertfail(message, file, line, function, 1)` in each thread where an
//! element of the condition is false (the frontend has already folded the mask in), so the CUDA
//! runtime reports the Python file and line, then traps; the launch fails with the assert error.

use std::fmt::Write;

use trident_midend::ir::{DType, Op, Opcode};

use trident_midend::codegen::Isa;

use crate::emit::{EResult, Emitter};
use crate::ptx::{Class, Reg};

const VPRINTF: &str = ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, \
                       .param .b64 vprintf_param_1);";
const ASSERTFAIL: &str = ".extern .func __assertfail(.param .b64 __assertfail_param_0, .param .b64 \
                          __assertfail_param_1, .param .b32 __assertfail_param_2, .param .b64 \
                          __assertfail_param_3, .param .b64 __assertfail_param_4);";

pub fn lower(e: &mut Emitter, op: Op) -> EResult<()> {
    match e.func.body.opcode(op) {
        Opcode::Print => print(e, op),
        Opcode::Assert => assert(e, op),
        other => e.invalid(format!("{} is not a debug op", other.name())),
    }
}

/// One argument of a `vprintf` call: its register and how it is stored (`st.local` type, bytes).
struct Arg {
    reg: Reg,
    store: &'static str,
    bytes: u32,
}

fn print(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let prefix = data.attrs.str("prefix").unwrap_or("").trim().to_string();
    let hex = data.attrs.bool("hex").unwrap_or(false);
    e.declare(VPRINTF);
    let pid: Vec<Reg> = ["x", "y", "z"]
        .iter()
        .map(|axis| {
            let r = e.reg(Class::B32);
            e.ins(format!("mov.u32 {r}, %ctaid.{axis}"));
            r
        })
        .collect();
    let pid_args = || pid.iter().map(|&reg| Arg { reg, store: "u32", bytes: 4 }).collect::<Vec<_>>();
    let head = |idx: Option<String>, k: Option<usize>| {
        let mut line = String::from("pid (%u, %u, %u)");
        if let Some(idx) = idx {
            let _ = write!(line, " idx ({idx})");
        }
        if !prefix.is_empty() {
            line.push(' ');
            line.push_str(&prefix.replace('%', "%%"));
        }
        if let Some(k) = k {
            let _ = write!(line, " (operand {k})");
        }
        line
    };
    if data.operands.is_empty() {
        return call_vprintf(e, &format!("{}\n", head(None, None)), &pid_args());
    }
    let several = data.operands.len() > 1;
    for (k, &v) in data.operands.iter().enumerate() {
        let ty = e.ty(v).clone();
        let regs = e.get(v)?;
        let rank = ty.shape().len();
        let coords: Vec<Vec<Reg>> = if rank == 0 {
            Vec::new()
        } else {
            let layout = e.layout(v)?;
            (0..rank).map(|dim| e.coord_regs(&layout, dim)).collect()
        };
        let idx = vec!["%u"; rank].join(", ");
        for (i, &reg) in regs.iter().enumerate() {
            let (value, directive) = printable(e, reg, ty.dtype(), ty.is_ptr(), hex)?;
            let mut args = pid_args();
            args.extend(coords.iter().map(|c| Arg { reg: c[i], store: "u32", bytes: 4 }));
            args.push(value);
            let format = format!("{} {directive}\n", head(Some(idx.clone()), several.then_some(k)));
            call_vprintf(e, &format, &args)?;
        }
    }
    Ok(())
}

/// The register `vprintf` gets for one element and its directive.
fn printable(e: &mut Emitter, reg: Reg, d: DType, is_ptr: bool, hex: bool) -> EResult<(Arg, &'static str)> {
    if is_ptr {
        return Ok((Arg { reg, store: "u64", bytes: 8 }, "0x%llx"));
    }
    let bits = d.bits();
    if bits == 64 {
        let (reg, directive) = match d {
            DType::F64 if hex => {
                let r = e.reg(Class::B64);
                e.ins(format!("mov.b64 {r}, {reg}"));
                (r, "0x%llx")
            }
            DType::F64 => (reg, "%f"),
            _ if hex => (reg, "0x%llx"),
            DType::U64 => (reg, "%llu"),
            _ => (reg, "%lld"),
        };
        let store = if directive == "%f" { "f64" } else { "u64" };
        return Ok((Arg { reg, store, bytes: 8 }, directive));
    }
    if d.is_float() && !hex {
        let r = e.reg(Class::F64);
        match d {
            DType::F32 => e.ins(format!("cvt.f64.f32 {r}, {reg}")),
            DType::F16 => e.ins(format!("cvt.f64.f16 {r}, {reg}")),
            DType::BF16 => e.ins(format!("cvt.f64.bf16 {r}, {reg}")),
            _ => return e.unsupported("printing fp8 values without hex=True"),
        }
        return Ok((Arg { reg: r, store: "f64", bytes: 8 }, "%f"));
    }
    // 32 bits or fewer: narrow integers are already extended in 32-bit registers; hex shows the
    // element's own bits.
    let r = e.reg(Class::B32);
    match (d, bits) {
        (DType::I1, _) => e.ins(format!("selp.u32 {r}, 1, 0, {reg}")),
        (_, 32) => e.ins(format!("mov.b32 {r}, {reg}")),
        (_, 16) if d.is_float() => e.ins(format!("cvt.u32.u16 {r}, {reg}")),
        (_, 8) if d.is_float() => e.ins(format!("cvt.u32.u16 {r}, {reg}; and.b32 {r}, {r}, 255")),
        _ if hex => e.ins(format!("and.b32 {r}, {reg}, {}", (1u64 << bits) - 1)),
        _ => e.ins(format!("mov.b32 {r}, {reg}")),
    }
    let directive = if hex {
        "0x%x"
    } else if d.is_unsigned_int() || d == DType::I1 {
        "%u"
    } else {
        "%d"
    };
    Ok((Arg { reg: r, store: "u32", bytes: 4 }, directive))
}

/// `vprintf(format, args)`: the arguments laid out in a local buffer at their alignments.
fn call_vprintf(e: &mut Emitter, format: &str, args: &[Arg]) -> EResult<()> {
    let text = e.global_string(format);
    let mut offsets = Vec::with_capacity(args.len());
    let mut size = 0u32;
    for a in args {
        size = size.next_multiple_of(a.bytes);
        offsets.push(size);
        size += a.bytes;
    }
    let (fmt, buf) = (e.reg(Class::B64), e.reg(Class::B64));
    e.ptx.open_scope();
    e.ins(format!(".local .align 8 .b8 print_args[{}]", size.max(8)));
    for (a, offset) in args.iter().zip(offsets) {
        e.ins(format!("st.local.{} [print_args+{offset}], {}", a.store, a.reg));
    }
    e.ins(format!("cvta.global.u64 {fmt}, {text}"));
    e.ins(format!("cvta.local.u64 {buf}, print_args"));
    e.ins(".param .b64 format");
    e.ins(format!("st.param.b64 [format], {fmt}"));
    e.ins(".param .b64 args");
    e.ins(format!("st.param.b64 [args], {buf}"));
    e.ins(".param .b32 written");
    e.ins("call (written), vprintf, (format, args)");
    e.ptx.close_scope();
    Ok(())
}

fn assert(e: &mut Emitter, op: Op) -> EResult<()> {
    let data = e.func.body.op(op).clone();
    let message = data.attrs.str("message").unwrap_or("assertion failed").to_string();
    let (file, line) = match &e.module.source {
        Some(src) if !e.func.body.span(op).is_none() => {
            (src.path.clone(), src.line_col(e.func.body.span(op).start).0)
        }
        Some(src) => (src.path.clone(), 0),
        None => ("<text>".to_string(), 0),
    };
    e.declare(ASSERTFAIL);
    let c = e.get(data.operands[0])?;
    let ok = e.reg(Class::Pred);
    e.ins(format!("mov.pred {ok}, {}", c[0]));
    for r in &c[1..] {
        e.ins(format!("and.pred {ok}, {ok}, {r}"));
    }
    let (message, file, function) =
        (e.global_string(&message), e.global_string(&file), e.global_string(&e.func.name.clone()));
    let holds = e.ptx.label("assert_holds");
    e.ins(format!("@{ok} bra {holds}"));
    let ptrs: Vec<Reg> = [message, file, function]
        .iter()
        .map(|s| {
            let r = e.reg(Class::B64);
            e.ins(format!("cvta.global.u64 {r}, {s}"));
            r
        })
        .collect();
    e.ptx.open_scope();
    for (i, (class, value)) in [
        ("b64", ptrs[0].to_string()),
        ("b64", ptrs[1].to_string()),
        ("b32", line.to_string()),
        ("b64", ptrs[2].to_string()),
        ("b64", "1".to_string()),
    ]
    .iter()
    .enumerate()
    {
        e.ins(format!(".param .{class} assert_param_{i}"));
        e.ins(format!("st.param.{class} [assert_param_{i}], {value}"));
    }
    e.ins(
        "call __assertfail, (assert_param_0, assert_param_1, assert_param_2, assert_param_3, assert_param_4)",
    );
    e.ptx.close_scope();
    e.ins("trap");
    e.ptx.place_label(&holds);
    Ok(())
}
