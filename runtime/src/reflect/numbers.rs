//! The field numbers of `google/protobuf/descriptor.proto` that the
//! descriptor reader ([`super::read`]) reads, one module per message.

/// `FileDescriptorSet.file`.
pub const FILE_DESCRIPTOR_SET_FILE: u32 = 1;

/// `FileDescriptorProto`.
pub mod file {
    pub const NAME: u32 = 1;
    pub const PACKAGE: u32 = 2;
    pub const DEPENDENCY: u32 = 3;
    pub const MESSAGE_TYPE: u32 = 4;
    pub const ENUM_TYPE: u32 = 5;
    pub const SERVICE: u32 = 6;
    pub const EXTENSION: u32 = 7;
    pub const OPTIONS: u32 = 8;
    pub const PUBLIC_DEPENDENCY: u32 = 10;
    pub const SYNTAX: u32 = 12;
}

/// `DescriptorProto`.
pub mod message {
    pub const NAME: u32 = 1;
    pub const FIELD: u32 = 2;
    pub const NESTED_TYPE: u32 = 3;
    pub const ENUM_TYPE: u32 = 4;
    pub const EXTENSION_RANGE: u32 = 5;
    pub const EXTENSION: u32 = 6;
    pub const OPTIONS: u32 = 7;
    pub const ONEOF_DECL: u32 = 8;
    pub const RESERVED_RANGE: u32 = 9;
    pub const RESERVED_NAME: u32 = 10;
}

/// `DescriptorProto.ExtensionRange` and `DescriptorProto.ReservedRange`.
pub mod range {
    pub const START: u32 = 1;
    pub const END: u32 = 2;
}

/// `OneofDescriptorProto`.
pub mod oneof {
    pub const NAME: u32 = 1;
    pub const OPTIONS: u32 = 2;
}

/// `FieldDescriptorProto`.
pub mod field {
    pub const NAME: u32 = 1;
    pub const EXTENDEE: u32 = 2;
    pub const NUMBER: u32 = 3;
    pub const LABEL: u32 = 4;
    pub const TYPE: u32 = 5;
    pub const TYPE_NAME: u32 = 6;
    pub const DEFAULT_VALUE: u32 = 7;
    pub const OPTIONS: u32 = 8;
    pub const ONEOF_INDEX: u32 = 9;
    pub const JSON_NAME: u32 = 10;
    pub const PROTO3_OPTIONAL: u32 = 17;

    /// `Label.LABEL_OPTIONAL` and `LABEL_REQUIRED`.
    pub const LABEL_OPTIONAL: u64 = 1;
    pub const LABEL_REQUIRED: u64 = 2;
    /// `Type.TYPE_GROUP`.
    pub const TYPE_GROUP: u64 = 10;
}

/// `EnumDescriptorProto`.
pub mod enumeration {
    pub const NAME: u32 = 1;
    pub const VALUE: u32 = 2;
    pub const OPTIONS: u32 = 3;
}

/// `EnumValueDescriptorProto`.
pub mod enum_value {
    pub const NAME: u32 = 1;
    pub const NUMBER: u32 = 2;
    pub const OPTIONS: u32 = 3;
}

/// `ServiceDescriptorProto`.
pub mod service {
    pub const NAME: u32 = 1;
    pub const METHOD: u32 = 2;
    pub const OPTIONS: u32 = 3;
}

/// `MethodDescriptorProto`.
pub mod method {
    pub const NAME: u32 = 1;
    pub const INPUT_TYPE: u32 = 2;
    pub const OUTPUT_TYPE: u32 = 3;
    pub const OPTIONS: u32 = 4;
    pub const CLIENT_STREAMING: u32 = 5;
    pub const SERVER_STREAMING: u32 = 6;
}

/// The options messages: `features` in each, and the options the reader
/// reads itself.
pub mod options {
    pub const FILE_FEATURES: u32 = 50;
    pub const MESSAGE_FEATURES: u32 = 12;
    pub const FIELD_FEATURES: u32 = 21;
    pub const ENUM_FEATURES: u32 = 7;
    /// `MessageOptions.map_entry`.
    pub const MAP_ENTRY: u32 = 7;
    /// `FieldOptions.packed`.
    pub const PACKED: u32 = 2;
}
