//! connect-es (Connect's TypeScript implementation, with protobuf-es; pinned
//! in tests/npm) runs gRPC's interop cases against `interop-server` over
//! Connect (JSON and binary, HTTP/1.1 and HTTP/2), gRPC-Web and gRPC. The
//! Node client reads the service from a descriptor set fastrs-compiler
//! writes, so no TypeScript is generated. Streams from the client need
//! HTTP/2 in connect-es, and gRPC-Web has none.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use fastrs::Message as _;

mod common;
use common::{root, ServerProcess};

const UNARY: &[&str] = &[
    "empty_unary",
    "large_unary",
    "cacheable_unary",
    "server_streaming",
    "status_code_and_message",
    "special_status_message",
    "unimplemented_method",
    "unimplemented_service",
    "custom_metadata",
    "timeout_on_sleeping_server",
    "error_details",
];
const STREAMING: &[&str] = &[
    "client_streaming",
    "ping_pong",
    "empty_stream",
    "cancel_after_begin",
    "cancel_after_first_response",
];
/// Connect's gzip, both ways, and gRPC's compression probes over Connect.
const GZIP_UNARY: &[&str] = &["gzip_unary", "client_compressed_unary", "server_compressed_unary"];
const GZIP_STREAMING: &[&str] = &["gzip_client_streaming"];

#[test]
fn connect_es_runs_the_interop_cases() {
    let Some(npm) = fastrs_test_tools::npm_packages("connect-es interop", "tools", &root().join("tests/npm")) else {
        return;
    };
    let script = common::connect_es_scripts(&npm).join("client.mjs");
    let set = fastrs_compiler::Compiler::new()
        .include(Path::new(env!("CARGO_MANIFEST_DIR")).join("proto"))
        .include_imports(true)
        .compile(&["grpc/testing/test.proto"])
        .expect("the interop schema compiles");
    let set_path = npm.join("interop.pb");
    std::fs::write(&set_path, set.encode_to_vec()).unwrap();

    let server = ServerProcess::start();
    let base = format!("http://{}", server.addr);
    let all: Vec<&str> = UNARY.iter().chain(STREAMING).copied().collect();
    let connect_unary: Vec<&str> = UNARY.iter().chain(GZIP_UNARY).copied().collect();
    let connect_all: Vec<&str> = all.iter().chain(GZIP_UNARY).chain(GZIP_STREAMING).copied().collect();
    let runs: [(&str, &str, &str, &[&str]); 5] = [
        ("connect", "json", "1.1", &connect_unary),
        ("connect", "binary", "1.1", &connect_unary),
        ("connect", "json", "2", &connect_all),
        ("grpcweb", "binary", "1.1", UNARY),
        ("grpc", "binary", "2", &all),
    ];
    let mut failures = Vec::new();
    for (protocol, codec, http, cases) in runs {
        let mut child = Command::new("node")
            .arg(&script)
            .args([set_path.to_str().unwrap(), &base, protocol, codec, http])
            .args(cases)
            .current_dir(&npm)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node runs");
        let mut waited = 0;
        while child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(100));
            waited += 1;
            assert!(
                waited < 600,
                "connect-es over {protocol}/{codec}/HTTP {http} took over 60 s"
            );
        }
        let out = child.wait_with_output().unwrap();
        let report = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if !out.status.success() {
            failures.push(format!("{protocol} {codec} HTTP/{http}:\n{report}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
