//! [`Repeated`] and [`Map`]: a view's repeated fields and maps, kept as the
//! spans of input that hold their occurrences and read when iterated.
//!
//! Encoders write a repeated field's occurrences together, so a span from the
//! first to the last occurrence is usually just them; whatever else lies
//! between is skipped when iterating. A message field that repeats merges its
//! occurrences, so a repeated field inside it may have occurrences in several
//! spans of the input: the first span is held inline, any others in a list.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use super::{checked_before, Rest, ViewCodec, CHECKED};
use crate::wire;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;

/// The spans holding a field's records: each starts and ends with records
/// of the field, within one occurrence of the message holding it. A span
/// belongs to the occurrence it points into (occurrences do not overlap).
#[derive(Clone, Default)]
struct Spans<'a> {
    first: &'a [u8],
    /// Spans in later occurrences.
    more: Rest<'a>,
}

impl<'a> Spans<'a> {
    /// Notes the record `chunk[start..end]`.
    #[inline(always)]
    fn note(&mut self, chunk: &'a [u8], start: usize, end: usize) {
        let last = match &mut self.more {
            Some(more) => more.last_mut().unwrap_or(&mut self.first),
            None => &mut self.first,
        };
        // Where the last span starts in `chunk`, if it is in `chunk`.
        let at = (last.as_ptr() as usize).wrapping_sub(chunk.as_ptr() as usize);
        if !last.is_empty() && at < chunk.len() {
            *last = chunk.get(at..end).unwrap_or_default();
        } else if self.first.is_empty() {
            self.first = chunk.get(start..end).unwrap_or_default();
        } else {
            let span = chunk.get(start..end).unwrap_or_default();
            self.more.get_or_insert_default().push(span);
        }
    }

    /// Span `index`, in order.
    #[inline]
    fn get(&self, index: usize) -> Option<&'a [u8]> {
        match index.checked_sub(1) {
            None => Some(self.first),
            Some(i) => self.more.as_ref()?.get(i).copied(),
        }
    }

    /// The payload of the only record, if there is one record of a
    /// length-delimited field.
    fn single_record(&self) -> Option<&'a [u8]> {
        if self.more.is_some() {
            return None;
        }
        let mut r = Reader::new(self.first);
        let tag = r.read_tag().ok()?;
        let payload = (wire::wire_type(tag) == wire::LEN).then(|| r.read_bytes().ok())??;
        r.is_empty().then_some(payload)
    }
}

/// Where a record read from `chunk` started, given the bytes that were
/// left before its tag (a tag may take more bytes than its canonical form).
#[inline(always)]
fn record_start(chunk: &[u8], left: usize) -> usize {
    chunk.len().saturating_sub(left)
}

/// The records of one field: where they are, its number, and how many
/// values they hold.
#[derive(Clone, Default)]
struct Records<'a> {
    spans: Spans<'a>,
    number: u32,
    len: usize,
}

impl<'a> Records<'a> {
    /// Notes a checked run of records of field `tag` from `chunk[start..]`
    /// to where `r` is, holding `count` values.
    #[inline(always)]
    fn add(&mut self, chunk: &'a [u8], start: usize, r: &Reader<'a>, tag: u32, count: usize) {
        self.len += count;
        self.number = wire::field_number(tag);
        self.spans.note(chunk, start, chunk.len() - r.rest().len());
    }

    /// The values of codec `C` in the records.
    fn iter<C>(&self) -> Iter<'_, 'a, C> {
        Iter {
            cursor: Some(Cursor {
                records: self,
                span: 0,
                r: Reader::new(&[]),
            }),
            packed: &[],
            left: self.len,
            codec: PhantomData,
        }
    }
}

/// The view of a repeated field: its values, read from the input as they
/// are iterated. Decoding counted and checked them, so [`Repeated::len`] is
/// exact and iterating allocates nothing. Packed fixed-width values index in
/// constant time ([`Repeated::get`]), read unaligned from the input.
pub struct Repeated<'a, C> {
    records: Records<'a>,
    codec: PhantomData<fn() -> C>,
}

