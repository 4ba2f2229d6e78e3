//! [`OwnedView`]: a view that owns the bytes it reads.

#![allow(unsafe_code)]

use bytes::Bytes;

use super::{HasView, View};
use crate::error::DecodeError;
use crate::options::DecodeOptions;

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
    // Declared before `bytes`, so dropped before them.
    view: M::View<'static>,
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
        Ok(Self { view, bytes })
    }

    /// The view.
    #[must_use]
    pub fn get(&self) -> &M::View<'_> {
        M::reborrow(&self.view)
    }

    /// The bytes the view reads.
    #[must_use]
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// Gives back the bytes.
    #[must_use]
    pub fn into_bytes(self) -> Bytes {
        self.bytes
    }

    /// The owned message with the same contents.
    #[must_use]
    pub fn to_message(&self) -> M {
        self.get().to_message()
    }
}

impl<M: HasView> Clone for OwnedView<M> {
    fn clone(&self) -> Self {
        Self {
            view: self.view.clone(),
            bytes: self.bytes.clone(),
        }
    }
}

impl<M: HasView> core::fmt::Debug for OwnedView<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.get().fmt(f)
    }
}
