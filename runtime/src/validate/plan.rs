//! The rule plan: what validating a message of a type checks, read once
//! from its descriptors' `buf.validate` options. The dynamic validator
//! walks plans over messages; the code generator renders the same plans
//! as Rust.
//!
//! The plan follows protovalidate's semantics (its Go implementation is
//! the reference the conformance suite encodes): message rules first (CEL,
//! then `(buf.validate.message).oneof`), then required oneofs, then each
//! field in declaration order. A field is skipped when it has presence (or
//! `ignore = IGNORE_IF_ZERO_VALUE`) and is not set, unless `required`; its
//! value's rules run in order: field CEL, standard rules (natively, see
//! [`Predicate`]; predefined rules of extensions in CEL), `Any`
//! and enum rules, then map entries and list items, then the message's
//! own rules if it is one.

use std::boxed::Box;
use std::collections::HashMap;
use std::string::{String, ToString};
use std::sync::{Arc, OnceLock};
use std::vec::Vec;

use super::check::{Format, Measure, Predicate, Size};
use super::path;
use super::types::FieldPathElement;
use crate::cel::{self, Env, Program, Type, Value};
use crate::reflect::{
    self, DescriptorPool, DynamicMessage, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor, OneofDescriptor,
};

/// The plans of a message type and of every type it holds, by full name.
pub type Plans = HashMap<String, Arc<MessagePlan>>;

/// What validating a message of one type checks.
#[derive(Debug)]
pub struct MessagePlan {
    /// The type.
    pub descriptor: MessageDescriptor,
    /// Rules that do not compile: validating the type reports this.
    pub error: Option<String>,
    /// `(buf.validate.message).cel` and `.cel_expression`.
    pub cel: Vec<CelRule>,
    /// `(buf.validate.message).oneof` rules.
    pub message_oneofs: Vec<MessageOneof>,
    /// Oneofs that must hold a member (`(buf.validate.oneof).required`).
    pub required_oneofs: Vec<OneofDescriptor>,
    /// The fields with rules (or whose messages have some), in declaration
    /// order.
    pub fields: Vec<FieldPlan>,
}

/// A `(buf.validate.message).oneof` rule.
#[derive(Debug)]
pub struct MessageOneof {
    /// The fields of which at most one may be set.
    pub fields: Vec<FieldDescriptor>,
    /// Exactly one must be.
    pub required: bool,
}

/// A field's rules.
#[derive(Debug)]
pub struct FieldPlan {
    /// The field.
    pub field: FieldDescriptor,
    /// `required`: a field that is not set is a violation.
    pub required: bool,
    /// A field that is not set is not validated (it has presence, or
    /// `ignore = IGNORE_IF_ZERO_VALUE`).
    pub skip_unset: bool,
    /// Rules of the field that do not compile.
    pub error: Option<String>,
    /// The rules of its value.
    pub value: ValuePlan,
}

/// The rules of one value: a field's, or an item's, key's or value's.
#[derive(Debug)]
pub struct ValuePlan {
    /// The field the value is of (a map entry's key or value field for
    /// keys and values).
    pub field: FieldDescriptor,
    /// A value equal to its type's zero is not validated (items, keys and
    /// values with `ignore = IGNORE_IF_ZERO_VALUE`).
    pub skip_zero: bool,
    /// The rules, in order.
    pub rules: Vec<Rule>,
    /// The value is a message validated by its type's rules (the type's
    /// full name, a key of [`Plans`]).
    pub embedded: Option<String>,
}

/// One rule of a value.
#[derive(Debug)]
pub enum Rule {
    /// A standard rule, checked natively.
    Check(Check),
    /// A CEL rule: the field's own, or a predefined rule of an extension.
    Cel(CelRule),
    /// `any.in` and `any.not_in`: the type URL of an `Any`.
    Any {
        /// Allowed type URLs (none: any).
        allowed: Vec<String>,
        /// Refused type URLs.
        refused: Vec<String>,
        /// The rule paths of the two.
        paths: [Vec<FieldPathElement>; 2],
    },
    /// `enum.defined_only`.
    DefinedOnly {
        /// The enum.
        enumeration: EnumDescriptor,
        /// The rule path.
        path: Vec<FieldPathElement>,
    },
    /// `repeated.items`: the rules of each item.
    Items(Box<ValuePlan>),
    /// `map.keys` and `map.values`: the rules of each entry.
    Entries {
        /// The map field.
        field: FieldDescriptor,
        /// Of the keys.
        keys: Box<ValuePlan>,
        /// Of the values.
        values: Box<ValuePlan>,
    },
}

/// A standard rule checked natively: when `predicate` holds, a violation
/// with `id`, `message` and the rule's `path`.
#[derive(Debug)]
pub struct Check {
    /// The rule id (`string.min_len`).
    pub id: Arc<str>,
    /// The message, with the rule's values written in.
    pub message: Arc<str>,
    /// The rule path (`string.min_len`, after `repeated.items` for items).
    pub path: Vec<FieldPathElement>,
    /// When the value breaks the rule.
    pub predicate: Predicate,
}

/// A CEL rule, compiled.
#[derive(Clone, Debug)]
pub struct CelRule {
    /// The rule id.
    pub id: Arc<str>,
    /// The rule's message (used when the expression gives `false`).
    pub message: Arc<str>,
    /// The expression, as written.
    pub expression: Arc<str>,
    /// The rule path (`cel[0]`, or a predefined rule's field).
    pub path: Vec<FieldPathElement>,
    /// The compiled expression.
    pub program: Program,
    /// The environment it compiled in (`this`, `now`, and for a predefined
    /// rule `rules` and `rule`), for code generators.
    pub env: Env,
    /// `rules`: the rules message a predefined rule belongs to.
    pub rules: Option<Arc<DynamicMessage>>,
    /// `rule`: the predefined rule's value.
    pub rule: Option<Value<'static>>,
}

