//! `ptxas`, NVIDIA's PTX assembler, for `trident compile --emit cubin`.
//!
//! trident never needs ptxas to run kernels (the driver's JIT compiles PTX), but a cubin file and
//! the register and spill counts of `ptxas -v` are worth having. It is found on `PATH`, under
//! `$CUDA_HOME/bin`, or in the PyPI package `nvidia-cuda-nvcc` (`nvidia/cu13/bin/ptxas` or
//! `nvidia/cuda_nvcc/bin/ptxas` under the directory `python3 -c "import nvidia"` reports).

use std::path::{Path, PathBuf};
use std::process::Command;

/// What `ptxas -v` says about one kernel: defined beside the cubin entries that store it.
pub use trident_runtime::cache::artifacts::KernelResources;

/// Finds ptxas, or says where it looked.
pub fn find() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join("ptxas");
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    if let Some(cuda_home) = std::env::var_os("CUDA_HOME") {
        let candidate = Path::new(&cuda_home).join("bin").join("ptxas");
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    let python = Command::new("python3")
        .args(["-c", "import nvidia, sys; print('\\n'.join(nvidia.__path__))"])
        .output();
    if let Ok(output) = python {
        for dir in String::from_utf8_lossy(&output.stdout).lines() {
            for sub in ["cu13", "cuda_nvcc"] {
                let candidate = Path::new(dir.trim()).join(sub).join("bin").join("ptxas");
                if candidate.is_file() {
                    return Ok(candidate);
                }
            }
        }
    }
    Err("ptxas not found: looked on PATH, in $CUDA_HOME/bin and in the Python package nvidia-cuda-nvcc \
         (pip install nvidia-cuda-nvcc)"
        .to_string())
}

/// Assembles `ptx` for `gpu_name` (`sm_80`, `sm_90a`) into `output` with `-v`; returns the
/// per-kernel resources ptxas reported. A rejected PTX comes back as ptxas's own messages.
pub fn assemble(
    ptxas: &Path,
    ptx: &str,
    gpu_name: &str,
    output: &Path,
) -> Result<Vec<KernelResources>, String> {
    let input = output.with_extension("ptx.tmp");
    std::fs::write(&input, ptx).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let result = Command::new(ptxas)
        .arg("--gpu-name")
        .arg(gpu_name)
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(output)
        .output();
    let _ = std::fs::remove_file(&input);
    let result = result.map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let messages =
        String::from_utf8_lossy(&result.stderr).into_owned() + &String::from_utf8_lossy(&result.stdout);
    if !result.status.success() {
        return Err(format!("ptxas rejected the PTX ({}):\n{}", result.status, messages.trim_end()));
    }
    Ok(parse_verbose(&messages))
}

/// Reads `ptxas -v` output: "Compiling entry function 'k'", "N bytes spill stores, M bytes spill
/// loads", "Used R registers".
pub fn parse_verbose(text: &str) -> Vec<KernelResources> {
    let mut kernels: Vec<KernelResources> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default();
            kernels.push(KernelResources { kernel: name.to_string(), ..Default::default() });
            continue;
        }
        let Some(current) = kernels.last_mut() else { continue };
        if let Some(count) = number_before(line, " registers") {
            current.registers = count;
        }
        if let Some(count) = number_before(line, " bytes spill stores") {
            current.spill_store_bytes = count;
        }
        if let Some(count) = number_before(line, " bytes spill loads") {
            current.spill_load_bytes = count;
        }
    }
    kernels
}

/// The integer just before `suffix` in `line`.
fn number_before(line: &str, suffix: &str) -> Option<u32> {
    let end = line.find(suffix)?;
    let start = line[..end].rfind(|c: char| !c.is_ascii_digit()).map_or(0, |i| i + 1);
    line[start..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_registers_and_spills() {
        let text = "ptxas info    : 0 bytes gmem\n\
                    ptxas info    : Compiling entry function 'add_kernel' for 'sm_90a'\n\
                    ptxas info    : Function properties for add_kernel\n    \
                    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n\
                    ptxas info    : Used 26 registers, used 0 barriers\n";
        let kernels = parse_verbose(text);
        assert_eq!(
            kernels,
            [KernelResources {
                kernel: "add_kernel".into(),
                registers: 26,
                spill_store_bytes: 8,
                spill_load_bytes: 12
            }]
        );
    }

    /// The CUDA device's hand-written PTX fixture goes through ptxas, when ptxas is installed.
    #[test]
    fn assembles_the_cuda_fixture() {
        let Ok(ptxas) = find() else {
            // To the stderr handle, past the harness's capture: `cargo test` shows the SKIP.
            use std::io::Write;
            let _ = writeln!(std::io::stderr().lock(), "SKIP assembles_the_cuda_fixture: ptxas not found");
            return;
        };
        let dir = std::env::temp_dir().join(format!("trident-ptxas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let output = dir.join("fixture.cubin");
        let ptx = trident_runtime::cuda::selftest::FIXTURE_PTX;
        let kernels = assemble(&ptxas, ptx, "sm_90a", &output).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = kernels.iter().map(|k| k.kernel.as_str()).collect();
        assert!(names.contains(&"vector_add"), "{kernels:?}");
        assert!(kernels.iter().all(|k| k.registers > 0), "{kernels:?}");
        assert!(std::fs::metadata(&output).unwrap().len() > 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
