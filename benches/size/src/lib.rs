//! The benchmark schemas generated in size mode (`protoc_gen_fastrs::Mode::Size`).
//!
//! A crate of their own: beside the speed-mode code in one crate, they would
//! change how the compiler splits that crate into codegen units, and with it
//! what it inlines in the speed-mode code (measured: the page encode lost
//! its inlined repeated-field loop, +22% instructions).

#![allow(clippy::all, missing_docs)]

include!(concat!(env!("OUT_DIR"), "/mod.rs"));