/// Builds plans for a pool's message types.
pub struct Planner {
    /// Where `buf.validate`'s types come from: the schema's pool if it has
    /// them (it then knows the predefined rules' extensions too), else the
    /// ones fastrs bundles.
    rules_pool: DescriptorPool,
    plans: Plans,
    /// Types whose plans are being built (recursive types meet themselves).
    building: Vec<String>,
}

/// The extension numbers of `buf.validate`'s options.
const RULES_EXTENSION: u32 = 1159;
const PREDEFINED_EXTENSION: u32 = 1160;

/// `buf.validate.FieldRules`' fields this module reads by number.
mod field_rules {
    pub const REQUIRED: u32 = 25;
    pub const IGNORE: u32 = 27;
    pub const CEL: u32 = 23;
    pub const CEL_EXPRESSION: u32 = 29;
}

/// `buf.validate.FieldRules.required`, the rule path of `required`.
pub(crate) fn required_rule() -> FieldDescriptor {
    static FIELD: OnceLock<FieldDescriptor> = OnceLock::new();
    FIELD
        .get_or_init(|| {
            bundled()
                .get_message_by_name("buf.validate.FieldRules")
                .and_then(|m| m.get_field(field_rules::REQUIRED))
                .unwrap_or_else(|| unreachable!("validate.proto declares FieldRules.required"))
        })
        .clone()
}

/// The pool of fastrs's own `buf.validate` types.
pub(crate) fn bundled() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut pool = DescriptorPool::new();
        let _ = pool.add_described::<super::types::FieldRules>();
        pool
    })
}

impl Planner {
    /// A planner for the types of `pool`.
    #[must_use]
    pub fn new(pool: &DescriptorPool) -> Self {
        let rules_pool = if pool.get_message_by_name("buf.validate.FieldRules").is_some() {
            pool.clone()
        } else {
            bundled().clone()
        };
        Planner {
            rules_pool,
            plans: Plans::new(),
            building: Vec::new(),
        }
    }

    /// The plans of `message` and of every type it holds.
    #[must_use]
    pub fn plan(mut self, message: &MessageDescriptor) -> Plans {
        self.message(message);
        self.plans
    }

    /// The plans made so far.
    #[must_use]
    pub fn into_plans(self) -> Plans {
        self.plans
    }

    /// Plans `message` (and what it holds) unless planned already.
    pub fn message(&mut self, message: &MessageDescriptor) {
        if self.plans.contains_key(message.full_name()) {
            return;
        }
        // A placeholder first, so that recursive types end.
        self.plans.insert(message.full_name().into(), Arc::new(empty(message)));
        self.building.push(message.full_name().into());
        let plan = self.build_message(message);
        self.building.pop();
        self.plans.insert(message.full_name().into(), Arc::new(plan));
    }

    fn build_message(&mut self, message: &MessageDescriptor) -> MessagePlan {
        let mut plan = empty(message);
        let rules = self.options(message.options_bytes(), "google.protobuf.MessageOptions");
        if let Some(rules) = &rules {
            let this = Type::of_descriptor(message);
            match self.cel_rules(rules, 5, 3, this, &[], message.pool(), None) {
                Ok(cel) => plan.cel = cel,
                Err(e) => plan.error = Some(e),
            }
            match message_oneofs(rules, message) {
                Ok(oneofs) => plan.message_oneofs = oneofs,
                Err(e) => plan.error = Some(e),
            }
        }
        for oneof in message.oneofs() {
            let required = self
                .options(oneof.options_bytes(), "google.protobuf.OneofOptions")
                .is_some_and(|r| get_bool(&r, 1));
            if required {
                plan.required_oneofs.push(oneof);
            }
        }
        let in_message_oneof: Vec<u32> = plan
            .message_oneofs
            .iter()
            .flat_map(|o| o.fields.iter().map(FieldDescriptor::number))
            .collect();
        for field in message.fields() {
            if let Some(f) = self.field(&field, in_message_oneof.contains(&field.number())) {
                plan.fields.push(f);
            }
        }
        plan
    }

    /// The `buf.validate` rules of an element's options (`options` of type
    /// `options_type`): the message of extension 1159, if set.
    fn options(&self, options: &[u8], options_type: &str) -> Option<DynamicMessage> {
        if options.is_empty() {
            return None;
        }
        let ty = self.rules_pool.get_message_by_name(options_type)?;
        let decoded = DynamicMessage::decode(ty.clone(), options).ok()?;
        let ext = ty.get_extension(RULES_EXTENSION)?;
        match decoded.get(&ext)? {
            reflect::Value::Message(m) => Some((**m).clone()),
            _ => None,
        }
    }

    fn field(&mut self, field: &FieldDescriptor, in_message_oneof: bool) -> Option<FieldPlan> {
        let rules = self.options(field.options_bytes(), "google.protobuf.FieldOptions");
        let ignore = rules.as_ref().map_or(0, |r| get_enum(r, field_rules::IGNORE));
        let explicit_ignore = rules.as_ref().is_some_and(|r| has(r, field_rules::IGNORE));
        let ignore = if !explicit_ignore && in_message_oneof {
            1
        } else {
            ignore
        };
        if ignore == IGNORE_ALWAYS {
            return None;
        }
        let required = rules.as_ref().is_some_and(|r| get_bool(r, field_rules::REQUIRED));
        let (value, error) = match self.value(field, rules.as_ref(), Site::Field, false) {
            Ok(v) => (v, None),
            Err(e) => (ValuePlan::new(field), Some(e)),
        };
        if !required && error.is_none() && value.is_empty() {
            return None;
        }
        Some(FieldPlan {
            field: field.clone(),
            required,
            skip_unset: field.has_presence() || ignore == IGNORE_IF_ZERO_VALUE,
            error,
            value,
        })
    }

