//! The typed model the emitters read: every protobuf rule (presence, packing,
//! map entries, boxing, names, tag bytes) is decided once, in [`lower`], and
//! recorded here.

mod defaults;
mod docs;
pub mod externs;
mod index;
pub mod locations;
pub mod lower;
pub mod names;
pub mod plan;
pub mod strategy;
pub mod syntax;
pub mod validation;
pub mod wire;

use fastrs::descriptor::{EnumOptions, EnumValueOptions, FieldOptions, MessageOptions};
use proc_macro2::Ident;

pub use plan::Plan;
pub use strategy::Strategy;

pub use names::TypePath;
pub use wire::Tag;

/// One output file: all generated types of one protobuf package.
#[derive(Debug)]
pub struct Package {
    /// The protobuf package (`acme.shop.v2`), empty for none.
    pub name: String,
    /// `acme.shop.v2.rs`, or `_.rs` for no package.
    pub file_name: String,
    /// Module segments of the package (where its file is meant to be included).
    pub scope: Vec<String>,
    pub messages: Vec<Message>,
    pub enums: Vec<Enum>,
    /// Extensions declared at file level.
    pub extensions: Vec<Extension>,
    /// The `.proto` files the package's items come from, in order: each
    /// owns a run of `messages`, `enums` and `extensions`.
    pub files: Vec<SourceFile>,
    /// Whether (and how) to generate proto3 JSON code.
    pub json: Option<crate::options::JsonGate>,
    /// The encoded `FileDescriptorSet` of `files`, to embed (`descriptors=true`).
    pub descriptor_set: Option<Vec<u8>>,
    /// With `descriptors=true`: the `FILE_DESCRIPTOR_SET` constants of the
    /// packages its files import, directly or not (see
    /// [`lower::descriptor_imports`]).
    pub descriptor_imports: Vec<TypePath>,
    /// With `grpc=tonic` or `connect=true`: the package's services.
    pub services: Vec<Service>,
    /// Whether tonic clients and servers are generated for them.
    pub grpc: bool,
    /// Whether Connect clients are generated for them.
    pub connect: bool,
    /// Full names of the package's fields whose types are
    /// `fastrs::descriptor`'s: the package needs fastrs's `descriptor`
    /// feature.
    pub descriptor_fields: Vec<String>,
    /// With `validate=true`: the rule plans of every message type of the
    /// run (and of the types they hold), by full name.
    pub validation: Option<std::sync::Arc<fastrs::validate::Plans>>,
}

/// A `service`, for generated gRPC code.
#[derive(Debug)]
pub struct Service {
    /// As declared: `TestService`.
    pub name: String,
    pub package: String,
    pub docs: Vec<String>,
    pub methods: Vec<Rpc>,
}

/// A method of a service.
#[derive(Debug)]
pub struct Rpc {
    /// As declared: `UnaryCall`.
    pub name: String,
    pub input: TypePath,
    pub output: TypePath,
    pub client_streaming: bool,
    pub server_streaming: bool,
    pub docs: Vec<String>,
    pub deprecated: bool,
    /// Marked `idempotency_level = NO_SIDE_EFFECTS`: Connect clients call
    /// it with GET.
    pub side_effect_free: bool,
}

/// The items of a package that one `.proto` file declares.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The file's name as the descriptors give it (`acme/shop/v1/order.proto`).
    pub name: String,
    pub messages: std::ops::Range<usize>,
    pub enums: std::ops::Range<usize>,
    pub extensions: std::ops::Range<usize>,
    pub services: std::ops::Range<usize>,
}

impl SourceFile {
    /// The output file for `paths=source_relative`: the `.proto` path with
    /// `.rs` for `.proto` (`acme/shop/v1/order.rs`).
    #[must_use]
    pub fn rust_file_name(&self) -> String {
        let stem = self.name.strip_suffix(".proto").unwrap_or(&self.name);
        format!("{stem}.rs")
    }
}

