//! `protoc-gen-fastrs`: the protoc plugin. Reads a `CodeGeneratorRequest` on
//! stdin and writes a `CodeGeneratorResponse` on stdout; schema problems go in the
//! response's `error` field, as the plugin protocol asks.

use std::io::{Read, Write};
use std::process::ExitCode;

use prost::Message;
use prost_types::compiler::code_generator_response::{Feature, File};
use prost_types::compiler::{CodeGeneratorRequest, CodeGeneratorResponse};

fn main() -> ExitCode {
    if std::env::args().nth(1).is_some_and(|a| a == "--version") {
        println!("protoc-gen-fastrs {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("protoc-gen-fastrs: cannot read the request from stdin: {e}");
        return ExitCode::FAILURE;
    }
    let response = match CodeGeneratorRequest::decode(input.as_slice()) {
        Ok(request) => respond(&request, &input),
        Err(e) => {
            eprintln!("protoc-gen-fastrs: stdin is not a CodeGeneratorRequest ({e}); run me through protoc");
            return ExitCode::FAILURE;
        }
    };
    // prost-types' response has no minimum/maximum edition fields (3 and 4):
    // they are appended as raw varint fields.
    let mut bytes = response.encode_to_vec();
    bytes.extend([0x18]);
    push_varint(&mut bytes, MINIMUM_EDITION);
    bytes.extend([0x20]);
    push_varint(&mut bytes, MAXIMUM_EDITION);
    if let Err(e) = std::io::stdout().write_all(&bytes) {
        eprintln!("protoc-gen-fastrs: cannot write the response: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// `EDITION_PROTO2` to `EDITION_2024`: the editions this plugin reads.
const MINIMUM_EDITION: u64 = 998;
const MAXIMUM_EDITION: u64 = 1001;

/// Answers a request; `raw` is its encoding, which keeps the editions features
/// `prost-types` drops.
fn respond(request: &CodeGeneratorRequest, raw: &[u8]) -> CodeGeneratorResponse {
    let mut response = CodeGeneratorResponse {
        // FEATURE_SUPPORTS_EDITIONS (2) is missing from prost-types' enum.
        supported_features: Some(Feature::Proto3Optional as u64 | 2),
        ..Default::default()
    };
    let result = protoc_gen_fastrs::Options::parse(request.parameter())
        .map_err(|e| e.to_string())
        .and_then(|options| {
            let files = protoc_gen_fastrs::request_files(raw).map_err(|e| e.to_string())?;
            protoc_gen_fastrs::generate_encoded(&files, &request.file_to_generate, &options).map_err(|e| e.to_string())
        });
    match result {
        Ok(files) => {
            response.file = files
                .into_iter()
                .map(|f| File {
                    name: Some(f.name),
                    content: Some(f.content),
                    ..Default::default()
                })
                .collect();
        }
        Err(e) => response.error = Some(e),
    }
    response
}
