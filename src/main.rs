//! The `trident` binary: see [`trident::cli`] for the commands.

#[global_allocator]
static ALLOCATOR: trident::allocator::Allocator = trident::allocator::Allocator;

fn main() -> std::process::ExitCode {
    trident::allocator::keep_freed_memory();
    restore_sigpipe();
    trident::cli::main(std::env::args_os())
}

/// Output into a closed pipe (`trident compile ... | head`) ends the process quietly, as it
/// does for C programs: Rust ignores SIGPIPE, so a write would fail with EPIPE and `println!`
/// would panic, which the panic hook reports as an internal compiler error.
#[cfg(unix)]
fn restore_sigpipe() {
    // SAFETY: called first thing in `main`, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_sigpipe() {}
