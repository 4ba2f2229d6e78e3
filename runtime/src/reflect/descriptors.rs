//! The pool and its descriptors: cheap handles (the pool's `Arc` and an
//! index), `Clone + Send + Sync`, with no lifetimes.

use core::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::vec::Vec;

use super::error::PoolError;
use super::pool::{self, Cardinality, EnumData, FieldData, MessageData, Symbol, Tables, Ty, NONE};
use super::read;
use crate::Described;

/// A set of `.proto` files, linked: every message, enum, service and
/// extension they declare, by name. Cloning it is cheap, and descriptors
/// hold a clone. Adding files makes a new version of the pool; descriptors
/// taken before keep seeing the version they came from.
///
/// ```
/// # use fastrs::reflect::DescriptorPool;
/// let pool = DescriptorPool::decode(fastrs::well_known::FILE_DESCRIPTOR_SET)?;
/// let timestamp = pool.get_message_by_name("google.protobuf.Timestamp").unwrap();
/// let names: Vec<_> = timestamp.fields().map(|f| f.name().to_owned()).collect();
/// assert_eq!(names, ["seconds", "nanos"]);
/// # Ok::<(), fastrs::reflect::PoolError>(())
/// ```
#[derive(Clone)]
pub struct DescriptorPool {
    pub(super) tables: Arc<Tables>,
}

impl Default for DescriptorPool {
    fn default() -> Self {
        Self::new()
    }
}

impl DescriptorPool {
    /// A pool with no files.
    #[must_use]
    pub fn new() -> Self {
        static LINEAGES: AtomicU64 = AtomicU64::new(1);
        let tables = Tables {
            lineage: LINEAGES.fetch_add(1, Ordering::Relaxed),
            ..Tables::default()
        };
        Self {
            tables: Arc::new(tables),
        }
    }

    /// A pool of the files of an encoded `google.protobuf.FileDescriptorSet`
    /// (what `protoc --descriptor_set_out` and `buf build -o` write).
    ///
    /// # Errors
    /// As [`DescriptorPool::add_file_descriptor_set`].
    pub fn decode(set: &[u8]) -> Result<Self, PoolError> {
        let mut pool = Self::new();
        pool.add_file_descriptor_set(set)?;
        Ok(pool)
    }

    /// Adds the files of an encoded `FileDescriptorSet`, in any order. A
    /// file already in the pool with the same contents is skipped.
    ///
    /// # Errors
    /// Bytes that are not a set, a file of the same name with other
    /// contents, a name declared twice, an import not in the pool or the
    /// set, a type that names nothing, an extension number taken twice. The
    /// pool is then unchanged.
    pub fn add_file_descriptor_set(&mut self, set: &[u8]) -> Result<(), PoolError> {
        self.add(read::set(set)?)
    }

    /// Adds the files of several encoded `FileDescriptorSet`s together, so
    /// a file may come in a later set than the files importing it.
    ///
    /// # Errors
    /// As [`DescriptorPool::add_file_descriptor_set`].
    pub fn add_file_descriptor_sets(&mut self, sets: &[&[u8]]) -> Result<(), PoolError> {
        let mut files = Vec::new();
        for set in sets {
            files.extend(read::set(set)?);
        }
        self.add(files)
    }

    /// Adds one encoded `FileDescriptorProto`, whose imports must be in the
    /// pool.
    ///
    /// # Errors
    /// As [`DescriptorPool::add_file_descriptor_set`].
    pub fn add_file_descriptor_proto(&mut self, file: &[u8]) -> Result<(), PoolError> {
        self.add(std::vec![read::file(file)?])
    }

    /// Adds the descriptors generated code embeds for `M`
    /// (`descriptors=true`): its package's files and those they import.
    ///
    /// # Errors
    /// As [`DescriptorPool::add_file_descriptor_set`]: the embedded sets
    /// conflict with files already in the pool.
    pub fn add_described<M: Described>(&mut self) -> Result<(), PoolError> {
        let mut files = Vec::new();
        for set in M::IMPORTED_DESCRIPTOR_SETS.iter().chain([&M::FILE_DESCRIPTOR_SET]) {
            files.extend(read::set(set)?);
        }
        self.add(files)
    }

