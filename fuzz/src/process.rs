//! The driver's end of a worker process: spawn it, send it an input, wait for the verdict at
//! most the time budget, and tell a verdict from a death and from a hang.
//!
//! Two threads per worker read its pipes, so the driver can wait with a timeout: one forwards
//! answer frames from stdout over a channel (and `None` when stdout ends: the process died), the
//! other reads stderr, where the worker announces each stage it enters (`@stage NAME`) and where
//! a dying process writes its last words (Rust's "has overflowed its stack", an abort's message).
//! A worker that died or hung is useless afterwards: [`WorkerProcess::run`]'s caller replaces it.
//!
//! The time budget is the worker's CPU time where the system says it (Linux's `/proc`): a worker
//! starved of the CPU by other processes (a build beside a long campaign) is given the wall time
//! it waits, up to [`STARVED_WALL_FACTOR`] times the budget, so that only inputs that really run
//! long are hangs. A worker that sleeps (blocked, using no CPU) is a hang at that wall limit.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::execute::{Stage, Stages, Verdict};
use crate::input::Input;
use crate::worker::{decode_verdict, read_frame, write_frame};

/// The prefix of the stage announcements a worker writes to stderr.
pub const STAGE_ANNOUNCEMENT: &str = "@stage ";

/// The most stderr kept per input, from its end.
const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// A starved worker waits at most this many times the budget in wall time.
pub const STARVED_WALL_FACTOR: u32 = 10;

/// How one input ended in a worker.
#[derive(Debug)]
pub enum Outcome {
    Verdict(Verdict),
    /// The process ended without answering: its exit status and the end of its stderr.
    Died {
        stage: Option<Stage>,
        status: String,
        stderr: String,
    },
    /// No answer within the time budget; the process was killed.
    TimedOut {
        stage: Option<Stage>,
    },
}

/// What the stderr thread has seen since the current input was sent.
#[derive(Default)]
struct Stderr {
    stage: Option<Stage>,
    tail: String,
}

/// A running worker process.
pub struct WorkerProcess {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<Option<String>>,
    stderr: Arc<Mutex<Stderr>>,
    stderr_thread: Option<JoinHandle<()>>,
}

/// How to start workers.
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    /// The `trident-fuzz` executable.
    pub exe: PathBuf,
    pub stages: Stages,
    pub memory_megabytes: u64,
}

impl WorkerCommand {
    /// The arguments that make `trident-fuzz` a worker with these settings.
    fn args(&self) -> Vec<String> {
        let mut args =
            vec!["--worker".to_string(), "--memory-mb".to_string(), self.memory_megabytes.to_string()];
        if !self.stages.ptx {
            args.push("--no-ptx".into());
        }
        if !self.stages.spirv {
            args.push("--no-spirv".into());
        }
        if !self.stages.interp {
            args.push("--no-interp".into());
        }
        args
    }
}

