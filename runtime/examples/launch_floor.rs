//! The floor under a launch from Python: host time per `CudaDevice::launch_async` of an empty
//! kernel with the four parameters of `python/benchmarks/launch_overhead.py`'s vector add
//! (three pointers and an `i32`), enqueued back to back on the null stream as `kernel[grid](...)`
//! enqueues on torch's default stream.
//!
//!     cargo run --release -p trident-runtime --example launch_floor [LAUNCHES]
//!
//! It prints the microseconds per launch (host time, without synchronizing between launches) and
//! with the final synchronization. Whatever `kernel[grid](...)` costs beyond this is trident's
//! Python-side work (binding, classifying, the specialization lookup). Without a CUDA GPU it says
//! so and exits 0.

use std::time::Instant;

use trident_backend_nvptx::{Artifact, ParamAbi};
use trident_runtime::cuda::CudaDevice;
use trident_runtime::{ArgValue, Buffer, Grid};

const PTX: &str = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry floor_kernel(.param .u64 x, .param .u64 y, .param .u64 out, .param .u32 n)
{
    ret;
}
";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let launches: usize = match std::env::args().nth(1) {
        Some(text) => text.parse().map_err(|_| format!("LAUNCHES must be a count, not {text}"))?,
        None => 20_000,
    };
    let Some(device) = CudaDevice::open_selected()? else {
        println!("launch_floor: no CUDA GPU here (see `trident devices`); nothing measured");
        return Ok(());
    };
    let artifact = Artifact {
        ptx: PTX.to_string(),
        kernel_name: "floor_kernel".to_string(),
        threads_per_block: 128,
        shared_bytes: 0,
        params: vec![ParamAbi::Pointer, ParamAbi::Pointer, ParamAbi::Pointer, ParamAbi::Int(4)],
        global_scratch_bytes: 0,
        persistent: false,
        tensor_maps: Vec::new(),
    };
    let kernel = device.load(&artifact)?;
    let args = [ArgValue::Buffer(0), ArgValue::Buffer(1), ArgValue::Buffer(2), ArgValue::Int(1024)];
    // The kernel reads none of its pointers: any addresses do.
    let addresses = [0u64; 3];
    let mut buffers: Vec<Buffer> =
        ["x", "y", "out"].iter().map(|name| Buffer::zeros(name, trident_midend::ir::DType::F32, 4)).collect();
    let grid = Grid([1, 1, 1]);
    // Warm-up, then the timed launches; `launch` (which synchronizes) ends them.
    device.launch(&kernel, grid, &args, &mut buffers)?;
    let started = Instant::now();
    for _ in 0..launches {
        device.launch_async(&kernel, grid, &args, &addresses, 0)?;
    }
    let enqueued = started.elapsed();
    device.launch(&kernel, grid, &args, &mut buffers)?;
    let synchronized = started.elapsed();
    let per_launch = |time: std::time::Duration| time.as_secs_f64() * 1e6 / launches as f64;
    println!(
        "launch_floor: {} on driver {:?}: {launches} launches, {:.2} us per launch, {:.2} us with the final \
         synchronization",
        device.name(),
        device.driver_version(),
        per_launch(enqueued),
        per_launch(synchronized)
    );
    Ok(())
}
