//! `protoc-gen-fastrs`: the protoc plugin. Reads a `CodeGeneratorRequest` on
//! stdin and writes a `CodeGeneratorResponse` on stdout; schema problems go in the
//! response's `error` field, as the plugin protocol asks.

use std::io::{Read, Write};
use std::process::ExitCode;

use fastrs::Message as _;
use protoc_gen_fastrs::descriptor::compiler::code_generator_response::{Feature, File};
use protoc_gen_fastrs::descriptor::compiler::{CodeGeneratorRequest, CodeGeneratorResponse};
use protoc_gen_fastrs::descriptor::Edition;

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
    let response = match CodeGeneratorRequest::decode(&input) {
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
        supported_features: Some(Feature::Proto3Optional as u64 | Feature::SupportsEditions as u64),
        // The editions this plugin reads: up to 2026, the last that protoc
        // 36.2 knows. The features that shape code (presence, enum
        // openness, repeated and message encoding, UTF-8 checks, JSON) have
        // had the same defaults since 2023; what 2024 and 2026 add (naming
        // style, symbol visibility, proto limits) is checked by the compiler
        // that reads the schema.
        minimum_edition: Some(Edition::EditionProto2 as i32),
        maximum_edition: Some(Edition::Edition2026 as i32),
        ..Default::default()
    };
    let to_generate: Vec<String> = request.file_to_generate.iter().map(|f| f.to_string()).collect();
    let result = protoc_gen_fastrs::Options::parse(request.parameter())
        .map_err(|e| e.to_string())
        .and_then(|options| {
            protoc_gen_fastrs::generate(&request.proto_file, &to_generate, &options).map_err(|e| e.to_string())
        });
    match result {
        Ok(files) => {
            response.file = files
                .into_iter()
                .map(|f| File {
                    name: Some(f.name.into()),
                    content: Some(f.content.into()),
                    ..Default::default()
                })
                .collect();
        }
        Err(e) => response.error = Some(e.into()),
    }
    response
}
