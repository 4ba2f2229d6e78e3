//! The per-message driver: a message's struct, its `Message` impl, and
//! what the other emitters add for it, then its module of nested types.

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::{allow_deprecated, doc_attrs, missing_required};
use super::{chain, clear, debug, descriptors, json, read, size, strategy, table, types, view, write};
use crate::model::{Field, Message, Shape};

/// A message: its struct, its `Message` impl and its module of nested types.
pub(super) fn message(msg: &Message) -> TokenStream {
    let ident = &msg.ident;
    let doc = doc_attrs(&msg.doc);
    let deprecated = msg.deprecated().then(|| quote!(#[deprecated]));
    let members = msg.order.iter().filter_map(|slot| types::struct_member(msg, slot));
    let unknown = &msg.unknown_fields;
    let recycler = msg.has_recycler().then(|| {
        let recycle = &msg.recycle;
        quote! {
            /// Buffers `clear` kept for the next decode to fill; not part
            /// of the value (equality ignores it, clones start empty).
            pub #recycle: ::fastrs::Recycler,
        }
    });
    let full_name = &msg.full_name;
    let methods = methods(msg);
    let module = nested_module(msg);
    let check_required = check_required(msg);
    let getters = types::getters(msg);
    let json = json::message(msg);
    let chain = chain::impl_chain(msg);
    let described = descriptors::described_impl(msg);
    let allow = allow_deprecated(msg.fields.iter().any(Field::names_deprecated_type));
    // `Debug` by hand when a field is redacted, else derived.
    let derive_debug = (!msg.redacts()).then(|| quote!(, Debug));
    let debug = debug::message(msg);
    let view = view::message(msg);
    let tabled = msg.strategy.table().then(|| table::tabled(msg));
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
            #methods
            #check_required
        }

        #tabled

        #debug

        #described

        #chain

        #getters

        #json

        #view

        #module
    }
}

/// The `Message` methods of `msg` but `check_required`: the runtime's
/// `methods!` for a message run by its table alone, else the bodies of
/// [`bodies`] and the entry points of [`compact_entry_points`].
fn methods(msg: &Message) -> TokenStream {
    let unknown = &msg.unknown_fields;
    if msg.strategy.table() && msg.chain.is_none() {
        return quote!(__fastrs::table::methods!(#unknown););
    }
    let Bodies {
        size,
        write,
        read,
        clear,
    } = bodies(msg);
    let compact_entry_points = compact_entry_points(msg);
    quote! {
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

        #compact_entry_points
    }
}

/// The bodies of a message's `size`, `write_backward`, `merge_from` and
/// `clear`.
struct Bodies {
    size: TokenStream,
    write: TokenStream,
    read: TokenStream,
    clear: TokenStream,
}

/// [`Bodies`]: calls into the runtime's interpreters for a message with a
/// table (a chain's links still sized and written by code, which keeps
/// long chains off the stack), else code per field.
fn bodies(msg: &Message) -> Bodies {
    if !msg.strategy.table() {
        return Bodies {
            size: size::body(msg),
            write: write::body(msg),
            read: read::body(msg),
            clear: clear::body(msg),
        };
    }
    let (size, write) = match msg.chain {
        Some(_) => (size::body(msg), write::body(msg)),
        None => (
            quote!(__fastrs::table::size(self)),
            quote!(__fastrs::table::write_backward(self, w);),
        ),
    };
    Bodies {
        size,
        write,
        read: quote!(__fastrs::table::merge(self, r, depth)),
        clear: quote!(__fastrs::table::clear(self);),
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

/// With out-of-line calls, the top-level decode and encode as calls into
/// functions compiled once for all types: else every crate that decodes or
/// encodes the message compiles them again (they are generic over the
/// message).
fn compact_entry_points(msg: &Message) -> TokenStream {
    if msg.strategy.inline() {
        return TokenStream::new();
    }
    quote! {
        fn fast_read_partial(
            &mut self,
            buf: &[u8],
            options: &::fastrs::DecodeOptions,
        ) -> ::core::result::Result<(), ::fastrs::DecodeError> {
            __fastrs::compact::read_partial(self, Self::FULL_NAME, buf, options)
        }

        fn encode_to_vec(&self) -> ::fastrs::alloc::vec::Vec<u8> {
            __fastrs::compact::encode_to_vec(self, Self::FULL_NAME)
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
        let keep = clear::oneof_keeper(msg, o);
        let definition = types::oneof_enum(o, &inner_scope);
        quote!(#definition #keep)
    });
    let views = view::oneof_enums(msg, &inner_scope);
    let messages = msg.messages.iter().map(message);
    let enums = msg.enums.iter().map(types::enumeration);
    let uses = strategy::codec_import(&msg.messages);
    let extensions = types::extensions(&msg.extensions, &inner_scope);
    let body = quote! {
        #uses
        #(#oneofs)*
        #views
        #(#messages)*
        #(#enums)*
        #extensions
    };
    let body = super::tokens::with_alias(body, matches!(msg.json, Some(crate::options::JsonGate::Feature(_))));
    quote! {
        #[doc = #doc]
        pub mod #module {
            #body
        }
    }
}
