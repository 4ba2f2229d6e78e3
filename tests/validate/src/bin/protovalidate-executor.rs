//! An executor for protovalidate's conformance harness: reads one
//! `TestConformanceRequest` from standard input, validates each case, and
//! writes one `TestConformanceResponse` to standard output.

use std::io::{Read, Write};

use fastrs::Message;
use fastrs_validate_tests::harness::TestConformanceRequest;

fn main() -> std::process::ExitCode {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("protovalidate-executor: cannot read the request: {e}");
        return std::process::ExitCode::FAILURE;
    }
    let request = match TestConformanceRequest::decode(&input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("protovalidate-executor: the request does not decode: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mode = match fastrs_validate_tests::Mode::from_env() {
        Ok(mode) => mode,
        Err(e) => {
            eprintln!("protovalidate-executor: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let response = fastrs_validate_tests::answer(&request, mode);
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(&response.encode_to_vec()).and_then(|()| out.flush()) {
        eprintln!("protovalidate-executor: cannot write the response: {e}");
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}
