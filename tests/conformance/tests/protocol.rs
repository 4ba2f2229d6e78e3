//! Drives the `fastrs-conformance` binary over its stdin/stdout with hand-built
//! requests, covering the protocol and a representative set of the official
//! suite's binary and JSON cases: valid input, invalid input, unknown fields,
//! merges, JSON names, well-known types, `Any`, serialization errors.
//!
//! Needs Google's conformance schemas beside the repository; without them
//! the one test left says where to get them.
#![cfg_attr(not(conformance_schemas), allow(unused))]

#[cfg(not(conformance_schemas))]
#[test]
fn conformance_schemas_are_missing() {
    eprintln!("skipped: {}", fastrs_conformance::NOTICE.trim_end());
}

#[cfg(conformance_schemas)]
mod with_schemas {

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
    fn every_v36_message_type_is_answered_and_unknown_ones_are_skipped() {
        let types = [
            P3,
            P2,
            "protobuf_test_messages.editions.proto3.TestAllTypesProto3",
            "protobuf_test_messages.editions.proto2.TestAllTypesProto2",
            "protobuf_test_messages.editions.TestAllTypesEdition2023",
            "protobuf_test_messages.edition_unstable.TestAllTypesEditionUnstable",
        ];
        let requests: Vec<_> = types.iter().map(|t| request(t, &[0x08, 0x96, 0x01])).collect();
        for (r, t) in run(&requests).iter().zip(types) {
            assert_eq!(payload(r), [0x08, 0x96, 0x01], "{t}");
        }
        let r = run(&[request("no.such.Message", &[])]);
        assert!(
            matches!(&r[0].result, Some(R::Skipped(why)) if why.contains("no.such.Message")),
            "{r:?}"
        );
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

    fn json_request(message_type: &str, json: &str, output: WireFormat) -> ConformanceRequest {
        ConformanceRequest {
            message_type: message_type.into(),
            payload: Some(Payload::JsonPayload(json.into())),
            requested_output_format: output.into(),
            ..Default::default()
        }
    }

    fn json_of(r: &ConformanceResponse) -> serde_json::Value {
        match &r.result {
            Some(R::JsonPayload(text)) => serde_json::from_str(text).unwrap(),
            other => panic!("expected a JSON payload, got {other:?}"),
        }
    }

    /// Valid JSON cases of the official suite (its names in comments), as the
    /// runner checks them: JSON in, JSON out and binary out, both compared.
    #[test]
    fn valid_json_is_read_and_written() {
        let cases: &[(&str, &str)] = &[
            (r#"{"optionalInt32": 12345}"#, r#"{"optionalInt32": 12345}"#),
            // FieldNameInSnakeCase
            (
                r#"{"optional_int32": 1, "optional_nested_message": {"a": 2}}"#,
                r#"{"optionalInt32": 1, "optionalNestedMessage": {"a": 2}}"#,
            ),
            // FieldNameWithNumbers, FieldNameWithMixedCases, FieldNameWithDoubleUnderscores
            (
                r#"{"field0name5": 1, "field0Name6": 2}"#,
                r#"{"field0name5": 1, "field0Name6": 2}"#,
            ),
            (
                r#"{"fieldName7": 1, "FieldName8": 2, "fieldName9": 3, "FieldName10": 4, "FIELDNAME11": 5, "FIELDName12": 6}"#,
                r#"{"fieldName7": 1, "FieldName8": 2, "fieldName9": 3, "FieldName10": 4, "FIELDNAME11": 5, "FIELDName12": 6}"#,
            ),
            (
                r#"{"FieldName13": 1, "FieldName14": 2, "fieldName15": 3, "fieldName16": 4, "fieldName17": 5, "FieldName18": 6}"#,
                r#"{"FieldName13": 1, "FieldName14": 2, "fieldName15": 3, "fieldName16": 4, "fieldName17": 5, "FieldName18": 6}"#,
            ),
            // Int64FieldMaxValueNotQuoted, Uint64FieldMaxValue, Int32FieldExponentialFormat
            (
                r#"{"optionalInt64": 9223372036854775807}"#,
                r#"{"optionalInt64": "9223372036854775807"}"#,
            ),
            (
                r#"{"optionalUint64": "18446744073709551615"}"#,
                r#"{"optionalUint64": "18446744073709551615"}"#,
            ),
            (r#"{"optionalInt32": 1e5}"#, r#"{"optionalInt32": 100000}"#),
            // Int32FieldMaxFloatValue, Int64FieldMaxValueNotQuoted, Uint64FieldMaxValueNotQuoted, Int32FieldStringValueEscaped
            (
                r#"{"optionalInt32": 2.147483647e9}"#,
                r#"{"optionalInt32": 2147483647}"#,
            ),
            (
                r#"{"optionalInt64": 9223372036854774784}"#,
                r#"{"optionalInt64": "9223372036854774784"}"#,
            ),
            (
                r#"{"optionalUint64": 18446744073709549568}"#,
                r#"{"optionalUint64": "18446744073709549568"}"#,
            ),
            (
                r#"{"optionalInt32": "2\u003147483647"}"#,
                r#"{"optionalInt32": 2147483647}"#,
            ),
            // StringFieldSurrogatePair, BytesFieldBase64Url, FieldNameEscaped
            (r#"{"optionalString": "\uD83D\uDE01"}"#, r#"{"optionalString": "😁"}"#),
            (r#"{"optionalBytes": "-_"}"#, r#"{"optionalBytes": "+w=="}"#),
            (r#"{"fieldn\u0061me1": 1}"#, r#"{"fieldname1": 1}"#),
            // DoubleFieldNan, DoubleFieldNegativeInfinity, FloatFieldMinPositiveValue
            (r#"{"optionalDouble": "NaN"}"#, r#"{"optionalDouble": "NaN"}"#),
            (
                r#"{"optionalDouble": "-Infinity"}"#,
                r#"{"optionalDouble": "-Infinity"}"#,
            ),
            (
                r#"{"optionalFloat": 1.175494e-38}"#,
                r#"{"optionalFloat": 1.175494e-38}"#,
            ),
            // EnumField, EnumFieldUnknownValue, EnumFieldWithAlias
            (r#"{"optionalNestedEnum": "BAR"}"#, r#"{"optionalNestedEnum": "BAR"}"#),
            (r#"{"optionalNestedEnum": 123}"#, r#"{"optionalNestedEnum": 123}"#),
            (
                r#"{"optionalAliasedEnum": "moo"}"#,
                r#"{"optionalAliasedEnum": "ALIAS_BAZ"}"#,
            ),
            (
                r#"{"optionalAliasedEnum": "bAz"}"#,
                r#"{"optionalAliasedEnum": "ALIAS_BAZ"}"#,
            ),
            // OneofFieldNullFirst
            (
                r#"{"oneofUint32": null, "oneofString": "test"}"#,
                r#"{"oneofString": "test"}"#,
            ),
            // Maps
            (
                r#"{"mapInt32Int32": {"1": 2, "-3": 4}}"#,
                r#"{"mapInt32Int32": {"1": 2, "-3": 4}}"#,
            ),
            (
                r#"{"mapBoolBool": {"true": true, "false": false}}"#,
                r#"{"mapBoolBool": {"true": true, "false": false}}"#,
            ),
            (
                r#"{"mapStringNestedMessage": {"k": {"a": 1}}}"#,
                r#"{"mapStringNestedMessage": {"k": {"a": 1}}}"#,
            ),
            // Wrappers set to their defaults are still present
            (
                r#"{"optionalBoolWrapper": false, "optionalInt64Wrapper": 0, "optionalStringWrapper": "", "optionalBytesWrapper": ""}"#,
                r#"{"optionalBoolWrapper": false, "optionalInt64Wrapper": "0", "optionalStringWrapper": "", "optionalBytesWrapper": ""}"#,
            ),
            (
                r#"{"repeatedInt32Wrapper": [1, 2]}"#,
                r#"{"repeatedInt32Wrapper": [1, 2]}"#,
            ),
            // DurationMinValue, TimestampWithPositiveOffset, FieldMask
            (
                r#"{"optionalDuration": "-315576000000.999999999s"}"#,
                r#"{"optionalDuration": "-315576000000.999999999s"}"#,
            ),
            (
                r#"{"optionalTimestamp": "1970-01-01T08:00:01+08:00"}"#,
                r#"{"optionalTimestamp": "1970-01-01T00:00:01Z"}"#,
            ),
            (
                r#"{"optionalFieldMask": "foo,barBaz"}"#,
                r#"{"optionalFieldMask": "foo,barBaz"}"#,
            ),
            // Struct, ValueAcceptNull, NullValue
            (
                r#"{"optionalStruct": {"a": [1.5, "x", null, {"b": true}]}}"#,
                r#"{"optionalStruct": {"a": [1.5, "x", null, {"b": true}]}}"#,
            ),
            (r#"{"optionalValue": null}"#, r#"{"optionalValue": null}"#),
            (r#"{"repeatedValue": [null, 1.5]}"#, r#"{"repeatedValue": [null, 1.5]}"#),
            (r#"{"repeatedListValue": [["a"]]}"#, r#"{"repeatedListValue": [["a"]]}"#),
            (
                r#"{"optionalStruct": {"listValue": []}}"#,
                r#"{"optionalStruct": {"listValue": []}}"#,
            ),
            // TimestampWithNegativeOffset, DurationHasZeroFractionalDigit
            (
                r#"{"optionalTimestamp": "1969-12-31T16:00:01-08:00"}"#,
                r#"{"optionalTimestamp": "1970-01-01T00:00:01Z"}"#,
            ),
            (
                r#"{"optionalDuration": "1.000000000s"}"#,
                r#"{"optionalDuration": "1s"}"#,
            ),
            // Any: a message, a well-known type under "value", Any in Any, @type last
            (
                r#"{"optionalAny": {"optionalInt32": 12345, "@type": "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3"}}"#,
                r#"{"optionalAny": {"@type": "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3", "optionalInt32": 12345}}"#,
            ),
            (
                r#"{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.Int32Value", "value": 12345}}"#,
                r#"{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.Int32Value", "value": 12345}}"#,
            ),
            (
                r#"{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.Any", "value": {"@type": "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3", "optionalInt32": 1}}}"#,
                r#"{"optionalAny": {"@type": "type.googleapis.com/google.protobuf.Any", "value": {"@type": "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3", "optionalInt32": 1}}}"#,
            ),
        ];
        fastrs_conformance::protos::protobuf_test_messages::proto3::register_json_types();
        let mut requests = Vec::new();
        for (input, _) in cases {
            requests.push(json_request(P3, input, WireFormat::Json));
            requests.push(json_request(P3, input, WireFormat::Protobuf));
        }
        let responses = run(&requests);
        for ((input, expected), pair) in cases.iter().zip(responses.chunks(2)) {
            let expected: serde_json::Value = serde_json::from_str(expected).unwrap();
            assert_eq!(json_of(&pair[0]), expected, "JSON out of {input}");
            let binary = TestAllTypesProto3::decode(payload(&pair[1])).unwrap();
            let again: serde_json::Value = serde_json::from_str(&fastrs::json::to_string(&binary).unwrap()).unwrap();
            assert_eq!(again, expected, "binary out of {input}");
        }
    }

    #[test]
    fn invalid_json_is_a_parse_error() {
        let cases = [
            r#"{"optionalInt32": "1.5"}"#,
            r#"{"optionalInt32": 01}"#,
            r#"{optionalInt32: 1}"#,
            r#"{"optionalBool": "true"}"#,
            r#"{"optionalString": "\udc00"}"#,
            r#"{"optionalBytes": "!!"}"#,
            r#"{"optionalNestedEnum": "NOT_A_VALUE"}"#,
            r#"{"optionalTimestamp": "1970-01-01T00:00:00z"}"#,
            r#"{"optionalDuration": "315576000001s"}"#,
            r#"{"optionalFieldMask": "foo_bar"}"#,
            r#"{"oneofUint32": 1, "oneofString": "x"}"#,
            r#"{"repeatedInt32": [1, null]}"#,
            r#"{"mapInt32Int32": {"x": 1}}"#,
            r#"{"unknownField": 1}"#,
            r#"{"optionalAny": {"@type": "type.googleapis.com/unknown.Type"}}"#,
            // RejectTopLevelNull, TimestampJsonInputTooLarge, FieldNameDuplicate,
            // FloatFieldTooLarge, DoubleFieldNanNotQuoted, StringFieldUnpairedHighSurrogate,
            // RepeatedFieldTrailingComma, BoolFieldIntegerZero
            "null",
            r#"{"optionalTimestamp": "10000-01-01T00:00:00Z"}"#,
            r#"{"optionalInt32": 1, "optional_int32": 2}"#,
            r#"{"optionalFloat": 3.502823e+38}"#,
            r#"{"optionalDouble": NaN}"#,
            r#"{"optionalString": "\uD800"}"#,
            r#"{"repeatedInt32": [1, 2, 3, 4,]}"#,
            r#"{"optionalBool": 0}"#,
        ];
        let requests: Vec<_> = cases
            .iter()
            .map(|c| json_request(P3, c, WireFormat::Protobuf))
            .collect();
        for (case, r) in cases.iter().zip(run(&requests)) {
            assert!(is_parse_error(&r), "{case}: {r:?}");
        }
    }

    #[test]
    fn unknown_json_fields_are_ignored_in_their_category() {
        use fastrs_conformance::protos::conformance::TestCategory;
        let lenient = |json: &str| ConformanceRequest {
            test_category: TestCategory::JsonIgnoreUnknownParsingTest.into(),
            ..json_request(P3, json, WireFormat::Json)
        };
        let r = run(&[
            lenient(r#"{"optionalInt32": 1, "unknown": {"x": [1]}, "optionalNestedEnum": "NOPE"}"#),
            lenient(
                r#"{"repeatedNestedEnum": ["FOO", "NOPE", "BAR"], "mapStringNestedEnum": {"a": "NOPE", "b": "BAZ"}}"#,
            ),
        ]);
        assert_eq!(json_of(&r[0]), serde_json::json!({"optionalInt32": 1}));
        assert_eq!(
            json_of(&r[1]),
            serde_json::json!({"repeatedNestedEnum": ["FOO", "BAR"], "mapStringNestedEnum": {"b": "BAZ"}})
        );
    }

    #[test]
    fn json_output_errors_and_proto2() {
        let m = TestAllTypesProto3 {
            optional_field_mask: Some(fastrs::well_known::FieldMask {
                paths: vec!["fooBar".into()],
                ..Default::default()
            }),
            ..Default::default()
        };
        let bad = ConformanceRequest {
            requested_output_format: WireFormat::Json.into(),
            ..request(P3, &m.encode_to_vec())
        };
        let p2 = json_request(
            P2,
            r#"{"optionalInt32": -1, "data": {"groupInt32": 5}}"#,
            WireFormat::Json,
        );
        let text = ConformanceRequest {
            payload: Some(Payload::TextPayload("optional_int32: 1".into())),
            ..request(P3, &[])
        };
        let too_late = TestAllTypesProto3 {
            optional_timestamp: Some(fastrs::well_known::Timestamp {
                seconds: 253_402_300_800,
                ..Default::default()
            }),
            ..Default::default()
        };
        let too_late = ConformanceRequest {
            requested_output_format: WireFormat::Json.into(),
            ..request(P3, &too_late.encode_to_vec())
        };
        let r = run(&[bad, p2, text.clone(), too_late]);
        assert!(matches!(r[0].result, Some(R::SerializeError(_))), "{:?}", r[0]);
        assert!(matches!(r[3].result, Some(R::SerializeError(_))), "{:?}", r[3]);
        assert_eq!(
            json_of(&r[1]),
            serde_json::json!({"optionalInt32": -1, "data": {"groupInt32": 5}})
        );
        let want = TestAllTypesProto3 {
            optional_int32: 1,
            ..Default::default()
        };
        assert_eq!(payload(&r[2]), want.encode_to_vec());
    }

    #[test]
    fn text_format_is_read_and_written() {
        let text_in = |input: &str, output: WireFormat| ConformanceRequest {
            payload: Some(Payload::TextPayload(input.into())),
            requested_output_format: output.into(),
            ..request(P3, &[])
        };
        let unknown = [0xc8, 0x3e, 5]; // field 1001: 5
        let print_unknown = ConformanceRequest {
            requested_output_format: WireFormat::TextFormat.into(),
            print_unknown_fields: true,
            ..request(P3, &unknown)
        };
        let drop_unknown = ConformanceRequest {
            requested_output_format: WireFormat::TextFormat.into(),
            ..request(P3, &unknown)
        };
        let r = run(&[
            text_in(
                "optional_int32: 0x10 repeated_string: ['a', 'b']",
                WireFormat::TextFormat,
            ),
            text_in("optional_int32: 2147483648", WireFormat::Protobuf),
            print_unknown,
            drop_unknown,
        ]);
        let text_of = |r: &ConformanceResponse| match &r.result {
            Some(R::TextPayload(t)) => t.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            text_of(&r[0]),
            r#"optional_int32: 16 repeated_string: "a" repeated_string: "b""#
        );
        assert!(is_parse_error(&r[1]), "{:?}", r[1]);
        assert_eq!(text_of(&r[2]), "1001: 5");
        assert_eq!(text_of(&r[3]), "");
    }
}
