//! The on-disk cache end to end: compiled kernels are stored and found again, damaged entries
//! are reported and rebuilt (never loaded), autotuning is done once per key, `--no-cache` reads
//! and writes nothing, an unwritable directory costs a warning and nothing else, and `trident
//! cache dir|list|clear` show and empty it. Every test points `TRIDENT_CACHE_DIR` at a directory
//! of its own. Tests that need a Vulkan adapter SKIP without one (unless
//! `TRIDENT_REQUIRE_DEVICES` names spirv).

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{
    example_flags, scratch_dir, skip_unless_required, stderr, stdout, trident_with_env, write_npy, EXAMPLE,
};
use trident_runtime::cache::store::{self, VERSION_OFFSET};
use trident_runtime::npy;

/// Runs trident with the cache in `cache`.
fn trident_in(cache: &Path, args: &[&str]) -> std::process::Output {
    trident_with_env(args, &[("TRIDENT_CACHE_DIR", cache.to_str().unwrap())])
}

/// `compile EXAMPLE ... --emit ptx --target sm_90a --verbose` plus `extra`.
fn compile_ptx_args(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec!["compile", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--emit", "ptx", "--target", "sm_90a", "--verbose"]);
    args.extend(extra);
    args
}

/// The entry files of one kind in a cache directory.
fn entries(cache: &Path, kind: &str) -> Vec<PathBuf> {
    let Ok(read) = fs::read_dir(cache.join(kind)) else { return Vec::new() };
    let mut files: Vec<PathBuf> =
        read.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "entry")).collect();
    files.sort();
    files
}

/// The path on a `cache: hit PATH` or `cache: stored PATH` line of `--verbose`.
fn origin(text: &str, word: &str) -> Option<PathBuf> {
    let prefix = format!("cache: {word} ");
    text.lines().find_map(|line| line.strip_prefix(&prefix)).map(PathBuf::from)
}

#[test]
fn a_second_compile_is_a_cache_hit_with_the_same_output() {
    let cache = scratch_dir("cache-compile-twice");
    let first = trident_in(&cache, &compile_ptx_args(&[]));
    assert!(first.status.success(), "{}", stderr(&first));
    let stored = origin(&stderr(&first), "stored").unwrap_or_else(|| panic!("{}", stderr(&first)));
    assert_eq!(entries(&cache, "ptx"), vec![stored.clone()]);

    let second = trident_in(&cache, &compile_ptx_args(&[]));
    assert!(second.status.success(), "{}", stderr(&second));
    assert_eq!(origin(&stderr(&second), "hit"), Some(stored.clone()), "{}", stderr(&second));
    assert_eq!(stdout(&second), stdout(&first));
    assert!(stdout(&first).contains(".entry add_kernel"), "{}", stdout(&first));

    // Another specialization is another entry; the first stays.
    let third = trident_in(&cache, &compile_ptx_args(&["--num-warps", "8"]));
    assert!(origin(&stderr(&third), "stored").is_some(), "{}", stderr(&third));
    assert_eq!(entries(&cache, "ptx").len(), 2);

    let list = trident_in(&cache, &["cache", "list"]);
    let text = stdout(&list);
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(text.starts_with(&format!("cache: {}\n", cache.display())), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("ptx ")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        assert!(row.contains("add_kernel") && row.contains("nvptx") && row.contains("sm_90a"), "{text}");
        assert!(row.ends_with(" ok"), "{text}");
    }
    assert!(text.lines().last().unwrap().starts_with("2 entries, "), "{text}");
}

#[test]
fn no_cache_neither_reads_nor_writes() {
    let cache = scratch_dir("cache-no-cache");
    let output = trident_in(&cache, &compile_ptx_args(&["--no-cache"]));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("cache: not used"), "{}", stderr(&output));
    assert!(!cache.join("ptx").exists(), "--no-cache wrote an entry");

    // An entry that exists is not read either: a damaged one would otherwise be reported.
    let stored = trident_in(&cache, &compile_ptx_args(&[]));
    let path = origin(&stderr(&stored), "stored").unwrap();
    fs::write(&path, b"TRIDENTC damaged").unwrap();
    let output = trident_in(&cache, &compile_ptx_args(&["--no-cache"]));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stderr(&output).contains("warning: cache entry"), "{}", stderr(&output));
    assert_eq!(stdout(&output), stdout(&stored));
    assert_eq!(fs::read(&path).unwrap(), b"TRIDENTC damaged", "--no-cache rewrote the entry");
}

