//! Triton's counter-based random numbers: `tl.randint` / `randint4x` / `rand` / `randn` /
//! `philox`, built from integer IR ops exactly as Triton's `random.py` builds them, so every
//! backend produces the same bits: Philox-4x32 with 10 rounds keyed by the 64-bit seed, the
//! offsets as the first counter word, `uint_to_uniform_float` and Box-Muller for normals.

use trident_midend::ir::{DType, Value};

use super::CallArgs;
use crate::lower::semantic::{BinOp, CmpOp};
use crate::lower::{FnLowerer, LResult};
use crate::value::{Const, FValue};

const ROUND_A: i128 = 0xD2511F53;
const ROUND_B: i128 = 0xCD9E8D57;
const KEY_A: i128 = 0x9E3779B9;
const KEY_B: i128 = 0xBB67AE85;

pub fn call(l: &mut FnLowerer, name: &str, a: &mut CallArgs) -> LResult<FValue> {
    // The generator's conversions, which kernels may call on their own words.
    if name == "uint_to_uniform_float" {
        let x = l.arg(a, 0, "x", "tl.uint_to_uniform_float")?;
        l.no_more(a, "tl.uint_to_uniform_float")?;
        let x = l.to_value(&x)?;
        return match l.number_dtype(x) {
            Some(DType::I32 | DType::U32) => uniform(l, x),
            Some(DType::I64 | DType::U64) => uniform64(l, x),
            _ => l.error(format!(
                "tl.uint_to_uniform_float takes 32- or 64-bit integers, not {}",
                l.elem_name(x)
            )),
        };
    }
    if name == "pair_uniform_to_normal" {
        let u1 = l.arg(a, 0, "u1", "tl.pair_uniform_to_normal")?;
        let u2 = l.arg(a, 1, "u2", "tl.pair_uniform_to_normal")?;
        l.no_more(a, "tl.pair_uniform_to_normal")?;
        // Checked here, so that an error names this function rather than the ones it is made of.
        let u1 = FValue::Tensor(l.number(&u1, "tl.pair_uniform_to_normal")?);
        let u2 = FValue::Tensor(l.number(&u2, "tl.pair_uniform_to_normal")?);
        let (n1, n2) = box_muller(l, u1, u2)?;
        return Ok(FValue::Tuple(vec![n1, n2]));
    }
    let seed = l.arg(a, 0, "seed", name)?;
    if name == "philox" {
        let c: Vec<FValue> =
            (0..4).map(|i| l.arg(a, i + 1, &format!("c{i}"), name)).collect::<LResult<_>>()?;
        let rounds = rounds(l, a.take(5, "n_rounds"))?;
        l.no_more(a, name)?;
        let r = philox(l, seed, [c[0].clone(), c[1].clone(), c[2].clone(), c[3].clone()], rounds)?;
        return Ok(FValue::Tuple(r.into_iter().map(FValue::Tensor).collect()));
    }
    let offset = l.arg(a, 1, "offset", name)?;
    let rounds = rounds(l, a.take(2, "n_rounds"))?;
    l.no_more(a, name)?;
    let r = randint4x(l, seed, offset, rounds)?;
    match name {
        "randint" => Ok(FValue::Tensor(r[0])),
        "randint4x" => Ok(FValue::Tuple(r.into_iter().map(FValue::Tensor).collect())),
        "rand" => uniform(l, r[0]),
        "rand4x" => {
            let mut out = Vec::new();
            for x in r {
                out.push(uniform(l, x)?);
            }
            Ok(FValue::Tuple(out))
        }
        "randn" => {
            let (n1, _) = normal_pair(l, r[0], r[1])?;
            Ok(n1)
        }
        _ => {
            let (n1, n2) = normal_pair(l, r[0], r[1])?;
            let (n3, n4) = normal_pair(l, r[2], r[3])?;
            Ok(FValue::Tuple(vec![n1, n2, n3, n4]))
        }
    }
}

fn rounds(l: &FnLowerer, v: Option<FValue>) -> LResult<i64> {
    match v {
        None | Some(FValue::Const(Const::None)) => Ok(10),
        Some(v) => l.const_int(&v, "n_rounds"),
    }
}

fn randint4x(l: &mut FnLowerer, seed: FValue, offset: FValue, rounds: i64) -> LResult<Vec<Value>> {
    // Triton: `_0 = offset * 0`, then philox(seed, offset, _0, _0, _0).
    let zero = l.binary(BinOp::Mul, offset.clone(), FValue::int(0))?;
    philox(l, seed, [offset, zero.clone(), zero.clone(), zero], rounds)
}

