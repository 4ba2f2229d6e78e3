//! The gRPC side of a translated call: a request for the wrapped tonic
//! service (messages framed with gRPC's 5-byte prefix), and its answer read
//! whole (headers, messages, status and trailers), so that it can be
//! written back in another protocol.

use std::convert::Infallible;

use bytes::{Buf, Bytes, BytesMut};
use http_body_util::BodyExt as _;
use tonic::body::Body;
use tonic::codegen::http::{self, HeaderMap, HeaderValue};
use tower_service::Service;

/// A gRPC call's outcome, read whole.
pub struct Answer {
    /// Response headers (gRPC's own removed).
    pub headers: HeaderMap,
    /// The messages, each without its frame.
    pub messages: Vec<Message>,
    /// `grpc-status`, `grpc-message` and the encoded `google.rpc.Status`
    /// of `grpc-status-details-bin`, if the call failed.
    pub status: Status,
    /// Trailers (gRPC's own removed).
    pub trailers: HeaderMap,
    /// The service refused the request's gzip before reading it (tonic
    /// takes only the encodings a service enables).
    pub refused_gzip: bool,
}

/// One message of a gRPC body, as it was sent: gzipped or not.
#[derive(Clone, Debug)]
pub struct Message {
    pub bytes: Bytes,
    pub gzipped: bool,
}

/// How a call ended.
pub struct Status {
    pub code: i32,
    pub message: String,
    pub details: Option<Bytes>,
}

impl Status {
    /// A status of `code` with `message` and no details.
    pub fn new(code: i32, message: &str) -> Status {
        Status {
            code,
            message: message.to_owned(),
            details: None,
        }
    }
}

/// Frames `message` as gRPC does, flagged compressed if it is.
pub fn frame(message: &Message) -> Bytes {
    let mut out = BytesMut::with_capacity(message.bytes.len() + 5);
    out.extend_from_slice(&[u8::from(message.gzipped)]);
    out.extend_from_slice(&(message.bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(&message.bytes);
    out.freeze()
}

/// Calls `inner` with a gRPC request for `path` carrying `message` and the
/// caller's `metadata`, and reads the whole answer. `accept_gzip`: the
/// service may gzip its answer (if it sends gzip, and its handler lets it).
pub async fn call<S>(inner: S, path: &str, mut metadata: HeaderMap, message: &Message, accept_gzip: bool) -> Answer
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
{
    let gzip = HeaderValue::from_static("gzip");
    if message.gzipped {
        metadata.insert("grpc-encoding", gzip.clone());
    }
    if accept_gzip {
        metadata.insert("grpc-accept-encoding", gzip);
    }
    let body = Body::new(http_body_util::Full::new(frame(message)));
    let response = start(inner, path, metadata, body).await;
    read(response).await
}

/// Calls `inner` with a gRPC request for `path` whose body (gRPC frames)
/// may still be coming; the answer's body streams too.
pub async fn start<S>(mut inner: S, path: &str, metadata: HeaderMap, body: Body) -> http::Response<Body>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
{
    let mut request = http::Request::new(body);
    *request.method_mut() = http::Method::POST;
    *request.uri_mut() = path.parse().unwrap_or_default();
    *request.version_mut() = http::Version::HTTP_2;
    let headers = request.headers_mut();
    *headers = metadata;
    headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/grpc"));
    headers.insert("te", HeaderValue::from_static("trailers"));
    let Ok(response) = inner.call(request).await;
    response
}

/// Reads a gRPC response: its messages, and its status from the trailers
/// (or from the headers, for a trailers-only answer).
async fn read(response: http::Response<Body>) -> Answer {
    let (parts, body) = response.into_parts();
    let mut headers = parts.headers;
    let (data, mut trailers) = match body.collect().await {
        Ok(collected) => {
            let trailers = collected.trailers().cloned().unwrap_or_default();
            (collected.to_bytes(), trailers)
        }
        Err(e) => {
            let status = Status {
                code: 13,
                message: format!("reading the response: {e}"),
                details: None,
            };
            return Answer {
                headers,
                messages: Vec::new(),
                status,
                trailers: HeaderMap::new(),
                refused_gzip: false,
            };
        }
    };
    let from = if trailers.contains_key("grpc-status") {
        &mut trailers
    } else {
        &mut headers
    };
    let refused_gzip = refuses_gzip(from);
    let status = take_status(from);
    drop_own(&mut headers);
    drop_own(&mut trailers);
    Answer {
        headers,
        messages: unframe(data),
        status,
        trailers,
        refused_gzip,
    }
}

/// Whether a status in `map` refuses the request's encoding: tonic answers
/// `unimplemented` with the encodings it takes in `grpc-accept-encoding`.
fn refuses_gzip(map: &HeaderMap) -> bool {
    let unimplemented = map.get("grpc-status").is_some_and(|v| v == "12");
    let accepted = map.get("grpc-accept-encoding").and_then(|v| v.to_str().ok());
    unimplemented && accepted.is_some_and(|list| !list.split(',').any(|e| e.trim() == "gzip"))
}

/// Removes gRPC's own headers, and those that describe the gRPC body
/// (type, length), from `map`.
pub fn drop_own(map: &mut HeaderMap) {
    for name in [
        "grpc-status",
        "grpc-message",
        "grpc-status-details-bin",
        "grpc-encoding",
        "grpc-accept-encoding",
    ] {
        map.remove(name);
    }
    map.remove(http::header::CONTENT_TYPE);
    map.remove(http::header::CONTENT_LENGTH);
    map.remove(http::header::TRANSFER_ENCODING);
}

/// The status `map` carries (OK if it carries none).
pub fn take_status(map: &mut HeaderMap) -> Status {
    let code = map
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let message = map
        .get("grpc-message")
        .map(|v| String::from_utf8_lossy(&percent_decode(v.as_bytes(), false)).into_owned())
        .unwrap_or_default();
    let details = map
        .get("grpc-status-details-bin")
        .and_then(|v| decode_base64(v.as_bytes()));
    Status { code, message, details }
}

/// The messages of a body of gRPC frames (a truncated frame is dropped).
fn unframe(mut data: Bytes) -> Vec<Message> {
    let mut messages = Vec::new();
    while data.len() >= 5 {
        let len = u32::from_be_bytes([data[1], data[2], data[3], data[4]]) as usize;
        if data.len() < 5 + len {
            break;
        }
        let gzipped = data[0] & 1 == 1;
        data.advance(5);
        messages.push(Message {
            bytes: data.split_to(len),
            gzipped,
        });
    }
    messages
}

/// `bytes` with `%XX` escapes decoded (`grpc-message`, a GET's query);
/// `+` is a space in a query (`plus_is_space`), itself in `grpc-message`.
pub fn percent_decode(bytes: &[u8], plus_is_space: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).and_then(|b| hex(*b)),
            bytes.get(i + 2).and_then(|b| hex(*b)),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (b'+', _, _) if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// Binary metadata is base64, padded or not.
pub fn decode_base64(bytes: &[u8]) -> Option<Bytes> {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine.decode(bytes).ok().map(Bytes::from)
}
