//! What the text format knows of a schema: messages, enums and extensions
//! read from encoded `FileDescriptorSet`s (the `FILE_DESCRIPTOR_SET`s that
//! generated code embeds), indexed by full name.
//!
//! It reads only what printing and parsing need, straight from the bytes,
//! so the `text` feature does not need the `descriptor` feature's types.
//! Type references stay names, resolved when used: a set may refer to files
//! registered after it.

use std::collections::{HashMap, HashSet};
use std::string::{String, ToString};
use std::vec::Vec;

use crate::schema::{Features, LegacyField};
use crate::wire::records::{self, Record, Value};

/// A field's type, as `FieldDescriptorProto.Type` numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Double,
    Float,
    Int64,
    Uint64,
    Int32,
    Fixed64,
    Fixed32,
    Bool,
    String,
    /// A message type, length-delimited or (`Field::delimited`) a group.
    Message,
    Bytes,
    Uint32,
    Enum,
    Sfixed32,
    Sfixed64,
    Sint32,
    Sint64,
}

impl Type {
    fn from_number(n: u64) -> Option<Type> {
        Some(match n {
            1 => Type::Double,
            2 => Type::Float,
            3 => Type::Int64,
            4 => Type::Uint64,
            5 => Type::Int32,
            6 => Type::Fixed64,
            7 => Type::Fixed32,
            8 => Type::Bool,
            9 => Type::String,
            10 | 11 => Type::Message,
            12 => Type::Bytes,
            13 => Type::Uint32,
            14 => Type::Enum,
            15 => Type::Sfixed32,
            16 => Type::Sfixed64,
            17 => Type::Sint32,
            18 => Type::Sint64,
            _ => return None,
        })
    }

    /// The wire type of one value of this type (unpacked).
    pub fn wire_type(self) -> u8 {
        match self {
            Type::Double | Type::Fixed64 | Type::Sfixed64 => 1,
            Type::Float | Type::Fixed32 | Type::Sfixed32 => 5,
            Type::String | Type::Bytes | Type::Message => 2,
            _ => 0,
        }
    }
}

/// A field or extension.
#[derive(Clone, Debug)]
pub struct Field {
    /// The name as declared (`optional_int32`).
    pub name: String,
    /// Extensions: the full name (`pkg.Scope.name`), as written in `[...]`.
    pub full_name: String,
    pub number: u32,
    pub repeated: bool,
    pub ty: Type,
    /// Message and enum fields: the full name of the type, without the dot.
    pub type_name: String,
    /// A message field encoded as a group (proto2 `group`, editions
    /// `DELIMITED`).
    pub delimited: bool,
    /// A `string` field whose values must be valid UTF-8.
    pub utf8: bool,
    /// A group-like field: written by its type's name (`Data { ... }`).
    pub group_like: bool,
}

impl Field {
    /// The name this field is printed with.
    pub fn printed_name(&self) -> &str {
        if self.group_like {
            simple_name(&self.type_name)
        } else {
            &self.name
        }
    }
}

/// A message type.
#[derive(Debug)]
pub struct MessageType {
    pub full_name: String,
    /// Sorted by number.
    pub fields: Vec<Field>,
    pub reserved_names: Vec<String>,
    pub map_entry: bool,
}

impl MessageType {
    pub fn field(&self, number: u32) -> Option<&Field> {
        let i = self.fields.binary_search_by_key(&number, |f| f.number).ok()?;
        Some(&self.fields[i])
    }

    /// The field a name in text refers to: its own name, or for a
    /// group-like field its type's name.
    pub fn field_named(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name).or_else(|| {
            let lower = name.to_ascii_lowercase();
            self.fields
                .iter()
                .find(|f| f.name == lower && f.group_like && simple_name(&f.type_name) == name)
        })
    }
}

/// An enum type.
#[derive(Debug)]
pub struct EnumType {
    pub values: Vec<(String, i32)>,
    /// Numbers it does not declare are not values (proto2, `CLOSED`).
    pub closed: bool,
}

