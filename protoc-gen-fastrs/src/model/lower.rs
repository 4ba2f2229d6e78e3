//! Descriptors → model. Every protobuf rule the emitters rely on is decided here:
//! presence, packing, map entries, oneof membership, boxing of recursive fields,
//! names, tags and doc comments.

use std::collections::{BTreeMap, HashMap, HashSet};

use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::descriptor::{DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto};
use heck::ToShoutySnakeCase;

use super::defaults;
use super::docs::Comments;
use super::index::{Def, Index, TypeInfo};
use super::locations::{self, child};
use super::names::{self, TypePath};
use super::strategy::Strategies;
use super::syntax::FileFeatures;
use super::wire::{self, Tag};
use super::{
    Alias, DefaultValue, Enum, Extension, Field, Kind, Message, Oneof, Package, Plan, Rpc, Scalar, Service, Shape,
    Slot, SourceFile, Strategy, Variant,
};
use crate::options::{Maps, Options};

/// Lowers `to_generate` (file names as in the descriptors) into one [`Package`]
/// per protobuf package. `files` must also hold every import.
///
/// # Errors
/// Every problem found, each naming the file and element.
pub fn lower(
    files: &[FileDescriptorProto],
    to_generate: &[String],
    options: &Options,
) -> Result<Vec<Package>, Vec<String>> {
    let features: HashMap<String, FileFeatures> = files
        .iter()
        .map(|f| (f.name().to_string(), FileFeatures::of(f)))
        .collect();
    let generated_packages: HashSet<&str> = files
        .iter()
        .filter(|f| to_generate.contains(&f.name().to_string()))
        .map(FileDescriptorProto::package)
        .collect();
    let index = Index::build(files, options, &generated_packages, &features);
    let strategies = Strategies::new(files, to_generate, options);
    let mut problems = Problems {
        errors: Vec::new(),
        missing: BTreeMap::new(),
        generated: to_generate.iter().map(String::as_str).collect(),
    };
    let mut packages: Vec<Package> = Vec::new();
    for name in to_generate {
        let Some(file) = files.iter().find(|f| f.name() == name) else {
            problems
                .errors
                .push(format!("{name}: file to generate is missing from the descriptors"));
            continue;
        };
        let Some(file_features) = features.get(file.name()) else {
            continue;
        };
        let mut ctx = FileCtx::new(file, &index, file_features, &mut problems);
        ctx.maps = options.maps.clone();
        ctx.json = options.json.clone();
        ctx.descriptors = options.embeds_descriptors();
        ctx.views = options.views;
        ctx.shared_bytes = &options.shared_bytes;
        ctx.strategies = Some(&strategies);
        let scope = names::package_modules(file.package());
        ctx.package_depth = scope.len();
        let messages: Vec<Message> = file
            .message_type
            .iter()
            .enumerate()
            .map(|(i, m)| ctx.message(m, file.package(), &scope, child(&[], locations::FILE_MESSAGE, i)))
            .collect();
        let enums: Vec<Enum> = file
            .enum_type
            .iter()
            .enumerate()
            .map(|(i, e)| ctx.enumeration(e, file.package(), child(&[], locations::FILE_ENUM, i)))
            .collect();
        let extensions = ctx.extensions(&file.extension, file.package(), &scope, &[locations::FILE_EXTENSION]);
        let services = if options.grpc || options.connect {
            ctx.services()
        } else {
            Vec::new()
        };
        let package = match packages.iter_mut().find(|p| p.name == file.package()) {
            Some(p) => p,
            None => {
                packages.push(Package {
                    name: file.package().to_string(),
                    file_name: if file.package().is_empty() {
                        "_.rs".into()
                    } else {
                        format!("{}.rs", file.package())
                    },
                    scope,
                    messages: Vec::new(),
                    enums: Vec::new(),
                    extensions: Vec::new(),
                    files: Vec::new(),
                    json: options.json.clone(),
                    descriptor_set: None,
                    descriptor_imports: Vec::new(),
                    services: Vec::new(),
                    grpc: options.grpc,
                    connect: options.connect,
                    descriptor_fields: Vec::new(),
                    validation: None,
                });
                packages.last_mut().expect("just pushed")
            }
        };
        let run = |start: usize, added: usize| start..start + added;
        package.files.push(SourceFile {
            name: file.name().to_string(),
            messages: run(package.messages.len(), messages.len()),
            enums: run(package.enums.len(), enums.len()),
            extensions: run(package.extensions.len(), extensions.len()),
            services: run(package.services.len(), services.len()),
        });
        collect_descriptor_fields(&messages, &mut package.descriptor_fields);
        package.messages.extend(messages);
        package.enums.extend(enums);
        package.extensions.extend(extensions);
        package.services.extend(services);
    }
    link_checked_extensions(&mut packages);
    let mut errors = problems.errors;
    if !options.imports_elsewhere {
        errors.extend(problems.missing.iter().map(|(file, missing)| {
            let Missing {
                referrer,
                element,
                type_name,
                package,
            } = missing;
            format!(
                "{referrer}: {element} refers to {type_name} from {file}, which this run does not generate. \
                 Generate that file in the same run (name it to protoc too; with `buf generate`, set \
                 `strategy: all`), map its package with extern_path=.{package}=::crate::path, or pass \
                 imports=elsewhere if another run generates it into the same module tree"
            )
        }));
    }
    if options.validate {
        match super::validation::plans(files, to_generate, options.validate_errors_at_runtime) {
            Ok(plans) => {
                for package in &mut packages {
                    package.validation = Some(plans.clone());
                }
            }
            Err(e) => errors.extend(e),
        }
    }
    if options.embeds_descriptors() {
        for package in &mut packages {
            package.descriptor_set = Some(embedded_descriptors(files, &package.files));
            package.descriptor_imports = descriptor_imports(files, package, &generated_packages, options);
        }
    }
    if errors.is_empty() {
        Ok(packages)
    } else {
        Err(errors)
    }
}