    /// Adds the files of `sets` whose names the pool does not hold yet,
    /// all together (in any order), the first of a name winning.
    pub(super) fn add_new_files(&mut self, sets: &[&[u8]]) -> Result<(), PoolError> {
        let mut files: Vec<read::FileProto> = Vec::new();
        for set in sets {
            for file in read::set(set)? {
                let known = self.tables.file_names.contains_key(&file.name);
                if !known && !files.iter().any(|f| f.name == file.name) {
                    files.push(file);
                }
            }
        }
        if files.is_empty() {
            return Ok(());
        }
        self.add(files)
    }

    fn add(&mut self, files: Vec<read::FileProto>) -> Result<(), PoolError> {
        let mut tables = Tables::clone(&self.tables);
        pool::add(&mut tables, files)?;
        self.tables = Arc::new(tables);
        Ok(())
    }

    /// The linked tables, for the text format and JSON.
    #[cfg_attr(not(any(feature = "json", feature = "text")), allow(dead_code))]
    pub(crate) fn tables(&self) -> &Tables {
        &self.tables
    }

    fn symbol(&self, full_name: &str) -> Option<Symbol> {
        let name = full_name.strip_prefix('.').unwrap_or(full_name);
        self.tables.names.get(name).copied()
    }

    /// The message named `full_name` (`pkg.Outer.Inner`; a leading dot is
    /// allowed).
    #[must_use]
    pub fn get_message_by_name(&self, full_name: &str) -> Option<MessageDescriptor> {
        match self.symbol(full_name)? {
            Symbol::Message(index) => Some(MessageDescriptor::new(self, index)),
            _ => None,
        }
    }

    /// The enum named `full_name`.
    #[must_use]
    pub fn get_enum_by_name(&self, full_name: &str) -> Option<EnumDescriptor> {
        match self.symbol(full_name)? {
            Symbol::Enum(index) => Some(EnumDescriptor {
                pool: self.clone(),
                index,
            }),
            _ => None,
        }
    }

    /// The service named `full_name`.
    #[must_use]
    pub fn get_service_by_name(&self, full_name: &str) -> Option<ServiceDescriptor> {
        match self.symbol(full_name)? {
            Symbol::Service(index) => Some(ServiceDescriptor {
                pool: self.clone(),
                index,
            }),
            _ => None,
        }
    }

    /// The extension named `full_name` (`pkg.name`, or `pkg.Scope.name`
    /// for one declared in a message).
    #[must_use]
    pub fn get_extension_by_name(&self, full_name: &str) -> Option<FieldDescriptor> {
        match self.symbol(full_name)? {
            Symbol::Extension(index) => Some(FieldDescriptor::extension(self, index)),
            _ => None,
        }
    }

    /// The file named `name` (`acme/shop/v1/order.proto`).
    #[must_use]
    pub fn get_file_by_name(&self, name: &str) -> Option<FileDescriptor> {
        let index = *self.tables.file_names.get(name)?;
        Some(FileDescriptor {
            pool: self.clone(),
            index,
        })
    }

    /// The file declaring the symbol `full_name`: a message, enum, service,
    /// extension, or a field, oneof, enum value or method (a package is
    /// declared by many files, so none).
    #[must_use]
    pub fn get_file_containing_symbol(&self, full_name: &str) -> Option<FileDescriptor> {
        let t = &self.tables;
        let index = match self.symbol(full_name)? {
            Symbol::Package => return None,
            Symbol::Message(m) => t.messages[m as usize].file,
            Symbol::Enum(e) => t.enums[e as usize].file,
            Symbol::Service(s) => t.services[s as usize].file,
            Symbol::Extension(e) => t.extensions[e as usize].file,
            Symbol::Member(file) => file,
        };
        Some(FileDescriptor {
            pool: self.clone(),
            index,
        })
    }

