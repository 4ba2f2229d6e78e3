//! Generates the `Catalog` service with tonic's client and server
//! (`grpc()`), a Connect client (`connect_client()`), and the encoded
//! descriptors of its file (`file_descriptors()`), by which Connect's JSON
//! is read and written.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .connect_client()
        .file_descriptors()
        .include_file("protos.rs")
        .compile(&["proto/catalog.proto"], &["proto"])?;
    Ok(())
}
