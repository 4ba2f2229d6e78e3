//! Where types generated elsewhere live: the `extern_path` option, and the
//! well-known types, which the runtime ships.

use fastrs::descriptor::FileDescriptorProto;

use super::names::{self, TypePath};
use crate::options::{Options, RustPath};

/// A protobuf prefix and the Rust path its types live under.
pub type ExternPath = (String, RustPath);

/// The top-level types of `google/protobuf/descriptor.proto`, which the
/// runtime ships in `fastrs::descriptor` (a test checks the list against the
/// file).
pub const DESCRIPTOR_TYPES: &[&str] = &[
    "FileDescriptorSet",
    "Edition",
    "FileDescriptorProto",
    "DescriptorProto",
    "ExtensionRangeOptions",
    "FieldDescriptorProto",
    "OneofDescriptorProto",
    "EnumDescriptorProto",
    "EnumValueDescriptorProto",
    "ServiceDescriptorProto",
    "MethodDescriptorProto",
    "FileOptions",
    "MessageOptions",
    "FieldOptions",
    "OneofOptions",
    "EnumOptions",
    "EnumValueOptions",
    "ServiceOptions",
    "MethodOptions",
    "UninterpretedOption",
    "FeatureSet",
    "FeatureSetDefaults",
    "SourceCodeInfo",
    "GeneratedCodeInfo",
    "SymbolVisibility",
];

/// The top-level types of protovalidate's `buf/validate/validate.proto`,
/// which the runtime ships in `fastrs::validate::types` (a test checks the
/// list against the file). Listed one by one, not as a package, so that
/// the conformance harness's `buf.validate.conformance` packages are not
/// taken for the runtime's.
pub const VALIDATE_TYPES: &[&str] = &[
    "Rule",
    "MessageRules",
    "MessageOneofRule",
    "OneofRules",
    "FieldRules",
    "PredefinedRules",
    "Ignore",
    "FloatRules",
    "DoubleRules",
    "Int32Rules",
    "Int64Rules",
    "UInt32Rules",
    "UInt64Rules",
    "SInt32Rules",
    "SInt64Rules",
    "Fixed32Rules",
    "Fixed64Rules",
    "SFixed32Rules",
    "SFixed64Rules",
    "BoolRules",
    "StringRules",
    "KnownRegex",
    "BytesRules",
    "EnumRules",
    "RepeatedRules",
    "MapRules",
    "AnyRules",
    "DurationRules",
    "FieldMaskRules",
    "TimestampRules",
    "Violations",
    "Violation",
    "FieldPath",
    "FieldPathElement",
];

/// The user's extern paths, plus the packages the runtime ships unless
/// `generating` says they are being generated (as the runtime's own are):
/// the `.google.protobuf` types (`fastrs::well_known`, `fastrs::descriptor`
/// and `fastrs::descriptor::compiler`), and protovalidate's `.buf.validate`
/// (`fastrs::validate::types`, with the `validate` feature).
#[must_use]
pub fn with_well_known(externs: &[ExternPath], generating: impl Fn(&str) -> bool) -> Vec<ExternPath> {
    let mut all = externs.to_vec();
    let generating_well_known = generating("google.protobuf");
    if !generating("buf.validate") && !externs.iter().any(|(proto, _)| proto == ".buf.validate") {
        let types = RustPath::from_parts("::fastrs::validate::types", quote::quote!(::fastrs::validate::types));
        for name in VALIDATE_TYPES {
            let ty = names::type_ident(name);
            all.push((format!(".buf.validate.{name}"), types.join(&[ty])));
        }
    }
    if !generating_well_known {
        let runtime = RustPath::from_parts;
        all.push((
            ".google.protobuf".to_string(),
            runtime("::fastrs::well_known", quote::quote!(::fastrs::well_known)),
        ));
        let descriptor = runtime("::fastrs::descriptor", quote::quote!(::fastrs::descriptor));
        all.push((
            ".google.protobuf.compiler".to_string(),
            runtime(
                "::fastrs::descriptor::compiler",
                quote::quote!(::fastrs::descriptor::compiler),
            ),
        ));
        for name in DESCRIPTOR_TYPES {
            let ty = names::type_ident(name);
            all.push((format!(".google.protobuf.{name}"), descriptor.join(&[ty])));
        }
    }
    all
}

/// The files to generate for `inputs` (names in `files`, which holds them
/// and everything they import): the inputs, then each imported file in
/// `files`' order, except those whose types are all generated elsewhere
/// (the runtime's well-known and descriptor types, or an `extern_path`).
#[must_use]
pub fn with_imports(files: &[FileDescriptorProto], inputs: &[String], options: &Options) -> Vec<String> {
    let generating = |package: &str| {
        files
            .iter()
            .any(|f| f.package() == package && inputs.iter().any(|i| i == f.name()))
    };
    let externs = with_well_known(&options.extern_paths, generating);
    let mapped = |file: &FileDescriptorProto| {
        let package = if file.package().is_empty() {
            String::new()
        } else {
            format!(".{}", file.package())
        };
        let types: Vec<&str> = file
            .message_type
            .iter()
            .map(|m| m.name())
            .chain(file.enum_type.iter().map(|e| e.name()))
            .collect();
        if types.is_empty() {
            extern_path(&package, &externs).is_some()
        } else {
            types
                .iter()
                .all(|name| extern_path(&format!("{package}.{name}"), &externs).is_some())
        }
    };
    let mut out = inputs.to_vec();
    out.extend(
        files
            .iter()
            .filter(|f| !inputs.iter().any(|i| i == f.name()) && !mapped(f))
            .map(|f| f.name().to_string()),
    );
    out
}

