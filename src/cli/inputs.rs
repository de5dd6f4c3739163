//! A [`Launch`] from typed values: the checks that the command line and the Python package
//! (`python/`, `kernel[grid](...)`) share, worded for each.
//!
//! Both front ends end up with the same things: constexpr values and typed runtime arguments by
//! Python parameter name, warps, stages, perhaps a pinned autotune config, and the kernel's file.
//! [`build`] checks them against the kernel's signature and decorators, in one place:
//! - every parameter without a default is given, a constexpr as a constexpr and the others as
//!   arguments, unless `@triton.autotune` or `@triton.heuristics` gives it;
//! - no constexpr that an autotune config sets is given as well (Triton: "Conflicting
//!   meta-parameters");
//! - `num_warps` is a power of two up to 64 and `num_stages` at least 1;
//! - a pinned config exists;
//!
//! and puts the arguments in Python's order. What each check says depends on who asked
//! ([`Front`]): the command line names its flags (`missing --arg x_ptr=...`), Python names
//! parameters as a `TypeError` would (`add_kernel() missing argument: 'x_ptr'`).
//! Checks that only one front end needs stay with it: flag syntax and names in `args.rs`,
//! Python's own argument binding in `python/trident/jit.py`.

use trident_frontend::Decorations;
use trident_runtime::cache::Cache;
use trident_runtime::{Buffer, Grid};

use super::args::{Binding, GridFn, Launch};
use super::autotune::Tuning;
use super::error::{usage, CliError};
use super::signature::Param;
use crate::{ArgSpec, ConstValue, PipelineOptions, Specialization};

/// Who asked for the launch: it decides how a failed check is worded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    /// `trident run|bench|check|tune|compile`: messages name `--arg`, `--const`, `--config`.
    CommandLine,
    /// `kernel[grid](...)` from Python: messages name parameters and keyword arguments.
    Python,
}

/// The launch's values, typed, before the checks.
pub struct Inputs {
    /// The kernel file as the user named it (diagnostics print it).
    pub path: String,
    pub source: String,
    pub kernel: String,
    /// The kernel's Python parameters; `None` when the file does not parse or has no such
    /// function (the frontend then reports it with a span).
    pub params: Option<Vec<Param>>,
    /// What the kernel's decorators say.
    pub decorations: Decorations,
    pub constexprs: Vec<(String, ConstValue)>,
    /// Runtime arguments: their type, and what binds them at the launch.
    pub args: Vec<(String, ArgSpec, Binding)>,
    /// The buffers that [`Binding::Buffer`] indexes.
    pub buffers: Vec<Buffer>,
    pub num_warps: u32,
    pub num_stages: u32,
    /// A pinned autotune config (`--config N`).
    pub config: Option<usize>,
    pub grid: Option<Grid>,
    pub grid_expr: Option<String>,
    pub grid_fn: Option<GridFn>,
    pub pipeline: PipelineOptions,
    pub cache: Cache,
}

/// A check that failed, before it is worded.
enum Problem<'a> {
    BadWarps(u32),
    BadStages,
    /// A constexpr that an autotune config sets was given: config `index`, described.
    SetByConfig {
        name: &'a str,
        value: &'a ConstValue,
        index: usize,
        config: String,
    },
    Missing {
        name: &'a str,
        constexpr: bool,
    },
    NoConfigs(usize),
    ConfigOutOfRange {
        index: usize,
        count: usize,
        list: String,
    },
}

