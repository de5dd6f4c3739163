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
//! - **`VK_NV_cooperative_matrix2`'s workgroup-scope matrices of flexible dimensions**: their
//!   shapes and limits ([`workgroup_matrices`], for `trident devices`), and the extension with its
//!   workgroup-scope and flexible-dimension features on the device ([`open_device`]); and its
//!   per-element operations on matrices ([`per_element_operations`]), which the spirv backend
//!   uses to scale a carried accumulator's rows in place.
//!
//! The structures and enum values of `VK_KHR_shader_bfloat16` and `VK_NV_cooperative_matrix2` are
//! newer than the `ash` release wgpu-hal uses (Vulkan headers 1.3.281), so they are declared here
//! from the specification.
//! Nothing here runs on adapters other than Vulkan ones (wgpu-hal's `as_hal` gives `None`), and
//! every query that fails reads as "not there".

use std::ffi::{c_void, CStr};

use ash::vk;
use wgpu::hal::api::Vulkan;

use super::{CooperativeMatrixShape, WorkgroupMatrices, WorkgroupMatrixShape};

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

/// The A and B component types of a shape: one name where they agree, else `AxB`.
fn operand_names(a: vk::ComponentTypeKHR, b: vk::ComponentTypeKHR) -> String {
    if a == b {
        component_name(a)
    } else {
        format!("{}x{}", component_name(a), component_name(b))
    }
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
            ab: operand_names(p.a_type, p.b_type),
            cr: component_name(p.c_type),
        })
        .collect()
}

/// The device extension of workgroup-scope cooperative matrices of flexible dimensions.
const COOPERATIVE_MATRIX2_EXTENSION: &CStr = c"VK_NV_cooperative_matrix2";

/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV`,
/// `VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV` and
/// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV`.
const COOPERATIVE_MATRIX2_FEATURES_STRUCTURE: i32 = 1_000_593_000;
const FLEXIBLE_DIMENSIONS_STRUCTURE: i32 = 1_000_593_001;
const COOPERATIVE_MATRIX2_PROPERTIES_STRUCTURE: i32 = 1_000_593_002;

/// `VkPhysicalDeviceCooperativeMatrix2FeaturesNV`, laid out as the specification declares it.
#[repr(C)]
struct CooperativeMatrix2Features {
    s_type: vk::StructureType,
    p_next: *mut c_void,
    workgroup_scope: vk::Bool32,
    flexible_dimensions: vk::Bool32,
    reductions: vk::Bool32,
    conversions: vk::Bool32,
    per_element_operations: vk::Bool32,
    tensor_addressing: vk::Bool32,
    block_loads: vk::Bool32,
}

impl CooperativeMatrix2Features {
    /// The structure to query with (all false), or to enable what `additions` asks for:
    /// workgroup scope and flexible dimensions (with tensor addressing, reductions and
    /// conversions where asked), per-element operations.
    fn new(additions: Additions) -> CooperativeMatrix2Features {
        let workgroup = additions.workgroup_matrices;
        CooperativeMatrix2Features {
            s_type: vk::StructureType::from_raw(COOPERATIVE_MATRIX2_FEATURES_STRUCTURE),
            p_next: std::ptr::null_mut(),
            workgroup_scope: vk::Bool32::from(workgroup),
            flexible_dimensions: vk::Bool32::from(workgroup),
            reductions: vk::Bool32::from(workgroup && additions.reductions_and_conversions),
            conversions: vk::Bool32::from(workgroup && additions.reductions_and_conversions),
            per_element_operations: vk::Bool32::from(additions.per_element_operations),
            tensor_addressing: vk::Bool32::from(workgroup && additions.tensor_addressing),
            block_loads: vk::FALSE,
        }
    }

    /// The adapter's `VK_NV_cooperative_matrix2` features, where it lists the extension.
    fn of(hal: &wgpu::hal::vulkan::Adapter) -> Option<CooperativeMatrix2Features> {
        if !has_extension(hal, COOPERATIVE_MATRIX2_EXTENSION) {
            return None;
        }
        let mut features = CooperativeMatrix2Features::new(Additions::default());
        // SAFETY: the structure is the extension's feature structure, and the adapter lists it.
        unsafe { read_features(hal, &mut features) };
        Some(features)
    }
}

/// Fills `structure` through `vkGetPhysicalDeviceFeatures2`, chained alone.
///
/// # Safety
/// `T` is a Vulkan feature structure (`sType` and `pNext` first, `pNext` null) of an extension
/// the adapter lists.
unsafe fn read_features<T>(hal: &wgpu::hal::vulkan::Adapter, structure: &mut T) {
    let mut features =
        vk::PhysicalDeviceFeatures2 { p_next: (structure as *mut T).cast(), ..Default::default() };
    // SAFETY: the chain is one structure the caller vouches for, alive for the call; the physical
    // device belongs to this instance.
    unsafe {
        hal.shared_instance()
            .raw_instance()
            .get_physical_device_features2(hal.raw_physical_device(), &mut features);
    }
}

