//! Generates the benchmark schemas with fastrs, prost-build and buffa-build.

use std::path::{Path, PathBuf};

const OWN: &[&str] = &["ints.proto", "go.proto", "nested.proto", "wide.proto"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let own_dir = Path::new("../proto/bench");
    let shared_dir = Path::new("../../shared/bench");
    let mut files: Vec<PathBuf> = OWN.iter().map(|f| own_dir.join(f)).collect();
    files.push(shared_dir.join("fastpb_testcase.proto"));
    let includes = [own_dir, shared_dir];

    protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .out_dir(out.join("fastrs"))
        .compile(&files, &includes)?;

    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::fs::create_dir_all(out.join("prost"))?;
    prost_build::Config::new()
        .out_dir(out.join("prost"))
        .include_file("mod.rs")
        .protoc_executable(&protoc)
        .compile_protos(&files, &includes)?;

    // buffa-build finds protoc through $PROTOC.
    std::env::set_var("PROTOC", &protoc);
    std::fs::create_dir_all(out.join("buffa"))?;
    buffa_build::Config::new()
        .files(&files)
        .includes(&includes)
        .out_dir(out.join("buffa"))
        .include_file("mod.rs")
        .compile()?;
    Ok(())
}
