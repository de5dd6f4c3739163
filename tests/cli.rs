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
    agreeing_backends, example_flags, scratch_dir, show_skip, skip_unless_required, stderr, stdout, trident,
    trident_with_env, trident_without_env, write_npy, EXAMPLE,
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
    // interp was asked for by name: no fallback note; one line says where it ran and what it
    // wrote (run printed nothing on success).
    let text = stderr(&output);
    assert!(!text.contains("--backend auto"), "{text}");
    let files: Vec<String> = ["x_ptr", "y_ptr", "output_ptr"]
        .iter()
        .map(|name| out.join(format!("{name}.npy")).display().to_string())
        .collect();
    assert_eq!(
        text,
        format!(
            "note: ran add_kernel on interp (the reference interpreter, on the CPU) over grid 4,1,1; wrote {}\n",
            files.join(", ")
        )
    );
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

/// The split precisions (`tf32x3`, `bf16x3`, `bf16x6`: Triton's f32-accurate forms) are taken
/// as `ieee` everywhere: `tests/kernels/fma_dot.py` with each of them compiles to the TTGIR of
/// its `ieee` form but for the attribute (the same FMA layouts, the same pipelined rings) and to
/// the same PTX for sm_90a.
#[test]
fn split_precisions_compile_as_ieee_dots() {
    let source = std::fs::read_to_string("tests/kernels/fma_dot.py").unwrap();
    let header = source.lines().next().unwrap().strip_prefix("# compile: ").unwrap();
    let dir = scratch_dir("split_precisions");
    let compile = |precision: &str, emit: &str| -> String {
        let path = dir.join(format!("fma_dot_{precision}.py"));
        let text = source.replace("input_precision=\"ieee\"", &format!("input_precision=\"{precision}\""));
        std::fs::write(&path, text).unwrap();
        let mut args = vec!["compile", path.to_str().unwrap(), "--emit", emit, "--target", "sm_90a"];
        args.extend(header.split_whitespace());
        let output = trident(&args);
        assert!(output.status.success(), "{precision} --emit {emit}:\n{}", stderr(&output));
        stdout(&output)
            .replace(&format!("\"{precision}\""), "\"PRECISION\"")
            .replace(&*path.to_string_lossy(), "FILE")
    };
    let (ieee_ttgir, ieee_ptx) = (compile("ieee", "ttgir"), compile("ieee", "ptx"));
    assert!(
        ieee_ttgir.contains("ttg.async_copy_global_to_local"),
        "the ieee loop is not pipelined:\n{ieee_ttgir}"
    );
    for precision in ["tf32x3", "bf16x3", "bf16x6"] {
        assert_eq!(compile(precision, "ttgir"), ieee_ttgir, "{precision}: TTGIR");
        assert_eq!(compile(precision, "ptx"), ieee_ptx, "{precision}: PTX");
    }
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

/// Without `XDG_RUNTIME_DIR` (CI, containers, ssh), spirv commands keep stderr clean: Mesa's
/// device-selection layer asked libwayland for a display, which printed "XDG_RUNTIME_DIR is
/// invalid or not set" twice per command. Without a Vulkan adapter this is a SKIP, unless
/// `TRIDENT_REQUIRE_DEVICES` names spirv.
#[test]
fn spirv_without_xdg_runtime_dir_keeps_stderr_clean() {
    let out = scratch_dir("cli-spirv-no-xdg");
    let mut run = vec!["run", EXAMPLE, "--backend", "spirv", "--out", out.to_str().unwrap()];
    run.extend(example_flags());
    let output = trident_without_env(&run, &["XDG_RUNTIME_DIR"]);
    let text = stderr(&output);
    if text.contains("needs a Vulkan adapter") {
        skip_unless_required("spirv", "spirv without XDG_RUNTIME_DIR", "no Vulkan adapter here");
        return;
    }
    assert!(output.status.success(), "{text}");
    assert!(!text.contains("XDG_RUNTIME_DIR"), "{text}");
    let devices = trident_without_env(&["devices"], &["XDG_RUNTIME_DIR"]);
    assert!(!stderr(&devices).contains("XDG_RUNTIME_DIR"), "{}", stderr(&devices));
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

/// Rows walked in blocks (`tests/kernels/blocked_rows.py`): on spirv the reading loop runs whole
/// blocks four a trip without masks and the writing loop's whole blocks lose their masks; the
/// partial last block keeps them. Sums and outputs agree with interp exactly (small integers),
/// and the room past the last row keeps its sentinel.
#[test]
fn blocked_rows_agree_with_interp() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-blocked-rows");
    let (rows, n, room) = (3usize, 589usize, 64usize);
    let x: Vec<u8> = (0..rows * n).flat_map(|i| (((i * 7919) % 29) as f32 - 14.0).to_le_bytes()).collect();
    let y: Vec<u8> = (0..rows * n + room).flat_map(|_| 7.0f32.to_le_bytes()).collect();
    let args = [
        write_npy(&dir, "x_ptr", DType::F32, x),
        write_npy(&dir, "y_ptr", DType::F32, y),
        write_npy(&dir, "sum_ptr", DType::F32, vec![0; rows * 4]),
    ];
    let launch = [
        "tests/kernels/blocked_rows.py",
        "--kernel",
        "blocked_rows_kernel",
        "--grid",
        "3",
        "--num-warps",
        "1",
        "--const",
        "BLOCK=64",
        "--arg",
        "N=589",
    ];
    spirv_agrees_exactly("spirv blocked rows", &launch, &args, &[], &["y_ptr", "sum_ptr"]);
}

/// Integers widened to int64 and compared with constants (`tests/kernels/int64_compares.py`),
/// tensors and scalars, at values on both sides of each constant and at the i32 extremes, agree
/// with interp exactly on spirv. lavapipe (Mesa 22.3) folded every such comparison of a value
/// sign-extended by `OpSConvert` wrongly (`n.to(tl.int64) >= 128` true for 100 and -5); the
/// backend sign-extends by shifts instead.
#[test]
fn int64_compares_agree_with_interp() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-int64-compares");
    let x: [i32; 16] = [100, -5, 200, 128, 127, -3, i32::MIN, i32::MAX, 0, 1, -1, 50, 129, -4, 5, 99];
    for n in ["100", "-5", "128"] {
        let args = [
            write_npy(&dir, "x_ptr", DType::I32, x.iter().flat_map(|v| v.to_le_bytes()).collect()),
            write_npy(&dir, "out_ptr", DType::I32, vec![0; 14 * 16 * 4]),
        ];
        let n_arg = format!("n={n}");
        let launch = [
            "tests/kernels/int64_compares.py",
            "--kernel",
            "int64_compares_kernel",
            "--grid",
            "1",
            "--const",
            "BLOCK=16",
            "--arg",
            n_arg.as_str(),
        ];
        spirv_agrees_exactly(&format!("spirv int64 compares, n={n}"), &launch, &args, &[], &["out_ptr"]);
    }
}

/// `tl.maximum` / `tl.minimum` and the max and min reductions with NaN operands (the non-NaN
/// operand wins; NaN only where both are) agree with interp element for element on spirv, where
/// the Vulkan dialect uses GLSL's NMax/NMin.
#[test]
fn nan_max_min_agree_with_interp() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-nan-max-min");
    let (rows, n) = (3usize, 256usize);
    // Every fifth x and every seventh y is NaN; row 2 of x is NaN but for one element.
    let value = |i: usize, scale: f32| ((i * 7919) % 101) as f32 * scale - 50.0;
    let x: Vec<f32> = (0..rows * n)
        .map(|i| if i % 5 == 0 || (i / n == 2 && i % n != 17) { f32::NAN } else { value(i, 1.0) })
        .collect();
    let y: Vec<f32> = (0..rows * n).map(|i| if i % 7 == 0 { f32::NAN } else { value(i, 0.5) }).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
    let args = [
        write_npy(&dir, "x_ptr", DType::F32, bytes(&x)),
        write_npy(&dir, "y_ptr", DType::F32, bytes(&y)),
        write_npy(&dir, "max_ptr", DType::F32, vec![0; rows * n * 4]),
        write_npy(&dir, "min_ptr", DType::F32, vec![0; rows * n * 4]),
        write_npy(&dir, "row_max_ptr", DType::F32, vec![0; rows * 4]),
        write_npy(&dir, "row_min_ptr", DType::F32, vec![0; rows * 4]),
    ];
    let launch = [
        "tests/kernels/nan_max_min.py",
        "--kernel",
        "nan_max_min_kernel",
        "--grid",
        "3",
        "--const",
        "BLOCK=256",
    ];
    let compared = ["max_ptr", "min_ptr", "row_max_ptr", "row_min_ptr"];
    spirv_agrees_exactly("spirv NaN max and min", &launch, &args, &[], &compared);
}

