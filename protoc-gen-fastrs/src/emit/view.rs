//! Zero-copy views (`views=true`): for each message `Foo`, a `FooView<'a>`
//! struct whose fields borrow from the input, its `fastrs::View` impl (one
//! `match` per record, each arm a call into `fastrs::view`), and an enum of
//! views per oneof, in the message's module.
//!
//! Encoding, `to_owned` and unknown fields need no code per message: a view
//! keeps the bytes it was read from (see `fastrs::view`).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::strategy::view_merge_fn;
use super::tokens::{allow_variant_names, doc_attrs, hex, missing_required, public_codec, rust_type, tag_value};
use crate::model::names::unique_field_ident;
use crate::model::plan::{self, Read, Target};
use crate::model::{Field, Kind, Message, Oneof, Shape, TypePath};

/// The view of `msg`, if views are asked for.
pub fn message(msg: &Message) -> TokenStream {
    if !msg.views {
        return TokenStream::new();
    }
    let (ident, view) = (&msg.ident, &msg.view_ident);
    let doc = format!(
        " A zero-copy view of [`{ident}`]: read in place, borrowing strings, bytes and repeated fields from the input (see `fastrs::view`)."
    );
    let source = source_ident(msg);
    let members = msg.fields.iter().map(|f| member(msg, f));
    let oneofs = msg.oneofs.iter().map(|o| oneof_member(msg, o));
    let arms: Vec<Arm> = msg.plan.arms.iter().map(|a| arm(msg, a)).collect();
    let in_order = in_order(msg, &arms);
    let arms = arms.iter().map(|a| {
        let (tag, body) = (tag_value(&a.planned.tag), &a.body);
        quote!(#tag => { #body })
    });
    let extensions = msg.checked_extension_tags.iter().map(tag_value);
    let known = known_tags(msg);
    let checks_required = check_required(msg);
    // Repeated fields and maps note where their records are in the chunk.
    let spans = msg
        .fields
        .iter()
        .any(|f| matches!(f.shape, Shape::Repeated { .. } | Shape::Map { .. }));
    let (add_source, left) = if spans {
        (
            quote!(let chunk = __fastrs::view::add_source(&mut self.#source, r.rest());),
            quote!(let left = r.rest().len();),
        )
    } else {
        (
            quote!(__fastrs::view::add_source(&mut self.#source, r.rest());),
            TokenStream::new(),
        )
    };
    quote! {
        #[doc = #doc]
        #[allow(deprecated)]
        #[derive(Clone, Debug, Default)]
        pub struct #view<'a> {
            #(#members)*
            #(#oneofs)*
            #source: __fastrs::view::Source<'a>,
        }

        #[allow(deprecated)]
        impl<'a> ::fastrs::View<'a> for #view<'a> {
            type Message = #ident;
            const KNOWN_TAGS: &'static [u32] = &[#(#known),*];
            #checks_required

            fn merge_chunk(
                &mut self,
                r: &mut ::fastrs::Reader<'a>,
                depth: u32,
            ) -> ::core::result::Result<(), ::fastrs::DecodeError> {
                #add_source
                #in_order
                while !r.is_empty() {
                    #left
                    match r.read_tag()? {
                        #(#arms)*
                        #(#extensions => __fastrs::view::check_str(r)?,)*
                        tag => r.skip_value(tag, depth)?,
                    }
                }
                ::core::result::Result::Ok(())
            }

            fn source(&self) -> &__fastrs::view::Source<'a> {
                &self.#source
            }
        }

        ::fastrs::__view_impls!(#ident, #view);
    }
}

/// `check_required`, for views of messages that can hold `required` fields:
/// the owned message's check, read off the view where what it checks is held
/// in it (set fields, singular messages read inline). A repeated, map or
/// lazy field that needs the check converts the view to its message
/// instead: iterating re-reads each item and all it holds, which nested
/// levels would repeat, while one conversion reads every byte once.
fn check_required(msg: &Message) -> TokenStream {
    if !msg.checks_required {
        return TokenStream::new();
    }
    let members = msg.oneofs.iter().flat_map(|o| o.members.iter());
    let converts = msg.fields.iter().chain(members).any(|f| match &f.shape {
        Shape::Optional(kind) | Shape::OneofMember(kind) => kind.checks_required() && is_boxed(kind),
        Shape::Repeated { kind, .. } => kind.checks_required(),
        Shape::Map { value, .. } => value.checks_required(),
        Shape::Implicit(_) => false,
    });
    let body = if converts {
        quote!(::fastrs::Message::check_required(&::fastrs::View::to_message(self)))
    } else {
        let fields = msg.fields.iter().map(required_field);
        let oneofs = msg.oneofs.iter().flat_map(|o| {
            o.members
                .iter()
                .filter(|m| matches!(&m.shape, Shape::OneofMember(k) if k.checks_required()))
                .map(move |m| {
                    let (ident, module, ty, variant) = (&o.field, &msg.module, &o.view_ident, &m.ident);
                    quote! {
                        if let ::core::option::Option::Some(#module::#ty::#variant(v)) = &self.#ident {
                            ::fastrs::View::check_required(v)?;
                        }
                    }
                })
        });
        quote! {
            #(#fields)*
            #(#oneofs)*
            ::core::result::Result::Ok(())
        }
    };
    quote! {
        fn check_required(&self) -> ::core::result::Result<(), ::fastrs::DecodeError> {
            #body
        }
    }
}

/// The check of field `f` (not repeated, not lazy): set if `required`, and
/// the message it holds checked.
fn required_field(f: &Field) -> TokenStream {
    let (ident, missing) = (&f.ident, missing_required(f));
    let nested = match &f.shape {
        Shape::Optional(kind) if kind.checks_required() => quote! {
            if let ::core::option::Option::Some(v) = &self.#ident {
                ::fastrs::View::check_required(v)?;
            }
        },
        _ => TokenStream::new(),
    };
    quote!(#missing #nested)
}

/// The oneof view enums of `msg`, for its module.
pub fn oneof_enums(msg: &Message, scope: &[String]) -> TokenStream {
    if !msg.views {
        return TokenStream::new();
    }
    let enums = msg.oneofs.iter().map(|o| {
        let (ident, lifetime) = (&o.view_ident, oneof_lifetime(o));
        let doc = format!(" A zero-copy view of [`{}`].", o.enum_ident);
        let variants = o.members.iter().map(|m| {
            let Shape::OneofMember(kind) = &m.shape else {
                unreachable!("oneof members are lowered as OneofMember")
            };
            let (variant, doc, ty) = (&m.ident, doc_attrs(&m.doc), item_type(kind, scope));
            quote!(#doc #variant(#ty),)
        });
        let members: Vec<&Ident> = o.members.iter().map(|m| &m.ident).collect();
        let allow_names = allow_variant_names(ident, &members);
        quote! {
            #[doc = #doc]
            #[allow(deprecated)]
            #allow_names
            #[derive(Clone, Debug)]
            pub enum #ident #lifetime {
                #(#variants)*
            }
        }
    });
    quote!(#(#enums)*)
}

/// The view's hidden field holding its source bytes.
fn source_ident(msg: &Message) -> Ident {
    let taken = msg
        .fields
        .iter()
        .map(|f| &f.ident)
        .chain(msg.oneofs.iter().map(|o| &o.field));
    unique_field_ident("_source", taken)
}

fn member(msg: &Message, f: &Field) -> TokenStream {
    let (ident, doc) = (&f.ident, doc_attrs(&f.doc));
    let ty = match &f.shape {
        Shape::Implicit(kind) => item_type(kind, &msg.scope),
        Shape::Optional(kind) => {
            let item = item_type(kind, &msg.scope);
            quote!(::core::option::Option<#item>)
        }
        Shape::Repeated { kind, .. } => {
            let c = view_codec(kind, &msg.scope, false);
            quote!(::fastrs::view::Repeated<'a, #c>)
        }
        Shape::Map { key, value, .. } => {
            let (k, v) = (view_codec(key, &msg.scope, false), view_codec(value, &msg.scope, false));
            quote!(::fastrs::view::Map<'a, #k, #v>)
        }
        Shape::OneofMember(_) => unreachable!("oneof members are held by their oneof"),
    };
    quote!(#doc pub #ident: #ty,)
}

fn oneof_member(msg: &Message, o: &Oneof) -> TokenStream {
    let (ident, doc, module) = (&o.field, doc_attrs(&o.doc), &msg.module);
    let (ty, lifetime) = (&o.view_ident, oneof_lifetime(o));
    quote!(#doc pub #ident: ::core::option::Option<#module::#ty #lifetime>,)
}

/// What a view holds for one value of `kind`.
fn item_type(kind: &Kind, scope: &[String]) -> TokenStream {
    match kind {
        Kind::String { checked: true } => quote!(&'a str),
        Kind::String { checked: false } | Kind::Bytes { .. } => quote!(&'a [u8]),
        Kind::Message { view, boxed: true, .. } => {
            let view = view_type(view, scope);
            quote!(::fastrs::view::Lazy<'a, #view>)
        }
        Kind::Message { view, .. } => view_type(view, scope),
        _ => rust_type(kind, scope),
    }
}

/// The view type at `view` (`BarView<'a>` beside `Bar`, wherever `Bar` is
/// generated: `::fastrs::well_known::TimestampView<'a>`). Named, not
/// projected through `fastrs::HasView`: a projection would make the view
/// invariant in `'a`.
fn view_type(view: &TypePath, scope: &[String]) -> TokenStream {
    let path = view.relative_to(scope);
    quote!(#path<'a>)
}

/// True if a view of `kind` borrows from the input.
fn borrows(kind: &Kind) -> bool {
    matches!(kind, Kind::String { .. } | Kind::Bytes { .. } | Kind::Message { .. })
}

/// `<'a>` for a oneof view enum whose members borrow, else nothing.
fn oneof_lifetime(o: &Oneof) -> TokenStream {
    let borrows = o
        .members
        .iter()
        .any(|m| matches!(&m.shape, Shape::OneofMember(kind) if borrows(kind)));
    if borrows {
        quote!(<'a>)
    } else {
        TokenStream::new()
    }
}

/// The `fastrs::view::ViewCodec` of `kind`: the runtime's codec for scalars,
/// strings and enums, a view codec for messages (lazy where `lazy`).
pub(super) fn view_codec(kind: &Kind, scope: &[String], lazy: bool) -> TokenStream {
    let Kind::Message { view, group, .. } = kind else {
        return public_codec(kind, scope);
    };
    let view = view_type(view, scope);
    match (group, lazy) {
        (None, false) => quote!(::fastrs::view::MsgView<#view>),
        (None, true) => quote!(::fastrs::view::LazyMsg<#view>),
        (Some(n), false) => {
            let n = Literal::u32_unsuffixed(*n);
            quote!(::fastrs::view::GroupView<#view, #n>)
        }
        (Some(n), true) => {
            let n = Literal::u32_unsuffixed(*n);
            quote!(::fastrs::view::LazyGroup<#view, #n>)
        }
    }
}

fn is_boxed(kind: &Kind) -> bool {
    matches!(kind, Kind::Message { boxed: true, .. })
}

/// The reading of one planned tag: a statement over `self`, `r`, `depth`
/// (and, for repeated fields and maps, `chunk` and `left`, the bytes left
/// before the tag).
struct Arm<'p> {
    planned: &'p plan::Arm,
    body: TokenStream,
}

/// The code of planned arm `a`.
fn arm<'p>(msg: &Message, a: &'p plan::Arm) -> Arm<'p> {
    let body = match a.target {
        Target::Field(i) => {
            let f = &msg.fields[i];
            let ident = &f.ident;
            match (a.read, &f.shape) {
                (Read::Value, Shape::Implicit(kind)) => {
                    let merge = view_merge_fn(msg, &view_codec(kind, &msg.scope, is_boxed(kind)), true);
                    quote!(#merge(&mut self.#ident, r, depth)?;)
                }
                (Read::Value, Shape::Optional(kind)) => {
                    let merge = view_merge_fn(msg, &view_codec(kind, &msg.scope, is_boxed(kind)), false);
                    quote!(#merge(&mut self.#ident, r, depth)?;)
                }
                (Read::Packed | Read::Element | Read::Entry, _) => {
                    let tag = tag_value(&a.tag);
                    quote!(__fastrs::view::push(&mut self.#ident, chunk, left, r, #tag, depth)?;)
                }
                _ => unreachable!("the plan reads each field as its shape says"),
            }
        }
        Target::Member { oneof, member } => {
            let o = &msg.oneofs[oneof];
            member_arm(msg, o, &o.members[member])
        }
    };
    Arm { planned: a, body }
}

/// A member of oneof `o`: the last member read wins; a message member read
/// again while set merges into it.
fn member_arm(msg: &Message, o: &Oneof, m: &Field) -> TokenStream {
    let (field, module, ty) = (&o.field, &msg.module, &o.view_ident);
    let Shape::OneofMember(kind) = &m.shape else {
        unreachable!("oneof members are lowered as OneofMember")
    };
    let variant = &m.ident;
    if matches!(kind, Kind::Message { .. }) {
        // The same member again merges into its view; another starts afresh.
        let merge = view_merge_fn(msg, &view_codec(kind, &msg.scope, is_boxed(kind)), false);
        quote! {
            let mut v = match self.#field.take() {
                ::core::option::Option::Some(#module::#ty::#variant(v)) => ::core::option::Option::Some(v),
                _ => ::core::option::Option::None,
            };
            #merge(&mut v, r, depth)?;
            self.#field = v.map(#module::#ty::#variant);
        }
    } else if !msg.strategy.inline() {
        let c = view_codec(kind, &msg.scope, false);
        quote! {
            if let ::core::option::Option::Some(v) = __fastrs::view::compact::merge_value::<#c>(r, depth)? {
                self.#field = ::core::option::Option::Some(#module::#ty::#variant(v));
            }
        }
    } else {
        let c = view_codec(kind, &msg.scope, false);
        quote! {
            __fastrs::view::merge_member::<#c, _>(&mut self.#field, r, depth, #module::#ty::#variant)?;
        }
    }
}

/// With the inline strategy, for a message that holds no messages (a
/// leaf of the recursion, as in `read`): its fields read in number order
/// while their tags come next, a one- or two-byte compare each instead of a
/// tag decode and a dispatch.
fn in_order(msg: &Message, arms: &[Arm<'_>]) -> TokenStream {
    if !msg.strategy.inline() || !msg.plan.leaf {
        return TokenStream::new();
    }
    let reads = arms.iter().filter(|a| a.planned.short()).map(|a| {
        let (tag, body) = (tag_value(&a.planned.tag), &a.body);
        // A repeated field's or map's records (packed runs too) note where
        // they are: `left`, before each tag.
        if a.planned.read != Read::Value {
            quote! {
                loop {
                    let left = r.rest().len();
                    if !r.read_tag_if(#tag) {
                        break;
                    }
                    #body
                }
            }
        } else {
            quote! {
                if r.read_tag_if(#tag) {
                    #body
                }
            }
        }
    });
    quote!(#(#reads)*)
}

/// Every tag the view reads, sorted: the others are unknown fields.
fn known_tags(msg: &Message) -> Vec<TokenStream> {
    let mut tags: Vec<u32> = Vec::new();
    for f in msg.fields.iter().chain(msg.oneofs.iter().flat_map(|o| &o.members)) {
        tags.push(f.tag.value);
        if let Shape::Repeated { alt_tag: Some(alt), .. } = &f.shape {
            tags.push(alt.value);
        }
    }
    tags.sort_unstable();
    tags.dedup();
    tags.into_iter().map(|t| hex(u64::from(t))).collect()
}
