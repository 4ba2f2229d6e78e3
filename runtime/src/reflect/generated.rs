//! Generated messages in reflection: their descriptors, and conversions to
//! and from [`DynamicMessage`].
//!
//! The conversions transcode (encode on one side, decode on the other)
//! rather than reflect on the generated struct in place: they cost one
//! encode and one decode (on the benchmark's Go message, about 20 ns to
//! encode and 160 ns for the dynamic decode), and they keep generated code
//! free of per-field reflection tables.

use super::{registry, DescriptorPool, DynamicMessage, MessageDescriptor};
use crate::{DecodeError, Described};

/// Reflection on generated messages with descriptors (`descriptors=true`):
/// implemented for every [`Described`] message.
///
/// ```
/// # use fastrs::reflect::{ReflectMessage, Value};
/// use fastrs::well_known::Duration;
/// let d = Duration { seconds: 90, nanos: 0, ..Default::default() };
/// assert_eq!(Duration::descriptor().full_name(), "google.protobuf.Duration");
/// let dynamic = d.to_dynamic()?;
/// assert_eq!(dynamic.get_by_name("seconds"), Some(&Value::I64(90)));
/// assert_eq!(Duration::from_dynamic(&dynamic)?, d);
/// # Ok::<(), fastrs::DecodeError>(())
/// ```
pub trait ReflectMessage: Described {
    /// The message's descriptor, from the process's registry
    /// ([`DescriptorPool::global`]), which this adds the message's
    /// package to on first use.
    ///
    /// # Panics
    /// If the message's embedded descriptors do not link (they come from
    /// protoc or fastrs's parser, which check them).
    #[must_use]
    fn descriptor() -> MessageDescriptor {
        if let Some(found) = registry::described::<Self>().get_message_by_name(Self::FULL_NAME) {
            return found;
        }
        // The registry holds other files under this message's file names
        // (a set registered by hand): a pool of the message's own sets.
        let mut pool = DescriptorPool::new();
        pool.add_described::<Self>()
            .unwrap_or_else(|e| panic!("{}'s embedded descriptors do not link: {e}", Self::FULL_NAME));
        pool.get_message_by_name(Self::FULL_NAME)
            .unwrap_or_else(|| panic!("{}'s embedded descriptors do not declare it", Self::FULL_NAME))
    }

    /// The message as a [`DynamicMessage`] of its type.
    ///
    /// # Errors
    /// The message nests deeper than the default recursion limit (100
    /// levels), which dynamic decoding keeps to, or lacks a `required`
    /// field.
    fn to_dynamic(&self) -> Result<DynamicMessage, DecodeError> {
        let options = crate::DecodeOptions {
            max_input_bytes: usize::MAX,
            ..crate::DecodeOptions::default()
        };
        DynamicMessage::decode_with(Self::descriptor(), &self.encode_to_vec(), &options)
    }

    /// The message a [`DynamicMessage`] holds, of any type whose encoding
    /// this message reads (its own type, usually).
    ///
    /// # Errors
    /// As decoding: a `required` field missing, or a type whose encoding
    /// does not decode as this message.
    fn from_dynamic(message: &DynamicMessage) -> Result<Self, DecodeError> {
        Self::decode(&message.encode_to_vec())
    }
}

impl<M: Described> ReflectMessage for M {}

impl crate::Mask {
    /// The mask of the fields `paths` name in message `M`, as a
    /// `google.protobuf.FieldMask` names them: a field's name, with `.`
    /// between a message field and a field inside it (`address.city`).
    /// `M` must carry its descriptors (generator option `descriptors=true`).
    ///
    /// # Errors
    /// A path names no field, or goes inside a field that is not a message.
    pub fn from_paths<M: Described>(paths: &[impl AsRef<str>]) -> Result<Self, crate::MaskPathError> {
        let root = M::descriptor();
        let mut mask = Self::new();
        for path in paths {
            let path = path.as_ref();
            let error = || crate::MaskPathError::new(path);
            let mut message = root.clone();
            let mut numbers = std::vec::Vec::new();
            let mut segments = path.split('.').peekable();
            while let Some(segment) = segments.next() {
                let field = message.get_field_by_name(segment).ok_or_else(error)?;
                numbers.push(field.number());
                if segments.peek().is_some() {
                    let super::Kind::Message(inner) = field.kind() else {
                        return Err(error());
                    };
                    message = inner;
                }
            }
            mask = mask.with_path(&numbers);
        }
        Ok(mask)
    }
}
