//! What generated code calls (see the crate's `__private`).

pub use crate::codec::enums::{merge_packed_closed, read_closed_enum};
pub use crate::codec::message::{len_delimited_size, merge_message};
pub use crate::codec::packed::{merge_packed, size_packed, write_packed};
pub use crate::codec::*;
pub use crate::field::map::{
    map_run_length, read_map_entry, read_map_entry_closed, read_map_entry_into, size_map, write_map,
};
pub use crate::field::repeated::{merge_message_run, reserve_run, size_repeated, write_repeated};
pub use crate::message::recycle::Reusable;
pub use crate::Recycler;

/// Out-of-line field codecs, for code generated in size mode.
pub mod compact {
    pub use crate::outline::*;
}

/// Decode tables, for code generated in size mode.
pub mod table {
    pub use crate::table::*;
    pub use crate::{__table as table, __table_methods as methods};
}

/// The ops of table entries, beside the codecs they take, so that an
/// entry reads `__fastrs::Optional<__fastrs::Tab<T>>`.
pub use crate::table::{Expanded, ExpandedClosed, Implicit, ImplicitClosed, Optional, OptionalClosed};
pub use crate::table::{Member, Packed, PackedClosed, Repeated, Tab, TabBox};

/// What generated views call.
pub mod view {
    pub use crate::view::support::{add_source, check_str, merge, merge_implicit, merge_member, push, Records};
    pub use crate::view::Source;

    /// The same, out of line, for views of size-mode messages.
    pub mod compact {
        pub use crate::outline::{
            view_merge as merge, view_merge_implicit as merge_implicit, view_merge_value as merge_value,
        };
    }
}

/// Chains of messages of one type, sized and written in a loop.
pub mod chain {
    pub use crate::field::chain::*;
}

/// Runs `write` on a writer over `len` zeroed bytes and returns them,
/// checking that it wrote all of them (for tests of codecs; writers are
/// otherwise only made by encoders).
///
/// # Panics
/// If `write` writes more or fewer than `len` bytes.
///
/// The writer's lifetime is `write`'s own, so it cannot be swapped with
/// the writer an encoder handed to a `write_backward`:
///
/// ```compile_fail
/// fn rogue(w: &mut fastrs::Writer<'_>) {
///     let _ = fastrs::__private::write_exactly(0, |inner| core::mem::swap(w, inner));
/// }
/// ```
#[must_use]
pub fn write_exactly(len: usize, write: impl FnOnce(&mut crate::Writer<'_>)) -> alloc::vec::Vec<u8> {
    let mut buf = alloc::vec![0; len];
    let mut w = crate::Writer::new(&mut buf);
    write(&mut w);
    assert_eq!(w.remaining(), 0, "fastrs: wrote fewer bytes than asked");
    buf
}

/// The version of this interface that generated code was made for.
pub const GENERATED_CODE_V3: () = ();

pub use crate::__requires_validate as requires_validate;
pub use crate::{__descriptor_sets as descriptor_sets, __requires_descriptor as requires_descriptor};

/// What generated validators call.
#[cfg(feature = "validate")]
pub mod validate {
    pub use crate::validate::support::*;
}

/// The JSON half of the interface.
#[cfg(feature = "json")]
pub mod json {
    pub use crate::json::codec::{JsonCodec, JsonKey, List, ListSeed, MapOf, MapSeed, Single, SingleSeed};
    pub use crate::json::extensions::{read_extension, write_extensions};
    pub use crate::json::read::Read;
    pub use crate::json::support::{
        deserialize_object, next_list, next_map, next_value, oneof_set_twice, read_object, JsonFields,
    };
}
