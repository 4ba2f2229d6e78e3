//! `fastrs::descriptor` without the `descriptor` feature: only the options
//! messages of `google/protobuf/descriptor.proto`, the ones custom options
//! extend (`extend google.protobuf.FieldOptions { ... }`), as opaque
//! messages that keep every field as an unknown field.
//!
//! They let a schema that declares custom options compile against the
//! default runtime: its extension constants name these types. Every
//! extension lives in unknown fields, so the typed extension API reads and
//! writes options on them as on the full types (`NOTE.get(&options)`).
//! The descriptors that hold options (`FieldDescriptorProto` and the rest)
//! come with the `descriptor` feature, which replaces these types with the
//! full ones: fields, views, JSON and embedded descriptors. Code written
//! against these compiles against those.

use crate::message::Message;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::writer::Writer;

/// Declares opaque messages named as in descriptor.proto.
macro_rules! opaque_messages {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!(
            "`google.protobuf.", stringify!($name), "`, opaque: every field is kept in ",
            "[`unknown_fields`](Self::unknown_fields), where custom options (extensions) ",
            "live. The `descriptor` feature makes it the full message."
        )]
        #[derive(Clone, Debug, Default, PartialEq)]
        #[non_exhaustive]
        pub struct $name {
            /// Every field of the message, as encoded.
            pub unknown_fields: UnknownFields,
        }

        impl Message for $name {
            const FULL_NAME: &'static str = concat!("google.protobuf.", stringify!($name));

            fn size(&self) -> usize {
                self.unknown_fields.len()
            }

            fn write_backward(&self, w: &mut Writer<'_>) {
                self.unknown_fields.write(w);
            }

            fn merge_from(&mut self, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
                while !r.is_empty() {
                    let tag = r.read_tag()?;
                    r.skip_field(tag, depth, &mut self.unknown_fields)?;
                }
                Ok(())
            }

            fn clear(&mut self) {
                self.unknown_fields.clear();
            }

            fn unknown_fields(&self) -> &UnknownFields {
                &self.unknown_fields
            }

            fn unknown_fields_mut(&mut self) -> &mut UnknownFields {
                &mut self.unknown_fields
            }
        }
    )*};
}

opaque_messages!(
    FileOptions,
    MessageOptions,
    FieldOptions,
    OneofOptions,
    EnumOptions,
    EnumValueOptions,
    ServiceOptions,
    MethodOptions,
    ExtensionRangeOptions,
    FeatureSet,
);

/// The encoded `google.protobuf.FileDescriptorSet` of
/// `google/protobuf/descriptor.proto`, the same bytes as with the
/// `descriptor` feature. Packages that declare custom options import
/// descriptor.proto, and their embedded descriptors name this set among
/// their imports, so they join a descriptor pool (JSON's and the text
/// format's registry among them) without the feature.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!("../generated/descriptor.pb");

#[cfg(test)]
mod tests {
    use super::*;

    /// What `extend google.protobuf.FieldOptions { string note = 50002; }`
    /// generates.
    const NOTE: crate::Extension<FieldOptions, crate::__private::Str> = crate::Extension::new(50_002);

    #[test]
    fn options_round_trip_and_custom_options_read_from_them() {
        // deprecated = true (field 3), then (note) = "field".
        let bytes = [0x18, 0x01, 0x92, 0xb5, 0x18, 0x05, b'f', b'i', b'e', b'l', b'd'];
        let options = FieldOptions::decode(&bytes).unwrap();
        assert_eq!(options.encode_to_vec(), bytes);
        assert_eq!(NOTE.get(&options).unwrap().as_deref(), Some("field"));
        let mut built = FieldOptions::default();
        NOTE.set(&mut built, &"x".to_string());
        assert_eq!(NOTE.get(&built).unwrap().as_deref(), Some("x"));
        assert!(FieldOptions::decode(&[0x92, 0xb5, 0x18, 0x05]).is_err(), "truncated");
    }

    /// A package of custom options links against this set, as generated
    /// code registers it: `register_package(ITS_SET, &[FILE_DESCRIPTOR_SET])`.
    #[cfg(feature = "reflect")]
    #[test]
    fn custom_options_packages_register_without_the_feature() {
        use crate::reflect::DescriptorPool;
        // `extend google.protobuf.FieldOptions { optional string note = 50002; }`
        // in `notes.proto` (package `notes`), encoded by hand.
        let extension = [
            &[0x0a, 0x04][..],
            b"note",
            &[0x12, 0x1d],
            b".google.protobuf.FieldOptions",
            &[0x18, 0xd2, 0x86, 0x03, 0x20, 0x01, 0x28, 0x09],
        ]
        .concat();
        let mut file = [
            &[0x0a, 0x0b][..],
            b"notes.proto",
            &[0x12, 0x05],
            b"notes",
            &[0x1a, 0x20],
        ]
        .concat();
        file.extend_from_slice(b"google/protobuf/descriptor.proto");
        file.push(0x3a);
        file.push(u8::try_from(extension.len()).unwrap());
        file.extend_from_slice(&extension);
        let mut set = std::vec![0x0a, u8::try_from(file.len()).unwrap()];
        set.extend_from_slice(&file);
        let set: &'static [u8] = std::vec::Vec::leak(set);
        DescriptorPool::register_package(set, &[FILE_DESCRIPTOR_SET]);
        let note = DescriptorPool::global()
            .get_extension_by_name("notes.note")
            .expect("registered");
        assert_eq!(note.containing_message().full_name(), "google.protobuf.FieldOptions");
    }
}
