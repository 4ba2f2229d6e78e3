//! The Connect protocol's own pieces: how a request says it is Connect,
//! envelopes, and the error model (codes by name, HTTP statuses, the error
//! JSON with its details).

use bytes::BytesMut;
use tonic::codegen::http::{self, HeaderMap, StatusCode};

use super::grpc::Status;

/// The largest request body (or message, gunzipped) read, before it is
/// refused (`resource_exhausted`).
pub const MAX_REQUEST: usize = 4 << 20;

/// What kind of call a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// Connect unary over POST, with the codec.
    Unary(Codec),
    /// Connect unary over GET (the message in the query).
    Get,
    /// Connect streaming (enveloped messages), with the codec.
    Stream(Codec),
    /// Not Connect: gRPC (and gRPC-Web, translated before), for tonic.
    Other,
}

/// The message codec a Connect call uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    Proto,
    Json,
}

impl Codec {
    pub fn named(name: &str) -> Option<Codec> {
        match name {
            "proto" => Some(Codec::Proto),
            "json" => Some(Codec::Json),
            _ => None,
        }
    }

    pub fn unary_content_type(self) -> &'static str {
        match self {
            Codec::Proto => "application/proto",
            Codec::Json => "application/json",
        }
    }

    pub fn stream_content_type(self) -> &'static str {
        match self {
            Codec::Proto => "application/connect+proto",
            Codec::Json => "application/connect+json",
        }
    }
}

/// The kind of call `request` is, by its method and content type.
pub fn call_of<B>(request: &http::Request<B>) -> Call {
    if request.method() == http::Method::GET {
        let query = request.uri().query().unwrap_or("");
        let connect = query
            .split('&')
            .any(|pair| pair.starts_with("encoding=") || pair == "connect=v1");
        return if connect { Call::Get } else { Call::Other };
    }
    let content_type = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let media = content_type.split(';').next().unwrap_or("").trim();
    match media.strip_prefix("application/") {
        Some(codec) if request.method() == http::Method::POST => {
            match (codec.strip_prefix("connect+"), Codec::named(codec)) {
                (Some(stream), _) => Codec::named(stream).map_or(Call::Other, Call::Stream),
                (None, Some(codec)) => Call::Unary(codec),
                (None, None) => Call::Other,
            }
        }
        _ => Call::Other,
    }
}

/// A gRPC-Web call over HTTP/1.x.
pub fn is_grpc_web_over_http1<B>(request: &http::Request<B>) -> bool {
    let grpc_web = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc-web"));
    grpc_web && request.version() < http::Version::HTTP_2
}

/// Whether `request` is a POST to a method (`/pkg.Service/Method`) in a
/// content type neither Connect, gRPC nor gRPC-Web has.
pub fn is_unsupported_media<B>(request: &http::Request<B>) -> bool {
    let content_type = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let method_path = request
        .uri()
        .path()
        .strip_prefix('/')
        .and_then(|p| p.split_once('/'))
        .is_some_and(|(service, method)| !service.is_empty() && !method.is_empty() && !method.contains('/'));
    request.method() == http::Method::POST && method_path && !content_type.starts_with("application/grpc")
}

/// gRPC's codes by Connect's names, and the HTTP status Connect answers
/// unary errors with.
const CODES: [(&str, u16); 17] = [
    ("ok", 200),
    ("canceled", 499),
    ("unknown", 500),
    ("invalid_argument", 400),
    ("deadline_exceeded", 504),
    ("not_found", 404),
    ("already_exists", 409),
    ("permission_denied", 403),
    ("resource_exhausted", 429),
    ("failed_precondition", 400),
    ("aborted", 409),
    ("out_of_range", 400),
    ("unimplemented", 501),
    ("internal", 500),
    ("unavailable", 503),
    ("data_loss", 500),
    ("unauthenticated", 401),
];

pub fn code_name(code: i32) -> &'static str {
    CODES.get(code as usize).map_or("unknown", |(name, _)| name)
}

/// The code Connect names `name`.
#[cfg(feature = "connect-client")]
pub fn code_named(name: &str) -> Option<i32> {
    CODES.iter().position(|(n, _)| *n == name).map(|i| i as i32)
}

pub fn http_status(code: i32) -> StatusCode {
    let status = CODES.get(code as usize).map_or(500, |(_, status)| *status);
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The error JSON of a failed call: `{"code", "message", "details"}`.
pub fn error_json(status: &Status) -> serde_json::Value {
    let mut error = serde_json::Map::new();
    error.insert("code".into(), code_name(status.code).into());
    if !status.message.is_empty() {
        error.insert("message".into(), status.message.clone().into());
    }
    let details = status.details.as_deref().map(details_of).unwrap_or_default();
    if !details.is_empty() {
        error.insert("details".into(), details.into());
    }
    serde_json::Value::Object(error)
}

/// The `details` of an encoded `google.rpc.Status`, as Connect writes them:
/// `{"type": full name, "value": base64 without padding}`.
fn details_of(status: &[u8]) -> Vec<serde_json::Value> {
    use base64::Engine as _;
    crate::status::details(status)
        .into_iter()
        .map(|(name, value)| {
            let value = base64::engine::general_purpose::STANDARD_NO_PAD.encode(value);
            serde_json::json!({ "type": name, "value": value })
        })
        .collect()
}

/// The end of a Connect stream: its error, if any, and its trailers.
pub fn end_of_stream(status: &Status, trailers: &HeaderMap) -> serde_json::Value {
    let mut end = serde_json::Map::new();
    if status.code != 0 {
        end.insert("error".into(), error_json(status));
    }
    let mut metadata = serde_json::Map::new();
    for (name, value) in trailers {
        let values = metadata
            .entry(name.as_str())
            .or_insert_with(|| serde_json::Value::Array(Vec::new()));
        if let serde_json::Value::Array(values) = values {
            values.push(String::from_utf8_lossy(value.as_bytes()).into_owned().into());
        }
    }
    if !metadata.is_empty() {
        end.insert("metadata".into(), serde_json::Value::Object(metadata));
    }
    serde_json::Value::Object(end)
}

/// Flags of an envelope: the message is compressed; the envelope ends the
/// stream (its payload is the end-of-stream JSON).
pub const COMPRESSED: u8 = 1;
pub const END_STREAM: u8 = 2;

/// An envelope: flags, length, payload.
pub fn envelope(flags: u8, payload: &[u8], out: &mut BytesMut) {
    out.extend_from_slice(&[flags]);
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
}
