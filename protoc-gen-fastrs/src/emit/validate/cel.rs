//! CEL rules compiled to Rust, from the checked expression.
//!
//! Each node becomes Rust code of a known representation ([`Ty`]): plain
//! Rust values for CEL's scalars (`i64`, `u64`, `f64`, `bool`, `&str`,
//! `&[u8]`, timestamps, durations), `Option<&T>` for a generated message
//! (`None` reads as the default instance, as CEL's unset messages do),
//! slices for repeated fields and `Option<&Map>` for map fields, read in
//! place. Parts that use neither `this` nor `now` are evaluated here, by
//! the interpreter, and become literals (`rules.max_len`,
//! `getField(rules, 'in')`).
//!
//! What has no native form here (an uncommon function, a value of an
//! unknown type) runs through the runtime's CEL functions on
//! [`Value`]s, so any rule the checker accepts compiles; only a message
//! read as a dynamic value needs the package's descriptors
//! (`descriptors=true`), and message literals are not compiled at all.
//!
//! CEL's semantics are kept where Rust's differ: integer overflow and
//! division by zero are errors, `&&` and `||` absorb errors when the other
//! side decides, comparisons cross numeric types, and comprehensions
//! follow CEL's rules for errors (`__private::validate::cel_runtime`).

use std::collections::HashMap;

use fastrs::cel::ast::{op, Comprehension, Const, Expr, ExprKind};
use fastrs::cel::{Msg, Value};
use fastrs::reflect::{FieldDescriptor, Kind as PoolKind, MessageDescriptor};
use fastrs::validate::plan::CelRule;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::statics::{double, element_literal, Statics};
use crate::model::names::TypePath;
use crate::model::{DefaultValue, Field, Kind, Message, Package, Scalar, Shape};

/// The generated messages of the run, by full name, and whether their
/// packages embed descriptors (which reading one as a dynamic value needs).
pub(super) struct Models<'a> {
    messages: HashMap<&'a str, &'a Message>,
    described: bool,
}

impl<'a> Models<'a> {
    pub(super) fn new(packages: &'a [Package], described: bool) -> Self {
        fn walk<'a>(messages: &'a [Message], into: &mut HashMap<&'a str, &'a Message>) {
            for m in messages {
                into.insert(&m.full_name, m);
                walk(&m.messages, into);
            }
        }
        let mut messages = HashMap::new();
        for p in packages {
            walk(&p.messages, &mut messages);
        }
        Models { messages, described }
    }

    pub(super) fn get(&self, full_name: &str) -> Option<&'a Message> {
        self.messages.get(full_name).copied()
    }
}

