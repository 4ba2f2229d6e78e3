//! Reading a message's fields in place, through its descriptor: the
//! [`Reflect`] trait, which readers that serve any message (CEL,
//! validation) take, so that they depend on no message's storage.

use std::boxed::Box;

use super::dynamic::{DynamicMessage, MapKey, Value};
use super::{FieldDescriptor, MessageDescriptor};

/// A message read through its descriptor, in place. [`DynamicMessage`]
/// implements it; readers that take `&dyn Reflect` serve any message a
/// pool describes without knowing how it is stored.
pub trait Reflect: Send + Sync {
    /// The message's type.
    fn descriptor(&self) -> &MessageDescriptor;

    /// The value of `field` (a field of this message's type, or an
    /// extension of it), or `None` if it is not set. A field without
    /// presence may answer its zero value or `None`; readers take both as
    /// the field's default.
    fn field(&self, field: &FieldDescriptor) -> Option<ValueRef<'_>>;

    /// True if `field` is set: with presence, if it holds a value; without,
    /// if its value is not its type's zero; repeated, if it holds anything.
    fn has_field(&self, field: &FieldDescriptor) -> bool;
}

/// A field's value, borrowed from its message.
#[derive(Clone, Copy)]
pub enum ValueRef<'a> {
    /// `bool`.
    Bool(bool),
    /// `int32`, `sint32`, `sfixed32`.
    I32(i32),
    /// `int64`, `sint64`, `sfixed64`.
    I64(i64),
    /// `uint32`, `fixed32`.
    U32(u32),
    /// `uint64`, `fixed64`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// `string`.
    String(&'a str),
    /// `bytes` (and a proto2 `string` whose bytes are not UTF-8).
    Bytes(&'a [u8]),
    /// An enum value's number.
    EnumNumber(i32),
    /// A message.
    Message(&'a dyn Reflect),
    /// A repeated field's values.
    List(&'a dyn ReflectList),
    /// A map field's entries.
    Map(&'a dyn ReflectMap),
}

/// A repeated field's values, read in place.
pub trait ReflectList: Send + Sync {
    /// How many values.
    fn len(&self) -> usize;

    /// True if there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `index`, if there is one.
    fn get(&self, index: usize) -> Option<ValueRef<'_>>;
}

/// A map field's entries, read in place.
pub trait ReflectMap: Send + Sync {
    /// How many entries.
    fn len(&self) -> usize;

    /// True if there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `key`, if the map holds it.
    fn get(&self, key: &MapKey) -> Option<ValueRef<'_>>;

    /// The entries, in the map's order.
    fn entries(&self) -> Box<dyn Iterator<Item = (&MapKey, ValueRef<'_>)> + '_>;
}

impl<'a> ValueRef<'a> {
    /// A [`DynamicMessage`]'s value, borrowed.
    fn of(value: &'a Value) -> Self {
        match value {
            Value::Bool(v) => ValueRef::Bool(*v),
            Value::I32(v) => ValueRef::I32(*v),
            Value::I64(v) => ValueRef::I64(*v),
            Value::U32(v) => ValueRef::U32(*v),
            Value::U64(v) => ValueRef::U64(*v),
            Value::F32(v) => ValueRef::F32(*v),
            Value::F64(v) => ValueRef::F64(*v),
            Value::String(v) => ValueRef::String(v),
            Value::Bytes(v) => ValueRef::Bytes(v),
            Value::EnumNumber(v) => ValueRef::EnumNumber(*v),
            Value::Message(m) => ValueRef::Message(&**m),
            Value::List(items) => ValueRef::List(items),
            Value::Map(entries) => ValueRef::Map(entries),
        }
    }
}

impl Reflect for DynamicMessage {
    fn descriptor(&self) -> &MessageDescriptor {
        DynamicMessage::descriptor(self)
    }

    fn field(&self, field: &FieldDescriptor) -> Option<ValueRef<'_>> {
        self.get(field).map(ValueRef::of)
    }

    fn has_field(&self, field: &FieldDescriptor) -> bool {
        self.has(field)
    }
}

impl ReflectList for std::vec::Vec<Value> {
    fn len(&self) -> usize {
        <[Value]>::len(self)
    }

    fn get(&self, index: usize) -> Option<ValueRef<'_>> {
        <[Value]>::get(self, index).map(ValueRef::of)
    }
}

impl ReflectMap for std::collections::BTreeMap<MapKey, Value> {
    fn len(&self) -> usize {
        std::collections::BTreeMap::len(self)
    }

    fn get(&self, key: &MapKey) -> Option<ValueRef<'_>> {
        std::collections::BTreeMap::get(self, key).map(ValueRef::of)
    }

    fn entries(&self) -> Box<dyn Iterator<Item = (&MapKey, ValueRef<'_>)> + '_> {
        Box::new(self.iter().map(|(k, v)| (k, ValueRef::of(v))))
    }
}
