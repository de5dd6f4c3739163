//! Token-level mutations: one token replaced, deleted, duplicated, or a token inserted.
//!
//! Replacements keep the token's class where that is what finds bugs: an operator by another
//! operator of its family (so `a < b` becomes `a >> b` as well as `a >= b`), a number by a
//! boundary value or a neighbour, a name by another name of the same file (type confusion:
//! a pointer where an offset was), a `tl.*` function by another, a dtype by another, a string by
//! another keyword value.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use ruff_python_ast::token::TokenKind;

use super::dictionary::{Dictionary, DTYPE_NAMES, INTERESTING_FLOATS, INTERESTING_INTS, INTERESTING_STRINGS};
use super::syntax::{splice, SourceView};

/// Binary operators, comparisons and augmented assignments: each replaced within its family or,
/// sometimes, by any operator.
const BINARY: &[&str] = &["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"];
const COMPARE: &[&str] = &["<", "<=", ">", ">=", "==", "!="];
const AUGMENTED: &[&str] = &["+=", "-=", "*=", "/=", "//=", "%=", "<<=", ">>=", "&=", "|=", "^=", "**="];
const BOOLEAN: &[&str] = &["and", "or", "is", "is not", "in", "not in"];

/// Tokens inserted at random places.
const INSERTED: &[&str] =
    &[",", "(", ")", "[", "]", ":", "None", "-", "not ", "*", ".T", "[:, None]", "[None, :]", "0", "tl"];

/// Applies one token mutation; `None` when the text has no token the chosen mutation applies to.
pub fn mutate(
    rng: &mut StdRng,
    source: &str,
    view: &SourceView,
    dictionary: &Dictionary,
) -> Option<(String, String)> {
    let tokens: Vec<usize> = (0..view.tokens.len()).filter(|&i| is_real(view.tokens[i].kind)).collect();
    if tokens.is_empty() {
        return None;
    }
    let choice = rng.gen_range(0..10);
    // The tokens a mutation may pick: its kind of token, or every token.
    let candidates: Vec<usize> = tokens
        .iter()
        .copied()
        .filter(|&i| {
            let token = &view.tokens[i];
            let text = &source[token.range.clone()];
            match choice {
                0 => token.kind.is_operator() && operator_family(text).is_some(),
                1 => matches!(token.kind, TokenKind::Int | TokenKind::Float),
                2 => token.kind == TokenKind::Name,
                3 => is_tl_attribute(source, view, i),
                4 => token.kind == TokenKind::Name && DTYPE_NAMES.contains(&text),
                5 => token.kind == TokenKind::String,
                6 => matches!(
                    text,
                    "True" | "False" | "None" | "and" | "or" | "is" | "in" | "if" | "while" | "not"
                ),
                _ => true,
            }
        })
        .collect();
    let &index = candidates.choose(rng)?;
    let range = view.tokens[index].range.clone();
    let text = &source[range.clone()];
    let (replacement, what) = match choice {
        0 => {
            let family = operator_family(text)?;
            let pool = if rng.gen_bool(0.8) { family } else { BINARY };
            (pool.choose(rng)?.to_string(), "operator")
        }
        1 => (number(rng, text, dictionary), "number"),
        2 => {
            // Mostly a name of this file, sometimes of any seed.
            let names: Vec<&str> = tokens
                .iter()
                .map(|&i| &view.tokens[i])
                .filter(|t| t.kind == TokenKind::Name)
                .map(|t| &source[t.range.clone()])
                .collect();
            let name = if rng.gen_bool(0.8) {
                names.choose(rng)?.to_string()
            } else {
                dictionary.identifiers.choose(rng)?.clone()
            };
            (name, "name")
        }
        3 => (dictionary.tl_names.choose(rng)?.clone(), "tl name"),
        4 => (DTYPE_NAMES.choose(rng)?.to_string(), "dtype"),
        5 => {
            let string = if rng.gen_bool(0.5) {
                INTERESTING_STRINGS.choose(rng)?.to_string()
            } else {
                dictionary.strings.choose(rng)?.clone()
            };
            (string, "string")
        }
        6 => {
            let replacement = match text {
                "True" => "False",
                "False" => "True",
                "None" => ["0", "True", "()"].choose(rng)?,
                "and" | "or" | "is" | "in" => BOOLEAN.choose(rng)?,
                "if" | "while" => return Some(negate(source, range, text)),
                _ => "",
            };
            (replacement.to_string(), "keyword")
        }
        7 => (String::new(), "delete token"),
        8 => (format!("{text} {text}"), "duplicate token"),
        _ => (format!("{}{text}", INSERTED.choose(rng)?), "insert token"),
    };
    let description = format!("{what}: `{text}` -> `{replacement}` at byte {}", range.start);
    Some((splice(source, range, &replacement), description))
}