/// `tl.swizzle2d` renumbers a grid's positions so that it is walked in bands of `size_g` rows,
/// each band column by column (Triton's docstring example; a last band of fewer rows), on tensors
/// with runtime sizes and on scalars with compile-time ones. Each matrix holds, where a position
/// is sent, that position's row-major index.
#[test]
fn swizzle2d_walks_bands_column_by_column() {
    let on_tensors = |rows: usize, cols: usize, group: usize| {
        let flags = [
            format!("--arg=size_i={rows}"),
            format!("--arg=size_j={cols}"),
            format!("--arg=size_g={group}"),
            format!("--const=BLOCK_I={rows}"),
            format!("--const=BLOCK_J={cols}"),
        ];
        swizzled("swizzle2d_kernel", 1, (rows, cols), &flags)
    };
    assert_eq!(
        on_tensors(4, 4, 2),
        [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]].map(Vec::from).to_vec()
    );
    let bands_of_three = [
        [0, 3, 6, 9],
        [1, 4, 7, 10],
        [2, 5, 8, 11],
        [12, 15, 18, 21],
        [13, 16, 19, 22],
        [14, 17, 20, 23],
        [24, 26, 28, 30],
        [25, 27, 29, 31],
    ];
    assert_eq!(on_tensors(8, 4, 3), bands_of_three.map(Vec::from).to_vec());
    let flags = ["--const=SIZE_I=5", "--const=SIZE_J=4", "--const=SIZE_G=2"].map(String::from);
    assert_eq!(
        swizzled("swizzle2d_program_kernel", 20, (5, 4), &flags),
        [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15], [16, 17, 18, 19]]
            .map(Vec::from)
            .to_vec()
    );
}

/// Runs `kernel` of `tests/kernels/swizzle2d.py` on interp over `programs` programs for a grid of
/// `rows x cols` positions, and returns the matrix that holds, at each position's new place, its
/// row-major index (-1 where none lands).
fn swizzled(kernel: &str, programs: usize, (rows, cols): (usize, usize), flags: &[String]) -> Vec<Vec<i32>> {
    use trident_midend::ir::DType;
    let dir = scratch_dir(&format!("cli-swizzle2d-{kernel}-{rows}x{cols}"));
    let args =
        ["new_i_ptr", "new_j_ptr"].map(|name| write_npy(&dir, name, DType::I32, vec![0; rows * cols * 4]));
    let (grid, out) = (programs.to_string(), dir.join("out"));
    let mut command = vec!["run", "tests/kernels/swizzle2d.py", "--kernel", kernel, "--backend", "interp"];
    command.extend(["--grid", &grid, "--out", out.to_str().unwrap()]);
    for arg in &args {
        command.extend(["--arg", arg.as_str()]);
    }
    command.extend(flags.iter().map(String::as_str));
    let output = trident(&command);
    assert!(output.status.success(), "{kernel}: {}", stderr(&output));
    let read = |name: &str| -> Vec<i32> {
        let buffer =
            npy::read(&out.join(format!("{name}.npy")), name, None).unwrap_or_else(|e| panic!("{e}"));
        buffer.bytes.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    };
    let (new_i, new_j) = (read("new_i_ptr"), read("new_j_ptr"));
    let mut matrix = vec![vec![-1; cols]; rows];
    for n in 0..rows * cols {
        matrix[new_i[n] as usize][new_j[n] as usize] = n as i32;
    }
    matrix
}

/// `tl.gather` along either axis of a tile, with an index tile of another length along it (i32
/// and i64 indices, f32 and f16 elements): interp computes numpy's `take_along_axis`, and spirv
/// agrees with it exactly. An index outside the source is reported with the Python line on
/// interp (Triton leaves it undefined).
#[test]
fn gather_takes_elements_along_either_axis() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-gather");
    let (src_rows, src_cols) = (8usize, 16usize);
    let source: Vec<f32> = (0..src_rows * src_cols).map(|i| (i * 37 % 101) as f32 * 0.5 - 20.0).collect();
    for (axis, rows, cols, wide) in [(0usize, 4usize, 16usize, false), (1, 8, 32, true)] {
        let along = if axis == 0 { src_rows } else { src_cols };
        let index: Vec<i64> = (0..rows * cols).map(|i| ((i * 7919 + 3) % along) as i64).collect();
        let (element, index_dtype) = if wide { (DType::F16, DType::I64) } else { (DType::F32, DType::I32) };
        let src_bytes: Vec<u8> = match element {
            DType::F16 => source.iter().flat_map(|&v| half::f16::from_f32(v).to_le_bytes()).collect(),
            _ => source.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        let index_bytes: Vec<u8> = match index_dtype {
            DType::I64 => index.iter().flat_map(|v| v.to_le_bytes()).collect(),
            _ => index.iter().flat_map(|&v| (v as i32).to_le_bytes()).collect(),
        };
        let case = dir.join(format!("axis{axis}"));
        std::fs::create_dir_all(&case).unwrap();
        let args = [
            write_npy(&case, "src_ptr", element, src_bytes),
            write_npy(&case, "index_ptr", index_dtype, index_bytes.clone()),
            write_npy(&case, "out_ptr", element, vec![0; rows * cols * element.size_bytes()]),
        ];
        let consts = [
            format!("SRC_ROWS={src_rows}"),
            format!("SRC_COLS={src_cols}"),
            format!("ROWS={rows}"),
            format!("COLS={cols}"),
            format!("AXIS={axis}"),
        ];
        let mut launch = vec!["tests/kernels/gather.py", "--kernel", "gather_kernel", "--grid", "1"];
        for c in &consts {
            launch.extend(["--const", c.as_str()]);
        }
        let out = case.join("out");
        let mut run = vec!["run", "--backend", "interp", "--out", out.to_str().unwrap()];
        run.extend(&launch);
        for arg in &args {
            run.extend(["--arg", arg.as_str()]);
        }
        let output = trident(&run);
        assert!(output.status.success(), "axis {axis}: {}", stderr(&output));
        let got =
            npy::read(&out.join("out_ptr.npy"), "out_ptr", None).unwrap_or_else(|e| panic!("{e}")).bytes;
        for (n, &at) in index.iter().enumerate() {
            let (r, c) = (n / cols, n % cols);
            let (sr, sc) = if axis == 0 { (at as usize, c) } else { (r, at as usize) };
            let want = source[sr * src_cols + sc];
            let value = match element {
                DType::F16 => half::f16::from_le_bytes([got[2 * n], got[2 * n + 1]]).to_f32(),
                _ => f32::from_le_bytes([got[4 * n], got[4 * n + 1], got[4 * n + 2], got[4 * n + 3]]),
            };
            let want = if element == DType::F16 { half::f16::from_f32(want).to_f32() } else { want };
            assert_eq!(value, want, "axis {axis}: out[{r}][{c}] (index {at})");
        }
        spirv_agrees_exactly(&format!("spirv gather along axis {axis}"), &launch, &args, &[], &["out_ptr"]);
        // One index past the end.
        let mut outside = index_bytes;
        outside[..index_dtype.size_bytes()]
            .copy_from_slice(&(along as i64).to_le_bytes()[..index_dtype.size_bytes()]);
        let bad = write_npy(&case, "index_ptr", index_dtype, outside);
        let mut run = vec!["run", "--backend", "interp", "--out", out.to_str().unwrap()];
        run.extend(&launch);
        for arg in [&args[0], &bad, &args[2]] {
            run.extend(["--arg", arg.as_str()]);
        }
        let output = trident(&run);
        let text = stderr(&output);
        assert!(!output.status.success(), "axis {axis}: an index outside the source ran");
        assert!(
            text.contains(&format!(
                "tl.gather index {along} is outside the source's {along} elements along axis {axis}"
            )) && text.contains("tl.gather(src, index, AXIS)"),
            "{text}"
        );
    }
}

