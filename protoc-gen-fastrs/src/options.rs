//! Generator options: one struct, filled from plugin parameters or the builder.

use std::fmt;

/// Options that change what the generator emits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `(protobuf prefix, Rust path)`: types under the prefix are not generated but
    /// referred to at the Rust path (`(".acme.common", "::common_protos")`).
    pub extern_paths: Vec<(String, RustPath)>,
    /// If set, also write a file of this name that declares the module tree of all
    /// generated packages (`pub mod acme { pub mod shop { include!("acme.shop.rs"); } }`).
    pub include_file: Option<String>,
    /// The Rust type of map fields.
    pub maps: Maps,
    /// Generate proto3 JSON (`serde::Serialize`/`Deserialize` and
    /// `fastrs::json::JsonMessage`); needs fastrs's `json` feature.
    pub json: Option<JsonGate>,
    /// How output files are named and split.
    pub paths: Paths,
    /// Embed each package's `FileDescriptorSet` (`FILE_DESCRIPTOR_SET`) and
    /// implement `fastrs::Described` for its messages.
    pub descriptors: bool,
    /// Generate gRPC clients and servers for tonic (`grpc=tonic`).
    pub grpc: bool,
    /// Generate a zero-copy `FooView<'a>` for every message (`views=true`).
    pub views: bool,
    /// Packages, messages or fields (`.acme.shop`, `.acme.shop.Order`,
    /// `.acme.shop.Order.blob`; `.` for all) whose `bytes` fields are held as
    /// `bytes::Bytes` (`bytes=PREFIX`, repeatable).
    pub shared_bytes: Vec<String>,
    /// The code's mode for messages no entry of `modes_for` names; `None`
    /// picks by the schema's size (see [`Mode`]).
    pub mode: Option<Mode>,
    /// `(protobuf prefix, mode)`: the mode of the messages under a package or
    /// message prefix (`.acme.shop`, `.acme.shop.Order`); the longest
    /// matching prefix wins over [`Options::mode`].
    pub modes_for: Vec<(String, Mode)>,
}

/// What generated code is built for: run time or build time.
///
/// Left unset, a run that generates fewer than [`Mode::AUTO_SIZE_FROM`]
/// messages gets [`Mode::Speed`] and a larger one [`Mode::Size`]: a large
/// API (Temporal's, googleapis) is mostly messages that a service never
/// decodes in a hot loop, and in speed mode it builds many times slower than
/// with prost. Name the hot messages to keep them fast in a large schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every field's encoding and decoding inlined into its message's
    /// methods, reads predicted in field order, and cleared values' buffers
    /// reused by the next decode: the fastest code, and the most for the
    /// compiler to optimise.
    Speed,
    /// Each field one call into codecs that the crate compiles once per
    /// protobuf type: builds about as fast as prost's code, and encodes and
    /// decodes at about prost's speed.
    Size,
}

impl Mode {
    /// The number of generated messages (nested ones included) from which an
    /// unset mode is [`Mode::Size`].
    pub const AUTO_SIZE_FROM: usize = 100;

    fn parse(key: &str, value: &str) -> Result<Mode, OptionsError> {
        match value {
            "speed" => Ok(Mode::Speed),
            "size" => Ok(Mode::Size),
            _ => Err(OptionsError(format!("{key} is `speed` or `size`, not `{value}`"))),
        }
    }
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

/// The Rust type of map fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Maps {
    /// `std::collections::HashMap` with std's SipHash, which resists hash
    /// flooding from untrusted keys (the default).
    #[default]
    Hash,
    /// `HashMap` with this `BuildHasher + Default` type: faster on trusted
    /// input (`::foldhash::fast::RandomState`).
    HashWith(RustPath),
    /// `BTreeMap`: entries encode in key order (the same message always
    /// gives the same bytes), and the code needs no `std`.
    BTree,
}

impl Maps {
    /// True for `BTreeMap`s: entries in key order.
    #[must_use]
    pub fn sorted(&self) -> bool {
        *self == Maps::BTree
    }
}

/// An absolute Rust path or type (`::common_protos`,
/// `::foldhash::fast::RandomState`), checked and parsed once, when the option
/// naming it is read.
#[derive(Clone)]
pub struct RustPath {
    text: String,
    tokens: proc_macro2::TokenStream,
}

impl RustPath {
    /// A module path: `::` and identifiers.
    ///
    /// # Errors
    /// Not absolute, or a segment is not an identifier.
    pub fn module(text: &str) -> Result<Self, OptionsError> {
        let valid = text.starts_with("::")
            && text[2..]
                .split("::")
                .all(|seg| syn::parse_str::<syn::Ident>(seg).is_ok());
        let tokens = syn::parse_str::<syn::Path>(text)
            .ok()
            .filter(|_| valid)
            .ok_or_else(|| {
                OptionsError(format!(
                    "`{text}` must be an absolute Rust path like `::my_crate::protos`"
                ))
            })?;
        Ok(Self::from_parts(text, quote::ToTokens::to_token_stream(&tokens)))
    }

