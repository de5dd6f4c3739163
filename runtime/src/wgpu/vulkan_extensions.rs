//! What trident needs of a Vulkan adapter that wgpu does not expose, through the raw Vulkan
//! handles wgpu-hal lends (`ash`):
//!
//! - **Every cooperative-matrix shape the adapter lists.** wgpu keeps only the shapes whose
//!   component types it names (f16, f32, i32, u32), so a driver's bf16, int8 and fp8 shapes never
//!   reach `trident devices` or the spirv backend through it. [`cooperative_matrices`] asks
//!   `vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR` itself and names every type.
//! - **`VK_KHR_shader_bfloat16`**, which bf16 cooperative matrices need (`OpTypeFloat 16
//!   BFloat16KHR` in the module, `shaderBFloat16CooperativeMatrix` enabled on the device).
//!   wgpu neither asks for the extension nor chains its feature structure, so
//!   [`bfloat16_cooperative_matrices`] reads the feature and [`open_device`] creates the device
//!   through wgpu-hal with the extension and the feature added to what wgpu enables itself.
//!
//! The structure and enum values of `VK_KHR_shader_bfloat16` are newer than the `ash` release
//! wgpu-hal uses (Vulkan headers 1.3.281), so they are declared here from the specification.
//! Nothing here runs on adapters other than Vulkan ones (wgpu-hal's `as_hal` gives `None`), and
//! every query that fails reads as "not there".

use std::ffi::{c_void, CStr};

use ash::vk;
use wgpu::hal::api::Vulkan;

use super::CooperativeMatrixShape;

/// The device extension that adds bf16 to SPIR-V and to cooperative matrices.
const BFLOAT16_EXTENSION: &CStr = c"VK_KHR_shader_bfloat16";

