//! `grpc.testing.TestService` as the interop test description asks: payloads
//! of the requested sizes, echoed statuses and metadata, streams paced by
//! their parameters. `UnimplementedCall` and every method of
//! `UnimplementedService` answer `UNIMPLEMENTED` (tonic answers so for
//! services it does not serve).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt as _;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt as _};
use tonic::body::Body;
use tonic::codegen::http;
use tonic::server::NamedService;
use tonic::{Code, Request, Response, Status, Streaming};

// `super::pb`, not `crate::pb`: the interop tests compile this file again
// over prost's types of the same schema, for the tonic-prost side.
use super::pb::test_service_server::{TestService, TestServiceServer};
use super::pb::{self, EchoStatus, Payload, PayloadType, ResponseParameters};

/// Metadata the `custom_metadata` case sends and expects back: the first
/// in the response headers, the second in its trailers.
pub const ECHO_INITIAL: &str = "x-grpc-test-echo-initial";
pub const ECHO_TRAILING: &str = "x-grpc-test-echo-trailing-bin";
/// Not in the interop description: with this header, an echoed status of
/// `UnaryCall` or `StreamingOutputCall` carries details (an encoded
/// `google.rpc.Status` whose one detail is the `EchoStatus` asked for),
/// for clients of protocols with error details to check them. Without it
/// the server answers as the description says.
pub const ECHO_DETAILS: &str = "x-fastrs-test-echo-details";

/// Serves `TestService` on `listener` until the process ends.
///
/// # Errors
/// The transport's, if serving fails.
pub async fn serve(listener: tokio::net::TcpListener) -> Result<(), tonic::transport::Error> {
    // Without TCP_NODELAY, small answers wait for delayed ACKs (40 ms).
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
    tonic::transport::Server::builder()
        .add_service(service_with_echo())
        .serve_with_incoming(incoming)
        .await
}

/// The service, wrapped to echo the `custom_metadata` headers and to record
/// which request messages were compressed, ready for a tonic server.
pub fn service_with_echo() -> impl tower_service::Service<
    http::Request<Body>,
    Response = http::Response<Body>,
    Error = Infallible,
    Future = impl Send + 'static,
> + NamedService
       + Clone
       + Send
       + Sync
       + 'static {
    EchoMetadata(service())
}

/// Binds 127.0.0.1:`port` (0: any free port) and returns the listener and
/// the address it got.
///
/// # Errors
/// The port is taken.
pub async fn bind(port: u16) -> std::io::Result<(tokio::net::TcpListener, SocketAddr)> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    Ok((listener, addr))
}

/// The service, accepting and sending gzip.
fn service() -> TestServiceServer<Interop> {
    use tonic::codec::CompressionEncoding::Gzip;
    TestServiceServer::new(Interop)
        .accept_compressed(Gzip)
        .send_compressed(Gzip)
        .max_decoding_message_size(16 << 20)
        .max_encoding_message_size(16 << 20)
}

/// The implementation of `TestService`.
#[derive(Debug, Clone, Copy)]
pub struct Interop;

/// A payload of `size` zero bytes.
///
/// # Errors
/// A negative size.
pub fn payload(size: i32) -> Result<Payload, Status> {
    let size = usize::try_from(size).map_err(|_| Status::invalid_argument("negative payload size"))?;
    Ok(Payload {
        r#type: PayloadType::Compressable.into(),
        body: std::iter::repeat_n(0, size).collect(), // a `Vec` or `Bytes`, by the schema's generator
        ..Default::default()
    })
}

/// True if the (first) message of `request` came compressed, as the
/// service's wrapper recorded it.
fn request_compressed<T>(request: &Request<T>) -> bool {
    request
        .extensions()
        .get::<super::frames::CompressedFlags>()
        .is_some_and(|flags| flags.get().first() == Some(&true))
}

