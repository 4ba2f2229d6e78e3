//! Binary decoding of dynamic messages, driven by the pool's tables: a
//! field's number finds its index (by indexing for small numbers), and its
//! linked type says how to read each value.

use std::boxed::Box;
use std::collections::BTreeMap;
use std::vec::Vec;

use super::value::scalar_default;
use super::{DynamicMessage, MapKey, Value};
use crate::codec::packed::terminators;
use crate::codec::{Codec, Str};
use crate::reflect::pool::{Cardinality, DecodePath, FieldData, MessageData, Tables, Ty};
use crate::reflect::MessageDescriptor;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::{self, utf8, varint};
use crate::DecodeOptions;

/// What one value costs the allocation budget.
const VALUE_FOOTPRINT: usize = core::mem::size_of::<Value>();
const MESSAGE_FOOTPRINT: usize = core::mem::size_of::<DynamicMessage>();

impl DynamicMessage {
    /// Decodes a message of type `descriptor` from `buf`.
    ///
    /// # Errors
    /// As generated code's `decode`: malformed input, nesting deeper than
    /// the default recursion limit, a `required` field missing.
    pub fn decode(descriptor: MessageDescriptor, buf: &[u8]) -> Result<Self, DecodeError> {
        Self::decode_with(descriptor, buf, &DecodeOptions::default())
    }

    /// [`DynamicMessage::decode`] under the limits of `options`.
    ///
    /// # Errors
    /// As [`DynamicMessage::decode`], and the limits of `options`.
    pub fn decode_with(
        descriptor: MessageDescriptor,
        buf: &[u8],
        options: &DecodeOptions,
    ) -> Result<Self, DecodeError> {
        let mut message = Self::new(descriptor);
        message.merge_with(buf, options)?;
        Ok(message)
    }

    /// Merges `buf` into the message, as decoding merges.
    ///
    /// # Errors
    /// As [`DynamicMessage::decode`].
    pub fn merge(&mut self, buf: &[u8]) -> Result<(), DecodeError> {
        self.merge_with(buf, &DecodeOptions::default())
    }

    /// [`DynamicMessage::merge`] under the limits of `options`.
    ///
    /// # Errors
    /// As [`DynamicMessage::decode_with`].
    pub fn merge_with(&mut self, buf: &[u8], options: &DecodeOptions) -> Result<(), DecodeError> {
        self.merge_partial(buf, options)?;
        self.check_required()
    }

    /// Merges `buf` without checking `required` fields.
    ///
    /// # Errors
    /// Malformed input, or input beyond the limits of `options`.
    pub fn merge_partial(&mut self, buf: &[u8], options: &DecodeOptions) -> Result<(), DecodeError> {
        let r = Reader::with_budget(buf, options.allocation_budget(buf.len()));
        crate::message::decode::enter(buf.len(), r, options, "", |r, depth| self.merge_fields(r, depth))
    }

    /// Reads fields from `r` until it is empty.
    ///
    /// Nested messages recurse through here and [`read_message_field`]
    /// only, and both keep few locals: the other cases are functions of
    /// their own, off the recursion, so deep input stays within a small
    /// stack even in debug builds.
    fn merge_fields(&mut self, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        let DynamicMessage {
            descriptor,
            fields,
            extensions,
            unknown,
        } = self;
        let data = descriptor.data();
        while !r.is_empty() {
            let tag = r.read_tag()?;
            let Some(i) = data.field_index(wire::field_number(tag)) else {
                read_extension(descriptor, extensions, unknown, tag, r, depth)?;
                continue;
            };
            let field = &data.fields[i as usize];
            let slot = &mut fields[i as usize];
            let set = if tag != field.tag {
                read_general(descriptor, field, slot, unknown, tag, r, depth)?
            } else if field.path != DecodePath::General {
                read_plain(field, slot, r)?
            } else if let (Ty::Message(m), false) = (field.ty, field.is_map_in(descriptor.tables())) {
                let repeated = field.cardinality == Cardinality::Repeated;
                read_message_field(descriptor.pool(), m, repeated, slot, tag, r, depth)?;
                true
            } else {
                read_general(descriptor, field, slot, unknown, tag, r, depth)?
            };
            if set && field.oneof.is_some() {
                clear_oneof(data, fields, i);
            }
        }
        Ok(())
    }
}

/// Clears the other members of the oneof of field `i`.
#[inline(never)]
fn clear_oneof(data: &MessageData, fields: &mut [Option<Value>], i: u32) {
    if let Some(oneof) = data.fields[i as usize].oneof {
        for &other in &data.oneofs[oneof as usize].fields {
            if other != i {
                fields[other as usize] = None;
            }
        }
    }
}

