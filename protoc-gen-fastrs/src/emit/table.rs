//! `merge_from()` of a message decoded by table (size mode): a static
//! `fastrs` decode table with one entry per field number, which the
//! runtime's one interpreter runs, and `Hooks` for what is not a table
//! entry (oneof members and map entries), rendered from the decode plan as
//! `emit::read` renders it.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::read;
use super::tokens::{codec, tag_value};
use crate::model::plan::Target;
use crate::model::{Field, Kind, Message, Shape};

/// Field numbers up to this, or four per entry if more, are found by index;
/// larger ones by binary search.
const MIN_INDEXED: u32 = 32;

/// The body of `merge_from`: the table, and the call that runs it.
pub(super) fn merge_body(msg: &Message) -> TokenStream {
    let ty = &msg.ident;
    let mut entries: Vec<(u32, TokenStream)> = msg
        .fields
        .iter()
        .map(|f| (f.number, field_entry(msg, f)))
        .chain(msg.oneofs.iter().flat_map(|o| &o.members).map(|m| {
            let tag = tag_value(&m.tag);
            (m.number, quote!(__fastrs::table::Entry::hooked(#tag)))
        }))
        .chain(msg.checked_extension_tags.iter().map(|t| {
            let tag = tag_value(t);
            (t.value >> 3, quote!(__fastrs::table::Entry::checked_utf8(#tag)))
        }))
        .collect();
    entries.sort_by_key(|&(number, _)| number);
    let index = by_number(&entries);
    let count = Literal::usize_unsuffixed(entries.len());
    let entries = entries.iter().map(|(_, e)| e);
    let unknown = &msg.unknown_fields;
    quote! {
        static TABLE: __fastrs::table::Table<#ty, #count> = __fastrs::table::Table::new(
            [#(#entries),*],
            &[#(#index),*],
            ::fastrs::table_field!(#ty, #unknown),
        );
        __fastrs::table::merge(self, &TABLE, r, depth)
    }
}

/// The entry index (plus one, 0 for none) of each field number up to the
/// largest indexed one.
fn by_number(entries: &[(u32, TokenStream)]) -> Vec<Literal> {
    let limit = u32::try_from(entries.len() * 4).unwrap_or(u32::MAX).max(MIN_INDEXED);
    let Some(last) = entries.iter().map(|&(n, _)| n).filter(|&n| n <= limit).max() else {
        return Vec::new();
    };
    let mut index = vec![0u16; last as usize + 1];
    for (i, &(number, _)) in entries.iter().enumerate() {
        if number <= last {
            index[number as usize] = u16::try_from(i + 1).expect("a message has fewer than 65535 fields");
        }
    }
    index.into_iter().map(Literal::u16_unsuffixed).collect()
}

/// The entry of a field outside oneofs: a map's is read by the message's
/// hooks; any other names the field and how to read it.
fn field_entry(msg: &Message, f: &Field) -> TokenStream {
    let tag = tag_value(&f.tag);
    let (op, alt) = match &f.shape {
        Shape::Map { .. } => return quote!(__fastrs::table::Entry::hooked(#tag)),
        Shape::Implicit(kind) => (shaped(msg, kind, "Implicit", "ImplicitClosed"), None),
        Shape::Optional(kind) => (shaped(msg, kind, "Optional", "OptionalClosed"), None),
        Shape::Repeated { kind, alt_tag, .. } => {
            let plain = if kind.is_packable() { "Packable" } else { "Repeated" };
            (shaped(msg, kind, plain, "RepeatedClosed"), alt_tag.as_ref())
        }
        Shape::OneofMember(_) => unreachable!("oneof members are entries of their oneof"),
    };
    let alt = alt.map_or_else(|| quote!(0), tag_value);
    let (ty, ident) = (&msg.ident, &f.ident);
    quote!(__fastrs::table::Entry::new::<#op>(#tag, #alt, ::fastrs::table_field!(#ty, #ident)))
}

/// The `fastrs::table::FieldOp` of a field of `kind`: `plain<Codec>`, or
/// `closed<E>` for a closed enum.
fn shaped(msg: &Message, kind: &Kind, plain: &str, closed: &str) -> TokenStream {
    let ident = |name: &str| Ident::new(name, proc_macro2::Span::call_site());
    match kind {
        Kind::Enum { path, closed: true, .. } => {
            let (shape, path) = (ident(closed), path.relative_to(&msg.scope));
            quote!(__fastrs::table::#shape<#path>)
        }
        _ => {
            let (shape, codec) = (ident(plain), codec(kind, &msg.scope));
            quote!(__fastrs::table::#shape<#codec>)
        }
    }
}

/// `impl Hooks`: how the message reads its oneof members and map entries,
/// if it has any.
pub(super) fn hooks(msg: &Message) -> TokenStream {
    let hooked = |a: &&crate::model::plan::Arm| match a.target {
        Target::Member { .. } => true,
        Target::Field(i) => matches!(msg.fields[i].shape, Shape::Map { .. }),
    };
    let arms: Vec<TokenStream> = msg
        .plan
        .arms
        .iter()
        .filter(hooked)
        .map(|a| read::result_arm(msg, a))
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    let (ty, unknown) = (&msg.ident, &msg.unknown_fields);
    quote! {
        #[allow(deprecated)]
        impl __fastrs::table::Hooks for #ty {
            fn merge_hooked(
                &mut self,
                r: &mut ::fastrs::Reader<'_>,
                depth: u32,
                tag: u32,
            ) -> ::core::result::Result<(), ::fastrs::DecodeError> {
                match tag {
                    #(#arms)*
                    tag => r.skip_field(tag, depth, &mut self.#unknown),
                }
            }
        }
    }
}
