//! `write_backward()`: fields in descending field-number order (so they come out
//! ascending), unknown fields first (so they come out last).

use proc_macro2::TokenStream;
use quote::quote;

use super::{codec, codec_call, is_set, match_oneof_run, tag_bytes};
use crate::model::{Field, Message, Shape, Slot};

pub fn body(msg: &Message) -> TokenStream {
    if msg.chain.is_some() {
        return quote!(::fastrs::__private::chain::write_backward(self, w););
    }
    let unknown = &msg.unknown_fields;
    let slots = slots(msg, &msg.order);
    quote! {
        w.in_registers(|w| {
            self.#unknown.write(w);
            #slots
        });
    }
}

/// `Chain::write_after_link()`: the unknown fields and the fields numbered
/// above the chain's link, backwards.
pub fn after_link(msg: &Message) -> TokenStream {
    let unknown = &msg.unknown_fields;
    let slots = slots(msg, &msg.order[link_slot(msg) + 1..]);
    quote! {
        self.#unknown.write(w);
        #slots
    }
}

/// `Chain::write_before_link()`: the fields numbered below the chain's link,
/// backwards.
pub fn before_link(msg: &Message) -> TokenStream {
    slots(msg, &msg.order[..link_slot(msg)])
}

/// The position of the chain's link in the field order.
fn link_slot(msg: &Message) -> usize {
    let link = msg.chain.expect("only chains have a link");
    msg.order
        .iter()
        .position(|s| *s == Slot::Field(link))
        .expect("the link is a plain field")
}

/// Writes `slots` backwards.
fn slots(msg: &Message, slots: &[Slot]) -> TokenStream {
    slots
        .iter()
        .rev()
        .map(|slot| match slot {
            Slot::Field(i) => field(&msg.fields[*i], &msg.scope),
            Slot::Oneof(o, members) => oneof(msg, *o, members),
        })
        .collect()
}

fn field(f: &Field, scope: &[String]) -> TokenStream {
    let ident = &f.ident;
    let tag = tag_bytes(&f.tag);
    match &f.shape {
        Shape::Implicit(kind) => {
            let codec = codec_call(kind, scope);
            let set = is_set(kind, &quote!(self.#ident));
            quote! {
                if #set {
                    #codec::write_keyed(&self.#ident, #tag, w);
                }
            }
        }
        Shape::Optional(kind) => {
            let codec = codec_call(kind, scope);
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    #codec::write_keyed(v, #tag, w);
                }
            }
        }
        Shape::Repeated { kind, packed: true, .. } => {
            let codec = codec(kind, scope);
            quote!(::fastrs::__private::write_packed::<#codec>(&self.#ident, #tag, w);)
        }
        Shape::Repeated {
            kind, packed: false, ..
        } => {
            let codec = codec(kind, scope);
            quote!(::fastrs::__private::write_repeated::<#codec>(&self.#ident, #tag, w);)
        }
        Shape::Map { key, value, maps } => {
            let (k, v) = (codec(key, scope), codec(value, scope));
            // Written backwards: a sorted map iterates in reverse to come out in
            // ascending key order.
            let iter = if maps.sorted() {
                quote!(self.#ident.iter().rev())
            } else {
                quote!(self.#ident.iter())
            };
            quote!(::fastrs::__private::write_map::<#k, #v>(#iter, #tag, w);)
        }
        Shape::OneofMember(_) => unreachable!("oneof members are written with their oneof"),
    }
}

/// A run of consecutive members of one oneof.
fn oneof(msg: &Message, o: usize, members: &[usize]) -> TokenStream {
    let oneof = &msg.oneofs[o];
    let (ident, module, enum_ident) = (&oneof.field, &msg.module, &oneof.enum_ident);
    let arms = members
        .iter()
        .map(|&m| {
            let m = &oneof.members[m];
            let Shape::OneofMember(kind) = &m.shape else {
                unreachable!("oneof members are lowered as OneofMember")
            };
            let (variant, codec, tag) = (&m.ident, codec_call(kind, &msg.scope), tag_bytes(&m.tag));
            (
                quote!(::core::option::Option::Some(#module::#enum_ident::#variant(v))),
                quote!(#codec::write_keyed(v, #tag, w);),
            )
        })
        .collect();
    match_oneof_run(&quote!(&self.#ident), arms)
}
