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

/// protovalidate's `buf/validate/validate.proto` (in `proto/` at the
/// repository's root), bundled as `src/validate.pb` so that schemas import
/// it with no include directory: what the vendored protoc writes for it,
/// with source info and without its imports (the well-known set has them).
#[test]
fn bundled_validate_set_is_current() {
    let include = protoc_bin_vendored::include_path().expect("vendored includes");
    let proto = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let out = std::env::temp_dir().join(format!("fastrs-validate-{}.pb", std::process::id()));
    let status = Command::new(protoc_bin_vendored::protoc_bin_path().expect("vendored protoc"))
        .arg("-I")
        .arg(&proto)
        .arg("-I")
        .arg(&include)
        .arg("--include_source_info")
        .arg(format!("--descriptor_set_out={}", out.display()))
        .arg("buf/validate/validate.proto")
        .status()
        .expect("protoc runs");
    assert!(status.success());
    let current = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/validate.pb");
    if std::env::var_os("FASTRS_BLESS").is_some() {
        std::fs::write(&path, &current).unwrap();
    }
    assert!(
        std::fs::read(&path).ok() == Some(current),
        "{} is out of date: run `make wkt`",
        path.display()
    );
}

/// A schema imports protovalidate's rules with no include directory for
/// them, and its options compile.
#[test]
fn validate_proto_resolves_with_no_include_directory() {
    let dir = std::env::temp_dir().join(format!("fastrs-validate-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("user.proto"),
        "syntax = \"proto3\";\nimport \"buf/validate/validate.proto\";\nmessage User {\n  string email = 1 [(buf.validate.field).string.email = true];\n}\n",
    )
    .unwrap();
    let set = fastrs_compiler::Compiler::new()
        .include(&dir)
        .include_imports(true)
        .compile(&["user.proto"])
        .expect("compiles");
    let names: Vec<&str> = set.file.iter().map(|f| f.name()).collect();
    assert!(names.contains(&"buf/validate/validate.proto"), "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
