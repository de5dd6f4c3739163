//! TTIR -> TTGIR: give every tensor a layout (Triton's `convert-triton-to-tritongpu`).
//!
//! Every tensor value gets Triton's default blocked encoding for its shape (size one element per
//! thread, lanes then warps filled from the fastest dim, for the target's warp size and
//! `num_warps`), with the exceptions the op semantics impose:
//! - a reduction's results take `#slice<axis, operand layout>`;
//! - `tt.expand_dims` needs its operand in `#slice<axis, result layout>`;
//! - `tt.broadcast` keeps one layout for operand and result (the result's parameters);
//! - a scan's results keep the operand layout.
//!
//! Where an operand does not have the layout its op needs, a `ttg.convert_layout` is inserted
//! right before the op. Loop-carried values and `scf.if` results use the default layouts, and
//! region terminators convert what they yield to them. Later passes (remove-layout-conversions,
//! coalesce) improve on these choices; this pass only makes them explicit and consistent.
//!
//! Expects: a verified TTIR module whose helpers are inlined. Guarantees: every tensor type has
//! an encoding, every elementwise op sees one encoding on all operands and results, and the
//! module attributes `ttg.num-warps` / `ttg.threads-per-warp` record the target.

use crate::ir::{Attr, Block, Body, Builder, Module, Op, Opcode, Type, Value};
use crate::layout::{Blocked, Encoding};
use crate::target::Target;

/// Converts every function of `module` to TTGIR for `target`.
pub fn run(module: &mut Module, target: &Target) {
    module.attrs.set("ttg.num-warps", Attr::Int(target.num_warps as i64));
    module.attrs.set("ttg.threads-per-warp", Attr::Int(target.threads_per_warp as i64));
    for function in &mut module.functions {
        let entry = function.entry;
        let mut pass = Converter { body: &mut function.body, target };
        pass.block(entry);
    }
}

struct Converter<'a> {
    body: &'a mut Body,
    target: &'a Target,
}

