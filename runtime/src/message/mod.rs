//! The [`Message`] trait every generated message implements, and what
//! messages are made of above the wire: decode options and their one entry
//! point, enums, strings that may not be UTF-8, embedded descriptors, and
//! the buffers `clear` keeps for reuse.

pub(crate) mod decode;
pub(crate) mod described;
pub(crate) mod enumeration;
pub(crate) mod lax_string;
pub(crate) mod mask;
pub(crate) mod options;
pub(crate) mod recycle;

use alloc::vec::Vec;

use crate::message::options::DecodeOptions;
use crate::wire::error::{DecodeError, EncodeError};
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::writer::Writer;

/// A protobuf message: exact sizing, encoding into a caller's buffer, and
/// merging decode.
///
/// Generated code implements the four required methods; the rest are built on
/// them. Encoding computes `size()` once and then writes back to front into an
/// exactly sized slice, so its cost is linear in the output at any nesting depth
/// and it allocates nothing beyond the output itself.
pub trait Message: Default + core::fmt::Debug + Send + Sync {
    /// The full protobuf name, such as `acme.shop.v2.Order`.
    const FULL_NAME: &'static str;

    /// Bytes a new value of this type allocates, charged against the
    /// allocation budget of [`DecodeOptions`] when decoding creates one.
    const FOOTPRINT: usize = core::mem::size_of::<Self>();

    /// The exact number of bytes [`Message::fast_write`] writes.
    fn size(&self) -> usize;

