//! The `trident` binary: see [`trident::cli`] for the commands.

fn main() -> std::process::ExitCode {
    trident::cli::main(std::env::args_os())
}
