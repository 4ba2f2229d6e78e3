//! What the tests of protovalidate's cases share: where `../shared` is, and
//! the case schemas compiled.

use std::path::{Path, PathBuf};

use fastrs::Message;

/// `../shared` beside the repository (or `FASTRS_SHARED`), if it holds
/// protovalidate's cases.
pub fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("FASTRS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    dir.join("protovalidate").is_dir().then_some(dir)
}

/// The case schemas, compiled by fastrs: every file but the `migrate`
/// tool's fixtures.
pub fn case_set(shared: &Path) -> Vec<u8> {
    let base = shared.join("protovalidate/proto");
    let testing = base.join("protovalidate-testing");
    let mut files = Vec::new();
    let mut stack = vec![testing.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "proto") {
                let name = path
                    .strip_prefix(&testing)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if !name.starts_with("tests/migrate/") {
                    files.push(name);
                }
            }
        }
    }
    files.sort();
    let mut compiler = fastrs_compiler::Compiler::new();
    compiler
        .include(base.join("protovalidate"))
        .include(&testing)
        .include_imports(true);
    compiler
        .compile(&files)
        .expect("the case schemas compile")
        .encode_to_vec()
}
