//! A Connect client: calls of all four kinds over HTTP/1.1 or HTTP/2, in
//! the binary or the JSON codec, with the request and response types of
//! tonic's clients (`tonic::Request`, `tonic::Response`, `tonic::Status`),
//! so that a generated Connect client has the same methods as a generated
//! gRPC client.
//!
//! Unary calls are one POST whose body is the message; streams are
//! envelopes both ways, ended by an end-of-stream envelope that carries the
//! status and the trailers. Answers may be gzipped (unary bodies and stream
//! envelopes) when the client accepts it; requests go uncompressed.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use bytes::{Buf as _, Bytes, BytesMut};
use fastrs::reflect::{DescriptorPool, MessageDescriptor};
use fastrs::{DecodeOptions, HasView, Message, OwnedView};
use http_body::{Body as _, Frame};
use http_body_util::BodyExt as _;
use tonic::body::Body;
use tonic::codegen::http::{self, header, HeaderMap, HeaderValue, StatusCode};
use tonic::codegen::tokio_stream::{Stream, StreamExt as _};
use tonic::metadata::MetadataMap;
use tonic::{Code, Status};
use tower_service::Service;

use super::protocol::{self, Codec};
use super::transcode::{binary_to_json, json_to_binary, method_of};
use super::{compress, grpc};

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
/// Sends one HTTP request: a hyper client, or any tower service.
type Transport = Arc<dyn Fn(http::Request<Body>) -> BoxFuture<Result<http::Response<Body>, BoxError>> + Send + Sync>;

/// The largest answer read (a unary body, or one envelope), as tonic's
/// default for gRPC.
const MAX_MESSAGE: usize = 4 << 20;

/// A Connect client of one server: what generated Connect clients call.
///
/// ```no_run
/// # async fn run() -> Result<(), tonic::Status> {
/// use fastrs_tonic::connect::ConnectClient;
/// let client = ConnectClient::new("http://127.0.0.1:8080");
/// let request = tonic::Request::new(fastrs::well_known::Empty::default());
/// let answer: tonic::Response<fastrs::well_known::Empty> = client.unary("/pkg.Service/Method", request).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct ConnectClient {
    transport: Transport,
    /// `scheme://authority` and any path prefix, without a final `/`.
    base: Arc<str>,
    codec: Codec,
    /// The descriptors the JSON codec reads and writes by.
    pool: Option<DescriptorPool>,
    decode: DecodeOptions,
    /// Whether answers may come gzipped.
    accept_gzip: bool,
}

impl std::fmt::Debug for ConnectClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectClient")
            .field("base", &self.base)
            .field("codec", &self.codec)
            .finish_non_exhaustive()
    }
}