    /// The plan of a value of `field` at `site`, from `rules` (a
    /// `FieldRules`).
    fn value(
        &mut self,
        field: &FieldDescriptor,
        rules: Option<&DynamicMessage>,
        site: Site,
        skip_zero: bool,
    ) -> Result<ValuePlan, String> {
        let mut plan = ValuePlan::new(field);
        plan.skip_zero = skip_zero;
        let prefix = site.prefix();
        let whole = site == Site::Field;
        if let Some(rules) = rules {
            let this = if whole && (field.is_list() || field.is_map()) {
                Type::of_field(field, false)
            } else {
                Type::of_kind(&field.kind(), false)
            };
            for rule in self.cel_rules(
                rules,
                field_rules::CEL_EXPRESSION,
                field_rules::CEL,
                this,
                &prefix,
                field.pool(),
                None,
            )? {
                plan.rules.push(Rule::Cel(rule));
            }
            self.standard(field, rules, site, &prefix, &mut plan)?;
        }
        if field.is_map() && whole {
            let Kind::Message(ty) = field.kind() else {
                return Ok(plan);
            };
            let entry_rules = rules.and_then(|r| typed(r, "map"));
            let sub = |name: u32| entry_rules.as_ref().and_then(|m| get_message(m, name));
            let (Some(key), Some(value)) = (ty.map_entry_key_field(), ty.map_entry_value_field()) else {
                return Ok(plan);
            };
            let (key_rules, value_rules) = (sub(4), sub(5));
            let keys = self.nested(&key, key_rules.as_ref(), Site::Key)?;
            let values = self.nested(&value, value_rules.as_ref(), Site::Value)?;
            if !keys.is_empty() || !values.is_empty() {
                plan.rules.push(Rule::Entries {
                    field: field.clone(),
                    keys: Box::new(keys),
                    values: Box::new(values),
                });
            }
            return Ok(plan);
        }
        if field.is_list() && whole {
            let items = rules
                .and_then(|r| typed(r, "repeated"))
                .and_then(|m| get_message(&m, 4));
            let items = self.nested(field, items.as_ref(), Site::Item)?;
            if !items.is_empty() {
                plan.rules.push(Rule::Items(Box::new(items)));
            }
            return Ok(plan);
        }
        let Kind::Message(ty) = field.kind() else {
            return Ok(plan);
        };
        self.message(&ty);
        // A type whose plan is still being built (a recursive one) may have
        // rules; one planned with none is not visited.
        let building = self.building.iter().any(|b| b == ty.full_name());
        if building || self.plans.get(ty.full_name()).is_some_and(|p| !p.is_empty()) {
            plan.embedded = Some(ty.full_name().into());
        }
        Ok(plan)
    }

    /// The plan of an item, key or value, from its `FieldRules` (whose
    /// `ignore` may skip zeros or everything).
    fn nested(
        &mut self,
        field: &FieldDescriptor,
        rules: Option<&DynamicMessage>,
        site: Site,
    ) -> Result<ValuePlan, String> {
        let ignore = rules.map_or(0, |r| get_enum(r, field_rules::IGNORE));
        if ignore == IGNORE_ALWAYS {
            return Ok(ValuePlan::new(field));
        }
        self.value(field, rules, site, ignore == IGNORE_IF_ZERO_VALUE)
    }

    /// `cel_expression` (field `expressions`) and `cel` (field `cel`) of
    /// `rules`, compiled with `this` of type `this`.
    #[allow(clippy::too_many_arguments)]
    fn cel_rules(
        &self,
        rules: &DynamicMessage,
        expressions: u32,
        cel_field: u32,
        this: Type,
        prefix: &[FieldPathElement],
        pool: &DescriptorPool,
        predefined: Option<(&Arc<DynamicMessage>, &Value<'static>, &FieldDescriptor)>,
    ) -> Result<Vec<CelRule>, String> {
        let env = Env::new()
            .pool(pool.clone())
            .variable("this", this)
            .variable("now", Type::Timestamp);
        let mut out = Vec::new();
        let d = rules.descriptor();
        for (number, shorthand) in [(expressions, true), (cel_field, false)] {
            let Some(list_field) = d.get_field(number) else {
                continue;
            };
            let Some(reflect::Value::List(items)) = rules.get(&list_field) else {
                continue;
            };
            for (i, item) in items.iter().enumerate() {
                let (id, message, expression) = match item {
                    reflect::Value::String(e) if shorthand => (e.clone(), String::new(), e.clone()),
                    reflect::Value::Message(rule) => (get_string(rule, 1), get_string(rule, 2), get_string(rule, 3)),
                    _ => continue,
                };
                let mut element = path::element(&list_field);
                element.subscript = Some(super::types::field_path_element::Subscript::Index(i as u64));
                let mut rule_path = prefix.to_vec();
                rule_path.push(element);
                let rule = compile(&env, id, message, expression, rule_path, predefined)?;
                out.push(rule);
            }
        }
        Ok(out)
    }
}

/// Rules may apply to a field, or to the items, keys or values of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    Field,
    Item,
    Key,
    Value,
}

impl Site {
    /// The rule path before the rules of this site (`repeated.items`).
    fn prefix(self) -> Vec<FieldPathElement> {
        let (outer, inner) = match self {
            Site::Field => return Vec::new(),
            Site::Item => ("repeated", "items"),
            Site::Key => ("map", "keys"),
            Site::Value => ("map", "values"),
        };
        let pool = bundled();
        let field_rules = pool.get_message_by_name("buf.validate.FieldRules");
        let outer = field_rules.and_then(|m| m.get_field_by_name(outer));
        let inner = outer.as_ref().and_then(|f| match f.kind() {
            Kind::Message(m) => m.get_field_by_name(inner),
            _ => None,
        });
        outer.iter().chain(inner.iter()).map(path::element).collect()
    }
}

const IGNORE_IF_ZERO_VALUE: i32 = 1;
const IGNORE_ALWAYS: i32 = 3;

