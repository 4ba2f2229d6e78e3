//! Generates Google's conformance schemas (protobuf v36.0, in
//! `shared/conformance/v36.0/` beside the repository, unmodified) with fastrs.
//! Editions files go through the vendored `protoc`; descriptors are
//! embedded for the text format. Generated twice, in
//! speed and in size mode (`protoc_gen_fastrs::Mode`).
//!
//! Without those schemas (a clone of the public repository has none) the
//! testee builds as a stub that says where to get them.

use std::path::PathBuf;

use protoc_gen_fastrs::Mode;

/// The files the v36 runner asks for, relative to the schema folder.
const SCHEMAS: [&str; 7] = [
    "conformance/conformance.proto",
    "src/google/protobuf/test_messages_proto3.proto",
    "src/google/protobuf/test_messages_proto2.proto",
    "editions/golden/test_messages_proto3_editions.proto",
    "editions/golden/test_messages_proto2_editions.proto",
    "conformance/test_protos/test_messages_edition2023.proto",
    "conformance/test_protos/test_messages_edition_unstable.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo::rustc-check-cfg=cfg(conformance_schemas)");
    println!("cargo:rerun-if-env-changed=FASTRS_SHARED");
    let shared = match std::env::var_os("FASTRS_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../../shared"),
    };
    let schemas = shared.join("conformance/v36.0");
    println!("cargo:rerun-if-changed={}", schemas.display());
    if !schemas.join(SCHEMAS[0]).exists() {
        println!("cargo:warning={}", include_str!("src/notice.txt").trim_end());
        return Ok(());
    }
    println!("cargo:rustc-cfg=conformance_schemas");
    // Both modes of generated code: the testee answers with either.
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    for (mode, folder) in [(Mode::Speed, "speed"), (Mode::Size, "size")] {
        protoc_gen_fastrs::Builder::new()
            .protoc_path(protoc_bin_vendored::protoc_bin_path()?)
            .protoc_arg("--experimental_editions")
            .include_file("mod.rs")
            .json()
            .file_descriptors()
            .views()
            .mode(mode)
            .out_dir(out.join(folder))
            .compile(
                &SCHEMAS.map(|f| schemas.join(f)),
                &[schemas.clone(), schemas.join("src")],
            )?;
    }
    Ok(())
}
