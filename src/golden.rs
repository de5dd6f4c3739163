//! Golden files for the tests: compare a snapshot with a committed file, or rewrite the file
//! when `BLESS=1` is set (STYLE rule 16).
//!
//! The integration tests under `tests/` compare the full text of what trident produces (TTIR,
//! rendered diagnostics) with files under `tests/golden/`. A missing golden file is a failure
//! with a hint to bless, never a silent pass; a mismatch shows the first differing line.

use std::path::Path;

/// Whether `BLESS=1` (or any value but `0` and empty) asks to rewrite golden files.
pub fn blessing() -> bool {
    std::env::var("BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Compares `actual` with the golden file at `path`. With `BLESS=1` it writes `actual` there
/// instead (creating directories) and succeeds. The error explains the mismatch.
pub fn check(path: &Path, actual: &str) -> Result<(), String> {
    if blessing() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        return std::fs::write(path, actual).map_err(|e| format!("cannot write {}: {e}", path.display()));
    }
    let expected = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(_) => {
            return Err(format!(
                "missing golden file {}; create it with `BLESS=1 cargo test` and review it",
                path.display()
            ))
        }
    };
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "{} differs (rewrite with `BLESS=1 cargo test`):\n{}",
        path.display(),
        first_difference(&expected, actual)
    ))
}

/// The command-line flags of each `# compile: FLAGS` header line of a test kernel, split on
/// whitespace (values never contain spaces).
pub fn compile_headers(source: &str) -> Vec<Vec<String>> {
    source
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("# compile:"))
        .map(|flags| flags.split_whitespace().map(String::from).collect())
        .collect()
}

/// The value of `--kernel` in a flag list.
pub fn kernel_flag(flags: &[String]) -> Option<&str> {
    flags.iter().position(|f| f == "--kernel").and_then(|i| flags.get(i + 1)).map(String::as_str)
}

/// The first line where two texts differ, with its line number.
fn first_difference(expected: &str, actual: &str) -> String {
    let mut expected_lines = expected.lines();
    let mut actual_lines = actual.lines();
    let mut line = 1;
    loop {
        match (expected_lines.next(), actual_lines.next()) {
            (Some(e), Some(a)) if e == a => line += 1,
            (e, a) => {
                return format!(
                    "  line {line}:\n    expected: {}\n    actual:   {}",
                    e.unwrap_or("<end of file>"),
                    a.unwrap_or("<end of file>")
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_first_difference() {
        assert_eq!(first_difference("a\nb\nc\n", "a\nx\nc\n"), "  line 2:\n    expected: b\n    actual:   x");
        assert_eq!(
            first_difference("a\n", "a\nb\n"),
            "  line 2:\n    expected: <end of file>\n    actual:   b"
        );
    }
}
