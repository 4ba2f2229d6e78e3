//! Reading and validating in one call: `decode_validated` for generated
//! messages ([`DecodeValidated`]), their views ([`DecodeViewValidated`])
//! and [`DynamicMessage`](crate::reflect::DynamicMessage).
//!
//! The rules run on the message just decoded, while it is still in cache,
//! and give exactly the violations `decode` then `validate` gives: a field
//! the input repeats is checked once, as its last (or merged) value, and
//! rules that see the whole message (CEL on messages, `required`, oneof
//! rules, `unique`) see all of it.

use core::fmt;

use super::{Error, Validate, ValidateOptions};
use crate::{DecodeError, DecodeOptions, Message, View};

/// Why `decode_validated` refused its input: it did not decode, or the
/// message it holds breaks its rules.
#[derive(Clone, Debug, PartialEq)]
pub enum Rejected {
    /// The bytes are not a valid encoding of the type.
    Decode(DecodeError),
    /// The message decoded, and is not valid (or its rules failed).
    Invalid(Error),
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejected::Decode(e) => write!(f, "decode error: {e}"),
            Rejected::Invalid(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Rejected {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Rejected::Decode(e) => Some(e),
            Rejected::Invalid(e) => Some(e),
        }
    }
}

impl From<DecodeError> for Rejected {
    fn from(e: DecodeError) -> Self {
        Rejected::Decode(e)
    }
}

impl From<Error> for Rejected {
    fn from(e: Error) -> Self {
        Rejected::Invalid(e)
    }
}

/// `decode_validated` and `fast_read_validated` for every generated
/// message with validation (generated with `validate=true`).
///
/// ```ignore
/// use fastrs::validate::DecodeValidated;
/// let request = CreateAccountRequest::decode_validated(&bytes)?;
/// ```
pub trait DecodeValidated: Message + Validate {
    /// Decodes `buf` and validates the message, with the default limits
    /// and options.
    ///
    /// # Errors
    /// The bytes do not decode, or the message is not valid.
    fn decode_validated(buf: &[u8]) -> Result<Self, Rejected> {
        Self::decode_validated_with(buf, &DecodeOptions::default(), &ValidateOptions::default())
    }

    /// Decodes `buf` under `decode` and validates the message with
    /// `validate`.
    ///
    /// # Errors
    /// As [`DecodeValidated::decode_validated`].
    fn decode_validated_with(buf: &[u8], decode: &DecodeOptions, validate: &ValidateOptions) -> Result<Self, Rejected> {
        let mut message = Self::default();
        message.fast_read_with(buf, decode)?;
        message.validate_with(validate)?;
        Ok(message)
    }

    /// Merges `buf` into `self`, as [`Message::fast_read`] does, and
    /// validates the result (to read into a reused message, `clear` it
    /// first: its buffers are kept).
    ///
    /// # Errors
    /// As [`DecodeValidated::decode_validated`]; `self` holds what was
    /// read either way.
    fn fast_read_validated(&mut self, buf: &[u8]) -> Result<(), Rejected> {
        self.fast_read(buf)?;
        self.validate()?;
        Ok(())
    }
}

impl<M: Message + Validate> DecodeValidated for M {}

/// `decode_validated` for the views of generated messages with validation
/// (generated with `views=true` and `validate=true`).
pub trait DecodeViewValidated<'a>: View<'a> + Validate {
    /// Reads a view of `buf` and validates it.
    ///
    /// # Errors
    /// The bytes do not decode, or the message is not valid.
    fn decode_validated(buf: &'a [u8]) -> Result<Self, Rejected> {
        let view = Self::decode(buf)?;
        view.validate()?;
        Ok(view)
    }
}

impl<'a, V: View<'a> + Validate> DecodeViewValidated<'a> for V {}

impl crate::reflect::DynamicMessage {
    /// Decodes `buf` as a message of type `ty` and validates it by the
    /// type's rules.
    ///
    /// # Errors
    /// The bytes do not decode, or the message is not valid.
    pub fn decode_validated(ty: crate::reflect::MessageDescriptor, buf: &[u8]) -> Result<Self, Rejected> {
        let message = Self::decode(ty, buf)?;
        message.validate()?;
        Ok(message)
    }
}
