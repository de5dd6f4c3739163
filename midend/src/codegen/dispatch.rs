//! The one table from opcode to lowering rule, for every backend.
//!
//! Shape ops, reductions and scans, and the terminators their parents read are lowered here, on
//! the target's primitives; every other family goes to the target's trait for it (elementwise ops
//! by their [`Kind`]). The rest, ops that only some targets lower or that each lowers its own
//! way (program ids, barriers, the kernel's return, debug ops, tensor descriptors, Hopper's
//! asynchronous copies, barriers and warpgroup dots), go to [`LowerOps::target_op`], which
//! refuses what the target has no rule for.

use super::control::{self, LowerControl};
use super::dot::LowerDot;
use super::elementwise::{self, Kind, LowerElementwise};
use super::error::Result;
use super::memory::{self, LowerMemory};
use super::reduce::{self, LowerReduce};
use super::sort::LowerSort;
use super::{scan, shape_ops, sort};
use crate::ir::{Op, Opcode};

/// Every rule a backend supplies.
pub trait LowerOps<'a>:
    LowerElementwise<'a> + LowerMemory<'a> + LowerControl<'a> + LowerReduce<'a> + LowerDot<'a> + LowerSort<'a>
{
    /// An op of the target's own: `tt.get_program_id`, `tt.get_num_programs`, `gpu.barrier`,
    /// `tt.return`, `tt.assert`, `tt.print`, tensor descriptors and the Hopper ops.
    fn target_op(e: &mut Self, op: Op) -> Result<()>;
}

/// Lowers one op by its rule.
pub fn lower<'a, B: LowerOps<'a>>(e: &mut B, op: Op) -> Result<()> {
    use Opcode::*;
    match e.func.body.opcode(op) {
        Constant => shape_ops::constant(e, op),
        MakeRange => shape_ops::make_range(e, op),
        Splat => shape_ops::splat(e, op),
        ConvertLayout | Broadcast | ExpandDims | Trans => shape_ops::move_elements(e, op),
        Reshape => shape_ops::reshape(e, op),
        Join => shape_ops::join(e, op),
        Split => shape_ops::split(e, op),
        Cat => shape_ops::cat(e, op),
        Gather => shape_ops::gather(e, op),
        Reduce => reduce::lower(e, op),
        Scan => scan::lower(e, op),
        // Read by the op that owns their region.
        Yield | Condition | ReduceReturn | ScanReturn => Ok(()),
        For | If | While => control::lower(e, op),
        Load | Store | AtomicRmw | AtomicCas | AddPtr => memory::lower(e, op),
        Dot => B::dot(e, op),
        Histogram | Sort | TopK => sort::lower(e, op),
        Call => e.invalid("tt.call must be inlined before the backend"),
        opcode if Kind::of(opcode).is_some() => elementwise::lower(e, op),
        _ => B::target_op(e, op),
    }
}