/// The Rust path of type `full` (`.acme.Outer.Inner`) under the longest
/// matching extern prefix, if any: nested messages become modules. A prefix
/// may name a package (`.acme` → `::x`: `::x::outer::Inner`) or a type
/// (`.acme.Outer` → `::x::Outer`: types nested in it are in its module
/// beside it, `::x::outer::Inner`); a type's name starts with a capital.
#[must_use]
pub fn extern_path(full: &str, externs: &[ExternPath]) -> Option<TypePath> {
    let (proto, rust) = externs
        .iter()
        .filter(|(p, _)| full == p || full.starts_with(&format!("{p}.")))
        .max_by_key(|(p, _)| p.len())?;
    let rest: Vec<&str> = full[proto.len()..].split('.').filter(|s| !s.is_empty()).collect();
    let Some((&last, outer)) = rest.split_last() else {
        return Some(TypePath::Absolute(rust.clone()));
    };
    let mut outer = outer.to_vec();
    let mut base = rust.clone();
    let prefix_type = proto
        .rsplit('.')
        .next()
        .filter(|s| s.starts_with(|c: char| c.is_ascii_uppercase()));
    if let (Some(type_name), Some(parent)) = (prefix_type, rust.parent()) {
        outer.insert(0, type_name);
        base = parent;
    }
    let segments: Vec<_> = outer
        .iter()
        .map(|s| names::module_ident(s))
        .chain([names::type_ident(last)])
        .collect();
    Some(TypePath::Absolute(base.join(&segments)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastrs::descriptor::{DescriptorProto, FieldDescriptorProto};

    fn file(name: &str, package: &str, messages: &[&str]) -> FileDescriptorProto {
        FileDescriptorProto {
            name: Some(name.into()),
            package: Some(package.into()),
            message_type: messages
                .iter()
                .map(|m| DescriptorProto {
                    name: Some((*m).into()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn imports_are_generated_unless_their_types_live_elsewhere() {
        let mut annotations = file("google/api/annotations.proto", "google.api", &[]);
        annotations.extension.push(FieldDescriptorProto::default());
        let files = [
            file("google/protobuf/timestamp.proto", "google.protobuf", &["Timestamp"]),
            file("google/protobuf/descriptor.proto", "google.protobuf", &["FieldOptions"]),
            annotations,
            file("acme/common.proto", "acme.common", &["Money"]),
            file("acme/money.proto", "acme.money", &["Cents"]),
            file("acme/svc.proto", "acme.svc", &["Request"]),
        ];
        let mut options = Options::default();
        options.add_extern_path(".acme.money", "::money").unwrap();
        let inputs = ["acme/svc.proto".to_string()];
        assert_eq!(
            with_imports(&files, &inputs, &options),
            ["acme/svc.proto", "google/api/annotations.proto", "acme/common.proto"]
        );
    }

    fn path(text: &str) -> TypePath {
        TypePath::Absolute(RustPath::module(text).unwrap())
    }

    #[test]
    fn extern_paths_pick_longest_prefix() {
        let externs = vec![
            (".a".to_string(), RustPath::module("::x").unwrap()),
            (".a.b".to_string(), RustPath::module("::y").unwrap()),
        ];
        assert_eq!(extern_path(".a.b.Msg", &externs), Some(path("::y::Msg")));
        assert_eq!(extern_path(".a.Outer.Inner", &externs), Some(path("::x::outer::Inner")));
        assert_eq!(extern_path(".ab.Msg", &externs), None);
        assert_eq!(extern_path(".a.b", &externs), Some(path("::y")));
    }

    #[test]
    fn the_validate_type_list_is_validate_proto_s() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto/buf/validate/validate.proto");
        let text = std::fs::read_to_string(file).unwrap();
        let top_level: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("message ").or_else(|| l.strip_prefix("enum ")))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(top_level, VALIDATE_TYPES);
    }

    #[test]
    fn the_descriptor_type_list_is_descriptor_proto_s() {
        let include = protoc_bin_vendored::include_path().unwrap();
        let text = std::fs::read_to_string(include.join("google/protobuf/descriptor.proto")).unwrap();
        let top_level: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("message ").or_else(|| l.strip_prefix("enum ")))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(top_level, DESCRIPTOR_TYPES);
    }

    #[test]
    fn well_known_types_come_from_the_runtime_unless_generated() {
        let with = with_well_known(&[], |_| false);
        assert_eq!(
            extern_path(".google.protobuf.Timestamp", &with),
            Some(path("::fastrs::well_known::Timestamp"))
        );
        assert_eq!(
            extern_path(".google.protobuf.FieldOptions", &with),
            Some(path("::fastrs::descriptor::FieldOptions"))
        );
        assert_eq!(
            extern_path(".google.protobuf.FieldDescriptorProto.Type", &with),
            Some(path("::fastrs::descriptor::field_descriptor_proto::Type"))
        );
        assert_eq!(
            extern_path(".google.protobuf.compiler.CodeGeneratorRequest", &with),
            Some(path("::fastrs::descriptor::compiler::CodeGeneratorRequest"))
        );
        assert!(with_well_known(&[], |_| true).is_empty());
        assert_eq!(
            extern_path(".buf.validate.Violations", &with),
            Some(path("::fastrs::validate::types::Violations"))
        );
    }
}
