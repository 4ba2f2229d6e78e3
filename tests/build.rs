//! Generates the test schemas with fastrs (pure-Rust parser; in speed mode
//! and in size mode) and with prost-build (the differential oracle), and
//! saves their descriptors for the random message generator.

use std::path::PathBuf;

use protoc_gen_fastrs::Mode;

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
        .views()
        .file_descriptors();
    builder
        .clone()
        .out_dir(out.join("fastrs"))
        .compile(PROTOS, &["../proto"])?;

    // The same schemas in size mode (out-of-line codecs), tested alike.
    builder
        .clone()
        .mode(Mode::Size)
        .out_dir(out.join("size"))
        .compile(PROTOS, &["../proto"])?;

    // `bytes` fields as `bytes::Bytes`, sliced from a shared input.
    builder
        .clone()
        .bytes(["."])?
        .out_dir(out.join("shared"))
        .compile(&PROTOS[..3], &["../proto"])?;

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

    // Deprecated items everywhere: compiled with `deny(warnings)`, in both modes.
    for (mode, folder) in [(Mode::Speed, "warnings"), (Mode::Size, "warnings_size")] {
        protoc_gen_fastrs::Builder::new()
            .json()
            .mode(mode)
            .out_dir(out.join(folder))
            .include_file("mod.rs")
            .compile(
                &[
                    "../proto/warnings/deprecated.proto",
                    "../proto/warnings/deprecated2.proto",
                ],
                &["../proto"],
            )?;
    }

    // Validation (`validate=true`) of the sign-up schema, in both modes,
    // with views.
    for (mode, folder) in [(Mode::Speed, "validate"), (Mode::Size, "validate_size")] {
        protoc_gen_fastrs::Builder::new()
            .validate()
            .views()
            .file_descriptors()
            .mode(mode)
            .out_dir(out.join(folder))
            .include_file("mod.rs")
            .compile(&["../proto/demo/signup.proto"], &["../proto"])?;
    }

    // Edition 2023 through protoc's descriptors, and edition 2026 through the
    // pure-Rust parser (the plugin's tests check that both ways generate the
    // same code).
    protoc_gen_fastrs::Builder::new()
        .protoc_path(protoc_bin_vendored::protoc_bin_path()?)
        .out_dir(out.join("editions"))
        .compile(&["../proto/editions/editions.proto"], &["../proto"])?;
    protoc_gen_fastrs::Builder::new()
        .json()
        .out_dir(out.join("editions"))
        .compile(&["../proto/editions/edition2026.proto"], &["../proto"])?;
    Ok(())
}
