//! Options as protoc writes them into a descriptor set: read back through
//! the schema of every loaded file (so custom options are known fields,
//! merged and in number order) and without the options whose definition
//! says `retention = RETENTION_SOURCE` (protoc keeps those only with
//! `--retain_options`). An options message left empty goes too. The
//! locations of what was removed are removed from the source info.

use fastrs::descriptor as d;
use fastrs::descriptor::field_options::OptionRetention;
use fastrs::reflect::{DescriptorPool, DynamicMessage, Value};
use fastrs::Message;

use crate::walk::{self, Options, Visit};

/// A pool to read custom options with: the loaded files (but those
/// `failed`) that declare extensions of descriptor.proto's messages, with
/// their imports, and descriptor.proto (from `built_in` when none of them
/// is it).
pub fn pool(
    files: &[d::FileDescriptorProto],
    failed: &[bool],
    built_in: &d::FileDescriptorProto,
) -> Option<DescriptorPool> {
    let wanted = option_files(files, failed);
    // The set's encoding, written file by file (no copy of the files).
    let mut set = Vec::new();
    let mut add = |file: &d::FileDescriptorProto| {
        let bytes = file.encode_to_vec();
        set.push(0x0a);
        crate::value::put_varint(&mut set, bytes.len() as u64);
        set.extend_from_slice(&bytes);
    };
    let ok = files.iter().zip(&wanted).filter(|(_, wanted)| **wanted).map(|(f, _)| f);
    let mut has_built_in = false;
    for file in ok {
        has_built_in |= file.name == built_in.name;
        add(file);
    }
    if !has_built_in {
        add(built_in);
    }
    // A pool the runtime refuses (it checks less than the linker, so this
    // would be a bug) leaves the custom options as interpreted.
    DescriptorPool::decode(&set).ok()
}

/// Whether some options of `file` are or will be custom ones (after the
/// built-in pass: those waiting, and extensions of features already set),
/// which only a pool of the files reads.
pub fn has_custom(file: &mut d::FileDescriptorProto) -> bool {
    struct Custom(bool);
    impl Visit for Custom {
        fn options<O: Options>(&mut self, options: &mut Option<O>, _: &[i32], _: &str) {
            self.0 |= options.as_mut().is_some_and(|o| {
                o.uninterpreted()
                    .iter()
                    .any(|u| u.name.first().is_some_and(|n| n.is_extension == Some(true)))
            });
        }
    }
    let mut custom = Custom(false);
    walk::options(file, &mut custom);
    custom.0
}

/// Which files the options pool needs: those declaring extensions of
/// `google.protobuf` messages (options and features), those whose option
/// values expand an `Any` (`[type.googleapis.com/pkg.T] { ... }`, whose
/// type the file or its imports declare), and their imports.
fn option_files(files: &[d::FileDescriptorProto], failed: &[bool]) -> Vec<bool> {
    let by_name: std::collections::HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_deref().unwrap_or(""), i))
        .collect();
    let mut wanted = vec![false; files.len()];
    let mut stack: Vec<usize> = (0..files.len())
        .filter(|&i| !failed[i] && (extends_options(&files[i]) || expands_any(&files[i])))
        .collect();
    while let Some(index) = stack.pop() {
        if std::mem::replace(&mut wanted[index], true) {
            continue;
        }
        let file = &files[index];
        for dependency in file.dependency.iter().chain(&file.option_dependency) {
            if let Some(&dep) = by_name.get(&**dependency) {
                stack.push(dep);
            }
        }
    }
    wanted
}

/// Whether `file` extends a message of `google.protobuf`, anywhere in it.
fn extends_options(file: &d::FileDescriptorProto) -> bool {
    fn extends(fields: &[d::FieldDescriptorProto]) -> bool {
        fields.iter().any(|f| {
            f.extendee
                .as_deref()
                .is_some_and(|e| e.starts_with(".google.protobuf."))
        })
    }
    fn in_message(message: &d::DescriptorProto) -> bool {
        extends(&message.extension) || message.nested_type.iter().any(in_message)
    }
    extends(&file.extension) || file.message_type.iter().any(in_message)
}

