//! [`DynamicMessage`]: any message of a pool, without generated code.
//!
//! A message holds one slot per field of its type, found by the field's
//! index (the pool's tables map field numbers to indices once, when the
//! file is added), and its extensions and unknown fields beside them.

mod decode;
mod encode;
mod value;

use core::fmt;
use std::vec::Vec;

pub use value::{MapKey, Value};

use super::pool::Cardinality;
#[cfg(feature = "json")]
use super::pool::FieldData;
use super::{FieldDescriptor, MessageDescriptor};
use crate::wire::unknown::UnknownFields;

/// A message of any type a [`DescriptorPool`](super::DescriptorPool)
/// knows: decoded, read, changed and encoded through its descriptor.
///
/// Decoding follows generated code's rules: the last value of a singular
/// field wins, messages merge, repeated fields append, setting a oneof
/// member clears the others, a map keeps the last value per key, a closed
/// enum's unnamed numbers go to the unknown fields, and fields the type
/// does not declare are kept byte for byte and written back.
///
/// ```
/// # use fastrs::reflect::{DescriptorPool, DynamicMessage, Value};
/// let pool = DescriptorPool::decode(fastrs::well_known::FILE_DESCRIPTOR_SET)?;
/// let duration = pool.get_message_by_name("google.protobuf.Duration").unwrap();
/// let mut message = DynamicMessage::new(duration.clone());
/// message.set_by_name("seconds", Value::I64(90))?;
/// let bytes = message.encode_to_vec();
/// assert_eq!(bytes, [0x08, 90]);
/// let back = DynamicMessage::decode(duration, &bytes)?;
/// assert_eq!(back.get_by_name("seconds"), Some(&Value::I64(90)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct DynamicMessage {
    descriptor: MessageDescriptor,
    /// By field index; `None` for a field never set.
    fields: Vec<Option<Value>>,
    /// Extensions the pool knows, by the pool's extension index, in the
    /// order first set.
    extensions: Vec<(u32, Value)>,
    unknown: UnknownFields,
}

impl Drop for DynamicMessage {
    /// Frees the fields' storage without running `Value`'s drop glue over
    /// values that own nothing: a message of numbers, or a list of them,
    /// would otherwise cost a call per field and per element (a fifth of
    /// decoding the fastpb Number and List rows, callgrind).
    fn drop(&mut self) {
        for slot in &mut self.fields {
            if let Some(Value::List(items)) = slot {
                forget_inline(items);
            }
        }
        forget_inline(&mut self.fields);
    }
}

/// Empties `items` without dropping them if none owns memory; otherwise
/// leaves them to the drop glue.
fn forget_inline<T: Inline>(items: &mut Vec<T>) {
    if items.iter().all(Inline::is_inline) {
        // SAFETY: the new length (0) is within the capacity, and no element
        // is left to be initialised. The elements are not dropped, which
        // is safe (`mem::forget`), and loses nothing: none owns memory.
        #[allow(unsafe_code)]
        unsafe {
            items.set_len(0);
        }
    }
}

/// What [`forget_inline`] may skip dropping.
trait Inline {
    /// True if dropping it frees nothing.
    fn is_inline(&self) -> bool;
}

impl Inline for Value {
    #[inline(always)]
    fn is_inline(&self) -> bool {
        Value::is_inline(self)
    }
}

impl Inline for Option<Value> {
    #[inline(always)]
    fn is_inline(&self) -> bool {
        self.as_ref().is_none_or(Value::is_inline)
    }
}

/// A value of the wrong type for a field, or a field of another message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetError {
    field: std::string::String,
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "value does not fit field `{}`", self.field)
    }
}

impl std::error::Error for SetError {}

impl DynamicMessage {
    /// An empty message of type `descriptor`.
    #[must_use]
    pub fn new(descriptor: MessageDescriptor) -> Self {
        let mut fields = Vec::new();
        fields.resize_with(descriptor.data().fields.len(), || None);
        Self {
            descriptor,
            fields,
            extensions: Vec::new(),
            unknown: UnknownFields::default(),
        }
    }

