//! Validating a message by its plans: the message's rules, then each
//! field's, reading values in place through [`Reflect`].

use std::string::String;
use std::vec::Vec;

use super::plan::{CelRule, Check, FieldPlan, MessagePlan, Plans, Rule, ValuePlan};
use super::report::Report;
use super::types::{FieldPathElement, Violation};
use super::Error;
use super::{path, support};
use crate::cel::{Activation, Value};
use crate::reflect::{Reflect, ValueRef};

/// One validation: the plans, and the report it fills.
pub(crate) struct Run<'p, 'r> {
    pub plans: &'p Plans,
    pub report: &'r mut Report,
}

/// A violation of a rule this module makes itself (not a standard rule's
/// or a CEL rule's).
fn fixed(id: &str, message: &str) -> Violation {
    path::violation(id, message.into(), Vec::new())
}

impl Run<'_, '_> {
    fn done(&self) -> bool {
        self.report.done()
    }

    fn push(&mut self, v: Violation) {
        self.report.push(v);
    }

    fn mark(&self) -> usize {
        self.report.mark()
    }

    /// Validates `msg` by `plan`.
    pub(crate) fn message(&mut self, plan: &MessagePlan, msg: &dyn Reflect) -> Result<(), Error> {
        if let Some(e) = &plan.error {
            return Err(Error::Compilation(e.clone()));
        }
        for rule in &plan.cel {
            let this = Value::Message(crate::cel::Msg::Ref(msg));
            if let Some(v) = self.cel(rule, this, false)? {
                self.push(v);
                if self.done() {
                    return Ok(());
                }
            }
        }
        for oneof in &plan.message_oneofs {
            let set = oneof.fields.iter().filter(|f| msg.has_field(f)).count();
            let names: Vec<&str> = oneof.fields.iter().map(|f| f.name()).collect();
            if set > 1 {
                let message = format!("only one of {} can be set", names.join(", "));
                self.push(path::violation("message.oneof", message, Vec::new()));
            } else if oneof.required && set != 1 {
                let message = format!("one of {} must be set", names.join(", "));
                self.push(path::violation("message.oneof", message, Vec::new()));
            }
            if self.done() {
                return Ok(());
            }
        }
        for oneof in &plan.required_oneofs {
            if !oneof.fields().any(|f| msg.has_field(&f)) {
                let mut v = fixed("required", "exactly one field is required in oneof");
                path::push_field(std::slice::from_mut(&mut v), &path::oneof_element(oneof.name()));
                self.push(v);
                if self.done() {
                    return Ok(());
                }
            }
        }
        for field in &plan.fields {
            self.field(field, msg)?;
            if self.done() {
                return Ok(());
            }
        }
        Ok(())
    }

    fn field(&mut self, plan: &FieldPlan, msg: &dyn Reflect) -> Result<(), Error> {
        let field = &plan.field;
        if let Some(e) = &plan.error {
            return Err(Error::Compilation(e.clone()));
        }
        let set = msg.has_field(field);
        if plan.required && !set {
            let mut v = path::violation(
                "required",
                "value is required".into(),
                std::vec![path::element(&super::plan::required_rule())],
            );
            path::push_field(std::slice::from_mut(&mut v), &path::element(field));
            self.push(v);
            return Ok(());
        }
        if plan.skip_unset && !set {
            return Ok(());
        }
        let raw = msg.field(field);
        let this = Value::field(msg, field).map_err(|e| Error::Runtime(e.to_string()));
        self.value(&plan.value, raw, this, false, &path::element(field))
    }

