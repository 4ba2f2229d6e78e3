//! `google.rpc.Status`, encoded as gRPC's `grpc-status-details-bin`
//! carries it: what a failed call's details travel in.

use bytes::Bytes;
use fastrs::Reader;

/// An encoded `google.rpc.Status` of `code`, `message` and `details`
/// (each a full type name and an encoded message), as gRPC's
/// `grpc-status-details-bin` carries it.
#[cfg_attr(not(any(feature = "connect-client", feature = "validate")), allow(dead_code))]
pub(crate) fn rpc_status(code: i32, message: &str, details: &[(String, Bytes)]) -> Bytes {
    let mut out = Vec::new();
    if code != 0 {
        out.push(0x08);
        put_varint(&mut out, code as u64);
    }
    if !message.is_empty() {
        put_field(&mut out, 2, message.as_bytes());
    }
    for (ty, value) in details {
        let mut any = Vec::new();
        put_field(&mut any, 1, format!("type.googleapis.com/{ty}").as_bytes());
        put_field(&mut any, 2, value);
        put_field(&mut out, 3, &any);
    }
    Bytes::from(out)
}

/// A length-delimited field.
fn put_field(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_varint(out, u64::from(number << 3 | 2));
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The details of an encoded `google.rpc.Status`: each `Any`'s full type
/// name and value, in order (what does not parse is left out).
pub(crate) fn details(status: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut details = Vec::new();
    let mut reader = Reader::new(status);
    while !reader.is_empty() {
        let Ok(tag) = reader.read_tag() else { break };
        if tag != (3 << 3 | 2) {
            if reader.skip_value(tag, fastrs::wire::DEFAULT_RECURSION_LIMIT).is_err() {
                break;
            }
            continue;
        }
        let Ok(any) = reader.read_bytes() else { break };
        let (type_url, value) = any_parts(any);
        let name = type_url.rsplit('/').next().unwrap_or(&type_url).to_owned();
        details.push((name, value));
    }
    details
}

/// `type_url` and `value` of an encoded `google.protobuf.Any`.
fn any_parts(any: &[u8]) -> (String, Vec<u8>) {
    let (mut type_url, mut value) = (String::new(), Vec::new());
    let mut reader = Reader::new(any);
    while !reader.is_empty() {
        let Ok(tag) = reader.read_tag() else { break };
        match tag {
            0x0a => {
                type_url = reader
                    .read_bytes()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default()
            }
            0x12 => value = reader.read_bytes().map(<[u8]>::to_vec).unwrap_or_default(),
            _ => {
                if reader.skip_value(tag, fastrs::wire::DEFAULT_RECURSION_LIMIT).is_err() {
                    break;
                }
            }
        }
    }
    (type_url, value)
}
