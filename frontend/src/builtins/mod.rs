//! The Triton language surface: `triton.language` functions, tensor methods and the few Python
//! builtins a kernel may call, each lowered to TTIR with Triton's semantics.
//!
//! Names resolve to canonical strings (`load`, `math.exp` is `exp`, `libdevice.tanh` is `tanh`);
//! [`call`] dispatches on them. The families live in their own files: construction and
//! compile-time helpers (`creation.rs`), memory and atomics (`memory.rs`), elementwise math and
//! casts (`math.rs`), reductions, scans and sorting (`reduce.rs`), shape manipulation
//! (`shape.rs`), `tl.dot` (`dot.rs`) and the Philox generator (`random.rs`). `namespace.rs` lists
//! the names `triton.language` has, to tell a name trident does not lower yet from a name that is
//! not Triton's.

mod creation;
mod dot;
mod math;
pub(crate) mod memory;
pub mod namespace;
mod random;
mod reduce;
mod shape;

use trident_midend::ir::DType;

use crate::lower::{FnLowerer, LResult};
use crate::value::{Const, FValue};

pub use math::where_;

/// Positional and keyword arguments of one call, consumed by name or position.
pub struct CallArgs {
    pub args: Vec<FValue>,
    pub kwargs: Vec<(String, FValue)>,
}

impl CallArgs {
    pub fn positional(args: Vec<FValue>) -> CallArgs {
        CallArgs { args, kwargs: Vec::new() }
    }

    /// Takes the argument at position `index` or, failing that, the keyword `name`.
    pub fn take(&mut self, index: usize, name: &str) -> Option<FValue> {
        if let Some(pos) = self.kwargs.iter().position(|(k, _)| k == name) {
            return Some(self.kwargs.remove(pos).1);
        }
        match self.args.get_mut(index) {
            Some(slot) if !matches!(slot, FValue::Builtin(ref s) if s == "__taken") => {
                Some(std::mem::replace(slot, FValue::Builtin("__taken".into())))
            }
            _ => None,
        }
    }

    /// Takes a keyword-only argument.
    pub fn take_kw(&mut self, name: &str) -> Option<FValue> {
        let pos = self.kwargs.iter().position(|(k, _)| k == name)?;
        Some(self.kwargs.remove(pos).1)
    }

    /// Every positional argument from `index` on (for `*args` parameters).
    pub fn take_rest(&mut self, index: usize) -> Vec<FValue> {
        if index >= self.args.len() {
            return Vec::new();
        }
        self.args
            .split_off(index)
            .into_iter()
            .filter(|a| !matches!(a, FValue::Builtin(s) if s == "__taken"))
            .collect()
    }

    /// The first argument nobody consumed, for an "unexpected argument" error.
    pub fn leftover(&self) -> Option<String> {
        if let Some((k, _)) = self.kwargs.first() {
            return Some(k.clone());
        }
        self.args
            .iter()
            .position(|a| !matches!(a, FValue::Builtin(s) if s == "__taken"))
            .map(|i| format!("positional argument {}", i + 1))
    }
}

impl FnLowerer<'_, '_> {
    /// A required argument.
    pub fn arg(&self, a: &mut CallArgs, index: usize, name: &str, func: &str) -> LResult<FValue> {
        match a.take(index, name) {
            Some(v) => Ok(v),
            None => self.error(format!("{func}() is missing the argument `{name}`")),
        }
    }

    /// Fails on arguments the function does not take.
    pub fn no_more(&self, a: &CallArgs, func: &str) -> LResult<()> {
        match a.leftover() {
            Some(k) => self.error(format!("{func}() got an unexpected {k}")),
            None => Ok(()),
        }
    }

    pub fn const_int(&self, v: &FValue, what: &str) -> LResult<i64> {
        match v {
            FValue::Const(Const::Int(i)) => {
                i64::try_from(*i).or_else(|_| self.error(format!("{what} is out of range")))
            }
            FValue::Const(Const::Bool(b)) => Ok(*b as i64),
            _ => self.error(format!("{what} must be a compile-time integer (a tl.constexpr)")),
        }
    }