fn empty(message: &MessageDescriptor) -> MessagePlan {
    MessagePlan {
        descriptor: message.clone(),
        error: None,
        cel: Vec::new(),
        message_oneofs: Vec::new(),
        required_oneofs: Vec::new(),
        fields: Vec::new(),
    }
}

impl MessagePlan {
    /// True if validating the type checks nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.error.is_none()
            && self.cel.is_empty()
            && self.message_oneofs.is_empty()
            && self.required_oneofs.is_empty()
            && self.fields.is_empty()
    }
}

impl ValuePlan {
    fn new(field: &FieldDescriptor) -> Self {
        ValuePlan {
            field: field.clone(),
            skip_zero: false,
            rules: Vec::new(),
            embedded: None,
        }
    }

    /// True if the value has no rules and is no message with rules.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.embedded.is_none()
    }
}

fn field_of(m: &DynamicMessage, number: u32) -> Option<FieldDescriptor> {
    m.descriptor().get_field(number)
}

fn has(m: &DynamicMessage, number: u32) -> bool {
    field_of(m, number).is_some_and(|f| m.has(&f))
}

fn get_bool(m: &DynamicMessage, number: u32) -> bool {
    field_of(m, number).and_then(|f| m.get(&f)?.as_bool()).unwrap_or(false)
}

fn get_enum(m: &DynamicMessage, number: u32) -> i32 {
    field_of(m, number)
        .and_then(|f| m.get(&f)?.as_enum_number())
        .unwrap_or(0)
}

fn get_string(m: &DynamicMessage, number: u32) -> String {
    field_of(m, number)
        .and_then(|f| m.get(&f)?.as_str().map(String::from))
        .unwrap_or_default()
}

fn get_message(m: &DynamicMessage, number: u32) -> Option<DynamicMessage> {
    let f = field_of(m, number)?;
    m.get(&f)?.as_message().cloned()
}

/// The member `name` of `FieldRules`' `type` oneof, if it is the one set.
fn typed(rules: &DynamicMessage, name: &str) -> Option<DynamicMessage> {
    let f = rules.descriptor().get_field_by_name(name)?;
    rules.get(&f)?.as_message().cloned()
}

/// `(buf.validate.message).oneof`: each rule's fields, which must exist,
/// at least one, none twice.
fn message_oneofs(rules: &DynamicMessage, message: &MessageDescriptor) -> Result<Vec<MessageOneof>, String> {
    let mut out = Vec::new();
    let Some(list_field) = field_of(rules, 4) else {
        return Ok(out);
    };
    let Some(reflect::Value::List(items)) = rules.get(&list_field) else {
        return Ok(out);
    };
    for item in items {
        let Some(rule) = item.as_message() else { continue };
        let names: Vec<String> = match field_of(rule, 1).and_then(|f| rule.get(&f)) {
            Some(reflect::Value::List(names)) => names.iter().filter_map(|n| n.as_str().map(String::from)).collect(),
            _ => Vec::new(),
        };
        if names.is_empty() {
            return Err(format!(
                "at least one field must be specified in oneof rule for the message {}",
                message.full_name()
            ));
        }
        let mut fields = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(format!(
                    "duplicate {name} in oneof rule for the message {}",
                    message.full_name()
                ));
            }
            let field = message
                .get_field_by_name(name)
                .ok_or_else(|| format!("field {name} not found in message {}", message.full_name()))?;
            fields.push(field);
        }
        out.push(MessageOneof {
            fields,
            required: get_bool(rule, 2),
        });
    }
    Ok(out)
}

