//! Type definitions: message structs with their `Message` impl, nested-type
//! modules, oneof enums and enums.

use proc_macro2::TokenStream;
use quote::quote;

use super::recycle::{clear_body, oneof_keeper};
use super::{chain, codec, codec_import, debug, descriptors, doc_attrs, int, json, read, rust_type, size, view, write};
use crate::model::{DefaultValue, Enum, Extension, Field, Kind, Message, Mode, Oneof, Shape, Slot};
use crate::options::Maps;

/// A message: its struct, its `Message` impl and its module of nested types.
pub fn message(msg: &Message) -> TokenStream {
    let ident = &msg.ident;
    let doc = doc_attrs(&msg.doc);
    let deprecated = msg.deprecated().then(|| quote!(#[deprecated]));
    let members = msg.order.iter().filter_map(|slot| struct_member(msg, slot));
    let unknown = &msg.unknown_fields;
    let recycler = msg.recycles().then(|| {
        let recycle = &msg.recycle;
        quote! {
            #[doc(hidden)]
            pub #recycle: ::fastrs::__private::Recycler,
        }
    });
    let full_name = &msg.full_name;
    let size = size::body(msg);
    let write = write::body(msg);
    let read = read::body(msg);
    let clear = clear_body(msg);
    let module = nested_module(msg);
    let check_required = check_required(msg);
    let getters = getters(msg);
    let json = json::message(msg);
    let chain = chain::impl_chain(msg);
    let described = descriptors::described_impl(msg);
    let allow = allow_deprecated(msg.fields.iter().any(Field::names_deprecated_type));
    // `Debug` by hand when a field is redacted, else derived.
    let derive_debug = (!msg.redacts()).then(|| quote!(, Debug));
    let compact_entry_points = compact_entry_points(msg);
    let debug = debug::message(msg);
    let view = view::message(msg);
    quote! {
        #doc
        #deprecated
        #allow
        #[derive(Clone, PartialEq, Default #derive_debug)]
        pub struct #ident {
            #(#members)*
            /// Fields this schema does not know, kept and written back on encode.
            pub #unknown: ::fastrs::UnknownFields,
            #recycler
        }

        #[allow(deprecated)]
        impl ::fastrs::Message for #ident {
            const FULL_NAME: &'static str = #full_name;

            fn size(&self) -> usize {
                #size
            }

            fn write_backward(&self, w: &mut ::fastrs::Writer<'_>) {
                #write
            }

            fn merge_from(
                &mut self,
                r: &mut ::fastrs::Reader<'_>,
                depth: u32,
            ) -> ::core::result::Result<(), ::fastrs::DecodeError> {
                #read
            }

            fn clear(&mut self) {
                #clear
            }

            fn unknown_fields(&self) -> &::fastrs::UnknownFields {
                &self.#unknown
            }

            fn unknown_fields_mut(&mut self) -> &mut ::fastrs::UnknownFields {
                &mut self.#unknown
            }

            #check_required
            #compact_entry_points
        }

        #debug

        #described

        #chain

        #getters

        #json

        #view

        #module
    }
}

/// `check_required`, for messages that can hold `required` fields: each such
/// field is set, and every held message passes the same check.
fn check_required(msg: &Message) -> TokenStream {
    if !msg.checks_required {
        return TokenStream::new();
    }
    let fields = msg.fields.iter().map(|f| {
        let ident = &f.ident;
        let missing = missing_required(f);
        let nested = match &f.shape {
            Shape::Optional(kind) if kind.checks_required() => quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    ::fastrs::Message::check_required(v)?;
                }
            },
            Shape::Repeated { kind, .. } if kind.checks_required() => quote! {
                for v in &self.#ident {
                    ::fastrs::Message::check_required(v)?;
                }
            },
            Shape::Map { value, .. } if value.checks_required() => quote! {
                for v in self.#ident.values() {
                    ::fastrs::Message::check_required(v)?;
                }
            },
            _ => TokenStream::new(),
        };
        quote!(#missing #nested)
    });
    let oneofs = msg.oneofs.iter().flat_map(|o| {
        o.members
            .iter()
            .filter(|m| matches!(&m.shape, Shape::OneofMember(k) if k.checks_required()))
            .map(move |m| {
                let (ident, module, enum_ident, variant) = (&o.field, &msg.module, &o.enum_ident, &m.ident);
                quote! {
                    if let ::core::option::Option::Some(#module::#enum_ident::#variant(v)) = &self.#ident {
                        ::fastrs::Message::check_required(v)?;
                    }
                }
            })
    });
    quote! {
        fn check_required(&self) -> ::core::result::Result<(), ::fastrs::DecodeError> {
            #(#fields)*
            #(#oneofs)*
            ::core::result::Result::Ok(())
        }
    }
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

