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

/// A pool of all the loaded files, to read options with.
pub fn pool(files: &[d::FileDescriptorProto], built_in: &d::FileDescriptorProto) -> Option<DescriptorPool> {
    let mut set = d::FileDescriptorSet {
        file: files.to_vec(),
        ..Default::default()
    };
    if !set.file.iter().any(|f| f.name == built_in.name) {
        set.file.push(built_in.clone());
    }
    // A pool the runtime refuses (it checks less than the linker, so this
    // would be a bug) leaves the options as interpreted.
    DescriptorPool::decode(&set.encode_to_vec()).ok()
}

/// Rewrites the options of `file`; returns the location paths of what was
/// removed.
pub fn strip(file: &mut d::FileDescriptorProto, pool: &DescriptorPool) -> Vec<Vec<i32>> {
    let mut stripper = Stripper {
        pool,
        removed: Vec::new(),
    };
    walk::options(file, &mut stripper);
    stripper.removed
}

struct Stripper<'a> {
    pool: &'a DescriptorPool,
    removed: Vec<Vec<i32>>,
}

impl Visit for Stripper<'_> {
    fn options<O: Options>(&mut self, options: &mut Option<O>, path: &[i32], _: &str) {
        let Some(message) = options else { return };
        let Some(descriptor) = self.pool.get_message_by_name(O::TYPE) else {
            return;
        };
        let before = message.encode_to_vec();
        let Ok(mut dynamic) = DynamicMessage::decode(descriptor, &before) else {
            return;
        };
        let mut at = path.to_vec();
        strip_message(&mut dynamic, &mut at, &mut self.removed);
        let after = dynamic.encode_to_vec();
        if after.is_empty() && !before.is_empty() {
            // Options that held only source-retention options are gone.
            *options = None;
            self.removed.push(path.to_vec());
        } else if let Ok(stripped) = O::decode(&after) {
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
