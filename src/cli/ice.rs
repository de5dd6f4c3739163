//! Internal compiler errors that escape as panics: a bug in trident, never the user's kernel.
//!
//! Errors trident expects (a kernel it cannot compile, a bad flag) are values rendered by
//! [`super::error`]. A panic is a broken invariant somewhere; instead of Rust's bare
//! `thread 'main' panicked at ...`, the hook installed here says that it is trident's bug, where
//! it happened, and the command line that reproduces it, and the process exits with code 101
//! (Rust's code for a panic). `RUST_BACKTRACE=1` adds the backtrace, as usual.

use std::ffi::OsString;
use std::panic::PanicHookInfo;

/// Installs the hook for a run of the command line `argv`.
pub fn install(argv: &[OsString]) {
    let command = command_line(argv);
    std::panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
        let backtrace = std::backtrace::Backtrace::capture();
        eprint!("{}", report(info, &command));
        if backtrace.status() == std::backtrace::BacktraceStatus::Captured {
            eprintln!("backtrace:\n{backtrace}");
        }
    }));
}

/// The command line as a shell would take it back (arguments with spaces or quotes quoted).
pub fn command_line(argv: &[OsString]) -> String {
    let words: Vec<String> = argv
        .iter()
        .map(|arg| {
            let arg = arg.to_string_lossy();
            let plain = !arg.is_empty()
                && arg.chars().all(|c| c.is_ascii_alphanumeric() || "-_=.,/:@*+%".contains(c));
            if plain {
                arg.into_owned()
            } else {
                format!("'{}'", arg.replace('\'', r"'\''"))
            }
        })
        .collect();
    words.join(" ")
}

/// What the hook prints for a panic described by `info`.
pub fn report(info: &PanicHookInfo<'_>, command: &str) -> String {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string());
    let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
    format_report(&message, &place, command)
}

fn format_report(message: &str, place: &str, command: &str) -> String {
    format!(
        "internal compiler error: trident panicked{place}: {message}\n\
         This is a bug in trident, not in the kernel. Please report it with the command that \
         reproduces it:\n    {command}\n\
         (RUST_BACKTRACE=1 adds a backtrace.)\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_the_bug_the_place_and_the_command() {
        let argv: Vec<OsString> = ["trident", "run", "k.py", "--const", "NAME=it's", "--arg", "x=@a b.npy"]
            .map(OsString::from)
            .to_vec();
        let command = command_line(&argv);
        assert_eq!(command, r"trident run k.py --const 'NAME=it'\''s' --arg 'x=@a b.npy'");
        let text = format_report("index out of bounds", " at midend/src/x.rs:7", &command);
        assert!(text.starts_with(
            "internal compiler error: trident panicked at midend/src/x.rs:7: index out of bounds\n"
        ));
        assert!(text.contains("a bug in trident, not in the kernel"), "{text}");
        assert!(text.contains(&format!("\n    {command}\n")), "{text}");
    }
}
