//! The specialization flags: from `--grid`, `--const`, `--arg`, `--num-warps` and `--num-stages`
//! to a [`Specialization`] and the buffers and scalars of one launch.
//!
//! Argument forms (corpus README, "The CLI contract"):
//! - `NAME=@FILE.npy[:DTYPE]`: a buffer read from the file; its element type is the file's dtype
//!   or the override (`bf16` over 16-bit integer data, `fp8e4nv`/`fp8e5` over 8-bit data).
//! - `NAME=*DTYPE`: a pointer to DTYPE with no data, for `compile` (nothing is launched).
//! - `NAME=VALUE[:DTYPE]`: a scalar; ints are i32 (i64, then u64, when the value needs it), floats
//!   f32, unless typed `:i32 :i64 :u32 :u64 :f32 :f64`.
//!
//! Every error names the flag and the argument it is about, and is a usage error (exit 2).
//!
//! `--grid` is `X[,Y[,Z]]`, or a Python expression over the kernel's scalar arguments and
//! meta-parameters (`cdiv(n_elements, BLOCK_SIZE)`), evaluated when the launch needs it, after the
//! autotune config and the heuristics have given their values. For a kernel with
//! `@triton.autotune`, the configs' meta-parameters need no `--const` (giving one anyway is an
//! error, as Triton's "Conflicting meta-parameters"), and `--config N` must name a config.
//!
//! The flags' syntax and names are checked here; what the command line and the Python package
//! both check (missing parameters, autotune conflicts, warps and stages) is in [`super::inputs`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use trident_midend::ir::{DType, Module};
use trident_runtime::cache::Cache;
use trident_runtime::{npy, ArgValue, Buffer, Grid};

use super::autotune::Tuning;
use super::error::{usage, CliError};
use super::inputs::{self, Front, Inputs};
use super::signature::{self, Param};
use super::SpecFlags;
use crate::{compile_ttir_with, ArgSpec, ConstValue, PipelineOptions, Specialization};
use trident_frontend::diagnostics::render_warning;
use trident_frontend::DescriptorField;
use trident_midend::analysis::loop_hints::unapplied_loop_hints;
use trident_midend::pipeline::PASS_NAMES;

/// One `--arg` as written on the command line, before any file is read.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgText {
    /// `@FILE.npy[:DTYPE]`.
    File { path: PathBuf, dtype: Option<DType> },
    /// `*DTYPE`.
    PointerTo(DType),
    /// A scalar, already typed.
    Scalar(ArgSpec),
}

/// How an argument of the launch is bound.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    /// `buffers[i]` of the launch.
    Buffer(usize),
    /// A tensor descriptor: its base, `buffers[buffer]`, its shape and its strides (the compiled
    /// kernel takes them as the parameters `trident_frontend::descriptor_fields` names).
    Descriptor {
        buffer: usize,
        shape: Vec<i64>,
        strides: Vec<i64>,
    },
    /// A pointer with no data (`*DTYPE`); only `compile` accepts it.
    NoData,
    Int(i64),
    Float(f64),
}

/// Whether `.npy` arguments are read in full (to launch) or only for their dtype (to compile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataMode {
    Load,
    HeaderOnly,
}

/// A grid computed from the complete specialization (after the autotune config and the
/// heuristics): Triton's `kernel[lambda meta: ...]`. Autotuning calls it once per config.
#[derive(Clone)]
pub struct GridFn(pub Arc<GridFnBody>);

/// What a [`GridFn`] calls: the grid for a specialization.
pub type GridFnBody = dyn Fn(&Specialization) -> Result<Grid, CliError> + Send + Sync;

impl fmt::Debug for GridFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GridFn(..)")
    }
}

/// Everything one compilation and launch needs, checked.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel file as given on the command line (diagnostics print it).
    pub path: String,
    pub source: String,
    pub kernel: String,
    pub spec: Specialization,
    /// `None` when `--grid` was not given (fine for `compile`) or is an expression.
    pub grid: Option<Grid>,
    /// `--grid` as an expression over arguments and meta-parameters, evaluated per launch.
    pub grid_expr: Option<String>,
    /// The grid as its caller computes it from the specialization (the Python package calls the
    /// script's grid function with the meta-parameters), evaluated per launch like `grid_expr`.
    pub grid_fn: Option<GridFn>,
    /// Argument bindings by Python parameter name.
    pub bindings: Vec<(String, Binding)>,
    /// The buffers of `@FILE.npy` arguments (empty in [`DataMode::HeaderOnly`]).
    pub buffers: Vec<Buffer>,
    pub pipeline: PipelineOptions,
    /// The configs of `@triton.autotune`, when the kernel has one; `spec` holds the chosen
    /// config's values once [`super::autotune`] has chosen.
    pub tuning: Option<Tuning>,
    /// The kernel has `@triton.heuristics`: its specialization is complete only after them.
    pub has_heuristics: bool,
    /// The on-disk cache ([`Cache::off`] under `--no-cache`).
    pub cache: Cache,
}