    /// A type named by an absolute path (`::foldhash::fast::RandomState`,
    /// generic arguments allowed).
    ///
    /// # Errors
    /// Not absolute, or not a type.
    pub fn type_path(text: &str) -> Result<Self, OptionsError> {
        let tokens = syn::parse_str::<syn::Type>(text)
            .ok()
            .filter(|_| text.starts_with("::"))
            .ok_or_else(|| {
                OptionsError(format!(
                    "`{text}` must be an absolute Rust type path such as `::foldhash::fast::RandomState`"
                ))
            })?;
        Ok(Self::from_parts(text, quote::ToTokens::to_token_stream(&tokens)))
    }

    pub(crate) fn from_parts(text: &str, tokens: proc_macro2::TokenStream) -> Self {
        Self {
            text: text.to_string(),
            tokens,
        }
    }

    /// This path with `suffix` added to its last segment (`::a::Foo` →
    /// `::a::FooView`); a path that cannot take one is kept as it is.
    pub(crate) fn with_suffix(&self, suffix: &str) -> Self {
        let text = format!("{}{suffix}", self.text);
        match syn::parse_str::<syn::Path>(&text) {
            Ok(path) => Self::from_parts(&text, quote::ToTokens::to_token_stream(&path)),
            Err(_) => self.clone(),
        }
    }

    /// The path as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The parsed path, for emission.
    pub(crate) fn tokens(&self) -> proc_macro2::TokenStream {
        self.tokens.clone()
    }

    /// The path without its last segment (`::x` for `::x::Y`), if that
    /// leaves one.
    pub(crate) fn parent(&self) -> Option<Self> {
        let (parent, _) = self.text.rsplit_once("::")?;
        RustPath::module(parent).ok()
    }

