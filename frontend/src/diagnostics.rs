//! User-facing errors with source spans, rendered like rustc: file, line, the Python line and a
//! caret under the offending expression.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::NoColor};
use trident_midend::ir::Span;

/// One error with an optional primary span and secondary labelled spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Option<Span>,
    /// Extra spans with their notes ("defined here", ...).
    pub labels: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(message: impl Into<String>, span: Option<Span>) -> Diagnostic {
        Diagnostic { message: message.into(), span, labels: Vec::new(), notes: Vec::new() }
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// Errors of one compilation, with the file they point into.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    pub path: String,
    pub source: String,
    pub errors: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn single(path: &str, source: &str, d: Diagnostic) -> Diagnostics {
        Diagnostics { path: path.to_string(), source: source.to_string(), errors: vec![d] }
    }

    /// Renders every error as text without colour: `error: message`, `--> file:line:col`, the
    /// source line and a caret.
    pub fn render(&self) -> String {
        let file = SimpleFile::new(self.path.as_str(), self.source.as_str());
        let mut out = NoColor::new(Vec::new());
        let config = term::Config::default();
        for d in &self.errors {
            let mut report = Report::error().with_message(&d.message).with_notes(d.notes.clone());
            let mut labels = Vec::new();
            if let Some(span) = d.span.filter(|s| !s.is_none()) {
                labels.push(Label::primary((), clamp(span, &self.source)));
            }
            for (span, text) in &d.labels {
                if !span.is_none() {
                    labels.push(Label::secondary((), clamp(*span, &self.source)).with_message(text));
                }
            }
            report = report.with_labels(labels);
            let _ = term::emit(&mut out, &config, &file, &report);
        }
        String::from_utf8_lossy(&out.into_inner()).into_owned()
    }
}

/// Renders a warning about the first line of `span` in the kernel file like an error
/// (`warning: message`, the file, the Python line and a caret).
pub fn render_warning(path: &str, source: &str, span: Span, message: &str) -> String {
    let file = SimpleFile::new(path, source);
    let mut out = NoColor::new(Vec::new());
    let mut report = Report::warning().with_message(message);
    if !span.is_none() {
        let range = clamp(span, source);
        let first_line = source[range.clone()].find('\n').map_or(range.end, |n| range.start + n);
        report = report.with_labels(vec![Label::primary((), range.start..first_line)]);
    }
    let _ = term::emit(&mut out, &term::Config::default(), &file, &report);
    String::from_utf8_lossy(&out.into_inner()).into_owned()
}

impl Diagnostics {
    /// One line that sums the errors up, for the end of stderr: `error: FILE:LINE:COL: MESSAGE`
    /// for the first error, and how many more there are. A rendered error ends with the Python
    /// line and its caret (or a second label, or notes), and tools that show only the last lines
    /// of stderr (the corpus runner shows three) lost the message itself; this line carries it.
    /// `None` when the rendering already ends with the message: one error with nothing but it.
    pub fn summary(&self) -> Option<String> {
        let first = self.errors.first()?;
        let bare =
            first.span.is_none_or(|s| s.is_none()) && first.labels.is_empty() && first.notes.is_empty();
        if self.errors.len() == 1 && bare {
            return None;
        }
        let file = SimpleFile::new(self.path.as_str(), self.source.as_str());
        let place = match first.span.filter(|s| !s.is_none()) {
            Some(span) => {
                let location =
                    codespan_reporting::files::Files::location(&file, (), clamp(span, &self.source).start);
                match location {
                    Ok(at) => format!("{}:{}:{}", self.path, at.line_number, at.column_number),
                    Err(_) => self.path.clone(),
                }
            }
            None => self.path.clone(),
        };
        let message = first.message.lines().next().unwrap_or_default();
        let mut line = format!("error: {place}: {message}");
        match self.errors.len() {
            1 => {}
            2 => line += " (and 1 more error above)",
            n => line += &format!(" (and {} more errors above)", n - 1),
        }
        Some(line)
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

fn clamp(span: Span, source: &str) -> std::ops::Range<usize> {
    let len = source.len();
    let start = (span.start as usize).min(len);
    let end = (span.end as usize).clamp(start, len);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "import triton\n\n@triton.jit\ndef k(x):\n    y = tl.lod(x)\n";

    fn at(text: &str) -> Span {
        let start = SOURCE.find(text).unwrap() as u32;
        Span::new(start, start + text.len() as u32)
    }

    #[test]
    fn the_summary_carries_the_first_message_and_where() {
        let error = Diagnostic::error("`lod` is not part of `triton.language`", Some(at("tl.lod(x)")));
        let mut diagnostics = Diagnostics::single("k.py", SOURCE, error.clone());
        assert_eq!(
            diagnostics.summary().as_deref(),
            Some("error: k.py:5:9: `lod` is not part of `triton.language`")
        );
        diagnostics.errors.push(error.clone());
        diagnostics.errors.push(error);
        assert_eq!(
            diagnostics.summary().as_deref(),
            Some("error: k.py:5:9: `lod` is not part of `triton.language` (and 2 more errors above)")
        );
    }

    #[test]
    fn no_summary_when_the_rendering_ends_with_the_message() {
        let diagnostics = Diagnostics::single("k.py", SOURCE, Diagnostic::error("no kernel named `q`", None));
        assert_eq!(diagnostics.render().trim_end(), "error: no kernel named `q`");
        assert_eq!(diagnostics.summary(), None);
        let labelled = Diagnostic::error("no kernel named `k`", None).with_label(at("k"), "defined here");
        let diagnostics = Diagnostics::single("k.py", SOURCE, labelled);
        assert_eq!(diagnostics.summary().as_deref(), Some("error: k.py: no kernel named `k`"));
    }
}
