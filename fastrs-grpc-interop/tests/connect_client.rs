//! fastrs's generated Connect client (`TestServiceConnectClient`) runs the
//! interop cases over HTTP/1.1 and HTTP/2, in the binary and JSON codecs,
//! against `interop-server` and against connect-node's server (connect-es,
//! pinned in tests/npm; `tests/connect-es/server.mjs`).

use fastrs::Message as _;
use fastrs_grpc_interop::connect_cases::{self, BIDI, CASES};
use fastrs_grpc_interop::pb;
use fastrs_tonic::connect::ConnectClient;

mod common;
use common::{root, ServerProcess};

/// The descriptors the JSON codec writes and reads by.
pub fn pool() -> fastrs::reflect::DescriptorPool {
    let mut pool = fastrs::reflect::DescriptorPool::new();
    pool.add_described::<pb::Empty>().expect("the interop schema");
    pool
}

/// Runs every case that `http2` allows through clients of `base`; the
/// failures, each named by its run.
pub async fn run_cases(base: &str, runs: &[(&str, bool, bool)]) -> Vec<String> {
    let mut failures = Vec::new();
    for &(name, http2, json) in runs {
        let mut client = if http2 {
            ConnectClient::http2(base)
        } else {
            ConnectClient::new(base)
        };
        if json {
            // The JSON runs take gzipped answers too.
            client = client.json(pool()).accept_gzip();
        }
        for case in CASES.iter().filter(|c| http2 || !BIDI.contains(c)) {
            if let Err(why) = connect_cases::run(case, client.clone()).await {
                failures.push(format!("{name} {case}: {why}"));
            }
        }
    }
    failures
}

#[tokio::test]
async fn the_connect_client_runs_the_interop_cases() {
    let server = ServerProcess::start();
    let base = format!("http://{}", server.addr);
    let runs = [
        ("HTTP/1.1 binary", false, false),
        ("HTTP/1.1 JSON", false, true),
        ("HTTP/2 binary", true, false),
        ("HTTP/2 JSON", true, true),
    ];
    let failures = run_cases(&base, &runs).await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A connect-node server process, killed when dropped.
struct NodeServer {
    child: std::process::Child,
    addr: String,
}

impl NodeServer {
    fn start(npm: &std::path::Path, http_version: &str) -> NodeServer {
        let scripts = common::connect_es_scripts(npm);
        let set = fastrs_compiler::Compiler::new()
            .include(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("proto"))
            .include_imports(true)
            .compile(&["grpc/testing/test.proto"])
            .expect("the interop schema compiles");
        let set_path = scripts.join("interop.pb");
        std::fs::write(&set_path, set.encode_to_vec()).unwrap();
        let mut child = std::process::Command::new("node")
            .arg(scripts.join("server.mjs"))
            .arg(&set_path)
            .arg(http_version)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("node runs");
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().expect("piped")),
            &mut line,
        )
        .expect("the server says where it listens");
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
            .to_owned();
        NodeServer { child, addr }
    }
}