impl ConnectClient {
    /// A client of the server at `base_url` (`http://host:port`, with any
    /// path prefix), over cleartext HTTP/1.1, in the binary codec.
    #[must_use]
    pub fn new(base_url: impl Into<String>) -> Self {
        let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new()).build_http();
        Self::with_transport(base_url, client)
    }

    /// As [`ConnectClient::new`], over cleartext HTTP/2 (prior knowledge),
    /// which bidi streams need.
    #[must_use]
    pub fn http2(base_url: impl Into<String>) -> Self {
        let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .http2_only(true)
            .build_http();
        Self::with_transport(base_url, client)
    }

    /// A client that sends its requests through `service`: a hyper client
    /// with a TLS connector, or any tower stack of HTTP.
    #[must_use]
    pub fn with_transport<S, B>(base_url: impl Into<String>, service: S) -> Self
    where
        S: Service<http::Request<Body>, Response = http::Response<B>> + Clone + Send + Sync + 'static,
        S::Future: Send,
        S::Error: Into<BoxError>,
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let transport: Transport = Arc::new(move |request| {
            let mut service = service.clone();
            Box::pin(async move {
                std::future::poll_fn(|cx| service.poll_ready(cx))
                    .await
                    .map_err(Into::into)?;
                let response = service.call(request).await.map_err(Into::into)?;
                Ok(response.map(Body::new))
            })
        });
        let base: String = base_url.into();
        ConnectClient {
            transport,
            base: base.trim_end_matches('/').into(),
            codec: Codec::Proto,
            pool: None,
            decode: DecodeOptions::default(),
            accept_gzip: false,
        }
    }

    /// Accepts gzipped answers (unary bodies and stream messages), which a
    /// server then sends for answers large enough to gain. Off by default,
    /// as in tonic's clients: compression costs CPU that a fast network
    /// does not pay back.
    #[must_use]
    pub fn accept_gzip(mut self) -> Self {
        self.accept_gzip = true;
        self
    }

    /// Speaks Connect's JSON codec, reading and writing messages by the
    /// descriptors of `pool` (which must know the services called).
    #[must_use]
    pub fn json(mut self, pool: DescriptorPool) -> Self {
        self.codec = Codec::Json;
        self.pool = Some(pool);
        self
    }

    /// The limits answers are decoded under.
    #[must_use]
    pub fn with_decode_options(mut self, options: DecodeOptions) -> Self {
        self.decode = options;
        self
    }

    /// A unary call of `path` (`/pkg.Service/Method`).
    ///
    /// # Errors
    /// The call's status: the server's error, or why the call failed here.
    pub async fn unary<Req: Message, Res: Message>(
        &self,
        path: &str,
        request: tonic::Request<Req>,
    ) -> Result<tonic::Response<Res>, Status> {
        let read = self.decoder::<Res>(path)?;
        self.post(path, request, read).await
    }

    /// A unary call whose answer is read as a zero-copy view over the
    /// answer's bytes (JSON answers are made binary first), as
    /// `FastrsViewCodec` reads gRPC answers: for callers that only read.
    ///
    /// # Errors
    /// As [`ConnectClient::unary`].
    pub async fn unary_view<Req: Message, Res: HasView>(
        &self,
        path: &str,
        request: tonic::Request<Req>,
    ) -> Result<tonic::Response<OwnedView<Res>>, Status> {
        let output = self.output(path)?;
        let options = self.decode;
        let read = move |body| {
            let binary = binary_answer(output.as_ref(), body)?;
            OwnedView::decode_with(binary, &options).map_err(undecodable)
        };
        self.post(path, request, read).await
    }

    /// A unary call over POST, its answer read by `read`.
    async fn post<Req: Message, T>(
        &self,
        path: &str,
        request: tonic::Request<Req>,
        read: impl FnOnce(Bytes) -> Result<T, Status>,
    ) -> Result<tonic::Response<T>, Status> {
        let (metadata, _, message) = request.into_parts();
        let body = self.encoder(path)?(&message)?;
        let timeout = timeout_of(&metadata);
        let request = self.request(path, metadata, self.codec.unary_content_type(), Body::new(full(body)))?;
        within(timeout, self.answer(request, read)).await
    }

    /// A unary call of a method marked `NO_SIDE_EFFECTS`, with GET: the
    /// message rides in the query (`?connect=v1&encoding=..&base64=1&message=..`),
    /// so that browsers and proxies may cache the answer.
    ///
    /// # Errors
    /// As [`ConnectClient::unary`].
    pub async fn unary_get<Req: Message, Res: Message>(
        &self,
        path: &str,
        request: tonic::Request<Req>,
    ) -> Result<tonic::Response<Res>, Status> {
        use base64::Engine as _;
        let (metadata, _, message) = request.into_parts();
        let encoded = self.encoder(path)?(&message)?;
        let encoding = match self.codec {
            Codec::Proto => "proto",
            Codec::Json => "json",
        };
        let message = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&encoded);
        let query = format!("?connect=v1&encoding={encoding}&base64=1&message={message}");
        let timeout = timeout_of(&metadata);
        let mut request = self.request(
            &format!("{path}{query}"),
            metadata,
            self.codec.unary_content_type(),
            Body::empty(),
        )?;
        *request.method_mut() = http::Method::GET;
        // A GET has no body: no content type, no protocol-version header
        // (the query says `connect=v1`).
        request.headers_mut().remove(header::CONTENT_TYPE);
        request.headers_mut().remove("connect-protocol-version");
        within(timeout, self.answer(request, self.decoder::<Res>(path)?)).await
    }

    /// A server-streaming call: one request, a stream of answers.
    ///
    /// # Errors
    /// As [`ConnectClient::unary`], for the call's start; the stream's
    /// own end carries the final status.
    pub async fn server_streaming<Req: Message, Res: Message>(
        &self,
        path: &str,
        request: tonic::Request<Req>,
    ) -> Result<tonic::Response<ConnectStreaming<Res>>, Status> {
        let (metadata, _, message) = request.into_parts();
        let mut body = BytesMut::new();
        protocol::envelope(0, &self.encoder(path)?(&message)?, &mut body);
        self.open_stream(path, metadata, Body::new(full(body.freeze()))).await
    }

    /// A client-streaming call: a stream of requests, one answer.
    ///
    /// # Errors
    /// As [`ConnectClient::unary`].
    pub async fn client_streaming<Req, Res, S>(
        &self,
        path: &str,
        request: tonic::Request<S>,
    ) -> Result<tonic::Response<Res>, Status>
    where
        Req: Message + 'static,
        Res: Message,
        S: Stream<Item = Req> + Send + 'static,
    {
        let (mut metadata, mut answers, _) = self.streaming(path, request).await?.into_parts();
        let message = answers
            .message()
            .await?
            .ok_or_else(|| Status::internal("the answer to a client-streaming call has no message"))?;
        if let Some(trailers) = answers.trailers().await? {
            metadata.as_mut().extend(trailers.into_headers());
        }
        Ok(tonic::Response::from_parts(metadata, message, http::Extensions::new()))
    }

    /// A bidi-streaming call (a client stream too, with one answer
    /// expected): requests flow as `request` yields them, answers as they
    /// come. Full duplex needs HTTP/2 ([`ConnectClient::http2`]).
    ///
    /// # Errors
    /// As [`ConnectClient::server_streaming`].
    pub async fn streaming<Req, Res, S>(
        &self,
        path: &str,
        request: tonic::Request<S>,
    ) -> Result<tonic::Response<ConnectStreaming<Res>>, Status>
    where
        Req: Message + 'static,
        Res: Message,
        S: Stream<Item = Req> + Send + 'static,
    {
        let (metadata, _, requests) = request.into_parts();
        let encode = self.encoder(path)?;
        let frames = requests.map(move |message| {
            let mut out = BytesMut::new();
            protocol::envelope(0, &encode(&message)?, &mut out);
            Ok::<_, Status>(Frame::data(out.freeze()))
        });
        let body = Body::new(http_body_util::StreamBody::new(frames));
        self.open_stream(path, metadata, body).await
    }

    /// Sends a unary call's request and reads its answer with `read`.
    async fn answer<T>(
        &self,
        request: http::Request<Body>,
        read: impl FnOnce(Bytes) -> Result<T, Status>,
    ) -> Result<tonic::Response<T>, Status> {
        let (parts, body) = self.send(request).await?.into_parts();
        let body = read_whole(body).await?;
        let body = if compress::is_gzip(&parts.headers, "content-encoding").map_err(status_of)? {
            compress::gunzip(&body, MAX_MESSAGE).map_err(status_of)?
        } else {
            body
        };
        let metadata = unary_metadata(parts.headers);
        if parts.status != StatusCode::OK {
            return Err(unary_error(parts.status, &body, metadata));
        }
        let message = read(body)?;
        Ok(tonic::Response::from_parts(metadata, message, http::Extensions::new()))
    }

    /// Starts a stream: the answer's headers, and its envelopes to read.
    async fn open_stream<Res: Message>(
        &self,
        path: &str,
        metadata: MetadataMap,
        body: Body,
    ) -> Result<tonic::Response<ConnectStreaming<Res>>, Status> {
        let timeout = timeout_of(&metadata);
        let deadline = timeout.map(|t| Box::pin(tokio::time::sleep(t)));
        let request = self.request(path, metadata, self.codec.stream_content_type(), body)?;
        let (parts, body) = within(timeout, self.send(request)).await?.into_parts();
        let metadata = MetadataMap::from_headers(without_own(parts.headers.clone()));
        if parts.status != StatusCode::OK {
            let body = read_whole(body).await.unwrap_or_default();
            return Err(unary_error(parts.status, &body, metadata));
        }
        let output = self.output(path)?;
        let gunzip = compress::is_gzip(&parts.headers, "connect-content-encoding").map_err(status_of)?;
        let stream = ConnectStreaming {
            body,
            buffer: BytesMut::new(),
            output,
            gunzip,
            decode: self.decode,
            trailers: None,
            deadline,
            done: false,
            _type: PhantomData,
        };
        Ok(tonic::Response::from_parts(metadata, stream, http::Extensions::new()))
    }

    /// The HTTP request of a call.
    fn request(
        &self,
        path: &str,
        metadata: MetadataMap,
        content_type: &'static str,
        body: Body,
    ) -> Result<http::Request<Body>, Status> {
        let mut headers = metadata.into_headers();
        if let Some(timeout) = headers.remove("grpc-timeout") {
            let millis = grpc_timeout(&timeout).map_or(0, |t| t.as_millis().max(1));
            headers.insert("connect-timeout-ms", HeaderValue::from(millis as u64));
        }
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        headers.insert("connect-protocol-version", HeaderValue::from_static("1"));
        if self.accept_gzip {
            let accept = if content_type.starts_with("application/connect+") {
                "connect-accept-encoding"
            } else {
                "accept-encoding"
            };
            headers.insert(accept, HeaderValue::from_static("gzip"));
        }
        let mut request = http::Request::post(format!("{}{path}", self.base))
            .body(body)
            .map_err(|e| Status::invalid_argument(format!("bad URL {}{path}: {e}", self.base)))?;
        *request.headers_mut() = headers;
        Ok(request)
    }

    async fn send(&self, request: http::Request<Body>) -> Result<http::Response<Body>, Status> {
        (self.transport)(request)
            .await
            .map_err(|e| Status::unavailable(format!("the request was not answered: {e}")))
    }

    /// The request and response types of `path`, from the pool.
    fn method(&self, path: &str) -> Result<(MessageDescriptor, MessageDescriptor), Status> {
        let pool = self
            .pool
            .as_ref()
            .ok_or_else(|| Status::internal("JSON needs descriptors"))?;
        let (input, output, _) =
            method_of(pool, path).ok_or_else(|| Status::unimplemented(format!("no descriptors for {path}")))?;
        Ok((input, output))
    }

    /// Writes a request message in the client's codec.
    fn encoder<Req: Message>(&self, path: &str) -> Result<impl Fn(&Req) -> Result<Bytes, Status> + Send, Status> {
        let input = match self.codec {
            Codec::Proto => None,
            Codec::Json => Some(self.method(path)?.0),
        };
        Ok(move |message: &Req| {
            let binary = Bytes::from(message.encode_to_vec());
            match &input {
                None => Ok(binary),
                Some(ty) => binary_to_json(ty, &binary).map_err(status_of),
            }
        })
    }

    /// Reads an answer in the client's codec.
    fn decoder<Res: Message>(&self, path: &str) -> Result<impl Fn(Bytes) -> Result<Res, Status>, Status> {
        let output = self.output(path)?;
        let options = self.decode;
        Ok(move |body: Bytes| decode_answer(output.as_ref(), &options, body))
    }

    /// The type of `path`'s answers in JSON, which the client reads as
    /// binary; `None` in the binary codec.
    fn output(&self, path: &str) -> Result<Option<MessageDescriptor>, Status> {
        match self.codec {
            Codec::Proto => Ok(None),
            Codec::Json => Ok(Some(self.method(path)?.1)),
        }
    }
}