/// Getters for explicit-presence scalar, string, bytes and enum fields: the value
/// if set, else the declared default (or the type's default).
fn getters(msg: &Message) -> TokenStream {
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
        let (extendee, codec) = (e.extendee.relative_to(scope), codec(&e.kind, scope));
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

/// `#[allow(deprecated)]` for an item that names a deprecated type or
/// member (the item itself still warns its users), else nothing.
pub(super) fn allow_deprecated(needed: bool) -> TokenStream {
    if needed {
        quote!(#[allow(deprecated)])
    } else {
        TokenStream::new()
    }
}

/// The struct field for a slot: a plain field, or a oneof at its first member.
fn struct_member(msg: &Message, slot: &Slot) -> Option<TokenStream> {
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

/// In size mode, the top-level decode and encode as calls into functions
/// compiled once for all types: else every crate that decodes or encodes the
/// message compiles them again (they are generic over the message).
fn compact_entry_points(msg: &Message) -> TokenStream {
    if msg.mode != Mode::Size {
        return TokenStream::new();
    }
    quote! {
        fn fast_read_partial(
            &mut self,
            buf: &[u8],
            options: &::fastrs::DecodeOptions,
        ) -> ::core::result::Result<(), ::fastrs::DecodeError> {
            ::fastrs::__private::compact::read_partial(self, Self::FULL_NAME, buf, options)
        }

        fn encode_to_vec(&self) -> ::fastrs::alloc::vec::Vec<u8> {
            ::fastrs::__private::compact::encode_to_vec(self, Self::FULL_NAME)
        }
    }
}

/// `pub mod name { ... }` with oneof enums and nested types, if there are any.
fn nested_module(msg: &Message) -> TokenStream {
    if msg.oneofs.is_empty() && msg.messages.is_empty() && msg.enums.is_empty() && msg.extensions.is_empty() {
        return TokenStream::new();
    }
    let module = &msg.module;
    let doc = format!(" Types nested in [`{}`].", msg.ident);
    let inner_scope: Vec<String> = msg.scope.iter().cloned().chain([msg.module.to_string()]).collect();
    let oneofs = msg.oneofs.iter().map(|o| {
        let keep = oneof_keeper(msg, o);
        let definition = oneof_enum(o, &inner_scope);
        quote!(#definition #keep)
    });
    let views = view::oneof_enums(msg, &inner_scope);
    let messages = msg.messages.iter().map(message);
    let enums = msg.enums.iter().map(enumeration);
    let uses = codec_import(&msg.messages);
    let extensions = extensions(&msg.extensions, &inner_scope);
    quote! {
        #[doc = #doc]
        pub mod #module {
            #uses
            #(#oneofs)*
            #views
            #(#messages)*
            #(#enums)*
            #extensions
        }
    }
}

fn oneof_enum(oneof: &Oneof, scope: &[String]) -> TokenStream {
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
    let derive_debug = (!debug::oneof_redacts(oneof)).then(|| quote!(, Debug));
    let debug = debug::oneof(oneof);
    quote! {
        #doc
        #allow
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
    quote! {
        #doc
        #deprecated
        #allow_names
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
