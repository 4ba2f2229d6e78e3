//! The calls whose shape depends on a message's strategy (the model's
//! `Strategy`, set by its mode): a value's codec inlined or out of line, a
//! repeated field's helper inlined or out of line, a reused buffer or a
//! fresh value, a view's field read inline or out of line. Emitters call
//! these and never look at the mode.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::tokens::{codec, codec_call};
use crate::model::{Field, Kind, Message, Oneof, Recycling, Shape};

/// The function a message's code calls for one value of `kind`: the codec's
/// own `op` (`write_keyed`, `merge`, `read`; inlined), or the runtime's
/// out-of-line `compact::{write, merge, read}`.
pub(super) fn value_fn(msg: &Message, kind: &Kind, op: ValueOp) -> TokenStream {
    let scope = &msg.scope;
    let (inline, compact) = match op {
        ValueOp::Write => (quote!(write_keyed), quote!(write)),
        ValueOp::Merge => (quote!(merge), quote!(merge)),
        ValueOp::Read => (quote!(read), quote!(read)),
    };
    if msg.strategy.inline() {
        let codec = codec_call(kind, scope);
        quote!(#codec::#inline)
    } else {
        let codec = codec(kind, scope);
        quote!(__fastrs::compact::#compact::<#codec>)
    }
}

/// What [`value_fn`] calls for.
#[derive(Clone, Copy)]
pub(super) enum ValueOp {
    Write,
    Merge,
    Read,
}

/// A repeated-field helper of the runtime (`size_packed`, `write_repeated`,
/// ...): the inlinable one, or its out-of-line twin in `compact`.
pub(super) fn helper(msg: &Message, name: &str) -> TokenStream {
    let name = Ident::new(name, Span::call_site());
    if msg.strategy.inline() {
        quote!(__fastrs::#name)
    } else {
        quote!(__fastrs::compact::#name)
    }
}

/// `use ::fastrs::codec::Codec as _;` for a module whose impls call codec
/// methods: one that holds a message with a oneof whose members are not
/// table entries (sized by their codecs), or with a field other than a map
/// (maps go through free functions; empty messages call nothing) that its
/// table does not handle (a chain's sizes its fields by code).
pub(super) fn codec_import(messages: &[Message]) -> TokenStream {
    let by_code = |m: &Message| !m.strategy.table() || m.chain.is_some();
    let calls_codecs = |m: &Message| {
        m.oneofs.iter().any(|o| by_code(m) || !o.members_are_entries())
            || by_code(m)
                && m.fields.iter().any(|f| {
                    !matches!(
                        (&f.shape, m.strategy.inline()),
                        (Shape::Map { .. }, _) | (Shape::Repeated { .. }, false)
                    )
                })
    };
    if messages.iter().any(calls_codecs) {
        quote!(
            use __fastrs::Codec as _;
        )
    } else {
        TokenStream::new()
    }
}

/// True if a cleared (or switched) `oneof` of `msg` keeps the values of
/// some members for reuse ([`kept_member`]).
pub(super) fn keeps_values(msg: &Message, oneof: &Oneof) -> bool {
    oneof.members.iter().any(|m| kept_member(msg, oneof, m))
}

/// True if member `m` of `oneof` keeps its value for reuse: a string,
/// bytes or message in a message that recycles (`Strategy::reuse`); a
/// string or bytes in a table's oneof that keeps them
/// (`Oneof::keeps_buffers_in_table`). A table's message members are not
/// kept: that would compile each type's pool code in every crate that
/// uses the message.
pub(super) fn kept_member(msg: &Message, oneof: &Oneof, m: &Field) -> bool {
    let Shape::OneofMember(kind) = &m.shape else {
        return false;
    };
    if msg.strategy.inline() {
        kind.recycles()
    } else {
        oneof.keeps_buffers_in_table() && is_buffer(kind)
    }
}

/// `keep_<field>`: the function in the message's module that keeps a oneof's
/// old value.
pub(super) fn keeper_ident(oneof: &Oneof) -> Ident {
    let name = format!("keep_{}", oneof.field.to_string().trim_start_matches("r#"));
    Ident::new(&name, Span::call_site())
}

/// True for string and bytes values, whose buffers `clear()` keeps.
pub(super) fn is_buffer(kind: &Kind) -> bool {
    kind.recycling() == Recycling::Buffer
}

/// True for message values, which `clear()` keeps whole.
pub(super) fn is_message(kind: &Kind) -> bool {
    kind.recycling() == Recycling::Message
}

/// `keep` or `keep_message`: how `clear()` hands a value to the recycler.
pub(super) fn keep_method(kind: &Kind) -> Ident {
    let name = if is_message(kind) { "keep_message" } else { "keep" };
    Ident::new(name, Span::call_site())
}

/// `self.<recycle>.spare()` or `.spare_message()`: a kept value for a
/// decoder; a default one for a message that does not recycle.
pub(super) fn spare(msg: &Message, kind: &Kind) -> TokenStream {
    let recycle = &msg.recycle;
    if !msg.strategy.inline() {
        quote!(::core::default::Default::default())
    } else if is_message(kind) {
        quote!(self.#recycle.spare_message())
    } else {
        quote!(self.#recycle.spare())
    }
}

/// How a view reads one value of codec `c` (a `fastrs::view::ViewCodec`):
/// `view::{merge, merge_implicit}` inlined, or their out-of-line copies.
pub(super) fn view_merge_fn(msg: &Message, c: &TokenStream, implicit: bool) -> TokenStream {
    let module = if msg.strategy.inline() {
        quote!(__fastrs::view)
    } else {
        quote!(__fastrs::view::compact)
    };
    if implicit {
        quote!(#module::merge_implicit::<#c>)
    } else {
        quote!(#module::merge::<#c>)
    }
}
