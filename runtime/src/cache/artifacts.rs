//! The payloads of compiled-kernel entries: a PTX artifact, a cubin, a SPIR-V artifact, each
//! with what a launch or `trident compile` needs besides the code.
//!
//! Besides the backend's [`Artifact`](trident_backend_nvptx::Artifact) (code plus launch
//! metadata: block size, shared memory, parameter ABI; for SPIR-V also the bindings, the uniform
//! block, the `tl.device_assert` sites with their spans and the `tl.device_print` sites), an
//! entry keeps
//! - the compiled kernel's parameter names, which bind the command line's arguments (the
//!   compiled kernel has fewer parameters than the Python function), and
//! - the warnings the compilation printed (loop hints trident does not apply), rendered, so that
//!   `trident compile` prints the same stderr from the cache as without it.
//!
//! A cubin entry holds the bytes `ptxas` wrote, what `ptxas -v` said (registers, spills) and the
//! warnings of the PTX's compilation.

use trident_backend_nvptx::{
    Artifact as PtxArtifact, BinaryOp, HostTensorMap, LaunchScalar, ParamAbi as PtxParam,
};
use trident_backend_spirv::{
    Artifact as SpirvArtifact, AssertSite, HighWindow, Mode, ParamAbi as SpirvParam, PrintSite, Printed,
};
use trident_midend::ir::{DType, Span};

use super::codec::{DecodeError, Decoder, Encoder};

/// A compiled kernel and what its launch needs besides the artifact.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled<A> {
    pub artifact: A,
    /// The compiled kernel's parameter names, in order.
    pub arg_names: Vec<String>,
    /// The warnings its compilation printed, rendered (each ends with a newline).
    pub warnings: Vec<String>,
}

/// What `ptxas -v` says about one kernel. The root package runs `ptxas` (`trident compile --emit
/// cubin`) and reads its report into this; the cache keeps it beside the cubin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelResources {
    pub kernel: String,
    pub registers: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

/// `ptxas`'s output for one PTX.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubin {
    pub bytes: Vec<u8>,
    pub resources: Vec<KernelResources>,
    /// The warnings the compilation of the PTX printed, rendered.
    pub warnings: Vec<String>,
}

fn bad(what: &str, tag: u8) -> DecodeError {
    DecodeError(format!("unknown {what} tag {tag}"))
}

pub fn encode_ptx(compiled: &Compiled<PtxArtifact>) -> Vec<u8> {
    let artifact = &compiled.artifact;
    let mut e = Encoder::new();
    e.str(&artifact.ptx)
        .str(&artifact.kernel_name)
        .u32(artifact.threads_per_block)
        .u32(artifact.shared_bytes);
    e.count(artifact.params.len());
    for param in &artifact.params {
        match param {
            PtxParam::Pointer => e.u8(0).u32(8),
            PtxParam::Int(bytes) => e.u8(1).u32(*bytes),
            PtxParam::Float(bytes) => e.u8(2).u32(*bytes),
        };
    }
    e.u32(artifact.global_scratch_bytes);
    e.u8(u8::from(artifact.persistent));
    e.count(artifact.tensor_maps.len());
    for map in &artifact.tensor_maps {
        encode_map(&mut e, map);
    }
    e.strings(&compiled.arg_names).strings(&compiled.warnings);
    e.finish()
}

fn encode_map(e: &mut Encoder, map: &HostTensorMap) {
    encode_scalar(e, &map.base);
    e.count(map.dims.len());
    for scalar in map.dims.iter().chain(&map.strides) {
        encode_scalar(e, scalar);
    }
    e.words(&map.box_dims).u32(map.elem_bytes).u32(map.swizzle_bytes);
}

