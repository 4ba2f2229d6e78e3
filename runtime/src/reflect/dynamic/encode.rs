//! Binary encoding of dynamic messages: sized once, then written back to
//! front as generated code writes, so a nested message's length is known
//! when its prefix is written.
//!
//! Fields go in number order, then extensions in number order, then the
//! unknown fields as read. Map entries always hold key and value, as the
//! C++ and Go implementations (and fastrs's generated code) write them.

use std::vec::Vec;

use super::{DynamicMessage, MapKey, Value};
use crate::reflect::pool::{Cardinality, FieldData, Tables, Ty};
use crate::wire::writer::Writer;
use crate::wire::{self, varint};

impl DynamicMessage {
    /// The encoded length in bytes.
    #[must_use]
    pub fn encoded_len(&self) -> usize {
        let tables = self.descriptor.tables();
        let data = self.descriptor.data();
        let fields = data.fields.iter().zip(&self.fields);
        let declared = fields.filter_map(|(f, v)| Some(field_size(tables, f, v.as_ref()?)));
        let extensions = self
            .extensions
            .iter()
            .map(|(e, v)| field_size(tables, &tables.extensions[*e as usize], v));
        self.unknown.len() + declared.sum::<usize>() + extensions.sum::<usize>()
    }

    /// Encodes into a new vector of exactly [`DynamicMessage::encoded_len`]
    /// bytes. Required fields are not checked.
    #[must_use]
    pub fn encode_to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_append(&mut out);
        out
    }

    /// Appends the encoding to `out`.
    pub fn encode_append(&self, out: &mut Vec<u8>) {
        let size = self.encoded_len();
        out.reserve(size);
        let start = out.len();
        out.resize(start + size, 0);
        let mut w = Writer::new(&mut out[start..]);
        self.write_backward(&mut w);
        debug_assert_eq!(w.remaining(), 0, "encoded_len and the writer agree");
    }

    fn write_backward(&self, w: &mut Writer<'_>) {
        let tables = self.descriptor.tables();
        w.put_slice(self.unknown.as_bytes());
        if !self.extensions.is_empty() {
            let mut extensions: Vec<_> = self
                .extensions
                .iter()
                .map(|(e, v)| (&tables.extensions[*e as usize], v))
                .collect();
            extensions.sort_by_key(|(f, _)| f.number);
            for (field, value) in extensions.into_iter().rev() {
                write_field(tables, field, value, w);
            }
        }
        let data = self.descriptor.data();
        for &i in data.by_number.iter().rev() {
            if let Some(value) = &self.fields[i as usize] {
                write_field(tables, &data.fields[i as usize], value, w);
            }
        }
    }
}

fn tag_len(field: &FieldData) -> usize {
    varint::len(u64::from(field.number) << 3)
}

/// True if a singular value is left out: a field without presence at zero.
fn skipped(field: &FieldData, value: &Value) -> bool {
    !field.presence && field.cardinality != Cardinality::Repeated && value.is_zero()
}

fn field_size(tables: &Tables, field: &FieldData, value: &Value) -> usize {
    match value {
        Value::List(items) if field.packed => {
            if items.is_empty() {
                return 0;
            }
            let body: usize = items.iter().map(|v| value_size(field, v)).sum();
            tag_len(field) + varint::len(body as u64) + body
        }
        Value::List(items) => items.iter().map(|v| tag_len(field) + value_size(field, v)).sum(),
        Value::Map(entries) => {
            let (key, val) = entry_fields(tables, field);
            entries
                .iter()
                .map(|(k, v)| {
                    let body = 1 + key_size(key, k) + 1 + value_size(val, v);
                    tag_len(field) + varint::len(body as u64) + body
                })
                .sum()
        }
        v if skipped(field, v) => 0,
        v => tag_len(field) + value_size(field, v),
    }
}

/// The key and value fields of a map field's entry type.
fn entry_fields<'t>(tables: &'t Tables, field: &FieldData) -> (&'t FieldData, &'t FieldData) {
    let Ty::Message(entry) = field.ty else {
        unreachable!("a map field's type is its entry message")
    };
    let entry = &tables.messages[entry as usize];
    let find = |n| &entry.fields[entry.field_index(n).expect("map entries declare key and value") as usize];
    (find(1), find(2))
}