/// `tl.uint_to_uniform_float` (32- and 64-bit words, negative ones folded as Triton folds them)
/// and `tl.pair_uniform_to_normal` (Box-Muller) called on a kernel's own words, on interp,
/// against the formulas computed here; spirv agrees with interp.
#[test]
fn random_conversions_follow_tritons_formulas() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-random-conversions");
    let block = 64usize;
    let words: Vec<i32> =
        (0..2 * block as i64).map(|i| (i * 2_654_435_761 % (1 << 32) - (1 << 31)) as i32).collect();
    let wide: Vec<i64> = (0..block as i64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64)).collect();
    let args = [
        write_npy(&dir, "words_ptr", DType::I32, words.iter().flat_map(|w| w.to_le_bytes()).collect()),
        write_npy(&dir, "wide_ptr", DType::I64, wide.iter().flat_map(|w| w.to_le_bytes()).collect()),
        write_npy(&dir, "uniform_ptr", DType::F32, vec![0; 2 * block * 4]),
        write_npy(&dir, "uniform64_ptr", DType::F32, vec![0; block * 4]),
        write_npy(&dir, "normal_ptr", DType::F32, vec![0; 2 * block * 4]),
    ];
    let launch = [
        "tests/kernels/random_conversions.py",
        "--kernel",
        "random_conversions_kernel",
        "--grid",
        "1",
        "--const",
        "BLOCK=64",
    ];
    let out = dir.join("out");
    let mut run = vec!["run", "--backend", "interp", "--out", out.to_str().unwrap()];
    run.extend(launch);
    for arg in &args {
        run.extend(["--arg", arg.as_str()]);
    }
    let output = trident(&run);
    assert!(output.status.success(), "{}", stderr(&output));
    let uniform = read_f32(&out.join("uniform_ptr.npy"));
    let uniform64 = read_f32(&out.join("uniform64_ptr.npy"));
    let normal = read_f32(&out.join("normal_ptr.npy"));
    for (i, &w) in words.iter().enumerate() {
        let folded = if w < 0 { -(w as i64) - 1 } else { w as i64 };
        assert_eq!(uniform[i], folded as f32 * 4.6566127342e-10_f64 as f32, "uniform[{i}] of {w}");
        assert!((0.0..1.0).contains(&uniform[i]), "uniform[{i}] = {}", uniform[i]);
    }
    for (i, &w) in wide.iter().enumerate() {
        let folded = if w < 0 { -(w as i128) - 1 } else { w as i128 };
        assert_eq!(uniform64[i], folded as f32 * 1.0842020432385337e-19_f64 as f32, "uniform64[{i}] of {w}");
    }
    for i in 0..block {
        let (u1, u2) = (f64::from(uniform[i].max(1.0e-7)), f64::from(uniform[block + i]));
        let radius = (-2.0 * u1.ln()).sqrt();
        let angle = std::f64::consts::TAU * u2;
        for (got, want) in [(normal[i], radius * angle.cos()), (normal[block + i], radius * angle.sin())] {
            assert!(
                (f64::from(got) - want).abs() <= 1e-4 * want.abs().max(1.0),
                "normal of pair {i}: {got} vs {want}"
            );
        }
    }
    // spirv within Vulkan's precision: sin and cos within 2^-11 absolute on [-pi, pi], times a
    // radius of at most sqrt(-2 ln 1e-7) < 5.7 (lavapipe is 8.5e-5 off near a zero of cos).
    let mut check = vec!["check", "--backend", "spirv", "--atol", "3e-3"];
    check.extend(launch);
    for arg in &args {
        check.extend(["--arg", arg.as_str()]);
    }
    let output = trident(&check);
    if stderr(&output).contains("needs a Vulkan adapter") {
        skip_unless_required("spirv", "random_conversions_follow_tritons_formulas", "no Vulkan adapter here");
        return;
    }
    assert!(output.status.success(), "{}\n{}", stdout(&output), stderr(&output));
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
    // Each other backend either ran and agreed or is listed as not compared, with its reason.
    let agreeing = agreeing_backends(&text);
    let not_compared = text.lines().find(|l| l.starts_with("not compared: ")).unwrap_or_default();
    for backend in ["nvptx", "spirv"] {
        assert!(agreeing.contains(&backend) || not_compared.contains(&format!("{backend}: ")), "{text}");
    }
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

