//! Generator options: one struct, filled from plugin parameters or the builder.

use std::fmt;

/// Options that change what the generator emits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `(protobuf prefix, Rust path)`: types under the prefix are not generated but
    /// referred to at the Rust path (`(".acme.common", "::common_protos")`).
    pub extern_paths: Vec<(String, String)>,
    /// If set, also write a file of this name that declares the module tree of all
    /// generated packages (`pub mod acme { pub mod shop { include!("acme.shop.rs"); } }`).
    pub include_file: Option<String>,
    /// Generate maps as `BTreeMap` instead of `HashMap`: entries encode in key
    /// order (the same message always gives the same bytes) and the code
    /// needs no `std`.
    pub btree_maps: bool,
    /// Generate proto3 JSON (`serde::Serialize`/`Deserialize` and
    /// `fastrs::json::JsonMessage`); needs fastrs's `json` feature.
    pub json: Option<JsonGate>,
}

/// Whether generated JSON code is always compiled or behind a cargo feature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonGate {
    /// Always compiled.
    Always,
    /// Compiled under `#[cfg(feature = "...")]` of the crate that includes it.
    Feature(String),
}

/// A plugin parameter that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsError(pub String);

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionsError {}

impl Options {
    /// Parses `protoc`'s `--fastrs_opt` string: comma-separated `key=value` pairs.
    ///
    /// - `extern_path=.proto.prefix=::rust::path` (repeatable)
    /// - `include_file=mod.rs`
    /// - `map_type=hash` (default) or `map_type=btree`
    /// - `json=true`: generate proto3 JSON support (serde impls); `json=FEATURE`
    ///   puts it under `#[cfg(feature = "FEATURE")]` of the including crate
    ///
    /// # Errors
    /// An unknown key, a missing value, or a malformed extern path.
    pub fn parse(parameter: &str) -> Result<Options, OptionsError> {
        let mut options = Options::default();
        for item in parameter.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| OptionsError(format!("option `{item}` needs a value: `{item}=...`")))?;
            match key {
                "extern_path" => {
                    let (proto, rust) = value.split_once('=').ok_or_else(|| {
                        OptionsError(format!(
                            "extern_path `{value}` must look like `.proto.prefix=::rust::path`"
                        ))
                    })?;
                    options.add_extern_path(proto, rust)?;
                }
                "include_file" => options.include_file = Some(value.to_string()),
                "map_type" => {
                    options.btree_maps = match value {
                        "hash" => false,
                        "btree" => true,
                        _ => return Err(OptionsError(format!("map_type is `hash` or `btree`, not `{value}`"))),
                    }
                }
                "json" => {
                    options.json = match value {
                        "false" => None,
                        "true" => Some(JsonGate::Always),
                        feature => Some(JsonGate::Feature(feature.to_string())),
                    }
                }
                _ => {
                    return Err(OptionsError(format!(
                        "unknown option `{key}` (known: extern_path, include_file, map_type, json)"
                    )))
                }
            }
        }
        Ok(options)
    }

    /// Adds an extern path after checking both sides.
    ///
    /// # Errors
    /// The protobuf side does not start with `.`, or the Rust side is not an
    /// absolute path (`::crate_name::module`).
    pub fn add_extern_path(&mut self, proto: &str, rust: &str) -> Result<(), OptionsError> {
        if !proto.starts_with('.') {
            return Err(OptionsError(format!(
                "extern_path `{proto}` must be fully qualified, starting with `.`"
            )));
        }
        let valid_rust = rust.starts_with("::")
            && rust[2..]
                .split("::")
                .all(|seg| syn::parse_str::<syn::Ident>(seg).is_ok());
        if !valid_rust {
            return Err(OptionsError(format!(
                "extern_path target `{rust}` must be an absolute Rust path like `::my_crate::protos`"
            )));
        }
        self.extern_paths.push((proto.to_string(), rust.to_string()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_options() {
        let o = Options::parse("extern_path=.acme.common=::common,include_file=mod.rs").unwrap();
        assert_eq!(o.extern_paths, [(".acme.common".to_string(), "::common".to_string())]);
        assert_eq!(o.include_file.as_deref(), Some("mod.rs"));
        assert_eq!(Options::parse("").unwrap(), Options::default());
    }

    #[test]
    fn rejects_bad_options() {
        assert!(Options::parse("paths=source_relative")
            .unwrap_err()
            .0
            .contains("unknown option `paths`"));
        assert!(Options::parse("extern_path").is_err());
        assert!(Options::parse("extern_path=acme=::x").is_err());
        assert!(Options::parse("extern_path=.acme=crate::x").is_err());
    }
}
