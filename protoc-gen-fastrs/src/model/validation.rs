//! Validation (`validate=true`): each generated message type's rule plan,
//! read from its `buf.validate` options through a descriptor pool of the
//! run's files, by the runtime's own planner (the plans the dynamic
//! validator runs), and rules that do not compile reported at their
//! `file:line:column`.

use std::sync::Arc;

use fastrs::descriptor::{DescriptorProto, FileDescriptorProto, FileDescriptorSet};
use fastrs::reflect::{DescriptorPool, MessageDescriptor};
use fastrs::validate::plan::{Planner, Plans};
use fastrs::Message as _;

use super::locations::{self, child};

/// The plans of every message of the files `to_generate`, and of the types
/// they hold.
///
/// # Errors
/// Rules that do not compile (a rule of the wrong type for its field, a
/// CEL expression that does not check), one line each at the place of the
/// message or field; unless `at_runtime`, which keeps them in the plans
/// for the generated code to report.
pub fn plans(
    files: &[FileDescriptorProto],
    to_generate: &[String],
    at_runtime: bool,
) -> Result<Arc<Plans>, Vec<String>> {
    let set = FileDescriptorSet {
        file: files.to_vec(),
        ..Default::default()
    };
    let pool =
        DescriptorPool::decode(&set.encode_to_vec()).map_err(|e| vec![format!("the schemas do not link: {e}")])?;
    let mut planner = Planner::new(&pool);
    for message in pool.all_messages() {
        if to_generate.iter().any(|f| f == message.file().name()) && !message.is_map_entry() {
            planner.message(&message);
        }
    }
    let plans = planner.into_plans();
    let mut errors = Vec::new();
    for plan in plans.values() {
        let message = &plan.descriptor;
        if let Some(e) = &plan.error {
            errors.push(format!("{}: {}: {e}", place(files, message, None), message.full_name()));
        }
        for field in &plan.fields {
            if let Some(e) = &field.error {
                errors.push(format!(
                    "{}: {}: {e}",
                    place(files, message, Some(field.field.name())),
                    field.field.full_name()
                ));
            }
        }
    }
    errors.sort();
    if errors.is_empty() || at_runtime {
        Ok(Arc::new(plans))
    } else {
        Err(errors)
    }
}

/// `file:line:column` of a message or one of its fields (`file` alone
/// without source info).
fn place(files: &[FileDescriptorProto], message: &MessageDescriptor, field: Option<&str>) -> String {
    let name = message.file().name().to_string();
    let Some(file) = files.iter().find(|f| f.name() == name) else {
        return name;
    };
    let Some(mut path) = message_path(file, message.full_name()) else {
        return name;
    };
    if let Some(field) = field {
        let Some(desc) = message_at(file, &path) else {
            return name;
        };
        if let Some(i) = desc.field.iter().position(|f| f.name() == field) {
            path = child(&path, locations::MESSAGE_FIELD, i);
        }
    }
    let span = file
        .source_code_info
        .as_ref()
        .and_then(|info| info.location.iter().find(|l| l.path == path))
        .map(|l| l.span.clone());
    match span.as_deref() {
        Some([line, column, ..]) => format!("{name}:{}:{}", line + 1, column + 1),
        _ => name,
    }
}

/// The location path of the message `full_name` in `file`.
fn message_path(file: &FileDescriptorProto, full_name: &str) -> Option<Vec<i32>> {
    let package = file.package();
    let relative = if package.is_empty() {
        full_name
    } else {
        full_name.strip_prefix(package)?.strip_prefix('.')?
    };
    let mut names = relative.split('.');
    let first = names.next()?;
    let index = file.message_type.iter().position(|m| m.name() == first)?;
    let mut path = child(&[], locations::FILE_MESSAGE, index);
    let mut current = &file.message_type[index];
    for name in names {
        let i = current.nested_type.iter().position(|m| m.name() == name)?;
        path = child(&path, locations::MESSAGE_NESTED, i);
        current = &current.nested_type[i];
    }
    Some(path)
}

/// The message at location `path` of `file`.
fn message_at<'f>(file: &'f FileDescriptorProto, path: &[i32]) -> Option<&'f DescriptorProto> {
    let mut steps = path.chunks(2);
    let first = steps.next()?;
    let mut current = file.message_type.get(usize::try_from(first[1]).ok()?)?;
    for step in steps {
        current = current.nested_type.get(usize::try_from(step[1]).ok()?)?;
    }
    Some(current)
}