/// `bench` on interp and spirv times at least 3 launches and stops at 1000 or after 2 s, as the
/// README says (it said 100 while spirv ran 1000): a bench that ended in under 2 s stopped at 1000.
/// Without a Vulkan adapter the spirv half is a SKIP, unless `TRIDENT_REQUIRE_DEVICES` names it.
#[test]
fn bench_times_up_to_1000_launches_or_2_seconds() {
    for backend in ["interp", "spirv"] {
        let mut args = vec!["bench", EXAMPLE];
        args.extend(example_flags());
        args.extend(["--backend", backend]);
        let started = std::time::Instant::now();
        let output = trident(&args);
        let elapsed = started.elapsed();
        let text = stdout(&output);
        if backend == "spirv" && stderr(&output).contains("needs a Vulkan adapter") {
            skip_unless_required("spirv", "spirv bench", "no Vulkan adapter here");
            continue;
        }
        assert!(output.status.success(), "{backend}: {}", stderr(&output));
        // "bench: add_kernel on interp: N launches after warm-up (...), min ..., median ..."
        let summary = text.lines().find(|l| l.starts_with("bench: ")).unwrap_or_else(|| panic!("{text}"));
        let runs: usize = summary
            .split(": ")
            .nth(2)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no launch count in {summary}"));
        assert!((3..=1000).contains(&runs), "{backend}: {summary}");
        if elapsed < std::time::Duration::from_secs(2) {
            assert_eq!(runs, 1000, "{backend} ended in {elapsed:?} before 1000 launches: {summary}");
        }
    }
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

/// A kernel error ends with one line holding its message and place, after the Python line and
/// caret: the corpus runner shows the last three lines of stderr, which held the source line and
/// caret but not the message.
#[test]
fn a_kernel_error_ends_with_its_message() {
    let kernel = "tests/kernels/errors/not_a_jit_function.py";
    let args = ["compile", kernel, "--kernel", "scale_kernel", "--emit", "ttir", "--const", "BLOCK=64"];
    let mut args = args.to_vec();
    args.extend(["--arg", "x_ptr=*fp32", "--arg", "n=100"]);
    let output = trident(&args);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let message = "`twice` is not a @triton.jit function: a kernel can only call functions decorated with \
                   @triton.jit";
    assert!(text.starts_with(&format!("error: {message}\n")), "{text}");
    // What run.py shows of a failure: " | ".join(stderr.strip().splitlines()[-3:]).
    let lines: Vec<&str> = text.trim().lines().collect();
    let shown = lines[lines.len() - 3..].join(" | ");
    assert!(shown.ends_with(&format!("error: {kernel}:15:28: {message}")), "{shown}");
}

/// A missing `--const` is a usage error like a missing `--arg` (exit 2, one line naming it), for
/// every verb that compiles: it used to reach the frontend and exit 1 as a kernel error.
#[test]
fn a_missing_const_is_a_usage_error() {
    let out = scratch_dir("cli-missing-const");
    let mut flags = example_flags();
    let i = flags.iter().position(|f| *f == "BLOCK_SIZE=256").unwrap();
    flags.drain(i - 1..=i);
    for verb in ["run", "compile", "check", "bench"] {
        let mut args = vec![verb, EXAMPLE];
        args.extend(flags.iter().copied());
        match verb {
            "compile" => args.extend(["--emit", "ttir"]),
            _ => args.extend(["--backend", "interp", "--out", out.to_str().unwrap()]),
        }
        let output = trident(&args);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{verb}: {text}");
        assert_eq!(text, "error: missing --const BLOCK_SIZE=VALUE: a tl.constexpr parameter of add_kernel\n");
    }
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

/// Each Vulkan adapter's line says what the spirv backend may use of it: subgroup sizes and
/// operations, 16-bit storage, and the cooperative matrix shapes (`none` where there are none).
#[test]
fn devices_list_what_each_vulkan_adapter_offers() {
    let listing = stdout(&trident(&["devices"]));
    let adapters: Vec<&str> = listing.lines().filter(|l| l.trim_start().starts_with("vulkan:")).collect();
    if adapters.is_empty() {
        skip_unless_required(
            "spirv",
            "devices_list_what_each_vulkan_adapter_offers",
            "no Vulkan adapter here",
        );
        return;
    }
    for line in adapters {
        for fact in [
            "subgroup size ",
            "subgroup operations ",
            "f16 and 16-bit storage ",
            "VK_NV_cooperative_matrix2 ",
            "per-element matrix operations ",
            "cooperative matrices ",
        ] {
            assert!(line.contains(fact), "`{fact}` missing from {line}");
        }
        let shapes = line.split("cooperative matrices ").nth(1).unwrap();
        assert!(
            shapes == "none" || shapes.split(", ").all(|s| s.contains('x') && s.contains("->")),
            "{line}"
        );
    }
}

/// A program written against `import trident` / `import trident.language as tl` (the Python
/// package's own names) compiles to the TTIR of the same program written against `triton`, with
/// its autotune configs and heuristics.
#[test]
fn trident_imports_stand_for_triton_imports() {
    let dir = scratch_dir("cli-trident-imports");
    let body = |package: &str| {
        format!(
            "import {package}\nimport {package}.language as tl\nfrom {package}.language import arange\n\n\
             @{package}.autotune(configs=[{package}.Config({{'BLOCK': 64}}), {package}.Config({{'BLOCK': 128}})], key=['n'])\n\
             @{package}.heuristics({{'EVEN': lambda args: args['n'] % args['BLOCK'] == 0}})\n\
             @{package}.jit\n\
             def scale(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n\
             \x20   offsets = tl.program_id(0) * BLOCK + arange(0, BLOCK)\n\
             \x20   x = tl.load(x_ptr + offsets, mask=offsets < n)\n\
             \x20   tl.store(x_ptr + offsets, x * 2.0, mask=offsets < n)\n"
        )
    };
    let mut ttir = Vec::new();
    for package in ["triton", "trident"] {
        let path = dir.join(format!("{package}_scale.py"));
        std::fs::write(&path, body(package)).unwrap();
        let output = trident(&[
            "compile",
            path.to_str().unwrap(),
            "--kernel",
            "scale",
            "--emit",
            "ttir",
            "--config",
            "1",
            "--arg",
            "x_ptr=*fp32",
            "--arg",
            "n=1000",
        ]);
        assert!(output.status.success(), "{package}: {}", stderr(&output));
        ttir.push(stdout(&output).replace(path.to_str().unwrap(), "FILE"));
    }
    assert_eq!(ttir[0], ttir[1]);
}

/// spirv's 16-bit storage and wide accesses (`TRIDENT_VULKAN_16BIT_STORAGE=1` turns the first on,
/// `TRIDENT_VULKAN_WIDE_ACCESS=0` the second off) agree with the interpreter on fp32 -> fp16/bf16 casts stored to
/// 16-bit buffers, the round trip back to fp32 and fp16 arithmetic on halves read back, with
/// either, both and neither.
#[test]
fn spirv_16_bit_storage_matches_interp() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-spirv-16bit");
    let kernel = dir.join("halves.py");
    std::fs::write(
        &kernel,
        "import triton\nimport triton.language as tl\n\n\
         @triton.jit\n\
         def halves(x_ptr, h_ptr, bf_ptr, back_ptr, sum_ptr, N, BLOCK: tl.constexpr):\n\
         \x20   i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n\
         \x20   live = i < N\n\
         \x20   x = tl.load(x_ptr + i, mask=live, other=0.0)\n\
         \x20   h = x.to(tl.float16)\n\
         \x20   tl.store(h_ptr + i, h, mask=live)\n\
         \x20   tl.store(bf_ptr + i, x.to(tl.bfloat16), mask=live)\n\
         \x20   tl.store(back_ptr + i, h.to(tl.float32), mask=live)\n\
         \x20   tl.store(sum_ptr + i, tl.load(h_ptr + i, mask=live) + h, mask=live)\n",
    )
    .unwrap();
    let n = 300usize;
    let mut x: Vec<f32> =
        (0..n).map(|i| (i as f32 * 0.37 - 50.0) * 3.3 + if i == 5 { 1e-8 } else { 0.0 }).collect();
    // The ends of f16's range: the largest finite, the first that rounds to infinity, subnormals
    // (one a tie between two of them), the smallest normal, infinities and NaN.
    let specials = [
        65504.0,
        65519.0,
        65520.0,
        -70000.0,
        1e-7,
        -3e-6,
        1.5 * 2f32.powi(-24),
        2.5 * 2f32.powi(-24),
        2f32.powi(-14),
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    x[n - specials.len()..].copy_from_slice(&specials);
    let x_arg = write_npy(&dir, "x_ptr", DType::F32, x.iter().flat_map(|v| v.to_le_bytes()).collect());
    let h_arg = write_npy(&dir, "h_ptr", DType::F16, vec![0; n * 2]);
    let bf_arg = write_npy(&dir, "bf_ptr", DType::BF16, vec![0; n * 2]);
    let back_arg = write_npy(&dir, "back_ptr", DType::F32, vec![0; n * 4]);
    let sum_arg = write_npy(&dir, "sum_ptr", DType::F16, vec![0; n * 2]);
    for (storage, wide) in [("0", "0"), ("1", "0"), ("0", "1"), ("1", "1")] {
        #[rustfmt::skip]
        let args = [
            "check", kernel.to_str().unwrap(), "--kernel", "halves", "--grid", "3", "--const", "BLOCK=128",
            "--arg", &x_arg, "--arg", &h_arg, "--arg", &bf_arg, "--arg", &back_arg, "--arg", &sum_arg,
            "--arg", "N=300",
        ];
        let env = [("TRIDENT_VULKAN_16BIT_STORAGE", storage), ("TRIDENT_VULKAN_WIDE_ACCESS", wide)];
        let output = trident_with_env(&args, &env);
        let text = stdout(&output);
        if text.lines().any(|l| l.starts_with("spirv") && l.contains("unavailable")) {
            skip_unless_required("spirv", "spirv_16_bit_storage_matches_interp", "no Vulkan adapter here");
            return;
        }
        assert!(
            output.status.success(),
            "TRIDENT_VULKAN_16BIT_STORAGE={storage}: {}\n{text}",
            stderr(&output)
        );
        assert!(
            agreeing_backends(&text).contains(&"spirv"),
            "TRIDENT_VULKAN_16BIT_STORAGE={storage}: {text}"
        );
    }
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
        show_skip(&format!(
            "SKIP {device}: not available here (set TRIDENT_REQUIRE_DEVICES={device} to require it)"
        ));
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

/// Loop hints trident does not apply (`flatten`, `warp_specialize` on a loop of pointer loads)
/// compile, with one warning each that names the loop's Python line, though the helper holding
/// the loop is inlined at two calls.
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
    assert!(text.contains("tests/kernels/loop_hints.py:12:5"), "{text}");
    assert!(text.contains("for i in tl.range(0, N, flatten=True, warp_specialize=True):"), "{text}");
}

const ATTN_KERNEL: &str = "tests/kernels/attn_fwd.py";

/// `warp_specialize=True` on loops whose dots read their tiles through tensor descriptors
/// (attn_fwd's K and V) is applied on sm_90a: no warning, and both loops of the causal STAGE 3
/// become producer/consumer partitions.
#[test]
fn warp_specialize_on_descriptor_loops_is_applied() {
    let header = std::fs::read_to_string(ATTN_KERNEL).unwrap();
    let flags = header.lines().next().unwrap().strip_prefix("# compile: ").unwrap();
    assert!(flags.contains("STAGE=3") && flags.contains("warp_specialize=True"), "{flags}");
    let mut args = vec!["compile", ATTN_KERNEL, "--emit", "ttgir", "--target", "sm_90a"];
    args.extend(flags.split_whitespace());
    let output = trident(&args);
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert!(!text.contains("warp_specialize"), "{text}");
    let ttgir = String::from_utf8_lossy(&output.stdout);
    assert_eq!(ttgir.matches("ttng.warp_specialize {producer_warps = 4").count(), 2, "{ttgir}");
}

/// One specialization of tests/kernels/attn_fwd.py, launched over `(n_ctx / block_m, heads)`
/// programs with one batch (`Z = 1`).
struct AttnCase {
    stage: u32,
    fp8_output: bool,
    warp_specialize: bool,
    is_hopper: bool,
    heads: usize,
    n_ctx: usize,
    head_dim: usize,
    block_m: usize,
    block_n: usize,
    num_warps: u32,
}

/// The fused attention forward of Triton's tutorial 06 (tests/kernels/attn_fwd.py) on interp
/// agrees with softmax attention computed here in f64 from the same inputs: `O = softmax(S) V`
/// with `S = Q K^T sm_scale`, keys past the row masked out for STAGE 3 (causal), and
/// `M = log2(sum_j exp(S_ij))`, each row's log-sum-exp in log2 units. That is what the kernel
/// stores as `m_i + log2(l_i)`: `m_i` is the running maximum of `S_ij log2(e)` (the scores
/// times `qk_scale`) and `l_i` the sum of `exp2(S_ij log2(e) - m_i)`, rescaled by `alpha`
/// whenever `m_i` grows (its initial 1.0 is multiplied by `exp2(-inf) = 0` in the first
/// iteration), so `m_i + log2(l_i) = log2(sum_j 2^(S_ij log2(e)))`.
///
/// Tolerances are the acceptance corpus's for flash attention: O within 1e-2 (absolute and
/// relative), M within 2e-3 absolute plus 1e-4 relative. With `FP8_OUTPUT` the inputs, P (before
/// the `P V` dot) and O are e5m2, which keeps three significant bits (a rounding moves a value by
/// up to 1/8 of itself). The inputs are read back exactly, but no fixed tolerance fits O: a
/// causal row with a few keys averages nothing away. So each element of O gets the bound of the
/// two roundings, derived rather than tuned: rounding every `p_j` moves `O_id` by at most
/// `1/8 sum_j (w_ij + 2^-14) |v_jd|` (`w_ij` the softmax weights; `l_i >= 1` sums P before its
/// rounding; below e5m2's smallest normal, 2^-14, a rounding moves `p_j` by up to 2^-17), and
/// rounding O moves it by at most 1/8 of itself; 1e-3 more covers f32 arithmetic. M is computed
/// from P before its rounding and keeps its tolerance.
///
/// The cases cover both stages, fp16 and fp8, `warp_specialize` on and off (it is not applied;
/// the result must not change), and the accumulator split that the kernel takes when
/// `IS_HOPPER` is false (`reshape`, `permute`, `split`, `join` and back).
#[test]
fn attn_fwd_matches_a_softmax_reference_on_interp() {
    let dir = scratch_dir("cli-attn-fwd");
    let small = |stage, fp8_output, warp_specialize| AttnCase {
        stage,
        fp8_output,
        warp_specialize,
        is_hopper: true,
        heads: 2,
        n_ctx: 128,
        head_dim: 64,
        block_m: 64,
        block_n: 32,
        num_warps: 4,
    };
    let cases = [
        small(1, false, false),
        small(3, false, true),
        small(1, true, true),
        small(3, true, false),
        // The non-Hopper accumulator split needs 128 x 128 blocks and warp_specialize.
        AttnCase {
            is_hopper: false,
            heads: 1,
            n_ctx: 256,
            head_dim: 128,
            block_m: 128,
            block_n: 64,
            num_warps: 8,
            ..small(3, false, true)
        },
    ];
    for (index, case) in cases.iter().enumerate() {
        check_attn_case(&dir.join(format!("case{index}")), case);
    }
}

/// Runs one case on interp and compares O and M with [`attention_reference`].
fn check_attn_case(dir: &Path, case: &AttnCase) {
    use trident_midend::ir::DType;
    std::fs::create_dir_all(dir).unwrap();
    let label = format!(
        "STAGE={} FP8_OUTPUT={} warp_specialize={} IS_HOPPER={} HEAD_DIM={}",
        case.stage, case.fp8_output, case.warp_specialize, case.is_hopper, case.head_dim
    );
    let elements = case.heads * case.n_ctx * case.head_dim;
    let sm_scale = 1.0 / (case.head_dim as f64).sqrt();

    // Inputs: standard normal samples rounded to the element type; the reference reads the
    // rounded values back.
    let (element, suffix) = if case.fp8_output { (DType::F8E5M2, ":fp8e5") } else { (DType::F16, "") };
    let mut inputs = Vec::new();
    let mut args = Vec::new();
    for (seed, name) in [(11u64, "q_ptr"), (12, "k_ptr"), (13, "v_ptr")] {
        let bytes = encode_attn_elements(&normal_samples(seed, elements), case.fp8_output);
        inputs.push(decode_attn_elements(&bytes, case.fp8_output));
        args.push(write_npy(dir, name, element, bytes) + suffix);
    }
    let zeros = vec![0; elements * element.size_bytes()];
    args.push(write_npy(dir, "o_ptr", element, zeros) + suffix);
    args.push(write_npy(dir, "M", DType::F32, vec![0; case.heads * case.n_ctx * 4]));

    let out = dir.join("out");
    let grid = format!("{},{}", case.n_ctx / case.block_m, case.heads);
    let warps = case.num_warps.to_string();
    let mut command = vec!["run", ATTN_KERNEL, "--kernel", "_attn_fwd", "--backend", "interp"];
    command.extend(["--grid", &grid, "--num-warps", &warps, "--out", out.to_str().unwrap()]);
    let python_bool = |flag: bool| if flag { "True" } else { "False" };
    let consts = [
        format!("HEAD_DIM={}", case.head_dim),
        format!("BLOCK_M={}", case.block_m),
        format!("BLOCK_N={}", case.block_n),
        format!("FP8_OUTPUT={}", python_bool(case.fp8_output)),
        format!("STAGE={}", case.stage),
        format!("warp_specialize={}", python_bool(case.warp_specialize)),
        format!("IS_HOPPER={}", python_bool(case.is_hopper)),
    ];
    for constant in &consts {
        command.extend(["--const", constant.as_str()]);
    }
    let scalars = [
        format!("sm_scale={sm_scale}"),
        "Z=1".to_string(),
        format!("H={}", case.heads),
        format!("N_CTX={}", case.n_ctx),
    ];
    for arg in scalars.iter().chain(&args) {
        command.extend(["--arg", arg.as_str()]);
    }
    let output = trident(&command);
    assert!(output.status.success(), "{label}: trident run failed:\n{}", stderr(&output));

    let o_bytes = npy::read(&out.join("o_ptr.npy"), "o_ptr", None).unwrap_or_else(|e| panic!("{e}")).bytes;
    let o = decode_attn_elements(&o_bytes, case.fp8_output);
    let m = read_f32(&out.join("M.npy"));
    let want = attention_reference(&inputs[0], &inputs[1], &inputs[2], case, sm_scale);
    let o_tolerance = |index: usize| {
        let magnitude = want.o[index].abs();
        if case.fp8_output {
            1e-3 + magnitude / 8.0 + (want.o_spread[index] / 8.0) * (1.0 + 1.0 / 8.0)
        } else {
            1e-2 + 1e-2 * magnitude
        }
    };
    let o_error = assert_close(&format!("{label}: o_ptr"), &o, &want.o, o_tolerance);
    let m: Vec<f64> = m.into_iter().map(f64::from).collect();
    let m_error =
        assert_close(&format!("{label}: M"), &m, &want.m, |index| 2e-3 + 1e-4 * want.m[index].abs());
    println!(
        "attn_fwd {label}: max |O - reference| = {:.3e} ({:.0}% of its tolerance), max |M - reference| = \
         {:.3e} ({:.0}%)",
        o_error.0,
        100.0 * o_error.1,
        m_error.0,
        100.0 * m_error.1
    );
}

/// Softmax attention in f64, by (head, row, column) like the kernel's buffers.
struct AttentionReference {
    /// The output, heads x n_ctx x head_dim.
    o: Vec<f64>,
    /// The log-sum-exp of each row's scaled scores in log2 units, heads x n_ctx.
    m: Vec<f64>,
    /// `sum_j (w_ij + 2^-14) |v_jd|` for each element of `o`: the softmax average of the
    /// magnitudes that `o` averages, each weight raised to e5m2's smallest normal, 8 times the
    /// bound of what rounding the weights to e5m2 can move `o` by.
    o_spread: Vec<f64>,
}

/// e5m2's smallest normal value, 2^-14: below it a rounding moves a value by up to 2^-17.
const E5M2_MIN_NORMAL: f64 = 1.0 / 16384.0;

/// Softmax attention of one batch of `case.heads` heads; STAGE 3 masks keys past the row.
fn attention_reference(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    case: &AttnCase,
    sm_scale: f64,
) -> AttentionReference {
    let (n_ctx, head_dim) = (case.n_ctx, case.head_dim);
    let mut o = vec![0.0; q.len()];
    let mut o_spread = vec![0.0; q.len()];
    let mut m = vec![0.0; case.heads * n_ctx];
    for head in 0..case.heads {
        // Where row `row` of this head starts in the (heads, n_ctx, head_dim) tensors.
        let start = |row: usize| (head * n_ctx + row) * head_dim;
        for row in 0..n_ctx {
            let keys = if case.stage == 3 { row + 1 } else { n_ctx };
            let q_row = &q[start(row)..][..head_dim];
            let scores: Vec<f64> = (0..keys)
                .map(|key| {
                    let k_row = &k[start(key)..][..head_dim];
                    q_row.iter().zip(k_row).map(|(a, b)| a * b).sum::<f64>() * sm_scale
                })
                .collect();
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
            let denominator: f64 = weights.iter().sum();
            for (key, weight) in weights.iter().enumerate() {
                let weight = weight / denominator;
                for (column, value) in v[start(key)..][..head_dim].iter().enumerate() {
                    o[start(row) + column] += weight * value;
                    o_spread[start(row) + column] += (weight + E5M2_MIN_NORMAL) * value.abs();
                }
            }
            m[head * n_ctx + row] = (max + denominator.ln()) / std::f64::consts::LN_2;
        }
    }
    AttentionReference { o, m, o_spread }
}

/// Asserts `|got - want| <= tolerance(index)` element by element, naming the first element
/// beyond it; returns the largest absolute difference and the largest fraction of the
/// tolerance used.
fn assert_close(what: &str, got: &[f64], want: &[f64], tolerance: impl Fn(usize) -> f64) -> (f64, f64) {
    assert_eq!(got.len(), want.len(), "{what}: element counts");
    let (mut max_error, mut max_fraction) = (0.0f64, 0.0f64);
    for (index, (g, w)) in got.iter().zip(want).enumerate() {
        let error = (g - w).abs();
        let allowed = tolerance(index);
        assert!(error <= allowed, "{what}[{index}] = {g}, the reference {w} (tolerance {allowed:.3e})");
        max_error = max_error.max(error);
        max_fraction = max_fraction.max(error / allowed);
    }
    (max_error, max_fraction)
}

/// Standard normal samples from a fixed seed (splitmix64, then Box-Muller), so that the inputs
/// are the same on every run and every machine.
fn normal_samples(seed: u64, count: usize) -> Vec<f64> {
    let mut state = seed;
    let mut uniform = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        // In (0, 1): the logarithm below never sees zero.
        ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    (0..count)
        .map(|_| {
            let (radius, angle) = (uniform(), uniform());
            (-2.0 * radius.ln()).sqrt() * (std::f64::consts::TAU * angle).cos()
        })
        .collect()
}

/// Little-endian f16 bytes, or e5m2 bytes (f16's upper byte, rounded to nearest even).
fn encode_attn_elements(values: &[f64], fp8: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    for &value in values {
        let bits = half::f16::from_f64(value).to_bits();
        if fp8 {
            let rounded = (u32::from(bits) + 0x7F + ((u32::from(bits) >> 8) & 1)) >> 8;
            bytes.push(rounded as u8);
        } else {
            bytes.extend(bits.to_le_bytes());
        }
    }
    bytes
}

/// The values of f16 or e5m2 bytes (an e5m2 byte is the upper byte of an f16).
fn decode_attn_elements(bytes: &[u8], fp8: bool) -> Vec<f64> {
    if fp8 {
        bytes.iter().map(|&b| half::f16::from_bits(u16::from(b) << 8).to_f64()).collect()
    } else {
        bytes.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64()).collect()
    }
}

/// A grid beyond CUDA's limits (which Triton enforces everywhere) is refused at once with the
/// limit, on every backend: interp would otherwise run 2^96 programs.
#[test]
fn a_grid_beyond_cuda_limits_is_refused() {
    let started = std::time::Instant::now();
    let mut args = vec!["run", EXAMPLE, "--backend", "interp"];
    let huge = "4294967295,4294967295,4294967295";
    args.extend(example_flags().into_iter().map(|flag| if flag == "4" { huge } else { flag }));
    let output = trident(&args);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("x = 4294967295 is beyond CUDA's limit of 2147483647"), "{text}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// `--dump-after` dumps after every pass it names, TTIR and TTGIR alike, and an unknown name is a
/// usage error listing the passes (it used to print nothing and exit 0).
#[test]
fn dump_after_names_every_pass_and_rejects_others() {
    let compile = |pass: &str| {
        let mut args = vec!["compile", EXAMPLE, "--emit", "ptx", "--dump-after", pass];
        args.extend(example_flags());
        trident(&args)
    };
    for pass in trident_midend::pipeline::PASS_NAMES {
        let output = compile(pass);
        let text = stderr(&output);
        assert!(output.status.success(), "{pass}: {text}");
        assert!(text.contains(&format!("// -----// IR dump after {pass} //----- //")), "{pass}: {text}");
    }
    let output = compile("nonsense");
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("no pass is named 'nonsense'; the passes are inline, canonicalize"), "{text}");
}

/// A TTGIR pass dumps on every path that lowers the kernel for a backend: `compile --emit
/// ttgir|spirv|wgsl` and `run`/`bench --backend spirv` (`--emit ptx` is tested above). Without a
/// Vulkan adapter the run and bench are a SKIP, unless `TRIDENT_REQUIRE_DEVICES` names spirv.
#[test]
fn dump_after_a_ttgir_pass_dumps_wherever_the_kernel_is_lowered() {
    let out = scratch_dir("cli-dump-after-ttgir");
    let artifact = out.join("artifact");
    let out_dir = out.join("buffers");
    let banner = "// -----// IR dump after coalesce //----- //";
    let paths = [artifact.to_str().unwrap(), out_dir.to_str().unwrap()];
    let commands: Vec<Vec<&str>> = vec![
        vec!["compile", EXAMPLE, "--emit", "ttgir", "-o", paths[0]],
        vec!["compile", EXAMPLE, "--emit", "spirv", "-o", paths[0]],
        vec!["compile", EXAMPLE, "--emit", "wgsl", "-o", paths[0]],
        vec!["run", EXAMPLE, "--backend", "spirv", "--out", paths[1]],
        vec!["bench", EXAMPLE, "--backend", "spirv"],
    ];
    for mut args in commands {
        args.extend(example_flags());
        args.extend(["--dump-after", "coalesce"]);
        let output = trident(&args);
        let text = stderr(&output);
        if args[0] != "compile" && text.contains("needs a Vulkan adapter") {
            skip_unless_required("spirv", &format!("{} --dump-after", args[0]), "no Vulkan adapter here");
            continue;
        }
        assert!(output.status.success(), "{args:?}: {text}");
        assert_eq!(text.matches(banner).count(), 1, "{args:?}: {text}");
    }
}

/// The flags of `tests/kernels/autotune_add.py` on the example's inputs (no `--grid`, no
/// `--const BLOCK_SIZE`: the configs give it).
fn autotune_add_flags() -> Vec<&'static str> {
    let mut flags = common::AUTOTUNE_ADD.to_vec();
    flags.extend(["--arg", "n_elements=1000"]);
    flags
}

