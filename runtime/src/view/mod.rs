//! Zero-copy views: messages read in place, borrowing their strings, bytes and
//! repeated fields from the input.
//!
//! With the generator's `views` option every message `Foo` also gets a
//! `FooView<'a>` that implements [`View`]. `FooView::decode(&bytes)` checks
//! the input as strictly as `Foo::decode` (same limits, same errors) but
//! copies nothing:
//!
//! - scalars and enums are read into the view by value;
//! - `string` fields are `&'a str` (UTF-8 checked where the schema says so;
//!   `&'a [u8]` where it does not), `bytes` fields `&'a [u8]`;
//! - singular message fields are views held inline (`Option<BarView<'a>>`),
//!   or [`Lazy`] where the type contains itself;
//! - repeated fields are [`Repeated`] and maps [`Map`]: lazy sequences over
//!   the encoded occurrences, counted when decoded, read when iterated;
//! - oneofs are an enum of views;
//! - unknown fields are listed by [`View::unknown_fields`].
//!
//! Merge semantics hold as for owned messages: the last value of a singular
//! field wins, occurrences of a message field merge, a oneof keeps its last
//! member.
//!
//! A view encodes as the bytes it was read from ([`View::size`],
//! [`View::fast_write`]): a proxy forwards what it received, unchanged.
//! [`View::to_message`] (and the generated `to_owned`) builds the owned
//! message. With the `bytes` feature, `OwnedView` keeps a view together
//! with the `bytes::Bytes` it borrows from, for async code.

mod codec;
#[cfg(feature = "bytes")]
mod owned;
mod repeated;
pub(crate) mod support;

use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::message::options::DecodeOptions;
use crate::message::Message;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;

pub use codec::{GroupView, LazyGroup, LazyMsg, MsgView, ViewCodec};
#[cfg(feature = "bytes")]
pub use owned::OwnedView;
pub use repeated::{Iter, Map, MapIter, Repeated};

/// Depth passed when reading again what a decode has already checked: the
/// bytes are known to nest no deeper than the limit they were checked under.
const CHECKED: u32 = u32::MAX;

/// Depths above this descend from [`CHECKED`]: the bytes being read were
/// checked by the decode that made the view, so a record that is only kept
/// or counted (a lazy field, an element of a repeated field) need not be
/// read again. Reading a structure in full is then linear in its size at
/// every depth. A decode's own recursion limit is capped at this.
const TRUSTED: u32 = u32::MAX / 2;

/// True if `depth` descends from [`CHECKED`] (see [`TRUSTED`]).
#[inline(always)]
const fn checked_before(depth: u32) -> bool {
    depth > TRUSTED
}

/// Reads a view of `buf` under `options`, without checking `required`
/// fields (a masked read may leave them out).
pub(crate) fn read<'a, V: View<'a>>(buf: &'a [u8], options: &DecodeOptions) -> Result<V, DecodeError> {
    let name = <V::Message as Message>::FULL_NAME;
    let mut view = V::default();
    crate::message::decode::enter(buf.len(), Reader::new(buf), options, name, |r, depth| {
        view.merge_chunk(r, depth.min(TRUSTED))
    })?;
    Ok(view)
}

impl crate::Mask {
    /// Reads a view of the fields of `buf` that the mask selects. The view
    /// borrows `scratch`, which is cleared and then holds the selected
    /// records ([`Mask::filter`](crate::Mask::filter)); reuse it across calls to keep its
    /// capacity. Fields the mask leaves out read as absent, and `required`
    /// fields are not checked.
    ///
    /// ```
    /// # use fastrs::{Mask, Message};
    /// # use fastrs::well_known::{Api, ApiView};
    /// let api = Api { name: "shop".into(), version: "v2".into(), ..Default::default() };
    /// let bytes = api.encode_to_vec();
    /// let mut scratch = Vec::new();
    /// let view: ApiView<'_> = Mask::new().field(1).view(&bytes, &mut scratch)?;
    /// assert_eq!((view.name, view.version), ("shop", ""));
    /// # Ok::<(), fastrs::DecodeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Mask::decode`](crate::Mask::decode).
    pub fn view<'a, V: View<'a>>(&self, buf: &[u8], scratch: &'a mut Vec<u8>) -> Result<V, DecodeError> {
        scratch.clear();
        self.filter_into::<V::Message>(buf, scratch)?;
        read(scratch, &DecodeOptions::default())
    }
}