/// A record of `field` for the general path: maps, closed enums, packed
/// runs, wire types other than the field's own.
#[inline(never)]
fn read_general(
    descriptor: &MessageDescriptor,
    field: &FieldData,
    slot: &mut Option<Value>,
    unknown: &mut UnknownFields,
    tag: u32,
    r: &mut Reader<'_>,
    depth: u32,
) -> Result<bool, DecodeError> {
    let tables = descriptor.tables();
    Field {
        tables,
        descriptor,
        field,
    }
    .read(slot, tag, r, depth, unknown)
}

/// A record whose number the type does not declare: an extension the pool
/// knows, or an unknown field.
#[inline(never)]
fn read_extension(
    descriptor: &MessageDescriptor,
    extensions: &mut Vec<(u32, Value)>,
    unknown: &mut UnknownFields,
    tag: u32,
    r: &mut Reader<'_>,
    depth: u32,
) -> Result<(), DecodeError> {
    let tables = descriptor.tables();
    let key = (descriptor.index(), wire::field_number(tag));
    let Some(&e) = tables.extension_numbers.get(&key) else {
        return r.skip_field(tag, depth, unknown);
    };
    let field = &tables.extensions[e as usize];
    let at = extensions.iter().position(|(x, _)| *x == e);
    let mut slot = at.map(|at| core::mem::replace(&mut extensions[at].1, Value::Bool(false)));
    let read = Field {
        tables,
        descriptor,
        field,
    }
    .read(&mut slot, tag, r, depth, unknown);
    match (at, slot) {
        (Some(at), Some(v)) => extensions[at].1 = v,
        (None, Some(v)) => extensions.push((e, v)),
        (Some(at), None) => drop(extensions.remove(at)),
        (None, None) => {}
    }
    read.map(drop)
}

/// A scalar record on the field's own decode path: the value replaces the
/// slot's or joins its list. True: the field is set.
#[cfg_attr(not(debug_assertions), inline(always))]
fn read_plain(field: &FieldData, slot: &mut Option<Value>, r: &mut Reader<'_>) -> Result<bool, DecodeError> {
    let value = read_scalar(field.ty, field.utf8, r)?;
    if field.path == DecodePath::Push {
        r.charge(VALUE_FOOTPRINT)?;
        list(slot).push(value);
    } else {
        put(slot, value);
    }
    Ok(true)
}

/// Stores `value` in `slot`. The value it replaces is dropped only if it
/// owns memory: a scalar (the common case, a field seen twice) or an empty
/// slot is overwritten without a call into `Value`'s drop glue.
#[inline(always)]
fn put(slot: &mut Option<Value>, value: Value) {
    let old = slot.replace(value);
    if old.as_ref().is_some_and(|v| !v.is_inline()) {
        drop(old);
    } else {
        // Nothing to free: forgetting it skips the drop glue's call.
        core::mem::forget(old);
    }
}

/// A message record (tag read) of a message field of type `m`: merged into
/// the message in `slot`, or for a repeated field a new element.
fn read_message_field(
    pool: &crate::reflect::DescriptorPool,
    m: u32,
    repeated: bool,
    slot: &mut Option<Value>,
    tag: u32,
    r: &mut Reader<'_>,
    depth: u32,
) -> Result<(), DecodeError> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(r.error(DecodeErrorKind::RecursionLimit));
    };
    r.charge(MESSAGE_FOOTPRINT)?;
    let mut inner = if wire::wire_type(tag) == wire::START_GROUP {
        r.read_group(wire::field_number(tag), depth)?
    } else {
        r.read_nested()?
    };
    let message = message_in(pool, m, repeated, slot);
    let merged = message.merge_fields(&mut inner, depth);
    r.absorb(&inner);
    merged.map_err(|e| e.within("", inner.field()))
}

/// The message a message record merges into: the one in `slot` (made if
/// absent), or a new element of the list in `slot`.
#[inline(never)]
fn message_in<'s>(
    pool: &crate::reflect::DescriptorPool,
    m: u32,
    repeated: bool,
    slot: &'s mut Option<Value>,
) -> &'s mut DynamicMessage {
    let fresh = || Box::new(DynamicMessage::new(MessageDescriptor::new(pool, m)));
    if repeated {
        let items = list(slot);
        items.push(Value::Message(fresh()));
        return match items.last_mut() {
            Some(Value::Message(message)) => message,
            _ => unreachable!("just pushed"),
        };
    }
    match slot {
        Some(Value::Message(message)) => message,
        _ => {
            *slot = Some(Value::Message(fresh()));
            match slot {
                Some(Value::Message(message)) => message,
                _ => unreachable!("just set"),
            }
        }
    }
}

