//! Code generation shared by the backends: the lowering of TTGIR ops that does not depend on an
//! instruction set, written once and run by both emitters.
//!
//! # The split
//!
//! A backend turns every TTGIR value into registers: one for a scalar, one per register index of
//! its linear layout for a tensor (`layout/registers.rs`). Much of what an emitter does with them
//! is the same on every target: which opcode takes which rule, which element a thread holds, the
//! order in which shape ops move elements, how a reduction groups partials, where a scan or a
//! layout change puts its elements in scratch memory, which operands a loop carries, which copy of
//! a replicated element stores it. That is this module. What stays in a backend is how its
//! instruction set spells each step: a warp shuffle or a trip through workgroup memory, labels and
//! branches or a structured loop, byte addresses or word indices.
//!
//! The seam is a set of traits, in the manner of Cranelift's `LowerBackend` and MLIR's
//! conversion patterns:
//! - [`Isa`]: the per-instruction primitives the shared rules need (prologue arithmetic for
//!   thread indices, an integer add, constants, scratch-memory writes and reads, barriers,
//!   lowering a region). The backend's emitter implements it, and dereferences to a
//!   [`Lowering`]: the target-independent state of the function being lowered (the IR, the
//!   registers of every value, layouts, the op being lowered for error spans), so rules here and
//!   in the backend reach both through one `e`.
//! - One trait per op family, implemented in the backend's file of that family (STYLE rule 15):
//!   [`LowerElementwise`] (`arith.rs`), [`LowerMemory`] (`memory.rs`), [`LowerControl`]
//!   (`control.rs`), [`LowerReduce`] (`reduce.rs`), [`LowerDot`] (`dot.rs`), [`LowerSort`]
//!   (`sort.rs`). Their rules are associated functions taking the emitter as `e`, like the free
//!   functions around them.
//! - [`LowerOps`] gathers them, plus the ops only the target has rules for (program ids,
//!   barriers, returns, debug ops, Hopper's asynchronous ops); [`lower`] is the one dispatch
//!   table from opcode to rule.
//!
//! The rules here are generic over the backend, so they compile to the same code as the
//! hand-written copies they replace, and they call the primitives in the order those copies did:
//! the PTX and SPIR-V they produce are unchanged, register numbers and ids included.
//!
//! What this module does not know: any target syntax. No PTX, no SPIR-V: it handles registers as
//! opaque values of the backend's `Reg` type, and memory as element indices the backend scales.

pub mod combine;
pub mod control;
mod dispatch;
pub mod dot;
pub mod elementwise;
mod error;
mod indexing;
mod isa;
mod lowering;
pub mod memory;
pub mod reduce;
pub mod scan;
pub mod shape_ops;
pub mod sort;

pub use control::LowerControl;
pub use dispatch::{lower, LowerOps};
pub use dot::LowerDot;
pub use elementwise::LowerElementwise;
pub use error::{Error, Result};
pub use indexing::{AffineBases, Lines};
pub use isa::Isa;
pub use lowering::Lowering;
pub use memory::LowerMemory;
pub use reduce::LowerReduce;
pub use sort::LowerSort;
