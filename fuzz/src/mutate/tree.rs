//! Syntax-level mutations, on the expressions and statements of a [`SourceView`]: an expression
//! replaced by another (of this file or of any seed) or wrapped in a shape, dtype or reduction
//! operation; a call's arguments dropped, swapped, duplicated or given new keywords; a tuple's
//! elements (shapes) changed; a subscript's slice changed; a statement deleted, duplicated or
//! moved.
//!
//! These keep the text parsable far more often than token edits do, so they reach the semantic
//! checks, the midend and the emitters: that is where they earn their place.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;

use super::dictionary::{Dictionary, DTYPE_NAMES, INTERESTING_INTS};
use super::lines::{indentation, join, reindent};
use super::syntax::{splice, ExprKind, SourceView};

/// Wrappers around an expression `{}`: shape moves, casts, reductions, scans, arithmetic that
/// traps, and the ops that take two operands (given the expression twice).
const WRAPPERS: &[&str] = &[
    "-({})",
    "~({})",
    "not ({})",
    "({}).to(tl.float16)",
    "({}).to(tl.bfloat16)",
    "({}).to(tl.int1)",
    "({}).to(tl.int64)",
    "({}).to(tl.uint8)",
    "({}).to(tl.float8e5)",
    "({}).to(tl.float8e4nv)",
    "({}).to(tl.float64)",
    "({}).to(tl.float32, bitcast=True)",
    "tl.cast({}, tl.int16)",
    "tl.trans({})",
    "({}).T",
    "({})[:, None]",
    "({})[None, :]",
    "({})[None]",
    "tl.expand_dims({}, 0)",
    "tl.expand_dims({}, -1)",
    "tl.reshape({}, (2, 8))",
    "tl.reshape({}, (-1,))",
    "tl.ravel({})",
    "tl.broadcast_to({}, (16, 16))",
    "tl.view({}, (4, 4))",
    "tl.permute({}, (1, 0))",
    "tl.sum({}, axis=0)",
    "tl.sum({}, axis=1)",
    "tl.sum({})",
    "tl.max({}, axis=0)",
    "tl.min({}, axis=-1)",
    "tl.argmax({}, axis=0)",
    "tl.reduce({}, 0, _fuzz_combine)",
    "tl.cumsum({}, axis=0)",
    "tl.cumprod({}, axis=1)",
    "tl.sort({})",
    "tl.flip({})",
    "tl.abs({})",
    "tl.exp({})",
    "tl.sqrt({})",
    "tl.math.rsqrt({})",
    "tl.sigmoid({})",
    "tl.softmax({})",
    "tl.zeros_like({})",
    "tl.full_like({}, 7)",
    "tl.where({0}, {0}, 0)",
    "tl.maximum({0}, {0})",
    "tl.dot({0}, {0})",
    "tl.dot({0}, tl.trans({0}))",
    "tl.join({0}, {0})",
    "tl.split({})",
    "tl.cat({0}, {0})",
    "tl.interleave({0}, {0})",
    "tl.fma({0}, {0}, {0})",
    "tl.umulhi({0}, {0})",
    "tl.clamp({0}, {0}, {0})",
    "tl.histogram({}, 8)",
    "tl.gather({0}, {0}, 0)",
    "tl.gather({0}, ({0}).to(tl.int32), -1)",
    "tl.gather({0}, tl.arange(0, 4), 5)",
    "tl.swizzle2d({0}, {0}, {0}, {0}, {0})",
    "tl.swizzle2d({0}, {0}, 4, 4, 0)",
    "tl.uint_to_uniform_float({})",
    "tl.pair_uniform_to_normal({0}, {0})",
    "tl.maximum({0}, {0}, propagate_nan=tl.PropagateNan.ALL)",
    "tl.static_assert({})",
    "tl.device_assert({})",
    "tl.multiple_of({}, 16)",
    "tl.max_contiguous({}, 16)",
    "tl.load({})",
    "tl.store({0}, {0})",
    "tl.atomic_add({0}, 1)",
    "({}) // 0",
    "({}) % 0",
    "({}) / 0",
    "({}) << 70",
    "({}) >> -1",
    "({}) * 2147483647",
    "({}) ** 64",
    "({}) + 0.5",
    "({}) & 0xff",
    "({}) if ({}) else 0",
    "(({}), ({}))",
    "({})[0]",
    "({}).shape",
    "({}).dtype",
    "({}).shape[5]",
    "tl.full(({}), 0, tl.float32)",
    "tl.zeros(({}), tl.int8)",
    "tl.arange(0, {})",
    "tl.cdiv({}, 0)",
    "tl.program_id({})",
    "triton.next_power_of_2({})",
    "tl.constexpr({})",
    "range({})",
    "tl.static_range({})",
];

