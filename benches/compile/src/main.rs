//! `make compile-bench`: how long the code fastrs generates takes to compile,
//! next to prost-build's for the same schemas.
//!
//! For each schema set, fastrs (the pure-Rust `Builder`) and prost-build
//! generate into a crate of their own under `target/compile-bench/`, in one
//! run over all the set's files (as one build script would). Each
//! crate is built in two forms: **bare** (the generated code alone) and
//! **used** (plus a function that decodes and encodes every message type
//! once, which is what a service's build pays: prost's code is generic over
//! the buffer and is compiled where it is used). Dependencies are built
//! first; then each crate is rebuilt from clean (its `lib.rs` touched,
//! incremental compilation off) in the dev and release profiles, the
//! libraries interleaved, `ROUNDS` times. The table gives the median CPU
//! seconds (user + system of cargo and rustc), the ratio fastrs ÷ prost and
//! the generated line counts.
//!
//! Usage: `fastrs-compile-bench [--rounds N] [--out FILE] [--only NAME] [--mode speed|size]
//! [--descriptors] [--grpc] [--views]` (without `--mode`, the generator picks by the
//! schema's size; `--descriptors` embeds the descriptors, which the text
//! format and gRPC reflection need; `--grpc` also generates tonic services,
//! fastrs's with `grpc()` against tonic-prost-build's; `--views` also
//! generates fastrs's zero-copy views, which the used crate then decodes
//! too: prost has none, so it measures what views add; `--validate`
//! generates fastrs's with `validate=true`, and the used crate validates
//! every type too: prost has no validation code, so it measures what
//! validation adds). `--only protovalidate` takes protovalidate's
//! conformance case schemas (938 message types with rules, from
//! `shared/protovalidate`) instead of the corpus.

mod types;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A schema set: an include root of `shared/corpus` (or another folder) and
/// the files to compile.
struct Schema {
    name: &'static str,
    /// `(include root, manifest)` pairs, relative to the corpus folder;
    /// empty for protovalidate's case schemas, which are found by walking
    /// their folder.
    sources: &'static [(&'static str, &'static str)],
}

const SCHEMAS: &[Schema] = &[
    Schema {
        name: "temporal-api",
        sources: &[("temporal-api", "temporal-api.files")],
    },
    Schema {
        name: "grpc-proto + onnx",
        sources: &[("grpc-proto", "grpc-proto.files"), ("onnx", "onnx.files")],
    },
    Schema {
        name: "protovalidate cases",
        sources: &[],
    },
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lib {
    Fastrs,
    Prost,
}

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::Fastrs => "fastrs",
            Lib::Prost => "prost",
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let rounds: usize = flag("--rounds").map_or(Ok(1), |r| r.parse())?;
    let out_file = flag("--out");
    let only = flag("--only");
    let mode = match flag("--mode").as_deref() {
        None => None,
        Some("speed") => Some(protoc_gen_fastrs::Mode::Speed),
        Some("size") => Some(protoc_gen_fastrs::Mode::Size),
        Some(other) => return Err(format!("--mode is `speed` or `size`, not `{other}`").into()),
    };

    let descriptors = args.iter().any(|a| a == "--descriptors");
    let grpc = args.iter().any(|a| a == "--grpc");
    let views = args.iter().any(|a| a == "--views");
    let validate = args.iter().any(|a| a == "--validate");

    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = std::env::var_os("FASTRS_SHARED").map_or_else(|| root.join("../shared"), PathBuf::from);
    let corpus = shared.join("corpus");
    if !corpus.join("temporal-api.files").exists() {
        return Err("the compile-time harness needs the real-world schemas of shared/corpus beside the repository (or FASTRS_SHARED)".into());
    }
    let work = root.join("target/compile-bench");
    let mut rows = Vec::new();
    // protovalidate's cases only when asked for by name.
    for schema in SCHEMAS.iter().filter(|s| match only.as_deref() {
        Some(o) => s.name.contains(o),
        None => !s.sources.is_empty(),
    }) {
        eprintln!("== {}: generating", schema.name);
        let crates = [Lib::Fastrs, Lib::Prost].map(|lib| {
            generate(
                &corpus,
                schema,
                lib,
                Generation {
                    mode,
                    descriptors,
                    grpc,
                    views,
                    validate,
                    protovalidate: schema.sources.is_empty(),
                },
                &work,
                &root,
            )
        });
        let crates: Vec<Crate> = crates.into_iter().collect::<Result<_, _>>()?;
        rows.extend(measure(schema.name, &crates, rounds)?);
    }
    let table = render(&rows, rounds);
    println!("{table}");
    if let Some(path) = out_file {
        std::fs::write(&path, &table)?;
        eprintln!("wrote {path}");
    }
    Ok(())
}