/// One field being read, with the tables its type is linked in.
struct Field<'t> {
    tables: &'t Tables,
    descriptor: &'t MessageDescriptor,
    field: &'t FieldData,
}

impl Field<'_> {
    /// Reads one record of the field (tag read) into `slot`: true if it set
    /// the field (for oneofs), false if the record went to `unknown`.
    fn read(
        &self,
        slot: &mut Option<Value>,
        tag: u32,
        r: &mut Reader<'_>,
        depth: u32,
        unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        let f = self.field;
        let wire_type = wire::wire_type(tag);
        if wire_type == self.field.wire_type() {
            if f.cardinality != Cardinality::Repeated {
                return self.read_singular(slot, tag, r, depth, unknown);
            }
            if f.is_map_in(self.tables) {
                return self.read_entry(slot, tag, r, depth, unknown);
            }
            r.charge(VALUE_FOOTPRINT)?;
            let value = match f.ty {
                Ty::Message(m) => {
                    read_message_field(self.descriptor.pool(), m, true, slot, tag, r, depth)?;
                    return Ok(true);
                }
                ty => match read_scalar(ty, f.utf8, r)? {
                    Value::EnumNumber(n) if !self.known_enum(n) => {
                        push_varint_field(unknown, tag, n);
                        return Ok(false);
                    }
                    v => v,
                },
            };
            list(slot).push(value);
            return Ok(true);
        }
        if wire_type == wire::LEN && f.cardinality == Cardinality::Repeated && f.ty.packable() {
            self.read_packed(slot, tag, r, unknown)?;
            return Ok(true);
        }
        r.skip_field(tag, depth, unknown)?;
        Ok(false)
    }

    /// True unless the field is a closed enum that does not name `number`.
    fn known_enum(&self, number: i32) -> bool {
        known_enum(self.tables, self.field.ty, number)
    }

    fn read_singular(
        &self,
        slot: &mut Option<Value>,
        tag: u32,
        r: &mut Reader<'_>,
        depth: u32,
        unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        if let Ty::Message(m) = self.field.ty {
            read_message_field(self.descriptor.pool(), m, false, slot, tag, r, depth)?;
            return Ok(true);
        }
        match read_scalar(self.field.ty, self.field.utf8, r)? {
            Value::EnumNumber(n) if !self.known_enum(n) => {
                push_varint_field(unknown, tag, n);
                Ok(false)
            }
            v => {
                put(slot, v);
                Ok(true)
            }
        }
    }

    /// Reads a packed run of scalars.
    fn read_packed(
        &self,
        slot: &mut Option<Value>,
        tag: u32,
        r: &mut Reader<'_>,
        unknown: &mut UnknownFields,
    ) -> Result<(), DecodeError> {
        let mut run = r.read_nested()?;
        let width = match self.field.wire_type() {
            wire::FIXED32 => 4,
            wire::FIXED64 => 8,
            _ => 0,
        };
        let len = run.rest().len();
        if width != 0 && len % width != 0 {
            return Err(run.error(DecodeErrorKind::PackedLengthMismatch));
        }
        // Each varint ends with the one byte of it below 0x80.
        let count = len.checked_div(width).unwrap_or_else(|| terminators(run.rest()));
        r.charge(count.saturating_mul(VALUE_FOOTPRINT))?;
        let items = list(slot);
        items.reserve(count);
        if matches!(self.field.ty, Ty::Enum(_)) {
            let element_tag = wire::tag(wire::field_number(tag), self.field.wire_type());
            while !run.is_empty() {
                match read_scalar(self.field.ty, false, &mut run)? {
                    Value::EnumNumber(n) if !self.known_enum(n) => push_varint_field(unknown, element_tag, n),
                    v => items.push(v),
                }
            }
            return Ok(());
        }
        read_run(self.field.ty, &mut run, count, items)
    }

    /// Reads a map entry into the map in `slot`. A closed enum value the
    /// enum does not name sends the whole entry to the unknown fields.
    ///
    /// The entry's two fields are read from the tables directly: an entry
    /// is not a message of its own here, so it costs no descriptor handle.
    fn read_entry(
        &self,
        slot: &mut Option<Value>,
        tag: u32,
        r: &mut Reader<'_>,
        depth: u32,
        unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        let Ty::Message(entry) = self.field.ty else {
            unreachable!("a map field's type is its entry message")
        };
        let Some(depth) = depth.checked_sub(1) else {
            return Err(r.error(DecodeErrorKind::RecursionLimit));
        };
        r.charge(2 * VALUE_FOOTPRINT)?;
        let start = r.rest();
        let mut inner = r.read_nested()?;
        let entry = &self.tables.messages[entry as usize];
        let (key_field, value_field) = (entry.field(1), entry.field(2));
        let (mut key, mut value) = (None, None);
        // A closed enum's unnamed value (the last one counts): the entry is
        // kept whole, unknown.
        let mut lost = false;
        while !inner.is_empty() {
            let t = inner.read_tag()?;
            let field = match wire::field_number(t) {
                1 => key_field,
                2 => value_field,
                _ => None,
            };
            let Some(field) = field.filter(|f| f.wire_type() == wire::wire_type(t)) else {
                inner.skip_value(t, depth)?;
                continue;
            };
            if let Ty::Message(m) = field.ty {
                read_message_field(self.descriptor.pool(), m, false, &mut value, t, &mut inner, depth)?;
                continue;
            }
            let read = read_scalar(field.ty, field.utf8, &mut inner)?;
            if field.number == 1 {
                key = Some(read);
                continue;
            }
            lost = matches!(read, Value::EnumNumber(n) if !known_enum(self.tables, field.ty, n));
            if !lost {
                value = Some(read);
            }
        }
        r.absorb(&inner);
        if lost {
            let consumed = start.len() - r.rest().len();
            unknown.push_field(tag, &start[..consumed]);
            return Ok(false);
        }
        let key = key
            .or_else(|| key_field.map(scalar_default))
            .and_then(MapKey::from_value);
        let value = value.or_else(|| value_field.map(|f| self.entry_default(f)));
        map(slot).insert(key.unwrap_or(MapKey::Bool(false)), value.unwrap_or(Value::Bool(false)));
        Ok(true)
    }

    /// A map value's default, for an entry that lacks it.
    fn entry_default(&self, field: &FieldData) -> Value {
        match field.ty {
            Ty::Message(m) => Value::Message(Box::new(DynamicMessage::new(MessageDescriptor::new(
                self.descriptor.pool(),
                m,
            )))),
            Ty::Enum(e) => Value::EnumNumber(self.tables.enums[e as usize].values.first().map_or(0, |v| v.1)),
            _ => scalar_default(field),
        }
    }
}