    /// Every file, in the order added (a file after its imports).
    pub fn files(&self) -> impl ExactSizeIterator<Item = FileDescriptor> + '_ {
        (0..self.tables.files.len()).map(|i| FileDescriptor {
            pool: self.clone(),
            index: index(i),
        })
    }

    /// Every message, nested ones included.
    pub fn all_messages(&self) -> impl ExactSizeIterator<Item = MessageDescriptor> + '_ {
        (0..self.tables.messages.len()).map(|i| MessageDescriptor::new(self, index(i)))
    }

    /// Every enum, nested ones included.
    pub fn all_enums(&self) -> impl ExactSizeIterator<Item = EnumDescriptor> + '_ {
        (0..self.tables.enums.len()).map(|i| EnumDescriptor {
            pool: self.clone(),
            index: index(i),
        })
    }

    /// Every service.
    pub fn all_services(&self) -> impl ExactSizeIterator<Item = ServiceDescriptor> + '_ {
        (0..self.tables.services.len()).map(|i| ServiceDescriptor {
            pool: self.clone(),
            index: index(i),
        })
    }

    /// Every extension.
    pub fn all_extensions(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        (0..self.tables.extensions.len()).map(|i| FieldDescriptor::extension(self, index(i)))
    }

    /// The encoded `FileDescriptorSet` of every file, imports first.
    #[must_use]
    pub fn encode_file_descriptor_set(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for file in &self.tables.files {
            out.push(0x0a);
            crate::wire::varint::push(file.encoded.len() as u64, &mut out);
            out.extend_from_slice(&file.encoded);
        }
        out
    }

    /// True if both are the same version of a pool (`Some(true)`), versions
    /// of one pool (`Some(false)`: an index then means one element, as
    /// long as the full names agree, since two clones of a pool may have
    /// grown apart), or unrelated (`None`).
    fn file_at(&self, index: u32) -> FileDescriptor {
        FileDescriptor {
            pool: self.clone(),
            index,
        }
    }

    fn same(&self, other: &Self) -> Option<bool> {
        if Arc::ptr_eq(&self.tables, &other.tables) {
            Some(true)
        } else {
            (self.tables.lineage == other.tables.lineage).then_some(false)
        }
    }
}

impl fmt::Debug for DescriptorPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tables.files.iter().map(|file| &file.name))
            .finish()
    }
}

fn index(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 descriptors")
}

/// Implements equality (the same element of one pool), `Debug` (the full
/// name) and the encoded options for a descriptor handle. (The decoded
/// options are in `fastrs::descriptor`, with the `descriptor` feature.)
macro_rules! handle {
    ($ty:ident, [$($key:ident),*]) => {
        /// The same element of one pool, in any of its versions (taken
        /// before or after files were added).
        impl PartialEq for $ty {
            fn eq(&self, other: &Self) -> bool {
                let keys = true $(&& self.$key == other.$key)*;
                keys && match self.pool.same(&other.pool) {
                    Some(true) => true,
                    Some(false) => self.full_name() == other.full_name(),
                    None => false,
                }
            }
        }

        impl Eq for $ty {}

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($ty), self.full_name())
            }
        }

        impl $ty {
            /// The encoded options message, as declared (custom options
            /// included, as extensions).
            #[must_use]
            pub fn options_bytes(&self) -> &[u8] {
                self.options_data()
            }

            /// The pool this descriptor belongs to.
            #[must_use]
            pub fn pool(&self) -> &DescriptorPool {
                &self.pool
            }
        }
    };
}

/// A message type.
#[derive(Clone)]
pub struct MessageDescriptor {
    pool: DescriptorPool,
    index: u32,
}

handle!(MessageDescriptor, [index]);