    /// Validates one value by `plan`: `raw` as the message holds it (for
    /// `Any` rules and embedded messages), `this` as CEL reads it. The
    /// value's violations get `element` in their field paths (an item's
    /// and an entry's get their own, with the index or key).
    fn value<'a>(
        &mut self,
        plan: &ValuePlan,
        raw: Option<ValueRef<'a>>,
        this: Result<Value<'a>, Error>,
        for_key: bool,
        element: &FieldPathElement,
    ) -> Result<(), Error> {
        if plan.skip_zero && is_zero(raw, &this) {
            return Ok(());
        }
        for rule in &plan.rules {
            let start = self.mark();
            self.rule(rule, raw, &this)?;
            if !matches!(rule, Rule::Items(_) | Rule::Entries { .. }) {
                let own = &mut self.report.out[start..];
                if for_key {
                    own.iter_mut().for_each(|v| v.for_key = Some(true));
                }
                path::push_field(own, element);
            }
            if self.done() {
                return Ok(());
            }
        }
        if let (Some(name), Some(ValueRef::Message(m))) = (&plan.embedded, raw) {
            if let Some(nested) = self.plans.get(name) {
                let nested = nested.clone();
                let start = self.mark();
                self.message(&nested, m)?;
                self.report.within(start, element);
            }
        }
        Ok(())
    }

    fn rule<'a>(
        &mut self,
        rule: &Rule,
        raw: Option<ValueRef<'a>>,
        this: &Result<Value<'a>, Error>,
    ) -> Result<(), Error> {
        match rule {
            Rule::Check(c) => self.check(c, this.as_ref().map_err(Clone::clone)?),
            Rule::Cel(c) => {
                let this = this.as_ref().map_err(Clone::clone)?;
                if let Some(v) = self.cel(c, this.clone(), true)? {
                    self.push(v);
                }
                Ok(())
            }
            Rule::Any {
                allowed,
                refused,
                paths,
            } => {
                let url = any_type_url(raw);
                if !allowed.is_empty() && !allowed.contains(&url) {
                    self.push(path::violation(
                        "any.in",
                        "type URL must be in the allow list".into(),
                        paths[0].clone(),
                    ));
                    if self.done() {
                        return Ok(());
                    }
                }
                if refused.contains(&url) {
                    self.push(path::violation(
                        "any.not_in",
                        "type URL must not be in the block list".into(),
                        paths[1].clone(),
                    ));
                }
                Ok(())
            }
            Rule::DefinedOnly { enumeration, path } => {
                let number = match raw {
                    Some(ValueRef::EnumNumber(n)) => n,
                    _ => match this {
                        Ok(Value::Int(n)) => i32::try_from(*n).unwrap_or(0),
                        _ => 0,
                    },
                };
                if enumeration.get_value(number).is_none() {
                    self.push(path::violation(
                        "enum.defined_only",
                        "value must be one of the defined enum values".into(),
                        path.clone(),
                    ));
                }
                Ok(())
            }
            Rule::Items(items) => self.items(items, raw),
            Rule::Entries { field, keys, values } => self.entries(field, keys, values, raw),
        }
    }

    fn check(&mut self, c: &Check, this: &Value<'_>) -> Result<(), Error> {
        if c.predicate
            .violated(this, || self.report.now())
            .map_err(Error::Runtime)?
        {
            self.push(path::violation(&c.id, String::from(&*c.message), c.path.clone()));
        }
        Ok(())
    }

    /// Runs a CEL rule; its violation, if it gives `false` or a message.
    fn cel(&mut self, rule: &CelRule, this: Value<'_>, _field: bool) -> Result<Option<Violation>, Error> {
        let now = Value::Timestamp(self.report.now());
        let bindings = Bindings {
            this,
            now,
            rules: rule
                .rules
                .as_ref()
                .map(|r| Value::Message(crate::cel::Msg::Owned(r.clone()))),
            rule: rule.rule.clone(),
        };
        let result = rule
            .program
            .eval(&bindings)
            .map_err(|e| Error::Runtime(format!("error evaluating {}: {e}", rule.id)))?;
        let message = match result {
            Value::Bool(true) => return Ok(None),
            Value::String(s) if s.is_empty() => return Ok(None),
            Value::String(s) => String::from(&*s),
            Value::Bool(false) if !rule.message.is_empty() => String::from(&*rule.message),
            Value::Bool(false) => support::returned_false(&rule.expression),
            other => {
                return Err(Error::Runtime(format!(
                    "rule {} resolved to an unexpected type {}",
                    rule.id,
                    other.type_name()
                )))
            }
        };
        Ok(Some(path::violation(&rule.id, message, rule.path.clone())))
    }

    fn items(&mut self, plan: &ValuePlan, raw: Option<ValueRef<'_>>) -> Result<(), Error> {
        let Some(ValueRef::List(list)) = raw else {
            return Ok(());
        };
        let kind = plan.field.kind();
        for i in 0..list.len() {
            let item = list.get(i);
            let this = match item {
                Some(v) => Value::from_ref(v, &kind).map_err(|e| Error::Runtime(e.to_string())),
                None => continue,
            };
            self.value(plan, item, this, false, &path::index_element(&plan.field, i))?;
            if self.done() {
                break;
            }
        }
        Ok(())
    }

    fn entries(
        &mut self,
        field: &crate::reflect::FieldDescriptor,
        keys: &ValuePlan,
        values: &ValuePlan,
        raw: Option<ValueRef<'_>>,
    ) -> Result<(), Error> {
        let Some(ValueRef::Map(map)) = raw else {
            return Ok(());
        };
        let value_kind = values.field.kind();
        let mark = self.mark();
        for (key, value) in map.entries() {
            let element = path::key_element(field, key);
            self.value(keys, None, Ok(Value::from_key(key)), true, &element)?;
            if !self.done() {
                let this = Value::from_ref(value, &value_kind).map_err(|e| Error::Runtime(e.to_string()));
                self.value(values, Some(value), this, false, &element)?;
            }
            if self.done() {
                break;
            }
        }
        self.report.sort_entries(mark);
        Ok(())
    }
}

/// The variables of a rule: `this`, `now`, and for predefined rules
/// `rules` and `rule`.
struct Bindings<'a> {
    this: Value<'a>,
    now: Value<'a>,
    rules: Option<Value<'a>>,
    rule: Option<Value<'a>>,
}

impl<'a> Activation<'a> for Bindings<'a> {
    fn resolve(&self, name: &str) -> Option<Value<'a>> {
        match name {
            "this" => Some(self.this.clone()),
            "now" => Some(self.now.clone()),
            "rules" => self.rules.clone(),
            "rule" => self.rule.clone(),
            _ => None,
        }
    }
}

/// The type URL of an `Any` value.
fn any_type_url(raw: Option<ValueRef<'_>>) -> String {
    let Some(ValueRef::Message(m)) = raw else {
        return String::new();
    };
    let Some(field) = m.descriptor().get_field(1) else {
        return String::new();
    };
    match m.field(&field) {
        Some(ValueRef::String(s)) => s.into(),
        _ => String::new(),
    }
}

/// True for a value equal to its type's zero (an empty message, for a
/// message).
fn is_zero(raw: Option<ValueRef<'_>>, this: &Result<Value<'_>, Error>) -> bool {
    if let Some(ValueRef::Message(m)) = raw {
        return m.descriptor().fields().all(|f| !m.has_field(&f));
    }
    match this {
        Ok(Value::Bool(b)) => !b,
        Ok(Value::Int(i)) => *i == 0,
        Ok(Value::Uint(u)) => *u == 0,
        Ok(Value::Double(d)) => *d == 0.0,
        Ok(Value::String(s)) => s.is_empty(),
        Ok(Value::Bytes(b)) => b.is_empty(),
        _ => false,
    }
}
