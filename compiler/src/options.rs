//! Interpreting options: each `uninterpreted_option` the parser kept becomes
//! encoded fields of its options message, as protoc's option interpreter
//! writes them (one record per option statement, intermediate messages
//! wrapped around the value), and the options message is then read back,
//! so that built-in options land in their fields and custom ones stay as
//! unknown fields in the order written.

use std::collections::{HashMap, HashSet};

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::descriptor::uninterpreted_option::NamePart;

use crate::error::At;
use crate::error::Problem;
use crate::schema::Schema;
use crate::symbols::Kind;
use crate::walk::{self, Options, Visit};

/// Takes the options of `file` that `pass` interprets out of it (their
/// `uninterpreted_option`s), so that they can be interpreted against a
/// schema holding the file.
pub fn take(file: &mut d::FileDescriptorProto, pass: Pass) -> Vec<Written> {
    let mut taker = Taker {
        pass,
        written: Vec::new(),
    };
    walk::options(file, &mut taker);
    taker.written
}

/// One element's options as written, to interpret.
pub struct Written {
    /// Where the options sit in the file.
    path: Vec<i32>,
    /// The full name names are resolved from.
    scope: String,
    /// The options message's type.
    options_type: &'static str,
    /// Each option with its index among the element's options as written.
    options: Vec<(usize, d::UninterpretedOption)>,
}

struct Taker {
    pass: Pass,
    written: Vec<Written>,
}

impl Visit for Taker {
    fn options<O: Options>(&mut self, options: &mut Option<O>, path: &[i32], scope: &str) {
        let Some(message) = options else { return };
        let all = std::mem::take(message.uninterpreted());
        let mine: Vec<(usize, d::UninterpretedOption)> = all
            .iter()
            .enumerate()
            .filter(|(_, option)| {
                let custom = option.name.first().is_some_and(|part| part.is_extension == Some(true));
                custom == (self.pass == Pass::Custom)
            })
            .map(|(i, option)| (i, option.clone()))
            .collect();
        if self.pass == Pass::BuiltIn {
            // The custom options wait for their pass, at their indices.
            *message.uninterpreted() = all;
        }
        if !mine.is_empty() {
            self.written.push(Written {
                path: path.to_vec(),
                scope: scope.to_owned(),
                options_type: O::TYPE,
                options: mine,
            });
        }
    }
}

/// Interprets `written` options against `schema`: the encoded fields each
/// element's options gain, the problems found and, for the source
/// locations, where each option's location moves (from `[..., 999, i]` to
/// the path of the field it set).
pub fn interpret(written: &[Written], schema: &Schema<'_>) -> Interpreted {
    let mut interpreter = Interpreter {
        schema,
        out: Interpreted::default(),
        repeated: HashMap::new(),
    };
    for element in written {
        let records = interpreter.element(element);
        interpreter.out.records.push((element.path.clone(), records));
    }
    interpreter.out
}

/// Adds the interpreted fields to the options of `file`.
pub fn apply(file: &mut d::FileDescriptorProto, interpreted: &Interpreted) -> Vec<Problem> {
    let mut applier = Applier {
        records: &interpreted.records,
        problems: Vec::new(),
    };
    walk::options(file, &mut applier);
    applier.problems
}

struct Applier<'a> {
    records: &'a [(Vec<i32>, Vec<u8>)],
    problems: Vec<Problem>,
}

impl Visit for Applier<'_> {
    fn options<O: Options>(&mut self, options: &mut Option<O>, path: &[i32], _: &str) {
        let Some(message) = options else { return };
        let Some((_, records)) = self.records.iter().find(|(p, _)| p == path) else {
            return;
        };
        let pending = std::mem::take(message.uninterpreted());
        let mut encoded = message.encode_to_vec();
        encoded.extend_from_slice(records);
        match O::decode(&encoded) {
            Ok(decoded) => {
                *message = decoded;
                *message.uninterpreted() = pending;
            }
            Err(e) => self.problems.push(Problem::new(
                path,
                At::Other,
                format!("Some options could not be correctly parsed: {e}"),
            )),
        }
    }
}

/// What interpreting a file's options found.
#[derive(Default)]
pub struct Interpreted {
    pub problems: Vec<Problem>,
    /// Location paths of options as written, and of the fields they set.
    pub moved: Vec<(Vec<i32>, Vec<i32>)>,
    /// The encoded fields each options message (by path) gains.
    records: Vec<(Vec<i32>, Vec<u8>)>,
}

/// Which options a pass interprets: protoc interprets the built-in ones
/// (features among them) first, then the custom ones, so that a pool of
/// the files with their features set can read custom aggregate values.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    BuiltIn,
    Custom,
}

struct Interpreter<'a> {
    schema: &'a Schema<'a>,
    out: Interpreted,
    /// How many values each repeated option field has been given.
    repeated: HashMap<Vec<i32>, i32>,
}

impl Interpreter<'_> {
    /// The encoded fields one element's options gain.
    fn element(&mut self, element: &Written) -> Vec<u8> {
        let mut encoded = Vec::new();
        let mut set = HashSet::new();
        let path = &element.path;
        for (i, option) in &element.options {
            let at = [path.as_slice(), &[999, *i as i32]].concat();
            match self.option(element.options_type, option, &element.scope, &mut set) {
                Ok((bytes, fields, repeated)) => {
                    encoded.extend_from_slice(&bytes);
                    let mut dest = [path.as_slice(), &fields].concat();
                    if repeated {
                        let count = self.repeated.entry(dest.clone()).or_default();
                        dest.push(*count);
                        *count += 1;
                    }
                    self.out.moved.push((at, dest));
                }
                Err((part, message)) => self.out.problems.push(Problem::new(&at, part, message)),
            }
        }
        encoded
    }
}