/// True unless `ty` is a closed enum that does not name `number`.
fn known_enum(tables: &Tables, ty: Ty, number: i32) -> bool {
    match ty {
        Ty::Enum(e) => {
            let e = &tables.enums[e as usize];
            !e.closed || e.values.iter().any(|v| v.1 == number)
        }
        _ => true,
    }
}

/// Reads a packed run of a numeric type (not an enum) into `items`: one
/// loop per type, so the type is matched once per run, not per value.
/// `count` is the number of values in the run: fixed-width values are read
/// in one pass over their bytes, and so are varints when each is one byte
/// (the count is the length).
#[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // protobuf's conversions
fn read_run(ty: Ty, run: &mut Reader<'_>, count: usize, items: &mut Vec<Value>) -> Result<(), DecodeError> {
    let bytes = run.rest();
    macro_rules! varints {
        (|$v:ident| $value:expr) => {
            if count == bytes.len() {
                items.extend(bytes.iter().map(|&b| {
                    let $v = u64::from(b);
                    $value
                }));
            } else {
                while !run.is_empty() {
                    let $v = run.read_varint()?;
                    items.push($value);
                }
            }
        };
    }
    // The caller checked that the length is a multiple of the width.
    macro_rules! fixed {
        ($width:literal, $int:ty, |$v:ident| $value:expr) => {
            items.extend(bytes.chunks_exact($width).map(|chunk| {
                let $v = <$int>::from_le_bytes(chunk.try_into().unwrap_or_default());
                $value
            }))
        };
    }
    match ty {
        Ty::Bool => varints!(|v| Value::Bool(v != 0)),
        Ty::Int32 => varints!(|v| Value::I32(v as i32)),
        Ty::Int64 => varints!(|v| Value::I64(v as i64)),
        Ty::Uint32 => varints!(|v| Value::U32(v as u32)),
        Ty::Uint64 => varints!(|v| Value::U64(v)),
        Ty::Sint32 => varints!(|v| Value::I32(varint::unzigzag32(v as u32))),
        Ty::Sint64 => varints!(|v| Value::I64(varint::unzigzag64(v))),
        Ty::Fixed32 => fixed!(4, u32, |v| Value::U32(v)),
        Ty::Sfixed32 => fixed!(4, u32, |v| Value::I32(v as i32)),
        Ty::Float => fixed!(4, u32, |v| Value::F32(f32::from_bits(v))),
        Ty::Fixed64 => fixed!(8, u64, |v| Value::U64(v)),
        Ty::Sfixed64 => fixed!(8, u64, |v| Value::I64(v as i64)),
        Ty::Double => fixed!(8, u64, |v| Value::F64(f64::from_bits(v))),
        // Not packable: the caller reads these one at a time.
        Ty::String | Ty::Bytes | Ty::Message(_) | Ty::Enum(_) => {
            while !run.is_empty() {
                items.push(read_scalar(ty, false, run)?);
            }
        }
    }
    Ok(())
}

