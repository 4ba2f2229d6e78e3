//! Model → tokens. One module per generated piece; each reads the model only.

mod chain;
mod debug;
mod descriptors;
mod grpc;
mod json;
mod read;
mod recycle;
mod size;
mod types;
mod view;
mod write;

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Kind, Message, Mode, Package, Scalar, Shape, SourceFile, Tag};
use crate::options::Paths;

/// All items of one package file.
#[must_use]
pub fn package(package: &Package) -> TokenStream {
    let all = SourceFile {
        name: String::new(),
        messages: 0..package.messages.len(),
        enums: 0..package.enums.len(),
        extensions: 0..package.extensions.len(),
        services: 0..package.services.len(),
    };
    items(package, &all, true)
}

/// The items of `package` that `.proto` file `file` declares, for
/// `paths=source_relative`; the package's first file also holds its
/// `register_json_types`.
#[must_use]
pub fn source_file(package: &Package, file: &SourceFile) -> TokenStream {
    let first = package.files.first().is_some_and(|f| f.name == file.name);
    items(package, file, first)
}

fn items(package: &Package, part: &SourceFile, register: bool) -> TokenStream {
    let own = &package.messages[part.messages.clone()];
    let messages = own.iter().map(types::message);
    let enums = package.enums[part.enums.clone()].iter().map(types::enumeration);
    let uses = codec_import(own);
    let extensions = types::extensions(&package.extensions[part.extensions.clone()], &package.scope);
    let services = grpc::services(package, &package.services[part.services.clone()]);
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
    quote! {
        const _: () = ::fastrs::__private::GENERATED_CODE_V2;
        #feature_check
        #uses
        #(#messages)*
        #(#enums)*
        #extensions
        #register
        #descriptor_set
        #services
    }
}

