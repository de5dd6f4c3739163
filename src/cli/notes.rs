//! Notes on stderr that a process says once.
//!
//! A command launches once, but a Python program launches the same kernel many times through
//! [`super::run::launch_once`]: which backend `auto` took, or which autotune config a launch uses,
//! is worth one line, not one per launch. A note is printed the first time its text is seen in
//! this process, and never again.

use std::collections::HashSet;
use std::sync::Mutex;

/// The notes printed so far.
static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Prints `text` on stderr unless this process printed it already.
pub fn once(text: &str) {
    // A poisoned lock only means another thread panicked while holding it; the set is still fine.
    let mut seen = SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if seen.get_or_insert_with(HashSet::new).insert(text.to_string()) {
        eprintln!("{text}");
    }
}
