//! The memory order of `tl.atomic_*` in the SPIR-V: in the Vulkan dialect a fence around each
//! thread's relaxed atomics (release before, acquire after, as `sem` asks), the acquire half left
//! out where nothing reads the old values; in the portable dialect the order on each atomic.
//!
//! Each case lowers a `tl.atomic_add` over 256 f32 elements on one warp of 64 (four elements per
//! thread), emits SPIR-V and reads the fences and the atomics' semantics operands off the
//! disassembly (constants resolved). A masked atomic takes one branch per group of consecutive
//! elements that share their mask (the wide-access rule), not one per element. Every module also goes through
//! `spirv-val` where it is installed.

mod common;

use std::collections::HashMap;

use common::spirv_val;
use trident_backend_spirv::{Mode, Options};

/// Memory semantics bits (the SPIR-V spec's `Memory Semantics`).
const ACQUIRE: u32 = 0x2;
const RELEASE: u32 = 0x4;
const ACQUIRE_RELEASE: u32 = 0x8;
const UNIFORM_MEMORY: u32 = 0x40;

/// `old = tl.atomic_add(out_ptr + offs, 1.0, sem=SEM)`, then, when `READ`, `tl.store(old_ptr + offs, old)`.
fn kernel(sem: &str, read: bool) -> String {
    masked_kernel(sem, read, "%4 = arith.constant {value = true} : tensor<256xi1>", "")
}

/// [`kernel`] with the mask `offs < n`, `n` a parameter with the attributes `n_attrs`.
fn masked_kernel(sem: &str, read: bool, mask: &str, n_attrs: &str) -> String {
    let store = if read {
        "  %6 = tt.splat %old_ptr : tensor<256x!tt.ptr<f32>>\n  %7 = tt.addptr %6, %0 : tensor<256x!tt.ptr<f32>>\n  tt.store %7, %5\n"
    } else {
        ""
    };
    format!(
        r#"tt.func public @atomic_order_kernel(%out_ptr: !tt.ptr<f32> {{tt.divisibility = 16}}, %old_ptr: !tt.ptr<f32> {{tt.divisibility = 16}}, %n: i32{n_attrs}) {{
  %0 = tt.make_range {{start = 0, end = 256}} : tensor<256xi32>
  %1 = arith.constant {{value = 1.0}} : tensor<256xf32>
  %2 = tt.splat %out_ptr : tensor<256x!tt.ptr<f32>>
  %3 = tt.addptr %2, %0 : tensor<256x!tt.ptr<f32>>
  {mask}
  %5 = tt.atomic_rmw %3, %1, %4 {{atomic_rmw_op = "fadd", sem = "{sem}", scope = "gpu"}} : tensor<256xf32>
{store}  tt.return
}}
"#
    )
}

/// What one module orders: the semantics of its fences in order, and of each atomic; and its
/// number of branches.
struct Orders {
    fences: Vec<u32>,
    atomics: Vec<u32>,
    branches: usize,
}

/// Lowers the kernel and reads its orders (`%id = OpConstant %t V` resolves operand ids).
fn orders(name: &str, mode: Mode, sem: &str, read: bool) -> Orders {
    orders_of(name, mode, &kernel(sem, read))
}

fn orders_of(name: &str, mode: Mode, ttir: &str) -> Orders {
    let options =
        Options { mode, float32_atomic_add: true, num_warps: 1, threads_per_warp: 64, ..Options::default() };
    let (artifact, text) = common::lower(ttir, &options);
    spirv_val(name, &artifact.words);
    read_orders(name, &text)
}

/// The orders of a module's disassembly.
fn read_orders(name: &str, text: &str) -> Orders {
    let mut constants: HashMap<&str, u32> = HashMap::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [id, "=", "OpConstant", _, value] = words[..] {
            if let Ok(value) = value.parse() {
                constants.insert(id, value);
            }
        }
    }
    let value =
        |id: &str| *constants.get(id).unwrap_or_else(|| panic!("{name}: {id} is no constant in:\n{text}"));
    let mut fences = Vec::new();
    let mut atomics = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["OpMemoryBarrier", _, semantics] => fences.push(value(semantics)),
            [_, "=", "OpAtomicFAddEXT", _, _, _, semantics, _] => atomics.push(value(semantics)),
            // The compare-and-swap loop (portable modules have no native float add).
            [_, "=", "OpAtomicCompareExchange", _, _, _, equal, _, _, _] => atomics.push(value(equal)),
            _ => {}
        }
    }
    assert_eq!(atomics.len(), 4, "{name}: four atomics per thread expected in:\n{text}");
    Orders { fences, atomics, branches: text.matches("OpSelectionMerge").count() }
}

