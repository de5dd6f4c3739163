//! The Python signature of a kernel, for checking the command line before compiling.
//!
//! The compiled kernel's parameters are not the Python function's (constexprs are not
//! parameters, and integers equal to 1 are specialized away), so a misspelt `--arg` name cannot
//! be caught after compilation. This module reads the `def` with Ruff's parser (the frontend's
//! parser; never a hand-written one) and lists its parameters. It answers `None` when the file
//! does not parse or has no such function: the frontend then reports that, with a span.

use ruff_python_ast::{Expr, Stmt};

/// One parameter of the Python kernel function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    /// Annotated `tl.constexpr` (or `constexpr`, `triton.language.constexpr`).
    pub is_constexpr: bool,
    pub has_default: bool,
}

/// The parameters of the top-level function `kernel` in `source`, in order.
pub fn kernel_params(source: &str, kernel: &str) -> Option<Vec<Param>> {
    let parsed = ruff_python_parser::parse_module(source).ok()?;
    let function = parsed.syntax().body.iter().find_map(|stmt| match stmt {
        Stmt::FunctionDef(def) if def.name.as_str() == kernel => Some(def),
        _ => None,
    })?;
    let parameters = &function.parameters;
    let params = parameters
        .posonlyargs
        .iter()
        .chain(&parameters.args)
        .chain(&parameters.kwonlyargs)
        .map(|p| Param {
            name: p.parameter.name.as_str().to_string(),
            is_constexpr: p.parameter.annotation.as_deref().is_some_and(is_constexpr_annotation),
            has_default: p.default.is_some(),
        })
        .collect();
    Some(params)
}

/// Whether an annotation names `constexpr` (`tl.constexpr`, `triton.language.constexpr`, ...).
fn is_constexpr_annotation(annotation: &Expr) -> bool {
    match annotation {
        Expr::Name(name) => name.id.as_str() == "constexpr",
        Expr::Attribute(attribute) => attribute.attr.as_str() == "constexpr",
        Expr::StringLiteral(text) => text.value.to_str().ends_with("constexpr"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parameters() {
        let source = "import triton\nimport triton.language as tl\n\n@triton.jit\n\
                      def k(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr = True):\n    pass\n";
        let params = kernel_params(source, "k").unwrap();
        let summary: Vec<_> =
            params.iter().map(|p| (p.name.as_str(), p.is_constexpr, p.has_default)).collect();
        assert_eq!(
            summary,
            [("x_ptr", false, false), ("n", false, false), ("BLOCK", true, false), ("EVEN", true, true)]
        );
        assert_eq!(kernel_params(source, "missing"), None);
        assert_eq!(kernel_params("def (:\n", "k"), None);
    }
}
