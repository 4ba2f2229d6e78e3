//! The pure-Rust parser (the default) and `protoc` must give the generator the
//! same descriptors for every schema in `proto/`.

use std::path::{Path, PathBuf};

use fastrs::descriptor::FileDescriptorSet;
use protoc_gen_fastrs::Builder;

fn protos(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        // protox does not read editions yet; they go through protoc only.
        let is_editions = std::fs::read_to_string(&path)
            .is_ok_and(|text| text.lines().any(|l| l.trim_start().starts_with("edition ")));
        if path.ends_with("editions") || is_editions {
            continue;
        }
        if path.is_dir() {
            protos(&path, out);
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path);
        }
    }
}

/// Drops what the two legitimately spell differently: source locations (spans
/// and comment attachment of detached comments), which the generator reads only
/// for leading and trailing comments, compared separately below.
/// Float defaults are spelled differently (`9e+09` by protoc, `9000000000` by
/// protox); compare their values.
fn canonical_float_defaults(m: &mut fastrs::descriptor::DescriptorProto) {
    use fastrs::descriptor::field_descriptor_proto::Type;
    for f in &mut m.field {
        if matches!(f.r#type(), Type::Float | Type::Double) {
            if let Some(v) = f.default_value.as_mut().and_then(|d| d.parse::<f64>().ok()) {
                f.default_value = Some(format!("{v:?}").into());
            }
        }
    }
    m.nested_type.iter_mut().for_each(canonical_float_defaults);
}

type Comments = Vec<(String, Vec<i32>, Option<String>, Option<String>)>;

fn normalise(mut set: FileDescriptorSet) -> (FileDescriptorSet, Comments) {
    let mut comments = Vec::new();
    // protox and protoc each bring their own copy of protobuf's files
    // (descriptor.proto of different releases); compare the project's.
    set.file.retain(|f| !f.name().starts_with("google/protobuf/"));
    set.file.sort_by(|a, b| a.name().cmp(b.name()));
    for file in &mut set.file {
        file.message_type.iter_mut().for_each(canonical_float_defaults);
        if let Some(info) = file.source_code_info.take() {
            for loc in info.location {
                if loc.leading_comments.is_some() || loc.trailing_comments.is_some() {
                    comments.push((
                        file.name().to_string(),
                        loc.path,
                        loc.leading_comments.map(|c| c.to_string()),
                        loc.trailing_comments.map(|c| c.to_string()),
                    ));
                }
            }
        }
    }
    comments.sort();
    (set, comments)
}

#[test]
fn pure_parser_matches_protoc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
    let mut files = Vec::new();
    protos(&root, &mut files);
    files.sort();
    assert!(files.len() >= 5, "found the schemas: {files:?}");
    let protoc = protoc_bin_vendored::protoc_bin_path().unwrap();
    for file in &files {
        let pure = Builder::new().parse(&[file], &[&root]).unwrap();
        let real = Builder::new().protoc_path(&protoc).parse(&[file], &[&root]).unwrap();
        assert_eq!(pure.inputs, real.inputs, "{}", file.display());
        let (pure_set, pure_comments) = normalise(pure.set);
        let (real_set, real_comments) = normalise(real.set);
        if pure_set != real_set {
            let (a, b) = (format!("{pure_set:#?}"), format!("{real_set:#?}"));
            let diff = a.lines().zip(b.lines()).enumerate().find(|(_, (x, y))| x != y);
            panic!(
                "descriptors of {} differ (pure, protoc) at line {diff:?}",
                file.display()
            );
        }
        assert_eq!(pure_comments, real_comments, "comments of {}", file.display());
    }
}
