//! `validate=true`: `fastrs::validate::Validate` for each message,
//! rendering its rule plan (the runtime's, which the dynamic validator
//! runs) as Rust. Standard rules become comparisons with their constants
//! and calls of the runtime's checks; CEL rules are compiled by
//! [`cel`](super::cel); messages, items and map entries are visited in
//! the plan's order, and violations get their field paths as protovalidate
//! reports them.
//!
//! What a message's code holds, beside its body: `static` path steps
//! (fields as path elements), standard rules (id, message, rule path),
//! regular expressions compiled on first use, and CEL rules.

use std::collections::HashMap;

use fastrs::cel::Value;
use fastrs::reflect::FieldDescriptor;
use fastrs::validate::plan::{Check, FieldPlan, MessagePlan, Rule, ValuePlan};
use fastrs::validate::{FieldPathElement, Format, Measure, Plans, Predicate, Size};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

mod cel;
mod statics;

use crate::model::names::TypePath;
use crate::model::{Field, Kind, Message, Package, Scalar, Shape};
use cel::Models;
use statics::{double, Statics};

/// The `Validate` impls of every message of the run with validation, by
/// full name, written at their package's root module.
///
/// # Errors
/// Rules that do not compile to Rust, one line each.
pub fn render(packages: &[Package], described: bool) -> Result<HashMap<String, TokenStream>, Vec<String>> {
    fn walk<'m>(messages: &'m [Message], out: &mut Vec<&'m Message>) {
        for m in messages {
            out.push(m);
            walk(&m.messages, out);
        }
    }
    let models = Models::new(packages, described);
    let mut out = HashMap::new();
    let mut errors = Vec::new();
    for package in packages {
        let Some(plans) = &package.validation else { continue };
        let mut messages = Vec::new();
        walk(&package.messages, &mut messages);
        for msg in messages {
            match message(msg, plans, &models, &package.scope) {
                Ok(tokens) => {
                    out.insert(msg.full_name.clone(), tokens);
                }
                Err(e) => errors.extend(e),
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The impls of `messages` and the types nested in them, from `rendered`.
pub(super) fn impls(messages: &[Message], rendered: &HashMap<String, TokenStream>) -> TokenStream {
    let mut out = TokenStream::new();
    for m in messages {
        if let Some(tokens) = rendered.get(&m.full_name) {
            out.extend(tokens.clone());
        }
        out.extend(impls(&m.messages, rendered));
    }
    out
}

/// The `Validate` impl of `msg`, by its plan in `plans`, written in the
/// module `scope`.
fn message(msg: &Message, plans: &Plans, models: &Models<'_>, scope: &[String]) -> Result<TokenStream, Vec<String>> {
    let path = TypePath::Local {
        modules: msg.scope.clone(),
        name: msg.ident.to_string(),
    }
    .relative_to(scope);
    let mut statics = Statics::default();
    let mut errors = Vec::new();
    let (body, diverges) = match plans.get(&msg.full_name) {
        Some(plan) => {
            let mut b = Body {
                msg,
                models,
                scope,
                statics: &mut statics,
                errors: &mut errors,
                diverges: false,
            };
            let body = b.message(plan);
            (body, b.diverges)
        }
        None => (TokenStream::new(), false),
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let items = statics.items();
    // A body that ends in a compilation error returns it.
    let tail = (!diverges).then(|| quote!(::core::result::Result::Ok(())));
    // A body that only fails (rules that do not compile) reports nothing.
    let report = if body.to_string().contains("report") {
        quote!(report)
    } else {
        quote!(_report)
    };
    let runtime = (!body.is_empty()).then(|| {
        quote! {
            #[allow(unused_imports)]
            use __fastrs::validate as __v;
            #[allow(unused_imports)]
            use __fastrs::validate::cel_runtime as __c;
        }
    });
    let view = msg.views.then(|| {
        let view = TypePath::Local {
            modules: msg.scope.clone(),
            name: msg.view_ident.to_string(),
        }
        .relative_to(scope);
        quote! {
            /// Validated as the owned message it reads as.
            #[allow(deprecated)]
            impl ::fastrs::validate::Validate for #view<'_> {
                fn validate_into(
                    &self,
                    report: &mut ::fastrs::validate::Report,
                ) -> ::core::result::Result<(), ::fastrs::validate::Error> {
                    ::fastrs::validate::Validate::validate_into(&::fastrs::View::to_message(self), report)
                }
            }
        }
    });
    Ok(quote! {
        #view
        #[allow(deprecated, clippy::all)]
        impl ::fastrs::validate::Validate for #path {
            // Compiled once, in this crate: not copied into each caller's
            // `validate` (which multiplied release builds' time).
            #[inline(never)]
            fn validate_into(
                &self,
                #report: &mut ::fastrs::validate::Report,
            ) -> ::core::result::Result<(), ::fastrs::validate::Error> {
                #runtime
                #items
                #body
                #tail
            }
        }
    })
}

struct Body<'a, 'm> {
    msg: &'a Message,
    models: &'a Models<'a>,
    scope: &'a [String],
    statics: &'m mut Statics,
    errors: &'m mut Vec<String>,
    /// The body ends by returning a compilation error.
    diverges: bool,
}

/// Returns from `validate_into` once a fail-fast validation has a
/// violation.
fn stop_if_done() -> TokenStream {
    quote!(if report.done() {
        return ::core::result::Result::Ok(());
    })
}

impl<'a> Body<'a, '_> {
    fn message(&mut self, plan: &MessagePlan) -> TokenStream {
        if let Some(e) = &plan.error {
            self.diverges = true;
            return compilation_error(e);
        }
        // Each part, with a fail-fast stop between them.
        let mut parts: Vec<TokenStream> = Vec::new();
        for rule in &plan.cel {
            parts.push(self.cel(rule, cel::This::Message(&plan.descriptor)));
        }
        for oneof in &plan.message_oneofs {
            parts.push(self.message_oneof(oneof));
        }
        for oneof in &plan.required_oneofs {
            let field = self
                .msg
                .oneofs
                .iter()
                .find(|o| o.proto_name == oneof.name())
                .map(|o| &o.field);
            let name = oneof.name();
            if let Some(field) = field {
                parts.push(quote! {
                    if self.#field.is_none() {
                        __v::oneof_missing(report, #name);
                    }
                });
            }
        }
        for field in &plan.fields {
            parts.push(self.field(field));
            if field.error.is_some() {
                // It returns: nothing after it runs.
                self.diverges = true;
                break;
            }
        }
        parts.retain(|p| !p.is_empty());
        let stop = stop_if_done();
        let mut out = TokenStream::new();
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                out.extend(stop.clone());
            }
            out.extend(part);
        }
        out
    }

    /// A `(buf.validate.message).oneof` rule.
    fn message_oneof(&self, oneof: &fastrs::validate::plan::MessageOneof) -> TokenStream {
        let names: Vec<&str> = oneof.fields.iter().map(FieldDescriptor::name).collect();
        let names = names.join(", ");
        let set = oneof.fields.iter().map(|f| {
            let has = self.has(f);
            quote!(usize::from(#has))
        });
        let required = oneof.required;
        quote! {
            let set = 0 #(+ #set)*;
            if set > 1 {
                __v::message_oneof(report, #names, true);
            } else if #required && set != 1 {
                __v::message_oneof(report, #names, false);
            }
        }
    }

    /// A CEL rule's code, or nothing and an error.
    fn cel(&mut self, rule: &fastrs::validate::plan::CelRule, this: cel::This<'_>) -> TokenStream {
        let mut site = cel::Site {
            models: self.models,
            statics: self.statics,
            scope: self.scope,
        };
        match cel::rule(rule, this, &mut site) {
            Ok(code) => code,
            Err(why) => {
                self.errors.push(format!(
                    "{}: rule `{}` ({}): {why}",
                    self.msg.full_name, rule.id, rule.expression
                ));
                TokenStream::new()
            }
        }
    }

    /// The model field numbered `number` and, for a oneof member, its
    /// oneof's struct field and enum path.
    fn model_field(&self, number: u32) -> Option<(&'a Field, Option<cel::OneofPath>)> {
        cel::model_field(self.msg, number, self.scope).ok()
    }

    /// True if the field is set (its presence, or a value other than its
    /// zero; a list or map, if not empty).
    fn has(&self, field: &FieldDescriptor) -> TokenStream {
        let Some((f, oneof)) = self.model_field(field.number()) else {
            return quote!(false);
        };
        let ident = &f.ident;
        if let Some((holder, path)) = oneof {
            return quote!(::core::matches!(&self.#holder, ::core::option::Option::Some(#path::#ident(_))));
        }
        match &f.shape {
            Shape::Optional(_) => quote!(self.#ident.is_some()),
            Shape::Repeated { .. } | Shape::Map { .. } => quote!(!self.#ident.is_empty()),
            Shape::Implicit(kind) => crate::emit::tokens::is_set(kind, &quote!(self.#ident)),
            Shape::OneofMember(_) => quote!(false),
        }
    }

    fn field(&mut self, plan: &FieldPlan) -> TokenStream {
        if let Some(e) = &plan.error {
            return compilation_error(e);
        }
        let Some((f, oneof)) = self.model_field(plan.field.number()) else {
            return TokenStream::new();
        };
        let step = self.statics.step(&plan.field);
        let has = self.has(&plan.field);
        let ident = &f.ident;
        // The stored value, bound to `value` where the field is set.
        let (kind, bind): (Option<&Kind>, Option<TokenStream>) = match (&f.shape, &oneof) {
            (Shape::OneofMember(kind), Some((holder, path))) => (
                Some(kind),
                Some(quote!(::core::option::Option::Some(#path::#ident(value)) = &self.#holder)),
            ),
            (Shape::Optional(kind), _) => (
                Some(kind),
                Some(quote!(::core::option::Option::Some(value) = &self.#ident)),
            ),
            (Shape::Implicit(kind) | Shape::Repeated { kind, .. }, _) => (Some(kind), None),
            (Shape::Map { .. }, _) => (None, None),
            (Shape::OneofMember(_), None) => return TokenStream::new(),
        };
        let value_code = self.value(&plan.value, f, kind, &step);
        let run = match &bind {
            _ if value_code.is_empty() => TokenStream::new(),
            Some(pattern) => quote! {
                if let #pattern {
                    #value_code
                }
            },
            None => quote! {
                let value = &self.#ident;
                #value_code
            },
        };
        let required = plan.required.then(|| {
            quote! {
                if !(#has) {
                    __v::missing(report, #step);
                }
            }
        });
        // A field that is not set is skipped (checked `required` above).
        let guarded = if (plan.skip_unset || plan.required) && bind.is_none() && !run.is_empty() {
            quote!(if #has { #run })
        } else {
            run
        };
        quote! {
            {
                #required
                #guarded
            }
        }
    }

    /// The rules of a field's value, `value` bound to a reference to it (a
    /// list or map as a whole, for a repeated or map field).
    fn value(&mut self, plan: &ValuePlan, f: &Field, kind: Option<&Kind>, step: &TokenStream) -> TokenStream {
        let mut own = TokenStream::new();
        let mut nested = TokenStream::new();
        let list_like = matches!(f.shape, Shape::Repeated { .. } | Shape::Map { .. });
        for rule in &plan.rules {
            match rule {
                Rule::Items(items) => nested.extend(self.items(items, f, kind, step)),
                Rule::Entries { keys, values, .. } => nested.extend(self.entries(keys, values, f, step)),
                Rule::Cel(rule) if list_like => own.extend(self.cel(rule, cel::This::Whole(f, &plan.field))),
                Rule::Check(check) if list_like => own.extend(self.check(check, f, kind, true)),
                rule => own.extend(self.rule(rule, f, kind, &plan.field)),
            }
        }
        let embedded = plan.embedded.as_ref().filter(|_| !list_like).map(|_| {
            quote! {
                let mark = report.mark();
                value.validate_into(report)?;
                __v::field(report, mark, #step);
            }
        });
        let own = (!own.is_empty()).then(|| {
            quote! {
                let mark = report.mark();
                #own
                __v::field(report, mark, #step);
            }
        });
        quote!(#own #embedded #nested)
    }

    /// One rule on a single value (a field's, item's, key's or map
    /// value's), `value` bound to a reference to it.
    fn rule(&mut self, rule: &Rule, f: &Field, kind: Option<&Kind>, field: &FieldDescriptor) -> TokenStream {
        match rule {
            Rule::Check(check) => self.check(check, f, kind, false),
            Rule::Cel(rule) => self.cel(rule, cel::This::Value(kind.cloned(), field)),
            Rule::Any {
                allowed,
                refused,
                paths,
            } => self.any(allowed, refused, paths),
            Rule::DefinedOnly { path, .. } if matches!(kind, Some(Kind::Enum { closed: false, .. })) => {
                let rule = self.statics.rule(&Check {
                    id: "enum.defined_only".into(),
                    message: "value must be one of the defined enum values".into(),
                    path: path.clone(),
                    predicate: Predicate::Empty,
                });
                quote! {
                    if !value.is_known() {
                        __v::violated(report, #rule);
                    }
                }
            }
            // A closed enum holds defined values only.
            Rule::DefinedOnly { .. } | Rule::Items(_) | Rule::Entries { .. } => TokenStream::new(),
        }
    }

    /// `any.in` and `any.not_in` on `value`, an `Any`.
    fn any(&mut self, allowed: &[String], refused: &[String], paths: &[Vec<FieldPathElement>]) -> TokenStream {
        let mut out = TokenStream::new();
        if !allowed.is_empty() {
            let rule = self.statics.rule(&Check {
                id: "any.in".into(),
                message: "type URL must be in the allow list".into(),
                path: paths[0].clone(),
                predicate: Predicate::Empty,
            });
            out.extend(quote! {
                if ![#(#allowed),*].contains(&value.type_url.as_str()) {
                    __v::violated(report, #rule);
                }
            });
        }
        if !refused.is_empty() {
            let rule = self.statics.rule(&Check {
                id: "any.not_in".into(),
                message: "type URL must not be in the block list".into(),
                path: paths[1].clone(),
                predicate: Predicate::Empty,
            });
            out.extend(quote! {
                if [#(#refused),*].contains(&value.type_url.as_str()) {
                    __v::violated(report, #rule);
                }
            });
        }
        out
    }

    fn items(&mut self, plan: &ValuePlan, f: &Field, kind: Option<&Kind>, step: &TokenStream) -> TokenStream {
        let rules = self.element_rules(plan, f, kind);
        quote! {
            for (index, value) in value.iter().enumerate() {
                let mark = report.mark();
                #rules
                __v::item(report, mark, #step, index);
                if report.done() {
                    break;
                }
            }
        }
    }

    fn entries(&mut self, keys: &ValuePlan, values: &ValuePlan, f: &Field, step: &TokenStream) -> TokenStream {
        let Shape::Map { key, value, .. } = &f.shape else {
            return TokenStream::new();
        };
        let key_rules = self.element_rules(keys, f, Some(key));
        let value_rules = self.element_rules(values, f, Some(value));
        let types = |d: &FieldDescriptor| {
            let ty = format_ident!("{}", format!("{:?}", fastrs::validate::field_type(d)));
            quote!(__v::Type::#ty)
        };
        let (key_type, value_type) = (types(&keys.field), types(&values.field));
        let key_rules = (!key_rules.is_empty()).then(|| {
            quote! {
                {
                    let value = key;
                    #key_rules
                }
            }
        });
        let value_binding = if value_rules.is_empty() {
            quote!(_)
        } else {
            quote!(value)
        };
        quote! {
            let entries = report.mark();
            for (key, #value_binding) in value.iter() {
                let mark = report.mark();
                #key_rules
                let values = report.mark();
                #value_rules
                __v::entry(report, mark, values, #step, key, (#key_type, #value_type));
                if report.done() {
                    break;
                }
            }
            __v::entries_done(report, entries);
        }
    }

    /// An item's, key's or map value's rules (no path of their own: the
    /// caller adds the subscripted element).
    fn element_rules(&mut self, plan: &ValuePlan, f: &Field, kind: Option<&Kind>) -> TokenStream {
        let mut own = TokenStream::new();
        for rule in &plan.rules {
            own.extend(self.rule(rule, f, kind, &plan.field));
        }
        let embedded = plan.embedded.as_ref().map(|_| quote!(value.validate_into(report)?;));
        let body = quote!(#own #embedded);
        if plan.skip_zero {
            let zero = zero_check(kind);
            quote!(if !(#zero) { #body })
        } else {
            body
        }
    }

    /// A standard rule's check on `value`.
    fn check(&mut self, check: &Check, f: &Field, kind: Option<&Kind>, whole_list: bool) -> TokenStream {
        let rule = self.statics.rule(check);
        let this = ThisKind::of(kind, whole_list, f);
        match predicate(&check.predicate, this, self.statics) {
            Ok((binding, condition)) => quote! {
                {
                    #binding
                    if #condition {
                        __v::violated(report, #rule);
                    }
                }
            },
            Err(why) => {
                self.errors
                    .push(format!("{}: rule {} cannot apply: {why}", f.full_name, check.id));
                TokenStream::new()
            }
        }
    }
}

/// Returns the error of rules that do not compile (generated with
/// `validate_errors=runtime`).
fn compilation_error(e: &str) -> TokenStream {
    quote!(return ::core::result::Result::Err(::fastrs::validate::Error::Compilation(#e.into()));)
}

/// True if `value` (a reference to a value of `kind`) is its type's zero.
fn zero_check(kind: Option<&Kind>) -> TokenStream {
    match kind {
        Some(Kind::Message { .. }) => quote!(*value == ::core::default::Default::default()),
        Some(k) => {
            let set = crate::emit::tokens::is_set(k, &quote!((*value)));
            quote!(!(#set))
        }
        None => quote!(false),
    }
}

/// How a value is held for a standard rule's check (`this`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum ThisKind {
    Int,
    Uint,
    Double,
    Bool,
    /// A string; `lax` for a proto2 `LaxString`.
    Str {
        lax: bool,
    },
    Bytes,
    Enum {
        closed: bool,
    },
    Timestamp,
    Duration,
    /// A wrapper of this primitive (`value.value`).
    Wrapper(Prim),
    FieldMask,
    List(Option<Prim>),
    Map,
    Other,
}

/// The primitive of a wrapper, or of a list's items.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Prim {
    Int,
    Uint,
    Double,
    Bool,
    Str,
    Bytes,
}

impl ThisKind {
    fn of(kind: Option<&Kind>, whole_list: bool, f: &Field) -> ThisKind {
        if whole_list {
            return match &f.shape {
                Shape::Map { .. } => ThisKind::Map,
                Shape::Repeated { kind, .. } => ThisKind::List(prim(kind)),
                _ => ThisKind::Other,
            };
        }
        match kind {
            Some(Kind::Scalar(s)) => match s {
                Scalar::Int32
                | Scalar::Sint32
                | Scalar::Sfixed32
                | Scalar::Int64
                | Scalar::Sint64
                | Scalar::Sfixed64 => ThisKind::Int,
                Scalar::Uint32 | Scalar::Fixed32 | Scalar::Uint64 | Scalar::Fixed64 => ThisKind::Uint,
                Scalar::Float | Scalar::Double => ThisKind::Double,
                Scalar::Bool => ThisKind::Bool,
            },
            Some(Kind::String { checked }) => ThisKind::Str { lax: !checked },
            Some(Kind::Bytes { .. }) => ThisKind::Bytes,
            Some(Kind::Enum { closed, .. }) => ThisKind::Enum { closed: *closed },
            Some(Kind::Message { path, .. }) => {
                let p = match path {
                    crate::model::TypePath::Absolute(p) => p.as_str().to_string(),
                    crate::model::TypePath::Local { name, .. } => name.clone(),
                };
                match p.as_str() {
                    "::fastrs::well_known::Timestamp" => ThisKind::Timestamp,
                    "::fastrs::well_known::Duration" => ThisKind::Duration,
                    "::fastrs::well_known::FieldMask" => ThisKind::FieldMask,
                    "::fastrs::well_known::Int32Value" | "::fastrs::well_known::Int64Value" => {
                        ThisKind::Wrapper(Prim::Int)
                    }
                    "::fastrs::well_known::UInt32Value" | "::fastrs::well_known::UInt64Value" => {
                        ThisKind::Wrapper(Prim::Uint)
                    }
                    "::fastrs::well_known::FloatValue" | "::fastrs::well_known::DoubleValue" => {
                        ThisKind::Wrapper(Prim::Double)
                    }
                    "::fastrs::well_known::BoolValue" => ThisKind::Wrapper(Prim::Bool),
                    "::fastrs::well_known::StringValue" => ThisKind::Wrapper(Prim::Str),
                    "::fastrs::well_known::BytesValue" => ThisKind::Wrapper(Prim::Bytes),
                    _ => ThisKind::Other,
                }
            }
            None => ThisKind::Other,
        }
    }
}

fn prim(kind: &Kind) -> Option<Prim> {
    Some(match kind {
        Kind::Scalar(Scalar::Float | Scalar::Double) => Prim::Double,
        Kind::Scalar(Scalar::Bool) => Prim::Bool,
        Kind::Scalar(Scalar::Uint32 | Scalar::Fixed32 | Scalar::Uint64 | Scalar::Fixed64) => Prim::Uint,
        Kind::Scalar(_) | Kind::Enum { .. } => Prim::Int,
        Kind::String { .. } => Prim::Str,
        Kind::Bytes { .. } => Prim::Bytes,
        Kind::Message { .. } => return None,
    })
}

/// Binds `this` (the value as CEL reads it, from `value`) and renders the
/// predicate's condition on it.
fn predicate(p: &Predicate, this: ThisKind, statics: &mut Statics) -> Result<(TokenStream, TokenStream), String> {
    let binding = binding(this)?;
    let lit = |v: &Value<'_>| literal(v, this);
    let is_double = matches!(this, ThisKind::Double | ThisKind::Wrapper(Prim::Double));
    let nan = if is_double {
        quote!(this.is_nan() ||)
    } else {
        TokenStream::new()
    };
    let condition = match p {
        Predicate::NotEqual(c) => {
            let c = lit(c)?;
            quote!(this != #c)
        }
        Predicate::AtLeast { bound, inclusive } => {
            let b = lit(bound)?;
            if *inclusive {
                quote!(#nan this > #b)
            } else {
                quote!(#nan this >= #b)
            }
        }
        Predicate::AtMost { bound, inclusive } => {
            let b = lit(bound)?;
            if *inclusive {
                quote!(#nan this < #b)
            } else {
                quote!(#nan this <= #b)
            }
        }
        Predicate::Outside {
            lower,
            lower_inclusive,
            upper,
            upper_inclusive,
        } => {
            let (lo, hi) = (lit(lower)?, lit(upper)?);
            let above = if *upper_inclusive {
                quote!(this > #hi)
            } else {
                quote!(this >= #hi)
            };
            let below = if *lower_inclusive {
                quote!(this < #lo)
            } else {
                quote!(this <= #lo)
            };
            quote!(#nan #above || #below)
        }
        Predicate::Inside {
            upper,
            upper_inclusive,
            lower,
            lower_inclusive,
        } => {
            let (lo, hi) = (lit(lower)?, lit(upper)?);
            let above = if *upper_inclusive {
                quote!(this > #hi)
            } else {
                quote!(this >= #hi)
            };
            let below = if *lower_inclusive {
                quote!(this < #lo)
            } else {
                quote!(this <= #lo)
            };
            if nan.is_empty() {
                quote!(#above && #below)
            } else {
                quote!(#nan (#above && #below))
            }
        }
        Predicate::NotIn(list) | Predicate::In(list) => {
            let items = list.iter().map(&lit).collect::<Result<Vec<_>, _>>()?;
            let any = quote!([#(#items),*].contains(&this));
            if matches!(p, Predicate::NotIn(_)) {
                quote!(!#any)
            } else {
                any
            }
        }
        Predicate::NotFinite => quote!(!this.is_finite()),
        Predicate::Size(size, Measure::Chars, n)
            if matches!(this, ThisKind::Str { .. } | ThisKind::Wrapper(Prim::Str)) =>
        {
            let size = format_ident!("{}", format!("{size:?}"));
            let n = Literal::u64_suffixed(*n);
            quote!(__v::chars_break(this, __v::Size::#size, #n))
        }
        Predicate::Size(size, measure, n) => {
            let length = match (measure, this) {
                (_, ThisKind::List(_) | ThisKind::Map) => quote!(__v::len(value.len())),
                _ => quote!(__v::len(this.len())),
            };
            let n = Literal::u64_suffixed(*n);
            match size {
                Size::Exactly => quote!(#length != #n),
                Size::AtLeast => quote!(#length < #n),
                Size::AtMost => quote!(#length > #n),
            }
        }
        Predicate::NoMatch(re) => {
            let pattern = statics.pattern(re.as_str());
            match this {
                ThisKind::Bytes | ThisKind::Wrapper(Prim::Bytes) => {
                    quote!(!#pattern.matches_bytes(this).map_err(__v::runtime)?)
                }
                _ => quote!(!#pattern.matches(this)),
            }
        }
        Predicate::NoPrefix(v) => {
            let v = lit(v)?;
            quote!(!this.starts_with(#v))
        }
        Predicate::NoSuffix(v) => {
            let v = lit(v)?;
            quote!(!this.ends_with(#v))
        }
        Predicate::NotContaining(v) | Predicate::Containing(v) => {
            let v = lit(v)?;
            let has = match this {
                ThisKind::Bytes | ThisKind::Wrapper(Prim::Bytes) => quote!(__v::contains_bytes(this, #v)),
                _ => quote!(this.contains(#v)),
            };
            if matches!(p, Predicate::NotContaining(_)) {
                quote!(!#has)
            } else {
                has
            }
        }
        Predicate::Empty => quote!(this.is_empty()),
        Predicate::NotFormat(format) => {
            let format = format_tokens(*format);
            quote!(__v::not_format(this, #format))
        }
        Predicate::BytesSizeNot(sizes) => {
            let sizes = sizes.iter().map(|s| Literal::usize_unsuffixed(*s));
            quote!(!this.is_empty() && !::core::matches!(this.len(), #(#sizes)|*))
        }
        Predicate::AfterNow => quote!(this > report.now()),
        Predicate::BeforeNow => quote!(this < report.now()),
        Predicate::NotWithin(d) => {
            let d = lit(&Value::Duration(*d))?;
            quote!(__v::not_within(this, #d, report.now()).map_err(__v::runtime)?)
        }
        Predicate::PathsNotEqual(paths) | Predicate::PathsNotIn(paths) | Predicate::PathsIn(paths) => {
            let paths = paths.iter().map(String::as_str);
            let f = match p {
                Predicate::PathsNotEqual(_) => quote!(__v::paths_differ),
                Predicate::PathsNotIn(_) => quote!(__v::paths_outside),
                _ => quote!(__v::paths_touch),
            };
            quote!(#f(&value.paths, &[#(#paths),*]))
        }
        Predicate::NotUnique => match this {
            ThisKind::List(Some(Prim::Double)) => quote!(!__v::unique_floats(value.iter().map(|x| f64::from(*x)))),
            _ => quote!(!__v::unique(value)),
        },
    };
    Ok((binding, condition))
}

/// `let this = ...;` for a value of kind `this` held in `value`.
fn binding(this: ThisKind) -> Result<TokenStream, String> {
    Ok(match this {
        ThisKind::Int => quote!(let this = i64::from(*value);),
        ThisKind::Uint => quote!(let this = u64::from(*value);),
        ThisKind::Double => quote!(let this = f64::from(*value);),
        ThisKind::Bool => quote!(let this = *value;),
        ThisKind::Str { lax: false } => quote!(let this: &str = value;),
        ThisKind::Str { lax: true } => quote!(let this = __c::lax(value); let this: &str = &this;),
        ThisKind::Bytes => quote!(let this: &[u8] = value;),
        ThisKind::Enum { closed: false } => quote!(let this = i64::from(value.to_i32());),
        ThisKind::Enum { closed: true } => quote!(let this = i64::from(::fastrs::Enum::to_i32(*value));),
        ThisKind::Timestamp => quote!(let this = __c::timestamp(value).map_err(__v::runtime)?;),
        ThisKind::Duration => quote!(let this = __v::duration(value);),
        ThisKind::Wrapper(p) => match p {
            Prim::Int => quote!(let this = i64::from(value.value);),
            Prim::Uint => quote!(let this = u64::from(value.value);),
            Prim::Double => quote!(let this = f64::from(value.value);),
            Prim::Bool => quote!(let this = value.value;),
            Prim::Str => quote!(let this: &str = &value.value;),
            Prim::Bytes => quote!(let this: &[u8] = &value.value;),
        },
        ThisKind::FieldMask | ThisKind::List(_) | ThisKind::Map | ThisKind::Other => TokenStream::new(),
    })
}

/// A rule's constant as a literal of the type `this` has.
fn literal(v: &Value<'_>, this: ThisKind) -> Result<TokenStream, String> {
    Ok(match v {
        Value::Int(i) => cel::int_literal(*i),
        Value::Uint(u) => {
            let u = Literal::u64_suffixed(*u);
            quote!(#u)
        }
        Value::Double(d) => double(*d),
        Value::Bool(b) => quote!(#b),
        Value::String(s) => {
            let s: &str = s;
            quote!(#s)
        }
        Value::Bytes(b) => {
            let lit = Literal::byte_string(b);
            quote!(&#lit[..])
        }
        Value::Duration(d) => {
            let n = Literal::i128_suffixed(d.nanos);
            quote!(__c::Duration::from_nanos(#n))
        }
        Value::Timestamp(t) => {
            let (s, n) = (cel::int_literal(t.seconds), Literal::i32_suffixed(t.nanos));
            quote!(__c::Timestamp::at(#s, #n))
        }
        other => {
            return Err(format!(
                "a constant of type {} for a value held as {this:?}",
                other.type_name()
            ))
        }
    })
}

fn format_tokens(f: Format) -> TokenStream {
    match f {
        Format::Email => quote!(__v::Format::Email),
        Format::Hostname => quote!(__v::Format::Hostname),
        Format::Ip(v) => quote!(__v::Format::Ip(#v)),
        Format::Uri => quote!(__v::Format::Uri),
        Format::UriRef => quote!(__v::Format::UriRef),
        Format::Address => quote!(__v::Format::Address),
        Format::Uuid => quote!(__v::Format::Uuid),
        Format::Tuuid => quote!(__v::Format::Tuuid),
        Format::IpPrefix(v, strict) => quote!(__v::Format::IpPrefix(#v, #strict)),
        Format::HostAndPort => quote!(__v::Format::HostAndPort),
        Format::Ulid => quote!(__v::Format::Ulid),
        Format::ProtobufName(dot) => quote!(__v::Format::ProtobufName(#dot)),
        Format::HeaderName(strict) => quote!(__v::Format::HeaderName(#strict)),
        Format::HeaderValue(strict) => quote!(__v::Format::HeaderValue(#strict)),
    }
}