/// Checks `DIR/output_ptr.npy` against `x + y` of the example's inputs.
fn assert_vector_sum(dir: &Path, what: &str) {
    let x = read_f32(Path::new("examples/data/x.npy"));
    let y = read_f32(Path::new("examples/data/y.npy"));
    let sum = read_f32(&dir.join("output_ptr.npy"));
    assert_eq!(sum.len(), x.len(), "{what}");
    for i in 0..x.len() {
        assert_eq!(sum[i].to_bits(), (x[i] + y[i]).to_bits(), "{what}: output_ptr[{i}]");
    }
}

/// An autotuned kernel on interp runs config 0 (timings there say nothing about a GPU) and says
/// so in one line; `--config 1` pins the other config; a grid expression follows the config's
/// BLOCK_SIZE (16 programs of 64, 4 of 256); `compile` says which config it compiled.
#[test]
fn autotune_on_interp_uses_config_0_or_the_pinned_one() {
    let dir = scratch_dir("cli-autotune-interp");
    for (config, line) in [
        (None, "autotune: timings on interp say nothing about a GPU; using config 0 {BLOCK_SIZE=64, num_warps=2, num_stages=3} of 2 (--config N picks another)"),
        (Some("1"), "autotune: using config 1 {BLOCK_SIZE=256, num_warps=4, num_stages=2} (--config 1)"),
    ] {
        let out = dir.join(config.unwrap_or("default"));
        let mut args = vec!["run"];
        args.extend(autotune_add_flags());
        args.extend(["--grid", "cdiv(n_elements, BLOCK_SIZE)", "--backend", "interp", "--out", out.to_str().unwrap()]);
        if let Some(index) = config {
            args.extend(["--config", index]);
        }
        let output = trident(&args);
        let text = stderr(&output);
        assert!(output.status.success(), "{config:?}: {text}");
        assert_eq!(text.lines().next(), Some(line), "{text}");
        let programs = if config.is_some() { "grid 4,1,1" } else { "grid 16,1,1" };
        assert!(text.contains(programs), "{text}");
        assert_vector_sum(&out, &format!("config {config:?}"));
    }

    let mut args = vec!["compile"];
    args.extend(autotune_add_flags());
    args.extend(["--emit", "ttir"]);
    let output = trident(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("end = 64"), "{}", stdout(&output));
    assert_eq!(
        stderr(&output),
        "autotune: compiling config 0 {BLOCK_SIZE=64, num_warps=2, num_stages=3} of 2 (--config N picks another)\n"
    );
}