/// How fastrs generates (prost-build follows `grpc`).
#[derive(Clone, Copy)]
struct Generation {
    mode: Option<protoc_gen_fastrs::Mode>,
    descriptors: bool,
    grpc: bool,
    views: bool,
    validate: bool,
    /// The schema set is protovalidate's cases.
    protovalidate: bool,
}

/// A generated crate.
struct Crate {
    lib: Lib,
    dir: PathBuf,
    lines: usize,
    types: usize,
}

fn generate(
    corpus: &Path,
    schema: &Schema,
    lib: Lib,
    how: Generation,
    work: &Path,
    root: &Path,
) -> Result<Crate, Box<dyn std::error::Error>> {
    let slug: String = schema.name.chars().filter(|c| c.is_alphanumeric()).collect();
    let dir = work.join(format!("{slug}-{}", lib.name()));
    let gen = dir.join("src/gen");
    let _ = std::fs::remove_dir_all(&gen);
    std::fs::create_dir_all(&gen)?;
    // One generation run over all the set's files, as one build script
    // would do for one crate (fastrs picks its default mode by the run's size).
    let (mut files, mut names, mut includes) = (Vec::new(), Vec::new(), Vec::new());
    if schema.sources.is_empty() {
        let base = corpus.join("../protovalidate/proto");
        let testing = base.join("protovalidate-testing");
        for name in case_files(&testing, "buf/validate/conformance/cases")? {
            files.push(testing.join(&name));
            names.push(name);
        }
        includes.extend([testing, base.join("protovalidate")]);
    }
    for (folder, manifest) in schema.sources {
        let include = corpus.join(folder);
        let list = std::fs::read_to_string(corpus.join(manifest))?;
        for name in list.lines().filter(|l| !l.is_empty()) {
            files.push(include.join(name));
            names.push(name.to_string());
        }
        includes.push(include);
    }
    let part = gen.join("part0");
    std::fs::create_dir_all(&part)?;
    match lib {
        Lib::Fastrs => {
            let mut builder = how.mode.map_or_else(protoc_gen_fastrs::Builder::new, |m| {
                protoc_gen_fastrs::Builder::new().mode(m)
            });
            if how.descriptors {
                builder = builder.file_descriptors();
            }
            if how.grpc {
                builder = builder.grpc();
            }
            if how.views {
                builder = builder.views();
            }
            if how.validate {
                // The cases hold rules that do not compile, on purpose.
                builder = builder.validate().validate_errors_at_runtime();
            }
            builder
                .include_file("mod.rs")
                .cargo_directives(false)
                .out_dir(&part)
                .compile(&files, &includes)?
        }
        Lib::Prost if how.grpc => {
            let mut config = prost_build::Config::new();
            config.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
            tonic_prost_build::configure()
                .out_dir(&part)
                .include_file("mod.rs")
                .compile_with_config(config, &files, &includes)?;
        }
        Lib::Prost if schema.sources.is_empty() => prost_without_editions(&files, &includes, &part)?,
        Lib::Prost => prost_build::Config::new()
            .out_dir(&part)
            .include_file("mod.rs")
            .protoc_executable(protoc_bin_vendored::protoc_bin_path()?)
            .compile_protos(&files, &includes)?,
    }
    let parsed = protoc_gen_fastrs::Builder::new().parse(&files, &includes)?;
    let generated: Vec<_> = parsed
        .set
        .file
        .iter()
        .filter(|f| names.iter().any(|n| n == f.name()))
        .collect();
    let all_types: Vec<String> = types::message_types(&generated)
        .into_iter()
        .map(|(_, path)| format!("gen::part0::{path}"))
        .collect();
    let lines = count_lines(&gen)?;
    write_crate(&dir, lib, how, &all_types, root)?;
    Ok(Crate {
        lib,
        dir,
        lines,
        types: all_types.len(),
    })
}

