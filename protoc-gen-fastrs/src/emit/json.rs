//! Proto3 JSON: `serde::Serialize`, `serde::Deserialize`,
//! `fastrs::json::JsonMessage` and the hidden `JsonFields` for a message,
//! and a package's `register_json_types`.

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::allow_deprecated;
use super::tokens::{codec, is_set};
use crate::model::{Field, Kind, Message, Package, Shape, Slot};
use crate::options::JsonGate;

/// Well-known types whose JSON is not an object of their fields: the runtime
/// implements it by hand.
const SPECIAL_FORMS: &[&str] = &[
    "Any",
    "Duration",
    "Timestamp",
    "FieldMask",
    "Struct",
    "Value",
    "ListValue",
    "DoubleValue",
    "FloatValue",
    "Int64Value",
    "UInt64Value",
    "Int32Value",
    "UInt32Value",
    "BoolValue",
    "StringValue",
    "BytesValue",
];

/// `#[cfg(feature = "...")]` for code under a feature.
fn gate(gate: &JsonGate) -> TokenStream {
    match gate {
        JsonGate::Always => TokenStream::new(),
        JsonGate::Feature(name) => quote!(#[cfg(feature = #name)]),
    }
}

/// The JSON impls of `msg` (not of its nested messages), if the package
/// generates JSON. Type parameters are `__S`, `__D`, `__A` so that they cannot
/// shadow a message named `S`, `D` or `A` that a field refers to.
pub fn message(msg: &Message) -> TokenStream {
    let Some(json) = &msg.json else {
        return TokenStream::new();
    };
    let special = msg
        .full_name
        .strip_prefix("google.protobuf.")
        .is_some_and(|name| SPECIAL_FORMS.contains(&name));
    if special {
        return TokenStream::new();
    }
    let cfg = gate(json);
    let ident = &msg.ident;
    let serialize = serialize_body(msg);
    let fields = json_fields(msg);
    let allow = allow_deprecated(msg.deprecated());
    quote! {
        #cfg
        #[allow(deprecated)]
        impl ::fastrs::serde::Serialize for #ident {
            fn serialize<__S: ::fastrs::serde::Serializer>(
                &self,
                s: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                #serialize
            }
        }

        #cfg
        #allow
        impl<'de> ::fastrs::serde::Deserialize<'de> for #ident {
            fn deserialize<__D: ::fastrs::serde::Deserializer<'de>>(
                de: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                __fastrs::json::deserialize_object(de)
            }
        }

        #cfg
        #allow
        impl ::fastrs::json::JsonMessage for #ident {
            fn json_read<'de, __D: ::fastrs::serde::Deserializer<'de>>(
                de: __D,
                options: ::fastrs::json::JsonOptions,
            ) -> ::core::result::Result<__fastrs::json::Read<Self>, __D::Error> {
                __fastrs::json::read_object(de, options)
            }
        }

        #cfg
        #fields
    }
}