impl EnumType {
    pub fn name_of(&self, number: i32) -> Option<&str> {
        self.values
            .iter()
            .find(|(_, n)| *n == number)
            .map(|(name, _)| name.as_str())
    }

    pub fn number_of(&self, name: &str) -> Option<i32> {
        self.values.iter().find(|(n, _)| n == name).map(|&(_, number)| number)
    }
}

/// The last part of a dotted name.
pub fn simple_name(full: &str) -> &str {
    full.rsplit('.').next().unwrap_or(full)
}

/// Every type of the registered descriptor sets.
#[derive(Debug, Default)]
pub struct Pool {
    /// Addresses of the registered sets (generated code's constants), so that
    /// registering one again costs a lookup.
    sets: HashSet<usize>,
    /// Hashes of their contents: a constant used from two crates may have
    /// two addresses, and is then still read once.
    contents: HashSet<u64>,
    files: HashSet<String>,
    messages: HashMap<String, MessageType>,
    enums: HashMap<String, EnumType>,
    extensions: HashMap<String, (String, Field)>,
    /// (extendee, number) → extension full name.
    extension_numbers: HashMap<(String, u32), String>,
}

/// A descriptor set that could not be read.
#[derive(Debug)]
pub struct BadDescriptors;

impl Pool {
    pub fn message(&self, full_name: &str) -> Option<&MessageType> {
        self.messages.get(full_name)
    }

    pub fn enumeration(&self, full_name: &str) -> Option<&EnumType> {
        self.enums.get(full_name)
    }

    /// Extension `full_name` of message `extendee`.
    pub fn extension(&self, extendee: &str, full_name: &str) -> Option<&Field> {
        let (of, field) = self.extensions.get(full_name)?;
        (of == extendee).then_some(field)
    }

    pub fn extension_numbered(&self, extendee: &str, number: u32) -> Option<&Field> {
        let name = self.extension_numbers.get(&(extendee.to_string(), number))?;
        self.extensions.get(name).map(|(_, f)| f)
    }

    pub fn has_set(&self, set: &'static [u8]) -> bool {
        self.sets.contains(&(set.as_ptr() as usize))
    }

    /// Adds the files of `set` that are not known yet.
    pub fn register(&mut self, set: &'static [u8]) -> Result<(), BadDescriptors> {
        if self.has_set(set) {
            return Ok(());
        }
        let digest = {
            use core::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            set.hash(&mut h);
            h.finish()
        };
        if !self.contents.contains(&digest) {
            self.add_set(set)?;
            self.contents.insert(digest);
        }
        self.sets.insert(set.as_ptr() as usize);
        Ok(())
    }

    /// Adds the files of an encoded `FileDescriptorSet`.
    pub fn add_set(&mut self, set: &[u8]) -> Result<(), BadDescriptors> {
        let records = records::scan(set).ok_or(BadDescriptors)?;
        // Read every file before adding any, so a bad set adds nothing.
        let mut files = Vec::new();
        for r in records.iter().filter(|r| r.number == 1) {
            files.push(FileReader::read(bytes(r)?)?);
        }
        for file in files {
            if self.files.insert(file.name.clone()) {
                self.add_file(file);
            }
        }
        Ok(())
    }

    fn add_file(&mut self, file: FileReader) {
        self.messages
            .extend(file.messages.into_iter().map(|m| (m.full_name.clone(), m)));
        self.enums.extend(file.enums);
        for (extendee, field) in file.extensions {
            self.extension_numbers
                .insert((extendee.clone(), field.number), field.full_name.clone());
            self.extensions.insert(field.full_name.clone(), (extendee, field));
        }
    }
}

/// The bytes of a length-delimited record.
fn bytes<'a>(r: &Record<'a>) -> Result<&'a [u8], BadDescriptors> {
    match r.value {
        Value::Bytes(b) => Ok(b),
        _ => Err(BadDescriptors),
    }
}