/// prost-build on `files`, but the editions files their imports bring
/// (protoc's own `descriptor.proto`, which `validate.proto` imports for its
/// extensions: prost-build reads no editions, and extensions generate
/// nothing in prost).
fn prost_without_editions(
    files: &[PathBuf],
    includes: &[PathBuf],
    out: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let set_path = out.join("set.pb");
    let mut protoc = Command::new(protoc_bin_vendored::protoc_bin_path()?);
    for include in includes {
        protoc.arg("-I").arg(include);
    }
    protoc.arg("-I").arg(protoc_bin_vendored::include_path()?);
    let status = protoc
        .arg("--include_imports")
        .arg("-o")
        .arg(&set_path)
        .args(files)
        .status()?;
    if !status.success() {
        return Err("protoc failed".into());
    }
    let mut set = <prost_types::FileDescriptorSet as prost::Message>::decode(std::fs::read(&set_path)?.as_slice())?;
    std::fs::remove_file(&set_path)?;
    set.file.retain(|f| f.syntax() != "editions");
    prost_build::Config::new()
        .out_dir(out)
        .include_file("mod.rs")
        .compile_fds(set)?;
    Ok(())
}

/// The `.proto` files under `under` of `root`, relative to `root`, sorted,
/// but editions and what imports them (which prost-build does not read).
fn case_files(root: &Path, under: &str) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(under)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "proto") {
                let name = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                // prost-build reads no editions, nor files that import them.
                let text = std::fs::read_to_string(&path)?;
                if !text.contains("edition =") && !text.contains("editions.proto") {
                    out.push(name);
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

fn count_lines(dir: &Path) -> std::io::Result<usize> {
    let mut n = 0;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        n += if path.is_dir() {
            count_lines(&path)?
        } else {
            std::fs::read_to_string(&path)?.lines().count()
        };
    }
    Ok(n)
}

/// The manifest, `lib.rs` (the generated modules) and `used.rs` (every type
/// decoded and encoded once, behind the `used` feature).
fn write_crate(dir: &Path, lib: Lib, how: Generation, types: &[String], root: &Path) -> std::io::Result<()> {
    let grpc = how.grpc;
    let parts = 1;
    let mut deps = match lib {
        // `descriptor`: schemas with custom options name its types.
        Lib::Fastrs => format!(
            "fastrs = {{ path = {:?}, features = [\"descriptor\"{}] }}",
            root.join("runtime").display().to_string(),
            // protovalidate's cases extend validate.proto's types, which the
            // feature brings, with or without validation code.
            if how.validate || how.protovalidate {
                ", \"validate\""
            } else {
                ""
            }
        ),
        Lib::Prost => "prost = \"0.14\"\nprost-types = \"0.14\"".to_string(),
    };
    if grpc {
        deps.push_str("\ntonic = \"0.14\"\n");
        deps.push_str(&match lib {
            Lib::Fastrs => format!(
                "fastrs-tonic = {{ path = {:?} }}",
                root.join("fastrs-tonic").display().to_string()
            ),
            Lib::Prost => "tonic-prost = \"0.14\"".to_string(),
        });
    }
    let name = dir.file_name().unwrap().to_string_lossy();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n{deps}\n\n[features]\nused = []\n\n[workspace]\n"
        ),
    )?;
    let mut lib_rs = String::from("#![allow(warnings, clippy::all)]\n\npub mod gen {\n");
    for i in 0..parts {
        let _ = writeln!(
            lib_rs,
            "    pub mod part{i} {{\n        include!(\"gen/part{i}/mod.rs\");\n    }}"
        );
    }
    lib_rs.push_str("}\n\n#[cfg(feature = \"used\")]\npub mod used;\n");
    std::fs::write(dir.join("src/lib.rs"), lib_rs)?;
    let (bound, view) = match lib {
        // Validates what it decoded (a default instance would add its
        // construction and drop for every type, not validation's cost).
        Lib::Fastrs if how.validate => (
            "fastrs::Message + fastrs::validate::Validate",
            " + M::decode(bytes).map_or(0, |m| usize::from(fastrs::validate::Validate::validate(&m).is_ok()))",
        ),
        Lib::Fastrs if how.views => (
            "fastrs::HasView",
            " + <M::View<'_> as fastrs::View<'_>>::decode(bytes).map_or(0, |v| fastrs::View::size(&v))",
        ),
        Lib::Fastrs => ("fastrs::Message", ""),
        Lib::Prost => ("prost::Message + Default", ""),
    };
    let mut used = format!(
        "//! Decodes and encodes every message type once.\n\nuse crate::gen;\n\nfn touch<M: {bound}>(bytes: &[u8]) -> usize {{\n    M::decode(bytes).map_or(0, |m| m.encode_to_vec().len()){view}\n}}\n\npub fn all(bytes: &[u8]) -> usize {{\n    let mut n = 0;\n"
    );
    for path in types {
        let _ = writeln!(used, "    n += touch::<{path}>(bytes);");
    }
    used.push_str("    n\n}\n");
    std::fs::write(dir.join("src/used.rs"), used)
}

