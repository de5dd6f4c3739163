//! The environment variables every launch reads (`TRIDENT_CHECK`, and `TRIDENT_BACKEND` where the
//! program has not called `trident.set_backend`), read without scanning the environment.
//!
//! A launch must see the environment as it is at that moment: scripts and tests set
//! `os.environ[...]` between launches. But looking a variable up scans the whole environment
//! (`getenv` compares the name with every entry; `std::env::var` also takes a lock and
//! allocates), a few hundred nanoseconds per variable on a machine with a long environment, a
//! tenth of a repeat launch. So each thread keeps what it last saw of `environ` and looks the
//! variables up again only when a change may have touched them. The C library changes the
//! environment (`setenv`, `unsetenv` and `putenv`, which `os.environ` calls) in three ways, and
//! each shows in a few of `environ`'s entry pointers:
//! - a variable given a new value gets a new string in its own entry: a watched variable's entry
//!   pointer changes (the old strings are never freed, so a new one never has an old address);
//! - a variable removed shifts the entries after it down: a watched variable after it moves
//!   (its entry now holds another pointer), the last entry moves, or a watched variable is gone
//!   from its entry;
//! - a variable added goes at the end (in the array, or in a new array): the entry after the
//!   last one is no longer the end, or the array moved.
//!
//! So a thread compares the array's address, its length (the end's place), its last entry and
//! each watched variable's entry: a handful of pointers however long the environment is. A
//! change to other variables that leaves those alone needs no new look-up, since it cannot
//! change the watched values.
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

/// What a thread last saw of `environ`, and the variables' values then (at first, an empty
/// environment and no values, which agree).
#[derive(Default)]
struct Seen {
    /// The array's address.
    table: usize,
    /// Its entries before the null pointer that ends it.
    len: usize,
    /// Its last entry (0 when empty).
    last: usize,
    /// Per variable of [`Var`], its entry's index and pointer, where it was set.
    watched: [Option<(usize, usize)>; 2],
    values: [Option<String>; 2],
}

thread_local! {
    static SEEN: RefCell<Seen> = RefCell::new(Seen::default());
}

/// Calls `f` with the value of `var` now (`None` when unset or not Unicode).
pub fn with<T>(var: Var, f: impl FnOnce(Option<&str>) -> T) -> T {
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        if !unchanged(&seen) {
            *seen = look_up();
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

/// Whether `environ` still shows what `seen` saw: the same array, of the same length, with the
/// same last entry and the same entries where the variables were (see the module doc).
#[cfg(target_os = "linux")]
fn unchanged(seen: &Seen) -> bool {
    // SAFETY: `environ` is a null-terminated array of pointers that only setenv, unsetenv and
    // putenv change; none runs now (see the module doc). Only pointers are read. The last entry
    // is read first: while it holds the pointer seen there, no entry was removed (a removal
    // shifts it down), so the array still holds `len` entries and the slot after them.
    unsafe {
        let table = environ::environ;
        if table as usize != seen.table {
            return false;
        }
        if table.is_null() {
            return true;
        }
        if seen.len > 0 && *table.add(seen.len - 1) as usize != seen.last {
            return false;
        }
        if !(*table.add(seen.len)).is_null() {
            return false;
        }
        seen.watched.iter().flatten().all(|&(index, entry)| *table.add(index) as usize == entry)
    }
}

#[cfg(not(target_os = "linux"))]
fn unchanged(_seen: &Seen) -> bool {
    false
}

/// `environ` now, and the variables' values read from its entries.
#[cfg(target_os = "linux")]
fn look_up() -> Seen {
    let mut seen = Seen::default();
    // SAFETY: as in `unchanged`.
    unsafe {
        let table = environ::environ;
        seen.table = table as usize;
        if table.is_null() {
            return seen;
        }
        while !(*table.add(seen.len)).is_null() {
            let entry = *table.add(seen.len);
            let text = std::ffi::CStr::from_ptr(entry).to_bytes();
            // A variable's value is its first entry's, as getenv reads it (None when not Unicode).
            for ((slot, value), name) in seen.watched.iter_mut().zip(&mut seen.values).zip(NAMES) {
                let Some(rest) = text.strip_prefix(name.as_bytes()).and_then(|rest| rest.strip_prefix(b"="))
                else {
                    continue;
                };
                if slot.is_none() {
                    *slot = Some((seen.len, entry as usize));
                    *value = std::str::from_utf8(rest).ok().map(str::to_string);
                }
            }
            seen.last = entry as usize;
            seen.len += 1;
        }
    }
    seen
}

#[cfg(not(target_os = "linux"))]
fn look_up() -> Seen {
    Seen { values: NAMES.map(|name| std::env::var(name).ok()), ..Seen::default() }
}

#[cfg(test)]
mod tests {
    use super::{with, Var};

    fn backend() -> Option<String> {
        with(Var::Backend, |v| v.map(str::to_string))
    }

    /// Setting, changing and removing the variable between reads is seen at the next read, also
    /// when other variables come and go around it (entries shift, the end moves, the C library
    /// reuses an earlier value's string).
    #[test]
    fn a_read_sees_the_environment_as_it_is() {
        // SAFETY: this test is the only code of its process that touches these variables, and it
        // runs on one thread.
        unsafe {
            std::env::remove_var("TRIDENT_BACKEND");
            assert_eq!(backend(), None);
            std::env::set_var("TRIDENT_ENV_TEST_BEFORE", "1");
            std::env::set_var("TRIDENT_BACKEND", "spirv");
            assert_eq!(backend().as_deref(), Some("spirv"));
            assert_eq!(backend().as_deref(), Some("spirv"));
            // A variable before it goes: its entry shifts down.
            std::env::remove_var("TRIDENT_ENV_TEST_BEFORE");
            assert_eq!(backend().as_deref(), Some("spirv"));
            std::env::set_var("TRIDENT_BACKEND", "interp");
            assert_eq!(backend().as_deref(), Some("interp"));
            // Back to an earlier value (glibc hands out the string it made for it then).
            std::env::set_var("TRIDENT_BACKEND", "spirv");
            assert_eq!(backend().as_deref(), Some("spirv"));
            // It goes and another comes: the same length, another last entry.
            std::env::remove_var("TRIDENT_BACKEND");
            std::env::set_var("TRIDENT_ENV_TEST_AFTER", "1");
            assert_eq!(backend(), None);
            // And back: the same length again.
            std::env::remove_var("TRIDENT_ENV_TEST_AFTER");
            std::env::set_var("TRIDENT_BACKEND", "nvptx");
            assert_eq!(backend().as_deref(), Some("nvptx"));
            // A variable after it comes and goes.
            std::env::set_var("TRIDENT_ENV_TEST_AFTER", "1");
            assert_eq!(backend().as_deref(), Some("nvptx"));
            std::env::remove_var("TRIDENT_ENV_TEST_AFTER");
            assert_eq!(backend().as_deref(), Some("nvptx"));
            std::env::remove_var("TRIDENT_BACKEND");
            assert_eq!(backend(), None);
        }
    }
}
