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
//! the config is applied first and the heuristics see its values. Stacked the other way,
//!
//! ```python
//! @triton.heuristics({'EVEN': lambda args: args['n'] % 64 == 0})
//! @triton.autotune(configs=[...], key=['n', 'EVEN'])
//! @triton.jit
//! ```
//!
//! the heuristics wrap the autotuner: they run first, over the launch's own arguments (no config
//! is chosen yet, so they cannot read its meta-parameters), and the autotuner tunes with their
//! values fixed, which its `key` may name. Both stackings may meet on one kernel (heuristics above
//! and below `@triton.autotune`); each group runs where Triton runs it.
//!
//! trident reads the decorators without Python ([`host_eval`] evaluates the subset of Python they
//! use). This module only reads and evaluates: choosing a config is the caller's business (the
//! command line times them on a device, which the frontend knows nothing of), and the caller puts
//! the chosen config's values in the [`Specialization`]; the heuristics run inside
//! [`crate::compile_kernel`] ([`apply_heuristics`]), those above the autotuner over the
//! specialization without the config's meta-parameters, the others after the config. The caller
//! that needs the autotuner's own view (its key) gets it from [`apply_heuristics_before_config`].
//!
//! Invariants: [`Decorations`] of a kernel are read from the decorators above `@triton.jit`, top
//! to bottom; a heuristic above `@triton.autotune` neither sets nor reads (by a literal key) a
//! config's meta-parameter ([`heuristics::check_before_config`]); nothing is read below
//! `@triton.jit`.

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
    /// The heuristics of every `@triton.heuristics` above `@triton.autotune`, in the order Triton
    /// runs them: first, over the launch's arguments, before a config is chosen. Empty without
    /// `@triton.autotune`.
    pub heuristics_before_config: Vec<Heuristic>,
    /// Every other heuristic (below `@triton.autotune`, or all of them without one), in the order
    /// Triton runs them: after the config, seeing its values.
    pub heuristics: Vec<Heuristic>,
}

impl Decorations {
    /// The meta-parameters the heuristics compute, in the order they run.
    pub fn heuristic_names(&self) -> Vec<&str> {
        self.heuristics_before_config.iter().chain(&self.heuristics).map(|h| h.name.as_str()).collect()
    }

    /// Whether the kernel has any `@triton.heuristics`.
    pub fn has_heuristics(&self) -> bool {
        !self.heuristics_before_config.is_empty() || !self.heuristics.is_empty()
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
                let tune = autotune::read(&mut evaluator, call, def, &params)?;
                // The heuristics read so far wrap the autotuner: they run before it, without the
                // config's values.
                decorations.heuristics_before_config = std::mem::take(&mut decorations.heuristics);
                heuristics::check_before_config(&decorations.heuristics_before_config, &tune)?;
                decorations.autotune = Some(tune);
            }
            _ => decorations.heuristics.extend(heuristics::read(call, &params)?),
        }
    }
    Ok(decorations)
}

/// Runs the heuristics of `decorations` over `spec` (which already holds the autotune config's
/// values, if any), each group where Triton runs it: those above `@triton.autotune` over `spec`
/// without the config's meta-parameters, then the others over everything.
pub fn apply_heuristics(
    program: &Program,
    def: &StmtFunctionDef,
    decorations: &Decorations,
    spec: &Specialization,
) -> Result<Specialization, Diagnostic> {
    let spec = apply_heuristics_before_config(program, def, decorations, spec)?;
    if decorations.heuristics.is_empty() {
        return Ok(spec);
    }
    let params: Vec<(String, bool)> = all_params(def).into_iter().map(|(name, c, ..)| (name, c)).collect();
    let mut evaluator = Evaluator::new(program, span_of(def).start);
    heuristics::apply(&mut evaluator, &decorations.heuristics, &spec, &params)
}