impl Front {
    /// The message of a failed check.
    fn word(self, kernel: &str, problem: Problem) -> String {
        match (self, problem) {
            (Front::CommandLine, Problem::BadWarps(n)) => {
                format!("--num-warps {n}: must be a power of two from 1 to 64")
            }
            (Front::Python, Problem::BadWarps(n)) => {
                format!("{kernel}: num_warps={n}: must be a power of two from 1 to 64")
            }
            (Front::CommandLine, Problem::BadStages) => "--num-stages 0: must be at least 1".to_string(),
            (Front::Python, Problem::BadStages) => format!("{kernel}: num_stages=0: must be at least 1"),
            (Front::CommandLine, Problem::SetByConfig { name, value, index, config }) => format!(
                "--const {name}={}: {name} is a meta-parameter that @triton.autotune sets (config {index} \
                 {config}); drop --const {name}: the configs give it, and --config N picks one (Triton: \
                 Conflicting meta-parameters: {name})",
                const_text(value)
            ),
            (Front::Python, Problem::SetByConfig { name, index, config, .. }) => format!(
                "Conflicting meta-parameters: {name}. Make sure that you don't re-define auto-tuned symbols: \
                 @triton.autotune sets {name} (config {index} {config})"
            ),
            (Front::CommandLine, Problem::Missing { name, constexpr: true }) => {
                format!("missing --const {name}=VALUE: a tl.constexpr parameter of {kernel}")
            }
            (Front::CommandLine, Problem::Missing { name, constexpr: false }) => {
                format!("missing --arg {name}=...: a parameter of {kernel}")
            }
            (Front::Python, Problem::Missing { name, constexpr }) => {
                let what = if constexpr { "tl.constexpr parameter" } else { "parameter" };
                format!("{kernel}() missing a required argument: '{name}' (a {what})")
            }
            (Front::CommandLine, Problem::NoConfigs(index)) => {
                format!("--config {index}: {kernel} has no @triton.autotune configs")
            }
            (Front::Python, Problem::NoConfigs(index)) => {
                format!("config {index}: {kernel} has no @triton.autotune configs")
            }
            (Front::CommandLine, Problem::ConfigOutOfRange { index, count, list }) => {
                format!("--config {index}: {kernel} has {count} autotune configs (0-based):{list}")
            }
            (Front::Python, Problem::ConfigOutOfRange { index, count, list }) => {
                format!("config {index}: {kernel} has {count} autotune configs (0-based):{list}")
            }
        }
    }
}

/// How `--const` spells a value (to repeat it in a message).
fn const_text(value: &ConstValue) -> String {
    match value {
        ConstValue::Int(v) => v.to_string(),
        ConstValue::Float(v) => v.to_string(),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        ConstValue::DType(d) => d.triton_name().to_string(),
        ConstValue::Str(s) => s.clone(),
        ConstValue::None => "None".to_string(),
    }
}