impl WorkerProcess {
    pub fn spawn(command: &WorkerCommand) -> std::io::Result<WorkerProcess> {
        let mut child = Command::new(Path::new(&command.exe))
            .args(command.args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout"))?;
        let stderr_pipe = child.stderr.take().ok_or_else(|| std::io::Error::other("no stderr"))?;
        let (sender, answers) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Ok(Some(frame)) = read_frame(&mut reader) {
                if sender.send(Some(frame)).is_err() {
                    return;
                }
            }
            let _ = sender.send(None);
        });
        let stderr = Arc::new(Mutex::new(Stderr::default()));
        let shared = Arc::clone(&stderr);
        let stderr_thread = std::thread::spawn(move || {
            let mut reader = BufReader::new(stderr_pipe);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                if let Ok(mut seen) = shared.lock() {
                    match line.trim_end().strip_prefix(STAGE_ANNOUNCEMENT) {
                        Some(name) => seen.stage = Stage::from_name(name),
                        None => {
                            seen.tail.push_str(&line);
                            if seen.tail.len() > STDERR_TAIL_BYTES {
                                let mut cut = seen.tail.len() - STDERR_TAIL_BYTES;
                                while !seen.tail.is_char_boundary(cut) {
                                    cut += 1;
                                }
                                seen.tail.drain(..cut);
                            }
                        }
                    }
                }
                line.clear();
            }
        });
        Ok(WorkerProcess { child, stdin, answers, stderr, stderr_thread: Some(stderr_thread) })
    }

    /// Runs `input`, waiting at most `timeout` for the verdict. After anything but
    /// [`Outcome::Verdict`] the process is gone and this handle must be replaced.
    pub fn run(&mut self, input: &Input, timeout: Duration) -> Outcome {
        if let Ok(mut seen) = self.stderr.lock() {
            *seen = Stderr::default();
        }
        if write_frame(&mut self.stdin, &input.encode()).is_err() {
            return self.died();
        }
        let cpu_at_start = cpu_time(self.child.id());
        let mut waited = Duration::ZERO;
        let answer = loop {
            // The whole budget first, then tenths of it while the worker is starved.
            let step = if waited.is_zero() { timeout } else { timeout / 10 };
            let answer = self.answers.recv_timeout(step);
            waited += step;
            if !matches!(answer, Err(RecvTimeoutError::Timeout)) {
                break answer;
            }
            // Over the budget in wall time: a hang, unless the worker got less CPU than that.
            let used =
                cpu_at_start.zip(cpu_time(self.child.id())).map(|(start, now)| now.saturating_sub(start));
            let starved = used.is_some_and(|used| used < timeout);
            if !starved || waited >= timeout * STARVED_WALL_FACTOR {
                break answer;
            }
        };
        match answer {
            Ok(Some(frame)) => match decode_verdict(&frame) {
                Ok(verdict) => Outcome::Verdict(verdict),
                Err(message) => {
                    let _ = self.child.kill();
                    Outcome::Died {
                        stage: None,
                        status: format!("a garbled answer: {message}"),
                        stderr: String::new(),
                    }
                }
            },
            Ok(None) | Err(RecvTimeoutError::Disconnected) => self.died(),
            Err(RecvTimeoutError::Timeout) => {
                let stage = self.stderr.lock().ok().and_then(|seen| seen.stage);
                let _ = self.child.kill();
                let _ = self.child.wait();
                Outcome::TimedOut { stage }
            }
        }
    }

    /// The outcome of a process that stopped answering: its exit status and last stderr.
    fn died(&mut self) -> Outcome {
        // The process may still run after breaking the protocol: end it before waiting. A process
        // that already exited keeps its own exit status.
        let _ = self.child.kill();
        let status = match self.child.wait() {
            Ok(status) => status.to_string(),
            Err(e) => format!("unknown ({e})"),
        };
        // The process is gone, so its stderr ends: wait for the thread to read the last words.
        if let Some(thread) = self.stderr_thread.take() {
            let _ = thread.join();
        }
        let (stage, stderr) = match self.stderr.lock() {
            Ok(seen) => (seen.stage, seen.tail.clone()),
            Err(_) => (None, String::new()),
        };
        Outcome::Died { stage, status, stderr }
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.stdin.flush();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The CPU time (user and system) process `pid` has used, from `/proc/PID/stat`; `None` where
/// there is no such file (not Linux) or it cannot be read.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: fields count from after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 12th and 13th after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_secs_f64(ticks as f64 / clock_ticks_per_second()? as f64))
}

/// The unit of `/proc`'s CPU times.
#[cfg(unix)]
fn clock_ticks_per_second() -> Option<u64> {
    // SAFETY: sysconf reads a system constant; it has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).ok().filter(|&t| t > 0)
}

#[cfg(not(unix))]
fn clock_ticks_per_second() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_cpu_time_on_linux() {
        let used = cpu_time(std::process::id());
        if cfg!(target_os = "linux") {
            let start = used.expect("/proc/self/stat is readable on Linux");
            // Burn some CPU: the reading must not go backwards.
            let until = std::time::Instant::now() + Duration::from_millis(50);
            let mut x = 0u64;
            while std::time::Instant::now() < until {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            std::hint::black_box(x);
            assert!(cpu_time(std::process::id()).unwrap() >= start);
        }
    }
}
