//! The text form of the IR: an MLIR-like syntax that `parser.rs` reads back.
//!
//! ```text
//! tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %n: i32) {
//!   %0 = tt.get_program_id {axis = 0} : i32
//!   %1 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32>
//!   %2 = scf.for %lb, %ub, %step, %acc0 : tensor<1024xf32> {
//!   ^bb0(%3: i32, %4: tensor<1024xf32>):
//!     scf.yield %4
//!   }
//!   tt.return
//! }
//! ```
//!
//! Every op prints the same way: `results = name operands {attrs} : result-types`, followed by its
//! regions (`{...}`, with `else` / `do` / `producer` between the two regions of `scf.if` /
//! `scf.while` / `ttng.warp_specialize`).
//! Operand types are not printed; the parser knows them from the definitions. Function
//! parameters print under their source names, every other value as `%N` numbered in print order.
//! With `locations`, each op ends in `loc("file":line:col)`.

use std::collections::HashMap;
use std::fmt::Write;

use super::body::{Block, Body, FuncKind, Function, Module, Op, Value};
use super::types::Type;
use crate::layout::Encoding;

/// Printing options.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    /// Append `loc(...)` with the Python file, line and column to every op that has a span.
    pub locations: bool,
}

/// Prints a whole module.
pub fn print_module(module: &Module) -> String {
    print_module_with(module, PrintOptions::default())
}

pub fn print_module_with(module: &Module, options: PrintOptions) -> String {
    let mut out = String::new();
    if !module.attrs.is_empty() {
        let _ = writeln!(out, "module attributes {}", module.attrs);
    }
    let aliases = layout_aliases(module);
    for (e, name) in &aliases {
        let _ = writeln!(out, "{name} = {e}");
    }
    for (i, f) in module.functions.iter().enumerate() {
        if i > 0 || !aliases.is_empty() {
            out.push('\n');
        }
        print_function_into(module, f, options, &aliases, &mut out);
    }
    out
}

/// Prints one function.
pub fn print_function(module: &Module, f: &Function) -> String {
    let mut out = String::new();
    let aliases = layout_aliases(module);
    print_function_into(module, f, PrintOptions::default(), &aliases, &mut out);
    out
}

/// Every layout used in the module, in order of first use, with its printed alias (`#blocked`,
/// `#blocked1`, `#slice`, ...): TTGIR types print the alias, as Triton's do.
fn layout_aliases(module: &Module) -> Vec<(Encoding, String)> {
    let mut out: Vec<(Encoding, String)> = Vec::new();
    let mut note = |ty: &Type| {
        if let Some(e) = ty.encoding() {
            if !out.iter().any(|(x, _)| x == e) {
                let stem = e.alias_stem();
                let n = out.iter().filter(|(x, _)| x.alias_stem() == stem).count();
                let name = if n == 0 { format!("#{stem}") } else { format!("#{stem}{n}") };
                out.push((e.clone(), name));
            }
        }
    };
    for f in &module.functions {
        for &p in f.params() {
            note(f.body.ty(p));
        }
        for op in f.body.walk(f.entry) {
            let data = f.body.op(op);
            for &r in &data.results {
                note(f.body.ty(r));
            }
            for &region in &data.regions {
                for &a in &f.body.blocks[region].args {
                    note(f.body.ty(a));
                }
            }
        }
    }
    out
}

struct Printer<'a> {
    aliases: &'a [(Encoding, String)],
    module: &'a Module,
    body: &'a Body,
    names: HashMap<Value, String>,
    next: usize,
    options: PrintOptions,
    out: &'a mut String,
}