/// A zero-copy view of a message, generated as `FooView<'a>` for a message
/// `Foo` (see the [module docs](self)).
pub trait View<'a>: Default + Clone + core::fmt::Debug {
    /// The owned message this is a view of.
    type Message: Message;

    /// Tags of the fields the message declares, sorted: any other record is
    /// an unknown field.
    #[doc(hidden)]
    const KNOWN_TAGS: &'static [u32];

    /// Merges the fields of `r` (one occurrence of the message) into the
    /// view, allowing `depth` more levels of nesting.
    ///
    /// # Errors
    /// Malformed input.
    #[doc(hidden)]
    fn merge_chunk(&mut self, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError>;

    /// The encoded occurrences the view was read from.
    #[doc(hidden)]
    fn source(&self) -> &Source<'a>;

    /// Checks that every `required` field is set, here and in the messages
    /// the view holds, as [`Message::check_required`] does (decoding checks
    /// it already).
    ///
    /// # Errors
    /// The first missing field, named by the error.
    fn check_required(&self) -> Result<(), DecodeError> {
        Ok(())
    }

    /// Reads a view of `buf`, which must outlive it.
    ///
    /// # Errors
    /// As `Message::decode`: malformed input, nesting deeper than the
    /// default recursion limit, missing `required` fields.
    fn decode(buf: &'a [u8]) -> Result<Self, DecodeError> {
        Self::decode_with(buf, &DecodeOptions::default())
    }

    /// [`View::decode`] under the given limits. A view allocates nothing
    /// proportional to its input (bar a list when a message field repeats
    /// and so merges), so the allocation budget does not apply.
    ///
    /// # Errors
    /// As [`View::decode`], and the limits of `options`.
    fn decode_with(buf: &'a [u8], options: &DecodeOptions) -> Result<Self, DecodeError> {
        let view = read::<Self>(buf, options)?;
        view.check_required()?;
        Ok(view)
    }

    /// The owned message with the same contents: the bytes the view was
    /// read from, decoded (they were checked when the view was read, so
    /// this cannot fail).
    fn to_message(&self) -> Self::Message {
        let mut m = Self::Message::default();
        let trusted = DecodeOptions {
            recursion_limit: CHECKED,
            max_input_bytes: usize::MAX,
            allocation_ratio: usize::MAX,
            allocation_slack: usize::MAX,
        };
        for chunk in self.source().chunks() {
            let merged = m.fast_read_partial(chunk, &trusted);
            debug_assert!(merged.is_ok(), "a view's bytes decode as its message");
        }
        m
    }

    /// The size of the view's encoding: the bytes it was read from.
    fn size(&self) -> usize {
        self.source().len()
    }

    /// Writes the encoding (the bytes the view was read from) to the front of
    /// `buf` and returns its length, `self.size()`.
    ///
    /// # Panics
    /// If `buf` is shorter than `self.size()`.
    #[track_caller]
    fn fast_write(&self, buf: &mut [u8]) -> usize {
        let size = self.size();
        assert!(
            buf.len() >= size,
            "fastrs: encode buffer too short for a view of {}: {} bytes, {size} needed",
            <Self::Message as Message>::FULL_NAME,
            buf.len()
        );
        let mut at = 0;
        for chunk in self.source().chunks() {
            buf[at..at + chunk.len()].copy_from_slice(chunk);
            at += chunk.len();
        }
        size
    }

    /// The encoding in a new vector of exactly `self.size()` bytes.
    fn encode_to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size());
        self.encode_append(&mut out);
        out
    }

    /// Appends the encoding to `out`; allocates only if `out` lacks the
    /// capacity.
    fn encode_append(&self, out: &mut Vec<u8>) {
        for chunk in self.source().chunks() {
            out.extend_from_slice(chunk);
        }
    }

    /// The fields the schema does not know (and extensions), as `(tag,
    /// value bytes)` in the order read, like `UnknownFields::fields`.
    /// Values of a closed enum that the enum does not name are not listed
    /// (the owned message keeps them as unknown fields).
    fn unknown_fields(&self) -> UnknownIter<'_, 'a> {
        UnknownIter {
            chunks: self.source().chunks(),
            rest: &[],
            known: Self::KNOWN_TAGS,
        }
    }
}