/// An answer of the codec (`output`: JSON of that type) as `Res`.
fn decode_answer<Res: Message>(
    output: Option<&MessageDescriptor>,
    options: &DecodeOptions,
    body: Bytes,
) -> Result<Res, Status> {
    let binary = binary_answer(output, body)?;
    let mut message = Res::default();
    message.fast_read_with(&binary, options).map_err(undecodable)?;
    Ok(message)
}

/// An answer in binary: as it came, or from JSON of type `output`.
fn binary_answer(output: Option<&MessageDescriptor>, body: Bytes) -> Result<Bytes, Status> {
    match output {
        None => Ok(body),
        Some(ty) => json_to_binary(ty, &body).map_err(|s| Status::internal(format!("a bad answer: {}", s.message))),
    }
}

fn undecodable(e: fastrs::DecodeError) -> Status {
    Status::internal(format!("the answer does not decode: {e}"))
}

/// The answers of a streaming call, read one at a time; the trailers once
/// the stream has ended.
pub struct ConnectStreaming<T> {
    body: Body,
    buffer: BytesMut,
    /// JSON answers: their type.
    output: Option<MessageDescriptor>,
    gunzip: bool,
    decode: DecodeOptions,
    trailers: Option<MetadataMap>,
    /// The call's deadline, enforced here too (a server may not).
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    done: bool,
    _type: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for ConnectStreaming<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectStreaming")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<T: Message> ConnectStreaming<T> {
    /// The next answer; `None` at the stream's successful end.
    ///
    /// # Errors
    /// The status the stream ended with, or why it could not be read.
    pub async fn message(&mut self) -> Result<Option<T>, Status> {
        std::future::poll_fn(|cx| self.poll_message(cx)).await
    }

