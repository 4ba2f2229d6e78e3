//! Generates the sign-up service with validation: `validate()` implements
//! `fastrs::validate::Validate` for every message from its `buf.validate`
//! rules (`buf/validate/validate.proto` is bundled: no include directory
//! needed), and makes the gRPC server refuse, and the client not send,
//! requests that break them. `file_descriptors()` lets the same types be
//! validated as `DynamicMessage`s.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .validate()
        .file_descriptors()
        .include_file("protos.rs")
        .compile(&["../../proto/demo/signup.proto"], &["../../proto"])?;
    Ok(())
}