/// The status a request asks to be answered with, if any.
fn requested_status(status: Option<&EchoStatus>, details: bool) -> Option<Status> {
    let s = status?;
    if s.code == 0 {
        return None;
    }
    let code = Code::from_i32(s.code);
    if !details {
        return Some(Status::new(code, s.message.clone()));
    }
    Some(Status::with_details(code, s.message.clone(), status_details(s).into()))
}

/// `google.rpc.Status { code, message, details: [Any(status)] }`, encoded
/// by hand: this file is compiled over prost's types too. `EchoStatus`
/// has the same first two fields as `google.rpc.Status`.
fn status_details(status: &EchoStatus) -> Vec<u8> {
    fn varint(out: &mut Vec<u8>, mut v: u64) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    fn bytes(out: &mut Vec<u8>, field: u8, value: &[u8]) {
        out.push(field << 3 | 2);
        varint(out, value.len() as u64);
        out.extend_from_slice(value);
    }
    let mut echo = vec![0x08];
    // int32 on the wire: sign-extended to 64 bits.
    varint(&mut echo, i64::from(status.code) as u64);
    bytes(&mut echo, 2, status.message.as_bytes());
    let mut any = Vec::new();
    bytes(&mut any, 1, b"type.googleapis.com/grpc.testing.EchoStatus");
    bytes(&mut any, 2, &echo);
    let mut out = echo;
    bytes(&mut out, 3, &any);
    out
}

type Responses = Pin<Box<dyn Stream<Item = Result<pb::StreamingOutputCallResponse, Status>> + Send>>;

/// Answers each request of `requests` with its responses, as they come
/// (`FullDuplexCall`) or all at the end (`HalfDuplexCall`).
fn answer_stream(mut requests: Streaming<pb::StreamingOutputCallRequest>, wait_for_all: bool) -> Responses {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Some(request) = requests.next().await {
            match request {
                Ok(r) if wait_for_all => held.push(r),
                Ok(r) => {
                    if !send_responses(&tx, &r, false).await {
                        return;
                    }
                }
                Err(status) => {
                    let _ = tx.send(Err(status)).await;
                    return;
                }
            }
        }
        for r in &held {
            if !send_responses(&tx, r, false).await {
                return;
            }
        }
    });
    Box::pin(ReceiverStream::new(rx))
}

/// Sends the responses one request asks for (or the status it asks for);
/// false once the client is gone or a status ended the call.
async fn send_responses(
    tx: &mpsc::Sender<Result<pb::StreamingOutputCallResponse, Status>>,
    request: &pb::StreamingOutputCallRequest,
    details: bool,
) -> bool {
    if let Some(status) = requested_status(request.response_status.as_ref(), details) {
        let _ = tx.send(Err(status)).await;
        return false;
    }
    for p in &request.response_parameters {
        if !send_one(tx, p).await {
            return false;
        }
    }
    true
}

async fn send_one(tx: &mpsc::Sender<Result<pb::StreamingOutputCallResponse, Status>>, p: &ResponseParameters) -> bool {
    if p.interval_us > 0 {
        tokio::time::sleep(Duration::from_micros(p.interval_us.unsigned_abs().into())).await;
    }
    let response = payload(p.size).map(|payload| pb::StreamingOutputCallResponse {
        payload: Some(payload),
        ..Default::default()
    });
    tx.send(response).await.is_ok()
}

#[tonic::async_trait]
impl TestService for Interop {
    async fn empty_call(&self, _: Request<pb::Empty>) -> Result<Response<pb::Empty>, Status> {
        Ok(Response::new(pb::Empty::default()))
    }