impl MessageDescriptor {
    pub(crate) fn new(pool: &DescriptorPool, index: u32) -> Self {
        Self {
            pool: pool.clone(),
            index,
        }
    }

    pub(crate) fn data(&self) -> &MessageData {
        &self.pool.tables.messages[self.index as usize]
    }

    pub(super) fn tables(&self) -> &Tables {
        &self.pool.tables
    }

    pub(super) fn index(&self) -> u32 {
        self.index
    }

    fn options_data(&self) -> &[u8] {
        &self.data().options
    }

    /// The name (`Inner`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// The full name (`pkg.Outer.Inner`), without a leading dot.
    #[must_use]
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// The file declaring it.
    #[must_use]
    pub fn file(&self) -> FileDescriptor {
        self.pool.file_at(self.data().file)
    }

    /// The message it is nested in.
    #[must_use]
    pub fn parent_message(&self) -> Option<MessageDescriptor> {
        self.data().parent.map(|p| MessageDescriptor::new(&self.pool, p))
    }

    /// Its fields, in declaration order.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        (0..self.data().fields.len()).map(|i| self.field_at(index(i)))
    }

    pub(super) fn field_at(&self, i: u32) -> FieldDescriptor {
        FieldDescriptor {
            pool: self.pool.clone(),
            message: self.index,
            index: i,
        }
    }

    /// The field numbered `number`.
    #[must_use]
    pub fn get_field(&self, number: u32) -> Option<FieldDescriptor> {
        self.data().field_index(number).map(|i| self.field_at(i))
    }

    /// The field named `name` (as declared).
    #[must_use]
    pub fn get_field_by_name(&self, name: &str) -> Option<FieldDescriptor> {
        let at = self.data().fields.iter().position(|f| f.name == name)?;
        Some(self.field_at(index(at)))
    }

    /// The field whose JSON name is `name` (`fooBar`, or its `json_name`).
    #[must_use]
    pub fn get_field_by_json_name(&self, name: &str) -> Option<FieldDescriptor> {
        let at = self.data().fields.iter().position(|f| f.json_name == name)?;
        Some(self.field_at(index(at)))
    }

    /// Its oneofs, synthetic ones (of proto3 `optional` fields) included.
    pub fn oneofs(&self) -> impl ExactSizeIterator<Item = OneofDescriptor> + '_ {
        (0..self.data().oneofs.len()).map(|i| OneofDescriptor {
            pool: self.pool.clone(),
            message: self.index,
            index: index(i),
        })
    }

    /// The messages declared inside it.
    pub fn nested_messages(&self) -> impl ExactSizeIterator<Item = MessageDescriptor> + '_ {
        self.data()
            .nested_messages
            .iter()
            .map(|&i| MessageDescriptor::new(&self.pool, i))
    }

    /// The enums declared inside it.
    pub fn nested_enums(&self) -> impl ExactSizeIterator<Item = EnumDescriptor> + '_ {
        self.data().nested_enums.iter().map(|&index| EnumDescriptor {
            pool: self.pool.clone(),
            index,
        })
    }

    /// The extensions declared inside it (of any message).
    pub fn nested_extensions(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        self.data()
            .nested_extensions
            .iter()
            .map(|&i| FieldDescriptor::extension(&self.pool, i))
    }

    /// The extensions of this message that the pool knows, declared
    /// anywhere.
    pub fn extensions(&self) -> impl Iterator<Item = FieldDescriptor> + '_ {
        let me = self.index;
        self.tables()
            .extensions
            .iter()
            .enumerate()
            .filter(move |(_, f)| f.extendee == Some(me))
            .map(|(i, _)| FieldDescriptor::extension(&self.pool, index(i)))
    }

    /// The extension of this message numbered `number`, if the pool knows it.
    #[must_use]
    pub fn get_extension(&self, number: u32) -> Option<FieldDescriptor> {
        let at = *self.tables().extension_numbers.get(&(self.index, number))?;
        Some(FieldDescriptor::extension(&self.pool, at))
    }

    /// The `[start, end)` ranges of field numbers left to extensions.
    #[must_use]
    pub fn extension_ranges(&self) -> &[(u32, u32)] {
        &self.data().extension_ranges
    }

    /// The reserved `[start, end)` field number ranges.
    #[must_use]
    pub fn reserved_ranges(&self) -> &[(u32, u32)] {
        &self.data().reserved_ranges
    }

    /// The reserved field names.
    #[must_use]
    pub fn reserved_names(&self) -> &[std::string::String] {
        &self.data().reserved_names
    }

    /// True for the entry type protoc makes for a `map<K, V>` field.
    #[must_use]
    pub fn is_map_entry(&self) -> bool {
        self.data().map_entry
    }

    /// A map entry's key field (number 1).
    #[must_use]
    pub fn map_entry_key_field(&self) -> Option<FieldDescriptor> {
        self.is_map_entry().then(|| self.get_field(1)).flatten()
    }

    /// A map entry's value field (number 2).
    #[must_use]
    pub fn map_entry_value_field(&self) -> Option<FieldDescriptor> {
        self.is_map_entry().then(|| self.get_field(2)).flatten()
    }
}

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `double`.
    Double,
    /// `float`.
    Float,
    /// `int32`.
    Int32,
    /// `int64`.
    Int64,
    /// `uint32`.
    Uint32,
    /// `uint64`.
    Uint64,
    /// `sint32`.
    Sint32,
    /// `sint64`.
    Sint64,
    /// `fixed32`.
    Fixed32,
    /// `fixed64`.
    Fixed64,
    /// `sfixed32`.
    Sfixed32,
    /// `sfixed64`.
    Sfixed64,
    /// `bool`.
    Bool,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// A message (or group).
    Message(MessageDescriptor),
    /// An enum.
    Enum(EnumDescriptor),
}