/// On spirv, `run`, `bench` and `check` time every config, print one line per config with its
/// time, then the chosen one, and the output is right whichever won. Without a Vulkan adapter
/// this is a SKIP, unless `TRIDENT_REQUIRE_DEVICES` names spirv.
#[test]
fn autotune_on_spirv_times_every_config() {
    let dir = scratch_dir("cli-autotune-spirv");
    for verb in ["run", "bench", "check"] {
        let mut args = vec![verb];
        args.extend(autotune_add_flags());
        args.extend([
            "--grid",
            "cdiv(n_elements, BLOCK_SIZE)",
            "--backend",
            "spirv",
            "--out",
            dir.to_str().unwrap(),
        ]);
        let output = trident(&args);
        let text = stderr(&output);
        if text.contains("needs a Vulkan adapter") {
            skip_unless_required("spirv", "spirv autotune", "no Vulkan adapter here");
            return;
        }
        assert!(output.status.success(), "{verb}: {text}\n{}", stdout(&output));
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("autotune: ")).collect();
        assert!(lines[0].starts_with("autotune: timing 2 configs of add_kernel on spirv"), "{text}");
        for (line, config) in lines[1..3].iter().zip([
            "config 0 {BLOCK_SIZE=64, num_warps=2, num_stages=3}: ",
            "config 1 {BLOCK_SIZE=256, num_warps=4, num_stages=2}: ",
        ]) {
            let time = line.strip_prefix(&format!("autotune: {config}")).unwrap_or_else(|| panic!("{text}"));
            assert!(time.ends_with(" ms") && time.trim_end_matches(" ms").parse::<f64>().is_ok(), "{text}");
        }
        assert!(
            lines[3] == "autotune: chose config 0 {BLOCK_SIZE=64, num_warps=2, num_stages=3}"
                || lines[3] == "autotune: chose config 1 {BLOCK_SIZE=256, num_warps=4, num_stages=2}",
            "{text}"
        );
        match verb {
            "run" => assert_vector_sum(&dir, "spirv run"),
            "bench" => assert!(
                stdout(&output).lines().last().unwrap().starts_with("BENCH median_ms="),
                "{}",
                stdout(&output)
            ),
            _ => {
                let text = stdout(&output);
                assert!(agreeing_backends(&text).contains(&"spirv"), "{text}")
            }
        }
    }
}

