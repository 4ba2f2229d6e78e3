//! Validation generated with `validate=true` (`proto/demo/signup.proto`,
//! in speed and size modes): the violations a user sees, fail-fast,
//! `now`, views, `decode_validated` against decode then validate, the
//! generated validator against `DynamicMessage`'s, and rules that do not
//! compile, reported where the schema has them.

use fastrs::cel::Timestamp as CelTimestamp;
use fastrs::reflect::{DynamicMessage, ReflectMessage};
use fastrs::validate::{path_string, DecodeValidated, DecodeViewValidated, Error, Rejected, Validate, ValidateOptions};
use fastrs::well_known::Timestamp;
use fastrs::Message;
use fastrs_tests::validated::acme::signup::v1::{Address, CreateAccountRequest, CreateAccountRequestView};
use fastrs_tests::validated_size::acme::signup::v1 as size;
use proptest::prelude::*;

/// 2023-11-14T22:13:20Z: `now` for the tests.
const NOW: CelTimestamp = CelTimestamp::at(1_700_000_000, 0);

fn options() -> ValidateOptions {
    ValidateOptions::default().now(NOW)
}

fn valid() -> CreateAccountRequest {
    CreateAccountRequest {
        email: "ada@example.com".into(),
        name: "Ada".into(),
        age: 36,
        tags: vec!["math".into(), "engines".into()],
        labels: [("team".to_string(), "analytical".to_string())].into_iter().collect(),
        address: Some(Address {
            line1: "12 St James's Square".into(),
            city: "London".into(),
            country: "GB".into(),
            postal_code: "SW1Y 4JH".into(),
            ..Default::default()
        }),
        website: String::new(),
        born: Some(Timestamp {
            seconds: -4_868_006_400,
            ..Default::default()
        }),
        password: "correct horse".into(),
        password_confirmation: "correct horse".into(),
        ..Default::default()
    }
}

