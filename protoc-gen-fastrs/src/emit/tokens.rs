//! Small pieces of generated code that every emitter uses: type and codec
//! paths, tag literals, doc attributes, lint allowances, the hidden
//! module's alias. A leaf: it reads the model and nothing else of `emit`.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::quote;

use crate::model::{Field, Kind, Scalar, Tag};

/// The alias generated files give the runtime's hidden module, so that the
/// paths into it stay short: `__fastrs::compact::merge::<...>`.
pub(super) const PRIVATE: &str = "__fastrs";

/// `use ::fastrs::__private as __fastrs;` at the head of `body`, a module's
/// items, if they (not their nested modules, which get their own) name the
/// alias. `gated` says some of that code is behind a cargo feature of the
/// including crate (JSON), where the alias may then go unused.
pub(super) fn with_alias(body: TokenStream, gated: bool) -> TokenStream {
    if !names_alias(body.clone()) {
        return body;
    }
    let alias = Ident::new(PRIVATE, Span::call_site());
    let allow = gated.then(|| quote!(#[allow(unused_imports)]));
    quote! {
        #allow
        use ::fastrs::__private as #alias;
        #body
    }
}

/// True if `tokens` name the alias outside a nested `mod name { ... }`.
fn names_alias(tokens: TokenStream) -> bool {
    let mut after_mod = 0;
    for tree in tokens {
        after_mod = match (&tree, after_mod) {
            (TokenTree::Ident(i), _) if i == "mod" => 1,
            (TokenTree::Ident(_), 1) => 2,
            (TokenTree::Group(_), 2) => 0,
            (TokenTree::Ident(i), _) if i == PRIVATE => return true,
            (TokenTree::Group(g), _) if names_alias(g.stream()) => return true,
            _ => 0,
        };
    }
    false
}

/// The codec type of `kind` (`__fastrs::Int32`, `__fastrs::Msg<T>`, ...),
/// with type paths written from module `scope`, for code inside impls.
pub(super) fn codec(kind: &Kind, scope: &[String]) -> TokenStream {
    codec_in(quote!(__fastrs), kind, scope)
}

/// The codec type of `kind` by its public path (`::fastrs::codec::Int32`),
/// for types that users see: view fields, extension constants.
pub(super) fn public_codec(kind: &Kind, scope: &[String]) -> TokenStream {
    codec_in(quote!(::fastrs::codec), kind, scope)
}

/// The codec type of `kind` in `module` (which re-exports the runtime's codecs).
fn codec_in(module: TokenStream, kind: &Kind, scope: &[String]) -> TokenStream {
    let name = |name: &str| Ident::new(name, Span::call_site());
    let scalar = match kind {
        Kind::Scalar(s) => match s {
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
        },
        Kind::String { checked: true } => "Str",
        Kind::String { checked: false } => "LaxStr",
        Kind::Bytes { shared: false } => "Bytes",
        Kind::Bytes { shared: true } => "SharedBytes",
        _ => {
            let (name, args) = codec_parts(kind, scope);
            return quote!(#module::#name<#args>);
        }
    };
    let scalar = name(scalar);
    quote!(#module::#scalar)
}

/// The codec as a path in expression position (`__fastrs::Msg::<T>`).
pub(super) fn codec_call(kind: &Kind, scope: &[String]) -> TokenStream {
    match kind {
        Kind::Enum { .. } | Kind::Message { .. } => {
            let (name, args) = codec_parts(kind, scope);
            quote!(__fastrs::#name::<#args>)
        }
        _ => codec(kind, scope),
    }
}

/// The generic codec of an enum or message kind, and its type arguments.
fn codec_parts(kind: &Kind, scope: &[String]) -> (Ident, TokenStream) {
    let ident = |name: &str| Ident::new(name, Span::call_site());
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

/// The condition under which an implicit-presence field is written.
pub(super) fn is_set(kind: &Kind, value: &TokenStream) -> TokenStream {
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
pub(super) fn rust_type(kind: &Kind, scope: &[String]) -> TokenStream {
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
pub(super) fn tag_value(tag: &Tag) -> TokenStream {
    hex(u64::from(tag.value))
}

/// The tag's bytes as an array expression, `&[0x0a]`.
pub(super) fn tag_bytes(tag: &Tag) -> TokenStream {
    let bytes = tag.bytes.iter().map(|&b| hex(u64::from(b)));
    quote!(&[#(#bytes),*])
}

/// The tag's length in bytes, as a literal.
pub(super) fn key_len(tag: &Tag) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(tag.len());
    quote!(#n)
}

/// An unsuffixed integer literal (a negative one as `-` and a literal).
pub(super) fn int(v: i32) -> TokenStream {
    v.to_string().parse().expect("an integer literal")
}

pub(super) fn hex(v: u64) -> TokenStream {
    format!("{v:#04x}").parse().expect("a hex literal")
}

/// `#[doc = "..."]` attributes, one per line.
pub(super) fn doc_attrs(lines: &[String]) -> TokenStream {
    let lines = lines.iter().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// Code for a run of members of one oneof (`Option<Enum>` at `value`): one
/// `match` with an arm per member, or an `if let` for a run of one member (a
/// member split from the rest by other fields in number order).
pub(super) fn match_oneof_run(value: &TokenStream, arms: Vec<(TokenStream, TokenStream)>) -> TokenStream {
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
/// `#[allow(deprecated)]` for an item that names a deprecated type or
/// member (the item itself still warns its users), else nothing.
pub(super) fn allow_deprecated(needed: bool) -> TokenStream {
    if needed {
        quote!(#[allow(deprecated)])
    } else {
        TokenStream::new()
    }
}

/// `#[allow(clippy::enum_variant_names)]` for an enum whose variant names,
/// taken from the schema, clippy would flag: with three variants or more,
/// one that starts or ends with the enum's name, or all sharing their first
/// or last word (`StringValue`, `BoolValue`, ... in a oneof `value`).
pub(super) fn allow_variant_names(name: &Ident, variants: &[&Ident]) -> TokenStream {
    if variants.len() < 3 {
        return TokenStream::new();
    }
    let name = name.to_string();
    let names: Vec<String> = variants.iter().map(|v| v.to_string()).collect();
    let repeats_name = names.iter().any(|v| {
        let starts = v
            .strip_prefix(name.as_str())
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()));
        starts || v.ends_with(name.as_str())
    });
    let words: Vec<Vec<&str>> = names.iter().map(|v| camel_words(v)).collect();
    let several = words.iter().all(|w| w.len() > 1);
    let same_first = words.windows(2).all(|pair| pair[0].first() == pair[1].first());
    let same_last = words.windows(2).all(|pair| pair[0].last() == pair[1].last());
    if repeats_name || (several && (same_first || same_last)) {
        quote!(#[allow(clippy::enum_variant_names)])
    } else {
        TokenStream::new()
    }
}

/// The words of a CamelCase name (`StringValue`: `String`, `Value`).
fn camel_words(name: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = 0;
    for (i, c) in name.char_indices().skip(1) {
        if c.is_ascii_uppercase() {
            words.push(&name[start..i]);
            start = i;
        }
    }
    words.push(&name[start..]);
    words
}

/// `#[allow(deprecated)]` for code over a oneof's members, if one of them
/// is deprecated or names a deprecated type.
pub(super) fn allow_deprecated_members(oneof: &crate::model::Oneof) -> TokenStream {
    allow_deprecated(
        oneof
            .members
            .iter()
            .any(|m| m.deprecated() || m.names_deprecated_type()),
    )
}

/// For a `required` field: the early return if it is not set (owned
/// messages and views hold it as an `Option` alike).
pub(super) fn missing_required(f: &Field) -> Option<TokenStream> {
    let (ident, name, number) = (&f.ident, &f.full_name, f.number);
    f.required.then(|| {
        quote! {
            if self.#ident.is_none() {
                return ::core::result::Result::Err(::fastrs::DecodeError::missing_required(#name, #number));
            }
        }
    })
}