/// A field of a message, or an extension.
#[derive(Clone)]
pub struct FieldDescriptor {
    pool: DescriptorPool,
    /// The message declaring the field, or [`NONE`] for an extension.
    message: u32,
    index: u32,
}

handle!(FieldDescriptor, [message, index]);

impl FieldDescriptor {
    /// Extension `index` of `pool`.
    pub(super) fn extension(pool: &DescriptorPool, index: u32) -> Self {
        Self {
            pool: pool.clone(),
            message: NONE,
            index,
        }
    }

    pub(crate) fn data(&self) -> &FieldData {
        let tables = &self.pool.tables;
        match self.message {
            NONE => &tables.extensions[self.index as usize],
            m => &tables.messages[m as usize].fields[self.index as usize],
        }
    }

    /// Index among its message's fields (extensions: among the pool's).
    pub(crate) fn index(&self) -> u32 {
        self.index
    }

    fn options_data(&self) -> &[u8] {
        &self.data().options
    }

    /// The name (`foo_bar`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// The full name (`pkg.Message.foo_bar`; extensions `pkg.name` or
    /// `pkg.Scope.name`).
    #[must_use]
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// The JSON name (`fooBar`, or its `json_name`).
    #[must_use]
    pub fn json_name(&self) -> &str {
        &self.data().json_name
    }

    /// The file declaring it.
    #[must_use]
    pub fn file(&self) -> FileDescriptor {
        self.pool.file_at(self.data().file)
    }

    /// The field number.
    #[must_use]
    pub fn number(&self) -> u32 {
        self.data().number
    }