/// `if`/`while` followed by `not (...)`: the branch taken flips.
fn negate(source: &str, range: std::ops::Range<usize>, keyword: &str) -> (String, String) {
    let description = format!("keyword: `{keyword}` -> `{keyword} not` at byte {}", range.start);
    (splice(source, range, &format!("{keyword} not")), description)
}

/// Tokens that are source text (not indentation, newlines or the end of the file).
fn is_real(kind: TokenKind) -> bool {
    !matches!(
        kind,
        TokenKind::Newline
            | TokenKind::NonLogicalNewline
            | TokenKind::Indent
            | TokenKind::Dedent
            | TokenKind::EndOfFile
            | TokenKind::Comment
    )
}

fn operator_family(text: &str) -> Option<&'static [&'static str]> {
    [BINARY, COMPARE, AUGMENTED].into_iter().find(|family| family.contains(&text))
}

/// Whether token `i` is the `NAME` of `tl.NAME`.
fn is_tl_attribute(source: &str, view: &SourceView, i: usize) -> bool {
    i >= 2
        && view.tokens[i].kind == TokenKind::Name
        && view.tokens[i - 1].kind == TokenKind::Dot
        && &source[view.tokens[i - 2].range.clone()] == "tl"
}

/// A replacement for the numeric literal `text`: a boundary value, a seed's number, or a
/// neighbour of the value (double, half, plus or minus one, negated, a power of two).
fn number(rng: &mut StdRng, text: &str, dictionary: &Dictionary) -> String {
    let value: Option<i128> = text.replace('_', "").parse().ok();
    match (rng.gen_range(0..5), value) {
        (0, _) => INTERESTING_FLOATS.choose(rng).unwrap_or(&"0.0").to_string(),
        (1, _) => dictionary.numbers.choose(rng).cloned().unwrap_or_else(|| "1".to_string()),
        (2, Some(v)) => {
            let neighbours = [v * 2, v / 2, v + 1, v - 1, -v, 1 << rng.gen_range(0..40)];
            format!("({})", neighbours.choose(rng).copied().unwrap_or(0))
        }
        _ => INTERESTING_INTS.choose(rng).unwrap_or(&"0").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn token_mutations_cover_every_kind() {
        let source = "x = tl.load(p + 1, mask=m < n, other=0.5).to(tl.float16)\nif True:\n    s = \"ieee\"\n";
        let view = SourceView::new(source);
        let dictionary = Dictionary::from_sources([source]);
        let mut rng = StdRng::seed_from_u64(3);
        let mut kinds = std::collections::BTreeSet::new();
        for _ in 0..500 {
            if let Some((text, description)) = mutate(&mut rng, source, &view, &dictionary) {
                kinds.insert(description.split(':').next().unwrap().to_string());
                assert!(text.len() + 40 > source.len(), "{description}");
            }
        }
        let expected = [
            "delete token",
            "dtype",
            "duplicate token",
            "insert token",
            "keyword",
            "name",
            "number",
            "operator",
            "string",
            "tl name",
        ];
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), expected);
    }
}
