//! The environment variables every launch reads (`TRIDENT_CHECK`, and `TRIDENT_BACKEND` where the
//! program has not called `trident.set_backend`), read without scanning the environment.
//!
//! A launch must see the environment as it is at that moment: scripts and tests set
//! `os.environ[...]` between launches. But looking a variable up scans the whole environment
//! (`getenv` compares the name with every entry; `std::env::var` also takes a lock and
//! allocates), a few hundred nanoseconds per variable on a machine with a long environment, a
//! tenth of a repeat launch. Changing the environment (`setenv` and `unsetenv`, which
//! `os.environ` calls, and `putenv`) always changes an entry pointer of `environ` (a new string,
//! a shifted array, or a new array), so each thread keeps the entry pointers it last saw beside
//! the values it found, compares the pointers (no string compared, no allocation) and looks the
//! variables up again only when they differ.
//!
//! This reads `environ` as `getenv` does, and like `getenv` it is not safe against another
//! thread changing the environment at the same moment: launches hold the GIL, under which
//! Python code cannot. Elsewhere than Linux the variables are looked up every time.

use std::cell::RefCell;

/// A variable a launch reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Var {
    Check = 0,
    Backend = 1,
}

/// The variables' names, in the order of [`Var`].
const NAMES: [&str; 2] = ["TRIDENT_CHECK", "TRIDENT_BACKEND"];

/// What a thread last saw: the environment's entry pointers and the variables' values then
/// (at first, an empty environment and no values, which agree).
#[derive(Default)]
struct Seen {
    entries: Vec<usize>,
    values: [Option<String>; 2],
}

thread_local! {
    static SEEN: RefCell<Seen> = RefCell::new(Seen::default());
}

/// Calls `f` with the value of `var` now (`None` when unset or not Unicode).
pub fn with<T>(var: Var, f: impl FnOnce(Option<&str>) -> T) -> T {
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        if !unchanged(&seen.entries) {
            seen.entries = entries();
            seen.values = NAMES.map(|name| std::env::var(name).ok());
        }
        f(seen.values[var as usize].as_deref())
    })
}

#[cfg(target_os = "linux")]
mod environ {
    use std::ffi::c_char;

    extern "C" {
        /// The C library's environment: entry pointers, ended by a null pointer.
        pub static environ: *const *const c_char;
    }
}

/// Whether `environ` holds exactly the entry pointers `saved`, in order.
#[cfg(target_os = "linux")]
fn unchanged(saved: &[usize]) -> bool {
    // SAFETY: `environ` is a null-terminated array of pointers that only setenv, unsetenv and
    // putenv change; none runs now (see the module doc). Only the pointers are read.
    unsafe {
        let table = environ::environ;
        if table.is_null() {
            return saved.is_empty();
        }
        for (index, &entry) in saved.iter().enumerate() {
            if *table.add(index) as usize != entry {
                return false;
            }
        }
        (*table.add(saved.len())).is_null()
    }
}

#[cfg(not(target_os = "linux"))]
fn unchanged(_saved: &[usize]) -> bool {
    false
}

/// The entry pointers of `environ` now.
#[cfg(target_os = "linux")]
fn entries() -> Vec<usize> {
    let mut out = Vec::new();
    // SAFETY: as in `unchanged`.
    unsafe {
        let table = environ::environ;
        if table.is_null() {
            return out;
        }
        let mut index = 0;
        while !(*table.add(index)).is_null() {
            out.push(*table.add(index) as usize);
            index += 1;
        }
    }
    out
}

#[cfg(not(target_os = "linux"))]
fn entries() -> Vec<usize> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::{with, Var};

    /// Setting, changing and removing the variable between reads is seen at the next read.
    #[test]
    fn a_read_sees_the_environment_as_it_is() {
        // SAFETY: this test is the only code of its process that touches TRIDENT_BACKEND, and it
        // runs on one thread.
        unsafe { std::env::remove_var("TRIDENT_BACKEND") };
        assert_eq!(with(Var::Backend, |v| v.map(str::to_string)), None);
        unsafe { std::env::set_var("TRIDENT_BACKEND", "spirv") };
        assert_eq!(with(Var::Backend, |v| v.map(str::to_string)).as_deref(), Some("spirv"));
        assert_eq!(with(Var::Backend, |v| v.map(str::to_string)).as_deref(), Some("spirv"));
        unsafe { std::env::set_var("TRIDENT_BACKEND", "interp") };
        assert_eq!(with(Var::Backend, |v| v.map(str::to_string)).as_deref(), Some("interp"));
        unsafe { std::env::remove_var("TRIDENT_BACKEND") };
        assert_eq!(with(Var::Backend, |v| v.map(str::to_string)), None);
    }
}
