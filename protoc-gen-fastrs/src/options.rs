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
    /// The `BuildHasher` of generated `HashMap`s, as an absolute Rust type path
    /// (`::foldhash::fast::RandomState`); `None` for std's SipHash `RandomState`.
    pub map_hasher: Option<String>,
    /// Generate proto3 JSON (`serde::Serialize`/`Deserialize` and
    /// `fastrs::json::JsonMessage`); needs fastrs's `json` feature.
    pub json: Option<JsonGate>,
    /// How output files are named and split.
    pub paths: Paths,
}

/// How output files are named and split (the plugin parameter `paths`, as in
/// the Go and other `protoc` plugins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Paths {
    /// `paths=import` (the default): one file per protobuf package,
    /// `acme.shop.v1.rs`.
    #[default]
    ByPackage,
    /// `paths=source_relative`: one file per `.proto` file, beside its path
    /// (`acme/shop/v1/order.proto` gives `acme/shop/v1/order.rs`); the files of
    /// one package are included into the same module (the `include_file`
    /// does so). What `buf generate` users usually set.
    SourceRelative,
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

/// A map hasher is an absolute Rust type path.
pub(crate) fn check_map_hasher(hasher: &str) -> Result<(), OptionsError> {
    if hasher.starts_with("::") && syn::parse_str::<syn::Type>(hasher).is_ok() {
        return Ok(());
    }
    Err(OptionsError(format!(
        "map_hasher `{hasher}` must be an absolute Rust type path such as `::foldhash::fast::RandomState`"
    )))
}

impl Options {
    /// Parses `protoc`'s `--fastrs_opt` string: comma-separated `key=value` pairs.
    ///
    /// - `extern_path=.proto.prefix=::rust::path` (repeatable)
    /// - `include_file=mod.rs`
    /// - `map_type=hash` (default) or `map_type=btree`
    /// - `map_hasher=::crate::Type`: the `BuildHasher` of generated `HashMap`s
    /// - `json=true`: generate proto3 JSON support (serde impls); `json=FEATURE`
    ///   puts it under `#[cfg(feature = "FEATURE")]` of the including crate
    /// - `paths=import` (default, one file per package) or
    ///   `paths=source_relative` (one file per `.proto`, beside its path)
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
                "map_hasher" => options.set_map_hasher(value)?,
                "paths" => {
                    options.paths = match value {
                        "import" => Paths::ByPackage,
                        "source_relative" => Paths::SourceRelative,
                        _ => {
                            return Err(OptionsError(format!(
                                "paths is `import` or `source_relative`, not `{value}`"
                            )))
                        }
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
                        "unknown option `{key}` (known: extern_path, include_file, map_type, map_hasher, json, paths)"
                    )))
                }
            }
        }
        Ok(options)
    }

    /// Sets the `BuildHasher` type of generated `HashMap`s after checking that
    /// it is an absolute Rust type path.
    ///
    /// # Errors
    /// Not a type, or not absolute (`::crate_name::Type`).
    pub fn set_map_hasher(&mut self, hasher: &str) -> Result<(), OptionsError> {
        check_map_hasher(hasher)?;
        self.map_hasher = Some(hasher.to_string());
        Ok(())
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
        let o = Options::parse("map_hasher=::foldhash::fast::RandomState,json=true").unwrap();
        assert_eq!(o.map_hasher.as_deref(), Some("::foldhash::fast::RandomState"));
        assert_eq!(o.json, Some(JsonGate::Always));
        assert_eq!(
            Options::parse("json=serde").unwrap().json,
            Some(JsonGate::Feature("serde".into()))
        );
    }

    #[test]
    fn paths_are_by_package_or_source_relative() {
        assert_eq!(Options::parse("").unwrap().paths, Paths::ByPackage);
        assert_eq!(Options::parse("paths=import").unwrap().paths, Paths::ByPackage);
        assert_eq!(
            Options::parse("paths=source_relative").unwrap().paths,
            Paths::SourceRelative
        );
        assert!(Options::parse("paths=flat").unwrap_err().0.contains("source_relative"));
    }

    #[test]
    fn rejects_bad_options() {
        assert!(Options::parse("nope=1")
            .unwrap_err()
            .0
            .contains("unknown option `nope`"));
        assert!(Options::parse("extern_path").is_err());
        assert!(Options::parse("extern_path=acme=::x").is_err());
        assert!(Options::parse("extern_path=.acme=crate::x").is_err());
        assert!(Options::parse("map_hasher=foldhash::RandomState")
            .unwrap_err()
            .0
            .contains("absolute"));
        assert!(Options::parse("map_hasher=::not a type").is_err());
    }
}