/// An option's name part as written: `foo`, or `(foo.bar)`.
fn display_part(part: &NamePart) -> String {
    let name = part.name_part.as_deref().unwrap_or("");
    if part.is_extension == Some(true) {
        format!("({name})")
    } else {
        name.to_owned()
    }
}

/// Why an option could not be set: the part of it to blame, and what.
type Refusal = (At, String);

impl Interpreter<'_> {
    /// The encoded records that set `option` on a message of type
    /// `options`, the field numbers on the way to the field set, and
    /// whether that field is repeated.
    fn option(
        &self,
        options: &str,
        option: &d::UninterpretedOption,
        scope: &str,
        set: &mut HashSet<Vec<i32>>,
    ) -> Result<(Vec<u8>, Vec<i32>, bool), Refusal> {
        let mut name = String::new();
        let mut message = options.to_owned();
        let mut numbers = Vec::new();
        let mut fields = Vec::new();
        for (i, part) in option.name.iter().enumerate() {
            if i > 0 {
                name.push('.');
            }
            name += &display_part(part);
            let field = self.name_part(&message, part, scope, &name)?;
            numbers.push(field.0.number.unwrap_or(0));
            if i + 1 < option.name.len() {
                message = self.message_after(&field.0, &name)?;
            }
            fields.push(field);
        }
        let Some((leaf, leaf_name)) = fields.last() else {
            return Err((At::OptionName, "Option must have a name.".into()));
        };
        if leaf.label != Some(Label::Repeated) && !set.insert(numbers.clone()) {
            return Err((At::OptionName, format!("Option \"{name}\" was already set.")));
        }
        let mut bytes = crate::value::encode(self.schema, leaf, leaf_name, option).map_err(|e| (At::OptionValue, e))?;
        for (field, _) in fields.iter().rev().skip(1) {
            bytes = wrap(field, &bytes);
        }
        Ok((bytes, numbers, leaf.label == Some(Label::Repeated)))
    }

    /// The message type an option name goes on into after `field`.
    fn message_after(&self, field: &d::FieldDescriptorProto, name: &str) -> Result<String, Refusal> {
        if !matches!(field.r#type, Some(Type::Message | Type::Group)) {
            return Err((
                At::OptionName,
                format!("Option \"{name}\" is an atomic type, not a message."),
            ));
        }
        if field.label == Some(Label::Repeated) {
            return Err((
                At::OptionName,
                format!(
                    "Option field \"{name}\" is a repeated message. Repeated message options must be initialized \
                     using an aggregate value."
                ),
            ));
        }
        Ok(field
            .type_name
            .as_deref()
            .unwrap_or("")
            .trim_start_matches('.')
            .to_owned())
    }

    /// The field one part of an option name names in the message `message`,
    /// with its full name.
    fn name_part(
        &self,
        message: &str,
        part: &NamePart,
        scope: &str,
        name: &str,
    ) -> Result<(d::FieldDescriptorProto, String), Refusal> {
        let written = part.name_part.as_deref().unwrap_or("");
        let unknown = || {
            (
                At::OptionName,
                format!(
                    "Option \"{name}\" unknown. Ensure that your proto definition file imports the proto which defines \
                     the option (i.e. via import option after edition 2024)."
                ),
            )
        };
        if part.is_extension != Some(true) {
            let found = self
                .schema
                .message(message)
                .and_then(|m| m.field.iter().find(|f| f.name.as_deref() == Some(written)));
            return found
                .map(|f| (f.clone(), format!("{message}.{written}")))
                .ok_or_else(unknown);
        }
        let (full, symbol) = self.schema.resolve(written, scope).ok_or_else(unknown)?;
        let extension = self
            .schema
            .extension(&full)
            .filter(|_| symbol == Kind::Extension)
            .ok_or_else(unknown)?;
        if extension.extendee.as_deref().map(|e| e.trim_start_matches('.')) != Some(message) {
            return Err((
                At::OptionName,
                format!(
                    "Option field \"{name}\" is not a field or extension of message \"{}\".",
                    short(message)
                ),
            ));
        }
        Ok((extension, full))
    }
}

fn short(full: &str) -> &str {
    full.rsplit('.').next().unwrap_or(full)
}

/// `inner`, the encoded fields of a message, as the value of `field`.
fn wrap(field: &d::FieldDescriptorProto, inner: &[u8]) -> Vec<u8> {
    let number = field.number.unwrap_or(0) as u64;
    let mut out = Vec::with_capacity(inner.len() + 10);
    if field.r#type == Some(Type::Group) {
        crate::value::put_varint(&mut out, number << 3 | 3);
        out.extend_from_slice(inner);
        crate::value::put_varint(&mut out, number << 3 | 4);
    } else {
        crate::value::put_varint(&mut out, number << 3 | 2);
        crate::value::put_varint(&mut out, inner.len() as u64);
        out.extend_from_slice(inner);
    }
    out
}