/// Whether the adapter runs per-element operations on cooperative matrices
/// (`VK_NV_cooperative_matrix2`'s `cooperativeMatrixPerElementOperations`).
pub fn per_element_operations(adapter: &wgpu::Adapter) -> bool {
    // SAFETY: as in `cooperative_matrices`.
    let Some(hal) = (unsafe { adapter.as_hal::<Vulkan>() }) else { return false };
    CooperativeMatrix2Features::of(&hal).is_some_and(|features| features.per_element_operations == vk::TRUE)
}

/// `VkPhysicalDeviceCooperativeMatrix2PropertiesNV`.
#[repr(C)]
struct CooperativeMatrix2Properties {
    s_type: vk::StructureType,
    p_next: *mut c_void,
    workgroup_scope_max_workgroup_size: u32,
    flexible_dimensions_max_dimension: u32,
    workgroup_scope_reserved_shared_memory: u32,
}

/// `VkCooperativeMatrixFlexibleDimensionsPropertiesNV`.
#[repr(C)]
#[derive(Clone, Copy)]
struct FlexibleDimensions {
    s_type: vk::StructureType,
    p_next: *mut c_void,
    m_granularity: u32,
    n_granularity: u32,
    k_granularity: u32,
    a_type: vk::ComponentTypeKHR,
    b_type: vk::ComponentTypeKHR,
    c_type: vk::ComponentTypeKHR,
    result_type: vk::ComponentTypeKHR,
    saturating_accumulation: vk::Bool32,
    scope: vk::ScopeKHR,
    workgroup_invocations: u32,
}

/// `vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV`.
type GetFlexibleDimensions =
    unsafe extern "system" fn(vk::PhysicalDevice, *mut u32, *mut FlexibleDimensions) -> vk::Result;

/// The workgroup-scope matrices of `VK_NV_cooperative_matrix2` the adapter offers, where its
/// device has the extension with the workgroup-scope and flexible-dimension features: every
/// workgroup-scope shape it lists whose C and result types agree, with the limits that apply to
/// them. `None` otherwise.
pub fn workgroup_matrices(adapter: &wgpu::Adapter) -> Option<WorkgroupMatrices> {
    // SAFETY: as in `cooperative_matrices`.
    let hal = unsafe { adapter.as_hal::<Vulkan>() }?;
    let features = CooperativeMatrix2Features::of(&hal)?;
    let shared = hal.shared_instance();
    let instance = shared.raw_instance();
    let physical = hal.raw_physical_device();
    let mut properties = CooperativeMatrix2Properties {
        s_type: vk::StructureType::from_raw(COOPERATIVE_MATRIX2_PROPERTIES_STRUCTURE),
        p_next: std::ptr::null_mut(),
        workgroup_scope_max_workgroup_size: 0,
        flexible_dimensions_max_dimension: 0,
        workgroup_scope_reserved_shared_memory: 0,
    };
    let mut properties2 = vk::PhysicalDeviceProperties2 {
        p_next: (&mut properties as *mut CooperativeMatrix2Properties).cast(),
        ..Default::default()
    };
    // SAFETY: the chain is one structure of the layout the extension (which the device lists)
    // defines, alive for the call; the physical device belongs to this instance.
    unsafe { instance.get_physical_device_properties2(physical, &mut properties2) };
    if features.workgroup_scope != vk::TRUE || features.flexible_dimensions != vk::TRUE {
        return None;
    }
    // SAFETY: the name is the extension's command, and the instance is alive.
    let function = unsafe {
        shared.entry().get_instance_proc_addr(
            instance.handle(),
            c"vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV".as_ptr(),
        )
    }?;
    // SAFETY: the pointer is that command's, whose signature `GetFlexibleDimensions` declares.
    let get: GetFlexibleDimensions = unsafe { std::mem::transmute(function) };
    let mut count = 0u32;
    // SAFETY: the first call only writes the count.
    if unsafe { get(physical, &mut count, std::ptr::null_mut()) } != vk::Result::SUCCESS {
        return None;
    }
    let blank = FlexibleDimensions {
        s_type: vk::StructureType::from_raw(FLEXIBLE_DIMENSIONS_STRUCTURE),
        p_next: std::ptr::null_mut(),
        m_granularity: 0,
        n_granularity: 0,
        k_granularity: 0,
        a_type: vk::ComponentTypeKHR::FLOAT16,
        b_type: vk::ComponentTypeKHR::FLOAT16,
        c_type: vk::ComponentTypeKHR::FLOAT16,
        result_type: vk::ComponentTypeKHR::FLOAT16,
        saturating_accumulation: vk::FALSE,
        scope: vk::ScopeKHR::SUBGROUP,
        workgroup_invocations: 0,
    };
    let mut listed = vec![blank; count as usize];
    // SAFETY: `listed` holds `count` structures of the declared layout, each with its sType.
    let result = unsafe { get(physical, &mut count, listed.as_mut_ptr()) };
    if result != vk::Result::SUCCESS && result != vk::Result::INCOMPLETE {
        return None;
    }
    listed.truncate(count as usize);
    let shapes = listed
        .iter()
        .filter(|p| p.scope == vk::ScopeKHR::WORKGROUP && p.c_type == p.result_type)
        .map(|p| WorkgroupMatrixShape {
            m_granularity: p.m_granularity,
            n_granularity: p.n_granularity,
            k_granularity: p.k_granularity,
            ab: operand_names(p.a_type, p.b_type),
            cr: component_name(p.c_type),
            invocations: p.workgroup_invocations,
        })
        .collect();
    Some(WorkgroupMatrices {
        shapes,
        max_dimension: properties.flexible_dimensions_max_dimension,
        max_workgroup_size: properties.workgroup_scope_max_workgroup_size,
        reserved_shared_bytes: properties.workgroup_scope_reserved_shared_memory,
        tensor_addressing: features.tensor_addressing == vk::TRUE,
        reductions_and_conversions: features.reductions == vk::TRUE && features.conversions == vk::TRUE,
    })
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
    // SAFETY: the structure is the extension's feature structure, and the adapter lists it.
    unsafe { read_features(&hal, &mut bfloat16) };
    bfloat16.shader_bfloat16_type == vk::TRUE && bfloat16.shader_bfloat16_cooperative_matrix == vk::TRUE
}

