//! Every options message of a file, with the path of its location (as in
//! `SourceCodeInfo`) and the scope protoc resolves option names from.

use fastrs::descriptor as d;
use fastrs::Message;

use crate::symbols::join;

/// The options messages, with what their readers need of each.
pub trait Options: Message + Default {
    /// Full name of the options message type (`google.protobuf.FileOptions`).
    const TYPE: &'static str;
    fn uninterpreted(&mut self) -> &mut Vec<d::UninterpretedOption>;
    /// The `features` option, if set.
    fn features(&self) -> Option<&d::FeatureSet>;
    fn features_mut(&mut self) -> Option<&mut d::FeatureSet>;
    /// Whether the message holds fields its type does not declare (custom
    /// options), here or in its features.
    fn has_unknown(&self) -> bool;
    /// Clears the built-in fields of source retention the message's own
    /// type declares (beyond those of `features`); returns their numbers.
    fn strip_own(&mut self) -> Vec<i32> {
        Vec::new()
    }
}

macro_rules! options {
    ($($ty:ident),*) => {$(
        impl Options for d::$ty {
            const TYPE: &'static str = concat!("google.protobuf.", stringify!($ty));
            fn uninterpreted(&mut self) -> &mut Vec<d::UninterpretedOption> {
                &mut self.uninterpreted_option
            }
            fn features(&self) -> Option<&d::FeatureSet> {
                self.features.as_ref()
            }
            fn features_mut(&mut self) -> Option<&mut d::FeatureSet> {
                self.features.as_mut()
            }
            fn has_unknown(&self) -> bool {
                !self.unknown_fields.is_empty() || self.features.as_ref().is_some_and(|f| !f.unknown_fields.is_empty())
            }
            options!(@strip $ty);
        }
    )*};
    (@strip ExtensionRangeOptions) => {
        /// `declaration` and `verification` are for protoc alone.
        fn strip_own(&mut self) -> Vec<i32> {
            let mut removed = Vec::new();
            if !self.declaration.is_empty() {
                self.declaration.clear();
                removed.push(2);
            }
            if self.verification.take().is_some() {
                removed.push(3);
            }
            removed
        }
    };
    (@strip $ty:ident) => {};
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

/// Something done to each options message.
pub trait Visit {
    /// `path` is where the options sit in the file (`[4, 0, 7]` for the
    /// first message's); `scope` the full name names are resolved from.
    fn options<O: Options>(&mut self, options: &mut Option<O>, path: &[i32], scope: &str);
}

/// Visits every options message of `file`.
pub fn options(file: &mut d::FileDescriptorProto, visit: &mut impl Visit) {
    let package = file.package.as_deref().unwrap_or("").to_owned();
    visit.options(&mut file.options, &[8], &join(&package, "dummy"));
    for (i, message) in file.message_type.iter_mut().enumerate() {
        message_options(message, &[4, i as i32], &package, visit);
    }
    for (i, enum_type) in file.enum_type.iter_mut().enumerate() {
        enum_options(enum_type, &[5, i as i32], &package, visit);
    }
    for (i, extension) in file.extension.iter_mut().enumerate() {
        let name = join(&package, extension.name.as_deref().unwrap_or(""));
        visit.options(&mut extension.options, &[7, i as i32, 8], &name);
    }
    for (i, service) in file.service.iter_mut().enumerate() {
        let name = join(&package, service.name.as_deref().unwrap_or(""));
        visit.options(&mut service.options, &[6, i as i32, 3], &name);
        for (m, method) in service.method.iter_mut().enumerate() {
            let method_name = join(&name, method.name.as_deref().unwrap_or(""));
            visit.options(&mut method.options, &[6, i as i32, 2, m as i32, 4], &method_name);
        }
    }
}

fn message_options(message: &mut d::DescriptorProto, path: &[i32], scope: &str, visit: &mut impl Visit) {
    let name = join(scope, message.name.as_deref().unwrap_or(""));
    let at = |tail: &[i32]| [path, tail].concat();
    visit.options(&mut message.options, &at(&[7]), &name);
    for (i, field) in message.field.iter_mut().enumerate() {
        let field_name = join(&name, field.name.as_deref().unwrap_or(""));
        visit.options(&mut field.options, &at(&[2, i as i32, 8]), &field_name);
    }
    for (i, nested) in message.nested_type.iter_mut().enumerate() {
        message_options(nested, &at(&[3, i as i32]), &name, visit);
    }
    for (i, enum_type) in message.enum_type.iter_mut().enumerate() {
        enum_options(enum_type, &at(&[4, i as i32]), &name, visit);
    }
    for (i, range) in message.extension_range.iter_mut().enumerate() {
        visit.options(&mut range.options, &at(&[5, i as i32, 3]), &name);
    }
    for (i, extension) in message.extension.iter_mut().enumerate() {
        let extension_name = join(&name, extension.name.as_deref().unwrap_or(""));
        visit.options(&mut extension.options, &at(&[6, i as i32, 8]), &extension_name);
    }
    for (i, oneof) in message.oneof_decl.iter_mut().enumerate() {
        let oneof_name = join(&name, oneof.name.as_deref().unwrap_or(""));
        visit.options(&mut oneof.options, &at(&[8, i as i32, 2]), &oneof_name);
    }
}

fn enum_options(enum_type: &mut d::EnumDescriptorProto, path: &[i32], scope: &str, visit: &mut impl Visit) {
    let name = join(scope, enum_type.name.as_deref().unwrap_or(""));
    visit.options(&mut enum_type.options, &[path, &[3]].concat(), &name);
    for (i, value) in enum_type.value.iter_mut().enumerate() {
        // Enum values are siblings of their enum (C++ scoping).
        let value_name = join(scope, value.name.as_deref().unwrap_or(""));
        visit.options(&mut value.options, &[path, &[2, i as i32, 3]].concat(), &value_name);
    }
}
