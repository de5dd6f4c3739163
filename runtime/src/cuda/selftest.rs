//! A self-test of the CUDA device with hand-written PTX (`fixtures/vector_add.ptx`): it proves
//! loading, parameter passing, large dynamic shared memory, the module cache, timing and the
//! error paths on a real GPU without depending on the nvptx backend.
//!
//! `trident selftest-cuda` and the unit test `cuda_runs_handwritten_ptx` both run it. Without a
//! GPU the outcome is [`Outcome::NoGpu`] with the reason (callers print SKIP). The kernel-fault
//! step poisons the CUDA context of the process, so it runs last and only when asked
//! ([`Fault::Check`]); the unit test skips it because other tests share its process.

use std::time::Duration;

use trident_backend_nvptx::{Artifact, ParamAbi};
use trident_midend::ir::DType;

use super::driver::Memory;
use super::graphs::{HOT_AFTER, MAX_GRAPHS};
use super::{probe, selected_ordinal, BenchOptions, CudaDevice, ErrorKind, Probe};
use crate::buffer::{ArgValue, Buffer, Grid};

/// The fixture: three kernels, see the comments at its top.
pub const FIXTURE_PTX: &str = include_str!("fixtures/vector_add.ptx");

/// Whether to end with the kernel-fault check (which leaves the context unusable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    Check,
    Skip,
}

/// How the self-test went when it did not fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every step passed; one line per step.
    Passed(Vec<String>),
    /// There is no GPU to test; the reason.
    NoGpu(String),
}

/// Runs the self-test on the GPU that `TRIDENT_CUDA_DEVICE` selects. `Err` says which step
/// failed and how.
pub fn run(fault: Fault) -> Result<Outcome, String> {
    if let Probe::Absent(reason) = probe() {
        return Ok(Outcome::NoGpu(reason));
    }
    let ordinal = selected_ordinal().map_err(|e| e.to_string())?;
    let device = match CudaDevice::open(ordinal) {
        Ok(Some(device)) => device,
        Ok(None) => return Ok(Outcome::NoGpu("the CUDA driver found no GPU".to_string())),
        Err(error) => return Err(format!("open GPU {ordinal}: {error}")),
    };
    let mut lines = Vec::new();
    let info = device.info();
    lines.push(format!(
        "device: cuda:{} {}, compute capability {}.{}, {} SMs",
        info.ordinal, info.name, info.compute_capability.0, info.compute_capability.1, info.sm_count
    ));
    lines.push(vector_add(&device)?);
    lines.push(module_cache(&device)?);
    lines.push(shared_memory(&device)?);
    lines.push(timing(&device)?);
    lines.push(replayed_launches(&device)?);
    lines.push(jit_error(&device)?);
    lines.push(argument_error(&device)?);
    if fault == Fault::Check {
        lines.push(illegal_address(&device)?);
    }
    Ok(Outcome::Passed(lines))
}

fn artifact(kernel: &str, params: Vec<ParamAbi>, threads_per_block: u32, shared_bytes: u32) -> Artifact {
    Artifact {
        ptx: FIXTURE_PTX.to_string(),
        kernel_name: kernel.to_string(),
        threads_per_block,
        shared_bytes,
        params,
        global_scratch_bytes: 0,
        persistent: false,
        tensor_maps: Vec::new(),
    }
}

fn vector_add_artifact() -> Artifact {
    use ParamAbi::{Float, Int, Pointer};
    artifact("vector_add", vec![Pointer, Pointer, Pointer, Float(4), Int(4), Float(8), Int(8)], 128, 0)
}

fn f32_buffer(name: &str, values: &[f32]) -> Buffer {
    let mut buffer = Buffer::zeros(name, DType::F32, values.len());
    buffer.bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    buffer
}