/// The encoded `FileDescriptorSet` of `sources`, without their source info
/// (comments and spans: the bulk of a descriptor, which nothing at run
/// time reads), as C++ embeds them.
fn embedded_descriptors(files: &[FileDescriptorProto], sources: &[SourceFile]) -> Vec<u8> {
    use fastrs::Message as _;
    let set = fastrs::descriptor::FileDescriptorSet {
        file: sources
            .iter()
            .filter_map(|s| files.iter().find(|f| f.name() == s.name))
            .map(|f| FileDescriptorProto {
                source_code_info: None,
                ..f.clone()
            })
            .collect(),
        ..Default::default()
    };
    set.encode_to_vec()
}

/// Where the `FILE_DESCRIPTOR_SET`s of the files `package`'s files import
/// (directly or not) live: the modules of packages generated in this run,
/// and the runtime's for `google/protobuf/*.proto` unless an `extern_path`
/// moves those. Other packages' sets (generated elsewhere, maybe without
/// descriptors) are left for users to register.
pub fn descriptor_imports(
    files: &[FileDescriptorProto],
    package: &Package,
    generated: &HashSet<&str>,
    options: &Options,
) -> Vec<TypePath> {
    let own: HashSet<&str> = package.files.iter().map(|f| f.name.as_str()).collect();
    let mut seen: HashSet<&str> = own.clone();
    let mut queue: Vec<&str> = own.iter().copied().collect();
    let mut paths: Vec<(String, TypePath)> = Vec::new();
    while let Some(name) = queue.pop() {
        let Some(file) = files.iter().find(|f| f.name() == name) else {
            continue;
        };
        for dep in file.dependency.iter().filter_map(|d| d.as_str()) {
            if !seen.insert(dep) {
                continue;
            }
            queue.push(dep);
            let Some(dep_file) = files.iter().find(|f| f.name() == dep) else {
                continue;
            };
            let dep_package = dep_file.package();
            let path = if dep_package == package.name {
                None
            } else if generated.contains(dep_package) {
                Some(TypePath::Local {
                    modules: names::package_modules(dep_package),
                    name: "FILE_DESCRIPTOR_SET".into(),
                })
            } else {
                runtime_descriptor_set(dep, dep_package, options)
            };
            if let Some(path) = path {
                let key = match &path {
                    TypePath::Local { modules, .. } => modules.join("::"),
                    TypePath::Absolute(p) => p.as_str().to_string(),
                };
                if !paths.iter().any(|(k, _)| *k == key) {
                    paths.push((key, path));
                }
            }
        }
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    paths.into_iter().map(|(_, p)| p).collect()
}

/// The runtime's `FILE_DESCRIPTOR_SET` that holds `file`, one of protobuf's
/// own or protovalidate's `validate.proto`, unless the user maps its
/// package elsewhere.
fn runtime_descriptor_set(file: &str, package: &str, options: &Options) -> Option<TypePath> {
    if file == "buf/validate/validate.proto" && package == "buf.validate" {
        // The runtime's `validate` types, where externs map them.
        let moved = options.extern_paths.iter().any(|(p, _)| p.starts_with(".buf.validate"));
        let path = "::fastrs::validate::types::FILE_DESCRIPTOR_SET";
        let tokens: proc_macro2::TokenStream = path.parse().expect("a valid path");
        return (!moved).then(|| TypePath::Absolute(crate::options::RustPath::from_parts(path, tokens)));
    }
    let moved = options
        .extern_paths
        .iter()
        .any(|(p, _)| ".google.protobuf".starts_with(p.as_str()) || p.starts_with(".google.protobuf"));
    if moved || !file.starts_with("google/protobuf/") || !package.starts_with("google.protobuf") {
        return None;
    }
    let module = match file {
        "google/protobuf/descriptor.proto" => "::fastrs::descriptor",
        "google/protobuf/compiler/plugin.proto" => "::fastrs::descriptor::compiler",
        _ => "::fastrs::well_known",
    };
    let path = format!("{module}::FILE_DESCRIPTOR_SET");
    let tokens: proc_macro2::TokenStream = path.parse().expect("a valid path");
    Some(TypePath::Absolute(crate::options::RustPath::from_parts(&path, tokens)))
}

/// Adds the full names of the fields of `messages` (nested ones included)
/// whose types are `fastrs::descriptor`'s to `out`.
fn collect_descriptor_fields(messages: &[Message], out: &mut Vec<String>) {
    for m in messages {
        let fields = m.fields.iter().chain(m.oneofs.iter().flat_map(|o| &o.members));
        out.extend(
            fields
                .filter(|f| f.needs_descriptor_feature())
                .map(|f| f.full_name.clone()),
        );
        collect_descriptor_fields(&m.messages, out);
    }
}

/// Gives each generated message the tags of the `string` extensions declared
/// for it in this run whose UTF-8 must be checked (see
/// [`Message::checked_extension_tags`]).
fn link_checked_extensions(packages: &mut [Package]) {
    fn collect<'p>(extensions: &'p [Extension], messages: &'p [Message], out: &mut Vec<&'p Extension>) {
        out.extend(
            extensions
                .iter()
                .filter(|e| matches!(e.kind, Kind::String { checked: true })),
        );
        for m in messages {
            collect(&m.extensions, &m.messages, out);
        }
    }
    fn apply(messages: &mut [Message], checked: &[(String, Tag)]) {
        for m in messages {
            m.checked_extension_tags = checked
                .iter()
                .filter(|(extendee, _)| *extendee == m.full_name)
                .map(|(_, tag)| tag.clone())
                .collect();
            apply(&mut m.messages, checked);
        }
    }
    let mut found = Vec::new();
    for p in packages.iter() {
        collect(&p.extensions, &p.messages, &mut found);
    }
    let checked: Vec<(String, Tag)> = found
        .iter()
        .map(|e| (e.extendee_name.clone(), Tag::new(e.number, wire::LEN)))
        .collect();
    for p in packages.iter_mut() {
        apply(&mut p.messages, &checked);
    }
}

