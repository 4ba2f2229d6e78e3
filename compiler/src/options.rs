//! Interpreting options: each `uninterpreted_option` the parser kept becomes
//! encoded fields of its options message, as protoc's option interpreter
//! writes them (one record per option statement, intermediate messages
//! wrapped around the value), and the options message is then read back,
//! so that built-in options land in their fields and custom ones stay as
//! unknown fields in the order written.

use std::collections::HashSet;

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::descriptor::uninterpreted_option::NamePart;
use fastrs::Message;

use crate::schema::Schema;
use crate::symbols::{join, Kind};

/// The options messages, with what the interpreter needs of each.
pub trait Options: Message + Default {
    /// Full name of the options message type (`google.protobuf.FileOptions`).
    const TYPE: &'static str;
    fn uninterpreted(&mut self) -> &mut Vec<d::UninterpretedOption>;
}

macro_rules! options {
    ($($ty:ident),*) => {$(
        impl Options for d::$ty {
            const TYPE: &'static str = concat!("google.protobuf.", stringify!($ty));
            fn uninterpreted(&mut self) -> &mut Vec<d::UninterpretedOption> {
                &mut self.uninterpreted_option
            }
        }
    )*};
}

options!(
    FileOptions,
    MessageOptions,
    FieldOptions,
    OneofOptions,
    EnumOptions,
    EnumValueOptions,
    ExtensionRangeOptions,
    ServiceOptions,
    MethodOptions
);

/// Interprets the options of every element of `file`.
pub fn interpret_file(file: &mut d::FileDescriptorProto, schema: &Schema<'_>) -> Vec<String> {
    let mut interpreter = Interpreter {
        schema,
        errors: Vec::new(),
    };
    let package = file.package.as_deref().unwrap_or("").to_owned();
    interpreter.interpret(&mut file.options, &join(&package, "dummy"));
    for message in &mut file.message_type {
        interpreter.message(&package, message);
    }
    for enum_type in &mut file.enum_type {
        interpreter.enum_type(&package, enum_type);
    }
    for extension in &mut file.extension {
        let name = join(&package, extension.name.as_deref().unwrap_or(""));
        interpreter.interpret(&mut extension.options, &name);
    }
    for service in &mut file.service {
        let name = join(&package, service.name.as_deref().unwrap_or(""));
        interpreter.interpret(&mut service.options, &name);
        for method in &mut service.method {
            let method_name = join(&name, method.name.as_deref().unwrap_or(""));
            interpreter.interpret(&mut method.options, &method_name);
        }
    }
    interpreter.errors
}

struct Interpreter<'a> {
    schema: &'a Schema<'a>,
    errors: Vec<String>,
}

/// An option's name as written, for messages: `(foo.bar).baz`.
fn display_name(parts: &[NamePart]) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        let name = part.name_part.as_deref().unwrap_or("");
        if part.is_extension == Some(true) {
            out += &format!("({name})");
        } else {
            out += name;
        }
    }
    out
}

