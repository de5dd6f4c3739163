//! What the hand-built SPIR-V examples share: a storage-buffer binding, the artifact around a
//! module, and the 4096^3 f16 GEMM's operands, check and timing. Each example uses part of it.
#![allow(dead_code)]

use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, FunctionControl, LoopControl, MemoryModel,
    StorageClass, Word,
};
use trident_backend_spirv::{Artifact, Mode, ParamAbi};
use trident_midend::ir::DType;
use trident_runtime::wgpu::{BenchLimits, WgpuDevice};
use trident_runtime::{ArgValue, Buffer, Grid};

/// M, N and K of the GEMM examples.
pub const S: u32 = 4096;

/// A storage buffer of `element`s `stride` bytes apart (a runtime array in a block) at binding
/// `binding` of set 0: its variable.
pub fn storage_buffer(b: &mut Builder, element: Word, stride: u32, binding: u32) -> Word {
    let array = b.type_runtime_array(element);
    b.decorate(array, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
    let block = b.type_struct([array]);
    b.decorate(block, Decoration::Block, []);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let pointer = b.type_pointer(None, StorageClass::StorageBuffer, block);
    let variable = b.variable(pointer, None, StorageClass::StorageBuffer, None);
    b.decorate(variable, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(variable, Decoration::Binding, [Operand::LiteralBit32(binding)]);
    variable
}

/// The artifact of a module whose entry point `entry` runs on `threads` invocations, with
/// `buffers` storage buffers at bindings 0 on and `workgroup_memory_bytes` of workgroup memory.
pub fn artifact(
    words: Vec<u32>,
    entry: &str,
    threads: u32,
    buffers: u32,
    workgroup_memory_bytes: u32,
) -> Artifact {
    Artifact {
        words,
        entry_name: entry.into(),
        workgroup_size: [threads, 1, 1],
        workgroup_memory_bytes,
        params: (0..buffers).map(|binding| ParamAbi::Buffer { binding, high: None }).collect(),
        uniform_binding: buffers,
        uniform_words: 8,
        mode: Mode::Vulkan,
        assert_binding: None,
        asserts: Vec::new(),
        print_binding: None,
        prints: Vec::new(),
        specialized_words: Vec::new(),
    }
}

/// Runs a GEMM kernel whose bindings 0, 1 and 2 are A, B (`S x S` f16) and C (`S x S` f32), and
/// then `extra`: once with A = 1/64 and B = 1 everywhere, checking that every element of C is 64,
/// then timed with those operands and with random ones (as the corpus' GEMMs have: the tensor
/// cores draw more power, and the clocks may drop). Returns the two median times in
/// milliseconds, each with its TFLOP/s.
pub fn gemm(device: &WgpuDevice, artifact: &Artifact, grid: Grid, extra: Vec<Buffer>) -> [(f64, f64); 2] {
    let n = (S * S) as usize;
    let half = |v: f32| half::f16::from_f32(v).to_bits();
    let a: Vec<u8> = (0..n).flat_map(|_| half(1.0 / 64.0).to_le_bytes()).collect();
    let b: Vec<u8> = (0..n).flat_map(|_| half(1.0).to_le_bytes()).collect();
    let mut buffers = vec![
        Buffer { bytes: a, ..Buffer::zeros("a", DType::F16, 0) },
        Buffer { bytes: b, ..Buffer::zeros("b", DType::F16, 0) },
        Buffer::zeros("c", DType::F32, n),
    ];
    buffers.extend(extra);
    let args: Vec<ArgValue> = (0..buffers.len()).map(ArgValue::Buffer).collect();
    device.launch(artifact, grid, &args, &mut buffers).expect("launch");
    let c: Vec<f32> =
        buffers[2].bytes.chunks_exact(4).map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    let wrong = c.iter().filter(|&&v| v != 64.0).count();
    if let Some(first) = c.iter().position(|&v| v != 64.0) {
        let (row, col) = (first / S as usize, first % S as usize);
        panic!("{wrong} elements of C are not 64; the first, at row {row} column {col}, is {}", c[first]);
    }
    let limits = BenchLimits { min_runs: 10, max_runs: 200, budget: std::time::Duration::from_secs(2) };
    let constant = device.bench(artifact, grid, &args, &mut buffers, limits).expect("bench");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut random = |scale: f32| -> Vec<u8> {
        (0..n)
            .flat_map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let unit = (state >> 40) as f32 / (1u64 << 24) as f32;
                half((unit * 2.0 - 1.0) * scale).to_le_bytes()
            })
            .collect()
    };
    buffers[0].bytes = random(2.0 / 64.0);
    buffers[1].bytes = random(1.7);
    let random = device.bench(artifact, grid, &args, &mut buffers, limits).expect("bench");
    let tflops = |ms: f64| 2.0 * f64::from(S).powi(3) / (ms * 1e-3) / 1e12;
    [constant.median_ms, random.median_ms].map(|ms| (ms, tflops(ms)))
}

