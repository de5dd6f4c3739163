//! `tl.device_print` on spirv: the print buffer's records (see `trident_backend_spirv`'s
//! `Artifact::print_binding`) turned into the interpreter's lines.
//!
//! The kernel appends records in whatever order its threads run; this module sorts them by
//! program (the interpreter runs programs x fastest, then y, then z), then by the thread's print
//! sequence number (which execution of which print: every thread of a program numbers them
//! alike), then by site (the operand), then by element (row-major), which is the order the
//! interpreter prints in. Each line is the interpreter's (`runtime/src/interp/eval.rs`,
//! `Machine::print`): `pid (x, y, z) idx (i, j) PREFIX (operand K) VALUE`, integers in decimal
//! (unsigned ones and bools zero-extended), floats as Rust prints the f64 of their value, `hex`
//! as the element's bits, pointers as `<buffer N + OFFSET>`.
//!
//! The buffer holds [`capacity`] records; records past it were counted by the kernel but not
//! written, and [`Printout::dropped`] says how many.

use std::fmt::Write;

use trident_backend_spirv::{Artifact, PrintSite, Printed, PRINT_HEADER_WORDS, PRINT_RECORD_WORDS};
use trident_midend::ir::DType;

use crate::interp::{float_from_bits, printf_float};

/// The environment variable that sets the print buffer's capacity in records (lines); the
/// default is [`DEFAULT_CAPACITY`]. Tests lower it to see records dropped.
pub const PRINT_RECORDS_ENV: &str = "TRIDENT_PRINT_BUFFER_RECORDS";

/// Records the print buffer holds by default (24 MiB).
pub const DEFAULT_CAPACITY: u32 = 1 << 20;

/// The capacity in records of a print buffer: [`PRINT_RECORDS_ENV`] or the default, at most what
/// one binding of `max_binding_bytes` holds.
pub fn capacity(max_binding_bytes: u64) -> u32 {
    let wanted = std::env::var(PRINT_RECORDS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .unwrap_or(DEFAULT_CAPACITY);
    let fits = max_binding_bytes / 4;
    let fits = fits.saturating_sub(PRINT_HEADER_WORDS as u64) / PRINT_RECORD_WORDS as u64;
    wanted.min(fits.min(u32::MAX as u64) as u32)
}

/// Bytes of a print buffer of `capacity` records.
pub fn buffer_bytes(capacity: u32) -> u64 {
    4 * (PRINT_HEADER_WORDS as u64 + capacity as u64 * PRINT_RECORD_WORDS as u64)
}

/// One record, as the kernel wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Record {
    program: u32,
    sequence: u32,
    site: u32,
    element: u32,
    bits: u64,
}

/// What a launch printed.
#[derive(Clone, Debug, PartialEq)]
pub struct Printout {
    pub lines: Vec<String>,
    /// Records the kernel appended past the buffer's capacity (not printed).
    pub dropped: u64,
}

/// The lines of the records in `words` (the buffer's records, `written` of them), for a launch
/// over `grid`. `buffer_of` maps a pointer argument's binding to the index of its buffer among
/// the launch's buffers (what the interpreter calls it).
pub fn printout(
    artifact: &Artifact,
    grid: [u32; 3],
    attempted: u32,
    words: &[u32],
    buffer_of: &dyn Fn(u32) -> Option<usize>,
) -> Printout {
    let record_words = PRINT_RECORD_WORDS as usize;
    let mut records: Vec<Record> = words
        .chunks_exact(record_words)
        .map(|r| Record {
            sequence: r[0],
            site: r[1],
            program: r[2],
            element: r[3],
            bits: r[4] as u64 | (r[5] as u64) << 32,
        })
        .collect();
    records.sort();
    let [gx, gy, _] = grid.map(|g| g.max(1));
    let lines = records
        .iter()
        .map(|r| {
            let pid = [r.program % gx, r.program / gx % gy, r.program / (gx * gy)];
            match artifact.prints.get(r.site as usize) {
                Some(site) => line(site, pid, r.element, r.bits, buffer_of),
                None => format!(
                    "pid ({}, {}, {}) <a record of unknown print site {}>",
                    pid[0], pid[1], pid[2], r.site
                ),
            }
        })
        .collect();
    Printout { lines, dropped: (attempted as u64).saturating_sub(records.len() as u64) }
}

/// The interpreter's line for one element.
fn line(
    site: &PrintSite,
    pid: [u32; 3],
    element: u32,
    bits: u64,
    buffer_of: &dyn Fn(u32) -> Option<usize>,
) -> String {
    let [x, y, z] = pid;
    let dtype = match site.printed {
        Printed::Nothing => return format!("pid ({x}, {y}, {z}) {}", site.prefix),
        Printed::Value(d) => Some(d),
        Printed::Pointer { .. } => None,
    };
    let mut line = format!("pid ({x}, {y}, {z}) idx (");
    let mut rest = element as u64;
    let mut idx = vec![0u64; site.shape.len()];
    for (i, &n) in site.shape.iter().enumerate().rev() {
        idx[i] = rest % n.max(1) as u64;
        rest /= n.max(1) as u64;
    }
    for (i, v) in idx.iter().enumerate() {
        let _ = write!(line, "{}{v}", if i == 0 { "" } else { ", " });
    }
    line.push(')');
    if !site.prefix.is_empty() {
        line.push(' ');
        line.push_str(&site.prefix);
    }
    if let Some(k) = site.operand {
        let _ = write!(line, " (operand {k})");
    }
    let text = match (site.printed, dtype) {
        (Printed::Pointer { binding }, _) => match buffer_of(binding) {
            Some(buffer) => format!("<buffer {buffer} + {}>", bits as u32),
            None => format!("<binding {binding} + {}>", bits as u32),
        },
        (_, Some(d)) => value(d, site.hex, bits),
        _ => String::new(),
    };
    let _ = write!(line, " {text}");
    line
}