    /// The type.
    #[must_use]
    pub fn kind(&self) -> Kind {
        match self.data().ty {
            Ty::Double => Kind::Double,
            Ty::Float => Kind::Float,
            Ty::Int64 => Kind::Int64,
            Ty::Uint64 => Kind::Uint64,
            Ty::Int32 => Kind::Int32,
            Ty::Fixed64 => Kind::Fixed64,
            Ty::Fixed32 => Kind::Fixed32,
            Ty::Bool => Kind::Bool,
            Ty::String => Kind::String,
            Ty::Bytes => Kind::Bytes,
            Ty::Uint32 => Kind::Uint32,
            Ty::Sfixed32 => Kind::Sfixed32,
            Ty::Sfixed64 => Kind::Sfixed64,
            Ty::Sint32 => Kind::Sint32,
            Ty::Sint64 => Kind::Sint64,
            Ty::Message(m) => Kind::Message(MessageDescriptor::new(&self.pool, m)),
            Ty::Enum(index) => Kind::Enum(EnumDescriptor {
                pool: self.pool.clone(),
                index,
            }),
        }
    }

    /// Optional, required or repeated.
    #[must_use]
    pub fn cardinality(&self) -> Cardinality {
        self.data().cardinality
    }

    /// True for a repeated field that is not a map.
    #[must_use]
    pub fn is_list(&self) -> bool {
        self.cardinality() == Cardinality::Repeated && !self.is_map()
    }

    /// True for a `map<K, V>` field.
    #[must_use]
    pub fn is_map(&self) -> bool {
        let data = self.data();
        match data.ty {
            Ty::Message(m) => {
                data.cardinality == Cardinality::Repeated && self.pool.tables.messages[m as usize].map_entry
            }
            _ => false,
        }
    }

    /// True for a repeated scalar field written as one packed run.
    #[must_use]
    pub fn is_packed(&self) -> bool {
        self.data().packed
    }

    /// True for a message field written as a group.
    #[must_use]
    pub fn is_group(&self) -> bool {
        self.data().delimited
    }

    /// True for a singular field that tracks whether it is set, apart from
    /// its value (messages, oneof members, proto2 and editions' explicit
    /// presence, proto3 `optional`, extensions).
    #[must_use]
    pub fn has_presence(&self) -> bool {
        self.data().presence
    }

    /// True for an extension.
    #[must_use]
    pub fn is_extension(&self) -> bool {
        self.message == NONE
    }

    /// The message this field belongs to: for an extension, the message it
    /// extends.
    #[must_use]
    pub fn containing_message(&self) -> MessageDescriptor {
        let m = match self.message {
            NONE => self.data().extendee.unwrap_or_default(),
            m => m,
        };
        MessageDescriptor::new(&self.pool, m)
    }

    /// The oneof it is a member of (a synthetic one for proto3
    /// `optional`).
    #[must_use]
    pub fn containing_oneof(&self) -> Option<OneofDescriptor> {
        let oneof = self.data().oneof?;
        Some(OneofDescriptor {
            pool: self.pool.clone(),
            message: self.message,
            index: oneof,
        })
    }

    /// The default value as declared (`[default = ...]`), in the text form
    /// `FieldDescriptorProto.default_value` holds.
    #[must_use]
    pub fn default_value_text(&self) -> Option<&str> {
        self.data().default.as_deref()
    }
}

/// A oneof of a message.
#[derive(Clone)]
pub struct OneofDescriptor {
    pool: DescriptorPool,
    message: u32,
    index: u32,
}

handle!(OneofDescriptor, [message, index]);

impl OneofDescriptor {
    fn message_data(&self) -> &MessageData {
        &self.pool.tables.messages[self.message as usize]
    }

    fn options_data(&self) -> &[u8] {
        &self.message_data().oneofs[self.index as usize].options
    }

    /// The name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.message_data().oneofs[self.index as usize].name
    }

    /// The full name (`pkg.Message.name`).
    #[must_use]
    pub fn full_name(&self) -> std::string::String {
        read::join(&self.message_data().full_name, self.name())
    }

    /// True for the oneof protoc makes for a proto3 `optional` field.
    #[must_use]
    pub fn is_synthetic(&self) -> bool {
        self.message_data().oneofs[self.index as usize].synthetic
    }

    /// Its fields.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        let message = MessageDescriptor::new(&self.pool, self.message);
        self.message_data().oneofs[self.index as usize]
            .fields
            .iter()
            .map(move |&i| message.field_at(i))
    }
}

