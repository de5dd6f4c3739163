//! Parser for the text form that `printer.rs` writes, so that IR round-trips (print, parse, print
//! gives the same text) and pass tests can be written as IR text in, IR text out (STYLE rules 9, 17).
//!
//! The grammar is the printer's, read back by a hand-written scanner and recursive descent:
//!
//! ```text
//! module    := ("module" "attributes" attrs)? function*
//! function  := "tt.func" ("public" | "private") "@" name "(" params ")" ("->" "(" types ")")? "{" op* "}"
//! op        := (values "=")? opname values? attrs? (":" types)? region* loc?      -- one line
//! region    := "{" ("^bb0" "(" %name ":" type, ... ")" ":")? op* "}"   -- "else" / "do" between two
//! ```
//!
//! Op headers are line-oriented, as printed: an op's operands, attributes and result types sit on
//! the line of its name, so a terminator followed by another op is never misread as one op with
//! the next op's results as operands. Everything else (blank lines, indentation, `//` comments
//! between ops) is free.
//!
//! Operand types are not in the text; they come from the definition of each value, which must come
//! earlier in the function (regions see the values of their enclosing blocks, and an op's results
//! become visible only after its regions). The parser checks the op table's arities but no type
//! rules: that is the verifier's job, and keeping the two apart lets verifier tests be written as
//! text. Spans of parsed ops are `Span::NONE` and `loc(...)` suffixes are skipped. The parser never
//! panics: every malformed input gives a [`ParseError`] with a line, a column and a message.

use std::collections::HashMap;

use super::attrs::{Attr, Attrs};
use super::body::{Block, Body, FuncKind, Function, Module, Value};
use super::opcode::{Arity, Opcode};
use super::span::Span;
use super::types::{DType, Elem, Type};
use crate::layout::{parse_encoding, Encoding};

/// A parse error with the 1-based line and column where it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a module from its text form.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let mut parser = Parser { text, bytes: text.as_bytes(), pos: 0, depth: 0, aliases: HashMap::new() };
    parser.module()
}

/// Regions nested deeper than this are rejected, so that hostile input cannot overflow the stack
/// of the recursive descent (real kernels nest a handful of loops).
const MAX_REGION_DEPTH: usize = 200;

type PResult<T> = Result<T, ParseError>;

/// The scanner and parser state: a byte cursor into the text. The cursor only ever moves over
/// ASCII bytes or whole characters, so it always sits on a UTF-8 boundary.
struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Current region nesting, checked against [`MAX_REGION_DEPTH`].
    depth: usize,
    /// Layout aliases declared at the top (`#blocked0 = #ttg.blocked<...>`).
    aliases: HashMap<String, Encoding>,
}

/// The values visible at the current point of one function, by printed name. Each region opens a
/// scope; the names it defined are forgotten when it closes.
struct Scope {
    values: HashMap<String, Value>,
    frames: Vec<Vec<String>>,
}

impl Scope {
    fn new() -> Self {
        Scope { values: HashMap::new(), frames: vec![Vec::new()] }
    }

    fn push(&mut self) {
        self.frames.push(Vec::new());
    }

    fn pop(&mut self) {
        for name in self.frames.pop().unwrap_or_default() {
            self.values.remove(&name);
        }
    }
}

/// A value name as written (`%x`), with where it was written for error messages.
struct NameRef {
    name: String,
    pos: usize,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// Op names (`tt.reduce.return`), attribute keys (`ttg.num-warps`) and keywords.
fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'$')
}

/// Characters of a value name after the `%`: parameter names are plain identifiers, the rest are
/// numbers.
fn is_value_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn describe_arity(arity: Arity) -> String {
    match arity {
        Arity::Exactly(n) => format!("{n}"),
        Arity::Between(lo, hi) => format!("{lo} to {hi}"),
        Arity::AtLeast(n) => format!("at least {n}"),
    }
}

impl<'a> Parser<'a> {
    // ---- scanner ------------------------------------------------------------------------------

