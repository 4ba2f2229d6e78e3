//! gzip for Connect. A unary call's compression is the service's to
//! decide, as over gRPC: the layer passes it through both ways
//! ([`gzip_if`]). Stream envelopes are gunzipped and gzipped here.

use std::io::{Read, Write};

use bytes::Bytes;
use tonic::codegen::http::HeaderMap;

use super::grpc::{Message, Status};

/// Stream messages smaller than this are sent as they are.
pub const MIN_COMPRESSED: usize = 1024;

/// Whether the header `name` (a `content-encoding`) names gzip, or no
/// compression (`Ok(false)`); another is refused.
pub fn is_gzip(headers: &HeaderMap, name: &str) -> Result<bool, Status> {
    named_gzip(headers.get(name).map(|v| v.to_str().unwrap_or("?")))
}

/// Whether `encoding` names gzip, or no compression (`Ok(false)`).
pub fn named_gzip(encoding: Option<&str>) -> Result<bool, Status> {
    match encoding.map(str::trim) {
        None | Some("" | "identity") => Ok(false),
        Some("gzip") => Ok(true),
        Some(other) => Err(Status {
            code: 12,
            message: format!("compression `{other}` is not supported (gzip is)"),
            details: None,
        }),
    }
}

/// Whether the list of encodings in header `name` (`accept-encoding`,
/// `connect-accept-encoding`) names gzip.
pub fn accepts_gzip(headers: &HeaderMap, name: &str) -> bool {
    let accept = headers.get(name);
    let list = accept.and_then(|v| v.to_str().ok()).unwrap_or("");
    list.split(',')
        .any(|e| e.split(';').next().unwrap_or("").trim() == "gzip")
}

/// `data` gunzipped, at most `limit` bytes of it.
pub fn gunzip(data: &[u8], limit: usize) -> Result<Bytes, Status> {
    let mut out = Vec::new();
    let decoder = flate2::read::GzDecoder::new(data);
    let read = decoder.take(limit as u64 + 1).read_to_end(&mut out);
    let fail = |message: String| Status {
        code: 3,
        message,
        details: None,
    };
    read.map_err(|e| fail(format!("the message does not gunzip: {e}")))?;
    if out.len() > limit {
        return Err(Status {
            code: 8,
            message: "the message is too large".into(),
            details: None,
        });
    }
    Ok(Bytes::from(out))
}

/// `data` gzipped.
pub fn gzip(data: &[u8]) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(data);
    Bytes::from(encoder.finish().unwrap_or_default())
}

/// `bytes` as a message, gzipped if `gzip`.
pub fn gzip_if(bytes: Bytes, gzip: bool) -> Message {
    match gzip {
        true => Message {
            bytes: self::gzip(&bytes),
            gzipped: true,
        },
        false => Message { bytes, gzipped: false },
    }
}
