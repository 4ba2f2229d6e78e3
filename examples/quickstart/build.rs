//! Generates Rust for `proto/demo/shop.proto` with the pure-Rust parser: no
//! `protoc` needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    protoc_gen_fastrs::Builder::new().compile(&["../../proto/demo/shop.proto"], &["../../proto"])?;
    Ok(())
}
