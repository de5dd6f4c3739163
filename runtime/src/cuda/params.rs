//! Kernel parameters: from [`ArgValue`]s to the bytes `cuLaunchKernel` reads.
//!
//! The compiled kernel's parameter list ([`ParamAbi`], in `.param` order) decides the width and
//! kind of each value: a pointer becomes the device address of its buffer (u64); `Int(w)`
//! takes the low `w` bytes of the two's-complement value (so i32 and u32 share their bits);
//! `Float(4)` is an f32 and `Float(8)` an f64. An integer given for a float parameter converts,
//! as on the interpreter. Anything else is a [`CudaError`] naming the parameter, never a panic.
//!
//! Each value sits in its own 8-byte slot; the driver reads the first `w` bytes of the slot it
//! is pointed to, which on a little-endian host are the low bytes of the value.
//!
//! After them (and after the global scratch's address, when the kernel has one) come the tensor
//! maps the backend left to the host ([`HostTensorMap`]): each field evaluated from this
//! launch's arguments, then encoded by the driver ([`Params::encode_tensor_maps`]), 128 bytes a
//! parameter.

use std::ffi::c_void;

use smallvec::SmallVec;
use trident_backend_nvptx::{HostTensorMap, LaunchScalar, ParamAbi};

use super::driver::{self, TensorMap, TiledMap};
use super::{CudaError, ErrorKind};
use crate::buffer::ArgValue;

/// The packed parameters of one launch. The pointers handed to the driver point into `slots`
/// and `maps`, so a `Params` must not move between [`Params::pointers`] and the launch (it is
/// only borrowed).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    slots: SmallVec<[u64; INLINE_PARAMS]>,
    /// The encoded tensor maps, passed after every slot.
    maps: Vec<TensorMap>,
}

/// Parameter counts up to this pack without a heap allocation (a launch of a kernel with more
/// still works, through one).
const INLINE_PARAMS: usize = 16;

impl Params {
    /// Packs `args` for a kernel with parameters `abi`. `addresses[i]` is the device address of
    /// buffer `i`.
    pub fn pack(abi: &[ParamAbi], args: &[ArgValue], addresses: &[u64]) -> Result<Params, CudaError> {
        if abi.len() != args.len() {
            return Err(CudaError::new(
                ErrorKind::Arguments,
                format!("the kernel takes {} parameters, {} arguments given", abi.len(), args.len()),
            ));
        }
        let mut slots = SmallVec::with_capacity(abi.len());
        for (index, (param, arg)) in abi.iter().zip(args).enumerate() {
            slots.push(pack_one(index, *param, arg, addresses)?);
        }
        Ok(Params { slots, maps: Vec::new() })
    }

    /// Evaluates and encodes the tensor maps `maps` for this launch's `args` (`addresses` as in
    /// [`Params::pack`]), passed after every slot. A map the driver refuses (a base or stride
    /// that is not a multiple of 16 bytes, a dimension out of range) fails the launch with its
    /// fields.
    pub fn encode_tensor_maps(
        &mut self,
        maps: &[HostTensorMap],
        args: &[ArgValue],
        addresses: &[u64],
    ) -> Result<(), CudaError> {
        for (index, map) in maps.iter().enumerate() {
            let tiled = tiled(map, args, addresses).ok_or_else(|| {
                CudaError::new(
                    ErrorKind::Arguments,
                    format!(
                        "tensor descriptor {index}: its fields need an argument this launch does not give"
                    ),
                )
            })?;
            let encoded = driver::encode_tiled(&tiled).map_err(|error| {
                CudaError::new(
                    ErrorKind::Arguments,
                    format!(
                        "tensor descriptor {index} (base 0x{:x}, shape {:?} innermost first, byte strides \
                         {:?}, block {:?}): the driver refuses its tensor map: {error}",
                        tiled.base, tiled.dims, tiled.byte_strides, tiled.box_dims
                    ),
                )
            })?;
            self.maps.push(encoded);
        }
        Ok(())
    }

