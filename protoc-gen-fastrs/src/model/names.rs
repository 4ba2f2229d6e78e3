//! All Rust naming: case conversion, keywords, enum prefix stripping and
//! relative paths between modules. Every identifier the generator emits is made
//! here.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// Rust keywords that can be used as raw identifiers (`r#type`).
const RAW_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn", "else", "enum",
    "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move",
    "mut", "override", "priv", "pub", "ref", "return", "static", "struct", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers; they get a `_` suffix instead.
const SUFFIX_KEYWORDS: &[&str] = &["self", "super", "crate", "Self", "_"];

/// An identifier from an already cased name, escaped if it is a keyword.
#[must_use]
pub fn ident(name: &str) -> Ident {
    if SUFFIX_KEYWORDS.contains(&name) {
        Ident::new(&format!("{name}_"), Span::call_site())
    } else if RAW_KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// `snake_case` text (field, module and package segment names), before escaping.
#[must_use]
pub fn snake(name: &str) -> String {
    let s = name.to_snake_case();
    // A name that is all underscores or starts with a digit is not an identifier.
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{s}")
    } else {
        s
    }
}

/// `UpperCamelCase` text (message, enum, oneof and variant names), before escaping.
#[must_use]
pub fn camel(name: &str) -> String {
    let s = name.to_upper_camel_case();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{s}")
    } else {
        s
    }
}

/// The identifier of a field.
#[must_use]
pub fn field_ident(proto_name: &str) -> Ident {
    ident(&snake(proto_name))
}

/// The identifier of a message, enum or oneof type.
#[must_use]
pub fn type_ident(proto_name: &str) -> Ident {
    ident(&camel(proto_name))
}

/// The module that holds the nested types of message `proto_name`.
#[must_use]
pub fn module_ident(proto_name: &str) -> Ident {
    ident(&snake(proto_name))
}

/// Enum variant names: `TYPE_UNSPECIFIED` in enum `Type` becomes `Unspecified`.
/// The enum-name prefix is stripped from every value only if the result is still
/// a set of distinct identifiers that do not start with a digit; otherwise no
/// value is stripped.
#[must_use]
pub fn variant_names(enum_name: &str, values: &[&str]) -> Vec<String> {
    let prefix = enum_name.to_snake_case().to_uppercase();
    let strip = |v: &str| -> Option<String> {
        let rest = v.strip_prefix(&prefix)?.trim_start_matches('_');
        (!rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_digit())).then(|| camel(rest))
    };
    let stripped: Option<Vec<String>> = values.iter().map(|v| strip(v)).collect();
    let names = match stripped {
        Some(names) if all_distinct(&names) => names,
        _ => values.iter().map(|v| camel(v)).collect(),
    };
    // `Self` is not a usable variant name; names that case conversion made equal
    // (`MOO` and `moo` both give `Moo`) fall back to the value's own spelling.
    let mut used = std::collections::HashSet::new();
    names
        .into_iter()
        .zip(values)
        .enumerate()
        .map(|(i, (name, value))| {
            let name = if name == "Self" { "Self_".to_string() } else { name };
            let name = if used.contains(&name) { value.to_string() } else { name };
            let name = if used.contains(&name) {
                format!("{name}_{i}")
            } else {
                name
            };
            used.insert(name.clone());
            name
        })
        .collect()
}

fn all_distinct(names: &[String]) -> bool {
    let mut sorted: Vec<&String> = names.iter().collect();
    sorted.sort();
    sorted.windows(2).all(|w| w[0] != w[1])
}

/// The enum of oneof `name` of message `parent`: the oneof's name in
/// `UpperCamelCase`, or with an `Oneof` suffix when a nested message or enum
/// of `parent` (which share its module) already has that name.
#[must_use]
pub fn oneof_enum_ident(name: &str, parent: &fastrs::descriptor::DescriptorProto) -> Ident {
    let camel_name = camel(name);
    let taken = parent.nested_type.iter().any(|m| camel(m.name()) == camel_name)
        || parent.enum_type.iter().any(|e| camel(e.name()) == camel_name);
    if taken {
        ident(&format!("{camel_name}Oneof"))
    } else {
        type_ident(name)
    }
}

/// A struct field the generator adds (`unknown_fields`, `recycle`): `name`,
/// or `name_` if one of the message's own fields is called that.
pub fn unique_field_ident<'i>(name: &str, mut taken: impl Iterator<Item = &'i Ident>) -> Ident {
    if taken.any(|f| f == name) {
        ident(&format!("{name}_"))
    } else {
        ident(name)
    }
}

/// Module segments for a protobuf package: `acme.shop.v2` → `[acme, shop, v2]`.
#[must_use]
pub fn package_modules(package: &str) -> Vec<String> {
    if package.is_empty() {
        Vec::new()
    } else {
        package.split('.').map(snake).collect()
    }
}

