//! The view of a source text that the token- and syntax-level mutators edit: its tokens, its
//! expressions and its statements, each as byte ranges into the text.
//!
//! Built with Ruff's error-tolerant parser (`parse_unchecked_source`), the parser the frontend
//! uses, so a text that earlier mutations broke still has tokens and a best-effort tree. Mutators
//! never build a tree back into text: they splice replacement text into these ranges, so every
//! byte they do not touch stays as it was.

use std::ops::Range;

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, PySourceType, Stmt};
use ruff_text_size::{Ranged, TextRange};

/// One token.
#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub range: Range<usize>,
}

/// What kind of expression an [`ExprSite`] is, with the ranges of the parts the mutators edit.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A call: positional argument ranges, and keyword arguments as (name, whole `k=v` range).
    Call { args: Vec<Range<usize>>, keywords: Vec<(String, Range<usize>)>, parens: Range<usize> },
    /// A tuple or list display: element ranges.
    Sequence { elements: Vec<Range<usize>> },
    /// `value[slice]`: the slice's range.
    Subscript { slice: Range<usize> },
    /// Anything else.
    Other,
}

/// One expression.
#[derive(Clone, Debug)]
pub struct ExprSite {
    pub range: Range<usize>,
    pub kind: ExprKind,
}

/// One statement, by whole lines.
#[derive(Clone, Debug)]
pub struct StmtSite {
    /// Zero-based line indices, end exclusive.
    pub lines: Range<usize>,
    /// The indentation of its first line, in bytes.
    pub indent: usize,
    /// Whether it is inside a function (not a module-level statement).
    pub in_function: bool,
    /// Whether it is a `def`, which mutators leave whole.
    pub is_def: bool,
}

/// Tokens, expressions and statements of one text.
#[derive(Clone, Debug, Default)]
pub struct SourceView {
    pub tokens: Vec<Token>,
    pub exprs: Vec<ExprSite>,
    pub stmts: Vec<StmtSite>,
    /// Byte offset of the start of every line.
    pub line_starts: Vec<usize>,
}

impl SourceView {
    pub fn new(source: &str) -> SourceView {
        let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
        let tokens =
            parsed.tokens().iter().map(|t| Token { kind: t.kind(), range: range(t.range()) }).collect();
        let mut line_starts = vec![0];
        line_starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        let mut collector =
            Collector { view: SourceView { tokens, line_starts, ..Default::default() }, depth: 0 };
        for stmt in &parsed.syntax().body {
            collector.visit_stmt(stmt);
        }
        collector.view
    }

    /// The zero-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset).saturating_sub(1)
    }
}

fn range(r: TextRange) -> Range<usize> {
    r.start().to_usize()..r.end().to_usize()
}

struct Collector {
    view: SourceView,
    /// How many `def`s enclose the statement being visited.
    depth: usize,
}

impl<'a> Visitor<'a> for Collector {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        let r = range(stmt.range());
        let first = self.view.line_of(r.start);
        let last = self.view.line_of(r.end.saturating_sub(1).max(r.start));
        let indent = {
            let start = self.view.line_starts[first];
            r.start - start
        };
        let is_def = matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_));
        self.view.stmts.push(StmtSite {
            lines: first..last + 1,
            indent,
            in_function: self.depth > 0,
            is_def,
        });
        if is_def {
            self.depth += 1;
            walk_stmt(self, stmt);
            self.depth -= 1;
        } else {
            walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        let kind = match expr {
            Expr::Call(call) => ExprKind::Call {
                args: call.arguments.args.iter().map(|a| range(a.range())).collect(),
                keywords: call
                    .arguments
                    .keywords
                    .iter()
                    .map(|k| (k.arg.as_ref().map_or(String::new(), |a| a.id.to_string()), range(k.range())))
                    .collect(),
                parens: range(call.arguments.range()),
            },
            Expr::Tuple(tuple) => {
                ExprKind::Sequence { elements: tuple.elts.iter().map(|e| range(e.range())).collect() }
            }
            Expr::List(list) => {
                ExprKind::Sequence { elements: list.elts.iter().map(|e| range(e.range())).collect() }
            }
            Expr::Subscript(subscript) => ExprKind::Subscript { slice: range(subscript.slice.range()) },
            _ => ExprKind::Other,
        };
        self.view.exprs.push(ExprSite { range: range(expr.range()), kind });
        walk_expr(self, expr);
    }
}

/// `source` with `range` replaced by `replacement`.
pub fn splice(source: &str, range: Range<usize>, replacement: &str) -> String {
    let mut out = String::with_capacity(source.len() + replacement.len());
    out.push_str(&source[..range.start]);
    out.push_str(replacement);
    out.push_str(&source[range.end..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_has_ranges_of_calls_sequences_and_statements() {
        let source = "import triton\n\n@triton.jit\ndef k(x):\n    a = tl.load(x + 1, mask=m)\n    if a:\n        b = (1, 2)\n";
        let view = SourceView::new(source);
        let call = view.exprs.iter().find(|e| matches!(e.kind, ExprKind::Call { .. })).unwrap();
        assert_eq!(&source[call.range.clone()], "tl.load(x + 1, mask=m)");
        let ExprKind::Call { args, keywords, .. } = &call.kind else { unreachable!() };
        assert_eq!(&source[args[0].clone()], "x + 1");
        assert_eq!(keywords[0].0, "mask");
        assert_eq!(&source[keywords[0].1.clone()], "mask=m");
        let tuple = view.exprs.iter().find(|e| matches!(e.kind, ExprKind::Sequence { .. })).unwrap();
        assert_eq!(&source[tuple.range.clone()], "(1, 2)");
        // The `def` statement starts at its decorator; the `if` covers its body.
        let def = view.stmts.iter().find(|s| s.is_def).unwrap();
        assert_eq!(def.lines, 2..7);
        let if_stmt = view.stmts.iter().find(|s| s.lines.start == 5).unwrap();
        assert_eq!((if_stmt.lines.clone(), if_stmt.indent, if_stmt.in_function), (5..7, 4, true));
        assert_eq!(splice("abc", 1..2, "XY"), "aXYc");
    }
}