    /// The trailers: the stream is read to its end first (its remaining
    /// messages dropped), as tonic's `Streaming::trailers` does.
    ///
    /// # Errors
    /// The status the stream ended with, or why it could not be read.
    pub async fn trailers(&mut self) -> Result<Option<MetadataMap>, Status> {
        while self.message().await?.is_some() {}
        Ok(self.trailers.clone())
    }

    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<Result<Option<T>, Status>> {
        loop {
            if let Some((flags, payload)) = self.take_envelope()? {
                if flags & protocol::END_STREAM != 0 {
                    self.done = true;
                    return Poll::Ready(self.end(&payload).map(|()| None));
                }
                let payload = if flags & protocol::COMPRESSED != 0 {
                    if !self.gunzip {
                        return Poll::Ready(Err(Status::internal(
                            "a compressed answer, but no connect-content-encoding",
                        )));
                    }
                    compress::gunzip(&payload, MAX_MESSAGE).map_err(status_of)?
                } else {
                    payload
                };
                return Poll::Ready(decode_answer(self.output.as_ref(), &self.decode, payload).map(Some));
            }
            if self.done {
                return Poll::Ready(Ok(None));
            }
            if self.deadline.as_mut().is_some_and(|d| d.as_mut().poll(cx).is_ready()) {
                self.done = true;
                return Poll::Ready(Err(Status::deadline_exceeded("the call's deadline passed")));
            }
            match ready!(Pin::new(&mut self.body).poll_frame(cx)) {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
                Some(Err(e)) => {
                    self.done = true;
                    return Poll::Ready(Err(Status::unavailable(format!("the answer broke off: {e}"))));
                }
                None => {
                    self.done = true;
                    return Poll::Ready(Err(Status::internal(
                        "the answer ended without an end-of-stream message",
                    )));
                }
            }
        }
    }

