//! Lowering of one kernel (and the helpers it calls) from the Python AST to TTIR.
//!
//! [`Compiler`] holds what is shared by every function of one compilation: the parsed file, the
//! module being built, the evaluated module constants and the cache of specialized helpers.
//! [`FnLowerer`] lowers one function body: statements (`stmt.rs`, with the control-flow rules in
//! `control.rs`), expressions (`expr.rs`), Triton's typing rules (`semantic.rs`) and which kinds of
//! value (numbers, pointers, tensor descriptors) each operation takes (`operands.rs`). Calls into
//! `triton.language` are dispatched to `crate::builtins`.
//!
//! Helpers are specialized like Triton does it: every argument that is a compile-time value is a
//! constexpr of the callee, the rest are runtime parameters; the specialization (types and
//! constexpr values) is part of the helper's name, and each specialization is lowered once and
//! reached through `tt.call`. The midend's inliner removes the calls.

pub mod control;
pub mod expr;
pub mod operands;
pub mod semantic;
pub mod stmt;

use std::collections::{HashMap, HashSet};

use ruff_python_ast::{Expr, Stmt, StmtFunctionDef};
use ruff_text_size::Ranged;
use trident_midend::ir::{
    Attr, Attrs, Block, Builder, DType, FuncKind, Function, Module, Opcode, SourceFile, Span, Type,
};

use crate::diagnostics::Diagnostic;
use crate::program::Program;
use crate::spec::{ArgSpec, DescriptorField, Specialization};
use crate::value::{flatten, rebuild, Const, FValue, Skeleton};

pub type LResult<T> = Result<T, Diagnostic>;

/// The span of an AST node.
pub fn span_of(node: &impl Ranged) -> Span {
    let r = node.range();
    Span::new(r.start().into(), r.end().into())
}

/// An error at a span.
pub fn err<T>(span: Span, message: impl Into<String>) -> LResult<T> {
    Err(Diagnostic::error(message, Some(span)))
}

/// The result signature of a lowered helper.
#[derive(Clone)]
struct HelperSig {
    results: Skeleton,
    result_types: Vec<Type>,
}

/// State shared by all functions of one compilation.
pub struct Compiler<'p> {
    pub program: &'p Program,
    pub module: Module,
    pub spec: &'p Specialization,
    /// Module-level constants, evaluated in order on creation; an `Err` is reported on use.
    pub globals: HashMap<String, Result<FValue, Diagnostic>>,
    helpers: HashMap<String, HelperSig>,
    in_progress: HashSet<String>,
}

