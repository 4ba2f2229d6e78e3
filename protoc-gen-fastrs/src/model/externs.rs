//! Where types generated elsewhere live: the `extern_path` option, and the
//! well-known types, which the runtime ships.

use super::names::{self, TypePath};
use crate::options::RustPath;

/// A protobuf prefix and the Rust path its types live under.
pub type ExternPath = (String, RustPath);

/// The user's extern paths, plus `.google.protobuf` at
/// `::fastrs::well_known` unless that package is being generated (as the
/// runtime's own well-known types are).
#[must_use]
pub fn with_well_known(externs: &[ExternPath], generating_well_known: bool) -> Vec<ExternPath> {
    let mut all = externs.to_vec();
    if !generating_well_known {
        let runtime = RustPath::from_parts("::fastrs::well_known", quote::quote!(::fastrs::well_known));
        all.push((".google.protobuf".to_string(), runtime));
    }
    all
}

/// The Rust path of type `full` (`.acme.Outer.Inner`) under the longest
/// matching extern prefix, if any: nested messages become modules.
#[must_use]
pub fn extern_path(full: &str, externs: &[ExternPath]) -> Option<TypePath> {
    let (proto, rust) = externs
        .iter()
        .filter(|(p, _)| full == p || full.starts_with(&format!("{p}.")))
        .max_by_key(|(p, _)| p.len())?;
    let rest: Vec<&str> = full[proto.len()..].split('.').filter(|s| !s.is_empty()).collect();
    let Some((last, outer)) = rest.split_last() else {
        return Some(TypePath::Absolute(rust.clone()));
    };
    let segments: Vec<_> = outer
        .iter()
        .map(|s| names::module_ident(s))
        .chain([names::type_ident(last)])
        .collect();
    Some(TypePath::Absolute(rust.join(&segments)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> TypePath {
        TypePath::Absolute(RustPath::module(text).unwrap())
    }

    #[test]
    fn extern_paths_pick_longest_prefix() {
        let externs = vec![
            (".a".to_string(), RustPath::module("::x").unwrap()),
            (".a.b".to_string(), RustPath::module("::y").unwrap()),
        ];
        assert_eq!(extern_path(".a.b.Msg", &externs), Some(path("::y::Msg")));
        assert_eq!(extern_path(".a.Outer.Inner", &externs), Some(path("::x::outer::Inner")));
        assert_eq!(extern_path(".ab.Msg", &externs), None);
        assert_eq!(extern_path(".a.b", &externs), Some(path("::y")));
    }

    #[test]
    fn well_known_types_come_from_the_runtime_unless_generated() {
        let with = with_well_known(&[], false);
        assert_eq!(
            extern_path(".google.protobuf.Timestamp", &with),
            Some(path("::fastrs::well_known::Timestamp"))
        );
        assert!(with_well_known(&[], true).is_empty());
    }
}