/// `@triton.heuristics` computes EVEN from n and BLOCK: the unmasked branch for n = 1024 (a masked
/// access beyond n would be an out-of-bounds error on interp for n = 1000), on interp, spirv and
/// nvptx.
#[test]
fn heuristics_pick_the_branch_that_fits_the_size() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-heuristics");
    for n in [1000usize, 1024] {
        let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25 - 3.0).collect();
        let x_arg = write_npy(&dir, "x_ptr", DType::F32, x.iter().flat_map(|v| v.to_le_bytes()).collect());
        let out_arg = write_npy(&dir, "out_ptr", DType::F32, vec![0; n * 4]);
        let n_arg = format!("n={n}");
        for backend in ["interp", "spirv", "nvptx"] {
            let out = dir.join(format!("{backend}-{n}"));
            let output = trident(&[
                "run",
                "tests/kernels/heuristics_scale.py",
                "--kernel",
                "scale_kernel",
                "--grid",
                "cdiv(n, BLOCK)",
                "--const",
                "BLOCK=128",
                "--arg",
                &x_arg,
                "--arg",
                &out_arg,
                "--arg",
                &n_arg,
                "--backend",
                backend,
                "--out",
                out.to_str().unwrap(),
            ]);
            if backend == "spirv" && stderr(&output).contains("needs a Vulkan adapter") {
                skip_unless_required("spirv", "spirv heuristics", "no Vulkan adapter here");
                continue;
            }
            if backend == "nvptx" && stderr(&output).contains("needs a CUDA GPU") {
                skip_unless_required("nvptx", "nvptx heuristics", "no CUDA GPU here");
                continue;
            }
            assert!(output.status.success(), "{backend}, n = {n}: {}", stderr(&output));
            let got = read_f32(&out.join("out_ptr.npy"));
            for i in 0..n {
                assert_eq!(got[i], x[i] * 2.0 + 1.0, "{backend}, n = {n}: out_ptr[{i}]");
            }
        }
    }
}

/// Autotune above heuristics, configs from a list comprehension: every config (pinned in turn)
/// gives the row sums, and the heuristics see each config's BLOCK.
#[test]
fn autotune_with_heuristics_sums_rows_with_every_config() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-autotune-heuristics");
    let (rows, cols) = (3usize, 200usize);
    let x: Vec<f32> = (0..rows * cols).map(|i| ((i * 31) % 17) as f32 - 8.0).collect();
    let x_arg = write_npy(&dir, "x_ptr", DType::F32, x.iter().flat_map(|v| v.to_le_bytes()).collect());
    let out_arg = write_npy(&dir, "out_ptr", DType::F32, vec![0; rows * 4]);
    for config in ["0", "1", "2", "3"] {
        let out = dir.join(config);
        let output = trident(&[
            "run",
            "tests/kernels/autotune_heuristics.py",
            "--kernel",
            "row_sum_kernel",
            "--grid",
            "3",
            "--config",
            config,
            "--arg",
            &x_arg,
            "--arg",
            &out_arg,
            "--arg",
            "n_cols=200",
            "--backend",
            "interp",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "config {config}: {}", stderr(&output));
        let sums = read_f32(&out.join("out_ptr.npy"));
        for row in 0..rows {
            let want: f32 = x[row * cols..(row + 1) * cols].iter().sum();
            assert_eq!(sums[row], want, "config {config}: row {row}");
        }
    }
}