impl Drop for NodeServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn the_connect_client_calls_connect_node() {
    let test = "Connect client against connect-node";
    let Some(npm) = fastrs_test_tools::npm_packages(test, "tools", &root().join("tests/npm")) else {
        return;
    };
    let mut failures = Vec::new();
    for (http_version, runs) in [
        (
            "1.1",
            [("HTTP/1.1 binary", false, false), ("HTTP/1.1 JSON", false, true)],
        ),
        ("2", [("HTTP/2 binary", true, false), ("HTTP/2 JSON", true, true)]),
    ] {
        let server = NodeServer::start(&npm, http_version);
        let base = format!("http://{}", server.addr);
        let run = tokio::time::timeout(std::time::Duration::from_secs(60), run_cases(&base, &runs));
        failures.extend(run.await.expect("the cases end within 60 s"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// GET, as generated clients call methods marked `NO_SIDE_EFFECTS`:
/// interop-server allows it for `CacheableUnaryCall` (cacheable by gRPC's
/// description), in both codecs, and refuses it for other methods.
#[tokio::test]
async fn the_connect_client_calls_with_get() {
    let server = ServerProcess::start();
    let base = format!("http://{}", server.addr);
    for client in [ConnectClient::new(&base), ConnectClient::new(&base).json(pool())] {
        let request = tonic::Request::new(pb::SimpleRequest {
            response_size: 7,
            ..Default::default()
        });
        let answer: tonic::Response<pb::SimpleResponse> = client
            .unary_get("/grpc.testing.TestService/CacheableUnaryCall", request)
            .await
            .expect("GET is allowed");
        assert_eq!(answer.get_ref().payload.as_ref().map(|p| p.body.len()), Some(7));
        let refused = client
            .unary_get::<_, pb::Empty>(
                "/grpc.testing.TestService/EmptyCall",
                tonic::Request::new(pb::Empty::default()),
            )
            .await
            .expect_err("EmptyCall may have side effects");
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
    }
}

/// Answers read as zero-copy views, in both codecs: the payload borrows
/// from the answer's bytes.
#[tokio::test]
async fn the_connect_client_reads_answers_as_views() {
    let server = ServerProcess::start();
    let base = format!("http://{}", server.addr);
    for client in [ConnectClient::new(&base), ConnectClient::new(&base).json(pool())] {
        let request = tonic::Request::new(pb::SimpleRequest {
            response_size: 5000,
            ..Default::default()
        });
        let answer: fastrs::OwnedView<pb::SimpleResponse> = client
            .unary_view("/grpc.testing.TestService/UnaryCall", request)
            .await
            .expect("answered")
            .into_inner();
        let body = answer.get().payload.as_ref().map(|p| p.body);
        assert_eq!(body.map(<[u8]>::len), Some(5000));
        let bytes = answer.bytes().as_ptr_range();
        assert!(
            body.is_some_and(|b| bytes.contains(&b.as_ptr())),
            "borrowed from the answer"
        );
    }
}

/// The sign-up service (generated with validation) through tonic's gRPC
/// client and the generated Connect client: the server refuses an invalid
/// request with its violations; the Connect client does not even send it
/// (the same status, without a round trip); a valid one goes through.
#[tokio::test]
async fn services_with_validation_refuse_invalid_requests() {
    use fastrs_grpc_interop::signup::signup_client::SignupClient;
    use fastrs_grpc_interop::signup::signup_connect_client::SignupConnectClient;
    use fastrs_grpc_interop::signup::{Address, CreateAccountRequest};
    let server = ServerProcess::start();
    let base = format!("http://{}", server.addr);
    let invalid = CreateAccountRequest {
        email: "nope".into(),
        ..Default::default()
    };
    let valid = CreateAccountRequest {
        email: "ada@example.com".into(),
        name: "Ada".into(),
        age: 36,
        address: Some(Address {
            line1: "1 Sq".into(),
            city: "London".into(),
            country: "GB".into(),
            ..Default::default()
        }),
        password: "correct horse".into(),
        password_confirmation: "correct horse".into(),
        ..Default::default()
    };
    let ids = |status: &tonic::Status| -> Vec<String> {
        fastrs_tonic::validate::violations(status)
            .expect("violations in the details")
            .violations
            .iter()
            .map(|v| v.rule_id.as_deref().unwrap_or("").to_string())
            .collect()
    };
    let expected = [
        "string.email",
        "string.min_len",
        "uint32.gte_lte",
        "required",
        "string.min_len",
    ];

    let mut grpc = SignupClient::connect(base.clone()).await.expect("connects");
    let refused = grpc.create_account(invalid.clone()).await.expect_err("refused");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert_eq!(ids(&refused), expected);
    assert_eq!(
        grpc.create_account(valid.clone()).await.expect("valid").into_inner().id,
        1
    );

    let connect = SignupConnectClient::new(ConnectClient::new(&base));
    let not_sent = connect.create_account(invalid).await.expect_err("not sent");
    assert_eq!(not_sent.code(), tonic::Code::InvalidArgument);
    assert_eq!(ids(&not_sent), ids(&refused));
    assert_eq!(connect.create_account(valid).await.expect("valid").into_inner().id, 1);
}