/// An enum type.
#[derive(Clone)]
pub struct EnumDescriptor {
    pool: DescriptorPool,
    index: u32,
}

handle!(EnumDescriptor, [index]);

impl EnumDescriptor {
    pub(super) fn data(&self) -> &EnumData {
        &self.pool.tables.enums[self.index as usize]
    }

    fn options_data(&self) -> &[u8] {
        &self.data().options
    }

    /// The name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// The full name (`pkg.Outer.Kind`).
    #[must_use]
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// The file declaring it.
    #[must_use]
    pub fn file(&self) -> FileDescriptor {
        self.pool.file_at(self.data().file)
    }

    /// The message it is nested in.
    #[must_use]
    pub fn parent_message(&self) -> Option<MessageDescriptor> {
        self.data().parent.map(|p| MessageDescriptor::new(&self.pool, p))
    }

    /// True if numbers it does not name are not values (proto2, `CLOSED`):
    /// decoding moves them to the unknown fields.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.data().closed
    }

    /// Its values, in declaration order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = EnumValueDescriptor> + '_ {
        (0..self.data().values.len()).map(|i| EnumValueDescriptor {
            pool: self.pool.clone(),
            enumeration: self.index,
            index: index(i),
        })
    }

    /// The (first) value numbered `number`.
    #[must_use]
    pub fn get_value(&self, number: i32) -> Option<EnumValueDescriptor> {
        self.values().find(|v| v.number() == number)
    }

    /// The value named `name`.
    #[must_use]
    pub fn get_value_by_name(&self, name: &str) -> Option<EnumValueDescriptor> {
        self.values().find(|v| v.name() == name)
    }

    /// The first value: the default of a field of this type.
    #[must_use]
    pub fn default_value(&self) -> i32 {
        self.data().values.first().map_or(0, |v| v.1)
    }
}

/// A value of an enum.
#[derive(Clone)]
pub struct EnumValueDescriptor {
    pool: DescriptorPool,
    enumeration: u32,
    index: u32,
}

handle!(EnumValueDescriptor, [enumeration, index]);

impl EnumValueDescriptor {
    fn value(&self) -> &(std::string::String, i32, Vec<u8>) {
        &self.pool.tables.enums[self.enumeration as usize].values[self.index as usize]
    }

    fn options_data(&self) -> &[u8] {
        &self.value().2
    }

    /// The name (`KIND_A`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.value().0
    }

    /// The full name: the enum's scope and the name (`pkg.KIND_A`), as
    /// enum values are scoped beside their enum.
    #[must_use]
    pub fn full_name(&self) -> std::string::String {
        let e = &self.pool.tables.enums[self.enumeration as usize].full_name;
        let scope = e.rsplit_once('.').map_or("", |(s, _)| s);
        read::join(scope, self.name())
    }

    /// The number.
    #[must_use]
    pub fn number(&self) -> i32 {
        self.value().1
    }
}

/// A service.
#[derive(Clone)]
pub struct ServiceDescriptor {
    pool: DescriptorPool,
    index: u32,
}

handle!(ServiceDescriptor, [index]);

impl ServiceDescriptor {
    fn data(&self) -> &pool::ServiceData {
        &self.pool.tables.services[self.index as usize]
    }

    fn options_data(&self) -> &[u8] {
        &self.data().options
    }

    /// The name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// The full name (`pkg.Shop`).
    #[must_use]
    pub fn full_name(&self) -> &str {
        &self.data().full_name
    }

    /// The file declaring it.
    #[must_use]
    pub fn file(&self) -> FileDescriptor {
        self.pool.file_at(self.data().file)
    }

