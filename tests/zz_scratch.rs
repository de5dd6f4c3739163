use trident_runtime::{npy, ArgValue, Grid};
#[test]
fn scratch() {
    let text = std::fs::read_to_string("midend/tests/passes/pipeline/vector_add.mlir").unwrap();
    let text = text.split("// ----- expected").next().unwrap();
    let mut module = trident_midend::ir::parser::parse_module(text).unwrap();
    trident_midend::pipeline::run_ttir(&mut module, &Default::default()).unwrap();
    println!("{:?}", module.kernel().unwrap().arg_names);
    let mut buffers = vec![
        npy::read("examples/data/x.npy".as_ref(), "x_ptr", None).unwrap(),
        npy::read("examples/data/y.npy".as_ref(), "y_ptr", None).unwrap(),
        npy::read("examples/data/output.npy".as_ref(), "out_ptr", None).unwrap(),
    ];
    let bind = |name: &str| match name { "x_ptr" => Some(ArgValue::Buffer(0)), "y_ptr" => Some(ArgValue::Buffer(1)), "out_ptr" => Some(ArgValue::Buffer(2)), "n" => Some(ArgValue::Int(1000)), _ => None };
    match trident::run_interp(&module, Grid([1, 1, 1]), bind, &mut buffers) {
        Ok(()) => {}
        Err(e) => panic!("{e:?}"),
    }
    trident::cli::run::write_buffers("/tmp/scratch_out".as_ref(), &buffers).unwrap();
}
