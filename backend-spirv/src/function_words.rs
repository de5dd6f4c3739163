//! The kernel's function as SPIR-V words, block by block, while the emitter writes it.
//!
//! rspirv's builder keeps each instruction as a struct with a heap-allocated operand list: about
//! 150 bytes and two allocations an instruction, kept until the module is assembled. A kernel
//! whose 2^20-element blocks unroll into millions of instructions (the fuzzer's hang findings:
//! a layer norm or an integer kernel on one warp, 7.5 million instructions) spent most of its
//! compile allocating, faulting in and freeing them, with gigabytes live. Here a block is a
//! vector of the words its instructions assemble to, 4 bytes a word and 20 bytes for a typical
//! instruction, and the function is appended to the assembled module at the end.
//!
//! The module's other sections (capabilities, types, constants, global variables, decorations)
//! stay with rspirv's builder, and so does the encoding of instructions the emitter writes
//! rarely (barriers, branches, cooperative-matrix operations): [`crate::spirv::Spv::build`] lets
//! the builder write one into a scratch block and moves its words here.
//!
//! The first block is the prologue (see [`crate::spirv`]): its function variables are kept
//! apart and placed first when the function is assembled, as SPIR-V requires, and its branch to
//! the second block is added then, so that values can be appended to it until the end.

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{FunctionControl, Op, StorageClass, Word};

/// One block: its label and the words of its instructions.
struct BlockWords {
    label: Word,
    words: Vec<u32>,
}

/// A function under construction (see the module docs).
pub struct FunctionWords {
    /// The `OpFunction` instruction.
    begin: Vec<u32>,
    /// The words of the function variables' `OpVariable`s, in the order they were declared.
    vars: Vec<u32>,
    blocks: Vec<BlockWords>,
    selected: Option<usize>,
}

/// The first word of an instruction of `count` words.
pub fn first_word(op: Op, count: usize) -> u32 {
    let count = u32::try_from(count).ok().filter(|&c| c <= 0xffff).expect("an instruction over 65,535 words");
    (count << 16) | op as u32
}

impl FunctionWords {
    /// `OpFunction` of `id` with the prologue block (labelled `prologue`) selected.
    pub fn new(id: Word, return_ty: Word, fn_ty: Word, prologue: Word) -> FunctionWords {
        let begin = vec![first_word(Op::Function, 5), return_ty, id, FunctionControl::NONE.bits(), fn_ty];
        let mut function = FunctionWords { begin, vars: Vec::new(), blocks: Vec::new(), selected: None };
        function.begin_block(prologue);
        function
    }

    /// Declares the next parameter (`OpFunctionParameter`), before any block has an instruction.
    pub fn add_parameter(&mut self, ty: Word, id: Word) {
        self.begin.extend([first_word(Op::FunctionParameter, 3), ty, id]);
    }

    /// Opens a block labelled `label` and selects it.
    pub fn begin_block(&mut self, label: Word) {
        self.blocks.push(BlockWords { label, words: Vec::new() });
        self.selected = Some(self.blocks.len() - 1);
    }

    /// The index of the selected block (the prologue is 0).
    pub fn selected_block(&self) -> Option<usize> {
        self.selected
    }

    pub fn select_block(&mut self, block: Option<usize>) {
        assert!(block.is_none_or(|b| b < self.blocks.len()), "no block {block:?}");
        self.selected = block;
    }

    fn words(&mut self) -> &mut Vec<u32> {
        let block = self.selected.expect("an instruction outside a block");
        &mut self.blocks[block].words
    }

    /// Appends `op` with id operands.
    pub fn push_ids(
        &mut self,
        op: Op,
        ty: Option<Word>,
        id: Option<Word>,
        operands: impl ExactSizeIterator<Item = Word>,
    ) {
        let words = self.words();
        let count = 1 + ty.is_some() as usize + id.is_some() as usize + operands.len();
        words.push(first_word(op, count));
        words.extend(ty);
        words.extend(id);
        words.extend(operands);
    }

    /// Appends `op` with operands of any kind (literals, scopes, enumerants).
    pub fn push_operands(&mut self, op: Op, ty: Option<Word>, id: Option<Word>, operands: &[Operand]) {
        let words = self.words();
        let start = words.len();
        words.push(op as u32);
        words.extend(ty);
        words.extend(id);
        for operand in operands {
            operand.assemble_into(words);
        }
        let count = words.len() - start;
        words[start] = first_word(op, count);
    }

    /// Appends an instruction rspirv's builder made.
    pub fn push_instruction(&mut self, instruction: &Instruction) {
        instruction.assemble_into(self.words());
    }

    /// Declares a function variable of pointer type `pointer_ty`.
    pub fn var(&mut self, pointer_ty: Word, id: Word) {
        self.vars.extend([first_word(Op::Variable, 4), pointer_ty, id, StorageClass::Function as u32]);
    }

