//! `clear()`, which hands the allocations of a message's values to its
//! `Recycler` in inline (speed-mode) messages, and the oneof keepers.

use proc_macro2::TokenStream;
use quote::quote;

use super::strategy::{is_buffer, is_message, keep_method, keeper_ident, keeps_values, kept_member};
use super::tokens::allow_deprecated_members;
use crate::model::{Field, Kind, Message, Oneof, Shape};

/// `clear`: defaults everywhere, keeping the buffers of strings, vectors and
/// maps; the strings, bytes and messages of repeated, optional, oneof and map
/// fields go to the message's recycler, for the next decode to reuse.
pub(super) fn body(msg: &Message) -> TokenStream {
    let (unknown, recycle) = (&msg.unknown_fields, &msg.recycle);
    let fields = msg.fields.iter().map(|f| {
        let ident = &f.ident;
        if !msg.strategy.inline() {
            return plain_clear(f);
        }
        match &f.shape {
            Shape::Repeated { kind, .. } if is_buffer(kind) => quote!(self.#recycle.keep_all(&mut self.#ident);),
            Shape::Repeated {
                kind: Kind::Message { .. },
                ..
            } => quote!(self.#recycle.keep_messages(&mut self.#ident);),
            Shape::Optional(kind) if kind.recycles() => {
                let keep = keep_method(kind);
                quote! {
                    if let ::core::option::Option::Some(v) = self.#ident.take() {
                        self.#recycle.#keep(v);
                    }
                }
            }
            // Buffers on one side only (`map<string, int64>`): kept in one call.
            Shape::Map { key, value, maps } if !is_message(value) && is_buffer(key) != is_buffer(value) => {
                let side = match (is_buffer(key), maps.sorted()) {
                    (true, true) => quote!(::core::mem::take(&mut self.#ident).into_keys()),
                    (false, true) => quote!(::core::mem::take(&mut self.#ident).into_values()),
                    (true, false) => quote!(self.#ident.drain().map(|(k, _)| k)),
                    (false, false) => quote!(self.#ident.drain().map(|(_, v)| v)),
                };
                quote!(self.#recycle.keep_each(#side);)
            }
            Shape::Map { key, value, maps } if is_buffer(key) || is_buffer(value) || is_message(value) => {
                let keep = |kind: &Kind, name: TokenStream| {
                    if kind.recycles() {
                        let keep = keep_method(kind);
                        (quote!(self.#recycle.#keep(#name);), name)
                    } else {
                        (TokenStream::new(), quote!(_))
                    }
                };
                let ((keep_key, k), (keep_value, v)) = (keep(key, quote!(k)), keep(value, quote!(v)));
                // `HashMap::drain` keeps the table; a `BTreeMap` has none to keep.
                let entries = if maps.sorted() {
                    quote!(::core::mem::take(&mut self.#ident))
                } else {
                    quote!(self.#ident.drain())
                };
                quote! {
                    for (#k, #v) in #entries {
                        #keep_key
                        #keep_value
                    }
                }
            }
            _ => plain_clear(f),
        }
    });
    let oneofs = msg.oneofs.iter().map(|o| {
        let ident = &o.field;
        if keeps_values(msg, o) {
            let (module, keeper) = (&msg.module, keeper_ident(o));
            quote!(#module::#keeper(&mut self.#recycle, self.#ident.take());)
        } else {
            quote!(self.#ident = ::core::option::Option::None;)
        }
    });
    quote! {
        #(#fields)*
        #(#oneofs)*
        self.#unknown.clear();
    }
}

/// `clear` of a field that keeps nothing for the next decode (buffers of its
/// own aside).
fn plain_clear(f: &Field) -> TokenStream {
    let ident = &f.ident;
    match &f.shape {
        Shape::Implicit(Kind::String { .. } | Kind::Bytes { .. }) | Shape::Repeated { .. } | Shape::Map { .. } => {
            quote!(self.#ident.clear();)
        }
        Shape::Optional(_) => quote!(self.#ident = ::core::option::Option::None;),
        Shape::Implicit(_) | Shape::OneofMember(_) => quote!(self.#ident = ::core::default::Default::default();),
    }
}

/// The keeper of a oneof with reusable members: hands a replaced or cleared
/// value's allocation to the spares.
pub(super) fn oneof_keeper(msg: &Message, oneof: &Oneof) -> TokenStream {
    if !keeps_values(msg, oneof) {
        return TokenStream::new();
    }
    let (ident, keeper) = (&oneof.enum_ident, keeper_ident(oneof));
    let kept: Vec<(TokenStream, proc_macro2::Ident)> = oneof
        .members
        .iter()
        .filter_map(|m| match &m.shape {
            Shape::OneofMember(kind) if kept_member(msg, oneof, m) => {
                let variant = &m.ident;
                Some((
                    quote!(::core::option::Option::Some(#ident::#variant(v))),
                    keep_method(kind),
                ))
            }
            _ => None,
        })
        .collect();
    let body = match kept.as_slice() {
        [(pattern, keep)] => quote! {
            if let #pattern = old {
                recycle.#keep(v);
            }
        },
        _ => {
            let arms = kept.iter().map(|(pattern, keep)| quote!(#pattern => recycle.#keep(v),));
            quote! {
                match old {
                    #(#arms)*
                    _ => {}
                }
            }
        }
    };
    let allow = allow_deprecated_members(oneof);
    // A table's hooks call it, inline themselves: compiled only by a crate
    // that uses the message.
    let inline = msg.strategy.table().then(|| quote!(#[inline]));
    quote! {
        /// Keeps the allocation of a replaced or cleared value for the next decode.
        #allow
        #inline
        pub(super) fn #keeper(recycle: &mut __fastrs::Recycler, old: ::core::option::Option<#ident>) {
            #body
        }
    }
}
