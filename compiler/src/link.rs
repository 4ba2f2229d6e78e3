//! Linking a parsed file: type names resolved to full names (`.pkg.Type`),
//! field types set from what the names are, JSON names filled in, default
//! values written as protoc's `CopyTo` writes them, and the `syntax` field
//! normalized the same way.

use std::collections::HashSet;

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};

use crate::error::At;
use crate::error::Problem;
use crate::symbols::{join, Kind, Local, Symbols, Unresolved};
use crate::text::{shortest_double, shortest_float};

/// Links `file` (loaded as file number `index`), whose names may come
/// from the files `visible` (by index). Returns the problems found, in
/// protoc's wording.
pub fn link(
    file: &mut d::FileDescriptorProto,
    index: usize,
    symbols: &Symbols,
    visible: &HashSet<usize>,
) -> Vec<Problem> {
    let mut linker = Linker {
        symbols,
        index,
        visible,
        file_name: file.name.as_deref().unwrap_or("").to_owned(),
        proto3: file.syntax.as_deref() == Some("proto3"),
        problems: Vec::new(),
    };
    let package = file.package.as_deref().unwrap_or("").to_owned();
    for (i, message) in file.message_type.iter_mut().enumerate() {
        linker.message(&package, message, &[4, i as i32]);
    }
    for (i, service) in file.service.iter_mut().enumerate() {
        linker.service(&package, service, &[6, i as i32]);
    }
    for (i, extension) in file.extension.iter_mut().enumerate() {
        linker.extension(&package, extension, &[7, i as i32]);
    }
    if file.syntax.as_deref() == Some("proto2") {
        // protoc writes no syntax for proto2, written or not.
        file.syntax = None;
    }
    linker.problems
}

struct Linker<'a> {
    symbols: &'a Symbols,
    /// The linked file's index among the loaded files.
    index: usize,
    visible: &'a HashSet<usize>,
    file_name: String,
    proto3: bool,
    problems: Vec<Problem>,
}