/// A message type with a generated zero-copy view.
///
/// # Safety
/// `View<'a>` must be covariant in `'a`, and its methods must keep no
/// reference to the bytes they are given beyond the views they return:
/// `OwnedView` relies on both. Implemented by generated code through a
/// macro of this crate; not for hand-written types.
#[allow(unsafe_code)]
pub unsafe trait HasView: Message {
    /// The view type, `FooView<'a>` for `Foo`.
    type View<'a>: View<'a, Message = Self> + Send + Sync;

    /// Shortens the lifetime of a view (proves covariance).
    #[doc(hidden)]
    fn reborrow<'s>(view: &'s Self::View<'static>) -> &'s Self::View<'s>;
}

/// Implements [`HasView`] for a generated message and its view, and gives
/// the view inherent `decode` and `to_owned` (callable without importing
/// [`View`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __view_impls {
    ($message:ident, $view:ident) => {
        // SAFETY: generated views hold only borrowed slices, values and
        // other generated views (covariant: `reborrow` compiles), and keep
        // nothing from the bytes they read beyond themselves.
        #[allow(unsafe_code)]
        unsafe impl ::fastrs::HasView for $message {
            type View<'a> = $view<'a>;
            fn reborrow<'s>(view: &'s $view<'static>) -> &'s $view<'s> {
                view
            }
        }

        impl<'a> $view<'a> {
            #[doc = concat!(" Reads a view of `buf`, checked as `", stringify!($message), "::decode` checks it.")]
            ///
            /// # Errors
            /// As `fastrs::View::decode`.
            // `inline`: compiled where used, not once per view in the
            // schema's crate.
            #[inline]
            pub fn decode(buf: &'a [u8]) -> ::core::result::Result<Self, ::fastrs::DecodeError> {
                <Self as ::fastrs::View<'a>>::decode(buf)
            }

            #[doc = concat!(" The owned [`", stringify!($message), "`] with the same contents.")]
            #[must_use]
            #[inline]
            pub fn to_owned(&self) -> $message {
                ::fastrs::View::to_message(self)
            }
        }
    };
}

/// Further slices of input, after the first: rare (a message field given
/// more than once), so boxed, which keeps every view and repeated field 16
/// bytes smaller than a `Vec` would.
#[allow(clippy::box_collection)]
pub(crate) type Rest<'a> = Option<alloc::boxed::Box<Vec<&'a [u8]>>>;

/// The encoded occurrences a view was read from: one slice of the input, or
/// several when a message field repeats (its occurrences merge).
#[derive(Clone, Default)]
pub struct Source<'a> {
    first: &'a [u8],
    /// Later occurrences.
    more: Rest<'a>,
}

impl<'a> Source<'a> {
    /// Adds the occurrence `chunk` and returns it.
    #[inline]
    pub(crate) fn add(&mut self, chunk: &'a [u8]) -> &'a [u8] {
        if self.first.is_empty() && self.more.is_none() {
            self.first = chunk;
        } else if !chunk.is_empty() {
            self.more.get_or_insert_default().push(chunk);
        }
        chunk
    }

    /// The occurrences, in order.
    pub fn chunks(&self) -> Chunks<'_, 'a> {
        let more: &[&'a [u8]] = self.more.as_deref().map_or(&[], |m| m.as_slice());
        core::iter::once(self.first).chain(more.iter().copied())
    }

    /// Their total length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.chunks().map(<[u8]>::len).sum()
    }

    /// True if the view was read from no bytes.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl core::fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} bytes", self.len())
    }
}

/// A message field read on demand: for a field whose type contains the
/// message holding it (a view cannot hold itself inline). The decode that
/// made it checked its bytes; [`Lazy::get`] reads them again (only this
/// level: lazy fields and repeated elements below it are kept, not read).
pub struct Lazy<'a, V> {
    source: Source<'a>,
    view: PhantomData<fn() -> V>,
}

impl<'a, V: View<'a>> Lazy<'a, V> {
    /// Reads the view.
    #[must_use]
    pub fn get(&self) -> V {
        let mut view = V::default();
        for chunk in self.source.chunks() {
            let read = view.merge_chunk(&mut Reader::new(chunk), CHECKED);
            debug_assert!(read.is_ok(), "a lazy view's bytes were checked");
        }
        view
    }

    /// Checks one occurrence (unless it was checked before) and keeps it.
    #[inline]
    fn merge(&mut self, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
        let chunk = r.rest();
        if checked_before(depth) {
            *r = Reader::new(&chunk[chunk.len()..]);
        } else {
            V::default().merge_chunk(r, depth)?;
        }
        self.source.add(chunk);
        Ok(())
    }
}

