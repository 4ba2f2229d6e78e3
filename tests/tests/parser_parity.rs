//! The pure-Rust parser (the default, fastrs-compiler) and `protoc` must
//! give the generator the same descriptors, byte for byte, for every schema
//! in `proto/` (proto2, proto3 and editions), and so the same code.

use std::path::{Path, PathBuf};

use fastrs::Message as _;
use protoc_gen_fastrs::Builder;

fn protos(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            protos(&path, out);
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path);
        }
    }
}

fn all_protos() -> (PathBuf, Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let mut files = Vec::new();
    protos(&root, &mut files);
    files.sort();
    assert!(files.len() >= 5, "found the schemas: {files:?}");
    (root, files)
}

#[test]
fn pure_parser_matches_protoc() {
    let (root, files) = all_protos();
    let protoc = protoc_bin_vendored::protoc_bin_path().unwrap();
    for file in &files {
        let pure = Builder::new().parse(&[file], &[&root]).unwrap();
        let real = Builder::new().protoc_path(&protoc).parse(&[file], &[&root]).unwrap();
        assert_eq!(pure.inputs, real.inputs, "{}", file.display());
        for (a, b) in pure.set.file.iter().zip(&real.set.file) {
            assert!(
                a.encode_to_vec() == b.encode_to_vec(),
                "descriptors of {} differ from protoc's",
                a.name()
            );
        }
        assert_eq!(pure.set.file.len(), real.set.file.len(), "{}", file.display());
    }
}

/// Every schema, editions included, generates the same code through both.
#[test]
fn generated_code_matches_protoc() {
    let (root, files) = all_protos();
    let protoc = protoc_bin_vendored::protoc_bin_path().unwrap();
    for file in &files {
        let pure = Builder::new().generate(&[file], &[&root]).unwrap();
        let real = Builder::new().protoc_path(&protoc).generate(&[file], &[&root]).unwrap();
        assert_eq!(pure.len(), real.len(), "{}", file.display());
        for (a, b) in pure.iter().zip(&real) {
            assert_eq!(a.name, b.name, "{}", file.display());
            assert!(
                a.content == b.content,
                "{}: {} differs from protoc's",
                file.display(),
                a.name
            );
        }
    }
}

/// A build script returning the error with `?` prints its `Debug` form:
/// protoc's `file:line:column: message` lines, for editions too.
#[test]
fn errors_read_as_protoc_lines() {
    let dir = std::env::temp_dir().join(format!("fastrs-parity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = "edition = \"2023\";\n\nmessage A {\n  optional int32 a = 1;\n}\n";
    std::fs::write(dir.join("bad.proto"), source).unwrap();
    let error = Builder::new().parse(&[dir.join("bad.proto")], &[&dir]).unwrap_err();
    let _ = std::fs::remove_dir_all(&dir);
    let expected = "bad.proto:4:3: Label \"optional\" is not supported in editions. By default, all singular fields \
                    have presence unless features.field_presence is set.";
    assert_eq!(format!("{error:?}"), expected);
    assert_eq!(error.to_string(), expected);
}
