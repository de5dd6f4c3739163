//! Specialization-level mutations: what `--const`, `--arg`, `--num-warps` and `--num-stages`
//! would give, changed. Constexpr values become powers of two, their neighbours, zero,
//! negatives, huge values, or another kind (a float, a bool, a dtype, a string, None); argument
//! dtypes and values change (pointer element types, alignment, the `== 1` and `% 16` integer
//! specializations, i64, floats where ints were); parameters are dropped or invented.
//!
//! Only what the command line can express is generated: warps are powers of two up to 64 and
//! stages at least 1, as `trident` checks before compiling.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use trident::{ArgSpec, ConstValue};
use trident_midend::ir::DType;

use crate::input::Input;

/// Applies one specialization mutation to `input`; returns its description.
pub fn mutate(rng: &mut StdRng, input: &mut Input) -> String {
    let spec = &mut input.spec;
    match rng.gen_range(0..10) {
        0..=3 if !spec.constexprs.is_empty() => {
            let i = rng.gen_range(0..spec.constexprs.len());
            let (name, value) = &mut spec.constexprs[i];
            *value = const_value(rng, value);
            format!("--const {name}={value:?}")
        }
        4..=6 if !spec.args.is_empty() => {
            let i = rng.gen_range(0..spec.args.len());
            let (name, arg) = &mut spec.args[i];
            *arg = arg_value(rng, arg);
            format!("--arg {name}={arg:?}")
        }
        7 => {
            spec.num_warps = *[1, 2, 4, 8, 16, 32, 64].choose(rng).unwrap_or(&4);
            spec.num_stages = *[1, 1, 2, 3, 4, 5, 8].choose(rng).unwrap_or(&3);
            format!("--num-warps {} --num-stages {}", spec.num_warps, spec.num_stages)
        }
        8 => {
            input.grid = [rng.gen_range(1..=3), rng.gen_range(1..=2), 1];
            format!("interp grid {:?}", input.grid)
        }
        _ => {
            // A parameter dropped, or one the kernel does not have.
            if rng.gen_bool(0.5) && !spec.constexprs.is_empty() {
                let i = rng.gen_range(0..spec.constexprs.len());
                format!("drop --const {}", spec.constexprs.remove(i).0)
            } else if rng.gen_bool(0.5) && !spec.args.is_empty() {
                let i = rng.gen_range(0..spec.args.len());
                format!("drop --arg {}", spec.args.remove(i).0)
            } else {
                spec.constexprs.push(("FUZZ_EXTRA".to_string(), ConstValue::Int(16)));
                "add --const FUZZ_EXTRA=16".to_string()
            }
        }
    }
}

/// A new value for a constexpr: mostly of the same kind, sometimes of another.
fn const_value(rng: &mut StdRng, old: &ConstValue) -> ConstValue {
    let same_kind = rng.gen_bool(0.75);
    match old {
        ConstValue::Int(v) if same_kind => ConstValue::Int(integer(rng, *v)),
        ConstValue::Bool(b) if same_kind => ConstValue::Bool(!b),
        ConstValue::Float(v) if same_kind => ConstValue::Float(float(rng, *v)),
        ConstValue::DType(_) if same_kind => {
            ConstValue::DType(*DType::ALL.choose(rng).unwrap_or(&DType::F32))
        }
        _ => match rng.gen_range(0..6) {
            0 => ConstValue::Int(integer(rng, 1)),
            1 => ConstValue::Float(float(rng, 1.0)),
            2 => ConstValue::Bool(rng.gen()),
            3 => ConstValue::DType(*DType::ALL.choose(rng).unwrap_or(&DType::F32)),
            4 => ConstValue::Str(
                ["ieee", "tf32", "tf32x3", "bf16x3", "", "evict_last", "x y"]
                    .choose(rng)
                    .unwrap()
                    .to_string(),
            ),
            _ => ConstValue::None,
        },
    }
}

