//! gRPC interop on 127.0.0.1: every case of the interop test description
//! between the fastrs binaries, then with a tonic + prost implementation
//! (generated from the same `.proto` by tonic-prost-build) on the other
//! side, both ways; then what the cases do not cover: malformed requests,
//! message size limits, gzip, concurrent calls. Servers run as processes
//! or tasks that the tests stop; every wait is bounded.

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fastrs_grpc_interop::CASES;
use tonic::transport::{Channel, Endpoint};

mod common;
use common::ServerProcess;

// tonic + prost: the same server and cases compiled over prost's types and
// `tonic_prost::ProstCodec` (they name `super::pb`, here prost's).
#[allow(clippy::all, missing_docs, dead_code)]
mod pb {
    include!(concat!(env!("OUT_DIR"), "/prost/grpc.testing.rs"));
}
// prost's structs have no unknown-fields member, so `..Default::default()`
// fills nothing there.
#[allow(clippy::needless_update)]
#[path = "../src/cases.rs"]
mod cases;
#[allow(dead_code, clippy::needless_update)]
#[path = "../src/server.rs"]
mod server;

// The message-flag reader is independent of the messages.
mod frames {
    pub(crate) use fastrs_grpc_interop::frames::*;
}

/// The tonic-prost side.
mod prost_side {
    pub(crate) use super::{cases, server};
}

/// Runs `interop-client` for `case` against `addr`; its stderr on failure.
fn run_client_process(addr: SocketAddr, case: &str) -> Result<(), String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_interop-client"))
        .args(["--server_host", "127.0.0.1", "--server_port", &addr.port().to_string()])
        .args(["--test_case", case])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("interop-client starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            if status.success() {
                return Ok(());
            }
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(&mut child.stderr.take().expect("piped"), &mut err);
            return Err(format!("{case}: {status}: {err}"));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(format!("{case}: no answer in 30 s"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

async fn connect(addr: SocketAddr) -> Channel {
    Endpoint::from_shared(format!("http://{addr}"))
        .expect("an address")
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .expect("connects")
}

fn all_pass(failures: Vec<String>) {
    assert!(failures.is_empty(), "failed cases:\n{}", failures.join("\n"));
}

#[test]
fn fastrs_client_and_fastrs_server_pass_every_case() {
    let server = ServerProcess::start();
    let failures = CASES
        .iter()
        .filter_map(|case| run_client_process(server.addr, case).err())
        .collect();
    all_pass(failures);
}

#[test]
fn fastrs_client_passes_every_case_against_a_tonic_prost_server() {
    let rt = runtime();
    let (listener, addr) = rt.block_on(prost_side::server::bind(0)).expect("binds");
    let serving = rt.spawn(prost_side::server::serve(listener));
    let failures = CASES
        .iter()
        .filter_map(|case| run_client_process(addr, case).err())
        .collect();
    serving.abort();
    all_pass(failures);
}

#[test]
fn tonic_prost_client_passes_every_case_against_the_fastrs_server() {
    let server = ServerProcess::start();
    let rt = runtime();
    let failures = rt.block_on(async {
        let channel = connect(server.addr).await;
        let mut failures = Vec::new();
        for case in CASES {
            let run = prost_side::cases::run(case, channel.clone());
            match tokio::time::timeout(Duration::from_secs(30), run).await {
                Ok(Ok(())) => {}
                Ok(Err(why)) => failures.push(format!("{case}: {why}")),
                Err(_) => failures.push(format!("{case}: no answer in 30 s")),
            }
        }
        failures
    });
    all_pass(failures);
}

#[test]
fn a_malformed_request_gets_a_clear_status_and_the_server_keeps_serving() {
    use fastrs::Message as _;
    let server = ServerProcess::start();
    let rt = runtime();
    rt.block_on(async {
        let channel = connect(server.addr).await;
        // Field 2 (response_size) with a varint cut short.
        let status = fastrs_grpc_interop::raw::unary(channel.clone(), vec![0x10, 0x80])
            .await
            .expect_err("malformed");
        assert_eq!(status.code(), tonic::Code::Internal, "{status:?}");
        assert!(
            status.message().contains("grpc.testing.SimpleRequest"),
            "{}",
            status.message()
        );
        // A well-formed one on the same connection still works.
        let request = fastrs_grpc_interop::pb::SimpleRequest {
            response_size: 3,
            ..Default::default()
        };
        let answer = fastrs_grpc_interop::raw::unary(channel, request.encode_to_vec())
            .await
            .expect("served");
        let response = fastrs_grpc_interop::pb::SimpleResponse::decode(&answer).expect("decodes");
        assert_eq!(response.payload.map(|p| p.body.len()), Some(3));
    });
}

#[test]
fn large_messages_gzip_and_concurrent_calls() {
    use fastrs_grpc_interop::pb::test_service_client::TestServiceClient;
    use fastrs_grpc_interop::pb::SimpleRequest;
    use tonic::codec::CompressionEncoding::Gzip;
    let server = ServerProcess::start();
    let rt = runtime();
    rt.block_on(async {
        let channel = connect(server.addr).await;
        let big = |n: i32| SimpleRequest {
            response_size: n,
            ..Default::default()
        };
        // Past tonic's default 4 MiB receive limit: refused with a clear status.
        let mut strict = TestServiceClient::new(channel.clone());
        let status = strict.unary_call(big(5 << 20)).await.expect_err("over the limit");
        assert_eq!(status.code(), tonic::Code::OutOfRange, "{status:?}");
        // Raised: 15 MiB comes through, and so does a 15 MiB request.
        let mut roomy = TestServiceClient::new(channel.clone())
            .max_decoding_message_size(16 << 20)
            .max_encoding_message_size(16 << 20);
        let r = roomy
            .unary_call(big(15 << 20))
            .await
            .expect("15 MiB response")
            .into_inner();
        assert_eq!(r.payload.map(|p| p.body.len()), Some(15 << 20));
        let upload = SimpleRequest {
            payload: Some(fastrs_grpc_interop::server::payload(15 << 20).expect("size")),
            ..big(1)
        };
        roomy.unary_call(upload).await.expect("15 MiB request");
        // gzip both ways (a unary response is compressed when asked).
        let mut zipped = TestServiceClient::new(channel.clone())
            .send_compressed(Gzip)
            .accept_compressed(Gzip);
        let request = SimpleRequest {
            response_compressed: Some(fastrs_grpc_interop::pb::BoolValue {
                value: true,
                ..Default::default()
            }),
            ..big(314_159)
        };
        let r = zipped.unary_call(request).await.expect("gzip").into_inner();
        assert_eq!(r.payload.map(|p| p.body.len()), Some(314_159));
        // 64 calls at once on one connection.
        let calls = (0..64).map(|i| {
            let mut client = TestServiceClient::new(channel.clone());
            async move { client.unary_call(big(i * 100)).await.map(|r| r.into_inner()) }
        });
        let results = futures_join_all(calls).await;
        for (i, r) in results.into_iter().enumerate() {
            let len = r.expect("concurrent call").payload.map_or(0, |p| p.body.len());
            assert_eq!(len, i * 100);
        }
    });
}

/// Runs futures concurrently and collects their outputs in order.
async fn futures_join_all<F: std::future::Future + Send + 'static>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("task"));
    }
    out
}