/// The size of one value, without its tag (with the END_GROUP tag of a
/// group).
#[allow(clippy::cast_sign_loss)] // protobuf's conversions
fn value_size(field: &FieldData, value: &Value) -> usize {
    match *value {
        Value::Bool(_) => 1,
        Value::I32(v) | Value::EnumNumber(v) => match field.ty {
            Ty::Sint32 => varint::len(u64::from(varint::zigzag32(v))),
            Ty::Sfixed32 => 4,
            _ => varint::len(i64::from(v) as u64),
        },
        Value::I64(v) => match field.ty {
            Ty::Sint64 => varint::len(varint::zigzag64(v)),
            Ty::Sfixed64 => 8,
            _ => varint::len(v as u64),
        },
        Value::U32(_) if field.ty == Ty::Fixed32 => 4,
        Value::U32(v) => varint::len(u64::from(v)),
        Value::U64(_) if field.ty == Ty::Fixed64 => 8,
        Value::U64(v) => varint::len(v),
        Value::F32(_) => 4,
        Value::F64(_) => 8,
        Value::String(ref s) => varint::len(s.len() as u64) + s.len(),
        Value::Bytes(ref b) => varint::len(b.len() as u64) + b.len(),
        Value::Message(ref m) if field.delimited => m.encoded_len() + tag_len(field),
        Value::Message(ref m) => {
            let len = m.encoded_len();
            varint::len(len as u64) + len
        }
        Value::List(_) | Value::Map(_) => 0,
    }
}

fn write_field(tables: &Tables, field: &FieldData, value: &Value, w: &mut Writer<'_>) {
    let tag = u64::from(wire::tag(field.number, field.wire_type()));
    match value {
        Value::List(items) if field.packed => {
            if items.is_empty() {
                return;
            }
            let end = w.remaining();
            for v in items.iter().rev() {
                write_value(field, v, w);
            }
            w.put_len_since(end);
            w.put_varint(u64::from(wire::tag(field.number, wire::LEN)));
        }
        Value::List(items) => {
            for v in items.iter().rev() {
                write_value(field, v, w);
                w.put_varint(tag);
            }
        }
        Value::Map(entries) => {
            let (key, val) = entry_fields(tables, field);
            for (k, v) in entries.iter().rev() {
                let end = w.remaining();
                write_value(val, v, w);
                w.put_varint(u64::from(wire::tag(2, val.wire_type())));
                write_key(key, k, w);
                w.put_varint(u64::from(wire::tag(1, key.wire_type())));
                w.put_len_since(end);
                w.put_varint(tag);
            }
        }
        v if skipped(field, v) => {}
        v => {
            write_value(field, v, w);
            w.put_varint(tag);
        }
    }
}

/// Writes one value, without its tag (with a group's END_GROUP tag).
#[allow(clippy::cast_sign_loss)] // protobuf's conversions
fn write_value(field: &FieldData, value: &Value, w: &mut Writer<'_>) {
    match *value {
        Value::Bool(v) => w.put_u8(u8::from(v)),
        Value::I32(v) | Value::EnumNumber(v) => match field.ty {
            Ty::Sint32 => w.put_varint(u64::from(varint::zigzag32(v))),
            Ty::Sfixed32 => w.put_fixed32(v as u32),
            _ => w.put_varint(i64::from(v) as u64),
        },
        Value::I64(v) => match field.ty {
            Ty::Sint64 => w.put_varint(varint::zigzag64(v)),
            Ty::Sfixed64 => w.put_fixed64(v as u64),
            _ => w.put_varint(v as u64),
        },
        Value::U32(v) if field.ty == Ty::Fixed32 => w.put_fixed32(v),
        Value::U32(v) => w.put_varint(u64::from(v)),
        Value::U64(v) if field.ty == Ty::Fixed64 => w.put_fixed64(v),
        Value::U64(v) => w.put_varint(v),
        Value::F32(v) => w.put_fixed32(v.to_bits()),
        Value::F64(v) => w.put_fixed64(v.to_bits()),
        Value::String(ref s) => put_len_delimited(s.as_bytes(), w),
        Value::Bytes(ref b) => put_len_delimited(b, w),
        Value::Message(ref m) if field.delimited => {
            w.put_varint(u64::from(wire::tag(field.number, wire::END_GROUP)));
            m.write_backward(w);
        }
        Value::Message(ref m) => {
            let end = w.remaining();
            m.write_backward(w);
            w.put_len_since(end);
        }
        Value::List(_) | Value::Map(_) => {}
    }
}

fn put_len_delimited(bytes: &[u8], w: &mut Writer<'_>) {
    w.put_slice(bytes);
    w.put_varint(bytes.len() as u64);
}

/// [`value_size`] of a map key, without copying a string key.
fn key_size(field: &FieldData, key: &MapKey) -> usize {
    match key {
        MapKey::String(s) => varint::len(s.len() as u64) + s.len(),
        other => value_size(field, &other.to_value()),
    }
}

/// [`write_value`] of a map key, without copying a string key.
fn write_key(field: &FieldData, key: &MapKey, w: &mut Writer<'_>) {
    match key {
        MapKey::String(s) => put_len_delimited(s.as_bytes(), w),
        other => write_value(field, &other.to_value(), w),
    }
}
