//! The worker process: `trident-fuzz --worker` executes inputs sent by the driver, one at a time,
//! and answers each with its verdict.
//!
//! Protocol, over the worker's stdin and stdout: every message is a frame, the byte length in
//! decimal on its own line followed by that many bytes. A request is an [`Input`] in its text
//! form; the answer is a [`Verdict`], its kind and stage on the first line (`accepted`,
//! `rejected ttir`, `internal spirv`, `panic ptx-sm90a`) and its message on the following lines.
//! End of input ends the worker.
//!
//! Each input runs under `catch_unwind` on the worker's main thread (the stack the `trident`
//! command has), with a panic hook that prints nothing and keeps the panic's message, location and
//! the trident frames of its backtrace for the answer. What `catch_unwind` cannot catch (a stack
//! overflow, an abort, an allocation beyond the address-space limit the worker sets on itself)
//! ends the process; the driver reports the input it was running.

use std::io::{BufRead, BufReader, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use crate::execute::{current_stage, execute, Stage, Stages, Verdict, ANNOUNCE_STAGES};
use crate::input::Input;

/// The last panic's report, written by the hook and taken by [`run_caught`].
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Installs the quiet panic hook: no output, the report kept in [`LAST_PANIC`].
pub fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "(a panic without a message)".to_string());
        let location = info.location().map_or("an unknown location".to_string(), |l| l.to_string());
        let backtrace = trident_frames(&std::backtrace::Backtrace::force_capture().to_string());
        let report =
            format!("panicked at {location}:\n{message}\n\nbacktrace (trident frames):\n{backtrace}");
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(report);
        }
    }));
}

/// The frames of a rendered backtrace that belong to trident's crates, with their source
/// locations: what a reader needs to find the bug, without the standard library's frames.
fn trident_frames(backtrace: &str) -> String {
    let lines: Vec<&str> = backtrace.lines().collect();
    let mut kept = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let is_frame = line.trim_start().split_once(": ").is_some_and(|(n, _)| n.parse::<u32>().is_ok());
        let is_ours = line.contains("trident") && !line.contains("trident_fuzz::");
        if is_frame && is_ours {
            kept.push(line.trim().to_string());
            if let Some(at) = lines.get(i + 1).filter(|l| l.trim_start().starts_with("at ")) {
                kept.push(format!("    {}", at.trim()));
            }
        }
        if kept.len() >= 24 {
            break;
        }
    }
    if kept.is_empty() {
        "(none: build with debug symbols, or run the replay, for a full backtrace)".to_string()
    } else {
        kept.join("\n")
    }
}

/// Executes `input` under `catch_unwind`: a panic becomes [`Verdict::Panic`] with the hook's
/// report (the hook must be installed).
pub fn run_caught(input: &Input, stages: &Stages) -> Verdict {
    match catch_unwind(AssertUnwindSafe(|| execute(input, stages))) {
        Ok(verdict) => verdict,
        Err(_) => {
            let message = LAST_PANIC.lock().ok().and_then(|mut last| last.take());
            Verdict::Panic { stage: current_stage(), message: message.unwrap_or_default() }
        }
    }
}

/// Caps this process's address space at `megabytes` (Unix only; elsewhere a no-op).
pub fn limit_memory(megabytes: u64) {
    #[cfg(unix)]
    {
        let bytes = megabytes.saturating_mul(1 << 20) as libc::rlim_t;
        let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
        // SAFETY: setrlimit reads the struct we pass and changes only this process's limits.
        unsafe {
            libc::setrlimit(libc::RLIMIT_AS, &limit);
        }
    }
    #[cfg(not(unix))]
    let _ = megabytes;
}

/// The worker's loop: requests on stdin, answers on stdout, until stdin ends.
pub fn serve(stages: &Stages, memory_megabytes: u64) -> std::io::Result<()> {
    install_quiet_panic_hook();
    limit_memory(memory_megabytes);
    ANNOUNCE_STAGES.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut answers = answer_channel()?;
    let mut stdin = BufReader::new(std::io::stdin().lock());
    while let Some(request) = read_frame(&mut stdin)? {
        let verdict = match Input::decode(&request) {
            Ok(input) => run_caught(&input, stages),
            Err(message) => {
                Verdict::Internal { stage: Stage::Ttir, message: format!("bad request: {message}") }
            }
        };
        write_frame(&mut answers, &encode_verdict(&verdict))?;
    }
    Ok(())
}