impl<V> Clone for Lazy<'_, V> {
    fn clone(&self) -> Self {
        Self {
            source: self.source.clone(),
            view: PhantomData,
        }
    }
}

impl<V> Default for Lazy<'_, V> {
    fn default() -> Self {
        Self {
            source: Source::default(),
            view: PhantomData,
        }
    }
}

impl<'a, V: View<'a>> core::fmt::Debug for Lazy<'a, V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.get().fmt(f)
    }
}

/// The occurrences of a [`Source`].
pub type Chunks<'s, 'a> =
    core::iter::Chain<core::iter::Once<&'a [u8]>, core::iter::Copied<core::slice::Iter<'s, &'a [u8]>>>;

/// The unknown fields of a view (see [`View::unknown_fields`]).
pub struct UnknownIter<'s, 'a> {
    chunks: Chunks<'s, 'a>,
    rest: &'a [u8],
    known: &'static [u32],
}

impl<'a> Iterator for UnknownIter<'_, 'a> {
    type Item = (u32, &'a [u8]);

    fn next(&mut self) -> Option<(u32, &'a [u8])> {
        loop {
            while self.rest.is_empty() {
                self.rest = self.chunks.next()?;
            }
            let (tag, value, after) = crate::wire::records::next_raw(self.rest)?;
            self.rest = after;
            if self.known.binary_search(&tag).is_err() {
                return Some((tag, value));
            }
        }
    }
}

/// Reads a `string` value whose UTF-8 the schema checks.
///
/// # Errors
/// A bad length, or bytes that are not UTF-8.
#[inline(always)]
pub(crate) fn read_str<'a>(r: &mut Reader<'a>) -> Result<&'a str, DecodeError> {
    let bytes = r.read_bytes()?;
    crate::wire::utf8::as_utf8(bytes, r.offset())
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::codec::reads::NESTED;
    use super::View;
    use crate::well_known::value::{Kind, KindView};
    use crate::well_known::{ListValue, Value, ValueView};
    use crate::{DecodeOptions, Message};

    /// `[[[ ... [1.0, 2.0] ... ]]]`, `levels` lists deep, two numbers at
    /// each level.
    fn nested_lists(levels: usize) -> Vec<u8> {
        let number = |n: f64| Value {
            kind: Some(Kind::NumberValue(n)),
            ..Default::default()
        };
        let mut value = number(0.0);
        for _ in 0..levels {
            let values = alloc::vec![number(1.0), value, number(2.0)];
            let list = ListValue {
                values,
                ..Default::default()
            };
            value = Value {
                kind: Some(Kind::ListValue(list)),
                ..Default::default()
            };
        }
        value.encode_to_vec()
    }

    /// Sums every number, reading every list.
    fn sum(value: &ValueView<'_>) -> f64 {
        match &value.kind {
            Some(KindView::NumberValue(n)) => *n,
            Some(KindView::ListValue(list)) => list.values.iter().map(|v| sum(&v)).sum(),
            _ => 0.0,
        }
    }

    /// Nested messages read to decode the structure and read all of it.
    fn reads(levels: usize) -> usize {
        let bytes = nested_lists(levels);
        let options = DecodeOptions {
            recursion_limit: 1000,
            ..Default::default()
        };
        NESTED.with(|n| n.set(0));
        let view = ValueView::decode_with(&bytes, &options).unwrap();
        let total = sum(&view);
        assert_eq!(total, 3.0 * levels as f64);
        NESTED.with(|n| n.get())
    }

    /// Reading a structure in full is linear in its size at every depth:
    /// each level's elements are counted, not read, when the level above is
    /// read again.
    #[test]
    fn reading_a_deep_structure_in_full_is_linear() {
        let (shallow, deep) = (reads(16), reads(64));
        // Quadratic reading would make the deep case about 16 times the
        // shallow one; linear makes it 4 times.
        assert!(
            deep <= 4 * shallow + 16,
            "16 levels: {shallow} reads, 64 levels: {deep}"
        );
        assert!(deep <= 12 * 64, "{deep} nested reads for 64 levels");
    }
}