/// A launch scalar in prefix order: a tag, its fields, then its operands.
fn encode_scalar(e: &mut Encoder, scalar: &LaunchScalar) {
    match scalar {
        LaunchScalar::Param { index, bits } => {
            e.u8(0).u64(*index as u64).u32(*bits);
        }
        LaunchScalar::Const(value) => {
            e.u8(1).u64(*value as u64);
        }
        LaunchScalar::Binary { op, lhs, rhs, bits } => {
            let tag = match op {
                BinaryOp::Add => 2,
                BinaryOp::Sub => 3,
                BinaryOp::Mul => 4,
            };
            e.u8(tag).u32(*bits);
            encode_scalar(e, lhs);
            encode_scalar(e, rhs);
        }
        LaunchScalar::Resize { value, from, bits, zero_extend } => {
            e.u8(5).u32(*from).u32(*bits).bool(*zero_extend);
            encode_scalar(e, value);
        }
    }
}

fn decode_map(d: &mut Decoder<'_>) -> Result<HostTensorMap, DecodeError> {
    let base = decode_scalar(d, 0)?;
    let rank = d.count(1)?;
    let dims = (0..rank).map(|_| decode_scalar(d, 0)).collect::<Result<_, _>>()?;
    let strides = (0..rank).map(|_| decode_scalar(d, 0)).collect::<Result<_, _>>()?;
    let box_dims = d.words()?;
    Ok(HostTensorMap { base, dims, strides, box_dims, elem_bytes: d.u32()?, swizzle_bytes: d.u32()? })
}

/// How deep a launch scalar may nest (the backend's are far shallower; a corrupt entry must not
/// exhaust the stack).
const MAX_SCALAR_DEPTH: u32 = 64;

fn decode_scalar(d: &mut Decoder<'_>, depth: u32) -> Result<LaunchScalar, DecodeError> {
    if depth > MAX_SCALAR_DEPTH {
        return Err(DecodeError("a launch scalar nested too deep".to_string()));
    }
    let tag = d.u8()?;
    Ok(match tag {
        0 => LaunchScalar::Param { index: d.u64()? as usize, bits: d.u32()? },
        1 => LaunchScalar::Const(d.u64()? as i64),
        2..=4 => {
            let op = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul][usize::from(tag - 2)];
            let bits = d.u32()?;
            let lhs = Box::new(decode_scalar(d, depth + 1)?);
            let rhs = Box::new(decode_scalar(d, depth + 1)?);
            LaunchScalar::Binary { op, lhs, rhs, bits }
        }
        5 => {
            let (from, bits, zero_extend) = (d.u32()?, d.u32()?, d.bool()?);
            LaunchScalar::Resize { value: Box::new(decode_scalar(d, depth + 1)?), from, bits, zero_extend }
        }
        other => return Err(bad("launch scalar", other)),
    })
}

pub fn decode_ptx(bytes: &[u8]) -> Result<Compiled<PtxArtifact>, DecodeError> {
    let mut d = Decoder::new(bytes);
    let ptx = d.string()?;
    let kernel_name = d.string()?;
    let threads_per_block = d.u32()?;
    let shared_bytes = d.u32()?;
    let count = d.count(5)?;
    let mut params = Vec::with_capacity(count);
    for _ in 0..count {
        let tag = d.u8()?;
        let bytes = d.u32()?;
        params.push(match tag {
            0 => PtxParam::Pointer,
            1 => PtxParam::Int(bytes),
            2 => PtxParam::Float(bytes),
            other => return Err(bad("parameter", other)),
        });
    }
    let global_scratch_bytes = d.u32()?;
    let persistent = match d.u8()? {
        0 => false,
        1 => true,
        other => return Err(bad("persistence", other)),
    };
    let maps = d.count(8)?;
    let tensor_maps = (0..maps).map(|_| decode_map(&mut d)).collect::<Result<_, _>>()?;
    let arg_names = d.strings()?;
    let warnings = d.strings()?;
    d.finish()?;
    let artifact = PtxArtifact {
        ptx,
        kernel_name,
        threads_per_block,
        shared_bytes,
        params,
        global_scratch_bytes,
        persistent,
        tensor_maps,
    };
    Ok(Compiled { artifact, arg_names, warnings })
}

