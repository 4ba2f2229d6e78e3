//! Messages between the binary the service reads and writes and the JSON
//! of Connect's JSON codec, by the descriptors of the methods: for the
//! server layer and the client alike.

use bytes::Bytes;
use fastrs::reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};

use super::grpc::Status;

/// A message of type `ty` in JSON, as the binary the service reads.
pub fn json_to_binary(ty: &MessageDescriptor, message: &[u8]) -> Result<Bytes, Status> {
    let text = std::str::from_utf8(message).map_err(|_| Status::new(3, "the JSON is not UTF-8"))?;
    let message = DynamicMessage::from_json(ty.clone(), text).map_err(|e| Status::new(3, &e.to_string()))?;
    Ok(Bytes::from(message.encode_to_vec()))
}

/// A message of type `ty` the service wrote, as JSON.
pub fn binary_to_json(ty: &MessageDescriptor, message: &[u8]) -> Result<Bytes, Status> {
    let message = DynamicMessage::decode(ty.clone(), message).map_err(|e| Status::new(13, &e.to_string()))?;
    let json = message.to_json().map_err(|e| Status::new(13, &e.to_string()))?;
    Ok(Bytes::from(json))
}

/// The input and output types of the method `/pkg.Service/Method`, and its
/// encoded options.
pub fn method_of(pool: &DescriptorPool, path: &str) -> Option<(MessageDescriptor, MessageDescriptor, Vec<u8>)> {
    let (service, method) = path.trim_start_matches('/').split_once('/')?;
    let method = pool
        .get_service_by_name(service)?
        .methods()
        .find(|m| m.name() == method)?;
    Some((method.input(), method.output(), method.options_bytes().to_vec()))
}