/// One way to damage an entry, and the reason its warning must give.
struct Damage {
    name: &'static str,
    apply: fn(&mut Vec<u8>),
    reason: &'static str,
}

fn damages() -> Vec<Damage> {
    vec![
        Damage { name: "truncated", apply: |bytes| bytes.truncate(bytes.len() / 2), reason: "(truncated: " },
        Damage {
            name: "a flipped payload byte",
            apply: |bytes| {
                let at = bytes.len() - 40;
                bytes[at] ^= 0x20;
            },
            reason: "(checksum mismatch",
        },
        Damage {
            name: "another format version",
            apply: |bytes| bytes[VERSION_OFFSET..VERSION_OFFSET + 4].copy_from_slice(&7u32.to_le_bytes()),
            reason: "(format version 7; this trident reads version 3)",
        },
        Damage {
            name: "another trident, checksum intact",
            apply: |bytes| {
                let mut entry = store::decode(bytes).expect("the stored entry decodes");
                entry.header.identity = "0.0.1+0000000000000000".into();
                // Encoded anew, so the checksum is right: only the identity tells it apart.
                *bytes = store::encode(&entry.header, &entry.payload);
            },
            reason: "(written by trident 0.0.1+0000000000000000; this is trident ",
        },
        Damage { name: "empty", apply: |bytes| bytes.clear(), reason: "(truncated: 0 bytes" },
        Damage {
            name: "foreign",
            apply: |bytes| *bytes = b"#!/bin/sh\necho not an entry\n".to_vec(),
            reason: "(not a trident cache entry",
        },
    ]
}

#[test]
fn damaged_entries_are_reported_rebuilt_and_never_loaded() {
    let cache = scratch_dir("cache-damaged");
    let reference = trident_in(&cache, &compile_ptx_args(&["--no-cache"]));
    assert!(reference.status.success(), "{}", stderr(&reference));
    let stored = trident_in(&cache, &compile_ptx_args(&[]));
    let path = origin(&stderr(&stored), "stored").unwrap_or_else(|| panic!("{}", stderr(&stored)));
    let good = fs::read(&path).unwrap();
    for damage in damages() {
        let mut bytes = good.clone();
        (damage.apply)(&mut bytes);
        fs::write(&path, &bytes).unwrap();
        let output = trident_in(&cache, &compile_ptx_args(&[]));
        let text = stderr(&output);
        assert!(output.status.success(), "{}: {text}", damage.name);
        let warning = format!("warning: cache entry {} is corrupt {}", path.display(), damage.reason);
        let line = text.lines().find(|l| l.starts_with("warning: cache entry")).unwrap_or_default();
        assert!(line.starts_with(&warning) && line.ends_with("; rebuilding"), "{}: {text}", damage.name);
        assert_eq!(origin(&text, "stored"), Some(path.clone()), "{}: not rebuilt: {text}", damage.name);
        assert_eq!(stdout(&output), stdout(&reference), "{}: the rebuilt PTX differs", damage.name);
        // The rebuilt entry replaced the damaged one and loads.
        assert_eq!(fs::read(&path).unwrap(), good, "{}", damage.name);
        let again = trident_in(&cache, &compile_ptx_args(&[]));
        assert_eq!(origin(&stderr(&again), "hit"), Some(path.clone()), "{}: {}", damage.name, stderr(&again));
    }
}

#[test]
fn an_unwritable_cache_is_a_warning_not_a_failure() {
    let dir = scratch_dir("cache-unwritable");
    // A regular file where a directory should be: no write can succeed, even as root.
    let file = dir.join("not-a-directory");
    fs::write(&file, b"").unwrap();
    let cache = file.join("cache");
    let reference = trident_in(&dir.join("fine"), &compile_ptx_args(&["--no-cache"]));
    let output = trident_in(&cache, &compile_ptx_args(&[]));
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    let warnings: Vec<&str> =
        text.lines().filter(|l| l.starts_with("warning: cannot write to the cache")).collect();
    assert_eq!(warnings.len(), 1, "{text}");
    assert!(
        warnings[0].contains(&cache.display().to_string())
            && warnings[0].ends_with("; continuing without caching")
    );
    assert!(text.contains("cache: not used"), "{text}");
    assert_eq!(stdout(&output), stdout(&reference));
    // Listing and clearing a cache that cannot exist say it is empty.
    let list = trident_in(&cache, &["cache", "list"]);
    assert!(list.status.success() && stdout(&list).contains("holds no entries"), "{}", stdout(&list));
}

