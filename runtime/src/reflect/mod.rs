//! Reflection (the `reflect` feature; `text` turns it on): schemas loaded
//! at run time, and messages read and written through them without
//! generated code.
//!
//! A [`DescriptorPool`] holds linked `.proto` files, from encoded
//! `FileDescriptorSet`s (`protoc --descriptor_set_out`, `buf build -o`)
//! or from the descriptors generated code embeds (`descriptors=true`). Its
//! descriptors ([`MessageDescriptor`], [`FieldDescriptor`], ...) are cheap
//! handles that are `Clone + Send + Sync`, with no lifetimes. A
//! [`DynamicMessage`] is a message of any type of a pool.
//!
//! Each element's features are resolved once, when its file is added, by
//! the same resolver the code generator uses ([`crate::schema::Features`]):
//! proto2, proto3 and every edition read alike.

mod access;
mod descriptors;
mod dynamic;
mod error;
mod generated;
mod numbers;
pub(crate) mod pool;
mod read;
pub(crate) mod registry;

pub use access::{Reflect, ReflectList, ReflectMap, ValueRef};
pub use descriptors::{
    DescriptorPool, EnumDescriptor, EnumValueDescriptor, FieldDescriptor, FileDescriptor, Kind, MessageDescriptor,
    MethodDescriptor, OneofDescriptor, ServiceDescriptor,
};
pub use dynamic::{DynamicMessage, MapKey, SetError, Value};
pub use error::{PoolError, PoolErrorKind};
pub use generated::ReflectMessage;
pub use pool::Cardinality;
