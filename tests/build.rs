//! Generates the test schemas twice: with fastrs (pure-Rust parser) and with
//! prost-build (the differential oracle), and saves their descriptors for the
//! random message generator.

use std::path::PathBuf;

const PROTOS: &[&str] = &[
    "../proto/test/types.proto",
    "../proto/test/other.proto",
    "../proto/test/rootless.proto",
    "../proto/test/proto2.proto",
    "../proto/test/options.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let builder = protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .json()
        .file_descriptors();
    builder
        .clone()
        .out_dir(out.join("fastrs"))
        .compile(PROTOS, &["../proto"])?;

    let parsed = builder.parse(PROTOS, &["../proto"])?;
    std::fs::write(out.join("descriptors.pb"), fastrs::Message::encode_to_vec(&parsed.set))?;

    std::fs::create_dir_all(out.join("prost"))?;
    prost_build::Config::new()
        .out_dir(out.join("prost"))
        .include_file("mod.rs")
        .protoc_executable(protoc_bin_vendored::protoc_bin_path()?)
        .compile_protos(PROTOS, &["../proto"])?;

    // A map hasher other than std's (this one needs no extra dependency).
    protoc_gen_fastrs::Builder::new()
        .map_hasher("::std::hash::BuildHasherDefault<::std::collections::hash_map::DefaultHasher>")?
        .out_dir(out.join("hashed"))
        .compile(&["../proto/golden/golden.proto"], &["../proto"])?;

    // Deprecated items everywhere: compiled with `deny(warnings)`.
    protoc_gen_fastrs::Builder::new()
        .json()
        .out_dir(out.join("warnings"))
        .include_file("mod.rs")
        .compile(
            &[
                "../proto/warnings/deprecated.proto",
                "../proto/warnings/deprecated2.proto",
            ],
            &["../proto"],
        )?;

    // Editions go through protoc: the pure-Rust parser does not read them yet.
    protoc_gen_fastrs::Builder::new()
        .protoc_path(protoc_bin_vendored::protoc_bin_path()?)
        .out_dir(out.join("editions"))
        .compile(&["../proto/editions/editions.proto"], &["../proto"])?;
    Ok(())
}
