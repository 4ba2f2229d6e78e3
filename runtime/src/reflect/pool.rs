//! The pool's tables, and adding files to them: every file is read, its
//! names declared, its imports checked and its references linked to
//! indices before the pool changes, so a bad file changes nothing.

use std::collections::HashMap;
use std::string::String;
use std::vec::Vec;

use super::error::{PoolError, PoolErrorKind};
use super::read::{self, FieldProto, FileProto};
use crate::wire;

/// Everything a pool knows, linked by index.
#[derive(Clone, Default)]
pub(crate) struct Tables {
    pub files: Vec<FileData>,
    pub messages: Vec<MessageData>,
    pub enums: Vec<EnumData>,
    pub services: Vec<ServiceData>,
    pub extensions: Vec<FieldData>,
    pub names: HashMap<String, Symbol>,
    pub file_names: HashMap<String, u32>,
    /// (extendee, number) → extension.
    pub extension_numbers: HashMap<(u32, u32), u32>,
    /// Which pool these tables are a version of: adding files only appends,
    /// so an index means the same element in every version of one pool.
    pub lineage: u64,
}

/// What a full name declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Symbol {
    Package,
    Message(u32),
    Enum(u32),
    Service(u32),
    Extension(u32),
    /// A field, oneof, enum value or method, in the file of that index.
    Member(u32),
}

#[derive(Clone, Default)]
pub(crate) struct FileData {
    pub name: String,
    pub package: String,
    pub syntax: String,
    pub dependencies: Vec<u32>,
    pub messages: Vec<u32>,
    pub enums: Vec<u32>,
    pub services: Vec<u32>,
    pub extensions: Vec<u32>,
    pub options: Vec<u8>,
    pub encoded: Vec<u8>,
}

#[derive(Clone, Default)]
pub(crate) struct MessageData {
    pub name: String,
    pub full_name: String,
    pub file: u32,
    pub parent: Option<u32>,
    /// In declaration order.
    pub fields: Vec<FieldData>,
    pub oneofs: Vec<OneofData>,
    pub map_entry: bool,
    pub options: Vec<u8>,
    pub extension_ranges: Vec<(u32, u32)>,
    pub reserved_ranges: Vec<(u32, u32)>,
    pub reserved_names: Vec<String>,
    pub nested_messages: Vec<u32>,
    pub nested_enums: Vec<u32>,
    pub nested_extensions: Vec<u32>,
    /// Field indices in number order.
    pub by_number: Vec<u32>,
    /// Field index by number, for numbers below [`DENSE`]; `NONE` where none.
    pub dense: Vec<u32>,
    /// True if a message of this type can lack a `required` field: it has
    /// one, holds a message type that can, or has extensions.
    pub checks_required: bool,
}

/// Field numbers below this are found by indexing, the rest by search.
const DENSE: u32 = 64;
pub(crate) const NONE: u32 = u32::MAX;

// For the formats (JSON, text), which walk the tables directly.
#[cfg_attr(not(any(feature = "json", feature = "text")), allow(dead_code))]
impl Tables {
    /// The message type of a message field.
    pub fn message_of(&self, field: &FieldData) -> Option<&MessageData> {
        match field.ty {
            Ty::Message(m) => Some(&self.messages[m as usize]),
            _ => None,
        }
    }

    /// The enum type of an enum field.
    pub fn enum_of(&self, field: &FieldData) -> Option<&EnumData> {
        match field.ty {
            Ty::Enum(e) => Some(&self.enums[e as usize]),
            _ => None,
        }
    }
}

impl MessageData {
    /// The field numbered `number`.
    #[cfg_attr(not(any(feature = "json", feature = "text")), allow(dead_code))]
    pub fn field(&self, number: u32) -> Option<&FieldData> {
        self.field_index(number).map(|i| &self.fields[i as usize])
    }

    /// The index of the field numbered `number`.
    #[inline]
    pub fn field_index(&self, number: u32) -> Option<u32> {
        if let Some(&i) = self.dense.get(number as usize) {
            return (i != NONE).then_some(i);
        }
        let fields = &self.fields;
        let at = self
            .by_number
            .binary_search_by_key(&number, |&i| fields[i as usize].number)
            .ok()?;
        Some(self.by_number[at])
    }
}