/// Where a generated type lives: the module segments from the crate's
/// package root, and its name. Paths between two places are relative, so users
/// can nest packages anywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypePath {
    /// A type generated into the module tree: module segments, then the name.
    Local { modules: Vec<String>, name: String },
    /// A type at an absolute Rust path (`::fastrs::well_known::Timestamp`, or a
    /// user's `extern_path`), written as is.
    Absolute(crate::options::RustPath),
}

impl TypePath {
    /// True for the runtime's `fastrs::descriptor` types (descriptor.proto,
    /// plugin.proto), which exist only with fastrs's `descriptor` feature.
    #[must_use]
    pub fn needs_descriptor_feature(&self) -> bool {
        matches!(self, TypePath::Absolute(path) if path.as_str().starts_with("::fastrs::descriptor"))
    }

    /// True for `::fastrs::descriptor::FILE_DESCRIPTOR_SET`, descriptor.proto's
    /// set, which the runtime has without its `descriptor` feature too.
    #[must_use]
    pub fn is_descriptor_proto_set(&self) -> bool {
        matches!(self, TypePath::Absolute(path) if path.as_str() == "::fastrs::descriptor::FILE_DESCRIPTOR_SET")
    }

    /// The path to this type as written in module `from`.
    #[must_use]
    pub fn relative_to(&self, from: &[String]) -> TokenStream {
        match self {
            TypePath::Absolute(path) => path.tokens(),
            TypePath::Local { modules, name } => {
                let common = from.iter().zip(modules).take_while(|(a, b)| a == b).count();
                let supers = (common..from.len()).map(|_| quote!(super::));
                let downs = modules[common..].iter().map(|m| {
                    let m = ident(m);
                    quote!(#m::)
                });
                let name = ident(name);
                quote!(#(#supers)* #(#downs)* #name)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(ts: TokenStream) -> String {
        ts.to_string().replace(' ', "")
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("match").to_string(), "r#match");
        assert_eq!(field_ident("async").to_string(), "r#async");
        assert_eq!(field_ident("ref").to_string(), "r#ref");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(field_ident("crate").to_string(), "crate_");
        assert_eq!(field_ident("super").to_string(), "super_");
        assert_eq!(type_ident("Self").to_string(), "Self_");
        assert_eq!(field_ident("normal").to_string(), "normal");
    }

    #[test]
    fn cases() {
        assert_eq!(field_ident("birthDay").to_string(), "birth_day");
        assert_eq!(field_ident("HTTPServer").to_string(), "http_server");
        assert_eq!(type_ident("foo_bar").to_string(), "FooBar");
        assert_eq!(type_ident("HTTPRequest").to_string(), "HttpRequest");
        assert_eq!(module_ident("Go").to_string(), "go");
        assert_eq!(snake("_"), "_");
        assert_eq!(camel("1st"), "_1st");
    }

    #[test]
    fn enum_prefixes_are_stripped_when_safe() {
        assert_eq!(
            variant_names("Type", &["TYPE_UNSPECIFIED", "TYPE_R"]),
            ["Unspecified", "R"]
        );
        assert_eq!(
            variant_names("PhoneType", &["PHONE_TYPE_MOBILE", "PHONE_TYPE_HOME"]),
            ["Mobile", "Home"]
        );
        // Stripping would leave a leading digit: nothing is stripped.
        assert_eq!(variant_names("Level", &["LEVEL_1", "LEVEL_2"]), ["Level1", "Level2"]);
        // Not every value has the prefix: nothing is stripped.
        assert_eq!(variant_names("Color", &["COLOR_RED", "BLUE"]), ["ColorRed", "Blue"]);
        assert_eq!(variant_names("E", &["ZERO", "ONE"]), ["Zero", "One"]);
        // Case conversion must not merge distinct values.
        assert_eq!(variant_names("E", &["MOO", "moo", "Moo"]), ["Moo", "moo", "Moo_2"]);
    }

    #[test]
    fn relative_paths() {
        let here = vec!["acme".to_string(), "shop".to_string()];
        let local = |m: &[&str], n: &str| TypePath::Local {
            modules: m.iter().map(|s| s.to_string()).collect(),
            name: n.into(),
        };
        assert_eq!(s(local(&["acme", "shop"], "Order").relative_to(&here)), "Order");
        assert_eq!(
            s(local(&["acme", "shop", "order"], "Line").relative_to(&here)),
            "order::Line"
        );
        assert_eq!(
            s(local(&["acme", "common"], "Money").relative_to(&here)),
            "super::common::Money"
        );
        assert_eq!(s(local(&[], "Root").relative_to(&here)), "super::super::Root");
        assert_eq!(
            s(local(&["acme", "shop"], "Order").relative_to(&[here.clone(), vec!["order".into()]].concat())),
            "super::Order"
        );
        assert_eq!(
            s(
                TypePath::Absolute(crate::options::RustPath::module("::fastrs::well_known::Timestamp").unwrap())
                    .relative_to(&here)
            ),
            "::fastrs::well_known::Timestamp"
        );
    }
}