fn f32_values(buffer: &Buffer) -> Vec<f32> {
    buffer.bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Inputs and arguments of one vector_add launch over `n` elements (the output is padded by
/// 24 sentinel elements that must stay untouched: the mask works).
fn vector_add_launch(n: usize) -> (Vec<Buffer>, Vec<ArgValue>) {
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.25).collect();
    let out = vec![-1.0f32; n + 24];
    let buffers = vec![f32_buffer("x", &x), f32_buffer("y", &y), f32_buffer("out", &out)];
    let args = vec![
        ArgValue::Buffer(0),
        ArgValue::Buffer(1),
        ArgValue::Buffer(2),
        ArgValue::Float(1.5),
        ArgValue::Int(n as i64),
        ArgValue::Float(0.125),
        ArgValue::Int(-2),
    ];
    (buffers, args)
}

fn vector_add(device: &CudaDevice) -> Result<String, String> {
    let kernel = device.load(&vector_add_artifact()).map_err(|e| format!("load vector_add: {e}"))?;
    let n = 1000;
    let (mut buffers, args) = vector_add_launch(n);
    let grid = Grid([n.div_ceil(128) as u32, 1, 1]);
    device.launch(&kernel, grid, &args, &mut buffers).map_err(|e| format!("launch vector_add: {e}"))?;
    let (x, y, out) = (f32_values(&buffers[0]), f32_values(&buffers[1]), f32_values(&buffers[2]));
    for i in 0..n {
        // The same sequence of roundings as the PTX: mul.rn, add.rn, add.rn, add.rn.
        let want = ((1.5f32 * x[i] + y[i]) + 0.125f32) + -2.0f32;
        if out[i].to_bits() != want.to_bits() {
            return Err(format!("vector_add: out[{i}] = {} but {want} was expected", out[i]));
        }
    }
    if let Some(i) = (n..n + 24).find(|&i| out[i] != -1.0) {
        return Err(format!("vector_add: out[{i}] was written, but the kernel masks i >= {n}"));
    }
    Ok(format!(
        "ok vector_add: {n} elements, every parameter kind, {} registers per thread",
        kernel.registers
    ))
}

fn module_cache(device: &CudaDevice) -> Result<String, String> {
    let before = device.cached_modules();
    let first = device.load(&vector_add_artifact()).map_err(|e| format!("load vector_add: {e}"))?;
    let second = device.load(&vector_add_artifact()).map_err(|e| format!("load vector_add: {e}"))?;
    if !first.shares_module_with(&second) || device.cached_modules() != before {
        return Err("module cache: loading the same PTX again JIT-compiled it again".to_string());
    }
    Ok(format!("ok module cache: {} module(s) loaded once each", device.cached_modules()))
}

fn shared_memory(device: &CudaDevice) -> Result<String, String> {
    let shared_bytes = 64 * 1024;
    if device.info().max_shared_bytes_optin < shared_bytes {
        return Ok(format!(
            "skip shared memory: {} allows only {} bytes per block",
            device.name(),
            device.info().max_shared_bytes_optin
        ));
    }
    let threads = 256;
    let kernel = device
        .load(&artifact("shared_roundtrip", vec![ParamAbi::Pointer], threads, shared_bytes))
        .map_err(|e| format!("load shared_roundtrip: {e}"))?;
    let blocks = 3;
    let mut buffers = vec![Buffer::zeros("out", DType::I32, (threads * blocks) as usize)];
    device
        .launch(&kernel, Grid([blocks, 1, 1]), &[ArgValue::Buffer(0)], &mut buffers)
        .map_err(|e| format!("launch shared_roundtrip: {e}"))?;
    for (index, chunk) in buffers[0].bytes.chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        let want = (index as u32 % threads + 1) % threads;
        if got != want {
            return Err(format!("shared_roundtrip: out[{index}] = {got} but {want} was expected"));
        }
    }
    Ok(format!("ok shared memory: {shared_bytes} bytes of dynamic shared memory (above the 48 KiB default)"))
}

fn timing(device: &CudaDevice) -> Result<String, String> {
    let kernel = device.load(&vector_add_artifact()).map_err(|e| format!("load vector_add: {e}"))?;
    let n = 1 << 20;
    let (mut buffers, args) = vector_add_launch(n);
    let options = BenchOptions {
        warmup: Duration::from_millis(5),
        min_runs: 5,
        max_runs: 50,
        budget: Duration::from_millis(100),
    };
    let grid = Grid([n.div_ceil(128) as u32, 1, 1]);
    let stats =
        device.bench(&kernel, grid, &args, &mut buffers, &options).map_err(|e| format!("bench: {e}"))?;
    if !(stats.median_ms > 0.0 && stats.min_ms <= stats.median_ms && stats.runs >= 5) {
        return Err(format!("bench: implausible timings {stats:?}"));
    }
    let gbps = (3 * 4 * n) as f64 / stats.median_ms / 1e6;
    Ok(format!(
        "ok timing: vector_add of {n} elements, median {:.4} ms over {} runs ({gbps:.0} GB/s)",
        stats.median_ms, stats.runs
    ))
}

