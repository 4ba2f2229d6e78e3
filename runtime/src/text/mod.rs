//! The protobuf text format (the `text` feature): what `protoc --decode`
//! prints, `.txtpb` files hold and tests and configs are written in.
//!
//! ```ignore
//! let text = fastrs::text::to_string_pretty(&order);
//! // id: 7
//! // lines {
//! //   sku: "A-1"
//! //   quantity: 2
//! // }
//! let back: Order = fastrs::text::from_str(&text)?;
//! ```
//!
//! It follows the [text format
//! specification](https://protobuf.dev/reference/protobuf/textformat-spec/)
//! and passes the conformance suite's text tests. Printing gives fields in
//! number order, map entries sorted by key, floats in their shortest exact
//! form, strings with valid UTF-8 kept and other bytes escaped, and known
//! `Any` values expanded (`[type.googleapis.com/pkg.Msg] { ... }`). Parsing
//! takes everything the specification allows (`:` before messages or not,
//! `{}` or `<>`, `;` or `,` after fields, `[1, 2]` lists, `#` comments,
//! enums by name or number, hex and octal integers, every string escape,
//! `[pkg.ext]` extensions, group names) and merges like binary decoding: a
//! singular field given twice keeps the last value, repeated fields append.
//! Errors name the line and column.
//!
//! # Descriptors
//!
//! The format is driven by descriptors, not by generated code: messages
//! need `Builder::file_descriptors()` (plugin option `descriptors=true`),
//! which makes them [`Described`]. A message's first use here registers its
//! package's descriptors and those of the packages it imports, so `Any`
//! values of those types expand; [`register`] adds any other package. Each
//! call encodes (or decodes) the message once and walks the bytes with its
//! descriptor: text is for people, and this keeps the generated code free
//! of per-message printing and parsing code.

mod dynamic;
mod lexer;
mod lookup;
mod parse;
mod print;

pub use print::c_escape;

use core::fmt;
use std::string::String;

use crate::reflect::pool::{MessageData, Tables};
use crate::reflect::registry;
use crate::{DecodeOptions, Described};

/// A text that could not be parsed: what was wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// 1-based line and column (in characters); none for errors of the
    /// whole message (a `required` field missing).
    position: Option<(usize, usize)>,
    message: String,
}

impl Error {
    /// An error at byte offset `at` of `text`.
    fn at(text: &str, at: usize, message: String) -> Error {
        let before = &text[..at.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Error {
            position: Some((line, column)),
            message,
        }
    }

    fn whole(message: String) -> Error {
        Error {
            position: None,
            message,
        }
    }

    /// The line (from 1) where the error is, if it is at one place.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        self.position.map(|(line, _)| line)
    }

    /// The column (from 1, in characters) where the error is.
    #[must_use]
    pub fn column(&self) -> Option<usize> {
        self.position.map(|(_, column)| column)
    }

    /// What went wrong, without the position.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "line {line}, column {column}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

/// How to print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PrintOptions {
    /// One field per line and nested messages indented by two spaces, as
    /// `protoc --decode` prints; otherwise everything on one line.
    pub multi_line: bool,
    /// Also print the fields the schema does not know, by number
    /// (`1001: 5`, `1002 { 1: 2 }`), as protobuf's printers can. Text with
    /// them reads back only with [`ParseOptions::ignore_unknown_fields`],
    /// which drops them.
    pub print_unknown_fields: bool,
}

impl PrintOptions {
    /// One line, no unknown fields.
    #[must_use]
    pub const fn new() -> Self {
        PrintOptions {
            multi_line: false,
            print_unknown_fields: false,
        }
    }

    /// Sets [`PrintOptions::multi_line`].
    #[must_use]
    pub const fn multi_line(mut self, yes: bool) -> Self {
        self.multi_line = yes;
        self
    }

    /// Sets [`PrintOptions::print_unknown_fields`].
    #[must_use]
    pub const fn print_unknown_fields(mut self, yes: bool) -> Self {
        self.print_unknown_fields = yes;
        self
    }
}

/// How to parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Skip fields, extensions and enum value names the schema does not
    /// have (and fields given by number) instead of failing. Off by default.
    pub ignore_unknown_fields: bool,
    /// Messages nested deeper than this fail (default 100, as binary
    /// decoding).
    pub recursion_limit: u32,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions::new()
    }
}

impl ParseOptions {
    /// Strict parsing, 100 levels of nesting.
    #[must_use]
    pub const fn new() -> Self {
        ParseOptions {
            ignore_unknown_fields: false,
            recursion_limit: crate::wire::DEFAULT_RECURSION_LIMIT,
        }
    }

    /// Sets [`ParseOptions::ignore_unknown_fields`].
    #[must_use]
    pub const fn ignore_unknown_fields(mut self, yes: bool) -> Self {
        self.ignore_unknown_fields = yes;
        self
    }

    /// Sets [`ParseOptions::recursion_limit`].
    #[must_use]
    pub const fn recursion_limit(mut self, limit: u32) -> Self {
        self.recursion_limit = limit;
        self
    }
}

/// `message` on one line: `id: 7 lines { sku: "A-1" quantity: 2 }`.
pub fn to_string<M: Described>(message: &M) -> String {
    to_string_with(message, PrintOptions::new())
}

/// `message` one field per line, nested messages indented, as `protoc
/// --decode` prints it (no final newline).
pub fn to_string_pretty<M: Described>(message: &M) -> String {
    to_string_with(message, PrintOptions::new().multi_line(true))
}

