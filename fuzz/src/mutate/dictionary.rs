//! The words mutators put into sources: what the seeds themselves contain (identifiers, numbers,
//! strings, `tl.*` names, whole expressions), plus fixed lists of values known to find bugs
//! (boundary integers, special floats, every dtype name, `triton.language`'s public names).

use std::collections::BTreeSet;

use ruff_python_ast::token::TokenKind;

use super::syntax::SourceView;

/// Integers at the edges: zero, one, powers of two and their neighbours, the limits of 32 and 64
/// bits, negatives, and Triton's 2^20-element tensor limit.
pub const INTERESTING_INTS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "7",
    "8",
    "15",
    "16",
    "17",
    "31",
    "32",
    "33",
    "48",
    "63",
    "64",
    "100",
    "127",
    "128",
    "129",
    "255",
    "256",
    "1000",
    "1024",
    "4096",
    "65535",
    "65536",
    "1048576",
    "2097152",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "100000000000000000000000000000",
    "-1",
    "-2",
    "-16",
    "-128",
    "-2147483648",
    "-9223372036854775808",
    "0x7f",
    "0b101",
    "1_000",
];

/// Floats at the edges (`1e400` is infinity, `1e-400` a zero).
pub const INTERESTING_FLOATS: &[&str] = &[
    "0.0",
    "-0.0",
    "0.5",
    "1.0",
    "1.5",
    "-1.0",
    "1e-05",
    "1e-45",
    "3.4e38",
    "6.6e4",
    "65504.0",
    "1e308",
    "1e400",
    "-1e400",
    "1e-400",
    "float('nan')",
    "float('inf')",
    "float('-inf')",
];

/// Strings keyword arguments take, right and wrong.
pub const INTERESTING_STRINGS: &[&str] = &[
    "\"\"",
    "\"ieee\"",
    "\"tf32\"",
    "\"tf32x3\"",
    "\"bf16x6\"",
    "\"evict_last\"",
    "\"evict_first\"",
    "\".cg\"",
    "\".ca\"",
    "\"zero\"",
    "\"nan\"",
    "\"rtne\"",
    "\"rtz\"",
    "\"relaxed\"",
    "\"acq_rel\"",
    "\"cta\"",
    "\"gpu\"",
    "\"sys\"",
    "\"fp16\"",
    "\"bogus\"",
    "\"{}\"",
    "\"%d\"",
];

/// Every dtype name `triton.language` has, and a few it does not.
pub const DTYPE_NAMES: &[&str] = &[
    "int1",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float8e4nv",
    "float8e5",
    "float8e4b15",
    "float8e4b8",
    "float8e5b16",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "void",
    "pi32_t",
    "float128",
    "constexpr",
];

/// What the seeds contain, gathered once for the whole campaign.
#[derive(Clone, Debug, Default)]
pub struct Dictionary {
    /// Identifiers of every seed (names, attributes, keywords' names).
    pub identifiers: Vec<String>,
    /// The attribute names after `tl.` in the seeds, plus every public `triton.language` name.
    pub tl_names: Vec<String>,
    /// Numeric literals of the seeds.
    pub numbers: Vec<String>,
    /// String literals of the seeds.
    pub strings: Vec<String>,
    /// Single-line expressions of the seeds (for splicing one kernel's code into another).
    pub expressions: Vec<String>,
}

/// The longest expression kept for splicing.
const MAX_EXPRESSION_BYTES: usize = 120;

impl Dictionary {
    pub fn from_sources<'a>(sources: impl IntoIterator<Item = &'a str>) -> Dictionary {
        let mut identifiers = BTreeSet::new();
        let mut tl_names: BTreeSet<String> =
            trident_frontend::builtins::namespace::TRITON_LANGUAGE.iter().map(|s| s.to_string()).collect();
        let mut numbers = BTreeSet::new();
        let mut strings = BTreeSet::new();
        let mut expressions = BTreeSet::new();
        for source in sources {
            let view = SourceView::new(source);
            for (i, token) in view.tokens.iter().enumerate() {
                let text = &source[token.range.clone()];
                match token.kind {
                    TokenKind::Name => {
                        identifiers.insert(text.to_string());
                        let after_tl = i >= 2
                            && view.tokens[i - 1].kind == TokenKind::Dot
                            && &source[view.tokens[i - 2].range.clone()] == "tl";
                        if after_tl {
                            tl_names.insert(text.to_string());
                        }
                    }
                    TokenKind::Int | TokenKind::Float => {
                        numbers.insert(text.to_string());
                    }
                    TokenKind::String if text.len() <= 40 && !text.contains('\n') => {
                        strings.insert(text.to_string());
                    }
                    _ => {}
                }
            }
            for expr in &view.exprs {
                let text = &source[expr.range.clone()];
                if text.len() <= MAX_EXPRESSION_BYTES && !text.contains('\n') {
                    expressions.insert(text.to_string());
                }
            }
        }
        Dictionary {
            identifiers: identifiers.into_iter().collect(),
            tl_names: tl_names.into_iter().collect(),
            numbers: numbers.into_iter().collect(),
            strings: strings.into_iter().collect(),
            expressions: expressions.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dictionary_gathers_what_seeds_contain() {
        let dictionary = Dictionary::from_sources(["x = tl.load(p + 3, mask=m, other=0.5)\ns = \"ieee\"\n"]);
        assert!(dictionary.identifiers.contains(&"mask".to_string()));
        assert!(dictionary.tl_names.contains(&"load".to_string()));
        assert!(dictionary.tl_names.contains(&"associative_scan".to_string()));
        assert_eq!(dictionary.numbers, ["0.5", "3"]);
        assert_eq!(dictionary.strings, ["\"ieee\""]);
        assert!(dictionary.expressions.contains(&"p + 3".to_string()));
    }
}
