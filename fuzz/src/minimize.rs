//! Line-deletion minimization: the smallest source, by whole lines, that still shows the same
//! bug.
//!
//! The algorithm is delta debugging by lines, simplified: try deleting chunks of lines, from
//! half the file down to single lines, keeping every deletion after which the oracle still says
//! "same bug", and repeat single-line passes until none succeeds or the attempt budget is spent.
//! The oracle (run the candidate in a worker, compare the finding's signature) is the caller's,
//! so this file knows nothing of processes or signatures. The specialization is left as it is.

use crate::input::Input;
use crate::mutate::lines::join;

/// Minimizes `input`'s source with at most `max_attempts` oracle calls. `same_bug` says whether a
/// candidate still shows the bug. Returns `None` when nothing could be deleted.
pub fn minimize(
    input: &Input,
    max_attempts: usize,
    mut same_bug: impl FnMut(&Input) -> bool,
) -> Option<Input> {
    let mut lines: Vec<String> = input.source.lines().map(String::from).collect();
    let original = lines.len();
    let mut attempts = 0;
    let mut chunk = (lines.len() / 2).max(1);
    loop {
        let mut deleted_any = false;
        let mut start = 0;
        while start < lines.len() && attempts < max_attempts {
            let end = (start + chunk).min(lines.len());
            let candidate_lines: Vec<&str> =
                lines[..start].iter().chain(&lines[end..]).map(String::as_str).collect();
            let candidate = Input { source: join(candidate_lines.into_iter()), ..input.clone() };
            attempts += 1;
            if same_bug(&candidate) {
                lines.drain(start..end);
                deleted_any = true;
            } else {
                start = end;
            }
        }
        if attempts >= max_attempts || (chunk == 1 && !deleted_any) {
            break;
        }
        chunk = (chunk / 2).max(1);
    }
    (lines.len() < original)
        .then(|| Input { source: join(lines.iter().map(String::as_str)), ..input.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use trident::Specialization;

    #[test]
    fn minimization_keeps_only_the_lines_the_bug_needs() {
        let source: String = (0..40).map(|i| format!("line {i}\n")).collect();
        let input = Input {
            path: "k.py".into(),
            source,
            kernel: "k".into(),
            spec: Specialization::default(),
            grid: [1, 1, 1],
        };
        // The "bug" needs lines 7 and 31, in that order.
        let needs = |candidate: &Input| {
            let text = &candidate.source;
            matches!((text.find("line 7\n"), text.find("line 31\n")), (Some(a), Some(b)) if a < b)
        };
        let minimized = minimize(&input, 1000, needs).unwrap();
        assert_eq!(minimized.source, "line 7\nline 31\n");
        assert!(minimize(&input, 1000, |_| false).is_none());
        // The budget is honoured.
        let mut calls = 0;
        minimize(&input, 5, |c| {
            calls += 1;
            needs(c)
        });
        assert_eq!(calls, 5);
    }
}
