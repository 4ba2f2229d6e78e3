//! `protoc-gen-fastrs`: generates fast Protocol Buffers code for the `fastrs`
//! runtime, as a `protoc` plugin or from `build.rs`.
//!
//! The pipeline, one module per step:
//!
//! 1. [`descriptors`]: `.proto` files → `FileDescriptorProto`s, parsed in pure
//!    Rust (protox) or by `protoc`; or they arrive in a plugin request.
//! 2. `model::lower`: descriptors → a typed model where every protobuf rule is
//!    decided (presence, packing, map entries, boxing, names, tag bytes).
//! 3. `emit`: model → tokens, one module per generated piece (types, size,
//!    write, read).
//! 4. `format`: tokens → formatted source, one file per protobuf package.
//!
//! From `build.rs`, use [`Builder`]:
//!
//! ```no_run
//! protoc_gen_fastrs::Builder::new().compile(&["proto/shop.proto"], &["proto"]).unwrap();
//! ```
#![warn(missing_docs)]

mod builder;
pub mod descriptors;
mod emit;
mod format;
mod model;
mod options;

use std::collections::HashMap;
use std::fmt;

use prost::Message as _;
use prost_types::FileDescriptorProto;

pub use builder::Builder;
pub use options::{JsonGate, Maps, Options, OptionsError, Paths, RustPath};

/// A generated file: a name relative to the output directory, and its contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// `acme.shop.v2.rs`, `_.rs`, or the include file's name.
    pub name: String,
    /// Formatted Rust source.
    pub content: String,
}

/// Everything that went wrong, each line naming the file and element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// One line per problem.
    pub messages: Vec<String>,
}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Error {
            messages: vec![message.into()],
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.messages.join("\n"))
    }
}

impl std::error::Error for Error {}

/// Generates one file per protobuf package of the files named in `to_generate`.
/// `files` holds those files and everything they import, as protoc gives them.
/// Editions files need [`generate_encoded`], which can read their features.
///
/// # Errors
/// All problems found in the schemas, at once.
pub fn generate(
    files: &[FileDescriptorProto],
    to_generate: &[String],
    options: &Options,
) -> Result<Vec<GeneratedFile>, Error> {
    generate_with_features(files, to_generate, options, &HashMap::new())
}

/// [`generate`] from encoded `FileDescriptorProto`s (as in a
/// `FileDescriptorSet` or a `CodeGeneratorRequest`), which keep the editions
/// `features` that `prost-types` cannot represent.
///
/// # Errors
/// Descriptors that do not decode, and all problems found in the schemas.
pub fn generate_encoded(
    encoded: &[&[u8]],
    to_generate: &[String],
    options: &Options,
) -> Result<Vec<GeneratedFile>, Error> {
    let mut files = Vec::with_capacity(encoded.len());
    let mut features = HashMap::new();
    for bytes in encoded {
        let file = FileDescriptorProto::decode(*bytes)
            .map_err(|e| Error::new(format!("a descriptor does not decode: {e}")))?;
        if file.syntax() == "editions" {
            let scanned = model::features::FileFeatures::scan(bytes)
                .map_err(|e| Error::new(format!("{}: descriptor does not decode: {e}", file.name())))?;
            features.insert(file.name().to_string(), scanned);
        }
        files.push(file);
    }
    generate_with_features(&files, to_generate, options, &features)
}

/// The encoded `FileDescriptorProto`s of a `CodeGeneratorRequest` (its
/// `proto_file` field), for [`generate_encoded`].
///
/// # Errors
/// The request is not well formed.
pub fn request_files(request: &[u8]) -> Result<Vec<&[u8]>, Error> {
    model::features::occurrences(request, 15).map_err(|e| Error::new(format!("the request does not decode: {e}")))
}

fn generate_with_features(
    files: &[FileDescriptorProto],
    to_generate: &[String],
    options: &Options,
    features: &HashMap<String, model::features::FileFeatures>,
) -> Result<Vec<GeneratedFile>, Error> {
    let packages = model::lower::lower(files, to_generate, options, features).map_err(|messages| Error { messages })?;
    let mut out = Vec::with_capacity(packages.len() + 1);
    for package in &packages {
        match options.paths {
            Paths::ByPackage => {
                let sources: Vec<&str> = package.files.iter().map(|f| f.name.as_str()).collect();
                let content = format::file(emit::package(package), &sources.join(", ")).map_err(Error::new)?;
                out.push(GeneratedFile {
                    name: package.file_name.clone(),
                    content,
                });
            }
            Paths::SourceRelative => {
                for file in &package.files {
                    let content = format::file(emit::source_file(package, file), &file.name).map_err(Error::new)?;
                    out.push(GeneratedFile {
                        name: file.rust_file_name(),
                        content,
                    });
                }
            }
        }
    }
    if let Some(name) = &options.include_file {
        let tokens = emit::include_file(&packages, options.paths);
        let content = format::file(tokens, "all generated packages").map_err(Error::new)?;
        out.push(GeneratedFile {
            name: name.clone(),
            content,
        });
    }
    Ok(out)
}
