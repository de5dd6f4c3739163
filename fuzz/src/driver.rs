//! A campaign: generate inputs, run them in worker processes, collect, minimize and save the
//! findings, and count.
//!
//! Input number `i` is a pure function of `(--seed, i)`: the first inputs are the seeds
//! themselves, unmutated (a seed that fails is a finding like any other), then each input draws a
//! seed and its mutations from a generator seeded by `(--seed, i)`. `--jobs` slots each own a
//! worker process and take the next input number from a shared counter, so the set of inputs a
//! campaign of N iterations runs does not depend on the number of jobs, only the order.
//!
//! A finding is reported once per signature (see [`crate::findings`]): the first input that
//! shows it is minimized by line deletion in the same worker (hangs are not: each attempt would
//! cost the whole time budget) and saved.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::execute::{Stage, Verdict};
use crate::findings::{Finding, Kind};
use crate::input::Input;
use crate::minimize::minimize;
use crate::mutate::dictionary::Dictionary;
use crate::mutate::{mutate, Mutant};
use crate::process::{Outcome, WorkerCommand, WorkerProcess};
use crate::seeds::{self, Seed, SeedPaths};

/// The most oracle calls spent minimizing one finding.
const MINIMIZE_ATTEMPTS: usize = 400;

/// When a campaign stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Iterations(u64),
    Seconds(f64),
}

/// Everything a campaign is run with.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    pub limit: Limit,
    pub jobs: usize,
    /// Where findings are saved; `None` keeps them in the report only.
    pub findings: Option<PathBuf>,
    /// The time budget of one input: a worker that has used this much CPU time (see
    /// [`crate::process`]) without answering is a hang.
    pub timeout: Duration,
    pub worker: WorkerCommand,
    pub minimize: bool,
    /// How often to print a progress line (never when `None`).
    pub progress_every: Option<Duration>,
    pub seeds: SeedPaths,
}

/// What a campaign did.
#[derive(Debug, Default)]
pub struct Report {
    pub seeds: usize,
    pub notes: Vec<String>,
    /// Campaign inputs executed (minimization runs are not counted).
    pub executions: u64,
    /// Inputs every stage accepted.
    pub accepted: u64,
    /// Inputs the frontend rejected with a user error.
    pub rejected_by_frontend: u64,
    /// Inputs that got past the frontend and the TTIR pipeline.
    pub reached_backends: u64,
    /// Executions that were findings (of any signature).
    pub hits: u64,
    /// One finding per signature, in the order found.
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
}

impl Report {
    /// Executions per second.
    pub fn rate(&self) -> f64 {
        self.executions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The closing summary: totals, rate, and one line per finding.
    pub fn summary(&self) -> String {
        let percent = |n: u64| 100.0 * n as f64 / (self.executions.max(1)) as f64;
        let mut text = format!(
            "{} executions in {:.1} s ({:.0}/s) over {} seeds: {:.1}% accepted, {:.1}% rejected by the frontend, \
             {:.1}% reached the backends; {} findings ({} executions hit one)\n",
            self.executions,
            self.elapsed.as_secs_f64(),
            self.rate(),
            self.seeds,
            percent(self.accepted),
            percent(self.rejected_by_frontend),
            percent(self.reached_backends),
            self.findings.len(),
            self.hits,
        );
        for finding in &self.findings {
            text += &format!("  {}\n", finding.signature());
        }
        text
    }
}

/// The shared state of a campaign's slots.
struct Shared<'a> {
    config: &'a Config,
    seeds: &'a [Seed],
    dictionary: &'a Dictionary,
    start: Instant,
    next: AtomicU64,
    executions: AtomicU64,
    accepted: AtomicU64,
    rejected_by_frontend: AtomicU64,
    reached_backends: AtomicU64,
    hits: AtomicU64,
    signatures: Mutex<HashSet<String>>,
    findings: Mutex<Vec<Finding>>,
    /// A slot that cannot start its worker stops the campaign, with this message.
    failure: Mutex<Option<String>>,
    finished_slots: AtomicUsize,
}

