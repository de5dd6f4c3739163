//! The seeds: the project's own kernels with the specializations that compile them.
//!
//! Two sources, both read at start-up:
//! - `tests/corpus_specs.txt`: one line per corpus case, a file under `../shared/corpus/kernels/`
//!   and `trident compile` flags (generated from the corpus's `cases.py` by
//!   `scripts/gen_corpus_specs.py`); skipped with a note when the corpus is not checked out;
//! - `tests/kernels/**/*.py`: every `# compile:` header line of the test kernels, error kernels
//!   included (mutating a kernel that is already wrong reaches other error paths).
//!
//! Flags become a [`trident::Specialization`] through the command line's own code
//! (`prepare_with_source`), with an autotuned kernel's config 0 applied as `trident compile`
//! does. Each seed's source is then pruned to what its kernel can reach: the module-level
//! statements and the functions named, transitively, from the kernel. A corpus file holds many
//! kernels, and a mutation in one the compiler never reads would be a wasted execution.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::Stmt;
use ruff_text_size::Ranged;
use trident::cli::args::{parse_arg, parse_const, prepare_with_source, ArgText, DataMode};
use trident::cli::{Cli, Command};
use trident::{ArgSpec, Specialization};

use crate::input::Input;
use crate::mutate::lines::join;
use crate::mutate::syntax::SourceView;

/// One kernel to mutate.
#[derive(Clone, Debug)]
pub struct Seed {
    /// `FILE:KERNEL` and the flags, for logs and findings.
    pub name: String,
    /// The unmutated, pruned input.
    pub input: Input,
}

/// Where the seeds are.
#[derive(Clone, Debug)]
pub struct SeedPaths {
    /// The repository root (holds `tests/`).
    pub repo: PathBuf,
    /// The corpus (holds `kernels/`), when checked out.
    pub corpus: Option<PathBuf>,
}

impl SeedPaths {
    /// The repository this crate is built in, and `../shared/corpus` beside it.
    pub fn default_for_this_checkout() -> SeedPaths {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let corpus = repo.join("../shared/corpus");
        SeedPaths { corpus: corpus.join("kernels").is_dir().then_some(corpus), repo }
    }
}

/// Reads every seed. Returns the seeds and notes about what was skipped; a spec line that the
/// command line's code rejects is an error (the seed lists are the project's own).
pub fn load(paths: &SeedPaths) -> Result<(Vec<Seed>, Vec<String>), String> {
    let mut seeds = Vec::new();
    let mut notes = Vec::new();
    match &paths.corpus {
        Some(corpus) => {
            let specs_path = paths.repo.join("tests/corpus_specs.txt");
            let specs = std::fs::read_to_string(&specs_path)
                .map_err(|e| format!("cannot read {}: {e}", specs_path.display()))?;
            for line in specs.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
                let mut words = line.split_whitespace().map(String::from);
                let file = words.next().unwrap_or_default();
                let flags: Vec<String> = words.collect();
                let path = corpus.join("kernels").join(&file);
                let display = format!("../shared/corpus/kernels/{file}");
                seeds.push(seed(&path, &display, &flags)?);
            }
        }
        None => {
            notes.push("the corpus (../shared/corpus) is not checked out: only tests/kernels seeds".into())
        }
    }
    let mut kernel_files = Vec::new();
    python_files(&paths.repo.join("tests/kernels"), &mut kernel_files);
    kernel_files.sort();
    for path in kernel_files {
        let source =
            std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let display = path.strip_prefix(&paths.repo).unwrap_or(&path).display().to_string();
        for flags in trident::golden::compile_headers(&source) {
            seeds.push(seed(&path, &display, &flags)?);
        }
    }
    if seeds.is_empty() {
        return Err("no seeds: neither tests/corpus_specs.txt with the corpus nor tests/kernels".into());
    }
    Ok((seeds, notes))
}

/// Every `.py` file under `dir`, recursively.
fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            python_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

/// The seed of one spec line: the file's source pruned to the kernel, specialized by `flags`.
fn seed(path: &Path, display: &str, flags: &[String]) -> Result<Seed, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let kernel =
        trident::golden::kernel_flag(flags).ok_or_else(|| format!("{display}: no --kernel in {flags:?}"))?;
    // The flags of an error kernel may be rejected before compiling (a bad autotune config):
    // then they are read one by one, as the mutated kernels will need them.
    let spec = specialize(display, &source, flags).or_else(|_| read_flags(flags))?;
    let input = Input {
        path: display.to_string(),
        source: prune(&source, kernel),
        kernel: kernel.to_string(),
        spec,
        grid: [1, 1, 1],
    };
    Ok(Seed { name: format!("{display}:{kernel} {}", flags.join(" ")), input })
}

