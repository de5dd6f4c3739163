//! The IR verifier (to be written).

use super::body::Module;

/// An internal-compiler-error description: what is wrong, in which function.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyError {
    pub function: String,
    pub message: String,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "in @{}: {}", self.function, self.message)
    }
}

/// Checks structural and type invariants of every function.
pub fn verify_module(_module: &Module) -> Result<(), VerifyError> {
    Ok(())
}
