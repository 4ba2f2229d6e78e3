//! Decode errors: small `Copy` values that say what went wrong and where.

use core::fmt;

/// What went wrong while decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended in the middle of a tag or a value.
    Truncated,
    /// A varint ran past 10 bytes. (A 10th byte's bits above bit 63 are
    /// dropped, as the reference implementations do.)
    VarintOverflow,
    /// A tag used wire type 6 or 7, which protobuf does not define.
    InvalidWireType(u8),
    /// A tag carried field number 0, or its varint was longer than five
    /// bytes or did not fit in 32 bits.
    InvalidFieldNumber,
    /// A length prefix pointed past the end of the enclosing message.
    LengthOutOfBounds,
    /// A `string` field held bytes that are not UTF-8.
    InvalidUtf8,
    /// A packed fixed-width field's length is not a multiple of the element width.
    PackedLengthMismatch,
    /// An END_GROUP tag appeared without a matching START_GROUP.
    UnexpectedEndGroup,
    /// An END_GROUP tag closed a group with another field number.
    EndGroupMismatch,
    /// A group was still open when its enclosing message ended.
    UnterminatedGroup,
    /// Messages or groups nested deeper than the recursion limit.
    RecursionLimit,
    /// The input is longer than [`DecodeOptions::max_input_bytes`](crate::DecodeOptions).
    InputTooLarge,
    /// Decoding would allocate more than the budget of
    /// [`DecodeOptions`](crate::DecodeOptions) allows for this input.
    AllocationLimit,
    /// A proto2 `required` field is not set; [`DecodeError::message_name`] is
    /// the field's full name.
    MissingRequired,
}

impl DecodeErrorKind {
    fn describe(self) -> &'static str {
        match self {
            Self::Truncated => "input ends inside a value",
            Self::VarintOverflow => "varint longer than 10 bytes",
            Self::InvalidWireType(_) => "invalid wire type",
            Self::InvalidFieldNumber => "invalid field number",
            Self::LengthOutOfBounds => "length prefix past the end of the message",
            Self::InvalidUtf8 => "invalid UTF-8 in a string field",
            Self::PackedLengthMismatch => "packed length is not a multiple of the element size",
            Self::UnexpectedEndGroup => "END_GROUP tag without a matching START_GROUP",
            Self::EndGroupMismatch => "END_GROUP tag does not match the open group",
            Self::UnterminatedGroup => "group not closed before the end of its message",
            Self::RecursionLimit => "nesting deeper than the recursion limit",
            Self::MissingRequired => "missing required field",
            Self::InputTooLarge => "input larger than the configured maximum",
            Self::AllocationLimit => "decoding would allocate more than the configured budget",
        }
    }
}

/// A decode failure: its kind, the byte offset in the input where it was found,
/// and the innermost message and field being decoded at the time.
///
/// The value is small and `Copy`, and building it never allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    field: u32,
    offset: usize,
    message: &'static str,
}

impl DecodeError {
    /// An error of `kind` found at byte `offset` of the input.
    #[cold]
    #[must_use]
    pub fn new(kind: DecodeErrorKind, offset: usize) -> Self {
        Self {
            kind,
            field: 0,
            offset,
            message: "",
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The byte offset in the input at which the problem was found.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The number of the field being decoded, if the error happened inside one.
    pub fn field_number(&self) -> Option<u32> {
        (self.field != 0).then_some(self.field)
    }

    /// The full protobuf name of the innermost message being decoded, if known.
    pub fn message_name(&self) -> Option<&'static str> {
        (!self.message.is_empty()).then_some(self.message)
    }

    /// A required field, named by its full name (`pkg.Msg.field`), is not set.
    #[cold]
    #[must_use]
    pub fn missing_required(field_full_name: &'static str, number: u32) -> Self {
        Self {
            kind: DecodeErrorKind::MissingRequired,
            field: number,
            offset: 0,
            message: field_full_name,
        }
    }

    /// Records the innermost message and field, unless an inner level already did.
    #[cold]
    #[must_use]
    pub(crate) fn within(mut self, message: &'static str, field: u32) -> Self {
        if self.message.is_empty() {
            self.message = message;
            self.field = field;
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.describe())?;
        if self.kind == DecodeErrorKind::MissingRequired {
            return write!(f, " {}", self.message);
        }
        if let DecodeErrorKind::InvalidWireType(w) = self.kind {
            write!(f, " {w}")?;
        }
        write!(f, " at byte {}", self.offset)?;
        if self.field != 0 {
            write!(f, " in field {}", self.field)?;
        }
        if !self.message.is_empty() {
            write!(f, " of {}", self.message)?;
        }
        Ok(())
    }
}

impl core::error::Error for DecodeError {}

/// Why [`Message::encode_to_vec_checked`](crate::Message::encode_to_vec_checked)
/// did not encode: a proto2 `required` field (or editions `LEGACY_REQUIRED`)
/// is not set, in the message or in one it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeError {
    field: &'static str,
    number: u32,
}

impl EncodeError {
    /// The full protobuf name of the missing field (`pkg.Msg.field`).
    #[must_use]
    pub fn missing_field(&self) -> &'static str {
        self.field
    }

    /// The missing field's number.
    #[must_use]
    pub fn field_number(&self) -> u32 {
        self.number
    }
}

impl From<DecodeError> for EncodeError {
    /// The missing field `check_required` reported.
    fn from(e: DecodeError) -> Self {
        Self {
            field: e.message,
            number: e.field,
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode: required field {} is not set", self.field)
    }
}

impl core::error::Error for EncodeError {}