/// Compiles one CEL rule: its expression must check and give a `bool` or
/// a `string`.
fn compile(
    env: &Env,
    id: String,
    message: String,
    expression: String,
    path: Vec<FieldPathElement>,
    predefined: Option<(&Arc<DynamicMessage>, &Value<'static>, &FieldDescriptor)>,
) -> Result<CelRule, String> {
    let program = env
        .compile(&expression)
        .map_err(|e| format!("failed to compile expression {id}: {e}"))?;
    if !matches!(program.result_type(), Type::Bool | Type::String | Type::Dyn) {
        return Err(format!(
            "expression {id} outputs {}, wanted either bool or string",
            program.result_type()
        ));
    }
    Ok(CelRule {
        env: env.clone(),
        id: id.into(),
        message: message.into(),
        expression: expression.into(),
        path,
        program,
        rules: predefined.map(|(r, _, _)| r.clone()),
        rule: predefined.map(|(_, v, _)| v.clone()),
    })
}

impl Planner {
    /// The standard rules of the `type` member `FieldRules` sets, checked
    /// against what `field` holds at `site`.
    fn standard(
        &mut self,
        field: &FieldDescriptor,
        rules: &DynamicMessage,
        site: Site,
        prefix: &[FieldPathElement],
        plan: &mut ValuePlan,
    ) -> Result<(), String> {
        let Some(member) = set_type_member(rules) else {
            return Ok(());
        };
        let expected = expected_rules(field, site);
        match &expected {
            Some(name) if name != member.name() => {
                return Err(format!(
                    "expected rule \"buf.validate.FieldRules.{name}\", got \"{}\" on field \"{}\"",
                    member.full_name(),
                    field.full_name()
                ));
            }
            None if matches!(field.kind(), Kind::Message(_)) => {
                return Err(format!(
                    "mismatched message rules, \"{}\" is not a valid rule for field \"{}\"",
                    member.full_name(),
                    field.full_name()
                ));
            }
            None => {
                return Err(format!(
                    "expected no rules of type \"{}\" on field \"{}\"",
                    member.full_name(),
                    field.full_name()
                ))
            }
            Some(_) => {}
        }
        let Some(typed_rules) = rules.get(&member).and_then(|v| v.as_message().cloned()) else {
            return Ok(());
        };
        if !typed_rules.unknown_fields().is_empty() {
            return Err(format!(
                "unknown rules in {}; see the pool's extensions",
                typed_rules.descriptor().full_name()
            ));
        }
        let typed_rules = Arc::new(typed_rules);
        let member_element = path::element(&member);
        let value_type = Type::of_kind(&field.kind(), false);
        let this_type = match member.name() {
            "repeated" | "map" => Type::of_field(field, false),
            _ => unwrapped(&value_type),
        };
        let mut prefix = prefix.to_vec();
        prefix.push(member_element);
        if member.name() == "any" {
            plan.rules.extend(any_rules(&typed_rules, &prefix));
        }
        for (rule_field, _) in typed_rules.fields() {
            let mut rule_path = prefix.clone();
            rule_path.push(path::element(&rule_field));
            let cel_value = rule_value(&typed_rules, &rule_field)?;
            if !rule_field.is_extension() {
                let natively = native(member.name(), &rule_field, &typed_rules, &cel_value, field, &rule_path)?;
                if let Some(checks) = natively {
                    plan.rules.extend(checks);
                    continue;
                }
            }
            // A predefined rule: its CEL, with `rules` and `rule` bound.
            let env = Env::new()
                .pool(field.pool().clone())
                .variable("this", this_type.clone())
                .variable("rules", Type::of_descriptor(typed_rules.descriptor()))
                .variable("rule", Type::of_field(&rule_field, false))
                .variable("now", Type::Timestamp);
            for (id, message, expression) in predefined_rules(&rule_field) {
                let rule = compile(
                    &env,
                    id,
                    message,
                    expression,
                    rule_path.clone(),
                    Some((&typed_rules, &cel_value, &rule_field)),
                )?;
                plan.rules.push(Rule::Cel(rule));
            }
        }
        Ok(())
    }
}

/// A wrapper type's primitive.
fn unwrapped(t: &Type) -> Type {
    match t {
        Type::Wrapper(inner) => (**inner).clone(),
        other => other.clone(),
    }
}

/// The member of `FieldRules`' `type` oneof that is set.
fn set_type_member(rules: &DynamicMessage) -> Option<FieldDescriptor> {
    rules
        .descriptor()
        .fields()
        .find(|f| f.containing_oneof().is_some_and(|o| o.name() == "type") && rules.has(f))
}

/// The `type` member that rules for a value of `field` at `site` must
/// use, if any may.
fn expected_rules(field: &FieldDescriptor, site: Site) -> Option<String> {
    if site == Site::Field && field.is_map() {
        return Some("map".into());
    }
    if site == Site::Field && field.is_list() {
        return Some("repeated".into());
    }
    Some(
        match field.kind() {
            Kind::Float => "float",
            Kind::Double => "double",
            Kind::Int32 => "int32",
            Kind::Int64 => "int64",
            Kind::Uint32 => "uint32",
            Kind::Uint64 => "uint64",
            Kind::Sint32 => "sint32",
            Kind::Sint64 => "sint64",
            Kind::Fixed32 => "fixed32",
            Kind::Fixed64 => "fixed64",
            Kind::Sfixed32 => "sfixed32",
            Kind::Sfixed64 => "sfixed64",
            Kind::Bool => "bool",
            Kind::String => "string",
            Kind::Bytes => "bytes",
            Kind::Enum(_) => "enum",
            Kind::Message(m) => match m.full_name() {
                "google.protobuf.Any" => "any",
                "google.protobuf.Duration" => "duration",
                "google.protobuf.Timestamp" => "timestamp",
                "google.protobuf.FieldMask" => "field_mask",
                "google.protobuf.FloatValue" => "float",
                "google.protobuf.DoubleValue" => "double",
                "google.protobuf.Int32Value" => "int32",
                "google.protobuf.Int64Value" => "int64",
                "google.protobuf.UInt32Value" => "uint32",
                "google.protobuf.UInt64Value" => "uint64",
                "google.protobuf.BoolValue" => "bool",
                "google.protobuf.StringValue" => "string",
                "google.protobuf.BytesValue" => "bytes",
                _ => return None,
            },
        }
        .to_string(),
    )
}

/// A rule field's value as CEL reads it (`rule`, and the constants of the
/// native checks).
fn rule_value(rules: &DynamicMessage, field: &FieldDescriptor) -> Result<Value<'static>, String> {
    Value::field(rules, field).map(Value::detach).map_err(|e| e.to_string())
}

/// The CEL rules `(buf.validate.predefined).cel` declares on a rule field
/// (`id`, `message`, `expression` each).
#[must_use]
pub fn predefined_rules(field: &FieldDescriptor) -> Vec<(String, String, String)> {
    let pool = field.pool();
    let options_type = pool
        .get_message_by_name("google.protobuf.FieldOptions")
        .or_else(|| bundled().get_message_by_name("google.protobuf.FieldOptions"));
    let Some(options_type) = options_type else {
        return Vec::new();
    };
    let Ok(options) = DynamicMessage::decode(options_type.clone(), field.options_bytes()) else {
        return Vec::new();
    };
    let Some(ext) = options_type.get_extension(PREDEFINED_EXTENSION) else {
        return Vec::new();
    };
    let Some(reflect::Value::Message(predefined)) = options.get(&ext) else {
        return Vec::new();
    };
    let Some(cel) = field_of(predefined, 1) else {
        return Vec::new();
    };
    let Some(reflect::Value::List(items)) = predefined.get(&cel) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(reflect::Value::as_message)
        .map(|r| (get_string(r, 1), get_string(r, 2), get_string(r, 3)))
        .collect()
}

/// The message `validate.proto` gives rule `id` of `field`.
fn message_of(field: &FieldDescriptor, id: &str) -> String {
    predefined_rules(field)
        .into_iter()
        .find(|(i, _, _)| i == id)
        .map(|(_, m, _)| m)
        .unwrap_or_default()
}

/// `%s` of a value, as CEL's `format` writes it.
fn text(v: &Value<'_>) -> String {
    crate::cel::lib::to_text(v).unwrap_or_default()
}

