//! The names `triton.language` defines, whether or not trident lowers them.
//!
//! A call that no builtin family handles is one of two mistakes: a name Triton has and trident
//! does not lower yet (`tl.gather`: "not supported by trident yet"), or a name Triton does not
//! have at all (`tl.lod`: a typo, or an API from another library), which gets the nearest real
//! names by edit distance instead. [`TRITON_LANGUAGE`] tells them apart; it is the `__all__` of
//! `triton/language/__init__.py` in Triton 3.x (the version the corpus is checked against), the
//! module's functions, dtypes, types and submodules alike.

/// The public names of `triton.language` (Triton 3.x's `__all__`), sorted.
pub const TRITON_LANGUAGE: &[&str] = &[
    "PropagateNan",
    "TRITON_MAX_TENSOR_NUMEL",
    "abs",
    "add",
    "advance",
    "arange",
    "argmax",
    "argmin",
    "associative_scan",
    "assume",
    "atomic_add",
    "atomic_and",
    "atomic_cas",
    "atomic_max",
    "atomic_min",
    "atomic_or",
    "atomic_xchg",
    "atomic_xor",
    "bfloat16",
    "bitonic_merge",
    "block_type",
    "broadcast",
    "broadcast_to",
    "cast",
    "cat",
    "cdiv",
    "ceil",
    "clamp",
    "condition",
    "const",
    "constexpr",
    "constexpr_type",
    "cos",
    "cumprod",
    "cumsum",
    "debug_barrier",
    "device_assert",
    "device_print",
    "div_rn",
    "dot",
    "dot_scaled",
    "dtype",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "extra",
    "fdiv",
    "flip",
    "float16",
    "float32",
    "float64",
    "float8e4b15",
    "float8e4b8",
    "float8e4nv",
    "float8e5",
    "float8e5b16",
    "floor",
    "fma",
    "full",
    "gather",
    "histogram",
    "inline_asm_elementwise",
    "int1",
    "int16",
    "int32",
    "int4",
    "int64",
    "int8",
    "interleave",
    "join",
    "load",
    "load_tensor_descriptor",
    "log",
    "log2",
    "make_block_ptr",
    "make_tensor_descriptor",
    "map_elementwise",
    "math",
    "max",
    "max_constancy",
    "max_contiguous",
    "maximum",
    "min",
    "minimum",
    "mul",
    "multiple_of",
    "num_programs",
    "pair_uniform_to_normal",
    "permute",
    "philox",
    "philox_impl",
    "pi32_t",
    "pointer_type",
    "program_id",
    "rand",
    "rand4x",
    "randint",
    "randint4x",
    "randn",
    "randn4x",
    "range",
    "ravel",
    "reduce",
    "reduce_or",
    "reinterpret_as_int4",
    "reshape",
    "rsqrt",
    "sigmoid",
    "sin",
    "slice",
    "softmax",
    "sort",
    "split",
    "sqrt",
    "sqrt_rn",
    "squeeze",
    "static_assert",
    "static_print",
    "static_range",
    "store",
    "store_tensor_descriptor",
    "sub",
    "sum",
    "swizzle2d",
    "target_info",
    "tensor",
    "tensor_descriptor",
    "to_tensor",
    "topk",
    "trans",
    "tuple",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "uint_to_uniform_float",
    "umulhi",
    "unsqueeze",
    "view",
    "void",
    "where",
    "xor_sum",
    "zeros",
    "zeros_like",
];

/// Whether `triton.language` defines `name`.
pub fn is_triton_language(name: &str) -> bool {
    TRITON_LANGUAGE.binary_search(&name).is_ok()
}

/// The error for a call of `name`, which no builtin family lowers: names of `triton.language`
/// are not supported yet; other names are not Triton's, and the nearest real ones are offered.
pub fn unknown_call_message(name: &str) -> String {
    if is_triton_language(name) {
        return format!("`{name}` is not supported by trident yet");
    }
    let mut message = format!("`{name}` is not part of `triton.language`");
    let nearest = nearest_names(name);
    if !nearest.is_empty() {
        let quoted: Vec<String> = nearest.iter().map(|n| format!("`{n}`")).collect();
        message += &format!("; did you mean {}?", quoted.join(" or "));
    }
    message
}

/// The names of `triton.language` nearest to `name`: those at the smallest edit distance, when
/// that distance is at most a third of the name's length (at least 1), as rustc's suggestions.
pub fn nearest_names(name: &str) -> Vec<&'static str> {
    let limit = name.chars().count().max(3) / 3;
    let distances: Vec<(usize, &'static str)> =
        TRITON_LANGUAGE.iter().map(|&candidate| (strsim::levenshtein(name, candidate), candidate)).collect();
    let Some(best) = distances.iter().map(|&(distance, _)| distance).min().filter(|&d| d <= limit) else {
        return Vec::new();
    };
    distances.into_iter().filter(|&(distance, _)| distance == best).map(|(_, name)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_unique() {
        assert!(TRITON_LANGUAGE.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn nearest_names_are_those_at_the_smallest_distance_within_a_third() {
        assert_eq!(nearest_names("lod"), ["load", "log"]);
        assert_eq!(nearest_names("argmax"), ["argmax"]);
        assert!(nearest_names("kitten").is_empty());
    }

    #[test]
    fn messages_tell_missing_support_from_names_triton_lacks() {
        assert_eq!(
            unknown_call_message("inline_asm_elementwise"),
            "`inline_asm_elementwise` is not supported by trident yet"
        );
        assert_eq!(
            unknown_call_message("lod"),
            "`lod` is not part of `triton.language`; did you mean `load` or `log`?"
        );
        assert_eq!(
            unknown_call_message("program_idx"),
            "`program_idx` is not part of `triton.language`; did you mean `program_id`?"
        );
        assert_eq!(unknown_call_message("matmul"), "`matmul` is not part of `triton.language`");
    }
}
