//! Generates Rust for `proto/demo/shop.proto` with the pure-Rust parser: no
//! `protoc` needed. `json()` adds proto3 JSON support.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    protoc_gen_fastrs::Builder::new()
        .json() // proto3 JSON through serde (needs fastrs's `json` feature)
        .views() // zero-copy `OrderView<'a>` beside `Order`
        .compile(&["../../proto/demo/shop.proto"], &["../../proto"])?;
    Ok(())
}