    pub fn const_bool(&self, v: Option<FValue>, default: bool, what: &str) -> LResult<bool> {
        match v {
            None | Some(FValue::Const(Const::None)) => Ok(default),
            Some(FValue::Const(c)) => Ok(c.truthy()),
            Some(_) => self.error(format!("{what} must be a compile-time constant")),
        }
    }

    pub fn const_str(&self, v: Option<FValue>, what: &str) -> LResult<String> {
        match v {
            None | Some(FValue::Const(Const::None)) => Ok(String::new()),
            Some(FValue::Const(Const::Str(s))) => Ok(s),
            Some(_) => self.error(format!("{what} must be a string constant")),
        }
    }

    pub fn const_dtype(&self, v: &FValue, what: &str) -> LResult<DType> {
        match v {
            FValue::Const(Const::DType(d)) => Ok(*d),
            _ => self.not_a_dtype(v, format!("{what} must be a dtype such as tl.float32")),
        }
    }

    /// The error for `v` where a dtype belongs: a `triton.language` name trident lacks (the fp8
    /// types `float8e4b15`, `float8e4b8`, `float8e5b16`) says so; anything else is `message`.
    pub fn not_a_dtype<T>(&self, v: &FValue, message: String) -> LResult<T> {
        match v {
            FValue::Builtin(name) if namespace::is_triton_language(name) => {
                self.error(namespace::unknown_call_message(name))
            }
            _ => self.error(message),
        }
    }

    /// A shape given as an int, a tuple/list of ints, or varargs.
    pub fn const_shape(&self, v: &FValue, what: &str) -> LResult<Vec<u32>> {
        let items = match v {
            FValue::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        };
        let mut out = Vec::new();
        for i in items {
            let d = self.const_int(&i, what)?;
            if d <= 0 || d > u32::MAX as i64 {
                return self.error(format!("{what}: every dimension must be positive, got {d}"));
            }
            out.push(d as u32);
        }
        Ok(out)
    }

    /// Checks Triton's tensor shape rules: power-of-two dims, at most 2^20 elements.
    pub fn check_block_shape(&self, shape: &[u32]) -> LResult<()> {
        for (i, &d) in shape.iter().enumerate() {
            if !d.is_power_of_two() {
                return self.error(format!("shape {shape:?}: dimension {i} ({d}) must be a power of 2"));
            }
        }
        // Saturating: four dims of 65536 must not wrap around to 0 elements and pass.
        let numel: u64 = shape.iter().fold(1u64, |n, &d| n.saturating_mul(d as u64));
        if numel > crate::limits::MAX_TENSOR_NUMEL {
            let count = if numel == u64::MAX { "2^64 or more".to_string() } else { numel.to_string() };
            return self.error(format!(
                "shape {shape:?} has {count} elements; Triton allows at most {}",
                crate::limits::MAX_TENSOR_NUMEL
            ));
        }
        Ok(())
    }
}

