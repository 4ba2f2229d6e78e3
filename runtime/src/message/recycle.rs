//! Buffer reuse: where a cleared message keeps its old values' allocations
//! (strings, bytes, nested messages) for the next decode to fill, so a
//! message decoded again and again allocates nothing once warm.
//!
//! Each generated message has a hidden [`Recycler`] field. It is not part of
//! the message's value: equality ignores it, cloning and `Default` give an
//! empty one, and `Debug` shows `..`.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use crate::message::Message;

/// The kept buffers and messages of one message (empty until its first
/// `clear()`).
#[derive(Default)]
pub struct Recycler {
    spare: Option<Box<sealed::Spare>>,
}

/// A buffer type a [`Recycler`] can keep: `String`, `Vec<u8>` and
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
        /// Kept values of the fields of a size-mode message (`table`), one
        /// slot per field.
        pub(crate) slots: Vec<super::Slot>,
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

impl Recycler {
    /// Keeps nothing.
    #[must_use]
    pub const fn new() -> Self {
        Self { spare: None }
    }

    /// Frees everything kept.
    pub fn release(&mut self) {
        self.spare = None;
    }

    /// Keeps the buffers of `values` for reuse and empties it (its own
    /// capacity stays). For generated `clear()`.
    pub fn keep_all<T: Reusable>(&mut self, values: &mut Vec<T>) {
        if !values.is_empty() {
            T::pool(self.spare.get_or_insert_with(Box::default)).append(values);
        }
    }

    /// Keeps each buffer of `values` (the keys or values of a drained map) for
    /// reuse, reserving once. For generated `clear()`.
    pub fn keep_each<T: Reusable>(&mut self, values: impl Iterator<Item = T>) {
        T::pool(self.spare.get_or_insert_with(Box::default)).extend(values);
    }

    /// Keeps one buffer for reuse. For generated `clear()`.
    pub fn keep<T: Reusable>(&mut self, value: T) {
        T::pool(self.spare.get_or_insert_with(Box::default)).push(value);
    }

    /// Keeps a message (a nested field's value) for reuse. For generated `clear()`.
    pub fn keep_message<M: Message + 'static>(&mut self, message: M) {
        self.message_pool::<M>().push(message);
    }

    /// Keeps the messages of a repeated field for reuse and empties it. For
    /// generated `clear()`. When nothing of the type is kept yet, the whole
    /// vector is kept (no message moves) and the field gets the kept
    /// vector's spare allocation.
    pub fn keep_messages<M: Message + 'static>(&mut self, values: &mut Vec<M>) {
        if values.is_empty() {
            return;
        }
        let pool = self.message_pool::<M>();
        if pool.is_empty() {
            core::mem::swap(pool, values);
        } else {
            pool.append(values);
        }
    }

    /// Gives the empty `values` the kept messages of its type, to be read
    /// into in place (see `merge_message_run`); the kept vector's place
    /// takes `values`' allocation. False if none are kept.
    pub(crate) fn swap_messages<M: Message + 'static>(&mut self, values: &mut Vec<M>) -> bool {
        match self.messages_of::<M>() {
            Some(pool) if !pool.is_empty() => {
                core::mem::swap(pool, values);
                true
            }
            _ => false,
        }
    }

    /// Keeps `values[from..]` again (messages not read into).
    pub(crate) fn keep_rest<M: Message + 'static>(&mut self, values: &mut Vec<M>, from: usize) {
        if from < values.len() {
            self.message_pool::<M>().extend(values.drain(from..));
        }
    }

    /// A kept message, cleared (which in turn keeps its own buffers), or a
    /// new one. For generated decoders.
    #[inline]
    pub fn spare_message<M: Message + 'static>(&mut self) -> M {
        let kept = self.messages_of::<M>().and_then(Vec::pop);
        match kept {
            Some(mut message) => {
                message.clear();
                message
            }
            None => M::default(),
        }
    }

    /// The kept messages of type `M`, if any were ever kept.
    #[inline]
    fn messages_of<M: Message + 'static>(&mut self) -> Option<&mut Vec<M>> {
        let spare = self.spare.as_mut()?;
        let id = core::any::TypeId::of::<M>();
        let (_, pool) = spare.messages.iter_mut().find(|(t, _)| *t == id)?;
        pool.downcast_mut::<Vec<M>>()
    }

    fn message_pool<M: Message + 'static>(&mut self) -> &mut Vec<M> {
        let spare = self.spare.get_or_insert_with(Box::default);
        let id = core::any::TypeId::of::<M>();
        let at = match spare.messages.iter().position(|(t, _)| *t == id) {
            Some(at) => at,
            None => add_pool::<M>(&mut spare.messages),
        };
        match spare.messages[at].1.downcast_mut::<Vec<M>>() {
            Some(pool) => pool,
            None => unreachable!("each pool is keyed by the TypeId of its element type"),
        }
    }

    /// A kept buffer, emptied, or a new one. For generated decoders.
    #[inline]
    pub fn spare<T: Reusable>(&mut self) -> T {
        self.kept_buffer().unwrap_or_default()
    }

    /// A kept buffer, emptied, if any.
    #[inline]
    pub(crate) fn kept_buffer<T: Reusable>(&mut self) -> Option<T> {
        let mut buffer = T::pool(self.spare.as_mut()?).pop()?;
        buffer.empty();
        Some(buffer)
    }
}

