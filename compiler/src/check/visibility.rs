//! The rule of `STRICT` symbol visibility (`features.default_symbol_visibility`,
//! edition 2026's default): a nested message or enum cannot be `export`. A
//! nested enum can, in a message that only namespaces it (one that reserves
//! every field number, `reserved 1 to max`).

use fastrs::descriptor as d;
use fastrs::descriptor::feature_set::visibility_feature::DefaultSymbolVisibility;

use super::Checker;
use crate::error::Problem;
use crate::symbols::{default_visibility, join};

/// One past the largest field number: where `reserved 1 to max` ends.
const END_OF_NUMBERS: i32 = 536_870_912;

impl Checker<'_> {
    /// Checks the nested types of `file` under `STRICT` visibility.
    pub(super) fn visibility(&mut self, file: &d::FileDescriptorProto) {
        if default_visibility(file) != DefaultSymbolVisibility::Strict {
            return;
        }
        let package = file.package.as_deref().unwrap_or("");
        for message in &file.message_type {
            self.nested_exports(&join(package, message.name.as_deref().unwrap_or("")), message);
        }
    }

    fn nested_exports(&mut self, scope: &str, message: &d::DescriptorProto) {
        let exported = |v: Option<d::SymbolVisibility>| v == Some(d::SymbolVisibility::VisibilityExport);
        for nested in &message.nested_type {
            let name = join(scope, nested.name.as_deref().unwrap_or(""));
            if exported(nested.visibility) {
                self.problems.push(Problem::nowhere(format!(
                    "\"{name}\" is a nested message and cannot be `export` with STRICT default_symbol_visibility. It \
                     must be moved to top-level, ideally in its own file in order to be `export`."
                )));
            }
            self.nested_exports(&name, nested);
        }
        let namespace = message
            .reserved_range
            .iter()
            .any(|r| r.start == Some(1) && r.end == Some(END_OF_NUMBERS));
        for enum_type in message
            .enum_type
            .iter()
            .filter(|e| exported(e.visibility) && !namespace)
        {
            let name = join(scope, enum_type.name.as_deref().unwrap_or(""));
            self.problems.push(Problem::nowhere(format!(
                "\"{name}\" is a nested enum and cannot be marked `export` with STRICT default_symbol_visibility. It \
                 must be moved to top-level, ideally in its own file in order to be `export`. For C++ namespacing of \
                 enums in a messages use: `local message <OuterNamespace> {{ export enum {name} {{...}} reserved 1 to \
                 max; }}`"
            )));
        }
    }
}
