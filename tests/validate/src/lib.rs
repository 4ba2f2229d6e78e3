//! Checks of fastrs's CEL and validation against independent data and
//! implementations (the tests are in `tests/`), and the executor that
//! protovalidate's conformance harness drives (`protovalidate-executor`).

/// The conformance harness's protocol (`buf.validate.conformance.harness`).
#[allow(missing_docs, clippy::all, unused_imports)]
pub mod harness {
    fastrs::include_proto!("harness", "buf.validate.conformance.harness");
}

/// protovalidate's case schemas, generated with `validate=true` (where
/// `shared/` was beside the repository at build time).
#[cfg(cases)]
#[allow(missing_docs, clippy::all, unused_imports, deprecated, non_camel_case_types)]
pub mod cases {
    include!(concat!(env!("OUT_DIR"), "/cases/mod.rs"));
}

/// Decodes `bytes` as `M` and validates it.
#[cfg(cases)]
fn run_generated<M: fastrs::Message + Validate>(bytes: &[u8], options: &ValidateOptions) -> Generated {
    M::decode(bytes).map(|m| m.validate_with(options))
}

/// What a generated type made of a case: the validation's outcome, or the
/// decode's error.
pub type Generated = Result<Result<(), Error>, fastrs::DecodeError>;

#[cfg(cases)]
macro_rules! case_types {
    ($($name:literal => $path:path;)*) => {
        /// The message types generated from the case schemas, by full name.
        pub const CASE_TYPES: &[&str] = &[$($name),*];

        /// Decodes `bytes` as the generated type named `name` and validates
        /// it, or `None` if no generated type has that name.
        #[must_use]
        pub fn validate_generated(name: &str, bytes: &[u8], options: &ValidateOptions) -> Option<Generated> {
            Some(match name {
                $($name => run_generated::<$path>(bytes, options),)*
                _ => return None,
            })
        }
    };
}

#[cfg(cases)]
include!(concat!(env!("OUT_DIR"), "/cases/types.rs"));

/// The case schemas' `FileDescriptorSet`, imports included.
#[cfg(cases)]
pub const CASE_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cases/cases.pb"));

/// Without the case schemas at build time, no generated types.
#[cfg(not(cases))]
pub const CASE_TYPES: &[&str] = &[];

/// Without the case schemas at build time, an empty set.
#[cfg(not(cases))]
pub const CASE_SET: &[u8] = &[];

/// Checks that the generated type `name` and `DynamicMessage` agree on
/// `bytes`: both decode it or neither does, and if they do, validation
/// gives the same outcome, violations and messages included (under a
/// fixed `now`, with and without fail-fast; fail-fast may stop at another
/// of a map's violations, whose order differs).
///
/// # Errors
/// What differs.
pub fn check_against_dynamic(pool: &DescriptorPool, name: &str, bytes: &[u8]) -> Result<(), String> {
    let Some(ty) = pool.get_message_by_name(name) else {
        return Err(format!("no type {name} in the pool"));
    };
    let now = fastrs::cel::Timestamp::at(1_700_000_000, 0);
    for fail_fast in [false, true] {
        let options = ValidateOptions {
            fail_fast,
            now: Some(now),
        };
        let Some(generated) = validate_generated(name, bytes, &options) else {
            return Err(format!("no generated type {name}"));
        };
        let dynamic = DynamicMessage::decode(ty.clone(), bytes).map(|m| m.validate_with(&options));
        match (generated, dynamic) {
            (Err(_), Err(_)) => return Ok(()),
            (Ok(g), Ok(d)) if g == d => {}
            (Ok(Err(Error::Invalid(g))), Ok(Err(Error::Invalid(d))))
                if fail_fast && g.violations.len() == 1 && d.violations.len() == 1 => {}
            (g, d) => {
                return Err(format!(
                    "{name} (fail_fast {fail_fast}): generated {g:?}, dynamic {d:?}"
                ))
            }
        }
    }
    Ok(())
}

/// Without the case schemas at build time, no generated types.
#[cfg(not(cases))]
#[must_use]
pub fn validate_generated(_: &str, _: &[u8], _: &ValidateOptions) -> Option<Generated> {
    None
}

/// How the executor validates: `FASTRS_VALIDATE_MODE=generated` through
/// the generated code of the case schemas, else through `DynamicMessage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `DynamicMessage`, against the request's descriptor set.
    Dynamic,
    /// The case types' generated code.
    Generated,
}

impl Mode {
    /// The mode `FASTRS_VALIDATE_MODE` names (`dynamic` when unset).
    ///
    /// # Errors
    /// An unknown mode.
    pub fn from_env() -> Result<Mode, String> {
        match std::env::var("FASTRS_VALIDATE_MODE").as_deref() {
            Err(_) | Ok("" | "dynamic") => Ok(Mode::Dynamic),
            Ok("generated") => Ok(Mode::Generated),
            Ok(other) => Err(format!(
                "FASTRS_VALIDATE_MODE={other}: expected `dynamic` or `generated`"
            )),
        }
    }
}

use fastrs::reflect::{DescriptorPool, DynamicMessage};
use fastrs::validate::{Error, Validate, ValidateOptions};
use fastrs::well_known::Any;
use harness::{test_result, TestConformanceRequest, TestConformanceResponse, TestResult};

/// Answers a conformance request: each case, an `Any` of a type of the
/// request's descriptor set, validated through `DynamicMessage` or the
/// type's generated code.
#[must_use]
pub fn answer(request: &TestConformanceRequest, mode: Mode) -> TestConformanceResponse {
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
        let result = match mode {
            Mode::Dynamic => dynamic(&pool, case),
            Mode::Generated => {
                let ty = case.type_url.rsplit('/').next().unwrap_or("");
                match validate_generated(ty, &case.value, &ValidateOptions::default()) {
                    Some(Ok(result)) => outcome(result),
                    Some(Err(e)) => unexpected(&format!("the case does not decode: {e}")),
                    None => unexpected(&format!("no generated type {ty} in this build")),
                }
            }
        };
        response.results.insert(name.clone(), result);
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
