//! The Connect protocol (and, with `tonic_web`, gRPC-Web) for the tonic
//! services fastrs generates: one implementation, three protocols, one port.
//!
//! [`ConnectLayer`] wraps a tonic server's routes. gRPC requests pass
//! through; Connect requests (unary over POST or GET, and streams, with the
//! binary or the JSON codec) are translated to gRPC calls of the same
//! routes and their answers written back in Connect's form: its error
//! model with details, its status codes, headers and trailers. JSON goes
//! through fastrs's JSON, by the descriptors of the services (a
//! [`DescriptorPool`]); the binary codec needs none.
//!
//! ```no_run
//! # async fn serve<S>(service: S, pool: fastrs::reflect::DescriptorPool) -> Result<(), Box<dyn std::error::Error>>
//! # where S: tonic::codegen::Service<tonic::codegen::http::Request<tonic::body::Body>, Response = tonic::codegen::http::Response<tonic::body::Body>, Error = std::convert::Infallible> + tonic::server::NamedService + Clone + Send + Sync + 'static, S::Future: Send + 'static {
//! tonic::transport::Server::builder()
//!     .accept_http1(true) // Connect and gRPC-Web over HTTP/1.1 too
//!     .layer(fastrs_tonic::connect::ConnectLayer::new(pool))
//!     .layer(tonic_web::GrpcWebLayer::new())
//!     .add_service(service)
//!     .serve("127.0.0.1:8080".parse()?)
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! Unary calls are read whole; streams flow frame by frame in both
//! directions (bidi needs HTTP/2, as in every Connect implementation).

#[cfg(feature = "connect-client")]
mod client;
mod compress;
mod cors;
mod grpc;
mod protocol;
mod stream;
mod transcode;

#[cfg(feature = "connect-client")]
pub use client::{ConnectClient, ConnectStreaming};
pub use cors::Cors;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use fastrs::reflect::{DescriptorPool, MessageDescriptor};
use http_body_util::BodyExt as _;
use tonic::body::Body;
use tonic::codegen::http::{self, HeaderMap, HeaderName, HeaderValue, StatusCode};
use tower_service::Service;

use grpc::{Answer, Message, Status};
use protocol::{Call, Codec, MAX_REQUEST};
use stream::{Direction, Envelopes, Rewrite};
use transcode::{binary_to_json, json_to_binary, method_of};

/// Serves Connect beside gRPC: a tower layer over tonic routes.
#[derive(Clone, Debug, Default)]
pub struct ConnectLayer {
    pool: Option<DescriptorPool>,
    /// Methods (`/pkg.Service/Method`) GET may call beside those marked
    /// `NO_SIDE_EFFECTS`.
    get: Arc<Vec<String>>,
    cors: Option<Cors>,
}

impl ConnectLayer {
    /// Connect with both codecs: JSON messages are read and written by the
    /// descriptors in `pool` (which must hold the services').
    #[must_use]
    pub fn new(pool: DescriptorPool) -> Self {
        ConnectLayer {
            pool: Some(pool),
            get: Arc::default(),
            cors: None,
        }
    }

    /// Lets browser pages of other origins call, by `cors` (for every
    /// protocol, gRPC-Web included).
    #[must_use]
    pub fn cors(mut self, cors: Cors) -> Self {
        self.cors = Some(cors);
        self
    }

    /// Lets GET call `method` (`pkg.Service/Method`) too, as it may call
    /// methods marked `idempotency_level = NO_SIDE_EFFECTS`: for methods
    /// free of side effects whose schema does not say so.
    #[must_use]
    pub fn allow_get(mut self, method: &str) -> Self {
        Arc::make_mut(&mut self.get).push(format!("/{}", method.trim_start_matches('/')));
        self
    }

    /// Connect with the binary codec only (no descriptors needed); JSON
    /// calls are refused with `unimplemented`.
    #[must_use]
    pub fn binary_only() -> Self {
        ConnectLayer {
            pool: None,
            get: Arc::default(),
            cors: None,
        }
    }
}

impl<S> tower_layer::Layer<S> for ConnectLayer {
    type Service = Connect<S>;