/// What lowering found wrong, across files.
struct Problems<'a> {
    errors: Vec<String>,
    /// Files this run does not generate whose generated types are referred
    /// to, by name, with the first reference.
    missing: BTreeMap<String, Missing>,
    /// The files this run generates.
    generated: HashSet<&'a str>,
}

/// The first reference to a type of a file the run does not generate.
struct Missing {
    /// The file of the element that refers to it.
    referrer: String,
    /// The element (`pkg.Msg.field`, `pkg.Service.Method`).
    element: String,
    /// The type's full name and package.
    type_name: String,
    package: String,
}

/// Lowering state for one file.
struct FileCtx<'a, 'e> {
    file: &'a FileDescriptorProto,
    index: &'a Index<'a>,
    comments: Comments,
    problems: &'e mut Problems<'a>,
    /// The Rust type of maps.
    maps: Maps,
    /// Generate JSON code, and how it is gated.
    json: Option<crate::options::JsonGate>,
    /// Messages implement `fastrs::Described` (`descriptors=true`).
    descriptors: bool,
    /// Messages get zero-copy views (`views=true`).
    views: bool,
    /// Prefixes whose `bytes` fields are `bytes::Bytes` (`bytes=`).
    shared_bytes: &'a [String],
    /// The strategy of each message.
    strategies: Option<&'a Strategies<'a>>,
    /// Module segments of the file's package.
    package_depth: usize,
    /// The features of the file's elements: every protobuf rule that
    /// differs between syntaxes and editions comes from them.
    features: &'a FileFeatures,
}

