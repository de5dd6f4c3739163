//! Modules, functions and function bodies: the containers of the IR.
//!
//! A [`Body`] owns three arenas (ops, values, blocks) plus the span side table. Program order is
//! kept apart from storage: a block holds the list of its ops, and an op holds its regions as
//! blocks (every region of this IR is a single block, as in Triton's structured control flow).
//! Values are defined either as results of an op or as arguments of a block. An op that is not
//! in any block's list is dead storage; nothing is ever freed.

use super::arena::{Arena, Handle, SecondaryMap};
use super::attrs::Attrs;
use super::opcode::Opcode;
use super::span::{SourceFile, Span};
use super::types::Type;

pub type Op = Handle<OpData>;
pub type Value = Handle<ValueData>;
pub type Block = Handle<BlockData>;

/// One operation.
#[derive(Clone, Debug)]
pub struct OpData {
    pub opcode: Opcode,
    pub operands: Vec<Value>,
    pub results: Vec<Value>,
    pub attrs: Attrs,
    /// One block per region, in the order the opcode defines (then/else, before/after).
    pub regions: Vec<Block>,
    /// The block whose op list holds this op (`None` while detached).
    pub parent: Option<Block>,
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    Result(Op, u32),
    Arg(Block, u32),
}

/// One SSA value.
#[derive(Clone, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// A basic block: arguments and an ordered list of ops.
#[derive(Clone, Debug, Default)]
pub struct BlockData {
    pub args: Vec<Value>,
    pub ops: Vec<Op>,
    /// The op whose region this block is (`None` for a function's entry block).
    pub parent_op: Option<Op>,
}

/// The storage of one function.
#[derive(Clone, Debug, Default)]
pub struct Body {
    pub ops: Arena<OpData>,
    pub values: Arena<ValueData>,
    pub blocks: Arena<BlockData>,
    pub spans: SecondaryMap<OpData, Span>,
}

/// Arena lengths at one moment; see [`Body::checkpoint`].
#[derive(Clone, Copy, Debug)]
pub struct Checkpoint {
    ops: usize,
    values: usize,
    blocks: usize,
    block: Block,
    block_len: usize,
}

impl Body {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn new_block(&mut self, arg_types: &[Type]) -> Block {
        let block = self.blocks.append(BlockData::default());
        for (i, ty) in arg_types.iter().enumerate() {
            let v = self.values.append(ValueData { ty: ty.clone(), def: ValueDef::Arg(block, i as u32) });
            self.blocks[block].args.push(v);
        }
        block
    }

    /// Adds one more argument to a block.
    pub fn add_block_arg(&mut self, block: Block, ty: Type) -> Value {
        let i = self.blocks[block].args.len() as u32;
        let v = self.values.append(ValueData { ty, def: ValueDef::Arg(block, i) });
        self.blocks[block].args.push(v);
        v
    }

    /// Gives `scf.for` op `lp` one more carried value starting at `init`: the new body argument
    /// and the new result (the caller appends the next value to the body's `scf.yield`).
    pub fn add_iter_arg(&mut self, lp: Op, init: Value, ty: Type) -> (Value, Value) {
        let region = self.ops[lp].regions[0];
        self.ops[lp].operands.push(init);
        let arg = self.add_block_arg(region, ty.clone());
        let index = self.ops[lp].results.len() as u32;
        let result = self.values.append(ValueData { ty, def: ValueDef::Result(lp, index) });
        self.ops[lp].results.push(result);
        (arg, result)
    }

    /// Creates a detached op with fresh result values.
    pub fn create_op(
        &mut self,
        opcode: Opcode,
        operands: Vec<Value>,
        result_types: &[Type],
        attrs: Attrs,
        regions: Vec<Block>,
        span: Span,
    ) -> Op {
        let op =
            self.ops.append(OpData { opcode, operands, results: Vec::new(), attrs, regions, parent: None });
        for (i, ty) in result_types.iter().enumerate() {
            let v = self.values.append(ValueData { ty: ty.clone(), def: ValueDef::Result(op, i as u32) });
            self.ops[op].results.push(v);
        }
        let regions = self.ops[op].regions.clone();
        for r in regions {
            self.blocks[r].parent_op = Some(op);
        }
        self.spans.set(op, span);
        op
    }

    /// Appends a detached op to the end of `block`.
    pub fn append_op(&mut self, block: Block, op: Op) {
        self.ops[op].parent = Some(block);
        self.blocks[block].ops.push(op);
    }

    /// Inserts a detached op at position `index` of `block`.
    pub fn insert_op(&mut self, block: Block, index: usize, op: Op) {
        self.ops[op].parent = Some(block);
        self.blocks[block].ops.insert(index, op);
    }

    /// Unlinks an op from its block (its storage stays; its results must be unused).
    pub fn detach_op(&mut self, op: Op) {
        if let Some(block) = self.ops[op].parent.take() {
            self.blocks[block].ops.retain(|&o| o != op);
        }
    }

    pub fn op(&self, op: Op) -> &OpData {
        &self.ops[op]
    }

    pub fn opcode(&self, op: Op) -> Opcode {
        self.ops[op].opcode
    }

    pub fn ty(&self, v: Value) -> &Type {
        &self.values[v].ty
    }

    pub fn span(&self, op: Op) -> Span {
        *self.spans.get(op)
    }

    /// The op of `block` that is `op` or encloses it (through nested regions); `None` when `op`
    /// is not inside `block`.
    pub fn ancestor_in(&self, block: Block, mut op: Op) -> Option<Op> {
        loop {
            let parent = self.op(op).parent?;
            if parent == block {
                return Some(op);
            }
            op = self.blocks[parent].parent_op?;
        }
    }

