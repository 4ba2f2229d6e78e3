//! [`OwnedView`]: a view that owns the bytes it reads.

#![allow(unsafe_code)]

use core::mem::{ManuallyDrop, MaybeUninit};

use bytes::Bytes;

use super::{HasView, View};
use crate::message::options::DecodeOptions;
use crate::wire::error::DecodeError;

/// A view of a `M` together with the [`Bytes`] it was read from: `Send`,
/// `'static` and cheap to move, so it can cross `.await`s and threads, and
/// nothing is copied (a network frame taken with `copy_to_bytes` stays where
/// it is).
///
/// ```ignore
/// let request = fastrs::OwnedView::<Order>::decode(frame)?;
/// route(request.get().customer_id);
/// ```
pub struct OwnedView<M: HasView> {
    /// A view of `bytes`, always initialised (and dropped first, by `Drop`).
    /// Kept in a `MaybeUninit` so that moving an `OwnedView` into a
    /// function does not assert that its references stay valid for the
    /// whole call (as references in a by-value argument otherwise do): the
    /// function may drop the `OwnedView`, and with it their target.
    view: MaybeUninit<M::View<'static>>,
    bytes: Bytes,
}

impl<M: HasView> OwnedView<M> {
    /// Reads a view of `bytes`.
    ///
    /// # Errors
    /// As [`View::decode`].
    pub fn decode(bytes: Bytes) -> Result<Self, DecodeError> {
        Self::decode_with(bytes, &DecodeOptions::default())
    }

    /// [`OwnedView::decode`] under the given limits.
    ///
    /// # Errors
    /// As [`View::decode_with`].
    pub fn decode_with(bytes: Bytes, options: &DecodeOptions) -> Result<Self, DecodeError> {
        // SAFETY: the slice points into the buffer `bytes` owns, which does
        // not move when `bytes` does and lives as long as `self`, which
        // keeps it unchanged (`Bytes` is immutable) and drops the view
        // first. The `'static` lifetime never escapes: `get` hands the
        // view out only at the lifetime of a borrow of `self` (views are
        // covariant, which `HasView::reborrow` proves), and generated views
        // keep no reference beyond themselves (`HasView`'s contract).
        let data: &'static [u8] = unsafe { core::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) };
        let view = M::View::<'static>::decode_with(data, options)?;
        Ok(Self {
            view: MaybeUninit::new(view),
            bytes,
        })
    }

    /// The view.
    #[must_use]
    pub fn get(&self) -> &M::View<'_> {
        // SAFETY: `view` is initialised from construction until `Drop`.
        M::reborrow(unsafe { self.view.assume_init_ref() })
    }

    /// The bytes the view reads.
    #[must_use]
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// Gives back the bytes.
    #[must_use]
    pub fn into_bytes(self) -> Bytes {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never used again and its `Drop` does not run:
        // the view is dropped here once, then the bytes moved out once.
        unsafe {
            this.view.assume_init_drop();
            core::ptr::read(&this.bytes)
        }
    }

    /// The owned message with the same contents.
    #[must_use]
    pub fn to_message(&self) -> M {
        self.get().to_message()
    }
}

impl<M: HasView> Drop for OwnedView<M> {
    fn drop(&mut self) {
        // SAFETY: initialised since construction, dropped only here (or in
        // `into_bytes`, which skips this); before `bytes`, which it reads.
        unsafe { self.view.assume_init_drop() }
    }
}

impl<M: HasView> Clone for OwnedView<M> {
    fn clone(&self) -> Self {
        // The clone's bytes are the same memory (a shared handle), which
        // the cloned view's references point into.
        // SAFETY: initialised from construction until `Drop`.
        let view = unsafe { self.view.assume_init_ref() }.clone();
        Self {
            view: MaybeUninit::new(view),
            bytes: self.bytes.clone(),
        }
    }
}

impl<M: HasView> core::fmt::Debug for OwnedView<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.get().fmt(f)
    }
}