impl<'a, 'e> FileCtx<'a, 'e> {
    fn new(
        file: &'a FileDescriptorProto,
        index: &'a Index<'a>,
        features: &'a FileFeatures,
        problems: &'e mut Problems<'a>,
    ) -> Self {
        let comments = Comments::of(file);
        FileCtx {
            file,
            index,
            comments,
            problems,
            maps: Maps::Hash,
            json: None,
            descriptors: false,
            views: false,
            shared_bytes: &[],
            strategies: None,
            package_depth: 0,
            features,
        }
    }

    fn doc(&self, path: &[i32]) -> Vec<String> {
        self.comments.get(path)
    }

    fn error(&mut self, element: &str, what: impl std::fmt::Display) {
        self.problems
            .errors
            .push(format!("{}: {element}: {what}", self.file.name()));
    }

    /// The message or enum `type_name` (`.pkg.Name`) that `element` refers
    /// to (as its `what`). A type generated into the module tree must come
    /// from a file this run generates; one that is not is recorded.
    fn type_info(&mut self, type_name: &str, element: &str, what: &str) -> Option<&'a TypeInfo<'a>> {
        let Some(info) = self.index.types.get(type_name) else {
            self.error(element, format!("unknown {what} `{type_name}`"));
            return None;
        };
        if matches!(info.path, TypePath::Local { .. }) && !self.problems.generated.contains(info.file) {
            let referrer = self.file.name().to_string();
            let package = self.index.package_of(info.file).to_string();
            self.problems
                .missing
                .entry(info.file.to_string())
                .or_insert_with(|| Missing {
                    referrer,
                    element: element.to_string(),
                    type_name: type_name.trim_start_matches('.').to_string(),
                    package,
                });
        }
        Some(info)
    }