/// What `this` is, and how the surrounding code holds it.
pub(super) enum This<'a> {
    /// A message rule: `self`.
    Message(&'a MessageDescriptor),
    /// A repeated or map field's rule on the whole field: `value`.
    Whole(&'a Field, &'a FieldDescriptor),
    /// A value's rule, `value` a reference to it as stored: a field's,
    /// item's, map key's or map value's (`kind` as the model holds it).
    Value(Option<Kind>, &'a FieldDescriptor),
}

/// Where a rule's code lives: the statics it names, and the module scope
/// of the message whose `validate_into` holds it.
pub(super) struct Site<'a, 's> {
    pub(super) models: &'a Models<'a>,
    pub(super) statics: &'s mut Statics,
    pub(super) scope: &'a [String],
}

/// The code that evaluates `rule` and records its outcome.
///
/// # Errors
/// The rule uses what is not compiled (a message literal, a message read
/// as a dynamic value without descriptors), or does not check.
pub(super) fn rule(rule: &CelRule, this: This<'_>, site: &mut Site<'_, '_>) -> Result<TokenStream, String> {
    let checked = rule.env.check(&rule.expression).map_err(|e| e.to_string())?;
    let mut c = Compiler {
        rule,
        models: site.models,
        statics: site.statics,
        scope: site.scope,
        locals: Vec::new(),
        uses_now: false,
        fresh: 0,
    };
    let this = c.this(this)?;
    // A value that fails to read (a timestamp out of range) fails the rule
    // as reading it fails, before the expression: as the dynamic
    // validator reads `this` once for all of a value's rules.
    let (this, read_this) = if this.fallible {
        let t = &this.t;
        let read = quote!(let this = (|| -> __c::Out<_> { ::core::result::Result::Ok(#t) })().map_err(__v::runtime)?;);
        (Code::new(quote!(this), this.ty.clone()), Some(read))
    } else {
        (this, None)
    };
    c.locals.push(("this".into(), this));
    let body = c.expr(&checked.expr)?;
    let outcome = match body.ty {
        Ty::Bool | Ty::Str | Ty::Value => body.t,
        _ => return Err("the expression gives neither a bool nor a string".into()),
    };
    // A rule that can fail runs in a closure that `?` returns from.
    let outcome = if body.fallible {
        quote!(let outcome = (|| -> __c::Out<_> { ::core::result::Result::Ok(#outcome) })();)
    } else {
        quote!(let outcome = ::core::result::Result::Ok(#outcome);)
    };
    let (id, message, expression) = (&*rule.id, &*rule.message, &*rule.expression);
    let path = rule.path.iter().map(element_literal);
    let index = match rule.path.last().and_then(|e| e.subscript.as_ref()) {
        Some(fastrs::validate::types::field_path_element::Subscript::Index(i)) => {
            let i = Literal::u64_suffixed(*i);
            quote!(::core::option::Option::Some(#i))
        }
        _ => quote!(::core::option::Option::None),
    };
    let uses_now = c.uses_now;
    let entry = site.statics.cel(quote! {
        __v::CelRule {
            id: #id,
            message: #message,
            expression: #expression,
            path: &[#(#path),*],
            index: #index,
        }
    });
    let now = uses_now.then(|| quote!(let now = report.now();));
    Ok(quote! {
        {
            #read_this
            #now
            #outcome
            __v::cel(report, #entry, outcome)?;
        }
    })
}

/// A compiled node: Rust code, how it represents its value, and whether
/// it can fail (it then holds `?`, and runs where errors propagate).
#[derive(Clone)]
struct Code {
    t: TokenStream,
    ty: Ty,
    fallible: bool,
    /// The value, when the node was folded to a constant.
    constant: Option<Value<'static>>,
    /// The code is an operator expression: an operand of another needs it
    /// in parentheses.
    compound: bool,
    /// For a message: the code is a `&T` (the message is there), not an
    /// `Option<&T>`.
    present: bool,
}

impl Code {
    fn new(t: TokenStream, ty: Ty) -> Self {
        Code {
            t,
            ty,
            fallible: false,
            constant: None,
            compound: false,
            present: false,
        }
    }

    /// A message that is there, held as `&T`.
    fn present(t: TokenStream, descriptor: MessageDescriptor) -> Self {
        Code {
            present: true,
            ..Code::new(t, Ty::Msg(descriptor))
        }
    }

    /// A message's code as an `Option<&T>`.
    fn option(&self) -> TokenStream {
        let t = &self.t;
        if self.present {
            quote!(::core::option::Option::Some(#t))
        } else {
            t.clone()
        }
    }

    /// An operator expression.
    fn op(t: TokenStream, ty: Ty) -> Self {
        Code {
            compound: true,
            ..Code::new(t, ty)
        }
    }

    /// The code as an operand of an operator.
    fn operand(&self) -> TokenStream {
        let t = &self.t;
        if self.compound {
            quote!((#t))
        } else {
            t.clone()
        }
    }

    fn fallible(t: TokenStream, ty: Ty) -> Self {
        Code {
            fallible: true,
            ..Code::new(t, ty)
        }
    }

    fn or_fallible(mut self, fallible: bool) -> Self {
        self.fallible |= fallible;
        self
    }
}

/// How compiled code holds a CEL value.
#[derive(Clone)]
enum Ty {
    Bool,
    /// `i64`.
    Int,
    /// `u64`.
    Uint,
    /// `f64`.
    Double,
    /// Something that derefs to `str`: `&str`, `String`, `Cow<str>`.
    Str,
    /// Something that derefs to `[u8]`.
    Bytes,
    /// `cel::Timestamp`.
    Timestamp,
    /// `cel::Duration`.
    Duration,
    /// `Option<&T>` for a generated message of this type.
    Msg(MessageDescriptor),
    /// Something with `.iter()` and `.len()` over items of this kind.
    List(Box<Item>),
    /// `Option<&M>`, `M` a map field's map, keys and values of these kinds.
    Map(Box<Item>, Box<Item>),
    /// A `cel::Value`, for what is read or computed dynamically.
    Value,
}

impl Ty {
    /// True for representations that are `Copy` and compare with `==`.
    fn is_plain(&self) -> bool {
        matches!(
            self,
            Ty::Bool | Ty::Int | Ty::Uint | Ty::Double | Ty::Timestamp | Ty::Duration
        )
    }

    fn same_plain(&self, other: &Ty) -> bool {
        core::mem::discriminant(self) == core::mem::discriminant(other)
            && (self.is_plain() || matches!(self, Ty::Str | Ty::Bytes))
    }
}

/// Where a stored value is: a reference to it (`Ref`, an expression of
/// type `&S`), or the place itself (`Value`, `self.field`).
enum Place {
    Ref(TokenStream),
    Value(TokenStream),
}

impl Place {
    /// The value, for `Copy` types.
    fn value(&self) -> TokenStream {
        match self {
            Place::Ref(r) => quote!(*#r),
            Place::Value(p) => p.clone(),
        }
    }

    /// A receiver of methods (which dereference it themselves).
    fn receiver(&self) -> TokenStream {
        match self {
            Place::Ref(r) | Place::Value(r) => r.clone(),
        }
    }

    /// A reference to the value.
    fn reference(&self) -> TokenStream {
        match self {
            Place::Ref(r) => r.clone(),
            Place::Value(p) => quote!(&#p),
        }
    }

    /// A reference to what the value dereferences to (`&str` of a
    /// `String`, `&T` of a `Box<T>`).
    fn deref(&self) -> TokenStream {
        match self {
            Place::Ref(r) => quote!(&**#r),
            Place::Value(p) => quote!(&*#p),
        }
    }
}

/// The items of a list (or keys and values of a map): values made by the
/// expression (`Native`), or a field's values as stored.
#[derive(Clone)]
enum Item {
    Native(Ty),
    Stored(Kind, FieldDescriptor),
}

struct Compiler<'r, 'a, 's> {
    rule: &'r CelRule,
    models: &'a Models<'a>,
    statics: &'s mut Statics,
    scope: &'a [String],
    /// Variables in scope, innermost last: their CEL names and code.
    locals: Vec<(String, Code)>,
    uses_now: bool,
    fresh: usize,
}

fn ok(t: TokenStream) -> TokenStream {
    quote!(::core::result::Result::Ok(#t))
}

impl Compiler<'_, '_, '_> {
    fn ident(&mut self, base: &str) -> Ident {
        self.fresh += 1;
        format_ident!("{}{}", base, self.fresh)
    }

    fn this(&mut self, this: This<'_>) -> Result<Code, String> {
        Ok(match this {
            This::Message(descriptor) => Code::present(quote!(self), descriptor.clone()),
            This::Whole(field, descriptor) => match &field.shape {
                Shape::Repeated { kind, .. } => Code::new(
                    quote!(&value[..]),
                    Ty::List(Box::new(Item::Stored(kind.clone(), descriptor.clone()))),
                ),
                Shape::Map { key, value, .. } => {
                    let (k, v) = entry_fields(descriptor)?;
                    Code::new(
                        quote!(::core::option::Option::Some(value)),
                        Ty::Map(
                            Box::new(Item::Stored(key.clone(), k)),
                            Box::new(Item::Stored(value.clone(), v)),
                        ),
                    )
                }
                _ => return Err("a whole-field rule on a field that is neither repeated nor a map".into()),
            },
            This::Value(Some(kind), descriptor) => self.read(&kind, descriptor, &Place::Ref(quote!(value)))?,
            This::Value(None, _) => return Err("a rule on a value of unknown type".into()),
        })
    }

    fn expr(&mut self, e: &Expr) -> Result<Code, String> {
        if let Some(folded) = self.fold(e) {
            return Ok(folded);
        }
        match &e.kind {
            ExprKind::Const(c) => literal(&constant_value(c)).ok_or_else(|| "a constant with no Rust form".into()),
            ExprKind::Ident(name) => self.variable(name),
            ExprKind::Select { operand, field, test } => {
                let operand = self.expr(operand)?;
                if *test {
                    self.has(operand, field)
                } else {
                    self.select(operand, field)
                }
            }
            ExprKind::Call { target, function, args } => self.call(target.as_deref(), function, args),
            ExprKind::List { elements, optional } => {
                if !optional.is_empty() {
                    return Err("optional list elements are not compiled".into());
                }
                let items = elements.iter().map(|e| self.expr(e)).collect::<Result<Vec<_>, _>>()?;
                self.list(items)
            }
            ExprKind::Map(entries) => {
                let mut pairs = Vec::new();
                let mut fallible = false;
                for entry in entries {
                    if entry.optional {
                        return Err("optional map entries are not compiled".into());
                    }
                    let (k, v) = (self.expr(&entry.key)?, self.expr(&entry.value)?);
                    fallible |= k.fallible || v.fallible;
                    let (k, v) = (self.value(&k)?, self.value(&v)?);
                    pairs.push(quote!((#k, #v)));
                }
                Ok(Code::new(quote!(__c::map(::std::vec![#(#pairs),*])), Ty::Value).or_fallible(fallible))
            }
            ExprKind::Struct { type_name, .. } => {
                Err(format!("the message literal `{type_name}{{...}}` is not compiled"))
            }
            ExprKind::Comprehension(c) => self.comprehension(c),
        }
    }

    /// `e` as a literal, if it uses neither `this`, `now` nor a variable
    /// of an enclosing comprehension, and evaluates here to a value with a
    /// Rust form.
    fn fold(&self, e: &Expr) -> Option<Code> {
        if matches!(e.kind, ExprKind::Const(_)) {
            return None;
        }
        let mut free = false;
        e.walk(&mut |n| {
            if let ExprKind::Ident(name) = &n.kind {
                let root = name.split('.').next().unwrap_or_default();
                free |= root == "now" || self.locals.iter().any(|(l, _)| l == root);
            }
        });
        if free {
            return None;
        }
        let program = self.rule.env.plan(e);
        let rules = self.rule.rules.as_ref().map(|r| Value::Message(Msg::Owned(r.clone())));
        let mut bindings: Vec<(&str, Value<'static>)> = Vec::new();
        if let Some(rules) = rules {
            bindings.push(("rules", rules));
        }
        if let Some(rule) = &self.rule.rule {
            bindings.push(("rule", rule.clone()));
        }
        let value = program.eval(&bindings[..]).ok()?.detach();
        let mut code = literal(&value)?;
        code.constant = Some(value);
        Some(code)
    }

    fn variable(&mut self, name: &str) -> Result<Code, String> {
        if name == "now" {
            self.uses_now = true;
            return Ok(Code::new(quote!(now), Ty::Timestamp));
        }
        match self.locals.iter().rev().find(|(n, _)| n == name) {
            Some((_, code)) => Ok(code.clone()),
            None => Err(format!("`{name}` has no compiled form")),
        }
    }

    /// A list literal: an array of one plain kind, else a list value.
    fn list(&mut self, items: Vec<Code>) -> Result<Code, String> {
        let fallible = items.iter().any(|c| c.fallible);
        if let Some(first) = items.first() {
            if items.iter().all(|c| c.ty.same_plain(&first.ty)) {
                let ty = first.ty.clone();
                let ts = items.iter().map(|c| match ty {
                    Ty::Str | Ty::Bytes => {
                        let t = &c.t;
                        quote!(&*(#t))
                    }
                    _ => c.t.clone(),
                });
                return Ok(Code::new(quote!([#(#ts),*]), Ty::List(Box::new(Item::Native(ty)))).or_fallible(fallible));
            }
        }
        let values = items.iter().map(|c| self.value(c)).collect::<Result<Vec<_>, _>>()?;
        Ok(Code::new(quote!(__c::list(::std::vec![#(#values),*])), Ty::Value).or_fallible(fallible))
    }

    /// A value held as `kind` (by the model) at `at`.
    fn read(&mut self, kind: &Kind, field: &FieldDescriptor, at: &Place) -> Result<Code, String> {
        let (value, receiver, reference) = (at.value(), at.receiver(), at.reference());
        Ok(match kind {
            Kind::Scalar(s) => match s {
                Scalar::Bool => Code::new(value, Ty::Bool),
                Scalar::Float | Scalar::Double => Code::new(quote!(f64::from(#value)), Ty::Double),
                Scalar::Uint32 | Scalar::Fixed32 | Scalar::Uint64 | Scalar::Fixed64 => {
                    Code::new(quote!(u64::from(#value)), Ty::Uint)
                }
                _ => Code::new(quote!(i64::from(#value)), Ty::Int),
            },
            Kind::String { checked: true } => Code::new(at.deref(), Ty::Str),
            Kind::String { checked: false } => Code::new(quote!(__c::lax(#reference)), Ty::Str),
            Kind::Bytes { .. } => Code::new(at.deref(), Ty::Bytes),
            Kind::Enum { closed: false, .. } => Code::new(quote!(i64::from(#receiver.to_i32())), Ty::Int),
            Kind::Enum { closed: true, .. } => Code::new(quote!(i64::from(::fastrs::Enum::to_i32(#value))), Ty::Int),
            Kind::Message { boxed, .. } => {
                let message = message_type(field)?;
                let r = if *boxed { at.deref() } else { reference };
                match message.full_name() {
                    "google.protobuf.Timestamp" => Code::fallible(quote!(__c::timestamp(#r)?), Ty::Timestamp),
                    "google.protobuf.Duration" => Code::new(quote!(__v::duration(#r)), Ty::Duration),
                    name => match wrapper(name) {
                        Some(ty) => {
                            let inner = quote!(#receiver.value);
                            match ty {
                                Ty::Str | Ty::Bytes => Code::new(quote!(&*#inner), ty),
                                Ty::Bool => Code::new(inner, ty),
                                Ty::Int => Code::new(quote!(i64::from(#inner)), ty),
                                Ty::Uint => Code::new(quote!(u64::from(#inner)), ty),
                                _ => Code::new(quote!(f64::from(#inner)), ty),
                            }
                        }
                        None if dynamic_message(name) => {
                            Code::fallible(quote!(__c::message(::core::option::Option::Some(#r))?), Ty::Value)
                        }
                        None => Code::present(r, message),
                    },
                }
            }
        })
    }

    /// A value held as `kind` that may be absent, `option` an
    /// `Option<&S>` of it: what CEL reads (a message type's default
    /// instance, a wrapper's `null`, a scalar's zero when absent).
    fn optional(&mut self, kind: &Kind, field: &FieldDescriptor, option: TokenStream) -> Result<Code, String> {
        let x = self.ident("x");
        let present = self.read(kind, field, &Place::Ref(quote!(#x)))?;
        if let Kind::Message { boxed, .. } = kind {
            let name = message_type(field)?;
            if wrapper(name.full_name()).is_some() {
                // A wrapper reads as its value when set, else as null.
                let value = self.value(&present)?;
                let t = quote!(match #option {
                    ::core::option::Option::Some(#x) => #value,
                    ::core::option::Option::None => __c::Value::Null,
                });
                return Ok(Code::new(t, Ty::Value).or_fallible(present.fallible));
            }
            if let Ty::Msg(d) = &present.ty {
                // `Option<&T>` as it is.
                let t = if *boxed {
                    quote!(#option.map(|#x| &**#x))
                } else {
                    option
                };
                return Ok(Code::new(t, Ty::Msg(d.clone())));
            }
            if matches!(present.ty, Ty::Value) {
                let t = &present.t;
                let t = quote!(match #option {
                    ::core::option::Option::Some(#x) => #t,
                    ::core::option::Option::None => __c::message::<_>(::core::option::Option::None)?,
                });
                return Ok(Code::fallible(t, Ty::Value));
            }
        }
        let default = default_of(&present.ty);
        let t = &present.t;
        Ok(if present.fallible {
            Code::fallible(
                quote!(match #option { ::core::option::Option::Some(#x) => #t, ::core::option::Option::None => #default }),
                present.ty.clone(),
            )
        } else {
            Code::new(quote!(#option.map_or(#default, |#x| #t)), present.ty.clone())
        })
    }

    /// `operand.name`.
    fn select(&mut self, operand: Code, name: &str) -> Result<Code, String> {
        match &operand.ty {
            Ty::Msg(descriptor) => match self.models.get(descriptor.full_name()) {
                Some(model) => self.field(&operand, descriptor, model, name),
                None => {
                    let v = self.value(&operand)?;
                    Ok(Code::fallible(quote!(__c::select(#v, #name)?), Ty::Value))
                }
            },
            Ty::Map(..) => {
                let key = literal(&Value::string(name)).unwrap_or_else(|| unreachable!());
                self.map_index(operand, key)
            }
            _ => {
                let v = self.value(&operand)?;
                Ok(Code::fallible(quote!(__c::select(#v, #name)?), Ty::Value))
            }
        }
    }

    /// A field of a generated message.
    fn field(
        &mut self,
        operand: &Code,
        descriptor: &MessageDescriptor,
        model: &Message,
        name: &str,
    ) -> Result<Code, String> {
        let Some(fd) = descriptor.get_field_by_name(name) else {
            // What the checker lets through a `dyn()` fails at run time.
            return Ok(no_such_field(name));
        };
        let (field, oneof) = model_field(model, fd.number(), self.scope)?;
        let ident = &field.ident;
        let code = match &field.shape {
            Shape::Implicit(kind) => {
                self.on_message(operand, |c, m| c.read(kind, &fd, &Place::Value(quote!(#m.#ident))))?
            }
            // A proto2 string is read whole (the getter gives its text),
            // its declared default when unset.
            Shape::Optional(Kind::String { checked: false }) => {
                let default = match &field.default {
                    Some(DefaultValue::Literal(t)) => t.clone(),
                    _ => quote!(""),
                };
                let x = self.ident("x");
                let option = self.chain(operand, |m| quote!(#m.#ident.as_ref()));
                Code::new(
                    quote!(match #option {
                        ::core::option::Option::Some(#x) => __c::lax(#x),
                        ::core::option::Option::None => ::std::borrow::Cow::Borrowed(#default),
                    }),
                    Ty::Str,
                )
            }
            // The getter gives the declared default when unset.
            Shape::Optional(
                kind @ (Kind::Scalar(_) | Kind::String { .. } | Kind::Bytes { .. } | Kind::Enum { .. }),
            ) => self.on_message(operand, |c, m| c.read(kind, &fd, &Place::Value(quote!(#m.#ident()))))?,
            Shape::Optional(kind) => {
                let option = self.chain(operand, |m| quote!(#m.#ident.as_ref()));
                self.optional(kind, &fd, option)?
            }
            Shape::Repeated { kind, .. } => {
                let item = Item::Stored(kind.clone(), fd.clone());
                let t = match operand.present {
                    true => {
                        let m = &operand.t;
                        quote!(&#m.#ident[..])
                    }
                    false => {
                        let m = &operand.t;
                        quote!(#m.map_or(&[][..], |m| &m.#ident[..]))
                    }
                };
                Code::new(t, Ty::List(Box::new(item)))
            }
            Shape::Map { key, value, .. } => {
                let (k, v) = entry_fields(&fd)?;
                let t = self.chain(operand, |m| quote!(::core::option::Option::Some(&#m.#ident)));
                Code::new(
                    t,
                    Ty::Map(
                        Box::new(Item::Stored(key.clone(), k)),
                        Box::new(Item::Stored(value.clone(), v)),
                    ),
                )
            }
            Shape::OneofMember(kind) => {
                let (holder, path) = oneof.ok_or("a oneof member outside its oneof")?;
                let x = self.ident("x");
                let option = self.chain(operand, |m| {
                    quote!(match &#m.#holder {
                        ::core::option::Option::Some(#path::#ident(#x)) => ::core::option::Option::Some(#x),
                        _ => ::core::option::Option::None,
                    })
                });
                self.optional(kind, &fd, option)?
            }
        };
        Ok(code.or_fallible(operand.fallible))
    }

    /// `read(m)` on the message of `operand`: directly if it is present,
    /// else its type's default when it is not.
    fn on_message(
        &mut self,
        operand: &Code,
        read: impl FnOnce(&mut Self, &TokenStream) -> Result<Code, String>,
    ) -> Result<Code, String> {
        if operand.present {
            return read(self, &operand.t);
        }
        let m = self.ident("m");
        let inner = read(self, &quote!(#m))?;
        let (o, t, default) = (&operand.t, &inner.t, default_of(&inner.ty));
        Ok(if inner.fallible {
            Code::fallible(
                quote!(match #o { ::core::option::Option::Some(#m) => #t, ::core::option::Option::None => #default }),
                inner.ty.clone(),
            )
        } else {
            Code::new(quote!(#o.map_or(#default, |#m| #t)), inner.ty.clone())
        })
    }

    /// An `Option` from the message of `operand`: `then(m)` (itself an
    /// `Option`) if present, else chained on the operand's `Option`.
    fn chain(&mut self, operand: &Code, then: impl FnOnce(&TokenStream) -> TokenStream) -> TokenStream {
        let o = &operand.t;
        if operand.present {
            return then(o);
        }
        let m = self.ident("m");
        let inner = then(&quote!(#m));
        quote!(#o.and_then(|#m| #inner))
    }

    /// `has(operand.name)`.
    fn has(&mut self, operand: Code, name: &str) -> Result<Code, String> {
        let descriptor = match &operand.ty {
            Ty::Msg(d) => d.clone(),
            Ty::Map(..) => {
                let key = literal(&Value::string(name)).unwrap_or_else(|| unreachable!());
                return self.contains_key(&operand, &key);
            }
            _ => {
                let v = self.value(&operand)?;
                return Ok(Code::fallible(quote!(__c::has(&#v, #name)?), Ty::Bool));
            }
        };
        let Some(model) = self.models.get(descriptor.full_name()) else {
            let v = self.value(&operand)?;
            return Ok(Code::fallible(quote!(__c::has(&#v, #name)?), Ty::Bool));
        };
        let Some(fd) = descriptor.get_field_by_name(name) else {
            return Ok(no_such_field(name));
        };
        let (field, oneof) = model_field(model, fd.number(), self.scope)?;
        let ident = &field.ident;
        let set = |m: &TokenStream| -> Result<TokenStream, String> {
            Ok(match &field.shape {
                Shape::Implicit(kind) => crate::emit::tokens::is_set(kind, &quote!(#m.#ident)),
                Shape::Optional(_) => quote!(#m.#ident.is_some()),
                Shape::Repeated { .. } | Shape::Map { .. } => quote!(!#m.#ident.is_empty()),
                Shape::OneofMember(_) => {
                    let (holder, path) = oneof.clone().ok_or("a oneof member outside its oneof")?;
                    quote!(::core::matches!(&#m.#holder, ::core::option::Option::Some(#path::#ident(_))))
                }
            })
        };
        let o = &operand.t;
        let t = if operand.present {
            set(o)?
        } else {
            let m = self.ident("m");
            let inner = set(&quote!(#m))?;
            quote!(#o.is_some_and(|#m| #inner))
        };
        let compound = operand.present
            && matches!(
                field.shape,
                Shape::Implicit(_) | Shape::Repeated { .. } | Shape::Map { .. }
            );
        let code = if compound {
            Code::op(t, Ty::Bool)
        } else {
            Code::new(t, Ty::Bool)
        };
        Ok(code.or_fallible(operand.fallible))
    }

    /// The code of a value as a `cel::Value`.
    fn value(&mut self, c: &Code) -> Result<TokenStream, String> {
        let t = &c.t;
        Ok(match &c.ty {
            Ty::Bool => quote!(__c::Value::Bool(#t)),
            Ty::Int => quote!(__c::Value::Int(#t)),
            Ty::Uint => quote!(__c::Value::Uint(#t)),
            Ty::Double => quote!(__c::Value::Double(#t)),
            Ty::Str => quote!(__c::string(&*(#t))),
            Ty::Bytes => quote!(__c::bytes(&*(#t))),
            Ty::Timestamp => quote!(__c::Value::Timestamp(#t)),
            Ty::Duration => quote!(__c::Value::Duration(#t)),
            Ty::Msg(d) => {
                if !self.models.described && self.models.get(d.full_name()).is_some() {
                    return Err(format!(
                        "reading {} as a dynamic value needs its descriptors: generate with descriptors=true",
                        d.full_name()
                    ));
                }
                let option = c.option();
                quote!(__c::message(#option)?)
            }
            Ty::List(item) => {
                let x = self.ident("x");
                let read = self.item(item, &Place::Ref(quote!(#x)))?;
                let v = self.value(&read)?;
                quote!(__c::list((#t).iter().map(|#x| -> __c::Out<__c::Value<'_>> { ::core::result::Result::Ok(#v) }).collect::<__c::Out<::std::vec::Vec<_>>>()?))
            }
            Ty::Map(key, val) => {
                let (k, v) = (self.ident("k"), self.ident("v"));
                let (kr, vr) = (
                    self.item(key, &Place::Ref(quote!(#k)))?,
                    self.item(val, &Place::Ref(quote!(#v)))?,
                );
                let (kv, vv) = (self.value(&kr)?, self.value(&vr)?);
                quote!(__c::map((#t).into_iter().flatten().map(|(#k, #v)| -> __c::Out<(__c::Value<'_>, __c::Value<'_>)> { ::core::result::Result::Ok((#kv, #vv)) }).collect::<__c::Out<::std::vec::Vec<_>>>()?))
            }
            Ty::Value => t.clone(),
        })
    }

    /// An item of a list or map, at `x`.
    fn item(&mut self, item: &Item, x: &Place) -> Result<Code, String> {
        match item {
            Item::Stored(kind, field) => self.read(kind, field, x),
            Item::Native(ty) => Ok(match ty {
                Ty::Str | Ty::Bytes => Code::new(x.deref(), ty.clone()),
                Ty::Value => {
                    let r = x.receiver();
                    Code::new(quote!(#r.clone()), Ty::Value)
                }
                Ty::List(_) | Ty::Map(..) => return Err("lists of lists are not compiled".into()),
                _ => Code::new(x.value(), ty.clone()),
            }),
        }
    }

    fn condition(&mut self, c: &Code) -> Result<Code, String> {
        match &c.ty {
            Ty::Bool => Ok(c.clone()),
            Ty::Value => {
                let t = &c.t;
                Ok(Code::fallible(quote!(__c::to_bool(&#t)?), Ty::Bool))
            }
            _ => Err("a condition that is not a bool".into()),
        }
    }

    fn call(&mut self, target: Option<&Expr>, function: &str, args: &[Expr]) -> Result<Code, String> {
        match (function, target, args) {
            (op::AND | op::OR, None, [a, b]) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                self.logical(function == op::AND, &a, &b)
            }
            (op::NOT, None, [a]) => {
                let a = self.expr(a)?;
                let a = self.condition(&a)?;
                let t = a.operand();
                Ok(Code::new(quote!(!#t), Ty::Bool).or_fallible(a.fallible))
            }
            (op::CONDITIONAL, None, [c, a, b]) => {
                let c = self.expr(c)?;
                let c = self.condition(&c)?;
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                self.conditional(&c, a, b)
            }
            (op::NEGATE, None, [a]) => {
                let a = self.expr(a)?;
                let (t, o) = (&a.t, a.operand());
                match a.ty {
                    Ty::Int => Ok(Code::fallible(quote!(__c::neg_int(#t)?), Ty::Int)),
                    Ty::Double => Ok(Code::new(quote!(-#o), Ty::Double).or_fallible(a.fallible)),
                    _ => self.dynamic(function, &[a]),
                }
            }
            (op::EQUALS | op::NOT_EQUALS, None, [a, b]) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                if function == op::NOT_EQUALS && a.ty.same_plain(&b.ty) {
                    let fallible = a.fallible || b.fallible;
                    let (ao, bo) = (a.operand(), b.operand());
                    let t = quote!(#ao != #bo);
                    return Ok(Code::op(t, Ty::Bool).or_fallible(fallible));
                }
                let eq = self.equals(&a, &b)?;
                if function == op::EQUALS {
                    return Ok(eq);
                }
                let t = eq.operand();
                Ok(Code::new(quote!(!#t), Ty::Bool).or_fallible(eq.fallible))
            }
            (op::LESS | op::LESS_EQUALS | op::GREATER | op::GREATER_EQUALS, None, [a, b]) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                self.compare(function, &a, &b)
            }
            (op::ADD | op::SUBTRACT | op::MULTIPLY | op::DIVIDE | op::MODULO, None, [a, b]) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                self.arithmetic(function, a, b)
            }
            (op::IN, None, [a, b]) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                self.contains(&a, b)
            }
            (op::INDEX, None, [a, b]) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                self.index(a, b)
            }
            ("dyn", None, [a]) => self.expr(a),
            ("size", None, [a]) | ("size", Some(a), []) => {
                let a = self.expr(a)?;
                self.size(a)
            }
            (_, Some(target), _) => {
                let target = self.expr(target)?;
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>, _>>()?;
                self.method(function, target, args)
            }
            _ => {
                let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>, _>>()?;
                self.global(function, args)
            }
        }
    }

    /// `a && b`, `a || b`, absorbing errors as CEL does.
    fn logical(&mut self, and: bool, a: &Code, b: &Code) -> Result<Code, String> {
        let (a, b) = (self.condition(a)?, self.condition(b)?);
        let (at, bt) = (&a.t, &b.t);
        if !a.fallible {
            // Rust's short circuit is CEL's when the left side cannot fail.
            let (ao, bo) = (a.operand(), b.operand());
            let t = if and { quote!(#ao && #bo) } else { quote!(#ao || #bo) };
            return Ok(Code::op(t, Ty::Bool).or_fallible(b.fallible));
        }
        let f = if and { quote!(__c::and) } else { quote!(__c::or) };
        let (l, r) = (ok(at.clone()), ok(bt.clone()));
        Ok(Code::fallible(
            quote!(#f((|| -> __c::Out<bool> { #l })(), || -> __c::Out<bool> { #r })?),
            Ty::Bool,
        ))
    }

    fn conditional(&mut self, c: &Code, a: Code, b: Code) -> Result<Code, String> {
        let fallible = c.fallible || a.fallible || b.fallible;
        let ct = &c.t;
        let (ty, at, bt) = match (&a.ty, &b.ty) {
            (x, y) if x.is_plain() && x.same_plain(y) => (a.ty.clone(), a.t.clone(), b.t.clone()),
            (Ty::Str, Ty::Str) => {
                let (at, bt) = (&a.t, &b.t);
                (
                    Ty::Str,
                    quote!(::std::borrow::Cow::<str>::from(#at)),
                    quote!(::std::borrow::Cow::<str>::from(#bt)),
                )
            }
            (Ty::Bytes, Ty::Bytes) => {
                let (at, bt) = (&a.t, &b.t);
                (
                    Ty::Bytes,
                    quote!(::std::borrow::Cow::<[u8]>::from(#at)),
                    quote!(::std::borrow::Cow::<[u8]>::from(#bt)),
                )
            }
            (Ty::Msg(x), Ty::Msg(y)) if x == y => (a.ty.clone(), a.option(), b.option()),
            _ => (Ty::Value, self.value(&a)?, self.value(&b)?),
        };
        Ok(Code::op(quote!(if #ct { #at } else { #bt }), ty).or_fallible(fallible))
    }

    fn equals(&mut self, a: &Code, b: &Code) -> Result<Code, String> {
        let fallible = a.fallible || b.fallible;
        if a.ty.same_plain(&b.ty) {
            let (ao, bo) = (a.operand(), b.operand());
            let t = quote!(#ao == #bo);
            return Ok(Code::op(t, Ty::Bool).or_fallible(fallible));
        }
        let (av, bv) = (self.value(a)?, self.value(b)?);
        Ok(Code::new(quote!(__c::equals(&#av, &#bv)), Ty::Bool).or_fallible(fallible || self.value_fallible(a, b)))
    }

    /// True if reading `a` or `b` as values can fail (messages are
    /// transcoded, lists read item by item).
    fn value_fallible(&self, a: &Code, b: &Code) -> bool {
        let dynamic = |c: &Code| matches!(c.ty, Ty::Msg(_) | Ty::List(_) | Ty::Map(..));
        dynamic(a) || dynamic(b)
    }

    fn compare(&mut self, function: &str, a: &Code, b: &Code) -> Result<Code, String> {
        let fallible = a.fallible || b.fallible;
        let (at, bt) = (&a.t, &b.t);
        let ordered = a.ty.same_plain(&b.ty) && !matches!(a.ty, Ty::Str | Ty::Bytes)
            || matches!((&a.ty, &b.ty), (Ty::Str, Ty::Str) | (Ty::Bytes, Ty::Bytes));
        if ordered {
            let (l, r) = match a.ty {
                Ty::Str | Ty::Bytes => (quote!(*(#at)), quote!(*(#bt))),
                _ => (a.operand(), b.operand()),
            };
            let t = match function {
                op::LESS => quote!(#l < #r),
                op::LESS_EQUALS => quote!(#l <= #r),
                op::GREATER => quote!(#l > #r),
                _ => quote!(#l >= #r),
            };
            return Ok(Code::op(t, Ty::Bool).or_fallible(fallible));
        }
        let (av, bv) = (self.value(a)?, self.value(b)?);
        let t = match function {
            op::LESS => quote!(__c::less(&#av, &#bv)?),
            op::LESS_EQUALS => quote!(__c::less_equal(&#av, &#bv)?),
            op::GREATER => quote!(__c::less(&#bv, &#av)?),
            _ => quote!(__c::less_equal(&#bv, &#av)?),
        };
        Ok(Code::fallible(t, Ty::Bool))
    }

    fn arithmetic(&mut self, function: &str, a: Code, b: Code) -> Result<Code, String> {
        let fallible = a.fallible || b.fallible;
        let (at, bt) = (&a.t, &b.t);
        let checked = |name: &str, ty: Ty| {
            let f = format_ident!("{}", name);
            Code::fallible(quote!(__c::#f(#at, #bt)?), ty)
        };
        let plain = |t: TokenStream, ty: Ty| Code::new(t, ty).or_fallible(fallible);
        let (ao, bo) = (a.operand(), b.operand());
        let infix = |t: TokenStream| Code::op(t, Ty::Double).or_fallible(fallible);
        Ok(match (function, &a.ty, &b.ty) {
            (op::ADD, Ty::Int, Ty::Int) => checked("add_int", Ty::Int),
            (op::SUBTRACT, Ty::Int, Ty::Int) => checked("sub_int", Ty::Int),
            (op::MULTIPLY, Ty::Int, Ty::Int) => checked("mul_int", Ty::Int),
            (op::DIVIDE, Ty::Int, Ty::Int) => checked("div_int", Ty::Int),
            (op::MODULO, Ty::Int, Ty::Int) => checked("rem_int", Ty::Int),
            (op::ADD, Ty::Uint, Ty::Uint) => checked("add_uint", Ty::Uint),
            (op::SUBTRACT, Ty::Uint, Ty::Uint) => checked("sub_uint", Ty::Uint),
            (op::MULTIPLY, Ty::Uint, Ty::Uint) => checked("mul_uint", Ty::Uint),
            (op::DIVIDE, Ty::Uint, Ty::Uint) => checked("div_uint", Ty::Uint),
            (op::MODULO, Ty::Uint, Ty::Uint) => checked("rem_uint", Ty::Uint),
            (op::ADD, Ty::Double, Ty::Double) => infix(quote!(#ao + #bo)),
            (op::SUBTRACT, Ty::Double, Ty::Double) => infix(quote!(#ao - #bo)),
            (op::MULTIPLY, Ty::Double, Ty::Double) => infix(quote!(#ao * #bo)),
            (op::DIVIDE, Ty::Double, Ty::Double) => infix(quote!(#ao / #bo)),
            (op::ADD, Ty::Str, Ty::Str) => plain(quote!(__c::concat(&*(#at), &*(#bt))), Ty::Str),
            (op::ADD, Ty::Bytes, Ty::Bytes) => plain(quote!(__c::concat_bytes(&*(#at), &*(#bt))), Ty::Bytes),
            (op::ADD, Ty::Timestamp, Ty::Duration) | (op::ADD, Ty::Duration, Ty::Duration) => {
                Code::fallible(quote!((#at).checked_add(#bt)?), a.ty.clone())
            }
            (op::ADD, Ty::Duration, Ty::Timestamp) => Code::fallible(quote!((#bt).checked_add(#at)?), Ty::Timestamp),
            (op::SUBTRACT, Ty::Timestamp, Ty::Timestamp) => Code::fallible(quote!((#at).since(#bt)?), Ty::Duration),
            (op::SUBTRACT, Ty::Timestamp | Ty::Duration, Ty::Duration) => {
                Code::fallible(quote!((#at).checked_sub(#bt)?), a.ty.clone())
            }
            _ => return self.dynamic(function, &[a, b]),
        })
    }

    /// `a in b`.
    fn contains(&mut self, a: &Code, b: Code) -> Result<Code, String> {
        match &b.ty {
            Ty::List(item) => {
                let item = (**item).clone();
                let x = self.ident("x");
                let needle = self.ident("needle");
                let read = self.item(&item, &Place::Ref(quote!(#x)))?;
                let eq = self.equals(
                    &Code {
                        t: quote!(#needle),
                        ..a.clone()
                    }
                    .settled(),
                    &read,
                )?;
                let (at, bt, et) = (&a.t, &b.t, &eq.t);
                let t = if eq.fallible {
                    quote!({ let #needle = #at; __c::exists((#bt).iter(), |#x| -> __c::Out<bool> { ::core::result::Result::Ok(#et) })? })
                } else {
                    quote!({ let #needle = #at; (#bt).iter().any(|#x| #et) })
                };
                Ok(Code::new(t, Ty::Bool).or_fallible(a.fallible || b.fallible || eq.fallible))
            }
            Ty::Map(..) => self.contains_key(&b, a),
            _ => self.dynamic(op::IN, &[a.clone(), b]),
        }
    }

    /// True if map `m` holds `key`.
    fn contains_key(&mut self, m: &Code, key: &Code) -> Result<Code, String> {
        let Ty::Map(k, _) = &m.ty else {
            return Err("a key test on what is not a map".into());
        };
        let k = (**k).clone();
        let (kx, needle) = (self.ident("k"), self.ident("needle"));
        let read = self.item(&k, &Place::Ref(quote!(#kx)))?;
        let eq = self.equals(
            &Code {
                t: quote!(#needle),
                ..key.clone()
            }
            .settled(),
            &read,
        )?;
        let (kt, mt, et) = (&key.t, &m.t, &eq.t);
        let t = if eq.fallible {
            quote!({ let #needle = #kt; __c::exists((#mt).into_iter().flatten().map(|(k, _)| k), |#kx| -> __c::Out<bool> { ::core::result::Result::Ok(#et) })? })
        } else {
            quote!({ let #needle = #kt; (#mt).into_iter().flatten().any(|(#kx, _)| #et) })
        };
        Ok(Code::new(t, Ty::Bool).or_fallible(key.fallible || m.fallible || eq.fallible))
    }

    /// `a[b]`.
    fn index(&mut self, a: Code, b: Code) -> Result<Code, String> {
        match (&a.ty, &b.ty) {
            (Ty::List(item), Ty::Int | Ty::Uint) => {
                let item = (**item).clone();
                let (at, bt) = (&a.t, &b.t);
                let r = quote!(__c::index(&(#at)[..], i128::from(#bt))?);
                let read = self.item(&item, &Place::Ref(r))?;
                Ok(read.or_fallible(true))
            }
            (Ty::Map(..), _) => self.map_index(a, b),
            _ => self.dynamic(op::INDEX, &[a, b]),
        }
    }

    /// `m[key]`: the value, or an error if the map does not hold the key.
    fn map_index(&mut self, m: Code, key: Code) -> Result<Code, String> {
        let Ty::Map(k, v) = &m.ty else {
            return Err("an index into what is not a map".into());
        };
        let (k, v) = ((**k).clone(), (**v).clone());
        let (kx, vx, needle) = (self.ident("k"), self.ident("v"), self.ident("needle"));
        let read_key = self.item(&k, &Place::Ref(quote!(#kx)))?;
        let eq = self.equals(
            &Code {
                t: quote!(#needle),
                ..key.clone()
            }
            .settled(),
            &read_key,
        )?;
        if eq.fallible {
            return self.dynamic(op::INDEX, &[m, key]);
        }
        let found = self.ident("found");
        let read_value = self.item(&v, &Place::Ref(quote!(#found)))?;
        let missing = self.value(
            &Code {
                t: quote!(#needle),
                ..key.clone()
            }
            .settled(),
        )?;
        let (kt, mt, et, vt) = (&key.t, &m.t, &eq.t, &read_value.t);
        Ok(Code {
            t: quote!({
                let #needle = #kt;
                match (#mt).into_iter().flatten().find(|&(#kx, _)| #et) {
                    ::core::option::Option::Some((_, #vx)) => { let #found = #vx; #vt }
                    ::core::option::Option::None => return ::core::result::Result::Err(__c::no_such_key(&#missing)),
                }
            }),
            fallible: true,
            ..read_value.clone()
        })
    }

    fn size(&mut self, a: Code) -> Result<Code, String> {
        let t = &a.t;
        let code = match &a.ty {
            Ty::Str => quote!(__c::size_str(&*(#t))),
            Ty::Bytes | Ty::List(_) => quote!(__c::size((#t).len())),
            Ty::Map(..) => quote!(__c::size((#t).map_or(0, |m| m.len()))),
            _ => return self.dynamic("size", &[a]),
        };
        Ok(Code::new(code, Ty::Int).or_fallible(a.fallible))
    }

    /// `target.function(args)`.
    fn method(&mut self, function: &str, target: Code, args: Vec<Code>) -> Result<Code, String> {
        let t = target.t.clone();
        let fallible = target.fallible || args.iter().any(|a| a.fallible);
        let constant = |i: usize| args.get(i).and_then(|a| a.constant.clone());
        let native = match (function, &target.ty, args.as_slice()) {
            ("contains" | "startsWith" | "endsWith", Ty::Str, [arg]) if matches!(arg.ty, Ty::Str) => {
                let a = &arg.t;
                let f = match function {
                    "contains" => quote!(contains),
                    "startsWith" => quote!(starts_with),
                    _ => quote!(ends_with),
                };
                Some(quote!((&*(#t)).#f(&*(#a))))
            }
            ("matches", Ty::Str, [arg]) => match constant(0) {
                Some(Value::String(p)) if fastrs::cel::regex::build(&p).is_ok() => {
                    let pattern = self.statics.pattern(&p);
                    Some(quote!(#pattern.matches(&*(#t))))
                }
                _ if matches!(arg.ty, Ty::Str) => {
                    let a = &arg.t;
                    return Ok(Code::fallible(quote!(__c::matches(&*(#t), &*(#a))?), Ty::Bool));
                }
                _ => None,
            },
            ("isNan", Ty::Double, []) => Some(quote!((#t).is_nan())),
            ("isInf", Ty::Double, []) => Some(quote!((#t).is_infinite())),
            ("unique", Ty::List(item), []) => self.unique(item, &t)?,
            (name, Ty::Str, _) => {
                let constants: Vec<_> = args.iter().map(|a| a.constant.clone()).collect();
                format_check(name, &constants).map(|(f, rest)| quote!(__c::formats::#f(&*(#t) #rest)))
            }
            _ => None,
        };
        match native {
            Some(code) => Ok(Code::new(code, Ty::Bool).or_fallible(fallible)),
            None => {
                let mut all = vec![target];
                all.extend(args);
                self.dynamic(function, &all)
            }
        }
    }

    /// `list.unique()`, natively for lists of plain items.
    fn unique(&mut self, item: &Item, list: &TokenStream) -> Result<Option<TokenStream>, String> {
        let x = self.ident("x");
        let read = self.item(item, &Place::Ref(quote!(#x)))?;
        if read.fallible {
            return Ok(None);
        }
        let r = &read.t;
        Ok(match read.ty {
            Ty::Double => Some(quote!(__v::unique_floats((#list).iter().map(|#x| #r)))),
            Ty::Bool | Ty::Int | Ty::Uint | Ty::Str | Ty::Bytes | Ty::Timestamp | Ty::Duration => {
                Some(quote!(__v::unique(&(#list).iter().map(|#x| #r).collect::<::std::vec::Vec<_>>())))
            }
            _ => None,
        })
    }

    /// `function(args)`.
    fn global(&mut self, function: &str, args: Vec<Code>) -> Result<Code, String> {
        match (function, args.as_slice()) {
            ("int", [a]) if matches!(a.ty, Ty::Int) => Ok(a.clone()),
            ("uint", [a]) if matches!(a.ty, Ty::Uint) => Ok(a.clone()),
            ("double", [a]) if matches!(a.ty, Ty::Double) => Ok(a.clone()),
            ("string", [a]) if matches!(a.ty, Ty::Str) => Ok(a.clone()),
            ("bytes", [a]) if matches!(a.ty, Ty::Bytes) => Ok(a.clone()),
            _ => self.dynamic(function, &args),
        }
    }

    /// A call of the runtime's function on values (a method's receiver
    /// first), for what has no native form.
    fn dynamic(&mut self, function: &str, args: &[Code]) -> Result<Code, String> {
        let values = args.iter().map(|a| self.value(a)).collect::<Result<Vec<_>, _>>()?;
        Ok(Code::fallible(
            quote!(__c::call(#function, ::std::vec![#(#values),*])?),
            Ty::Value,
        ))
    }

    fn comprehension(&mut self, c: &Comprehension) -> Result<Code, String> {
        if let Some(bind) = self.bind(c)? {
            return Ok(bind);
        }
        let shape = Macro::of(c).ok_or("a comprehension that is not one of CEL's macros")?;
        let range = self.expr(&c.iter_range)?;
        let (iter, param, vars) = self.iteration(&range, c)?;
        for (name, code) in vars.iter().cloned() {
            self.locals.push((name, code));
        }
        let body = self.comprehension_body(&shape);
        for _ in &vars {
            self.locals.pop();
        }
        let body = body?;
        Ok(body.finish(&iter, &param).or_fallible(range.fallible))
    }

    /// `cel.bind(name, init, body)`.
    fn bind(&mut self, c: &Comprehension) -> Result<Option<Code>, String> {
        let empty_range = matches!(&c.iter_range.kind, ExprKind::List { elements, .. } if elements.is_empty());
        let never = matches!(c.loop_condition.kind, ExprKind::Const(Const::Bool(false)));
        if !(empty_range && never && c.iter_var == "#unused") {
            return Ok(None);
        }
        let init = self.expr(&c.accu_init)?;
        let v = self.ident("bound");
        let local = Code {
            t: match init.ty {
                Ty::Value => quote!(#v.clone()),
                _ => quote!(#v),
            },
            ..init.clone().settled()
        };
        self.locals.push((c.accu_var.clone(), local));
        let body = self.expr(&c.result);
        self.locals.pop();
        let body = body?;
        let (it, bt) = (&init.t, &body.t);
        Ok(Some(
            Code::new(quote!({ let #v = #it; #bt }), body.ty.clone()).or_fallible(init.fallible || body.fallible),
        ))
    }

    /// How to iterate `range`: the iterator, the closure's parameter, and
    /// the comprehension's variables as code reading it.
    fn iteration(&mut self, range: &Code, c: &Comprehension) -> Result<Iteration, String> {
        let rt = &range.t;
        let two = c.iter_var2.is_some();
        let mut vars = Vec::new();
        let (iter, param) = match &range.ty {
            Ty::List(item) => {
                let item = (**item).clone();
                let x = self.ident("x");
                let read = self.item(&item, &Place::Ref(quote!(#x)))?;
                if two {
                    let i = self.ident("i");
                    vars.push((c.iter_var.clone(), Code::new(quote!(__c::list_index(#i)), Ty::Int)));
                    vars.push((c.iter_var2.clone().unwrap_or_default(), read));
                    (quote!((#rt).iter().enumerate()), quote!((#i, #x)))
                } else {
                    vars.push((c.iter_var.clone(), read));
                    (quote!((#rt).iter()), quote!(#x))
                }
            }
            Ty::Map(key, value) => {
                let (key, value) = ((**key).clone(), (**value).clone());
                let k = self.ident("k");
                vars.push((c.iter_var.clone(), self.item(&key, &Place::Ref(quote!(#k)))?));
                let v = if two {
                    let v = self.ident("v");
                    vars.push((
                        c.iter_var2.clone().unwrap_or_default(),
                        self.item(&value, &Place::Ref(quote!(#v)))?,
                    ));
                    quote!(#v)
                } else {
                    quote!(_)
                };
                (quote!((#rt).into_iter().flatten()), quote!((#k, #v)))
            }
            _ => {
                let v = self.value(range)?;
                let a = self.ident("a");
                vars.push((c.iter_var.clone(), Code::new(quote!(#a.clone()), Ty::Value)));
                let b = match &c.iter_var2 {
                    Some(second) => {
                        let b = self.ident("b");
                        vars.push((second.clone(), Code::new(quote!(#b.clone()), Ty::Value)));
                        quote!(#b)
                    }
                    None => quote!(_),
                };
                (quote!(__c::items(&#v, #two)?), quote!((#a, #b)))
            }
        };
        Ok((iter, param, vars))
    }

    fn comprehension_body(&mut self, shape: &Macro<'_>) -> Result<Body, String> {
        Ok(match shape {
            Macro::All(p) | Macro::Exists(p) | Macro::ExistsOne(p) => {
                let p = self.expr(p)?;
                let p = self.condition(&p)?;
                let kind = match shape {
                    Macro::All(_) => Fold::All,
                    Macro::Exists(_) => Fold::Exists,
                    _ => Fold::ExistsOne,
                };
                Body::Fold(kind, p)
            }
            Macro::Map { transform, filter } => {
                let filter = match filter {
                    Some(f) => {
                        let f = self.expr(f)?;
                        Some(self.condition(&f)?)
                    }
                    None => None,
                };
                let t = self.expr(transform)?;
                // Items that are themselves lists or maps are kept as values.
                let t = match t.ty {
                    Ty::List(_) | Ty::Map(..) | Ty::Msg(_) => {
                        let v = self.value(&t)?;
                        Code::fallible(v, Ty::Value)
                    }
                    _ => t,
                };
                Body::Map(filter, t)
            }
        })
    }
}

impl Code {
    /// The code as a variable's: no longer fallible (it was evaluated).
    fn settled(mut self) -> Self {
        self.fallible = false;
        self.constant = None;
        self.compound = false;
        self
    }
}

/// How a comprehension iterates: the iterator, the closure's parameter,
/// and its variables (CEL names and code reading them).
type Iteration = (TokenStream, TokenStream, Vec<(String, Code)>);

/// A oneof member's oneof: its struct field, and its enum's path.
pub(super) type OneofPath = (Ident, TokenStream);

/// The comprehensions that CEL's macros expand into.
enum Macro<'e> {
    All(&'e Expr),
    Exists(&'e Expr),
    ExistsOne(&'e Expr),
    /// `map` (with its filter) and `filter` (whose transform is the item).
    Map {
        transform: &'e Expr,
        filter: Option<&'e Expr>,
    },
}

impl<'e> Macro<'e> {
    fn of(c: &'e Comprehension) -> Option<Self> {
        const ACC: &str = fastrs::cel::ast::ACCUMULATOR;
        let is_acc = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if n == ACC);
        let call = |e: &'e Expr, f: &str| -> Option<&'e [Expr]> {
            match &e.kind {
                ExprKind::Call {
                    target: None,
                    function,
                    args,
                } if function == f => Some(args),
                _ => None,
            }
        };
        if c.accu_var != ACC {
            return None;
        }
        let init = &c.accu_init.kind;
        let append = |e: &'e Expr| -> Option<&'e Expr> {
            let [acc, list] = call(e, op::ADD)? else { return None };
            match &list.kind {
                ExprKind::List { elements, optional } if is_acc(acc) && elements.len() == 1 && optional.is_empty() => {
                    Some(&elements[0])
                }
                _ => None,
            }
        };
        match init {
            ExprKind::Const(Const::Bool(b)) if is_acc(&c.result) => {
                let f = if *b { op::AND } else { op::OR };
                let [acc, p] = call(&c.loop_step, f)? else { return None };
                if !is_acc(acc) {
                    return None;
                }
                Some(if *b { Macro::All(p) } else { Macro::Exists(p) })
            }
            ExprKind::Const(Const::Int(0)) => {
                let [p, _, acc] = call(&c.loop_step, op::CONDITIONAL)? else {
                    return None;
                };
                let [r, _] = call(&c.result, op::EQUALS)? else {
                    return None;
                };
                (is_acc(acc) && is_acc(r)).then_some(Macro::ExistsOne(p))
            }
            ExprKind::List { elements, .. } if elements.is_empty() && is_acc(&c.result) => {
                if let Some(t) = append(&c.loop_step) {
                    return Some(Macro::Map {
                        transform: t,
                        filter: None,
                    });
                }
                let [f, step, acc] = call(&c.loop_step, op::CONDITIONAL)? else {
                    return None;
                };
                let t = append(step)?;
                is_acc(acc).then_some(Macro::Map {
                    transform: t,
                    filter: Some(f),
                })
            }
            _ => None,
        }
    }
}

enum Fold {
    All,
    Exists,
    ExistsOne,
}

/// A compiled comprehension body, made into a loop by [`Body::finish`].
enum Body {
    Fold(Fold, Code),
    Map(Option<Code>, Code),
}

impl Body {
    fn finish(self, iter: &TokenStream, param: &TokenStream) -> Code {
        match self {
            Body::Fold(kind, p) => {
                let pt = &p.t;
                match (kind, p.fallible) {
                    // Plain Rust when the predicate cannot fail.
                    (Fold::All, false) => Code::new(quote!(#iter.all(|#param| #pt)), Ty::Bool),
                    (Fold::Exists, false) => Code::new(quote!(#iter.any(|#param| #pt)), Ty::Bool),
                    (kind, _) => {
                        let f = match kind {
                            Fold::All => quote!(__c::all),
                            Fold::Exists => quote!(__c::exists),
                            Fold::ExistsOne => quote!(__c::exists_one),
                        };
                        Code::fallible(
                            quote!(#f(#iter, |#param| -> __c::Out<bool> { ::core::result::Result::Ok(#pt) })?),
                            Ty::Bool,
                        )
                    }
                }
            }
            Body::Map(filter, t) => {
                let tt = &t.t;
                let keep = match &filter {
                    Some(f) => {
                        let ft = &f.t;
                        quote!(if #ft { ::core::option::Option::Some(#tt) } else { ::core::option::Option::None })
                    }
                    None => quote!(::core::option::Option::Some(#tt)),
                };
                Code::fallible(
                    quote!(__c::map_filter(#iter, |#param| -> __c::Out<_> { ::core::result::Result::Ok(#keep) })?),
                    Ty::List(Box::new(Item::Native(t.ty.clone()))),
                )
            }
        }
    }
}

/// The check of a format function (`isEmail`, `isIp(4)`, ...) with
/// constant arguments: the function of `cel::formats`, and its arguments
/// after the string.
fn format_check(name: &str, args: &[Option<Value<'static>>]) -> Option<(Ident, TokenStream)> {
    let int = |v: &Option<Value<'static>>| match v {
        Some(Value::Int(i)) => Some(*i),
        _ => None,
    };
    let boolean = |v: &Option<Value<'static>>| match v {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    };
    let (f, rest) = match (name, args) {
        ("isEmail", []) => ("is_email", quote!()),
        ("isHostname", []) => ("is_hostname", quote!()),
        ("isUri", []) => ("is_uri", quote!()),
        ("isUriRef", []) => ("is_uri_ref", quote!()),
        ("isIp", []) => ("is_ip", quote!(, 0)),
        ("isIp", [v]) => {
            let v = int(v)?;
            ("is_ip", quote!(, #v))
        }
        ("isIpPrefix", []) => ("is_ip_prefix", quote!(, 0, false)),
        ("isIpPrefix", [a]) => match (int(a), boolean(a)) {
            (Some(v), _) => ("is_ip_prefix", quote!(, #v, false)),
            (_, Some(s)) => ("is_ip_prefix", quote!(, 0, #s)),
            _ => return None,
        },
        ("isIpPrefix", [v, s]) => {
            let (v, s) = (int(v)?, boolean(s)?);
            ("is_ip_prefix", quote!(, #v, #s))
        }
        ("isHostAndPort", [p]) => {
            let p = boolean(p)?;
            ("is_host_and_port", quote!(, #p))
        }
        _ => return None,
    };
    Some((format_ident!("{}", f), rest))
}

/// A model field of `model` by number, and for a oneof member its oneof's
/// struct field and the path of its enum from `scope`.
pub(super) fn model_field<'m>(
    model: &'m Message,
    number: u32,
    scope: &[String],
) -> Result<(&'m Field, Option<OneofPath>), String> {
    if let Some(f) = model.fields.iter().find(|f| f.number == number) {
        return Ok((f, None));
    }
    for oneof in &model.oneofs {
        if let Some(f) = oneof.members.iter().find(|f| f.number == number) {
            let mut modules = model.scope.clone();
            modules.push(model.module.to_string());
            let path = TypePath::Local {
                modules,
                name: oneof.enum_ident.to_string(),
            };
            return Ok((f, Some((oneof.field.clone(), path.relative_to(scope)))));
        }
    }
    Err(format!("{} has no field numbered {number}", model.full_name))
}

/// The error of selecting a field a message type does not have.
fn no_such_field(name: &str) -> Code {
    let message = format!("no such field: {name}");
    Code::fallible(quote!(__c::fail(#message)?), Ty::Value)
}

/// The message type of a message field.
fn message_type(field: &FieldDescriptor) -> Result<MessageDescriptor, String> {
    match field.kind() {
        PoolKind::Message(m) => Ok(m),
        _ => Err(format!("{} is not a message field", field.full_name())),
    }
}

/// A map field's key and value fields.
fn entry_fields(field: &FieldDescriptor) -> Result<(FieldDescriptor, FieldDescriptor), String> {
    let entry = message_type(field)?;
    match (entry.get_field(1), entry.get_field(2)) {
        (Some(k), Some(v)) => Ok((k, v)),
        _ => Err(format!("{} is not a map field", field.full_name())),
    }
}

/// The primitive a wrapper type holds.
fn wrapper(full_name: &str) -> Option<Ty> {
    Some(match full_name {
        "google.protobuf.BoolValue" => Ty::Bool,
        "google.protobuf.Int32Value" | "google.protobuf.Int64Value" => Ty::Int,
        "google.protobuf.UInt32Value" | "google.protobuf.UInt64Value" => Ty::Uint,
        "google.protobuf.FloatValue" | "google.protobuf.DoubleValue" => Ty::Double,
        "google.protobuf.StringValue" => Ty::Str,
        "google.protobuf.BytesValue" => Ty::Bytes,
        _ => return None,
    })
}

/// Well-known types CEL reads as something else than a message (`Any`
/// as what it packs, JSON values as lists, maps and scalars).
fn dynamic_message(full_name: &str) -> bool {
    matches!(
        full_name,
        "google.protobuf.Any" | "google.protobuf.Struct" | "google.protobuf.Value" | "google.protobuf.ListValue"
    )
}

/// What CEL reads from an unset field of a type held as `ty`.
fn default_of(ty: &Ty) -> TokenStream {
    match ty {
        Ty::Bool => quote!(false),
        Ty::Int => quote!(0i64),
        Ty::Uint => quote!(0u64),
        Ty::Double => quote!(0f64),
        Ty::Str => quote!(""),
        Ty::Bytes => quote!(&[][..]),
        Ty::Timestamp => quote!(__c::Timestamp::at(0, 0)),
        Ty::Duration => quote!(__c::Duration::from_nanos(0)),
        Ty::Msg(_) | Ty::Map(..) => quote!(::core::option::Option::None),
        Ty::List(_) => quote!(&[]),
        Ty::Value => quote!(__c::Value::Null),
    }
}

fn constant_value(c: &Const) -> Value<'static> {
    match c {
        Const::Null => Value::Null,
        Const::Bool(b) => Value::Bool(*b),
        Const::Int(i) => Value::Int(*i),
        Const::Uint(u) => Value::Uint(*u),
        Const::Double(d) => Value::Double(*d),
        Const::String(s) => Value::string(s.clone()),
        Const::Bytes(b) => Value::bytes(b.clone()),
    }
}

/// A value as a Rust literal, if it has a Rust form.
fn literal(v: &Value<'_>) -> Option<Code> {
    Some(match v {
        Value::Null => Code::new(quote!(__c::Value::Null), Ty::Value),
        Value::Bool(b) => Code::new(quote!(#b), Ty::Bool),
        Value::Int(i) => Code::new(int_literal(*i), Ty::Int),
        Value::Uint(u) => {
            let u = Literal::u64_suffixed(*u);
            Code::new(quote!(#u), Ty::Uint)
        }
        Value::Double(d) => Code::new(double(*d), Ty::Double),
        Value::String(s) => {
            let s: &str = s;
            Code::new(quote!(#s), Ty::Str)
        }
        Value::Bytes(b) => {
            let b = Literal::byte_string(b);
            Code::new(quote!(&#b[..]), Ty::Bytes)
        }
        Value::Duration(d) => {
            let n = Literal::i128_suffixed(d.nanos);
            Code::new(quote!(__c::Duration::from_nanos(#n)), Ty::Duration)
        }
        Value::Timestamp(t) => {
            let (s, n) = (int_literal(t.seconds), Literal::i32_suffixed(t.nanos));
            Code::new(quote!(__c::Timestamp::at(#s, #n)), Ty::Timestamp)
        }
        Value::List(list) => {
            let items = list
                .iter()
                .map(|v| v.ok().and_then(|v| literal(&v)))
                .collect::<Option<Vec<_>>>()?;
            if items.is_empty() {
                return Some(Code::new(
                    quote!({
                        let empty: [__c::Value<'static>; 0] = [];
                        empty
                    }),
                    Ty::List(Box::new(Item::Native(Ty::Value))),
                ));
            }
            let first = items[0].ty.clone();
            if items.iter().all(|c| c.ty.same_plain(&first)) {
                let ts = items.iter().map(|c| &c.t);
                return Some(Code::new(quote!([#(#ts),*]), Ty::List(Box::new(Item::Native(first)))));
            }
            let values = items.iter().map(literal_value).collect::<Option<Vec<_>>>()?;
            Code::new(quote!(__c::list(::std::vec![#(#values),*])), Ty::Value)
        }
        Value::Map(map) => {
            let entries = map.entries().ok()?;
            let pairs = entries
                .iter()
                .map(|(k, v)| {
                    let (k, v) = (literal_value(&literal(k)?)?, literal_value(&literal(v)?)?);
                    Some(quote!((#k, #v)))
                })
                .collect::<Option<Vec<_>>>()?;
            Code::new(quote!(__c::map(::std::vec![#(#pairs),*])), Ty::Value)
        }
        _ => return None,
    })
}

/// A literal's code as a `cel::Value`.
fn literal_value(c: &Code) -> Option<TokenStream> {
    let t = &c.t;
    Some(match c.ty {
        Ty::Bool => quote!(__c::Value::Bool(#t)),
        Ty::Int => quote!(__c::Value::Int(#t)),
        Ty::Uint => quote!(__c::Value::Uint(#t)),
        Ty::Double => quote!(__c::Value::Double(#t)),
        Ty::Str => quote!(__c::string(#t)),
        Ty::Bytes => quote!(__c::bytes(#t)),
        Ty::Timestamp => quote!(__c::Value::Timestamp(#t)),
        Ty::Duration => quote!(__c::Value::Duration(#t)),
        Ty::Value => t.clone(),
        _ => return None,
    })
}

/// An `i64` literal (the least one as `i64::MIN`, which has no literal).
pub(super) fn int_literal(i: i64) -> TokenStream {
    if i == i64::MIN {
        quote!(i64::MIN)
    } else {
        let l = Literal::i64_suffixed(i);
        quote!(#l)
    }
}