    fn layer(&self, inner: S) -> Connect<S> {
        Connect {
            inner,
            pool: self.pool.clone(),
            get: self.get.clone(),
            cors: self.cors.clone(),
        }
    }
}

/// The service [`ConnectLayer`] makes.
#[derive(Clone, Debug)]
pub struct Connect<S> {
    inner: S,
    pool: Option<DescriptorPool>,
    get: Arc<Vec<String>>,
    cors: Option<Cors>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T, Infallible>> + Send>>;

impl<S> Service<http::Request<Body>> for Connect<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<http::Response<Body>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let Some(cors) = self.cors.clone() else {
            return self.answer(request);
        };
        if let Some(preflight) = cors.preflight(&request) {
            return Box::pin(std::future::ready(Ok(preflight)));
        }
        let origin = request.headers().get(http::header::ORIGIN).cloned();
        let answer = self.answer(request);
        Box::pin(async move {
            let mut response = answer.await?;
            cors.decorate(origin.as_ref(), &mut response);
            Ok(response)
        })
    }
}

impl<S> Connect<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    /// Answers `request` in its protocol.
    fn answer(&mut self, request: http::Request<Body>) -> BoxFuture<http::Response<Body>> {
        let call = protocol::call_of(&request);
        if call == Call::Other && protocol::is_unsupported_media(&request) {
            return Box::pin(std::future::ready(Ok(unsupported_media())));
        }
        if call == Call::Other && !protocol::is_grpc_web_over_http1(&request) {
            let future = self.inner.call(request);
            return Box::pin(future);
        }
        // The ready service answers this call; a clone waits for the next.
        let inner = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, inner);
        let pool = self.pool.clone();
        let get = self.get.clone();
        if call == Call::Other {
            // gRPC-Web over HTTP/1.1 (browsers): read the request whole
            // first (it has one message: browsers cannot stream a request),
            // so that the connection stays usable however early the
            // service answers (an unknown method answers unread).
            return Box::pin(async move {
                let (parts, body) = request.into_parts();
                match read_body(body).await {
                    Ok(body) => inner.call(http::Request::from_parts(parts, full(body))).await,
                    Err(status) => Ok(grpc_web_error(&status)),
                }
            });
        }
        Box::pin(async move { Ok(Translation { inner, pool, get }.answer(call, request).await) })
    }
}

/// One Connect call, translated to gRPC and back.
struct Translation<S> {
    inner: S,
    pool: Option<DescriptorPool>,
    get: Arc<Vec<String>>,
}

impl<S> Translation<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible> + Clone,
{
    async fn answer(self, call: Call, request: http::Request<Body>) -> http::Response<Body> {
        let (parts, body) = request.into_parts();
        let path = parts.uri.path().to_owned();
        let metadata = metadata_of(&parts.headers);
        match call {
            Call::Unary(codec) => {
                let accept_gzip = compress::accepts_gzip(&parts.headers, "accept-encoding");
                let encoding = compress::is_gzip(&parts.headers, "content-encoding");
                let message = match (encoding, read_body(body).await) {
                    (Ok(gzipped), Ok(bytes)) => Message { bytes, gzipped },
                    (Err(status), _) | (_, Err(status)) => return unary_error(&status, &HeaderMap::new()),
                };
                self.unary(&path, codec, metadata, message, accept_gzip).await
            }
            Call::Get => match self.get_message(&path, parts.uri.query().unwrap_or("")) {
                Ok((codec, message)) => {
                    let accept_gzip = compress::accepts_gzip(&parts.headers, "accept-encoding");
                    self.unary(&path, codec, metadata, message, accept_gzip).await
                }
                Err(status) => unary_error(&status, &HeaderMap::new()),
            },
            Call::Stream(codec) => match compress::is_gzip(&parts.headers, "connect-content-encoding") {
                Ok(gunzip) => {
                    let options = StreamOptions {
                        gunzip,
                        gzip: compress::accepts_gzip(&parts.headers, "connect-accept-encoding"),
                        deadline: timeout_ms(&parts.headers).map(std::time::Duration::from_millis),
                    };
                    self.stream(&path, codec, metadata, body, options).await
                }
                Err(status) => stream_error(codec, status),
            },
            Call::Other => unary_error(&Status::new(12, "not a Connect call"), &HeaderMap::new()),
        }
    }

