//! `TRIDENT_CHECK=1` (or `python -m trident --check`): every launch also runs on interp, the
//! reference, and the results are compared.
//!
//! A checked launch:
//! 1. copies every pointer argument to the host before the launch (arrays, CPU tensors, and CUDA
//!    tensors through `tensor.cpu()`): the reference's inputs;
//! 2. launches as usual, on the backend the program asked for;
//! 3. reads every pointer argument again: the device's results (a CUDA tensor's copy waits for
//!    torch's stream);
//! 4. runs the loaded kernel's TTIR (the very module the device backend compiled, with the same
//!    autotune config and heuristics) on interp over the same grid, on the copies;
//! 5. compares each pointer argument, element by element, with the dtype's tolerance
//!    (`trident check`'s: [`trident::cli::compare`]), and reports the first element beyond it:
//!    the kernel, the Python file and line of the launch (the first caller outside trident), the
//!    backend, the argument, the index and both values.
//!
//! `TRIDENT_CHECK=warn` prints the report on stderr and goes on; any other value but `0` raises
//! `trident.errors.CheckError`. Checking costs two copies of every argument and an interp run
//! per launch: it is for finding a backend's bug, not for production.
//!
//! Test hook: `TRIDENT_CHECK_PERTURB=NAME[:INDEX]` corrupts element INDEX (0 by default) of the
//! device's result for argument NAME after the launch, in the program's own array or tensor too,
//! as a wrong kernel would; the check must then report it. It exists only to prove, without a
//! backend bug at hand, that a disagreement is caught (`trident check --perturb` does the same
//! for the command line).

use pyo3::prelude::*;
use trident::cli::compare::{self, Comparison};
use trident_runtime::Grid;

use crate::errors;
use crate::launch::{self, About, Copies, Loaded};
use crate::values::Value;

/// The test hook's environment variable.
pub const PERTURB_ENV: &str = "TRIDENT_CHECK_PERTURB";

/// What a disagreement does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Raise,
    Warn,
}

/// `TRIDENT_CHECK`: `None` when unset, empty or `0`.
pub fn mode() -> Option<Mode> {
    crate::env::with(crate::env::Var::Check, |value| match value?.trim() {
        "" | "0" => None,
        "warn" => Some(Mode::Warn),
        _ => Some(Mode::Raise),
    })
}

/// The host copies of a launch's inputs, taken before it.
pub struct Before<'py> {
    inputs: Copies<'py>,
}

/// Copies the launch's pointer arguments (step 1).
pub fn before<'py>(names: &[&str], values: &[Value<'py>]) -> PyResult<Before<'py>> {
    Ok(Before { inputs: Copies::read(names, values, None)? })
}