/// A message type and everything declared inside it.
#[derive(Debug)]
pub struct Message {
    /// Full protobuf name without the leading dot: `acme.shop.v2.Order`.
    pub full_name: String,
    pub ident: Ident,
    /// Its zero-copy view (`views=true`): `OrderView`, unless that name is taken.
    pub view_ident: Ident,
    /// The module holding nested types and oneof enums (`order`).
    pub module: Ident,
    /// Module segments where the struct lives.
    pub scope: Vec<String>,
    pub doc: Vec<String>,
    /// The message's options as declared, custom ones in `unknown_fields`
    /// (read them with their extension constants).
    pub options: MessageOptions,
    /// Fields outside oneofs, by ascending field number.
    pub fields: Vec<Field>,
    pub oneofs: Vec<Oneof>,
    /// Fields and oneofs in ascending field-number order, for writing.
    pub order: Vec<Slot>,
    /// Index into `fields` of the singular field of this message's own type
    /// that links a chain of them: sized and written in a loop, not by
    /// recursion (see `fastrs::chain`).
    pub chain: Option<usize>,
    /// Name of the field that keeps unknown fields.
    pub unknown_fields: Ident,
    /// Name of the field that keeps cleared values' allocations for the
    /// next decode (`fastrs::Recycler`), if it has one ([`Message::has_recycler`]).
    pub recycle: Ident,
    /// The shape of its code (from its mode).
    pub strategy: Strategy,
    /// How its decoders read its records.
    pub plan: Plan,
    /// True if this message or one it can hold has a `required` field, so
    /// `check_required` is generated.
    pub checks_required: bool,
    pub messages: Vec<Message>,
    pub enums: Vec<Enum>,
    /// Extensions declared inside this message (they live in its module).
    pub extensions: Vec<Extension>,
    /// The message declares extension ranges: it may hold extensions, which
    /// its JSON prints from `fastrs::json`'s registry.
    pub extendable: bool,
    /// Tags of the `string` extensions of this message, declared in the
    /// files generated with it, whose UTF-8 the schema checks: decode
    /// validates them although they are kept as unknown bytes.
    pub checked_extension_tags: Vec<Tag>,
    /// Whether (and how) to generate its proto3 JSON code.
    pub json: Option<crate::options::JsonGate>,
    /// Whether to generate its zero-copy view (`views=true`).
    pub views: bool,
    /// With `descriptors=true`: how many modules below its package's module
    /// the struct lives (0 for a top-level message), so that its
    /// `fastrs::Described` impl can name the package's `FILE_DESCRIPTOR_SET`.
    pub described_at: Option<usize>,
}

/// An `extend` field: a typed accessor constant.
#[derive(Debug)]
pub struct Extension {
    /// `SCREAMING_SNAKE_CASE` constant name.
    pub ident: Ident,
    pub doc: Vec<String>,
    pub number: u32,
    pub extendee: TypePath,
    /// Full protobuf name of the extended message, without the leading dot.
    pub extendee_name: String,
    /// The extended message is deprecated.
    pub extendee_deprecated: bool,
    pub kind: Kind,
    pub repeated: bool,
}

/// One step of the field-number order: a plain field, or a run of consecutive
/// members of one oneof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Index into [`Message::fields`].
    Field(usize),
    /// Index into [`Message::oneofs`], with indices of the members in this run.
    Oneof(usize, Vec<usize>),
}

/// A field (also a oneof member).
#[derive(Debug)]
pub struct Field {
    pub number: u32,
    /// Struct field name, or variant name for a oneof member.
    pub ident: Ident,
    pub doc: Vec<String>,
    /// The field's options as declared (custom ones in `unknown_fields`).
    pub options: FieldOptions,
    pub shape: Shape,
    /// The tag of the field's main encoding.
    pub tag: Tag,
    /// Full protobuf name (`pkg.Msg.field`), for error messages.
    pub full_name: String,
    /// The name in the `.proto` file (`order_id`).
    pub proto_name: String,
    /// The proto3 JSON name (`orderId`, or the declared `json_name`).
    pub json_name: String,
    /// proto2 `required`: decode and `check_required` fail without it.
    pub required: bool,
    /// The value a getter returns when an explicit-presence field is unset.
    pub default: Option<DefaultValue>,
}

/// A declared `[default = ...]`.
#[derive(Debug, Clone)]
pub enum DefaultValue {
    /// An expression of the field's Rust type (a number, `true`, `"text"`, `b"bytes"`).
    Literal(proc_macro2::TokenStream),
    /// A variant of the field's enum type.
    Enum(Ident),
}

/// How a field is stored and encoded.
#[derive(Debug)]
pub enum Shape {
    /// Implicit presence (proto3 singular scalar): the default value is not written.
    Implicit(Kind),
    /// Explicit presence: `Option<T>` (messages, proto3 `optional`, proto2).
    Optional(Kind),
    /// `Vec<T>`. `packed` gives the encoding written; `alt_tag` is the other
    /// encoding the decoder also accepts, for packable types.
    Repeated {
        kind: Kind,
        packed: bool,
        alt_tag: Option<Tag>,
    },
    /// `HashMap<K, V>` (with std's or another hasher), or `BTreeMap<K, V>`
    /// (entries then encode in key order, deterministically).
    Map {
        key: Kind,
        value: Kind,
        maps: crate::options::Maps,
    },
    /// A member of a oneof: one variant of its enum.
    OneofMember(Kind),
}

