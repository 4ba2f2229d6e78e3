//! Checks of fastrs's CEL and validation against independent data and
//! implementations (the tests are in `tests/`), and the executor that
//! protovalidate's conformance harness drives (`protovalidate-executor`).

/// The conformance harness's protocol (`buf.validate.conformance.harness`).
#[allow(missing_docs, clippy::all, unused_imports)]
pub mod harness {
    fastrs::include_proto!("harness", "buf.validate.conformance.harness");
}

use fastrs::reflect::{DescriptorPool, DynamicMessage};
use fastrs::validate::{Error, Validate, ValidateOptions};
use fastrs::well_known::Any;
use harness::{test_result, TestConformanceRequest, TestConformanceResponse, TestResult};

/// Answers a conformance request: each case, an `Any` of a type of the
/// request's descriptor set, validated through `DynamicMessage`.
#[must_use]
pub fn answer(request: &TestConformanceRequest) -> TestConformanceResponse {
    let mut response = TestConformanceResponse::default();
    let set = request
        .fdset
        .as_ref()
        .map(fastrs::Message::encode_to_vec)
        .unwrap_or_default();
    let pool = match DescriptorPool::decode(&set) {
        Ok(pool) => pool,
        Err(e) => {
            for name in request.cases.keys() {
                response.results.insert(
                    name.clone(),
                    unexpected(&format!("the descriptor set does not link: {e}")),
                );
            }
            return response;
        }
    };
    for (name, case) in &request.cases {
        response.results.insert(name.clone(), dynamic(&pool, case));
    }
    response
}

fn unexpected(why: &str) -> TestResult {
    TestResult {
        result: Some(test_result::Result::UnexpectedError(why.into())),
        ..TestResult::default()
    }
}

/// One case, through `DynamicMessage`.
fn dynamic(pool: &DescriptorPool, case: &Any) -> TestResult {
    let name = case.type_url.rsplit('/').next().unwrap_or("");
    let Some(ty) = pool.get_message_by_name(name) else {
        return unexpected(&format!("unknown type {name}"));
    };
    let message = match DynamicMessage::decode(ty, &case.value) {
        Ok(m) => m,
        Err(e) => return unexpected(&format!("the case does not decode: {e}")),
    };
    outcome(message.validate_with(&ValidateOptions::default()))
}

/// A validation's outcome as the harness reports it.
#[must_use]
pub fn outcome(result: Result<(), Error>) -> TestResult {
    let result = match result {
        Ok(()) => test_result::Result::Success(true),
        Err(Error::Invalid(violations)) => test_result::Result::ValidationError(violations),
        Err(Error::Compilation(e)) => test_result::Result::CompilationError(e),
        Err(Error::Runtime(e)) => test_result::Result::RuntimeError(e),
    };
    TestResult {
        result: Some(result),
        ..TestResult::default()
    }
}

pub mod random;