/// The codec type of `kind` (`::fastrs::__private::Int32`, `Msg<T>`, ...), with
/// type paths written from module `scope`.
fn codec(kind: &Kind, scope: &[String]) -> TokenStream {
    let scalar = |name: &str| {
        let name = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
        quote!(::fastrs::__private::#name)
    };
    match kind {
        Kind::Scalar(s) => scalar(match s {
            Scalar::Int32 => "Int32",
            Scalar::Int64 => "Int64",
            Scalar::Uint32 => "Uint32",
            Scalar::Uint64 => "Uint64",
            Scalar::Sint32 => "Sint32",
            Scalar::Sint64 => "Sint64",
            Scalar::Bool => "Bool",
            Scalar::Fixed32 => "Fixed32",
            Scalar::Fixed64 => "Fixed64",
            Scalar::Sfixed32 => "Sfixed32",
            Scalar::Sfixed64 => "Sfixed64",
            Scalar::Float => "Float",
            Scalar::Double => "Double",
        }),
        Kind::String { checked: true } => scalar("Str"),
        Kind::String { checked: false } => scalar("LaxStr"),
        Kind::Bytes { shared: false } => scalar("Bytes"),
        Kind::Bytes { shared: true } => scalar("SharedBytes"),
        _ => {
            let (name, args) = codec_parts(kind, scope);
            quote!(::fastrs::__private::#name<#args>)
        }
    }
}

/// The codec as a path in expression position (`::fastrs::__private::Msg::<T>`).
fn codec_call(kind: &Kind, scope: &[String]) -> TokenStream {
    match kind {
        Kind::Enum { .. } | Kind::Message { .. } => {
            let (name, args) = codec_parts(kind, scope);
            quote!(::fastrs::__private::#name::<#args>)
        }
        _ => codec(kind, scope),
    }
}

/// The function a message's code calls for one value of `kind`: the codec's
/// own `op` (`write_keyed`, `merge`, `read`; inlined) in speed mode, the
/// runtime's out-of-line `compact::{write, merge, read}` in size mode.
fn value_fn(msg: &Message, kind: &Kind, op: ValueOp) -> TokenStream {
    let scope = &msg.scope;
    let (inline, compact) = match op {
        ValueOp::Write => (quote!(write_keyed), quote!(write)),
        ValueOp::Merge => (quote!(merge), quote!(merge)),
        ValueOp::Read => (quote!(read), quote!(read)),
    };
    match msg.mode {
        Mode::Speed => {
            let codec = codec_call(kind, scope);
            quote!(#codec::#inline)
        }
        Mode::Size => {
            let codec = codec(kind, scope);
            quote!(::fastrs::__private::compact::#compact::<#codec>)
        }
    }
}

/// What [`value_fn`] calls for.
#[derive(Clone, Copy)]
enum ValueOp {
    Write,
    Merge,
    Read,
}

/// A repeated-field helper of the runtime (`size_packed`, `write_repeated`,
/// ...): the inlinable one in speed mode, its out-of-line twin in
/// `compact` in size mode.
fn helper(msg: &Message, name: &str) -> TokenStream {
    let name = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
    match msg.mode {
        Mode::Speed => quote!(::fastrs::__private::#name),
        Mode::Size => quote!(::fastrs::__private::compact::#name),
    }
}

/// The generic codec of an enum or message kind, and its type arguments.
fn codec_parts(kind: &Kind, scope: &[String]) -> (proc_macro2::Ident, TokenStream) {
    let ident = |name: &str| proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
    match kind {
        Kind::Enum { path, closed, .. } => {
            let path = path.relative_to(scope);
            (ident(if *closed { "ClosedEnum" } else { "OpenEnum" }), path)
        }
        Kind::Message {
            group: Some(number), ..
        } => {
            let ty = rust_type(kind, scope);
            let number = proc_macro2::Literal::u32_unsuffixed(*number);
            (ident("Group"), quote!(#ty, #number))
        }
        _ => (ident("Msg"), rust_type(kind, scope)),
    }
}

/// `use ::fastrs::__private::Codec as _;` for a module whose impls call codec
/// methods: one that holds a message with a field other than a map (maps go
/// through free functions; empty messages call nothing), or in size mode, a
/// singular field or oneof (sized by the codec; all else goes through
/// `compact`'s free functions).
fn codec_import(messages: &[Message]) -> TokenStream {
    let calls_codecs = |m: &Message| {
        !m.oneofs.is_empty()
            || m.fields.iter().any(|f| {
                !matches!(
                    (&f.shape, m.mode),
                    (Shape::Map { .. }, _) | (Shape::Repeated { .. }, Mode::Size)
                )
            })
    };
    if messages.iter().any(calls_codecs) {
        quote!(
            use ::fastrs::__private::Codec as _;
        )
    } else {
        TokenStream::new()
    }
}

/// The condition under which an implicit-presence field is written.
fn is_set(kind: &Kind, value: &TokenStream) -> TokenStream {
    match kind {
        Kind::Scalar(Scalar::Bool) => quote!(#value),
        Kind::Scalar(Scalar::Float | Scalar::Double) => quote!(#value.to_bits() != 0),
        Kind::Scalar(_) => quote!(#value != 0),
        Kind::String { .. } | Kind::Bytes { .. } => quote!(!#value.is_empty()),
        Kind::Enum { closed: false, .. } => quote!(#value.to_i32() != 0),
        Kind::Enum { closed: true, .. } => quote!(#value as i32 != 0),
        Kind::Message { .. } => quote!(true),
    }
}

/// The Rust type that holds one value of `kind`.
fn rust_type(kind: &Kind, scope: &[String]) -> TokenStream {
    match kind {
        Kind::Scalar(s) => match s {
            Scalar::Int32 | Scalar::Sint32 | Scalar::Sfixed32 => quote!(i32),
            Scalar::Int64 | Scalar::Sint64 | Scalar::Sfixed64 => quote!(i64),
            Scalar::Uint32 | Scalar::Fixed32 => quote!(u32),
            Scalar::Uint64 | Scalar::Fixed64 => quote!(u64),
            Scalar::Bool => quote!(bool),
            Scalar::Float => quote!(f32),
            Scalar::Double => quote!(f64),
        },
        Kind::String { checked: true } => quote!(::fastrs::alloc::string::String),
        Kind::String { checked: false } => quote!(::fastrs::LaxString),
        Kind::Bytes { shared: false } => quote!(::fastrs::alloc::vec::Vec<u8>),
        Kind::Bytes { shared: true } => quote!(::fastrs::bytes::Bytes),
        Kind::Enum {
            path, closed: false, ..
        } => {
            let path = path.relative_to(scope);
            quote!(::fastrs::EnumValue<#path>)
        }
        Kind::Enum { path, closed: true, .. } => path.relative_to(scope),
        Kind::Message { path, boxed, .. } => {
            let path = path.relative_to(scope);
            if *boxed {
                quote!(::fastrs::alloc::boxed::Box<#path>)
            } else {
                path
            }
        }
    }
}

/// The tag's varint value as a hex literal, for `match` arms.
fn tag_value(tag: &Tag) -> TokenStream {
    hex(u64::from(tag.value))
}

/// The tag's bytes as an array expression, `&[0x0a]`.
fn tag_bytes(tag: &Tag) -> TokenStream {
    let bytes = tag.bytes.iter().map(|&b| hex(u64::from(b)));
    quote!(&[#(#bytes),*])
}

/// The tag's length in bytes, as a literal.
fn key_len(tag: &Tag) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(tag.len());
    quote!(#n)
}

/// An unsuffixed integer literal (a negative one as `-` and a literal).
fn int(v: i32) -> TokenStream {
    v.to_string().parse().expect("an integer literal")
}

fn hex(v: u64) -> TokenStream {
    format!("{v:#04x}").parse().expect("a hex literal")
}

/// `#[doc = "..."]` attributes, one per line.
fn doc_attrs(lines: &[String]) -> TokenStream {
    let lines = lines.iter().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
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

/// Code for a run of members of one oneof (`Option<Enum>` at `value`): one
/// `match` with an arm per member, or an `if let` for a run of one member (a
/// member split from the rest by other fields in number order).
fn match_oneof_run(value: &TokenStream, arms: Vec<(TokenStream, TokenStream)>) -> TokenStream {
    if let [(pattern, body)] = &arms[..] {
        return quote! {
            if let #pattern = #value {
                #body
            }
        };
    }
    let arms = arms.iter().map(|(pattern, body)| quote!(#pattern => { #body }));
    quote! {
        match #value {
            #(#arms)*
            _ => {}
        }
    }
}
