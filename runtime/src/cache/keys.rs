//! Cache keys: a SHA-256 over named, length-prefixed fields, one function per kind of entry, each
//! listing everything the cached result depends on.
//!
//! **Compiled kernels** ([`artifact`]) depend on
//! - the compiler: [`identity`], the crate version plus the build id, a hash of the compiler's
//!   own sources that the runtime's `build.rs` computes (see there why not the binary's hash);
//! - the kernel: the whole text of its file and its name. The frontend resolves calls within the
//!   file only (it reads no other file; imports name `triton` modules), so the file holds every
//!   `@triton.jit` function the kernel calls, its decorators and the module-level constants;
//! - the specialization, as the frontend uses it: constexprs (after `@triton.heuristics`, whose
//!   values come from argument values: the caller passes the specialization the heuristics
//!   completed), per argument its dtype and Triton's specializations (an integer equal to 1, an
//!   integer divisible by 16, a pointer aligned to 16 bytes) but not the value itself, which the
//!   compiled code never sees (frontend `lower/mod.rs`), `num_warps` and `num_stages`;
//! - the target: for PTX the compute capability it is compiled for, for a cubin also the `ptxas`
//!   that assembled it, for SPIR-V every fact of [`SpirvTarget`] (dialect, warp width,
//!   workgroup limits, atomics, buffers bound as two windows).
//!
//! **Tuning results** ([`tuning`]) depend on the compiler, the kernel's file and name (which hold
//! the configs), the values of the arguments the decorator's `key` names, the dtype of every
//! pointer argument (as Triton's autotuner adds), the constexprs the launch has before any config
//! (the command line's, and those of `@triton.heuristics` stacked above `@triton.autotune`, which
//! Triton runs first and whose values the `key` may name), the backend and the device (its name
//! and driver version).
//!
//! Fields are hashed with their names and lengths, so no two different field lists hash the same
//! bytes; lists whose order does not matter (constexprs, arguments) are sorted by name first.

use std::fmt;

use sha2::{Digest, Sha256};

use trident_frontend::{ArgSpec, ConstValue, Specialization};

use crate::wgpu::SpirvTarget;

/// The SHA-256 that names an entry.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// 64 lowercase hex digits: the entry's file name.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({})", self.hex())
    }
}

/// The trident that writes and reads entries: `CARGO_PKG_VERSION+BUILD_ID`.
pub fn identity() -> String {
    format!("{}+{}", env!("CARGO_PKG_VERSION"), env!("TRIDENT_BUILD_ID"))
}

