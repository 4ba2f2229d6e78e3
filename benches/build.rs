//! Generates the benchmark schemas with fastrs, prost-build and buffa-build.

use std::path::{Path, PathBuf};

/// The workloads' schemas in `proto/bench`; `fastpb_testcase.proto` is
/// fastpb's own benchmark schema, copied with its origin noted at its top.
const OWN: &[&str] = &[
    "ints.proto",
    "unpacked.proto",
    "go.proto",
    "nested.proto",
    "wide.proto",
    "page.proto",
    "telemetry.proto",
    "fastpb_testcase.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let own_dir = Path::new("../proto/bench");
    let files: Vec<PathBuf> = OWN.iter().map(|f| own_dir.join(f)).collect();
    let includes = [own_dir];

    protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .json()
        .views()
        .out_dir(out.join("fastrs"))
        .compile(&files, &includes)?;
    // The workloads with `bytes` fields again, those held as `bytes::Bytes`.
    protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .bytes(["."])?
        .out_dir(out.join("fastrs_shared"))
        .compile(
            &[
                own_dir.join("wide.proto"),
                own_dir.join("fastpb_testcase.proto"),
                own_dir.join("telemetry.proto"),
            ],
            &includes,
        )?;
    // The map workloads again with buffa's hasher, for like-for-like rows.
    protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .map_hasher("::foldhash::fast::RandomState")?
        .out_dir(out.join("fastrs_foldhash"))
        .compile(
            &[own_dir.join("wide.proto"), own_dir.join("fastpb_testcase.proto")],
            &includes,
        )?;

    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::fs::create_dir_all(out.join("prost"))?;
    let descriptors = out.join("prost/descriptors.bin");
    prost_build::Config::new()
        .out_dir(out.join("prost"))
        .include_file("mod.rs")
        .file_descriptor_set_path(&descriptors)
        .protoc_executable(&protoc)
        .compile_protos(&files, &includes)?;
    prost_json(&out.join("prost"), &std::fs::read(&descriptors)?)?;

    // quick-protobuf's pb-rs (borrowed messages, its own parser).
    let qp_out = out.join("quick");
    std::fs::create_dir_all(&qp_out)?;
    let qp_includes: Vec<PathBuf> = includes.iter().map(|p| p.to_path_buf()).collect();
    let config = pb_rs::ConfigBuilder::new(&files, None, Some(&qp_out), &qp_includes)
        .map_err(|e| format!("pb-rs: {e:?}"))?
        .dont_use_cow(false)
        .build();
    pb_rs::types::FileDescriptor::run(&config).map_err(|e| format!("pb-rs: {e:?}"))?;
    // pb-rs writes a tree of `mod x;` files; inline it into one includable file.
    std::fs::write(out.join("quick.rs"), inline_modules(&qp_out.join("mod.rs"))?)?;

    // buffa-build finds protoc through $PROTOC.
    std::env::set_var("PROTOC", &protoc);
    std::fs::create_dir_all(out.join("buffa"))?;
    buffa_build::Config::new()
        .files(&files)
        .includes(&includes)
        .out_dir(out.join("buffa"))
        .include_file("mod.rs")
        .compile()?;
    Ok(())
}

/// pbjson's serde impls for the prost types of the JSON rows, included at the
/// end of each package's prost file (they name the types unqualified).
fn prost_json(dir: &Path, descriptors: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
    const PACKAGES: [&str; 2] = ["bench.ints", "bench.go"];
    pbjson_build::Builder::new()
        .register_descriptors(descriptors)?
        .out_dir(dir)
        .build(&PACKAGES.map(|p| format!(".{p}")))?;
    for package in PACKAGES {
        let path = dir.join(format!("{package}.rs"));
        let mut code = std::fs::read_to_string(&path)?;
        code.push_str(&format!("include!(\"{package}.serde.rs\");\n"));
        std::fs::write(&path, code)?;
    }
    Ok(())
}

/// The file at `path` with each `pub mod x;` replaced by the inlined module
/// (`x.rs` or `x/mod.rs` beside it) and inner attributes dropped, so the tree
/// can be `include!`d.
fn inline_modules(path: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let dir = path.parent().ok_or("no parent")?;
    let mut out = String::new();
    for line in std::fs::read_to_string(path)?.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("#![") {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix("pub mod ").and_then(|r| r.strip_suffix(';')) {
            let file = dir.join(format!("{name}.rs"));
            let inner = if file.exists() {
                file
            } else {
                dir.join(name).join("mod.rs")
            };
            out.push_str(&format!("pub mod {name} {{\n{}\n}}\n", inline_modules(&inner)?));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}