    /// A unary call; `accept_gzip`: the caller accepts a gzipped answer.
    /// Compression is the service's to decide, as over gRPC: a gzipped
    /// request reaches it as a compressed message, and its answer is
    /// gzipped when it would be for a gRPC caller that accepts gzip.
    async fn unary(
        self,
        path: &str,
        codec: Codec,
        metadata: HeaderMap,
        message: Message,
        accept_gzip: bool,
    ) -> http::Response<Body> {
        let pool = self.pool.clone();
        let answer = match self.to_binary(path, codec, message) {
            Ok(message) => self.call(path, metadata, message, accept_gzip).await,
            Err(status) => Err(status),
        };
        let Answer {
            headers,
            messages,
            status,
            trailers,
            ..
        } = match answer {
            Ok(answer) => answer,
            Err(status) => return unary_error(&status, &HeaderMap::new()),
        };
        let mut headers = with_trailers(headers, &trailers);
        if status.code != 0 {
            return unary_error(&status, &headers);
        }
        let [message] = messages.as_slice() else {
            let status = grpc::Status {
                code: 13,
                message: format!("{} messages for a unary call", messages.len()),
                details: None,
            };
            return unary_error(&status, &headers);
        };
        let body = match Self::from_binary(pool.as_ref(), path, codec, message.clone(), accept_gzip) {
            Ok(body) => body,
            Err(status) => return unary_error(&status, &headers),
        };
        if body.gzipped {
            headers.insert(http::header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static(codec.unary_content_type()),
        );
        response(StatusCode::OK, headers, full(body.bytes))
    }

    /// Calls the service with `message` (binary), gzipped if the caller
    /// sent it gzipped. A service that takes no gzip refuses such a request
    /// unread; it gets the message again, plain.
    async fn call(
        self,
        path: &str,
        metadata: HeaderMap,
        message: Message,
        accept_gzip: bool,
    ) -> Result<Answer, Status> {
        let spare = message.gzipped.then(|| (self.inner.clone(), metadata.clone()));
        let answer = grpc::call(self.inner, path, metadata, &message, accept_gzip).await;
        let Some((mut inner, metadata)) = spare.filter(|_| answer.refused_gzip) else {
            return Ok(answer);
        };
        let plain = Message {
            bytes: compress::gunzip(&message.bytes, MAX_REQUEST)?,
            gzipped: false,
        };
        let Ok(()) = std::future::poll_fn(|cx| inner.poll_ready(cx)).await;
        Ok(grpc::call(inner, path, metadata, &plain, accept_gzip).await)
    }

    /// A stream, translated frame by frame.
    async fn stream(
        self,
        path: &str,
        codec: Codec,
        metadata: HeaderMap,
        body: Body,
        options: StreamOptions,
    ) -> http::Response<Body> {
        let (mut to_binary, mut to_json): (Option<Rewrite>, Option<Rewrite>) = (None, None);
        if codec == Codec::Json {
            let Some((input, output, _)) = self.pool.as_ref().and_then(|pool| method_of(pool, path)) else {
                return stream_error(
                    codec,
                    Status::new(12, "this server has no descriptors to read JSON for this method"),
                );
            };
            to_binary = Some(Box::new(move |message| json_to_binary(&input, &message)));
            to_json = Some(Box::new(move |message| binary_to_json(&output, &message)));
        }
        let mut request = Envelopes::new(body, Direction::Request, to_binary);
        if options.gunzip {
            request = request.gunzip();
        }
        let request = Body::new(request);
        let answer = grpc::start(self.inner, path, metadata, request).await;
        let (parts, body) = answer.into_parts();
        let mut headers = parts.headers;
        let status = headers
            .contains_key("grpc-status")
            .then(|| grpc::take_status(&mut headers));
        grpc::drop_own(&mut headers);
        headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static(codec.stream_content_type()),
        );
        let mut answers = Envelopes::new(body, Direction::Response(status), to_json);
        // tonic bounds a call by `grpc-timeout` until its answer starts;
        // a stream's deadline covers the whole stream.
        if let Some(deadline) = options.deadline {
            answers = answers.deadline(deadline);
        }
        if options.gzip {
            answers = answers.gzip();
            headers.insert("connect-content-encoding", HeaderValue::from_static("gzip"));
        }
        let body = Body::new(answers);
        response(StatusCode::OK, headers, body)
    }