fn text(r: &Record<'_>) -> Result<String, BadDescriptors> {
    core::str::from_utf8(bytes(r)?)
        .map(ToString::to_string)
        .map_err(|_| BadDescriptors)
}

fn number(r: &Record<'_>) -> Result<u64, BadDescriptors> {
    match r.value {
        Value::Varint(v) => Ok(v),
        _ => Err(BadDescriptors),
    }
}

/// `features` (field `features_field` of the options message `options`)
/// laid over `outer`.
fn overlay(outer: Features, options: Option<&[u8]>, features_field: u32) -> Result<Features, BadDescriptors> {
    let Some(options) = options else {
        return Ok(outer);
    };
    let mut features = outer;
    for r in records::scan(options).ok_or(BadDescriptors)? {
        if r.number == features_field {
            features = features.with(bytes(&r)?);
        }
    }
    Ok(features)
}

/// Field numbers of `features` in each options message.
const FILE_FEATURES: u32 = 50;
const MESSAGE_FEATURES: u32 = 12;
const FIELD_FEATURES: u32 = 21;
const ENUM_FEATURES: u32 = 7;

/// One `FileDescriptorProto`, read.
#[derive(Default)]
struct FileReader {
    name: String,
    package: String,
    messages: Vec<MessageType>,
    enums: Vec<(String, EnumType)>,
    /// (extendee, field).
    extensions: Vec<(String, Field)>,
    /// Full names of the file's message types, for group-like checks.
    declared: HashSet<String>,
}

impl FileReader {
    fn read(buf: &[u8]) -> Result<FileReader, BadDescriptors> {
        let records = records::scan(buf).ok_or(BadDescriptors)?;
        let mut file = FileReader::default();
        let mut syntax = String::new();
        let mut options = None;
        for r in &records {
            match r.number {
                1 => file.name = text(r)?,
                2 => file.package = text(r)?,
                8 => options = Some(bytes(r)?),
                12 => syntax = text(r)?,
                _ => {}
            }
        }
        let features = overlay(Features::of_file(&syntax), options, FILE_FEATURES)?;
        let package = file.package.clone();
        for r in records.iter().filter(|r| r.number == 4) {
            file.declare(bytes(r)?, &package)?;
        }
        for r in &records {
            match r.number {
                4 => file.message(bytes(r)?, &package, features)?,
                5 => file.enumeration(bytes(r)?, &package, features)?,
                7 => {
                    let ext = file.field(bytes(r)?, &package, features, true)?;
                    file.extensions.push(ext);
                }
                _ => {}
            }
        }
        Ok(file)
    }

    /// Records the full names of a message and its nested messages.
    fn declare(&mut self, buf: &[u8], scope: &str) -> Result<(), BadDescriptors> {
        let records = records::scan(buf).ok_or(BadDescriptors)?;
        let name = records
            .iter()
            .find(|r| r.number == 1)
            .map(text)
            .transpose()?
            .unwrap_or_default();
        let full = join(scope, &name);
        for r in records.iter().filter(|r| r.number == 3) {
            self.declare(bytes(r)?, &full)?;
        }
        self.declared.insert(full);
        Ok(())
    }

    fn message(&mut self, buf: &[u8], scope: &str, outer: Features) -> Result<(), BadDescriptors> {
        let records = records::scan(buf).ok_or(BadDescriptors)?;
        let mut name = String::new();
        let mut options = None;
        for r in &records {
            match r.number {
                1 => name = text(r)?,
                7 => options = Some(bytes(r)?),
                _ => {}
            }
        }
        let full_name = join(scope, &name);
        let features = overlay(outer, options, MESSAGE_FEATURES)?;
        let mut message = MessageType {
            full_name: full_name.clone(),
            fields: Vec::new(),
            reserved_names: Vec::new(),
            map_entry: options.is_some_and(|o| option_flag(o, 7)),
        };
        for r in &records {
            match r.number {
                2 => message
                    .fields
                    .push(self.field(bytes(r)?, &full_name, features, false)?.1),
                3 => self.message(bytes(r)?, &full_name, features)?,
                4 => self.enumeration(bytes(r)?, &full_name, features)?,
                6 => {
                    let ext = self.field(bytes(r)?, &full_name, features, true)?;
                    self.extensions.push(ext);
                }
                10 => message.reserved_names.push(text(r)?),
                _ => {}
            }
        }
        message.fields.sort_by_key(|f| f.number);
        self.messages.push(message);
        Ok(())
    }