impl Launch {
    /// Compiles the kernel to TTIR (frontend and TTIR pipeline), warning on stderr about the
    /// loop hints that trident does not apply.
    pub fn compile(&self) -> Result<Module, CliError> {
        let module = self.compile_quietly()?;
        for warning in self.warnings(&module) {
            eprint!("{warning}");
        }
        Ok(module)
    }

    /// [`Launch::compile`] without printing the warnings.
    pub fn compile_quietly(&self) -> Result<Module, CliError> {
        Ok(compile_ttir_with(&self.path, &self.source, &self.kernel, &self.spec, &self.pipeline)?)
    }

    /// The warnings about a compiled module, rendered with their Python lines: the loop hints
    /// that trident does not apply.
    pub fn warnings(&self, module: &Module) -> Vec<String> {
        unapplied_loop_hints(module)
            .into_iter()
            .map(|hint| render_warning(&self.path, &self.source, hint.span, &hint.message))
            .collect()
    }

    /// The grid, which launching verbs require: `--grid`'s numbers, or its expression evaluated
    /// for the current specialization (with the heuristics' values).
    pub fn require_grid(&self) -> Result<Grid, CliError> {
        if let Some(grid_fn) = &self.grid_fn {
            let spec = trident_frontend::specialize(&self.path, &self.source, &self.kernel, &self.spec)
                .map_err(CliError::Kernel)?;
            let grid = (grid_fn.0)(&spec)?;
            grid.within_limits().or_else(|e| usage(format!("the grid of {}: {e}", self.kernel)))?;
            return Ok(grid);
        }
        let Some(text) = &self.grid_expr else {
            return self
                .grid
                .ok_or_else(|| CliError::Usage("--grid X[,Y[,Z]] is required to launch a kernel".into()));
        };
        let spec = trident_frontend::specialize(&self.path, &self.source, &self.kernel, &self.spec)
            .map_err(CliError::Kernel)?;
        let dims = trident_frontend::decorators::grid::evaluate(text, &spec)
            .or_else(|e| usage(format!("--grid {e}")))?;
        let mut grid = [1u32; 3];
        for (slot, dim) in grid.iter_mut().zip(&dims) {
            *slot =
                u32::try_from(*dim).or_else(|_| usage(format!("--grid '{text}' gives {dim}, too large")))?;
        }
        let grid = Grid(grid);
        grid.within_limits().or_else(|e| usage(format!("--grid '{text}': {e}")))?;
        Ok(grid)
    }

    /// The runtime value bound to a compiled kernel parameter.
    pub fn arg_value(&self, name: &str) -> Option<ArgValue> {
        // A descriptor argument's fields are parameters of their own (`descriptor_fields`).
        let (param, field) = trident_frontend::descriptor_field(name);
        let binding = self.bindings.iter().find(|(n, _)| n == param).map(|(_, b)| b)?;
        match (binding, field) {
            (Binding::Buffer(index) | Binding::Descriptor { buffer: index, .. }, DescriptorField::Base) => {
                Some(ArgValue::Buffer(*index))
            }
            (Binding::Descriptor { shape, strides, .. }, field) => {
                field.value(shape, strides).map(ArgValue::Int)
            }
            (Binding::Int(value), DescriptorField::Base) => Some(ArgValue::Int(*value)),
            (Binding::Float(value), DescriptorField::Base) => Some(ArgValue::Float(*value)),
            _ => None,
        }
    }
}

/// Reads the kernel file and checks the flags against it.
pub fn prepare(flags: &SpecFlags, mode: DataMode) -> Result<Launch, CliError> {
    let source = read_source(&flags.file)?;
    prepare_with_source(flags, source, mode)
}