/// The project's copies of the interop schemas declare what gRPC's do
/// (names, numbers, types, services), when gRPC's are beside the repository.
#[test]
fn schemas_match_grpcs_originals() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let original = root.join("../../shared/corpus/grpc-proto");
    if !original.join("grpc/testing/test.proto").exists() {
        eprintln!("gRPC's schemas are not beside the repository: comparison skipped");
        return;
    }
    let files = [
        "grpc/testing/empty.proto",
        "grpc/testing/messages.proto",
        "grpc/testing/test.proto",
    ];
    let parse = |dir: std::path::PathBuf| {
        let paths: Vec<_> = files.iter().map(|f| dir.join(f)).collect();
        let set = protoc_gen_fastrs::Builder::new()
            .parse(&paths, &[&dir])
            .expect("parses")
            .set;
        files
            .iter()
            .map(|name| {
                let mut file = set.file.iter().find(|f| f.name() == *name).expect("declared").clone();
                // Comments and language options are not wire facts.
                file.source_code_info = None;
                file.options = None;
                file
            })
            .collect::<Vec<_>>()
    };
    let ours = parse(root.join("proto"));
    let theirs = parse(original);
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b, "{} differs from gRPC's", a.name());
    }
}

/// `interop-server` serves gRPC's health and reflection services: a client
/// lists the services and fetches a schema through reflection (both
/// versions), and checks and watches health.
#[test]
fn reflection_lists_services_and_health_answers() {
    use fastrs::Message as _;
    use fastrs_tonic::health::v1::health_client::HealthClient;
    use fastrs_tonic::health::v1::HealthCheckRequest;
    use fastrs_tonic::health::ServingStatus;
    use fastrs_tonic::reflection::{v1, v1alpha};
    use v1::server_reflection_request::MessageRequest;
    use v1::server_reflection_response::MessageResponse;

    let server = ServerProcess::start();
    let rt = runtime();
    rt.block_on(async {
        let channel = connect(server.addr).await;
        let ask = |request: MessageRequest| v1::ServerReflectionRequest {
            host: "127.0.0.1".into(),
            message_request: Some(request),
            ..Default::default()
        };
        let requests = vec![
            ask(MessageRequest::ListServices(String::new())),
            ask(MessageRequest::FileContainingSymbol(
                "grpc.testing.SimpleRequest".into(),
            )),
            ask(MessageRequest::FileByFilename("no/such.proto".into())),
        ];
        let mut client = v1::server_reflection_client::ServerReflectionClient::new(channel.clone());
        let mut answers = client
            .server_reflection_info(tokio_stream::iter(requests))
            .await
            .expect("reflection call")
            .into_inner();
        let mut replies = Vec::new();
        while let Some(answer) = answers.message().await.expect("an answer") {
            replies.push(answer.message_response);
        }
        let mut replies = replies.into_iter();
        let mut next = || replies.next().expect("one answer per request");

        let Some(MessageResponse::ListServicesResponse(list)) = next() else {
            panic!("not a service list")
        };
        let mut names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        for want in [
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
            "grpc.testing.TestService",
        ] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }

        let Some(MessageResponse::FileDescriptorResponse(files)) = next() else {
            panic!("no file for the symbol")
        };
        let files: Vec<_> = files
            .file_descriptor_proto
            .iter()
            .map(|b| fastrs::descriptor::FileDescriptorProto::decode(b).expect("a file descriptor"))
            .collect();
        assert_eq!(files[0].name(), "grpc/testing/messages.proto");
        assert!(files[0].message_type.iter().any(|m| m.name() == "SimpleRequest"));

        let Some(MessageResponse::ErrorResponse(e)) = next() else {
            panic!("no error for a missing file")
        };
        assert_eq!(e.error_code, tonic::Code::NotFound as i32, "{}", e.error_message);

        // The older version answers alike.
        let mut alpha = v1alpha::server_reflection_client::ServerReflectionClient::new(channel.clone());
        let request = v1alpha::ServerReflectionRequest {
            message_request: Some(v1alpha::server_reflection_request::MessageRequest::ListServices(
                String::new(),
            )),
            ..Default::default()
        };
        let answer = alpha
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .expect("v1alpha call")
            .into_inner()
            .message()
            .await
            .expect("an answer")
            .expect("not the end");
        assert!(matches!(
            answer.message_response,
            Some(v1alpha::server_reflection_response::MessageResponse::ListServicesResponse(l)) if l.service.len() >= 4
        ));

        // Health.
        let mut health = HealthClient::new(channel);
        let check = |service: &str| HealthCheckRequest {
            service: service.into(),
            ..Default::default()
        };
        for service in ["", "grpc.testing.TestService"] {
            let status = health.check(check(service)).await.expect("known").into_inner().status;
            assert_eq!(status, ServingStatus::Serving, "{service:?}");
        }
        let unknown = health.check(check("no.Such")).await.expect_err("unknown");
        assert_eq!(unknown.code(), tonic::Code::NotFound);
        let mut watch = health
            .watch(check("grpc.testing.TestService"))
            .await
            .expect("watch")
            .into_inner();
        let first = watch.message().await.expect("a status").expect("not the end");
        assert_eq!(first.status, ServingStatus::Serving);
    });
}

