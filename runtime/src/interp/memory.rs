//! Global memory: checked element reads and writes into the launch's buffers, and the memory
//! ops built on them (`tt.load`, `tt.store`, atomics, tensor descriptors).
//!
//! Every access of an unmasked lane checks that the pointer's buffer exists, that the byte
//! offset is aligned to the element size and that the element lies inside the buffer; any
//! failure is an error naming the buffer, the element offset and the buffer length. Masked-off
//! lanes are never touched. Elements are little-endian; `i1` is one byte (nonzero = true).
//! Lanes of one op are processed in row-major order, so atomics on the same address in one
//! tensor see each other's effects in that order.

use trident_midend::ir::DType;

use super::numerics::{canon, float_from_bits, float_to_bits, round, sext, zext};
use super::value::{err, lane, strides, Data, Desc, Ptr, Res, Val};
use crate::buffer::Buffer;

/// The buffers of a launch, as the kernel's pointers address them.
pub struct Memory<'a> {
    pub buffers: &'a mut [Buffer],
}

/// One element, held as the interpreter holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
}

impl Scalar {
    fn from_data(data: &Data, i: usize) -> Res<Scalar> {
        match data {
            Data::Int(v) => Ok(Scalar::Int(v[lane(v.len(), i)])),
            Data::Float(v) => Ok(Scalar::Float(v[lane(v.len(), i)])),
            _ => err("memory ops on pointer or descriptor elements are not supported"),
        }
    }
}

/// An empty element vector of the storage kind that holds `d`.
fn storage_for(d: DType, n: usize) -> Data {
    if d.is_float() {
        Data::Float(Vec::with_capacity(n))
    } else {
        Data::Int(Vec::with_capacity(n))
    }
}

fn push(data: &mut Data, s: Scalar) {
    match (data, s) {
        (Data::Int(v), Scalar::Int(x)) => v.push(x),
        (Data::Float(v), Scalar::Float(x)) => v.push(x),
        (Data::Int(v), Scalar::Float(x)) => v.push(x as i64),
        (Data::Float(v), Scalar::Int(x)) => v.push(x as f64),
        _ => {}
    }
}

/// The zero of dtype `d`.
fn zero(d: DType) -> Scalar {
    if d.is_float() {
        Scalar::Float(0.0)
    } else {
        Scalar::Int(0)
    }
}

impl Memory<'_> {
    /// The byte index of the element of dtype `d` at `p`, after every check.
    fn locate(&self, p: Ptr, d: DType, what: &str) -> Res<usize> {
        let size = d.size_bytes() as i64;
        let Some(buffer) = self.buffers.get(p.buf as usize) else {
            return err(format!("{what} through a pointer into no buffer (buffer index {})", p.buf));
        };
        let len = buffer.bytes.len() as i64 / size;
        if p.off.rem_euclid(size) != 0 {
            return err(format!(
                "misaligned {what} of {d} from buffer `{}`: byte offset {} is not a multiple of {size}",
                buffer.name, p.off
            ));
        }
        let element = p.off.div_euclid(size);
        if element < 0 || element >= len {
            return err(format!(
                "out-of-bounds {what} from buffer `{}`: element offset {element} is outside [0, {len}) \
                 (buffer length {len} elements of {d})",
                buffer.name
            ));
        }
        Ok(p.off as usize)
    }

    /// Reads one element of dtype `d`.
    pub fn read(&self, p: Ptr, d: DType, what: &str) -> Res<Scalar> {
        let at = self.locate(p, d, what)?;
        let size = d.size_bytes();
        let bytes = &self.buffers[p.buf as usize].bytes[at..at + size];
        let mut raw = [0u8; 8];
        raw[..size].copy_from_slice(bytes);
        let bits = u64::from_le_bytes(raw);
        Ok(if d.is_float() {
            Scalar::Float(float_from_bits(d, bits))
        } else if d == DType::I1 {
            Scalar::Int((bits != 0) as i64)
        } else {
            Scalar::Int(canon(d, bits as i64))
        })
    }

    /// Writes one element of dtype `d`.
    pub fn write(&mut self, p: Ptr, d: DType, value: Scalar, what: &str) -> Res<()> {
        let at = self.locate(p, d, what)?;
        let size = d.size_bytes();
        let bits = match value {
            Scalar::Float(x) => float_to_bits(d, round(d, x)),
            Scalar::Int(x) if d.is_float() => float_to_bits(d, x as f64),
            Scalar::Int(x) => (canon(d, x) as u64) & (u64::MAX >> (64 - 8 * size as u32)),
        };
        self.buffers[p.buf as usize].bytes[at..at + size].copy_from_slice(&bits.to_le_bytes()[..size]);
        Ok(())
    }
}