    /// The index of `op` in `block`, which must hold it.
    pub fn position(&self, block: Block, op: Op) -> usize {
        self.blocks[block].ops.iter().position(|&o| o == op).expect("the op is in its parent block")
    }

    /// The op defining `v`, if it is an op result.
    pub fn def_op(&self, v: Value) -> Option<Op> {
        match self.values[v].def {
            ValueDef::Result(op, _) => Some(op),
            ValueDef::Arg(..) => None,
        }
    }

    /// The single result of `op` (panics on ops with another count: an internal error).
    pub fn result(&self, op: Op) -> Value {
        let results = &self.ops[op].results;
        assert_eq!(results.len(), 1, "{} has {} results", self.ops[op].opcode.name(), results.len());
        results[0]
    }

    /// Replaces every use of each key by its value, in every op reachable from `root`.
    /// Chains (a -> b -> c) are followed.
    pub fn replace_uses(&mut self, root: Block, map: &std::collections::HashMap<Value, Value>) {
        if map.is_empty() {
            return;
        }
        let resolve = |mut v: Value| {
            let mut steps = 0;
            while let Some(&next) = map.get(&v) {
                v = next;
                steps += 1;
                assert!(steps <= map.len(), "cyclic value replacement");
            }
            v
        };
        let mut stack = vec![root];
        while let Some(block) = stack.pop() {
            for i in 0..self.blocks[block].ops.len() {
                let op = self.blocks[block].ops[i];
                for operand in self.ops[op].operands.iter_mut() {
                    *operand = resolve(*operand);
                }
                stack.extend(self.ops[op].regions.iter().copied());
            }
        }
    }

    /// The values that the ops of `block` (nested regions included) read but that are defined
    /// outside it, each once, in order of first use: what a region captures.
    pub fn captures(&self, block: Block) -> Vec<Value> {
        let inside: std::collections::HashSet<Op> = self.walk(block).into_iter().collect();
        let local = |v: Value| match self.values[v].def {
            ValueDef::Result(def, _) => inside.contains(&def),
            ValueDef::Arg(arg_block, _) => {
                arg_block == block || self.blocks[arg_block].parent_op.is_some_and(|o| inside.contains(&o))
            }
        };
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for op in self.walk(block) {
            for &v in &self.ops[op].operands {
                if !local(v) && seen.insert(v) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// `op` and every op nested in its regions (pre-order).
    pub fn walk_op(&self, op: Op) -> Vec<Op> {
        let mut out = vec![op];
        for &r in &self.ops[op].regions {
            self.walk_into(r, &mut out);
        }
        out
    }

    /// Every op in program order, nested regions included (pre-order).
    pub fn walk(&self, root: Block) -> Vec<Op> {
        let mut out = Vec::new();
        self.walk_into(root, &mut out);
        out
    }

    fn walk_into(&self, block: Block, out: &mut Vec<Op>) {
        for &op in &self.blocks[block].ops {
            out.push(op);
            for &r in &self.ops[op].regions {
                self.walk_into(r, out);
            }
        }
    }

    /// Records arena sizes and the length of `block`'s op list so that [`Body::rollback`] can
    /// drop everything created afterwards (used for speculative lowering).
    pub fn checkpoint(&self, block: Block) -> Checkpoint {
        Checkpoint {
            ops: self.ops.len(),
            values: self.values.len(),
            blocks: self.blocks.len(),
            block,
            block_len: self.blocks[block].ops.len(),
        }
    }

    /// Forgets every op, value and block created since `cp`, and truncates the checkpointed
    /// block's op list back to its length then.
    pub fn rollback(&mut self, cp: Checkpoint) {
        self.ops.truncate(cp.ops);
        self.values.truncate(cp.values);
        self.blocks.truncate(cp.blocks);
        self.spans.truncate(cp.ops);
        self.blocks[cp.block].ops.truncate(cp.block_len);
    }
}

/// Whether a function is a launchable kernel or a device helper (inlined away by the pipeline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncKind {
    Kernel,
    Helper,
}

/// One function: a kernel or a specialized helper.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub kind: FuncKind,
    pub body: Body,
    /// The entry block; its arguments are the function's parameters.
    pub entry: Block,
    pub result_types: Vec<Type>,
    /// Per-parameter attributes (`tt.divisibility = 16`, ...), as many as entry arguments.
    pub arg_attrs: Vec<Attrs>,
    /// Per-parameter source names (for readable errors and the runtime's argument binding).
    pub arg_names: Vec<String>,
}

impl Function {
    pub fn new(name: &str, kind: FuncKind, param_types: &[Type], result_types: &[Type]) -> Function {
        let mut body = Body::new();
        let entry = body.new_block(param_types);
        Function {
            name: name.to_string(),
            kind,
            body,
            entry,
            result_types: result_types.to_vec(),
            arg_attrs: vec![Attrs::new(); param_types.len()],
            arg_names: (0..param_types.len()).map(|i| format!("arg{i}")).collect(),
        }
    }

    pub fn params(&self) -> &[Value] {
        &self.body.blocks[self.entry].args
    }
}

/// A compilation unit: the kernel plus the helpers it calls.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    /// The kernel file, for diagnostics and line info (absent for modules parsed from text).
    pub source: Option<SourceFile>,
    /// Module attributes (`ttg.num-warps`, ...).
    pub attrs: Attrs,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    pub fn function_mut(&mut self, name: &str) -> Option<&mut Function> {
        self.functions.iter_mut().find(|f| f.name == name)
    }

    /// The first kernel of the module.
    pub fn kernel(&self) -> Option<&Function> {
        self.functions.iter().find(|f| f.kind == FuncKind::Kernel)
    }
}