/// The type of a single value.
#[derive(Clone, Debug)]
pub enum Kind {
    Scalar(Scalar),
    /// `string`: a `String` when the schema asks for UTF-8 validation
    /// (proto3, editions' `VERIFY`), else a `fastrs::LaxString` that keeps
    /// any bytes (proto2, `NONE`), as the reference implementations read them.
    String {
        checked: bool,
    },
    /// `bytes`: a `Vec<u8>`, or a `bytes::Bytes` when `shared` (the
    /// generator's `bytes` option).
    Bytes {
        shared: bool,
    },
    /// An enum: open ones are held as `EnumValue<E>` and keep any number; closed
    /// ones as `E`, with unknown numbers routed to the unknown fields.
    Enum {
        path: TypePath,
        closed: bool,
        /// The enum type is `deprecated`: code naming it allows that.
        deprecated: bool,
    },
    /// A message; `boxed` when it contains the enclosing message; `group` is the
    /// field number when it is encoded as a group (delimited); `checks_required`
    /// when it (or what it holds) has `required` fields.
    Message {
        path: TypePath,
        /// Where its zero-copy view is (`views=true`).
        view: TypePath,
        boxed: bool,
        group: Option<u32>,
        /// The message type is generated in this run with a table (size
        /// mode): size-mode fields of it run that table.
        tabled: bool,
        checks_required: bool,
        /// The message type is `deprecated`: code naming it allows that.
        deprecated: bool,
    },
}

/// The numeric protobuf types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Bool,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Float,
    Double,
}

/// A oneof: an `Option` of an enum with one variant per member.
#[derive(Debug)]
pub struct Oneof {
    pub proto_name: String,
    /// The struct field.
    pub field: Ident,
    /// The enum type, in the message's module.
    pub enum_ident: Ident,
    /// The enum of its members' views (`views=true`), beside it.
    pub view_ident: Ident,
    pub doc: Vec<String>,
    pub members: Vec<Field>,
}

impl Oneof {
    /// True if the members are entries of their message's table (in size
    /// mode): unless one is a closed enum, whose unknown numbers go to the
    /// unknown fields without switching the oneof, which the table's hooks
    /// do.
    #[must_use]
    pub fn members_are_entries(&self) -> bool {
        !self
            .members
            .iter()
            .any(|m| matches!(&m.shape, Shape::OneofMember(Kind::Enum { closed: true, .. })))
    }

    /// True if, in a message with a table, clearing the oneof keeps the
    /// buffer of a string or bytes member in the message's recycler, and
    /// decoding a member takes its buffer from there: its members are
    /// entries, and one is a string or bytes. (Unlike an implicit string,
    /// which keeps its buffer itself, a member's is dropped with its
    /// oneof: the Go message's reused decode spent a fifth of its
    /// instructions in `malloc` and `free` for one.)
    #[must_use]
    pub fn keeps_buffers_in_table(&self) -> bool {
        self.members_are_entries()
            && self
                .members
                .iter()
                .any(|m| matches!(&m.shape, Shape::OneofMember(kind) if kind.recycling() == Recycling::Buffer))
    }
}

/// An enum type.
#[derive(Debug)]
pub struct Enum {
    /// Full protobuf name without the leading dot.
    pub full_name: String,
    pub ident: Ident,
    pub doc: Vec<String>,
    /// The enum's options as declared (custom ones in `unknown_fields`).
    pub options: EnumOptions,
    /// Distinct numbers, in declaration order; the first is the default.
    pub variants: Vec<Variant>,
    /// Later names for a number already named (`allow_alias`).
    pub aliases: Vec<Alias>,
}

#[derive(Debug)]
pub struct Variant {
    pub proto_name: String,
    pub ident: Ident,
    pub number: i32,
    pub doc: Vec<String>,
    /// The value's options as declared (custom ones in `unknown_fields`).
    pub options: EnumValueOptions,
}

#[derive(Debug)]
pub struct Alias {
    pub proto_name: String,
    pub ident: Ident,
    pub doc: Vec<String>,
    /// The variant it names again.
    pub target: Ident,
}

/// What `clear()` keeps of a value for the next decode to fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recycling {
    /// Nothing: the value owns no allocation (numbers, enums).
    Nothing,
    /// Its buffer (strings, bytes).
    Buffer,
    /// The whole message, with its own buffers.
    Message,
}

impl Kind {
    /// True for a message or enum of `fastrs::descriptor` (see
    /// [`TypePath::needs_descriptor_feature`]).
    #[must_use]
    pub fn needs_descriptor_feature(&self) -> bool {
        match self {
            Kind::Enum { path, .. } | Kind::Message { path, .. } => path.needs_descriptor_feature(),
            _ => false,
        }
    }

