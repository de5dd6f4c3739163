//! The kernel file as a whole: its `@triton.jit` functions, module-level constants and imports
//! (the host-side decorators on the functions are read by `crate::decorators`).
//!
//! Scanning happens once per file. Imports are recorded as aliases to canonical module paths
//! (`tl` -> `triton.language`, `libdevice` -> `triton.language.extra.libdevice`); module-level
//! assignments are evaluated as compile-time constants when they can be (`LOG2E =
//! tl.constexpr(1.44)`, `FPINT = 32 // 4`), and remembered as errors to report on use otherwise.

use std::collections::HashMap;

use ruff_python_ast::{Expr, ModModule, Stmt, StmtFunctionDef};
use ruff_text_size::Ranged;

use trident_midend::ir::Span;

use crate::diagnostics::Diagnostic;
use crate::lower::span_of;
use crate::value::FValue;

/// The parsed file.
pub struct Program {
    pub path: String,
    pub source: String,
    pub module: ModModule,
    /// Jit functions by name: index into `module.body`.
    pub jit_functions: HashMap<String, usize>,
    /// Module-level names: imports, constants, jit functions.
    pub globals: HashMap<String, FValue>,
    /// Top-level functions without `@triton.jit`, by name: the span of the name in their `def`.
    /// A kernel cannot call them; the error says so instead of "not defined".
    pub plain_functions: HashMap<String, Span>,
}

impl Program {
    /// Parses and scans a kernel file.
    pub fn parse(path: &str, source: &str) -> Result<Program, Diagnostic> {
        let parsed = ruff_python_parser::parse_module(source).map_err(|e| {
            let r = e.location;
            Diagnostic::error(format!("Python syntax error: {}", e.error), Some(span_of(&r)))
        })?;
        let module = parsed.into_syntax();
        let mut program = Program {
            path: path.to_string(),
            source: source.to_string(),
            module,
            jit_functions: HashMap::new(),
            globals: HashMap::new(),
            plain_functions: HashMap::new(),
        };
        program.scan()?;
        Ok(program)
    }

    pub fn function(&self, name: &str) -> Option<&StmtFunctionDef> {
        let index = *self.jit_functions.get(name)?;
        match &self.module.body[index] {
            Stmt::FunctionDef(f) => Some(f),
            _ => None,
        }
    }

    fn scan(&mut self) -> Result<(), Diagnostic> {
        let mut jit_names = Vec::new();
        for (index, stmt) in self.module.body.iter().enumerate() {
            match stmt {
                Stmt::Import(import) => {
                    for alias in &import.names {
                        let full = canonical_module(alias.name.as_str());
                        match &alias.asname {
                            Some(as_name) => {
                                self.globals.insert(as_name.as_str().to_string(), FValue::Module(full));
                            }
                            None => {
                                let bound = alias.name.as_str().split('.').next().unwrap_or("").to_string();
                                let head = full.split('.').next().unwrap_or("").to_string();
                                self.globals.insert(bound, FValue::Module(head));
                            }
                        }
                    }
                }
                Stmt::ImportFrom(import) => {
                    let module =
                        canonical_module(import.module.as_ref().map(|m| m.as_str()).unwrap_or_default());
                    for alias in &import.names {
                        let name = alias.name.as_str();
                        let bound = alias.asname.as_ref().map(|a| a.as_str()).unwrap_or(name).to_string();
                        self.globals.insert(bound, resolve_from_import(&module, name));
                    }
                }
                Stmt::FunctionDef(f) => {
                    // `@triton.autotune` and `@triton.heuristics` are read per kernel, when one
                    // is compiled (`crate::decorators`): an error in them concerns that kernel.
                    let is_jit =
                        f.decorator_list.iter().any(|d| decorator_path(&d.expression).ends_with("jit"));
                    let name = f.name.as_str().to_string();
                    if is_jit {
                        self.jit_functions.insert(name.clone(), index);
                        jit_names.push(name);
                    } else {
                        self.plain_functions.insert(name, span_of(&f.name));
                    }
                }
                _ => {}
            }
        }
        for name in jit_names {
            self.globals.insert(name.clone(), FValue::JitFn(name));
        }
        Ok(())
    }

    /// Module-level assignments, in order, for the constant evaluator.
    pub fn global_assignments(&self) -> impl Iterator<Item = (&str, &Expr)> {
        self.module.body.iter().filter_map(|s| match s {
            Stmt::Assign(a) if a.targets.len() == 1 => match &a.targets[0] {
                Expr::Name(n) => Some((n.id.as_str(), a.value.as_ref())),
                _ => None,
            },
            Stmt::AnnAssign(a) => match (a.target.as_ref(), &a.value) {
                (Expr::Name(n), Some(v)) => Some((n.id.as_str(), v.as_ref())),
                _ => None,
            },
            _ => None,
        })
    }

    pub fn span_text(&self, node: &impl Ranged) -> &str {
        let r = node.range();
        &self.source[usize::from(r.start())..usize::from(r.end())]
    }
}

/// The dotted text of a decorator (`triton.jit`, `triton.autotune(...)` -> `triton.autotune`).
fn decorator_path(e: &Expr) -> String {
    match e {
        Expr::Name(n) => n.id.as_str().to_string(),
        Expr::Attribute(a) => format!("{}.{}", decorator_path(&a.value), a.attr.as_str()),
        Expr::Call(c) => decorator_path(&c.func),
        _ => String::new(),
    }
}

/// `trident` and its submodules as the `triton` modules they stand in for (the Python package
/// runs programs written against `import trident` and `import trident.language as tl`); any other
/// module as it is.
fn canonical_module(path: &str) -> String {
    match path.strip_prefix("trident") {
        Some(rest) if rest.is_empty() || rest.starts_with('.') => format!("triton{rest}"),
        _ => path.to_string(),
    }
}

/// What `from MODULE import NAME` binds.
fn resolve_from_import(module: &str, name: &str) -> FValue {
    match (module, name) {
        ("triton", "language") => FValue::Module("triton.language".into()),
        ("triton", "jit") => FValue::Builtin("jit".into()),
        ("triton", _) => FValue::Builtin(format!("triton.{name}")),
        ("triton.language", "math") => FValue::Module("triton.language.math".into()),
        ("triton.language", "extra") => FValue::Module("triton.language.extra".into()),
        ("triton.language.extra", "libdevice") | ("triton.language.extra.cuda", "libdevice") => {
            FValue::Module("triton.language.extra.libdevice".into())
        }
        ("triton.language", _) => crate::builtins::lookup_in_module("triton.language", name),
        ("triton.language.math", _) | ("triton.language.extra.libdevice", _) => {
            crate::builtins::lookup_in_module(module, name)
        }
        _ => FValue::Module(format!("{module}.{name}")),
    }
}