impl<'a, C: ViewCodec<'a>> Repeated<'a, C> {
    /// Checks and counts one record of the field, whose tag `tag` has been
    /// read from `r`, a reader over `chunk` that had `left` bytes left
    /// before the tag.
    ///
    /// # Errors
    /// Malformed input.
    #[inline]
    pub(crate) fn push(
        &mut self,
        chunk: &'a [u8],
        left: usize,
        r: &mut Reader<'a>,
        tag: u32,
        depth: u32,
    ) -> Result<(), DecodeError> {
        let start = record_start(chunk, left);
        let count = if wire::wire_type(tag) == wire::LEN && C::PACKED_WIDTH.is_some() {
            C::count_packed(r)?
        } else if C::ONE_PER_RECORD && checked_before(depth) {
            // Read again after a decode checked it: count the run, and
            // leave each element to be read when it is iterated.
            let mut count = 0;
            loop {
                r.skip_value(tag, depth)?;
                count += 1;
                if !r.read_tag_if(tag) {
                    break count;
                }
            }
        } else {
            // Encoders write a repeated field's records together: read the
            // whole run here, and note its span once.
            let mut count = 0;
            loop {
                let mut slot = None;
                C::merge(&mut slot, r, depth)?;
                count += usize::from(slot.is_some());
                if !r.read_tag_if(tag) {
                    break count;
                }
            }
        };
        self.records.add(chunk, start, r, tag, count);
        Ok(())
    }

    /// The number of values.
    #[must_use]
    pub fn len(&self) -> usize {
        self.records.len
    }

    /// True if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.records.len == 0
    }

    /// The values in order.
    #[must_use]
    pub fn iter(&self) -> Iter<'_, 'a, C> {
        self.records.iter()
    }

    /// The value at `index`: in constant time for fixed-width values packed
    /// in one record (what encoders write), else by iterating.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<C::Item> {
        if index >= self.len() {
            return None;
        }
        if let Some(width @ (4 | 8)) = C::PACKED_WIDTH {
            if let Some(packed) = self.records.spans.single_record() {
                let mut r = Reader::new(packed.get(index * width..)?);
                let mut slot = None;
                C::merge(&mut slot, &mut r, CHECKED).ok()?;
                return slot;
            }
        }
        self.iter().nth(index)
    }

    /// The first value.
    #[must_use]
    pub fn first(&self) -> Option<C::Item> {
        self.iter().next()
    }

    /// The last value.
    #[must_use]
    pub fn last(&self) -> Option<C::Item> {
        self.get(self.len().checked_sub(1)?)
    }

    /// The values in a new vector, decoded as the owned decoder does (whole
    /// packed runs at a time).
    #[must_use]
    pub fn to_vec(&self) -> Vec<C::Item> {
        let mut out = Vec::new();
        self.extend_into(&mut out);
        out
    }

    /// Appends the values to `out` (a vector kept from call to call
    /// allocates only when it must grow). Packed scalars are decoded a run
    /// at a time with the owned decoder's block decoders.
    pub fn extend_into(&self, out: &mut Vec<C::Item>) {
        out.reserve(self.len());
        let values = self.iter();
        C::extend_packed(values.packed, out);
        let Some(mut cursor) = values.cursor else {
            return;
        };
        loop {
            match cursor.next::<C>() {
                None => return,
                Some(Record::Value(Some(v))) => out.push(v),
                Some(Record::Value(None)) => {}
                Some(Record::Run(run)) => C::extend_packed(run, out),
            }
        }
    }
}

impl<C> Clone for Repeated<'_, C> {
    fn clone(&self) -> Self {
        Self {
            records: self.records.clone(),
            codec: PhantomData,
        }
    }
}

impl<C> Default for Repeated<'_, C> {
    fn default() -> Self {
        Self {
            records: Records::default(),
            codec: PhantomData,
        }
    }
}

impl<'a, C: ViewCodec<'a, Item: fmt::Debug>> fmt::Debug for Repeated<'a, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'s, 'a, C: ViewCodec<'a>> IntoIterator for &'s Repeated<'a, C> {
    type Item = C::Item;
    type IntoIter = Iter<'s, 'a, C>;
    fn into_iter(self) -> Iter<'s, 'a, C> {
        self.iter()
    }
}

