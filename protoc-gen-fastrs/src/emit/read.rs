//! `merge_from()`: one `match` on the tag per field read; tags are constants.
//! Packable repeated fields accept both encodings; anything else (unknown field
//! numbers, or a known number with another wire type) is kept as unknown, and so
//! are numbers a closed enum does not name.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::types::{is_buffer, is_message, keep_method, keeper_ident, keeps_values, spare_call};
use super::{codec, codec_call, tag_value};
use crate::model::{Field, Kind, Message, Oneof, Shape, Tag};

pub fn body(msg: &Message) -> TokenStream {
    let fields = msg.fields.iter().map(|f| field(msg, f));
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

/// `read_closed_enum::<E>(r, TAG, &mut self.unknown_fields)?`: `Some(v)` for a named
/// value, `None` after keeping an unnamed one as unknown.
fn closed_enum(msg: &Message, kind: &Kind, tag: &Tag) -> TokenStream {
    let Kind::Enum { path, .. } = kind else {
        unreachable!("only enums are closed")
    };
    let (path, tag, unknown) = (path.relative_to(&msg.scope), tag_value(tag), &msg.unknown_fields);
    quote!(::fastrs::encoding::read_closed_enum::<#path>(r, #tag, &mut self.#unknown)?)
}

fn is_closed(kind: &Kind) -> bool {
    matches!(kind, Kind::Enum { closed: true, .. })
}

fn field(msg: &Message, f: &Field) -> TokenStream {
    let (scope, ident) = (&msg.scope, &f.ident);
    let tag = tag_value(&f.tag);
    match &f.shape {
        Shape::Implicit(kind) | Shape::Optional(kind) if is_closed(kind) => {
            let read = closed_enum(msg, kind, &f.tag);
            let set = match &f.shape {
                Shape::Optional(_) => quote!(::core::option::Option::Some(v)),
                _ => quote!(v),
            };
            quote! {
                #tag => {
                    if let ::core::option::Option::Some(v) = #read {
                        self.#ident = #set;
                    }
                }
            }
        }
        Shape::Implicit(kind) => {
            let codec = codec_call(kind, scope);
            quote!(#tag => #codec::merge(&mut self.#ident, r, depth)?,)
        }
        Shape::Optional(kind) if is_buffer(kind) || is_message(kind) => {
            let (codec, spare) = (codec_call(kind, scope), spare_call(kind, &msg.unknown_fields));
            quote! {
                #tag => #codec::merge(
                    self.#ident.get_or_insert_with(|| #spare),
                    r,
                    depth,
                )?,
            }
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
        Shape::Repeated { kind, packed, alt_tag } => repeated(msg, f, kind, *packed, alt_tag.as_ref()),
        Shape::Map { key, value, .. } if is_closed(value) => {
            let (k, unknown) = (codec(key, scope), &msg.unknown_fields);
            let Kind::Enum { path, .. } = value else {
                unreachable!("only enums are closed")
            };
            let e = path.relative_to(scope);
            let reserve = reserve_map(f, &k, &quote!(::fastrs::encoding::Int32));
            quote! {
                #tag => {
                    #reserve
                    if let ::core::option::Option::Some((k, v)) =
                        ::fastrs::encoding::read_map_entry_closed::<#k, #e>(r, depth, #tag, &mut self.#unknown)?
                    {
                        self.#ident.insert(k, v);
                    }
                }
            }
        }
        Shape::Map { key, value, .. } if is_buffer(key) || is_buffer(value) || is_message(value) => {
            let (k, v) = (codec(key, scope), codec(value, scope));
            let start = |kind: &Kind| {
                if is_buffer(kind) || is_message(kind) {
                    spare_call(kind, &msg.unknown_fields)
                } else {
                    quote!(::core::default::Default::default())
                }
            };
            let (key_start, value_start) = (start(key), start(value));
            // A repeated key replaces the value: keep the old one's allocation.
            let insert = if is_buffer(value) || is_message(value) {
                let (unknown, keep) = (&msg.unknown_fields, keep_method(value));
                quote! {
                    if let ::core::option::Option::Some(old) = self.#ident.insert(k, v) {
                        self.#unknown.#keep(old);
                    }
                }
            } else {
                quote!(self.#ident.insert(k, v);)
            };
            let reserve = reserve_map(f, &k, &v);
            quote! {
                #tag => {
                    #reserve
                    let (k, v) = ::fastrs::encoding::read_map_entry_into::<#k, #v>(
                        r,
                        depth,
                        #key_start,
                        #value_start,
                    )?;
                    #insert
                }
            }
        }
        Shape::Map { key, value, .. } => {
            let (k, v) = (codec(key, scope), codec(value, scope));
            let reserve = reserve_map(f, &k, &v);
            quote! {
                #tag => {
                    #reserve
                    let (k, v) = ::fastrs::encoding::read_map_entry::<#k, #v>(r, depth)?;
                    self.#ident.insert(k, v);
                }
            }
        }
        Shape::OneofMember(_) => unreachable!("oneof members are read with their oneof"),
    }
}

