//! The two macros size-mode code is written with: `table!`, a message's
//! [`Table`](super::Table) as one line per entry, and `methods!`, the
//! `Message` methods that run it. Generated code reaches them as
//! `__fastrs::table::table!` and `__fastrs::table::methods!`.

/// The `const TABLE` of an `impl Tabled`: the message type, the names of
/// its unknown-fields field and of its `Recycler` if it has one, the entry
/// index of each small field number (see
/// [`Table`](crate::__private::table::Table)), then one entry per field
/// number, in ascending order:
///
/// ```text
/// __fastrs::table::table! {
///     Order, unknown_fields, recycle, [0, 0, 0, 1];
///     0x0a id: Implicit<Str>;                  // tag, field: op
///     0x1a | 0x18 lines: Packed<Uint32>;       // tag | its other encoding's
///     0x22 => hooked;                          // a map (or a oneof member
///     0x2a => hooked_read;                     // read by the hooks)
///     0x32 => checked_utf8;                    // a checked string extension
///     0x3a ..= 8 kind = order::Kind::Note: Member<Str>, recycle;  // a oneof
///     0x42 kind = order::Kind::Ref: Member<Tab<Ref>>;    // run's members
/// }
/// ```
///
/// A oneof member names the oneof's field and the member's variant; the
/// first of a run of members (by number, no other field between them)
/// gives the run's last field number (`..= 8`). A string or bytes member
/// whose buffer the oneof keeps when cleared (the message's `clear_hooked`
/// keeps it) names the recycler it is kept in, after a comma: a decode
/// that switches the oneof to the member takes its value from there.
///
/// Each field's type is checked against its op's at compile time, in a
/// closure that is never called (so no code is compiled for it): a raw
/// pointer to the field must have the op's type exactly, with no coercion.
/// That check cost less to compile than [`table_field!`]'s place pointer
/// per entry (Temporal's API: 0.8 s of a 7.5 s debug build).
///
/// ```
/// use fastrs::__private::{table::Tabled, Implicit, Int32};
///
/// #[derive(Clone, Debug, Default, PartialEq)]
/// struct M {
///     n: i32,
///     unknown: fastrs::UnknownFields,
/// }
/// impl fastrs::Message for M {
///     const FULL_NAME: &'static str = "M";
///     fastrs::__private::table::methods!(unknown);
/// }
/// impl Tabled for M {
///     fastrs::__private::table::table! {
///         M, unknown, [0, 0];
///         0x08 n: Implicit<Int32>;
///     }
/// }
/// assert_eq!(fastrs::Message::encode_to_vec(&M { n: 3, ..M::default() }), [0x08, 3]);
/// ```
///
/// A field of another type than its op's does not compile, even one that
/// a reference would coerce to it:
///
/// ```compile_fail
/// use fastrs::__private::{table::Tabled, Implicit, Int32};
///
/// #[derive(Clone, Debug, Default, PartialEq)]
/// struct M {
///     n: Box<i32>,
///     unknown: fastrs::UnknownFields,
/// }
/// impl fastrs::Message for M {
///     const FULL_NAME: &'static str = "M";
///     fastrs::__private::table::methods!(unknown);
/// }
/// impl Tabled for M {
///     fastrs::__private::table::table! {
///         M, unknown, [0, 0];
///         0x08 n: Implicit<Int32>;
///     }
/// }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __table {
    (
        $msg:ident, $unknown:ident $(, $recycle:ident)?, [$($index:literal),* $(,)?];
        $(
            $tag:literal $(| $alt:literal)? $(..= $last:literal)? $(=> $hook:ident)?
            $($field:ident $(= $variant:path)?: $op:ty $(, $kept:ident)?)?;
        )*
    ) => {
        const TABLE: &'static $crate::__private::table::Table<Self> = {
            let _ = |m: &$msg| {
                let _: *const $crate::UnknownFields = &raw const m.$unknown;
                $(let _: *const $crate::Recycler = &raw const m.$recycle;)?
                $($($crate::__table_entry!(@check m, $field $(= $variant)?: $op $(, $kept)?);)?)*
            };
            // SAFETY (each `FieldAt::offset`): the closure above checks
            // that the field has the entry's type.
            &$crate::__private::table::Table::new(
                [$($crate::__table_entry!(
                    $msg, $tag $(| $alt)? $(..= $last)? $(=> $hook)? $($field $(= $variant)?: $op $(, $kept)?)?
                )),*],
                &[$($index),*],
                unsafe { $crate::__private::table::FieldAt::offset(::core::mem::offset_of!($msg, $unknown)) },
            )
            $(.recycled(unsafe {
                $crate::__private::table::FieldAt::offset(::core::mem::offset_of!($msg, $recycle))
            }))?
        };
    };
}