/// Writes the set fields in field-number order.
fn serialize_body(msg: &Message) -> TokenStream {
    let entries: Vec<TokenStream> = msg
        .order
        .iter()
        .map(|slot| match slot {
            Slot::Field(i) => field_entry(&msg.fields[*i], msg),
            Slot::Oneof(o, members) => {
                let oneof = &msg.oneofs[*o];
                let (field, module, enum_ident) = (&oneof.field, &msg.module, &oneof.enum_ident);
                let arms = members
                    .iter()
                    .map(|&m| {
                        let member = &oneof.members[m];
                        let (variant, name) = (&member.ident, &member.json_name);
                        let codec = codec(kind_of(member), &msg.scope);
                        (
                            quote!(::core::option::Option::Some(#module::#enum_ident::#variant(v))),
                            quote!(map.serialize_entry(#name, &__fastrs::json::Single::<#codec>(v))?;),
                        )
                    })
                    .collect();
                super::tokens::match_oneof_run(&quote!(&self.#field), arms)
            }
        })
        .collect();
    let unknown = &msg.unknown_fields;
    let extensions = msg
        .extendable
        .then(|| quote!(__fastrs::json::write_extensions::<Self, _>(&mut map, &self.#unknown)?;));
    let map = if entries.is_empty() && extensions.is_none() {
        quote!(let map)
    } else {
        quote!(let mut map)
    };
    quote! {
        use ::fastrs::serde::ser::SerializeMap as _;
        #map = s.serialize_map(::core::option::Option::None)?;
        #(#entries)*
        #extensions
        map.end()
    }
}

fn kind_of(field: &Field) -> &Kind {
    match &field.shape {
        Shape::Implicit(kind) | Shape::Optional(kind) | Shape::OneofMember(kind) | Shape::Repeated { kind, .. } => kind,
        Shape::Map { value, .. } => value,
    }
}

/// `map.serialize_entry(...)` for a field outside oneofs, if it is set.
fn field_entry(f: &Field, msg: &Message) -> TokenStream {
    let (ident, name, scope) = (&f.ident, &f.json_name, &msg.scope);
    match &f.shape {
        Shape::Implicit(kind) => {
            let codec = codec(kind, scope);
            let set = is_set(kind, &quote!(self.#ident));
            quote! {
                if #set {
                    map.serialize_entry(#name, &__fastrs::json::Single::<#codec>(&self.#ident))?;
                }
            }
        }
        Shape::Optional(kind) => {
            let codec = codec(kind, scope);
            quote! {
                if let ::core::option::Option::Some(v) = &self.#ident {
                    map.serialize_entry(#name, &__fastrs::json::Single::<#codec>(v))?;
                }
            }
        }
        Shape::Repeated { kind, .. } => {
            let codec = codec(kind, scope);
            quote! {
                if !self.#ident.is_empty() {
                    map.serialize_entry(#name, &__fastrs::json::List::<#codec>(&self.#ident))?;
                }
            }
        }
        Shape::Map { key, value, .. } => {
            let (key, value) = (codec(key, scope), codec(value, scope));
            quote! {
                if !self.#ident.is_empty() {
                    map.serialize_entry(#name, &__fastrs::json::MapOf::<#key, #value, _>::new(self.#ident.iter()))?;
                }
            }
        }
        Shape::OneofMember(_) => unreachable!("oneof members are written by their oneof"),
    }
}

/// The `JsonFields` impl: field lookup by either name, and one parse arm per
/// field.
fn json_fields(msg: &Message) -> TokenStream {
    let ident = &msg.ident;
    let all: Vec<&Field> = msg
        .fields
        .iter()
        .chain(msg.oneofs.iter().flat_map(|o| &o.members))
        .collect();
    let mut seen = std::collections::HashSet::new();
    let name_arms = all.iter().map(|f| {
        // The first field to claim a name keeps it.
        let names: Vec<&String> = [&f.json_name, &f.proto_name]
            .into_iter()
            .filter(|n| seen.insert(n.as_str()))
            .collect();
        let number = proc_macro2::Literal::u32_unsuffixed(f.number);
        if names.is_empty() {
            TokenStream::new()
        } else {
            quote!(#(#names)|* => ::core::option::Option::Some(#number),)
        }
    });
    let merge_arms =
        msg.fields
            .iter()
            .map(|f| merge_arm(f, msg))
            .chain(msg.oneofs.iter().flat_map(|o| {
                o.members.iter().map(move |m| {
            let (field, module, enum_ident, variant) = (&o.field, &msg.module, &o.enum_ident, &m.ident);
            let (number, name, oneof) = (proc_macro2::Literal::u32_unsuffixed(m.number), &m.json_name, &o.proto_name);
            let codec = codec(kind_of(m), &msg.scope);
            let full_name = &msg.full_name;
            quote! {
                #number => {
                    if let __fastrs::json::Read::Value(v) = __fastrs::json::next_value::<#codec, _>(map, options, #name)? {
                        if self.#field.is_some() {
                            return ::core::result::Result::Err(__fastrs::json::oneof_set_twice(#full_name, #oneof));
                        }
                        self.#field = ::core::option::Option::Some(#module::#enum_ident::#variant(v));
                    }
                }
            }
        })
            }));
    let extensions = msg.extendable.then(|| {
        let unknown = &msg.unknown_fields;
        quote! {
            fn json_merge_extension<'de, __A: ::fastrs::serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut __A,
                options: ::fastrs::json::JsonOptions,
            ) -> ::core::result::Result<::core::option::Option<u32>, __A::Error> {
                __fastrs::json::read_extension::<Self, __A>(key, map, options, &mut self.#unknown)
            }
        }
    });
    if all.is_empty() {
        return quote! {
            impl __fastrs::json::JsonFields for #ident {
                fn json_field(_name: &str) -> ::core::option::Option<u32> {
                    ::core::option::Option::None
                }

                fn json_merge_field<'de, __A: ::fastrs::serde::de::MapAccess<'de>>(
                    &mut self,
                    _number: u32,
                    map: &mut __A,
                    _options: ::fastrs::json::JsonOptions,
                ) -> ::core::result::Result<(), __A::Error> {
                    map.next_value::<::fastrs::serde::de::IgnoredAny>()?;
                    ::core::result::Result::Ok(())
                }

                #extensions
            }
        };
    }
    quote! {
        #[allow(deprecated)]
        impl __fastrs::json::JsonFields for #ident {
            fn json_field(name: &str) -> ::core::option::Option<u32> {
                match name {
                    #(#name_arms)*
                    _ => ::core::option::Option::None,
                }
            }

            fn json_merge_field<'de, __A: ::fastrs::serde::de::MapAccess<'de>>(
                &mut self,
                number: u32,
                map: &mut __A,
                options: ::fastrs::json::JsonOptions,
            ) -> ::core::result::Result<(), __A::Error> {
                match number {
                    #(#merge_arms)*
                    _ => {
                        map.next_value::<::fastrs::serde::de::IgnoredAny>()?;
                    }
                }
                ::core::result::Result::Ok(())
            }

            #extensions
        }
    }
}

/// Parses one field outside oneofs.
fn merge_arm(f: &Field, msg: &Message) -> TokenStream {
    let (ident, name, scope) = (&f.ident, &f.json_name, &msg.scope);
    let number = proc_macro2::Literal::u32_unsuffixed(f.number);
    let single = |kind: &Kind, store: TokenStream| {
        let codec = codec(kind, scope);
        quote! {
            if let __fastrs::json::Read::Value(v) = __fastrs::json::next_value::<#codec, _>(map, options, #name)? {
                #store
            }
        }
    };
    let body = match &f.shape {
        Shape::Implicit(kind) => single(kind, quote!(self.#ident = v;)),
        Shape::Optional(kind) => single(kind, quote!(self.#ident = ::core::option::Option::Some(v);)),
        Shape::Repeated { kind, .. } => {
            let codec = codec(kind, scope);
            quote!(__fastrs::json::next_list::<#codec, _>(map, &mut self.#ident, options, #name)?;)
        }
        Shape::Map { key, value, .. } => {
            let (key, value) = (codec(key, scope), codec(value, scope));
            quote! {
                __fastrs::json::next_map::<#key, #value, _, _>(map, &mut self.#ident, options, #name)?;
            }
        }
        Shape::OneofMember(_) => unreachable!("oneof members are parsed by their oneof"),
    };
    quote!(#number => { #body })
}

/// `register_json_types()`: adds the package's descriptors to the
/// process's registry, where JSON finds the messages `google.protobuf.Any`
/// holds and the extensions it shows.
pub fn register(package: &Package) -> TokenStream {
    let (Some(json), Some(_)) = (&package.json, &package.descriptor_set) else {
        return TokenStream::new();
    };
    let extensions = !package.extensions.is_empty() || package.messages.iter().any(declares_extensions);
    if !extensions && package.messages.iter().all(|m| always_registered(&m.full_name)) {
        return TokenStream::new();
    }
    let cfg = gate(json);
    let mut doc = format!(
        " Adds the descriptors of `{}` (and of the packages it imports) to the process's registry, \
         `fastrs::reflect::DescriptorPool::global`, so that `google.protobuf.Any` can hold its messages in JSON.",
        package.name
    );
    if extensions {
        doc.push_str(" JSON then also shows its extensions, as `\"[full.name]\"` keys.");
    }
    doc.push_str(" The text format finds them there too. Registering again costs a lookup.");
    quote! {
        #[doc = #doc]
        #cfg
        pub fn register_json_types() {
            ::fastrs::reflect::DescriptorPool::register_package(FILE_DESCRIPTOR_SET, IMPORTED_DESCRIPTOR_SETS);
        }
    }
}

/// True if `msg` or a message nested in it declares an extension.
fn declares_extensions(msg: &Message) -> bool {
    !msg.extensions.is_empty() || msg.messages.iter().any(declares_extensions)
}

/// The registry knows the well-known types from the start, so their
/// package registers nothing.
fn always_registered(full_name: &str) -> bool {
    const WELL_KNOWN: &[&str] = &[
        "Any",
        "Api",
        "BoolValue",
        "BytesValue",
        "DoubleValue",
        "Duration",
        "Empty",
        "Enum",
        "EnumValue",
        "Field",
        "FieldMask",
        "FloatValue",
        "Int32Value",
        "Int64Value",
        "ListValue",
        "Method",
        "Mixin",
        "Option",
        "SourceContext",
        "StringValue",
        "Struct",
        "Timestamp",
        "Type",
        "UInt32Value",
        "UInt64Value",
        "Value",
    ];
    full_name
        .strip_prefix("google.protobuf.")
        .is_some_and(|name| WELL_KNOWN.contains(&name))
}
