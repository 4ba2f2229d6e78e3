//! The schemas the guides use (`proto/demo`), generated with every option
//! they show; and the gRPC example's service by tonic-prost-build too, for
//! the prost side of the migration guide.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let protos = [
        "../../proto/demo/orders.proto",
        "../../proto/demo/attachment.proto",
        "../../proto/demo/legacy.proto",
    ];
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .json()
        .views()
        .file_descriptors()
        .bytes([".acme.shop.v1.Attachment"])?
        .include_file("protos.rs")
        .out_dir(out.join("fastrs"))
        .compile(&protos, &["../../proto"])?;

    // The validation guide's schema, with validation and its service.
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .validate()
        .file_descriptors()
        .include_file("signup.rs")
        .out_dir(out.join("signup"))
        .compile(&["../../proto/demo/signup.proto"], &["../../proto"])?;

    let prost_out = out.join("prost");
    std::fs::create_dir_all(&prost_out)?;
    let mut config = prost_build::Config::new();
    config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    tonic_prost_build::configure()
        .out_dir(&prost_out)
        .include_file("protos.rs")
        .compile_with_config(config, &["../../proto/demo/orders.proto"], &["../../proto"])?;
    Ok(())
}
