//! How fast `.proto` files compile to descriptors: fastrs-compiler against
//! protox (the other pure-Rust compiler) and protoc itself, on the corpus's
//! real schemas, in one run. protoc runs as a process, as build scripts run
//! it; the others run in this process. Medians of several runs.
//!
//! `cargo run --release -p fastrs-bench --bin compile-speed [-- --out FILE]`
//! (needs `../shared` beside the checkout, or `FASTRS_SHARED`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 15;

fn main() {
    let out = std::env::args().skip_while(|a| a != "--out").nth(1);
    // `--profile`: fastrs-compiler alone, many times (for perf or callgrind).
    let profile = std::env::args().any(|a| a == "--profile");
    let shared = std::env::var_os("FASTRS_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let corpus = shared.join("corpus");
    if !corpus.is_dir() {
        eprintln!("no corpus at {}: nothing to measure", corpus.display());
        return;
    }
    let mut table = String::from(
        "| schema | files | source info | fastrs-compiler | protox 0.10 | protoc 36.2 | ×protox | ×protoc |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for source in ["temporal-api", "grpc-proto"] {
        let dir = corpus.join(source);
        let list = std::fs::read_to_string(corpus.join(format!("{source}.files"))).expect("manifest");
        let files: Vec<String> = list.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect();
        if profile {
            (0..RUNS * 4).for_each(|_| fastrs(&dir, &files, true));
            continue;
        }
        for info in [false, true] {
            let ours = median(|| fastrs(&dir, &files, info));
            let protox = median(|| protox(&dir, &files, info));
            let protoc = median(|| protoc(&dir, &files, info));
            let row = format!(
                "| {source} | {} | {} | {} | {} | {} | {:.2} | {:.2} |\n",
                files.len(),
                if info { "yes" } else { "no" },
                ms(ours),
                ms(protox),
                ms(protoc),
                ours.as_secs_f64() / protox.as_secs_f64(),
                ours.as_secs_f64() / protoc.as_secs_f64(),
            );
            print!("{row}");
            table += &row;
        }
    }
    if let Some(out) = out {
        std::fs::write(&out, table).expect("write the table");
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// The median time of `RUNS` runs (after one to warm caches).
fn median(mut run: impl FnMut()) -> Duration {
    run();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn fastrs(dir: &Path, files: &[String], info: bool) {
    let set = fastrs_compiler::Compiler::new()
        .include(dir)
        .include_imports(true)
        .include_source_info(info)
        .compile(files)
        .expect("fastrs-compiler compiles the corpus");
    std::hint::black_box(fastrs::Message::encode_to_vec(&set));
}

fn protox(dir: &Path, files: &[String], info: bool) {
    let mut compiler = protox::Compiler::new([dir]).expect("protox");
    compiler.include_imports(true).include_source_info(info);
    compiler.open_files(files).expect("protox compiles the corpus");
    std::hint::black_box(compiler.encode_file_descriptor_set());
}

fn protoc(dir: &Path, files: &[String], info: bool) {
    let out = std::env::temp_dir().join(format!("fastrs-compile-speed-{}.pb", std::process::id()));
    let mut command = Command::new(protoc_bin_vendored::protoc_bin_path().expect("vendored protoc"));
    command
        .arg("-I")
        .arg(dir)
        .arg("--include_imports")
        .arg(format!("--descriptor_set_out={}", out.display()));
    if info {
        command.arg("--include_source_info");
    }
    let status = command.args(files).status().expect("protoc runs");
    assert!(status.success());
}