fn check(id: String, message: String, path: &[FieldPathElement], predicate: Predicate) -> Rule {
    Rule::Check(Check {
        id: id.into(),
        message: message.into(),
        path: path.to_vec(),
        predicate,
    })
}

/// The native checks of rule `rule` of `member` (`string`, `int32`, ...),
/// with value `value`; `None` for a rule this module does not know (its
/// predefined CEL then runs).
fn native(
    member: &str,
    rule: &FieldDescriptor,
    rules: &DynamicMessage,
    value: &Value<'static>,
    field: &FieldDescriptor,
    path: &[FieldPathElement],
) -> Result<Option<Vec<Rule>>, String> {
    let name = rule.name();
    let id = |suffix: &str| format!("{member}.{suffix}");
    let one = |suffix: &str, message: String, p: Predicate| Ok(Some(std::vec![check(id(suffix), message, path, p)]));
    let flag = value.equals(&Value::Bool(true));
    match (member, name) {
        (_, "example") => return Ok(Some(Vec::new())),
        (_, "const") if member != "field_mask" => {
            let message = match member {
                "string" => format!("must equal `{}`", text(value)),
                "bytes" => format!("must be {}", hex(value)),
                _ => format!("must equal {}", text(value)),
            };
            return one("const", message, Predicate::NotEqual(value.clone()));
        }
        (_, "lt" | "lte" | "gt" | "gte") => return Ok(Some(range(member, name, rules, path)?)),
        (_, "in" | "not_in") if matches!(member, "string" | "bytes" | "enum" | "duration") || is_number(member) => {
            let Value::List(list) = value else { return Ok(None) };
            let items: Vec<Value<'static>> = list.iter().collect::<Result<_, _>>().map_err(|e| e.to_string())?;
            let shown = text(value);
            return if name == "in" {
                one("in", format!("must be in list {shown}"), Predicate::NotIn(items.into()))
            } else {
                one(
                    "not_in",
                    format!("must not be in list {shown}"),
                    Predicate::In(items.into()),
                )
            };
        }
        ("float" | "double", "finite") => {
            return Ok(Some(if flag {
                std::vec![check(id("finite"), "must be finite".into(), path, Predicate::NotFinite)]
            } else {
                Vec::new()
            }))
        }
        ("string" | "bytes", _) => return strings(member, name, rule, rules, value, path),
        ("enum", "defined_only") => {
            let Kind::Enum(enumeration) = field.kind() else {
                return Ok(None);
            };
            return Ok(Some(if flag {
                std::vec![Rule::DefinedOnly {
                    enumeration,
                    path: path.to_vec()
                }]
            } else {
                Vec::new()
            }));
        }
        ("repeated", "min_items" | "max_items") | ("map", "min_pairs" | "max_pairs") => {
            let n = uint(value);
            let (size, message) = match name {
                "min_items" => (Size::AtLeast, format!("must contain at least {n} item(s)")),
                "max_items" => (Size::AtMost, format!("must contain no more than {n} item(s)")),
                "min_pairs" => (Size::AtLeast, format!("map must be at least {n} entries")),
                _ => (Size::AtMost, format!("map must be at most {n} entries")),
            };
            return one(name, message, Predicate::Size(size, Measure::Items, n));
        }
        ("repeated", "unique") => {
            if !flag {
                return Ok(Some(Vec::new()));
            }
            if matches!(field.kind(), Kind::Message(_)) {
                return Err(format!(
                    "failed to compile standard rule \"buf.validate.RepeatedRules.unique\": unique() of a list of messages on field \"{}\"",
                    field.full_name()
                ));
            }
            return one("unique", message_of(rule, "repeated.unique"), Predicate::NotUnique);
        }
        ("repeated", "items") | ("map", "keys" | "values") => return Ok(Some(Vec::new())),
        ("any", "in" | "not_in") => return Ok(Some(Vec::new())),
        ("timestamp", "lt_now" | "gt_now") => {
            if !flag {
                return Ok(Some(Vec::new()));
            }
            let (message, p) = if name == "lt_now" {
                ("must be less than now", Predicate::AfterNow)
            } else {
                ("must be greater than now", Predicate::BeforeNow)
            };
            return one(name, message.into(), p);
        }
        ("timestamp", "within") => {
            let Value::Duration(d) = value else { return Ok(None) };
            return one(
                "within",
                format!("must be within {} of now", text(value)),
                Predicate::NotWithin(*d),
            );
        }
        ("field_mask", "const" | "in" | "not_in") => return field_mask(name, rules, value, path),
        _ => {}
    }
    Ok(None)
}

fn is_number(member: &str) -> bool {
    matches!(
        member,
        "float"
            | "double"
            | "int32"
            | "int64"
            | "uint32"
            | "uint64"
            | "sint32"
            | "sint64"
            | "fixed32"
            | "fixed64"
            | "sfixed32"
            | "sfixed64"
    )
}

fn uint(v: &Value<'_>) -> u64 {
    match v {
        Value::Uint(u) => *u,
        Value::Int(i) => u64::try_from(*i).unwrap_or(0),
        _ => 0,
    }
}