/// The values of a [`Repeated`].
///
/// `next` reads the current packed run in line; past it, `after_run`
/// (out of line) takes the state by value and gives the new state back.
/// No pointer into the iterator leaves the caller's loop, so the optimizer
/// keeps the run in registers, and the loop over one run is a slice loop
/// (a sum over fixed-width values vectorises).
pub struct Iter<'s, 'a, C> {
    /// `None` once the records are done.
    cursor: Option<Cursor<'s, 'a>>,
    /// The values left of the current packed record.
    packed: &'a [u8],
    left: usize,
    codec: PhantomData<fn() -> C>,
}

/// Where reading a field's records has got to: a span, and a reader over
/// the rest of it. It goes in and out of code out of line by value (see
/// [`Iter`]).
struct Cursor<'s, 'a> {
    records: &'s Records<'a>,
    /// The index of the span after the one `r` reads.
    span: usize,
    r: Reader<'a>,
}

/// One record of a field.
enum Record<'a, T> {
    /// An unpacked value (`None`: one that is not yielded).
    Value(Option<T>),
    /// A packed run.
    Run(&'a [u8]),
}

impl<'a> Cursor<'_, 'a> {
    /// The tag of the next record of the field, with the reader at its
    /// value; `None` at the end (or at bytes that were not checked by a
    /// decode, which cannot happen).
    #[inline]
    fn next_tag(&mut self) -> Option<u32> {
        loop {
            while self.r.is_empty() {
                self.r = Reader::new(self.records.spans.get(self.span)?);
                self.span += 1;
            }
            let tag = self.r.read_tag().ok()?;
            if wire::field_number(tag) == self.records.number {
                return Some(tag);
            }
            self.r.skip_value(tag, CHECKED).ok()?;
        }
    }

    /// The next record of the field.
    fn next<C: ViewCodec<'a>>(&mut self) -> Option<Record<'a, C::Item>> {
        loop {
            let tag = self.next_tag()?;
            if wire::wire_type(tag) == wire::LEN && C::PACKED_WIDTH.is_some() {
                return Some(Record::Run(self.r.read_bytes().ok()?));
            }
            if let Some(v) = self.value::<C>(tag) {
                return Some(Record::Value(v));
            }
        }
    }

    /// The value of the record whose tag `tag` was just read (`Some(None)`
    /// for one not yielded), or `None` if it has another wire type (it is
    /// then skipped).
    #[inline(always)]
    fn value<C: ViewCodec<'a>>(&mut self, tag: u32) -> Option<Option<C::Item>> {
        if wire::wire_type(tag) != C::WIRE_TYPE {
            // Bytes that do not read (which the decode that made the view
            // rules out) end the iteration.
            if self.r.skip_value(tag, CHECKED).is_err() {
                self.finish();
            }
            return None;
        }
        let mut slot = None;
        match C::merge(&mut slot, &mut self.r, CHECKED) {
            Ok(()) => Some(slot),
            Err(_) => {
                self.finish();
                None
            }
        }
    }

    /// Moves past every span: nothing more is read.
    fn finish(&mut self) {
        self.r = Reader::new(&[]);
        self.span = usize::MAX;
    }

    /// The next value yielded from `run` on, then from the records, with
    /// what is left of the run it came from and the cursor moved past it.
    #[inline(always)]
    fn next_value<C: ViewCodec<'a>>(mut self, mut run: &'a [u8]) -> Option<(C::Item, &'a [u8], Self)> {
        loop {
            while !run.is_empty() {
                if let Some(v) = C::next_packed(&mut run) {
                    return Some((v, run, self));
                }
            }
            match self.next::<C>()? {
                Record::Value(Some(v)) => return Some((v, &[], self)),
                Record::Value(None) => {}
                Record::Run(next) => run = next,
            }
        }
    }
}

impl<'a, C: ViewCodec<'a>> Iter<'_, 'a, C> {
    /// The next value of a field that is never packed (strings, messages,
    /// map entries): the next record's, read in place.
    #[inline]
    fn next_record_value(&mut self) -> Option<C::Item> {
        if self.left == 0 {
            return None;
        }
        let cursor = self.cursor.as_mut()?;
        loop {
            let tag = cursor.next_tag()?;
            if let Some(Some(v)) = cursor.value::<C>(tag) {
                self.left -= 1;
                return Some(v);
            }
        }
    }
}

