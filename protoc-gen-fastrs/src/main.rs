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
        Ok(request) => respond(&request),
        Err(e) => {
            eprintln!("protoc-gen-fastrs: stdin is not a CodeGeneratorRequest ({e}); run me through protoc");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::io::stdout().write_all(&response.encode_to_vec()) {
        eprintln!("protoc-gen-fastrs: cannot write the response: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn respond(request: &CodeGeneratorRequest) -> CodeGeneratorResponse {
    let mut response = CodeGeneratorResponse {
        supported_features: Some(Feature::Proto3Optional as u64),
        ..Default::default()
    };
    let result = protoc_gen_fastrs::Options::parse(request.parameter())
        .map_err(|e| e.to_string())
        .and_then(|options| {
            protoc_gen_fastrs::generate(&request.proto_file, &request.file_to_generate, &options)
                .map_err(|e| e.to_string())
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