/// Adds an empty pool for messages of type `M`; its index. Once per type
/// and recycler, so out of the kept-message paths.
#[cold]
#[inline(never)]
fn add_pool<M: Message + 'static>(
    pools: &mut Vec<(core::any::TypeId, Box<dyn core::any::Any + Send + Sync>)>,
) -> usize {
    pools.push((core::any::TypeId::of::<M>(), Box::new(Vec::<M>::new())));
    pools.len() - 1
}

/// The type of the values a [`Slot`] keeps, erased: what the table entry
/// of the field gives (`table::ops`, only for `Send + Sync` types, so a
/// recycler stays both), so that keeping a message type's values compiles
/// nothing for it but its drop, which it has anyway.
pub(crate) struct KeptType {
    /// `TypeId::of` the type.
    pub(crate) id: core::any::TypeId,
    /// `size_of` and `align_of` the type.
    pub(crate) size: usize,
    pub(crate) align: usize,
    /// `drop_in_place` of the type.
    pub(crate) drop: unsafe fn(*mut u8),
}

/// The kept values of one field of a size-mode message (`table`), moved
/// in and out as bytes. A slot is found by the field's tag and the values'
/// `TypeId`, so a recycler moved to a message of another type never hands
/// out a value of the wrong type.
pub(crate) struct Slot {
    tag: u32,
    id: core::any::TypeId,
    /// The values, each `words` words after the last: 8-byte aligned.
    buf: Vec<core::mem::MaybeUninit<u64>>,
    words: usize,
    /// How many values `buf` holds.
    len: usize,
    drop: unsafe fn(*mut u8),
}

#[allow(unsafe_code)] // the slot's values, as bytes
impl Slot {
    /// Room for `n` more values: where the first goes.
    fn reserve(&mut self, n: usize) -> *mut u8 {
        let end = (self.len + n) * self.words;
        if self.buf.len() < end {
            self.buf.resize(end, core::mem::MaybeUninit::uninit());
        }
        // SAFETY: `len * words` is within `buf`.
        unsafe { self.buf.as_mut_ptr().add(self.len * self.words).cast() }
    }

    /// Moves in `n` values of the slot's type, `stride` bytes apart from
    /// `first` on (a vector's elements).
    ///
    /// # Safety
    /// `first` points to `n` live values of the slot's type, `stride`
    /// bytes apart, which the caller no longer uses (nor drops).
    pub(crate) unsafe fn keep_all(&mut self, first: *const u8, n: usize, stride: usize) {
        let room = self.reserve(n);
        let words = self.words * core::mem::size_of::<u64>();
        if stride == words {
            // Laid out as the slot lays them out: one copy.
            // SAFETY: as below, for the `n` values at once.
            unsafe { core::ptr::copy_nonoverlapping(first, room, n * stride) };
            self.len += n;
            return;
        }
        for i in 0..n {
            // SAFETY: the caller's contract, and `reserve`'s room for `n`
            // values `words` words apart, at least `stride` bytes each.
            unsafe {
                core::ptr::copy_nonoverlapping(first.add(i * stride), room.add(i * words), stride);
            }
        }
        self.len += n;
    }

    /// The last value, no longer the slot's: the caller moves it out
    /// before the slot is used again. Null if the slot is empty.
    pub(crate) fn pop(&mut self) -> *const u8 {
        if self.len == 0 {
            return core::ptr::null();
        }
        self.len -= 1;
        // SAFETY: `len * words` is within `buf`.
        unsafe { self.buf.as_ptr().add(self.len * self.words).cast() }
    }
}

#[allow(unsafe_code)]
impl Drop for Slot {
    fn drop(&mut self) {
        for i in 0..self.len {
            // SAFETY: the first `len` values are live values of the type
            // `drop` was made for, dropped once, here.
            unsafe { (self.drop)(self.buf.as_mut_ptr().add(i * self.words).cast()) };
        }
    }
}

