//! The host-side decorators of a kernel: `@triton.autotune` and `@triton.heuristics`.
//!
//! In Triton these wrap the `JITFunction` in Python objects that run on every launch: the
//! autotuner picks a `triton.Config` (timing each on the first launch of a key) and passes its
//! meta-parameters, `num_warps` and `num_stages`; heuristics compute further meta-parameters
//! from the arguments. Decorators apply bottom-up, so with the usual stacking
//!
//! ```python
//! @triton.autotune(configs=[...], key=[...])
//! @triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})
//! @triton.jit
//! def kernel(...): ...
//! ```
//!
//! the config is applied first and the heuristics see its values. trident reads both without
//! Python ([`host_eval`] evaluates the subset of Python they use). This module only reads and
//! evaluates: choosing a config is the caller's business (the command line times them on a
//! device, which the frontend knows nothing of), and the caller puts the chosen config's values in
//! the [`Specialization`]; the heuristics run inside [`crate::compile_kernel`], after it.
//!
//! Invariants: [`Decorations`] of a kernel are read from the decorators above `@triton.jit`, top
//! to bottom; `@triton.heuristics` stacked above `@triton.autotune` (which would run before the
//! config is known) is refused as not supported yet, as is anything below `@triton.jit`.

pub mod autotune;
pub mod grid;
pub mod heuristics;
pub mod host_eval;

use ruff_python_ast::{Expr, StmtFunctionDef};

pub use autotune::{Autotune, Config};
pub use heuristics::Heuristic;

use crate::diagnostics::Diagnostic;
use crate::lower::{all_params, span_of};
use crate::program::Program;
use crate::spec::Specialization;
use host_eval::Evaluator;

/// What the host-side decorators of one kernel say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decorations {
    pub autotune: Option<Autotune>,
    /// Every heuristic of every `@triton.heuristics`, in the order Triton runs them.
    pub heuristics: Vec<Heuristic>,
}

impl Decorations {
    /// The meta-parameters the heuristics compute.
    pub fn heuristic_names(&self) -> Vec<&str> {
        self.heuristics.iter().map(|h| h.name.as_str()).collect()
    }
}

/// Which decorator an expression is, by its dotted name (`triton.autotune(...)`, `autotune`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Jit,
    Autotune,
    Heuristics,
    Other,
}

fn kind_of(e: &Expr) -> Kind {
    let path = dotted(e);
    let last = path.rsplit('.').next().unwrap_or_default();
    match last {
        "jit" => Kind::Jit,
        "autotune" => Kind::Autotune,
        "heuristics" => Kind::Heuristics,
        _ => Kind::Other,
    }
}

/// `triton.autotune(...)` -> `triton.autotune`.
fn dotted(e: &Expr) -> String {
    match e {
        Expr::Name(n) => n.id.as_str().to_string(),
        Expr::Attribute(a) => format!("{}.{}", dotted(&a.value), a.attr.as_str()),
        Expr::Call(c) => dotted(&c.func),
        _ => String::new(),
    }
}

/// Reads the decorators of the jit function `def` of `program`.
pub fn read(program: &Program, def: &StmtFunctionDef) -> Result<Decorations, Diagnostic> {
    let params: Vec<(String, bool)> = all_params(def).into_iter().map(|(name, c, ..)| (name, c)).collect();
    let mut evaluator = Evaluator::new(program, span_of(def).start);
    let mut decorations = Decorations::default();
    let mut seen_jit = false;
    for decorator in &def.decorator_list {
        let kind = kind_of(&decorator.expression);
        let at = span_of(&decorator.expression);
        if kind == Kind::Jit {
            seen_jit = true;
            continue;
        }
        if kind == Kind::Other {
            continue;
        }
        let name = if kind == Kind::Autotune { "autotune" } else { "heuristics" };
        if seen_jit {
            return Err(Diagnostic::error(
                format!("@triton.{name} must be above @triton.jit: decorators apply bottom-up, and it wraps the jit function"),
                Some(at),
            ));
        }
        let Expr::Call(call) = &decorator.expression else {
            return Err(Diagnostic::error(
                format!("@triton.{name} needs its arguments: @triton.{name}(...)"),
                Some(at),
            ));
        };
        match kind {
            Kind::Autotune => {
                if decorations.autotune.is_some() {
                    return Err(Diagnostic::error(
                        "a second @triton.autotune on one kernel is not supported",
                        Some(at),
                    ));
                }
                if !decorations.heuristics.is_empty() {
                    // Below the heuristics, the autotuner would run after them, and they could not
                    // see the config's values; trident applies the config first.
                    return Err(Diagnostic::error(
                        "@triton.autotune below @triton.heuristics is not supported by trident yet; put @triton.autotune above it (the usual order)",
                        Some(at),
                    ));
                }
                decorations.autotune = Some(autotune::read(&mut evaluator, call, def, &params)?);
            }
            _ => decorations.heuristics.extend(heuristics::read(call, &params)?),
        }
    }
    Ok(decorations)
}