/// `spec` with the values of the heuristics above `@triton.autotune`, computed as Triton computes
/// them, before the autotuner: over `spec` without any config's meta-parameters (a config may
/// already be in `spec`; they do not see it). This is what the autotuner receives, and what its
/// `key` may name. `spec` is returned as it is when there are no such heuristics.
pub fn apply_heuristics_before_config(
    program: &Program,
    def: &StmtFunctionDef,
    decorations: &Decorations,
    spec: &Specialization,
) -> Result<Specialization, Diagnostic> {
    let (Some(tune), false) = (&decorations.autotune, decorations.heuristics_before_config.is_empty()) else {
        return Ok(spec.clone());
    };
    let meta_parameters = tune.meta_parameters();
    let mut launch_only = spec.clone();
    launch_only.constexprs.retain(|(name, _)| !meta_parameters.contains(&name.as_str()));
    let params: Vec<(String, bool)> = all_params(def).into_iter().map(|(name, c, ..)| (name, c)).collect();
    let mut evaluator = Evaluator::new(program, span_of(def).start);
    let computed =
        heuristics::apply(&mut evaluator, &decorations.heuristics_before_config, &launch_only, &params)?;
    // Their values join `spec` (config included), replacing values given for the same names.
    let mut spec = spec.clone();
    for heuristic in &decorations.heuristics_before_config {
        if let Some(value) = computed.constexprs.iter().find(|(n, _)| *n == heuristic.name) {
            spec.constexprs.retain(|(n, _)| *n != heuristic.name);
            spec.constexprs.push(value.clone());
        }
    }
    Ok(spec)
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
        // Above @triton.autotune, a heuristic runs before the config: it may neither set one of
        // its meta-parameters nor read one.
        assert!(case(&format!(
            "@triton.heuristics({{'BLOCK': lambda a: 64}})\n@triton.autotune(configs={cfg}, key=[])"
        ))
        .contains("Conflicting meta-parameters: BLOCK"));
        let source = format!(
            "{KERNEL}@triton.heuristics({{'EVEN': lambda a: a['n'] % (a['BLOCK'] + 1) == 0}})\n\
             @triton.autotune(configs={cfg}, key=[])\n\
             @triton.jit\ndef k(x, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n    pass\n"
        );
        let error = decorations(&source).unwrap_err();
        assert!(error.starts_with("`BLOCK` is a meta-parameter of the @triton.autotune configs"), "{error}");
        assert!(error.contains("KeyError: 'BLOCK'"), "{error}");
    }

    #[test]
    fn heuristics_above_autotune_run_before_the_config() {
        let source = format!(
            "{KERNEL}@triton.heuristics({{'EVEN': lambda args: args['n'] % 64 == 0}})\n\
             @triton.autotune(configs=[triton.Config({{'BLOCK': 32}}), triton.Config({{'BLOCK': 64}})], key=['n', 'EVEN'])\n\
             @triton.heuristics({{'CHUNKS': lambda args: args['n'] // args['BLOCK'] + (not args['EVEN'])}})\n\
             @triton.jit\n\
             def k(x, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, CHUNKS: tl.constexpr):\n    pass\n"
        );
        let program = Program::parse("t.py", &source).unwrap();
        let def = program.function("k").unwrap();
        let decorations = read(&program, def).unwrap();
        let names = |list: &[Heuristic]| list.iter().map(|h| h.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&decorations.heuristics_before_config), ["EVEN"]);
        assert_eq!(names(&decorations.heuristics), ["CHUNKS"]);
        assert_eq!(decorations.heuristic_names(), ["EVEN", "CHUNKS"]);
        // Without a config (the autotuner's view), only EVEN is computed.
        let mut base = spec(200, 0);
        base.constexprs.clear();
        let tuned = apply_heuristics_before_config(&program, def, &decorations, &base).unwrap();
        assert_eq!(tuned.constexprs, [("EVEN".into(), ConstValue::Bool(false))]);
        // With config BLOCK=32: EVEN as before, then CHUNKS from both.
        let out = apply_heuristics(&program, def, &decorations, &spec(200, 32)).unwrap();
        assert_eq!(
            out.constexprs,
            [
                ("BLOCK".into(), ConstValue::Int(32)),
                ("EVEN".into(), ConstValue::Bool(false)),
                ("CHUNKS".into(), ConstValue::Int(7))
            ]
        );
        let out = apply_heuristics(&program, def, &decorations, &spec(256, 64)).unwrap();
        assert_eq!(
            out.constexprs[1..],
            [("EVEN".into(), ConstValue::Bool(true)), ("CHUNKS".into(), ConstValue::Int(4))]
        );
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