    /// The codec and message of a GET call (`?encoding=...&message=...`).
    fn get_message(&self, path: &str, query: &str) -> Result<(Codec, Message), Status> {
        let mut codec = None;
        let mut message = Bytes::new();
        let mut base64 = false;
        let mut gzip = false;
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "encoding" => codec = Codec::named(value),
                "message" => message = Bytes::from(grpc::percent_decode(value.as_bytes(), true)),
                "base64" => base64 = value == "1",
                "compression" => gzip = compress::named_gzip(Some(value))?,
                _ => {}
            }
        }
        if base64 {
            message = decode_base64_url(&message).ok_or_else(|| Status::new(3, "the message is not base64"))?;
        }
        let codec = codec.ok_or_else(|| Status::new(3, "a GET call needs encoding=proto or encoding=json"))?;
        if !self.side_effect_free(path) {
            return Err(Status::new(
                3,
                "GET is for methods with idempotency_level = NO_SIDE_EFFECTS",
            ));
        }
        Ok((
            codec,
            Message {
                bytes: message,
                gzipped: gzip,
            },
        ))
    }

    /// Whether the method is marked `NO_SIDE_EFFECTS` (GET may call it).
    fn side_effect_free(&self, path: &str) -> bool {
        if self.get.iter().any(|allowed| allowed == path) {
            return true;
        }
        let method = self.pool.as_ref().and_then(|pool| method_of(pool, path));
        method.is_some_and(|(_, _, options)| idempotency_level(&options) == 1)
    }

    /// A request message as the binary the service reads, gzipped again
    /// if it came gzipped (the service is told, as a gRPC caller's is).
    fn to_binary(&self, path: &str, codec: Codec, message: Message) -> Result<Message, Status> {
        if codec == Codec::Proto {
            return Ok(message);
        }
        let (input, _) = json_types(self.pool.as_ref(), path)?;
        let json = match message.gzipped {
            true => compress::gunzip(&message.bytes, MAX_REQUEST)?,
            false => message.bytes,
        };
        Ok(compress::gzip_if(json_to_binary(&input, &json)?, message.gzipped))
    }

    /// A response message in the call's codec, gzipped if the service
    /// gzipped it and the caller accepts gzip.
    fn from_binary(
        pool: Option<&DescriptorPool>,
        path: &str,
        codec: Codec,
        message: Message,
        accept_gzip: bool,
    ) -> Result<Message, Status> {
        if codec == Codec::Proto && (accept_gzip || !message.gzipped) {
            return Ok(message);
        }
        let binary = match message.gzipped {
            true => compress::gunzip(&message.bytes, usize::MAX >> 1).map_err(|e| Status::new(13, &e.message))?,
            false => message.bytes,
        };
        let bytes = match codec {
            Codec::Proto => binary,
            Codec::Json => binary_to_json(&json_types(pool, path)?.1, &binary)?,
        };
        Ok(compress::gzip_if(bytes, message.gzipped && accept_gzip))
    }
}

/// The input and output types of method `path`, which a JSON call needs.
fn json_types(pool: Option<&DescriptorPool>, path: &str) -> Result<(MessageDescriptor, MessageDescriptor), Status> {
    let pool = pool.ok_or_else(|| Status::new(12, "this server takes only the binary codec"))?;
    let (input, output, _) = method_of(pool, path).ok_or_else(|| Status::new(12, "no descriptors for this method"))?;
    Ok((input, output))
}

/// `idempotency_level` (field 34) of encoded `MethodOptions`.
fn idempotency_level(options: &[u8]) -> u64 {
    let mut reader = fastrs::Reader::new(options);
    let mut level = 0;
    while !reader.is_empty() {
        let Ok(tag) = reader.read_tag() else { break };
        if tag == 34 << 3 {
            level = reader.read_varint().unwrap_or(0);
        } else if reader.skip_value(tag, fastrs::wire::DEFAULT_RECURSION_LIMIT).is_err() {
            break;
        }
    }
    level
}

