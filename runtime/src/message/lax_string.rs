//! [`LaxString`]: a `string` field whose schema does not ask for UTF-8
//! validation (proto2, or editions' `utf8_validation = NONE`).

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

/// The value of a protobuf `string` field that the schema lets hold any bytes:
/// proto2 `string` fields and editions fields with `utf8_validation = NONE`.
/// C++, Java, Go and upb read such fields without checking their UTF-8, so
/// fastrs does too: data they accept decodes here, and a decode followed by
/// an encode gives back exactly the bytes read.
///
/// Valid UTF-8, the overwhelming case, is held as a `String` and reads as
/// `&str` through `Deref` at no cost. Other bytes are kept exactly
/// ([`LaxString::as_bytes`], what encoding writes) beside a lossy text in
/// which each invalid sequence is U+FFFD (what `Deref` then shows, like
/// Java's getter). [`LaxString::as_str`] tells the two apart.
///
/// ```
/// use fastrs::LaxString;
/// let name = LaxString::from("ok");
/// assert_eq!(name, "ok");
/// assert_eq!(name.as_str(), Some("ok"));
/// let raw = LaxString::from(vec![b'a', 0xff]);
/// assert_eq!(raw.as_str(), None);
/// assert_eq!(raw.as_bytes(), [b'a', 0xff]);
/// assert_eq!(&*raw, "a\u{fffd}");
/// ```
#[derive(Clone, Default)]
pub struct LaxString {
    /// The bytes when they are UTF-8; else their lossy decoding.
    text: String,
    /// The bytes, when they are not UTF-8.
    invalid: Option<Box<Invalid>>,
}

/// Boxed so that a `LaxString` holding text is as small as it can be.
#[derive(Clone)]
struct Invalid(Vec<u8>);

impl LaxString {
    /// An empty string.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            text: String::new(),
            invalid: None,
        }
    }

    /// The exact bytes, valid UTF-8 or not: what encoding writes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.invalid {
            Some(bytes) => &bytes.0,
            None => self.text.as_bytes(),
        }
    }

    /// The text, or `None` if the bytes are not UTF-8.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        self.invalid.is_none().then_some(self.text.as_str())
    }

    /// True if the bytes are UTF-8.
    #[must_use]
    pub fn is_utf8(&self) -> bool {
        self.invalid.is_none()
    }

    /// The length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// True for no bytes.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empties the string, keeping the text's allocation.
    pub fn clear(&mut self) {
        self.text.clear();
        self.invalid = None;
    }

    /// The `String`, or the bytes if they are not UTF-8.
    ///
    /// # Errors
    /// The bytes, when they are not UTF-8.
    pub fn into_string(self) -> Result<String, Vec<u8>> {
        match self.invalid {
            Some(bytes) => Err(bytes.0),
            None => Ok(self.text),
        }
    }

    /// The exact bytes.
    #[must_use]
    pub fn into_bytes(self) -> Vec<u8> {
        match self.invalid {
            Some(bytes) => bytes.0,
            None => self.text.into_bytes(),
        }
    }

    /// The text's buffer, for a decoder to fill with validated bytes.
    pub(crate) fn text_for_decode(&mut self) -> &mut String {
        self.invalid = None;
        &mut self.text
    }

    /// Holds `bytes`, which are not UTF-8.
    #[cold]
    pub(crate) fn set_invalid(&mut self, bytes: &[u8]) {
        self.text = String::from_utf8_lossy(bytes).into_owned();
        self.invalid = Some(Box::new(Invalid(bytes.to_vec())));
    }
}

/// The text; for bytes that are not UTF-8, a lossy decoding (see the type's
/// documentation and [`LaxString::as_str`]).
impl Deref for LaxString {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl From<String> for LaxString {
    fn from(text: String) -> Self {
        Self { text, invalid: None }
    }
}

impl From<&str> for LaxString {
    fn from(text: &str) -> Self {
        text.to_owned().into()
    }
}

/// Any bytes: UTF-8 is held as text, anything else as is.
impl From<Vec<u8>> for LaxString {
    fn from(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) => text.into(),
            Err(e) => {
                let mut s = Self::new();
                s.set_invalid(e.as_bytes());
                s
            }
        }
    }
}

impl From<&[u8]> for LaxString {
    fn from(bytes: &[u8]) -> Self {
        bytes.to_vec().into()
    }
}

/// Equal when the bytes are.
impl PartialEq for LaxString {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for LaxString {}

impl PartialEq<str> for LaxString {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for LaxString {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for LaxString {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

/// Hashes the bytes as `str` hashes its own, so text hashes like a `String`.
impl Hash for LaxString {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write(self.as_bytes());
        state.write_u8(0xff);
    }
}

/// Orders by bytes, which for text is `str`'s order.
impl Ord for LaxString {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl PartialOrd for LaxString {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Text as a quoted string; bytes that are not UTF-8 as `\x` escapes.
impl fmt::Debug for LaxString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.invalid.is_none() {
            return fmt::Debug::fmt(&self.text, f);
        }
        f.write_str("\"")?;
        for chunk in self.as_bytes().utf8_chunks() {
            for c in chunk.valid().chars() {
                fmt::Display::fmt(&c.escape_debug(), f)?;
            }
            for b in chunk.invalid() {
                write!(f, "\\x{b:02x}")?;
            }
        }
        f.write_str("\"")
    }
}

/// The text (lossy for bytes that are not UTF-8).
impl fmt::Display for LaxString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.text, f)
    }
}
