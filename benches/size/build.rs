//! Generates every benchmark schema in `proto/bench` in size mode.

use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let dir = Path::new("../../proto/bench");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|f| f.extension().is_some_and(|e| e == "proto"));
    files.sort();
    protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .mode(protoc_gen_fastrs::Mode::Size)
        .out_dir(&out)
        .compile(&files, &[dir])?;
    Ok(())
}