    /// Appends a device address after the packed arguments (the global scratch that the kernel's
    /// ABI adds after its own parameters).
    pub fn push_address(&mut self, address: u64) {
        self.slots.push(address);
    }

    /// Appends a `.u32` value after the packed arguments (a persistent kernel's program grid).
    pub fn push_u32(&mut self, value: u32) {
        self.slots.push(u64::from(value));
    }

    /// One pointer per parameter, as `cuLaunchKernel`'s `kernelParams`.
    pub fn pointers(&mut self) -> SmallVec<[*mut c_void; INLINE_PARAMS]> {
        let slots = self.slots.iter_mut().map(|slot| slot as *mut u64 as *mut c_void);
        slots.chain(self.maps.iter_mut().map(|map| map as *mut TensorMap as *mut c_void)).collect()
    }

    /// The packed slots (for tests).
    pub fn slots(&self) -> &[u64] {
        &self.slots
    }
}

fn pack_one(index: usize, param: ParamAbi, arg: &ArgValue, addresses: &[u64]) -> Result<u64, CudaError> {
    let mismatch = || {
        CudaError::new(
            ErrorKind::Arguments,
            format!("parameter {index} is {param:?} but the argument is {arg:?}"),
        )
    };
    let slot = match (param, arg) {
        (ParamAbi::Pointer, ArgValue::Buffer(buffer)) => *addresses.get(*buffer).ok_or_else(|| {
            CudaError::new(
                ErrorKind::Arguments,
                format!(
                    "parameter {index} points to buffer {buffer}, but there are {} buffers",
                    addresses.len()
                ),
            )
        })?,
        (ParamAbi::Int(width), ArgValue::Int(value)) => {
            truncate(*value as u64, width).ok_or_else(mismatch)?
        }
        (ParamAbi::Float(4), ArgValue::Float(value)) => (*value as f32).to_bits() as u64,
        (ParamAbi::Float(8), ArgValue::Float(value)) => value.to_bits(),
        (ParamAbi::Float(4), ArgValue::Int(value)) => (*value as f32).to_bits() as u64,
        (ParamAbi::Float(8), ArgValue::Int(value)) => (*value as f64).to_bits(),
        _ => return Err(mismatch()),
    };
    Ok(slot)
}

/// The tensor map `map` for a launch of `args`, innermost dimension first, as the driver takes
/// it; `None` when a field reads a float argument or one that is missing.
fn tiled(map: &HostTensorMap, args: &[ArgValue], addresses: &[u64]) -> Option<TiledMap> {
    let param = |index: usize| match args.get(index)? {
        ArgValue::Int(value) => Some(*value),
        ArgValue::Buffer(buffer) => addresses.get(*buffer).map(|&address| address as i64),
        _ => None,
    };
    let value = |scalar: &LaunchScalar| scalar.evaluate(&param).map(|v| v as u64);
    // A dimension is 32 bits wide, unsigned (as the kernels' own `tensormap.replace` writes it).
    let dims: Vec<u64> =
        map.dims.iter().rev().map(|d| value(d).map(|v| u64::from(v as u32))).collect::<Option<_>>()?;
    // The strides of all dimensions but the innermost, in bytes.
    let byte_strides: Vec<u64> = map
        .strides
        .iter()
        .rev()
        .skip(1)
        .map(|s| Some(value(s)?.wrapping_mul(u64::from(map.elem_bytes))))
        .collect::<Option<_>>()?;
    Some(TiledMap {
        base: value(&map.base)?,
        elem_bytes: map.elem_bytes,
        dims,
        byte_strides,
        box_dims: map.box_dims.iter().rev().copied().collect(),
        swizzle_bytes: map.swizzle_bytes,
    })
}

