//! `merge_from()`, rendered from the message's decode plan (`model::plan`).
//! Tags are constants. With the inline strategy (speed mode), decoders are
//! shaped for the order encoders write fields in:
//!
//! - A message that holds no messages (a leaf of the recursion) first reads
//!   its fields in number order, each if its tag comes next (a one- or
//!   two-byte compare, no dispatch; a repeated field's run in a loop), then
//!   whatever is left (fields out of order, repeated ones interleaved, unknown
//!   fields) with one `match` on the tag per field.
//! - A message that holds messages has only the `match`, as its arms would
//!   otherwise be emitted twice and debug builds' frames, which nesting
//!   multiplies, would double: each arm checks for the tag expected next (its
//!   own for a repeated field, then the following field's) and goes round the
//!   `match` with it.
//!
//! Without prediction: one `match` per field read. Messages decoded by
//! table (size mode) are `emit::table`'s, which renders their oneof members
//! and map entries with this module's arms.
//!
//! Packable repeated fields accept both encodings; anything else (unknown
//! field numbers, or a known number with another wire type) is kept as
//! unknown, and so are numbers a closed enum does not name.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::strategy::{helper, is_message, keep_method, keeper_ident, keeps_values, spare, value_fn, ValueOp};
use super::tokens::{codec, tag_value};
use crate::model::plan::{self, Read, Target};
use crate::model::{Field, Kind, Message, Shape, Tag};

pub fn body(msg: &Message) -> TokenStream {
    let arms: Vec<Arm> = msg.plan.arms.iter().map(|a| arm(msg, a)).collect();
    let in_order = msg.strategy.inline() && msg.plan.leaf;
    if in_order || !msg.strategy.inline() || !msg.plan.predicts() {
        return in_order_then_dispatch(msg, &arms, in_order);
    }
    predicting_dispatch(msg, &arms)
}

/// Planned arm `a` as a `match` arm whose value is a `Result` (what a
/// table's hooks run).
pub(super) fn result_arm(msg: &Message, a: &plan::Arm) -> TokenStream {
    arm(msg, a).as_result()
}