#[test]
fn responses_decode_into_owned_views_that_cross_tasks() {
    use fastrs_grpc_interop::pb::{SimpleRequest, SimpleResponse};
    use fastrs_tonic::FastrsViewCodec;
    let server = ServerProcess::start();
    let rt = runtime();
    rt.block_on(async {
        let mut grpc = tonic::client::Grpc::new(connect(server.addr).await);
        grpc.ready().await.expect("ready");
        let path = tonic::codegen::http::uri::PathAndQuery::from_static("/grpc.testing.TestService/UnaryCall");
        let request = SimpleRequest {
            response_size: 5000,
            ..Default::default()
        };
        let codec = FastrsViewCodec::<SimpleRequest, SimpleResponse>::default();
        let response = grpc
            .unary(tonic::Request::new(request), path, codec)
            .await
            .expect("served");
        let view: fastrs::OwnedView<SimpleResponse> = response.into_inner();
        // `Send + 'static`: the view moves to another task with its bytes.
        let body_len = tokio::spawn(async move {
            let body = view.get().payload.as_ref().map(|p| p.body);
            assert!(body.is_some_and(|b| b.iter().all(|&x| x == 0)));
            let frame = view.bytes().as_ptr_range();
            assert!(
                body.is_some_and(|b| frame.contains(&b.as_ptr())),
                "borrowed from the frame"
            );
            assert_eq!(view.to_message().payload.map(|p| p.body.len()), Some(5000));
            body.map_or(0, <[u8]>::len)
        })
        .await
        .expect("the task ran");
        assert_eq!(body_len, 5000);
    });
}
