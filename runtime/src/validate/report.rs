//! [`Report`]: what one validation has found so far, which generated code
//! and the dynamic validator fill alike, and the path steps generated code
//! names as constants.

use std::string::String;
use std::vec::Vec;

use super::path;
use super::types::{field_path_element::Subscript, FieldPathElement, Violation};
use super::{Error, ValidateOptions};
use crate::cel::Timestamp;
use crate::descriptor::field_descriptor_proto::Type;

/// The violations one validation has found so far: messages add theirs
/// with [`Validate::validate_into`](super::Validate::validate_into), and
/// [`Report::finish`] gives the outcome.
#[derive(Debug)]
pub struct Report {
    /// Violations, their field paths innermost first (see `path`).
    pub(crate) out: Vec<Violation>,
    pub(crate) fail_fast: bool,
    now: Option<Timestamp>,
}

impl Report {
    /// An empty report for a validation with `options`.
    #[must_use]
    pub fn new(options: &ValidateOptions) -> Self {
        Report {
            out: Vec::new(),
            fail_fast: options.fail_fast,
            now: options.now,
        }
    }

    /// True once a fail-fast validation has found a violation: the rest
    /// need not run.
    #[must_use]
    #[inline]
    pub fn done(&self) -> bool {
        self.fail_fast && !self.out.is_empty()
    }

    /// The outcome: `Ok` if nothing broke a rule, else the violations.
    ///
    /// # Errors
    /// [`Error::Invalid`] with the violations found.
    pub fn finish(self) -> Result<(), Error> {
        if self.out.is_empty() {
            return Ok(());
        }
        Err(Error::Invalid(path::finish(self.out)))
    }

    /// `now`, for timestamp rules: the options', else the system clock's
    /// (read once per validation).
    pub fn now(&mut self) -> Timestamp {
        *self.now.get_or_insert_with(super::system_now)
    }

    /// Adds a violation, unless a fail-fast validation has one already.
    pub(crate) fn push(&mut self, v: Violation) {
        if !self.done() {
            self.out.push(v);
        }
    }

    /// Where the next violation goes: violations from here on are those
    /// of the value being validated.
    #[must_use]
    #[inline]
    pub fn mark(&self) -> usize {
        self.out.len()
    }

    /// Orders the violations since `mark`, each of one entry of a map (the
    /// entry's element the last of its path, as `within` adds it), by
    /// their keys: maps iterate in no order protobuf defines, so that
    /// every validator of a message gives its violations in one order.
    /// Stable: an entry's own violations keep theirs.
    pub(crate) fn sort_entries(&mut self, mark: usize) {
        if self.out.len() - mark > 1 {
            self.out[mark..].sort_by(|a, b| path::compare_keys(path::last_key(a), path::last_key(b)));
        }
    }

    /// Adds `element` to the field paths of the violations since `mark`.
    #[cold]
    pub(crate) fn within(&mut self, mark: usize, element: &FieldPathElement) {
        path::push_field(&mut self.out[mark..], element);
    }
}

/// A field, as a path element generated code names as a constant.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// The field number.
    pub number: i32,
    /// The field name (`[pkg.ext]` for an extension).
    pub name: &'static str,
    /// The field type.
    pub ty: Type,
}

impl Step {
    /// The field numbered `number`, named `name`, of type `ty`.
    #[must_use]
    pub const fn new(number: i32, name: &'static str, ty: Type) -> Self {
        Step { number, name, ty }
    }

    /// The path element.
    #[must_use]
    pub fn element(&self) -> FieldPathElement {
        FieldPathElement {
            field_number: Some(self.number),
            field_name: Some(self.name.into()),
            field_type: Some(self.ty),
            ..FieldPathElement::default()
        }
    }
}

/// A standard rule as generated code names it: id, message, and its path
/// in `buf.validate.FieldRules` by field numbers (`[14, 2]`:
/// `string.min_len`), named the first time a violation needs it.
#[derive(Debug)]
pub struct StaticRule {
    /// The rule id.
    pub id: &'static str,
    /// The message.
    pub message: &'static str,
    /// The rule path: field numbers from `FieldRules`.
    pub path: &'static [i32],
    named: std::sync::OnceLock<std::vec::Vec<FieldPathElement>>,
}

impl StaticRule {
    /// The rule `id` with `message`, at `path` in `FieldRules`.
    #[must_use]
    pub const fn new(id: &'static str, message: &'static str, path: &'static [i32]) -> Self {
        StaticRule {
            id,
            message,
            path,
            named: std::sync::OnceLock::new(),
        }
    }

    /// The rule path as path elements.
    fn elements(&self) -> std::vec::Vec<FieldPathElement> {
        self.named.get_or_init(|| rule_path(self.path)).clone()
    }
}

/// The rule path of `numbers`, fields of `buf.validate.FieldRules` and
/// the messages they hold, as path elements.
fn rule_path(numbers: &[i32]) -> std::vec::Vec<FieldPathElement> {
    let mut out = std::vec::Vec::with_capacity(numbers.len());
    let mut message = crate::validate::plan::bundled().get_message_by_name("buf.validate.FieldRules");
    for n in numbers {
        let Some(field) = message
            .as_ref()
            .and_then(|m| m.get_field(u32::try_from(*n).unwrap_or(0)))
        else {
            break;
        };
        out.push(path::element(&field));
        message = match field.kind() {
            crate::reflect::Kind::Message(m) => Some(m),
            _ => None,
        };
    }
    out
}