    async fn unary_call(&self, request: Request<pb::SimpleRequest>) -> Result<Response<pb::SimpleResponse>, Status> {
        let compressed = request_compressed(&request);
        let details = request.metadata().contains_key(ECHO_DETAILS);
        let request = request.into_inner();
        if let Some(status) = requested_status(request.response_status.as_ref(), details) {
            return Err(status);
        }
        let expected = request.expect_compressed.as_ref().is_some_and(|b| b.value);
        if expected && !compressed {
            return Err(Status::invalid_argument("expected a compressed request"));
        }
        let mut response = Response::new(pb::SimpleResponse {
            payload: Some(payload(request.response_size)?),
            ..Default::default()
        });
        // The server compresses what it may (the client accepts gzip);
        // a unary response is compressed only when the request asks.
        if !request.response_compressed.as_ref().is_some_and(|b| b.value) {
            response.disable_compression();
        }
        Ok(response)
    }

    async fn cacheable_unary_call(
        &self,
        request: Request<pb::SimpleRequest>,
    ) -> Result<Response<pb::SimpleResponse>, Status> {
        self.unary_call(request).await
    }

    type StreamingOutputCallStream = Responses;

    async fn streaming_output_call(
        &self,
        request: Request<pb::StreamingOutputCallRequest>,
    ) -> Result<Response<Responses>, Status> {
        let details = request.metadata().contains_key(ECHO_DETAILS);
        let request = request.into_inner();
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move { send_responses(&tx, &request, details).await });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn streaming_input_call(
        &self,
        request: Request<Streaming<pb::StreamingInputCallRequest>>,
    ) -> Result<Response<pb::StreamingInputCallResponse>, Status> {
        let mut requests = request.into_inner();
        let mut total = 0usize;
        while let Some(r) = requests.next().await {
            total += r?.payload.map_or(0, |p| p.body.len());
        }
        let aggregated_payload_size =
            i32::try_from(total).map_err(|_| Status::out_of_range("more than 2 GiB of payload"))?;
        Ok(Response::new(pb::StreamingInputCallResponse {
            aggregated_payload_size,
            ..Default::default()
        }))
    }

    type FullDuplexCallStream = Responses;

    async fn full_duplex_call(
        &self,
        request: Request<Streaming<pb::StreamingOutputCallRequest>>,
    ) -> Result<Response<Responses>, Status> {
        Ok(Response::new(answer_stream(request.into_inner(), false)))
    }

    type HalfDuplexCallStream = Responses;

    async fn half_duplex_call(
        &self,
        request: Request<Streaming<pb::StreamingOutputCallRequest>>,
    ) -> Result<Response<Responses>, Status> {
        Ok(Response::new(answer_stream(request.into_inner(), true)))
    }

    async fn unimplemented_call(&self, _: Request<pb::Empty>) -> Result<Response<pb::Empty>, Status> {
        Err(Status::unimplemented(
            "UnimplementedCall is not implemented, as the interop tests expect",
        ))
    }
}

/// Wraps the service so that calls echo the `custom_metadata` headers (the
/// initial one into the response headers, the binary one into the trailers:
/// tonic's handlers cannot set trailers of a successful call), and so that
/// handlers see which request messages were compressed
/// ([`super::frames::CompressedFlags`]: tonic hides the flag).
#[derive(Debug, Clone)]
struct EchoMetadata<S>(S);

impl<S: NamedService> NamedService for EchoMetadata<S> {
    const NAME: &'static str = S::NAME;
}

impl<S> tower_service::Service<http::Request<Body>> for EchoMetadata<S>
where
    S: tower_service::Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let initial = request.headers().get(ECHO_INITIAL).cloned();
        let trailing = request.headers().get(ECHO_TRAILING).cloned();
        let response = self.0.call(super::frames::flag_request(request));
        Box::pin(async move {
            let mut response = response.await?;
            if let Some(value) = initial {
                response.headers_mut().insert(ECHO_INITIAL, value);
            }
            let Some(value) = trailing else {
                return Ok(response);
            };
            Ok(response.map(|body| {
                let mut trailers = http::HeaderMap::new();
                trailers.insert(ECHO_TRAILING, value);
                Body::new(body.with_trailers(async move { Some(Ok(trailers)) }))
            }))
        })
    }
}
