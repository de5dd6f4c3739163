//! Findings: what counts as one, how two are told apart, and how one is saved.
//!
//! A finding is a panic, an internal compiler error, a crash of the worker process, or a hang
//! (an input that ran past the time budget). Its [`Finding::signature`] names the bug rather than
//! the input (a panic's source location, an internal error's first line without its numbers), so
//! a campaign reports each bug once however many inputs hit it.
//!
//! Each finding is saved to its own directory, `<findings>/<kind>-<stage>-<hash of signature>/`:
//! - `report.txt`: the signature, the message (with the panic's backtrace frames), the seed and
//!   the mutations that made the input, and the commands that reproduce it;
//! - `input.fuzz` / `input.py`: the input as it ran, exactly (`trident-fuzz --replay FILE`) and
//!   as plain Python;
//! - `minimized.fuzz` / `minimized.py`: the same after line-deletion minimization, when it
//!   shrank.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::execute::Stage;
use crate::input::Input;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Panic,
    Internal,
    Crash,
    Hang,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Panic => "panic",
            Kind::Internal => "internal",
            Kind::Crash => "crash",
            Kind::Hang => "hang",
        }
    }
}

/// One bug, found by one input.
#[derive(Clone, Debug)]
pub struct Finding {
    pub kind: Kind,
    /// The stage running when it happened, when known.
    pub stage: Option<Stage>,
    pub message: String,
    pub input: Input,
    /// The seed's name and the mutations applied to it.
    pub seed: String,
    pub log: Vec<String>,
    /// The smaller input minimization found, if any.
    pub minimized: Option<Input>,
}

impl Finding {
    /// What identifies the bug (see the module doc).
    pub fn signature(&self) -> String {
        let stage = self.stage.map_or("unknown", Stage::name);
        let detail = match self.kind {
            // "panicked at frontend/src/lower/expr.rs:10:5:" -> the location.
            Kind::Panic => {
                self.message.strip_prefix("panicked at ").and_then(|rest| rest.split_once('\n')).map_or_else(
                    || normalize(&self.message),
                    |(location, _)| location.trim_end_matches(':').to_string(),
                )
            }
            Kind::Internal => normalize(self.message.lines().next().unwrap_or_default()),
            Kind::Crash => normalize(
                self.message
                    .lines()
                    .find(|l| l.contains("overflowed") || l.contains("memory"))
                    .unwrap_or_else(|| self.message.lines().next().unwrap_or_default()),
            ),
            Kind::Hang => format!("{}:{}", self.input.path, self.input.kernel),
        };
        format!("{} in {stage}: {detail}", self.kind.name())
    }

    /// The directory name: kind, stage and a hash of the signature.
    pub fn directory_name(&self) -> String {
        let stage = self.stage.map_or("unknown", Stage::name);
        format!("{}-{stage}-{:016x}", self.kind.name(), fnv1a(self.signature().as_bytes()))
    }

    /// The report (see the module doc).
    pub fn report(&self, directory: &Path) -> String {
        let mut text = String::new();
        let _ = writeln!(text, "{}\n", self.signature());
        let _ = writeln!(text, "seed: {}", self.seed);
        let _ = writeln!(text, "mutations:");
        for step in &self.log {
            let _ = writeln!(text, "  - {step}");
        }
        let best = if self.minimized.is_some() { "minimized" } else { "input" };
        let input = self.minimized.as_ref().unwrap_or(&self.input);
        let _ = writeln!(text, "\nreproduce exactly (panics are not caught, so the backtrace prints):");
        let _ = writeln!(
            text,
            "    RUST_BACKTRACE=1 cargo run --release -p trident-fuzz -- --replay {}/{best}.fuzz",
            directory.display()
        );
        let _ = writeln!(
            text,
            "or through the command line (alignment and u64 argument values are approximate):"
        );
        let stage_flags = match self.stage {
            Some(Stage::PtxSm80) => "--emit ptx --target sm_80",
            Some(Stage::PtxSm90a) => "--emit ptx --target sm_90a",
            Some(Stage::Spirv) => "--emit spvasm",
            // The command line compiles for the adapter it finds: only an H100's Vulkan one
            // matches the stage's device (`--replay` reproduces it anywhere).
            Some(Stage::SpirvMatrices) => "--emit spvasm  # on an H100's Vulkan adapter",
            _ => "--emit ttir",
        };
        let _ = writeln!(
            text,
            "    trident compile {}/{best}.py --kernel {} {} {stage_flags}",
            directory.display(),
            input.kernel,
            trident::spec_flags(&input.spec)
        );
        let _ = writeln!(text, "\nmessage:\n{}", self.message.trim_end());
        text
    }

