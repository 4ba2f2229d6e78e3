//! Generates the real-world schemas of `shared/corpus` (beside the repository,
//! or `$FASTRS_SHARED/corpus`) twice: with fastrs's pure-Rust `Builder` and
//! with prost-build, the differential oracle. Also writes their descriptors
//! and the list of their message types, for the tests.
//!
//! A clone of the public repository has no `shared/`: the crate then builds
//! empty and its tests say so.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "../../benches/compile/src/types.rs"]
mod types;

/// The corpus schemas: each folder is an include root, and `<name>.files`
/// lists the files to compile.
const SOURCES: &[&str] = &["temporal-api", "grpc-proto", "onnx"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo::rustc-check-cfg=cfg(corpus)");
    println!("cargo::rerun-if-env-changed=FASTRS_SHARED");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let shared = std::env::var_os("FASTRS_SHARED").map_or_else(|| manifest.join("../../../shared"), PathBuf::from);
    let corpus = shared.join("corpus");
    println!("cargo::rerun-if-changed={}", corpus.display());
    if !corpus.join("temporal-api.files").exists() {
        return Ok(());
    }
    println!("cargo::rustc-cfg=corpus");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    for source in SOURCES {
        generate(&corpus, source, &out.join(source.replace('-', "_")))?;
    }
    Ok(())
}

fn generate(corpus: &Path, source: &str, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let include = corpus.join(source);
    let list = std::fs::read_to_string(corpus.join(format!("{source}.files")))?;
    let names: Vec<&str> = list.lines().filter(|l| !l.is_empty()).collect();
    let files: Vec<PathBuf> = names.iter().map(|f| include.join(f)).collect();

    let builder = protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .cargo_directives(false);
    builder
        .clone()
        .out_dir(out.join("fastrs"))
        .compile(&files, &[&include])?;
    let parsed = builder.parse(&files, &[&include])?;
    std::fs::write(out.join("descriptors.pb"), fastrs::Message::encode_to_vec(&parsed.set))?;

    std::fs::create_dir_all(out.join("prost"))?;
    prost_build::Config::new()
        .out_dir(out.join("prost"))
        .include_file("mod.rs")
        .protoc_executable(protoc_bin_vendored::protoc_bin_path()?)
        .compile_protos(&files, &[&include])?;

    let generated: Vec<_> = parsed.set.file.iter().filter(|f| names.contains(&f.name())).collect();
    let mut types = String::from("corpus_types! {\n");
    for (name, path) in types::message_types(&generated) {
        let _ = writeln!(types, "    \"{name}\" => {path};");
    }
    types.push_str("}\n");
    std::fs::write(out.join("types.rs"), types)?;
    Ok(())
}