/// Resolves `module.name` for the Triton modules.
pub fn lookup_in_module(path: &str, name: &str) -> FValue {
    match path {
        "triton" => match name {
            "language" => FValue::Module("triton.language".into()),
            "jit" | "autotune" | "heuristics" | "Config" => FValue::Builtin(name.into()),
            "cdiv" => FValue::Builtin("cdiv".into()),
            "next_power_of_2" => FValue::Builtin("next_power_of_2".into()),
            _ => FValue::Builtin(format!("triton.{name}")),
        },
        "triton.language" | "triton.language.core" => {
            if let Some(d) = dtype_by_name(name) {
                return FValue::Const(Const::DType(d));
            }
            match name {
                "math" => FValue::Module("triton.language.math".into()),
                "extra" => FValue::Module("triton.language.extra".into()),
                "random" | "standard" => FValue::Module("triton.language".into()),
                "PropagateNan" => FValue::Module("triton.language.PropagateNan".into()),
                // The most elements a tensor may have (Triton's constant).
                "TRITON_MAX_TENSOR_NUMEL" => FValue::int(crate::limits::MAX_TENSOR_NUMEL as i128),
                _ => FValue::Builtin(name.into()),
            }
        }
        // Triton's enum values: NONE and ALL (the NaN-propagating min/max).
        "triton.language.PropagateNan" => match name {
            "NONE" => FValue::int(0),
            "ALL" => FValue::int(0xFFFF),
            _ => FValue::Builtin(format!("PropagateNan.{name}")),
        },
        "triton.language.extra" | "triton.language.extra.cuda" => match name {
            "libdevice" => FValue::Module("triton.language.extra.libdevice".into()),
            "cuda" => FValue::Module("triton.language.extra.cuda".into()),
            _ => FValue::Builtin(format!("extra.{name}")),
        },
        "triton.language.math" => FValue::Builtin(name.into()),
        "triton.language.extra.libdevice" => FValue::Builtin(libdevice_name(name)),
        _ => FValue::Builtin(format!("{path}.{name}")),
    }
}

fn dtype_by_name(name: &str) -> Option<DType> {
    Some(match name {
        "int1" => DType::I1,
        "int8" => DType::I8,
        "int16" => DType::I16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "uint32" => DType::U32,
        "uint64" => DType::U64,
        "float16" => DType::F16,
        "bfloat16" => DType::BF16,
        "float32" => DType::F32,
        "float64" => DType::F64,
        "float8e4nv" => DType::F8E4M3,
        "float8e5" => DType::F8E5M2,
        _ => return None,
    })
}

/// libdevice names that map onto Triton's own math functions.
fn libdevice_name(name: &str) -> String {
    match name {
        "fabs" | "abs" => "abs".into(),
        "exp" | "expf" | "fast_expf" => "exp".into(),
        "exp2" | "exp2f" => "exp2".into(),
        "log" | "logf" | "fast_logf" => "log".into(),
        "log2" | "log2f" => "log2".into(),
        "sqrt" | "sqrtf" => "sqrt_rn".into(),
        "rsqrt" | "rsqrtf" => "rsqrt".into(),
        "sin" | "sinf" => "sin".into(),
        "cos" | "cosf" => "cos".into(),
        "tanh" | "tanhf" => "tanh".into(),
        "erf" | "erff" => "erf".into(),
        "floor" | "floorf" => "floor".into(),
        "ceil" | "ceilf" => "ceil".into(),
        "fma" | "fmaf" => "fma".into(),
        "div_rn" => "div_rn".into(),
        other => format!("libdevice.{other}"),
    }
}

