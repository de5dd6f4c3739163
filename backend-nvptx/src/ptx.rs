//! A small typed builder for PTX text: virtual registers by class, instruction lines, labels,
//! line info, and the sections of a kernel (declarations, prologue, body).
//!
//! Registers are virtual and unlimited (`%r12`, `%f3`, `%p7`); ptxas allocates physical ones.
//! The prologue holds code that must dominate every use wherever it is emitted from (thread
//! coordinates of layouts): ops append to it at any time, and it is printed before the body.

use std::fmt::{self, Write};

/// A register class: the PTX register type and the name prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    Pred,
    B16,
    B32,
    B64,
    F32,
    F64,
}

impl Class {
    fn prefix(self) -> &'static str {
        match self {
            Class::Pred => "p",
            Class::B16 => "h",
            Class::B32 => "r",
            Class::B64 => "rd",
            Class::F32 => "f",
            Class::F64 => "fd",
        }
    }

    fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B16 => ".b16",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::F32 => ".f32",
            Class::F64 => ".f64",
        }
    }

    /// Bytes a value of this class takes in shared memory (predicates go as 32-bit words).
    pub fn bytes(self) -> u32 {
        match self {
            Class::B16 => 2,
            Class::Pred | Class::B32 | Class::F32 => 4,
            Class::B64 | Class::F64 => 8,
        }
    }

    const ALL: [Class; 6] = [Class::Pred, Class::B16, Class::B32, Class::B64, Class::F32, Class::F64];
}

/// A virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub class: Class,
    pub id: u32,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}{}", self.class.prefix(), self.id)
    }
}

/// The text of one kernel being built.
#[derive(Default)]
pub struct Ptx {
    counts: [u32; 6],
    pub prologue: String,
    pub body: String,
    labels: u32,
}

impl Ptx {
    pub fn reg(&mut self, class: Class) -> Reg {
        let i = Class::ALL.iter().position(|&c| c == class).unwrap();
        self.counts[i] += 1;
        Reg { class, id: self.counts[i] }
    }

    /// Appends one instruction line (without the trailing `;`) to the body.
    pub fn ins(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.body, "\t{};", text.as_ref());
    }

    /// Appends one instruction line to the prologue.
    pub fn prologue_ins(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.prologue, "\t{};", text.as_ref());
    }

    /// A comment line in the body.
    pub fn comment(&mut self, text: &str) {
        for line in text.lines() {
            let _ = writeln!(self.body, "\t// {line}");
        }
    }

    /// Opens a `{ ... }` scope in the body (for the declarations of one call).
    pub fn open_scope(&mut self) {
        self.body.push_str("\t{\n");
    }

    pub fn close_scope(&mut self) {
        self.body.push_str("\t}\n");
    }

    pub fn label(&mut self, stem: &str) -> String {
        self.labels += 1;
        format!("$L_{stem}_{}", self.labels)
    }

    pub fn place_label(&mut self, label: &str) {
        let _ = writeln!(self.body, "{label}:");
    }

    /// The register declarations.
    pub fn declarations(&self) -> String {
        let mut out = String::new();
        for (i, class) in Class::ALL.iter().enumerate() {
            if self.counts[i] > 0 {
                let _ = writeln!(out, "\t.reg {} %{}<{}>;", class.decl(), class.prefix(), self.counts[i] + 1);
            }
        }
        out
    }
}

/// A PTX float literal with the exact bits (`0f3F800000`, `0d3FF0000000000000`).
pub fn f32_lit(v: f64) -> String {
    format!("0f{:08X}", (v as f32).to_bits())
}

pub fn f64_lit(v: f64) -> String {
    format!("0d{:016X}", v.to_bits())
}
