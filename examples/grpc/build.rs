//! Generates the `Orders` service and everything it imports (the shop's
//! messages, in a package of their own), as prost-build does: naming the
//! service's file is enough. `grpc()` adds a tonic client and server per
//! service (the crate depends on `tonic` and `fastrs-tonic`);
//! `include_file` writes the module tree of the generated packages.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .include_file("protos.rs")
        .compile(&["../../proto/demo/orders.proto"], &["../../proto"])?;
    Ok(())
}
