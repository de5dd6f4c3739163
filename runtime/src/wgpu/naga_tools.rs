//! naga on the backend's portable SPIR-V: validation, and translation to WGSL (for Metal, DX12
//! and WebGPU, which take WGSL or naga's own IR rather than SPIR-V).

/// Parses and validates `words` with naga; the module and its validation info.
fn parse(words: &[u32]) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let options = naga::front::spv::Options::default();
    let module = naga::front::spv::parse_u8_slice(&bytes, &options)
        .map_err(|e| format!("naga cannot read the SPIR-V: {e}"))?;
    let mut validator =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
    let info = validator
        .validate(&module)
        .map_err(|e| format!("naga rejects the module: {}", e.emit_to_string("")))?;
    Ok((module, info))
}

/// Checks that naga accepts the module (the contract of the backend's portable mode).
pub fn validate_portable(words: &[u32]) -> Result<(), String> {
    parse(words).map(|_| ())
}

/// The module as WGSL.
pub fn to_wgsl(words: &[u32]) -> Result<String, String> {
    let (module, info) = parse(words)?;
    naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
        .map_err(|e| format!("naga cannot write WGSL: {e}"))
}