#[derive(Clone)]
pub(crate) struct OneofData {
    pub name: String,
    pub options: Vec<u8>,
    pub fields: Vec<u32>,
    /// The oneof protoc makes for a proto3 `optional` field.
    pub synthetic: bool,
}

/// How many values a field holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Cardinality {
    /// At most one.
    #[default]
    Optional,
    /// Exactly one (proto2 `required`, editions' `LEGACY_REQUIRED`).
    Required,
    /// Any number.
    Repeated,
}

/// A field's type, linked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Ty {
    Double,
    Float,
    Int64,
    Uint64,
    Int32,
    Fixed64,
    Fixed32,
    #[default]
    Bool,
    String,
    Bytes,
    Uint32,
    Sfixed32,
    Sfixed64,
    Sint32,
    Sint64,
    Message(u32),
    Enum(u32),
}

impl Ty {
    /// A scalar type by its `FieldDescriptorProto.Type` number.
    fn scalar(number: u64) -> Option<Ty> {
        Some(match number {
            1 => Ty::Double,
            2 => Ty::Float,
            3 => Ty::Int64,
            4 => Ty::Uint64,
            5 => Ty::Int32,
            6 => Ty::Fixed64,
            7 => Ty::Fixed32,
            8 => Ty::Bool,
            9 => Ty::String,
            12 => Ty::Bytes,
            13 => Ty::Uint32,
            15 => Ty::Sfixed32,
            16 => Ty::Sfixed64,
            17 => Ty::Sint32,
            18 => Ty::Sint64,
            _ => return None,
        })
    }

    /// The wire type of one value (a message: length-delimited).
    pub fn wire_type(self) -> u8 {
        match self {
            Ty::Double | Ty::Fixed64 | Ty::Sfixed64 => wire::FIXED64,
            Ty::Float | Ty::Fixed32 | Ty::Sfixed32 => wire::FIXED32,
            Ty::String | Ty::Bytes | Ty::Message(_) => wire::LEN,
            _ => wire::VARINT,
        }
    }

    /// True for types a packed run can hold.
    pub fn packable(self) -> bool {
        !matches!(self, Ty::String | Ty::Bytes | Ty::Message(_))
    }
}

#[derive(Clone, Default)]
pub(crate) struct FieldData {
    pub name: String,
    pub full_name: String,
    pub json_name: String,
    pub number: u32,
    pub cardinality: Cardinality,
    pub ty: Ty,
    pub oneof: Option<u32>,
    /// Singular and tracks presence (`has`), apart from its value.
    pub presence: bool,
    /// Repeated, packable and written packed.
    pub packed: bool,
    /// A message written as a group.
    pub delimited: bool,
    /// A string whose values must be UTF-8.
    pub utf8: bool,
    pub default: Option<String>,
    pub options: Vec<u8>,
    /// Extensions: the message extended.
    pub extendee: Option<u32>,
    /// The message declaring it (none for file-level extensions).
    pub scope: Option<u32>,
    pub file: u32,
    pub proto3_optional: bool,
    /// A group-like field (protobuf's `IsGroupLike`): delimited, named
    /// after its type in lower case, the type declared beside it in the
    /// same file. The text format writes it by its type's name.
    pub group_like: bool,
    /// The tag of one value as the field's own encoding writes it
    /// (unpacked; a group's START_GROUP).
    pub tag: u32,
    /// How decoding reads a record with [`FieldData::tag`].
    pub path: DecodePath,
}

/// How dynamic decoding reads a field's record when its tag is the field's
/// own: chosen once per field when its file joins the pool, so the decode
/// loop reads the common cases without looking at the field's type twice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum DecodePath {
    /// A singular scalar (not a closed enum): the value replaces the slot.
    Scalar,
    /// A repeated scalar (not a closed enum), unpacked: the value is pushed.
    Push,
    /// Messages, groups, maps, closed enums, packed runs: the general path.
    #[default]
    General,
}

impl FieldData {
    /// True for a map field (its type a map entry of `tables`).
    pub fn is_map_in(&self, tables: &Tables) -> bool {
        self.cardinality == Cardinality::Repeated
            && matches!(self.ty, Ty::Message(m) if tables.messages[m as usize].map_entry)
    }

    /// The wire type of one value, unpacked (a group's is START_GROUP).
    pub fn wire_type(&self) -> u8 {
        if self.delimited {
            wire::START_GROUP
        } else {
            self.ty.wire_type()
        }
    }
}

