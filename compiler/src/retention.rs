//! Options as protoc writes them into a descriptor set: read back through
//! the schema of every loaded file (so custom options are known fields,
//! merged and in number order) and without the options whose definition
//! says `retention = RETENTION_SOURCE` (protoc keeps those only with
//! `--retain_options`).

use fastrs::descriptor as d;
use fastrs::descriptor::field_options::OptionRetention;
use fastrs::reflect::{DescriptorPool, DynamicMessage, Value};
use fastrs::Message;

use crate::options::Options;

/// Rewrites the options of `files` (those marked in `compiled`) in place.
pub fn strip(files: &mut [d::FileDescriptorProto], compiled: &[bool], built_in: &d::FileDescriptorProto) {
    let mut set = d::FileDescriptorSet {
        file: files.to_vec(),
        ..Default::default()
    };
    if !set.file.iter().any(|f| f.name == built_in.name) {
        set.file.push(built_in.clone());
    }
    // A pool the runtime refuses (it checks less than the linker, so this
    // would be a bug) leaves the options as interpreted.
    let Ok(pool) = DescriptorPool::decode(&set.encode_to_vec()) else {
        return;
    };
    for (file, _) in files.iter_mut().zip(compiled).filter(|(_, c)| **c) {
        Stripper { pool: &pool }.file(file);
    }
}

struct Stripper<'a> {
    pool: &'a DescriptorPool,
}

impl Stripper<'_> {
    fn file(&self, file: &mut d::FileDescriptorProto) {
        self.options(&mut file.options);
        for message in &mut file.message_type {
            self.message(message);
        }
        for enum_type in &mut file.enum_type {
            self.enum_type(enum_type);
        }
        for extension in &mut file.extension {
            self.options(&mut extension.options);
        }
        for service in &mut file.service {
            self.options(&mut service.options);
            for method in &mut service.method {
                self.options(&mut method.options);
            }
        }
    }

    fn message(&self, message: &mut d::DescriptorProto) {
        self.options(&mut message.options);
        for field in message.field.iter_mut().chain(&mut message.extension) {
            self.options(&mut field.options);
        }
        for oneof in &mut message.oneof_decl {
            self.options(&mut oneof.options);
        }
        for range in &mut message.extension_range {
            self.options(&mut range.options);
        }
        for nested in &mut message.nested_type {
            self.message(nested);
        }
        for enum_type in &mut message.enum_type {
            self.enum_type(enum_type);
        }
    }

    fn enum_type(&self, enum_type: &mut d::EnumDescriptorProto) {
        self.options(&mut enum_type.options);
        for value in &mut enum_type.value {
            self.options(&mut value.options);
        }
    }

    fn options<O: Options>(&self, options: &mut Option<O>) {
        let Some(message) = options else { return };
        let Some(descriptor) = self.pool.get_message_by_name(O::TYPE) else {
            return;
        };
        let before = message.encode_to_vec();
        let Ok(mut dynamic) = DynamicMessage::decode(descriptor, &before) else {
            return;
        };
        strip_message(&mut dynamic);
        let after = dynamic.encode_to_vec();
        if after.is_empty() && !before.is_empty() {
            // Options that held only source-retention options are gone.
            *options = None;
        } else if let Ok(stripped) = O::decode(&after) {
            *message = stripped;
        }
    }
}

/// Clears the source-retention fields of `message` and of the messages it
/// holds.
fn strip_message(message: &mut DynamicMessage) {
    let fields: Vec<_> = message.fields().map(|(field, _)| field).collect();
    for field in fields {
        if field.options().retention == Some(OptionRetention::RetentionSource) {
            message.clear_field(&field);
            continue;
        }
        strip_value(message.get_mut(&field));
    }
}

fn strip_value(value: &mut Value) {
    match value {
        Value::Message(inner) => strip_message(inner),
        Value::List(items) => items.iter_mut().for_each(strip_value),
        Value::Map(entries) => entries.values_mut().for_each(strip_value),
        _ => {}
    }
}