/// `(rule id, field path)` of each violation, in order.
fn violations(result: Result<(), Error>) -> Vec<(String, String)> {
    match result {
        Ok(()) => Vec::new(),
        Err(Error::Invalid(v)) => v
            .violations
            .iter()
            .map(|v| {
                (
                    v.rule_id.as_deref().unwrap_or("").to_string(),
                    v.field.as_ref().map(path_string).unwrap_or_default(),
                )
            })
            .collect(),
        Err(e) => panic!("not a validation error: {e}"),
    }
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

fn invalid() -> CreateAccountRequest {
    let mut r = valid();
    r.email = "not an email".into();
    r.age = 7;
    r.tags = vec!["Math".into(), "math".into(), "math".into()];
    r.labels.insert(String::new(), "x".repeat(300));
    r.address.as_mut().unwrap().country = "gb".into();
    r.website = "not a uri".into();
    r.born = Some(Timestamp {
        seconds: NOW.seconds + 60,
        ..Default::default()
    });
    r.password_confirmation = "wrong".into();
    r
}

#[test]
fn a_valid_request_passes() {
    assert_eq!(valid().validate_with(&options()), Ok(()));
}

#[test]
fn an_invalid_request_gets_every_violation_in_order() {
    let want = pairs(&[
        ("passwords_match", ""),
        ("string.email", "email"),
        ("uint32.gte_lte", "age"),
        ("repeated.unique", "tags"),
        ("string.pattern", "tags[0]"),
        ("string.min_len", "labels[\"\"]"),
        ("string.max_len", "labels[\"\"]"),
        ("string.pattern", "address.country"),
        ("string.uri", "website"),
        ("timestamp.lt_now", "born"),
    ]);
    assert_eq!(violations(invalid().validate_with(&options())), want);
    let err = invalid().validate_with(&options()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("email: must be a valid email address [string.email]"),
        "{text}"
    );
    assert!(
        text.contains("[passwords_match] password and confirmation must match"),
        "{text}"
    );
    let v = err.violations().unwrap();
    assert_eq!(v.violations[5].for_key, Some(true), "the key's violation is marked so");
    assert_eq!(v.violations[6].for_key, None, "the value's is not");
}

#[test]
fn required_and_ignore_if_zero() {
    let mut r = valid();
    r.address = None;
    r.website = String::new();
    assert_eq!(
        violations(r.validate_with(&options())),
        pairs(&[("required", "address")])
    );
}

#[test]
fn fail_fast_stops_at_the_first_violation() {
    let fast = ValidateOptions {
        fail_fast: true,
        ..options()
    };
    assert_eq!(
        violations(invalid().validate_with(&fast)),
        pairs(&[("passwords_match", "")])
    );
}

#[test]
fn now_decides_timestamp_rules() {
    let mut r = valid();
    r.born = Some(Timestamp {
        seconds: NOW.seconds - 1,
        ..Default::default()
    });
    assert_eq!(r.validate_with(&options()), Ok(()));
    let earlier = ValidateOptions::default().now(CelTimestamp::at(NOW.seconds - 10, 0));
    assert_eq!(
        violations(r.validate_with(&earlier)),
        pairs(&[("timestamp.lt_now", "born")])
    );
    // Without `now`, the system clock: a birth in 1815 is in the past.
    assert_eq!(valid().validate(), Ok(()));
}

#[test]
fn size_mode_validates_alike() {
    for r in [valid(), invalid()] {
        let bytes = r.encode_to_vec();
        let small = size::CreateAccountRequest::decode(&bytes).unwrap();
        assert_eq!(small.validate_with(&options()), r.validate_with(&options()));
    }
}

#[test]
fn views_validate_as_their_messages() {
    for r in [valid(), invalid()] {
        let bytes = r.encode_to_vec();
        let view = CreateAccountRequestView::decode(&bytes).unwrap();
        assert_eq!(view.validate_with(&options()), r.validate_with(&options()));
        let read = <CreateAccountRequestView<'_> as DecodeViewValidated<'_>>::decode_validated(&bytes);
        assert_eq!(read.is_ok(), r.validate().is_ok());
    }
}

#[test]
fn decode_validated_refuses_what_does_not_decode_or_validate() {
    let bytes = valid().encode_to_vec();
    assert_eq!(CreateAccountRequest::decode_validated(&bytes).unwrap(), valid());
    let bad = invalid().encode_to_vec();
    match CreateAccountRequest::decode_validated(&bad) {
        Err(Rejected::Invalid(e)) => assert_eq!(Err(e), invalid().validate()),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        CreateAccountRequest::decode_validated(&[0x0a, 0x05, b'a']),
        Err(Rejected::Decode(_))
    ));
    let mut reused = valid();
    reused.clear();
    assert!(reused.fast_read_validated(&bytes).is_ok());
}

#[test]
fn a_field_given_twice_is_checked_as_its_last_value() {
    // `email` twice on the wire: an invalid one, then a valid one.
    let mut bytes = CreateAccountRequest {
        email: "nope".into(),
        ..Default::default()
    }
    .encode_to_vec();
    bytes.extend(valid().encode_to_vec());
    assert!(CreateAccountRequest::decode_validated_with(&bytes, &Default::default(), &options()).is_ok());
}

#[test]
fn generated_and_dynamic_validators_agree() {
    for r in [valid(), invalid()] {
        let dynamic = DynamicMessage::decode(CreateAccountRequest::descriptor(), &r.encode_to_vec()).unwrap();
        assert_eq!(dynamic.validate_with(&options()), r.validate_with(&options()));
        let read = DynamicMessage::decode_validated(CreateAccountRequest::descriptor(), &r.encode_to_vec());
        assert_eq!(read.is_ok(), r.validate().is_ok());
    }
}

