//! The IR: storage (arenas and handles), types, the op table, attributes, spans, the builder,
//! the text printer and parser, and the verifier.

pub mod arena;
pub mod attrs;
pub mod body;
pub mod builder;
pub mod clone;
pub mod opcode;
pub mod parser;
pub mod printer;
pub mod span;
pub mod types;
pub mod verifier;

pub use arena::{Arena, Handle, SecondaryMap};
pub use attrs::{Attr, Attrs};
pub use body::{Block, BlockData, Body, FuncKind, Function, Module, Op, OpData, Value, ValueData, ValueDef};
pub use builder::Builder;
pub use opcode::{Arity, Effect, OpInfo, Opcode};
pub use printer::{print_module, print_module_with, PrintOptions};
pub use span::{SourceFile, Span};
pub use types::{DType, Elem, Type};
