//! The well-known types' files the compiler falls back to when no include
//! directory holds them (`src/well_known.pb`) are what the vendored protoc
//! writes for them, with source info. `make wkt` rewrites the file.

use std::path::Path;
use std::process::Command;

#[test]
fn well_known_set_is_current() {
    let include = protoc_bin_vendored::include_path().expect("vendored includes");
    let mut files = Vec::new();
    let mut stack = vec![include.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "proto") {
                files.push(
                    path.strip_prefix(&include)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    files.sort();
    let out = std::env::temp_dir().join(format!("fastrs-wkt-{}.pb", std::process::id()));
    let status = Command::new(protoc_bin_vendored::protoc_bin_path().expect("vendored protoc"))
        .arg("-I")
        .arg(&include)
        .arg("--include_imports")
        .arg("--include_source_info")
        .arg(format!("--descriptor_set_out={}", out.display()))
        .args(&files)
        .status()
        .expect("protoc runs");
    assert!(status.success());
    let current = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/well_known.pb");
    if std::env::var_os("FASTRS_BLESS").is_some() {
        std::fs::write(&path, &current).unwrap();
    }
    assert!(
        std::fs::read(&path).ok() == Some(current),
        "{} is out of date: run `make wkt`",
        path.display()
    );
}