/// The specialization `trident compile FILE FLAGS` compiles, config 0 of an autotuned kernel.
pub fn specialize(path: &str, source: &str, flags: &[String]) -> Result<Specialization, String> {
    let argv = ["trident", "compile", path].into_iter().map(String::from);
    let argv = argv.chain(flags.iter().cloned()).chain(["--emit".to_string(), "ttir".to_string()]);
    let cli = <Cli as clap::Parser>::try_parse_from(argv).map_err(|e| e.to_string())?;
    let Command::Compile(args) = cli.command else { return Err("not a compile command".into()) };
    let launch =
        prepare_with_source(&args.spec, source.to_string(), DataMode::HeaderOnly).map_err(|e| e.render())?;
    Ok(match &launch.tuning {
        Some(tuning) => tuning.spec_for(tuning.pinned.unwrap_or(0)),
        None => launch.spec,
    })
}

/// The specialization that `flags` spell, read flag by flag without checking them against the
/// kernel (and without autotune configs or heuristics).
fn read_flags(flags: &[String]) -> Result<Specialization, String> {
    let mut spec = Specialization::default();
    for pair in flags.windows(2) {
        let (flag, value) = (pair[0].as_str(), pair[1].as_str());
        let bad = |e: String| format!("{flag} {value}: {e}");
        match flag {
            "--const" => spec.constexprs.push(parse_const(value).map_err(bad)?),
            "--arg" => {
                let (name, arg) = parse_arg(value).map_err(bad)?;
                let arg = match arg {
                    ArgText::Scalar(arg) => arg,
                    ArgText::PointerTo(dtype) | ArgText::File { dtype: Some(dtype), .. } => {
                        ArgSpec::Pointer { dtype, aligned16: true }
                    }
                    ArgText::File { dtype: None, .. } => return Err(bad("a file without a dtype".into())),
                };
                spec.args.push((name, arg));
            }
            "--num-warps" => spec.num_warps = value.parse().map_err(|_| bad("not a number".into()))?,
            "--num-stages" => spec.num_stages = value.parse().map_err(|_| bad("not a number".into()))?,
            _ => {}
        }
    }
    Ok(spec)
}

/// `source` without the top-level functions that `kernel` cannot reach by name. Returns the
/// source unchanged when it does not parse.
pub fn prune(source: &str, kernel: &str) -> String {
    let Ok(parsed) = ruff_python_parser::parse_module(source) else { return source.to_string() };
    let view = SourceView::new(source);
    // Every top-level function: its name, its lines (decorators included) and the names it uses.
    let mut functions = Vec::new();
    for stmt in &parsed.syntax().body {
        let Stmt::FunctionDef(def) = stmt else { continue };
        let start = def.decorator_list.first().map_or(def.range().start(), |d| d.range().start());
        let range = start.to_usize()..def.range().end().to_usize();
        let names: BTreeSet<&str> = view
            .tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Name && range.contains(&t.range.start))
            .map(|t| &source[t.range.clone()])
            .collect();
        let lines = view.line_of(range.start)..view.line_of(range.end.saturating_sub(1)) + 1;
        functions.push((def.name.id.as_str(), lines, names));
    }
    let mut reachable = BTreeSet::from([kernel]);
    let mut grew = true;
    while grew {
        grew = false;
        for (name, _, names) in &functions {
            if reachable.contains(name) {
                for used in names {
                    grew |= functions.iter().any(|(n, _, _)| n == used) && reachable.insert(used);
                }
            }
        }
    }
    let dropped: Vec<&std::ops::Range<usize>> = functions
        .iter()
        .filter(|(name, _, _)| !reachable.contains(name))
        .map(|(_, lines, _)| lines)
        .collect();
    let kept =
        source.lines().enumerate().filter(|(i, _)| !dropped.iter().any(|r| r.contains(i))).map(|(_, l)| l);
    join(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pruning_keeps_the_kernel_what_it_calls_and_module_statements() {
        let source = "import triton\nC = 3\n\n@triton.jit\ndef helper(x):\n    return x\n\n@triton.jit\n\
                      def other(y):\n    return y\n\n@triton.jit\ndef k(p):\n    helper(p)\n";
        let pruned = prune(source, "k");
        assert_eq!(
            pruned,
            "import triton\nC = 3\n\n@triton.jit\ndef helper(x):\n    return x\n\n\n@triton.jit\ndef k(p):\n    helper(p)\n"
        );
        assert_eq!(prune("def (:\n", "k"), "def (:\n");
    }
}