fn philox(l: &mut FnLowerer, seed: FValue, counters: [FValue; 4], rounds: i64) -> LResult<Vec<Value>> {
    let seed = l.number(&seed, "the seed of a random function")?;
    if !l.dtype_of(seed).is_int() || !l.shape_of(seed).is_empty() {
        return l.error("the seed of a random function must be an integer scalar");
    }
    let seed = l.cast(seed, DType::U64)?;
    let mut c = Vec::new();
    for x in counters {
        let v = l.number(&x, "the offset of a random function")?;
        if l.dtype_of(v).bits() != 32 || !l.dtype_of(v).is_int() {
            return l.error(format!(
                "trident implements Philox for 32-bit offsets; got {}",
                l.dtype_of(v).triton_name()
            ));
        }
        c.push(FValue::Tensor(l.bitcast(v, DType::U32)?));
    }
    let hi = l.binary(BinOp::Shr, FValue::Tensor(seed), FValue::int(32))?;
    let hi = l.binary(BinOp::And, hi, FValue::int(0xffffffff))?;
    let hi = l.to_value(&hi)?;
    let mut k1 = FValue::Tensor(l.cast(hi, DType::U32)?);
    let lo = l.binary(BinOp::And, FValue::Tensor(seed), FValue::int(0xffffffff))?;
    let lo = l.to_value(&lo)?;
    let mut k0 = FValue::Tensor(l.cast(lo, DType::U32)?);
    let (mut c0, mut c1, mut c2, mut c3) = (c[0].clone(), c[1].clone(), c[2].clone(), c[3].clone());
    for _ in 0..rounds {
        let (old0, old2) = (c0.clone(), c2.clone());
        let hi_b = super::call(l, "umulhi", CallArgs::positional(vec![FValue::int(ROUND_B), old2.clone()]))?;
        let x = l.binary(BinOp::Xor, hi_b, c1.clone())?;
        c0 = l.binary(BinOp::Xor, x, k0.clone())?;
        let hi_a = super::call(l, "umulhi", CallArgs::positional(vec![FValue::int(ROUND_A), old0.clone()]))?;
        let x = l.binary(BinOp::Xor, hi_a, c3.clone())?;
        c2 = l.binary(BinOp::Xor, x, k1.clone())?;
        c1 = l.binary(BinOp::Mul, FValue::int(ROUND_B), old2)?;
        c3 = l.binary(BinOp::Mul, FValue::int(ROUND_A), old0)?;
        k0 = l.binary(BinOp::Add, k0, FValue::int(KEY_A))?;
        k1 = l.binary(BinOp::Add, k1, FValue::int(KEY_B))?;
    }
    let mut out = Vec::new();
    for x in [c0, c1, c2, c3] {
        out.push(l.to_value(&x)?);
    }
    Ok(out)
}

/// Triton's `uint_to_uniform_float` for 32-bit inputs: a float in [0, 1).
fn uniform(l: &mut FnLowerer, x: Value) -> LResult<FValue> {
    uniform_of(l, x, DType::I32, 4.6566127342e-10)
}

/// Triton's `uint_to_uniform_float` for 64-bit inputs: a float in [0, 1).
fn uniform64(l: &mut FnLowerer, x: Value) -> LResult<FValue> {
    uniform_of(l, x, DType::I64, 1.0842020432385337e-19)
}

/// `x` read as the signed integer `signed`, a negative value folded to `-x - 1`, times `scale`.
fn uniform_of(l: &mut FnLowerer, x: Value, signed: DType, scale: f64) -> LResult<FValue> {
    let x = l.bitcast(x, signed)?;
    let neg = l.compare(CmpOp::Lt, FValue::Tensor(x), FValue::int(0))?;
    let minus = l.negate(FValue::Tensor(x))?;
    let minus = l.binary(BinOp::Sub, minus, FValue::int(1))?;
    let folded = super::where_(l, neg, minus, FValue::Tensor(x))?;
    l.binary(BinOp::Mul, folded, FValue::Const(Const::Float(scale)))
}

/// Two uniform words as two normal samples ([`box_muller`]).
fn normal_pair(l: &mut FnLowerer, i1: Value, i2: Value) -> LResult<(FValue, FValue)> {
    let u1 = uniform(l, i1)?;
    let u2 = uniform(l, i2)?;
    box_muller(l, u1, u2)
}

/// Box-Muller on two uniform floats in [0, 1), as Triton's `pair_uniform_to_normal`.
fn box_muller(l: &mut FnLowerer, u1: FValue, u2: FValue) -> LResult<(FValue, FValue)> {
    let u1 = super::call(l, "maximum", CallArgs::positional(vec![FValue::Const(Const::Float(1.0e-7)), u1]))?;
    let th = l.binary(BinOp::Mul, FValue::Const(Const::Float(std::f64::consts::TAU)), u2)?;
    let lg = super::call(l, "log", CallArgs::positional(vec![u1]))?;
    let t = l.binary(BinOp::Mul, FValue::Const(Const::Float(-2.0)), lg)?;
    let r = super::call(l, "sqrt", CallArgs::positional(vec![t]))?;
    let cos = super::call(l, "cos", CallArgs::positional(vec![th.clone()]))?;
    let sin = super::call(l, "sin", CallArgs::positional(vec![th]))?;
    Ok((l.binary(BinOp::Mul, r.clone(), cos)?, l.binary(BinOp::Mul, r, sin)?))
}
