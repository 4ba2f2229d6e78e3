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
        match self.spare.as_mut().and_then(|spare| T::pool(spare).pop()) {
            Some(mut buffer) => {
                buffer.empty();
                buffer
            }
            None => T::default(),
        }
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