    /// This path followed by `segments`: `::x` and `[outer, Inner]` give
    /// `::x::outer::Inner`.
    pub(crate) fn join(&self, segments: &[proc_macro2::Ident]) -> Self {
        let text = segments.iter().fold(self.text.clone(), |mut text, s| {
            text.push_str("::");
            text.push_str(&s.to_string());
            text
        });
        let base = &self.tokens;
        Self::from_parts(&text, quote::quote!(#base #(:: #segments)*))
    }
}

/// Equal when written the same.
impl PartialEq for RustPath {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for RustPath {}

impl fmt::Debug for RustPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text, f)
    }
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
    /// - `map_hasher=::crate::Type`: the `BuildHasher` of generated `HashMap`s
    /// - `json=true`: generate proto3 JSON support (serde impls); `json=FEATURE`
    ///   puts it under `#[cfg(feature = "FEATURE")]` of the including crate
    /// - `paths=import` (default, one file per package) or
    ///   `paths=source_relative` (one file per `.proto`, beside its path)
    /// - `descriptors=true`: embed the package's descriptors
    /// - `views=true`: also generate a zero-copy view of every message
    /// - `bytes=.proto.prefix` (repeatable; `.` for all): hold the `bytes`
    ///   fields of a package, message or field as `bytes::Bytes`
    /// - `mode=speed` or `mode=size` (see [`Mode`]; unset, by the schema's size)
    /// - `speed=.proto.prefix`, `size=.proto.prefix` (repeatable): the mode
    ///   of the messages under a package or message
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
                "map_type" => match (value, &options.maps) {
                    ("hash", _) => {}
                    ("btree", Maps::Hash) => options.maps = Maps::BTree,
                    ("btree", _) => return Err(both_map_options()),
                    _ => return Err(OptionsError(format!("map_type is `hash` or `btree`, not `{value}`"))),
                },
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
                "descriptors" => options.descriptors = parse_bool(key, value)?,
                "views" => options.views = parse_bool(key, value)?,
                "bytes" => options.add_shared_bytes(value)?,
                "grpc" => match value {
                    "tonic" => options.grpc = true,
                    "" | "none" => options.grpc = false,
                    _ => return Err(OptionsError(format!("grpc is `tonic` or `none`, not `{value}`"))),
                },
                "mode" => options.mode = Some(Mode::parse(key, value)?),
                "speed" => options.add_mode_for(value, Mode::Speed)?,
                "size" => options.add_mode_for(value, Mode::Size)?,
                "json" => {
                    options.json = match value {
                        "false" => None,
                        "true" => Some(JsonGate::Always),
                        feature => Some(JsonGate::Feature(feature.to_string())),
                    }
                }
                _ => {
                    return Err(OptionsError(format!(
                        "unknown option `{key}` (known: extern_path, include_file, map_type, map_hasher, json, paths, descriptors, views, bytes, grpc, mode, speed, size)"
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
    /// Not a type, not absolute (`::crate_name::Type`), or maps are
    /// `BTreeMap`s already.
    pub fn set_map_hasher(&mut self, hasher: &str) -> Result<(), OptionsError> {
        if self.maps == Maps::BTree {
            return Err(both_map_options());
        }
        let hasher = RustPath::type_path(hasher).map_err(|e| OptionsError(format!("map_hasher {}", e.0)))?;
        self.maps = Maps::HashWith(hasher);
        Ok(())
    }

    /// Sets the mode of the messages under `proto` (a package or message,
    /// fully qualified: `.acme.shop.Order`).
    ///
    /// # Errors
    /// `proto` does not start with `.`.
    pub fn add_mode_for(&mut self, proto: &str, mode: Mode) -> Result<(), OptionsError> {
        if !proto.starts_with('.') {
            return Err(OptionsError(format!(
                "`{proto}` must be a fully qualified package or message, starting with `.`"
            )));
        }
        self.modes_for.push((proto.to_string(), mode));
        Ok(())
    }

    /// Holds the `bytes` fields under `proto` (a package, message or field,
    /// or `.` for all) as `bytes::Bytes`.
    ///
    /// # Errors
    /// `proto` does not start with `.`.
    pub fn add_shared_bytes(&mut self, proto: &str) -> Result<(), OptionsError> {
        if !proto.starts_with('.') {
            return Err(OptionsError(format!(
                "bytes=`{proto}` must be `.` or a fully qualified package, message or field, starting with `.`"
            )));
        }
        self.shared_bytes.push(proto.to_string());
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
        let rust = RustPath::module(rust).map_err(|e| OptionsError(format!("extern_path target {}", e.0)))?;
        self.extern_paths.push((proto.to_string(), rust));
        Ok(())
    }
}

fn parse_bool(key: &str, value: &str) -> Result<bool, OptionsError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(OptionsError(format!("{key} is `true` or `false`, not `{value}`"))),
    }
}

fn both_map_options() -> OptionsError {
    OptionsError("map_type=btree and map_hasher exclude each other: BTreeMaps have no hasher".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_options() {
        let o = Options::parse("extern_path=.acme.common=::common,include_file=mod.rs").unwrap();
        assert_eq!(o.extern_paths.len(), 1);
        assert_eq!(
            (o.extern_paths[0].0.as_str(), o.extern_paths[0].1.as_str()),
            (".acme.common", "::common")
        );
        assert_eq!(o.include_file.as_deref(), Some("mod.rs"));
        assert_eq!(Options::parse("").unwrap(), Options::default());
        let o = Options::parse("map_hasher=::foldhash::fast::RandomState,json=true").unwrap();
        assert!(matches!(&o.maps, Maps::HashWith(h) if h.as_str() == "::foldhash::fast::RandomState"));
        assert_eq!(Options::parse("map_type=btree").unwrap().maps, Maps::BTree);
        assert_eq!(o.json, Some(JsonGate::Always));
        assert_eq!(
            Options::parse("json=serde").unwrap().json,
            Some(JsonGate::Feature("serde".into()))
        );
        assert!(Options::parse("grpc=tonic").unwrap().grpc);
        assert!(!Options::parse("grpc=none").unwrap().grpc);
        assert!(Options::parse("grpc=grpcio").is_err());
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
    fn shared_bytes_take_qualified_prefixes() {
        let options = Options::parse("bytes=.,bytes=.acme.Order.blob").unwrap();
        assert_eq!(options.shared_bytes, [".", ".acme.Order.blob"]);
        assert!(Options::parse("bytes=acme").is_err());
    }

    #[test]
    fn views_are_off_unless_asked_for() {
        assert!(!Options::parse("").unwrap().views);
        assert!(Options::parse("views=true").unwrap().views);
        assert!(Options::parse("views=maybe").is_err());
    }

    #[test]
    fn descriptors_are_off_unless_asked_for() {
        assert!(!Options::parse("").unwrap().descriptors);
        assert!(Options::parse("descriptors=true").unwrap().descriptors);
        assert!(!Options::parse("descriptors=false").unwrap().descriptors);
        assert!(Options::parse("descriptors=yes")
            .unwrap_err()
            .0
            .contains("`true` or `false`"));
    }

    #[test]
    fn modes_are_set_for_all_or_by_prefix() {
        assert_eq!(Options::parse("").unwrap().mode, None);
        assert_eq!(Options::parse("mode=size").unwrap().mode, Some(Mode::Size));
        assert_eq!(Options::parse("mode=speed").unwrap().mode, Some(Mode::Speed));
        let o = Options::parse("mode=size,speed=.acme.Hot,size=.acme.hot.Cold").unwrap();
        assert_eq!(
            o.modes_for,
            [(".acme.Hot".into(), Mode::Speed), (".acme.hot.Cold".into(), Mode::Size)]
        );
        assert!(Options::parse("mode=fast").unwrap_err().0.contains("`speed` or `size`"));
        assert!(Options::parse("speed=acme.Hot")
            .unwrap_err()
            .0
            .contains("starting with `.`"));
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
        let both = Options::parse("map_type=btree,map_hasher=::h::H").unwrap_err().0;
        assert!(both.contains("exclude each other"), "{both}");
        assert!(Options::parse("map_hasher=::h::H,map_type=btree").is_err());
    }
}