/// Reads a kernel file; a missing or unreadable file is a usage error.
pub fn read_source(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path)
        .or_else(|e| usage(format!("cannot read kernel file {}: {}", path.display(), io_reason(&e))))
}

/// Like [`prepare`], with the kernel's source text given.
pub fn prepare_with_source(flags: &SpecFlags, source: String, mode: DataMode) -> Result<Launch, CliError> {
    let grid_expr = flags.grid.clone().filter(|text| trident_frontend::decorators::grid::is_expression(text));
    let grid = match &grid_expr {
        Some(_) => None,
        None => {
            flags.grid.as_deref().map(parse_grid).transpose().or_else(|e| usage(format!("--grid: {e}")))?
        }
    };
    let params = signature::kernel_params(&source, &flags.kernel);
    let path = flags.file.display().to_string();
    let decorations =
        trident_frontend::kernel_decorations(&path, &source, &flags.kernel).map_err(CliError::Kernel)?;

    let mut constexprs: Vec<(String, ConstValue)> = Vec::new();
    for text in &flags.consts {
        let (name, value) = parse_const(text).or_else(|e| usage(format!("--const {text}: {e}")))?;
        if constexprs.iter().any(|(n, _)| *n == name) {
            return usage(format!("--const {name} is given twice"));
        }
        if let Some(params) = &params {
            check_const_name(params, &flags.kernel, &name)?;
        }
        constexprs.push((name, value));
    }

    let mut written: Vec<(String, ArgText)> = Vec::new();
    for text in &flags.args {
        let (name, arg) = parse_arg(text).or_else(|e| usage(format!("--arg {text}: {e}")))?;
        if written.iter().any(|(n, _)| *n == name) {
            return usage(format!("--arg {name} is given twice"));
        }
        if let Some(params) = &params {
            check_arg_name(params, &flags.kernel, &name)?;
        }
        written.push((name, arg));
    }

    let mut args = Vec::with_capacity(written.len());
    let mut buffers = Vec::new();
    for (name, arg) in written {
        let (arg_spec, binding) = match arg {
            ArgText::Scalar(scalar) => {
                let binding = match scalar {
                    ArgSpec::Int { value, .. } => Binding::Int(value),
                    ArgSpec::Float { value, .. } => Binding::Float(value),
                    ArgSpec::Pointer { .. } | ArgSpec::TensorDesc { .. } => Binding::NoData,
                };
                (scalar, binding)
            }
            ArgText::PointerTo(dtype) => {
                if mode == DataMode::Load {
                    return usage(format!(
                        "--arg {name}=*{}: a launch needs data; pass {name}=@FILE.npy",
                        dtype.triton_name()
                    ));
                }
                (ArgSpec::Pointer { dtype, aligned16: true }, Binding::NoData)
            }
            ArgText::File { path, dtype: override_dtype } => {
                let dtype = match mode {
                    DataMode::Load => {
                        let buffer = npy::read(&path, &name, override_dtype)
                            .or_else(|e| usage(format!("--arg {name}: {e}")))?;
                        let dtype = buffer.dtype;
                        buffers.push(buffer);
                        dtype
                    }
                    DataMode::HeaderOnly => {
                        let header =
                            npy::read_header(&path).or_else(|e| usage(format!("--arg {name}: {e}")))?;
                        npy::kernel_dtype(header.storage, override_dtype)
                            .or_else(|e| usage(format!("--arg {name}: {}: {e}", path.display())))?
                    }
                };
                let binding =
                    if mode == DataMode::Load { Binding::Buffer(buffers.len() - 1) } else { Binding::NoData };
                (ArgSpec::Pointer { dtype, aligned16: true }, binding)
            }
        };
        args.push((name, arg_spec, binding));
    }

    if let Some(pass) = flags.dump_after.as_deref().filter(|p| !PASS_NAMES.contains(p)) {
        return usage(format!(
            "--dump-after: no pass is named '{pass}'; the passes are {}",
            PASS_NAMES.join(", ")
        ));
    }
    let inputs = Inputs {
        path,
        source,
        kernel: flags.kernel.clone(),
        params,
        decorations,
        constexprs,
        args,
        buffers,
        num_warps: flags.num_warps,
        num_stages: flags.num_stages,
        config: flags.config,
        grid,
        grid_expr,
        grid_fn: None,
        pipeline: PipelineOptions { dump_after: flags.dump_after.clone(), ..Default::default() },
        cache: Cache::open(flags.no_cache),
    };
    inputs::build(inputs, Front::CommandLine)
}