    /// The next whole envelope in the buffer: flags and payload.
    fn take_envelope(&mut self) -> Result<Option<(u8, Bytes)>, Status> {
        if self.buffer.len() < 5 {
            return Ok(None);
        }
        let len = u32::from_be_bytes([self.buffer[1], self.buffer[2], self.buffer[3], self.buffer[4]]) as usize;
        if len > MAX_MESSAGE {
            self.done = true;
            return Err(Status::resource_exhausted(format!("an answer of {len} bytes")));
        }
        if self.buffer.len() < 5 + len {
            return Ok(None);
        }
        let flags = self.buffer[0];
        self.buffer.advance(5);
        Ok(Some((flags, self.buffer.split_to(len).freeze())))
    }

    /// Reads the end-of-stream envelope: the trailers, and the error if any.
    fn end(&mut self, payload: &[u8]) -> Result<(), Status> {
        let end: serde_json::Value = serde_json::from_slice(payload)
            .map_err(|e| Status::internal(format!("a bad end-of-stream message: {e}")))?;
        let mut trailers = HeaderMap::new();
        if let Some(metadata) = end.get("metadata").and_then(serde_json::Value::as_object) {
            for (name, values) in metadata {
                let Ok(name) = header::HeaderName::from_bytes(name.as_bytes()) else {
                    continue;
                };
                for value in values
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(serde_json::Value::as_str)
                {
                    if let Ok(value) = HeaderValue::from_str(value) {
                        trailers.append(name.clone(), value);
                    }
                }
            }
        }
        let trailers = MetadataMap::from_headers(trailers);
        self.trailers = Some(trailers.clone());
        match end.get("error") {
            Some(error) => Err(status_from_json(error, trailers)),
            None => Ok(()),
        }
    }
}

impl<T: Message> Stream for ConnectStreaming<T> {
    type Item = Result<T, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // `ConnectStreaming` is `Unpin`: its fields are.
        let this = self.get_mut();
        if this.done && this.buffer.is_empty() {
            return Poll::Ready(None);
        }
        this.poll_message(cx).map(Result::transpose)
    }
}

