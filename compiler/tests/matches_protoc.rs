//! The compiler's output equals protoc's byte for byte: every schema of the
//! project, the well-known types, and (with `../shared` beside the
//! checkout) the corpus and the conformance schemas, each compiled by the
//! vendored protoc and by fastrs-compiler with `--include_imports`.

use std::path::{Path, PathBuf};
use std::process::Command;

use fastrs::descriptor as d;
use fastrs::Message;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The encoded set protoc writes for `files` under `includes`.
fn protoc(includes: &[PathBuf], files: &[String], source_info: bool) -> Vec<u8> {
    let out = std::env::temp_dir().join(format!("fastrs-compiler-{}-{}.pb", std::process::id(), rand_suffix()));
    let mut command = Command::new(protoc_bin_vendored::protoc_bin_path().expect("vendored protoc"));
    for include in includes {
        command.arg("-I").arg(include);
    }
    command
        .arg("-I")
        .arg(protoc_bin_vendored::include_path().expect("vendored includes"));
    command
        .arg("--include_imports")
        .arg(format!("--descriptor_set_out={}", out.display()));
    if source_info {
        command.arg("--include_source_info");
    }
    command.args(files);
    let output = command.output().expect("protoc runs");
    assert!(
        output.status.success(),
        "protoc failed on {files:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(&out).expect("protoc's output");
    let _ = std::fs::remove_file(out);
    bytes
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Compiles `files` both ways and reports the first file that differs,
/// printed in text format, as a failure message.
fn compare(includes: &[PathBuf], files: &[String], source_info: bool) -> Result<(), String> {
    let expected = protoc(includes, files, source_info);
    let mut compiler = fastrs_compiler::Compiler::new();
    for include in includes {
        compiler.include(include);
    }
    compiler.include(protoc_bin_vendored::include_path().expect("vendored includes"));
    compiler.include_imports(true).include_source_info(source_info);
    let set = compiler.compile(files).map_err(|e| format!("{files:?}: {e}"))?;
    let actual = set.encode_to_vec();
    if actual == expected {
        return Ok(());
    }
    let expected = d::FileDescriptorSet::decode(&expected).expect("protoc's set decodes");
    let names = |s: &d::FileDescriptorSet| {
        s.file
            .iter()
            .map(|f| f.name.as_deref().unwrap_or("").to_owned())
            .collect::<Vec<_>>()
    };
    if names(&expected) != names(&set) {
        return Err(format!(
            "files differ: protoc {:?}, fastrs {:?}",
            names(&expected),
            names(&set)
        ));
    }
    for (want, got) in expected.file.iter().zip(&set.file) {
        if want.encode_to_vec() != got.encode_to_vec() {
            let name = got.name.as_deref().unwrap_or("").to_owned();
            let want = fastrs::text::to_string_pretty(want);
            let got = fastrs::text::to_string_pretty(got);
            return Err(format!("{name}: differs\n{}", first_difference(&want, &got)));
        }
    }
    Err("sets differ outside their files".into())
}

/// The lines around the first line where two texts differ.
fn first_difference(want: &str, got: &str) -> String {
    let want: Vec<&str> = want.lines().collect();
    let got: Vec<&str> = got.lines().collect();
    let at = want
        .iter()
        .zip(&got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let from = at.saturating_sub(8);
    let mut out = String::new();
    for line in &want[from..(at + 4).min(want.len())] {
        out += &format!("  protoc | {line}\n");
    }
    for line in &got[from..(at + 4).min(got.len())] {
        out += &format!("  fastrs | {line}\n");
    }
    out
}

/// The `.proto` files under `dir`, relative to it, sorted.
fn protos_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "proto") {
                out.push(path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// Each file compiled on its own, without and with source info.
fn check_each(includes: &[PathBuf], files: &[String]) {
    let failures: Vec<String> = [false, true]
        .into_iter()
        .flat_map(|info| {
            files
                .iter()
                .filter_map(move |f| compare(includes, std::slice::from_ref(f), info).err())
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} files differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn project_schemas() {
    let proto = root().join("proto");
    let files = protos_under(&proto);
    check_each(&[proto], &files);
}

/// Corners of every syntax (defaults of every type, escapes, groups in
/// oneofs and extensions, aggregate options, visibility, option imports,
/// edition 2026...), written for this test.
#[test]
fn corner_schemas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas");
    let files: Vec<String> = protos_under(&dir)
        .into_iter()
        .filter(|f| !f.ends_with("dep.proto") && !f.ends_with("weak.proto"))
        .collect();
    check_each(&[dir], &files);
}

#[test]
fn well_known_types() {
    let include = protoc_bin_vendored::include_path().expect("vendored includes");
    check_each(&[], &protos_under(&include));
}

fn shared() -> Option<PathBuf> {
    let shared = std::env::var_os("FASTRS_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared"));
    if shared.join("corpus").is_dir() {
        Some(shared)
    } else {
        eprintln!("no ../shared: corpus and conformance schemas not compared");
        None
    }
}

#[test]
fn corpus() {
    let Some(shared) = shared() else { return };
    for source in ["grpc-proto", "onnx", "temporal-api"] {
        let corpus = shared.join("corpus");
        let list = std::fs::read_to_string(corpus.join(format!("{source}.files"))).expect("manifest");
        let files: Vec<String> = list.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect();
        check_each(&[corpus.join(source)], &files);
    }
}

#[test]
fn conformance_schemas() {
    let Some(shared) = shared() else { return };
    let v36 = shared.join("conformance/v36.0");
    check_each(&[v36.join("src")], &protos_under(&v36.join("src")));
    check_each(
        std::slice::from_ref(&v36),
        &protos_under(&v36.join("conformance"))
            .iter()
            .map(|f| format!("conformance/{f}"))
            .collect::<Vec<_>>(),
    );
    check_each(
        &[v36.join("editions/golden")],
        &protos_under(&v36.join("editions/golden")),
    );
}

/// protovalidate's conformance case schemas (proto2, proto3, edition 2023;
/// `buf.validate` options of every kind, predefined-rule extensions, and
/// the annotated cases' aggregate `test_cases` options).
#[test]
fn protovalidate_schemas() {
    let Some(shared) = shared() else { return };
    let base = shared.join("protovalidate/proto");
    let testing = base.join("protovalidate-testing");
    let files: Vec<String> = protos_under(&testing)
        .into_iter()
        .filter(|f| !f.starts_with("tests/migrate/"))
        .collect();
    check_each(&[base.join("protovalidate"), testing], &files);
}