#[test]
fn cache_dir_follows_the_environment() {
    let dir = |env: &[(&str, &str)], removed: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_trident"));
        command.args(["cache", "dir"]);
        for key in removed {
            command.env_remove(key);
        }
        command.envs(env.iter().copied());
        let output = command.output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        stdout(&output).trim_end().to_string()
    };
    assert_eq!(dir(&[("TRIDENT_CACHE_DIR", "/tmp/elsewhere")], &[]), "/tmp/elsewhere");
    let all = ["TRIDENT_CACHE_DIR", "XDG_CACHE_HOME", "HOME"];
    if cfg!(target_os = "linux") {
        assert_eq!(dir(&[("XDG_CACHE_HOME", "/x/cache"), ("HOME", "/home/u")], &all), "/x/cache/trident");
        assert_eq!(dir(&[("HOME", "/home/u")], &all), "/home/u/.cache/trident");
        // A relative XDG_CACHE_HOME is invalid (XDG base directory spec) and ignored.
        assert_eq!(dir(&[("XDG_CACHE_HOME", "rel"), ("HOME", "/home/u")], &all), "/home/u/.cache/trident");
    }
}

#[test]
fn clear_removes_every_entry_and_says_which() {
    let cache = scratch_dir("cache-clear");
    for warps in ["2", "4"] {
        let output = trident_in(&cache, &compile_ptx_args(&["--num-warps", warps]));
        assert!(output.status.success(), "{}", stderr(&output));
    }
    fs::write(cache.join("notes.txt"), b"not ours").unwrap();
    let files = entries(&cache, "ptx");
    assert_eq!(files.len(), 2);
    let clear = trident_in(&cache, &["cache", "clear"]);
    let text = stdout(&clear);
    assert!(clear.status.success(), "{}", stderr(&clear));
    for file in &files {
        assert!(text.contains(&format!("removed {} (add_kernel nvptx, ", file.display())), "{text}");
        assert!(!file.exists());
    }
    assert!(text.lines().last().unwrap().starts_with("cache: removed 2 files, "), "{text}");
    assert!(cache.join("notes.txt").exists(), "clear removed a file that is not an entry");
    let list = trident_in(&cache, &["cache", "list"]);
    assert!(stdout(&list).contains("holds no entries"), "{}", stdout(&list));
}

/// The flags of `tests/kernels/autotune_add.py` over the example's data on spirv, with
/// `n_elements` given.
fn autotune_run(verb: &'static str, n: &'static str, out: &Path) -> Vec<String> {
    let mut args = vec![verb];
    args.extend(common::AUTOTUNE_ADD);
    args.extend(["--arg", n, "--grid", "cdiv(n_elements, BLOCK_SIZE)", "--backend", "spirv"]);
    args.extend(["--out", out.to_str().unwrap()]);
    args.iter().map(|s| s.to_string()).collect()
}