/// Steps 3 to 5, after the launch of `loaded` over `grid`.
#[allow(clippy::too_many_arguments)]
pub fn after(
    py: Python<'_>,
    mode: Mode,
    about: &About<'_>,
    loaded: &Loaded,
    grid: Grid,
    names: &[&str],
    values: &[Value<'_>],
    before: Before<'_>,
) -> PyResult<()> {
    let mut results = Copies::read(names, values, None)?;
    if let Some((name, index)) = perturbation()? {
        perturb(py, &mut results, names, values, &name, index)?;
    }
    let mut reference = before.inputs;
    let args = launch::bind(about, loaded, values, &reference.slots)?;
    let buffers = &mut reference.buffers;
    let module = &loaded.module;
    let ran =
        launch::without_gil(py, || trident_runtime::interp::run(module, about.name, grid, &args, buffers));
    if let Err(error) = ran {
        let rendered = trident::runtime_diagnostics(about.path, about.source, &error).render();
        return Err(errors::kernel_error(
            py,
            format!(
                "TRIDENT_CHECK: {} (launched at {}): the reference run on interp failed:\n{}",
                about.name,
                location(py),
                rendered.trim_end()
            ),
        ));
    }
    for (index, name) in names.iter().enumerate() {
        let (Some(want), Some(got)) = (reference.slots[index], results.slots[index]) else { continue };
        let (want, got) = (&reference.buffers[want], &results.buffers[got]);
        let tolerance = compare::default_tolerance(want.dtype);
        let comparison = compare::compare(want, got, tolerance);
        if comparison.agrees() {
            continue;
        }
        let report = report(py, about, loaded, name, &comparison, tolerance);
        match mode {
            Mode::Raise => return Err(errors::check_error(py, report)),
            Mode::Warn => {
                py.import("sys")?.getattr("stderr")?.call_method1("write", (format!("{report}\n"),))?;
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The report of the first disagreeing argument.
fn report(
    py: Python<'_>,
    about: &About<'_>,
    loaded: &Loaded,
    name: &str,
    comparison: &Comparison,
    tolerance: compare::Tolerance,
) -> String {
    let head = format!(
        "TRIDENT_CHECK: {} (launched at {}) on {} disagrees with interp",
        about.name,
        location(py),
        loaded.target.name()
    );
    if let Some(mismatch) = &comparison.mismatch {
        return format!("{head}: {name}: {mismatch}");
    }
    let Some(first) = &comparison.first_bad else { return format!("{head}: {name}") };
    format!(
        "{head}: {name}[{}] is {}, interp gives {} (tolerance atol {:e}, rtol {:e}); {} of {} elements differ \
         beyond it",
        first.index, first.got, first.want, tolerance.atol, tolerance.rtol, comparison.bad, comparison.elements
    )
}

/// `FILE:LINE` of the launch: the innermost Python frame outside the trident package.
fn location(py: Python<'_>) -> String {
    let find = || -> PyResult<String> {
        let package = py.import("trident")?.getattr("__file__")?.extract::<String>()?;
        let package = std::path::Path::new(&package).parent().map(|p| p.to_string_lossy().into_owned());
        let mut frame = py.import("sys")?.call_method1("_getframe", (0,))?;
        loop {
            let code = frame.getattr("f_code")?;
            let file: String = code.getattr("co_filename")?.extract()?;
            let inside = package.as_deref().is_some_and(|p| file.starts_with(p));
            if !inside {
                let line: i64 = frame.getattr("f_lineno")?.extract()?;
                return Ok(format!("{file}:{line}"));
            }
            let back = frame.getattr("f_back")?;
            if back.is_none() {
                return Ok(format!("{file}:?"));
            }
            frame = back;
        }
    };
    find().unwrap_or_else(|_| "an unknown line".to_string())
}

/// `TRIDENT_CHECK_PERTURB=NAME[:INDEX]`.
fn perturbation() -> PyResult<Option<(String, usize)>> {
    let Ok(text) = std::env::var(PERTURB_ENV) else { return Ok(None) };
    if text.trim().is_empty() {
        return Ok(None);
    }
    let (name, index) = match text.split_once(':') {
        Some((name, index)) => {
            let index = index.trim().parse::<usize>().map_err(|_| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "{PERTURB_ENV}={text}: INDEX must be a number"
                ))
            })?;
            (name.trim().to_string(), index)
        }
        None => (text.trim().to_string(), 0),
    };
    Ok(Some((name, index)))
}

/// Corrupts element `index` of argument `name`'s result, and writes it back into the program's
/// array or tensor.
fn perturb(
    py: Python<'_>,
    results: &mut Copies<'_>,
    names: &[&str],
    values: &[Value<'_>],
    name: &str,
    index: usize,
) -> PyResult<()> {
    let Some(slot) = names.iter().position(|n| *n == name).and_then(|param| results.slots[param]) else {
        return Err(errors::argument_error(
            py,
            format!("{PERTURB_ENV}={name}:{index}: the launch has no pointer argument {name}"),
        ));
    };
    compare::perturb(&mut results.buffers[slot], index)
        .map_err(|message| errors::argument_error(py, format!("{PERTURB_ENV}: {message}")))?;
    results.write_back(values)
}