/// Checks `inputs` and makes the launch; every failure is a usage error worded for `front`.
pub fn build(inputs: Inputs, front: Front) -> Result<Launch, CliError> {
    let Inputs { path, source, kernel, params, decorations, constexprs, mut args, buffers, .. } = inputs;
    let fail = |problem: Problem| usage(front.word(&kernel, problem));
    if !inputs.num_warps.is_power_of_two() || inputs.num_warps > 64 {
        return fail(Problem::BadWarps(inputs.num_warps));
    }
    if inputs.num_stages == 0 {
        return fail(Problem::BadStages);
    }
    if let Some(tune) = &decorations.autotune {
        for (name, value) in &constexprs {
            if let Some(index) = tune.configs.iter().position(|c| c.get(name).is_some()) {
                let config = tune.configs[index].describe();
                return fail(Problem::SetByConfig { name, value, index, config });
            }
        }
    }
    if let Some(params) = &params {
        // Meta-parameters that the configs or the heuristics give need no value.
        let mut given_by_decorators: Vec<&str> = decorations.heuristic_names();
        if let Some(tune) = &decorations.autotune {
            given_by_decorators
                .extend(tune.configs.iter().flat_map(|c| c.kwargs.iter().map(|(n, _)| n.as_str())));
        }
        // The first parameter missing in Python's order is reported.
        for param in params.iter().filter(|p| !p.has_default) {
            let name = param.name.as_str();
            let given = if param.is_constexpr {
                constexprs.iter().any(|(n, _)| n == name) || given_by_decorators.contains(&name)
            } else {
                args.iter().any(|(n, _, _)| n == name)
            };
            if !given {
                return fail(Problem::Missing { name, constexpr: param.is_constexpr });
            }
        }
        args.sort_by_key(|(name, _, _)| params.iter().position(|p| p.name == *name));
    }

    let mut spec =
        Specialization { num_warps: inputs.num_warps, num_stages: inputs.num_stages, ..Default::default() };
    spec.constexprs = constexprs;
    let mut bindings = Vec::with_capacity(args.len());
    for (name, arg_spec, binding) in args {
        spec.args.push((name.clone(), arg_spec));
        bindings.push((name, binding));
    }
    let has_heuristics = decorations.has_heuristics();
    let tuning = match (decorations.autotune, inputs.config) {
        (None, None) => None,
        (None, Some(index)) => return fail(Problem::NoConfigs(index)),
        (Some(autotune), pinned) => {
            let tuning = Tuning { autotune, base: spec.clone(), pinned };
            let count = tuning.autotune.configs.len();
            if let Some(index) = pinned.filter(|&i| i >= count) {
                return fail(Problem::ConfigOutOfRange { index, count, list: tuning.list() });
            }
            Some(tuning)
        }
    };
    Ok(Launch {
        path,
        source,
        kernel,
        spec,
        grid: inputs.grid,
        grid_expr: inputs.grid_expr,
        grid_fn: inputs.grid_fn,
        bindings,
        buffers,
        pipeline: inputs.pipeline,
        tuning,
        has_heuristics,
        cache: inputs.cache,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::signature::kernel_params;
    use trident_midend::ir::DType;

    const SOURCE: &str = "import triton\nimport triton.language as tl\n\n\
        @triton.autotune(configs=[triton.Config({'BLOCK': 32}, num_warps=2)], key=['n'])\n\
        @triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr = False):\n    pass\n";

    /// The inputs of a launch of `k` with `constexprs` and, when `with_pointer`, `x_ptr`.
    fn inputs(constexprs: Vec<(String, ConstValue)>, with_pointer: bool) -> Inputs {
        let mut args = vec![("n".to_string(), ArgSpec::Int { value: 7, dtype: DType::I32 }, Binding::Int(7))];
        if with_pointer {
            let pointer = ArgSpec::Pointer { dtype: DType::F32, aligned16: true };
            args.push(("x_ptr".to_string(), pointer, Binding::NoData));
        }
        Inputs {
            path: "k.py".into(),
            source: SOURCE.into(),
            kernel: "k".into(),
            params: kernel_params(SOURCE, "k"),
            decorations: trident_frontend::kernel_decorations("k.py", SOURCE, "k").unwrap(),
            constexprs,
            args,
            buffers: Vec::new(),
            num_warps: 4,
            num_stages: 3,
            config: None,
            grid: None,
            grid_expr: None,
            grid_fn: None,
            pipeline: PipelineOptions::default(),
            cache: Cache::off(),
        }
    }

    fn message(inputs: Inputs, front: Front) -> String {
        match build(inputs, front) {
            Err(CliError::Usage(message)) => message,
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn checks_are_worded_for_each_front() {
        assert_eq!(
            message(inputs(vec![], false), Front::CommandLine),
            "missing --arg x_ptr=...: a parameter of k"
        );
        assert_eq!(
            message(inputs(vec![], false), Front::Python),
            "k() missing a required argument: 'x_ptr' (a parameter)"
        );
        let block = || vec![("BLOCK".to_string(), ConstValue::Int(64))];
        let python = message(inputs(block(), true), Front::Python);
        assert!(python.starts_with("Conflicting meta-parameters: BLOCK."), "{python}");
        let cli = message(inputs(block(), true), Front::CommandLine);
        assert!(
            cli.starts_with("--const BLOCK=64: BLOCK is a meta-parameter that @triton.autotune sets"),
            "{cli}"
        );
        let mut warps = inputs(vec![], true);
        warps.num_warps = 3;
        assert_eq!(message(warps, Front::Python), "k: num_warps=3: must be a power of two from 1 to 64");
    }

    #[test]
    fn arguments_come_in_python_order_and_decorators_give_meta_parameters() {
        let launch = build(inputs(vec![], true), Front::Python).unwrap();
        let names: Vec<&str> = launch.spec.args.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["x_ptr", "n"]);
        assert!(launch.tuning.is_some(), "the autotune configs give BLOCK");
    }
}