/// What [`open_device`] adds to the device wgpu would open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Additions {
    /// `VK_KHR_shader_bfloat16` with its type and cooperative-matrix features (which
    /// [`bfloat16_cooperative_matrices`] must have found).
    pub bfloat16: bool,
    /// `VK_NV_cooperative_matrix2` with its workgroup-scope and flexible-dimension features
    /// (which [`workgroup_matrices`] must have found).
    pub workgroup_matrices: bool,
    /// With [`Additions::workgroup_matrices`], its tensor-addressing feature too (loads and
    /// stores of a matrix as a slice of a tensor, the parts outside it clamped).
    pub tensor_addressing: bool,
    /// With [`Additions::workgroup_matrices`], its reductions and conversions too (a row of a
    /// matrix reduced, an accumulator converted into an operand).
    pub reductions_and_conversions: bool,
    /// `VK_NV_cooperative_matrix2` with its per-element operations (which
    /// [`per_element_operations`] must have found).
    pub per_element_operations: bool,
}

/// Opens the adapter's device as `adapter.request_device(descriptor)` does, with the extensions
/// and features of `additions` enabled on top.
pub fn open_device(
    adapter: &wgpu::Adapter,
    descriptor: &wgpu::DeviceDescriptor<'_>,
    additions: Additions,
) -> Result<(wgpu::Device, wgpu::Queue), String> {
    if additions == Additions::default() {
        return pollster::block_on(adapter.request_device(descriptor)).map_err(|e| e.to_string());
    }
    // SAFETY: as in `cooperative_matrices`; the guard is dropped before wgpu takes the device.
    let opened = {
        let Some(hal) = (unsafe { adapter.as_hal::<Vulkan>() }) else {
            return Err("not a Vulkan adapter".to_string());
        };
        let mut bfloat16 = Bfloat16Features::new(true);
        let mut matrices = CooperativeMatrix2Features::new(additions);
        let bfloat16_pointer: *mut Bfloat16Features = &mut bfloat16;
        let matrices_pointer: *mut CooperativeMatrix2Features = &mut matrices;
        let add = move |args: wgpu::hal::vulkan::CreateDeviceCallbackArgs<'_, '_, '_>| {
            // SAFETY (both): the structure outlives the device creation this callback is part
            // of, and it is linked in front of the chain wgpu built, which it keeps.
            if additions.bfloat16 {
                args.extensions.push(BFLOAT16_EXTENSION);
                unsafe { (*bfloat16_pointer).p_next = args.create_info.p_next.cast_mut() };
                args.create_info.p_next = bfloat16_pointer.cast_const().cast();
            }
            if additions.workgroup_matrices || additions.per_element_operations {
                args.extensions.push(COOPERATIVE_MATRIX2_EXTENSION);
                unsafe { (*matrices_pointer).p_next = args.create_info.p_next.cast_mut() };
                args.create_info.p_next = matrices_pointer.cast_const().cast();
            }
        };
        // SAFETY: the callback only adds extensions the device lists and features it reports
        // (`bfloat16_cooperative_matrices`, `workgroup_matrices`); it turns nothing off.
        unsafe {
            hal.open_with_callback(
                descriptor.required_features,
                &descriptor.required_limits,
                &descriptor.memory_hints,
                Some(Box::new(add)),
            )
        }
        .map_err(|e| e.to_string())?
    };
    // SAFETY: the device was just created from this adapter with exactly the descriptor's
    // features (and extensions wgpu does not know of).
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