pub fn encode_cubin(cubin: &Cubin) -> Vec<u8> {
    let mut e = Encoder::new();
    e.bytes(&cubin.bytes).count(cubin.resources.len());
    for kernel in &cubin.resources {
        e.str(&kernel.kernel)
            .u32(kernel.registers)
            .u32(kernel.spill_store_bytes)
            .u32(kernel.spill_load_bytes);
    }
    e.strings(&cubin.warnings);
    e.finish()
}

pub fn decode_cubin(bytes: &[u8]) -> Result<Cubin, DecodeError> {
    let mut d = Decoder::new(bytes);
    let cubin = d.bytes()?.to_vec();
    let count = d.count(16)?;
    let mut resources = Vec::with_capacity(count);
    for _ in 0..count {
        resources.push(KernelResources {
            kernel: d.string()?,
            registers: d.u32()?,
            spill_store_bytes: d.u32()?,
            spill_load_bytes: d.u32()?,
        });
    }
    let warnings = d.strings()?;
    d.finish()?;
    Ok(Cubin { bytes: cubin, resources, warnings })
}

pub fn encode_spirv(compiled: &Compiled<SpirvArtifact>) -> Vec<u8> {
    let artifact = &compiled.artifact;
    let mut e = Encoder::new();
    e.words(&artifact.words).str(&artifact.entry_name);
    for size in artifact.workgroup_size {
        e.u32(size);
    }
    e.u32(artifact.workgroup_memory_bytes).count(artifact.params.len());
    for param in &artifact.params {
        match param {
            SpirvParam::Buffer { binding, high } => {
                e.u8(0).u32(*binding);
                match high {
                    Some(window) => e.bool(true).u32(window.binding).u32(window.split_word),
                    None => e.bool(false),
                };
            }
            SpirvParam::Int { bytes, word } => {
                e.u8(1).u32(*bytes).u32(*word);
            }
            SpirvParam::Float { bytes, word } => {
                e.u8(2).u32(*bytes).u32(*word);
            }
        }
    }
    e.u32(artifact.uniform_binding).u32(artifact.uniform_words);
    e.u8(match artifact.mode {
        Mode::Vulkan => 0,
        Mode::Portable => 1,
    });
    match artifact.assert_binding {
        Some(binding) => e.bool(true).u32(binding),
        None => e.bool(false),
    };
    e.count(artifact.asserts.len());
    for site in &artifact.asserts {
        e.str(&site.message).u32(site.span.start).u32(site.span.end);
    }
    match artifact.print_binding {
        Some(binding) => e.bool(true).u32(binding),
        None => e.bool(false),
    };
    e.count(artifact.prints.len());
    for site in &artifact.prints {
        e.str(&site.prefix);
        match site.operand {
            Some(k) => e.bool(true).u32(k),
            None => e.bool(false),
        };
        match site.printed {
            Printed::Nothing => e.u8(0),
            Printed::Value(d) => e.u8(1).str(d.ir_name()),
            Printed::Pointer { binding } => e.u8(2).u32(binding),
        };
        e.bool(site.hex).words(&site.shape).u32(site.span.start).u32(site.span.end);
    }
    e.words(&artifact.specialized_words);
    e.strings(&compiled.arg_names).strings(&compiled.warnings);
    e.finish()
}

