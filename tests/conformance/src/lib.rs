//! The conformance testee's logic, as a library so tests can build requests and
//! read responses with the same generated types.
//!
//! Built without Google's schemas beside the repository (see [`NOTICE`]), it
//! holds only that notice.

/// Where the testee's schemas and the runner come from, in one line.
pub const NOTICE: &str = include_str!("notice.txt");

#[cfg(conformance_schemas)]
mod testee;
#[cfg(conformance_schemas)]
pub use testee::*;
