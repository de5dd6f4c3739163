//! Encodings: the layout attribute a TTGIR tensor type carries (`tensor<128xf32, #ttg.blocked<...>>`).
//!
//! An [`Encoding`] is the *parameters* of a layout, independent of the tensor shape, exactly like
//! Triton's attributes; [`Encoding::to_linear`] builds the [`LinearLayout`] for a concrete shape,
//! which is what passes and backends reason with. Encodings print in Triton's syntax and parse
//! back (`parse_encoding`), so TTGIR text round-trips.

use std::fmt;

use super::registers::{register_map, LayoutInfo};
use super::{Blocked, LayoutError, LinearLayout, Mma, MmaVersion, Slice};

/// A distributed (register) layout attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Encoding {
    Blocked(Blocked),
    /// The parent with tensor dim `dim` removed: the layout of a reduction's result.
    Slice {
        dim: u32,
        parent: Box<Encoding>,
    },
    /// The accumulator layout of the tensor cores (`mma.sync`, version 2; `wgmma`, version 3).
    Mma(Mma),
}

impl Encoding {
    /// The linear layout of this encoding on a tensor of `shape`.
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        match self {
            Encoding::Blocked(b) => b.to_linear(shape),
            Encoding::Mma(m) => m.to_linear(shape),
            Encoding::Slice { dim, parent } => {
                let s = Slice { dim: *dim, parent: parent.as_ref().clone() };
                s.to_linear_with(shape, |p, parent_shape| p.to_linear(parent_shape))
            }
        }
    }

    /// Whether converting a tensor of `shape` from `self` to `other` only renames registers
    /// (every register of `other` is one of `self`'s in the same thread: [`register_map`], which
    /// the backends lower such conversions with), as for the MMA v3 layouts of attention's two
    /// dots, whose instruction N differs.
    pub fn converts_in_registers(&self, other: &Encoding, shape: &[u32]) -> bool {
        let (Ok(from), Ok(to)) = (self.to_linear(shape), other.to_linear(shape)) else { return false };
        register_map(&LayoutInfo::new(to), &LayoutInfo::new(from), &|c| c.to_vec()).is_some()
    }

    /// The rank of tensors this encoding applies to.
    pub fn rank(&self) -> usize {
        match self {
            Encoding::Blocked(b) => b.rank(),
            Encoding::Mma(_) => 2,
            Encoding::Slice { parent, .. } => parent.rank() - 1,
        }
    }

    /// A short alias stem for the printer (`blocked`, `slice`).
    pub fn alias_stem(&self) -> &'static str {
        match self {
            Encoding::Blocked(_) => "blocked",
            Encoding::Mma(_) => "mma",
            Encoding::Slice { .. } => "slice",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Encoding::Blocked(b) => write!(f, "{b}"),
            Encoding::Mma(m) => write!(f, "{m}"),
            Encoding::Slice { dim, parent } => write!(f, "#ttg.slice<{{dim = {dim}, parent = {parent}}}>"),
        }
    }
}

impl std::hash::Hash for Blocked {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.size_per_thread.hash(state);
        self.threads_per_warp.hash(state);
        self.warps_per_cta.hash(state);
        self.order.hash(state);
    }
}

/// Parses an encoding in its printed form, returning it and the number of bytes consumed.
pub fn parse_encoding(text: &str) -> Result<(Encoding, usize), String> {
    let mut p = Cursor { text, pos: 0 };
    let e = p.encoding()?;
    Ok((e, p.pos))
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn skip_ws(&mut self) {
        while self.text[self.pos..].starts_with(|c: char| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, s: &str) -> Result<(), String> {
        self.skip_ws();
        if self.text[self.pos..].starts_with(s) {
            self.pos += s.len();
            Ok(())
        } else {
            Err(format!(
                "expected `{s}` in a layout at `{}`",
                &self.text[self.pos..].chars().take(20).collect::<String>()
            ))
        }
    }

    fn int(&mut self) -> Result<u32, String> {
        self.skip_ws();
        let start = self.pos;
        while self.text[self.pos..].starts_with(|c: char| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.text[start..self.pos].parse().map_err(|_| "expected an integer in a layout".to_string())
    }

    fn list(&mut self) -> Result<Vec<u32>, String> {
        self.eat("[")?;
        let mut out = Vec::new();
        self.skip_ws();
        if self.text[self.pos..].starts_with(']') {
            self.pos += 1;
            return Ok(out);
        }
        loop {
            out.push(self.int()?);
            self.skip_ws();
            if self.text[self.pos..].starts_with(',') {
                self.pos += 1;
            } else {
                self.eat("]")?;
                return Ok(out);
            }
        }
    }

    fn field(&mut self, name: &str) -> Result<Vec<u32>, String> {
        self.eat(name)?;
        self.eat("=")?;
        self.list()
    }

    fn encoding(&mut self) -> Result<Encoding, String> {
        self.skip_ws();
        if self.text[self.pos..].starts_with("#ttg.blocked") {
            self.eat("#ttg.blocked")?;
            self.eat("<{")?;
            let size_per_thread = self.field("sizePerThread")?;
            self.eat(",")?;
            let threads_per_warp = self.field("threadsPerWarp")?;
            self.eat(",")?;
            let warps_per_cta = self.field("warpsPerCTA")?;
            self.eat(",")?;
            let order = self.field("order")?;
            self.eat("}>")?;
            Ok(Encoding::Blocked(Blocked { size_per_thread, threads_per_warp, warps_per_cta, order }))
        } else if self.text[self.pos..].starts_with("#ttg.slice") {
            self.eat("#ttg.slice")?;
            self.eat("<{")?;
            self.eat("dim")?;
            self.eat("=")?;
            let dim = self.int()?;
            self.eat(",")?;
            self.eat("parent")?;
            self.eat("=")?;
            let parent = self.encoding()?;
            self.eat("}>")?;
            Ok(Encoding::Slice { dim, parent: Box::new(parent) })
        } else if self.text[self.pos..].starts_with("#ttg.nvidia_mma") {
            self.eat("#ttg.nvidia_mma")?;
            self.eat("<{")?;
            self.eat("versionMajor")?;
            self.eat("=")?;
            let major = self.int()?;
            self.eat(",")?;
            self.eat("versionMinor")?;
            self.eat("=")?;
            self.int()?;
            self.eat(",")?;
            let warps = self.field("warpsPerCTA")?;
            self.eat(",")?;
            let instr = self.field("instrShape")?;
            self.eat("}>")?;
            let version = match (major, &instr[..]) {
                (2, [16, 8]) => MmaVersion::V2,
                (3, &[16, instr_n, instr_k]) => MmaVersion::V3 { instr_n, instr_k },
                _ => {
                    return Err("an MMA layout is version 2 with instrShape [16, 8] or version 3 with \
                                instrShape [16, N, K]"
                        .into())
                }
            };
            if warps.len() != 2 {
                return Err("an MMA layout has two warpsPerCTA".into());
            }
            Ok(Encoding::Mma(Mma { warps_per_cta: [warps[0], warps[1]], version }))
        } else {
            Err("expected a layout (#ttg.blocked<...>, #ttg.slice<...> or #ttg.nvidia_mma<...>)".into())
        }
    }
}
