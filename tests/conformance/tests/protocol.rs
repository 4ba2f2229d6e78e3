//! Drives the `fastrs-conformance` binary over its stdin/stdout with hand-built
//! requests, covering the protocol and a representative set of the official
//! suite's binary cases: valid input, invalid input, unknown fields, merges.

use std::io::Write;
use std::process::{Command, Stdio};

use fastrs::Message;
use fastrs_conformance::protos::conformance::{
    conformance_request::Payload, conformance_response::Result as R, ConformanceRequest, ConformanceResponse,
    FailureSet, WireFormat,
};
use fastrs_conformance::protos::protobuf_test_messages::proto3::TestAllTypesProto3;

const P3: &str = "protobuf_test_messages.proto3.TestAllTypesProto3";
const P2: &str = "protobuf_test_messages.proto2.TestAllTypesProto2";

fn request(message_type: &str, payload: &[u8]) -> ConformanceRequest {
    ConformanceRequest {
        message_type: message_type.into(),
        payload: Some(Payload::ProtobufPayload(payload.to_vec())),
        requested_output_format: WireFormat::Protobuf.into(),
        ..Default::default()
    }
}

/// Runs the testee once on all `requests`, as the runner does, and returns the
/// responses in order.
fn run(requests: &[ConformanceRequest]) -> Vec<ConformanceResponse> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fastrs-conformance"))
        .arg("--ignored-argument")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        let bytes = r.encode_to_vec();
        stdin.write_all(&(bytes.len() as u32).to_le_bytes()).unwrap();
        stdin.write_all(&bytes).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let mut rest = out.stdout.as_slice();
    let mut responses = Vec::new();
    while !rest.is_empty() {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        responses.push(ConformanceResponse::decode(&rest[4..4 + len]).unwrap());
        rest = &rest[4 + len..];
    }
    assert_eq!(responses.len(), requests.len(), "one response per request");
    responses
}

fn payload(r: &ConformanceResponse) -> &[u8] {
    match &r.result {
        Some(R::ProtobufPayload(p)) => p,
        other => panic!("expected a protobuf payload, got {other:?}"),
    }
}

fn is_parse_error(r: &ConformanceResponse) -> bool {
    matches!(r.result, Some(R::ParseError(_)))
}

#[test]
fn failure_set_request_gets_an_empty_failure_set() {
    let r = run(&[request("conformance.FailureSet", &[])]);
    assert_eq!(FailureSet::decode(payload(&r[0])).unwrap(), FailureSet::default());
}

#[test]
fn valid_payloads_are_re_encoded() {
    // optional_int32 = 150, optional_string = "hi", repeated_int32 packed [1, 2].
    let input = [0x08, 0x96, 0x01, 0x72, 0x02, b'h', b'i', 0xfa, 0x01, 0x02, 0x01, 0x02];
    let r = run(&[request(P3, &input), request(P2, &[0x08, 0x96, 0x01])]);
    assert_eq!(payload(&r[0]), input);
    assert_eq!(payload(&r[1]), [0x08, 0x96, 0x01]);
}

#[test]
fn unpacked_input_is_re_encoded_packed_in_proto3() {
    let r = run(&[request(P3, &[0xf8, 0x01, 0x01, 0xf8, 0x01, 0x02])]);
    assert_eq!(payload(&r[0]), [0xfa, 0x01, 0x02, 0x01, 0x02]);
}

#[test]
fn invalid_payloads_are_parse_errors() {
    let cases: &[&[u8]] = &[
        &[0x08],                                                                   // truncated varint
        &[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], // 11-byte varint
        &[0x72, 0x05, b'a'],                                                       // length past the end
        &[0x72, 0x01, 0xff],                                                       // invalid UTF-8 in a string
        &[0x0f, 0x00],                                                             // wire type 7
        &[0x00, 0x00],                                                             // field number 0
        &[0x0c],                                                                   // END_GROUP without START_GROUP
        &[0x0b, 0x14],                                                             // mismatched END_GROUP
    ];
    let requests: Vec<_> = cases.iter().map(|c| request(P3, c)).collect();
    for (case, r) in cases.iter().zip(run(&requests)) {
        assert!(is_parse_error(&r), "{case:02x?} gave {r:?}");
    }
}

#[test]
fn unknown_fields_are_kept() {
    // Field 1000 (reserved for this test in both messages), each wire type.
    let unknown = [
        0xc0, 0x3e, 0x05, 0xc2, 0x3e, 0x01, b'x', 0xc5, 0x3e, 1, 2, 3, 4, 0xc3, 0x3e, 0x08, 0x01, 0xc4, 0x3e,
    ];
    let r = run(&[request(P3, &unknown), request(P2, &unknown)]);
    assert_eq!(payload(&r[0]), unknown);
    assert_eq!(payload(&r[1]), unknown);
}

#[test]
fn merges_follow_protobuf_rules() {
    // optional_nested_message (18) twice: {a: 1} then {corecursive: {...}}; merged.
    let first = [0x92, 0x01, 0x02, 0x08, 0x01];
    let second = [0x92, 0x01, 0x04, 0x12, 0x02, 0x08, 0x07];
    let input = [&first[..], &second[..]].concat();
    let r = run(&[request(P3, &input)]);
    let m = TestAllTypesProto3::decode(payload(&r[0])).unwrap();
    let nested = m.optional_nested_message.unwrap();
    assert_eq!(nested.a, 1);
    assert_eq!(nested.corecursive.unwrap().optional_int32, 7);
    // Oneof: last member wins (oneof_uint32 = 111 then oneof_string = "s").
    let r = run(&[request(P3, &[0xf8, 0x06, 0x6f, 0x8a, 0x07, 0x01, b's'])]);
    assert_eq!(payload(&r[0]), [0x8a, 0x07, 0x01, b's']);
}

#[test]
fn proto2_closed_enum_unknown_values_stay_unknown() {
    // optional_nested_enum (21) = 7, not a NestedEnum value: kept as unknown.
    let r = run(&[request(P2, &[0xa8, 0x01, 0x07])]);
    assert_eq!(payload(&r[0]), [0xa8, 0x01, 0x07]);
}

#[test]
fn json_and_text_are_skipped_for_now() {
    let json = ConformanceRequest {
        message_type: P3.into(),
        payload: Some(Payload::JsonPayload("{}".into())),
        requested_output_format: WireFormat::Protobuf.into(),
        ..Default::default()
    };
    let to_json = ConformanceRequest {
        requested_output_format: WireFormat::Json.into(),
        ..request(P3, &[])
    };
    for r in run(&[json, to_json]) {
        assert!(matches!(r.result, Some(R::Skipped(_))), "{r:?}");
    }
}