    /// Its type.
    #[must_use]
    pub fn descriptor(&self) -> &MessageDescriptor {
        &self.descriptor
    }

    /// The fields the type does not declare (and extensions the pool does
    /// not know), as read.
    #[must_use]
    pub fn unknown_fields(&self) -> &UnknownFields {
        &self.unknown
    }

    /// Drops the unknown fields.
    pub fn clear_unknown_fields(&mut self) {
        self.unknown.clear();
    }

    /// Clears every field, extension and unknown field.
    pub fn clear(&mut self) {
        self.fields.iter_mut().for_each(|f| *f = None);
        self.extensions.clear();
        self.unknown.clear();
    }

    /// True if `field` belongs to this message's type (or extends it).
    fn owns(&self, field: &FieldDescriptor) -> bool {
        field.containing_message() == self.descriptor
    }

    /// The slot of `field`, which must be one of this message's.
    fn slot(&self, field: &FieldDescriptor) -> Option<&Value> {
        if field.is_extension() {
            let index = field.index();
            return self.extensions.iter().find(|(e, _)| *e == index).map(|(_, v)| v);
        }
        self.fields.get(field.index() as usize)?.as_ref()
    }

    /// The value of `field` if it is set (for fields without presence: if
    /// it was decoded or set, even to zero), `None` otherwise or if the
    /// field is not this message's.
    #[must_use]
    pub fn get(&self, field: &FieldDescriptor) -> Option<&Value> {
        if !self.owns(field) {
            return None;
        }
        self.slot(field)
    }

    /// The value of `field`, or its default if not set.
    #[must_use]
    pub fn get_or_default(&self, field: &FieldDescriptor) -> Value {
        self.get(field).cloned().unwrap_or_else(|| Value::default_for(field))
    }

    /// The value of the field named `name`, if set.
    #[must_use]
    pub fn get_by_name(&self, name: &str) -> Option<&Value> {
        let at = self.descriptor.data().fields.iter().position(|f| f.name == name)?;
        self.fields[at].as_ref()
    }

    /// The value of the field numbered `number`, if set.
    #[must_use]
    pub fn get_by_number(&self, number: u32) -> Option<&Value> {
        let at = self.descriptor.data().field_index(number)?;
        self.fields[at as usize].as_ref()
    }

    /// The value of `field`, set to its default first if it is not set.
    ///
    /// # Panics
    /// If `field` is not a field of this message's type.
    pub fn get_mut(&mut self, field: &FieldDescriptor) -> &mut Value {
        assert!(
            self.owns(field),
            "{} is not a field of {}",
            field.full_name(),
            self.descriptor.full_name()
        );
        if !self.has_slot(field) {
            self.put(field, Value::default_for(field));
        }
        self.slot_mut(field).expect("just set")
    }

    fn has_slot(&self, field: &FieldDescriptor) -> bool {
        self.slot(field).is_some()
    }

    fn slot_mut(&mut self, field: &FieldDescriptor) -> Option<&mut Value> {
        if field.is_extension() {
            let index = field.index();
            return self.extensions.iter_mut().find(|(e, _)| *e == index).map(|(_, v)| v);
        }
        self.fields.get_mut(field.index() as usize)?.as_mut()
    }

    /// True if `field` is set: for a field with presence, if a value was
    /// set or decoded; for one without, if its value is not the zero of
    /// its type; for a repeated field, if it holds anything.
    #[must_use]
    pub fn has(&self, field: &FieldDescriptor) -> bool {
        match self.get(field) {
            None => false,
            Some(_) if field.has_presence() => true,
            Some(v) => !v.is_zero(),
        }
    }

    /// Sets `field` to `value`, clearing the other members of its oneof.
    ///
    /// # Errors
    /// `value` does not have the field's type, or the field is not this
    /// message's.
    pub fn set(&mut self, field: &FieldDescriptor, value: Value) -> Result<(), SetError> {
        if !self.owns(field) || !value.is_valid_for(field) {
            return Err(SetError {
                field: field.full_name().into(),
            });
        }
        self.put(field, value);
        Ok(())
    }