    /// Its methods, in declaration order.
    pub fn methods(&self) -> impl ExactSizeIterator<Item = MethodDescriptor> + '_ {
        (0..self.data().methods.len()).map(|i| MethodDescriptor {
            pool: self.pool.clone(),
            service: self.index,
            index: index(i),
        })
    }
}

/// A method of a service.
#[derive(Clone)]
pub struct MethodDescriptor {
    pool: DescriptorPool,
    service: u32,
    index: u32,
}

handle!(MethodDescriptor, [service, index]);

impl MethodDescriptor {
    fn data(&self) -> &pool::MethodData {
        &self.pool.tables.services[self.service as usize].methods[self.index as usize]
    }

    fn options_data(&self) -> &[u8] {
        &self.data().options
    }

    /// The name (`GetOrder`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// The full name (`pkg.Shop.GetOrder`).
    #[must_use]
    pub fn full_name(&self) -> std::string::String {
        read::join(&self.pool.tables.services[self.service as usize].full_name, self.name())
    }

    /// The request type.
    #[must_use]
    pub fn input(&self) -> MessageDescriptor {
        MessageDescriptor::new(&self.pool, self.data().input)
    }

    /// The response type.
    #[must_use]
    pub fn output(&self) -> MessageDescriptor {
        MessageDescriptor::new(&self.pool, self.data().output)
    }

    /// True if the client sends a stream.
    #[must_use]
    pub fn is_client_streaming(&self) -> bool {
        self.data().client_streaming
    }

    /// True if the server sends a stream.
    #[must_use]
    pub fn is_server_streaming(&self) -> bool {
        self.data().server_streaming
    }
}

/// A `.proto` file.
#[derive(Clone)]
pub struct FileDescriptor {
    pool: DescriptorPool,
    index: u32,
}

handle!(FileDescriptor, [index]);

impl FileDescriptor {
    fn data(&self) -> &pool::FileData {
        &self.pool.tables.files[self.index as usize]
    }

    fn options_data(&self) -> &[u8] {
        &self.data().options
    }

    /// The name (`acme/shop/v1/order.proto`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.data().name
    }

    /// The name: files have no other.
    #[must_use]
    pub fn full_name(&self) -> &str {
        self.name()
    }

    /// The package (empty for none).
    #[must_use]
    pub fn package_name(&self) -> &str {
        &self.data().package
    }

    /// `syntax` as declared: `proto2` (or empty), `proto3` or `editions`.
    #[must_use]
    pub fn syntax(&self) -> &str {
        &self.data().syntax
    }

    /// The files it imports.
    pub fn dependencies(&self) -> impl ExactSizeIterator<Item = FileDescriptor> + '_ {
        self.data().dependencies.iter().map(|&index| FileDescriptor {
            pool: self.pool.clone(),
            index,
        })
    }

    /// Its top-level messages.
    pub fn messages(&self) -> impl ExactSizeIterator<Item = MessageDescriptor> + '_ {
        self.data()
            .messages
            .iter()
            .map(|&i| MessageDescriptor::new(&self.pool, i))
    }

    /// Its top-level enums.
    pub fn enums(&self) -> impl ExactSizeIterator<Item = EnumDescriptor> + '_ {
        self.data().enums.iter().map(|&index| EnumDescriptor {
            pool: self.pool.clone(),
            index,
        })
    }

    /// Its services.
    pub fn services(&self) -> impl ExactSizeIterator<Item = ServiceDescriptor> + '_ {
        self.data().services.iter().map(|&index| ServiceDescriptor {
            pool: self.pool.clone(),
            index,
        })
    }

    /// Its top-level extensions.
    pub fn extensions(&self) -> impl ExactSizeIterator<Item = FieldDescriptor> + '_ {
        self.data()
            .extensions
            .iter()
            .map(|&i| FieldDescriptor::extension(&self.pool, i))
    }

    /// The encoded `FileDescriptorProto`, as it was added.
    #[must_use]
    pub fn encoded(&self) -> &[u8] {
        &self.data().encoded
    }
}