/// Keyword arguments added to calls.
const KEYWORDS: &[&str] = &[
    "mask=None",
    "mask=True",
    "other=0.0",
    "other=float('nan')",
    "axis=0",
    "axis=1",
    "axis=-1",
    "axis=7",
    "axis=None",
    "keep_dims=True",
    "dtype=tl.int64",
    "dtype=tl.float8e5",
    "out_dtype=tl.float16",
    "acc=None",
    "input_precision=\"ieee\"",
    "input_precision=\"tf32x3\"",
    "input_precision=\"bf16x3\"",
    "input_precision=\"bogus\"",
    "allow_tf32=False",
    "max_num_imprecise_acc=0",
    "eviction_policy=\"evict_last\"",
    "cache_modifier=\".cg\"",
    "volatile=True",
    "boundary_check=(0, 1)",
    "boundary_check=(5,)",
    "padding_option=\"nan\"",
    "return_indices=True",
    "tie_break_left=False",
    "reverse=True",
    "sem=\"relaxed\"",
    "scope=\"cta\"",
    "bitcast=True",
    "fp_downcast_rounding=\"rtz\"",
    "sanitize_overflow=False",
    "num_stages=2",
    "loop_unroll_factor=4",
    "disallow_acc_multi_buffer=True",
    "flatten=True",
    "warp_specialize=True",
    "can_reorder=True",
    "descending=True",
    "dim=1",
    "unknown_keyword=1",
];

/// Slices put into subscripts.
const SLICES: &[&str] = &[
    ":, None",
    "None, :",
    "None",
    ":",
    "0",
    "-1",
    ":, :, None",
    "None, None, :",
    "1:",
    "::2",
    "..., None",
    ":, 0",
];

/// Applies one syntax-level mutation; `None` when the text has nothing it applies to.
pub fn mutate(
    rng: &mut StdRng,
    source: &str,
    view: &SourceView,
    dictionary: &Dictionary,
) -> Option<(String, String)> {
    match rng.gen_range(0..8) {
        0 => replace_expression(rng, source, view, dictionary),
        1 => wrap_expression(rng, source, view),
        2 | 3 => call_arguments(rng, source, view, dictionary),
        4 => sequence_elements(rng, source, view, dictionary),
        5 => subscript(rng, source, view),
        _ => statement(rng, source, view),
    }
}

/// An expression replaced by another: of this file (mostly) or of any seed.
fn replace_expression(
    rng: &mut StdRng,
    source: &str,
    view: &SourceView,
    dictionary: &Dictionary,
) -> Option<(String, String)> {
    let target = view.exprs.choose(rng)?;
    let replacement = if rng.gen_bool(0.7) {
        let donor = view.exprs.choose(rng)?;
        source[donor.range.clone()].to_string()
    } else {
        dictionary.expressions.choose(rng)?.clone()
    };
    let old = &source[target.range.clone()];
    let description = format!("replace expression `{}` with `{}`", short(old), short(&replacement));
    Some((splice(source, target.range.clone(), &format!("({replacement})")), description))
}

/// An expression wrapped in one of [`WRAPPERS`].
fn wrap_expression(rng: &mut StdRng, source: &str, view: &SourceView) -> Option<(String, String)> {
    let target = view.exprs.choose(rng)?;
    let wrapper = WRAPPERS.choose(rng)?;
    let old = &source[target.range.clone()];
    let wrapped = wrapper.replace("{0}", old).replace("{}", old);
    let description = format!("wrap `{}` as `{wrapper}`", short(old));
    let mut text = splice(source, target.range.clone(), &wrapped);
    if wrapper.contains("_fuzz_combine") {
        text.push_str("\n\n@triton.jit\ndef _fuzz_combine(a, b):\n    return a + b\n");
    }
    Some((text, description))
}