/// Sizes a fresh hash map for the run of entries about to be read (see
/// `fastrs::encoding::reserve_run`); a `BTreeMap` has no capacity.
fn reserve_map(f: &Field, k: &TokenStream, v: &TokenStream) -> TokenStream {
    let Shape::Map { sorted: false, .. } = f.shape else {
        return TokenStream::new();
    };
    let (ident, tag) = (&f.ident, tag_value(&f.tag));
    quote! {
        if self.#ident.capacity() == 0 {
            self.#ident.reserve(::fastrs::encoding::map_run_length::<#k, #v>(r, #tag));
        }
    }
}

/// Both encodings of a repeated field: the main tag and, for packable types,
/// the other one.
fn repeated(msg: &Message, f: &Field, kind: &Kind, packed: bool, alt_tag: Option<&Tag>) -> TokenStream {
    let (scope, ident) = (&msg.scope, &f.ident);
    let (packed_tag, unpacked_tag) = match (packed, alt_tag) {
        (true, alt) => (Some(&f.tag), alt),
        (false, alt) => (alt, Some(&f.tag)),
    };
    let packed_arm = packed_tag.map(|t| {
        let tag = tag_value(t);
        if is_closed(kind) {
            let Kind::Enum { path, .. } = kind else { unreachable!("only enums are closed") };
            let (path, unknown, number) = (path.relative_to(scope), &msg.unknown_fields, Literal::u32_unsuffixed(f.number));
            quote!(#tag => ::fastrs::encoding::merge_packed_closed::<#path>(r, &mut self.#ident, #number, &mut self.#unknown)?,)
        } else {
            let codec = codec(kind, scope);
            quote!(#tag => ::fastrs::encoding::merge_packed::<#codec>(r, &mut self.#ident)?,)
        }
    });
    let unpacked_arm = unpacked_tag.map(|t| {
        let tag = tag_value(t);
        let reserve = quote!(::fastrs::encoding::reserve_run(&mut self.#ident, r, #tag););
        if is_closed(kind) {
            let read = closed_enum(msg, kind, t);
            quote! {
                #tag => {
                    #reserve
                    if let ::core::option::Option::Some(v) = #read {
                        self.#ident.push(v);
                    }
                }
            }
        } else if is_buffer(kind) || is_message(kind) {
            let (call, spare) = (codec_call(kind, scope), spare_call(kind, &msg.unknown_fields));
            quote! {
                #tag => {
                    #reserve
                    let mut v = #spare;
                    #call::merge(&mut v, r, depth)?;
                    self.#ident.push(v);
                }
            }
        } else {
            let call = codec_call(kind, scope);
            quote! {
                #tag => {
                    #reserve
                    self.#ident.push(#call::read(r, depth)?);
                }
            }
        }
    });
    quote!(#packed_arm #unpacked_arm)
}

/// Last member wins; a message member read again while set merges into it.
fn oneof(msg: &Message, oneof: &Oneof) -> TokenStream {
    let (ident, module, enum_ident) = (&oneof.field, &msg.module, &oneof.enum_ident);
    let arms = oneof.members.iter().map(|m| {
        let Shape::OneofMember(kind) = &m.shape else {
            unreachable!("oneof members are lowered as OneofMember")
        };
        let (variant, codec, tag) = (&m.ident, codec_call(kind, &msg.scope), tag_value(&m.tag));
        let (spare, keeper, unknown) = (
            spare_call(kind, &msg.unknown_fields),
            keeper_ident(oneof),
            &msg.unknown_fields,
        );
        // Setting a member: the value it replaces keeps its allocation if it has one.
        let set = |value: TokenStream| {
            if keeps_values(oneof) {
                quote! {
                    let old = self.#ident.replace(#module::#enum_ident::#variant(#value));
                    #module::#keeper(&mut self.#unknown, old);
                }
            } else {
                quote!(self.#ident = ::core::option::Option::Some(#module::#enum_ident::#variant(#value));)
            }
        };
        let set_v = set(quote!(v));
        match kind {
            // The same member again merges into (a message) or reuses (a
            // string) its value; another member starts from a kept one.
            Kind::String | Kind::Bytes | Kind::Message { .. } => quote! {
                #tag => match &mut self.#ident {
                    ::core::option::Option::Some(#module::#enum_ident::#variant(v)) => {
                        #codec::merge(v, r, depth)?
                    }
                    _ => {
                        let mut v = #spare;
                        #codec::merge(&mut v, r, depth)?;
                        #set_v
                    }
                },
            },
            Kind::Enum { closed: true, .. } => {
                let read = closed_enum(msg, kind, &m.tag);
                quote! {
                    #tag => {
                        if let ::core::option::Option::Some(v) = #read {
                            #set_v
                        }
                    }
                }
            }
            _ => {
                let set = set(quote!(#codec::read(r, depth)?));
                quote!(#tag => { #set })
            }
        }
    });
    quote!(#(#arms)*)
}