/// A builder for a compute module on cooperative matrices: SPIR-V 1.3, f16 and 16-bit storage,
/// the Vulkan memory model (device scope too), `SPV_KHR_cooperative_matrix` and `extensions`.
pub fn matrix_module(extensions: &[&str]) -> Builder {
    let mut b = Builder::new();
    b.set_version(1, 3);
    for capability in [
        Capability::Shader,
        Capability::Float16,
        Capability::StorageBuffer16BitAccess,
        Capability::CooperativeMatrixKHR,
        Capability::VulkanMemoryModel,
        Capability::VulkanMemoryModelDeviceScope,
    ] {
        b.capability(capability);
    }
    for extension in [
        "SPV_KHR_cooperative_matrix",
        "SPV_KHR_vulkan_memory_model",
        "SPV_KHR_16bit_storage",
        "SPV_KHR_storage_buffer_storage_class",
    ]
    .iter()
    .chain(extensions)
    {
        b.extension(*extension);
    }
    b.memory_model(AddressingModel::Logical, MemoryModel::Vulkan);
    b
}

/// A loop `while counter < bound { body; counter += step }` over a function variable of u32.
pub struct CountedLoop {
    /// The counter's value in the body.
    pub value: Word,
    counter: Word,
    header: Word,
    cont: Word,
    merge: Word,
}

impl CountedLoop {
    /// Emits the loop's header and test and leaves the builder in its body.
    pub fn open(b: &mut Builder, counter: Word, bound: Word) -> CountedLoop {
        let (header, body, cont, merge) = (b.id(), b.id(), b.id(), b.id());
        b.branch(header).unwrap();
        b.begin_block(Some(header)).unwrap();
        b.loop_merge(merge, cont, LoopControl::NONE, []).unwrap();
        let u32t = b.type_int(32, 0);
        let value = b.load(u32t, None, counter, None, []).unwrap();
        let boolt = b.type_bool();
        let more = b.u_less_than(boolt, None, value, bound).unwrap();
        b.branch_conditional(more, body, merge, []).unwrap();
        b.begin_block(Some(body)).unwrap();
        CountedLoop { value, counter, header, cont, merge }
    }

    /// Ends the body: the counter steps by `step` (a u32 id) and the builder continues after the
    /// loop.
    pub fn close(self, b: &mut Builder, step: Word) {
        b.branch(self.cont).unwrap();
        b.begin_block(Some(self.cont)).unwrap();
        let u32t = b.type_int(32, 0);
        let next = b.i_add(u32t, None, self.value, step).unwrap();
        b.store(self.counter, next, None, []).unwrap();
        b.branch(self.header).unwrap();
        b.begin_block(Some(self.merge)).unwrap();
    }
}

/// The cooperative-matrix types of `C (f32, m x n) += A (f16, m x k) B (f16, k x n)` at `scope`
/// (a u32 id): A's, B's and C's.
pub fn gemm_matrix_types(b: &mut Builder, scope: Word, (m, k, n): (u32, u32, u32)) -> [Word; 3] {
    let u32t = b.type_int(32, 0);
    let (f16t, f32t) = (b.type_float(16, None), b.type_float(32, None));
    let [m, k, n, use_a, use_b, use_c] = [m, k, n, 0, 1, 2].map(|v| b.constant_bit32(u32t, v));
    [
        b.type_cooperative_matrix_khr(f16t, scope, m, k, use_a),
        b.type_cooperative_matrix_khr(f16t, scope, k, n, use_b),
        b.type_cooperative_matrix_khr(f32t, scope, m, n, use_c),
    ]
}

/// The command line's arguments as numbers; `usage` (what they are) in the panic otherwise.
pub fn numbers_from_args(usage: &str) -> Vec<u32> {
    std::env::args().skip(1).map(|a| a.parse().unwrap_or_else(|_| panic!("{a}: {usage}"))).collect()
}

/// An input variable of the compute built-in `builtin` (a uvec3: `WorkgroupId`,
/// `LocalInvocationId`).
pub fn builtin_uvec3(b: &mut Builder, builtin: BuiltIn) -> Word {
    let u32t = b.type_int(32, 0);
    let uvec3 = b.type_vector(u32t, 3);
    let pointer = b.type_pointer(None, StorageClass::Input, uvec3);
    let variable = b.variable(pointer, None, StorageClass::Input, None);
    b.decorate(variable, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
    variable
}

/// Begins the kernel's function (void, no parameters) and its first block: the function's id.
pub fn begin_main(b: &mut Builder) -> Word {
    let void = b.type_void();
    let signature = b.type_function(void, []);
    let main = b.begin_function(void, None, FunctionControl::NONE, signature).unwrap();
    b.begin_block(None).unwrap();
    main
}