/// The caller's headers as gRPC metadata: Connect's and HTTP's own
/// dropped, `connect-timeout-ms` as `grpc-timeout`.
fn metadata_of(headers: &HeaderMap) -> HeaderMap {
    let mut metadata = HeaderMap::new();
    for (name, value) in headers {
        let name_str = name.as_str();
        let own = name_str.starts_with("connect-")
            || matches!(
                name_str,
                "content-type"
                    | "content-length"
                    | "content-encoding"
                    | "accept-encoding"
                    | "grpc-encoding"
                    | "grpc-accept-encoding"
                    | "host"
                    | "connection"
                    | "te"
                    | "transfer-encoding"
                    | "upgrade"
                    | "keep-alive"
            );
        if !own {
            metadata.append(name.clone(), value.clone());
        }
    }
    if let Some(ms) = timeout_ms(headers) {
        if let Ok(value) = HeaderValue::from_str(&format!("{ms}m")) {
            metadata.insert("grpc-timeout", value);
        }
    }
    metadata
}

/// How a stream's envelopes are read and written.
struct StreamOptions {
    /// The caller's compressed envelopes are gzip.
    gunzip: bool,
    /// The caller accepts gzipped envelopes.
    gzip: bool,
    /// The caller's timeout.
    deadline: Option<std::time::Duration>,
}

/// The call's `connect-timeout-ms`.
fn timeout_ms(headers: &HeaderMap) -> Option<u64> {
    headers
        .get("connect-timeout-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

/// The answer to a call in a content type no protocol here speaks: HTTP
/// 415 with those it does, as Connect's specification asks.
fn unsupported_media() -> http::Response<Body> {
    let mut headers = HeaderMap::new();
    headers.insert(
        "accept-post",
        HeaderValue::from_static(
            "application/json, application/proto, application/connect+json, application/connect+proto, \
             application/grpc, application/grpc+proto, application/grpc-web, application/grpc-web+proto, \
             application/grpc-web-text",
        ),
    );
    response(StatusCode::UNSUPPORTED_MEDIA_TYPE, headers, Body::empty())
}

/// A request body, read whole (up to `MAX_REQUEST`).
async fn read_body(body: Body) -> Result<Bytes, Status> {
    let limited = http_body_util::Limited::new(body, MAX_REQUEST);
    match limited.collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(Status::new(8, "the request is too large")),
        Err(e) => Err(Status::new(3, &format!("reading the request: {e}"))),
    }
}

/// `headers`, with each trailer as a `trailer-` header (unary Connect).
fn with_trailers(mut headers: HeaderMap, trailers: &HeaderMap) -> HeaderMap {
    for (name, value) in trailers {
        if let Ok(name) = HeaderName::from_bytes(format!("trailer-{}", name.as_str()).as_bytes()) {
            headers.append(name, value.clone());
        }
    }
    headers
}

fn response(status: StatusCode, headers: HeaderMap, body: Body) -> http::Response<Body> {
    let mut response = http::Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// A failed unary call: Connect's status and error JSON.
fn unary_error(status: &Status, headers: &HeaderMap) -> http::Response<Body> {
    let mut headers = headers.clone();
    headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let body = protocol::error_json(status).to_string();
    response(protocol::http_status(status.code), headers, full(Bytes::from(body)))
}

fn full(bytes: Bytes) -> Body {
    Body::new(http_body_util::Full::new(bytes))
}

/// A gRPC-Web call refused before the service saw it: a trailers-only
/// answer.
fn grpc_web_error(status: &Status) -> http::Response<Body> {
    let mut headers = HeaderMap::new();
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/grpc-web+proto"),
    );
    headers.insert("grpc-status", HeaderValue::from(status.code));
    if let Ok(message) = HeaderValue::from_str(&status.message) {
        headers.insert("grpc-message", message);
    }
    response(StatusCode::OK, headers, Body::empty())
}

/// A stream refused before it started: only its end-of-stream envelope.
fn stream_error(codec: Codec, status: Status) -> http::Response<Body> {
    let mut body = BytesMut::new();
    let end = protocol::end_of_stream(&status, &HeaderMap::new()).to_string();
    protocol::envelope(protocol::END_STREAM, end.as_bytes(), &mut body);
    let mut headers = HeaderMap::new();
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static(codec.stream_content_type()),
    );
    response(StatusCode::OK, headers, full(body.freeze()))
}