/// The list in `slot`, made if absent.
#[inline]
fn list(slot: &mut Option<Value>) -> &mut Vec<Value> {
    if !matches!(slot, Some(Value::List(_))) {
        *slot = Some(Value::List(Vec::new()));
    }
    match slot {
        Some(Value::List(items)) => items,
        _ => unreachable!("just made"),
    }
}

/// The map in `slot`, made if absent.
fn map(slot: &mut Option<Value>) -> &mut BTreeMap<MapKey, Value> {
    if !matches!(slot, Some(Value::Map(_))) {
        *slot = Some(Value::Map(BTreeMap::new()));
    }
    match slot {
        Some(Value::Map(entries)) => entries,
        _ => unreachable!("just made"),
    }
}

/// Keeps an enum number a closed enum does not name as an unknown varint
/// field, as generated code does.
fn push_varint_field(unknown: &mut UnknownFields, tag: u32, number: i32) {
    let tag = wire::tag(wire::field_number(tag), wire::VARINT);
    // Sign-extended, as int32 values are written.
    let v = i64::from(number) as u64;
    let mut buf = [0; 10];
    let n = varint::len(v);
    varint::encode_exact(v, &mut buf[..n]);
    unknown.push_field(tag, &buf[..n]);
}

/// Reads one scalar of type `ty` (not a message). Inlined into the decode
/// loop in optimised builds only: in debug builds its locals would grow
/// every level's frame of a deeply nested decode.
#[cfg_attr(not(debug_assertions), inline(always))]
#[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // protobuf's conversions
fn read_scalar(ty: Ty, check_utf8: bool, r: &mut Reader<'_>) -> Result<Value, DecodeError> {
    Ok(match ty {
        Ty::Bool => Value::Bool(r.read_varint()? != 0),
        Ty::Int32 => Value::I32(r.read_varint()? as i32),
        Ty::Int64 => Value::I64(r.read_varint()? as i64),
        Ty::Uint32 => Value::U32(r.read_varint()? as u32),
        Ty::Uint64 => Value::U64(r.read_varint()?),
        Ty::Sint32 => Value::I32(varint::unzigzag32(r.read_varint()? as u32)),
        Ty::Sint64 => Value::I64(varint::unzigzag64(r.read_varint()?)),
        Ty::Enum(_) => Value::EnumNumber(r.read_varint()? as i32),
        Ty::Fixed32 => Value::U32(r.read_fixed32()?),
        Ty::Sfixed32 => Value::I32(r.read_fixed32()? as i32),
        Ty::Float => Value::F32(f32::from_bits(r.read_fixed32()?)),
        Ty::Fixed64 => Value::U64(r.read_fixed64()?),
        Ty::Sfixed64 => Value::I64(r.read_fixed64()? as i64),
        Ty::Double => Value::F64(f64::from_bits(r.read_fixed64()?)),
        Ty::Bytes => Value::Bytes(r.read_bytes()?.to_vec()),
        // Copied and checked in one pass, as generated code reads strings.
        Ty::String if check_utf8 => Value::String(<Str as Codec>::read(r, 0)?),
        Ty::String => {
            let bytes = r.read_bytes()?;
            // Not checked: text that is not UTF-8 is kept as bytes.
            match utf8::as_utf8(bytes, r.offset()) {
                Ok(text) => Value::String(text.into()),
                Err(_) => Value::Bytes(bytes.to_vec()),
            }
        }
        Ty::Message(_) => unreachable!("messages are read by read_message_field"),
    })
}