fn run_strings(cache: &Path, args: &[String]) -> std::process::Output {
    trident_in(cache, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Whether `output` says there is no Vulkan adapter (then the test is a SKIP).
fn no_adapter(output: &std::process::Output, test: &str) -> bool {
    if stderr(output).contains("needs a Vulkan adapter") {
        skip_unless_required("spirv", test, "no Vulkan adapter here");
        return true;
    }
    false
}

fn read_f32(path: &Path) -> Vec<f32> {
    let buffer = npy::read(path, "b", None).unwrap_or_else(|e| panic!("{e}"));
    buffer.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// `out/output_ptr.npy` holds x + y over the first `n` elements (zero beyond: the autotuned
/// kernel zeroes its output first).
fn assert_sum(out: &Path, n: usize) {
    let x = read_f32(Path::new("examples/data/x.npy"));
    let y = read_f32(Path::new("examples/data/y.npy"));
    let sum = read_f32(&out.join("output_ptr.npy"));
    for i in 0..x.len() {
        let want = if i < n { x[i] + y[i] } else { 0.0 };
        assert_eq!(sum[i].to_bits(), want.to_bits(), "output_ptr[{i}] in {}", out.display());
    }
}

/// `output` succeeded with the tuning cache's choice `chosen`: its one autotune line says so
/// and names the entry it came from.
fn assert_tuned_from_cache(output: &std::process::Output, chosen: &str, entry: &Path) {
    assert!(output.status.success(), "{}", stderr(output));
    let line = format!("autotune: cached {chosen} (from {})", entry.display());
    assert_eq!(autotune_lines(output), vec![line], "{}", stderr(output));
}

/// The lines of autotuning on stderr.
fn autotune_lines(output: &std::process::Output) -> Vec<String> {
    stderr(output).lines().filter(|l| l.starts_with("autotune: ")).map(String::from).collect()
}

#[test]
fn tuning_happens_once_per_key_on_spirv() {
    let cache = scratch_dir("cache-tuning");
    let out = cache.join("out");
    let first = run_strings(&cache, &autotune_run("run", "n_elements=1000", &out));
    if no_adapter(&first, "tuning_happens_once_per_key_on_spirv") {
        return;
    }
    assert!(first.status.success(), "{}", stderr(&first));
    let lines = autotune_lines(&first);
    assert!(lines[0].starts_with("autotune: timing 2 configs of add_kernel on spirv"), "{lines:?}");
    let chosen =
        lines.last().unwrap().strip_prefix("autotune: chose ").unwrap_or_else(|| panic!("{lines:?}"));
    assert_sum(&out, 1000);
    let tuning = entries(&cache, "tuning");
    assert_eq!(tuning.len(), 1, "the choice was not stored");

    // The same key: no timing at all, the same config, the same output.
    fs::remove_dir_all(&out).unwrap();
    let second = run_strings(&cache, &autotune_run("run", "n_elements=1000", &out));
    assert_tuned_from_cache(&second, chosen, &tuning[0]);
    assert_sum(&out, 1000);
    // bench and check read the same choice.
    for verb in ["bench", "check"] {
        let output = run_strings(&cache, &autotune_run(verb, "n_elements=1000", &out));
        assert!(output.status.success(), "{verb}: {}", stderr(&output));
        assert_eq!(autotune_lines(&output).len(), 1, "{verb}: {}", stderr(&output));
        assert!(autotune_lines(&output)[0].starts_with("autotune: cached "), "{verb}: {}", stderr(&output));
    }

    // Another value of a `key` argument tunes again, and is stored beside the first.
    let other = run_strings(&cache, &autotune_run("run", "n_elements=999", &out));
    assert!(autotune_lines(&other)[0].starts_with("autotune: timing 2 configs"), "{}", stderr(&other));
    assert_sum(&out, 999);
    assert_eq!(entries(&cache, "tuning").len(), 2);

    // --no-cache times again and writes nothing.
    let before: Vec<Vec<u8>> = entries(&cache, "tuning").iter().map(|p| fs::read(p).unwrap()).collect();
    let mut args = autotune_run("run", "n_elements=1000", &out);
    args.push("--no-cache".into());
    let uncached = run_strings(&cache, &args);
    assert!(uncached.status.success(), "{}", stderr(&uncached));
    assert!(autotune_lines(&uncached)[0].starts_with("autotune: timing 2 configs"), "{}", stderr(&uncached));
    assert!(!stderr(&uncached).contains("cached"), "{}", stderr(&uncached));
    let after: Vec<Vec<u8>> = entries(&cache, "tuning").iter().map(|p| fs::read(p).unwrap()).collect();
    assert_eq!(before, after, "--no-cache changed the tuning cache");

    // A damaged tuning entry is reported and tuned again.
    let mut bytes = fs::read(&tuning[0]).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&tuning[0], &bytes).unwrap();
    let retuned = run_strings(&cache, &autotune_run("run", "n_elements=1000", &out));
    let text = stderr(&retuned);
    assert!(
        text.contains(&format!("warning: cache entry {} is corrupt (checksum mismatch", tuning[0].display())),
        "{text}"
    );
    assert!(autotune_lines(&retuned)[0].starts_with("autotune: timing 2 configs"), "{text}");
    assert_sum(&out, 1000);
}

#[test]
fn tune_prints_every_config_fastest_first_and_stores_the_winner() {
    let cache = scratch_dir("cache-tune");
    let out = cache.join("out");
    let mut args = autotune_run("tune", "n_elements=1000", &out);
    args.extend(["--bytes".to_string(), "12000".to_string()]);
    let output = run_strings(&cache, &args);
    if no_adapter(&output, "tune_prints_every_config_fastest_first_and_stores_the_winner") {
        return;
    }
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("tune: add_kernel on spirv ("), "{text}");
    assert!(lines[0].ends_with(": 2 configs, fastest first"), "{text}");
    assert!(lines[1].split_whitespace().eq(["rank", "config", "median_ms", "GB/s"]), "{text}");
    let rows: Vec<Vec<&str>> = lines[2..4].iter().map(|l| l.split_whitespace().collect()).collect();
    let times: Vec<f64> = rows.iter().map(|r| r[r.len() - 2].parse().unwrap()).collect();
    assert_eq!((rows[0][0], rows[1][0]), ("1", "2"), "{text}");
    assert!(times[0] <= times[1], "not sorted: {text}");
    for row in &rows {
        // The rate is computed from the unrounded time: it lies between the rates of the
        // times the printed one rounds from (a short time has few digits), give or take the
        // rate's own rounding.
        let (time, rate) = (row[row.len() - 2], row[row.len() - 1]);
        let half_unit =
            |printed: &str| 0.5 * 10f64.powi(-(printed.split('.').nth(1).map_or(0, str::len) as i32));
        let (t, h) = (time.parse::<f64>().unwrap(), half_unit(time));
        let (slowest, fastest) = (12000.0 / (t + h) / 1e6, 12000.0 / (t - h).max(f64::MIN_POSITIVE) / 1e6);
        let (r, rh) = (rate.parse::<f64>().unwrap(), half_unit(rate));
        assert!(r + rh >= slowest && r - rh <= fastest, "GB/s {rate} does not follow from {time} ms: {text}");
    }
    let winner: usize = rows[0][2].parse().unwrap();
    assert!(
        lines[4].starts_with(&format!("TUNE config={winner} median_ms=")) && lines[4].contains(" GB/s="),
        "{text}"
    );
    assert_eq!(lines.len(), 5, "{text}");
    let stored = stderr(&output);
    let tuning = entries(&cache, "tuning");
    assert_eq!(tuning.len(), 1, "{stored}");
    assert!(stored.contains(&format!("tune: stored config {winner} {{")), "{stored}");

    // A run with the same key uses tune's choice without timing.
    let run = run_strings(&cache, &autotune_run("run", "n_elements=1000", &out));
    let lines = autotune_lines(&run);
    assert_eq!(lines.len(), 1, "{}", stderr(&run));
    assert!(lines[0].starts_with(&format!("autotune: cached config {winner} {{")), "{lines:?}");
    assert_sum(&out, 1000);

    // tune needs configs to choose from, and a GPU backend.
    let mut plain = vec!["tune", EXAMPLE];
    plain.extend(example_flags());
    let output = trident_in(&cache, &plain);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("has no @triton.autotune configs"), "{}", stderr(&output));
    let mut interp = autotune_run("tune", "n_elements=1000", &out);
    let backend = interp.iter().position(|a| a == "spirv").unwrap();
    interp[backend] = "interp".into();
    let output = run_strings(&cache, &interp);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("tune needs a GPU backend"), "{}", stderr(&output));
}

