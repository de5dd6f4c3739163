//! Specialization constants on spirv (`Artifact::specialized_words`): the runtime writes the
//! launch's value of each listed uniform word into the module when it creates the pipeline, one
//! pipeline per set of values. A hand-written Vulkan-dialect kernel stores its specialization
//! constant (`SpecId 6`, the first parameter word) to a buffer; two launches with different
//! values must each see their own.
//!
//! Needs a Vulkan adapter that takes SPIR-V as it is (lavapipe does): without one it prints SKIP,
//! or fails when `TRIDENT_REQUIRE_DEVICES` names `spirv`.

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Decoration, StorageClass};
use trident_backend_spirv::{Artifact, Mode, ParamAbi, FIRST_PARAM_WORD};
use trident_midend::ir::DType;
use trident_runtime::wgpu::WgpuDevice;
use trident_runtime::{ArgValue, Buffer, Grid};

/// `out[0] = S` where `S` is the specialization constant `SpecId FIRST_PARAM_WORD` (default 7).
fn module() -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(spirv::Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let void = b.type_void();
    let uint = b.type_int(32, 0);
    let words = b.type_runtime_array(uint);
    b.decorate(words, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let block = b.type_struct([words]);
    b.decorate(block, Decoration::Block, []);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let pointer = b.type_pointer(None, StorageClass::StorageBuffer, block);
    let out = b.variable(pointer, None, StorageClass::StorageBuffer, None);
    b.decorate(out, Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(out, Decoration::Binding, [Operand::LiteralBit32(0)]);
    let value = b.spec_constant_bit32(uint, 7);
    b.decorate(value, Decoration::SpecId, [Operand::LiteralBit32(FIRST_PARAM_WORD)]);
    let zero = b.constant_bit32(uint, 0);
    let element = b.type_pointer(None, StorageClass::StorageBuffer, uint);
    let function = b.type_function(void, []);
    let main = b.begin_function(void, None, spirv::FunctionControl::NONE, function).unwrap();
    b.begin_block(None).unwrap();
    let slot = b.access_chain(element, None, out, [zero, zero]).unwrap();
    b.store(slot, value, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "k", []);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, [1, 1, 1]);
    b.module().assemble()
}

#[test]
fn each_launch_sees_its_own_specialized_value() {
    let device = match WgpuDevice::open(None) {
        Ok(Some(device)) if device.summary().passthrough => device,
        other => {
            let reason = match other {
                Ok(Some(_)) => "the Vulkan adapter does not take SPIR-V as it is".to_string(),
                Ok(None) => "no Vulkan adapter".to_string(),
                Err(e) => e.to_string(),
            };
            let required = std::env::var("TRIDENT_REQUIRE_DEVICES")
                .unwrap_or_default()
                .split(',')
                .any(|d| d.trim() == "spirv");
            assert!(!required, "TRIDENT_REQUIRE_DEVICES names spirv, but: {reason}");
            eprintln!("SKIP each_launch_sees_its_own_specialized_value: {reason}");
            return;
        }
    };
    let artifact = Artifact {
        words: module(),
        entry_name: "k".into(),
        workgroup_size: [1, 1, 1],
        workgroup_memory_bytes: 0,
        params: vec![
            ParamAbi::Buffer { binding: 0, high: None },
            ParamAbi::Int { bytes: 4, word: FIRST_PARAM_WORD },
        ],
        uniform_binding: 1,
        uniform_words: FIRST_PARAM_WORD + 1,
        mode: Mode::Vulkan,
        assert_binding: None,
        asserts: Vec::new(),
        print_binding: None,
        prints: Vec::new(),
        specialized_words: vec![FIRST_PARAM_WORD],
    };
    let run = |value: i64| {
        let mut buffers = vec![Buffer::zeros("out", DType::U32, 1)];
        let args = [ArgValue::Buffer(0), ArgValue::Int(value)];
        device.launch(&artifact, Grid([1, 1, 1]), &args, &mut buffers).expect("launch");
        u32::from_le_bytes(buffers[0].bytes[..4].try_into().unwrap())
    };
    assert_eq!(run(4096), 4096);
    assert_eq!(run(96), 96, "a second value needs a pipeline of its own");
    assert_eq!(run(4096), 4096);
    assert_eq!(device.cached_pipelines(), 2);
}