/// Whether an option value of `file` expands an `Any` in text format.
fn expands_any(file: &d::FileDescriptorProto) -> bool {
    fn any(u: &[d::UninterpretedOption]) -> bool {
        u.iter().any(|o| {
            o.aggregate_value
                .as_deref()
                .is_some_and(|v| v.contains('[') && v.contains('/'))
        })
    }
    fn field(f: &d::FieldDescriptorProto) -> bool {
        f.options.as_ref().is_some_and(|o| any(&o.uninterpreted_option))
    }
    fn enumeration(e: &d::EnumDescriptorProto) -> bool {
        e.options.as_ref().is_some_and(|o| any(&o.uninterpreted_option))
            || e.value
                .iter()
                .any(|v| v.options.as_ref().is_some_and(|o| any(&o.uninterpreted_option)))
    }
    fn message(m: &d::DescriptorProto) -> bool {
        m.options.as_ref().is_some_and(|o| any(&o.uninterpreted_option))
            || m.field.iter().chain(&m.extension).any(field)
            || m.oneof_decl
                .iter()
                .any(|o| o.options.as_ref().is_some_and(|o| any(&o.uninterpreted_option)))
            || m.nested_type.iter().any(message)
            || m.enum_type.iter().any(enumeration)
    }
    file.options.as_ref().is_some_and(|o| any(&o.uninterpreted_option))
        || file.message_type.iter().any(message)
        || file.enum_type.iter().any(enumeration)
        || file.extension.iter().any(field)
        || file.service.iter().any(|s| {
            s.options.as_ref().is_some_and(|o| any(&o.uninterpreted_option))
                || s.method
                    .iter()
                    .any(|m| m.options.as_ref().is_some_and(|o| any(&o.uninterpreted_option)))
        })
}

/// Rewrites the options of `file`; returns the location paths of what was
/// removed. `pool` reads custom options (see [`has_custom`]).
pub fn strip(file: &mut d::FileDescriptorProto, pool: Option<&DescriptorPool>) -> Vec<Vec<i32>> {
    let mut stripper = Stripper {
        pool,
        removed: Vec::new(),
    };
    walk::options(file, &mut stripper);
    stripper.removed
}

struct Stripper<'a> {
    pool: Option<&'a DescriptorPool>,
    removed: Vec<Vec<i32>>,
}

/// `FeatureSet`'s fields of source retention (`enforce_naming_style`,
/// `default_symbol_visibility`, `enforce_proto_limits`).
fn strip_features(features: &mut d::FeatureSet) -> Vec<i32> {
    let mut removed = Vec::new();
    if features.enforce_naming_style.take().is_some() {
        removed.push(7);
    }
    if features.default_symbol_visibility.take().is_some() {
        removed.push(8);
    }
    if features.enforce_proto_limits.take().is_some() {
        removed.push(9);
    }
    removed
}

impl Visit for Stripper<'_> {
    fn options<O: Options>(&mut self, options: &mut Option<O>, path: &[i32], _: &str) {
        let Some(message) = options else { return };
        let before = message.encode_to_vec();
        if before.is_empty() {
            return;
        }
        if let Some(pool) = self.pool.filter(|_| message.has_unknown()) {
            self.strip_dynamic(message, path, pool);
        } else {
            // Built-in options only: strip them as they are typed.
            for number in message.strip_own() {
                self.removed.push([path, &[number]].concat());
            }
            let features = message.features_mut().map(strip_features).unwrap_or_default();
            for number in features {
                self.removed.push([path, &[50, number]].concat());
            }
        }
        if message.encode_to_vec().is_empty() {
            // Options that held only source-retention options are gone.
            *options = None;
            self.removed.push(path.to_vec());
        }
    }
}

impl Stripper<'_> {
    /// Reads the options through the schema of every loaded file, so that
    /// custom options are known fields, and writes them back without the
    /// source-retention ones.
    fn strip_dynamic<O: Options>(&mut self, message: &mut O, path: &[i32], pool: &DescriptorPool) {
        let Some(descriptor) = pool.get_message_by_name(O::TYPE) else {
            return;
        };
        let Ok(mut dynamic) = DynamicMessage::decode(descriptor, &message.encode_to_vec()) else {
            return;
        };
        let mut at = path.to_vec();
        strip_message(&mut dynamic, &mut at, &mut self.removed);
        if let Ok(stripped) = O::decode(&dynamic.encode_to_vec()) {
            *message = stripped;
        }
    }
}

/// Clears the source-retention fields of `message` and of the messages it
/// holds; `path` is where `message` sits.
fn strip_message(message: &mut DynamicMessage, path: &mut Vec<i32>, removed: &mut Vec<Vec<i32>>) {
    let fields: Vec<_> = message.fields().map(|(field, _)| field).collect();
    for field in fields {
        path.push(field.number() as i32);
        if field.options().retention == Some(OptionRetention::RetentionSource) {
            message.clear_field(&field);
            removed.push(path.clone());
        } else {
            match message.get_mut(&field) {
                Value::Message(inner) => strip_message(inner, path, removed),
                Value::List(items) => {
                    for (i, item) in items.iter_mut().enumerate() {
                        if let Value::Message(inner) = item {
                            path.push(i as i32);
                            strip_message(inner, path, removed);
                            path.pop();
                        }
                    }
                }
                _ => {}
            }
        }
        path.pop();
    }
}