/// An element of `d` from its bits, as the interpreter prints it.
fn value(d: DType, hex: bool, bits: u64) -> String {
    let width = d.bits();
    let low = if width >= 64 { bits } else { bits & ((1u64 << width) - 1) };
    if hex {
        return format!("0x{low:x}");
    }
    if d.is_float() {
        return printf_float(float_from_bits(d, low));
    }
    if d.is_unsigned_int() || d == DType::I1 {
        return low.to_string();
    }
    // Signed: sign-extend from the type's width.
    let shift = 64 - width.min(64);
    (((low << shift) as i64) >> shift).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use trident_midend::ir::Span;

    fn site(prefix: &str, operand: Option<u32>, printed: Printed, hex: bool, shape: &[u32]) -> PrintSite {
        PrintSite {
            prefix: prefix.into(),
            operand,
            printed,
            hex,
            shape: shape.to_vec(),
            span: Span::new(0, 0),
        }
    }

    fn artifact(prints: Vec<PrintSite>) -> Artifact {
        Artifact {
            words: Vec::new(),
            entry_name: "k".into(),
            workgroup_size: [32, 1, 1],
            workgroup_memory_bytes: 0,
            params: Vec::new(),
            uniform_binding: 1,
            uniform_words: 6,
            mode: trident_backend_spirv::Mode::Vulkan,
            assert_binding: None,
            asserts: Vec::new(),
            print_binding: Some(0),
            prints,
            specialized_words: Vec::new(),
        }
    }

    /// Words of records (sequence, site, program, element, bits).
    fn words(records: &[(u32, u32, u32, u32, u64)]) -> Vec<u32> {
        records.iter().flat_map(|&(q, s, p, e, b)| [q, s, p, e, b as u32, (b >> 32) as u32]).collect()
    }

    #[test]
    fn values_print_as_the_interpreter_prints_them() {
        assert_eq!(value(DType::I32, false, 0xffff_fffe), "-2");
        assert_eq!(value(DType::I8, false, 0xffff_ff80), "-128");
        assert_eq!(value(DType::U8, false, 0xff), "255");
        assert_eq!(value(DType::U32, false, 0xffff_ffff), "4294967295");
        assert_eq!(value(DType::I64, false, u64::MAX), "-1");
        assert_eq!(value(DType::I1, false, 1), "1");
        assert_eq!(value(DType::F32, false, 1.5f32.to_bits() as u64), "1.500000");
        assert_eq!(value(DType::F32, false, 0.1f32.to_bits() as u64), "0.100000");
        assert_eq!(value(DType::F16, false, 0x3c00), "1.000000");
        assert_eq!(value(DType::BF16, false, 0xc040), "-3.000000");
        assert_eq!(value(DType::F64, false, 2.25f64.to_bits()), "2.250000");
        assert_eq!(value(DType::F32, false, f32::NEG_INFINITY.to_bits() as u64), "-inf");
        assert_eq!(value(DType::F32, false, f32::NAN.to_bits() as u64), "nan");
        assert_eq!(value(DType::F16, true, 0x4000), "0x4000");
        assert_eq!(value(DType::I16, true, 0xffff_ffff), "0xffff");
    }

    /// Records in any order come out by program, sequence, site and element; the grid decodes
    /// programs; shapes decode elements; several operands say which.
    #[test]
    fn records_sort_into_the_interpreters_order() {
        let a = artifact(vec![
            site("x", None, Printed::Value(DType::I32), false, &[2, 4]),
            site("pair", Some(0), Printed::Value(DType::F32), false, &[]),
            site("pair", Some(1), Printed::Value(DType::I32), true, &[]),
            site("", None, Printed::Nothing, false, &[]),
            site("p", None, Printed::Pointer { binding: 1 }, false, &[]),
        ]);
        let records = words(&[
            (1, 1, 0, 0, 2.0f32.to_bits() as u64),
            (0, 0, 3, 6, 7),
            (0, 0, 0, 5, 5),
            (2, 3, 0, 0, 0),
            (1, 2, 0, 0, 255),
            (0, 0, 0, 1, 1),
            (3, 4, 0, 0, 16),
        ]);
        let out = printout(&a, [2, 2, 1], 7, &records, &|b| (b == 1).then_some(3));
        assert_eq!(
            out.lines,
            [
                "pid (0, 0, 0) idx (0, 1) x 1",
                "pid (0, 0, 0) idx (1, 1) x 5",
                "pid (0, 0, 0) idx () pair (operand 0) 2.000000",
                "pid (0, 0, 0) idx () pair (operand 1) 0xff",
                "pid (0, 0, 0) ",
                "pid (0, 0, 0) idx () p <buffer 3 + 16>",
                "pid (1, 1, 0) idx (1, 2) x 7",
            ]
        );
        assert_eq!(out.dropped, 0);
    }

    #[test]
    fn records_past_the_capacity_are_counted_as_dropped() {
        let a = artifact(vec![site("x", None, Printed::Value(DType::I32), false, &[8])]);
        let out = printout(&a, [1, 1, 1], 10, &words(&[(0, 0, 0, 3, 3), (0, 0, 0, 1, 1)]), &|_| None);
        assert_eq!(out.lines, ["pid (0, 0, 0) idx (1) x 1", "pid (0, 0, 0) idx (3) x 3"]);
        assert_eq!(out.dropped, 8);
    }

    #[test]
    fn the_capacity_fits_one_binding() {
        assert_eq!(capacity(4 * (2 + 6 * 10)), 10);
        assert_eq!(buffer_bytes(10), 4 * (2 + 60));
    }
}