/// Calls the builtin `name`.
pub fn call(l: &mut FnLowerer, name: &str, mut a: CallArgs) -> LResult<FValue> {
    let a = &mut a;
    match name {
        // compile-time helpers and program geometry
        "constexpr" | "program_id" | "num_programs" | "arange" | "zeros" | "zeros_like" | "full"
        | "full_like" | "cdiv" | "next_power_of_2" | "swizzle2d" | "multiple_of" | "max_contiguous"
        | "max_constancy" | "static_assert" | "static_print" | "device_print" | "device_assert"
        | "debug_barrier" | "assume" | "pointer_type" | "cast" | "to_tensor" => creation::call(l, name, a),
        "load"
        | "store"
        | "atomic_add"
        | "atomic_max"
        | "atomic_min"
        | "atomic_and"
        | "atomic_or"
        | "atomic_xor"
        | "atomic_xchg"
        | "atomic_cas"
        | "make_block_ptr"
        | "advance"
        | "make_tensor_descriptor"
        | "load_tensor_descriptor"
        | "store_tensor_descriptor" => memory::call(l, name, a),
        "where" | "maximum" | "minimum" | "clamp" | "fma" | "abs" | "exp" | "exp2" | "log" | "log2"
        | "sqrt" | "sqrt_rn" | "rsqrt" | "sin" | "cos" | "tanh" | "floor" | "ceil" | "erf" | "sigmoid"
        | "div_rn" | "fdiv" | "umulhi" | "softmax" => math::call(l, name, a),
        "sum" | "max" | "min" | "argmax" | "argmin" | "xor_sum" | "reduce" | "reduce_or" | "reduce_and"
        | "cumsum" | "cumprod" | "associative_scan" | "sort" | "topk" | "histogram" => {
            reduce::call(l, name, a)
        }
        "reshape" | "view" | "trans" | "permute" | "join" | "split" | "interleave" | "expand_dims"
        | "broadcast_to" | "broadcast" | "flip" | "cat" | "ravel" | "gather" => shape::call(l, name, a),
        "dot" => dot::call(l, a),
        "rand"
        | "randn"
        | "randint"
        | "randint4x"
        | "rand4x"
        | "randn4x"
        | "philox"
        | "uint_to_uniform_float"
        | "pair_uniform_to_normal" => random::call(l, name, a),
        "range" | "static_range" => {
            l.error(format!("tl.{name} can only be used as the iterable of a `for` loop"))
        }
        "jit" | "autotune" | "heuristics" | "Config" => {
            l.error(format!("triton.{name} cannot be used inside a kernel"))
        }
        // A bare name came from `triton.language` (`tl.NAME`, `tl.math.NAME`, `from
        // triton.language import NAME`): Triton may not have it at all. Dotted names come from
        // modules trident knows only in part (`triton.`, `libdevice.`, `extra.`).
        other if !other.contains('.') => l.error(namespace::unknown_call_message(other)),
        other => {
            l.error(format!("`{}` is not supported by trident yet", other.trim_start_matches("triton.")))
        }
    }
}

/// Calls a method on a value (`x.to(...)`, `x.sum(0)`, `desc.load([...])`).
pub fn call_method(l: &mut FnLowerer, recv: FValue, name: &str, mut a: CallArgs) -> LResult<FValue> {
    match (&recv, name) {
        (FValue::Tensor(v), _) if l.ty(*v).is_desc() => memory::desc_method(l, *v, name, &mut a),
        (FValue::Tensor(_), "to") => {
            let dtype = l.arg(&mut a, 0, "dtype", "to")?;
            let bitcast = a.take(2, "bitcast");
            let _rounding = a.take(1, "fp_downcast_rounding");
            let mut args = CallArgs::positional(vec![recv, dtype]);
            if let Some(b) = bitcast {
                args.kwargs.push(("bitcast".into(), b));
            }
            l.no_more(&a, "to")?;
            creation::call(l, "cast", &mut args)
        }
        (FValue::Tensor(_), "reshape" | "view" | "trans" | "permute" | "broadcast_to" | "expand_dims") => {
            // These take their shape or dims either as one tuple or as varargs.
            let mut args = vec![recv];
            let rest = a.take_rest(0);
            if rest.len() > 1 && rest.iter().all(|r| r.is_const()) {
                args.push(FValue::Tuple(rest));
            } else {
                args.extend(rest);
            }
            call(l, name, CallArgs { args, kwargs: a.kwargs })
        }
        (FValue::Tensor(_), _) => {
            let mut args = vec![recv];
            args.append(&mut a.args);
            call(l, name, CallArgs { args, kwargs: a.kwargs })
        }
        (FValue::Const(Const::DType(d)), query) => {
            let r = match query {
                "is_floating" => d.is_float(),
                "is_int" => d.is_int(),
                "is_int_signed" => d.is_signed_int(),
                "is_int_unsigned" => d.is_unsigned_int(),
                "is_fp16" => *d == DType::F16,
                "is_bf16" => *d == DType::BF16,
                "is_fp32" => *d == DType::F32,
                "is_fp64" => *d == DType::F64,
                "is_fp8" => d.is_fp8(),
                "is_ptr" => false,
                _ => return l.error(format!("a dtype has no method `{query}`")),
            };
            Ok(FValue::Const(Const::Bool(r)))
        }
        (FValue::BlockPtr(_), "advance") => {
            let mut args = vec![recv];
            args.append(&mut a.args);
            memory::call(l, "advance", &mut CallArgs { args, kwargs: a.kwargs })
        }
        _ => l.error(format!("{} has no method `{name}`", crate::lower::expr::describe(&recv))),
    }
}