    fn message(&mut self, desc: &DescriptorProto, parent: &str, scope: &[String], loc: Vec<i32>) -> Message {
        let full_name = if parent.is_empty() {
            desc.name().to_string()
        } else {
            format!("{parent}.{}", desc.name())
        };
        let inner_scope: Vec<String> = scope.iter().cloned().chain([names::snake(desc.name())]).collect();
        let messages = desc
            .nested_type
            .iter()
            .enumerate()
            .filter(|(_, m)| !m.options.as_ref().is_some_and(|o| o.map_entry()))
            .map(|(i, m)| self.message(m, &full_name, &inner_scope, child(&loc, locations::MESSAGE_NESTED, i)))
            .collect();
        let enums = desc
            .enum_type
            .iter()
            .enumerate()
            .map(|(i, e)| self.enumeration(e, &full_name, child(&loc, locations::MESSAGE_ENUM, i)))
            .collect();
        let extensions = self.extensions(
            &desc.extension,
            &full_name,
            &inner_scope,
            &[&loc[..], &[locations::MESSAGE_EXTENSION]].concat(),
        );

        let mut fields = Vec::new();
        let mut oneofs: Vec<Oneof> = desc
            .oneof_decl
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let enum_ident = names::oneof_enum_ident(o.name(), desc);
                let view = self.index.view_name(&inner_scope, &enum_ident.to_string());
                Oneof {
                    proto_name: o.name().to_string(),
                    field: names::field_ident(o.name()),
                    view_ident: names::ident(&view),
                    enum_ident,
                    doc: self.doc(&child(&loc, locations::MESSAGE_ONEOF, i)),
                    members: Vec::new(),
                }
            })
            .collect();
        for (i, f) in desc.field.iter().enumerate() {
            let element = format!("{full_name}.{}", f.name());
            let field_loc = child(&loc, locations::MESSAGE_FIELD, i);
            let doc = self.doc(&field_loc);
            let Some(field) = self.field(f, &full_name, &element, doc, &field_loc) else {
                continue;
            };
            match f.oneof_index {
                Some(o) if !f.proto3_optional() => match oneofs.get_mut(o as usize) {
                    Some(oneof) => oneof.members.push(field),
                    None => self.error(&element, "oneof_index out of range"),
                },
                _ => fields.push(field),
            }
        }
        // Synthetic oneofs of proto3 `optional` fields have no members left.
        oneofs.retain(|o| !o.members.is_empty());
        fields.sort_by_key(|f| f.number);
        for o in &mut oneofs {
            o.members.sort_by_key(|f| f.number);
        }
        let order = field_order(&fields, &oneofs);
        let chain = chain_link(desc, &full_name, &fields);
        let taken = || fields.iter().map(|f| &f.ident).chain(oneofs.iter().map(|o| &o.field));
        let unknown_fields = names::unique_field_ident("unknown_fields", taken());
        let recycle = names::unique_field_ident("recycle", taken());
        let checks_required = self.index.checks_required(&format!(".{full_name}"));
        let strategy = self.strategies.map_or(Strategy::Inline, |s| s.of(&full_name));
        let plan = Plan::new(&fields, &oneofs, &order);
        Message {
            checks_required,
            extensions,
            full_name,
            ident: names::type_ident(desc.name()),
            view_ident: names::ident(&self.index.view_name(scope, &names::camel(desc.name()))),
            module: names::module_ident(desc.name()),
            scope: scope.to_vec(),
            doc: self.doc(&loc),
            options: desc.options.clone().unwrap_or_default(),
            fields,
            oneofs,
            order,
            chain,
            unknown_fields,
            recycle,
            strategy,
            plan,
            messages,
            enums,
            extendable: !desc.extension_range.is_empty(),
            checked_extension_tags: Vec::new(),
            json: self.json.clone(),
            views: self.views,
            described_at: self.descriptors.then(|| scope.len() - self.package_depth),
        }
    }

    fn field(
        &mut self,
        f: &FieldDescriptorProto,
        message: &str,
        element: &str,
        doc: Vec<String>,
        loc: &[i32],
    ) -> Option<Field> {
        let number = u32::try_from(f.number()).ok().filter(|n| (1..=536_870_911).contains(n));
        let Some(number) = number else {
            self.error(element, format!("field number {} is out of range", f.number()));
            return None;
        };
        let in_oneof = f.oneof_index.is_some() && !f.proto3_optional();
        let features = self.features.field(loc, f);
        let mut kind = self.kind(f, message, element, loc, f.label() != Label::Repeated)?;
        if let Kind::Message { group, tabled, .. } = &mut kind {
            // A group is a DELIMITED message field (editions' spelling),
            // which a table entry does not read.
            if features.delimited() && !self.is_map(f) {
                *group = Some(number);
                *tabled = false;
            }
        }
        let main_wire = wire::wire_type(&kind);
        let (shape, tag) = if f.label() == Label::Repeated {
            if let Some((key, value)) = self.map_entry(f, message, element, loc) {
                (
                    Shape::Map {
                        key,
                        value,
                        maps: self.maps.clone(),
                    },
                    Tag::new(number, wire::LEN),
                )
            } else {
                let packable = kind.is_packable();
                let packed = packable && features.packed();
                let alt_tag = packable.then(|| Tag::new(number, if packed { main_wire } else { wire::LEN }));
                let tag = Tag::new(number, if packed { wire::LEN } else { main_wire });
                (Shape::Repeated { kind, packed, alt_tag }, tag)
            }
        } else if in_oneof {
            (Shape::OneofMember(kind), Tag::new(number, main_wire))
        } else if matches!(kind, Kind::Message { .. }) || !features.implicit_presence() {
            (Shape::Optional(kind), Tag::new(number, main_wire))
        } else {
            (Shape::Implicit(kind), Tag::new(number, main_wire))
        };
        let ident = if in_oneof {
            names::type_ident(f.name())
        } else {
            names::field_ident(f.name())
        };
        let default = match &shape {
            Shape::Optional(kind) if f.default_value.is_some() => self.default_value(f, kind, element),
            _ => None,
        };
        Some(Field {
            number,
            ident,
            doc,
            options: f.options.clone().unwrap_or_default(),
            shape,
            tag,
            full_name: element.to_string(),
            proto_name: f.name().to_string(),
            json_name: f
                .json_name
                .as_deref()
                .map_or_else(|| fastrs::schema::json_name(f.name()), str::to_string),
            required: features.required(),
            default,
        })
    }

    fn is_map(&self, f: &FieldDescriptorProto) -> bool {
        self.index
            .message(f.type_name())
            .is_some_and(|m| m.options.as_ref().is_some_and(|o| o.map_entry()))
    }

    /// The key and value types of map field `f` (at `loc`, whose features its
    /// entry's fields share).
    fn map_entry(
        &mut self,
        f: &FieldDescriptorProto,
        message: &str,
        element: &str,
        loc: &[i32],
    ) -> Option<(Kind, Kind)> {
        if f.r#type() != Type::Message {
            return None;
        }
        let entry = self.index.message(f.type_name())?;
        if !entry.options.as_ref().is_some_and(|o| o.map_entry()) {
            return None;
        }
        let key = entry.field.iter().find(|e| e.number() == 1)?;
        let value = entry.field.iter().find(|e| e.number() == 2)?;
        Some((
            self.kind(key, message, element, loc, false)?,
            self.kind(value, message, element, loc, false)?,
        ))
    }

    /// Whether the `bytes` field `element` (`pkg.Msg.field`) is held as
    /// `bytes::Bytes`: it is under a prefix of the `bytes` option.
    fn shares_bytes(&self, element: &str) -> bool {
        self.shared_bytes.iter().any(|p| {
            let p = p.trim_start_matches('.');
            p.is_empty() || element == p || element.strip_prefix(p).is_some_and(|rest| rest.starts_with('.'))
        })
    }

    /// Whether `string` values at element `loc` must be UTF-8: proto3 and
    /// editions' `VERIFY` check, proto2 does not (nor does any reference
    /// implementation).
    fn checks_utf8(&self, loc: &[i32]) -> bool {
        self.features.resolve(loc).checks_utf8()
    }

    /// The value type of field `f`, declared at element `loc`. `inline`: the
    /// value is stored in its message (a singular field or oneof member), so
    /// a message type that contains `message` must be boxed; elements of
    /// repeated fields and map values live on the heap already.
    fn kind(
        &mut self,
        f: &FieldDescriptorProto,
        message: &str,
        element: &str,
        loc: &[i32],
        inline: bool,
    ) -> Option<Kind> {
        let scalar = |s| Some(Kind::Scalar(s));
        match f.r#type() {
            Type::Double => scalar(Scalar::Double),
            Type::Float => scalar(Scalar::Float),
            Type::Int64 => scalar(Scalar::Int64),
            Type::Uint64 => scalar(Scalar::Uint64),
            Type::Int32 => scalar(Scalar::Int32),
            Type::Fixed64 => scalar(Scalar::Fixed64),
            Type::Fixed32 => scalar(Scalar::Fixed32),
            Type::Bool => scalar(Scalar::Bool),
            Type::Uint32 => scalar(Scalar::Uint32),
            Type::Sfixed32 => scalar(Scalar::Sfixed32),
            Type::Sfixed64 => scalar(Scalar::Sfixed64),
            Type::Sint32 => scalar(Scalar::Sint32),
            Type::Sint64 => scalar(Scalar::Sint64),
            Type::String => Some(Kind::String {
                checked: self.checks_utf8(loc),
            }),
            Type::Bytes => Some(Kind::Bytes {
                shared: !message.is_empty() && self.shares_bytes(element),
            }),
            Type::Enum | Type::Message => {
                let info = self.type_info(f.type_name(), element, "type")?;
                let path = info.path.clone();
                Some(match info.def {
                    Def::Enum(e, closed) => Kind::Enum {
                        path,
                        closed,
                        deprecated: e.options.as_ref().is_some_and(|o| o.deprecated()),
                    },
                    Def::Message(_) => self.message_kind(f, path, message, None, inline),
                })
            }
            Type::Group => {
                let info = self.type_info(f.type_name(), element, "type")?;
                let number = u32::try_from(f.number()).unwrap_or_default();
                Some(self.message_kind(f, info.path.clone(), message, Some(number), inline))
            }
        }
    }

    fn message_kind(
        &self,
        f: &FieldDescriptorProto,
        path: TypePath,
        message: &str,
        group: Option<u32>,
        inline: bool,
    ) -> Kind {
        let boxed = inline && self.index.contains(f.type_name(), &format!(".{message}"));
        let checks_required = self.index.checks_required(f.type_name());
        let deprecated = self
            .index
            .message(f.type_name())
            .is_some_and(|m| m.options.as_ref().is_some_and(|o| o.deprecated()));
        let tabled = group.is_none() && self.strategies.is_some_and(|s| s.has_table(f.type_name()));
        Kind::Message {
            view: self.index.view_path(&path),
            path,
            boxed,
            group,
            tabled,
            checks_required,
            deprecated,
        }
    }

    /// The `[default = ...]` of an explicit-presence field, as protoc spells it
    /// in the descriptor (decimal numbers, `inf`/`nan`, C-escaped bytes, enum
    /// value names).
    fn default_value(&mut self, f: &FieldDescriptorProto, kind: &Kind, element: &str) -> Option<DefaultValue> {
        let text = f.default_value();
        let (value, problem) = match (kind, self.index.types.get(f.type_name()).map(|t| &t.def)) {
            (Kind::Enum { .. }, Some(Def::Enum(e, _))) => (
                defaults::enum_variant(e, text).map(DefaultValue::Enum),
                "is not a value of the enum",
            ),
            (Kind::Enum { .. }, _) => return None,
            _ => (
                defaults::literal(kind, text).map(DefaultValue::Literal),
                "cannot be read as the field's type",
            ),
        };
        if value.is_none() {
            self.error(element, format!("default `{text}` {problem}"));
        }
        value
    }

    /// The `extend` fields declared in one scope, whose constants live in module `scope`.
    fn extensions(
        &mut self,
        fields: &[FieldDescriptorProto],
        parent: &str,
        _scope: &[String],
        loc: &[i32],
    ) -> Vec<Extension> {
        let mut out = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let element = if parent.is_empty() {
                f.name().to_string()
            } else {
                format!("{parent}.{}", f.name())
            };
            let Some(extendee) = self
                .type_info(f.extendee(), &element, "extendee")
                .map(|t| t.path.clone())
            else {
                continue;
            };
            let Some(kind) = self.kind(f, "", &element, &[loc, &[i as i32]].concat(), false) else {
                continue;
            };
            let Ok(number) = u32::try_from(f.number()) else {
                continue;
            };
            out.push(Extension {
                ident: names::ident(&f.name().to_shouty_snake_case()),
                doc: self.doc(&[loc, &[i as i32]].concat()),
                number,
                extendee,
                extendee_name: f.extendee().trim_start_matches('.').to_string(),
                extendee_deprecated: self
                    .index
                    .message(f.extendee())
                    .is_some_and(|m| m.options.as_ref().is_some_and(|o| o.deprecated())),
                kind,
                repeated: f.label() == Label::Repeated,
            });
        }
        out
    }

    /// The file's services, for gRPC code.
    fn services(&mut self) -> Vec<Service> {
        let mut out = Vec::new();
        for (i, s) in self.file.service.iter().enumerate() {
            let loc = child(&[], locations::FILE_SERVICE, i);
            let mut methods = Vec::new();
            for (j, m) in s.method.iter().enumerate() {
                let element = match self.file.package() {
                    "" => format!("{}.{}", s.name(), m.name()),
                    package => format!("{package}.{}.{}", s.name(), m.name()),
                };
                let mut path_of =
                    |type_name: &str| Some(self.type_info(type_name, &element, "message type")?.path.clone());
                let (Some(input), Some(output)) = (path_of(m.input_type()), path_of(m.output_type())) else {
                    continue;
                };
                methods.push(Rpc {
                    name: m.name().to_string(),
                    input,
                    output,
                    client_streaming: m.client_streaming(),
                    server_streaming: m.server_streaming(),
                    docs: self.doc(&child(&loc, locations::SERVICE_METHOD, j)),
                    deprecated: m.options.as_ref().is_some_and(|o| o.deprecated()),
                    side_effect_free: m.options.as_ref().is_some_and(|o| {
                        o.idempotency_level() == fastrs::descriptor::method_options::IdempotencyLevel::NoSideEffects
                    }),
                });
            }
            out.push(Service {
                name: s.name().to_string(),
                package: self.file.package().to_string(),
                docs: self.doc(&loc),
                methods,
            });
        }
        out
    }

    fn enumeration(&mut self, desc: &EnumDescriptorProto, parent: &str, loc: Vec<i32>) -> Enum {
        let full_name = if parent.is_empty() {
            desc.name().to_string()
        } else {
            format!("{parent}.{}", desc.name())
        };
        let proto_names: Vec<&str> = desc.value.iter().map(|v| v.name()).collect();
        let rust_names = names::variant_names(desc.name(), &proto_names);
        let mut variants: Vec<Variant> = Vec::new();
        let mut aliases = Vec::new();
        for (i, (v, rust)) in desc.value.iter().zip(&rust_names).enumerate() {
            let doc = self.doc(&child(&loc, locations::ENUM_VALUE, i));
            let ident = names::ident(rust);
            match variants.iter().find(|existing| existing.number == v.number()) {
                Some(first) => aliases.push(Alias {
                    proto_name: v.name().to_string(),
                    ident,
                    doc,
                    target: first.ident.clone(),
                }),
                None => variants.push(Variant {
                    proto_name: v.name().to_string(),
                    ident,
                    number: v.number(),
                    doc,
                    options: v.options.clone().unwrap_or_default(),
                }),
            }
        }
        if variants.is_empty() {
            self.error(&full_name, "an enum needs at least one value");
        }
        Enum {
            full_name: full_name.clone(),
            ident: names::type_ident(desc.name()),
            doc: self.doc(&loc),
            options: desc.options.clone().unwrap_or_default(),
            variants,
            aliases,
        }
    }
}

