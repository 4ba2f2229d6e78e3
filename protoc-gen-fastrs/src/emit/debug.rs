//! `Debug` by hand, for the few types that cannot derive it: messages and
//! oneofs with a `[debug_redact = true]` field, whose value prints as
//! `[REDACTED]` (as in C++'s debug output) so that secrets stay out of logs.
//! Everything else derives `Debug`.

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::{allow_deprecated, allow_deprecated_members};
use crate::model::{Field, Message, Oneof, Slot};

/// `impl Debug` for a message that redacts a field, else nothing (it derives).
pub fn message(msg: &Message) -> TokenStream {
    if !msg.redacts() {
        return TokenStream::new();
    }
    let (ident, name) = (&msg.ident, msg.ident.to_string());
    let members = msg.order.iter().filter_map(|slot| match slot {
        Slot::Field(i) => Some(struct_field(&msg.fields[*i])),
        Slot::Oneof(o, members) => (members.first() == Some(&0)).then(|| {
            let ident = &msg.oneofs[*o].field;
            let name = shown(ident);
            quote!(.field(#name, &self.#ident))
        }),
    });
    let unknown = &msg.unknown_fields;
    let unknown_name = unknown.to_string();
    // Reading a deprecated field warns, even in generated code.
    let allow = allow_deprecated(msg.fields.iter().any(Field::deprecated));
    quote! {
        #allow
        impl ::core::fmt::Debug for #ident {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#name)
                    #(#members)*
                    .field(#unknown_name, &self.#unknown)
                    .finish_non_exhaustive()
            }
        }
    }
}

fn struct_field(f: &Field) -> TokenStream {
    let ident = &f.ident;
    let name = shown(ident);
    if f.debug_redact() {
        quote!(.field(#name, &::core::format_args!("[REDACTED]")))
    } else {
        quote!(.field(#name, &self.#ident))
    }
}

/// The name `Debug` shows for a field or variant: its identifier without
/// `r#`, as the derive shows it.
fn shown(ident: &proc_macro2::Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map_or_else(|| name.clone(), str::to_string)
}

/// True if a oneof needs a hand-written `Debug`.
pub fn oneof_redacts(oneof: &Oneof) -> bool {
    oneof.members.iter().any(Field::debug_redact)
}

/// `impl Debug` for a oneof enum with a redacted member, else nothing.
pub fn oneof(oneof: &Oneof) -> TokenStream {
    if !oneof_redacts(oneof) {
        return TokenStream::new();
    }
    let ident = &oneof.enum_ident;
    let arms = oneof.members.iter().map(|m| {
        let variant = &m.ident;
        let name = shown(variant);
        if m.debug_redact() {
            quote!(Self::#variant(_) => f.debug_tuple(#name).field(&::core::format_args!("[REDACTED]")).finish(),)
        } else {
            quote!(Self::#variant(v) => f.debug_tuple(#name).field(v).finish(),)
        }
    });
    let allow = allow_deprecated_members(oneof);
    quote! {
        #allow
        impl ::core::fmt::Debug for #ident {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}
