//! Host-side tensor descriptors as kernel arguments (Triton's `TensorDescriptor`): the frontend
//! takes such an argument as its base pointer, shape and strides (`descriptor_fields`) and makes
//! the descriptor on entry, so every backend runs it as a descriptor made in the kernel, and
//! sm_90a's PTX reads it through a tensor map encoded on the host.

use trident::{ArgSpec, ConstValue, Specialization};
use trident_frontend::{descriptor_field, descriptor_fields, DescriptorField};
use trident_midend::ir::DType;
use trident_runtime::{ArgValue, Buffer, Grid};

const PATH: &str = "descriptor_args.py";
const SOURCE: &str = "\
import triton
import triton.language as tl


@triton.jit
def scale_tiles(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    row = tl.program_id(0) * BM
    col = tl.program_id(1) * BN
    out_desc.store([row, col], in_desc.load([row, col]) * 2)
";

fn spec(dtype: DType, block: [i64; 2]) -> Specialization {
    let desc = ArgSpec::TensorDesc {
        dtype,
        aligned16: true,
        strides16: true,
        block_shape: block.to_vec(),
        padding_nan: false,
    };
    Specialization {
        args: vec![("in_desc".into(), desc.clone()), ("out_desc".into(), desc)],
        constexprs: vec![("BM".into(), ConstValue::Int(block[0])), ("BN".into(), ConstValue::Int(block[1]))],
        ..Specialization::default()
    }
}

#[test]
fn a_descriptor_argument_is_its_base_shape_and_strides() {
    let module = trident::compile_ttir(PATH, SOURCE, "scale_tiles", &spec(DType::F32, [32, 16])).unwrap();
    let kernel = module.kernel().unwrap();
    let names: Vec<&str> = kernel.arg_names.iter().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "in_desc",
            "in_desc.shape0",
            "in_desc.shape1",
            "in_desc.stride0",
            "out_desc",
            "out_desc.shape0",
            "out_desc.shape1",
            "out_desc.stride0"
        ]
    );
    let text = trident_midend::ir::printer::print_module(&module);
    assert_eq!(text.matches("tt.make_tensor_descriptor").count(), 2, "{text}");
    for (name, field) in descriptor_fields("in_desc", 2) {
        assert_eq!(descriptor_field(&name), ("in_desc", field));
    }
    // Any other parameter is its own argument, dotted or not.
    assert_eq!(descriptor_field("n"), ("n", DescriptorField::Base));
    assert_eq!(descriptor_field("in_desc.block0"), ("in_desc.block0", DescriptorField::Base));
}

#[test]
fn descriptor_arguments_run_on_the_interpreter() {
    let (rows, cols) = (100usize, 72usize);
    let module = trident::compile_ttir(PATH, SOURCE, "scale_tiles", &spec(DType::F32, [32, 16])).unwrap();
    let input: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let mut buffers =
        vec![Buffer::zeros("in", DType::F32, rows * cols), Buffer::zeros("out", DType::F32, rows * cols)];
    buffers[0].bytes = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let bind = |name: &str| -> Option<ArgValue> {
        let (param, field) = descriptor_field(name);
        let buffer = if param == "in_desc" { 0 } else { 1 };
        Some(match field {
            DescriptorField::Base => ArgValue::Buffer(buffer),
            DescriptorField::Shape(0) => ArgValue::Int(rows as i64),
            DescriptorField::Shape(_) => ArgValue::Int(cols as i64),
            DescriptorField::Stride(_) => ArgValue::Int(cols as i64),
        })
    };
    // 4 x 5 tiles of 32 x 16 cover 128 x 80: the tiles past the edges are clipped.
    trident::run_interp(&module, Grid([4, 5, 1]), bind, &mut buffers).unwrap();
    let output: Vec<f32> =
        buffers[1].bytes.chunks(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
    assert!(output.iter().zip(&input).all(|(out, x)| *out == 2.0 * x));
}

#[test]
fn descriptor_arguments_feeding_dots_are_host_tensor_maps_on_sm_90a() {
    let source = "\
import triton
import triton.language as tl


@triton.jit
def matmul_descriptors(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))
";
    let desc = |block: [i64; 2]| ArgSpec::TensorDesc {
        dtype: DType::F16,
        aligned16: true,
        strides16: true,
        block_shape: block.to_vec(),
        padding_nan: false,
    };
    let spec = Specialization {
        args: vec![
            ("a_desc".into(), desc([128, 64])),
            ("b_desc".into(), desc([64, 128])),
            ("c_desc".into(), desc([128, 128])),
            ("K".into(), ArgSpec::Int { value: 4096, dtype: DType::I32 }),
        ],
        constexprs: vec![
            ("BM".into(), ConstValue::Int(128)),
            ("BN".into(), ConstValue::Int(128)),
            ("BK".into(), ConstValue::Int(64)),
        ],
        num_warps: 8,
        ..Specialization::default()
    };
    let hopper = trident::compile_ptx(PATH, source, "matmul_descriptors", &spec, 90, 8).unwrap();
    assert!(!hopper.tensor_maps.is_empty(), "the operands' tensor maps are encoded on the host");
    assert!(hopper.ptx.contains("cp.async.bulk.tensor"), "TMA copies on sm_90a");
    assert!(hopper.ptx.contains("wgmma"), "warpgroup dots on sm_90a");
    let ampere = trident::compile_ptx(PATH, source, "matmul_descriptors", &spec, 80, 8).unwrap();
    assert!(ampere.tensor_maps.is_empty() && !ampere.ptx.contains("cp.async.bulk.tensor"));
}

#[test]
fn a_block_too_narrow_for_a_descriptor_is_an_error_at_the_parameter() {
    let error = trident::compile_ttir(PATH, SOURCE, "scale_tiles", &spec(DType::F16, [64, 4])).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("the last block dimension must span at least 16 bytes"), "{text}");
    assert!(text.contains("in_desc"), "the message points at the parameter: {text}");
}
