//! Generates the conformance harness's protocol (`proto/`) with fastrs,
//! and, where `shared/protovalidate` is beside the repository (or at
//! `$FASTRS_SHARED/protovalidate`), protovalidate's case schemas with
//! `validate=true`, for the executor's generated mode, with the list of
//! their message types.
//!
//! A clone of the public repository has no `shared/`: the generated mode
//! then has no types and says so.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "../../benches/compile/src/types.rs"]
mod types;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo::rustc-check-cfg=cfg(cases)");
    println!("cargo::rerun-if-env-changed=FASTRS_SHARED");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    protoc_gen_fastrs::Builder::new()
        .mode(protoc_gen_fastrs::Mode::Size)
        .out_dir(out.join("harness"))
        .compile(&["proto/buf/validate/conformance/harness/harness.proto"], &["proto"])?;

    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let shared = std::env::var_os("FASTRS_SHARED").map_or_else(|| manifest.join("../../../shared"), PathBuf::from);
    let base = shared.join("protovalidate/proto");
    println!("cargo::rerun-if-changed={}", base.display());
    if !base.is_dir() {
        return Ok(());
    }
    println!("cargo::rustc-cfg=cases");
    cases(&base, &out.join("cases"))
}

/// The case schemas, generated with `validate=true`, and `types.rs`: a
/// `case_types!` invocation listing each message type and its Rust path.
fn cases(base: &Path, out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let testing = base.join("protovalidate-testing");
    let files = case_files(&testing)?;
    let includes = [base.join("protovalidate"), testing];
    let builder = protoc_gen_fastrs::Builder::new()
        .mode(protoc_gen_fastrs::Mode::Size)
        .validate()
        .validate_errors_at_runtime()
        .include_file("mod.rs")
        .cargo_directives(false);
    builder.clone().out_dir(out).compile(&files, &includes)?;
    let parsed = builder.parse(&files, &includes)?;
    let generated: Vec<_> = parsed
        .set
        .file
        .iter()
        .filter(|f| files.iter().any(|p| p.ends_with(f.name())))
        .collect();
    let mut list = String::from("case_types! {\n");
    for (name, path) in types::message_types(&generated) {
        let _ = writeln!(
            list,
            "    \"{}\" => crate::cases::{path};",
            name.trim_start_matches('.')
        );
    }
    list.push_str("}\n");
    std::fs::write(out.join("types.rs"), list)?;
    std::fs::write(out.join("cases.pb"), fastrs::Message::encode_to_vec(&parsed.set))?;
    Ok(())
}

/// Every case schema but the harness's own and the `migrate` tool's
/// fixtures, in a stable order.
fn case_files(testing: &Path) -> Result<Vec<PathBuf>, std::io::Error> {
    let mut files = Vec::new();
    let mut stack = vec![testing.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            let name = path
                .strip_prefix(testing)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                if !name.starts_with("tests/migrate") && !name.ends_with("harness") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "proto") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}
