//! protovalidate's conformance cases, run through `protovalidate-executor`
//! as protovalidate's harness (a Go program, which cannot run here) drives
//! it: one `TestConformanceRequest` on standard input, the response on
//! standard output.
//!
//! The cases are the annotated ones of `../shared/protovalidate`: each
//! message's `(buf.validate.conformance.test_cases)` option lists values
//! that must validate and values that must give exactly the listed
//! violations (matched on rule id and field path). Without `../shared`
//! (a clone of the public repository) the test says so and passes.

mod common;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::process::{Command, Stdio};

use fastrs::reflect::{DescriptorPool, DynamicMessage, Value};
use fastrs::validate::path_string;
use fastrs::well_known::Any;
use fastrs::Message;
use fastrs_validate_tests::harness::{test_result, TestConformanceRequest, TestConformanceResponse};

/// One case: its value, and what validating it must give (`None` for a
/// good value; the expected violations, `(rule id, field path)`, for a bad
/// one, empty when the case lists none).
struct Case {
    value: Any,
    expected: Option<Vec<(String, String)>>,
}

/// The annotated cases of every message of `pool`, by name.
fn annotated(pool: &DescriptorPool) -> BTreeMap<String, Case> {
    let options_type = pool.get_message_by_name("google.protobuf.MessageOptions").unwrap();
    let ext = pool
        .get_extension_by_name("buf.validate.conformance.test_cases")
        .expect("test_cases.proto is in the set");
    let mut cases = BTreeMap::new();
    for message in pool.all_messages() {
        let options = DynamicMessage::decode(options_type.clone(), message.options_bytes()).unwrap();
        let Some(Value::Message(test_cases)) = options.get(&ext) else {
            continue;
        };
        let list = |m: &DynamicMessage, name: &str| -> Vec<Value> {
            m.get_by_name(name)
                .and_then(|v| v.as_list().map(<[Value]>::to_vec))
                .unwrap_or_default()
        };
        for (i, good) in list(test_cases, "good").iter().enumerate() {
            let value = any(good.as_message().unwrap());
            cases.insert(
                format!("{}/good/{i}", message.full_name()),
                Case { value, expected: None },
            );
        }
        for (i, bad) in list(test_cases, "bad").iter().enumerate() {
            let bad = bad.as_message().unwrap();
            let value = any(bad.get_by_name("value").and_then(Value::as_message).unwrap());
            let expected = list(bad, "violations")
                .iter()
                .map(|v| {
                    let v = v.as_message().unwrap();
                    let text = |n: &str| v.get_by_name(n).and_then(Value::as_str).unwrap_or("").to_string();
                    (text("rule_id"), text("field_path"))
                })
                .collect();
            cases.insert(
                format!("{}/bad/{i}", message.full_name()),
                Case {
                    value,
                    expected: Some(expected),
                },
            );
        }
    }
    cases
}

fn any(m: &DynamicMessage) -> Any {
    Any::decode(&m.encode_to_vec()).unwrap()
}

/// Runs the executor on a request, in `mode` (`FASTRS_VALIDATE_MODE`).
pub fn execute(request: &TestConformanceRequest, mode: &str) -> TestConformanceResponse {
    let mut child = Command::new(env!("CARGO_BIN_EXE_protovalidate-executor"))
        .env("FASTRS_VALIDATE_MODE", mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the executor runs");
    child.stdin.take().unwrap().write_all(&request.encode_to_vec()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the executor failed");
    TestConformanceResponse::decode(&out.stdout).expect("the response decodes")
}

fn check(mode: &str) {
    let Some(shared) = common::shared() else {
        let _ = writeln!(
            std::io::stderr(),
            "no ../shared: protovalidate's conformance cases not run"
        );
        return;
    };
    let set = common::case_set(&shared);
    let pool = DescriptorPool::decode(&set).unwrap();
    let cases = annotated(&pool);
    assert!(cases.len() > 300, "{} annotated cases", cases.len());
    let request = TestConformanceRequest {
        fdset: Some(fastrs::descriptor::FileDescriptorSet::decode(&set).unwrap()),
        cases: cases.iter().map(|(k, c)| (k.clone(), c.value.clone())).collect(),
        ..TestConformanceRequest::default()
    };
    let response = execute(&request, mode);
    let mut failures = Vec::new();
    for (name, case) in &cases {
        let got = response.results.get(name).and_then(|r| r.result.as_ref());
        let verdict = match (&case.expected, got) {
            (None, Some(test_result::Result::Success(true))) => Ok(()),
            (Some(want), Some(test_result::Result::ValidationError(v))) => {
                let mut got: Vec<(String, String)> = v
                    .violations
                    .iter()
                    .map(|v| {
                        let path = v.field.as_ref().map(path_string).unwrap_or_default();
                        (v.rule_id.as_deref().unwrap_or("").to_string(), path)
                    })
                    .collect();
                let mut want = want.clone();
                got.sort();
                want.sort();
                if want.is_empty() || got == want {
                    Ok(())
                } else {
                    Err(format!("violations {got:?}, expected {want:?}"))
                }
            }
            (_, other) => Err(format!("got {other:?}, expected {:?}", case.expected)),
        };
        if let Err(why) = verdict {
            failures.push(format!("{name}: {why}"));
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "protovalidate conformance ({mode}): {} of {} annotated cases pass",
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn annotated_cases_through_dynamic_messages() {
    check("dynamic");
}

#[test]
fn annotated_cases_through_generated_code() {
    check("generated");
}