    /// Writes the encoding backwards into the free space of `w` (low level: use
    /// [`Message::fast_write`] or [`Message::encode_to_vec`]).
    fn write_backward(&self, w: &mut Writer<'_>);

    /// Merges every field in `r` into `self`, allowing `depth` more levels of
    /// nested messages and groups (low level: use [`Message::fast_read`]).
    ///
    /// # Errors
    /// Malformed input; `self` then holds the fields merged before the error.
    fn merge_from(&mut self, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError>;

    /// Resets every field to its default, keeping allocated capacity where the
    /// field owns a buffer (strings, bytes, vectors, maps, unknown fields).
    fn clear(&mut self);

    /// The fields this message's schema does not know (and extensions).
    fn unknown_fields(&self) -> &UnknownFields;

    /// Mutable access to the unknown fields (and extensions).
    fn unknown_fields_mut(&mut self) -> &mut UnknownFields;

    /// Checks that every proto2 `required` field is set, in this message and in
    /// every message it holds. Generated only where the schema has such fields.
    ///
    /// # Errors
    /// [`DecodeErrorKind::MissingRequired`](crate::DecodeErrorKind::MissingRequired),
    /// naming the first missing field.
    fn check_required(&self) -> Result<(), DecodeError> {
        Ok(())
    }

    /// Encodes into the front of `buf` and returns the number of bytes written,
    /// which is `self.size()`. Allocates nothing.
    ///
    /// # Panics
    /// If `buf` is shorter than `self.size()`.
    #[track_caller]
    fn fast_write(&self, buf: &mut [u8]) -> usize {
        self.fast_write_sized(buf, self.size())
    }

    /// [`Message::fast_write`] for a caller that already knows `size == self.size()`:
    /// skips the size pass.
    ///
    /// # Panics
    /// If `buf` is shorter than `size`, or `size` is not `self.size()` (a wrong
    /// `size` never causes undefined behaviour, only this panic).
    #[track_caller]
    fn fast_write_sized(&self, buf: &mut [u8], size: usize) -> usize {
        check_room::<Self>(buf.len(), size);
        write_all(self, Writer::new(&mut buf[..size]), size)
    }

    /// Encodes into the front of uninitialised memory (a network buffer's
    /// spare capacity) and returns the number of bytes written, `size`,
    /// every one of them initialised. Allocates nothing.
    ///
    /// # Panics
    /// As [`Message::fast_write_sized`].
    #[track_caller]
    fn fast_write_uninit(&self, buf: &mut [core::mem::MaybeUninit<u8>], size: usize) -> usize {
        check_room::<Self>(buf.len(), size);
        // A writer initialises every byte it hands out, and `write_all`
        // checks that none is left.
        write_all(self, Writer::new_uninit(&mut buf[..size]), size)
    }

    /// Decodes `buf` and merges it into `self` (protobuf merge semantics: scalars
    /// overwrite, repeated fields append, messages merge).
    ///
    /// # Errors
    /// Malformed input, or nesting deeper than
    /// [`crate::wire::DEFAULT_RECURSION_LIMIT`].
    /// `self` then holds the fields merged before the error.
    fn fast_read(&mut self, buf: &[u8]) -> Result<(), DecodeError> {
        // `fast_read_partial` and `check_required` directly, here and in
        // `decode`, not through `fast_read_with`: each provided method is
        // compiled once per type in each crate that calls it.
        match self.fast_read_partial(buf, &DecodeOptions::default()) {
            Ok(()) => self.check_required(),
            Err(e) => Err(e),
        }
    }

    /// [`Message::fast_read`] under the given limits. (`fast_read` and
    /// `decode` call [`Message::fast_read_partial`] and
    /// [`Message::check_required`] themselves, not this method.)
    ///
    /// # Errors
    /// As [`Message::fast_read`], and the limits of `options`.
    fn fast_read_with(&mut self, buf: &[u8], options: &DecodeOptions) -> Result<(), DecodeError> {
        self.fast_read_partial(buf, options)?;
        self.check_required()
    }

    /// Merges `buf` into `self` without checking `required` fields (for callers
    /// that accept partial messages).
    ///
    /// # Errors
    /// Malformed input, or input beyond the limits of `options`.
    fn fast_read_partial(&mut self, buf: &[u8], options: &DecodeOptions) -> Result<(), DecodeError> {
        let r = Reader::with_budget(buf, options.allocation_budget(buf.len()));
        decode::enter(buf.len(), r, options, Self::FULL_NAME, |r, depth| {
            self.merge_from(r, depth)
        })
    }

    /// Frees the memory a reused message keeps beyond its value: the buffers
    /// and messages that `clear()` kept for the next decode (here and in every
    /// message it holds), and the spare capacity of its strings and vectors.
    /// For a message that once held a much larger input than it now does.
    /// Costs one copy of the value.
    fn shrink_to_fit(&mut self)
    where
        Self: Clone,
    {
        // A clone keeps nothing and allocates exactly: `Recycler::clone` is
        // empty, and strings and vectors clone to their length.
        *self = self.clone();
    }

    /// Decodes a new message from `buf`.
    ///
    /// # Errors
    /// As [`Message::fast_read`].
    fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let mut m = Self::default();
        match m.fast_read_partial(buf, &DecodeOptions::default()) {
            Ok(()) => match m.check_required() {
                Ok(()) => Ok(m),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        }
    }

    /// Decodes a new message from a shared buffer: `bytes` fields generated
    /// as `bytes::Bytes` (the generator's `bytes` option) are slices of
    /// `buf`, not copies. Other fields decode as from [`Message::decode`].
    ///
    /// # Errors
    /// As [`Message::fast_read`].
    #[cfg(feature = "bytes")]
    fn decode_shared(buf: &bytes::Bytes) -> Result<Self, DecodeError> {
        Self::decode_shared_with(buf, &DecodeOptions::default())
    }

    /// [`Message::decode_shared`] under the given limits.
    ///
    /// # Errors
    /// As [`Message::fast_read_with`].
    #[cfg(feature = "bytes")]
    fn decode_shared_with(buf: &bytes::Bytes, options: &DecodeOptions) -> Result<Self, DecodeError> {
        let mut m = Self::default();
        let r = Reader::with_source(buf, options.allocation_budget(buf.len()));
        decode::enter(buf.len(), r, options, Self::FULL_NAME, |r, depth| {
            m.merge_from(r, depth)
        })?;
        m.check_required()?;
        Ok(m)
    }

    /// [`Message::encode_to_vec`] after checking that every `required` field is set.
    ///
    /// # Errors
    /// A missing required field, named by the error.
    fn encode_to_vec_checked(&self) -> Result<Vec<u8>, EncodeError> {
        self.check_required()?;
        Ok(self.encode_to_vec())
    }

    /// Encodes into a new vector of exactly `self.size()` bytes (one
    /// allocation of that capacity).
    fn encode_to_vec(&self) -> Vec<u8> {
        let size = self.size();
        let mut out = Vec::with_capacity(size);
        append_sized(self, &mut out, size);
        out
    }

    /// Appends the encoding to `out`; allocates only if `out` lacks the capacity.
    /// The bytes are written straight into the spare capacity, never zeroed first.
    fn encode_append(&self, out: &mut Vec<u8>) {
        let size = self.size();
        out.reserve(size);
        append_sized(self, out, size);
    }
}

/// Writes `m`, whose size is `size`, into the spare capacity of `out`, which
/// must hold at least `size` bytes.
/// Panics unless a buffer of `len` bytes holds `size`.
#[track_caller]
fn check_room<M: Message>(len: usize, size: usize) {
    assert!(
        len >= size,
        "fastrs: encode buffer too short for {}: {len} bytes, {size} needed",
        M::FULL_NAME
    );
}

/// Writes `m` into `w`, a writer over exactly `size` bytes, and returns
/// `size`; panics unless `m` filled it.
#[track_caller]
fn write_all<M: Message>(m: &M, mut w: Writer<'_>, size: usize) -> usize {
    m.write_backward(&mut w);
    assert!(
        w.remaining() == 0,
        "fastrs: size {size} given for {} is not the size of its encoding",
        M::FULL_NAME
    );
    size
}

fn append_sized<M: Message>(m: &M, out: &mut Vec<u8>, size: usize) {
    let mut w = Writer::new_uninit(&mut out.spare_capacity_mut()[..size]);
    m.write_backward(&mut w);
    // `write_backward` is safe code that may be written by hand: it may have
    // written too little. It cannot have put another writer in `w`'s place:
    // no code outside this crate can make one.
    assert!(
        w.remaining() == 0,
        "fastrs: {} did not write exactly its size() into the writer it was given",
        M::FULL_NAME
    );
    // SAFETY: `w` is the writer made over these `size` spare bytes (see
    // above), it initialises everything it claims, and nothing is left
    // unclaimed; the slice above proved the capacity holds them.
    #[allow(unsafe_code)]
    unsafe {
        out.set_len(out.len() + size);
    }
}

/// [`Message`]'s encoding callable through `dyn`, for the functions that are
/// compiled once for all message types.
pub trait Encode {
    /// [`Message::size`].
    fn size_dyn(&self) -> usize;
    /// [`Message::write_backward`].
    fn write_backward_dyn(&self, w: &mut Writer<'_>);
}

impl<M: Message> Encode for M {
    #[inline]
    fn size_dyn(&self) -> usize {
        self.size()
    }
    #[inline]
    fn write_backward_dyn(&self, w: &mut Writer<'_>) {
        self.write_backward(w);
    }
}

impl<M: Message> Message for alloc::boxed::Box<M> {
    const FULL_NAME: &'static str = M::FULL_NAME;
    const FOOTPRINT: usize = M::FOOTPRINT + core::mem::size_of::<Self>();

    #[inline]
    fn size(&self) -> usize {
        (**self).size()
    }
    #[inline]
    fn write_backward(&self, w: &mut Writer<'_>) {
        (**self).write_backward(w);
    }
    #[inline]
    fn merge_from(&mut self, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        (**self).merge_from(r, depth)
    }
    #[inline]
    fn clear(&mut self) {
        (**self).clear();
    }
    fn unknown_fields(&self) -> &UnknownFields {
        (**self).unknown_fields()
    }
    fn unknown_fields_mut(&mut self) -> &mut UnknownFields {
        (**self).unknown_fields_mut()
    }
    fn check_required(&self) -> Result<(), DecodeError> {
        (**self).check_required()
    }
}
