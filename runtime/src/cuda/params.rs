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

use std::ffi::c_void;

use smallvec::SmallVec;
use trident_backend_nvptx::ParamAbi;

use super::{CudaError, ErrorKind};
use crate::buffer::ArgValue;

/// The packed parameters of one launch. The pointers handed to the driver point into `slots`,
/// so a `Params` must not move between [`Params::pointers`] and the launch (it is only borrowed).
#[derive(Debug, PartialEq)]
pub struct Params {
    slots: SmallVec<[u64; INLINE_PARAMS]>,
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
        Ok(Params { slots })
    }

    /// Appends a device address after the packed arguments (the global scratch that the kernel's
    /// ABI adds after its own parameters).
    pub fn push_address(&mut self, address: u64) {
        self.slots.push(address);
    }

    /// One pointer per parameter, as `cuLaunchKernel`'s `kernelParams`.
    pub fn pointers(&mut self) -> SmallVec<[*mut c_void; INLINE_PARAMS]> {
        self.slots.iter_mut().map(|slot| slot as *mut u64 as *mut c_void).collect()
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
}