/// The status of a failed answer: its Connect error JSON, else its HTTP
/// status as the Connect protocol maps it.
fn unary_error(http_status: StatusCode, body: &[u8], metadata: MetadataMap) -> Status {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(error) if error.get("code").is_some() => status_from_json(&error, metadata),
        _ => {
            let code = match http_status.as_u16() {
                400 => Code::Internal,
                401 => Code::Unauthenticated,
                403 => Code::PermissionDenied,
                404 => Code::Unimplemented,
                429 | 502 | 503 | 504 => Code::Unavailable,
                _ => Code::Unknown,
            };
            Status::with_metadata(code, format!("HTTP status {http_status}"), metadata)
        }
    }
}

/// A Connect error (`{"code", "message", "details"}`) as a status, its
/// details as gRPC carries them (an encoded `google.rpc.Status`).
fn status_from_json(error: &serde_json::Value, metadata: MetadataMap) -> Status {
    let name = error
        .get("code")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("unknown");
    let code = protocol::code_named(name).map_or(Code::Unknown, Code::from_i32);
    let message = error.get("message").and_then(serde_json::Value::as_str).unwrap_or("");
    let details: Vec<(String, Bytes)> = error
        .get("details")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|d| {
            let ty = d.get("type")?.as_str()?;
            let value = grpc::decode_base64(d.get("value")?.as_str()?.as_bytes())?;
            Some((ty.to_owned(), value))
        })
        .collect();
    if details.is_empty() {
        return Status::with_metadata(code, message, metadata);
    }
    let encoded = crate::status::rpc_status(code as i32, message, &details);
    Status::with_details_and_metadata(code, message, encoded, metadata)
}

/// The headers of a unary answer as metadata, its `trailer-` headers as
/// the trailers they are.
fn unary_metadata(headers: HeaderMap) -> MetadataMap {
    let mut metadata = HeaderMap::new();
    for (name, value) in &without_own(headers) {
        let name = match name.as_str().strip_prefix("trailer-") {
            Some(trailer) => match header::HeaderName::from_bytes(trailer.as_bytes()) {
                Ok(name) => name,
                Err(_) => continue,
            },
            None => name.clone(),
        };
        metadata.append(name, value.clone());
    }
    MetadataMap::from_headers(metadata)
}

/// `headers` without HTTP's and Connect's own.
fn without_own(mut headers: HeaderMap) -> HeaderMap {
    for name in [
        header::CONTENT_TYPE,
        header::CONTENT_LENGTH,
        header::CONTENT_ENCODING,
        header::TRANSFER_ENCODING,
        header::DATE,
    ] {
        headers.remove(name);
    }
    headers.remove("connect-content-encoding");
    headers.remove("connect-accept-encoding");
    headers
}

/// A body read whole, up to [`MAX_MESSAGE`].
async fn read_whole(body: Body) -> Result<Bytes, Status> {
    let limited = http_body_util::Limited::new(body, MAX_MESSAGE);
    match limited.collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            Err(Status::resource_exhausted("the answer is too large"))
        }
        Err(e) => Err(Status::unavailable(format!("the answer broke off: {e}"))),
    }
}

fn full(bytes: Bytes) -> http_body_util::Full<Bytes> {
    http_body_util::Full::new(bytes)
}

/// The call's deadline, as `tonic::Request::set_timeout` records it.
fn timeout_of(metadata: &MetadataMap) -> Option<Duration> {
    metadata.as_ref().get("grpc-timeout").and_then(grpc_timeout)
}

/// A `grpc-timeout` value (`100m`, `5S`) as a duration.
fn grpc_timeout(value: &HeaderValue) -> Option<Duration> {
    let text = value.to_str().ok()?;
    let (digits, unit) = text.split_at(text.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// `call`, failed with `deadline_exceeded` after `timeout`.
async fn within<T>(timeout: Option<Duration>, call: impl Future<Output = Result<T, Status>>) -> Result<T, Status> {
    match timeout {
        None => call.await,
        Some(timeout) => tokio::time::timeout(timeout, call)
            .await
            .unwrap_or_else(|_| Err(Status::deadline_exceeded("the call's deadline passed"))),
    }
}

fn status_of(status: grpc::Status) -> Status {
    Status::new(Code::from_i32(status.code), status.message)
}
