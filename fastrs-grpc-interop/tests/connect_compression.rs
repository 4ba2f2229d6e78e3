//! Connect's compression reaches the service as gRPC compression, in
//! process (no sockets): a gzipped request arrives at the handler as a
//! compressed message (so `expect_compressed` holds), an answer is gzipped
//! exactly when the service would gzip it over gRPC (so a handler's
//! `disable_compression` holds), and a service that takes no gzip still
//! reads gzipped Connect requests.

use std::convert::Infallible;
use std::io::{Read as _, Write as _};

use bytes::Bytes;
use fastrs::Message as _;
use fastrs_grpc_interop::pb;
use fastrs_tonic::connect::ConnectLayer;
use http_body_util::BodyExt as _;
use tonic::body::Body;
use tonic::codegen::http;
use tower_layer::Layer as _;
use tower_service::Service;

const UNARY: &str = "/grpc.testing.TestService/UnaryCall";

/// The interop service (gzip both ways, compressed flags recorded) behind
/// Connect.
fn with_gzip() -> impl Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible> {
    ConnectLayer::new(pool()).layer(fastrs_grpc_interop::server::service_with_echo())
}

/// The interop service as tonic builds it by default: no gzip either way.
fn without_gzip() -> impl Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible> {
    let service = pb::test_service_server::TestServiceServer::new(fastrs_grpc_interop::server::Interop);
    ConnectLayer::new(pool()).layer(service)
}

fn pool() -> fastrs::reflect::DescriptorPool {
    let mut pool = fastrs::reflect::DescriptorPool::new();
    pool.add_described::<pb::Empty>().expect("the interop schema");
    pool
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut out)
        .expect("gunzips");
    out
}

fn flag(value: bool) -> Option<pb::BoolValue> {
    Some(pb::BoolValue {
        value,
        ..Default::default()
    })
}

/// A binary `SimpleRequest` asking for `size` bytes of payload.
fn request(size: i32, expect_compressed: bool, response_compressed: bool) -> Vec<u8> {
    pb::SimpleRequest {
        response_size: size,
        expect_compressed: flag(expect_compressed),
        response_compressed: flag(response_compressed),
        ..Default::default()
    }
    .encode_to_vec()
}

/// A Connect answer: its status, `content-encoding` and body.
struct Answer {
    status: u16,
    encoding: Option<String>,
    body: Vec<u8>,
}

impl Answer {
    /// The body as it reads once gunzipped, if it was gzipped.
    fn plain(&self) -> Vec<u8> {
        match self.encoding.as_deref() {
            Some("gzip") => gunzip(&self.body),
            _ => self.body.clone(),
        }
    }
}

/// Calls `service` with `request`, on a runtime of its own.
fn call<S>(mut service: S, request: http::Request<Body>) -> Answer
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
{
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    runtime.block_on(async move {
        let Ok(()) = std::future::poll_fn(|cx| service.poll_ready(cx)).await;
        let Ok(response) = service.call(request).await;
        let (parts, body) = response.into_parts();
        let encoding = parts
            .headers
            .get("content-encoding")
            .map(|v| v.to_str().unwrap().to_owned());
        let body = body.collect().await.expect("the body reads").to_bytes().to_vec();
        Answer {
            status: parts.status.as_u16(),
            encoding,
            body,
        }
    })
}

/// A unary Connect POST of `body` in `content_type`.
fn post(content_type: &str, headers: &[(&str, &str)], body: Vec<u8>) -> http::Request<Body> {
    let mut request = http::Request::post(UNARY).header("content-type", content_type);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(Body::new(http_body_util::Full::new(Bytes::from(body))))
        .unwrap()
}

