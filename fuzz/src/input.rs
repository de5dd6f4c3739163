//! One execution's input, and its text form.
//!
//! An [`Input`] is everything one execution compiles: the kernel file's display path (which
//! diagnostics print), its (mutated) source, the kernel name, the specialization, and the grid the
//! interpreter runs. The text form is exact (floats keep every bit, pointer alignment is kept),
//! unlike `trident compile` flags, so a saved finding replays as it ran:
//!
//! ```text
//! trident-fuzz input 1
//! path ../shared/corpus/kernels/vector_add.py
//! kernel add_kernel
//! num_warps 4
//! num_stages 3
//! grid 1 1 1
//! const BLOCK_SIZE int 1024
//! arg x_ptr ptr fp32 aligned
//! arg n_elements int i32 4099
//! source
//! import triton
//! ...
//! ```
//!
//! Every line up to `source` is a header line of space-separated words; the rest of the text is
//! the source, byte for byte. String constexprs are the rest of their line (the mutators never
//! put a newline in one).

use trident::{ArgSpec, ConstValue, Specialization};
use trident_midend::ir::DType;

const MAGIC: &str = "trident-fuzz input 1";

/// What one execution compiles and runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The kernel file as diagnostics name it.
    pub path: String,
    pub source: String,
    pub kernel: String,
    pub spec: Specialization,
    /// The interpreter's grid (kept tiny by the mutators).
    pub grid: [u32; 3],
}

impl Input {
    /// The text form (see the module doc).
    pub fn encode(&self) -> String {
        let mut text = format!("{MAGIC}\n");
        text += &format!("path {}\n", self.path);
        text += &format!("kernel {}\n", self.kernel);
        text += &format!("num_warps {}\n", self.spec.num_warps);
        text += &format!("num_stages {}\n", self.spec.num_stages);
        text += &format!("grid {} {} {}\n", self.grid[0], self.grid[1], self.grid[2]);
        for (name, value) in &self.spec.constexprs {
            let value = match value {
                ConstValue::Int(v) => format!("int {v}"),
                ConstValue::Float(v) => format!("float {v:?}"),
                ConstValue::Bool(b) => format!("bool {b}"),
                ConstValue::DType(d) => format!("dtype {}", d.ir_name()),
                ConstValue::Str(s) => format!("str {}", s.replace('\n', " ")),
                ConstValue::None => "none".to_string(),
            };
            text += &format!("const {name} {value}\n");
        }
        for (name, arg) in &self.spec.args {
            let arg = match arg {
                ArgSpec::Pointer { dtype, aligned16 } => {
                    let alignment = if *aligned16 { "aligned" } else { "unaligned" };
                    format!("ptr {} {alignment}", dtype.ir_name())
                }
                ArgSpec::Int { value, dtype } => format!("int {} {value}", dtype.ir_name()),
                ArgSpec::Float { value, dtype } => format!("float {} {value:?}", dtype.ir_name()),
                ArgSpec::TensorDesc { dtype, aligned16, strides16, block_shape, padding_nan } => {
                    let alignment = if *aligned16 { "aligned" } else { "unaligned" };
                    let strides = if *strides16 { "strides16" } else { "strides" };
                    let padding = if *padding_nan { "nan" } else { "zero" };
                    let block: Vec<String> = block_shape.iter().map(i64::to_string).collect();
                    format!("desc {} {alignment} {strides} {padding} {}", dtype.ir_name(), block.join("x"))
                }
            };
            text += &format!("arg {name} {arg}\n");
        }
        text += "source\n";
        text += &self.source;
        text
    }

    /// Parses the text form.
    pub fn decode(text: &str) -> Result<Input, String> {
        let mut rest = text;
        let mut next_line = || -> Option<&str> {
            if rest.is_empty() {
                return None;
            }
            let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
            rest = after;
            Some(line)
        };
        if next_line() != Some(MAGIC) {
            return Err(format!("not a trident-fuzz input (the first line must be `{MAGIC}`)"));
        }
        let mut input = Input {
            path: String::new(),
            source: String::new(),
            kernel: String::new(),
            spec: Specialization::default(),
            grid: [1, 1, 1],
        };
        loop {
            let Some(line) = next_line() else { return Err("no `source` line".to_string()) };
            if line == "source" {
                break;
            }
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            let words: Vec<&str> = value.split(' ').collect();
            match key {
                "path" => input.path = value.to_string(),
                "kernel" => input.kernel = value.to_string(),
                "num_warps" => input.spec.num_warps = number(value)?,
                "num_stages" => input.spec.num_stages = number(value)?,
                "grid" if words.len() == 3 => {
                    input.grid = [number(words[0])?, number(words[1])?, number(words[2])?];
                }
                "const" => input.spec.constexprs.push(decode_const(value)?),
                "arg" => input.spec.args.push(decode_arg(&words)?),
                _ => return Err(format!("unknown header line `{line}`")),
            }
        }
        input.source = rest.to_string();
        Ok(input)
    }
}

fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("`{text}` is not a number"))
}

fn dtype(name: &str) -> Result<DType, String> {
    DType::from_ir_name(name).ok_or_else(|| format!("`{name}` is not a dtype"))
}

/// `NAME KIND VALUE`, the value being the rest of the line for strings.
fn decode_const(text: &str) -> Result<(String, ConstValue), String> {
    let mut parts = text.splitn(3, ' ');
    let name = parts.next().unwrap_or_default().to_string();
    let kind = parts.next().unwrap_or_default();
    let value = parts.next().unwrap_or_default();
    let value = match kind {
        "int" => ConstValue::Int(number(value)?),
        "float" => ConstValue::Float(number(value)?),
        "bool" => ConstValue::Bool(number(value)?),
        "dtype" => ConstValue::DType(dtype(value)?),
        "str" => ConstValue::Str(value.to_string()),
        "none" => ConstValue::None,
        _ => return Err(format!("unknown constexpr kind `{kind}`")),
    };
    Ok((name, value))
}

/// `NAME ptr DTYPE aligned|unaligned`, `NAME int DTYPE VALUE`, `NAME float DTYPE VALUE` or
/// `NAME desc DTYPE aligned|unaligned strides16|strides zero|nan BLOCKxBLOCK...`.
fn decode_arg(words: &[&str]) -> Result<(String, ArgSpec), String> {
    let arg = match words {
        [_, "ptr", d, alignment] => ArgSpec::Pointer { dtype: dtype(d)?, aligned16: *alignment == "aligned" },
        [_, "desc", d, alignment, strides, padding, block] => ArgSpec::TensorDesc {
            dtype: dtype(d)?,
            aligned16: *alignment == "aligned",
            strides16: *strides == "strides16",
            block_shape: block.split('x').map(number).collect::<Result<_, _>>()?,
            padding_nan: *padding == "nan",
        },
        [_, "int", d, value] => ArgSpec::Int { value: number(value)?, dtype: dtype(d)? },
        [_, "float", d, value] => ArgSpec::Float { value: number(value)?, dtype: dtype(d)? },
        _ => return Err(format!("malformed argument `{}`", words.join(" "))),
    };
    Ok((words[0].to_string(), arg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_form_round_trips_exactly() {
        let input = Input {
            path: "k.py".into(),
            source: "import triton\n\nsource\nconst X int 3\n".into(),
            kernel: "k".into(),
            spec: Specialization {
                args: vec![
                    ("p".into(), ArgSpec::Pointer { dtype: DType::BF16, aligned16: false }),
                    ("n".into(), ArgSpec::Int { value: -1, dtype: DType::U64 }),
                    ("s".into(), ArgSpec::Float { value: f64::NAN, dtype: DType::F32 }),
                    ("t".into(), ArgSpec::Float { value: 0.1, dtype: DType::F64 }),
                    (
                        "d".into(),
                        ArgSpec::TensorDesc {
                            dtype: DType::F16,
                            aligned16: true,
                            strides16: false,
                            block_shape: vec![64, 32],
                            padding_nan: true,
                        },
                    ),
                ],
                constexprs: vec![
                    ("A".into(), ConstValue::Int(i64::MIN)),
                    ("B".into(), ConstValue::Float(-0.0)),
                    ("C".into(), ConstValue::Bool(true)),
                    ("D".into(), ConstValue::DType(DType::F8E4M3)),
                    ("E".into(), ConstValue::Str("tf32 x3".into())),
                    ("F".into(), ConstValue::None),
                    ("G".into(), ConstValue::Float(f64::NEG_INFINITY)),
                ],
                num_warps: 8,
                num_stages: 1,
            },
            grid: [2, 1, 3],
        };
        let decoded = Input::decode(&input.encode()).unwrap();
        // NaN != NaN: compare the text forms, which print every bit that matters.
        assert_eq!(decoded.encode(), input.encode());
        assert_eq!(decoded.source, input.source);
        assert!(
            matches!(decoded.spec.constexprs[1].1, ConstValue::Float(v) if v.to_bits() == (-0.0f64).to_bits())
        );
        assert!(Input::decode("garbage").is_err());
        assert!(Input::decode(&format!("{MAGIC}\nkernel k\n")).unwrap_err().contains("source"));
    }
}