/// With `in_order`, the fields read in number order while their tags come
/// next; then one `match` per field for the rest.
fn in_order_then_dispatch(msg: &Message, arms: &[Arm], in_order: bool) -> TokenStream {
    let unknown = &msg.unknown_fields;
    let extensions = checked_extensions(msg);
    if arms.is_empty() && extensions.is_empty() {
        // No field: every tag is unknown.
        return quote! {
            while !r.is_empty() {
                let tag = r.read_tag()?;
                r.skip_field(tag, depth, &mut self.#unknown)?;
            }
            ::core::result::Result::Ok(())
        };
    }
    let in_order = arms.iter().filter(|_| in_order).filter_map(Arm::in_order);
    let arms = arms.iter().map(Arm::plain);
    quote! {
        #(#in_order)*
        while !r.is_empty() {
            match r.read_tag()? {
                #(#arms)*
                #extensions
                tag => r.skip_field(tag, depth, &mut self.#unknown)?,
            }
        }
        ::core::result::Result::Ok(())
    }
}

/// One `match` per field read, whose arms check for the tag expected next
/// and go round again with it.
fn predicting_dispatch(msg: &Message, arms: &[Arm]) -> TokenStream {
    if !arms.iter().any(Arm::goes_round) {
        // Nothing to go round for (one field read as a run, say): a plain
        // dispatch, with no loop that never loops.
        return in_order_then_dispatch(msg, arms, false);
    }
    let unknown = &msg.unknown_fields;
    // `tag` changes only where an arm predicts another field.
    let binding = if arms.iter().any(|arm| arm.next.is_some()) {
        quote!(let mut tag)
    } else {
        quote!(let tag)
    };
    let arms = arms.iter().map(Arm::with_prediction);
    let extensions = checked_extensions(msg);
    quote! {
        while !r.is_empty() {
            #binding = r.read_tag()?;
            loop {
                match tag {
                    #(#arms)*
                    #extensions
                    tag => r.skip_field(tag, depth, &mut self.#unknown)?,
                }
                break;
            }
        }
        ::core::result::Result::Ok(())
    }
}

/// Arms that keep the `string` extensions whose UTF-8 the schema checks as
/// unknown bytes, once checked.
fn checked_extensions(msg: &Message) -> TokenStream {
    if msg.checked_extension_tags.is_empty() {
        return TokenStream::new();
    }
    let tags = msg.checked_extension_tags.iter().map(tag_value);
    let unknown = &msg.unknown_fields;
    quote!(#(tag @ #tags => r.skip_checked_utf8(tag, &mut self.#unknown)?,)*)
}

/// The code of one arm of the plan: its tag and the statements that read
/// its value.
struct Arm {
    tag: TokenStream,
    body: TokenStream,
    /// One or two bytes: checked for before a dispatch.
    short: bool,
    /// A repeated field's value: the same tag most likely comes next.
    repeats: bool,
    /// The tag expected after this field, if it is predicted.
    next: Option<TokenStream>,
    /// The arm as one call returning `Result<(), DecodeError>`, if it is one
    /// (`body` is then that call and `?`).
    call: Option<TokenStream>,
}

impl Arm {
    fn new(planned: &plan::Arm, body: TokenStream) -> Self {
        Self {
            tag: tag_value(&planned.tag),
            body,
            short: planned.short(),
            repeats: planned.repeats,
            next: planned.next.as_ref().map(tag_value),
            call: None,
        }
    }

    /// An arm that is one call returning a `Result`.
    fn call(planned: &plan::Arm, call: TokenStream) -> Self {
        Self {
            call: Some(call.clone()),
            ..Self::new(planned, quote!(#call?;))
        }
    }

    /// The read in number order: if the tag comes next (every value of a run
    /// for a repeated field). Longer tags are left to the dispatch.
    fn in_order(&self) -> Option<TokenStream> {
        let Arm { tag, body, .. } = self;
        self.short.then(|| match self.repeats {
            true => quote!(while r.read_tag_if(#tag) { #body }),
            false => quote!(if r.read_tag_if(#tag) { #body }),
        })
    }

    /// Whether the arm goes round the dispatch again, with its own tag or
    /// the next field's ([`Arm::with_prediction`]).
    fn goes_round(&self) -> bool {
        self.next.is_some() || self.checks_own_tag()
    }

    /// A repeated value with a tag short enough to check for: its own tag
    /// most likely comes next.
    fn checks_own_tag(&self) -> bool {
        self.repeats && self.short
    }

    fn plain(&self) -> TokenStream {
        let Arm { tag, body, .. } = self;
        quote!(#tag => { #body })
    }

    /// The arm as a `match` arm whose value is a `Result`.
    fn as_result(&self) -> TokenStream {
        let Arm { tag, body, call, .. } = self;
        match call {
            Some(call) => quote!(#tag => #call,),
            None => quote! {
                #tag => {
                    #body
                    ::core::result::Result::Ok(())
                }
            },
        }
    }

    /// The arm, followed by a check for the tag expected next: its own for a
    /// repeated value, then the following field's.
    fn with_prediction(&self) -> TokenStream {
        let Arm { tag, body, next, .. } = self;
        let again = self
            .checks_own_tag()
            .then(|| quote!(if r.read_tag_if(#tag) { continue; }));
        let next = next.as_ref().map(|next| {
            quote! {
                if r.read_tag_if(#next) {
                    tag = #next;
                    continue;
                }
            }
        });
        quote! {
            #tag => {
                #body
                #again
                #next
            }
        }
    }
}

/// The code of planned arm `a`.
fn arm(msg: &Message, a: &plan::Arm) -> Arm {
    match a.target {
        Target::Field(i) => {
            let f = &msg.fields[i];
            match (a.read, &f.shape) {
                (Read::Value, _) => value(msg, f, a),
                (Read::Packed, Shape::Repeated { kind, .. }) => packed(msg, f, kind, a),
                (Read::Element, Shape::Repeated { kind, .. }) => element(msg, f, kind, a),
                (Read::Entry, Shape::Map { key, value, .. }) => Arm::new(a, map(msg, f, key, value)),
                _ => unreachable!("the plan reads each field as its shape says"),
            }
        }
        Target::Member { oneof, member } => oneof_member(msg, oneof, &msg.oneofs[oneof].members[member], a),
    }
}

/// `read_closed_enum::<E>(r, TAG, &mut self.unknown_fields)?`: `Some(v)` for a named
/// value, `None` after keeping an unnamed one as unknown.
fn closed_enum(msg: &Message, kind: &Kind, tag: &Tag) -> TokenStream {
    let Kind::Enum { path, .. } = kind else {
        unreachable!("only enums are closed")
    };
    let (path, tag, unknown) = (path.relative_to(&msg.scope), tag_value(tag), &msg.unknown_fields);
    quote!(__fastrs::read_closed_enum::<#path>(r, #tag, &mut self.#unknown)?)
}

fn is_closed(kind: &Kind) -> bool {
    matches!(kind, Kind::Enum { closed: true, .. })
}

/// A singular field's value.
fn value(msg: &Message, f: &Field, a: &plan::Arm) -> Arm {
    let (scope, ident) = (&msg.scope, &f.ident);
    let body = match &f.shape {
        Shape::Implicit(kind) | Shape::Optional(kind) if is_closed(kind) => {
            let read = closed_enum(msg, kind, &f.tag);
            let set = match &f.shape {
                Shape::Optional(_) => quote!(::core::option::Option::Some(v)),
                _ => quote!(v),
            };
            quote! {
                if let ::core::option::Option::Some(v) = #read {
                    self.#ident = #set;
                }
            }
        }
        Shape::Implicit(kind) => {
            let merge = value_fn(msg, kind, ValueOp::Merge);
            return Arm::call(a, quote!(#merge(&mut self.#ident, r, depth)));
        }
        Shape::Optional(kind) if !msg.strategy.inline() => {
            let codec = codec(kind, scope);
            let call = quote!(__fastrs::compact::merge_optional::<#codec>(&mut self.#ident, r, depth));
            return Arm::call(a, call);
        }
        Shape::Optional(kind) => {
            let merge = value_fn(msg, kind, ValueOp::Merge);
            let start = if kind.recycles() {
                let spare = spare(msg, kind);
                quote!(|| #spare)
            } else {
                quote!(::core::default::Default::default)
            };
            quote!(#merge(self.#ident.get_or_insert_with(#start), r, depth)?;)
        }
        _ => unreachable!("values are read into singular fields"),
    };
    Arm::new(a, body)
}

/// Reads one map entry and inserts it.
fn map(msg: &Message, f: &Field, key: &Kind, value: &Kind) -> TokenStream {
    let (scope, ident, tag, unknown) = (&msg.scope, &f.ident, tag_value(&f.tag), &msg.unknown_fields);
    let recycle = &msg.recycle;
    let k = codec(key, scope);
    if is_closed(value) {
        let Kind::Enum { path, .. } = value else {
            unreachable!("only enums are closed")
        };
        let e = path.relative_to(scope);
        let reserve = reserve_map(f, &k, &quote!(__fastrs::Int32));
        return quote! {
            #reserve
            if let ::core::option::Option::Some((k, v)) =
                __fastrs::read_map_entry_closed::<#k, #e>(r, depth, #tag, &mut self.#unknown)?
            {
                self.#ident.insert(k, v);
            }
        };
    }
    let v = codec(value, scope);
    let reserve = reserve_map(f, &k, &v);
    if !msg.strategy.inline() || !(key.recycles() || value.recycles()) {
        return quote! {
            #reserve
            let (k, v) = __fastrs::read_map_entry::<#k, #v>(r, depth)?;
            self.#ident.insert(k, v);
        };
    }
    let start = |kind: &Kind| {
        if kind.recycles() {
            spare(msg, kind)
        } else {
            quote!(::core::default::Default::default())
        }
    };
    let (key_start, value_start) = (start(key), start(value));
    // A repeated key replaces the value: keep the old one's allocation.
    let insert = if value.recycles() {
        let keep = keep_method(value);
        quote! {
            if let ::core::option::Option::Some(old) = self.#ident.insert(k, v) {
                self.#recycle.#keep(old);
            }
        }
    } else {
        quote!(self.#ident.insert(k, v);)
    };
    quote! {
        #reserve
        let (k, v) = __fastrs::read_map_entry_into::<#k, #v>(r, depth, #key_start, #value_start)?;
        #insert
    }
}

/// Sizes a fresh hash map for the run of entries about to be read (see
/// `fastrs::__private::reserve_run`); a `BTreeMap` has no capacity.
fn reserve_map(f: &Field, k: &TokenStream, v: &TokenStream) -> TokenStream {
    let Shape::Map { maps, .. } = &f.shape else {
        return TokenStream::new();
    };
    if maps.sorted() {
        return TokenStream::new();
    }
    let (ident, tag) = (&f.ident, tag_value(&f.tag));
    quote! {
        if self.#ident.capacity() == 0 {
            self.#ident.reserve(__fastrs::map_run_length::<#k, #v>(r, #tag));
        }
    }
}

/// A packed run of a repeated field.
fn packed(msg: &Message, f: &Field, kind: &Kind, a: &plan::Arm) -> Arm {
    let (scope, ident) = (&msg.scope, &f.ident);
    if let Kind::Enum { path, closed: true, .. } = kind {
        let (path, unknown, number) = (
            path.relative_to(scope),
            &msg.unknown_fields,
            Literal::u32_unsuffixed(f.number),
        );
        let body = quote!(__fastrs::merge_packed_closed::<#path>(r, &mut self.#ident, #number, &mut self.#unknown)?;);
        return Arm::new(a, body);
    }
    let (codec, merge_packed) = (codec(kind, scope), helper(msg, "merge_packed"));
    Arm::call(a, quote!(#merge_packed::<#codec>(r, &mut self.#ident)))
}

/// One element of a repeated field (and those of its run that follow).
fn element(msg: &Message, f: &Field, kind: &Kind, a: &plan::Arm) -> Arm {
    let (scope, ident) = (&msg.scope, &f.ident);
    let tag = tag_value(&a.tag);
    if !msg.strategy.inline() && !is_closed(kind) {
        let codec = codec(kind, scope);
        let push = quote!(__fastrs::compact::push::<#codec>(&mut self.#ident, r, depth, #tag));
        return Arm::call(a, push);
    }
    if is_message(kind) {
        // The whole run, read into the messages the field kept at `clear()`.
        let (codec, recycle) = (codec(kind, scope), &msg.recycle);
        let run = quote!(__fastrs::merge_message_run::<#codec>(&mut self.#ident, &mut self.#recycle, r, #tag, depth));
        return Arm {
            repeats: false,
            ..Arm::call(a, run)
        };
    }
    let reserve = quote!(__fastrs::reserve_run(&mut self.#ident, r, #tag););
    let push = if is_closed(kind) {
        let read = closed_enum(msg, kind, &a.tag);
        quote! {
            if let ::core::option::Option::Some(v) = #read {
                self.#ident.push(v);
            }
        }
    } else if kind.recycles() {
        let (merge, spare) = (value_fn(msg, kind, ValueOp::Merge), spare(msg, kind));
        quote! {
            let mut v = #spare;
            #merge(&mut v, r, depth)?;
            self.#ident.push(v);
        }
    } else {
        let read = value_fn(msg, kind, ValueOp::Read);
        quote!(self.#ident.push(#read(r, depth)?);)
    };
    Arm::new(a, quote!(#reserve #push))
}

/// A member of oneof `o`. The last member wins; a message member read again
/// while set merges into it.
fn oneof_member(msg: &Message, o: usize, m: &Field, a: &plan::Arm) -> Arm {
    let oneof = &msg.oneofs[o];
    let (ident, module, enum_ident) = (&oneof.field, &msg.module, &oneof.enum_ident);
    {
        let Shape::OneofMember(kind) = &m.shape else {
            unreachable!("oneof members are lowered as OneofMember")
        };
        let variant = &m.ident;
        let (merge, read) = (value_fn(msg, kind, ValueOp::Merge), value_fn(msg, kind, ValueOp::Read));
        let (spare, keeper, recycle) = (spare(msg, kind), keeper_ident(oneof), &msg.recycle);
        // Setting a member: the value it replaces keeps its allocation if it has one.
        let set = |value: TokenStream| {
            if keeps_values(msg, oneof) {
                quote! {
                    let old = self.#ident.replace(#module::#enum_ident::#variant(#value));
                    #module::#keeper(&mut self.#recycle, old);
                }
            } else {
                quote!(self.#ident = ::core::option::Option::Some(#module::#enum_ident::#variant(#value));)
            }
        };
        let set_v = set(quote!(v));
        let body = match kind {
            // The same member again merges into (a message) or reuses (a
            // string) its value; another member starts from a fresh one.
            Kind::String { .. } | Kind::Bytes { shared: false } | Kind::Message { .. } if !msg.strategy.inline() => {
                let set_read = set(quote!(#read(r, depth)?));
                quote! {
                    match &mut self.#ident {
                        ::core::option::Option::Some(#module::#enum_ident::#variant(v)) => {
                            #merge(v, r, depth)?;
                        }
                        _ => {
                            #set_read
                        }
                    }
                }
            }
            // In speed mode, another member starts from a kept one.
            Kind::String { .. } | Kind::Bytes { shared: false } | Kind::Message { .. } => quote! {
                match &mut self.#ident {
                    ::core::option::Option::Some(#module::#enum_ident::#variant(v)) => {
                        #merge(v, r, depth)?;
                    }
                    _ => {
                        let mut v = #spare;
                        #merge(&mut v, r, depth)?;
                        #set_v
                    }
                }
            },
            Kind::Enum { closed: true, .. } => {
                let read = closed_enum(msg, kind, &m.tag);
                quote! {
                    if let ::core::option::Option::Some(v) = #read {
                        #set_v
                    }
                }
            }
            _ => set(quote!(#read(r, depth)?)),
        };
        Arm::new(a, body)
    }
}
