//! Generates the benchmark service with fastrs (`grpc()`, a Connect client,
//! the descriptors Connect's JSON needs), with tonic-prost-build, and with
//! connectrpc-build (buffa's messages and connectrpc's service, the peer of
//! the Connect rows).

use std::path::PathBuf;

/// The services (here) and the payloads they carry (the main bench's).
const PROTOS: [&str; 5] = [
    "../../proto/bench/page.proto",
    "../../proto/bench/wide.proto",
    "../../proto/bench/telemetry.proto",
    "proto/bench_grpc.proto",
    "../../proto/otlp/collector.proto",
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

    // connectrpc-build reads a descriptor set; its generated files go to
    // OUT_DIR itself (they include each other from there).
    let set = fastrs_compiler::Compiler::new()
        .include("../../proto")
        .include("proto")
        .include_imports(true)
        .compile(&["bench_grpc.proto"])?;
    let set_path = out.join("connectrpc.pb");
    std::fs::write(&set_path, fastrs::Message::encode_to_vec(&set))?;
    connectrpc_build::Config::new()
        .descriptor_set(&set_path)
        .files(&["bench_grpc.proto", "bench/page.proto", "bench/wide.proto"])
        .generate_json(false)
        .include_file("_connectrpc.rs")
        .compile()?;
    Ok(())
}