/// [`Iterator::next`] past the current run, out of line: the next value and
/// the iterator's state after it, given the state before it (by value, see
/// [`Iter`]).
#[inline(never)]
fn after_run<'s, 'a, C: ViewCodec<'a>>(
    cursor: Option<Cursor<'s, 'a>>,
    run: &'a [u8],
    left: usize,
) -> (Option<C::Item>, Option<Cursor<'s, 'a>>, &'a [u8], usize) {
    let next = cursor.filter(|_| left > 0).and_then(|c| c.next_value::<C>(run));
    match next {
        Some((v, run, cursor)) => (Some(v), Some(cursor), run, left - 1),
        None => (None, None, &[], 0),
    }
}

impl<'a, C: ViewCodec<'a>> Iterator for Iter<'_, 'a, C> {
    type Item = C::Item;

    /// A value of the current packed run is read in line (a bounds check
    /// and a load for fixed-width values); anything else out of line.
    #[inline(always)]
    fn next(&mut self) -> Option<C::Item> {
        if C::PACKED_WIDTH.is_some() {
            if let Some(v) = C::next_in_run(&mut self.packed) {
                // Decoding counted the values a run yields: `left` is not 0.
                self.left = self.left.wrapping_sub(1);
                return Some(v);
            }
        }
        if C::PACKED_WIDTH.is_none() {
            // No run to keep in registers: the records are read in place.
            return self.next_record_value();
        }
        let (item, cursor, run, left) = after_run::<C>(self.cursor.take(), self.packed, self.left);
        (self.cursor, self.packed, self.left) = (cursor, run, left);
        item
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }

    /// Packed runs are folded whole ([`ViewCodec::fold_packed`]), so a sum
    /// over fixed-width values vectorises and varints skip the per-value
    /// bookkeeping of `next`.
    #[inline]
    fn fold<B, F: FnMut(B, C::Item) -> B>(mut self, init: B, mut f: F) -> B {
        if C::PACKED_WIDTH.is_none() {
            let mut acc = init;
            while let Some(v) = self.next_record_value() {
                acc = f(acc, v);
            }
            return acc;
        }
        let mut acc = C::fold_packed(self.packed, init, &mut f);
        let Some(mut cursor) = self.cursor else {
            return acc;
        };
        loop {
            match cursor.next::<C>() {
                None => return acc,
                Some(Record::Value(Some(v))) => acc = f(acc, v),
                Some(Record::Value(None)) => {}
                Some(Record::Run(run)) => acc = C::fold_packed(run, acc, &mut f),
            }
        }
    }
}

impl<'a, C: ViewCodec<'a>> ExactSizeIterator for Iter<'_, 'a, C> {}

/// The view of a map field: its entries, read from the input as they are
/// iterated, in the order written. A key written twice appears twice when
/// iterating; [`Map::get`] gives the last value, as the owned map holds.
pub struct Map<'a, K, V> {
    records: Records<'a>,
    codecs: PhantomData<fn() -> (K, V)>,
}

/// A map entry's key and value, if present.
type EntryItems<'a, K, V> = (Option<<K as ViewCodec<'a>>::Item>, Option<<V as ViewCodec<'a>>::Item>);

/// Reads a map entry; `None` for one the owned map does not keep (a closed
/// enum's unnamed number).
fn read_entry<'a, K: ViewCodec<'a>, V: ViewCodec<'a>>(
    r: &mut Reader<'a>,
    depth: u32,
) -> Result<Option<EntryItems<'a, K, V>>, DecodeError> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(r.error(DecodeErrorKind::RecursionLimit));
    };
    let mut inner = r.read_nested()?;
    let (key_tag, value_tag) = (wire::tag(1, K::WIRE_TYPE), wire::tag(2, V::WIRE_TYPE));
    let (mut key, mut value, mut kept) = (None, None, true);
    while !inner.is_empty() {
        match inner.read_tag()? {
            t if t == key_tag => K::merge(&mut key, &mut inner, depth)?,
            t if t == value_tag => kept = V::merge_entry_value(&mut value, &mut inner, depth)?,
            t => inner.skip_value(t, depth)?,
        }
    }
    Ok(kept.then_some((key, value)))
}

