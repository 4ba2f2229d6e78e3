//! [`Described`]: messages that carry their schema.

use crate::message::Message;

/// A message generated with its descriptors embedded (generator option
/// `descriptors=true`, `Builder::file_descriptors()`): what the text format
/// (`fastrs::text`, feature `text`), gRPC server reflection, `Any`
/// resolution and tools that print or parse messages by schema need.
///
/// The set holds the `.proto` files of the message's package that were
/// generated together, without source info (comments and spans); files they
/// import are in their own packages' sets. With the `descriptor` feature,
/// decode it as a `fastrs::descriptor::FileDescriptorSet` and find the
/// message with `FileDescriptorSet::message(Self::FULL_NAME)`.
pub trait Described: Message {
    /// The encoded `google.protobuf.FileDescriptorSet` that declares this
    /// message (the package's `FILE_DESCRIPTOR_SET` constant).
    const FILE_DESCRIPTOR_SET: &'static [u8];

    /// The `FILE_DESCRIPTOR_SET`s of the packages this message's package
    /// imports, directly or not, that were generated with descriptors too
    /// (and those of the well-known types the runtime ships): with
    /// [`Described::FILE_DESCRIPTOR_SET`], every type its fields can hold.
    /// Packages mapped with `extern_path` are not included.
    const IMPORTED_DESCRIPTOR_SETS: &'static [&'static [u8]] = &[];
}
