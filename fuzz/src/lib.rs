//! trident-fuzz: a mutation fuzzer for trident that runs on stable Rust (no libFuzzer, no
//! nightly `-Z sanitizer` flags).
//!
//! # Data model
//!
//! - A [`seeds::Seed`] is one kernel of the project's own inputs with the specialization that
//!   compiles it: every line of `tests/corpus_specs.txt` (the corpus cases, over
//!   `../shared/corpus/kernels/`) and every `# compile:` header of `tests/kernels/**/*.py`. The
//!   seed's source is pruned to the functions its kernel can reach, so that every mutation lands
//!   in code the compiler reads.
//! - An [`input::Input`] is what one execution compiles: a source text, a kernel name, a
//!   [`trident::Specialization`] and a grid for the interpreter. Inputs serialize to a small text
//!   format ([`input::Input::encode`]): that is how they travel to worker processes and how
//!   findings are saved and replayed.
//! - [`mutate`] turns a seed into an input with a few stacked mutations: line-level (delete,
//!   duplicate, swap, copy), token-level (operators, numeric literals, identifiers, `tl.*` names,
//!   dtypes, strings), syntax-level (replace, wrap, splice expressions; call arguments; tuple
//!   shapes; subscripts; whole statements) and specialization-level (constexpr values, argument
//!   dtypes and values, warps, stages). Input number `i` of a campaign is a pure function of
//!   `(--seed, i)`, so a campaign is reproducible.
//! - [`execute`] runs one input in process through the library API, stage by stage: the frontend
//!   and the TTIR pipeline, the TTGIR pipeline and the nvptx emitter for sm_80 and sm_90a, the
//!   TTGIR pipeline and the spirv emitter, and the reference interpreter on a tiny grid with a step
//!   budget. A user error is the expected answer to most mutated inputs and is not a finding; a
//!   panic, an internal compiler error, a crash of the process or an execution over the time
//!   budget is.
//! - [`worker`] is the other end of the process boundary: `trident-fuzz --worker` reads inputs on
//!   stdin, executes each under `catch_unwind` with a quiet panic hook, and answers one
//!   [`execute::Verdict`] per input. Stack overflows and aborts end the worker; the driver sees
//!   the process die, which is how they become findings too.
//! - [`process`] is the driver's end of a worker: send an input, wait for the verdict at most the
//!   time budget, tell a verdict from a death and from a hang.
//! - [`driver`] runs a campaign: `--jobs` worker processes, a time budget per input (a worker
//!   that does not answer in time is killed: a hang), deduplication of findings by signature,
//!   [`minimize`] (line deletion) and [`findings`] (one directory per finding, with the input,
//!   the message and a command that reproduces it).
//!
//! # What it deliberately does not do
//!
//! It does not launch anything on a GPU and does not call `ptxas` or `spirv-val`: it looks for
//! crashes, hangs and internal errors of the compiler itself, not for wrong numbers. It parses its
//! own command line (`src/main.rs`) because it is a separate tool, not part of `trident`'s.

pub mod driver;
pub mod execute;
pub mod findings;
pub mod input;
pub mod minimize;
pub mod mutate;
pub mod process;
pub mod seeds;
pub mod worker;
