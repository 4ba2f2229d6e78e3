//! Validation on arbitrary input: `decode_validated` gives what decode
//! then validate gives, generated validators (`validate=true`) what
//! `DynamicMessage`'s gives, on the sign-up request and on every type of
//! protovalidate's conformance case schemas (picked by the input's first
//! two bytes; present when `../shared` was there at build time).
#![no_main]

use std::sync::OnceLock;

use fastrs::reflect::{DescriptorPool, DynamicMessage, ReflectMessage};
use fastrs::validate::{DecodeValidated, Rejected, Validate, ValidateOptions};
use fastrs::Message;
use fastrs_tests::validated::acme::signup::v1::CreateAccountRequest;
use fastrs_validate_tests::{check_against_dynamic, CASE_SET, CASE_TYPES};

fn cases() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| DescriptorPool::decode(CASE_SET).unwrap_or_default())
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let options = ValidateOptions::default().now(fastrs::cel::Timestamp::at(1_700_000_000, 0));
    let expected = CreateAccountRequest::decode(data).map(|m| m.validate_with(&options));
    let got = CreateAccountRequest::decode_validated_with(data, &Default::default(), &options);
    match (&got, &expected) {
        (Ok(_), Ok(Ok(()))) | (Err(Rejected::Decode(_)), Err(_)) => {}
        (Err(Rejected::Invalid(e)), Ok(Err(want))) => assert_eq!(e, want),
        _ => panic!("decode_validated {got:?}, decode then validate {expected:?}"),
    }
    if let Ok(dynamic) = DynamicMessage::decode(CreateAccountRequest::descriptor(), data) {
        assert_eq!(Some(dynamic.validate_with(&options)), expected.ok());
    }
    if let ([a, b, rest @ ..], false) = (data, CASE_TYPES.is_empty()) {
        let name = CASE_TYPES[usize::from(u16::from_le_bytes([*a, *b])) % CASE_TYPES.len()];
        if let Err(why) = check_against_dynamic(cases(), name, rest) {
            panic!("{why}");
        }
    }
});
