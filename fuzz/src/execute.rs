//! One execution: an [`Input`] through every stage, in process, through the library API.
//!
//! The stages, in order (each [`Stage`] is also what a panic is attributed to):
//! 1. `ttir`: the frontend and the TTIR pass pipeline ([`trident::compile_ttir_with`]), with the
//!    verifier after every pass. A user error here ends the execution, after it is rendered (the
//!    renderer reads spans into the mutated source, so it is fuzzed too).
//! 2. `ptx-sm80`, `ptx-sm90a`: the TTGIR pipeline for the NVIDIA target and the nvptx emitter.
//! 3. `spirv`: the TTGIR pipeline for a Vulkan device with the defaults `trident compile` uses
//!    without an adapter, and the spirv emitter; `spirv-matrices`: the same for a device like the
//!    H100 under NVIDIA's driver ([`matrices_target`]: 32-wide subgroups, 16-bit storage,
//!    subgroup-scope f16 and bf16 matrices, workgroup-scope ones), where f16 and bf16 dots take
//!    the cooperative paths (staged, carried in the subgroups' matrices, or whole tiles on
//!    workgroup matrices).
//! 4. `interp`: the reference interpreter on the input's tiny grid, zero-filled buffers of
//!    [`INTERP_BUFFER_ELEMENTS`] elements, and a work budget of [`INTERP_BUDGET`].
//!
//! A user error in a backend ("does not support ... yet") does not stop the other stages. What
//! this module returns is the [`Verdict`] of a run that did not panic; catching panics, and the
//! time budget, are the caller's ([`crate::worker`], [`crate::driver`]).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use trident::{ArgSpec, CompileError, PipelineOptions};
use trident_backend_spirv::Mode;
use trident_midend::ir::Module;
use trident_runtime::{ArgValue, Buffer, Grid};

use crate::input::Input;

/// Elements of every buffer the interpreter stage binds to a pointer argument. Accesses beyond
/// it are reported by the interpreter as errors, which are not findings.
pub const INTERP_BUFFER_ELEMENTS: usize = 4096;

/// The interpreter's work budget per execution (ops plus result elements; see
/// `trident_runtime::interp::run_with_budget`): a few milliseconds of work.
pub const INTERP_BUDGET: u64 = 2_000_000;

/// A stage of an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Ttir,
    PtxSm80,
    PtxSm90a,
    Spirv,
    SpirvMatrices,
    Interp,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Ttir => "ttir",
            Stage::PtxSm80 => "ptx-sm80",
            Stage::PtxSm90a => "ptx-sm90a",
            Stage::Spirv => "spirv",
            Stage::SpirvMatrices => "spirv-matrices",
            Stage::Interp => "interp",
        }
    }

    pub fn from_name(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.name() == name)
    }

    pub const ALL: [Stage; 6] =
        [Stage::Ttir, Stage::PtxSm80, Stage::PtxSm90a, Stage::Spirv, Stage::SpirvMatrices, Stage::Interp];
}

/// Which stages run after `ttir` (which always runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stages {
    pub ptx: bool,
    pub spirv: bool,
    pub interp: bool,
}

impl Default for Stages {
    fn default() -> Self {
        Stages { ptx: true, spirv: true, interp: true }
    }
}

/// How an execution ended, when it ended at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every stage that ran accepted the input.
    Accepted,
    /// A user error: the compiler said what is wrong with the kernel. The stage is the first that
    /// rejected it.
    Rejected { stage: Stage },
    /// An internal compiler error (a verifier failure, a backend calling its input invalid).
    Internal { stage: Stage, message: String },
    /// A panic, caught by the worker; the message has the panic's location.
    Panic { stage: Stage, message: String },
}

thread_local! {
    /// The stage running now on this thread, for attributing a panic.
    static CURRENT: Cell<Stage> = const { Cell::new(Stage::Ttir) };
}

/// The stage that was running when this thread last entered one (the stage of a panic).
pub fn current_stage() -> Stage {
    CURRENT.with(Cell::get)
}

/// Whether entering a stage is announced on stderr (`@stage NAME`), which a worker does so that
/// the driver knows where a hang or a crash happened.
pub static ANNOUNCE_STAGES: AtomicBool = AtomicBool::new(false);

fn enter(stage: Stage) {
    CURRENT.with(|current| current.set(stage));
    if ANNOUNCE_STAGES.load(Ordering::Relaxed) {
        eprintln!("{}{}", crate::process::STAGE_ANNOUNCEMENT, stage.name());
    }
}

/// Runs `input` through the frontend and every stage of `stages`. May panic: that is what the
/// fuzzer looks for.
pub fn execute(input: &Input, stages: &Stages) -> Verdict {
    let options = PipelineOptions { verify: true, ..Default::default() };
    enter(Stage::Ttir);
    let module =
        match trident::compile_ttir_with(&input.path, &input.source, &input.kernel, &input.spec, &options) {
            Ok(module) => module,
            Err(error) => return judge(Stage::Ttir, error, None),
        };
    let mut verdict = Verdict::Accepted;
    let mut record = |stage: Stage, outcome: Result<(), CompileError>| {
        if let Err(error) = outcome {
            verdict = judge(stage, error, Some(std::mem::replace(&mut verdict, Verdict::Accepted)));
        }
    };
    if stages.ptx {
        for (stage, sm) in [(Stage::PtxSm80, 80), (Stage::PtxSm90a, 90)] {
            enter(stage);
            let outcome =
                trident::lower_to_ptx(&module, &input.path, &input.source, &input.spec, sm, &options);
            record(stage, outcome.map(|_| ()));
        }
    }
    if stages.spirv {
        enter(Stage::Spirv);
        let target = trident::cli::spirv::target_for(None, Some(Mode::Vulkan));
        let outcome =
            trident::lower_to_spirv(&module, &input.path, &input.source, &input.spec, target, &options);
        record(Stage::Spirv, outcome.map(|_| ()));
        enter(Stage::SpirvMatrices);
        let outcome = trident::lower_to_spirv(
            &module,
            &input.path,
            &input.source,
            &input.spec,
            matrices_target(),
            &options,
        );
        record(Stage::SpirvMatrices, outcome.map(|_| ()));
    }
    if stages.interp {
        enter(Stage::Interp);
        // Any runtime error is an acceptable answer: the kernel was not written for these buffers.
        let _ = interpret(input, &module);
    }
    verdict
}

