//! The floor under a launch from Python: host time per launch of an empty kernel with the four
//! parameters of `python/benchmarks/launch_overhead.py`'s vector add, enqueued back to back on
//! the null stream ([`CudaDevice::launch_floor`]).
//!
//!     cargo run --release -p trident-runtime --example launch_floor [LAUNCHES]
//!
//! It prints the microseconds per launch (host time, without synchronizing between launches) with
//! `cuLaunchKernel` and replayed from a one-node graph (as `launch_async` replays hot launches),
//! and the replays with the final synchronization. Whatever a repeat `kernel[grid](...)` costs
//! beyond the replay is trident's Python-side work (binding, classifying, the specialization
//! lookup); `launch_overhead.py` measures both in one process. Without a CUDA GPU it says so and
//! exits 0.

use trident_runtime::cuda::CudaDevice;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let launches: usize = match std::env::args().nth(1) {
        Some(text) => text.parse().map_err(|_| format!("LAUNCHES must be a count, not {text}"))?,
        None => 20_000,
    };
    let Some(device) = CudaDevice::open_selected()? else {
        println!("launch_floor: no CUDA GPU here (see `trident devices`); nothing measured");
        return Ok(());
    };
    let floor = device.launch_floor(launches)?;
    println!(
        "launch_floor: {} on driver {:?}: {launches} launches, {:.2} us per cuLaunchKernel, {:.2} us per graph \
         replay, {:.2} us per replay with the final synchronization",
        device.name(),
        device.driver_version(),
        floor.per_launch_us(floor.direct),
        floor.per_launch_us(floor.replayed),
        floor.per_launch_us(floor.synchronized)
    );
    Ok(())
}