    /// What `clear()` keeps of values of this type.
    #[must_use]
    pub fn recycling(&self) -> Recycling {
        match self {
            Kind::String { .. } | Kind::Bytes { shared: false } => Recycling::Buffer,
            Kind::Bytes { shared: true } => Recycling::Nothing,
            Kind::Message { .. } => Recycling::Message,
            Kind::Scalar(_) | Kind::Enum { .. } => Recycling::Nothing,
        }
    }

    /// True if `clear()` keeps something of values of this type.
    #[must_use]
    pub fn recycles(&self) -> bool {
        self.recycling() != Recycling::Nothing
    }

    /// True if the type is a deprecated enum or message: generated code that
    /// names it must allow `deprecated` (users still get the warning).
    #[must_use]
    pub fn is_deprecated(&self) -> bool {
        matches!(
            self,
            Kind::Enum { deprecated: true, .. } | Kind::Message { deprecated: true, .. }
        )
    }

    /// True for message types whose values can hold `required` fields.
    #[must_use]
    pub fn checks_required(&self) -> bool {
        matches!(
            self,
            Kind::Message {
                checks_required: true,
                ..
            }
        )
    }

    /// True for types that may be packed.
    #[must_use]
    pub fn is_packable(&self) -> bool {
        matches!(self, Kind::Scalar(_) | Kind::Enum { .. })
    }

    /// True for a message type whose table a table entry runs.
    #[must_use]
    pub fn is_tabled(&self) -> bool {
        matches!(self, Kind::Message { tabled: true, .. })
    }
}

impl Message {
    /// `option deprecated = true`.
    #[must_use]
    pub fn deprecated(&self) -> bool {
        self.options.deprecated()
    }

    /// True if the message has a `fastrs::Recycler` (its field `recycle`):
    /// an inline message (whose `clear` keeps values for reuse,
    /// [`Strategy::Inline`]), or a message with a table and either a repeated field whose values
    /// its table keeps (messages whose type has a table, strings or bytes)
    /// or a oneof that keeps its strings and bytes
    /// ([`Oneof::keeps_buffers_in_table`]). (Its table keeps its singular
    /// nested messages there too. A message whose only such fields are
    /// singular gets none: an `Option<M>` holds its message in place, so
    /// keeping it saves only the buffers inside, and the field costs each
    /// message type's derives and drop code.)
    #[must_use]
    pub fn has_recycler(&self) -> bool {
        self.strategy.inline()
            || (self.fields.iter().any(|f| match &f.shape {
                Shape::Repeated { kind, .. } => kind.is_tabled() || kind.recycling() == Recycling::Buffer,
                _ => false,
            }) || self.oneofs.iter().any(Oneof::keeps_buffers_in_table))
    }

    /// True if `Debug` must hide a field's value (`debug_redact`), so the
    /// message cannot derive it.
    #[must_use]
    pub fn redacts(&self) -> bool {
        self.fields
            .iter()
            .chain(self.oneofs.iter().flat_map(|o| &o.members))
            .any(Field::debug_redact)
    }
}

impl Enum {
    /// `option deprecated = true`.
    #[must_use]
    pub fn deprecated(&self) -> bool {
        self.options.deprecated()
    }
}

impl Variant {
    /// `[deprecated = true]`.
    #[must_use]
    pub fn deprecated(&self) -> bool {
        self.options.deprecated()
    }
}

impl Field {
    /// True if the field's type, or its map's key or value type, is one of
    /// `fastrs::descriptor`'s.
    #[must_use]
    pub fn needs_descriptor_feature(&self) -> bool {
        match &self.shape {
            Shape::Implicit(kind) | Shape::Optional(kind) | Shape::OneofMember(kind) | Shape::Repeated { kind, .. } => {
                kind.needs_descriptor_feature()
            }
            Shape::Map { key, value, .. } => key.needs_descriptor_feature() || value.needs_descriptor_feature(),
        }
    }

    /// `[deprecated = true]`.
    #[must_use]
    pub fn deprecated(&self) -> bool {
        self.options.deprecated()
    }

    /// `[debug_redact = true]`: `Debug` prints `[REDACTED]` for the value.
    #[must_use]
    pub fn debug_redact(&self) -> bool {
        self.options.debug_redact()
    }

    /// True if the field's type, or its map's key or value type, is deprecated.
    #[must_use]
    pub fn names_deprecated_type(&self) -> bool {
        match &self.shape {
            Shape::Implicit(kind) | Shape::Optional(kind) | Shape::OneofMember(kind) | Shape::Repeated { kind, .. } => {
                kind.is_deprecated()
            }
            Shape::Map { key, value, .. } => key.is_deprecated() || value.is_deprecated(),
        }
    }
}