fn check_arg_name(params: &[Param], kernel: &str, name: &str) -> Result<(), CliError> {
    match params.iter().find(|p| p.name == name) {
        None => {
            usage(format!("--arg {name}: {kernel} has no parameter named {name} ({})", param_list(params)))
        }
        Some(p) if p.is_constexpr => usage(format!(
            "--arg {name}: {name} is a tl.constexpr parameter; pass it with --const {name}=VALUE"
        )),
        Some(_) => Ok(()),
    }
}

fn check_const_name(params: &[Param], kernel: &str, name: &str) -> Result<(), CliError> {
    match params.iter().find(|p| p.name == name) {
        None => usage(format!("--const {name}: {kernel} has no parameter named {name} ({})", param_list(params))),
        Some(p) if !p.is_constexpr => usage(format!(
            "--const {name}: {name} is not a tl.constexpr parameter of {kernel}; pass it with --arg {name}=..."
        )),
        Some(_) => Ok(()),
    }
}

fn param_list(params: &[Param]) -> String {
    if params.is_empty() {
        return "it takes no parameters".to_string();
    }
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    format!("its parameters: {}", names.join(", "))
}

fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => error.to_string(),
    }
}

/// Parses `X[,Y[,Z]]`.
pub fn parse_grid(text: &str) -> Result<Grid, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("'{text}' has {} dimensions; a grid has 1 to 3: X[,Y[,Z]]", parts.len()));
    }
    let mut dims = [1u32; 3];
    for (i, part) in parts.iter().enumerate() {
        dims[i] = part.parse::<u32>().map_err(|_| {
            format!("'{text}' is not a grid: '{part}' is not a non-negative integer; use X[,Y[,Z]]")
        })?;
    }
    let grid = Grid(dims);
    grid.within_limits()?;
    Ok(grid)
}

/// Parses `NAME=VALUE` of `--const`.
pub fn parse_const(text: &str) -> Result<(String, ConstValue), String> {
    let (name, value) = split_name(text)?;
    let parsed = match value {
        "True" => ConstValue::Bool(true),
        "False" => ConstValue::Bool(false),
        "None" => ConstValue::None,
        _ => {
            if let Ok(int) = parse_int(value) {
                ConstValue::Int(int.try_into().map_err(|_| format!("{value} does not fit in 64 bits"))?)
            } else if let Some(float) = parse_float(value) {
                ConstValue::Float(float)
            } else if let Some(dtype) = DType::from_user_name(value) {
                ConstValue::DType(dtype)
            } else if value.is_empty() {
                return Err("the value is empty".to_string());
            } else {
                ConstValue::Str(value.to_string())
            }
        }
    };
    Ok((name.to_string(), parsed))
}

/// Parses `NAME=@FILE.npy[:DTYPE]`, `NAME=*DTYPE` or `NAME=VALUE[:DTYPE]` of `--arg`.
pub fn parse_arg(text: &str) -> Result<(String, ArgText), String> {
    let (name, value) = split_name(text)?;
    let arg = if let Some(file) = value.strip_prefix('@') {
        let (path, dtype) = split_file_dtype(file)?;
        if path.is_empty() {
            return Err("no file after '@'".to_string());
        }
        ArgText::File { path: PathBuf::from(path), dtype }
    } else if let Some(dtype_name) = value.strip_prefix('*') {
        let dtype = DType::from_user_name(dtype_name)
            .ok_or_else(|| format!("unknown dtype '{dtype_name}' after '*' (fp16, fp32, i32, u8, ...)"))?;
        ArgText::PointerTo(dtype)
    } else {
        ArgText::Scalar(parse_scalar(value)?)
    };
    Ok((name.to_string(), arg))
}

/// Splits `NAME=VALUE`, checking that NAME is an identifier.
fn split_name(text: &str) -> Result<(&str, &str), String> {
    let (name, value) = text.split_once('=').ok_or("expected NAME=VALUE")?;
    let is_identifier = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !is_identifier {
        return Err(format!("'{name}' is not a parameter name"));
    }
    Ok((name, value))
}