    fn error_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        let pos = pos.min(self.text.len());
        let before = &self.bytes[..pos];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // Columns count characters, not bytes; `pos` is always a char boundary.
        let col = self.text.get(line_start..pos).map_or(0, |s| s.chars().count()) + 1;
        ParseError { line: line as u32, col: col as u32, message: message.into() }
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.pos, message)
    }

    /// A short description of what is at the cursor, for "expected X, found Y" messages.
    fn found(&self) -> String {
        let rest = self.text.get(self.pos..).unwrap_or("");
        match rest.chars().next() {
            None => "end of input".to_string(),
            Some('\n') | Some('\r') => "end of line".to_string(),
            Some(c) if c.is_ascii() && is_ident_char(c as u8) => {
                let word: String =
                    rest.chars().take_while(|&c| c.is_ascii() && is_ident_char(c as u8)).collect();
                format!("`{word}`")
            }
            Some(c) => format!("`{c}`"),
        }
    }

    fn expected(&self, what: &str) -> ParseError {
        self.error(format!("expected {what}, found {}", self.found()))
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        self.bytes[self.pos..].starts_with(s.as_bytes())
    }

    /// Skips spaces within the current line.
    fn skip_inline_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Skips spaces, newlines and `//` comments.
    fn skip_ws(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                Some(b'/') if self.starts_with("//") => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn at_line_end(&self) -> bool {
        matches!(self.peek(), None | Some(b'\n')) || self.starts_with("//")
    }

    /// Consumes `s` if the text continues with it (after inline spaces).
    fn eat(&mut self, s: &str) -> bool {
        self.skip_inline_ws();
        if self.starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> PResult<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{s}`")))
        }
    }

    /// Whether the next word (after inline spaces) is exactly `keyword`; does not consume it.
    fn at_keyword(&mut self, keyword: &str) -> bool {
        self.skip_inline_ws();
        let end = self.pos + keyword.len();
        self.starts_with(keyword) && !self.bytes.get(end).is_some_and(|&b| is_ident_char(b))
    }

    fn eat_keyword(&mut self, keyword: &str) -> bool {
        let found = self.at_keyword(keyword);
        if found {
            self.pos += keyword.len();
        }
        found
    }

    /// Reads an identifier-like word (op name, attribute key, keyword).
    fn word(&mut self, what: &str) -> PResult<&'a str> {
        self.skip_inline_ws();
        if !self.peek().is_some_and(is_ident_start) {
            return Err(self.expected(what));
        }
        let start = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        Ok(&self.text[start..self.pos])
    }

    /// Reads `%name`.
    fn value_name(&mut self) -> PResult<NameRef> {
        self.skip_inline_ws();
        let pos = self.pos;
        if self.peek() != Some(b'%') {
            return Err(self.expected("a value name like `%0`"));
        }
        self.pos += 1;
        let start = self.pos;
        while self.peek().is_some_and(is_value_char) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.expected("a value name after `%`"));
        }
        Ok(NameRef { name: self.text[start..self.pos].to_string(), pos })
    }

    /// Skips a non-empty run of ASCII digits and returns it.
    fn skip_digits(&mut self, what: &str) -> PResult<&'a str> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.expected(what));
        }
        Ok(&self.text[start..self.pos])
    }

    /// Reads a run of ASCII digits as a `u64` (no sign).
    fn digits(&mut self, what: &str) -> PResult<u64> {
        let start = self.pos;
        let digits = self.skip_digits(what)?;
        digits.parse::<u64>().map_err(|_| self.error_at(start, format!("{what} is out of range")))
    }

    /// Reads a string literal as Rust's `{:?}` writes it.
    fn string(&mut self) -> PResult<String> {
        self.skip_inline_ws();
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return Err(self.expected("a string"));
        }
        self.pos += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.text[self.pos..].chars().next() else {
                return Err(self.error_at(start, "unterminated string"));
            };
            let escape_pos = self.pos;
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => out.push(self.escape(escape_pos)?),
                _ => out.push(c),
            }
        }
    }

    /// Decodes the escape after a backslash (the cursor is past the backslash).
    fn escape(&mut self, escape_pos: usize) -> PResult<char> {
        let Some(c) = self.peek() else {
            return Err(self.error_at(escape_pos, "unterminated string"));
        };
        self.pos += 1;
        let decoded = match c {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'0' => '\0',
            b'\\' => '\\',
            b'"' => '"',
            b'\'' => '\'',
            b'u' => {
                self.expect("{")?;
                let start = self.pos;
                while self.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
                    self.pos += 1;
                }
                let hex = &self.text[start..self.pos];
                self.expect("}")?;
                let code = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
                return code
                    .ok_or_else(|| self.error_at(escape_pos, format!("invalid escape `\\u{{{hex}}}`")));
            }
            _ => return Err(self.error_at(escape_pos, "unknown escape in string")),
        };
        Ok(decoded)
    }

    // ---- types and attributes -----------------------------------------------------------------

    fn dtype(&mut self) -> PResult<DType> {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric()) {
            self.pos += 1;
        }
        let name = &self.text[start..self.pos];
        if name.is_empty() {
            self.pos = start;
            return Err(self.expected("a type"));
        }
        DType::from_ir_name(name).ok_or_else(|| self.error_at(start, format!("unknown type `{name}`")))
    }

    /// `!tt.ptr<T>` or a scalar dtype.
    fn elem(&mut self) -> PResult<Elem> {
        if self.starts_with("!tt.ptr<") {
            self.pos += "!tt.ptr<".len();
            let pointee = self.dtype()?;
            self.expect(">")?;
            Ok(Elem::Ptr(pointee))
        } else {
            Ok(Elem::Scalar(self.dtype()?))
        }
    }

    /// A layout: an alias (`#blocked0`) or an inline `#ttg.blocked<...>` / `#ttg.slice<...>`.
    fn encoding(&mut self) -> PResult<Encoding> {
        self.skip_inline_ws();
        let start = self.pos;
        if self.starts_with("#ttg.") {
            let (e, used) = parse_encoding(&self.text[self.pos..]).map_err(|m| self.error_at(start, m))?;
            self.pos += used;
            return Ok(e);
        }
        if self.peek() != Some(b'#') {
            return Err(self.expected("a layout"));
        }
        self.pos += 1;
        while self.peek().is_some_and(is_value_char) {
            self.pos += 1;
        }
        let name = &self.text[start..self.pos];
        self.aliases
            .get(name)
            .cloned()
            .ok_or_else(|| self.error_at(start, format!("unknown layout alias `{name}`")))
    }

    /// The part of `tensor<...>` after the `<`: dimensions, each followed by `x`, then the element.
    fn tensor_body(&mut self) -> PResult<(Vec<u32>, Elem)> {
        let mut shape = Vec::new();
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            let start = self.pos;
            let dim = self.digits("a dimension")?;
            let dim = u32::try_from(dim).map_err(|_| self.error_at(start, "dimension is out of range"))?;
            shape.push(dim);
            if self.peek() != Some(b'x') {
                return Err(self.expected("`x` after a dimension"));
            }
            self.pos += 1;
        }
        let elem = self.elem()?;
        if self.peek() != Some(b'>') {
            return Err(self.expected("`>` closing the tensor type"));
        }
        self.pos += 1;
        Ok((shape, elem))
    }

    /// `tensor<...>`'s body with an optional `, layout` before the closing `>`.
    #[allow(clippy::type_complexity)]
    fn tensor_body_with_layout(&mut self) -> PResult<(Vec<u32>, (Elem, Option<Encoding>))> {
        let mut shape = Vec::new();
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            let start = self.pos;
            let dim = self.digits("a dimension")?;
            let dim = u32::try_from(dim).map_err(|_| self.error_at(start, "dimension is out of range"))?;
            shape.push(dim);
            if self.peek() != Some(b'x') {
                return Err(self.expected("`x` after a dimension"));
            }
            self.pos += 1;
        }
        let elem = self.elem()?;
        let encoding = if self.peek() == Some(b',') {
            self.pos += 1;
            Some(self.encoding()?)
        } else {
            None
        };
        self.skip_inline_ws();
        if self.peek() != Some(b'>') {
            return Err(self.expected("`>` closing the tensor type"));
        }
        self.pos += 1;
        Ok((shape, (elem, encoding)))
    }

    fn ty(&mut self) -> PResult<Type> {
        self.skip_inline_ws();
        if self.starts_with("!tt.tensordesc<tensor<") {
            self.pos += "!tt.tensordesc<tensor<".len();
            let elem_pos = self.pos;
            let (block, elem) = self.tensor_body()?;
            let Elem::Scalar(dtype) = elem else {
                return Err(self.error_at(elem_pos, "a tensor descriptor cannot hold pointers"));
            };
            if self.peek() != Some(b'>') {
                return Err(self.expected("`>` closing the descriptor type"));
            }
            self.pos += 1;
            Ok(Type::Desc { dtype, block })
        } else if self.starts_with("tensor<") {
            self.pos += "tensor<".len();
            let (shape, elem) = self.tensor_body_with_layout()?;
            // Built directly rather than through `Type::tensor`, so that even a rank-0 tensor
            // (which the verifier rejects) prints back as it was written.
            Ok(Type::Tensor { elem: elem.0, shape, encoding: elem.1 })
        } else {
            Ok(Type::Scalar(self.elem()?))
        }
    }

    /// A comma-separated list of types on the current line.
    fn type_list(&mut self) -> PResult<Vec<Type>> {
        let mut types = vec![self.ty()?];
        while self.eat(",") {
            types.push(self.ty()?);
        }
        Ok(types)
    }

    /// `{key = value, ...}`.
    fn attrs(&mut self) -> PResult<Attrs> {
        self.expect("{")?;
        let mut attrs = Attrs::new();
        if self.eat("}") {
            return Ok(attrs);
        }
        loop {
            let key_pos = self.pos;
            let key = self.word("an attribute name")?;
            if attrs.get(key).is_some() {
                return Err(self.error_at(key_pos, format!("attribute `{key}` is given twice")));
            }
            self.expect("=")?;
            let value = self.attr_value()?;
            attrs.set(key, value);
            if self.eat("}") {
                return Ok(attrs);
            }
            if !self.eat(",") {
                return Err(self.expected("`,` or `}` in the attribute list"));
            }
        }
    }

    fn attr_value(&mut self) -> PResult<Attr> {
        self.skip_inline_ws();
        match self.peek() {
            Some(b'"') => Ok(Attr::Str(self.string()?)),
            Some(b'[') => {
                self.pos += 1;
                let mut ints = Vec::new();
                if self.eat("]") {
                    return Ok(Attr::Ints(ints));
                }
                loop {
                    match self.number()? {
                        Attr::Int(v) => ints.push(v),
                        _ => return Err(self.error("integer lists hold only integers")),
                    }
                    if self.eat("]") {
                        return Ok(Attr::Ints(ints));
                    }
                    if !self.eat(",") {
                        return Err(self.expected("`,` or `]` in the integer list"));
                    }
                }
            }
            _ if self.eat_keyword("true") => Ok(Attr::Bool(true)),
            _ if self.eat_keyword("false") => Ok(Attr::Bool(false)),
            _ => self.number(),
        }
    }

    /// An integer (`-3`) or a float as `attrs::fmt_float` writes it (`2.5`, `1e-8`, `-0.0`,
    /// `inf`, `-inf`, `nan`).
    fn number(&mut self) -> PResult<Attr> {
        self.skip_inline_ws();
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        if self.eat_keyword("inf") {
            return Ok(Attr::Float(if negative { f64::NEG_INFINITY } else { f64::INFINITY }));
        }
        if !negative && self.eat_keyword("nan") {
            return Ok(Attr::Float(f64::NAN));
        }
        let mut is_float = false;
        self.skip_digits("a number")?;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.skip_digits("digits after the decimal point")?;
            is_float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.skip_digits("an exponent")?;
            is_float = true;
        }
        let literal = &self.text[start..self.pos];
        if is_float {
            let value = literal.parse::<f64>().map_err(|_| self.error_at(start, "invalid float"))?;
            Ok(Attr::Float(value))
        } else {
            let value = literal
                .parse::<i64>()
                .map_err(|_| self.error_at(start, format!("integer `{literal}` does not fit in i64")))?;
            Ok(Attr::Int(value))
        }
    }

    /// Skips `loc("file":line:col)`; the parsed module has no source file to point into.
    fn location(&mut self) -> PResult<()> {
        self.expect("(")?;
        self.string()?;
        self.expect(":")?;
        self.digits("a line number")?;
        self.expect(":")?;
        self.digits("a column number")?;
        self.expect(")")
    }

    // ---- module and functions -----------------------------------------------------------------

    fn module(&mut self) -> PResult<Module> {
        let mut module = Module::default();
        self.skip_ws();
        if self.eat_keyword("module") {
            if !self.eat_keyword("attributes") {
                return Err(self.expected("`attributes` after `module`"));
            }
            module.attrs = self.attrs()?;
        }
        // Layout aliases: `#name = #ttg.blocked<...>`, one per line.
        loop {
            self.skip_ws();
            if self.peek() != Some(b'#') {
                break;
            }
            let start = self.pos;
            self.pos += 1;
            while self.peek().is_some_and(is_value_char) {
                self.pos += 1;
            }
            let name = self.text[start..self.pos].to_string();
            self.expect("=")?;
            let e = self.encoding()?;
            if self.aliases.insert(name.clone(), e).is_some() {
                return Err(self.error_at(start, format!("layout alias `{name}` is defined twice")));
            }
        }
        loop {
            self.skip_ws();
            if self.peek().is_none() {
                return Ok(module);
            }
            let start = self.pos;
            if !self.eat_keyword("tt.func") {
                return Err(self.expected("`tt.func`"));
            }
            let function = self.function()?;
            if module.function(&function.name).is_some() {
                return Err(self.error_at(start, format!("function @{} is defined twice", function.name)));
            }
            module.functions.push(function);
        }
    }

    fn function(&mut self) -> PResult<Function> {
        let kind = if self.eat_keyword("public") {
            FuncKind::Kernel
        } else if self.eat_keyword("private") {
            FuncKind::Helper
        } else {
            return Err(self.expected("`public` or `private`"));
        };
        self.expect("@")?;
        let name_start = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        if name_start == self.pos {
            return Err(self.expected("a function name"));
        }
        let name = self.text[name_start..self.pos].to_string();

        // Parameters: `%name: type {attrs}`.
        self.expect("(")?;
        let mut params: Vec<(NameRef, Type, Attrs)> = Vec::new();
        if !self.eat(")") {
            loop {
                let param = self.value_name()?;
                self.expect(":")?;
                let ty = self.ty()?;
                self.skip_inline_ws();
                let attrs = if self.peek() == Some(b'{') { self.attrs()? } else { Attrs::new() };
                params.push((param, ty, attrs));
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.expected("`,` or `)` in the parameter list"));
                }
            }
        }
        let mut result_types = Vec::new();
        if self.eat("->") {
            self.expect("(")?;
            if !self.eat(")") {
                result_types = self.type_list()?;
                self.expect(")")?;
            }
        }
        self.expect("{")?;

        let param_types: Vec<Type> = params.iter().map(|(_, ty, _)| ty.clone()).collect();
        let mut function = Function::new(&name, kind, &param_types, &result_types);
        let mut scope = Scope::new();
        let entry_args = function.params().to_vec();
        for (i, ((param, _, attrs), value)) in params.into_iter().zip(entry_args).enumerate() {
            define(self, &mut scope, &param, value)?;
            function.arg_names[i] = param.name;
            function.arg_attrs[i] = attrs;
        }
        let entry = function.entry;
        self.ops(&mut function.body, entry, &mut scope)?;
        self.skip_ws();
        self.expect("}")?;
        Ok(function)
    }

    // ---- ops and regions ------------------------------------------------------------------------

    /// Parses ops into `block` up to (not including) the closing `}`.
    fn ops(&mut self, body: &mut Body, block: Block, scope: &mut Scope) -> PResult<()> {
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b'}') => return Ok(()),
                None => return Err(self.expected("`}`")),
                _ => self.op(body, block, scope)?,
            }
        }
    }

    fn op(&mut self, body: &mut Body, block: Block, scope: &mut Scope) -> PResult<()> {
        // Result names; they are defined only after the regions, which cannot see them.
        let mut result_names = Vec::new();
        if self.peek() == Some(b'%') {
            loop {
                result_names.push(self.value_name()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("=")?;
        }

        self.skip_inline_ws();
        let name_pos = self.pos;
        let name = self.word("an op name")?;
        let opcode =
            Opcode::from_name(name).ok_or_else(|| self.error_at(name_pos, format!("unknown op `{name}`")))?;
        let info = opcode.info();

        let mut operands = Vec::new();
        self.skip_inline_ws();
        if self.peek() == Some(b'%') {
            loop {
                let operand = self.value_name()?;
                let value = scope.values.get(&operand.name).copied().ok_or_else(|| {
                    self.error_at(operand.pos, format!("use of undefined value %{}", operand.name))
                })?;
                operands.push(value);
                if !self.eat(",") {
                    break;
                }
            }
        }

        self.skip_inline_ws();
        let attrs = if self.peek() == Some(b'{') && (info.regions == 0 || self.attrs_ahead()) {
            self.attrs()?
        } else {
            Attrs::new()
        };

        let mut result_types = Vec::new();
        if self.eat(":") {
            result_types = self.type_list()?;
        }
        if result_types.len() != result_names.len() {
            return Err(self.error_at(
                name_pos,
                format!(
                    "`{name}` names {} results but gives {} result types",
                    result_names.len(),
                    result_types.len()
                ),
            ));
        }

        let regions = self.regions(body, scope, opcode)?;

        if self.eat_keyword("loc") {
            self.location()?;
        }
        self.skip_inline_ws();
        if !self.at_line_end() {
            return Err(self.expected("the end of the line after the op"));
        }

        // Arity against the op table.
        let counts = [
            ("operands", info.operands, operands.len()),
            ("results", info.results, result_types.len()),
            ("regions", Arity::Exactly(info.regions), regions.len()),
        ];
        for (what, arity, count) in counts {
            if !arity.accepts(count) {
                let message = format!("`{name}` takes {} {what}, found {count}", describe_arity(arity));
                return Err(self.error_at(name_pos, message));
            }
        }

        let op = body.create_op(opcode, operands, &result_types, attrs, regions, Span::NONE);
        body.append_op(block, op);
        let results = body.op(op).results.clone();
        for (result_name, value) in result_names.iter().zip(results) {
            define(self, scope, result_name, value)?;
        }
        Ok(())
    }

    /// At a `{` after the operands: whether it opens an attribute dictionary (`{key = ...`)
    /// rather than a region (`{` then a newline, a block label, an op or `}`).
    fn attrs_ahead(&mut self) -> bool {
        let saved = self.pos;
        self.pos += 1;
        self.skip_ws();
        let is_attrs = self.word("").is_ok() && self.eat("=");
        self.pos = saved;
        is_attrs
    }

    /// The regions of one op: `{...}`, then `else {...}` / `do {...}` for the second.
    fn regions(&mut self, body: &mut Body, scope: &mut Scope, opcode: Opcode) -> PResult<Vec<Block>> {
        let mut regions = Vec::new();
        loop {
            self.skip_inline_ws();
            if !regions.is_empty() {
                let keyword_pos = self.pos;
                let keyword = ["else", "do", "producer"].into_iter().find(|k| self.eat_keyword(k));
                let wanted = opcode.second_region_keyword();
                match keyword {
                    Some(k) if k != wanted || regions.len() != 1 => {
                        return Err(self.error_at(keyword_pos, format!("unexpected `{k}` after a region")));
                    }
                    None if regions.len() == 1 && self.peek() == Some(b'{') => {
                        return Err(self.expected(&format!("`{wanted}` between the two regions")));
                    }
                    Some(_) => {
                        self.skip_inline_ws();
                        if self.peek() != Some(b'{') {
                            return Err(self.expected("`{` opening the second region"));
                        }
                    }
                    None => {}
                }
            }
            if self.peek() != Some(b'{') {
                return Ok(regions);
            }
            regions.push(self.region(body, scope)?);
        }
    }

    fn region(&mut self, body: &mut Body, scope: &mut Scope) -> PResult<Block> {
        let open = self.pos;
        self.expect("{")?;
        if self.depth >= MAX_REGION_DEPTH {
            return Err(self.error_at(open, format!("regions nested deeper than {MAX_REGION_DEPTH}")));
        }
        self.depth += 1;
        scope.push();
        let block = body.new_block(&[]);
        self.skip_ws();
        if self.peek() == Some(b'^') {
            self.pos += 1;
            self.word("a block label")?;
            self.expect("(")?;
            if !self.eat(")") {
                loop {
                    let arg = self.value_name()?;
                    self.expect(":")?;
                    let ty = self.ty()?;
                    let value = body.add_block_arg(block, ty);
                    define(self, scope, &arg, value)?;
                    if self.eat(")") {
                        break;
                    }
                    if !self.eat(",") {
                        return Err(self.expected("`,` or `)` in the block arguments"));
                    }
                }
            }
            self.expect(":")?;
        }
        self.ops(body, block, scope)?;
        self.expect("}")?;
        scope.pop();
        self.depth -= 1;
        Ok(block)
    }
}

/// Binds a value name in the innermost scope; a name still visible cannot be defined again.
fn define(parser: &Parser, scope: &mut Scope, name: &NameRef, value: Value) -> PResult<()> {
    if scope.values.contains_key(&name.name) {
        return Err(parser.error_at(name.pos, format!("value %{} is defined twice", name.name)));
    }
    scope.values.insert(name.name.clone(), value);
    if let Some(frame) = scope.frames.last_mut() {
        frame.push(name.name.clone());
    }
    Ok(())
}