impl<'p> Compiler<'p> {
    pub fn new(program: &'p Program, spec: &'p Specialization) -> Compiler<'p> {
        let module = Module {
            functions: Vec::new(),
            source: Some(SourceFile { path: program.path.clone(), text: program.source.clone() }),
            attrs: Attrs::new(),
        };
        let mut compiler = Compiler {
            program,
            module,
            spec,
            globals: HashMap::new(),
            helpers: HashMap::new(),
            in_progress: HashSet::new(),
        };
        for (name, value) in program.globals.iter() {
            compiler.globals.insert(name.clone(), Ok(value.clone()));
        }
        compiler.evaluate_globals();
        compiler
    }

    /// Evaluates module-level assignments as constants, in file order.
    fn evaluate_globals(&mut self) {
        let assignments: Vec<(String, &'p Expr)> =
            self.program.global_assignments().map(|(n, e)| (n.to_string(), e)).collect();
        for (name, expr) in assignments {
            let mut scratch = Function::new("__globals", FuncKind::Helper, &[], &[]);
            let entry = scratch.entry;
            let value = {
                let mut lowerer = FnLowerer::new(self, &mut scratch, entry);
                lowerer.expr(expr)
            };
            let value = match value {
                Ok(FValue::Tensor(_)) => Err(Diagnostic::error(
                    format!("the global `{name}` is not a compile-time constant; write it as `{name} = tl.constexpr(...)`"),
                    Some(span_of(expr)),
                )),
                other => other,
            };
            self.globals.insert(name, value);
        }
    }

    /// Lowers the kernel `name` for the compilation's specialization.
    pub fn lower_kernel(&mut self, name: &str) -> LResult<()> {
        let program = self.program;
        let Some(def) = program.function(name) else {
            let mut known: Vec<&String> = program.jit_functions.keys().collect();
            known.sort();
            let list = known.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
            let message =
                format!("no @triton.jit function named `{name}` in {} (found: {list})", program.path);
            return Err(match program.plain_functions.get(name) {
                Some(&def_span) => Diagnostic::error(message, None)
                    .with_label(def_span, format!("`{name}` is defined here without @triton.jit")),
                None => Diagnostic::error(message, None),
            });
        };
        let spec = self.spec;
        if spec.num_stages > crate::limits::MAX_NUM_STAGES {
            return err(
                span_of(&def.name),
                format!(
                    "num_stages {} is out of range: a pipeline has at most {} stages",
                    spec.num_stages,
                    crate::limits::MAX_NUM_STAGES
                ),
            );
        }
        let params = all_params(def);
        unique_params(&params)?;
        // Reject arguments and constexprs the kernel does not have.
        for (arg, _) in &spec.args {
            if !params.iter().any(|p| p.0 == *arg) {
                return err(span_of(&def.name), format!("`{name}` has no parameter named `{arg}`"));
            }
        }
        for (c, _) in &spec.constexprs {
            if !params.iter().any(|p| p.0 == *c) {
                return err(span_of(&def.name), format!("`{name}` has no parameter named `{c}`"));
            }
        }

        let mut bindings: Vec<(String, FValue)> = Vec::new();
        let mut runtime: Vec<(String, Type, Attrs)> = Vec::new();
        // Descriptor arguments: (name, block shape, padding, span), made from their fields on entry.
        let mut descriptors: Vec<(String, Vec<i64>, &str, Span)> = Vec::new();
        for (pname, is_constexpr, default, span) in &params {
            if *is_constexpr {
                let value = match spec.constexprs.iter().find(|(n, _)| n == pname) {
                    Some((_, v)) => FValue::Const(Const::from(v)),
                    None => match default {
                        Some(d) => self.eval_const_expr(d)?,
                        None => {
                            return err(
                                *span,
                                format!("the constexpr parameter `{pname}` of `{name}` has no value (give it with --const {pname}=VALUE)"),
                            )
                        }
                    },
                };
                bindings.push((pname.clone(), value));
                continue;
            }
            let Some((_, arg)) = spec.args.iter().find(|(n, _)| n == pname) else {
                match default {
                    Some(d) => {
                        let v = self.eval_const_expr(d)?;
                        bindings.push((pname.clone(), v));
                        continue;
                    }
                    None => {
                        return err(*span, format!("no value for the parameter `{pname}` of `{name}` (give it with --arg {pname}=...)"))
                    }
                }
            };
            match arg {
                ArgSpec::Pointer { dtype, aligned16 } => {
                    let mut attrs = Attrs::new();
                    if *aligned16 {
                        attrs.set("tt.divisibility", Attr::Int(16));
                    }
                    runtime.push((pname.clone(), Type::ptr(*dtype), attrs));
                }
                ArgSpec::Int { value, dtype } => {
                    // Triton specializes integer arguments equal to 1 into constants.
                    if *value == 1 {
                        bindings.push((pname.clone(), FValue::int(1)));
                        continue;
                    }
                    let mut attrs = Attrs::new();
                    if value % 16 == 0 {
                        attrs.set("tt.divisibility", Attr::Int(16));
                    }
                    runtime.push((pname.clone(), Type::scalar(*dtype), attrs));
                }
                ArgSpec::Float { dtype, .. } => {
                    runtime.push((pname.clone(), Type::scalar(*dtype), Attrs::new()))
                }
                ArgSpec::TensorDesc { dtype, aligned16, strides16, block_shape, padding_nan } => {
                    for (field, kind) in crate::spec::descriptor_fields(pname, block_shape.len()) {
                        let (ty, attrs) = match kind {
                            DescriptorField::Base if *aligned16 => {
                                (Type::ptr(*dtype), Attrs::new().with("tt.divisibility", Attr::Int(16)))
                            }
                            DescriptorField::Base => (Type::ptr(*dtype), Attrs::new()),
                            DescriptorField::Shape(_) => (Type::scalar(DType::I32), Attrs::new()),
                            DescriptorField::Stride(_) if *strides16 => (
                                Type::scalar(DType::I64),
                                Attrs::new().with("tt.divisibility", Attr::Int(16)),
                            ),
                            DescriptorField::Stride(_) => (Type::scalar(DType::I64), Attrs::new()),
                        };
                        runtime.push((field, ty, attrs));
                    }
                    let padding = if *padding_nan { "nan" } else { "zero" };
                    descriptors.push((pname.clone(), block_shape.clone(), padding, *span));
                }
            }
        }

        let types: Vec<Type> = runtime.iter().map(|r| r.1.clone()).collect();
        let mut func = Function::new(name, FuncKind::Kernel, &types, &[]);
        func.arg_names = runtime.iter().map(|r| r.0.clone()).collect();
        func.arg_attrs = runtime.iter().map(|r| r.2.clone()).collect();
        let entry = func.entry;
        {
            let mut lowerer = FnLowerer::new(self, &mut func, entry);
            for (pname, v) in bindings {
                lowerer.vars.insert(pname, v);
            }
            for (i, (pname, _, _)) in runtime.iter().enumerate() {
                let param = lowerer.func.params()[i];
                lowerer.vars.insert(pname.clone(), FValue::Tensor(param));
            }
            // A descriptor argument is the descriptor made, on entry, from its fields; the fields
            // themselves (parameters above, under their names) leave the scope.
            for (pname, block_shape, padding, span) in descriptors {
                let (mut shape, mut strides) = (Vec::new(), Vec::new());
                for (field, kind) in crate::spec::descriptor_fields(&pname, block_shape.len()) {
                    match kind {
                        DescriptorField::Base => {}
                        DescriptorField::Shape(_) => shape.extend(lowerer.vars.remove(&field)),
                        DescriptorField::Stride(_) => strides.extend(lowerer.vars.remove(&field)),
                    }
                }
                strides.push(FValue::int(1));
                let base = lowerer.vars[&pname].clone();
                let block = FValue::Tuple(block_shape.iter().map(|&b| FValue::int(i128::from(b))).collect());
                lowerer.span = span;
                let desc = crate::builtins::memory::make_descriptor(
                    &mut lowerer,
                    base,
                    FValue::Tuple(shape),
                    FValue::Tuple(strides),
                    block,
                    padding,
                )?;
                lowerer.vars.insert(pname, desc);
            }
            lowerer.block_stmts(&def.body)?;
            if let Some((value, span)) = &lowerer.returned {
                if !matches!(value, FValue::Const(Const::None)) {
                    return err(*span, "a kernel cannot return a value; store results through a pointer");
                }
            }
            lowerer.span = span_of(def);
            lowerer.b().op(Opcode::Return, vec![], &[], Attrs::new());
        }
        self.module.functions.insert(0, func);
        Ok(())
    }

    /// Evaluates an expression that must be a compile-time constant (parameter defaults).
    fn eval_const_expr(&mut self, e: &Expr) -> LResult<FValue> {
        let mut scratch = Function::new("__const", FuncKind::Helper, &[], &[]);
        let entry = scratch.entry;
        let mut lowerer = FnLowerer::new(self, &mut scratch, entry);
        let v = lowerer.expr(e)?;
        if matches!(v, FValue::Tensor(_)) {
            return err(span_of(e), "a parameter default must be a compile-time constant");
        }
        Ok(v)
    }
}