/// Splits `FILE[:DTYPE]`. A suffix after the last ':' is a dtype unless it looks like a path.
fn split_file_dtype(file: &str) -> Result<(&str, Option<DType>), String> {
    match file.rsplit_once(':') {
        Some((path, suffix)) if !suffix.contains(['/', '\\', '.']) => {
            let dtype = DType::from_user_name(suffix).ok_or_else(|| {
                format!("unknown dtype '{suffix}' (bf16, fp8e4nv, fp8e5, or a plain dtype)")
            })?;
            Ok((path, Some(dtype)))
        }
        _ => Ok((file, None)),
    }
}

/// Parses a scalar `VALUE[:DTYPE]`.
pub fn parse_scalar(text: &str) -> Result<ArgSpec, String> {
    let (value, tag) = match text.rsplit_once(':') {
        Some((value, tag)) => (value, Some(tag)),
        None => (text, None),
    };
    if value == "True" || value == "False" {
        return Err("bool scalars are not supported; pass 1 or 0".to_string());
    }
    let int = parse_int(value).ok();
    let float = if int.is_none() { parse_float(value) } else { None };
    if int.is_none() && float.is_none() {
        return Err(format!("'{value}' is not a number (a buffer is NAME=@FILE.npy)"));
    }
    let Some(tag) = tag else {
        if let Some(int) = int {
            let dtype = if i32::try_from(int).is_ok() {
                DType::I32
            } else if i64::try_from(int).is_ok() {
                DType::I64
            } else {
                DType::U64
            };
            return Ok(ArgSpec::Int { value: int as i64, dtype });
        }
        return Ok(ArgSpec::Float { value: float.unwrap_or_default(), dtype: DType::F32 });
    };
    let dtype = match tag {
        "i32" => DType::I32,
        "i64" => DType::I64,
        "u32" => DType::U32,
        "u64" => DType::U64,
        "f32" => DType::F32,
        "f64" => DType::F64,
        _ => return Err(format!("unknown scalar type ':{tag}' (i32, i64, u32, u64, f32 or f64)")),
    };
    if dtype.is_float() {
        let value = float.or(int.map(|i| i as f64)).unwrap_or_default();
        return Ok(ArgSpec::Float { value, dtype });
    }
    let Some(int) = int else { return Err(format!("'{value}' is not an integer, but :{tag} asks for one")) };
    let fits = match dtype {
        DType::I32 => i32::try_from(int).is_ok(),
        DType::I64 => i64::try_from(int).is_ok(),
        DType::U32 => u32::try_from(int).is_ok(),
        _ => u64::try_from(int).is_ok(),
    };
    if !fits {
        return Err(format!("{value} does not fit in {tag}"));
    }
    // u64 values above i64::MAX travel as their two's-complement bits.
    Ok(ArgSpec::Int { value: int as i64, dtype })
}

/// A decimal integer (with an optional sign), wide enough for every scalar type.
fn parse_int(text: &str) -> Result<i128, ()> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(());
    }
    text.parse::<i128>().map_err(|_| ())
}

