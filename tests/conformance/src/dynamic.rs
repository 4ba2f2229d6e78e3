//! The testee over `DynamicMessage`: every test message is read and
//! written through a descriptor pool built from the testee's embedded
//! descriptors, with no generated code for the test messages on the path
//! (the conformance protocol's own messages are still generated).

use std::sync::LazyLock;

use fastrs::json::JsonOptions;
use fastrs::reflect::{DescriptorPool, DynamicMessage};
use fastrs::text::{ParseOptions, PrintOptions};
use fastrs::Message;

use crate::speed::protos::conformance::{
    conformance_request, conformance_response, ConformanceRequest, TestCategory, WireFormat,
};
use crate::speed::protos::protobuf_test_messages::{edition_unstable, editions, proto2, proto3};
use crate::speed::result;

/// Every test message's file and its imports.
static POOL: LazyLock<DescriptorPool> = LazyLock::new(|| {
    let mut pool = DescriptorPool::new();
    pool.add_described::<proto3::TestAllTypesProto3>()
        .and_then(|()| pool.add_described::<proto2::TestAllTypesProto2>())
        .and_then(|()| pool.add_described::<editions::proto3::TestAllTypesProto3>())
        .and_then(|()| pool.add_described::<editions::proto2::TestAllTypesProto2>())
        .and_then(|()| pool.add_described::<editions::TestAllTypesEdition2023>())
        .and_then(|()| pool.add_described::<edition_unstable::TestAllTypesEditionUnstable>())
        .expect("the test messages' descriptors link");
    pool
});

/// Answers one encoded request with an encoded response, appended to `out`.
pub fn answer(request: &[u8], out: &mut Vec<u8>) {
    use conformance_response::Result as R;
    let response = match ConformanceRequest::decode(request) {
        Ok(request) => respond(&request),
        Err(e) => result(R::RuntimeError(format!("bad request: {e}"))),
    };
    response.encode_append(out);
}

fn respond(request: &ConformanceRequest) -> crate::speed::protos::conformance::ConformanceResponse {
    use conformance_request::Payload;
    use conformance_response::Result as R;
    if request.message_type == "conformance.FailureSet" {
        return result(R::ProtobufPayload(Vec::new()));
    }
    let Some(ty) = POOL.get_message_by_name(&request.message_type) else {
        return result(R::Skipped(format!("no message type {}", request.message_type)));
    };
    let message = match &request.payload {
        Some(Payload::ProtobufPayload(bytes)) => DynamicMessage::decode(ty, bytes).map_err(|e| e.to_string()),
        Some(Payload::JsonPayload(text)) => {
            let ignore = request.test_category == TestCategory::JsonIgnoreUnknownParsingTest;
            let options = JsonOptions::new().ignore_unknown_fields(ignore);
            DynamicMessage::from_json_with(ty, text, options).map_err(|e| e.to_string())
        }
        Some(Payload::TextPayload(text)) => {
            DynamicMessage::parse_text_with(ty, text, ParseOptions::new()).map_err(|e| e.to_string())
        }
        Some(_) => return result(R::Skipped("binary, JSON and text payloads only".into())),
        None => return result(R::RuntimeError("request without payload".into())),
    };
    let message = match message {
        Ok(m) => m,
        Err(e) => return result(R::ParseError(e)),
    };
    match request.requested_output_format {
        f if f == WireFormat::Protobuf => result(R::ProtobufPayload(message.encode_to_vec())),
        f if f == WireFormat::Json => match message.to_json() {
            Ok(text) => result(R::JsonPayload(text)),
            Err(e) => result(R::SerializeError(e.to_string())),
        },
        f if f == WireFormat::TextFormat => {
            let options = PrintOptions::new().print_unknown_fields(request.print_unknown_fields);
            result(R::TextPayload(message.to_text_with(options)))
        }
        _ => result(R::Skipped("binary, JSON and text output only".into())),
    }
}
