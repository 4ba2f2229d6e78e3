//! Element paths of `SourceCodeInfo` (and of editions features): the field
//! numbers of `descriptor.proto` that lead from a file to an element.
//! `[FILE_MESSAGE, 0, MESSAGE_FIELD, 2]` is field 2 of the file's first message.

/// `FileDescriptorProto.message_type`.
pub const FILE_MESSAGE: i32 = 4;
/// `FileDescriptorProto.enum_type`.
pub const FILE_ENUM: i32 = 5;
/// `FileDescriptorProto.service`.
pub const FILE_SERVICE: i32 = 6;
/// `ServiceDescriptorProto.method`.
pub const SERVICE_METHOD: i32 = 2;
/// `FileDescriptorProto.extension`.
pub const FILE_EXTENSION: i32 = 7;
/// `DescriptorProto.field`.
pub const MESSAGE_FIELD: i32 = 2;
/// `DescriptorProto.nested_type`.
pub const MESSAGE_NESTED: i32 = 3;
/// `DescriptorProto.enum_type`.
pub const MESSAGE_ENUM: i32 = 4;
/// `DescriptorProto.extension`.
pub const MESSAGE_EXTENSION: i32 = 6;
/// `DescriptorProto.oneof_decl`.
pub const MESSAGE_ONEOF: i32 = 8;
/// `EnumDescriptorProto.value`.
pub const ENUM_VALUE: i32 = 2;

/// The path of child `index` of kind `kind` under `parent`.
#[must_use]
pub fn child(parent: &[i32], kind: i32, index: usize) -> Vec<i32> {
    let index = i32::try_from(index).unwrap_or(i32::MAX);
    [parent, &[kind, index]].concat()
}