/// Bytes as `%x` writes them.
fn hex(v: &Value<'_>) -> String {
    match v {
        Value::Bytes(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
        other => text(other),
    }
}

/// `lt`, `lte`, `gt`, `gte` of numbers, durations and timestamps: the one
/// check that applies given the other bound (`gt` with `lt` is `gt_lt`, or
/// `gt_lt_exclusive` when the range is inverted).
fn range(member: &str, name: &str, rules: &DynamicMessage, path: &[FieldPathElement]) -> Result<Vec<Rule>, String> {
    let get = |n: &str| -> Result<Option<Value<'static>>, String> {
        match rules.descriptor().get_field_by_name(n) {
            Some(f) if rules.has(&f) => rule_value(rules, &f).map(Some),
            _ => Ok(None),
        }
    };
    let (lt, lte, gt, gte) = (get("lt")?, get("lte")?, get("gt")?, get("gte")?);
    let upper = lt
        .clone()
        .map(|v| (v, false, "lt"))
        .or_else(|| lte.clone().map(|v| (v, true, "lte")));
    let lower = gt
        .clone()
        .map(|v| (v, false, "gt"))
        .or_else(|| gte.clone().map(|v| (v, true, "gte")));
    let words = |n: &str| match n {
        "lt" => "less than",
        "lte" => "less than or equal to",
        "gt" => "greater than",
        _ => "greater than or equal to",
    };
    let id = |suffix: String| format!("{member}.{suffix}");
    let out = match (name, &upper, &lower) {
        // An upper bound alone (with a lower one, the lower rule checks both).
        ("lt" | "lte", Some((v, inclusive, _)), None) => std::vec![check(
            id(name.into()),
            format!("must be {} {}", words(name), text(v)),
            path,
            Predicate::AtLeast {
                bound: v.clone(),
                inclusive: *inclusive
            }
        )],
        ("lt" | "lte", _, Some(_)) => Vec::new(),
        ("gt" | "gte", None, Some((v, inclusive, _))) => std::vec![check(
            id(name.into()),
            format!("must be {} {}", words(name), text(v)),
            path,
            Predicate::AtMost {
                bound: v.clone(),
                inclusive: *inclusive
            }
        )],
        ("gt" | "gte", Some((hi, hi_incl, hi_name)), Some((lo, lo_incl, lo_name))) => {
            let ordered = hi.compare(lo).map_err(|e| e.to_string())?;
            let both = format!("{} {}", text(lo), text(hi));
            let _ = both;
            match ordered {
                // `rules.lt >= rules.gt`: outside the range breaks it.
                Some(core::cmp::Ordering::Greater | core::cmp::Ordering::Equal) => std::vec![check(
                    id(format!("{lo_name}_{hi_name}")),
                    format!(
                        "must be {} {} and {} {}",
                        words(lo_name),
                        text(lo),
                        words(hi_name),
                        text(hi)
                    ),
                    path,
                    Predicate::Outside {
                        lower: lo.clone(),
                        lower_inclusive: *lo_incl,
                        upper: hi.clone(),
                        upper_inclusive: *hi_incl
                    }
                )],
                // Inverted: inside the gap breaks it.
                Some(core::cmp::Ordering::Less) => std::vec![check(
                    id(format!("{lo_name}_{hi_name}_exclusive")),
                    format!(
                        "must be {} {} or {} {}",
                        words(lo_name),
                        text(lo),
                        words(hi_name),
                        text(hi)
                    ),
                    path,
                    Predicate::Inside {
                        upper: hi.clone(),
                        upper_inclusive: *hi_incl,
                        lower: lo.clone(),
                        lower_inclusive: *lo_incl
                    }
                )],
                // A NaN bound: neither rule applies.
                None => Vec::new(),
            }
        }
        _ => Vec::new(),
    };
    Ok(out)
}

/// The rules of `StringRules` and `BytesRules` but `const`, `in` and
/// `not_in`.
fn strings(
    member: &str,
    name: &str,
    rule: &FieldDescriptor,
    rules: &DynamicMessage,
    value: &Value<'static>,
    path: &[FieldPathElement],
) -> Result<Option<Vec<Rule>>, String> {
    let bytes = member == "bytes";
    let id = |suffix: &str| format!("{member}.{suffix}");
    let one = |suffix: &str, message: String, p: Predicate| Ok(Some(std::vec![check(id(suffix), message, path, p)]));
    let unit = if bytes { "bytes" } else { "characters" };
    let shown = if bytes { hex(value) } else { text(value) };
    match name {
        "len" | "min_len" | "max_len" | "len_bytes" | "min_bytes" | "max_bytes" => {
            let n = uint(value);
            let measure = if bytes || name.ends_with("bytes") {
                Measure::Bytes
            } else {
                Measure::Chars
            };
            let unit = if name.ends_with("bytes") { "bytes" } else { unit };
            let (size, message) = match name {
                "len" | "len_bytes" => (Size::Exactly, format!("must be {n} {unit}")),
                "min_len" | "min_bytes" => (Size::AtLeast, format!("must be at least {n} {unit}")),
                _ => (Size::AtMost, format!("must be at most {n} {unit}")),
            };
            one(name, message, Predicate::Size(size, measure, n))
        }
        "pattern" => {
            let Value::String(p) = value else { return Ok(None) };
            let re =
                cel::regex::build(p).map_err(|e| format!("failed to compile standard rule {member}.pattern: {e}"))?;
            let message = if bytes {
                format!("must match regex pattern `{}`", &**p)
            } else {
                format!("does not match regex pattern `{}`", &**p)
            };
            one("pattern", message, Predicate::NoMatch(re.into()))
        }
        "prefix" => one(
            "prefix",
            affix_message("does not have prefix", bytes, &shown),
            Predicate::NoPrefix(value.clone()),
        ),
        "suffix" => one(
            "suffix",
            affix_message("does not have suffix", bytes, &shown),
            Predicate::NoSuffix(value.clone()),
        ),
        "contains" => {
            let message = if bytes {
                format!("does not contain {shown}")
            } else {
                format!("does not contain substring `{shown}`")
            };
            one("contains", message, Predicate::NotContaining(value.clone()))
        }
        "not_contains" => one(
            "not_contains",
            format!("contains substring `{shown}`"),
            Predicate::Containing(value.clone()),
        ),
        "well_known_regex" => Ok(Some(well_known_regex(rule, rules, value, path))),
        "strict" => Ok(Some(Vec::new())),
        _ => {
            let format = if bytes {
                match name {
                    "ip" => Some(FormatOf::Sizes(&[4, 16])),
                    "ipv4" => Some(FormatOf::Sizes(&[4])),
                    "ipv6" | "uuid" => Some(FormatOf::Sizes(&[16])),
                    _ => None,
                }
            } else {
                string_format(name).map(FormatOf::String)
            };
            let Some(format) = format else { return Ok(None) };
            if !value.equals(&Value::Bool(true)) {
                return Ok(Some(Vec::new()));
            }
            let main = id(name);
            let mut out = std::vec![check(
                main.clone(),
                message_of(rule, &main),
                path,
                match format {
                    FormatOf::String(f) => Predicate::NotFormat(f),
                    FormatOf::Sizes(s) => Predicate::BytesSizeNot(s),
                }
            )];
            // Most formats report an empty value apart.
            let empty = format!("{main}_empty");
            let empty_message = message_of(rule, &empty);
            if !empty_message.is_empty() {
                out.push(check(empty, empty_message, path, Predicate::Empty));
            }
            Ok(Some(out))
        }
    }
}