#[test]
fn a_gzipped_request_reaches_the_handler_compressed() {
    let gzipped = [("content-encoding", "gzip")];
    let answer = call(
        with_gzip(),
        post("application/proto", &gzipped, gzip(&request(3, true, false))),
    );
    assert_eq!(answer.status, 200, "{}", String::from_utf8_lossy(&answer.body));

    let json = gzip(br#"{"responseSize": 3, "expectCompressed": {"value": true}}"#);
    let answer = call(with_gzip(), post("application/json", &gzipped, json));
    assert_eq!(answer.status, 200, "{}", String::from_utf8_lossy(&answer.body));

    // A GET's message, gzipped in the query (`compression=gzip`).
    let message = gzip(&request(3, true, false));
    let query: String = message.iter().map(|b| format!("%{b:02X}")).collect();
    let uri = format!("/grpc.testing.TestService/UnaryCall?connect=v1&encoding=proto&compression=gzip&message={query}");
    let get = http::Request::get(uri).body(Body::empty()).unwrap();
    let service = ConnectLayer::new(pool())
        .allow_get("grpc.testing.TestService/UnaryCall")
        .layer(fastrs_grpc_interop::server::service_with_echo());
    let answer = call(service, get);
    assert_eq!(answer.status, 200, "{}", String::from_utf8_lossy(&answer.body));

    // The probe the other way: a plain request that claims compression is
    // refused by the handler, as over gRPC.
    let answer = call(with_gzip(), post("application/proto", &[], request(3, true, false)));
    assert_eq!(answer.status, 400, "{}", String::from_utf8_lossy(&answer.body));
    assert!(String::from_utf8_lossy(&answer.body).contains("expected a compressed request"));
}

#[test]
fn the_handler_decides_whether_the_answer_is_gzipped() {
    let accepts = [("accept-encoding", "gzip")];
    for (content_type, body) in [
        ("application/proto", request(4000, false, false)),
        ("application/json", br#"{"responseSize": 4000}"#.to_vec()),
    ] {
        let answer = call(with_gzip(), post(content_type, &accepts, body));
        assert_eq!(answer.status, 200);
        assert_eq!(
            answer.encoding, None,
            "{content_type}: the handler turned compression off"
        );
    }

    let answer = call(
        with_gzip(),
        post("application/proto", &accepts, request(4000, false, true)),
    );
    assert_eq!(answer.encoding.as_deref(), Some("gzip"));
    let response = pb::SimpleResponse::decode(&answer.plain()).expect("a SimpleResponse");
    assert_eq!(response.payload.map(|p| p.body.len()), Some(4000));

    let json = br#"{"responseSize": 4000, "responseCompressed": {"value": true}}"#.to_vec();
    let answer = call(with_gzip(), post("application/json", &accepts, json));
    assert_eq!(answer.encoding.as_deref(), Some("gzip"));
    let json: serde_json::Value = serde_json::from_slice(&answer.plain()).expect("JSON");
    assert_eq!(json["payload"]["body"].as_str().map(str::len), Some(5336), "{json}");

    // A caller that does not accept gzip gets it plain, whatever was asked.
    let answer = call(with_gzip(), post("application/proto", &[], request(4000, false, true)));
    assert_eq!(answer.encoding, None);
}

#[test]
fn a_service_without_gzip_still_reads_gzipped_connect_requests() {
    let headers = [("content-encoding", "gzip"), ("accept-encoding", "gzip")];
    let answer = call(
        without_gzip(),
        post("application/proto", &headers, gzip(&request(4000, false, true))),
    );
    assert_eq!(answer.status, 200, "{}", String::from_utf8_lossy(&answer.body));
    assert_eq!(answer.encoding, None, "the service sends no gzip, over gRPC or Connect");
    let response = pb::SimpleResponse::decode(&answer.body).expect("a SimpleResponse");
    assert_eq!(response.payload.map(|p| p.body.len()), Some(4000));

    let json = gzip(br#"{"responseSize": 5}"#);
    let answer = call(without_gzip(), post("application/json", &headers, json));
    assert_eq!(answer.status, 200, "{}", String::from_utf8_lossy(&answer.body));

    let answer = call(
        without_gzip(),
        post("application/proto", &headers, b"not gzip".to_vec()),
    );
    assert_eq!(answer.status, 400, "{}", String::from_utf8_lossy(&answer.body));
}
