//! `size()`: the exact encoded length, one pass, each nested message sized once.

use proc_macro2::TokenStream;
use quote::quote;

use super::strategy::helper;
use super::tokens::{codec, codec_call, is_set, key_len};
use crate::model::{Field, Message, Shape};

pub fn body(msg: &Message) -> TokenStream {
    match msg.chain {
        Some(_) => quote!(__fastrs::chain::size(self)),
        None => sum(msg, None),
    }
}

/// `Chain::rest_size()`: the size without the chain's link field.
pub fn rest(msg: &Message) -> TokenStream {
    sum(msg, msg.chain)
}

/// The size of `self` without the field at index `skip`.
fn sum(msg: &Message, skip: Option<usize>) -> TokenStream {
    let unknown = &msg.unknown_fields;
    let mut fields = msg
        .fields
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != skip)
        .peekable();
    if fields.peek().is_none() && msg.oneofs.is_empty() {
        return quote!(self.#unknown.len());
    }
    let fields = fields.map(|(_, f)| field(msg, f));
    let oneofs = msg.oneofs.iter().map(|o| {
        let ident = &o.field;
        let module = &msg.module;
        let enum_ident = &o.enum_ident;
        let arms = o.members.iter().map(|m| {
            let Shape::OneofMember(kind) = &m.shape else {
                unreachable!("oneof members are lowered as OneofMember")
            };
            let (variant, codec, key_len) = (&m.ident, codec_call(kind, &msg.scope), key_len(&m.tag));
            quote!(#module::#enum_ident::#variant(v) => #key_len + #codec::size(v),)
        });
        quote! {
            if let ::core::option::Option::Some(oneof) = &self.#ident {
                n += match oneof {
                    #(#arms)*
                };
            }
        }
    });
    quote! {
        let mut n = self.#unknown.len();
        #(#fields)*
        #(#oneofs)*
        n
    }
}

fn field(msg: &Message, f: &Field) -> TokenStream {
    let (ident, scope) = (&f.ident, &msg.scope);
    let key_len = key_len(&f.tag);
    match &f.shape {
        Shape::Implicit(kind) => {
            let codec = codec_call(kind, scope);
            let set = is_set(kind, &quote!(self.#ident));
            quote! {
                if #set {
                    n += #key_len + #codec::size(&self.#ident);
                }
            }
        }
        Shape::Optional(kind) => {
            let codec = codec_call(kind, scope);
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    n += #key_len + #codec::size(v);
                }
            }
        }
        Shape::Repeated { kind, packed: true, .. } => {
            let (codec, size_packed) = (codec(kind, scope), helper(msg, "size_packed"));
            quote!(n += #size_packed::<#codec>(&self.#ident, #key_len);)
        }
        Shape::Repeated {
            kind, packed: false, ..
        } => {
            let (codec, size_repeated) = (codec(kind, scope), helper(msg, "size_repeated"));
            quote!(n += #size_repeated::<#codec>(&self.#ident, #key_len);)
        }
        Shape::Map { key, value, .. } => {
            let (k, v) = (codec(key, scope), codec(value, scope));
            quote!(n += __fastrs::size_map::<#k, #v>(self.#ident.iter(), #key_len);)
        }
        Shape::OneofMember(_) => unreachable!("oneof members are sized with their oneof"),
    }
}