/// A new integer near `old` or at a boundary: powers of two, non-powers, zero, negatives, huge.
pub fn integer(rng: &mut StdRng, old: i64) -> i64 {
    match rng.gen_range(0..8) {
        0 => 1 << rng.gen_range(0..24),
        1 => old.wrapping_mul(2),
        2 => old / 2,
        3 => old.wrapping_add(*[-1, 1].choose(rng).unwrap_or(&1)),
        4 => *[0, 1, 3, 5, 6, 7, 12, 24, 48, 96, 100, 1000, 3000].choose(rng).unwrap_or(&0),
        5 => *[-1, -16, -1024, i32::MIN as i64].choose(rng).unwrap_or(&-1),
        6 => *[1 << 20, 1 << 21, 1 << 31, (1 << 31) - 1, 1 << 32, 1 << 40, i64::MAX, i64::MIN]
            .choose(rng)
            .unwrap_or(&0),
        _ => rng.gen_range(0..5000),
    }
}

fn float(rng: &mut StdRng, old: f64) -> f64 {
    *[
        0.0,
        -0.0,
        1e-5,
        0.5,
        old * 2.0,
        -old,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e308,
        f64::MIN_POSITIVE,
    ]
    .choose(rng)
    .unwrap_or(&0.0)
}

/// A new argument: another pointee type or alignment for a pointer; another value or type for a
/// scalar; another block shape for a descriptor; sometimes another kind altogether (a descriptor
/// among them).
fn arg_value(rng: &mut StdRng, old: &ArgSpec) -> ArgSpec {
    let any_dtype = |rng: &mut StdRng| *DType::ALL.choose(rng).unwrap_or(&DType::F32);
    match (rng.gen_range(0..5), old) {
        (0, _) => ArgSpec::Pointer { dtype: any_dtype(rng), aligned16: rng.gen() },
        (4, _) => ArgSpec::TensorDesc {
            dtype: any_dtype(rng),
            aligned16: rng.gen(),
            strides16: rng.gen(),
            block_shape: (0..rng.gen_range(1..=2)).map(|_| *[4, 16, 32, 64].choose(rng).unwrap()).collect(),
            padding_nan: rng.gen(),
        },
        (1, _) => ArgSpec::Int {
            value: integer(rng, 1),
            dtype: *[DType::I32, DType::I64, DType::U32, DType::U64].choose(rng).unwrap(),
        },
        (2, _) => {
            ArgSpec::Float { value: float(rng, 1.0), dtype: *[DType::F32, DType::F64].choose(rng).unwrap() }
        }
        (_, ArgSpec::Pointer { dtype, aligned16 }) => {
            ArgSpec::Pointer { dtype: *dtype, aligned16: !aligned16 }
        }
        (_, ArgSpec::Int { value, dtype }) => ArgSpec::Int { value: integer(rng, *value), dtype: *dtype },
        (_, ArgSpec::Float { value, dtype }) => ArgSpec::Float { value: float(rng, *value), dtype: *dtype },
        // A descriptor: another block shape (any rank, widths that may not fit TMA), alignment
        // or padding.
        (_, ArgSpec::TensorDesc { dtype, .. }) => ArgSpec::TensorDesc {
            dtype: *dtype,
            aligned16: rng.gen(),
            strides16: rng.gen(),
            block_shape: (0..rng.gen_range(1..=3))
                .map(|_| *[1, 2, 8, 16, 32, 64].choose(rng).unwrap())
                .collect(),
            padding_nan: rng.gen(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use trident::Specialization;

    #[test]
    fn spec_mutations_change_values_warps_and_parameters() {
        let input = Input {
            path: "k.py".into(),
            source: String::new(),
            kernel: "k".into(),
            spec: Specialization {
                args: vec![("p".into(), ArgSpec::Pointer { dtype: DType::F32, aligned16: true })],
                constexprs: vec![("B".into(), ConstValue::Int(64))],
                num_warps: 4,
                num_stages: 3,
            },
            grid: [1, 1, 1],
        };
        let mut rng = StdRng::seed_from_u64(5);
        let mut kinds = std::collections::BTreeSet::new();
        for _ in 0..300 {
            let mut mutated = input.clone();
            let description = mutate(&mut rng, &mut mutated);
            kinds.insert(description.split(['=', ' ']).next().unwrap().to_string());
            assert!(mutated.spec.num_warps.is_power_of_two() && mutated.spec.num_stages >= 1);
        }
        assert_eq!(
            kinds.into_iter().collect::<Vec<_>>(),
            ["--arg", "--const", "--num-warps", "add", "drop", "interp"]
        );
    }
}