pub fn decode_spirv(bytes: &[u8]) -> Result<Compiled<SpirvArtifact>, DecodeError> {
    let mut d = Decoder::new(bytes);
    let words = d.words()?;
    let entry_name = d.string()?;
    let workgroup_size = [d.u32()?, d.u32()?, d.u32()?];
    let workgroup_memory_bytes = d.u32()?;
    let count = d.count(5)?;
    let mut params = Vec::with_capacity(count);
    for _ in 0..count {
        params.push(match d.u8()? {
            0 => {
                let binding = d.u32()?;
                let high = if d.bool()? {
                    Some(HighWindow { binding: d.u32()?, split_word: d.u32()? })
                } else {
                    None
                };
                SpirvParam::Buffer { binding, high }
            }
            1 => SpirvParam::Int { bytes: d.u32()?, word: d.u32()? },
            2 => SpirvParam::Float { bytes: d.u32()?, word: d.u32()? },
            other => return Err(bad("parameter", other)),
        });
    }
    let uniform_binding = d.u32()?;
    let uniform_words = d.u32()?;
    let mode = match d.u8()? {
        0 => Mode::Vulkan,
        1 => Mode::Portable,
        other => return Err(bad("SPIR-V dialect", other)),
    };
    let assert_binding = if d.bool()? { Some(d.u32()?) } else { None };
    let count = d.count(12)?;
    let mut asserts = Vec::with_capacity(count);
    for _ in 0..count {
        let message = d.string()?;
        let span = Span::new(d.u32()?, d.u32()?);
        asserts.push(AssertSite { message, span });
    }
    let print_binding = if d.bool()? { Some(d.u32()?) } else { None };
    let count = d.count(19)?;
    let mut prints = Vec::with_capacity(count);
    for _ in 0..count {
        let prefix = d.string()?;
        let operand = if d.bool()? { Some(d.u32()?) } else { None };
        let printed = match d.u8()? {
            0 => Printed::Nothing,
            1 => {
                let name = d.string()?;
                match DType::from_ir_name(&name) {
                    Some(dtype) => Printed::Value(dtype),
                    None => return Err(DecodeError(format!("unknown element type {name:?}"))),
                }
            }
            2 => Printed::Pointer { binding: d.u32()? },
            other => return Err(bad("printed value", other)),
        };
        let hex = d.bool()?;
        let shape = d.words()?;
        let span = Span::new(d.u32()?, d.u32()?);
        prints.push(PrintSite { prefix, operand, printed, hex, shape, span });
    }
    let specialized_words = d.words()?;
    let arg_names = d.strings()?;
    let warnings = d.strings()?;
    d.finish()?;
    let artifact = SpirvArtifact {
        words,
        entry_name,
        workgroup_size,
        workgroup_memory_bytes,
        params,
        uniform_binding,
        uniform_words,
        mode,
        assert_binding,
        asserts,
        print_binding,
        prints,
        specialized_words,
    };
    Ok(Compiled { artifact, arg_names, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["x_ptr".into(), "n".into()]
    }

    #[test]
    fn ptx_round_trips() {
        let compiled = Compiled {
            artifact: PtxArtifact {
                ptx: ".version 8.0\n".into(),
                kernel_name: "k".into(),
                threads_per_block: 128,
                shared_bytes: 4096,
                params: vec![PtxParam::Pointer, PtxParam::Int(4), PtxParam::Float(8)],
                global_scratch_bytes: 128,
                persistent: true,
                tensor_maps: vec![tensor_map()],
            },
            arg_names: names(),
            warnings: vec!["warning: flatten is not applied\n".into()],
        };
        assert_eq!(decode_ptx(&encode_ptx(&compiled)), Ok(compiled));
    }

    /// A host tensor map with every kind of launch scalar: `(p + i64(n) * 2 elements)`, shape
    /// `(a * b - 1, 128)`, strides `(u64(trunc(c)), 1)`.
    fn tensor_map() -> HostTensorMap {
        let param = |index, bits| Box::new(LaunchScalar::Param { index, bits });
        let binary = |op, lhs, rhs, bits| LaunchScalar::Binary { op, lhs, rhs, bits };
        let wide_n =
            Box::new(LaunchScalar::Resize { value: param(1, 32), from: 32, bits: 64, zero_extend: false });
        let offset = binary(BinaryOp::Mul, wide_n, Box::new(LaunchScalar::Const(2)), 64);
        let rows = binary(BinaryOp::Mul, param(2, 32), param(3, 32), 32);
        let narrow =
            Box::new(LaunchScalar::Resize { value: param(4, 64), from: 64, bits: 32, zero_extend: false });
        HostTensorMap {
            base: binary(BinaryOp::Add, param(0, 64), Box::new(offset), 64),
            dims: vec![
                binary(BinaryOp::Sub, Box::new(rows), Box::new(LaunchScalar::Const(-1)), 32),
                LaunchScalar::Const(128),
            ],
            strides: vec![
                LaunchScalar::Resize { value: narrow, from: 32, bits: 64, zero_extend: true },
                LaunchScalar::Const(1),
            ],
            box_dims: vec![64, 64],
            elem_bytes: 2,
            swizzle_bytes: 128,
        }
    }

    #[test]
    fn a_corrupt_launch_scalar_is_an_error() {
        // A chain of sign extensions nested deeper than any backend writes.
        let mut e = Encoder::new();
        for _ in 0..=MAX_SCALAR_DEPTH + 1 {
            e.u8(5).u32(32).u32(64).bool(false);
        }
        e.u8(1).u64(7);
        let bytes = e.finish();
        assert!(decode_scalar(&mut Decoder::new(&bytes), 0).is_err());
        assert!(decode_scalar(&mut Decoder::new(&[9]), 0).is_err());
    }

    #[test]
    fn spirv_round_trips() {
        let compiled = Compiled {
            artifact: SpirvArtifact {
                words: vec![0x0723_0203, 1, 2],
                entry_name: "k".into(),
                workgroup_size: [256, 1, 1],
                workgroup_memory_bytes: 1024,
                params: vec![
                    SpirvParam::Buffer { binding: 0, high: Some(HighWindow { binding: 3, split_word: 9 }) },
                    SpirvParam::Buffer { binding: 1, high: None },
                    SpirvParam::Int { bytes: 4, word: 6 },
                    SpirvParam::Float { bytes: 8, word: 7 },
                ],
                uniform_binding: 6,
                uniform_words: 10,
                mode: Mode::Portable,
                assert_binding: Some(4),
                asserts: vec![AssertSite { message: "x > 0".into(), span: Span::new(10, 20) }],
                print_binding: Some(5),
                prints: vec![
                    PrintSite {
                        prefix: "x".into(),
                        operand: Some(1),
                        printed: Printed::Value(DType::BF16),
                        hex: true,
                        shape: vec![4, 8],
                        span: Span::new(30, 40),
                    },
                    PrintSite {
                        prefix: String::new(),
                        operand: None,
                        printed: Printed::Pointer { binding: 1 },
                        hex: false,
                        shape: Vec::new(),
                        span: Span::new(50, 60),
                    },
                    PrintSite {
                        prefix: "done".into(),
                        operand: None,
                        printed: Printed::Nothing,
                        hex: false,
                        shape: Vec::new(),
                        span: Span::new(70, 80),
                    },
                ],
                specialized_words: vec![6],
            },
            arg_names: names(),
            warnings: Vec::new(),
        };
        assert_eq!(decode_spirv(&encode_spirv(&compiled)), Ok(compiled));
    }

    #[test]
    fn cubin_round_trips() {
        let cubin = Cubin {
            bytes: vec![0x7f, b'E', b'L', b'F'],
            resources: vec![KernelResources {
                kernel: "k".into(),
                registers: 40,
                spill_store_bytes: 0,
                spill_load_bytes: 8,
            }],
            warnings: vec!["warning: ...\n".into()],
        };
        assert_eq!(decode_cubin(&encode_cubin(&cubin)), Ok(cubin));
        assert!(decode_cubin(&[1, 0, 0]).is_err());
    }
}