/// Python builtins usable in kernels (on compile-time values, mostly).
pub fn call_python(l: &mut FnLowerer, name: &str, mut a: CallArgs) -> LResult<FValue> {
    match name {
        "min" | "max" => {
            let mut items = a.take_rest(0);
            if items.len() == 1 {
                if let FValue::Tuple(t) = items.remove(0) {
                    items = t;
                }
            }
            if items.is_empty() {
                return l.error(format!("{name}() needs arguments"));
            }
            if items.iter().all(|i| i.is_const()) {
                let mut best = items[0].clone();
                for x in &items[1..] {
                    let (FValue::Const(bc), FValue::Const(xc)) = (&best, x) else { unreachable!() };
                    let less = l.const_compare(crate::lower::semantic::CmpOp::Lt, xc, bc)?;
                    if (name == "min") == less {
                        best = x.clone();
                    }
                }
                return Ok(best);
            }
            l.error(format!("Python's {name}() only works on compile-time values; use tl.{}imum", name))
        }
        "len" => match a.take(0, "obj") {
            Some(FValue::Tuple(t)) => Ok(FValue::int(t.len() as i128)),
            Some(FValue::Tensor(v)) => match l.ty(v).shape().first() {
                Some(&d) => Ok(FValue::int(d as i128)),
                None => l.error("len() of a scalar"),
            },
            _ => l.error("len() needs a tuple or a tensor"),
        },
        "float" => match a.take(0, "x") {
            Some(FValue::Const(Const::Str(s))) => {
                let v = match s.trim().to_ascii_lowercase().as_str() {
                    "inf" | "+inf" | "infinity" => f64::INFINITY,
                    "-inf" | "-infinity" => f64::NEG_INFINITY,
                    "nan" | "+nan" | "-nan" => f64::NAN,
                    other => match other.parse::<f64>() {
                        Ok(v) => v,
                        Err(_) => return l.error(format!("float() cannot parse {s:?}")),
                    },
                };
                Ok(FValue::Const(Const::Float(v)))
            }
            Some(FValue::Const(Const::Int(i))) => Ok(FValue::Const(Const::Float(i as f64))),
            Some(FValue::Const(Const::Float(f))) => Ok(FValue::Const(Const::Float(f))),
            Some(FValue::Const(Const::Bool(b))) => Ok(FValue::Const(Const::Float(b as i64 as f64))),
            _ => l.error("float() only converts compile-time values; use x.to(tl.float32)"),
        },
        "int" => match a.take(0, "x") {
            Some(FValue::Const(Const::Int(i))) => Ok(FValue::int(i)),
            Some(FValue::Const(Const::Float(f))) => Ok(FValue::int(f.trunc() as i128)),
            Some(FValue::Const(Const::Bool(b))) => Ok(FValue::int(b as i128)),
            _ => l.error("int() only converts compile-time values; use x.to(tl.int32)"),
        },
        "bool" => match a.take(0, "x") {
            Some(FValue::Const(c)) => Ok(FValue::Const(Const::Bool(c.truthy()))),
            _ => l.error("bool() only converts compile-time values"),
        },
        "abs" => match a.take(0, "x") {
            Some(FValue::Const(Const::Int(i))) => Ok(FValue::int(i.abs())),
            Some(FValue::Const(Const::Float(f))) => Ok(FValue::Const(Const::Float(f.abs()))),
            Some(v) => math::call(l, "abs", &mut CallArgs::positional(vec![v])),
            None => l.error("abs() needs an argument"),
        },
        "print" => creation::call(l, "static_print", &mut a),
        "range" => l.error("range() can only be used as the iterable of a `for` loop"),
        other => l.error(format!("the Python builtin `{other}` is not supported in Triton kernels")),
    }
}
