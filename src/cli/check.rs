//! `trident check`: run a kernel on every backend and compare each buffer with interp.
//!
//! interp is the reference; every other available backend's output buffers are compared with
//! it element by element (integers exactly, floats by absolute difference) and printed as one
//! table row per backend. Backends that are not available get a row saying why. Today only
//! interp exists, so the table has the reference row and the reasons for the others.

use trident_midend::ir::DType;
use trident_runtime::Buffer;

use super::args::{self, DataMode};
use super::devices::{backend_name, unavailable_reason};
use super::error::CliError;
use super::run::{launch_on_interp, write_buffers};
use super::{Backend, RunArgs};

pub fn check(args: &RunArgs) -> Result<(), CliError> {
    let mut launch = args::prepare(&args.spec, DataMode::Load)?;
    let grid = launch.require_grid()?;
    let module = launch.compile()?;
    let inputs = std::mem::take(&mut launch.buffers);

    let mut reference = inputs.clone();
    launch_on_interp(&launch, &module, grid, &mut reference)?;

    println!("backend  status       buffers  max_abs_diff   mismatches");
    let (max_abs, mismatches) = compare_all(&reference, &reference);
    println!("{:<8} {:<12} {:<8} {:<14} {}", "interp", "reference", reference.len(), max_abs, mismatches);
    let mut unavailable = Vec::new();
    for backend in [Backend::Nvptx, Backend::Spirv] {
        if let Some(reason) = unavailable_reason(backend) {
            println!("{:<8} {:<12} {:<8} {:<14} -", backend_name(backend), "unavailable", "-", "-");
            unavailable.push(format!("{}: {reason}", backend_name(backend)));
        }
    }
    println!("not compared: {}", unavailable.join("; "));
    if let Some(out) = &args.out {
        write_buffers(out, &reference)?;
    }
    Ok(())
}

/// The largest absolute difference and the number of differing elements over all buffers.
pub fn compare_all(reference: &[Buffer], other: &[Buffer]) -> (f64, usize) {
    let mut max_abs = 0.0f64;
    let mut mismatches = 0;
    for (a, b) in reference.iter().zip(other) {
        let (buffer_max, buffer_mismatches) = compare(a, b);
        max_abs = max_abs.max(buffer_max);
        mismatches += buffer_mismatches;
    }
    (max_abs, mismatches)
}

/// Compares two buffers of the same dtype element by element. NaN equals NaN here: a backend
/// that produces NaN where interp does is right.
pub fn compare(a: &Buffer, b: &Buffer) -> (f64, usize) {
    if a.dtype != b.dtype || a.bytes.len() != b.bytes.len() {
        return (f64::INFINITY, a.len().max(b.len()));
    }
    let size = a.dtype.size_bytes();
    let mut max_abs = 0.0f64;
    let mut mismatches = 0;
    for (x, y) in a.bytes.chunks_exact(size).zip(b.bytes.chunks_exact(size)) {
        if x == y {
            continue;
        }
        let (x, y) = (element_as_f64(a.dtype, x), element_as_f64(a.dtype, y));
        if x.is_nan() && y.is_nan() {
            continue;
        }
        mismatches += 1;
        let diff = (x - y).abs();
        max_abs = max_abs.max(if diff.is_nan() { f64::INFINITY } else { diff });
    }
    (max_abs, mismatches)
}

/// One little-endian element as f64 (fp8 compares by bits: its value is not needed here).
fn element_as_f64(dtype: DType, bytes: &[u8]) -> f64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    let bits = u64::from_le_bytes(word);
    match dtype {
        DType::F16 => half::f16::from_bits(bits as u16).to_f64(),
        DType::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        DType::F32 => f32::from_bits(bits as u32) as f64,
        DType::F64 => f64::from_bits(bits),
        DType::I8 => bits as u8 as i8 as f64,
        DType::I16 => bits as u16 as i16 as f64,
        DType::I32 => bits as u32 as i32 as f64,
        DType::I64 => bits as i64 as f64,
        _ => bits as f64,
    }
}
