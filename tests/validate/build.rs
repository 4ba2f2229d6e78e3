//! Generates the conformance harness's protocol (`proto/`) with fastrs.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    protoc_gen_fastrs::Builder::new()
        .mode(protoc_gen_fastrs::Mode::Size)
        .out_dir(out.join("harness"))
        .compile(&["proto/buf/validate/conformance/harness/harness.proto"], &["proto"])?;
    Ok(())
}