/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR`.
const BFLOAT16_FEATURES_STRUCTURE: i32 = 1_000_141_000;

/// `VkPhysicalDeviceShaderBfloat16FeaturesKHR`, laid out as the specification declares it.
#[repr(C)]
struct Bfloat16Features {
    s_type: vk::StructureType,
    p_next: *mut c_void,
    shader_bfloat16_type: vk::Bool32,
    shader_bfloat16_dot_product: vk::Bool32,
    shader_bfloat16_cooperative_matrix: vk::Bool32,
}

impl Bfloat16Features {
    fn new(cooperative_matrix: bool) -> Bfloat16Features {
        Bfloat16Features {
            s_type: vk::StructureType::from_raw(BFLOAT16_FEATURES_STRUCTURE),
            p_next: std::ptr::null_mut(),
            shader_bfloat16_type: vk::Bool32::from(cooperative_matrix),
            shader_bfloat16_dot_product: vk::FALSE,
            shader_bfloat16_cooperative_matrix: vk::Bool32::from(cooperative_matrix),
        }
    }
}

/// The name Triton gives a `VkComponentTypeKHR` (the Vulkan name's number where it has none).
fn component_name(ty: vk::ComponentTypeKHR) -> String {
    let name = match ty.as_raw() {
        0 => "f16",
        1 => "f32",
        2 => "f64",
        3 => "i8",
        4 => "i16",
        5 => "i32",
        6 => "i64",
        7 => "u8",
        8 => "u16",
        9 => "u32",
        10 => "u64",
        1_000_141_000 => "bf16",
        1_000_491_002 => "fp8e4nv",
        1_000_491_003 => "fp8e5",
        other => return format!("component type {other}"),
    };
    name.to_string()
}

/// Whether the adapter's device offers the extension `name`.
fn has_extension(adapter: &wgpu::hal::vulkan::Adapter, name: &CStr) -> bool {
    let instance = adapter.shared_instance().raw_instance();
    // SAFETY: the physical device belongs to this instance, which outlives the call.
    let listed = unsafe { instance.enumerate_device_extension_properties(adapter.raw_physical_device()) };
    listed.is_ok_and(|extensions| extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(name)))
}

/// Every subgroup-scope shape of `VK_KHR_cooperative_matrix` the adapter lists whose C and result
/// types agree (the ones a dot's `D = A B + C` can use), in its order, whatever the component
/// types; empty without the extension (and on adapters other than Vulkan ones).
pub fn cooperative_matrices(adapter: &wgpu::Adapter) -> Vec<CooperativeMatrixShape> {
    // SAFETY: the guard only reads the adapter's handles; nothing is destroyed through it.
    let Some(hal) = (unsafe { adapter.as_hal::<Vulkan>() }) else { return Vec::new() };
    if !has_extension(&hal, ash::khr::cooperative_matrix::NAME) {
        return Vec::new();
    }
    let shared = hal.shared_instance();
    let functions = ash::khr::cooperative_matrix::Instance::new(shared.entry(), shared.raw_instance());
    // SAFETY: the device lists the extension, and its physical device belongs to this instance.
    let listed =
        unsafe { functions.get_physical_device_cooperative_matrix_properties(hal.raw_physical_device()) };
    let Ok(listed) = listed else { return Vec::new() };
    listed
        .iter()
        .filter(|p| p.scope == vk::ScopeKHR::SUBGROUP && p.c_type == p.result_type)
        .map(|p| CooperativeMatrixShape {
            m: p.m_size,
            n: p.n_size,
            k: p.k_size,
            ab: if p.a_type == p.b_type {
                component_name(p.a_type)
            } else {
                format!("{}x{}", component_name(p.a_type), component_name(p.b_type))
            },
            cr: component_name(p.c_type),
        })
        .collect()
}

/// Whether the adapter's device offers `VK_NV_cooperative_matrix2` (workgroup-scope matrices,
/// per-element operations, row and column reductions, tensor-addressed loads), which trident does
/// not use yet: `trident devices` says so, the fact the next step of `tl.dot` on Vulkan depends on.
pub fn offers_cooperative_matrix2(adapter: &wgpu::Adapter) -> bool {
    // SAFETY: as in `cooperative_matrices`.
    let Some(hal) = (unsafe { adapter.as_hal::<Vulkan>() }) else { return false };
    has_extension(&hal, c"VK_NV_cooperative_matrix2")
}

/// Whether the adapter offers bf16 cooperative matrices: `VK_KHR_shader_bfloat16` with its
/// `shaderBFloat16Type` and `shaderBFloat16CooperativeMatrix` features.
pub fn bfloat16_cooperative_matrices(adapter: &wgpu::Adapter) -> bool {
    // SAFETY: as in `cooperative_matrices`.
    let Some(hal) = (unsafe { adapter.as_hal::<Vulkan>() }) else { return false };
    if !has_extension(&hal, BFLOAT16_EXTENSION) {
        return false;
    }
    let mut bfloat16 = Bfloat16Features::new(false);
    let mut features = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut bfloat16 as *mut Bfloat16Features).cast(),
        ..Default::default()
    };
    // SAFETY: the chain is one structure of the layout the extension (which the device lists)
    // defines, alive for the call; the physical device belongs to this instance.
    unsafe {
        hal.shared_instance()
            .raw_instance()
            .get_physical_device_features2(hal.raw_physical_device(), &mut features);
    }
    bfloat16.shader_bfloat16_type == vk::TRUE && bfloat16.shader_bfloat16_cooperative_matrix == vk::TRUE
}

/// Opens the adapter's device as `adapter.request_device(descriptor)` does, with
/// `VK_KHR_shader_bfloat16` and its type and cooperative-matrix features enabled on top when
/// `bfloat16` (which [`bfloat16_cooperative_matrices`] must have found).
pub fn open_device(
    adapter: &wgpu::Adapter,
    descriptor: &wgpu::DeviceDescriptor<'_>,
    bfloat16: bool,
) -> Result<(wgpu::Device, wgpu::Queue), String> {
    if !bfloat16 {
        return pollster::block_on(adapter.request_device(descriptor)).map_err(|e| e.to_string());
    }
    // SAFETY: as in `cooperative_matrices`; the guard is dropped before wgpu takes the device.
    let opened = {
        let Some(hal) = (unsafe { adapter.as_hal::<Vulkan>() }) else {
            return Err("not a Vulkan adapter".to_string());
        };
        let mut feature = Bfloat16Features::new(true);
        let feature_pointer: *mut Bfloat16Features = &mut feature;
        let add_bfloat16 = move |args: wgpu::hal::vulkan::CreateDeviceCallbackArgs<'_, '_, '_>| {
            args.extensions.push(BFLOAT16_EXTENSION);
            // SAFETY: `feature` outlives the device creation this callback is part of, and
            // it is linked in front of the chain wgpu built, which it keeps.
            unsafe { (*feature_pointer).p_next = args.create_info.p_next.cast_mut() };
            args.create_info.p_next = feature_pointer.cast_const().cast();
        };
        // SAFETY: the callback only adds an extension the device lists and a feature it reports
        // (`bfloat16_cooperative_matrices`); it turns nothing off.
        unsafe {
            hal.open_with_callback(
                descriptor.required_features,
                &descriptor.required_limits,
                &descriptor.memory_hints,
                Some(Box::new(add_bfloat16)),
            )
        }
        .map_err(|e| e.to_string())?
    };
    // SAFETY: the device was just created from this adapter with exactly the descriptor's
    // features (and one extension wgpu does not know of).
    unsafe { adapter.create_device_from_hal::<Vulkan>(opened, descriptor) }.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use ash::vk;

    use super::component_name;

    #[test]
    fn component_types_take_tritons_names() {
        let name = |raw: i32| component_name(vk::ComponentTypeKHR::from_raw(raw));
        assert_eq!(name(0), "f16");
        assert_eq!(name(1), "f32");
        assert_eq!(name(3), "i8");
        assert_eq!(name(9), "u32");
        assert_eq!(name(1_000_141_000), "bf16");
        assert_eq!(name(1_000_491_002), "fp8e4nv");
        assert_eq!(name(1_000_491_003), "fp8e5");
        // A type this table does not know keeps its Vulkan number.
        assert_eq!(name(1_000_491_000), "component type 1000491000");
    }
}
