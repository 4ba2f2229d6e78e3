//! Field containers: how repeated, packed and map fields (and extensions,
//! and chains of one message type) are sized, written and read, over the
//! per-value codecs of `crate::codec`.

pub(crate) mod chain;
pub(crate) mod extension;
pub(crate) mod map;
pub(crate) mod repeated;