    /// Appends the function to `out`: the prologue with the variables first (the latest declared
    /// first) and a branch to the second block, the other blocks, `OpFunctionEnd`.
    pub fn assemble_into(self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.begin);
        let body = self.blocks.get(1).map(|b| b.label);
        for (index, block) in self.blocks.iter().enumerate() {
            out.extend([first_word(Op::Label, 2), block.label]);
            if index == 0 {
                for var in self.vars.chunks_exact(4).rev() {
                    out.extend_from_slice(var);
                }
            }
            out.extend_from_slice(&block.words);
            if index == 0 {
                let body = body.expect("a function without a body after its prologue");
                out.extend([first_word(Op::Branch, 2), body]);
            }
        }
        out.push(first_word(Op::FunctionEnd, 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::binary::Disassemble;
    use rspirv::dr::Builder;

    /// The same function written by rspirv's builder and here assembles to the same words.
    #[test]
    fn assembles_as_rspirv_does() {
        // The same types, constant and ids in two builders.
        let globals = |b: &mut Builder| {
            let void = b.type_void();
            let fn_ty = b.type_function(void, []);
            let u32_ty = b.type_int(32, 0);
            let ptr_ty = b.type_pointer(None, StorageClass::Function, u32_ty);
            let one = b.constant_bit32(u32_ty, 1);
            let ids: Vec<Word> = (0..7).map(|_| b.id()).collect();
            (void, fn_ty, u32_ty, ptr_ty, one, ids)
        };
        let mut expected = Builder::new();
        let (void, fn_ty, u32_ty, ptr_ty, one, ids) = globals(&mut expected);
        let mut b = Builder::new();
        assert_eq!(globals(&mut b), (void, fn_ty, u32_ty, ptr_ty, one, ids.clone()));
        let [main, prologue, body, var, sum, shifted, exit] = ids[..] else { unreachable!() };

        // rspirv's builder.
        expected.begin_function(void, Some(main), FunctionControl::NONE, fn_ty).unwrap();
        expected.begin_block(Some(prologue)).unwrap();
        expected.variable(ptr_ty, Some(var), StorageClass::Function, None);
        expected.i_add(u32_ty, Some(sum), one, one).unwrap();
        expected.branch(body).unwrap();
        expected.begin_block(Some(body)).unwrap();
        expected.shift_left_logical(u32_ty, Some(shifted), sum, one).unwrap();
        expected.store(var, shifted, None, []).unwrap();
        expected.branch(exit).unwrap();
        expected.begin_block(Some(exit)).unwrap();
        expected.ret().unwrap();
        expected.end_function().unwrap();
        let expected = expected.module().assemble();

        // Here: the body first, then a value appended to the prologue, then the variable.
        let mut words = b.module().assemble();
        let mut function = FunctionWords::new(main, void, fn_ty, prologue);
        function.begin_block(body);
        function.select_block(Some(0));
        function.push_ids(Op::IAdd, Some(u32_ty), Some(sum), [one, one].into_iter());
        function.select_block(Some(1));
        function.push_operands(
            Op::ShiftLeftLogical,
            Some(u32_ty),
            Some(shifted),
            &[Operand::IdRef(sum), Operand::IdRef(one)],
        );
        function.push_ids(Op::Store, None, None, [var, shifted].into_iter());
        function.push_ids(Op::Branch, None, None, [exit].into_iter());
        function.begin_block(exit);
        function.push_instruction(&Instruction::new(Op::Return, None, None, vec![]));
        function.var(ptr_ty, var);
        function.assemble_into(&mut words);

        let show = |w: &[u32]| rspirv::dr::load_words(w).unwrap().disassemble();
        assert_eq!(show(&words), show(&expected));
        assert_eq!(words, expected);
    }

    /// A function with parameters (a helper a per-element operation calls) assembles as rspirv's
    /// builder writes it.
    #[test]
    fn parameters_follow_the_function() {
        let globals = |b: &mut Builder| {
            let f32_ty = b.type_float(32, None);
            let fn_ty = b.type_function(f32_ty, [f32_ty, f32_ty]);
            let ids: Vec<Word> = (0..6).map(|_| b.id()).collect();
            (f32_ty, fn_ty, ids)
        };
        let mut expected = Builder::new();
        let (f32_ty, fn_ty, ids) = globals(&mut expected);
        let mut b = Builder::new();
        assert_eq!(globals(&mut b), (f32_ty, fn_ty, ids.clone()));
        let [function, x, y, prologue, body, sum] = ids[..] else { unreachable!() };

        expected.begin_function(f32_ty, Some(function), FunctionControl::NONE, fn_ty).unwrap();
        expected.function_parameter(f32_ty).unwrap();
        expected.function_parameter(f32_ty).unwrap();
        expected.begin_block(Some(prologue)).unwrap();
        expected.branch(body).unwrap();
        expected.begin_block(Some(body)).unwrap();
        expected.f_add(f32_ty, Some(sum), x, y).unwrap();
        expected.ret_value(sum).unwrap();
        expected.end_function().unwrap();
        let mut expected = expected.module();
        // rspirv numbers the parameters itself (after the ids taken above, which the header's
        // bound counts): the same ids here, the header aside.
        let params = &mut expected.functions[0].parameters;
        params[0].result_id = Some(x);
        params[1].result_id = Some(y);
        let expected = expected.assemble();

        let mut words = b.module().assemble();
        let mut helper = FunctionWords::new(function, f32_ty, fn_ty, prologue);
        helper.add_parameter(f32_ty, x);
        helper.add_parameter(f32_ty, y);
        helper.begin_block(body);
        helper.push_ids(Op::FAdd, Some(f32_ty), Some(sum), [x, y].into_iter());
        helper.push_ids(Op::ReturnValue, None, None, [sum].into_iter());
        helper.assemble_into(&mut words);

        // Word 3 of the header is the bound.
        words[3] = expected[3];
        let show = |w: &[u32]| rspirv::dr::load_words(w).unwrap().disassemble();
        assert_eq!(show(&words), show(&expected));
        assert_eq!(words, expected);
    }
}