/// A damaged SPIR-V entry on the launch path: reported, rebuilt, and the launch is right.
#[test]
fn a_damaged_spirv_entry_is_rebuilt_before_a_launch() {
    let cache = scratch_dir("cache-spirv-run");
    let out = cache.join("out");
    let mut args = vec!["run", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--backend", "spirv", "--out", out.to_str().unwrap()]);
    let first = trident_in(&cache, &args);
    if no_adapter(&first, "a_damaged_spirv_entry_is_rebuilt_before_a_launch") {
        return;
    }
    assert!(first.status.success(), "{}", stderr(&first));
    let spirv = entries(&cache, "spirv");
    assert_eq!(spirv.len(), 1, "the SPIR-V was not stored");
    let stored = fs::read(&spirv[0]).unwrap();
    // A hit leaves the entry as it was and launches correctly.
    let second = trident_in(&cache, &args);
    assert!(second.status.success() && !stderr(&second).contains("warning"), "{}", stderr(&second));
    assert_sum(&out, 1000);
    fs::write(&spirv[0], &stored[..stored.len() - 7]).unwrap();
    fs::remove_dir_all(&out).unwrap();
    let third = trident_in(&cache, &args);
    let text = stderr(&third);
    assert!(third.status.success(), "{text}");
    assert!(
        text.contains(&format!("warning: cache entry {} is corrupt (truncated: ", spirv[0].display())),
        "{text}"
    );
    assert_sum(&out, 1000);
    assert_eq!(fs::read(&spirv[0]).unwrap(), stored, "the entry was not rebuilt");
}

/// The autotuned matmul of `tests/kernels/autotune_matmul.py` (four configs, `key=['M', 'N',
/// 'K']`) on an M x N x K that is no multiple of any block: interp takes config 0 and says so;
/// spirv times the four configs, stores the choice, and the next run with the same key times
/// nothing. Every run's product is exact (small multiples of 1/8, summed in f32).
#[test]
fn an_autotuned_matmul_is_right_and_tuned_once_per_key() {
    use half::f16;
    use trident_midend::ir::DType;
    let cache = scratch_dir("cache-autotune-matmul");
    let (m, n, k) = (40usize, 48usize, 72usize);
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 / 8.0 - 0.75).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 / 8.0 - 0.625).collect();
    let half_bytes = |v: &[f32]| v.iter().flat_map(|x| f16::from_f32(*x).to_le_bytes()).collect::<Vec<u8>>();
    let a_arg = write_npy(&cache, "a_ptr", DType::F16, half_bytes(&a));
    let b_arg = write_npy(&cache, "b_ptr", DType::F16, half_bytes(&b));
    let c_arg = write_npy(&cache, "c_ptr", DType::F32, vec![0; m * n * 4]);
    let mut want = vec![0f32; m * n];
    for row in 0..m {
        for col in 0..n {
            want[row * n + col] = (0..k).map(|i| a[row * k + i] * b[i * n + col]).sum();
        }
    }
    let scalars = [
        format!("M={m}"),
        format!("N={n}"),
        format!("K={k}"),
        format!("stride_am={k}"),
        "stride_ak=1".to_string(),
        format!("stride_bk={n}"),
        "stride_bn=1".to_string(),
        format!("stride_cm={n}"),
        "stride_cn=1".to_string(),
    ];
    let launch = |backend: &str, out: &Path| {
        let mut args: Vec<String> =
            ["run", "tests/kernels/autotune_matmul.py", "--kernel", "matmul_kernel"].map(String::from).into();
        args.extend(["--grid".into(), "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)".into()]);
        for arg in [&a_arg, &b_arg, &c_arg].into_iter().chain(&scalars) {
            args.extend(["--arg".to_string(), arg.clone()]);
        }
        args.extend(["--backend".into(), backend.into(), "--out".into(), out.to_str().unwrap().into()]);
        run_strings(&cache, &args)
    };
    let assert_product = |out: &Path, what: &str| {
        let got = read_f32(&out.join("c_ptr.npy"));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{what}: c[{}, {}]", i / n, i % n);
        }
    };

    let out = cache.join("interp");
    let interp = launch("interp", &out);
    assert!(interp.status.success(), "{}", stderr(&interp));
    assert!(stderr(&interp).contains("config 0"), "{}", stderr(&interp));
    assert_product(&out, "interp");

    let out = cache.join("spirv-1");
    let first = launch("spirv", &out);
    if no_adapter(&first, "an_autotuned_matmul_is_right_and_tuned_once_per_key") {
        return;
    }
    assert!(first.status.success(), "{}", stderr(&first));
    let lines = autotune_lines(&first);
    assert!(lines[0].starts_with("autotune: timing 4 configs of matmul_kernel on spirv"), "{lines:?}");
    let chosen =
        lines.last().unwrap().strip_prefix("autotune: chose ").unwrap_or_else(|| panic!("{lines:?}"));
    assert_product(&out, "spirv, tuning");
    let tuning = entries(&cache, "tuning");
    assert_eq!(tuning.len(), 1, "the choice was not stored");

    let out = cache.join("spirv-2");
    let second = launch("spirv", &out);
    assert_tuned_from_cache(&second, chosen, &tuning[0]);
    assert_product(&out, "spirv, cached");
}
