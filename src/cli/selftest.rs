//! `trident selftest-cuda` (hidden): proves the CUDA device path on a GPU machine with the
//! runtime's hand-written PTX fixture, without the nvptx backend, in a fresh process (its last
//! step, a deliberate illegal address, leaves the CUDA context unusable).
//!
//! Without a GPU it prints `SKIP selftest-cuda: no CUDA GPU (<reason>)` and succeeds, unless
//! `TRIDENT_REQUIRE_DEVICES` (comma-separated) names `nvptx` or `cuda`: then it fails.

use trident_runtime::cuda::selftest::{self, Fault, Outcome};

use super::error::CliError;

/// Whether `TRIDENT_REQUIRE_DEVICES` demands a CUDA GPU.
pub fn gpu_required() -> bool {
    std::env::var("TRIDENT_REQUIRE_DEVICES")
        .unwrap_or_default()
        .split(',')
        .any(|device| matches!(device.trim(), "nvptx" | "cuda"))
}

pub fn selftest_cuda() -> Result<(), CliError> {
    match selftest::run(Fault::Check) {
        Ok(Outcome::Passed(lines)) => {
            for line in lines {
                println!("{line}");
            }
            println!("selftest-cuda: PASS");
            Ok(())
        }
        Ok(Outcome::NoGpu(reason)) if gpu_required() => Err(CliError::Failed(format!(
            "selftest-cuda: TRIDENT_REQUIRE_DEVICES asks for a CUDA GPU, but there is none: {reason}"
        ))),
        Ok(Outcome::NoGpu(reason)) => {
            println!("SKIP selftest-cuda: no CUDA GPU ({reason})");
            Ok(())
        }
        Err(failure) => Err(CliError::Failed(format!("selftest-cuda: FAIL: {failure}"))),
    }
}