/// Where answers go: the process's original stdout, moved to a file descriptor of its own, while
/// fd 1 is pointed at `/dev/null`, so that what the compiler or the interpreter prints (a kernel's
/// `tl.device_print` on interp) cannot corrupt the protocol.
#[cfg(unix)]
fn answer_channel() -> std::io::Result<std::fs::File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    // SAFETY: dup and dup2 only duplicate descriptors this process owns; the duplicate returned
    // by dup is owned by the File made from it and by nothing else.
    unsafe {
        let answers = libc::dup(1);
        if answers < 0 || libc::dup2(null.as_raw_fd(), 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(std::fs::File::from_raw_fd(answers))
    }
}

#[cfg(not(unix))]
fn answer_channel() -> std::io::Result<std::io::Stdout> {
    Ok(std::io::stdout())
}

/// Reads one frame; `None` at end of input.
pub fn read_frame(reader: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut header = String::new();
    if reader.read_line(&mut header)? == 0 {
        return Ok(None);
    }
    let length: usize =
        header.trim().parse().map_err(|_| std::io::Error::other(format!("bad frame header {header:?}")))?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    String::from_utf8(body).map(Some).map_err(std::io::Error::other)
}

/// Writes one frame and flushes.
pub fn write_frame(writer: &mut impl Write, body: &str) -> std::io::Result<()> {
    write!(writer, "{}\n{body}", body.len())?;
    writer.flush()
}

/// A verdict's text form (see the module doc).
pub fn encode_verdict(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Accepted => "accepted\n".to_string(),
        Verdict::Rejected { stage } => format!("rejected {}\n", stage.name()),
        Verdict::Internal { stage, message } => format!("internal {}\n{message}", stage.name()),
        Verdict::Panic { stage, message } => format!("panic {}\n{message}", stage.name()),
    }
}

/// Parses [`encode_verdict`]'s text.
pub fn decode_verdict(text: &str) -> Result<Verdict, String> {
    let (head, message) = text.split_once('\n').unwrap_or((text, ""));
    let (kind, stage) = head.split_once(' ').unwrap_or((head, ""));
    let stage = || Stage::from_name(stage).ok_or_else(|| format!("bad verdict stage in {head:?}"));
    let message = message.to_string();
    match kind {
        "accepted" => Ok(Verdict::Accepted),
        "rejected" => Ok(Verdict::Rejected { stage: stage()? }),
        "internal" => Ok(Verdict::Internal { stage: stage()?, message }),
        "panic" => Ok(Verdict::Panic { stage: stage()?, message }),
        _ => Err(format!("bad verdict {head:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_verdicts_round_trip() {
        let verdicts = [
            Verdict::Accepted,
            Verdict::Rejected { stage: Stage::Spirv },
            Verdict::Internal { stage: Stage::PtxSm90a, message: "verifier\nfailed".into() },
            Verdict::Panic { stage: Stage::Interp, message: "panicked at x.rs:1:2:\noops".into() },
        ];
        let mut wire = Vec::new();
        for verdict in &verdicts {
            write_frame(&mut wire, &encode_verdict(verdict)).unwrap();
        }
        let mut reader = BufReader::new(wire.as_slice());
        for verdict in &verdicts {
            let frame = read_frame(&mut reader).unwrap().unwrap();
            assert_eq!(&decode_verdict(&frame).unwrap(), verdict);
        }
        assert!(read_frame(&mut reader).unwrap().is_none());
    }

    #[test]
    fn backtraces_keep_only_trident_frames() {
        let backtrace = "   0: std::panicking::begin_panic\n             at /rustc/std.rs:1:1\n   \
                         1: trident_frontend::lower::expr::lower\n             at ./frontend/src/lower/expr.rs:10:5\n   \
                         2: trident_fuzz::execute::execute\n   3: main\n";
        let frames = trident_frames(backtrace);
        assert_eq!(
            frames,
            "1: trident_frontend::lower::expr::lower\n    at ./frontend/src/lower/expr.rs:10:5"
        );
    }
}
