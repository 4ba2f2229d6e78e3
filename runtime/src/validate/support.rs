//! What generated validators call (`__private::validate`): the checks of
//! standard rules on Rust values, lazily compiled patterns, CEL rules'
//! outcomes, and the fallback that evaluates a CEL rule the generator
//! could not compile to Rust.

use core::hash::Hash;
use std::borrow::Cow;
use std::collections::HashSet;
use std::string::String;
use std::sync::OnceLock;

use super::report::{generated, Report, Step};
use super::Error;
use crate::cel::{Duration, EvalError, Timestamp};

pub use super::check::{not_format, not_within, Format, Size};
pub use super::report::{generated::*, Key, StaticRule, Step as PathStep};
pub use crate::descriptor::field_descriptor_proto::Type;

/// A length as CEL's `uint`.
#[must_use]
#[inline]
pub fn len(n: usize) -> u64 {
    n as u64
}

/// True if `needle` is in `haystack`.
#[must_use]
pub fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// True if no item of `items` repeats (a few compared pairwise, more
/// through a hash set).
#[must_use]
pub fn unique<T: Hash + Eq>(items: &[T]) -> bool {
    if items.len() <= 16 {
        return (1..items.len()).all(|i| !items[..i].contains(&items[i]));
    }
    let mut seen = HashSet::with_capacity(items.len());
    items.iter().all(|i| seen.insert(i))
}

/// True if `s`'s length in code points breaks a rule of `size` and bound
/// `n` (`min_len`, `max_len`, `len`), counted only when its length in
/// bytes does not decide.
#[must_use]
#[inline]
pub fn chars_break(s: &str, size: super::Size, n: u64) -> bool {
    size.broken_by_chars(s, n)
}

/// True if no float of `items` repeats (`NaN` repeats nothing; `0.0` and
/// `-0.0` are one value).
#[must_use]
pub fn unique_floats(items: impl Iterator<Item = f64>) -> bool {
    let mut seen = HashSet::new();
    for x in items {
        if x.is_nan() {
            continue;
        }
        let bits = if x == 0.0 { 0 } else { x.to_bits() };
        if !seen.insert(bits) {
            return false;
        }
    }
    true
}

/// A `google.protobuf.Timestamp` as CEL's timestamp (its fields as they
/// are, unchecked).
#[must_use]
pub fn timestamp(t: &crate::well_known::Timestamp) -> Timestamp {
    Timestamp {
        seconds: t.seconds,
        nanos: t.nanos,
    }
}

/// A `google.protobuf.Duration` as CEL's duration.
#[must_use]
pub fn duration(d: &crate::well_known::Duration) -> Duration {
    Duration::new(d.seconds, i64::from(d.nanos))
}

/// A field mask's paths differ from `want`.
#[must_use]
pub fn paths_differ(paths: &[String], want: &[&str]) -> bool {
    paths.len() != want.len() || paths.iter().zip(want).any(|(p, w)| p != w)
}

/// Some path is neither one of `allowed` nor under one.
#[must_use]
pub fn paths_outside(paths: &[String], allowed: &[&str]) -> bool {
    !paths.iter().all(|p| under_any(p, allowed))
}

/// Some path is one of `blocked` or under one.
#[must_use]
pub fn paths_touch(paths: &[String], blocked: &[&str]) -> bool {
    paths.iter().any(|p| under_any(p, blocked))
}

fn under_any(p: &str, list: &[&str]) -> bool {
    list.iter()
        .any(|f| p == *f || (p.len() > f.len() && p.starts_with(f) && p.as_bytes()[f.len()] == b'.'))
}

/// A regular expression of a rule, compiled on first use.
#[derive(Debug)]
pub struct Pattern {
    source: &'static str,
    compiled: OnceLock<crate::cel::regex::Matcher>,
}

impl Pattern {
    /// The pattern `source` (checked when the code was generated).
    #[must_use]
    pub const fn new(source: &'static str) -> Self {
        Pattern {
            source,
            compiled: OnceLock::new(),
        }
    }

    fn regex(&self) -> &crate::cel::regex::Matcher {
        self.compiled.get_or_init(|| {
            crate::cel::regex::build(self.source).unwrap_or_else(|_| {
                // The generator compiled it already; a pattern that fails
                // here matches nothing.
                crate::cel::regex::build("[^\\s\\S]").unwrap_or_else(|_| unreachable!())
            })
        })
    }