fn arbitrary_request() -> impl Strategy<Value = CreateAccountRequest> {
    let text = "[a-zA-Z0-9@.: /-]{0,12}";
    (
        (
            text,
            text,
            0u32..200,
            proptest::collection::vec("[a-zA-Z-]{0,5}", 0..12),
        ),
        (
            proptest::collection::btree_map("[a-z]{0,3}", "[a-z]{0,3}", 0..4),
            proptest::option::of((text, text, "[A-Za-z]{0,3}")),
            text,
            proptest::option::of(-100_000i64..100_000),
            (text, text),
        ),
    )
        .prop_map(
            |((email, name, age, tags), (labels, address, website, born, (password, confirmation)))| {
                CreateAccountRequest {
                    email,
                    name,
                    age,
                    tags,
                    labels: labels.into_iter().collect(),
                    address: address.map(|(line1, city, country)| Address {
                        line1,
                        city,
                        country,
                        ..Default::default()
                    }),
                    website,
                    born: born.map(|s| Timestamp {
                        seconds: NOW.seconds + s,
                        ..Default::default()
                    }),
                    password,
                    password_confirmation: confirmation,
                    ..Default::default()
                }
            },
        )
}

proptest! {
    /// decode_validated gives what decode then validate gives; the
    /// generated validator what DynamicMessage's gives.
    #[test]
    fn decode_validated_is_decode_then_validate(r in arbitrary_request()) {
        let bytes = r.encode_to_vec();
        let expected = CreateAccountRequest::decode(&bytes).unwrap().validate_with(&options());
        let got = CreateAccountRequest::decode_validated_with(&bytes, &Default::default(), &options());
        match (&got, &expected) {
            (Ok(m), Ok(())) => prop_assert_eq!(m, &r),
            (Err(Rejected::Invalid(e)), Err(want)) => prop_assert_eq!(e, want),
            _ => prop_assert!(false, "{got:?} against {expected:?}"),
        }
        let dynamic = DynamicMessage::decode(CreateAccountRequest::descriptor(), &bytes).unwrap();
        prop_assert_eq!(dynamic.validate_with(&options()), expected);
    }
}

/// The generator's output for `schema` (one file, `v.proto`).
fn generate(schema: &str, runtime_errors: bool) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("fastrs-validate-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("v.proto"), schema).unwrap();
    let mut builder = protoc_gen_fastrs::Builder::new().validate();
    if runtime_errors {
        builder = builder.validate_errors_at_runtime();
    }
    let out = builder.generate(&["v.proto"], &[&dir]);
    std::fs::remove_dir_all(&dir).ok();
    out.map(|files| files.into_iter().map(|f| f.content).collect())
        .map_err(|e| e.to_string())
}

const BAD_RULE: &str = r#"syntax = "proto3";
package bad.v1;
import "buf/validate/validate.proto";
message M {
  int32 count = 1;
  string name = 2 [(buf.validate.field).cel = {
    id: "bad", expression: "this.startsWith(1)"
  }];
}
"#;

#[test]
fn a_rule_that_does_not_check_fails_generation_where_it_is() {
    let err = generate(BAD_RULE, false).unwrap_err();
    assert!(err.contains("v.proto:6:3"), "{err}");
    assert!(err.contains("bad.v1.M.name"), "{err}");
    assert!(err.contains("no matching overload"), "{err}");
}

#[test]
fn or_fails_validation_when_asked_to() {
    let code = generate(BAD_RULE, true).unwrap();
    assert!(code.contains("Error::Compilation"), "{code}");
}

#[test]
fn a_rule_of_the_wrong_type_fails_generation() {
    let schema = BAD_RULE.replace(
        r#"[(buf.validate.field).cel = {
    id: "bad", expression: "this.startsWith(1)"
  }]"#,
        "[(buf.validate.field).int64.gt = 1]",
    );
    let err = generate(&schema, false).unwrap_err();
    assert!(err.contains("v.proto:6:3"), "{err}");
    assert!(err.contains("FieldRules.string"), "{err}");
}