impl Recycler {
    /// The slot of field `tag`'s values, of the type of id `id`, if any.
    #[inline]
    pub(crate) fn kept(&mut self, tag: u32, id: core::any::TypeId) -> Option<&mut Slot> {
        let spare = self.spare.as_mut()?;
        spare.slots.iter_mut().find(|s| s.tag == tag && s.id == id)
    }

    /// The slot of field `tag`'s values, of type `ty`, made first if there
    /// is none; none for a type aligned to more than 8 bytes.
    pub(crate) fn slot(&mut self, tag: u32, ty: &KeptType) -> Option<&mut Slot> {
        if ty.align > core::mem::align_of::<u64>() {
            return None;
        }
        let id = ty.id;
        let slots = &mut self.spare.get_or_insert_with(Box::default).slots;
        let at = match slots.iter().position(|s| s.tag == tag && s.id == id) {
            Some(at) => at,
            None => {
                slots.push(Slot {
                    tag,
                    id,
                    buf: Vec::new(),
                    words: ty.size.div_ceil(core::mem::size_of::<u64>()),
                    len: 0,
                    drop: ty.drop,
                });
                slots.len() - 1
            }
        };
        slots.get_mut(at)
    }
}

/// A clone keeps nothing: kept buffers are not part of the value.
impl Clone for Recycler {
    fn clone(&self) -> Self {
        Self::new()
    }
}

/// Always equal: kept buffers are not part of the value.
impl PartialEq for Recycler {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Recycler {}

impl core::fmt::Debug for Recycler {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("..")
    }
}

#[cfg(test)]
#[allow(unsafe_code)]
mod tests {
    use super::{KeptType, Recycler};

    /// The `KeptType` of `T`.
    fn kept_type<T: 'static>() -> KeptType {
        unsafe fn drop<T>(v: *mut u8) {
            // SAFETY: the slot's contract.
            unsafe { core::ptr::drop_in_place(v.cast::<T>()) };
        }
        KeptType {
            id: core::any::TypeId::of::<T>(),
            size: core::mem::size_of::<T>(),
            align: core::mem::align_of::<T>(),
            drop: drop::<T>,
        }
    }

    /// Moves `v` into field `tag`'s slot.
    fn keep<T: 'static>(r: &mut Recycler, tag: u32, v: T) {
        let v = core::mem::ManuallyDrop::new(v);
        let slot = r.slot(tag, &kept_type::<T>()).unwrap();
        // SAFETY: `v` is a `T`, moved in: not dropped here.
        unsafe { slot.keep_all((&raw const *v).cast(), 1, core::mem::size_of::<T>()) };
    }

    /// Moves the last value out of field `tag`'s slot of `T`s.
    fn take<T: 'static>(r: &mut Recycler, tag: u32) -> Option<T> {
        let p = r.kept(tag, core::any::TypeId::of::<T>())?.pop();
        // SAFETY: a popped value is the caller's to move out.
        (!p.is_null()).then(|| unsafe { p.cast::<T>().read() })
    }

    #[test]
    fn a_slot_gives_only_its_own_field_and_type() {
        let mut r = Recycler::new();
        keep(&mut r, 1, 7u32);
        assert!(take::<u64>(&mut r, 1).is_none());
        assert!(take::<u32>(&mut r, 2).is_none());
        keep(&mut r, 1, 8u64);
        keep(&mut r, 1, 9u64);
        assert_eq!(take::<u64>(&mut r, 1), Some(9));
        assert_eq!(take::<u64>(&mut r, 1), Some(8));
        assert_eq!(take::<u64>(&mut r, 1), None);
        assert_eq!(take::<u32>(&mut r, 1), Some(7));
    }

    #[test]
    fn a_slot_drops_what_it_keeps() {
        let value = alloc::sync::Arc::new(());
        let mut r = Recycler::new();
        keep(&mut r, 3, (value.clone(), 1u8));
        keep(&mut r, 3, (value.clone(), 2u8));
        assert_eq!(alloc::sync::Arc::strong_count(&value), 3);
        let taken = take::<(alloc::sync::Arc<()>, u8)>(&mut r, 3);
        assert_eq!(taken.as_ref().map(|t| t.1), Some(2));
        drop(taken);
        r.release();
        assert_eq!(alloc::sync::Arc::strong_count(&value), 1);
    }

    #[test]
    fn a_type_aligned_to_more_than_8_bytes_is_not_kept() {
        #[repr(align(16))]
        struct Wide;
        assert!(Recycler::new().slot(1, &kept_type::<Wide>()).is_none());
    }
}
