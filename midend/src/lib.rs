//! trident-midend: the IR shared by every stage after the frontend, and the passes over it.
//!
//! One IR serves two levels, as in Triton: TTIR (tensors without layouts, produced by the
//! frontend) and TTGIR (the same ops, every tensor type carrying a layout, plus GPU ops:
//! `convert_layout`, shared-memory allocations and copies, async copies and barriers, warpgroup
//! dots, TMA copies, warp-specialized partitions). The data model:
//!
//! - A [`ir::Module`] holds functions; a [`ir::Function`] owns a [`ir::Body`] of three arenas
//!   (ops, values, blocks) addressed by typed handles, plus a side table of source spans.
//! - Program order lives in blocks (lists of op handles); every region is one block, so control
//!   flow is structured (`scf.for`, `scf.if`, `scf.while`) exactly like Triton's TTIR.
//! - Every opcode is defined once, in `ir/opcode.rs`; printer, parser, verifier and the generic
//!   passes read that table.
//! - The text form round-trips (print, parse, print gives the same text); pass tests are text in,
//!   text out.
//! - Layouts ([`layout`]) are linear layouts over GF(2), as in Triton 3.x: blocked, slice, MMA
//!   (mma.sync and wgmma), dot-operand and swizzled shared layouts are constructors of one type,
//!   and `layout/registers.rs` says which elements each thread holds, for both backends.
//! - Analyses ([`analysis`]: axis info, loop hints not applied, trip counts) return side tables;
//!   they never write into the IR.
//! - [`codegen`] is the lowering of TTGIR ops both backends share: the dispatch from opcode to
//!   rule, shape ops, reductions and scans, and what every family reads off its ops, written on
//!   a trait of instruction-level primitives ([`codegen::Isa`]) that each backend implements.
//! - [`pipeline`] runs the passes ([`passes`], one per file) in Triton's order: `run_ttir` on the
//!   frontend's TTIR, then `run_ttgir` lowers it to TTGIR for a [`target::Target`] and improves
//!   the layouts (coalescing, MMA, pipelining); the verifier runs after every pass in debug builds
//!   and tests, and a failure is an internal compiler error with the pass name and the IR.
//!
//! What the midend does not know: Python (the frontend's business), and any target syntax: no
//! PTX, no SPIR-V. What it knows of a machine comes in a [`target::Target`] value (threads per
//! warp, warps, compute capability, shared memory, pipelining stages), which the backends and
//! the runtime fill from the device.

pub mod analysis;
pub mod codegen;
pub mod ir;
pub mod layout;
pub mod passes;
pub mod pipeline;
pub mod target;
