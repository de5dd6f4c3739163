//! The `trident` binary end to end: `run` on the example, `compile --emit ttir`, `check`,
//! `bench`, `devices`, and the command-line errors (exit 2, naming the offending argument).
//!
//! The nvptx backend and the CUDA device are tested in `tests/cuda.rs`. Devices other than
//! interp are checked by `required_devices_are_available`: a device that is not available here
//! is a SKIP, unless `TRIDENT_REQUIRE_DEVICES` (a comma-separated list, set by
//! CI to the devices it has) names it, which turns the SKIP into a failure.

mod common;

use std::path::Path;

use common::{
    example_flags, scratch_dir, skip_unless_required, stderr, stdout, trident, trident_with_env, write_npy,
    EXAMPLE,
};
use trident_runtime::npy;

fn read_f32(path: &Path) -> Vec<f32> {
    let buffer = npy::read(path, "b", None).unwrap_or_else(|e| panic!("{e}"));
    buffer.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn run_vector_add_on_interp() {
    let out = scratch_dir("cli-run");
    let out_text = out.to_str().unwrap();
    let mut args = vec!["run", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--backend", "interp", "--out", out_text]);
    let output = trident(&args);
    assert!(output.status.success(), "trident run failed:\n{}", stderr(&output));

    let x = read_f32(Path::new("examples/data/x.npy"));
    let y = read_f32(Path::new("examples/data/y.npy"));
    let sum = read_f32(&out.join("output_ptr.npy"));
    assert_eq!(sum.len(), 1000);
    for i in 0..x.len() {
        assert_eq!(sum[i].to_bits(), (x[i] + y[i]).to_bits(), "output_ptr[{i}]");
    }
    // Inputs are written back unchanged, with their dtype and shape.
    assert_eq!(read_f32(&out.join("x_ptr.npy")), x);
    // interp was asked for by name: no fallback note.
    assert!(!stderr(&output).contains("--backend auto"), "{}", stderr(&output));
}

#[test]
fn auto_backend_says_which_backend_it_picks() {
    let out = scratch_dir("cli-auto");
    let mut args = vec!["run", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--backend", "auto", "--out", out.to_str().unwrap()]);
    let output = trident(&args);
    assert!(output.status.success(), "trident run failed:\n{}", stderr(&output));
    // One note, naming the backend: nvptx with a GPU, else spirv with a Vulkan adapter, else
    // interp.
    let text = stderr(&output);
    let notes: Vec<&str> = text.lines().filter(|l| l.contains("--backend auto")).collect();
    assert_eq!(notes.len(), 1, "{text}");
    assert!(
        ["running on interp", "running on nvptx", "running on spirv"].iter().any(|b| notes[0].contains(b)),
        "{text}"
    );
}

#[test]
fn compile_emits_ttir() {
    let output = trident(&[
        "compile",
        EXAMPLE,
        "--kernel",
        "add_kernel",
        "--emit",
        "ttir",
        "--const",
        "BLOCK_SIZE=1024",
        "--arg",
        "x_ptr=*fp32",
        "--arg",
        "y_ptr=*fp32",
        "--arg",
        "output_ptr=*fp32",
        "--arg",
        "n_elements=1000",
    ]);
    assert!(output.status.success(), "trident compile failed:\n{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("tt.func"), "no tt.func in:\n{text}");
    assert!(text.contains("add_kernel"), "no add_kernel in:\n{text}");
}

#[test]
fn compile_reads_only_headers_and_writes_to_o() {
    let dir = scratch_dir("cli-compile-o");
    let path = dir.join("k.ttir");
    let mut args = vec!["compile", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--emit", "ttir", "-o", path.to_str().unwrap()]);
    let output = trident(&args);
    assert!(output.status.success(), "trident compile failed:\n{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("tt.func"), "no tt.func in:\n{text}");
}

/// `--backend spirv` runs on a Vulkan adapter (lavapipe in CI) or says why it cannot; without an
/// adapter this is a SKIP, unless `TRIDENT_REQUIRE_DEVICES` names spirv.
#[test]
fn spirv_runs_or_says_why() {
    let out = std::env::temp_dir().join(format!("trident-spirv-run-{}", std::process::id()));
    let mut args = vec!["run", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--backend", "spirv", "--out", out.to_str().unwrap()]);
    let output = trident(&args);
    if output.status.success() {
        assert!(out.join("output_ptr.npy").exists(), "no output written");
        let _ = std::fs::remove_dir_all(&out);
        return;
    }
    let text = stderr(&output);
    assert!(text.contains("needs a Vulkan adapter"), "{text}");
    skip_unless_required("spirv", "spirv run", "no Vulkan adapter here");
}

/// Two f32 `tl.atomic_add` calls per element (tests/kernels/atomic_add_twice.py) on one program
/// and on 13 and 1024 racing ones: every add lands, on interp and on spirv (native
/// `OpAtomicFAddEXT` where the adapter has f32 atomics). On lavapipe the compare-and-swap loop
/// lost adds that raced: 13 and 1024 programs came out short in most runs.
/// Without a Vulkan adapter the spirv half is a SKIP, unless `TRIDENT_REQUIRE_DEVICES` names it.
#[test]
fn float_atomic_add_twice_lands_every_add() {
    let dir = scratch_dir("cli-atomic-add-twice");
    let zeros = dir.join("zeros.npy");
    let buffer = trident_runtime::Buffer::zeros("out_ptr", trident_midend::ir::DType::F32, 64);
    npy::write(&zeros, &buffer).unwrap();
    let input = format!("out_ptr=@{}", zeros.to_str().unwrap());
    for backend in ["interp", "spirv"] {
        for programs in [1u32, 13, 1024] {
            let out = dir.join(format!("{backend}-{programs}"));
            let grid = programs.to_string();
            let output = trident(&[
                "run",
                "tests/kernels/atomic_add_twice.py",
                "--kernel",
                "atomic_add_twice_kernel",
                "--grid",
                &grid,
                "--const",
                "BLOCK=64",
                "--arg",
                &input,
                "--arg",
                "value=1.0",
                "--backend",
                backend,
                "--out",
                out.to_str().unwrap(),
            ]);
            if backend == "spirv"
                && !output.status.success()
                && stderr(&output).contains("needs a Vulkan adapter")
            {
                skip_unless_required("spirv", "spirv atomic_add_twice", "no Vulkan adapter here");
                return;
            }
            assert!(output.status.success(), "{backend}, grid {programs}:\n{}", stderr(&output));
            let sums = read_f32(&out.join("out_ptr.npy"));
            let expected = 11.0 * programs as f32;
            assert_eq!(sums.len(), 64);
            for (i, &sum) in sums.iter().enumerate() {
                assert_eq!(sum, expected, "{backend}, grid {programs}: out_ptr[{i}]");
            }
        }
    }
}

/// Reductions over 512 threads per row (spirv's halving tree; two-word partials for i64; argmax
/// ties broken by the lowest index) agree with interp element for element.
#[test]
fn wide_reductions_agree_with_interp() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-wide-reductions");
    let (rows, n) = (4usize, 2000usize);
    // Small integers: exact f32 sums, and many ties for argmax.
    let x: Vec<u8> = (0..rows * n).flat_map(|i| (((i * 7919) % 23) as f32 - 11.0).to_le_bytes()).collect();
    let xi: Vec<u8> = (0..rows * n)
        .flat_map(|i| (((i * 104729) % 1000) as i64 * 3_000_000_007 - (1 << 40)).to_le_bytes())
        .collect();
    let args = [
        write_npy(&dir, "x_ptr", DType::F32, x),
        write_npy(&dir, "xi_ptr", DType::I64, xi),
        write_npy(&dir, "sum_ptr", DType::F32, vec![0; rows * 4]),
        write_npy(&dir, "max_ptr", DType::F32, vec![0; rows * 4]),
        write_npy(&dir, "arg_ptr", DType::I32, vec![0; rows * 4]),
        write_npy(&dir, "isum_ptr", DType::I64, vec![0; rows * 8]),
    ];
    let launch = [
        "tests/kernels/row_reductions.py",
        "--kernel",
        "row_reductions_kernel",
        "--grid",
        "4",
        "--num-warps",
        "8",
        "--const",
        "BLOCK=2048",
        "--arg",
        "N=2000",
    ];
    let compared = ["sum_ptr", "max_ptr", "arg_ptr", "isum_ptr"];
    spirv_agrees_exactly("spirv wide reductions", &launch, &args, &[], &compared);
}

/// Runs `trident check --backend spirv` on `launch` plus the buffer `args` with zero tolerance
/// (and `env`): every output must match interp exactly, and each buffer of `compared` must have
/// been compared. Without a Vulkan adapter this is a SKIP, unless `TRIDENT_REQUIRE_DEVICES`
/// names spirv.
fn spirv_agrees_exactly(
    test: &str,
    launch: &[&str],
    args: &[String],
    env: &[(&str, &str)],
    compared: &[&str],
) {
    let mut command = vec!["check", "--backend", "spirv", "--atol", "0", "--rtol", "0"];
    command.extend(launch);
    for arg in args {
        command.extend(["--arg", arg.as_str()]);
    }
    let output = trident_with_env(&command, env);
    let text = stdout(&output);
    if stderr(&output).contains("needs a Vulkan adapter") {
        skip_unless_required("spirv", test, "no Vulkan adapter here");
        return;
    }
    assert!(output.status.success(), "{test}: check failed:\n{text}\n{}", stderr(&output));
    for buffer in compared {
        assert!(
            text.lines().any(|l| l.starts_with("spirv") && l.contains(buffer)),
            "{test}: {buffer} not compared:\n{text}"
        );
    }
}

/// Buffers larger than one storage binding are bound as two windows on spirv. The binding limit
/// is lowered to 16 KiB (`TRIDENT_VULKAN_MAX_BINDING_BYTES`) so that the kernel's 24000-byte
/// buffers each take two windows; every output must match interp exactly. Without a Vulkan
/// adapter this is a SKIP, unless `TRIDENT_REQUIRE_DEVICES` names spirv.
#[test]
fn windowed_buffers_agree_with_interp() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-windowed-buffers");
    let n = 24000usize;
    let x: Vec<u8> = (0..n).map(|i| ((i * 37) % 251) as u8).collect();
    let y: Vec<u8> = (0..n / 8).flat_map(|i| (i as i64 * 1_000_003 - (1 << 33)).to_le_bytes()).collect();
    let args = [
        write_npy(&dir, "x_ptr", DType::I8, x),
        write_npy(&dir, "y_ptr", DType::I64, y),
        write_npy(&dir, "out_ptr", DType::I64, vec![0; n]),
        write_npy(&dir, "acc_ptr", DType::F32, vec![0; n]),
    ];
    let launch = [
        "tests/kernels/windowed_buffers.py",
        "--kernel",
        "windowed_buffers_kernel",
        "--grid",
        "47",
        "--const",
        "BLOCK=512",
        "--arg",
        "N=24000",
    ];
    let env = [(trident_runtime::wgpu::MAX_BINDING_ENV, "16384")];
    spirv_agrees_exactly("spirv windowed buffers", &launch, &args, &env, &["x_ptr", "out_ptr", "acc_ptr"]);
}

#[test]
fn check_prints_the_interp_row() {
    let mut args = vec!["check", EXAMPLE];
    args.extend(example_flags());
    let output = trident(&args);
    assert!(output.status.success(), "trident check failed:\n{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.lines().any(|l| l.starts_with("interp") && l.contains("reference")), "{text}");
    assert!(text.contains("nvptx") && text.contains("spirv") && text.contains("not compared"), "{text}");
}

#[test]
fn bench_ends_with_a_bench_line() {
    let mut args = vec!["bench", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--backend", "interp", "--bytes", "12000", "--flops", "1000"]);
    let output = trident(&args);
    assert!(output.status.success(), "trident bench failed:\n{}", stderr(&output));
    let text = stdout(&output);
    let last = text.lines().last().unwrap_or_default();
    let fields: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(fields.first(), Some(&"BENCH"), "{text}");
    let median: f64 = fields[1].strip_prefix("median_ms=").expect("median_ms first").parse().unwrap();
    assert!(median > 0.0);
    assert!(fields[2].starts_with("GB/s=") && fields[3].starts_with("TFLOP/s="), "{last}");
}

/// A bad command line exits non-zero and names the offending argument.
#[test]
fn bad_command_lines_name_the_argument() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--arg", "n_elments=1000"], "n_elments"),
        (vec!["--grid", "4,x"], "--grid"),
        (vec!["--grid", "1,2,3,4"], "--grid"),
        (vec!["--arg", "x_ptr=@examples/data/nothing_here.npy"], "nothing_here.npy"),
        (vec!["--arg", "x_ptr=@examples/data/x.npy:bf16"], "bf16"),
        (vec!["--arg", "x_ptr=@examples/data/x.npy:bf17"], "bf17"),
        (vec!["--arg", "n_elements=ten"], "ten"),
        (vec!["--arg", "BLOCK_SIZE=3"], "BLOCK_SIZE"),
        (vec!["--const", "NOT_A_PARAM=3"], "NOT_A_PARAM"),
        (vec!["--num-warps", "3"], "--num-warps"),
        (vec!["--backend", "cuda"], "cuda"),
    ];
    let out = scratch_dir("cli-bad");
    for (extra, needle) in cases {
        let mut args = vec!["run", EXAMPLE];
        let mut flags = example_flags();
        // A later `--arg NAME=` for an existing name replaces the example's one.
        let replaced = if extra[0] == "--arg" { extra[1].split_once('=').map(|(n, _)| n) } else { None };
        if let Some(name) = replaced {
            if let Some(i) = flags.iter().position(|f| f.starts_with(&format!("{name}="))) {
                flags.drain(i - 1..=i);
            }
        }
        if extra[0] == "--grid" {
            let i = flags.iter().position(|f| *f == "--grid").unwrap();
            flags.drain(i..=i + 1);
        }
        args.extend(flags);
        args.extend(extra.iter().copied());
        args.extend(["--backend", "interp", "--out", out.to_str().unwrap()]);
        let output = trident(&args);
        assert_eq!(output.status.code(), Some(2), "{extra:?} should be a usage error:\n{}", stderr(&output));
        assert!(
            stderr(&output).contains(needle),
            "{extra:?}: stderr does not name {needle}:\n{}",
            stderr(&output)
        );
    }

    let missing_file = trident(&["run", "examples/no_such_kernel.py", "--kernel", "k", "--grid", "1"]);
    assert_eq!(missing_file.status.code(), Some(2));
    assert!(stderr(&missing_file).contains("examples/no_such_kernel.py"), "{}", stderr(&missing_file));

    let missing_arg =
        trident(&["run", EXAMPLE, "--kernel", "add_kernel", "--grid", "1", "--backend", "interp"]);
    assert_eq!(missing_arg.status.code(), Some(2));
    assert!(stderr(&missing_arg).contains("missing --arg x_ptr"), "{}", stderr(&missing_arg));
}

#[test]
fn devices_lists_interp() {
    let output = trident(&["devices"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.lines().any(|l| l.starts_with("interp") && l.contains("available")), "{text}");
    // nvptx is built; whether it is available depends on the machine, and the line says which.
    assert!(
        text.lines()
            .any(|l| l.starts_with("nvptx") && (l.contains("available") || l.contains("unavailable"))),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("spirv") && (l.contains("available") || l.contains("unavailable"))),
        "{text}"
    );
}

/// Every device named in `TRIDENT_REQUIRE_DEVICES` must be available; others SKIP.
#[test]
fn required_devices_are_available() {
    let required = std::env::var("TRIDENT_REQUIRE_DEVICES").unwrap_or_default();
    let required: Vec<&str> = required.split(',').map(str::trim).filter(|d| !d.is_empty()).collect();
    let listing = stdout(&trident(&["devices"]));
    for device in ["interp", "nvptx", "spirv"] {
        let available = listing.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.get(..2) == Some(&[device, "available"][..])
        });
        if available {
            continue;
        }
        if required.contains(&device) {
            panic!("TRIDENT_REQUIRE_DEVICES names {device}, but `trident devices` says:\n{listing}");
        }
        println!("SKIP {device}: not available here (set TRIDENT_REQUIRE_DEVICES={device} to require it)");
    }
}

/// `tl.range(..., loop_unroll_factor=4)` (tests/kernels/unrolled_loop.py) computes exactly what
/// the loop computes without unrolling, for trip counts that leave remainders of every size and
/// for none at all.
#[test]
fn unrolled_loops_compute_the_same_values() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-unrolled-loop");
    let x: Vec<u8> = (0..64 * 40).flat_map(|i| (((i * 29) % 97) as f32 / 8.0 - 6.0).to_le_bytes()).collect();
    let x_arg = write_npy(&dir, "x_ptr", DType::F32, x);
    let out_arg = write_npy(&dir, "out_ptr", DType::F32, vec![0; 64 * 4]);
    for n in ["0", "1", "7", "9", "31", "36"] {
        let mut outputs = Vec::new();
        for unroll in ["1", "4"] {
            let out = dir.join(format!("n{n}-u{unroll}"));
            let output = trident(&[
                "run",
                "tests/kernels/unrolled_loop.py",
                "--kernel",
                "unrolled_loop_kernel",
                "--backend",
                "interp",
                "--grid",
                "1",
                "--const",
                "BLOCK=64",
                "--const",
                &format!("UNROLL={unroll}"),
                "--arg",
                &x_arg,
                "--arg",
                &out_arg,
                "--arg",
                &format!("N={n}"),
                "--out",
                out.to_str().unwrap(),
            ]);
            assert!(output.status.success(), "N={n} UNROLL={unroll}: {}", stderr(&output));
            outputs.push(read_f32(&out.join("out_ptr.npy")));
        }
        assert_eq!(outputs[0], outputs[1], "N={n}: unrolled and plain loops differ");
        if n != "0" {
            assert!(outputs[0].iter().any(|&v| v != 0.0), "N={n}: the loop did not run");
        }
    }
}

/// Loop hints trident does not apply (`flatten`, `warp_specialize`) compile, with one warning
/// each that names the loop's Python line.
#[test]
fn unapplied_loop_hints_are_warned_about() {
    let output = trident(&[
        "compile",
        "tests/kernels/loop_hints.py",
        "--kernel",
        "loop_hints_kernel",
        "--emit",
        "ttir",
        "--const",
        "BLOCK=64",
        "--arg",
        "x_ptr=*fp32",
        "--arg",
        "out_ptr=*fp32",
        "--arg",
        "N=8",
    ]);
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    for hint in ["flatten=True", "warp_specialize=True"] {
        let warning = format!("warning: tl.range({hint}) is not applied");
        assert_eq!(text.matches(&warning).count(), 1, "{text}");
    }
    assert!(text.contains("tests/kernels/loop_hints.py:13:5"), "{text}");
    assert!(text.contains("for i in tl.range(0, N, flatten=True, warp_specialize=True):"), "{text}");
}
