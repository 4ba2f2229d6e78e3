//! Model → tokens. One module per generated piece, each reading the model
//! only:
//!
//! - `message`: the per-message driver, which calls the others;
//! - `types`: structs, oneof enums, enums, extensions, getters;
//! - `size`, `write`, `read`, `clear`: the owned message's methods, and
//!   `table`, the decode table that is `read` in size mode;
//! - `view`: zero-copy views; `json`, `descriptors`, `debug`, `chain`,
//!   `grpc`, `connect`: what options add;
//! - `validate`: `Validate` impls (`validate=true`), rendered for the whole
//!   run before the packages are written, with `cel`, CEL rules as Rust;
//! - `strategy`: the calls that depend on a message's strategy;
//! - `tokens`: paths, literals and attributes every emitter uses.

mod chain;
mod clear;
mod connect;
mod debug;
mod descriptors;
mod grpc;
mod json;
mod message;
mod read;
mod size;
mod strategy;
mod table;
mod tokens;
mod types;
pub mod validate;
mod view;
mod write;

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Package, SourceFile};
use crate::options::{JsonGate, Paths};

/// All items of one package file.
#[must_use]
pub fn package(package: &Package, validation: &Validation) -> TokenStream {
    let all = SourceFile {
        name: String::new(),
        messages: 0..package.messages.len(),
        enums: 0..package.enums.len(),
        extensions: 0..package.extensions.len(),
        services: 0..package.services.len(),
    };
    items(package, &all, true, validation)
}

/// The items of `package` that `.proto` file `file` declares, for
/// `paths=source_relative`; the package's first file also holds its
/// `register_json_types`.
#[must_use]
pub fn source_file(package: &Package, file: &SourceFile, validation: &Validation) -> TokenStream {
    let first = package.files.first().is_some_and(|f| f.name == file.name);
    items(package, file, first, validation)
}

/// The `Validate` impls of the run, by message full name (empty without
/// `validate=true`): see [`validate::render`].
pub type Validation = std::collections::HashMap<String, TokenStream>;

fn items(package: &Package, part: &SourceFile, register: bool, validation: &Validation) -> TokenStream {
    let own = &package.messages[part.messages.clone()];
    let validate = validate::impls(own, validation);
    let validate = (!validate.is_empty()).then(|| quote!(__fastrs::requires_validate!(); #validate));
    let messages = own.iter().map(message::message);
    let enums = package.enums[part.enums.clone()].iter().map(types::enumeration);
    let uses = strategy::codec_import(own);
    let extensions = types::extensions(&package.extensions[part.extensions.clone()], &package.scope);
    let services = &package.services[part.services.clone()];
    let grpc = if package.grpc {
        grpc::services(package, services)
    } else {
        TokenStream::new()
    };
    let connect = if package.connect {
        connect::clients(package, services)
    } else {
        TokenStream::new()
    };
    // The package's first file (its only one by default) holds what
    // belongs to the whole package.
    let (register, descriptor_set, feature_check) = if register {
        (
            json::register(package),
            descriptors::set_const(package),
            descriptors::feature_check(package),
        )
    } else {
        (TokenStream::new(), TokenStream::new(), TokenStream::new())
    };
    let body = quote! {
        const _: () = __fastrs::GENERATED_CODE_V3;
        #feature_check
        #uses
        #(#messages)*
        #(#enums)*
        #extensions
        #register
        #descriptor_set
        #grpc
        #connect
        #validate
    };
    tokens::with_alias(body, json_gated(package))
}

/// True if the package's JSON code is behind a cargo feature.
fn json_gated(package: &Package) -> bool {
    matches!(package.json, Some(JsonGate::Feature(_)))
}

/// A module tree with one `include!` per package, nested as the package names.
#[must_use]
pub fn include_file(packages: &[Package], paths: Paths) -> TokenStream {
    let mut sorted: Vec<&Package> = packages.iter().collect();
    sorted.sort_by(|a, b| a.scope.cmp(&b.scope));
    include_level(&sorted, 0, paths)
}

fn include_level(packages: &[&Package], depth: usize, paths: Paths) -> TokenStream {
    let here = packages.iter().filter(|p| p.scope.len() == depth).flat_map(|p| {
        let files = match paths {
            Paths::ByPackage => vec![p.file_name.clone()],
            Paths::SourceRelative => p.files.iter().map(SourceFile::rust_file_name).collect(),
        };
        files.into_iter().map(|file| quote!(include!(#file);))
    });
    let mut children = Vec::new();
    let deeper: Vec<&Package> = packages.iter().copied().filter(|p| p.scope.len() > depth).collect();
    let mut i = 0;
    while i < deeper.len() {
        let segment = &deeper[i].scope[depth];
        let group: Vec<&Package> = deeper[i..]
            .iter()
            .copied()
            .take_while(|p| &p.scope[depth] == segment)
            .collect();
        i += group.len();
        let module = crate::model::names::ident(segment);
        let inner = include_level(&group, depth + 1, paths);
        children.push(quote!(pub mod #module { #inner }));
    }
    quote!(#(#here)* #(#children)*)
}
