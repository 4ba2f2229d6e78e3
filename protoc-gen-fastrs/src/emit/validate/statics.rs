//! The `static` items of a message's validation code: path steps
//! (fields as path elements), standard rules (id, message, rule path),
//! regular expressions compiled on first use, and CEL rules; and the
//! literals they and the checks are written with.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use fastrs::reflect::FieldDescriptor;
use fastrs::validate::plan::Check;

/// What a message's validation code names: collected while its body is
/// rendered, emitted as `static` items before it.
#[derive(Default)]
pub(crate) struct Statics {
    steps: Vec<(String, TokenStream)>,
    rules: Vec<TokenStream>,
    patterns: Vec<(String, TokenStream)>,
    cel: Vec<TokenStream>,
}

impl Statics {
    /// The path step of `field`, by name (`STEP_3`).
    pub(crate) fn step(&mut self, field: &FieldDescriptor) -> TokenStream {
        let key = field.full_name().to_string();
        let i = match self.steps.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.steps.push((key, step_literal(field)));
                self.steps.len() - 1
            }
        };
        let name = format_ident!("STEP_{}", i);
        quote!(&#name)
    }

    /// A standard rule's entry, by index into `RULES`.
    pub(crate) fn rule(&mut self, check: &Check) -> TokenStream {
        let id = &*check.id;
        let message = &*check.message;
        let path = check
            .path
            .iter()
            .map(|e| Literal::i32_unsuffixed(e.field_number.unwrap_or(0)));
        self.rules
            .push(quote!(__v::StaticRule::new(#id, #message, &[#(#path),*])));
        let i = Literal::usize_unsuffixed(self.rules.len() - 1);
        quote!(&RULES[#i])
    }

    /// A pattern, compiled on first use (`PATTERN_0`).
    pub(crate) fn pattern(&mut self, source: &str) -> TokenStream {
        let i = match self.patterns.iter().position(|(s, _)| s == source) {
            Some(i) => i,
            None => {
                self.patterns.push((source.into(), quote!(__v::Pattern::new(#source))));
                self.patterns.len() - 1
            }
        };
        let name = format_ident!("PATTERN_{}", i);
        quote!(#name)
    }

    /// A CEL rule's entry (`CEL_0`).
    pub(crate) fn cel(&mut self, rule: TokenStream) -> TokenStream {
        self.cel.push(rule);
        let name = format_ident!("CEL_{}", self.cel.len() - 1);
        quote!(&#name)
    }

    pub(crate) fn items(&self) -> TokenStream {
        let steps = self.steps.iter().enumerate().map(|(i, (_, s))| {
            let name = format_ident!("STEP_{}", i);
            quote!(static #name: __v::PathStep = #s;)
        });
        let rules = (!self.rules.is_empty()).then(|| {
            let n = Literal::usize_unsuffixed(self.rules.len());
            let rules = &self.rules;
            quote!(static RULES: [__v::StaticRule; #n] = [#(#rules),*];)
        });
        let patterns = self.patterns.iter().enumerate().map(|(i, (_, p))| {
            let name = format_ident!("PATTERN_{}", i);
            quote!(static #name: __v::Pattern = #p;)
        });
        let cel = self.cel.iter().enumerate().map(|(i, c)| {
            let name = format_ident!("CEL_{}", i);
            quote!(static #name: __v::CelRule = #c;)
        });
        quote!(#(#steps)* #rules #(#patterns)* #(#cel)*)
    }
}

fn step_literal(field: &FieldDescriptor) -> TokenStream {
    let e = fastrs::validate::element(field);
    element_literal(&e)
}

/// A path element as a `PathStep` literal.
pub(crate) fn element_literal(e: &fastrs::validate::FieldPathElement) -> TokenStream {
    let number = Literal::i32_unsuffixed(e.field_number.unwrap_or(0));
    let name = e.field_name.as_deref().unwrap_or("");
    let ty = format_ident!("{}", format!("{:?}", e.field_type.unwrap_or_default()));
    quote!(__v::PathStep::new(#number, #name, __v::Type::#ty))
}

/// A double as a literal (`f64::NAN` and the infinities by name).
pub(crate) fn double(d: f64) -> TokenStream {
    if d.is_nan() {
        quote!(f64::NAN)
    } else if d == f64::INFINITY {
        quote!(f64::INFINITY)
    } else if d == f64::NEG_INFINITY {
        quote!(f64::NEG_INFINITY)
    } else {
        let lit = Literal::f64_suffixed(d);
        quote!(#lit)
    }
}
