//! `trident-fuzz`: the command line of the fuzzer (see `fuzz/README.md`).
//!
//! Three modes: a campaign (the default), `--replay FILE` (one saved input, in this process, with
//! Rust's own panic message and backtrace), and `--worker` (what a campaign starts: inputs on
//! stdin, verdicts on stdout; not for people). Exit codes: 0 without findings, 1 with findings
//! (or a replay that panics, crashes or hits an internal error), 2 for a bad command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use trident_fuzz::driver::{self, Config, Limit};
use trident_fuzz::execute::{execute, Stages, Verdict};
use trident_fuzz::input::Input;
use trident_fuzz::process::WorkerCommand;
use trident_fuzz::seeds::SeedPaths;
use trident_fuzz::worker;

#[global_allocator]
static ALLOCATOR: trident::allocator::Allocator = trident::allocator::Allocator;

/// A mutation fuzzer for trident: corpus and test kernels, mutated, through the frontend, the
/// midend and both emitters (and the interpreter), looking for panics, internal compiler errors,
/// crashes and hangs.
#[derive(Parser, Debug)]
#[command(name = "trident-fuzz")]
struct Args {
    /// Stop after this many inputs (the default: 10000, unless --seconds is given).
    #[arg(long, conflicts_with = "seconds")]
    iterations: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long)]
    seconds: Option<f64>,
    /// The campaign's seed: input number i is a pure function of (seed, i).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker processes run in parallel.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Where findings are saved, one directory each.
    #[arg(long, default_value_os_t = default_findings_dir())]
    findings: PathBuf,
    /// The time budget of one input, in milliseconds of the worker's CPU time (wall time where the
    /// system does not say; at most 10 times the budget in wall time): over it, a hang.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// The address-space limit of a worker, in MiB: an allocation beyond it is a crash finding.
    #[arg(long, default_value_t = 4096)]
    memory_mb: u64,
    /// Skip the nvptx stages (sm_80 and sm_90a).
    #[arg(long)]
    no_ptx: bool,
    /// Skip the spirv stage.
    #[arg(long)]
    no_spirv: bool,
    /// Skip the interpreter stage.
    #[arg(long)]
    no_interp: bool,
    /// Save findings as found, without minimizing them.
    #[arg(long)]
    no_minimize: bool,
    /// The corpus directory (holding kernels/); the default is ../shared/corpus beside the repo.
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// No progress lines, only the summary.
    #[arg(long)]
    quiet: bool,
    /// Run one saved input (`input.fuzz` or `minimized.fuzz` of a finding) in this process.
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Serve inputs on stdin (what a campaign starts; not for people).
    #[arg(long, hide = true)]
    worker: bool,
}

fn default_findings_dir() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fuzz-findings")
}

fn main() -> ExitCode {
    trident::allocator::keep_freed_memory();
    let args = Args::parse();
    let stages = Stages { ptx: !args.no_ptx, spirv: !args.no_spirv, interp: !args.no_interp };
    if args.worker {
        return match worker::serve(&stages, args.memory_mb) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("trident-fuzz worker: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(path) = &args.replay {
        return replay(path, &stages);
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("trident-fuzz: cannot find its own executable to start workers: {e}");
            return ExitCode::from(2);
        }
    };
    let mut seeds = SeedPaths::default_for_this_checkout();
    if let Some(corpus) = &args.corpus {
        seeds.corpus = Some(corpus.clone());
    }
    let config = Config {
        seed: args.seed,
        limit: match args.seconds {
            Some(seconds) => Limit::Seconds(seconds),
            None => Limit::Iterations(args.iterations.unwrap_or(10_000)),
        },
        jobs: args.jobs,
        findings: Some(args.findings.clone()),
        timeout: Duration::from_millis(args.timeout_ms),
        worker: WorkerCommand { exe, stages, memory_megabytes: args.memory_mb },
        minimize: !args.no_minimize,
        progress_every: (!args.quiet).then_some(Duration::from_secs(10)),
        seeds,
    };
    match driver::run(&config) {
        Ok(report) => {
            for note in &report.notes {
                println!("note: {note}");
            }
            print!("{}", report.summary());
            if report.findings.is_empty() {
                ExitCode::SUCCESS
            } else {
                println!("findings are under {}", args.findings.display());
                ExitCode::FAILURE
            }
        }
        Err(message) => {
            eprintln!("trident-fuzz: {message}");
            ExitCode::from(2)
        }
    }
}

/// `--replay FILE`: the input in this process; a panic is Rust's own, with its backtrace.
fn replay(path: &std::path::Path, stages: &Stages) -> ExitCode {
    let input = match std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| Input::decode(&t))
    {
        Ok(input) => input,
        Err(e) => {
            eprintln!("trident-fuzz: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    match execute(&input, stages) {
        Verdict::Accepted => println!("accepted by every stage"),
        Verdict::Rejected { stage } => println!("rejected with a user error in the {} stage", stage.name()),
        Verdict::Internal { stage, message } => {
            println!("internal compiler error in the {} stage:\n{message}", stage.name());
            return ExitCode::FAILURE;
        }
        Verdict::Panic { .. } => unreachable!("execute does not catch panics"),
    }
    ExitCode::SUCCESS
}