impl Converter<'_> {
    fn default_encoding(&self, shape: &[u32]) -> Encoding {
        Encoding::Blocked(Blocked::default_for_shape(
            shape,
            None,
            self.target.threads_per_warp,
            self.target.num_warps,
        ))
    }

    /// The type of a tensor value with the default layout of its shape (unchanged for scalars).
    fn with_default(&self, ty: &Type) -> Type {
        if ty.is_tensor() {
            ty.with_encoding(Some(self.default_encoding(ty.shape())))
        } else {
            ty.clone()
        }
    }

    fn block(&mut self, block: Block) {
        let mut index = 0;
        while index < self.body.blocks[block].ops.len() {
            let op = self.body.blocks[block].ops[index];
            let inserted = self.op(block, index, op);
            index += inserted + 1;
        }
    }

    /// Makes operand `i` of `op` (at `index` in `block`) have type `want`, inserting a
    /// conversion before the op; returns how many ops were inserted (0 or 1).
    fn require(&mut self, block: Block, index: usize, op: Op, i: usize, want: &Type) -> usize {
        let v = self.body.op(op).operands[i];
        if self.body.ty(v) == want || !want.is_tensor() {
            return 0;
        }
        let span = self.body.span(op);
        let mut b = Builder::at(self.body, block, index);
        b.span = span;
        let converted = b.value(Opcode::ConvertLayout, vec![v], want.clone(), Default::default());
        self.body.ops[op].operands[i] = converted;
        1
    }

    fn set_result(&mut self, v: Value, ty: Type) {
        self.body.values[v].ty = ty;
    }

    /// Assigns layouts to `op`'s results (and operands); returns how many conversions were
    /// inserted before it.
    fn op(&mut self, block: Block, index: usize, op: Op) -> usize {
        let opcode = self.body.opcode(op);
        let operands = self.body.op(op).operands.clone();
        let results = self.body.op(op).results.clone();
        let mut inserted = 0;
        match opcode {
            Opcode::ConvertLayout => {}
            Opcode::Reduce => {
                let axis = self.body.op(op).attrs.int("axis").unwrap_or(0) as u32;
                for (i, &v) in operands.iter().enumerate() {
                    let want = self.with_default(self.body.ty(v));
                    inserted += self.require(block, index + inserted, op, i, &want);
                }
                let operands = self.body.op(op).operands.clone();
                for (&r, &v) in results.iter().zip(&operands) {
                    let parent = self.body.ty(v).encoding().cloned();
                    let ty = self.body.ty(r).clone();
                    if let (true, Some(parent)) = (ty.is_tensor(), parent) {
                        self.set_result(
                            r,
                            ty.with_encoding(Some(Encoding::Slice { dim: axis, parent: Box::new(parent) })),
                        );
                    }
                }
                let region = self.body.op(op).regions[0];
                self.block(region);
            }
            Opcode::Scan => {
                for (i, &v) in operands.iter().enumerate() {
                    let want = self.with_default(self.body.ty(v));
                    inserted += self.require(block, index + inserted, op, i, &want);
                }
                let operands = self.body.op(op).operands.clone();
                for (&r, &v) in results.iter().zip(&operands) {
                    let ty = self.body.ty(v).clone();
                    self.set_result(r, ty);
                }
                let region = self.body.op(op).regions[0];
                self.block(region);
            }
            Opcode::ExpandDims => {
                let axis = self.body.op(op).attrs.int("axis").unwrap_or(0) as u32;
                let result_ty = self.with_default(self.body.ty(results[0]));
                let parent = result_ty.encoding().cloned().expect("a tensor result");
                let want = self
                    .body
                    .ty(operands[0])
                    .with_encoding(Some(Encoding::Slice { dim: axis, parent: Box::new(parent) }));
                inserted += self.require(block, index, op, 0, &want);
                self.set_result(results[0], result_ty);
            }
            Opcode::Broadcast => {
                let result_ty = self.with_default(self.body.ty(results[0]));
                let want = self.body.ty(operands[0]).with_encoding(result_ty.encoding().cloned());
                inserted += self.require(block, index, op, 0, &want);
                self.set_result(results[0], result_ty);
            }
            Opcode::For => {
                // Operands: lb, ub, step, inits...; body args: iv, iter args...
                for (i, &v) in operands.iter().enumerate().skip(3) {
                    let want = self.with_default(self.body.ty(v));
                    inserted += self.require(block, index + inserted, op, i, &want);
                }
                let region = self.body.op(op).regions[0];
                let args = self.body.blocks[region].args.clone();
                for (k, &r) in results.iter().enumerate() {
                    let ty = self.with_default(self.body.ty(r));
                    self.set_result(r, ty.clone());
                    self.set_result(args[k + 1], ty);
                }
                self.region_with_yield(region, &results, Opcode::Yield, 0);
            }
            Opcode::If => {
                for &r in &results {
                    let ty = self.with_default(self.body.ty(r));
                    self.set_result(r, ty);
                }
                for region in self.body.op(op).regions.clone() {
                    self.region_with_yield(region, &results, Opcode::Yield, 0);
                }
            }
            Opcode::While => {
                for (i, &v) in operands.iter().enumerate() {
                    let want = self.with_default(self.body.ty(v));
                    inserted += self.require(block, index + inserted, op, i, &want);
                }
                let regions = self.body.op(op).regions.clone();
                for &r in &results {
                    let ty = self.with_default(self.body.ty(r));
                    self.set_result(r, ty);
                }
                for &region in &regions {
                    let args = self.body.blocks[region].args.clone();
                    for &a in &args {
                        let ty = self.with_default(self.body.ty(a));
                        self.set_result(a, ty);
                    }
                }
                // The before region ends in scf.condition(cond, values...); the after region yields.
                self.region_with_yield(regions[0], &results, Opcode::Condition, 1);
                self.region_with_yield(regions[1], &results, Opcode::Yield, 0);
            }
            _ => {
                for (i, &v) in operands.iter().enumerate() {
                    let want = self.with_default(self.body.ty(v));
                    inserted += self.require(block, index + inserted, op, i, &want);
                }
                for &r in &results {
                    let ty = self.with_default(self.body.ty(r));
                    self.set_result(r, ty);
                }
                for region in self.body.op(op).regions.clone() {
                    self.block(region);
                }
            }
        }
        inserted
    }

    /// Converts a region, then makes its terminator (`Yield` or `Condition`, whose first
    /// `skip` operands are not carried values) yield values of the types of `results`.
    fn region_with_yield(&mut self, region: Block, results: &[Value], terminator: Opcode, skip: usize) {
        self.block(region);
        let Some(&last) = self.body.blocks[region].ops.last() else { return };
        if self.body.opcode(last) != terminator {
            return;
        }
        let index = self.body.blocks[region].ops.len() - 1;
        let mut inserted = 0;
        for (k, &r) in results.iter().enumerate() {
            let want = self.body.ty(r).clone();
            inserted += self.require(region, index + inserted, last, k + skip, &want);
        }
    }
}
