//! Enums: generated Rust enums, and [`EnumValue`] for open enums that must keep
//! values the schema does not name.

use core::fmt;
use core::hash::{Hash, Hasher};
use core::marker::PhantomData;

/// Implemented by every generated enum.
pub trait Enum: Copy + Eq + Default + fmt::Debug + 'static {
    /// Full protobuf name without the leading dot: `acme.shop.v2.Status`.
    const FULL_NAME: &'static str;
    /// The variant with this number, if the schema names one (aliases map to
    /// their first name).
    fn from_i32(value: i32) -> Option<Self>;
    /// The variant's number.
    fn to_i32(self) -> i32;
    /// The variant's name as written in the `.proto` file.
    fn as_str_name(self) -> &'static str;
    /// The variant named `name` as written in the `.proto` file (an alias names
    /// the variant it aliases).
    fn from_str_name(name: &str) -> Option<Self>;
}

/// The value of an open (proto3) enum field: a known variant of `E` or any other
/// `i32` received on the wire, kept so that re-encoding loses nothing.
///
/// Stored as the bare number, so it costs no more than an `i32`.
pub struct EnumValue<E> {
    value: i32,
    _enum: PhantomData<fn() -> E>,
}

impl<E: Enum> EnumValue<E> {
    /// The value with this number, named by `E` or not.
    #[inline]
    #[must_use]
    pub const fn from_i32(value: i32) -> Self {
        Self {
            value,
            _enum: PhantomData,
        }
    }

    /// The number.
    #[inline]
    #[must_use]
    pub const fn to_i32(self) -> i32 {
        self.value
    }

    /// The variant, if `E` names this number.
    #[inline]
    #[must_use]
    pub fn known(self) -> Option<E> {
        E::from_i32(self.value)
    }

    /// True if `E` names this number.
    #[must_use]
    pub fn is_known(self) -> bool {
        self.known().is_some()
    }
}

impl<E: Enum> From<E> for EnumValue<E> {
    #[inline]
    fn from(e: E) -> Self {
        Self::from_i32(e.to_i32())
    }
}

/// Any number: open enums keep numbers their type does not name.
impl<E: Enum> From<i32> for EnumValue<E> {
    #[inline]
    fn from(value: i32) -> Self {
        Self::from_i32(value)
    }
}

impl<E> From<EnumValue<E>> for i32 {
    #[inline]
    fn from(v: EnumValue<E>) -> i32 {
        v.value
    }
}

impl<E: Enum> Default for EnumValue<E> {
    #[inline]
    fn default() -> Self {
        E::default().into()
    }
}

impl<E> Clone for EnumValue<E> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for EnumValue<E> {}

impl<E> PartialEq for EnumValue<E> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<E> Eq for EnumValue<E> {}

impl<E: Enum> PartialEq<E> for EnumValue<E> {
    #[inline]
    fn eq(&self, other: &E) -> bool {
        self.value == other.to_i32()
    }
}

impl<E> Hash for EnumValue<E> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.value.hash(state);
    }
}

impl<E: Enum> fmt::Debug for EnumValue<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.known() {
            Some(e) => e.fmt(f),
            None => write!(f, "Unknown({})", self.value),
        }
    }
}
