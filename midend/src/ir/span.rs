//! Source spans: where in the kernel file an op came from.
//!
//! Spans are byte ranges into the module's one source file ([`SourceFile`]); line and column are
//! computed on demand. They live in a side table of each function body, never in the ops, and
//! never take part in equality (STYLE rule 5).

/// A byte range in the kernel's source file. `Span::NONE` marks ops with no source position
/// (parsed from text, or created by a pass with nothing better to carry).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const NONE: Span = Span { start: u32::MAX, end: u32::MAX };

    pub fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    pub fn is_none(self) -> bool {
        self.start == u32::MAX
    }
}

/// The kernel's source text and path, kept by the module for diagnostics and line info.
#[derive(Clone, Debug, Default)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

impl SourceFile {
    /// One-based (line, column) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = (offset as usize).min(self.text.len());
        let before = &self.text[..offset];
        let line = before.bytes().filter(|&b| b == b'\n').count() as u32 + 1;
        let col = offset - before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        (line, col as u32 + 1)
    }

    /// The text of a one-based line, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        self.text.lines().nth(line.saturating_sub(1) as usize).unwrap_or("")
    }
}