/// What a kernel is compiled for.
#[derive(Clone, Copy, Debug)]
pub enum Target<'a> {
    /// PTX for compute capability `sm` (80 or 90).
    Ptx { sm: u32 },
    /// A cubin: that PTX assembled by the `ptxas` this text identifies (its path, size and
    /// modification time, so that an upgraded toolkit reassembles).
    Cubin { sm: u32, ptxas: &'a str },
    /// SPIR-V for a Vulkan target.
    Spirv(&'a SpirvTarget),
}

/// Named, length-prefixed fields into SHA-256.
struct KeyHasher {
    sha: Sha256,
}

impl KeyHasher {
    /// A hasher for one kind of entry; `domain` keeps kinds apart.
    fn new(domain: &str) -> KeyHasher {
        let mut hasher = KeyHasher { sha: Sha256::new() };
        hasher.text("domain", domain);
        hasher.text("trident", &identity());
        hasher
    }

    fn field(&mut self, name: &str, value: &[u8]) {
        self.sha.update((name.len() as u64).to_le_bytes());
        self.sha.update(name.as_bytes());
        self.sha.update((value.len() as u64).to_le_bytes());
        self.sha.update(value);
    }

    fn text(&mut self, name: &str, value: &str) {
        self.field(name, value.as_bytes());
    }

    fn int(&mut self, name: &str, value: i64) {
        self.field(name, &value.to_le_bytes());
    }

    fn constant(&mut self, name: &str, value: &ConstValue) {
        let text = match value {
            ConstValue::Int(v) => format!("int {v}"),
            ConstValue::Float(v) => format!("float {:016x}", v.to_bits()),
            ConstValue::Bool(v) => format!("bool {v}"),
            ConstValue::DType(d) => format!("dtype {}", d.ir_name()),
            ConstValue::Str(s) => format!("str {s}"),
            ConstValue::None => "none".to_string(),
        };
        self.text(name, &text);
    }

    fn finish(self) -> Key {
        Key(self.sha.finalize().into())
    }
}

/// The key of a kernel compiled from `source` (its file's text), specialized on `spec` (with its
/// heuristics' values), for `target`.
pub fn artifact(source: &str, kernel: &str, spec: &Specialization, target: &Target) -> Key {
    let mut hasher = KeyHasher::new("artifact");
    hasher.text("source", source);
    hasher.text("kernel", kernel);
    let mut constexprs: Vec<&(String, ConstValue)> = spec.constexprs.iter().collect();
    constexprs.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, value) in constexprs {
        hasher.constant(&format!("constexpr {name}"), value);
    }
    let mut args: Vec<&(String, ArgSpec)> = spec.args.iter().collect();
    args.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, arg) in args {
        // What the frontend reads of an argument (lower/mod.rs): a pointer's element type and
        // alignment, an integer's type and whether it is 1 or a multiple of 16, a float's type.
        let text = match arg {
            ArgSpec::Pointer { dtype, aligned16 } => format!("*{} aligned16={aligned16}", dtype.ir_name()),
            ArgSpec::Int { value, dtype } => {
                let class = if *value == 1 {
                    "==1"
                } else if value % 16 == 0 {
                    "%16==0"
                } else {
                    "any"
                };
                format!("{} {class}", dtype.ir_name())
            }
            ArgSpec::Float { dtype, .. } => dtype.ir_name().to_string(),
            ArgSpec::TensorDesc { dtype, aligned16, strides16, block_shape, padding_nan } => format!(
                "desc {} aligned16={aligned16} strides16={strides16} block={block_shape:?} nan={padding_nan}",
                dtype.ir_name()
            ),
        };
        hasher.text(&format!("arg {name}"), &text);
    }
    hasher.int("num_warps", i64::from(spec.num_warps));
    hasher.int("num_stages", i64::from(spec.num_stages));
    match target {
        Target::Ptx { sm } => {
            hasher.text("backend", "nvptx");
            hasher.int("sm", i64::from(*sm));
        }
        Target::Cubin { sm, ptxas } => {
            hasher.text("backend", "nvptx cubin");
            hasher.int("sm", i64::from(*sm));
            hasher.text("ptxas", ptxas);
        }
        Target::Spirv(target) => {
            hasher.text("backend", "spirv");
            hasher.text("mode", &format!("{:?}", target.mode));
            hasher.int("threads_per_warp", i64::from(target.threads_per_warp));
            hasher.int("max_workgroup_invocations", i64::from(target.max_workgroup_invocations));
            hasher.int("workgroup_memory_bytes", i64::from(target.workgroup_memory_bytes));
            hasher.text("float32_atomic_add", &target.float32_atomic_add.to_string());
            hasher.text("storage_16bit", &format!("{:?}", target.storage_16bit));
            hasher.text("wide_accesses", &target.wide_accesses.to_string());
            hasher.int("subgroup_size", i64::from(target.subgroup_size));
            hasher.text("cooperative_matrix_f16", &target.cooperative_matrix_f16.to_string());
            hasher.text("cooperative_matrix_bf16", &target.cooperative_matrix_bf16.to_string());
            hasher.text("workgroup_matrices", &format!("{:?}", target.workgroup_matrices));
            hasher.text("cooperative_matrix_per_element", &target.cooperative_matrix_per_element.to_string());
            let windowed: Vec<String> = target.windowed_buffers.iter().map(u32::to_string).collect();
            hasher.text("windowed_buffers", &windowed.join(","));
        }
    }
    hasher.finish()
}

