//! CEL, the Common Expression Language (the `cel` feature): a parser, a
//! type checker against the message types of a
//! [`DescriptorPool`](crate::reflect::DescriptorPool), and an evaluator
//! that reads messages in place through [`Reflect`](crate::reflect::Reflect).
//!
//! The language is CEL's as its specification and cel-go define it, with
//! its standard library and the extensions protovalidate's rules and CEL's
//! conformance tests use: strings (`charAt`, `format`, ...), math
//! (`math.greatest`, bit operations, ...), encoders (`base64`), optionals
//! (`optional.of`, `x.?field`, `[?x]`), bindings (`cel.bind`), blocks
//! (`cel.block`), two-variable comprehensions (`transformMap`, ...), and
//! protovalidate's functions (`isEmail`, `isIp`, `unique`, ...). Regular
//! expressions are RE2's, in linear time.
//!
//! ```
//! use fastrs::cel::{Env, Type, Value};
//! let env = Env::new().variable("name", Type::String);
//! let program = env.compile("name.size() > 3 && name.startsWith('fast')")?;
//! assert_eq!(program.eval(&[("name", Value::string("fastrs"))])?, Value::Bool(true));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Evaluation never panics: an overflow, a division by zero, a missing key
//! or field, or a function applied to the wrong types is an [`EvalError`].
//! Hostile expressions are bounded: their length, their nesting and the
//! size of compiled regular expressions have limits.

pub mod ast;
mod check;
mod env;
mod error;
mod eval;
mod lex;
pub mod lib;
mod literal;
mod macros;
mod parse;
mod program;
pub mod regex;
pub mod time;
mod types;
mod value;

pub use check::Checked;
pub use env::{Env, FunctionDecl, Overload};
pub use error::{line_column, CheckError, CompileError, EvalError, ParseError};
pub use eval::Activation;
pub use lib::formats;
pub use parse::{parse, MAX_DEPTH, MAX_SOURCE_LEN};
pub use program::Program;
pub use time::{Duration, Timestamp};
pub use types::Type;
pub use value::{copy as copy_message, messages_equal, unwrap as unwrap_message};
pub use value::{Bin, List, Map, Msg, Str, Value};