/// Checks that an operand accompanying `n` pointers has one element or `n`.
fn check_lanes(n: usize, operand: Option<&Val>, what: &str) -> Res<()> {
    match operand {
        Some(v) if v.numel() != 1 && v.numel() != n => {
            err(format!("{what} of shape {:?} does not match {n} pointers", v.shape))
        }
        _ => Ok(()),
    }
}

/// Whether lane `i` of an optional mask is on.
fn mask_on(mask: Option<&[i64]>, i: usize) -> bool {
    mask.is_none_or(|m| m[lane(m.len(), i)] != 0)
}

fn mask_ints(mask: Option<&Val>) -> Res<Option<&[i64]>> {
    mask.map(Val::ints).transpose()
}

/// `tt.load`: masked-off lanes read `other` (zero when absent).
pub fn load(mem: &Memory, ptrs: &Val, mask: Option<&Val>, other: Option<&Val>, d: DType) -> Res<Val> {
    let ps = ptrs.ptrs()?;
    check_lanes(ps.len(), mask, "load mask")?;
    check_lanes(ps.len(), other, "load `other`")?;
    let mask = mask_ints(mask)?;
    let mut out = storage_for(d, ps.len());
    for (i, &p) in ps.iter().enumerate() {
        let s = if mask_on(mask, i) {
            mem.read(p, d, "load")?
        } else {
            match other {
                Some(o) => Scalar::from_data(&o.data, i)?,
                None => zero(d),
            }
        };
        push(&mut out, s);
    }
    Val::new(ptrs.shape.clone(), out)
}

/// `tt.store`.
pub fn store(mem: &mut Memory, ptrs: &Val, value: &Val, mask: Option<&Val>, d: DType) -> Res<()> {
    let ps = ptrs.ptrs()?;
    check_lanes(ps.len(), Some(value), "stored value")?;
    check_lanes(ps.len(), mask, "store mask")?;
    let mask = mask_ints(mask)?;
    for (i, &p) in ps.iter().enumerate() {
        if mask_on(mask, i) {
            mem.write(p, d, Scalar::from_data(&value.data, i)?, "store")?;
        }
    }
    Ok(())
}

/// `tt.atomic_rmw`: returns the old values (zero in masked-off lanes).
pub fn atomic_rmw(
    mem: &mut Memory,
    kind: &str,
    ptrs: &Val,
    vals: &Val,
    mask: Option<&Val>,
    d: DType,
) -> Res<Val> {
    let ps = ptrs.ptrs()?;
    check_lanes(ps.len(), Some(vals), "atomic value")?;
    check_lanes(ps.len(), mask, "atomic mask")?;
    let mask = mask_ints(mask)?;
    let bits = d.bits();
    let mut out = storage_for(d, ps.len());
    for (i, &p) in ps.iter().enumerate() {
        if !mask_on(mask, i) {
            push(&mut out, zero(d));
            continue;
        }
        let old = mem.read(p, d, "atomic")?;
        let val = Scalar::from_data(&vals.data, i)?;
        let new = match (old, val) {
            (Scalar::Int(o), Scalar::Int(v)) => Scalar::Int(match kind {
                "and" => o & v,
                "or" => o | v,
                "xor" => o ^ v,
                "add" => canon(d, o.wrapping_add(v)),
                "max" if d.is_unsigned_int() => zext(bits, o).max(zext(bits, v)) as i64,
                "min" if d.is_unsigned_int() => zext(bits, o).min(zext(bits, v)) as i64,
                "max" => sext(bits, o).max(sext(bits, v)),
                "min" => sext(bits, o).min(sext(bits, v)),
                "umax" => zext(bits, o).max(zext(bits, v)) as i64,
                "umin" => zext(bits, o).min(zext(bits, v)) as i64,
                "xchg" => v,
                _ => return err(format!("unsupported integer atomic_rmw op `{kind}`")),
            }),
            (Scalar::Float(o), Scalar::Float(v)) => Scalar::Float(match kind {
                "fadd" | "add" => round(d, o + v),
                "max" => {
                    if v > o || o.is_nan() {
                        v
                    } else {
                        o
                    }
                }
                "min" => {
                    if v < o || o.is_nan() {
                        v
                    } else {
                        o
                    }
                }
                "xchg" => v,
                _ => return err(format!("unsupported float atomic_rmw op `{kind}`")),
            }),
            _ => return err("atomic_rmw value and pointee of different kinds"),
        };
        mem.write(p, d, new, "atomic")?;
        push(&mut out, old);
    }
    Val::new(ptrs.shape.clone(), out)
}

