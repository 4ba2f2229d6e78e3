//! `write_backward()`: fields in descending field-number order (so they come out
//! ascending), unknown fields first (so they come out last).

use proc_macro2::TokenStream;
use quote::quote;

use super::strategy::{helper, value_fn, ValueOp};
use super::tokens::{codec, is_set, match_oneof_run, tag_bytes};
use crate::model::{Field, Message, Shape, Slot};

pub fn body(msg: &Message) -> TokenStream {
    if msg.chain.is_some() {
        return quote!(__fastrs::chain::write_backward(self, w););
    }
    let unknown = &msg.unknown_fields;
    let slots = slots(msg, &msg.order);
    // Inlined fields keep the writer in registers; out-of-line ones are
    // calls, which take it by reference anyway.
    if msg.strategy.inline() {
        quote! {
            w.in_registers(|w| {
                self.#unknown.write(w);
                #slots
            });
        }
    } else {
        quote! {
            self.#unknown.write(w);
            #slots
        }
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
            Slot::Field(i) => field(msg, &msg.fields[*i]),
            Slot::Oneof(o, members) => oneof(msg, *o, members),
        })
        .collect()
}

fn field(msg: &Message, f: &Field) -> TokenStream {
    let (ident, scope) = (&f.ident, &msg.scope);
    let tag = tag_bytes(&f.tag);
    match &f.shape {
        Shape::Implicit(kind) => {
            let write = value_fn(msg, kind, ValueOp::Write);
            let set = is_set(kind, &quote!(self.#ident));
            quote! {
                if #set {
                    #write(&self.#ident, #tag, w);
                }
            }
        }
        Shape::Optional(kind) => {
            let write = value_fn(msg, kind, ValueOp::Write);
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    #write(v, #tag, w);
                }
            }
        }
        Shape::Repeated { kind, packed: true, .. } => {
            let (codec, write_packed) = (codec(kind, scope), helper(msg, "write_packed"));
            quote!(#write_packed::<#codec>(&self.#ident, #tag, w);)
        }
        Shape::Repeated {
            kind, packed: false, ..
        } => {
            let (codec, write_repeated) = (codec(kind, scope), helper(msg, "write_repeated"));
            quote!(#write_repeated::<#codec>(&self.#ident, #tag, w);)
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
            quote!(__fastrs::write_map::<#k, #v>(#iter, #tag, w);)
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
            let (variant, write, tag) = (&m.ident, value_fn(msg, kind, ValueOp::Write), tag_bytes(&m.tag));
            (
                quote!(::core::option::Option::Some(#module::#enum_ident::#variant(v))),
                quote!(#write(v, #tag, w);),
            )
        })
        .collect();
    match_oneof_run(&quote!(&self.#ident), arms)
}
