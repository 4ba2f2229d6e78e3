//! `Any`: a message of any type with the URL that names its type.

use alloc::format;

use super::Any;
use crate::{DecodeError, Message};

/// The URL prefix protobuf uses for type URLs.
const TYPE_URL_PREFIX: &str = "type.googleapis.com/";

impl Any {
    /// Wraps `message`, naming its type as `type.googleapis.com/<full name>`.
    pub fn pack<M: Message>(message: &M) -> Self {
        Any {
            type_url: format!("{TYPE_URL_PREFIX}{}", M::FULL_NAME),
            value: message.encode_to_vec(),
            ..Default::default()
        }
    }

    /// The full message name in the type URL (what follows its last `/`).
    #[must_use]
    pub fn type_name(&self) -> &str {
        self.type_url
            .rsplit_once('/')
            .map_or(self.type_url.as_str(), |(_, name)| name)
    }

    /// True if this holds an `M`.
    #[must_use]
    pub fn is<M: Message>(&self) -> bool {
        self.type_name() == M::FULL_NAME
    }

    /// The message, if this holds an `M`; `Ok(None)` if it holds another type.
    ///
    /// # Errors
    /// The value does not decode as an `M`.
    pub fn unpack<M: Message>(&self) -> Result<Option<M>, DecodeError> {
        if self.is::<M>() {
            M::decode(&self.value).map(Some)
        } else {
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Duration, Timestamp};
    use super::*;

    #[test]
    fn pack_and_unpack() {
        let ts = Timestamp {
            seconds: 5,
            nanos: 6,
            ..Default::default()
        };
        let any = Any::pack(&ts);
        assert_eq!(any.type_url, "type.googleapis.com/google.protobuf.Timestamp");
        assert!(any.is::<Timestamp>());
        assert_eq!(any.unpack::<Timestamp>(), Ok(Some(ts)));
        assert_eq!(any.unpack::<Duration>(), Ok(None));
    }
}
