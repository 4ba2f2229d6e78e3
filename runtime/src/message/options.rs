//! [`DecodeOptions`]: the limits a decode runs under.

use crate::wire::DEFAULT_RECURSION_LIMIT;

/// Limits for decoding untrusted input. The defaults are safe for bytes from
/// strangers; raise them for trusted data that needs more.
///
/// ```
/// let deep = fastrs::DecodeOptions { recursion_limit: 1000, ..Default::default() };
/// # let _ = deep;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Messages and groups nested deeper than this fail (default 100).
    pub recursion_limit: u32,
    /// Inputs longer than this fail before any work (default 2 GiB - 1, the
    /// protobuf limit).
    pub max_input_bytes: usize,
    /// Message values and map entries a decode creates may take at most this
    /// many bytes per input byte, plus [`DecodeOptions::allocation_slack`]:
    /// a 2-byte empty element cannot expand into an unbounded struct (default 64).
    pub allocation_ratio: usize,
    /// Bytes of message values allowed whatever the input size (default 1 MiB).
    pub allocation_slack: usize,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            recursion_limit: DEFAULT_RECURSION_LIMIT,
            max_input_bytes: i32::MAX as usize,
            allocation_ratio: 64,
            allocation_slack: 1024 * 1024,
        }
    }
}

impl DecodeOptions {
    /// The allocation budget for an input of `len` bytes.
    #[must_use]
    pub fn allocation_budget(&self, len: usize) -> usize {
        len.saturating_mul(self.allocation_ratio)
            .saturating_add(self.allocation_slack)
    }
}
