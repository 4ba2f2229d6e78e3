//! Unknown fields: kept byte for byte and written back on encode. Also where a
//! cleared message keeps its old values' allocations for the next decode.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::message::Message;
use crate::reader::Reader;
use crate::varint;
use crate::wire::DEFAULT_RECURSION_LIMIT;
use crate::writer::Writer;

/// Fields a message did not recognise, in the order they were read, as their
/// original tag and value bytes (tags are re-encoded in canonical form).
///
/// It also keeps, out of sight, the strings, bytes and nested messages that
/// `clear()` took out of repeated, optional, oneof and map fields of its
/// message (and values a decode replaced), and hands them back to the next
/// decode: a cleared message decodes again without allocating. They are not
/// part of the value (equality, hashing, cloning and `Debug` ignore them) and
/// are freed with the message.
#[derive(Default)]
pub struct UnknownFields {
    bytes: Vec<u8>,
    spare: Option<Box<sealed::Spare>>,
}

/// A buffer type `UnknownFields` can keep for reuse: `String`, `Vec<u8>` and
/// [`LaxString`](crate::LaxString).
pub trait Reusable: Default + sealed::Pooled {}

impl Reusable for String {}
impl Reusable for Vec<u8> {}
impl Reusable for crate::LaxString {}

mod sealed {
    use alloc::string::String;
    use alloc::vec::Vec;

    /// Buffers kept for reuse.
    #[derive(Default)]
    pub struct Spare {
        strings: Vec<String>,
        bytes: Vec<Vec<u8>>,
        lax_strings: Vec<crate::LaxString>,
        /// Kept messages, one `Vec<M>` per message type `M`.
        pub(crate) messages: Vec<(core::any::TypeId, alloc::boxed::Box<dyn core::any::Any + Send + Sync>)>,
    }

    /// Where a buffer type is kept; not implementable outside this crate.
    pub trait Pooled: Sized {
        fn pool(spare: &mut Spare) -> &mut Vec<Self>;
        fn empty(&mut self);
    }

    impl Pooled for String {
        fn pool(spare: &mut Spare) -> &mut Vec<Self> {
            &mut spare.strings
        }
        fn empty(&mut self) {
            self.clear();
        }
    }

    impl Pooled for Vec<u8> {
        fn pool(spare: &mut Spare) -> &mut Vec<Self> {
            &mut spare.bytes
        }
        fn empty(&mut self) {
            self.clear();
        }
    }

    impl Pooled for crate::LaxString {
        fn pool(spare: &mut Spare) -> &mut Vec<Self> {
            &mut spare.lax_strings
        }
        fn empty(&mut self) {
            self.clear();
        }
    }
}

impl Clone for UnknownFields {
    fn clone(&self) -> Self {
        Self {
            bytes: self.bytes.clone(),
            spare: None,
        }
    }
}

impl PartialEq for UnknownFields {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for UnknownFields {}

impl core::hash::Hash for UnknownFields {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.bytes.hash(state);
    }
}

impl UnknownFields {
    /// No unknown fields.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            bytes: Vec::new(),
            spare: None,
        }
    }

    /// Keeps the buffers of `values` for reuse and empties it (its own
    /// capacity stays). For generated `clear()`.
    #[doc(hidden)]
    #[doc(hidden)]
    pub fn keep_all<T: Reusable>(&mut self, values: &mut Vec<T>) {
        if !values.is_empty() {
            T::pool(self.spare.get_or_insert_with(Box::default)).append(values);
        }
    }

    /// Keeps each buffer of `values` (the keys or values of a drained map) for
    /// reuse, reserving once. For generated `clear()`.
    #[doc(hidden)]
    #[doc(hidden)]
    pub fn keep_each<T: Reusable>(&mut self, values: impl Iterator<Item = T>) {
        T::pool(self.spare.get_or_insert_with(Box::default)).extend(values);
    }

    /// Keeps one buffer for reuse. For generated `clear()`.
    #[doc(hidden)]
    #[doc(hidden)]
    pub fn keep<T: Reusable>(&mut self, value: T) {
        T::pool(self.spare.get_or_insert_with(Box::default)).push(value);
    }

    /// Keeps a message (a nested field's value) for reuse. For generated `clear()`.
    #[doc(hidden)]
    #[doc(hidden)]
    pub fn keep_message<M: Message + 'static>(&mut self, message: M) {
        self.message_pool::<M>().push(message);
    }

    /// Keeps the messages of a repeated field for reuse and empties it. For
    /// generated `clear()`.
    #[doc(hidden)]
    #[doc(hidden)]
    pub fn keep_messages<M: Message + 'static>(&mut self, values: &mut Vec<M>) {
        if !values.is_empty() {
            self.message_pool::<M>().append(values);
        }
    }

    /// A kept message, cleared (which in turn keeps its own buffers), or a
    /// new one. For generated decoders.
    #[doc(hidden)]
    #[inline]
    #[doc(hidden)]
    pub fn spare_message<M: Message + 'static>(&mut self) -> M {
        let kept = self.spare.as_mut().and_then(|spare| {
            let id = core::any::TypeId::of::<M>();
            let (_, pool) = spare.messages.iter_mut().find(|(t, _)| *t == id)?;
            pool.downcast_mut::<Vec<M>>()?.pop()
        });
        match kept {
            Some(mut message) => {
                message.clear();
                message
            }
            None => M::default(),
        }
    }

    fn message_pool<M: Message + 'static>(&mut self) -> &mut Vec<M> {
        let spare = self.spare.get_or_insert_with(Box::default);
        let id = core::any::TypeId::of::<M>();
        let at = match spare.messages.iter().position(|(t, _)| *t == id) {
            Some(at) => at,
            None => {
                spare.messages.push((id, Box::new(Vec::<M>::new())));
                spare.messages.len() - 1
            }
        };
        match spare.messages[at].1.downcast_mut::<Vec<M>>() {
            Some(pool) => pool,
            None => unreachable!("each pool is keyed by the TypeId of its element type"),
        }
    }

    /// A kept buffer, emptied, or a new one. For generated decoders.
    #[doc(hidden)]
    #[inline]
    #[doc(hidden)]
    pub fn spare<T: Reusable>(&mut self) -> T {
        match self.spare.as_mut().and_then(|spare| T::pool(spare).pop()) {
            Some(mut buffer) => {
                buffer.empty();
                buffer
            }
            None => T::default(),
        }
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

    /// Each field as `(tag, value bytes)`, in order. The bytes were validated when
    /// they were read; iteration stops at anything malformed added by hand.
    pub fn fields(&self) -> impl Iterator<Item = (u32, &[u8])> {
        let mut r = Reader::new(&self.bytes);
        core::iter::from_fn(move || {
            if r.is_empty() {
                return None;
            }
            let tag = r.read_tag().ok()?;
            let start = r.rest();
            r.skip_value(tag, DEFAULT_RECURSION_LIMIT).ok()?;
            Some((tag, &start[..start.len() - r.rest().len()]))
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
