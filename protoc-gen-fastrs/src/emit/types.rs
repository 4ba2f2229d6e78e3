//! Type definitions: message structs' members, oneof enums, enums,
//! extension constants, and getters.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::debug;
use super::tokens::{allow_deprecated, allow_variant_names, doc_attrs, int, public_codec, rust_type};
use crate::model::{DefaultValue, Enum, Extension, Field, Kind, Message, Oneof, Shape, Slot};
use crate::options::Maps;

/// Getters for explicit-presence scalar, string, bytes and enum fields: the value
/// if set, else the declared default (or the type's default).
pub(super) fn getters(msg: &Message) -> TokenStream {
    let getters: Vec<TokenStream> = msg.fields.iter().filter_map(|f| getter(f, &msg.scope)).collect();
    if getters.is_empty() {
        return TokenStream::new();
    }
    let ident = &msg.ident;
    quote! {
        #[allow(deprecated)]
        impl #ident {
            #(#getters)*
        }
    }
}

fn getter(f: &Field, scope: &[String]) -> Option<TokenStream> {
    let Shape::Optional(kind) = &f.shape else { return None };
    let ident = &f.ident;
    let doc = format!(
        " `{}` if set, else its default.",
        f.ident.to_string().trim_start_matches("r#")
    );
    let default = f.default.as_ref();
    // `value.unwrap_or(default)`, or `unwrap_or_default()` when none is declared.
    let or_default = |value: TokenStream, d: Option<TokenStream>| match d {
        Some(d) => quote!(#value.unwrap_or(#d)),
        None => quote!(#value.unwrap_or_default()),
    };
    let literal = match default {
        Some(DefaultValue::Literal(v)) => Some(v.clone()),
        _ => None,
    };
    let (ty, body) = match kind {
        Kind::Scalar(_) => (rust_type(kind, scope), or_default(quote!(self.#ident), literal)),
        Kind::String { .. } => (quote!(&str), or_default(quote!(self.#ident.as_deref()), literal)),
        Kind::Bytes { .. } => (quote!(&[u8]), or_default(quote!(self.#ident.as_deref()), literal)),
        Kind::Enum { path, closed, .. } => {
            let path = path.relative_to(scope);
            let d = match default {
                Some(DefaultValue::Enum(variant)) => Some(quote!(#path::#variant)),
                _ => None,
            };
            if *closed {
                (path, or_default(quote!(self.#ident), d))
            } else {
                let d = d.map(|d| quote!(::fastrs::EnumValue::from(#d)));
                (quote!(::fastrs::EnumValue<#path>), or_default(quote!(self.#ident), d))
            }
        }
        Kind::Message { .. } => return None,
    };
    Some(quote! {
        #[doc = #doc]
        pub fn #ident(&self) -> #ty {
            #body
        }
    })
}

/// `pub const NAME: ::fastrs::Extension<Extendee, Codec> = ...;` for each `extend` field.
pub fn extensions(extensions: &[Extension], scope: &[String]) -> TokenStream {
    let items = extensions.iter().map(|e| {
        let (ident, doc, number) = (
            &e.ident,
            doc_attrs(&e.doc),
            proc_macro2::Literal::u32_unsuffixed(e.number),
        );
        let (extendee, codec) = (e.extendee.relative_to(scope), public_codec(&e.kind, scope));
        let ty = if e.repeated {
            quote!(RepeatedExtension)
        } else {
            quote!(Extension)
        };
        let allow = allow_deprecated(e.extendee_deprecated || e.kind.is_deprecated());
        quote! {
            #doc
            #allow
            pub const #ident: ::fastrs::#ty<#extendee, #codec> = ::fastrs::#ty::new(#number);
        }
    });
    quote!(#(#items)*)
}

/// The struct field for a slot: a plain field, or a oneof at its first member.
pub(super) fn struct_member(msg: &Message, slot: &Slot) -> Option<TokenStream> {
    match slot {
        Slot::Field(i) => Some(field(&msg.fields[*i], &msg.scope)),
        Slot::Oneof(o, members) => {
            let oneof = &msg.oneofs[*o];
            // A oneof split by other fields appears in several slots; declare it once.
            (members.first() == Some(&0)).then(|| oneof_field(msg, oneof))
        }
    }
}

fn field(f: &Field, scope: &[String]) -> TokenStream {
    let ident = &f.ident;
    let doc = doc_attrs(&f.doc);
    let deprecated = f.deprecated().then(|| quote!(#[deprecated]));
    let ty = match &f.shape {
        Shape::Implicit(kind) | Shape::OneofMember(kind) => rust_type(kind, scope),
        Shape::Optional(kind) => {
            let t = rust_type(kind, scope);
            quote!(::core::option::Option<#t>)
        }
        Shape::Repeated { kind, .. } => {
            let t = rust_type(kind, scope);
            quote!(::fastrs::alloc::vec::Vec<#t>)
        }
        Shape::Map { key, value, maps } => {
            let (k, v) = (rust_type(key, scope), rust_type(value, scope));
            match maps {
                Maps::BTree => quote!(::fastrs::alloc::collections::BTreeMap<#k, #v>),
                Maps::HashWith(hasher) => {
                    let h = hasher.tokens();
                    quote!(::std::collections::HashMap<#k, #v, #h>)
                }
                Maps::Hash => quote!(::std::collections::HashMap<#k, #v>),
            }
        }
    };
    quote! {
        #doc
        #deprecated
        pub #ident: #ty,
    }
}

fn oneof_field(msg: &Message, oneof: &Oneof) -> TokenStream {
    let ident = &oneof.field;
    let doc = doc_attrs(&oneof.doc);
    let (module, enum_ident) = (&msg.module, &oneof.enum_ident);
    quote! {
        #doc
        pub #ident: ::core::option::Option<#module::#enum_ident>,
    }
}

pub(super) fn oneof_enum(oneof: &Oneof, scope: &[String]) -> TokenStream {
    let ident = &oneof.enum_ident;
    let doc = doc_attrs(&oneof.doc);
    let variants = oneof.members.iter().map(|m| {
        let Shape::OneofMember(kind) = &m.shape else {
            unreachable!("oneof members are lowered as OneofMember")
        };
        let (variant, doc, ty) = (&m.ident, doc_attrs(&m.doc), rust_type(kind, scope));
        let deprecated = m.deprecated().then(|| quote!(#[deprecated]));
        quote!(#doc #deprecated #variant(#ty),)
    });
    let allow = allow_deprecated(oneof.members.iter().any(Field::names_deprecated_type));
    let members: Vec<&Ident> = oneof.members.iter().map(|m| &m.ident).collect();
    let allow_names = allow_variant_names(ident, &members);
    let derive_debug = (!debug::oneof_redacts(oneof)).then(|| quote!(, Debug));
    let debug = debug::oneof(oneof);
    quote! {
        #doc
        #allow
        #allow_names
        #[derive(Clone, PartialEq #derive_debug)]
        pub enum #ident {
            #(#variants)*
        }
        #debug
    }
}

/// An enum: a Rust enum of the distinct numbers, aliases as associated consts,
/// and its `fastrs::Enum` impl.
pub fn enumeration(e: &Enum) -> TokenStream {
    let ident = &e.ident;
    let doc = doc_attrs(&e.doc);
    let deprecated = e.deprecated().then(|| quote!(#[deprecated]));
    let variants = e.variants.iter().enumerate().map(|(i, v)| {
        let (vident, number, doc) = (&v.ident, int(v.number), doc_attrs(&v.doc));
        let default = (i == 0).then(|| quote!(#[default]));
        let deprecated = v.deprecated().then(|| quote!(#[deprecated]));
        quote!(#doc #deprecated #default #vident = #number,)
    });
    // A deprecated first value is the default all the same: the derived
    // `Default` names it.
    let allow = allow_deprecated(e.variants[0].deprecated());
    let aliases = e.aliases.iter().map(|a| {
        let (aident, target, doc) = (&a.ident, &a.target, doc_attrs(&a.doc));
        quote!(#doc pub const #aident: Self = Self::#target;)
    });
    let alias_impl = (!e.aliases.is_empty()).then(|| {
        quote! {
            #[allow(non_upper_case_globals, deprecated)]
            impl #ident {
                #(#aliases)*
            }
        }
    });
    let from_arms = e.variants.iter().map(|v| {
        let (vident, number) = (&v.ident, int(v.number));
        quote!(#number => ::core::option::Option::Some(Self::#vident),)
    });
    let name_arms = e.variants.iter().map(|v| {
        let (vident, name) = (&v.ident, &v.proto_name);
        quote!(Self::#vident => #name,)
    });
    let from_name_arms = e
        .variants
        .iter()
        .map(|v| (&v.proto_name, &v.ident))
        .chain(e.aliases.iter().map(|a| (&a.proto_name, &a.target)))
        .map(|(name, vident)| quote!(#name => ::core::option::Option::Some(Self::#vident),));
    let full_name = &e.full_name;
    // Variants keep a value's own spelling when case conversion would merge two.
    let odd_names = e.variants.iter().any(|v| {
        let name = v.ident.to_string();
        name.contains('_') || name.starts_with(|c: char| c.is_ascii_lowercase())
    });
    let allow_names = odd_names.then(|| quote!(#[allow(non_camel_case_types)]));
    let variant_idents: Vec<&Ident> = e.variants.iter().map(|v| &v.ident).collect();
    let allow_variant_names = allow_variant_names(ident, &variant_idents);
    quote! {
        #doc
        #deprecated
        #allow_names
        #allow_variant_names
        #allow
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[repr(i32)]
        pub enum #ident {
            #(#variants)*
        }

        #alias_impl

        #[allow(deprecated)]
        impl ::fastrs::Enum for #ident {
            const FULL_NAME: &'static str = #full_name;

            fn from_i32(value: i32) -> ::core::option::Option<Self> {
                match value {
                    #(#from_arms)*
                    _ => ::core::option::Option::None,
                }
            }

            fn to_i32(self) -> i32 {
                self as i32
            }

            fn as_str_name(self) -> &'static str {
                match self {
                    #(#name_arms)*
                }
            }

            fn from_str_name(name: &str) -> ::core::option::Option<Self> {
                match name {
                    #(#from_name_arms)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    }
}
