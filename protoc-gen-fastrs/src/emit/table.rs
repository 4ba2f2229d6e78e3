//! The table of a size-mode message: a constant `fastrs` table with one
//! entry per field number, which the runtime's interpreters run for the
//! message's `merge_from`, `size`, `write_backward` and `clear`, and the
//! hooks for what is not a table entry (oneof members and map entries),
//! rendered from the decode plan as `emit::read` renders it.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::read;
use super::strategy::{keeper_ident, keeps_values, kept_member, value_fn, ValueOp};
use super::tokens::{codec, codec_call, key_len, match_oneof_run, tag_bytes, tag_value};
use crate::model::plan::Target;
use crate::model::{Field, Kind, Message, Oneof, Shape, Slot, Tag};

/// Field numbers up to this, or four per entry if more, are found by index;
/// larger ones by binary search.
const MIN_INDEXED: u32 = 32;

/// `impl Tabled`: the message's table, one line per entry in the
/// runtime's `table!` (laid out by `format`), and its hooks if it has
/// oneofs or maps.
pub(super) fn tabled(msg: &Message) -> TokenStream {
    let ty = &msg.ident;
    let hook = |tag: &Tag, how: &str| {
        let (tag, how) = (tag_value(tag), Ident::new(how, proc_macro2::Span::call_site()));
        quote!(#tag => #how;)
    };
    let mut entries: Vec<(u32, TokenStream)> = msg
        .fields
        .iter()
        .map(|f| (f.number, field_entry(msg, f)))
        .chain(oneof_runs(msg).flat_map(|(oneof, run)| {
            let last = run.last().map_or(0, |m| m.number);
            run.into_iter().enumerate().map(move |(i, m)| {
                let entry = if oneof.members_are_entries() {
                    member_entry(msg, oneof, m, (i == 0).then_some(last))
                } else {
                    hook(&m.tag, if i == 0 { "hooked" } else { "hooked_read" })
                };
                (m.number, entry)
            })
        }))
        .chain(
            msg.checked_extension_tags
                .iter()
                .map(|t| (t.value >> 3, hook(t, "checked_utf8"))),
        )
        .collect();
    entries.sort_by_key(|&(number, _)| number);
    let index = by_number(&entries);
    let entries = entries.iter().map(|(_, e)| e);
    let unknown = &msg.unknown_fields;
    let recycle = msg.has_recycler().then(|| {
        let recycle = &msg.recycle;
        quote!(, #recycle)
    });
    let hooks = hooks(msg);
    quote! {
        #[allow(deprecated)]
        impl __fastrs::table::Tabled for #ty {
            __fastrs::table::table! {
                #ty, #unknown #recycle, [#(#index),*];
                #(#entries)*
            }
            #hooks
        }
    }
}

/// The entry index of each field number up to the largest indexed one (0
/// for none: the decoder finds that the first entry's tag differs).
fn by_number(entries: &[(u32, TokenStream)]) -> Vec<Literal> {
    let limit = u32::try_from(entries.len() * 4).unwrap_or(u32::MAX).max(MIN_INDEXED);
    let Some(last) = entries.iter().map(|&(n, _)| n).filter(|&n| n <= limit).max() else {
        return Vec::new();
    };
    let mut index = vec![0u16; last as usize + 1];
    for (i, &(number, _)) in entries.iter().enumerate() {
        if number <= last {
            index[number as usize] = u16::try_from(i).expect("a message has fewer than 65,536 fields");
        }
    }
    index.into_iter().map(Literal::u16_unsuffixed).collect()
}

/// The entry of a field outside oneofs: a map's is read by the message's
/// hooks; any other names the field and how to handle it.
fn field_entry(msg: &Message, f: &Field) -> TokenStream {
    let tag = tag_value(&f.tag);
    let (op, alt) = match &f.shape {
        Shape::Map { .. } => return quote!(#tag => hooked;),
        Shape::Implicit(kind) => (shaped(msg, kind, "Implicit", "ImplicitClosed"), None),
        Shape::Optional(kind) => (shaped(msg, kind, "Optional", "OptionalClosed"), None),
        Shape::Repeated { kind, alt_tag, packed } => {
            let (plain, closed) = match (kind.is_packable(), packed) {
                (false, _) => ("Repeated", "Repeated"),
                (true, true) => ("Packed", "PackedClosed"),
                (true, false) => ("Expanded", "ExpandedClosed"),
            };
            (shaped(msg, kind, plain, closed), alt_tag.as_ref())
        }
        Shape::OneofMember(_) => unreachable!("oneof members are entries of their oneof"),
    };
    let alt = alt.map(|alt| {
        let alt = tag_value(alt);
        quote!(| #alt)
    });
    let ident = &f.ident;
    quote!(#tag #alt #ident: #op;)
}

/// The `fastrs::table::FieldOp` of a field of `kind`: `plain<Codec>`, or
/// `closed<E>` for a closed enum.
fn shaped(msg: &Message, kind: &Kind, plain: &str, closed: &str) -> TokenStream {
    let ident = |name: &str| Ident::new(name, proc_macro2::Span::call_site());
    match kind {
        Kind::Enum { path, closed: true, .. } => {
            let (shape, path) = (ident(closed), path.relative_to(&msg.scope));
            quote!(__fastrs::#shape<#path>)
        }
        Kind::Message {
            path,
            tabled: true,
            boxed,
            ..
        } => {
            let (shape, path) = (ident(plain), path.relative_to(&msg.scope));
            let codec = if *boxed { quote!(TabBox) } else { quote!(Tab) };
            quote!(__fastrs::#shape<__fastrs::#codec<#path>>)
        }
        _ => {
            let (shape, codec) = (ident(plain), codec(kind, &msg.scope));
            quote!(__fastrs::#shape<#codec>)
        }
    }
}

/// The entry of oneof member `m`: its tag, the oneof's field and the
/// member's variant, and how its value is handled; on the first member of
/// a run, the run's `last` field number; for a member whose value the
/// oneof keeps, the recycler its value is taken from.
fn member_entry(msg: &Message, oneof: &Oneof, m: &Field, last: Option<u32>) -> TokenStream {
    let Shape::OneofMember(kind) = &m.shape else {
        unreachable!("oneof members are lowered as OneofMember")
    };
    let tag = tag_value(&m.tag);
    let last = last.map(|n| {
        let n = Literal::u32_unsuffixed(n);
        quote!(..= #n)
    });
    let (field, module, enum_ident, variant) = (&oneof.field, &msg.module, &oneof.enum_ident, &m.ident);
    let op = shaped(msg, kind, "Member", "Member");
    let kept = kept_member(msg, oneof, m).then(|| {
        let recycle = &msg.recycle;
        quote!(, #recycle)
    });
    quote!(#tag #last #field = #module::#enum_ident::#variant: #op #kept;)
}

/// The hooks of `impl Tabled`: how the message reads, sizes, writes and
/// clears its map entries and the oneof members that are not entries, and
/// which member each oneof whose members are entries holds. Each is
/// `#[inline]`: like the table that names it, it is compiled only by a
/// crate that uses the message.
fn hooks(msg: &Message) -> TokenStream {
    let hooked = |a: &&crate::model::plan::Arm| match a.target {
        Target::Member { oneof, .. } => !msg.oneofs[oneof].members_are_entries(),
        Target::Field(i) => matches!(msg.fields[i].shape, Shape::Map { .. }),
    };
    let arms: Vec<TokenStream> = msg
        .plan
        .arms
        .iter()
        .filter(hooked)
        .map(|a| read::result_arm(msg, a))
        .collect();
    let unknown = &msg.unknown_fields;
    let hooked = hooked_fields(msg);
    let merge = (!arms.is_empty()).then(|| {
        quote! {
            #[inline]
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
    });
    let written: Vec<&Hooked> = hooked.iter().filter(|h| h.size.is_some()).collect();
    let size_write = (!written.is_empty()).then(|| {
        let size = written.iter().map(|h| {
            let (tag, size) = (&h.tag, &h.size);
            quote!(#tag => #size,)
        });
        let write = on_tag(written.iter().filter_map(|h| Some((&h.tag, h.write.as_ref()?))));
        quote! {
            #[inline]
            fn size_hooked(&self, tag: u32) -> usize {
                match tag {
                    #(#size)*
                    _ => 0,
                }
            }

            #[inline]
            fn write_hooked(&self, tag: u32, w: &mut ::fastrs::Writer<'_>) {
                #write
            }
        }
    });
    let clear = (!hooked.is_empty()).then(|| {
        let clear = on_tag(hooked.iter().map(|h| (&h.tag, &h.clear)));
        quote! {
            #[inline]
            fn clear_hooked(&mut self, tag: u32) {
                #clear
            }
        }
    });
    let which = which_member(msg);
    quote!(#merge #size_write #clear #which)
}

/// `which_member`, if a oneof's members are entries: the tag of the member
/// the oneof of the run starting at `tag` holds.
fn which_member(msg: &Message) -> Option<TokenStream> {
    let module = &msg.module;
    let oneofs: Vec<(Vec<TokenStream>, TokenStream)> = msg
        .oneofs
        .iter()
        .enumerate()
        .filter(|(_, o)| o.members_are_entries())
        .map(|(i, o)| {
            let (field, enum_ident) = (&o.field, &o.enum_ident);
            let arms = o.members.iter().map(|m| {
                let (variant, tag) = (&m.ident, tag_value(&m.tag));
                quote!(::core::option::Option::Some(#module::#enum_ident::#variant(_)) => #tag,)
            });
            let which = quote! {
                match &self.#field {
                    #(#arms)*
                    ::core::option::Option::None => 0,
                }
            };
            (run_starts(msg, i), which)
        })
        .collect();
    let body = match &oneofs[..] {
        [] => return None,
        // One such oneof: every run that asks is one of its runs.
        [(_, which)] => quote!(#which),
        _ => {
            let arms = oneofs.iter().map(|(starts, which)| quote!(#(#starts)|* => #which,));
            quote! {
                match tag {
                    #(#arms)*
                    _ => 0,
                }
            }
        }
    };
    let tag = if oneofs.len() == 1 { quote!(_tag) } else { quote!(tag) };
    Some(quote! {
        #[inline]
        fn which_member(&self, #tag: u32) -> u32 {
            #body
        }
    })
}

/// The tags of the first members of the runs of `msg.oneofs[oneof]`.
fn run_starts(msg: &Message, oneof: usize) -> Vec<TokenStream> {
    msg.order
        .iter()
        .filter_map(|slot| match slot {
            Slot::Oneof(o, members) if *o == oneof => Some(tag_value(&msg.oneofs[oneof].members[members[0]].tag)),
            _ => None,
        })
        .collect()
}

/// Runs the statement of `tag`'s arm: an `if` for one arm, else a `match`.
fn on_tag<'a>(arms: impl Iterator<Item = (&'a TokenStream, &'a TokenStream)>) -> TokenStream {
    let arms: Vec<_> = arms.collect();
    if let [(tag, body)] = arms[..] {
        return quote! {
            if tag == #tag {
                #body
            }
        };
    }
    let arms = arms.iter().map(|(tag, body)| quote!(#tag => { #body }));
    quote! {
        match tag {
            #(#arms)*
            _ => {}
        }
    }
}

/// A field the hooks handle: its tag, and how its value is sized (an
/// expression), written and cleared (statements); a run of oneof members
/// that are entries is only cleared by the hooks.
struct Hooked {
    tag: TokenStream,
    size: Option<TokenStream>,
    write: Option<TokenStream>,
    clear: TokenStream,
}

/// The maps and oneof members of `msg`, each as [`Hooked`].
fn hooked_fields(msg: &Message) -> Vec<Hooked> {
    let scope = &msg.scope;
    let maps = msg.fields.iter().filter_map(|f| {
        let Shape::Map { key, value, maps } = &f.shape else {
            return None;
        };
        let (ident, k, v) = (&f.ident, codec(key, scope), codec(value, scope));
        let (key_len, bytes) = (key_len(&f.tag), tag_bytes(&f.tag));
        // Written backwards: a sorted map iterates in reverse to come out in
        // ascending key order.
        let iter = if maps.sorted() {
            quote!(self.#ident.iter().rev())
        } else {
            quote!(self.#ident.iter())
        };
        Some(Hooked {
            tag: tag_value(&f.tag),
            size: Some(quote!(__fastrs::size_map::<#k, #v>(self.#ident.iter(), #key_len))),
            write: Some(quote!(__fastrs::write_map::<#k, #v>(#iter, #bytes, w);)),
            clear: quote!(self.#ident.clear();),
        })
    });
    // Each run of oneof members is sized, written and cleared at its
    // first member's entry.
    let runs = msg.order.iter().filter_map(|slot| {
        let Slot::Oneof(o, members) = slot else {
            return None;
        };
        let oneof = &msg.oneofs[*o];
        let (ident, module, enum_ident) = (&oneof.field, &msg.module, &oneof.enum_ident);
        let tag = tag_value(&oneof.members[members[0]].tag);
        let clear = if keeps_values(msg, oneof) {
            let (keeper, recycle) = (keeper_ident(oneof), &msg.recycle);
            quote!(#module::#keeper(&mut self.#recycle, self.#ident.take());)
        } else {
            quote!(self.#ident = ::core::option::Option::None;)
        };
        if oneof.members_are_entries() {
            return Some(Hooked {
                tag,
                size: None,
                write: None,
                clear,
            });
        }
        let arms: Vec<_> = members
            .iter()
            .map(|&m| {
                let m = &oneof.members[m];
                let Shape::OneofMember(kind) = &m.shape else {
                    unreachable!("oneof members are lowered as OneofMember")
                };
                let variant = &m.ident;
                let pattern = quote!(::core::option::Option::Some(#module::#enum_ident::#variant(v)));
                let (size, write) = (codec_call(kind, scope), value_fn(msg, kind, ValueOp::Write));
                let (key_len, bytes) = (key_len(&m.tag), tag_bytes(&m.tag));
                (
                    quote!(#pattern => #key_len + #size::size(v),),
                    (pattern, quote!(#write(v, #bytes, w);)),
                )
            })
            .collect();
        let (sizes, writes): (Vec<_>, Vec<_>) = arms.into_iter().unzip();
        Some(Hooked {
            tag,
            size: Some(quote! {
                match &self.#ident {
                    #(#sizes)*
                    _ => 0,
                }
            }),
            write: Some(match_oneof_run(&quote!(&self.#ident), writes)),
            clear,
        })
    });
    maps.chain(runs).collect()
}

/// The runs of oneof members of `msg`, each with its oneof: members of one
/// oneof, by number, with no other field between them.
fn oneof_runs(msg: &Message) -> impl Iterator<Item = (&Oneof, Vec<&Field>)> {
    msg.order.iter().filter_map(|slot| match slot {
        Slot::Oneof(o, members) => {
            let oneof = &msg.oneofs[*o];
            Some((oneof, members.iter().map(|&m| &oneof.members[m]).collect()))
        }
        Slot::Field(_) => None,
    })
}