impl<'a, K, V> Map<'a, K, V>
where
    K: ViewCodec<'a, Item: Default + PartialEq>,
    V: ViewCodec<'a, Item: Default>,
{
    /// Checks one entry, whose tag has been read from `r`, a reader over
    /// `chunk` that had `left` bytes left before the tag.
    ///
    /// # Errors
    /// Malformed input.
    #[inline]
    pub(crate) fn push(
        &mut self,
        chunk: &'a [u8],
        left: usize,
        r: &mut Reader<'a>,
        tag: u32,
        depth: u32,
    ) -> Result<(), DecodeError> {
        let start = record_start(chunk, left);
        let kept = if V::ONE_PER_RECORD && checked_before(depth) {
            r.skip_value(tag, depth)?;
            true
        } else {
            read_entry::<K, V>(r, depth)?.is_some()
        };
        self.records.add(chunk, start, r, tag, usize::from(kept));
        Ok(())
    }

    /// The number of entries written (a key written twice counts twice).
    #[must_use]
    pub fn len(&self) -> usize {
        self.records.len
    }

    /// True if there are no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.records.len == 0
    }

    /// The entries in the order written.
    #[must_use]
    pub fn iter(&self) -> MapIter<'_, 'a, K, V> {
        MapIter {
            records: self.records.iter(),
        }
    }

    /// The value of `key` (the last one written for it), by scanning the
    /// entries.
    #[must_use]
    pub fn get(&self, key: &K::Item) -> Option<V::Item> {
        let mut found = None;
        for (k, v) in self {
            if k == *key {
                found = Some(v);
            }
        }
        found
    }
}

impl<K, V> Clone for Map<'_, K, V> {
    fn clone(&self) -> Self {
        Self {
            records: self.records.clone(),
            codecs: PhantomData,
        }
    }
}

impl<K, V> Default for Map<'_, K, V> {
    fn default() -> Self {
        Self {
            records: Records::default(),
            codecs: PhantomData,
        }
    }
}

impl<'a, K, V> fmt::Debug for Map<'a, K, V>
where
    K: ViewCodec<'a, Item: Default + PartialEq + fmt::Debug>,
    V: ViewCodec<'a, Item: Default + fmt::Debug>,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'s, 'a, K, V> IntoIterator for &'s Map<'a, K, V>
where
    K: ViewCodec<'a, Item: Default + PartialEq>,
    V: ViewCodec<'a, Item: Default>,
{
    type Item = (K::Item, V::Item);
    type IntoIter = MapIter<'s, 'a, K, V>;
    fn into_iter(self) -> MapIter<'s, 'a, K, V> {
        self.iter()
    }
}

/// An entry record as a value, for [`Iter`] to walk a map's records.
enum Entry<K, V> {
    _Never(PhantomData<(K, V)>),
}

impl<'a, K: ViewCodec<'a>, V: ViewCodec<'a>> ViewCodec<'a> for Entry<K, V> {
    type Item = (Option<K::Item>, Option<V::Item>);
    const WIRE_TYPE: u8 = wire::LEN;

    fn merge(slot: &mut Option<Self::Item>, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
        *slot = read_entry::<K, V>(r, depth)?;
        Ok(())
    }
}

/// The entries of a [`Map`], keys and values the map's defaults where an
/// entry leaves them out.
pub struct MapIter<'s, 'a, K, V> {
    records: Iter<'s, 'a, Entry<K, V>>,
}

impl<'a, K, V> Iterator for MapIter<'_, 'a, K, V>
where
    K: ViewCodec<'a, Item: Default>,
    V: ViewCodec<'a, Item: Default>,
{
    type Item = (K::Item, V::Item);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (k, v) = self.records.next()?;
        Some((k.unwrap_or_default(), v.unwrap_or_default()))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.records.size_hint()
    }
}

impl<'a, K, V> ExactSizeIterator for MapIter<'_, 'a, K, V>
where
    K: ViewCodec<'a, Item: Default>,
    V: ViewCodec<'a, Item: Default>,
{
}