/// The index in `fields` of the link of a chain of messages of this type (see
/// `fastrs::chain`): its lowest-numbered singular, length-delimited field of
/// its own type. A message with several (a binary tree's `left` and `right`)
/// is walked along the first in a loop and recurses into the others.
fn chain_link(desc: &DescriptorProto, full_name: &str, fields: &[Field]) -> Option<usize> {
    let own = format!(".{full_name}");
    fields.iter().position(|f| {
        matches!(f.shape, Shape::Optional(Kind::Message { group: None, .. }))
            && desc
                .field
                .iter()
                .any(|d| u32::try_from(d.number()) == Ok(f.number) && d.type_name() == own)
    })
}

/// Fields and oneof runs in ascending field-number order.
fn field_order(fields: &[Field], oneofs: &[Oneof]) -> Vec<Slot> {
    let mut all: Vec<(u32, Option<usize>, usize)> =
        fields.iter().enumerate().map(|(i, f)| (f.number, None, i)).collect();
    for (o, oneof) in oneofs.iter().enumerate() {
        all.extend(oneof.members.iter().enumerate().map(|(m, f)| (f.number, Some(o), m)));
    }
    all.sort_by_key(|&(number, _, _)| number);
    let mut order: Vec<Slot> = Vec::new();
    for (_, oneof, i) in all {
        match (oneof, order.last_mut()) {
            (None, _) => order.push(Slot::Field(i)),
            (Some(o), Some(Slot::Oneof(last, members))) if *last == o => members.push(i),
            (Some(o), _) => order.push(Slot::Oneof(o, vec![i])),
        }
    }
    order
}