/// URL-safe base64, padded or not (GET's `base64=1`).
fn decode_base64_url(text: &[u8]) -> Option<Bytes> {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine.decode(text).ok().map(Bytes::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, uri: &str, content_type: &str) -> http::Request<()> {
        let mut request = http::Request::builder().method(method).uri(uri);
        if !content_type.is_empty() {
            request = request.header("content-type", content_type);
        }
        request.body(()).unwrap()
    }

    #[test]
    fn calls_are_told_apart_by_method_and_content_type() {
        let call = |m, u, c| protocol::call_of(&request(m, u, c));
        assert_eq!(call("POST", "/s/M", "application/json"), Call::Unary(Codec::Json));
        assert_eq!(
            call("POST", "/s/M", "application/proto; charset=utf-8"),
            Call::Unary(Codec::Proto)
        );
        assert_eq!(
            call("POST", "/s/M", "application/connect+json"),
            Call::Stream(Codec::Json)
        );
        assert_eq!(call("POST", "/s/M", "application/grpc"), Call::Other);
        assert_eq!(call("POST", "/s/M", "application/grpc-web+proto"), Call::Other);
        assert_eq!(
            call("GET", "/s/M?connect=v1&encoding=json&message=%7B%7D", ""),
            Call::Get
        );
        assert_eq!(call("GET", "/s/M", ""), Call::Other);
    }

    #[test]
    fn get_messages_come_escaped_or_in_base64() {
        assert_eq!(grpc::percent_decode(b"%7B%22a%22%3A1%7D+x", true), br#"{"a":1} x"#);
        assert_eq!(
            decode_base64_url(b"eyJhIjoxfQ").unwrap(),
            Bytes::from_static(br#"{"a":1}"#)
        );
    }

    #[test]
    fn idempotency_level_is_read_from_method_options() {
        assert_eq!(idempotency_level(&[0x90, 0x02, 0x01]), 1);
        assert_eq!(idempotency_level(&[0x08, 0x01, 0x90, 0x02, 0x02]), 2);
        assert_eq!(idempotency_level(&[]), 0);
    }

    #[test]
    fn errors_carry_their_details() {
        // google.rpc.Status { code: 5, message: "x", details: [Any { type_url, value: [1, 2] }] }
        let type_url = b"type.googleapis.com/a.b.ErrorInfo";
        let mut any = vec![0x0a, type_url.len() as u8];
        any.extend_from_slice(type_url);
        any.extend_from_slice(&[0x12, 0x02, 0x01, 0x02]);
        let mut status = vec![0x08, 0x05, 0x12, 0x01, b'x', 0x1a, any.len() as u8];
        status.extend_from_slice(&any);
        let error = protocol::error_json(&Status {
            code: 5,
            message: "x".into(),
            details: Some(Bytes::from(status)),
        });
        assert_eq!(error["code"], "not_found");
        assert_eq!(error["details"][0]["type"], "a.b.ErrorInfo");
        assert_eq!(error["details"][0]["value"], "AQI");
        assert_eq!(protocol::http_status(5), StatusCode::NOT_FOUND);
        assert_eq!(protocol::code_name(14), "unavailable");
    }

    #[test]
    fn timeouts_and_metadata_become_grpc_metadata() {
        let mut headers = HeaderMap::new();
        headers.insert("connect-timeout-ms", HeaderValue::from_static("250"));
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert("x-user", HeaderValue::from_static("ann"));
        let metadata = metadata_of(&headers);
        assert_eq!(metadata.get("grpc-timeout").unwrap(), "250m");
        assert_eq!(metadata.get("x-user").unwrap(), "ann");
        assert!(metadata.get("content-type").is_none() && metadata.get("connect-timeout-ms").is_none());
    }
}