/// Runs a campaign.
pub fn run(config: &Config) -> Result<Report, String> {
    let (seeds, notes) = seeds::load(&config.seeds)?;
    let dictionary = Dictionary::from_sources(seeds.iter().map(|s| s.input.source.as_str()));
    let shared = Shared {
        config,
        seeds: &seeds,
        dictionary: &dictionary,
        start: Instant::now(),
        next: AtomicU64::new(0),
        executions: AtomicU64::new(0),
        accepted: AtomicU64::new(0),
        rejected_by_frontend: AtomicU64::new(0),
        reached_backends: AtomicU64::new(0),
        hits: AtomicU64::new(0),
        signatures: Mutex::new(HashSet::new()),
        findings: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
        finished_slots: AtomicUsize::new(0),
    };
    let jobs = config.jobs.max(1);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                slot(&shared);
                shared.finished_slots.fetch_add(1, Ordering::SeqCst);
            });
        }
        let mut last_progress = Instant::now();
        while shared.finished_slots.load(Ordering::SeqCst) < jobs {
            std::thread::sleep(Duration::from_millis(50));
            if config.progress_every.is_some_and(|every| last_progress.elapsed() >= every) {
                last_progress = Instant::now();
                progress(&shared);
            }
        }
    });
    if let Some(message) = shared.failure.into_inner().map_err(|e| e.to_string())? {
        return Err(message);
    }
    Ok(Report {
        seeds: seeds.len(),
        notes,
        executions: shared.executions.load(Ordering::SeqCst),
        accepted: shared.accepted.load(Ordering::SeqCst),
        rejected_by_frontend: shared.rejected_by_frontend.load(Ordering::SeqCst),
        reached_backends: shared.reached_backends.load(Ordering::SeqCst),
        hits: shared.hits.load(Ordering::SeqCst),
        findings: shared.findings.into_inner().map_err(|e| e.to_string())?,
        elapsed: shared.start.elapsed(),
    })
}

fn progress(shared: &Shared) {
    let executions = shared.executions.load(Ordering::Relaxed);
    let seconds = shared.start.elapsed().as_secs_f64();
    let findings = shared.findings.lock().map_or(0, |f| f.len());
    println!(
        "[{seconds:>7.0} s] {executions} executions ({:.0}/s), {:.1}% reached the backends, {findings} findings",
        executions as f64 / seconds.max(1e-9),
        100.0 * shared.reached_backends.load(Ordering::Relaxed) as f64 / executions.max(1) as f64,
    );
}

/// Input number `index` of a campaign seeded by `seed`: the seed itself for the first
/// `seeds.len()` numbers, then mutants. Returns the seed's index and the mutant.
pub fn generate(seed: u64, index: u64, seeds: &[Seed], dictionary: &Dictionary) -> (usize, Mutant) {
    if let Some(unmutated) = usize::try_from(index).ok().filter(|&i| i < seeds.len()) {
        let mutant =
            Mutant { input: seeds[unmutated].input.clone(), log: vec!["(the seed, unmutated)".into()] };
        return (unmutated, mutant);
    }
    let mut rng = StdRng::seed_from_u64(mix(seed, index));
    let chosen = rng.gen_range(0..seeds.len());
    (chosen, mutate(&mut rng, &seeds[chosen].input, dictionary))
}

