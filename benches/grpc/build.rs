//! Generates the benchmark service with fastrs (`grpc()`, a Connect client,
//! the descriptors Connect's JSON needs) and with tonic-prost-build.

use std::path::PathBuf;

/// The service (here) and the payloads it carries (the main bench's).
const PROTOS: [&str; 3] = [
    "../../proto/bench/page.proto",
    "../../proto/bench/wide.proto",
    "proto/bench_grpc.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let include = ["../../proto", "proto"];
    protoc_gen_fastrs::Builder::new()
        .grpc()
        .connect_client()
        .file_descriptors()
        .include_file("mod.rs")
        .out_dir(out.join("fastrs"))
        .compile(&PROTOS, &include)?;
    let prost_out = out.join("prost");
    std::fs::create_dir_all(&prost_out)?;
    let mut config = prost_build::Config::new();
    config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    tonic_prost_build::configure()
        .out_dir(&prost_out)
        .include_file("mod.rs")
        .compile_with_config(config, &PROTOS, &include)?;
    Ok(())
}
