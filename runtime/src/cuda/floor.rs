//! The floor under a launch: the host time of the CUDA driver's own `cuLaunchKernel`, measured with
//! an empty kernel of the four parameters of `python/benchmarks/launch_overhead.py`'s vector add
//! (three pointers and an `i32`), enqueued back to back on the null stream as `kernel[grid](...)`
//! enqueues on torch's default stream; and beside it the host time of the same launches replayed
//! from a one-node graph, as [`CudaDevice::launch_async`] replays hot launches (`graphs.rs`).
//! Whatever a launch from Python costs beyond the replay is trident's work and the interpreter's;
//! the floor itself varies from machine to machine and from minute to minute (2.8 to 4.9
//! microseconds for `cuLaunchKernel` on the H100 hosts measured so far, 1.5 to 2.8 for a replay),
//! so they are measured together. How the driver is called does not move the direct launch: on one
//! H100 host, in one process, the null stream, the per-thread default stream, a created stream
//! (blocking or not), `cuLaunchKernelEx`, the parameters as one buffer (`extra`) and a kernel
//! without parameters all took 3.4 to 4.3 microseconds a launch, as did CUDA's runtime API from C,
//! and 10 launches as long each as 100,000 (the GPU keeps up: the time is the host's).

use std::time::{Duration, Instant};

use trident_backend_nvptx::{Artifact, ParamAbi};

use super::{CudaDevice, CudaError};
use crate::buffer::{ArgValue, Buffer, Grid};

const EMPTY_KERNEL: &str = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry floor_kernel(.param .u64 x, .param .u64 y, .param .u64 out, .param .u32 n)
{
    ret;
}
";

/// Host time of runs of launches of the empty kernel.
#[derive(Clone, Copy, Debug)]
pub struct LaunchFloor {
    pub launches: usize,
    /// Until the last `cuLaunchKernel` was enqueued.
    pub direct: Duration,
    /// Until the last graph replay was enqueued ([`CudaDevice::launch_async`]'s hot launches).
    pub replayed: Duration,
    /// Until the GPU had run the replays.
    pub synchronized: Duration,
}

impl LaunchFloor {
    /// Microseconds per launch of `time`.
    pub fn per_launch_us(&self, time: Duration) -> f64 {
        time.as_secs_f64() * 1e6 / self.launches.max(1) as f64
    }
}

impl CudaDevice {
    /// Launches the empty kernel once (loading it), then `launches` times with `cuLaunchKernel`,
    /// then `launches` times as [`CudaDevice::launch_async`] does (replayed from a graph once
    /// hot), neither synchronizing between launches, and times them.
    pub fn launch_floor(&self, launches: usize) -> Result<LaunchFloor, CudaError> {
        let artifact = Artifact {
            ptx: EMPTY_KERNEL.to_string(),
            kernel_name: "floor_kernel".to_string(),
            threads_per_block: 128,
            shared_bytes: 0,
            params: vec![ParamAbi::Pointer, ParamAbi::Pointer, ParamAbi::Pointer, ParamAbi::Int(4)],
            global_scratch_bytes: 0,
            persistent: false,
            tensor_maps: Vec::new(),
        };
        let kernel = self.load(&artifact)?;
        let args = [ArgValue::Buffer(0), ArgValue::Buffer(1), ArgValue::Buffer(2), ArgValue::Int(1024)];
        // The kernel reads none of its pointers: any addresses do.
        let addresses = [0u64; 3];
        let mut buffers: Vec<Buffer> = ["x", "y", "out"]
            .iter()
            .map(|name| Buffer::zeros(name, trident_midend::ir::DType::F32, 4))
            .collect();
        let grid = Grid([1, 1, 1]);
        // Warm-up; `launch` (which synchronizes) also ends each run of timed launches.
        self.launch(&kernel, grid, &args, &mut buffers)?;
        let mut timed = |replays: bool| -> Result<(Duration, Duration), CudaError> {
            let started = Instant::now();
            for _ in 0..launches {
                self.launch_async_as(&kernel, grid, &args, &addresses, 0, replays)?;
            }
            let enqueued = started.elapsed();
            self.launch(&kernel, grid, &args, &mut buffers)?;
            Ok((enqueued, started.elapsed()))
        };
        let (direct, _) = timed(false)?;
        let (replayed, synchronized) = timed(true)?;
        Ok(LaunchFloor { launches, direct, replayed, synchronized })
    }
}
