// Answers conformance requests with the generated test messages in
// `protos` (included into a module of `lib.rs` that defines it).

use fastrs::json::{self, JsonMessage, JsonOptions};
use fastrs::text::{self, ParseOptions, PrintOptions};
use fastrs::{Described, HasView, Message, View};

use protos::conformance::{
    conformance_request, conformance_response, ConformanceRequest, ConformanceResponse, TestCategory, WireFormat,
};
use protos::protobuf_test_messages::{edition_unstable, editions, proto2, proto3};

/// Answers one encoded request with an encoded response, appended to `out`.
pub fn answer(request: &[u8], out: &mut Vec<u8>) {
    answer_with(request, out, Read::Owned);
}

/// [`answer`], reading binary payloads through zero-copy views.
pub fn answer_views(request: &[u8], out: &mut Vec<u8>) {
    answer_with(request, out, Read::View);
}

/// How binary payloads are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// Decoded into the message.
    Owned,
    /// Read as a view, which must encode back to the payload, then
    /// converted to the message.
    View,
}

fn answer_with(request: &[u8], out: &mut Vec<u8>, read: Read) {
    let response = match ConformanceRequest::decode(request) {
        Ok(request) => respond_with(&request, read),
        Err(e) => result(conformance_response::Result::RuntimeError(format!("bad request: {e}"))),
    };
    response.encode_append(out);
}

/// A response holding `r`.
#[must_use]
pub fn result(r: conformance_response::Result) -> ConformanceResponse {
    ConformanceResponse {
        result: Some(r),
        ..Default::default()
    }
}

/// Answers one request. A message type the testee does not know is
/// `skipped`, as the runner expects (a `runtime_error` aborts some tests).
#[must_use]
pub fn respond(request: &ConformanceRequest) -> ConformanceResponse {
    respond_with(request, Read::Owned)
}

/// [`respond`], reading binary payloads as `read` says.
#[must_use]
pub fn respond_with(request: &ConformanceRequest, read: Read) -> ConformanceResponse {
    use conformance_response::Result as R;
    match request.message_type.as_str() {
        "conformance.FailureSet" => {
            let empty = protos::conformance::FailureSet::default();
            result(R::ProtobufPayload(empty.encode_to_vec()))
        }
        "protobuf_test_messages.proto3.TestAllTypesProto3" => convert::<proto3::TestAllTypesProto3>(request, read),
        "protobuf_test_messages.proto2.TestAllTypesProto2" => convert::<proto2::TestAllTypesProto2>(request, read),
        "protobuf_test_messages.editions.proto3.TestAllTypesProto3" => {
            convert::<editions::proto3::TestAllTypesProto3>(request, read)
        }
        "protobuf_test_messages.editions.proto2.TestAllTypesProto2" => {
            convert::<editions::proto2::TestAllTypesProto2>(request, read)
        }
        "protobuf_test_messages.editions.TestAllTypesEdition2023" => {
            convert::<editions::TestAllTypesEdition2023>(request, read)
        }
        "protobuf_test_messages.edition_unstable.TestAllTypesEditionUnstable" => {
            convert::<edition_unstable::TestAllTypesEditionUnstable>(request, read)
        }
        other => result(R::Skipped(format!("fastrs-conformance has no message type {other}"))),
    }
}

/// Parses the payload as an `M` and writes it in the requested format.
fn convert<M: JsonMessage + Described + HasView>(request: &ConformanceRequest, read: Read) -> ConformanceResponse {
    use conformance_request::Payload;
    use conformance_response::Result as R;
    register_types();
    let message = match &request.payload {
        Some(Payload::ProtobufPayload(bytes)) if read == Read::View => match M::View::decode(bytes) {
            Ok(view) if view.encode_to_vec() != *bytes => return result(R::RuntimeError("view encodes otherwise".into())),
            Ok(view) => Ok(view.to_message()),
            Err(e) => Err(e.to_string()),
        },
        Some(Payload::ProtobufPayload(bytes)) => M::decode(bytes).map_err(|e| e.to_string()),
        Some(Payload::JsonPayload(text)) => {
            let ignore = request.test_category == TestCategory::JsonIgnoreUnknownParsingTest;
            let options = JsonOptions::new().ignore_unknown_fields(ignore);
            json::from_str_with::<M>(text, options).map_err(|e| e.to_string())
        }
        Some(Payload::TextPayload(t)) => text::from_str_with::<M>(t, ParseOptions::new()).map_err(|e| e.to_string()),
        Some(_) => return result(R::Skipped("fastrs reads binary, JSON and text payloads only".into())),
        None => return result(R::RuntimeError("request without payload".into())),
    };
    let message = match message {
        Ok(m) => m,
        Err(e) => return result(R::ParseError(e)),
    };
    match request.requested_output_format {
        f if f == WireFormat::Protobuf => result(R::ProtobufPayload(message.encode_to_vec())),
        f if f == WireFormat::Json => match json::to_string(&message) {
            Ok(text) => result(R::JsonPayload(text)),
            Err(e) => result(R::SerializeError(e.to_string())),
        },
        f if f == WireFormat::TextFormat => {
            let options = PrintOptions::new().print_unknown_fields(request.print_unknown_fields);
            result(R::TextPayload(text::to_string_with(&message, options)))
        }
        _ => result(R::Skipped("fastrs writes binary, JSON and text only".into())),
    }
}

/// Lets `Any` fields hold the test messages in JSON.
fn register_types() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        proto3::register_json_types();
        proto2::register_json_types();
        editions::proto3::register_json_types();
        editions::proto2::register_json_types();
        editions::register_json_types();
        edition_unstable::register_json_types();
    });
}
