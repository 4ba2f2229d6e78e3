//! Generates `proto/demo/signup.proto` for each side: fastrs with
//! `validate=true`; buffa's types and protovalidate-buffa's validators (its
//! plugin's code generator, called as a library on protoc's descriptors);
//! and the descriptor set prost-reflect and prost-protovalidate read.

use std::path::{Path, PathBuf};

use buffa::Message as _;
use buffa_codegen::generated::compiler::CodeGeneratorRequest;
use buffa_codegen::generated::descriptor::FileDescriptorSet;

const SCHEMA: &str = "demo/signup.proto";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let root = Path::new("../../proto");
    let file = root.join(SCHEMA);
    println!("cargo::rerun-if-changed={}", file.display());

    protoc_gen_fastrs::Builder::new()
        .validate()
        .file_descriptors()
        .out_dir(out.join("fastrs"))
        .compile(&[&file], &[root])?;

    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    let set_path = out.join("signup.pb");
    let status = std::process::Command::new(&protoc)
        .arg("-I")
        .arg(root)
        .arg("-I")
        .arg(protoc_bin_vendored::include_path()?)
        .args(["--include_imports", "--include_source_info", "-o"])
        .arg(&set_path)
        .arg(SCHEMA)
        .status()?;
    if !status.success() {
        return Err("protoc failed".into());
    }

    // buffa-build finds protoc through $PROTOC.
    std::env::set_var("PROTOC", &protoc);
    std::fs::create_dir_all(out.join("buffa"))?;
    buffa_build::Config::new()
        .files(&[&file])
        .includes(&[root])
        .out_dir(out.join("buffa"))
        .include_file("mod.rs")
        .compile()?;

    let set = FileDescriptorSet::decode_from_slice(&std::fs::read(&set_path)?)?;
    let request = CodeGeneratorRequest {
        file_to_generate: vec![SCHEMA.into()],
        proto_file: set.file,
        parameter: Some("packaging=false,file_per_package=true".into()),
        ..Default::default()
    };
    let validators = protoc_gen_protovalidate_buffa::scan::gather(&request)?;
    let options = protoc_gen_protovalidate_buffa::emit::Options {
        packaging: false,
        file_per_package: true,
        ..Default::default()
    };
    for file in protoc_gen_protovalidate_buffa::emit::render_with_options(&validators, &options)? {
        let name = file.name.ok_or("an unnamed file")?;
        std::fs::write(out.join("buffa").join(name), file.content.unwrap_or_default())?;
    }
    Ok(())
}