/// `@triton.heuristics` above `@triton.autotune` (tests/kernels/heuristics_above_autotune.py): the
/// upper heuristics compute EVEN and N_PADDED from n_cols alone, before any config, and the lower
/// one CHUNKS from N_PADDED and the config's BLOCK. The row sums are exact for 200 columns (masked)
/// and 256 (EVEN: unmasked, and an unmasked load past a row of 200 would be an out-of-bounds error
/// on interp) with every config pinned on interp, and with the config that autotuning picks on
/// spirv and nvptx, which time each config once: a second run with the same arguments finds the
/// choice in the tuning cache, whose key holds the heuristics' values.
#[test]
fn heuristics_above_autotune_sum_rows_on_every_backend() {
    use trident_midend::ir::DType;
    let dir = scratch_dir("cli-heuristics-above-autotune");
    let cache = dir.join("cache");
    let rows = 3usize;
    for cols in [200usize, 256] {
        let x: Vec<f32> = (0..rows * cols).map(|i| ((i * 31) % 17) as f32 - 8.0).collect();
        let want: Vec<f32> = (0..rows).map(|row| x[row * cols..(row + 1) * cols].iter().sum()).collect();
        let inputs = dir.join(format!("in-{cols}"));
        std::fs::create_dir_all(&inputs).unwrap();
        let x_arg = write_npy(&inputs, "x_ptr", DType::F32, x.iter().flat_map(|v| v.to_le_bytes()).collect());
        let out_arg = write_npy(&inputs, "out_ptr", DType::F32, vec![0; rows * 4]);
        let n_arg = format!("n_cols={cols}");
        let run = |backend: &str, config: Option<&str>, out: &Path| {
            let mut args = vec![
                "run",
                "tests/kernels/heuristics_above_autotune.py",
                "--kernel",
                "padded_row_sum_kernel",
                "--grid",
                "3",
                "--arg",
                &x_arg,
                "--arg",
                &out_arg,
                "--arg",
                &n_arg,
                "--backend",
                backend,
                "--out",
                out.to_str().unwrap(),
            ];
            if let Some(config) = config {
                args.extend(["--config", config]);
            }
            trident_with_env(&args, &[("TRIDENT_CACHE_DIR", cache.to_str().unwrap())])
        };
        for config in ["0", "1", "2"] {
            let out = dir.join(format!("interp-{cols}-{config}"));
            let output = run("interp", Some(config), &out);
            assert!(output.status.success(), "{cols} columns, config {config}: {}", stderr(&output));
            assert_eq!(read_f32(&out.join("out_ptr.npy")), want, "{cols} columns, config {config}");
        }
        'backends: for (backend, missing) in
            [("spirv", "needs a Vulkan adapter"), ("nvptx", "needs a CUDA GPU")]
        {
            for attempt in ["tuned", "cached"] {
                let out = dir.join(format!("{backend}-{cols}-{attempt}"));
                let output = run(backend, None, &out);
                let text = stderr(&output);
                if text.contains(missing) {
                    let test = format!("{backend} heuristics above autotune");
                    skip_unless_required(backend, &test, &format!("no {backend} device here"));
                    continue 'backends;
                }
                assert!(output.status.success(), "{cols} columns, {backend}, {attempt}: {text}");
                let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("autotune: ")).collect();
                if attempt == "tuned" {
                    let timing = format!("autotune: timing 3 configs of padded_row_sum_kernel on {backend}");
                    assert!(lines[0].starts_with(&timing), "{text}");
                    assert!(lines[4].starts_with("autotune: chose config "), "{text}");
                } else {
                    assert_eq!(lines.len(), 1, "{text}");
                    assert!(lines[0].starts_with("autotune: cached config "), "{text}");
                }
                assert_eq!(read_f32(&out.join("out_ptr.npy")), want, "{cols} columns, {backend}, {attempt}");
            }
        }
    }
}

/// `--const` for a meta-parameter the configs set, and `--config` out of range or on a kernel
/// without configs, are usage errors that name the flag.
#[test]
fn autotune_flag_errors_name_the_flag() {
    let cases: [(&[&str], &str); 3] = [
        (&["--const", "BLOCK_SIZE=32"], "Conflicting meta-parameters: BLOCK_SIZE"),
        (&["--config", "2"], "--config 2: add_kernel has 2 autotune configs"),
        (&["--grid", "cdiv(n_elements, BLOCK)"], "--grid 'cdiv(n_elements, BLOCK)': `BLOCK` is not defined"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["run"];
        args.extend(autotune_add_flags());
        args.extend(["--backend", "interp", "--out", "target/unused"]);
        if !extra.contains(&"--grid") {
            args.extend(["--grid", "16"]);
        }
        args.extend(extra);
        let output = trident(&args);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {}", stderr(&output));
        assert!(stderr(&output).contains(needle), "{extra:?}: {}", stderr(&output));
    }
    let mut args = vec!["run", EXAMPLE];
    args.extend(example_flags());
    args.extend(["--config", "0", "--backend", "interp"]);
    let output = trident(&args);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stderr(&output), "error: --config 0: add_kernel has no @triton.autotune configs\n");
}

/// Output into a pipe its reader closed (`trident compile ... | head -1`) ends the process
/// quietly, as for any Unix tool, not with an internal compiler error about a failed print.
#[cfg(unix)]
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    // A kernel whose PTX (about 270 KB) is larger than a pipe's buffer.
    let kernel = "tests/kernels/attn_fwd.py";
    let source = std::fs::read_to_string(kernel).unwrap();
    let headers = trident::golden::compile_headers(&source);
    let mut args = vec!["compile".to_string(), kernel.to_string()];
    args.extend(headers[1].iter().cloned());
    args.extend(["--emit", "ptx", "--target", "sm_90a", "--no-cache"].map(String::from));
    let mut child = Command::new(env!("CARGO_BIN_EXE_trident"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // The reader is dropped here: the rest of the PTX goes into a closed pipe.
    let output = child.wait_with_output().unwrap();
    assert!(first.starts_with("//"), "{first}");
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(!text.contains("internal compiler error"), "{text}");
    let quiet = output.status.success() || output.status.signal() == Some(13);
    assert!(quiet, "{:?}: {text}", output.status);
}

/// A dot whose layout change needs more shared memory than the target has is a user error that
/// says so (not "not supported yet"), with the Python line and what needs less: a 256x256 fp32
/// dot in one program needs 520 KiB, an sm_80 has 163 KiB.
#[test]
fn a_dot_beyond_shared_memory_says_what_it_needs() {
    let dir = scratch_dir("cli-dot-beyond-shared-memory");
    let kernel = dir.join("big_dot.py");
    std::fs::write(
        &kernel,
        "import triton\nimport triton.language as tl\n\n\
         @triton.jit\n\
         def big_dot_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):\n\
         \x20   r = tl.arange(0, BLOCK)\n\
         \x20   a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])\n\
         \x20   b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])\n\
         \x20   c = tl.dot(a, b)\n\
         \x20   tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], c)\n",
    )
    .unwrap();
    #[rustfmt::skip]
    let output = trident(&[
        "compile", kernel.to_str().unwrap(), "--kernel", "big_dot_kernel", "--const", "BLOCK=256",
        "--arg", "a_ptr=*fp32", "--arg", "b_ptr=*fp32", "--arg", "c_ptr=*fp32", "--emit", "ptx", "--target", "sm_80",
        "--no-cache",
    ]);
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("big_dot.py:9:9: tt.dot needs more than sm_80 has"), "{text}");
    assert!(text.contains("bytes of shared memory (the limit is 166912)"), "{text}");
    assert!(text.contains("smaller blocks, fewer pipeline stages or fewer warps need less"), "{text}");
    assert!(text.contains("c = tl.dot(a, b)"), "{text}");
}
