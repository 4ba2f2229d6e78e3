//! Generates the conformance schemas from `../shared/conformance/` (beside the
//! repository, unmodified) with fastrs itself.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let schemas = manifest.join("../../../shared/conformance");
    if !schemas.join("conformance.proto").exists() {
        return Err(format!(
            "conformance schemas not found at {}: the testee builds from the shared/ folder beside the repository",
            schemas.display()
        )
        .into());
    }
    let files = [
        "conformance.proto",
        "test_messages_proto2.proto",
        "test_messages_proto3.proto",
    ]
    .map(|f| schemas.join(f));
    protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .json()
        .compile(&files, &[&schemas])?;
    Ok(())
}