/// The low `width` bytes of `bits`, for the widths the PTX ABI has.
fn truncate(bits: u64, width: u32) -> Option<u64> {
    match width {
        1 => Some(bits & 0xff),
        2 => Some(bits & 0xffff),
        4 => Some(bits & 0xffff_ffff),
        8 => Some(bits),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_every_abi_kind() {
        let abi = [
            ParamAbi::Pointer,
            ParamAbi::Int(4),
            ParamAbi::Int(8),
            ParamAbi::Float(4),
            ParamAbi::Float(8),
            ParamAbi::Float(4),
        ];
        let args = [
            ArgValue::Buffer(1),
            ArgValue::Int(-1),
            ArgValue::Int(-2),
            ArgValue::Float(0.5),
            ArgValue::Float(0.25),
            ArgValue::Int(3),
        ];
        let params = Params::pack(&abi, &args, &[0x1000, 0x2000]).unwrap();
        assert_eq!(
            params.slots(),
            [
                0x2000,
                0xffff_ffff,
                (-2i64) as u64,
                0.5f32.to_bits() as u64,
                0.25f64.to_bits(),
                3.0f32.to_bits() as u64
            ]
        );
    }

    #[test]
    fn refuses_mismatches_without_panicking() {
        let error = Params::pack(&[ParamAbi::Pointer], &[ArgValue::Buffer(2)], &[1]).unwrap_err();
        assert!(error.message.contains("buffer 2"), "{error}");
        let error = Params::pack(&[ParamAbi::Int(4)], &[ArgValue::Float(1.0)], &[]).unwrap_err();
        assert!(error.message.contains("parameter 0"), "{error}");
        let error = Params::pack(&[ParamAbi::Int(3)], &[ArgValue::Int(1)], &[]).unwrap_err();
        assert!(error.message.contains("Int(3)"), "{error}");
        let error = Params::pack(&[], &[ArgValue::Int(1)], &[]).unwrap_err();
        assert!(error.message.contains("takes 0 parameters"), "{error}");
    }

    /// The attention descriptor `make_tensor_descriptor(k_ptr, [Z * H * N, 128], [128, 1])` with
    /// 64 x 128 f16 boxes of a 128-byte swizzle: the driver's fields innermost first, strides in
    /// bytes without the innermost, the base the buffer's address; a field read from a float
    /// argument has no value.
    #[test]
    fn tensor_maps_take_their_fields_from_the_launch() {
        use trident_backend_nvptx::BinaryOp;
        let param = |index, bits| Box::new(LaunchScalar::Param { index, bits });
        let zh = LaunchScalar::Binary { op: BinaryOp::Mul, lhs: param(1, 32), rhs: param(2, 32), bits: 32 };
        let rows = LaunchScalar::Binary { op: BinaryOp::Mul, lhs: Box::new(zh), rhs: param(3, 32), bits: 32 };
        let map = HostTensorMap {
            base: LaunchScalar::Param { index: 0, bits: 64 },
            dims: vec![rows, LaunchScalar::Const(128)],
            strides: vec![LaunchScalar::Const(128), LaunchScalar::Const(1)],
            box_dims: vec![64, 64],
            elem_bytes: 2,
            swizzle_bytes: 128,
        };
        let args = [ArgValue::Buffer(1), ArgValue::Int(4), ArgValue::Int(16), ArgValue::Int(2048)];
        let encoded = tiled(&map, &args, &[0x1000, 0x7f00_0000_0000]).expect("every field has a value");
        assert_eq!(
            encoded,
            TiledMap {
                base: 0x7f00_0000_0000,
                elem_bytes: 2,
                dims: vec![128, 4 * 16 * 2048],
                byte_strides: vec![256],
                box_dims: vec![64, 64],
                swizzle_bytes: 128,
            }
        );
        // 2^31 rows given as an unsigned 32-bit value are 2^31 rows, not a negative count.
        let huge = [ArgValue::Buffer(1), ArgValue::Int(1 << 15), ArgValue::Int(1 << 16), ArgValue::Int(1)];
        assert_eq!(tiled(&map, &huge, &[0, 0x1000]).unwrap().dims, vec![128, 1 << 31]);
        let floats = [ArgValue::Buffer(0), ArgValue::Float(4.0), ArgValue::Int(16), ArgValue::Int(2048)];
        assert_eq!(tiled(&map, &floats, &[0x1000]), None);
        assert_eq!(tiled(&map, &args[..2], &[0x1000, 0x2000]), None);
    }
}