/// `launch_async` over memory on the device, as the Python package launches: every launch's
/// scale, output and grid change, on two streams, so that hot (grid, stream) pairs are replayed
/// from graphs with their parameters set again, and one more grid than the graphs a kernel keeps
/// evicts one. Each output must hold what the last launch that wrote it computed.
fn replayed_launches(device: &CudaDevice) -> Result<String, String> {
    let kernel = device.load(&vector_add_artifact()).map_err(|e| format!("load vector_add: {e}"))?;
    let n = 1000;
    let (buffers, mut args) = vector_add_launch(n);
    fn failed(what: &'static str) -> impl Fn(super::driver::DriverError) -> String {
        move |error| format!("replayed launches: {what}: {error}")
    }
    let upload = |buffer: &Buffer| -> Result<Memory, String> {
        let memory = Memory::alloc(&device.context, buffer.bytes.len()).map_err(failed("allocate"))?;
        memory.copy_from_host(&buffer.bytes).map_err(failed("copy in"))?;
        Ok(memory)
    };
    let outputs = 3;
    let memory: Vec<Memory> = [&buffers[0], &buffers[1]]
        .into_iter()
        .chain(std::iter::repeat_n(&buffers[2], outputs))
        .map(upload)
        .collect::<Result<_, _>>()?;
    // The null stream and the thread's default stream (CU_STREAM_PER_THREAD), which need no
    // creating; each orders itself after the other's work.
    let streams = [0u64, 2];
    let grids = MAX_GRAPHS as u32 + 1;
    let launches = 2 * streams.len() * grids as usize * (HOT_AFTER as usize + 8);
    let mut last_scale = vec![None; outputs];
    for launch in 0..launches {
        let output = launch % outputs;
        let scale = launch as f32 * 0.25;
        args[3] = ArgValue::Float(f64::from(scale));
        let grid = Grid([n.div_ceil(128) as u32 + launch as u32 % grids, 1, 1]);
        let stream = streams[launch / (launches / 4) % streams.len()];
        let addresses = [memory[0].address(), memory[1].address(), memory[2 + output].address()];
        device
            .launch_async(&kernel, grid, &args, &addresses, stream)
            .map_err(|e| format!("replayed launches: launch {launch}: {e}"))?;
        last_scale[output] = Some(scale);
    }
    device.context.synchronize().map_err(failed("synchronize"))?;
    let (x, y) = (f32_values(&buffers[0]), f32_values(&buffers[1]));
    for (output, scale) in last_scale.iter().enumerate() {
        let scale = scale.ok_or("replayed launches: an output was never written")?;
        let mut bytes = vec![0u8; buffers[2].bytes.len()];
        memory[2 + output].copy_to_host(&mut bytes).map_err(failed("copy out"))?;
        let out = f32_values(&Buffer { bytes, ..buffers[2].clone() });
        for i in 0..n {
            let want = ((scale * x[i] + y[i]) + 0.125f32) + -2.0f32;
            if out[i].to_bits() != want.to_bits() {
                return Err(format!(
                    "replayed launches: output {output}[{i}] = {} but {want} was expected (scale {scale})",
                    out[i]
                ));
            }
        }
    }
    let graphs = kernel.graphs.borrow().count();
    if device.graph_launches && graphs != MAX_GRAPHS {
        return Err(format!("replayed launches: {graphs} graphs kept, {MAX_GRAPHS} expected"));
    }
    Ok(format!(
        "ok replayed launches: {launches} launches over {grids} grids on {} streams, {graphs} graphs kept",
        streams.len()
    ))
}

fn jit_error(device: &CudaDevice) -> Result<String, String> {
    let mut broken = vector_add_artifact();
    broken.ptx =
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry broken() { frobnicate; }\n".into();
    broken.kernel_name = "broken".into();
    match device.load(&broken) {
        Ok(_) => Err("JIT error: PTX with an unknown instruction loaded".to_string()),
        Err(error) if error.kind == ErrorKind::Jit && error.message.contains("broken") => {
            let log = error.message.lines().filter(|l| !l.trim().is_empty()).count();
            Ok(format!("ok JIT error: reported with the kernel name and {log} line(s) of message and log"))
        }
        Err(error) => Err(format!("JIT error: unexpected error {error:?}")),
    }
}

fn argument_error(device: &CudaDevice) -> Result<String, String> {
    let kernel = device.load(&vector_add_artifact()).map_err(|e| format!("load vector_add: {e}"))?;
    let (mut buffers, mut args) = vector_add_launch(16);
    args[3] = ArgValue::Buffer(0);
    match device.launch(&kernel, Grid([1, 1, 1]), &args, &mut buffers) {
        Err(error) if error.kind == ErrorKind::Arguments => {
            Ok("ok argument mismatch: refused before launch".into())
        }
        other => Err(format!("argument mismatch: expected an Arguments error, got {other:?}")),
    }
}

fn illegal_address(device: &CudaDevice) -> Result<String, String> {
    let kernel = device
        .load(&artifact("illegal_store", vec![ParamAbi::Pointer], 32, 0))
        .map_err(|e| format!("load illegal_store: {e}"))?;
    let mut buffers = vec![Buffer::zeros("out", DType::I32, 32)];
    match device.launch(&kernel, Grid([1, 1, 1]), &[ArgValue::Buffer(0)], &mut buffers) {
        Err(error)
            if error.kind == ErrorKind::KernelFault
                && error.message.contains("illegal_store")
                && error.message.contains("--backend interp") =>
        {
            let first = error.message.lines().next().unwrap_or_default().to_string();
            Ok(format!("ok illegal address: reported, not hung: {first}"))
        }
        other => Err(format!("illegal address: expected a KernelFault naming the kernel, got {other:?}")),
    }
}