    /// A field declared in `scope` (a message, or the package for
    /// file-level extensions), and its extendee.
    fn field(
        &self,
        buf: &[u8],
        scope: &str,
        outer: Features,
        extension: bool,
    ) -> Result<(String, Field), BadDescriptors> {
        let mut field = Field {
            name: String::new(),
            full_name: String::new(),
            number: 0,
            repeated: false,
            ty: Type::Int32,
            type_name: String::new(),
            delimited: false,
            utf8: false,
            group_like: false,
        };
        let mut extendee = String::new();
        let mut options = None;
        let mut group = false;
        for r in records::scan(buf).ok_or(BadDescriptors)? {
            match r.number {
                1 => field.name = text(&r)?,
                2 => extendee = text(&r)?.trim_start_matches('.').to_string(),
                3 => field.number = u32::try_from(number(&r)?).map_err(|_| BadDescriptors)?,
                4 => field.repeated = number(&r)? == 3,
                5 => {
                    let n = number(&r)?;
                    group = n == 10;
                    field.ty = Type::from_number(n).ok_or(BadDescriptors)?;
                }
                6 => field.type_name = text(&r)?.trim_start_matches('.').to_string(),
                8 => options = Some(bytes(&r)?),
                _ => {}
            }
        }
        let legacy = LegacyField {
            group,
            ..LegacyField::default()
        };
        let features = overlay(outer, options, FIELD_FEATURES)?.with_field(legacy);
        field.utf8 = field.ty == Type::String && features.checks_utf8();
        field.delimited = field.ty == Type::Message && features.delimited();
        if extension {
            field.full_name = join(scope, &field.name);
        }
        // As protobuf's `IsGroupLike`: a delimited field named after its
        // type, which is declared beside it in the same file.
        field.group_like = field.delimited
            && field.name == simple_name(&field.type_name).to_ascii_lowercase()
            && self.declared.contains(&field.type_name)
            && field.type_name == join(scope, simple_name(&field.type_name));
        Ok((extendee, field))
    }

    fn enumeration(&mut self, buf: &[u8], scope: &str, outer: Features) -> Result<(), BadDescriptors> {
        let mut name = String::new();
        let mut options = None;
        let mut values = Vec::new();
        for r in records::scan(buf).ok_or(BadDescriptors)? {
            match r.number {
                1 => name = text(&r)?,
                2 => {
                    let mut value = (String::new(), 0);
                    for v in records::scan(bytes(&r)?).ok_or(BadDescriptors)? {
                        match v.number {
                            1 => value.0 = text(&v)?,
                            // An int32 varint: sign-extended to 64 bits.
                            #[allow(clippy::cast_possible_truncation)]
                            2 => value.1 = number(&v)? as i32,
                            _ => {}
                        }
                    }
                    values.push(value);
                }
                3 => options = Some(bytes(&r)?),
                _ => {}
            }
        }
        let features = overlay(outer, options, ENUM_FEATURES)?;
        let closed = features.closed_enum();
        self.enums.push((join(scope, &name), EnumType { values, closed }));
        Ok(())
    }
}

/// Whether boolean option `number` is set in encoded options.
fn option_flag(options: &[u8], number: u32) -> bool {
    records::scan(options)
        .unwrap_or_default()
        .iter()
        .any(|r| r.number == number && r.value == Value::Varint(1))
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        std::format!("{scope}.{name}")
    }
}