#[cfg_attr(not(any(feature = "json", feature = "text")), allow(dead_code))]
impl EnumData {
    /// The name of the (first) value numbered `number`.
    pub fn name_of(&self, number: i32) -> Option<&str> {
        self.values.iter().find(|v| v.1 == number).map(|v| v.0.as_str())
    }

    /// The number of the value named `name`.
    pub fn number_of(&self, name: &str) -> Option<i32> {
        self.values.iter().find(|v| v.0 == name).map(|v| v.1)
    }
}

#[derive(Clone, Default)]
pub(crate) struct EnumData {
    pub name: String,
    pub full_name: String,
    pub file: u32,
    pub parent: Option<u32>,
    pub values: Vec<(String, i32, Vec<u8>)>,
    pub closed: bool,
    pub options: Vec<u8>,
}

#[derive(Clone, Default)]
pub(crate) struct ServiceData {
    pub name: String,
    pub full_name: String,
    pub file: u32,
    pub methods: Vec<MethodData>,
    pub options: Vec<u8>,
}

#[derive(Clone)]
pub(crate) struct MethodData {
    pub name: String,
    pub input: u32,
    pub output: u32,
    pub client_streaming: bool,
    pub server_streaming: bool,
    pub options: Vec<u8>,
}

/// Where each new file's elements start in the tables.
struct Base {
    file: u32,
    message: u32,
    enumeration: u32,
    extension: u32,
    service: u32,
}

/// `files` added to `tables`, or the first error (`tables` is then a copy
/// to drop).
pub(super) fn add(tables: &mut Tables, files: Vec<FileProto>) -> Result<(), PoolError> {
    let mut new = Vec::new();
    for file in files {
        let known = tables
            .file_names
            .get(&file.name)
            .map(|&i| &tables.files[i as usize].encoded);
        let pending = new
            .iter()
            .find(|f: &&FileProto| f.name == file.name)
            .map(|f| &f.encoded);
        match known.or(pending) {
            Some(encoded) if *encoded == file.encoded => {}
            Some(_) => return Err(PoolError::new(PoolErrorKind::DuplicateFile, &file.name, &file.name)),
            None => new.push(file),
        }
    }
    let mut bases = Vec::new();
    for file in &new {
        bases.push(declare(tables, file)?);
    }
    for file in &new {
        for import in &file.dependencies {
            if !tables.file_names.contains_key(import) {
                return Err(PoolError::new(PoolErrorKind::MissingImport, &file.name, import));
            }
        }
    }
    for (file, base) in new.into_iter().zip(bases) {
        link(tables, file, &base)?;
    }
    mark_checks_required(tables);
    Ok(())
}