/// One 64-bit generator seed from the campaign seed and the input number (SplitMix64's
/// finalizer, so that neighbouring numbers give unrelated streams).
fn mix(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Whether the campaign is over before input `index`.
fn done(shared: &Shared, index: u64) -> bool {
    let failed = shared.failure.lock().map_or(true, |f| f.is_some());
    failed
        || match shared.config.limit {
            Limit::Iterations(n) => index >= n,
            Limit::Seconds(s) => shared.start.elapsed().as_secs_f64() >= s,
        }
}

/// A slot: one worker process, inputs until the campaign is over.
fn slot(shared: &Shared) {
    let config = shared.config;
    let mut worker: Option<WorkerProcess> = None;
    loop {
        let index = shared.next.fetch_add(1, Ordering::SeqCst);
        if done(shared, index) {
            return;
        }
        let (seed_index, mutant) = generate(config.seed, index, shared.seeds, shared.dictionary);
        let Some(outcome) = run_one(shared, &mut worker, &mutant.input) else { return };
        shared.executions.fetch_add(1, Ordering::Relaxed);
        count(shared, &outcome);
        let Some((kind, stage, message)) = classify(&outcome, config.timeout) else { continue };
        shared.hits.fetch_add(1, Ordering::Relaxed);
        let mut finding = Finding {
            kind,
            stage,
            message,
            input: mutant.input,
            seed: shared.seeds[seed_index].name.clone(),
            log: mutant.log,
            minimized: None,
        };
        let signature = finding.signature();
        let is_new = shared.signatures.lock().is_ok_and(|mut seen| seen.insert(signature.clone()));
        if !is_new {
            continue;
        }
        if config.minimize && kind != Kind::Hang {
            finding.minimized = minimize(&finding.input, MINIMIZE_ATTEMPTS, |candidate| {
                let Some(outcome) = run_one(shared, &mut worker, candidate) else { return false };
                classify(&outcome, config.timeout).is_some_and(|(kind, stage, message)| {
                    let probe = Finding { kind, stage, message, ..finding.clone() };
                    probe.signature() == signature
                })
            });
        }
        let saved = match &config.findings {
            Some(dir) => match finding.save(dir) {
                Ok(path) => format!(" -> {}", path.display()),
                Err(e) => format!(" (cannot save under {}: {e})", dir.display()),
            },
            None => String::new(),
        };
        println!("new finding at input {index}: {signature}{saved}");
        if let Ok(mut findings) = shared.findings.lock() {
            findings.push(finding);
        }
    }
}

/// Runs `input` in the slot's worker, starting one if needed; `None` (and the campaign's
/// failure set) when no worker can be started.
fn run_one(shared: &Shared, worker: &mut Option<WorkerProcess>, input: &Input) -> Option<Outcome> {
    let config = shared.config;
    if worker.is_none() {
        match WorkerProcess::spawn(&config.worker) {
            Ok(started) => *worker = Some(started),
            Err(e) => {
                let message = format!("cannot start the worker {}: {e}", config.worker.exe.display());
                if let Ok(mut failure) = shared.failure.lock() {
                    failure.get_or_insert(message);
                }
                return None;
            }
        }
    }
    let outcome = worker.as_mut()?.run(input, config.timeout);
    if !matches!(outcome, Outcome::Verdict(_)) {
        *worker = None;
    }
    Some(outcome)
}

fn count(shared: &Shared, outcome: &Outcome) {
    let counter = match outcome {
        Outcome::Verdict(Verdict::Accepted) => Some(&shared.accepted),
        Outcome::Verdict(Verdict::Rejected { stage: Stage::Ttir }) => Some(&shared.rejected_by_frontend),
        _ => None,
    };
    if let Some(counter) = counter {
        counter.fetch_add(1, Ordering::Relaxed);
    }
    let past_frontend = match outcome {
        Outcome::Verdict(Verdict::Accepted) => true,
        Outcome::Verdict(
            Verdict::Rejected { stage } | Verdict::Internal { stage, .. } | Verdict::Panic { stage, .. },
        ) => *stage != Stage::Ttir,
        Outcome::Died { stage, .. } | Outcome::TimedOut { stage } => stage.is_some_and(|s| s != Stage::Ttir),
    };
    if past_frontend {
        shared.reached_backends.fetch_add(1, Ordering::Relaxed);
    }
}

/// The finding an outcome is, if any: kind, stage and message.
pub fn classify(outcome: &Outcome, timeout: Duration) -> Option<(Kind, Option<Stage>, String)> {
    match outcome {
        Outcome::Verdict(Verdict::Accepted | Verdict::Rejected { .. }) => None,
        Outcome::Verdict(Verdict::Internal { stage, message }) => {
            Some((Kind::Internal, Some(*stage), message.clone()))
        }
        Outcome::Verdict(Verdict::Panic { stage, message }) => {
            Some((Kind::Panic, Some(*stage), message.clone()))
        }
        Outcome::Died { stage, status, stderr } => Some((
            Kind::Crash,
            *stage,
            format!("the worker process died ({status}); the end of its stderr:\n{stderr}"),
        )),
        Outcome::TimedOut { stage } => Some((
            Kind::Hang,
            *stage,
            format!(
                "no verdict within {} ms of the worker's CPU time (or {} times that in wall time); the \
                 worker was killed",
                timeout.as_millis(),
                crate::process::STARVED_WALL_FACTOR
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_a_function_of_the_seed_and_the_index() {
        let paths = SeedPaths::default_for_this_checkout();
        let (seeds, _) = seeds::load(&paths).unwrap();
        let dictionary = Dictionary::from_sources(seeds.iter().map(|s| s.input.source.as_str()));
        let first = generate(0, 0, &seeds, &dictionary);
        assert_eq!(first.1.input, seeds[0].input, "input 0 is the first seed, unmutated");
        let index = seeds.len() as u64 + 17;
        let a = generate(42, index, &seeds, &dictionary);
        let b = generate(42, index, &seeds, &dictionary);
        assert_eq!((a.0, a.1.input.encode(), a.1.log.clone()), (b.0, b.1.input.encode(), b.1.log));
        let other_seed = generate(43, index, &seeds, &dictionary);
        let other_index = generate(42, index + 1, &seeds, &dictionary);
        assert_ne!(a.1.input.encode(), other_seed.1.input.encode());
        assert_ne!(a.1.input.encode(), other_index.1.input.encode());
    }
}