/// A call's arguments changed: one dropped, two swapped, one duplicated, a keyword added or its
/// value replaced.
fn call_arguments(
    rng: &mut StdRng,
    source: &str,
    view: &SourceView,
    dictionary: &Dictionary,
) -> Option<(String, String)> {
    let calls: Vec<_> = view.exprs.iter().filter(|e| matches!(e.kind, ExprKind::Call { .. })).collect();
    let call = calls.choose(rng)?;
    let ExprKind::Call { args, keywords, parens } = &call.kind else { return None };
    let mut parts: Vec<std::ops::Range<usize>> = args.clone();
    parts.extend(keywords.iter().map(|(_, r)| r.clone()));
    parts.sort_by_key(|r| r.start);
    let mut texts: Vec<String> = parts.iter().map(|r| source[r.clone()].to_string()).collect();
    let what = match rng.gen_range(0..5) {
        0 if !texts.is_empty() => {
            let i = rng.gen_range(0..texts.len());
            format!("drop argument `{}`", short(&texts.remove(i)))
        }
        1 if texts.len() >= 2 => {
            let i = rng.gen_range(0..texts.len());
            let j = rng.gen_range(0..texts.len());
            texts.swap(i, j);
            format!("swap arguments {i} and {j}")
        }
        2 if !texts.is_empty() => {
            let i = rng.gen_range(0..texts.len());
            let copy = texts[i].clone();
            texts.insert(i, copy);
            format!("duplicate argument `{}`", short(&texts[i]))
        }
        3 if !keywords.is_empty() => {
            let (name, _) = keywords.choose(rng)?;
            let value = if rng.gen_bool(0.5) {
                dictionary.expressions.choose(rng)?.clone()
            } else {
                INTERESTING_INTS.choose(rng)?.to_string()
            };
            let i = texts.iter().position(|t| t.starts_with(&format!("{name}=")))?;
            texts[i] = format!("{name}={value}");
            format!("keyword `{}`", texts[i])
        }
        _ => {
            let keyword = KEYWORDS.choose(rng)?;
            texts.push(keyword.to_string());
            format!("add keyword `{keyword}`")
        }
    };
    let callee = &source[call.range.start..parens.start];
    let description = format!("call `{}`: {what}", short(callee));
    Some((splice(source, parens.clone(), &format!("({})", texts.join(", "))), description))
}

/// A tuple's or list's elements changed (shapes, strides, block sizes, `boundary_check`).
fn sequence_elements(
    rng: &mut StdRng,
    source: &str,
    view: &SourceView,
    dictionary: &Dictionary,
) -> Option<(String, String)> {
    let sequences: Vec<_> =
        view.exprs.iter().filter(|e| matches!(e.kind, ExprKind::Sequence { .. })).collect();
    let sequence = sequences.choose(rng)?;
    let ExprKind::Sequence { elements } = &sequence.kind else { return None };
    let mut texts: Vec<String> = elements.iter().map(|r| source[r.clone()].to_string()).collect();
    match rng.gen_range(0..4) {
        0 if !texts.is_empty() => {
            texts.remove(rng.gen_range(0..texts.len()));
        }
        1 if !texts.is_empty() => {
            let i = rng.gen_range(0..texts.len());
            texts.insert(i, texts[i].clone());
        }
        2 if !texts.is_empty() => {
            let i = rng.gen_range(0..texts.len());
            texts[i] = if rng.gen_bool(0.5) {
                INTERESTING_INTS.choose(rng)?.to_string()
            } else {
                dictionary.numbers.choose(rng)?.clone()
            };
        }
        _ => texts.push(INTERESTING_INTS.choose(rng)?.to_string()),
    }
    let old = &source[sequence.range.clone()];
    let (open, close) = if old.starts_with('[') { ("[", "]") } else { ("(", ")") };
    // A one-element tuple needs its comma.
    let comma = if open == "(" && texts.len() == 1 { "," } else { "" };
    let new = format!("{open}{}{comma}{close}", texts.join(", "));
    let description = format!("sequence `{}` -> `{}`", short(old), short(&new));
    Some((splice(source, sequence.range.clone(), &new), description))
}