/// Bit-level equality of two elements of dtype `d` (what a hardware CAS compares).
fn same_bits(d: DType, a: Scalar, b: Scalar) -> bool {
    match (a, b) {
        (Scalar::Int(x), Scalar::Int(y)) => x == y,
        (Scalar::Float(x), Scalar::Float(y)) => float_to_bits(d, x) == float_to_bits(d, y),
        _ => false,
    }
}

/// `tt.atomic_cas`: writes `val` where the old value equals `cmp`; returns the old values.
pub fn atomic_cas(mem: &mut Memory, ptrs: &Val, cmp: &Val, val: &Val, d: DType) -> Res<Val> {
    let ps = ptrs.ptrs()?;
    check_lanes(ps.len(), Some(cmp), "atomic_cas comparand")?;
    check_lanes(ps.len(), Some(val), "atomic_cas value")?;
    let mut out = storage_for(d, ps.len());
    for (i, &p) in ps.iter().enumerate() {
        let old = mem.read(p, d, "atomic")?;
        if same_bits(d, old, Scalar::from_data(&cmp.data, i)?) {
            mem.write(p, d, Scalar::from_data(&val.data, i)?, "atomic")?;
        }
        push(&mut out, old);
    }
    Val::new(ptrs.shape.clone(), out)
}

/// The pointer to each element of a descriptor block at `offsets`, or `None` where the element
/// lies outside the global tensor. Elements are in row-major order of `block`.
fn descriptor_lanes(desc: &Desc, d: DType, block: &[usize], offsets: &[i64]) -> Res<Vec<Option<Ptr>>> {
    let rank = desc.shape.len();
    if block.len() != rank || offsets.len() != rank {
        return err(format!(
            "descriptor of rank {rank} used with a block of rank {} and {} offsets",
            block.len(),
            offsets.len()
        ));
    }
    let n: usize = block.iter().product();
    let block_strides = strides(block);
    let size = d.size_bytes() as i64;
    let mut out = Vec::with_capacity(n);
    for flat in 0..n {
        let mut element = 0i64;
        let mut inside = true;
        for dim in 0..rank {
            let coord = offsets[dim] + ((flat / block_strides[dim]) % block[dim]) as i64;
            inside &= (0..desc.shape[dim]).contains(&coord);
            element = element.wrapping_add(coord.wrapping_mul(desc.strides[dim]));
        }
        out.push(inside.then_some(Ptr { buf: desc.base.buf, off: desc.base.off + element * size }));
    }
    Ok(out)
}

/// `tt.descriptor_load`: out-of-bounds elements read zero, or NaN with NaN padding.
pub fn descriptor_load(
    mem: &Memory,
    desc: &Desc,
    d: DType,
    block: &[usize],
    offsets: &[i64],
    padding_nan: bool,
) -> Res<Data> {
    let lanes = descriptor_lanes(desc, d, block, offsets)?;
    let pad = if padding_nan && d.is_float() { Scalar::Float(f64::NAN) } else { zero(d) };
    let mut out = storage_for(d, lanes.len());
    for p in lanes {
        let s = match p {
            Some(p) => mem.read(p, d, "descriptor load")?,
            None => pad,
        };
        push(&mut out, s);
    }
    Ok(out)
}

/// `tt.descriptor_store`: out-of-bounds elements are skipped.
pub fn descriptor_store(
    mem: &mut Memory,
    desc: &Desc,
    d: DType,
    block: &[usize],
    offsets: &[i64],
    value: &Val,
) -> Res<()> {
    let lanes = descriptor_lanes(desc, d, block, offsets)?;
    check_lanes(lanes.len(), Some(value), "descriptor store value")?;
    for (i, p) in lanes.into_iter().enumerate() {
        if let Some(p) = p {
            mem.write(p, d, Scalar::from_data(&value.data, i)?, "descriptor store")?;
        }
    }
    Ok(())
}
