//! Generates gRPC's interop schemas (`proto/grpc/testing/`) twice: with
//! fastrs (messages, tonic services and Connect clients; `bytes` fields as
//! `bytes::Bytes`, sliced from the received frames) and with
//! tonic-prost-build (the other side in the interop tests); and the
//! sign-up service of `proto/demo/signup.proto` with validation.

use std::path::PathBuf;

const PROTOS: [&str; 3] = [
    "proto/grpc/testing/empty.proto",
    "proto/grpc/testing/messages.proto",
    "proto/grpc/testing/test.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .connect_client()
        .file_descriptors()
        .views()
        .bytes(["."])?
        .out_dir(out.join("fastrs"))
        .compile(&PROTOS, &["proto"])?;

    // A service whose requests carry protovalidate rules: served beside
    // TestService, refusing invalid requests over each protocol.
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .connect_client()
        .validate()
        .file_descriptors()
        .out_dir(out.join("signup"))
        .compile(&["../proto/demo/signup.proto"], &["../proto"])?;

    let prost_out = out.join("prost");
    std::fs::create_dir_all(&prost_out)?;
    let mut config = prost_build::Config::new();
    config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    tonic_prost_build::configure()
        .out_dir(&prost_out)
        .compile_with_config(config, &PROTOS, &["proto"])?;
    Ok(())
}