fn print_function_into(
    module: &Module,
    f: &Function,
    options: PrintOptions,
    aliases: &[(Encoding, String)],
    out: &mut String,
) {
    let visibility = if f.kind == FuncKind::Kernel { "public" } else { "private" };
    let mut p = Printer { aliases, module, body: &f.body, names: HashMap::new(), next: 0, options, out };
    let _ = write!(p.out, "tt.func {visibility} @{}(", f.name);
    for (i, &param) in f.params().iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        let name = unique_param_name(&f.arg_names, i);
        p.names.insert(param, format!("%{name}"));
        let text = p.type_text(p.body.ty(param));
        let _ = write!(p.out, "%{name}: {text}");
        if let Some(attrs) = f.arg_attrs.get(i) {
            if !attrs.is_empty() {
                let _ = write!(p.out, " {attrs}");
            }
        }
    }
    p.out.push(')');
    if !f.result_types.is_empty() {
        p.out.push_str(" -> (");
        for (i, t) in f.result_types.iter().enumerate() {
            if i > 0 {
                p.out.push_str(", ");
            }
            let text = p.type_text(t);
            let _ = write!(p.out, "{text}");
        }
        p.out.push(')');
    }
    p.out.push_str(" {\n");
    p.print_ops(f.entry, 1);
    p.out.push_str("}\n");
}

/// A parameter's printed name: its source name when it is a plain identifier that no earlier
/// parameter took, `argN` otherwise.
fn unique_param_name(names: &[String], i: usize) -> String {
    let name = &names[i];
    let plain = !name.is_empty()
        && !name.as_bytes()[0].is_ascii_digit()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if plain && !names[..i].contains(name) && !name.chars().all(|c| c.is_ascii_digit()) {
        name.clone()
    } else {
        format!("arg{i}")
    }
}

impl Printer<'_> {
    /// A type as text, with its layout printed as the module's alias.
    fn type_text(&self, ty: &Type) -> String {
        match ty {
            Type::Tensor { elem, shape, encoding: Some(e) } => {
                let alias = self.aliases.iter().find(|(x, _)| x == e).map(|(_, n)| n.clone());
                let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
                format!("tensor<{dims}{elem}, {}>", alias.unwrap_or_else(|| e.to_string()))
            }
            other => other.to_string(),
        }
    }

    fn name(&mut self, v: Value) -> String {
        if let Some(n) = self.names.get(&v) {
            return n.clone();
        }
        let n = format!("%{}", self.next);
        self.next += 1;
        self.names.insert(v, n.clone());
        n
    }

    fn print_ops(&mut self, block: Block, depth: usize) {
        for &op in &self.body.blocks[block].ops {
            self.print_op(op, depth);
        }
    }

    fn print_op(&mut self, op: Op, depth: usize) {
        let data = self.body.op(op);
        let indent = "  ".repeat(depth);
        self.out.push_str(&indent);
        if !data.results.is_empty() {
            let names: Vec<String> = data.results.iter().map(|&r| self.name(r)).collect();
            let _ = write!(self.out, "{} = ", names.join(", "));
        }
        self.out.push_str(data.opcode.name());
        if !data.operands.is_empty() {
            let names: Vec<String> = data.operands.iter().map(|&v| self.name(v)).collect();
            let _ = write!(self.out, " {}", names.join(", "));
        }
        if !data.attrs.is_empty() {
            let _ = write!(self.out, " {}", data.attrs);
        }
        if !data.results.is_empty() {
            let types: Vec<String> = data.results.iter().map(|&r| self.type_text(self.body.ty(r))).collect();
            let _ = write!(self.out, " : {}", types.join(", "));
        }
        for (i, &region) in data.regions.iter().enumerate() {
            if i == 1 {
                let _ = write!(self.out, " {}", data.opcode.second_region_keyword());
            }
            self.out.push_str(" {\n");
            let args = self.body.blocks[region].args.clone();
            if !args.is_empty() {
                let list: Vec<String> = args
                    .iter()
                    .map(|&a| format!("{}: {}", self.name(a), self.type_text(self.body.ty(a))))
                    .collect();
                let _ = writeln!(self.out, "{indent}^bb0({}):", list.join(", "));
            }
            self.print_ops(region, depth + 1);
            let _ = write!(self.out, "{indent}}}");
        }
        if self.options.locations {
            let span = self.body.span(op);
            if let (false, Some(src)) = (span.is_none(), &self.module.source) {
                let (line, col) = src.line_col(span.start);
                let _ = write!(self.out, " loc({:?}:{line}:{col})", src.path);
            }
        }
        self.out.push('\n');
    }
}