enum FormatOf {
    String(Format),
    Sizes(&'static [usize]),
}

fn affix_message(words: &str, bytes: bool, shown: &str) -> String {
    if bytes {
        format!("{words} {shown}")
    } else {
        format!("{words} `{shown}`")
    }
}

/// The format a boolean rule of `StringRules` names.
fn string_format(name: &str) -> Option<Format> {
    Some(match name {
        "email" => Format::Email,
        "hostname" => Format::Hostname,
        "ip" => Format::Ip(0),
        "ipv4" => Format::Ip(4),
        "ipv6" => Format::Ip(6),
        "uri" => Format::Uri,
        "uri_ref" => Format::UriRef,
        "address" => Format::Address,
        "uuid" => Format::Uuid,
        "tuuid" => Format::Tuuid,
        "ip_with_prefixlen" => Format::IpPrefix(0, false),
        "ipv4_with_prefixlen" => Format::IpPrefix(4, false),
        "ipv6_with_prefixlen" => Format::IpPrefix(6, false),
        "ip_prefix" => Format::IpPrefix(0, true),
        "ipv4_prefix" => Format::IpPrefix(4, true),
        "ipv6_prefix" => Format::IpPrefix(6, true),
        "host_and_port" => Format::HostAndPort,
        "ulid" => Format::Ulid,
        "protobuf_fqn" => Format::ProtobufName(false),
        "protobuf_dot_fqn" => Format::ProtobufName(true),
        _ => return None,
    })
}

/// `well_known_regex`: HTTP header names (1) and values (2), `strict`
/// unless `strict` is set to false.
fn well_known_regex(
    rule: &FieldDescriptor,
    rules: &DynamicMessage,
    value: &Value<'static>,
    path: &[FieldPathElement],
) -> Vec<Rule> {
    let strict = match rules.descriptor().get_field_by_name("strict") {
        Some(f) if rules.has(&f) => rules.get(&f).and_then(reflect::Value::as_bool).unwrap_or(true),
        _ => true,
    };
    let id = |suffix: &str| format!("string.well_known_regex.{suffix}");
    match value {
        Value::Int(1) => std::vec![
            check(
                id("header_name"),
                message_of(rule, &id("header_name")),
                path,
                Predicate::NotFormat(Format::HeaderName(strict))
            ),
            check(
                id("header_name_empty"),
                message_of(rule, &id("header_name_empty")),
                path,
                Predicate::Empty
            ),
        ],
        Value::Int(2) => std::vec![check(
            id("header_value"),
            message_of(rule, &id("header_value")),
            path,
            Predicate::NotFormat(Format::HeaderValue(strict))
        )],
        _ => Vec::new(),
    }
}

/// `any.in` and `any.not_in`, as one rule (`prefix` ends with the `any`
/// member).
fn any_rules(rules: &DynamicMessage, prefix: &[FieldPathElement]) -> Vec<Rule> {
    let list = |n: &str| -> Vec<String> {
        match rules.descriptor().get_field_by_name(n).and_then(|f| rules.get(&f)) {
            Some(reflect::Value::List(items)) => items.iter().filter_map(|v| v.as_str().map(String::from)).collect(),
            _ => Vec::new(),
        }
    };
    let element = |n: &str| {
        let mut p = prefix.to_vec();
        if let Some(f) = rules.descriptor().get_field_by_name(n) {
            p.push(path::element(&f));
        }
        p
    };
    let (allowed, refused) = (list("in"), list("not_in"));
    if allowed.is_empty() && refused.is_empty() {
        return Vec::new();
    }
    std::vec![Rule::Any {
        allowed,
        refused,
        paths: [element("in"), element("not_in")],
    }]
}

/// `field_mask.const`, `.in` and `.not_in`.
fn field_mask(
    name: &str,
    rules: &DynamicMessage,
    value: &Value<'static>,
    path: &[FieldPathElement],
) -> Result<Option<Vec<Rule>>, String> {
    let strings = |v: &Value<'_>| -> Vec<String> {
        match v {
            Value::List(l) => l
                .iter()
                .filter_map(|x| match x {
                    Ok(Value::String(s)) => Some(String::from(&*s)),
                    _ => None,
                })
                .collect(),
            Value::Message(m) => match m.descriptor().get_field(1).map(|f| Value::field(m.get(), &f)) {
                Some(Ok(Value::List(l))) => l
                    .iter()
                    .filter_map(|x| match x {
                        Ok(Value::String(s)) => Some(String::from(&*s)),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    };
    let _ = rules;
    let list = strings(value);
    let shown = text(&Value::list(list.iter().map(|s| Value::string(s.as_str())).collect()));
    let rule = match name {
        "const" => check(
            "field_mask.const".into(),
            format!("must equal paths {shown}"),
            path,
            Predicate::PathsNotEqual(list.into()),
        ),
        "in" => check(
            "field_mask.in".into(),
            format!("must only contain paths in {shown}"),
            path,
            Predicate::PathsNotIn(list.into()),
        ),
        _ => check(
            "field_mask.not_in".into(),
            format!("must not contain any paths in {shown}"),
            path,
            Predicate::PathsIn(list.into()),
        ),
    };
    Ok(Some(std::vec![rule]))
}