/// Python's refusal of a parameter named twice (the parser takes it; CPython's compiler does not).
fn unique_params(params: &[(String, bool, Option<&Expr>, Span)]) -> LResult<()> {
    for (index, (name, _, _, span)) in params.iter().enumerate() {
        if params[..index].iter().any(|earlier| earlier.0 == *name) {
            return err(*span, format!("duplicate argument '{name}' in function definition"));
        }
    }
    Ok(())
}

/// (name, is constexpr, default, span) for every parameter, in order.
pub(crate) fn all_params(def: &StmtFunctionDef) -> Vec<(String, bool, Option<&Expr>, Span)> {
    let p = &def.parameters;
    p.posonlyargs
        .iter()
        .chain(p.args.iter())
        .chain(p.kwonlyargs.iter())
        .map(|pd| {
            let is_constexpr =
                pd.parameter.annotation.as_deref().map(annotation_is_constexpr).unwrap_or(false);
            (
                pd.parameter.name.as_str().to_string(),
                is_constexpr,
                pd.default.as_deref(),
                span_of(&pd.parameter),
            )
        })
        .collect()
}

fn annotation_is_constexpr(e: &Expr) -> bool {
    match e {
        Expr::Name(n) => n.id.as_str() == "constexpr",
        Expr::Attribute(a) => a.attr.as_str() == "constexpr",
        Expr::StringLiteral(s) => s.value.to_str().contains("constexpr"),
        _ => false,
    }
}

