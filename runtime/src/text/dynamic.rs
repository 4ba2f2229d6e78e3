//! The text format of [`DynamicMessage`]s: printed and parsed through their
//! descriptors' pool, as generated messages are through the registry's.

use std::string::String;

use super::{decode_options, invalid, parse, print_bytes, Error, ParseOptions, PrintOptions};
use crate::reflect::{DynamicMessage, MessageDescriptor};

impl DynamicMessage {
    /// The message on one line, as [`to_string`](super::to_string) prints a
    /// generated one. `Any` values whose type the pool knows are expanded.
    #[must_use]
    pub fn to_text(&self) -> String {
        self.to_text_with(PrintOptions::new())
    }

    /// The message one field per line, as `protoc --decode` prints it.
    #[must_use]
    pub fn to_text_pretty(&self) -> String {
        self.to_text_with(PrintOptions::new().multi_line(true))
    }

    /// The message printed with `options`.
    #[must_use]
    pub fn to_text_with(&self, options: PrintOptions) -> String {
        let descriptor = self.descriptor();
        print_bytes(
            descriptor.pool().tables(),
            Some(descriptor.data()),
            &self.encode_to_vec(),
            options,
        )
    }

    /// Parses a message of type `descriptor` from text, strictly.
    ///
    /// # Errors
    /// As [`from_str`](super::from_str).
    pub fn parse_text(descriptor: MessageDescriptor, text: &str) -> Result<Self, Error> {
        Self::parse_text_with(descriptor, text, ParseOptions::new())
    }

    /// Parses a message of type `descriptor` from text with `options`.
    ///
    /// # Errors
    /// As [`from_str`](super::from_str).
    pub fn parse_text_with(descriptor: MessageDescriptor, text: &str, options: ParseOptions) -> Result<Self, Error> {
        let pool = descriptor.pool().tables();
        let parser = parse::Parser::new(text, pool, options.ignore_unknown_fields, options.recursion_limit);
        let bytes = parser.parse(descriptor.data())?;
        DynamicMessage::decode_with(descriptor, &bytes, &decode_options(options)).map_err(invalid)
    }
}