/// `message` printed with `options`.
pub fn to_string_with<M: Described>(message: &M, options: PrintOptions) -> String {
    let bytes = message.encode_to_vec();
    with_pool::<M, _>(|pool| print_bytes(pool, pool.message(M::FULL_NAME), &bytes, options))
}

/// `bytes`, an encoded message of type `ty`, printed.
fn print_bytes(pool: &Tables, ty: Option<&MessageData>, bytes: &[u8], options: PrintOptions) -> String {
    let style = print::Style {
        multi_line: options.multi_line,
        unknown_fields: options.print_unknown_fields,
    };
    let mut printer = print::Printer::new(pool, style);
    printer.message(ty, bytes);
    printer.finish()
}

/// Any encoded message, printed with no schema as `protoc --decode_raw`
/// prints it: every field by number, one per line, a length-delimited value
/// as a nested message when its bytes read as one and as a string
/// otherwise.
///
/// ```
/// assert_eq!(fastrs::text::to_string_raw(&[0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i'])?, "1: 150\n2: \"hi\"");
/// # Ok::<(), fastrs::text::Error>(())
/// ```
///
/// # Errors
/// Bytes that are not a sequence of fields.
pub fn to_string_raw(bytes: &[u8]) -> Result<String, Error> {
    if crate::wire::records::scan(bytes).is_none() {
        return Err(Error::whole("the input is not an encoded message".into()));
    }
    let options = PrintOptions::new().multi_line(true).print_unknown_fields(true);
    Ok(print_bytes(&Tables::default(), None, bytes, options))
}

/// Parses a message from text, strictly.
///
/// # Errors
/// Text that is not the text format of an `M`: the error gives the line and
/// column and says what was expected there. A proto2 `required` field
/// missing at any depth is an error too, as in binary decoding.
pub fn from_str<M: Described>(text: &str) -> Result<M, Error> {
    from_str_with(text, ParseOptions::new())
}

/// Parses a message from text with `options`.
///
/// # Errors
/// As [`from_str`].
pub fn from_str_with<M: Described>(text: &str, options: ParseOptions) -> Result<M, Error> {
    let bytes = encode_text::<M>(text, options)?;
    let mut message = M::default();
    message
        .fast_read_with(&bytes, &decode_options(options))
        .map_err(invalid)?;
    Ok(message)
}

/// Parses text and merges it into `message`, as binary decoding merges:
/// singular fields it gives replace (messages merge), repeated fields
/// append.
///
/// # Errors
/// As [`from_str`]; `message` is then unchanged.
pub fn merge_from_str<M: Described>(message: &mut M, text: &str) -> Result<(), Error> {
    merge_from_str_with(message, text, ParseOptions::new())
}

/// [`merge_from_str`] with `options`.
///
/// # Errors
/// As [`from_str`]; `message` is then unchanged.
pub fn merge_from_str_with<M: Described>(message: &mut M, text: &str, options: ParseOptions) -> Result<(), Error> {
    let bytes = encode_text::<M>(text, options)?;
    let decode = decode_options(options);
    // The text parsed, so only a limit or a missing `required` field can
    // fail the merge; a copy of the message's encoding restores it then.
    let before = message.encode_to_vec();
    if let Err(e) = message.fast_read_with(&bytes, &decode) {
        message.clear();
        let _ = message.fast_read_partial(&before, &decode);
        return Err(invalid(e));
    }
    Ok(())
}

/// `text` read as an `M`, in its binary encoding.
fn encode_text<M: Described>(text: &str, options: ParseOptions) -> Result<std::vec::Vec<u8>, Error> {
    with_pool::<M, _>(|pool| {
        let Some(ty) = pool.message(M::FULL_NAME) else {
            let what = std::format!("{}'s descriptors do not declare it", M::FULL_NAME);
            return Err(Error::whole(what));
        };
        parse::Parser::new(text, pool, options.ignore_unknown_fields, options.recursion_limit).parse(ty)
    })
}

fn decode_options(options: ParseOptions) -> DecodeOptions {
    DecodeOptions {
        recursion_limit: options.recursion_limit,
        ..DecodeOptions::default()
    }
}

/// A text that parsed into an invalid message (a `required` field missing).
fn invalid(e: crate::DecodeError) -> Error {
    Error::whole(std::format!("the text gives an invalid message: {e}"))
}

/// Makes the types of `M`'s package, and of the packages it imports, known
/// to the text format: an `Any` holding one of them is then printed
/// expanded and can be parsed. Messages register their own package when
/// first printed or parsed; this is for the types only `Any`s hold. The
/// types go in the process's one registry
/// ([`DescriptorPool::global`](crate::reflect::DescriptorPool::global)),
/// which JSON reads too.
pub fn register<M: Described>() {
    registry::described::<M>();
}

/// Makes the types of an encoded `google.protobuf.FileDescriptorSet` known,
/// for types generated without [`Described`] (a package's
/// `FILE_DESCRIPTOR_SET`, or a set `protoc --descriptor_set_out` wrote).
/// Files already known (by name) are kept as they are.
///
/// # Errors
/// Bytes that are not a descriptor set, or files that do not link with
/// those registered (a name declared twice, an import missing).
pub fn register_descriptor_set(set: &'static [u8]) -> Result<(), Error> {
    registry::register_set(set).map_err(|e| Error::whole(e.to_string()))
}

/// Runs `f` on the registry's tables once they hold `M`'s descriptors.
fn with_pool<M: Described, R>(f: impl FnOnce(&Tables) -> R) -> R {
    let pool = registry::described::<M>();
    f(pool.tables())
}
