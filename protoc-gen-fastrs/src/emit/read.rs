//! `merge_from()`: one `match` on the tag per field read; tags are constants.
//! Packable repeated fields accept both encodings; anything else (unknown field
//! numbers, or a known number with another wire type) is kept as unknown.

use proc_macro2::TokenStream;
use quote::quote;

use super::{codec, codec_call, tag_value};
use crate::model::{Field, Kind, Message, Oneof, Shape};

pub fn body(msg: &Message) -> TokenStream {
    let fields = msg.fields.iter().map(|f| field(f, &msg.scope));
    let oneofs = msg.oneofs.iter().map(|o| oneof(msg, o));
    let unknown = &msg.unknown_fields;
    quote! {
        while !r.is_empty() {
            match r.read_tag()? {
                #(#fields)*
                #(#oneofs)*
                tag => r.skip_field(tag, depth, &mut self.#unknown)?,
            }
        }
        ::core::result::Result::Ok(())
    }
}

fn field(f: &Field, scope: &[String]) -> TokenStream {
    let ident = &f.ident;
    let tag = tag_value(&f.tag);
    match &f.shape {
        Shape::Implicit(kind) => {
            let codec = codec_call(kind, scope);
            quote!(#tag => #codec::merge(&mut self.#ident, r, depth)?,)
        }
        Shape::Optional(kind) => {
            let codec = codec_call(kind, scope);
            quote! {
                #tag => #codec::merge(
                    self.#ident.get_or_insert_with(::core::default::Default::default),
                    r,
                    depth,
                )?,
            }
        }
        Shape::Repeated { kind, packed, alt_tag } => {
            let (codec, call) = (codec(kind, scope), codec_call(kind, scope));
            let packed_arm = quote!(::fastrs::encoding::merge_packed::<#codec>(r, &mut self.#ident)?);
            let unpacked_arm = quote!(self.#ident.push(#call::read(r, depth)?));
            let (main, alt) = if *packed {
                (packed_arm, unpacked_arm)
            } else {
                (unpacked_arm, packed_arm)
            };
            let alt = alt_tag.as_ref().map(|t| {
                let t = tag_value(t);
                quote!(#t => #alt,)
            });
            quote! {
                #tag => #main,
                #alt
            }
        }
        Shape::Map { key, value } => {
            let (k, v) = (codec(key, scope), codec(value, scope));
            quote! {
                #tag => {
                    let (k, v) = ::fastrs::encoding::read_map_entry::<#k, #v>(r, depth)?;
                    self.#ident.insert(k, v);
                }
            }
        }
        Shape::OneofMember(_) => unreachable!("oneof members are read with their oneof"),
    }
}

/// Last member wins; a message member read again while set merges into it.
fn oneof(msg: &Message, oneof: &Oneof) -> TokenStream {
    let (ident, module, enum_ident) = (&oneof.field, &msg.module, &oneof.enum_ident);
    let arms = oneof.members.iter().map(|m| {
        let Shape::OneofMember(kind) = &m.shape else {
            unreachable!("oneof members are lowered as OneofMember")
        };
        let (variant, codec, tag) = (&m.ident, codec_call(kind, &msg.scope), tag_value(&m.tag));
        let set = quote! {
            self.#ident = ::core::option::Option::Some(#module::#enum_ident::#variant(
                #codec::read(r, depth)?,
            ))
        };
        match kind {
            Kind::Message { .. } => quote! {
                #tag => match &mut self.#ident {
                    ::core::option::Option::Some(#module::#enum_ident::#variant(v)) => {
                        #codec::merge(v, r, depth)?
                    }
                    _ => #set,
                },
            },
            _ => quote!(#tag => #set,),
        }
    });
    quote!(#(#arms)*)
}
