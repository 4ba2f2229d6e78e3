//! End to end: the real `protoc` runs the built plugin on the project's
//! schemas, and the output compiles and round-trips in a fresh crate.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn protoc(out: &Path, opts: &str, files: &[&str]) -> std::process::Output {
    let protoc = protoc_bin_vendored::protoc_bin_path().unwrap();
    let mut cmd = Command::new(protoc);
    cmd.arg(format!(
        "--plugin=protoc-gen-fastrs={}",
        env!("CARGO_BIN_EXE_protoc-gen-fastrs")
    ))
    .arg(format!("--fastrs_out={}", out.display()))
    .arg(format!("-I{}", root().join("proto").display()));
    if !opts.is_empty() {
        cmd.arg(format!("--fastrs_opt={opts}"));
    }
    cmd.args(files).current_dir(root().join("proto")).output().unwrap()
}

/// A fresh directory for one test, unique per process so concurrent test runs
/// cannot remove each other's files.
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/e2e").join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const MAIN: &str = r#"
#[allow(dead_code)]
mod protos {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/gen/mod.rs"));
}
use fastrs::Message;
use protos::fastrs::test::{Everything, Scalars, Tree};

fn main() {
    let m = Everything {
        scalars: Some(Scalars { f_string: "e2e".into(), f_sint64: -9, ..Default::default() }),
        tree: Some(Tree { left: Some(Box::new(Tree { value: 3, ..Default::default() })), ..Default::default() }),
        ..Default::default()
    };
    let bytes = m.encode_to_vec();
    assert_eq!(Everything::decode(&bytes).unwrap(), m);
    let order = protos::acme::shop::v1::Order { id: 1, ..Default::default() };
    assert_eq!(order.encode_to_vec(), [0x08, 0x01]);
    // json=json: the JSON code is there under this crate's `json` feature.
    assert_eq!(fastrs::json::to_string(&order).unwrap(), "{\"id\":\"1\"}");
    let back: Everything = fastrs::json::from_str(&fastrs::json::to_string(&m).unwrap()).unwrap();
    assert_eq!(back, m);
    // descriptors=true: each message names its package's descriptors.
    use fastrs::descriptor::FileDescriptorSet;
    use fastrs::Described;
    let set = FileDescriptorSet::decode(<Everything as Described>::FILE_DESCRIPTOR_SET).unwrap();
    assert_eq!(set.file.len(), 1);
    let everything = set.file[0].message_type.iter().find(|m| m.name() == "Everything");
    assert!(everything.is_some());
    let outer = set.file[0].message_type.iter().find(|m| m.name() == "Outer").unwrap();
    assert!(outer.nested_type.iter().any(|m| m.name() == "Inner"));
    assert_eq!(<protos::fastrs::test::outer::Inner as Described>::FILE_DESCRIPTOR_SET, protos::fastrs::test::FILE_DESCRIPTOR_SET);
    println!("e2e ok {}", bytes.len());
}
"#;

/// Writes the manifest of scratch crate `name` in `dir` (fastrs with its
/// `descriptor` feature, then `extra` manifest lines) and runs `cargo args`
/// there, sharing one target directory across the end-to-end crates.
fn cargo(dir: &Path, name: &str, extra: &str, args: &[&str]) -> std::process::Output {
    cargo_with_features(dir, name, &["descriptor"], extra, args)
}

/// As [`cargo`], with fastrs's `features` (none: the README's dependency line).
fn cargo_with_features(dir: &Path, name: &str, features: &[&str], extra: &str, args: &[&str]) -> std::process::Output {
    let runtime = root().join("runtime").display().to_string();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\nfastrs = {{ path = {runtime:?}, features = {features:?} }}\n\n{extra}\n[workspace]\n"
        ),
    )
    .unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    Command::new(cargo)
        .args(args)
        .env("CARGO_TARGET_DIR", root().join("target/e2e/target"))
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The schemas the end-to-end crates are generated from.
const E2E_FILES: &[&str] = &[
    "test/types.proto",
    "test/other.proto",
    "test/rootless.proto",
    "test/options.proto",
    "demo/shop.proto",
];