/// The key of the tuning result of an autotuned kernel: `base` is the launch's specialization
/// before any config (the command line's, with the values of the heuristics above
/// `@triton.autotune`), `autotune_key` the decorator's `key`, `device` the device's name and
/// driver.
pub fn tuning(
    source: &str,
    kernel: &str,
    base: &Specialization,
    autotune_key: &[String],
    backend: &str,
    device: &str,
) -> Key {
    let mut hasher = KeyHasher::new("tuning");
    hasher.text("source", source);
    hasher.text("kernel", kernel);
    for name in autotune_key {
        let arg = base.args.iter().find(|(n, _)| n == name).map(|(_, a)| a);
        let constant = base.constexprs.iter().find(|(n, _)| n == name).map(|(_, c)| c);
        let text = match (arg, constant) {
            (Some(ArgSpec::Int { value, dtype }), _) => format!("{} {value}", dtype.ir_name()),
            (Some(ArgSpec::Float { value, dtype }), _) => {
                format!("{} {:016x}", dtype.ir_name(), value.to_bits())
            }
            (Some(ArgSpec::Pointer { dtype, .. }), _) => format!("*{}", dtype.ir_name()),
            (Some(ArgSpec::TensorDesc { dtype, block_shape, .. }), _) => {
                format!("desc {} {block_shape:?}", dtype.ir_name())
            }
            (None, Some(constant)) => {
                hasher.constant(&format!("key {name}"), constant);
                continue;
            }
            (None, None) => "absent".to_string(),
        };
        hasher.text(&format!("key {name}"), &text);
    }
    let mut args: Vec<&(String, ArgSpec)> = base.args.iter().collect();
    args.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, arg) in args {
        match arg {
            ArgSpec::Pointer { dtype, .. } => hasher.text(&format!("pointer {name}"), dtype.ir_name()),
            ArgSpec::TensorDesc { dtype, block_shape, .. } => {
                hasher.text(&format!("descriptor {name}"), &format!("{} {block_shape:?}", dtype.ir_name()))
            }
            ArgSpec::Int { .. } | ArgSpec::Float { .. } => {}
        }
    }
    let mut constexprs: Vec<&(String, ConstValue)> = base.constexprs.iter().collect();
    constexprs.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, value) in constexprs {
        hasher.constant(&format!("constexpr {name}"), value);
    }
    hasher.text("backend", backend);
    hasher.text("device", device);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use trident_midend::ir::DType;

    fn spec(n: i64) -> Specialization {
        Specialization {
            args: vec![
                ("x_ptr".into(), ArgSpec::Pointer { dtype: DType::F32, aligned16: true }),
                ("n".into(), ArgSpec::Int { value: n, dtype: DType::I32 }),
            ],
            constexprs: vec![("BLOCK".into(), ConstValue::Int(256)), ("EVEN".into(), ConstValue::Bool(true))],
            num_warps: 4,
            num_stages: 3,
        }
    }

    const PTX: Target<'static> = Target::Ptx { sm: 90 };

    #[test]
    fn artifact_keys_follow_what_the_compiler_reads() {
        let key = |source: &str, spec: &Specialization, target: &Target| artifact(source, "k", spec, target);
        let base = key("src", &spec(1000), &PTX);
        // Integer values that specialize alike share a key; 1 and multiples of 16 do not.
        assert_eq!(base, key("src", &spec(999), &PTX));
        assert_ne!(base, key("src", &spec(1024), &PTX));
        assert_ne!(base, key("src", &spec(1), &PTX));
        // The source, the target, warps and constexprs all count; constexpr order does not.
        assert_ne!(base, key("src ", &spec(1000), &PTX));
        assert_ne!(base, key("src", &spec(1000), &Target::Ptx { sm: 80 }));
        assert_ne!(base, key("src", &Specialization { num_warps: 8, ..spec(1000) }, &PTX));
        let mut reordered = spec(1000);
        reordered.constexprs.reverse();
        assert_eq!(base, key("src", &reordered, &PTX));
        let mut other_block = spec(1000);
        other_block.constexprs[0].1 = ConstValue::Int(128);
        assert_ne!(base, key("src", &other_block, &PTX));
        assert_ne!(base, artifact("src", "other_kernel", &spec(1000), &PTX));
    }

    #[test]
    fn tuning_keys_follow_the_key_arguments_and_the_device() {
        let names = vec!["n".to_string()];
        let key = |n: i64, device: &str| tuning("src", "k", &spec(n), &names, "spirv", device);
        assert_eq!(key(1000, "llvmpipe"), key(1000, "llvmpipe"));
        assert_ne!(key(1000, "llvmpipe"), key(999, "llvmpipe"));
        assert_ne!(key(1000, "llvmpipe"), key(1000, "NVIDIA H100"));
        // An argument outside `key` does not count.
        assert_eq!(
            tuning("src", "k", &spec(1000), &[], "spirv", "d"),
            tuning("src", "k", &spec(999), &[], "spirv", "d")
        );
        assert_eq!(key(1000, "d").hex().len(), 64);
    }
}