/// A Vulkan device like the H100 under NVIDIA's driver (as `trident devices` lists it): 32-wide
/// subgroups with subgroup operations, 48 KiB of workgroup memory, 16-bit storage, f32 atomic
/// add, wide accesses, f16 and bf16 cooperative matrices at 16x16x16, and the workgroup-scope
/// f16 and bf16 granules of `VK_NV_cooperative_matrix2` with tensor addressing, and its
/// per-element operations.
pub fn matrices_target() -> trident::SpirvTarget {
    use trident_backend_spirv::{MatrixGranule, Storage16Bit, WorkgroupMatrices};
    use trident_midend::ir::DType;
    let mut granules = Vec::new();
    for (m, n, invocations) in [(16, 16, 32), (16, 16, 64), (32, 16, 128), (32, 32, 256)] {
        for operand in [DType::F16, DType::BF16] {
            granules.push(MatrixGranule { m, n, k: 16, invocations, operand, accumulator: DType::F32 });
        }
    }
    trident::SpirvTarget {
        mode: Mode::Vulkan,
        threads_per_warp: 32,
        max_workgroup_invocations: 1024,
        workgroup_memory_bytes: 48 * 1024,
        float32_atomic_add: true,
        windowed_buffers: Vec::new(),
        storage_16bit: Storage16Bit::Stores,
        wide_accesses: true,
        subgroup_size: 32,
        cooperative_matrix_f16: true,
        cooperative_matrix_bf16: true,
        workgroup_matrices: Some(WorkgroupMatrices {
            granules,
            max_dimension: 1024,
            element_operations: true,
        }),
        cooperative_matrix_per_element: true,
    }
}

/// The verdict after `stage` failed with `error`, given the verdict so far (`None` for the first
/// stage): an internal error outranks a rejection, and the first of each kind is kept.
fn judge(stage: Stage, error: CompileError, so_far: Option<Verdict>) -> Verdict {
    match (error, so_far) {
        (_, Some(internal @ Verdict::Internal { .. })) => internal,
        (CompileError::Internal { message, .. }, _) => Verdict::Internal { stage, message },
        (CompileError::User(diagnostics), so_far) => {
            // Render as the command line would: spans into the mutated source must not panic.
            let _ = diagnostics.render();
            match so_far {
                Some(rejected @ Verdict::Rejected { .. }) => rejected,
                _ => Verdict::Rejected { stage },
            }
        }
    }
}

/// Runs the compiled kernel on the interpreter with zero-filled buffers.
fn interpret(input: &Input, module: &Module) -> Result<(), String> {
    let mut buffers = Vec::new();
    let mut bound: Vec<(&str, ArgValue)> = Vec::new();
    // A descriptor argument's shape and strides, by compiled parameter name.
    let mut fields: Vec<(String, ArgValue)> = Vec::new();
    for (name, arg) in &input.spec.args {
        let value = match arg {
            ArgSpec::Pointer { dtype, .. } => {
                buffers.push(Buffer::zeros(name, *dtype, INTERP_BUFFER_ELEMENTS));
                ArgValue::Buffer(buffers.len() - 1)
            }
            ArgSpec::Int { value, .. } => ArgValue::Int(*value),
            ArgSpec::Float { value, .. } => ArgValue::Float(*value),
            // A descriptor over the zero-filled buffer: rows of its block's width, as many as fit.
            ArgSpec::TensorDesc { dtype, block_shape, .. } => {
                buffers.push(Buffer::zeros(name, *dtype, INTERP_BUFFER_ELEMENTS));
                let inner = block_shape.last().copied().unwrap_or(1).max(1);
                let outer = (INTERP_BUFFER_ELEMENTS as i64 / inner).max(1);
                // [.., 1, outer, inner] elements, row-major; the last stride (1) is no field.
                let rank = block_shape.len();
                let mut shape = vec![1; rank];
                for (size, value) in shape.iter_mut().rev().zip([inner, outer]) {
                    *size = value;
                }
                let strides: Vec<i64> = (0..rank).map(|i| shape[i + 1..].iter().product()).collect();
                for (field, kind) in trident_frontend::descriptor_fields(name, rank) {
                    if let Some(value) = kind.value(&shape, &strides) {
                        fields.push((field, ArgValue::Int(value)));
                    }
                }
                ArgValue::Buffer(buffers.len() - 1)
            }
        };
        bound.push((name, value));
    }
    let bind = |name: &str| {
        let fields = fields.iter().map(|(n, v)| (n.as_str(), v));
        bound.iter().map(|(n, v)| (*n, v)).chain(fields).find(|(n, _)| *n == name).map(|(_, v)| v.clone())
    };
    let args = trident::kernel_args(module, bind).map_err(|e| format!("{e:?}"))?;
    let kernel = module.kernel().ok_or("no kernel")?.name.clone();
    trident_runtime::interp::run_with_budget(
        module,
        &kernel,
        Grid(input.grid),
        &args,
        &mut buffers,
        INTERP_BUDGET,
    )
    .map_err(|e| e.message)
}