/// One entry of [`__table!`]'s table, or (`@check`) the type check of a
/// field's entry.
#[doc(hidden)]
#[macro_export]
macro_rules! __table_entry {
    ($msg:ident, $tag:literal => $hook:ident) => {
        $crate::__private::table::Entry::<$msg>::$hook($tag)
    };
    ($msg:ident, $tag:literal $(| $alt:literal)? $field:ident: $op:ty) => {
        $crate::__private::table::Entry::new::<$op>(
            $tag,
            // The other tag, or 0: `0 | alt` is `alt`.
            0 $(| $alt)?,
            unsafe { $crate::__private::table::FieldAt::offset(::core::mem::offset_of!($msg, $field)) },
        )
    };
    ($msg:ident, $tag:literal $(..= $last:literal)? $field:ident = $variant:path: $op:ty $(, $kept:ident)?) => {
        $crate::__private::table::Entry::<$msg>::member($tag, {
            // Functions rather than closures: a closure made a function
            // pointer costs a shim of its own. `#[inline]`, as the table
            // is a constant: only a crate that uses the message compiles
            // them.
            #[inline]
            fn get(m: &$msg) -> ::core::option::Option<&<$op as $crate::__private::table::MemberOp>::Value> {
                match &m.$field {
                    ::core::option::Option::Some($variant(v)) => {
                        ::core::option::Option::Some(::core::borrow::Borrow::borrow(v))
                    }
                    _ => ::core::option::Option::None,
                }
            }
            #[inline]
            fn select(m: &mut $msg) -> &mut <$op as $crate::__private::table::MemberOp>::Value {
                if !::core::matches!(m.$field, ::core::option::Option::Some($variant(_))) {
                    $crate::__private::table::switch(&mut m.$field, $variant($crate::__table_entry!(@fresh m $(, $kept)?)));
                }
                match &mut m.$field {
                    ::core::option::Option::Some($variant(v)) => ::core::borrow::BorrowMut::borrow_mut(v),
                    _ => ::core::unreachable!(),
                }
            }
            // The run's last field number, or 0: `0 | last` is `last`.
            const AT: $crate::__private::table::MemberAt =
                $crate::__private::table::MemberAt::new::<$msg, $op>(get, select, 0 $(| $last)?);
            &AT
        })
    };
    // A member's value, when the oneof switches to it: a default one, or
    // a buffer the oneof kept in the recycler `$kept`.
    (@fresh $m:ident) => {
        $crate::__private::table::fresh()
    };
    (@fresh $m:ident, $kept:ident) => {
        $m.$kept.spare()
    };
    // A member's functions are typed: no check needed.
    (@check $m:ident, $field:ident = $variant:path: $op:ty $(, $kept:ident)?) => {};
    (@check $m:ident, $field:ident: $op:ty) => {
        let _: *const <$op as $crate::__private::table::FieldOp>::Field = &raw const $m.$field;
    };
}

/// The `Message` methods of a size-mode message, given the name of its
/// unknown-fields field: each one call into the runtime with the type's
/// table, erased at compile time, so that no generic code is compiled per
/// type (a debug build would compile a generic wrapper once per type).
/// Each is `#[inline]`, so that only the crates that call it compile it: a
/// crate of generated code compiles none of them.
#[doc(hidden)]
#[macro_export]
macro_rules! __table_methods {
    ($unknown:ident) => {
        // SAFETY (each call): the table is `Self`'s, and the pointer is
        // `self`, borrowed as the interpreter's contract asks.
        #[inline]
        fn size(&self) -> usize {
            unsafe {
                $crate::__private::table::run::size(
                    $crate::__private::table::erased::<Self>(),
                    self as *const Self as *const u8,
                )
            }
        }

        #[inline]
        fn write_backward(&self, w: &mut $crate::Writer<'_>) {
            unsafe {
                $crate::__private::table::run::write_backward(
                    $crate::__private::table::erased::<Self>(),
                    self as *const Self as *const u8,
                    w,
                )
            }
        }

        #[inline]
        fn merge_from(
            &mut self,
            r: &mut $crate::Reader<'_>,
            depth: u32,
        ) -> ::core::result::Result<(), $crate::DecodeError> {
            unsafe {
                $crate::__private::table::run::merge(
                    $crate::__private::table::erased::<Self>(),
                    self as *mut Self as *mut u8,
                    r,
                    depth,
                )
            }
        }

        #[inline]
        fn clear(&mut self) {
            unsafe {
                $crate::__private::table::run::clear(
                    $crate::__private::table::erased::<Self>(),
                    self as *mut Self as *mut u8,
                )
            }
        }

        #[inline]
        fn unknown_fields(&self) -> &$crate::UnknownFields {
            &self.$unknown
        }

        #[inline]
        fn unknown_fields_mut(&mut self) -> &mut $crate::UnknownFields {
            &mut self.$unknown
        }

        #[inline]
        fn fast_read_partial(
            &mut self,
            buf: &[u8],
            options: &$crate::DecodeOptions,
        ) -> ::core::result::Result<(), $crate::DecodeError> {
            unsafe {
                $crate::__private::table::run::read_partial(
                    $crate::__private::table::erased::<Self>(),
                    self as *mut Self as *mut u8,
                    Self::FULL_NAME,
                    buf,
                    options,
                )
            }
        }

        #[inline]
        fn encode_append(&self, out: &mut $crate::alloc::vec::Vec<u8>) {
            unsafe {
                $crate::__private::table::run::encode_append(
                    $crate::__private::table::erased::<Self>(),
                    self as *const Self as *const u8,
                    out,
                    Self::FULL_NAME,
                )
            }
        }

        #[inline]
        fn encode_to_vec(&self) -> $crate::alloc::vec::Vec<u8> {
            unsafe {
                $crate::__private::table::run::encode_to_vec(
                    $crate::__private::table::erased::<Self>(),
                    self as *const Self as *const u8,
                    Self::FULL_NAME,
                )
            }
        }
    };
}