/// Runs the heuristics of `decorations` over `spec` (which already holds the autotune config's
/// values, if any).
pub fn apply_heuristics(
    program: &Program,
    def: &StmtFunctionDef,
    decorations: &Decorations,
    spec: &Specialization,
) -> Result<Specialization, Diagnostic> {
    if decorations.heuristics.is_empty() {
        return Ok(spec.clone());
    }
    let params: Vec<(String, bool)> = all_params(def).into_iter().map(|(name, c, ..)| (name, c)).collect();
    let mut evaluator = Evaluator::new(program, span_of(def).start);
    heuristics::apply(&mut evaluator, &decorations.heuristics, spec, &params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{ArgSpec, ConstValue};
    use trident_midend::ir::DType;

    const KERNEL: &str = "import triton\nimport triton.language as tl\n\n";

    fn decorations(source: &str) -> Result<Decorations, String> {
        let program = Program::parse("t.py", source).map_err(|d| d.message)?;
        let def = program.function("k").expect("a kernel named k");
        read(&program, def).map_err(|d| d.message)
    }

    fn spec(n: i64, block: i64) -> Specialization {
        Specialization {
            args: vec![
                ("x".into(), ArgSpec::Pointer { dtype: DType::F32, aligned16: true }),
                ("n".into(), ArgSpec::Int { value: n, dtype: DType::I32 }),
            ],
            constexprs: vec![("BLOCK".into(), ConstValue::Int(block))],
            ..Default::default()
        }
    }

    #[test]
    fn reads_configs_from_literals_names_and_comprehensions() {
        let source = format!(
            "{KERNEL}SIZES = [64, 128]\n\n@triton.autotune(configs=[triton.Config({{'BLOCK': b}}, num_warps=w, \
             num_stages=2) for b in SIZES for w in [4, 8]], key=['n'], reset_to_zero=['x'], warmup=5)\n\
             @triton.jit\ndef k(x, n, BLOCK: tl.constexpr):\n    pass\n"
        );
        let tune = decorations(&source).unwrap().autotune.unwrap();
        let described: Vec<String> = tune.configs.iter().map(Config::describe).collect();
        assert_eq!(
            described,
            [
                "{BLOCK=64, num_warps=4, num_stages=2}",
                "{BLOCK=64, num_warps=8, num_stages=2}",
                "{BLOCK=128, num_warps=4, num_stages=2}",
                "{BLOCK=128, num_warps=8, num_stages=2}"
            ]
        );
        assert_eq!(tune.key, ["n"]);
        assert_eq!(tune.reset_to_zero, ["x"]);
        assert_eq!((tune.warmup_ms, tune.rep_ms), (5, 100));

        let source = format!(
            "{KERNEL}CONFIGS = [\n    triton.Config({{'BLOCK': 32}}, num_ctas=1, maxnreg=None, pre_hook=None),\n]\n\n\
             @triton.autotune(CONFIGS, ['n'])\n@triton.jit\ndef k(x, n, BLOCK: tl.constexpr):\n    pass\n"
        );
        let tune = decorations(&source).unwrap().autotune.unwrap();
        assert_eq!(tune.configs[0].describe(), "{BLOCK=32, num_warps=4, num_stages=3}");
    }

    #[test]
    fn refuses_what_it_cannot_honour() {
        let case = |decorator: &str| {
            let source =
                format!("{KERNEL}{decorator}\n@triton.jit\ndef k(x, n, BLOCK: tl.constexpr):\n    pass\n");
            decorations(&source).unwrap_err()
        };
        let cfg = "[triton.Config({'BLOCK': 64})]";
        assert!(case(&format!("@triton.autotune(configs={cfg}, key=['n'], prune_configs_by={{}})"))
            .contains("prune_configs_by=...) is not supported"));
        assert!(case("@triton.autotune(configs=[triton.Config({'BLOCK': 64}, pre_hook=print)], key=[])")
            .contains("pre_hook is not supported"));
        assert!(case("@triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_ctas=2)], key=[])")
            .contains("num_ctas other than 1"));
        assert!(case("@triton.autotune(configs=[triton.Config({'BLOK': 64})], key=['n'])")
            .contains("sets `BLOK`, which is not a parameter of `k`"));
        assert!(case("@triton.autotune(configs=[triton.Config({'n': 64})], key=['n'])")
            .contains("not a tl.constexpr parameter"));
        assert!(case(&format!("@triton.autotune(configs={cfg}, key=['m'])")).contains("names `m`"));
        assert!(case("@triton.autotune(configs=make_configs(), key=[])")
            .contains("`make_configs` is not defined"));
        assert!(case("@triton.heuristics({'BLOCK': 64})").contains("must be a lambda"));
        assert!(case("@triton.heuristics({'M': lambda args: 1})").contains("'M' is not a parameter"));
        assert!(case(&format!(
            "@triton.heuristics({{'BLOCK': lambda a: 64}})\n@triton.autotune(configs={cfg}, key=[])"
        ))
        .contains("below @triton.heuristics is not supported"));
    }

    #[test]
    fn heuristics_see_arguments_constexprs_and_earlier_heuristics() {
        let source = format!(
            "{KERNEL}@triton.heuristics({{'EVEN': lambda args: args['n'] % args['BLOCK'] == 0,\n\
             'WIDE': lambda args: triton.next_power_of_2(args['n']) if args['EVEN'] else min(args['n'], 7)}})\n\
             @triton.jit\ndef k(x, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, WIDE: tl.constexpr):\n    pass\n"
        );
        let program = Program::parse("t.py", &source).unwrap();
        let def = program.function("k").unwrap();
        let decorations = read(&program, def).unwrap();
        assert_eq!(decorations.heuristic_names(), ["EVEN", "WIDE"]);
        let out = apply_heuristics(&program, def, &decorations, &spec(1000, 100)).unwrap();
        assert_eq!(
            out.constexprs[1..],
            [("EVEN".into(), ConstValue::Bool(true)), ("WIDE".into(), ConstValue::Int(1024))]
        );
        let out = apply_heuristics(&program, def, &decorations, &spec(1000, 128)).unwrap();
        assert_eq!(
            out.constexprs[1..],
            [("EVEN".into(), ConstValue::Bool(false)), ("WIDE".into(), ConstValue::Int(7))]
        );
    }

    #[test]
    fn heuristics_refuse_arithmetic_on_pointers() {
        let source = format!(
            "{KERNEL}@triton.heuristics({{'BLOCK': lambda args: args['x'] * 2}})\n\
             @triton.jit\ndef k(x, n, BLOCK: tl.constexpr):\n    pass\n"
        );
        let program = Program::parse("t.py", &source).unwrap();
        let def = program.function("k").unwrap();
        let decorations = read(&program, def).unwrap();
        let error = apply_heuristics(&program, def, &decorations, &spec(10, 4)).unwrap_err();
        assert!(error.message.contains("`x` is a pointer argument, not a number"), "{}", error.message);
        assert_eq!(error.labels[0].1, "while computing 'BLOCK'");
    }
}