/// One measured build.
struct Row {
    schema: String,
    form: &'static str,
    profile: &'static str,
    /// Median CPU seconds, fastrs then prost.
    cpu: [f64; 2],
    lines: [usize; 2],
    types: usize,
}

fn measure(schema: &str, crates: &[Crate], rounds: usize) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let target = crates[0].dir.parent().unwrap().join("target");
    let mut rows = Vec::new();
    for profile in ["dev", "release"] {
        for (form, features) in [("bare", None), ("used", Some("used"))] {
            // Dependencies first, untimed.
            for c in crates {
                build_deps(&c.dir, c.lib, &target, profile)?;
            }
            let mut samples = [Vec::new(), Vec::new()];
            for round in 0..rounds {
                for (i, c) in crates.iter().enumerate() {
                    let secs = build(&c.dir, &target, profile, features)?;
                    eprintln!(
                        "   {schema} {form} {profile} {} round {}: {secs:.1} CPU s",
                        c.lib.name(),
                        round + 1
                    );
                    samples[i].push(secs);
                }
            }
            rows.push(Row {
                schema: schema.to_string(),
                form,
                profile,
                cpu: samples.map(median),
                lines: [crates[0].lines, crates[1].lines],
                types: crates[0].types,
            });
        }
    }
    Ok(rows)
}

/// Builds the dependencies of the crate at `dir`, not the crate.
fn build_deps(dir: &Path, lib: Lib, target: &Path, profile: &str) -> Result<(), Box<dyn std::error::Error>> {
    let mut deps: Vec<&str> = match lib {
        Lib::Fastrs => vec!["fastrs"],
        Lib::Prost => vec!["prost", "prost-types"],
    };
    if std::fs::read_to_string(dir.join("Cargo.toml"))?.contains("tonic") {
        deps.push("tonic");
        deps.push(if lib == Lib::Fastrs {
            "fastrs-tonic"
        } else {
            "tonic-prost"
        });
    }
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--quiet", "--profile", profile]);
    for dep in deps {
        cmd.args(["-p", dep]);
    }
    let status = cmd
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_INCREMENTAL", "0")
        .status()?;
    if !status.success() {
        return Err(format!("building the dependencies of {} failed", dir.display()).into());
    }
    Ok(())
}

/// Rebuilds the crate at `dir` alone (its `lib.rs` touched, no incremental
/// cache), returning the CPU seconds it took.
fn build(dir: &Path, target: &Path, profile: &str, features: Option<&str>) -> Result<f64, Box<dyn std::error::Error>> {
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read(&lib)?;
    std::fs::write(&lib, text)?;
    let before = children_cpu()?;
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.arg("build").arg("--quiet").arg("--profile").arg(profile);
    if let Some(f) = features {
        cmd.arg("--features").arg(f);
    }
    let status = cmd
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_INCREMENTAL", "0")
        .status()?;
    if !status.success() {
        return Err(format!("building {} failed", dir.display()).into());
    }
    Ok(children_cpu()? - before)
}

/// User + system CPU seconds of the children this process has waited for
/// (and theirs): fields 16 and 17 of `/proc/self/stat`, in clock ticks
/// (100 a second on Linux: `getconf CLK_TCK`).
fn children_cpu() -> Result<f64, Box<dyn std::error::Error>> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let after = &stat[stat.rfind(')').ok_or("malformed /proc/self/stat")? + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    // `after` starts at field 3.
    let ticks: f64 = fields[13].parse::<f64>()? + fields[14].parse::<f64>()?;
    Ok(ticks / 100.0)
}

/// The median of the rounds: for an even number of them, the mean of the
/// middle two (the upper one alone would keep any slow round of a pair).
/// 0 for no rounds (`--rounds 0` only generates the crates).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 0 => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        n => v[n / 2],
    }
}

fn render(rows: &[Row], rounds: usize) -> String {
    let mut out = String::from(
        "| schema (message types) | crate | profile | fastrs CPU s | prost CPU s | fastrs ÷ prost | generated lines fastrs / prost |\n|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} ({}) | {} | {} | {:.1} | {:.1} | **{:.2}×** | {} / {} |",
            r.schema,
            r.types,
            r.form,
            r.profile,
            r.cpu[0],
            r.cpu[1],
            r.cpu[0] / r.cpu[1],
            r.lines[0],
            r.lines[1]
        );
    }
    let _ = writeln!(
        out,
        "\nMedian of {rounds} interleaved build(s) from clean per cell, dependencies prebuilt, incremental compilation off; `used` adds a function decoding and encoding every message type once."
    );
    out
}