/// Lowers one function body.
pub struct FnLowerer<'c, 'p> {
    pub c: &'c mut Compiler<'p>,
    pub func: &'c mut Function,
    /// Where new ops go.
    pub block: Block,
    /// The span stamped on new ops (the statement or expression being lowered).
    pub span: Span,
    pub vars: HashMap<String, FValue>,
    /// Set by `return`: the value and the span of the return statement.
    pub returned: Option<(FValue, Span)>,
    /// Hints on block arguments of regions whose op does not exist yet (see `builtins::creation`).
    pub pending_hints: Vec<(Block, String, Attr)>,
    /// How many copies of the code being lowered the enclosing `tl.static_range` loops make (1
    /// outside them): nested loops multiply, and the product is what the limit bounds.
    pub unrolled_copies: u128,
}

impl<'c, 'p> FnLowerer<'c, 'p> {
    pub fn new(c: &'c mut Compiler<'p>, func: &'c mut Function, block: Block) -> Self {
        FnLowerer {
            c,
            func,
            block,
            span: Span::NONE,
            vars: HashMap::new(),
            returned: None,
            pending_hints: Vec::new(),
            unrolled_copies: 1,
        }
    }

    /// A builder at the end of the current block, stamping the current span.
    pub fn b(&mut self) -> Builder<'_> {
        let mut b = Builder::at_end(&mut self.func.body, self.block);
        b.span = self.span;
        b
    }

    pub fn ty(&self, v: trident_midend::ir::Value) -> Type {
        self.func.body.ty(v).clone()
    }

    /// An error at the current span.
    pub fn error<T>(&self, message: impl Into<String>) -> LResult<T> {
        err(self.span, message)
    }

    /// Calls a `@triton.jit` helper: specializes it for the arguments, lowers it once, and emits a
    /// `tt.call`.
    pub fn call_jit(
        &mut self,
        name: &str,
        args: Vec<FValue>,
        kwargs: Vec<(String, FValue)>,
    ) -> LResult<FValue> {
        let call_span = self.span;
        let program = self.c.program;
        let Some(def) = program.function(name) else {
            return self.error(format!("`{name}` is not a @triton.jit function"));
        };
        let params = all_params(def);
        unique_params(&params)?;
        let mut bound: Vec<Option<FValue>> = vec![None; params.len()];
        if args.len() > params.len() {
            return self.error(format!(
                "`{name}` takes {} arguments but {} were given",
                params.len(),
                args.len()
            ));
        }
        for (i, a) in args.into_iter().enumerate() {
            bound[i] = Some(a);
        }
        for (k, v) in kwargs {
            match params.iter().position(|p| p.0 == k) {
                Some(i) if bound[i].is_none() => bound[i] = Some(v),
                Some(_) => return self.error(format!("`{name}` got two values for the parameter `{k}`")),
                None => return self.error(format!("`{name}` has no parameter named `{k}`")),
            }
        }
        let mut values = Vec::with_capacity(params.len());
        for (i, slot) in bound.into_iter().enumerate() {
            let v = match slot {
                Some(v) => v,
                None => match params[i].2 {
                    Some(d) => self.c.eval_const_expr(d)?,
                    None => {
                        return self
                            .error(format!("missing argument `{}` in the call to `{name}`", params[i].0))
                    }
                },
            };
            // As in Triton, a called function's `tl.constexpr` annotations do not constrain its
            // arguments: what is constant is decided by the values passed (Triton's tutorial 06
            // passes runtime offsets to `offs_m: tl.constexpr`).
            values.push(v);
        }

        // Specialization: runtime values by type, everything else by its printed form.
        let mut flat = Vec::new();
        let mut skeletons = Vec::new();
        let mut key = String::new();
        for v in &values {
            let start = flat.len();
            let s = flatten(v, &mut flat);
            for &x in &flat[start..] {
                key.push_str(&format!("{}_", self.ty(x)));
            }
            key.push_str(&format!("{s:?};"));
            skeletons.push(s);
        }
        let mangled = mangle(name, &key);
        if self.c.in_progress.contains(&mangled) {
            return self.error(format!("`{name}` calls itself; recursive jit functions are not supported"));
        }
        let sig = match self.c.helpers.get(&mangled) {
            Some(sig) => sig.clone(),
            None => {
                let types: Vec<Type> = flat.iter().map(|&v| self.ty(v)).collect();
                let sig = self
                    .lower_helper(def, &mangled, &params, &skeletons, &types)
                    .map_err(|d| d.with_label(call_span, format!("in this call to `{name}`")))?;
                self.c.helpers.insert(mangled.clone(), sig.clone());
                sig
            }
        };
        self.span = call_span;
        let attrs = Attrs::new().with("callee", Attr::Str(mangled));
        let op = self.b().op(Opcode::Call, flat, &sig.result_types, attrs);
        let results = self.func.body.op(op).results.clone();
        Ok(rebuild(&sig.results, &mut results.into_iter()))
    }

    fn lower_helper(
        &mut self,
        def: &StmtFunctionDef,
        mangled: &str,
        params: &[(String, bool, Option<&Expr>, Span)],
        skeletons: &[Skeleton],
        types: &[Type],
    ) -> LResult<HelperSig> {
        self.c.in_progress.insert(mangled.to_string());
        let mut func = Function::new(mangled, FuncKind::Helper, types, &[]);
        func.arg_names = (0..types.len()).map(|i| format!("arg{i}")).collect();
        let entry = func.entry;
        let result = {
            let mut lowerer = FnLowerer::new(self.c, &mut func, entry);
            let args: Vec<_> = lowerer.func.params().to_vec();
            let mut it = args.into_iter();
            for ((pname, ..), s) in params.iter().zip(skeletons) {
                let v = rebuild(s, &mut it);
                lowerer.vars.insert(pname.clone(), v);
            }
            lowerer.block_stmts(&def.body).map(|_| {
                let (value, span) =
                    lowerer.returned.clone().unwrap_or((FValue::Const(Const::None), span_of(def)));
                lowerer.span = span;
                let mut flat = Vec::new();
                let skeleton = flatten(&value, &mut flat);
                let result_types: Vec<Type> = flat.iter().map(|&v| lowerer.ty(v)).collect();
                lowerer.b().op(Opcode::Return, flat, &[], Attrs::new());
                HelperSig { results: skeleton, result_types }
            })
        };
        self.c.in_progress.remove(mangled);
        let sig = result?;
        func.result_types = sig.result_types.clone();
        self.c.module.functions.push(func);
        Ok(sig)
    }

    /// Moves the pending hints of `regions` onto `op`, which now owns them.
    pub fn apply_pending_hints(&mut self, op: trident_midend::ir::Op) {
        let regions = self.func.body.op(op).regions.clone();
        let (mine, rest): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pending_hints).into_iter().partition(|(b, _, _)| regions.contains(b));
        self.pending_hints = rest;
        for (_, key, attr) in mine {
            self.func.body.ops[op].attrs.set(&key, attr);
        }
    }

    /// Lowers statements in order, stopping after a `return`.
    pub fn block_stmts(&mut self, stmts: &[Stmt]) -> LResult<()> {
        for s in stmts {
            if self.returned.is_some() {
                break;
            }
            self.stmt(s)?;
        }
        Ok(())
    }
}

/// A readable, unique function name for one specialization of a helper.
fn mangle(name: &str, key: &str) -> String {
    // A short stable hash keeps names readable while telling specializations apart.
    let mut h: u64 = 0xcbf29ce484222325;
    for b in key.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{name}__{:08x}", h as u32)
}