/// Runs `protoc` with the plugin and `opts` into `dir/src/gen`, checks that
/// it wrote `expected`, then builds and runs a crate whose `main.rs`
/// (`MAIN`) includes `gen/mod.rs` and round-trips messages of every package.
fn generate_build_and_run(dir: &Path, opts: &str, expected: &[&str]) {
    let gen = dir.join("src/gen");
    std::fs::create_dir_all(&gen).unwrap();
    let out = protoc(&gen, opts, E2E_FILES);
    assert!(
        out.status.success(),
        "protoc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in expected {
        assert!(gen.join(name).exists(), "{name} written");
    }
    std::fs::write(dir.join("src/main.rs"), MAIN).unwrap();
    let run = cargo(
        dir,
        "e2e",
        "[features]\ndefault = [\"json\"]\njson = [\"fastrs/json\"]\n",
        &["run", "--quiet", "--offline"],
    );
    assert!(
        run.status.success(),
        "generated code failed to build or run:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stdout).starts_with("e2e ok"));
}

#[test]
fn protoc_output_compiles_and_runs() {
    generate_build_and_run(
        &scratch("plugin"),
        "include_file=mod.rs,json=json,descriptors=true",
        &[
            "fastrs.test.rs",
            "fastrs.test.other.rs",
            "_.rs",
            "acme.shop.v1.rs",
            "fastrs.options.rs",
            "mod.rs",
        ],
    );
}

/// The `opt:` entries of `examples/buf/buf.gen.yaml`, joined as `buf`
/// passes them to the plugin.
fn buf_gen_options() -> String {
    let yaml = std::fs::read_to_string(root().join("examples/buf/buf.gen.yaml")).unwrap();
    let opts: Vec<&str> = yaml
        .lines()
        .map(str::trim)
        .skip_while(|l| *l != "opt:")
        .skip(1)
        .map_while(|l| l.strip_prefix("- "))
        .collect();
    assert!(!opts.is_empty(), "buf.gen.yaml has options");
    opts.join(",")
}

/// The schemas of `examples/buf/proto`, relative to it.
const BUF_EXAMPLE_FILES: [&str; 3] = [
    "acme/common/v1/money.proto",
    "acme/shop/v1/order.proto",
    "acme/stock/v1/item.proto",
];

/// Builds and runs the buf example's program (`examples/buf/src/main.rs`)
/// in `dir`, over the code a generator wrote into `dir/src/gen`.
fn run_buf_example(dir: &Path) {
    for name in [
        "mod.rs",
        "acme/common/v1/money.rs",
        "acme/shop/v1/order.rs",
        "acme/stock/v1/item.rs",
    ] {
        assert!(dir.join("src/gen").join(name).exists(), "{name} written");
    }
    std::fs::copy(root().join("examples/buf/src/main.rs"), dir.join("src/main.rs")).unwrap();
    let run = cargo(dir, "buf-example", "", &["run", "--quiet", "--offline"]);
    assert!(
        run.status.success(),
        "the buf example failed to build or run:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stdout).starts_with("order 7 for Ada"));
}

/// The example's options through `protoc` (as `buf` passes them), for
/// machines without npm: the output compiles and runs.
#[test]
fn the_buf_example_options_generate_code_that_compiles_through_protoc() {
    let dir = scratch("buf-through-protoc");
    let gen = dir.join("src/gen");
    std::fs::create_dir_all(&gen).unwrap();
    let opts = buf_gen_options();
    assert!(opts.contains("paths=source_relative"), "{opts}");
    let include = root().join("examples/buf/proto");
    let out = Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
        .arg(format!(
            "--plugin=protoc-gen-fastrs={}",
            env!("CARGO_BIN_EXE_protoc-gen-fastrs")
        ))
        .arg(format!("--fastrs_out={}", gen.display()))
        .arg(format!("--fastrs_opt={opts}"))
        .arg(format!("-I{}", include.display()))
        .args(BUF_EXAMPLE_FILES)
        .current_dir(&include)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "protoc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    run_buf_example(&dir);
}

/// `buf generate` in the module at `dir`, with the pinned buf installed
/// under `npm` and its cache in the target directory.
fn buf_generate(npm: &Path, dir: &Path) -> Command {
    let mut generate = Command::new(npm.join("node_modules/.bin/buf"));
    generate
        .arg("generate")
        .env("BUF_CACHE_DIR", fastrs_test_tools::target_dir().join("npm/buf-cache"))
        .current_dir(dir);
    generate
}

/// Runs `command`, which must succeed without a word on stderr.
fn run_quietly(mut command: Command) {
    let out = command.output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{command:?} failed or warned: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `buf generate`, with the real buf (npm's `@bufbuild/buf`, pinned in
/// `tests/npm`), on the example as documented: its module holds three
/// packages in three directories, one of them in edition 2023, and the
/// output compiles and runs.
#[test]
fn buf_generate_runs_the_documented_example() {
    let Some(npm) = fastrs_test_tools::npm_packages("buf generate", "tools", &root().join("tests/npm")) else {
        return;
    };
    let dir = scratch("buf-generate");
    let plugin_dir = Path::new(env!("CARGO_BIN_EXE_protoc-gen-fastrs")).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(plugin_dir.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut generate = buf_generate(&npm, &root().join("examples/buf"));
    generate.arg("--output").arg(&dir).env("PATH", path);
    run_quietly(generate);
    run_buf_example(&dir);
}

/// A program over `fastrs.options` (custom options on every kind of
/// element): it uses the messages, and with the `descriptor` feature also
/// reads the options back from the embedded descriptors.
const OPTIONS_MAIN: &str = r#"
#[allow(dead_code)]
mod protos {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/gen/mod.rs"));
}
use fastrs::Message;
use protos::fastrs::options::{Annotated, Mood};

fn main() {
    let m = Annotated { s: "x".into(), ..Default::default() };
    assert_eq!(Annotated::decode(&m.encode_to_vec()).unwrap(), m);
    assert_eq!(Mood::default(), Mood::Unspecified);
    // descriptor.proto's set is there with or without the feature, so the
    // package links in a descriptor pool either way.
    assert_eq!(protos::fastrs::options::IMPORTED_DESCRIPTOR_SETS, [fastrs::descriptor::FILE_DESCRIPTOR_SET]);
    #[cfg(feature = "descriptor")]
    {
        use fastrs::descriptor::FileDescriptorSet;
        let set = FileDescriptorSet::decode(protos::fastrs::options::FILE_DESCRIPTOR_SET).unwrap();
        let annotated = set.file[0].message_type.iter().find(|m| m.name() == "Annotated").unwrap();
        let field = &annotated.field[0];
        let note = protos::fastrs::options::NOTE.get(field.options.as_ref().unwrap()).unwrap();
        assert_eq!(note.as_deref(), Some("field"));
    }
    #[cfg(not(feature = "descriptor"))]
    {
        // The options messages are opaque: extensions still read and write.
        let mut options = fastrs::descriptor::FieldOptions::default();
        protos::fastrs::options::NOTE.set(&mut options, &"x".to_string());
        let back = fastrs::descriptor::FieldOptions::decode(&options.encode_to_vec()).unwrap();
        assert_eq!(protos::fastrs::options::NOTE.get(&back).unwrap().as_deref(), Some("x"));
    }
    println!("options ok");
}
"#;

/// A schema that declares custom options compiles with the README's
/// dependency line (fastrs without features), where the options messages
/// it extends are opaque; with the `descriptor` feature its constants read
/// the options from the embedded descriptors.
#[test]
fn custom_options_compile_without_the_descriptor_feature() {
    for (features, name) in [(&[][..], "options-plain"), (&["descriptor"][..], "options-descriptor")] {
        let dir = scratch(name);
        let gen = dir.join("src/gen");
        std::fs::create_dir_all(&gen).unwrap();
        let out = protoc(&gen, "include_file=mod.rs,descriptors=true", &["test/options.proto"]);
        assert!(
            out.status.success(),
            "protoc failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(dir.join("src/main.rs"), OPTIONS_MAIN).unwrap();
        let cfg = if features.is_empty() {
            ""
        } else {
            "[features]\ndefault = [\"descriptor\"]\ndescriptor = []\n"
        };
        let run = cargo_with_features(&dir, name, features, cfg, &["run", "--quiet", "--offline"]);
        assert!(
            run.status.success(),
            "{name}: failed to build or run:\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), "options ok", "{name}");
    }
}

/// A field of a descriptor type needs the feature: the build fails with
/// one error that names the field and the line to add, first.
#[test]
fn a_descriptor_typed_field_asks_for_the_descriptor_feature() {
    let dir = scratch("descriptor-field");
    let proto = dir.join("proto");
    std::fs::create_dir_all(&proto).unwrap();
    std::fs::write(
        proto.join("registry.proto"),
        "syntax = \"proto3\";\npackage registry;\nimport \"google/protobuf/descriptor.proto\";\n\
         message Entry {\n  google.protobuf.FileDescriptorSet schema = 1;\n}\n",
    )
    .unwrap();
    let gen = dir.join("src/gen");
    std::fs::create_dir_all(&gen).unwrap();
    let files = protoc_gen_fastrs::Builder::new()
        .include_file("mod.rs")
        .generate(&[proto.join("registry.proto")], &[&proto])
        .unwrap();
    for file in files {
        std::fs::write(gen.join(&file.name), file.content).unwrap();
    }
    std::fs::write(
        dir.join("src/main.rs"),
        "#[allow(dead_code)]\nmod protos { include!(\"gen/mod.rs\"); }\nfn main() {}\n",
    )
    .unwrap();
    let build = cargo_with_features(&dir, "descriptor-field", &[], "", &["build", "--quiet", "--offline"]);
    assert!(!build.status.success());
    let stderr = String::from_utf8_lossy(&build.stderr);
    let first = stderr.lines().find(|l| l.starts_with("error")).unwrap_or_default();
    assert!(
        first.contains("field `registry.Entry.schema`") && first.contains("features = [\"descriptor\"]"),
        "{stderr}"
    );
}

/// protoc generates only the files it is given: a service whose messages
/// live in an imported package it was not given fails with one error that
/// names the missing file and the ways out; given both, or told the import
/// is generated elsewhere, it succeeds. (The `Builder` generates imports;
/// `examples/grpc` names only the service's file.)
#[test]
fn the_plugin_names_an_import_it_was_not_asked_to_generate() {
    let dir = scratch("missing-import");
    let out = protoc(&dir, "grpc=tonic", &["demo/orders.proto"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("demo/shop.proto").count(), 1, "{stderr}");
    for hint in [
        "acme.orders.v1.",
        "acme.shop.v1.",
        "strategy: all",
        "extern_path",
        "imports=elsewhere",
    ] {
        assert!(stderr.contains(hint), "{hint}: {stderr}");
    }
    let both = protoc(&dir, "grpc=tonic", &["demo/orders.proto", "demo/shop.proto"]);
    assert!(both.status.success(), "{}", String::from_utf8_lossy(&both.stderr));
    let elsewhere = protoc(&dir, "grpc=tonic,imports=elsewhere", &["demo/orders.proto"]);
    assert!(
        elsewhere.status.success(),
        "{}",
        String::from_utf8_lossy(&elsewhere.stderr)
    );
    let code = std::fs::read_to_string(dir.join("acme.orders.v1.rs")).unwrap();
    assert!(
        code.contains("super::super::shop::v1::Order"),
        "relative paths to the other run's module"
    );
}

#[test]
fn bad_options_are_reported_through_protoc() {
    let dir = scratch("bad-option");
    let out = protoc(&dir, "paths=flat", &["demo/shop.proto"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("paths is `import` or `source_relative`"), "{stderr}");
}

#[test]
fn schema_errors_name_file_line_and_element() {
    let dir = scratch("bad-schema");
    let bad = dir.join("bad.proto");
    std::fs::write(&bad, "syntax = \"proto3\";\nmessage M {\n  Missing x = 1;\n}\n").unwrap();
    let err = protoc_gen_fastrs::Builder::new()
        .out_dir(&dir)
        .cargo_directives(false)
        .compile(&[&bad], &[&dir])
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("bad.proto:3:"), "{text}");
    assert!(text.contains("Missing"), "{text}");
}

#[test]
fn plugin_rejects_garbage_on_stdin_without_panicking() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_protoc-gen-fastrs"))
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&[0xff, 0xff, 0xff]).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a CodeGeneratorRequest"));
}

/// The file `output` that protoc, running the plugin with no options,
/// writes for `file` (under `proto/`).
fn through_protoc(file: &str, output: &str) -> String {
    let dir = scratch(output.trim_end_matches(".rs"));
    let out = protoc(&dir, "", &[file]);
    assert!(
        out.status.success(),
        "protoc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join(output)).unwrap()
}

#[test]
fn editions_files_go_through_the_plugin() {
    let code = through_protoc("editions/editions.proto", "fastrs.editions.rs");
    assert!(code.contains("Group::<Child, 8>"), "DELIMITED is a group");
    assert!(
        code.contains("pub implicit_int: i32,"),
        "IMPLICIT presence is a plain field"
    );
    assert!(
        code.contains("pub closed: ::core::option::Option<Closed>,"),
        "CLOSED enums are the Rust enum"
    );
}

/// What the pure-Rust parser generates for `proto/editions/edition2026.proto`,
/// its one file.
fn edition_2026_by_the_pure_parser() -> String {
    let root = root().join("proto");
    let files = protoc_gen_fastrs::Builder::new()
        .generate(&[root.join("editions/edition2026.proto")], &[&root])
        .unwrap();
    let [file] = &files[..] else {
        panic!(
            "one file for one package: {:?}",
            files.iter().map(|f| &f.name).collect::<Vec<_>>()
        )
    };
    assert_eq!(file.name, "fastrs.edition2026.rs");
    file.content.clone()
}

/// Edition 2026 through `protoc --fastrs_out`: the plugin advertises it as
/// its maximum edition (protoc refuses a file of a later edition than its
/// plugin's), and generates what the pure-Rust parser does.
#[test]
fn edition_2026_goes_through_protoc() {
    let code = through_protoc("editions/edition2026.proto", "fastrs.edition2026.rs");
    assert!(code.contains("pub plain: i32,"), "IMPLICIT presence is a plain field");
    assert_eq!(code, edition_2026_by_the_pure_parser());
}

/// Edition 2026 through the real `buf generate` (pinned in `tests/npm`), on
/// a module of the project's editions schemas: buf takes the plugin's
/// maximum edition too, and the output is the pure-Rust parser's.
#[test]
fn edition_2026_goes_through_buf_generate() {
    let Some(npm) = fastrs_test_tools::npm_packages("buf generate", "tools", &root().join("tests/npm")) else {
        return;
    };
    let dir = scratch("buf-edition2026");
    let module = dir.join("proto/editions");
    std::fs::create_dir_all(&module).unwrap();
    std::fs::copy(
        root().join("proto/editions/edition2026.proto"),
        module.join("edition2026.proto"),
    )
    .unwrap();
    std::fs::write(dir.join("buf.yaml"), "version: v2\nmodules:\n  - path: proto\n").unwrap();
    let plugin = env!("CARGO_BIN_EXE_protoc-gen-fastrs");
    std::fs::write(
        dir.join("buf.gen.yaml"),
        format!("version: v2\nplugins:\n  - local: {plugin:?}\n    out: gen\n    strategy: all\n"),
    )
    .unwrap();
    run_quietly(buf_generate(&npm, &dir));
    let code = std::fs::read_to_string(dir.join("gen/fastrs.edition2026.rs")).unwrap();
    assert_eq!(code, edition_2026_by_the_pure_parser());
}

/// Editions need no protoc: the pure parser generates what the plugin
/// generates from protoc's descriptors.
#[test]
fn the_pure_parser_reads_editions() {
    let root = root().join("proto");
    let pure = protoc_gen_fastrs::Builder::new()
        .generate(&[root.join("editions/editions.proto")], &[&root])
        .unwrap();
    let protoc = protoc_gen_fastrs::Builder::new()
        .protoc_path(protoc_bin_vendored::protoc_bin_path().unwrap())
        .generate(&[root.join("editions/editions.proto")], &[&root])
        .unwrap();
    assert_eq!(pure, protoc);
}

/// `shared/corpus` beside the repository (or `$FASTRS_SHARED/corpus`):
/// real public schemas, absent from a clone of the public repository.
fn corpus() -> Option<PathBuf> {
    let shared = std::env::var_os("FASTRS_SHARED").map_or_else(|| root().join("../shared"), PathBuf::from);
    let corpus = shared.join("corpus");
    corpus.join("temporal-api.files").exists().then_some(corpus)
}

/// Temporal's API (custom options, its own copies of google/protobuf and
/// google/api), gRPC's own schemas (health, reflection, channelz, the
/// interop test service) and ONNX (proto2) generate through the plugin
/// exactly as through the pure-Rust `Builder`: the crate `tests/corpus`
/// compiles the Builder's output (checked in under `tests/golden/corpus`)
/// and tests it against prost, so the plugin's output is compared with it.
#[test]
fn real_world_schemas_generate_alike_through_the_plugin_and_the_builder() {
    let Some(corpus) = corpus() else {
        eprintln!("skipped: the real-world schemas are in shared/corpus beside the repository, which this clone lacks");
        return;
    };
    for source in ["temporal-api", "grpc-proto", "onnx"] {
        let include = corpus.join(source);
        let list = std::fs::read_to_string(corpus.join(format!("{source}.files"))).unwrap();
        let files: Vec<&str> = list.lines().filter(|l| !l.is_empty()).collect();
        let out_dir = scratch(&format!("corpus-{source}"));
        let _ = std::fs::remove_dir_all(&out_dir);
        std::fs::create_dir_all(&out_dir).unwrap();
        let protoc = protoc_bin_vendored::protoc_bin_path().unwrap();
        let out = Command::new(protoc)
            .arg(format!(
                "--plugin=protoc-gen-fastrs={}",
                env!("CARGO_BIN_EXE_protoc-gen-fastrs")
            ))
            .arg(format!("--fastrs_out={}", out_dir.display()))
            .arg("--fastrs_opt=include_file=mod.rs")
            .arg(format!("-I{}", include.display()))
            .args(&files)
            .current_dir(&include)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{source} through the plugin: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let golden = root().join("tests/golden/corpus").join(source);
        let names = |dir: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        assert_eq!(names(&out_dir), names(&golden), "{source}: the same files");
        for name in names(&golden) {
            let (plugin, builder) = (out_dir.join(&name), golden.join(&name));
            assert!(
                std::fs::read(&plugin).unwrap() == std::fs::read(&builder).unwrap(),
                "{source}: {name} differs between the plugin and the Builder (tests/golden/corpus; \
                 if the generator changed, bless the golden files first: FASTRS_BLESS=1 cargo test -p fastrs-corpus)"
            );
        }
    }
}
