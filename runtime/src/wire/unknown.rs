//! Unknown fields: kept byte for byte and written back on encode.

use alloc::vec::Vec;

use super::records;
use super::varint;
use super::writer::Writer;

/// Fields a message did not recognise (and its extensions), in the order
/// they were read, as their original tag and value bytes (tags are
/// re-encoded in canonical form).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct UnknownFields {
    bytes: Vec<u8>,
}

impl UnknownFields {
    /// No unknown fields.
    #[must_use]
    pub const fn new() -> Self {
        Self { bytes: Vec::new() }
    }

    /// True when there are none.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The encoded size of all unknown fields.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The raw encoded fields.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Forgets all fields and keeps the allocation.
    pub fn clear(&mut self) {
        self.bytes.clear();
    }

    /// Appends one field: its tag, then its value bytes exactly as read.
    pub fn push_field(&mut self, tag: u32, value: &[u8]) {
        let tag = u64::from(tag);
        let tag_len = varint::len(tag);
        let start = self.bytes.len();
        self.bytes.resize(start + tag_len, 0);
        varint::encode_exact(tag, &mut self.bytes[start..]);
        self.bytes.extend_from_slice(value);
    }

    /// Appends fields already encoded (whole records, as an encoder wrote
    /// them).
    #[cfg(feature = "json")]
    pub(crate) fn extend_encoded(&mut self, records: &[u8]) {
        self.bytes.extend_from_slice(records);
    }

    /// Each field as `(tag, value bytes)`, in order. The bytes were validated when
    /// they were read; iteration stops at anything malformed added by hand.
    pub fn fields(&self) -> impl Iterator<Item = (u32, &[u8])> {
        let mut rest = &self.bytes[..];
        core::iter::from_fn(move || {
            let (tag, value, after) = records::next_raw(rest)?;
            rest = after;
            Some((tag, value))
        })
    }

    /// Keeps only the fields whose tag satisfies `keep`.
    pub fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let mut kept = UnknownFields::new();
        for (tag, value) in self.fields() {
            if keep(tag) {
                kept.push_field(tag, value);
            }
        }
        self.bytes = kept.bytes;
    }

    /// Writes the fields back (backwards writer: call before the known fields, so
    /// they come out last).
    #[inline]
    pub fn write(&self, w: &mut Writer<'_>) {
        if !self.bytes.is_empty() {
            w.put_slice(&self.bytes);
        }
    }
}

impl core::fmt::Debug for UnknownFields {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "UnknownFields({} bytes)", self.bytes.len())
    }
}