impl Linker<'_> {
    fn problem(&mut self, path: &[i32], at: At, message: impl Into<String>) {
        self.problems.push(Problem::new(path, at, message));
    }

    fn message(&mut self, scope: &str, message: &mut d::DescriptorProto, path: &[i32]) {
        let name = join(scope, message.name.as_deref().unwrap_or(""));
        let at = |field: i32, i: usize| [path, &[field, i as i32]].concat();
        for (i, field) in message.field.iter_mut().enumerate() {
            self.field(&name, field, &at(2, i));
        }
        for (i, extension) in message.extension.iter_mut().enumerate() {
            self.extension(&name, extension, &at(6, i));
        }
        for (i, nested) in message.nested_type.iter_mut().enumerate() {
            self.message(&name, nested, &at(3, i));
        }
    }

    /// An extension (its extendee's problems have a place only for the
    /// first extension of a block, where protoc records the extendee).
    fn extension(&mut self, scope: &str, field: &mut d::FieldDescriptorProto, path: &[i32]) {
        let full = join(scope, field.name.as_deref().unwrap_or(""));
        if let Some(extendee) = field.extendee.as_deref().map(str::to_owned) {
            if let Some(resolved) = self.message_type(&extendee, &full, path, At::Extendee, " target of extend") {
                field.extendee = Some(resolved.into());
            }
        }
        self.field(scope, field, path);
    }

    fn service(&mut self, scope: &str, service: &mut d::ServiceDescriptorProto, path: &[i32]) {
        let name = join(scope, service.name.as_deref().unwrap_or(""));
        for (m, method) in service.method.iter_mut().enumerate() {
            let full = join(&name, method.name.as_deref().unwrap_or(""));
            let at = [path, &[2, m as i32]].concat();
            for (ty, part) in [
                (&mut method.input_type, At::InputType),
                (&mut method.output_type, At::OutputType),
            ] {
                if let Some(written) = ty.as_deref().map(str::to_owned) {
                    if let Some(resolved) = self.message_type(&written, &full, &at, part, " ") {
                        *ty = Some(resolved.into());
                    }
                }
            }
        }
    }

    /// The full name (`.pkg.M`) of the message `written` names, seen from
    /// `relative_to`, for `usage` (protoc's words, in its spacing);
    /// problems go to the part `at` of the element `path`.
    fn message_type(&mut self, written: &str, relative_to: &str, path: &[i32], at: At, usage: &str) -> Option<String> {
        let (full, kind) = self.resolve(written, relative_to, path, at)?;
        if kind != Kind::Message {
            self.problem(path, at, format!("\"{written}\" is not a message type."));
            return None;
        }
        self.visible(&full, usage, path, at).then(|| format!(".{full}"))
    }

    fn resolve(&mut self, written: &str, relative_to: &str, path: &[i32], at: At) -> Option<(String, Kind)> {
        match self.symbols.resolve(written, relative_to, self.visible, true) {
            Ok((full, symbol)) if symbol.kind == Kind::Message || symbol.kind == Kind::Enum => {
                Some((full, symbol.kind))
            }
            Ok(_) => {
                self.problem(path, at, format!("\"{written}\" is not a type."));
                None
            }
            Err(why) => {
                let message = self.unresolved(written, why);
                self.problem(path, at, message);
                None
            }
        }
    }

    /// Whether the type `full` may be used here: it is in this file, or
    /// not local to its own (symbol visibility); a problem if not.
    fn visible(&mut self, full: &str, usage: &str, path: &[i32], at: At) -> bool {
        let Some(symbol) = self.symbols.get(full) else {
            return true;
        };
        let reason = match symbol.local {
            _ if symbol.file == self.index => return true,
            None => return true,
            Some(Local::Explicit) => "It is explicitly marked 'local'".to_owned(),
            Some(Local::ByDefault(default)) => format!(
                "It defaulted to local from file-level 'option features.default_symbol_visibility = '{}';",
                fastrs::Enum::as_str_name(default)
            ),
        };
        let message = format!(
            "Symbol \"{full}\", defined in \"{}\"{usage} is not visible from \"{}\". {reason} and cannot be \
             accessed outside its own file",
            self.symbols.file_names[symbol.file], self.file_name
        );
        self.problem(path, at, message);
        false
    }

    fn unresolved(&self, written: &str, why: Unresolved) -> String {
        match why {
            Unresolved::Missing => format!("\"{written}\" is not defined."),
            Unresolved::InnerScope(full) => format!(
                "\"{written}\" is resolved to \"{full}\", which is not defined. The innermost scope is searched first \
                 in name resolution. Consider using a leading '.'(i.e., \".{written}\") to start from the outermost scope."
            ),
            Unresolved::NotImported(file) => format!(
                "\"{written}\" seems to be defined in \"{}\", which is not imported by \"{}\".  To use it here, please add \
                 the necessary import.",
                self.symbols.file_names[file], self.file_name
            ),
        }
    }

    fn field(&mut self, scope: &str, field: &mut d::FieldDescriptorProto, path: &[i32]) {
        let name = field.name.as_deref().unwrap_or("").to_owned();
        let full = join(scope, &name);
        if let Some(written) = field.type_name.as_deref().map(str::to_owned) {
            let resolved = self.resolve(&written, &full, path, At::Type);
            if let Some((resolved, kind)) = resolved.filter(|(r, _)| self.visible(r, " ", path, At::Type)) {
                match (field.r#type, kind) {
                    (None, Kind::Message) => field.r#type = Some(Type::Message),
                    (None, _) => field.r#type = Some(Type::Enum),
                    (Some(Type::Group), Kind::Message) => {}
                    _ => self.problem(path, At::Type, format!("\"{written}\" is not a message type.")),
                }
                field.type_name = Some(format!(".{resolved}").into());
            }
        }
        if field.json_name.is_none() {
            field.json_name = Some(fastrs::schema::json_name(&name).into());
        }
        if field.default_value.is_some() {
            self.default_value(field, path);
        }
    }

    /// Checks a default and writes it as `CopyTo` writes it for the
    /// field's type.
    fn default_value(&mut self, field: &mut d::FieldDescriptorProto, path: &[i32]) {
        let Some(text) = field.default_value.as_deref().map(str::to_owned) else {
            return;
        };
        if field.label == Some(Label::Repeated) {
            self.problem(path, At::DefaultValue, "Repeated fields can't have default values.");
            return;
        }
        let normalized = match field.r#type {
            Some(Type::Float) => shortest_float(text.parse::<f64>().unwrap_or(f64::NAN) as f32),
            Some(Type::Double) => shortest_double(text.parse::<f64>().unwrap_or(f64::NAN)),
            Some(Type::Enum) => return self.enum_default(field, &text, path),
            Some(Type::Message | Type::Group) => {
                return self.problem(path, At::DefaultValue, "Messages can't have default values.")
            }
            _ => text,
        };
        if self.proto3 {
            self.problem(
                path,
                At::DefaultValue,
                "Explicit default values are not allowed in proto3.",
            );
        }
        field.default_value = Some(normalized.into());
    }

    fn enum_default(&mut self, field: &d::FieldDescriptorProto, text: &str, path: &[i32]) {
        let type_name = field.type_name.as_deref().unwrap_or("").trim_start_matches('.');
        let values = self.symbols.get(type_name).and_then(|s| s.values.clone());
        if !text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            self.problem(
                path,
                At::DefaultValue,
                "Default value for an enum field must be an identifier.",
            );
        } else if !values.is_some_and(|values| values.iter().any(|(name, _)| name == text)) {
            self.problem(
                path,
                At::DefaultValue,
                format!("Enum type \"{type_name}\" has no value named \"{text}\"."),
            );
        } else if self.proto3 {
            self.problem(
                path,
                At::DefaultValue,
                "Explicit default values are not allowed in proto3.",
            );
        }
    }
}