    /// Sets the field named `name`.
    ///
    /// # Errors
    /// As [`DynamicMessage::set`], and a name the type does not declare.
    pub fn set_by_name(&mut self, name: &str, value: Value) -> Result<(), SetError> {
        let Some(field) = self.descriptor.get_field_by_name(name) else {
            return Err(SetError { field: name.into() });
        };
        self.set(&field, value)
    }

    /// Stores `value` (checked) in `field`'s slot.
    fn put(&mut self, field: &FieldDescriptor, value: Value) {
        if field.is_extension() {
            let index = field.index();
            match self.extensions.iter_mut().find(|(e, _)| *e == index) {
                Some((_, slot)) => *slot = value,
                None => self.extensions.push((index, value)),
            }
            return;
        }
        self.clear_oneof_of(field.index());
        self.fields[field.index() as usize] = Some(value);
    }

    /// The member of field `index`'s oneof (not a synthetic one) that is
    /// set, other than it: for parsers, which refuse a second member.
    #[cfg(feature = "json")]
    pub(crate) fn oneof_rival(&self, index: u32) -> Option<u32> {
        let data = self.descriptor.data();
        let oneof = &data.oneofs[data.fields[index as usize].oneof? as usize];
        if oneof.synthetic {
            return None;
        }
        oneof
            .fields
            .iter()
            .copied()
            .find(|&member| member != index && self.fields[member as usize].is_some())
    }

    /// Stores a parsed value, of field `index`'s type, in its slot.
    #[cfg(feature = "json")]
    pub(crate) fn set_parsed(&mut self, index: u32, value: Value) {
        self.clear_oneof_of(index);
        self.fields[index as usize] = Some(value);
    }

    /// Clears the other members of the oneof of field `index`, if any.
    fn clear_oneof_of(&mut self, index: u32) {
        let data = self.descriptor.data();
        let Some(oneof) = data.fields[index as usize].oneof else {
            return;
        };
        for &member in &data.oneofs[oneof as usize].fields {
            if member != index {
                self.fields[member as usize] = None;
            }
        }
    }

    /// Clears `field`.
    pub fn clear_field(&mut self, field: &FieldDescriptor) {
        if !self.owns(field) {
            return;
        }
        if field.is_extension() {
            let index = field.index();
            self.extensions.retain(|(e, _)| *e != index);
        } else {
            self.fields[field.index() as usize] = None;
        }
    }

    /// The fields that are set, with their values, in declaration order
    /// (extensions after them).
    pub fn fields(&self) -> impl Iterator<Item = (FieldDescriptor, &Value)> + '_ {
        let declared = self
            .fields
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((self.descriptor.field_at(u32::try_from(i).ok()?), v.as_ref()?)));
        let pool = self.descriptor.pool();
        let extensions = self
            .extensions
            .iter()
            .map(move |(i, v)| (FieldDescriptor::extension(pool, *i), v));
        declared
            .chain(extensions)
            .filter(|(f, v)| f.has_presence() || !v.is_zero())
    }

    /// The set fields as [`DynamicMessage::fields`] gives them, by their
    /// tables (true for an extension): for the formats, which need no
    /// descriptor handles (each costs a reference count).
    #[cfg(feature = "json")]
    pub(crate) fn set_fields(&self) -> impl Iterator<Item = (&FieldData, &Value, bool)> + '_ {
        let tables = self.descriptor.tables();
        let declared = self
            .descriptor
            .data()
            .fields
            .iter()
            .zip(&self.fields)
            .filter_map(|(f, v)| Some((f, v.as_ref()?, false)));
        let extensions = self
            .extensions
            .iter()
            .map(|(i, v)| (&tables.extensions[*i as usize], v, true));
        declared
            .chain(extensions)
            .filter(|(f, v, _)| f.presence || !v.is_zero())
    }

    /// Checks that every `required` field is set, here and in the messages
    /// it holds.
    ///
    /// # Errors
    /// The first required field missing, by its field number.
    pub fn check_required(&self) -> Result<(), crate::DecodeError> {
        let data = self.descriptor.data();
        if !data.checks_required {
            return Ok(());
        }
        for (f, slot) in data.fields.iter().zip(&self.fields) {
            if f.cardinality == Cardinality::Required && slot.is_none() {
                return Err(crate::DecodeError::missing_required("", f.number));
            }
        }
        let nested = self
            .fields
            .iter()
            .flatten()
            .chain(self.extensions.iter().map(|(_, v)| v));
        for value in nested {
            match value {
                Value::Message(m) => m.check_required()?,
                Value::List(items) => items
                    .iter()
                    .filter_map(Value::as_message)
                    .try_for_each(Self::check_required)?,
                Value::Map(entries) => entries
                    .values()
                    .filter_map(Value::as_message)
                    .try_for_each(Self::check_required)?,
                _ => {}
            }
        }
        Ok(())
    }
}

