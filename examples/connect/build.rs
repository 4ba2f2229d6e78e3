//! Generates the `Catalog` service with tonic's client and server
//! (`grpc()`) and the encoded descriptors of its file
//! (`file_descriptors()`), by which the Connect layer reads and writes JSON.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .file_descriptors()
        .include_file("protos.rs")
        .compile(&["proto/catalog.proto"], &["proto"])?;
    Ok(())
}