/// A float as Python prints one (`0.5`, `1e-05`, `inf`, `nan`).
fn parse_float(text: &str) -> Option<f64> {
    let looks_numeric = text.bytes().any(|b| b.is_ascii_digit())
        || matches!(
            text.trim_start_matches(['-', '+']).to_ascii_lowercase().as_str(),
            "inf" | "infinity" | "nan"
        );
    if looks_numeric {
        text.parse::<f64>().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids() {
        assert_eq!(parse_grid("4"), Ok(Grid([4, 1, 1])));
        assert_eq!(parse_grid("4,2"), Ok(Grid([4, 2, 1])));
        assert_eq!(parse_grid("4,2,3"), Ok(Grid([4, 2, 3])));
        assert!(parse_grid("1,2,3,4").unwrap_err().contains("4 dimensions"));
        assert!(parse_grid("x").unwrap_err().contains("'x' is not a non-negative integer"));
        assert!(parse_grid("").is_err());
        assert!(parse_grid("-1").is_err());
        assert!(parse_grid("2147483647,65535,65535").is_ok());
        let beyond = parse_grid("4294967295,4294967295,4294967295").unwrap_err();
        assert!(beyond.contains("x = 4294967295 is beyond CUDA's limit of 2147483647"), "{beyond}");
        assert!(parse_grid("1,65536").unwrap_err().contains("y = 65536"));
    }

    #[test]
    fn consts() {
        let c = |t: &str| parse_const(t).unwrap().1;
        assert_eq!(c("B=1024"), ConstValue::Int(1024));
        assert_eq!(c("B=-3"), ConstValue::Int(-3));
        assert_eq!(c("EPS=1e-05"), ConstValue::Float(1e-5));
        assert_eq!(c("S=0.5"), ConstValue::Float(0.5));
        assert_eq!(c("EVEN=True"), ConstValue::Bool(true));
        assert_eq!(c("EVEN=False"), ConstValue::Bool(false));
        assert_eq!(c("X=None"), ConstValue::None);
        assert_eq!(c("T=fp16"), ConstValue::DType(DType::F16));
        assert_eq!(c("T=bf16"), ConstValue::DType(DType::BF16));
        assert_eq!(c("T=fp8e4nv"), ConstValue::DType(DType::F8E4M3));
        assert_eq!(c("T=u32"), ConstValue::DType(DType::U32));
        assert_eq!(c("P=ieee"), ConstValue::Str("ieee".into()));
        assert!(parse_const("B").is_err());
        assert!(parse_const("=3").is_err());
        assert!(parse_const("B=").is_err());
    }

    #[test]
    fn scalars() {
        let s = |t: &str| parse_scalar(t).unwrap();
        assert_eq!(s("1000"), ArgSpec::Int { value: 1000, dtype: DType::I32 });
        assert_eq!(s("-7"), ArgSpec::Int { value: -7, dtype: DType::I32 });
        assert_eq!(s("3000000000"), ArgSpec::Int { value: 3_000_000_000, dtype: DType::I64 });
        assert_eq!(s("18446744073709551615"), ArgSpec::Int { value: -1, dtype: DType::U64 });
        assert_eq!(s("5:i64"), ArgSpec::Int { value: 5, dtype: DType::I64 });
        assert_eq!(s("5:u32"), ArgSpec::Int { value: 5, dtype: DType::U32 });
        assert_eq!(s("0.5"), ArgSpec::Float { value: 0.5, dtype: DType::F32 });
        assert_eq!(s("1e-05:f64"), ArgSpec::Float { value: 1e-5, dtype: DType::F64 });
        assert_eq!(s("2:f32"), ArgSpec::Float { value: 2.0, dtype: DType::F32 });
        assert!(matches!(s("-inf"), ArgSpec::Float { value, .. } if value == f64::NEG_INFINITY));
        assert!(matches!(s("nan"), ArgSpec::Float { value, .. } if value.is_nan()));
        assert!(parse_scalar("0.5:i32").unwrap_err().contains("not an integer"));
        assert!(parse_scalar("-1:u32").unwrap_err().contains("does not fit in u32"));
        assert!(parse_scalar("3000000000:i32").unwrap_err().contains("does not fit in i32"));
        assert!(parse_scalar("5:i7").unwrap_err().contains("unknown scalar type"));
        assert!(parse_scalar("abc").unwrap_err().contains("not a number"));
        assert!(parse_scalar("True").unwrap_err().contains("bool"));
    }

    #[test]
    fn args() {
        let a = |t: &str| parse_arg(t).unwrap();
        assert_eq!(a("x=@in/x.npy"), ("x".into(), ArgText::File { path: "in/x.npy".into(), dtype: None }));
        assert_eq!(
            a("a=@/tmp/a.npy:bf16"),
            ("a".into(), ArgText::File { path: "/tmp/a.npy".into(), dtype: Some(DType::BF16) })
        );
        assert_eq!(
            a("q=@q.npy:fp8e5"),
            ("q".into(), ArgText::File { path: "q.npy".into(), dtype: Some(DType::F8E5M2) })
        );
        assert_eq!(a("p=*fp32"), ("p".into(), ArgText::PointerTo(DType::F32)));
        assert_eq!(a("p=*i1"), ("p".into(), ArgText::PointerTo(DType::I1)));
        assert_eq!(a("n=1"), ("n".into(), ArgText::Scalar(ArgSpec::Int { value: 1, dtype: DType::I32 })));
        assert!(parse_arg("x=@x.npy:bf17").unwrap_err().contains("unknown dtype 'bf17'"));
        assert!(parse_arg("x=*float7").unwrap_err().contains("unknown dtype"));
        assert!(parse_arg("x=@").unwrap_err().contains("no file"));
        assert!(parse_arg("1x=3").unwrap_err().contains("not a parameter name"));
        assert!(parse_arg("x").unwrap_err().contains("NAME=VALUE"));
    }
}