impl fmt::Debug for DynamicMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct(self.descriptor.full_name());
        for (field, value) in self.fields() {
            s.field(field.name(), value);
        }
        if !self.unknown.is_empty() {
            s.field("unknown_fields", &self.unknown);
        }
        s.finish()
    }
}

#[cfg(test)]
mod tests {
    //! Dropping messages whose values own nothing skips their drop glue
    //! (an `unsafe` `set_len`): run under Miri by `make miri`.

    use std::vec;
    use std::vec::Vec;

    use super::{DynamicMessage, Value};
    use crate::reflect::DescriptorPool;

    /// A length-delimited field `number` holding `body`.
    fn field(number: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![number << 3 | 2, u8::try_from(body.len()).unwrap()];
        out.extend_from_slice(body);
        out
    }

    /// `message M { repeated int32 a = 1; repeated string s = 2; int64 n = 3; }`
    /// in a proto3 file, as an encoded `FileDescriptorSet`.
    fn set() -> Vec<u8> {
        let declare = |name: &[u8], number: u8, label: u8, ty: u8| {
            let mut f = field(1, name);
            f.extend([0x18, number, 0x20, label, 0x28, ty]);
            field(2, &f)
        };
        let mut message = field(1, b"M");
        message.extend(declare(b"a", 1, 3, 5));
        message.extend(declare(b"s", 2, 3, 9));
        message.extend(declare(b"n", 3, 1, 3));
        let mut file = field(1, b"m.proto");
        file.extend(field(4, &message));
        file.extend(field(12, b"proto3"));
        field(1, &file)
    }

    #[test]
    fn messages_drop_whatever_they_hold() {
        let pool = DescriptorPool::decode(&set()).unwrap();
        let ty = pool.get_message_by_name("M").unwrap();
        // Numbers only: the fast path. A packed run, a number.
        let numbers = [0x0a, 0x03, 0x01, 0x02, 0x03, 0x18, 0x07];
        let m = DynamicMessage::decode(ty.clone(), &numbers).unwrap();
        assert_eq!(m.get_by_name("n"), Some(&Value::I64(7)));
        drop(m);
        // Strings beside numbers: the drop glue frees them.
        let mixed = [0x0a, 0x01, 0x05, 0x12, 0x02, b'h', b'i', 0x12, 0x00, 0x18, 0x07];
        let m = DynamicMessage::decode(ty.clone(), &mixed).unwrap();
        let copy = m.clone();
        drop(m);
        assert_eq!(copy.encode_to_vec(), mixed);
        // A number set over a string by hand: the list is not all numbers.
        let mut odd = DynamicMessage::decode(ty, &numbers).unwrap();
        let a = odd.descriptor().get_field_by_name("a").unwrap();
        odd.set(&a, Value::List(vec![Value::I32(1)])).unwrap();
        drop(odd);
    }
}