    /// Saves the finding under `findings`; returns its directory. An existing directory (the same
    /// bug from an earlier campaign) is left as it is.
    pub fn save(&self, findings: &Path) -> std::io::Result<PathBuf> {
        let directory = findings.join(self.directory_name());
        if directory.exists() {
            return Ok(directory);
        }
        std::fs::create_dir_all(&directory)?;
        std::fs::write(directory.join("report.txt"), self.report(&directory))?;
        std::fs::write(directory.join("input.fuzz"), self.input.encode())?;
        std::fs::write(directory.join("input.py"), &self.input.source)?;
        if let Some(minimized) = &self.minimized {
            std::fs::write(directory.join("minimized.fuzz"), minimized.encode())?;
            std::fs::write(directory.join("minimized.py"), &minimized.source)?;
        }
        Ok(directory)
    }
}

/// `text` with every run of digits replaced by `#` and every function name (`@name`) by `@_`, so
/// that values, SSA numbers and kernels do not split one bug into many.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            out.push('#');
            while chars.next_if(char::is_ascii_digit).is_some() {}
        } else if c == '@' {
            out.push_str("@_");
            while chars.next_if(|c| c.is_alphanumeric() || *c == '_').is_some() {}
        } else {
            out.push(c);
        }
    }
    out
}

/// FNV-1a, 64 bits: stable across Rust versions, unlike `DefaultHasher`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use trident::Specialization;

    fn finding(kind: Kind, message: &str) -> Finding {
        let input = Input {
            path: "k.py".into(),
            source: "pass\n".into(),
            kernel: "k".into(),
            spec: Specialization::default(),
            grid: [1, 1, 1],
        };
        Finding {
            kind,
            stage: Some(Stage::Ttir),
            message: message.into(),
            input,
            seed: "s".into(),
            log: vec![],
            minimized: None,
        }
    }

    #[test]
    fn signatures_name_the_bug_not_the_input() {
        let a = finding(Kind::Panic, "panicked at frontend/src/x.rs:10:5:\nindex 3 out of range for 2");
        let b = finding(Kind::Panic, "panicked at frontend/src/x.rs:10:5:\nindex 7 out of range for 1");
        assert_eq!(a.signature(), "panic in ttir: frontend/src/x.rs:10:5");
        assert_eq!(a.signature(), b.signature());
        let c = finding(Kind::Internal, "verifier failed after cse: in @k_2: %12 used before def\nmodule...");
        assert_eq!(c.signature(), "internal in ttir: verifier failed after cse: in @_: %# used before def");
        let d = finding(Kind::Crash, "exit signal 6\nthread 'main' has overflowed its stack\nfatal");
        assert_eq!(d.signature(), "crash in ttir: thread 'main' has overflowed its stack");
        assert!(a.directory_name().starts_with("panic-ttir-"));
        let dir = std::env::temp_dir().join(format!("trident-fuzz-findings-test-{}", std::process::id()));
        let saved = a.save(&dir).unwrap();
        let report = std::fs::read_to_string(saved.join("report.txt")).unwrap();
        assert!(report.contains("--replay") && report.contains("index 3 out of range"), "{report}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
