//! Generates the shop's messages and its `Orders` service: `grpc()` adds a
//! tonic client and server per service (the crate depends on `tonic` and
//! `fastrs-tonic`).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    protoc_gen_fastrs::Builder::new().grpc().compile(
        &["../../proto/demo/shop.proto", "../../proto/demo/orders.proto"],
        &["../../proto"],
    )?;
    Ok(())
}