/// A subscript's slice replaced (`x[:, None]` -> `x[None, :]`, ...).
fn subscript(rng: &mut StdRng, source: &str, view: &SourceView) -> Option<(String, String)> {
    let subscripts: Vec<_> =
        view.exprs.iter().filter(|e| matches!(e.kind, ExprKind::Subscript { .. })).collect();
    let target = subscripts.choose(rng)?;
    let ExprKind::Subscript { slice } = &target.kind else { return None };
    let new = if rng.gen_bool(0.2) {
        DTYPE_NAMES.choose(rng).map(|d| format!("tl.{d}"))?
    } else {
        SLICES.choose(rng)?.to_string()
    };
    let description = format!("slice `{}` -> `{new}`", short(&source[slice.clone()]));
    Some((splice(source, slice.clone(), &new), description))
}

/// A statement inside a function deleted (or replaced by `pass`), duplicated, or moved before
/// another statement (re-indented to its depth).
fn statement(rng: &mut StdRng, source: &str, view: &SourceView) -> Option<(String, String)> {
    let statements: Vec<_> = view.stmts.iter().filter(|s| s.in_function && !s.is_def).collect();
    let chosen = statements.choose(rng)?;
    let lines: Vec<&str> = source.lines().collect();
    let range = chosen.lines.start..chosen.lines.end.min(lines.len());
    if range.is_empty() {
        return None;
    }
    let body: Vec<&str> = lines[range.clone()].to_vec();
    let first = body[0].trim();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let description = match rng.gen_range(0..4) {
        0 => {
            out.drain(range.clone());
            format!("delete statement `{}`", short(first))
        }
        1 => {
            out.splice(range.clone(), [format!("{}pass", " ".repeat(chosen.indent))]);
            format!("replace statement `{}` with pass", short(first))
        }
        2 => {
            let copy: Vec<String> = body.iter().map(|l| l.to_string()).collect();
            out.splice(range.end..range.end, copy);
            format!("duplicate statement `{}`", short(first))
        }
        _ => {
            let to = statements.choose(rng)?;
            let shift = to.indent as isize - chosen.indent as isize;
            let moved: Vec<String> =
                body.iter().map(|l| reindent(l, (indentation(l) as isize + shift).max(0) as usize)).collect();
            let at = to.lines.start;
            if at >= range.start && at < range.end {
                return None;
            }
            out.drain(range.clone());
            let at = if at > range.start { at - range.len() } else { at };
            out.splice(at..at, moved);
            format!("move statement `{}` to line {}", short(first), at + 1)
        }
    };
    Some((join(out.iter().map(String::as_str)), description))
}

/// The first 60 bytes of `text` on one line, for descriptions.
fn short(text: &str) -> String {
    let line = text.replace('\n', " ");
    match line.char_indices().nth(60) {
        Some((end, _)) => format!("{}...", &line[..end]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const SOURCE: &str = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n    \
                          offs = tl.arange(0, BLOCK)\n    x = tl.load(x_ptr + offs, mask=offs < 4)\n    \
                          y = tl.zeros((BLOCK, 2), tl.float32)\n    if BLOCK > 2:\n        x = x[:, None] + y\n    \
                          tl.store(x_ptr + offs, x)\n";

    #[test]
    fn every_tree_mutation_applies_to_a_kernel() {
        let view = SourceView::new(SOURCE);
        let dictionary = Dictionary::from_sources([SOURCE]);
        let mut rng = StdRng::seed_from_u64(11);
        let mut kinds = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let (text, description) = mutate(&mut rng, SOURCE, &view, &dictionary).unwrap_or_default();
            if !description.is_empty() {
                kinds.insert(description.split(' ').next().unwrap().to_string());
                assert!(text.contains("def k("), "{description}:\n{text}");
            }
        }
        let expected = ["call", "delete", "duplicate", "move", "replace", "sequence", "slice", "wrap"];
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn a_moved_statement_takes_the_depth_of_its_new_place() {
        // Moving `x = x[:, None] + y` (depth 8) before `offs = ...` (depth 4).
        let view = SourceView::new(SOURCE);
        let mut rng = StdRng::seed_from_u64(0);
        for _ in 0..300 {
            if let Some((text, description)) = statement(&mut rng, SOURCE, &view) {
                if description.starts_with("move statement `x = x[:, None] + y` to line 6") {
                    assert!(text.contains("\n    x = x[:, None] + y\n    offs ="), "{text}");
                    return;
                }
            }
        }
        panic!("the move was never drawn");
    }
}
