//! The one way into a decode, shared by owned messages (speed and size
//! mode, plain and shared input) and views: the input's size limit, then
//! the merge, with any error placed in the top-level message.

use crate::message::options::DecodeOptions;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;

/// Runs `merge` over `r` (a reader over `len` bytes of input) at the
/// recursion limit of `options`, after checking `len` against its size
/// limit; errors are located in message `name`.
///
/// # Errors
/// The input is over the size limit, or `merge`'s error.
#[inline(always)]
pub(crate) fn enter<'a, T>(
    len: usize,
    mut r: Reader<'a>,
    options: &DecodeOptions,
    name: &'static str,
    merge: impl FnOnce(&mut Reader<'a>, u32) -> Result<T, DecodeError>,
) -> Result<T, DecodeError> {
    if len > options.max_input_bytes {
        let e = DecodeError::new(DecodeErrorKind::InputTooLarge, options.max_input_bytes);
        return Err(e.within(name, 0));
    }
    merge(&mut r, options.recursion_limit).map_err(|e| e.within(name, r.field()))
}