impl Interpreter<'_> {
    fn message(&mut self, scope: &str, message: &mut d::DescriptorProto) {
        let name = join(scope, message.name.as_deref().unwrap_or(""));
        self.interpret(&mut message.options, &name);
        for field in message.field.iter_mut().chain(&mut message.extension) {
            let field_name = join(&name, field.name.as_deref().unwrap_or(""));
            self.interpret(&mut field.options, &field_name);
        }
        for oneof in &mut message.oneof_decl {
            let oneof_name = join(&name, oneof.name.as_deref().unwrap_or(""));
            self.interpret(&mut oneof.options, &oneof_name);
        }
        for range in &mut message.extension_range {
            self.interpret(&mut range.options, &name);
        }
        for nested in &mut message.nested_type {
            self.message(&name, nested);
        }
        for enum_type in &mut message.enum_type {
            self.enum_type(&name, enum_type);
        }
    }

    fn enum_type(&mut self, scope: &str, enum_type: &mut d::EnumDescriptorProto) {
        let name = join(scope, enum_type.name.as_deref().unwrap_or(""));
        self.interpret(&mut enum_type.options, &name);
        for value in &mut enum_type.value {
            let value_name = join(scope, value.name.as_deref().unwrap_or(""));
            self.interpret(&mut value.options, &value_name);
        }
    }

    /// Interprets one element's options; `scope` is the full name protoc
    /// resolves extension names from.
    fn interpret<O: Options>(&mut self, options: &mut Option<O>, scope: &str) {
        let Some(message) = options else { return };
        let written = std::mem::take(message.uninterpreted());
        if written.is_empty() {
            return;
        }
        let mut encoded = message.encode_to_vec();
        let mut set = HashSet::new();
        for option in &written {
            match self.option(O::TYPE, option, scope, &mut set) {
                Ok(bytes) => encoded.extend_from_slice(&bytes),
                Err(error) => self.errors.push(error),
            }
        }
        match O::decode(&encoded) {
            Ok(decoded) => *message = decoded,
            Err(e) => self
                .errors
                .push(format!("options do not decode after interpretation: {e}")),
        }
    }

    /// The encoded records that set `option` on a message of type `options`.
    fn option(
        &self,
        options: &str,
        option: &d::UninterpretedOption,
        scope: &str,
        set: &mut HashSet<Vec<i32>>,
    ) -> Result<Vec<u8>, String> {
        let name = display_name(&option.name);
        let mut message = options.to_owned();
        let mut path = Vec::new();
        let mut fields = Vec::new();
        for (i, part) in option.name.iter().enumerate() {
            let field = self.name_part(&message, part, scope, &name, i == 0)?;
            path.push(field.number.unwrap_or(0));
            let last = i + 1 == option.name.len();
            if !last {
                if !matches!(field.r#type, Some(Type::Message | Type::Group)) {
                    return Err(format!("Option \"{name}\" is an atomic type, not a message."));
                }
                if field.label == Some(Label::Repeated) {
                    return Err(format!(
                        "Option field \"{name}\" is a repeated message. Repeated message options must be initialized \
                         using an aggregate value."
                    ));
                }
                message = field
                    .type_name
                    .as_deref()
                    .unwrap_or("")
                    .trim_start_matches('.')
                    .to_owned();
            }
            fields.push(field);
        }
        let leaf = fields.last().ok_or_else(|| "empty option name".to_owned())?;
        if leaf.label != Some(Label::Repeated) && !set.insert(path.clone()) {
            return Err(format!("Option \"{name}\" was already set."));
        }
        let mut bytes = crate::value::encode(self.schema, leaf, option, &name, scope)?;
        for field in fields.iter().rev().skip(1) {
            bytes = wrap(field, &bytes);
        }
        Ok(bytes)
    }

    /// The field one part of an option name names, in the message `message`.
    fn name_part(
        &self,
        message: &str,
        part: &NamePart,
        scope: &str,
        name: &str,
        first: bool,
    ) -> Result<d::FieldDescriptorProto, String> {
        let written = part.name_part.as_deref().unwrap_or("");
        if part.is_extension != Some(true) {
            let found = self
                .schema
                .message(message)
                .and_then(|m| m.field.iter().find(|f| f.name.as_deref() == Some(written)));
            return match found {
                Some(field) => Ok(field.clone()),
                None if first => Err(format!("Option \"{name}\" unknown.")),
                None => Err(format!(
                    "Option field \"{name}\" is not a field or extension of message \"{}\".",
                    short(message)
                )),
            };
        }
        let Some((full, symbol)) = self.schema.resolve(written, scope) else {
            return Err(format!(
                "Option \"({written})\" unknown. Ensure that your proto definition file imports the proto which defines \
                 the option."
            ));
        };
        if symbol != Kind::Extension {
            return Err(format!(
                "Option \"({written})\" is not a field or extension of message \"{}\".",
                short(message)
            ));
        }
        let extension = self
            .schema
            .extension(&full)
            .ok_or_else(|| format!("Option \"({written})\" unknown."))?;
        if extension.extendee.as_deref().map(|e| e.trim_start_matches('.')) != Some(message) {
            return Err(format!(
                "Option \"({written})\" is not a field or extension of message \"{}\".",
                short(message)
            ));
        }
        Ok(extension)
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
