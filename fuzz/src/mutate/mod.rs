//! From a seed to a mutated input: a few stacked mutations, drawn from four families.
//!
//! - [`lines`]: whole lines deleted, duplicated, swapped, copied, re-indented;
//! - [`tokens`]: one token replaced within its class, deleted, duplicated or inserted;
//! - [`tree`]: expressions, call arguments, tuples, subscripts and statements, by the parse tree;
//! - [`spec`]: constexpr values, argument types and values, warps, stages, the interpreter grid.
//!
//! [`mutate`] is a pure function of the random generator's state, so a campaign's input `i` is
//! the same every time its seed is (`crate::driver` seeds a generator per input). Most inputs get
//! one or two source mutations, with a geometric tail up to [`MAX_SOURCE_MUTATIONS`]: a single
//! mutation keeps the kernel close to valid, where the deep bugs are; stacks reach odd corners.

pub mod dictionary;
pub mod lines;
pub mod spec;
pub mod syntax;
pub mod tokens;
pub mod tree;

use rand::rngs::StdRng;
use rand::Rng;

use crate::input::Input;
use dictionary::Dictionary;
use syntax::SourceView;

/// The most source mutations stacked on one input.
pub const MAX_SOURCE_MUTATIONS: usize = 6;

/// A mutated input and what was done to it, in order.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub input: Input,
    pub log: Vec<String>,
}

/// Mutates `seed`: source mutations (sometimes none) and, sometimes, specialization mutations.
pub fn mutate(rng: &mut StdRng, seed: &Input, dictionary: &Dictionary) -> Mutant {
    let mut input = seed.clone();
    let mut log = Vec::new();
    let mut source_mutations = if rng.gen_bool(0.1) { 0 } else { 1 };
    while source_mutations > 0 && source_mutations < MAX_SOURCE_MUTATIONS && rng.gen_bool(0.4) {
        source_mutations += 1;
    }
    for _ in 0..source_mutations {
        // A mutation that does not apply (no call to edit, ...) is drawn again, a few times.
        for _ in 0..4 {
            if let Some((text, description)) = mutate_source(rng, &input.source, dictionary) {
                input.source = text;
                log.push(description);
                break;
            }
        }
    }
    if source_mutations == 0 || rng.gen_bool(0.25) {
        log.push(spec::mutate(rng, &mut input));
        while rng.gen_bool(0.3) {
            log.push(spec::mutate(rng, &mut input));
        }
    }
    Mutant { input, log }
}

/// One source mutation of a family drawn by weight: lines 2, tokens 4, tree 4.
fn mutate_source(rng: &mut StdRng, source: &str, dictionary: &Dictionary) -> Option<(String, String)> {
    match rng.gen_range(0..10) {
        0 | 1 => lines::mutate(rng, source),
        family => {
            let view = SourceView::new(source);
            if family < 6 {
                tokens::mutate(rng, source, &view, dictionary)
            } else {
                tree::mutate(rng, source, &view, dictionary)
            }
        }
    }
}