/// A map key as a path subscript.
pub trait Key {
    /// The subscript naming this key.
    fn subscript(&self) -> Subscript;
}

macro_rules! keys {
    ($($ty:ty => $variant:ident($conv:expr)),* $(,)?) => {$(
        impl Key for $ty {
            fn subscript(&self) -> Subscript {
                let conv: fn(&$ty) -> _ = $conv;
                Subscript::$variant(conv(self))
            }
        }
    )*};
}

keys! {
    bool => BoolKey(|k| *k),
    i32 => IntKey(|k| i64::from(*k)),
    i64 => IntKey(|k| *k),
    u32 => UintKey(|k| u64::from(*k)),
    u64 => UintKey(|k| *k),
    String => StringKey(|k| k.as_str().into()),
    crate::LaxString => StringKey(Clone::clone),
}

/// What generated validation code calls, beside [`Report`]'s public
/// methods.
pub mod generated {
    use super::{Key, Report, StaticRule, Step};
    use crate::descriptor::field_descriptor_proto::Type;
    use crate::validate::path;
    use crate::validate::types::FieldPathElement;

    /// Adds a violation of a standard rule.
    #[cold]
    pub fn violated(report: &mut Report, rule: &StaticRule) {
        report.push(path::violation(rule.id, rule.message.into(), rule.elements()));
    }

    /// Adds a violation of a CEL rule, whose message it computed.
    #[cold]
    pub fn violated_cel(
        report: &mut Report,
        id: &str,
        message: std::string::String,
        rule: &[Step],
        index: Option<u64>,
    ) {
        let mut path: std::vec::Vec<FieldPathElement> = rule.iter().map(Step::element).collect();
        if let (Some(i), Some(last)) = (index, path.last_mut()) {
            last.subscript = Some(crate::validate::types::field_path_element::Subscript::Index(i));
        }
        report.push(path::violation(id, message, path));
    }

    /// `required`: the field is not set.
    #[cold]
    pub fn missing(report: &mut Report, field: &Step) {
        let rule = path::element(&crate::validate::plan::required_rule());
        let mut v = path::violation("required", "value is required".into(), std::vec![rule]);
        path::push_field(std::slice::from_mut(&mut v), &field.element());
        report.push(v);
    }

    /// A required oneof holds no member.
    #[cold]
    pub fn oneof_missing(report: &mut Report, oneof: &'static str) {
        let mut v = path::violation(
            "required",
            "exactly one field is required in oneof".into(),
            std::vec::Vec::new(),
        );
        path::push_field(std::slice::from_mut(&mut v), &path::oneof_element(oneof));
        report.push(v);
    }

    /// A `(buf.validate.message).oneof` rule broken: `many` if more than
    /// one of `fields` is set, else none is and one must be.
    #[cold]
    pub fn message_oneof(report: &mut Report, fields: &str, many: bool) {
        let message = if many {
            std::format!("only one of {fields} can be set")
        } else {
            std::format!("one of {fields} must be set")
        };
        report.push(path::violation("message.oneof", message, std::vec::Vec::new()));
    }

    /// The violations since `mark` are the field's.
    #[inline]
    pub fn field(report: &mut Report, mark: usize, field: &Step) {
        if mark < report.out.len() {
            report.within(mark, &field.element());
        }
    }

    /// The violations since `mark` are those of the item at `index`.
    #[inline]
    pub fn item(report: &mut Report, mark: usize, field: &Step, index: usize) {
        if mark < report.out.len() {
            item_found(report, mark, field, index);
        }
    }

    #[cold]
    fn item_found(report: &mut Report, mark: usize, field: &Step, index: usize) {
        let mut e = field.element();
        e.subscript = Some(crate::validate::types::field_path_element::Subscript::Index(
            index as u64,
        ));
        report.within(mark, &e);
    }

    /// The violations since `mark`, of a map's entries, in the order of
    /// their keys.
    #[inline]
    pub fn entries_done(report: &mut Report, mark: usize) {
        report.sort_entries(mark);
    }

    /// The violations since `mark` are those of the entry at `key` (of
    /// the types given), the key's own since `mark` up to `values`.
    #[inline]
    pub fn entry(report: &mut Report, mark: usize, values: usize, field: &Step, key: &dyn Key, types: (Type, Type)) {
        if mark < report.out.len() {
            entry_found(report, mark, values, field, key, types);
        }
    }

    #[cold]
    fn entry_found(report: &mut Report, mark: usize, values: usize, field: &Step, key: &dyn Key, types: (Type, Type)) {
        for v in &mut report.out[mark..values] {
            v.for_key = Some(true);
        }
        let e = FieldPathElement {
            key_type: Some(types.0),
            value_type: Some(types.1),
            subscript: Some(key.subscript()),
            ..field.element()
        };
        report.within(mark, &e);
    }
}
