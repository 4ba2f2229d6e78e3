//! Loading `.proto` files into descriptors: in pure Rust with
//! fastrs-compiler (the default, no `protoc` needed), or by running `protoc`.

use std::path::{Path, PathBuf};
use std::process::Command;

use fastrs::descriptor::FileDescriptorSet;
use fastrs::Message as _;

use crate::Error;

/// Parsed schemas: every file with its imports, and the names of the input files
/// as the descriptors spell them (relative to their include directory).
#[derive(Debug, Clone)]
pub struct Parsed {
    /// All files, imports first, with every option (custom ones in their
    /// `unknown_fields`) and source info.
    pub set: FileDescriptorSet,
    /// The inputs' descriptor names.
    pub inputs: Vec<String>,
}

/// Parses `files` in pure Rust (fastrs-compiler), with source info (for
/// doc comments): the same descriptors protoc gives, editions included.
///
/// # Errors
/// Unreadable files and schema errors, as `file:line:column: message` lines.
#[cfg(feature = "pure")]
pub fn parse_pure(files: &[PathBuf], includes: &[PathBuf]) -> Result<Parsed, Error> {
    let mut compiler = fastrs_compiler::Compiler::new();
    for include in includes {
        compiler.include(include);
    }
    compiler.include_source_info(true).include_imports(true);
    // In the caller's order, as protoc lists them: generated items follow it.
    let inputs: Vec<String> = files.iter().map(|f| descriptor_name(f, includes)).collect();
    let set = compiler.compile(&inputs).map_err(|e| Error {
        messages: e.diagnostics().iter().map(ToString::to_string).collect(),
    })?;
    Ok(Parsed { set, inputs })
}

/// Parses `files` by running `protoc` (with `--include_imports --include_source_info`
/// and the caller's `args`, such as `--experimental_editions`).
///
/// # Errors
/// `protoc` cannot be run, or reports schema errors (its output is passed on).
pub fn parse_protoc(protoc: &Path, args: &[String], files: &[PathBuf], includes: &[PathBuf]) -> Result<Parsed, Error> {
    let out = std::env::temp_dir().join(format!("fastrs-{}-{}.pb", std::process::id(), unique()));
    let mut cmd = Command::new(protoc);
    cmd.args(args)
        .arg("--include_imports")
        .arg("--include_source_info")
        .arg(format!("--descriptor_set_out={}", out.display()));
    for include in includes {
        cmd.arg(format!("-I{}", include.display()));
    }
    cmd.args(files);
    let output = cmd
        .output()
        .map_err(|e| Error::new(format!("cannot run protoc at `{}`: {e}", protoc.display())))?;
    if !output.status.success() {
        return Err(Error::new(format!(
            "protoc failed:\n{}",
            String::from_utf8_lossy(&output.stderr).trim_end()
        )));
    }
    let bytes = std::fs::read(&out).map_err(|e| Error::new(format!("cannot read protoc output: {e}")))?;
    let _ = std::fs::remove_file(&out);
    let set = decode_set(&bytes, "protoc")?;
    let inputs = files.iter().map(|f| descriptor_name(f, includes)).collect();
    Ok(Parsed { set, inputs })
}

fn decode_set(bytes: &[u8], parser: &str) -> Result<FileDescriptorSet, Error> {
    FileDescriptorSet::decode(bytes).map_err(|e| Error::new(format!("{parser}'s descriptors do not decode: {e}")))
}

/// The name protoc gives an input file: its path relative to the first include
/// directory that holds it.
fn descriptor_name(file: &Path, includes: &[PathBuf]) -> String {
    let relative = includes
        .iter()
        .find_map(|inc| file.strip_prefix(inc).ok())
        .unwrap_or(file);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