#[test]
fn acq_rel_without_a_reader_is_one_release_fence_before_relaxed_atomics() {
    let o = orders("acq_rel unread", Mode::Vulkan, "acq_rel", false);
    assert_eq!(o.fences, [RELEASE | UNIFORM_MEMORY]);
    assert!(o.atomics.iter().all(|&s| s == 0), "relaxed atomics expected: {:?}", o.atomics);
}

#[test]
fn acq_rel_with_a_reader_is_fenced_on_both_sides() {
    let o = orders("acq_rel read", Mode::Vulkan, "acq_rel", true);
    assert_eq!(o.fences, [RELEASE | UNIFORM_MEMORY, ACQUIRE | UNIFORM_MEMORY]);
    assert!(o.atomics.iter().all(|&s| s == 0), "relaxed atomics expected: {:?}", o.atomics);
}

#[test]
fn acquire_keeps_its_fence_without_a_reader_and_relaxed_has_none() {
    let o = orders("acquire unread", Mode::Vulkan, "acquire", false);
    assert_eq!(o.fences, [ACQUIRE | UNIFORM_MEMORY]);
    let o = orders("relaxed", Mode::Vulkan, "relaxed", true);
    assert!(o.fences.is_empty(), "no fence for relaxed atomics: {:?}", o.fences);
    assert!(o.atomics.iter().all(|&s| s == 0));
}

/// naga's reader may not take a lone `OpMemoryBarrier`: portable modules order each atomic (here
/// the compare-and-swap of the float add's loop).
#[test]
fn portable_modules_order_each_atomic() {
    let o = orders("portable read", Mode::Portable, "acq_rel", true);
    assert!(o.fences.is_empty(), "no fences in a portable module: {:?}", o.fences);
    assert!(o.atomics.iter().all(|&s| s == ACQUIRE_RELEASE | UNIFORM_MEMORY), "{:?}", o.atomics);
    let o = orders("portable unread", Mode::Portable, "acq_rel", false);
    assert!(o.atomics.iter().all(|&s| s == RELEASE | UNIFORM_MEMORY), "{:?}", o.atomics);
}

/// [`masked_kernel`] as TTGIR whose atomic gives each thread four consecutive elements (on one
/// warp of 64), as a hand-written layout may: the pipeline gives Vulkan's atomics one element per
/// lane and instruction (SPIR-V has no vector atomics, and lanes side by side touch the fewest
/// sectors), which never groups.
fn consecutive_kernel(read: bool, mask: &str, n_attrs: &str) -> String {
    let blocked =
        "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>";
    let ttir = masked_kernel("acq_rel", read, mask, n_attrs);
    let typed = ttir
        .replace("tensor<256xi32>", "tensor<256xi32, #blocked>")
        .replace("tensor<256xi1>", "tensor<256xi1, #blocked>")
        .replace("tensor<256xf32>", "tensor<256xf32, #blocked>")
        .replace("tensor<256x!tt.ptr<f32>>", "tensor<256x!tt.ptr<f32>, #blocked>");
    format!(
        "module attributes {{ttg.num-warps = 1, ttg.threads-per-warp = 64}}\n#blocked = {blocked}\n\n{typed}"
    )
}

/// Orders of TTGIR emitted as it is ([`consecutive_kernel`]).
fn consecutive_orders(name: &str, ttgir: &str) -> Orders {
    let options = Options {
        mode: Mode::Vulkan,
        float32_atomic_add: true,
        num_warps: 1,
        threads_per_warp: 64,
        ..Options::default()
    };
    let (artifact, text) = common::emit_ttgir(ttgir, &options);
    spirv_val(name, &artifact.words);
    read_orders(name, &text)
}

/// `offs < n` with `n` divisible by 16 is constant over each thread's four consecutive elements:
/// one branch guards all four atomics, as many branches as an all-true mask takes (the module
/// has others: the grid check). Without the divisibility, each atomic has its own.
#[test]
fn a_mask_constant_over_a_thread_s_elements_is_one_branch() {
    let mask = "%n4 = tt.splat %n : tensor<256xi32>\n  %4 = arith.cmpi %0, %n4 {predicate = \"slt\"} : tensor<256xi1>";
    let all_true = "%4 = arith.constant {value = true} : tensor<256xi1>";
    let all_true = consecutive_orders("all true", &consecutive_kernel(false, all_true, "")).branches;
    let grouped =
        consecutive_orders("divisible", &consecutive_kernel(false, mask, " {tt.divisibility = 16}"));
    assert_eq!(grouped.branches, all_true, "one branch for the four atomics");
    let each = consecutive_orders("not divisible", &consecutive_kernel(false, mask, ""));
    assert_eq!(each.branches, all_true + 3, "one branch per atomic");
    // Old values read after the atomics still come out of their branch.
    let read =
        consecutive_orders("divisible, read", &consecutive_kernel(true, mask, " {tt.divisibility = 16}"));
    assert_eq!(read.branches, all_true);
}
