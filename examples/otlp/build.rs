//! Generates the trace service (a tonic server and client, `grpc()`) and
//! the export messages it imports.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .include_file("protos.rs")
        .compile(&["../../proto/otlp/collector.proto"], &["../../proto"])?;
    Ok(())
}