/// Sets [`MessageData::checks_required`] on every message: a fixpoint over
/// the message fields, as types may hold each other in cycles.
fn mark_checks_required(t: &mut Tables) {
    for m in &mut t.messages {
        m.checks_required =
            !m.extension_ranges.is_empty() || m.fields.iter().any(|f| f.cardinality == Cardinality::Required);
    }
    loop {
        let mut changed = false;
        for i in 0..t.messages.len() {
            if t.messages[i].checks_required {
                continue;
            }
            let holds = t.messages[i]
                .fields
                .iter()
                .any(|f| matches!(f.ty, Ty::Message(m) if t.messages[m as usize].checks_required));
            if holds {
                t.messages[i].checks_required = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Gives the file's elements their indices and names, checking for names
/// declared twice.
fn declare(t: &mut Tables, file: &FileProto) -> Result<Base, PoolError> {
    let base = Base {
        file: index(t.files.len()),
        message: index(t.messages.len()),
        enumeration: index(t.enums.len()),
        extension: index(t.extensions.len()),
        service: index(t.services.len()),
    };
    t.file_names.insert(file.name.clone(), base.file);
    let name = |t: &mut Tables, full: &str, symbol: Symbol| -> Result<(), PoolError> {
        match t.names.insert(full.into(), symbol) {
            Some(Symbol::Package) if symbol == Symbol::Package => Ok(()),
            Some(_) => Err(PoolError::new(PoolErrorKind::DuplicateSymbol, &file.name, full)),
            None => Ok(()),
        }
    };
    let mut package = String::new();
    for part in file.package.split('.').filter(|p| !p.is_empty()) {
        package = read::join(&package, part);
        name(t, &package, Symbol::Package)?;
    }
    for (i, m) in file.messages.iter().enumerate() {
        name(t, &m.full_name, Symbol::Message(base.message + index(i)))?;
        for f in &m.fields {
            name(t, &read::join(&m.full_name, &f.name), Symbol::Member(base.file))?;
        }
        for (o, _) in &m.oneofs {
            name(t, &read::join(&m.full_name, o), Symbol::Member(base.file))?;
        }
    }
    for (i, e) in file.enums.iter().enumerate() {
        name(t, &e.full_name, Symbol::Enum(base.enumeration + index(i)))?;
        // Enum values are scoped beside their enum, as in C++.
        let scope = e.full_name.rsplit_once('.').map_or("", |(s, _)| s);
        for (value, _, _) in &e.values {
            name(t, &read::join(scope, value), Symbol::Member(base.file))?;
        }
    }
    for (i, f) in file.extensions.iter().enumerate() {
        name(
            t,
            &read::join(&f.scope, &f.name),
            Symbol::Extension(base.extension + index(i)),
        )?;
    }
    for (i, s) in file.services.iter().enumerate() {
        name(t, &s.full_name, Symbol::Service(base.service + index(i)))?;
        for m in &s.methods {
            name(t, &read::join(&s.full_name, &m.name), Symbol::Member(base.file))?;
        }
    }
    // Placeholders, so later files of the batch index past this one.
    t.files.push(placeholder_file(file));
    t.messages.extend(file.messages.iter().map(|_| MessageData::default()));
    t.enums.extend(file.enums.iter().map(|_| EnumData::default()));
    t.extensions
        .extend(file.extensions.iter().map(|_| FieldData::default()));
    t.services.extend(file.services.iter().map(|_| ServiceData::default()));
    Ok(base)
}

/// A table index: pools hold fewer than 2^32 elements of a kind.
fn index(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 descriptors")
}

/// Links the file's names to indices and fills in its placeholders.
fn link(t: &mut Tables, file: FileProto, base: &Base) -> Result<(), PoolError> {
    let cx = Linker { t, file: &file.name };
    let mut messages = Vec::new();
    for (i, m) in file.messages.iter().enumerate() {
        let mut fields = Vec::new();
        for f in &m.fields {
            fields.push(cx.field(f, base, Some(base.message + index(i)), None)?);
        }
        messages.push(cx.message(m, fields, base)?);
    }
    let mut extensions = Vec::new();
    for f in &file.extensions {
        let extendee = match cx.resolve(&f.extendee, &f.scope) {
            Some(Symbol::Message(m)) => m,
            _ => return Err(cx.unresolved(&f.extendee)),
        };
        let scope = f.parent.map(|p| base.message + index(p));
        extensions.push(cx.field(f, base, scope, Some(extendee))?);
    }
    let mut services = Vec::new();
    for s in &file.services {
        let mut methods = Vec::new();
        for m in &s.methods {
            let message = |name: &str| match cx.resolve(name, &s.full_name) {
                Some(Symbol::Message(i)) => Ok(i),
                _ => Err(cx.unresolved(name)),
            };
            methods.push(MethodData {
                name: m.name.clone(),
                input: message(&m.input)?,
                output: message(&m.output)?,
                client_streaming: m.client_streaming,
                server_streaming: m.server_streaming,
                options: m.options.clone(),
            });
        }
        services.push(ServiceData {
            name: s.name.clone(),
            full_name: s.full_name.clone(),
            file: base.file,
            methods,
            options: s.options.clone(),
        });
    }
    let dependencies = file.dependencies.iter().map(|d| t.file_names[d]).collect();
    fill(t, file, base, messages, extensions, services, dependencies)
}

/// Puts a linked file's elements in place of its placeholders.
#[allow(clippy::too_many_arguments)]
fn fill(
    t: &mut Tables,
    file: FileProto,
    base: &Base,
    messages: Vec<MessageData>,
    extensions: Vec<FieldData>,
    services: Vec<ServiceData>,
    dependencies: Vec<u32>,
) -> Result<(), PoolError> {
    let mut data = placeholder_file(&file);
    data.dependencies = dependencies;
    data.options = file.options;
    data.encoded = file.encoded;
    for (i, m) in messages.into_iter().enumerate() {
        let at = base.message + index(i);
        match m.parent {
            Some(p) => t.messages[p as usize].nested_messages.push(at),
            None => data.messages.push(at),
        }
        t.messages[at as usize] = m;
    }
    for (i, e) in file.enums.into_iter().enumerate() {
        let at = base.enumeration + index(i);
        let parent = e.parent.map(|p| base.message + index(p));
        match parent {
            Some(p) => t.messages[p as usize].nested_enums.push(at),
            None => data.enums.push(at),
        }
        t.enums[at as usize] = EnumData {
            name: e.name,
            full_name: e.full_name,
            file: base.file,
            parent,
            values: e.values,
            closed: e.closed,
            options: e.options,
        };
    }
    for (i, f) in extensions.into_iter().enumerate() {
        let at = base.extension + index(i);
        let extendee = f.extendee.unwrap_or(NONE);
        if t.extension_numbers.insert((extendee, f.number), at).is_some() {
            return Err(PoolError::new(
                PoolErrorKind::ConflictingExtension,
                &data.name,
                &f.full_name,
            ));
        }
        match f.scope {
            Some(p) => t.messages[p as usize].nested_extensions.push(at),
            None => data.extensions.push(at),
        }
        t.extensions[at as usize] = f;
    }
    for (i, s) in services.into_iter().enumerate() {
        let at = base.service + index(i);
        data.services.push(at);
        t.services[at as usize] = s;
    }
    t.files[base.file as usize] = data;
    finish_fields(t, base);
    Ok(())
}

/// What the fields and extensions of the file just filled in need of their
/// types, known only now: map fields, and the fields of map entries, are
/// never delimited (protoc writes map entries and their values
/// length-prefixed whatever the features say), and which fields are
/// group-like.
fn finish_fields(t: &mut Tables, base: &Base) {
    let map = |messages: &[MessageData], f: &FieldData| match f.ty {
        Ty::Message(m) => messages[m as usize].map_entry,
        _ => false,
    };
    let group_like = |messages: &[MessageData], f: &FieldData| {
        let Ty::Message(m) = f.ty else { return false };
        let ty = &messages[m as usize];
        let scope = f.full_name.strip_suffix(f.name.as_str()).unwrap_or("");
        f.delimited
            && f.name == ty.name.to_ascii_lowercase()
            && ty.file == f.file
            && ty.full_name.strip_prefix(scope) == Some(ty.name.as_str())
    };
    for m in base.message as usize..t.messages.len() {
        let in_entry = t.messages[m].map_entry;
        for i in 0..t.messages[m].fields.len() {
            let is_map = map(&t.messages, &t.messages[m].fields[i]);
            let field = &mut t.messages[m].fields[i];
            field.delimited &= !is_map && !in_entry;
            let like = group_like(&t.messages, &t.messages[m].fields[i]);
            let path = decode_path(t, &t.messages[m].fields[i]);
            let field = &mut t.messages[m].fields[i];
            field.group_like = like;
            field.tag = wire::tag(field.number, field.wire_type());
            field.path = path;
        }
    }
    for e in base.extension as usize..t.extensions.len() {
        let like = group_like(&t.messages, &t.extensions[e]);
        let field = &mut t.extensions[e];
        field.group_like = like;
        field.tag = wire::tag(field.number, field.wire_type());
    }
}

/// [`FieldData::path`] of a field whose type is linked.
fn decode_path(t: &Tables, f: &FieldData) -> DecodePath {
    let closed_enum = matches!(f.ty, Ty::Enum(e) if t.enums[e as usize].closed);
    match (f.ty, f.cardinality) {
        (Ty::Message(_), _) => DecodePath::General,
        _ if closed_enum => DecodePath::General,
        (_, Cardinality::Repeated) => DecodePath::Push,
        _ => DecodePath::Scalar,
    }
}

struct Linker<'t> {
    t: &'t Tables,
    file: &'t str,
}

impl Linker<'_> {
    fn unresolved(&self, name: &str) -> PoolError {
        PoolError::new(PoolErrorKind::UnresolvedType, self.file, name)
    }

    /// `name` as seen from `scope`: a full name with a leading dot, or a
    /// relative one looked up from the innermost scope out, as protoc does.
    fn resolve(&self, name: &str, scope: &str) -> Option<Symbol> {
        if let Some(full) = name.strip_prefix('.') {
            return self.t.names.get(full).copied();
        }
        let mut scope = scope;
        loop {
            if let Some(&s) = self.t.names.get(read::join(scope, name).as_str()) {
                return Some(s);
            }
            if scope.is_empty() {
                return None;
            }
            scope = scope.rsplit_once('.').map_or("", |(outer, _)| outer);
        }
    }

    fn message(&self, m: &read::MessageProto, fields: Vec<FieldData>, base: &Base) -> Result<MessageData, PoolError> {
        let mut by_number: Vec<u32> = (0..index(fields.len())).collect();
        by_number.sort_by_key(|&i| fields[i as usize].number);
        for pair in by_number.windows(2) {
            let number = fields[pair[0] as usize].number;
            if number == fields[pair[1] as usize].number {
                let name = &fields[pair[1] as usize].full_name;
                return Err(PoolError::new(PoolErrorKind::InvalidFieldNumber, self.file, name));
            }
        }
        let mut dense = Vec::new();
        for (i, f) in fields.iter().enumerate().filter(|(_, f)| f.number < DENSE) {
            let n = f.number as usize;
            if dense.len() <= n {
                dense.resize(n + 1, NONE);
            }
            dense[n] = index(i);
        }
        let mut oneofs: Vec<OneofData> = m
            .oneofs
            .iter()
            .map(|(name, options)| OneofData {
                name: name.clone(),
                options: options.clone(),
                fields: Vec::new(),
                synthetic: false,
            })
            .collect();
        for (i, f) in fields.iter().enumerate() {
            if let Some(o) = f.oneof {
                let oneof = &mut oneofs[o as usize];
                oneof.fields.push(index(i));
                oneof.synthetic = f.proto3_optional;
            }
        }
        Ok(MessageData {
            name: m.name.clone(),
            full_name: m.full_name.clone(),
            file: base.file,
            parent: m.parent.map(|p| base.message + index(p)),
            fields,
            oneofs,
            map_entry: m.map_entry,
            options: m.options.clone(),
            extension_ranges: m.extension_ranges.clone(),
            reserved_ranges: m.reserved_ranges.clone(),
            reserved_names: m.reserved_names.clone(),
            nested_messages: Vec::new(),
            nested_enums: Vec::new(),
            nested_extensions: Vec::new(),
            by_number,
            dense,
            checks_required: false,
        })
    }

    fn field(
        &self,
        f: &FieldProto,
        base: &Base,
        scope: Option<u32>,
        extendee: Option<u32>,
    ) -> Result<FieldData, PoolError> {
        let full_name = read::join(&f.scope, &f.name);
        if f.number == 0 || f.number > 536_870_911 {
            return Err(PoolError::new(PoolErrorKind::InvalidFieldNumber, self.file, &full_name));
        }
        let ty = match Ty::scalar(f.ty) {
            Some(ty) => ty,
            None => match (f.ty, self.resolve(&f.type_name, &f.scope)) {
                (0 | 10 | 11, Some(Symbol::Message(m))) => Ty::Message(m),
                (0 | 14, Some(Symbol::Enum(e))) => Ty::Enum(e),
                _ => return Err(self.unresolved(&f.type_name)),
            },
        };
        let cardinality = match f.label {
            3 => Cardinality::Repeated,
            _ if f.features.required() => Cardinality::Required,
            _ => Cardinality::Optional,
        };
        let singular = cardinality != Cardinality::Repeated;
        let presence = singular
            && (extendee.is_some()
                || f.oneof_index.is_some()
                || matches!(ty, Ty::Message(_))
                || !f.features.implicit_presence());
        let oneof = if extendee.is_some() { None } else { f.oneof_index };
        Ok(FieldData {
            json_name: f.json_name.clone().unwrap_or_else(|| crate::schema::json_name(&f.name)),
            name: f.name.clone(),
            full_name,
            number: f.number,
            cardinality,
            ty,
            oneof,
            presence,
            packed: !singular && ty.packable() && f.features.packed(),
            delimited: matches!(ty, Ty::Message(_)) && f.features.delimited(),
            utf8: ty == Ty::String && f.features.checks_utf8(),
            default: f.default_value.clone(),
            options: f.options.clone(),
            extendee,
            scope,
            file: base.file,
            proto3_optional: f.proto3_optional,
            group_like: false,
            tag: 0,
            path: DecodePath::General,
        })
    }
}

fn placeholder_file(file: &FileProto) -> FileData {
    FileData {
        name: file.name.clone(),
        package: file.package.clone(),
        syntax: file.syntax.clone(),
        ..FileData::default()
    }
}
