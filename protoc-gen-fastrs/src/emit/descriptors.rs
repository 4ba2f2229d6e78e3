//! Embedded descriptors (`descriptors=true`): a package's
//! `FILE_DESCRIPTOR_SET` constant and its messages' `fastrs::Described`.

use std::fmt::Write as _;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::{Message, Package};

/// `pub const FILE_DESCRIPTOR_SET`, if the package embeds its descriptors.
pub fn set_const(package: &Package) -> TokenStream {
    let Some(set) = &package.descriptor_set else {
        return TokenStream::new();
    };
    let files: Vec<String> = package.files.iter().map(|f| format!("`{}`", f.name)).collect();
    let doc = format!(
        " The encoded `google.protobuf.FileDescriptorSet` of {} (without source info).",
        files.join(", ")
    );
    let bytes = byte_string(set);
    // descriptor.proto's set is in the runtime with or without its
    // `descriptor` feature (packages of custom options import it);
    // plugin.proto's only with it.
    let (runtime, imports): (Vec<_>, Vec<_>) = package
        .descriptor_imports
        .iter()
        .partition(|p| p.needs_descriptor_feature() && !p.is_descriptor_proto_set());
    let imports = imports.iter().map(|p| p.relative_to(&package.scope));
    let sets = if runtime.is_empty() {
        quote!(&[#(#imports),*])
    } else {
        let runtime = runtime.iter().map(|p| p.relative_to(&package.scope));
        quote!(__fastrs::descriptor_sets!([#(#imports),*] [#(#runtime),*]))
    };
    quote! {
        #[doc = #doc]
        pub const FILE_DESCRIPTOR_SET: &[u8] = #bytes;

        /// The `FILE_DESCRIPTOR_SET`s of the packages these files import,
        /// directly or not (those generated with descriptors).
        pub const IMPORTED_DESCRIPTOR_SETS: &[&[u8]] = #sets;
    }
}

/// One clear compile error where the package cannot do without fastrs's
/// `descriptor` feature: fields of descriptor types (see the runtime's
/// `requires_descriptor!`).
pub fn feature_check(package: &Package) -> TokenStream {
    let Some(first) = package.descriptor_fields.first() else {
        return TokenStream::new();
    };
    let what = match package.descriptor_fields.len() {
        1 => format!("field `{first}`"),
        n => format!("field `{first}` (and {} more)", n - 1),
    };
    quote!(__fastrs::requires_descriptor!(#what);)
}

/// `impl fastrs::Described`, if the message's package embeds its descriptors.
pub fn described_impl(msg: &Message) -> TokenStream {
    let Some(depth) = msg.described_at else {
        return TokenStream::new();
    };
    let ident = &msg.ident;
    let supers: Vec<TokenStream> = std::iter::repeat_n(quote!(super::), depth).collect();
    let allow = super::tokens::allow_deprecated(msg.deprecated());
    quote! {
        #allow
        impl ::fastrs::Described for #ident {
            const FILE_DESCRIPTOR_SET: &'static [u8] = #(#supers)* FILE_DESCRIPTOR_SET;
            const IMPORTED_DESCRIPTOR_SETS: &'static [&'static [u8]] = #(#supers)* IMPORTED_DESCRIPTOR_SETS;
        }
    }
}

/// A byte string literal of `bytes`, broken into lines of about 100
/// characters with `\` continuations, so the generated file stays readable.
fn byte_string(bytes: &[u8]) -> Literal {
    let mut text = String::from("b\"");
    let mut line = 0;
    for &b in bytes {
        if line >= 96 {
            text.push_str("\\\n");
            line = 0;
        }
        let before = text.len();
        match b {
            // A continuation skips the whitespace that starts the next line,
            // so a space there is escaped.
            b' ' if line == 0 => text.push_str("\\x20"),
            b'"' | b'\\' => {
                text.push('\\');
                text.push(b as char);
            }
            0x20..=0x7e => text.push(b as char),
            _ => {
                let _ = write!(text, "\\x{b:02x}");
            }
        }
        line += text.len() - before;
    }
    text.push('"');
    text.parse().expect("a well-formed byte string literal")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_strings_read_back_exactly() {
        let bytes: Vec<u8> = (0..=255u8).chain(*b"  \"\\ end").cycle().take(700).collect();
        let literal = byte_string(&bytes);
        let parsed: syn::LitByteStr = syn::parse_str(&literal.to_string()).unwrap();
        assert_eq!(parsed.value(), bytes);
        assert!(literal.to_string().lines().all(|l| l.len() <= 102));
    }
}