    /// True if `s` matches.
    #[must_use]
    pub fn matches(&self, s: &str) -> bool {
        self.regex().is_match(s)
    }

    /// True if `b`, as a string, matches.
    ///
    /// # Errors
    /// `b` is not UTF-8 (CEL's `string(bytes)` fails).
    pub fn matches_bytes(&self, b: &[u8]) -> Result<bool, EvalError> {
        match core::str::from_utf8(b) {
            Ok(s) => Ok(self.matches(s)),
            Err(_) => Err(EvalError::new("invalid UTF-8 in bytes, cannot convert to string")),
        }
    }
}

/// A CEL rule as generated code names it.
#[derive(Debug)]
pub struct CelRule {
    /// The rule id.
    pub id: &'static str,
    /// The message when the expression gives `false`.
    pub message: &'static str,
    /// The expression.
    pub expression: &'static str,
    /// The rule path.
    pub path: &'static [Step],
    /// The index into `cel` or `cel_expression` of the rule path's last
    /// element.
    pub index: Option<u64>,
}

/// What a CEL rule gives: `true`, `false`, or a message (empty: passed).
pub trait Outcome {
    /// The violation's message, if the rule is broken.
    ///
    /// # Errors
    /// A dynamic result that is neither a `bool` nor a `string`.
    fn message(self, rule: &CelRule) -> Result<Option<String>, Error>;
}

impl Outcome for bool {
    fn message(self, rule: &CelRule) -> Result<Option<String>, Error> {
        if self {
            return Ok(None);
        }
        if rule.message.is_empty() {
            return Ok(Some(returned_false(rule.expression)));
        }
        Ok(Some(rule.message.into()))
    }
}

impl Outcome for &str {
    fn message(self, _: &CelRule) -> Result<Option<String>, Error> {
        Ok((!self.is_empty()).then(|| self.into()))
    }
}

impl Outcome for String {
    fn message(self, _: &CelRule) -> Result<Option<String>, Error> {
        Ok((!self.is_empty()).then_some(self))
    }
}

impl Outcome for Cow<'_, str> {
    fn message(self, _: &CelRule) -> Result<Option<String>, Error> {
        Ok((!self.is_empty()).then(|| self.into_owned()))
    }
}

impl Outcome for crate::cel::Value<'_> {
    fn message(self, rule: &CelRule) -> Result<Option<String>, Error> {
        match self {
            crate::cel::Value::Bool(b) => b.message(rule),
            crate::cel::Value::String(s) => (&*s).message(rule),
            other => Err(Error::Runtime(format!(
                "rule {} resolved to an unexpected type {}",
                rule.id,
                other.type_name()
            ))),
        }
    }
}

/// Records a CEL rule's outcome: a violation if it is broken, a runtime
/// error if it failed.
///
/// # Errors
/// The rule failed to evaluate.
pub fn cel<O: Outcome>(report: &mut Report, rule: &CelRule, outcome: Result<O, EvalError>) -> Result<(), Error> {
    match outcome {
        Ok(o) => {
            if let Some(message) = o.message(rule)? {
                generated::violated_cel(report, rule.id, message, rule.path, rule.index);
            }
            Ok(())
        }
        Err(e) => Err(Error::Runtime(format!("error evaluating {}: {e}", rule.id))),
    }
}

/// The violation message of a CEL rule with no message of its own that
/// returned `false`: its expression quoted as Go's `%q` quotes it (as the
/// other implementations report it), then "returned false". Generated and
/// dynamic validators both report it so.
pub(super) fn returned_false(expression: &str) -> String {
    format!("{} returned false", go_quote(expression))
}

/// `s` quoted as Go's `%q` quotes it.
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The error of a standard rule that cannot apply to a value (bytes that
/// are not UTF-8 under `pattern`, a timestamp out of range for `within`),
/// as the dynamic validator reports it.
#[must_use]
#[allow(clippy::needless_pass_by_value)]
pub fn runtime(e: EvalError) -> Error {
    Error::Runtime(e.to_string())
}

/// The runtime of CEL rules compiled to Rust.
pub mod cel_runtime {
    pub use crate::validate::compiled::*;
}
