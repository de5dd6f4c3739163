//! trident-midend: the IR shared by every stage after the frontend, and the passes over it.
//!
//! One IR serves two levels, as in Triton: TTIR (tensors without layouts, produced by the
//! frontend) and, later, TTGIR (the same ops plus layouts and GPU ops). The data model:
//!
//! - A [`ir::Module`] holds functions; a [`ir::Function`] owns a [`ir::Body`] of three arenas
//!   (ops, values, blocks) addressed by typed handles, plus a side table of source spans.
//! - Program order lives in blocks (lists of op handles); every region is one block, so control
//!   flow is structured (`scf.for`, `scf.if`, `scf.while`) exactly like Triton's TTIR.
//! - Every opcode is defined once, in `ir/opcode.rs`; printer, parser, verifier and the generic
//!   passes read that table.
//! - The text form round-trips (print, parse, print gives the same text); pass tests are text in,
//!   text out.
//!
//! What the midend does not know: Python (the frontend's business), and any target syntax. Target
//! facts will come in as a `Target` value when the TTGIR passes arrive.

pub mod analysis;
pub mod ir;
pub mod layout;
pub mod passes;
pub mod pipeline;
pub mod target;
