//! A launch grid written as a Python expression over the launch's arguments and meta-parameters,
//! as Triton's `kernel[grid]` takes `lambda meta: (triton.cdiv(n, meta['BLOCK']),)`.
//!
//! The command line's `--grid` accepts such an expression (`cdiv(n_elements, BLOCK_SIZE)`,
//! `cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), 1`); names are the kernel's scalar arguments and
//! constexprs (after the autotune config and the heuristics), `meta['NAME']` reads the same
//! values, and `cdiv`, `next_power_of_2`, `triton.cdiv`, `min`, `max` and friends are there. The
//! grid of an autotuned kernel depends on its config, so the caller evaluates it once per config.

use super::host_eval::{Evaluator, HostValue};
use crate::program::Program;
use crate::spec::Specialization;
use crate::value::Const;

/// Whether `--grid TEXT` is an expression rather than plain `X[,Y[,Z]]` numbers.
pub fn is_expression(text: &str) -> bool {
    text.chars().any(|c| c.is_ascii_alphabetic() || c == '_' || c == '(')
}

/// Evaluates the grid expression `text` for `spec`: one to three non-negative program counts.
/// The error is one sentence, for the command line to print after the flag.
pub fn evaluate(text: &str, spec: &Specialization) -> Result<Vec<u64>, String> {
    let parsed = ruff_python_parser::parse_expression(text)
        .map_err(|e| format!("'{text}' is not a Python expression: {}", e.error))?;
    let expr = parsed.into_syntax().body;
    let program = Program::parse("<grid>", "").map_err(|d| d.message)?;
    let mut values: Vec<(String, HostValue)> = Vec::new();
    for (name, arg) in &spec.args {
        values.push((name.clone(), HostValue::of_arg(name, arg)));
    }
    for (name, value) in &spec.constexprs {
        values.push((name.clone(), HostValue::Const(Const::from(value))));
    }
    let mut scope = vec![
        ("triton".to_string(), HostValue::Module("triton".into())),
        ("cdiv".to_string(), HostValue::Function("cdiv".into())),
        ("next_power_of_2".to_string(), HostValue::Function("next_power_of_2".into())),
        ("meta".to_string(), HostValue::Dict(values.clone())),
    ];
    scope.extend(values);
    let value = Evaluator::new(&program, 0)
        .with_local(scope, |e| e.eval(&expr))
        .map_err(|d| format!("'{text}': {}", d.message))?;
    let items = match value {
        HostValue::List(items) => items,
        single => vec![single],
    };
    if items.is_empty() || items.len() > 3 {
        return Err(format!("'{text}' gives {} dimensions; a grid has 1 to 3", items.len()));
    }
    items
        .iter()
        .map(|item| match item {
            HostValue::Const(Const::Int(i)) if *i >= 0 => {
                u64::try_from(*i).map_err(|_| format!("'{text}' gives {i}, too large"))
            }
            other => Err(format!("'{text}' gives {}, not a non-negative int", other.describe())),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{ArgSpec, ConstValue};
    use trident_midend::ir::DType;

    #[test]
    fn grids_from_arguments_and_meta_parameters() {
        let spec = Specialization {
            args: vec![
                ("x".into(), ArgSpec::Pointer { dtype: DType::F32, aligned16: true }),
                ("M".into(), ArgSpec::Int { value: 1000, dtype: DType::I32 }),
                ("N".into(), ArgSpec::Int { value: 300, dtype: DType::I32 }),
            ],
            constexprs: vec![
                ("BLOCK_M".into(), ConstValue::Int(128)),
                ("BLOCK_N".into(), ConstValue::Int(64)),
            ],
            ..Default::default()
        };
        assert_eq!(evaluate("cdiv(M, BLOCK_M)", &spec), Ok(vec![8]));
        assert_eq!(evaluate("cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), 1", &spec), Ok(vec![40, 1]));
        assert_eq!(evaluate("(triton.cdiv(M, meta['BLOCK_M']), 2, 3)", &spec), Ok(vec![8, 2, 3]));
        assert!(evaluate("cdiv(M, BLOK)", &spec).unwrap_err().contains("`BLOK` is not defined"));
        assert!(evaluate("x * 2", &spec).unwrap_err().contains("pointer argument"));
        assert!(evaluate("1, 2, 3, 4", &spec).unwrap_err().contains("4 dimensions"));
        assert!(evaluate("M - 2000", &spec).unwrap_err().contains("non-negative"));
    }
}
