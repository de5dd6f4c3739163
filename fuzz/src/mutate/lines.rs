//! Line-level mutations: delete, duplicate, swap, copy elsewhere, delete a run, re-indent.
//!
//! They need no parse, so they also work on texts that earlier mutations left unparsable, and
//! they make the structural mistakes people make while editing (a line lost, pasted twice, pasted
//! at the wrong depth).

use rand::rngs::StdRng;
use rand::Rng;

/// Applies one line mutation to `source`; `None` when the text is too short for it. Returns the
/// new text and a description for the finding's log.
pub fn mutate(rng: &mut StdRng, source: &str) -> Option<(String, String)> {
    let mut lines: Vec<&str> = source.lines().collect();
    if lines.len() < 2 {
        return None;
    }
    let n = lines.len();
    let at = rng.gen_range(0..n);
    let description = match rng.gen_range(0..6) {
        0 => {
            let removed = lines.remove(at);
            format!("delete line {}: {}", at + 1, removed.trim())
        }
        1 => {
            lines.insert(at, lines[at]);
            format!("duplicate line {}: {}", at + 1, lines[at].trim())
        }
        2 => {
            let other = if at + 1 < n { at + 1 } else { at - 1 };
            lines.swap(at, other);
            format!("swap lines {} and {}", at + 1, other + 1)
        }
        3 => {
            let to = rng.gen_range(0..n);
            let copied = reindent(lines[at], indentation(lines[to]));
            let description = format!("copy line {} before line {}: {}", at + 1, to + 1, copied.trim());
            let mut owned: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            owned.insert(to, copied);
            return Some((join(owned.iter().map(String::as_str)), description));
        }
        4 => {
            let count = rng.gen_range(2..=5).min(n - at);
            lines.drain(at..at + count);
            format!("delete lines {}..={}", at + 1, at + count)
        }
        _ => {
            let line = lines[at];
            let changed = if rng.gen_bool(0.5) || indentation(line) < 4 {
                format!("    {line}")
            } else {
                line[4..].to_string()
            };
            let description = format!("re-indent line {}: {}", at + 1, changed.trim_end());
            let mut owned: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            owned[at] = changed;
            return Some((join(owned.iter().map(String::as_str)), description));
        }
    };
    Some((join(lines.into_iter()), description))
}

/// The number of leading spaces of `line`.
pub fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// `line` with its indentation replaced by `indent` spaces.
pub fn reindent(line: &str, indent: usize) -> String {
    format!("{}{}", " ".repeat(indent), line.trim_start_matches(' '))
}

/// Lines joined with newlines, ending in one.
pub fn join<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn line_mutations_change_the_text_and_say_how() {
        let source = "a = 1\nif a:\n    b = 2\n    c = 3\nd = 4\n";
        let mut rng = StdRng::seed_from_u64(7);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let (text, description) = mutate(&mut rng, source).unwrap();
            assert_ne!(text, source, "{description}");
            seen.insert(description.split(' ').next().unwrap().to_string());
        }
        assert_eq!(seen.len(), 5, "every kind of line mutation is chosen: {seen:?}");
        assert_eq!(reindent("  x = 1", 8), "        x = 1");
        assert!(mutate(&mut rng, "one line\n").is_none());
    }
}
