//! The `build.rs` API.

use std::path::{Path, PathBuf};

use crate::descriptors::{self, Parsed};
use crate::options::JsonGate;
use crate::{Error, GeneratedFile, Maps, Mode, Options, Paths};

/// Generates Rust from `.proto` files in a build script.
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     protoc_gen_fastrs::Builder::new().compile(&["proto/shop.proto"], &["proto"])?;
///     Ok(())
/// }
/// ```
///
/// and in the crate: `pub mod shop { fastrs::include_proto!("acme.shop"); }`.
///
/// Parsing is pure Rust by default; [`Builder::use_protoc`] runs `protoc` instead.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    options: Options,
    out_dir: Option<PathBuf>,
    protoc: Option<PathBuf>,
    protoc_args: Vec<String>,
    cargo_directives: Option<bool>,
}

impl Builder {
    /// Defaults: pure-Rust parsing, output to `$OUT_DIR`.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes into `dir` instead of `$OUT_DIR`.
    #[must_use]
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Refers to types under the protobuf prefix `proto` (`.acme.common`) at the
    /// absolute Rust path `rust` (`::common_protos`) instead of generating them.
    ///
    /// # Errors
    /// A prefix without the leading `.`, or a Rust path that is not absolute.
    pub fn extern_path(mut self, proto: &str, rust: &str) -> Result<Self, Error> {
        self.options.add_extern_path(proto, rust).map_err(|e| Error::new(e.0))?;
        Ok(self)
    }

    /// Also writes `name` into the output directory: a module tree with one
    /// `include!` per package, for `include!(concat!(env!("OUT_DIR"), "/name"))`.
    #[must_use]
    pub fn include_file(mut self, name: impl Into<String>) -> Self {
        self.options.include_file = Some(name.into());
        self
    }

    /// How output files are split: one per package (the default) or one per
    /// `.proto` beside its path ([`Paths::SourceRelative`]; include them
    /// through [`Builder::include_file`]).
    #[must_use]
    pub fn paths(mut self, paths: Paths) -> Self {
        self.options.paths = paths;
        self
    }

    /// The Rust type of map fields ([`Maps::Hash`] by default).
    #[must_use]
    pub fn maps(mut self, maps: Maps) -> Self {
        self.options.maps = maps;
        self
    }

    /// Generates maps as `BTreeMap`: deterministic encoding (entries in key
    /// order) and no need for `std`. Short for `.maps(Maps::BTree)`.
    #[must_use]
    pub fn btree_maps(self) -> Self {
        self.maps(Maps::BTree)
    }

    /// Uses `hasher` (an absolute path to a `BuildHasher + Default` type, such
    /// as `::foldhash::fast::RandomState`) for generated `HashMap`s instead of
    /// std's SipHash. SipHash resists hash flooding from untrusted keys; a
    /// faster hasher suits trusted input.
    ///
    /// # Errors
    /// `hasher` is not an absolute type path.
    pub fn map_hasher(self, hasher: &str) -> Result<Self, Error> {
        let hasher =
            crate::options::RustPath::type_path(hasher).map_err(|e| Error::new(format!("map_hasher {}", e.0)))?;
        Ok(self.maps(Maps::HashWith(hasher)))
    }

    /// Embeds each package's descriptors: a `FILE_DESCRIPTOR_SET` constant
    /// (the encoded `google.protobuf.FileDescriptorSet` of the package's
    /// files, without comments) and `fastrs::Described` for every message, for
    /// gRPC server reflection, `Any` resolution and schema-driven tools.
    /// [`Builder::json`] embeds them too; nothing is embedded without either.
    #[must_use]
    pub fn file_descriptors(mut self) -> Self {
        self.options.descriptors = true;
        self
    }

    /// Also generates a Connect client (`foo_connect_client::FooConnectClient`)
    /// for every `service`: the methods of tonic's client, over the Connect
    /// protocol (HTTP/1.1 or HTTP/2, binary or JSON), calling
    /// `fastrs_tonic::connect::ConnectClient`. The including crate depends
    /// on `tonic` and on `fastrs-tonic` with its `connect-client` feature.
    #[must_use]
    pub fn connect_client(mut self) -> Self {
        self.options.connect = true;
        self
    }

    /// Also generates a tonic client (`foo_client::FooClient`) and server
    /// (`foo_server::{Foo, FooServer}`) for every `service`, with all four
    /// kinds of call, encoding with `fastrs_tonic::FastrsCodec`. The
    /// including crate depends on `tonic` and `fastrs-tonic`.
    #[must_use]
    pub fn grpc(mut self) -> Self {
        self.options.grpc = true;
        self
    }

    /// Holds the `bytes` fields of the given packages, messages or fields
    /// (`.acme.shop`, `.acme.shop.Order`, `.acme.shop.Order.blob`; `.` for
    /// all) as `bytes::Bytes` instead of `Vec<u8>`: decoded from a shared
    /// buffer (`Message::decode_shared`), they are slices of it, not copies.
    /// The including crate enables fastrs's `bytes` feature.
    ///
    /// # Errors
    /// A path that does not start with `.`.
    pub fn bytes<S: AsRef<str>>(mut self, paths: impl IntoIterator<Item = S>) -> Result<Self, crate::OptionsError> {
        for path in paths {
            self.options.add_shared_bytes(path.as_ref())?;
        }
        Ok(self)
    }

    /// Also generates a zero-copy view of every message (`FooView<'a>`, see
    /// `fastrs::view`): read in place, borrowing strings, bytes and repeated
    /// fields from the input.
    #[must_use]
    pub fn views(mut self) -> Self {
        self.options.views = true;
        self
    }

    /// Implements `fastrs::validate::Validate` for every message, checking
    /// its protovalidate rules (`buf.validate` options: standard rules
    /// natively, CEL compiled to Rust), and a `decode_validated` that
    /// checks them while decoding. Needs fastrs's `validate` feature.
    #[must_use]
    pub fn validate(mut self) -> Self {
        self.options.validate = true;
        self
    }

    /// With [`Builder::validate`]: a message type whose rules do not
    /// compile gets code that reports `fastrs::validate::Error::Compilation`
    /// when it is validated (as the dynamic validator does), instead of
    /// failing the build. For tests of such rules; a build should fail on
    /// them.
    #[must_use]
    pub fn validate_errors_at_runtime(mut self) -> Self {
        self.options.validate_errors_at_runtime = true;
        self
    }

    /// Generates every message for run time ([`Mode::Speed`]) or for build
    /// time ([`Mode::Size`]). Unset, a run of fewer than
    /// [`Mode::AUTO_SIZE_FROM`] messages gets speed mode and a larger one
    /// size mode.
    #[must_use]
    pub fn mode(mut self, mode: Mode) -> Self {
        self.options.mode = Some(mode);
        self
    }

    /// Generates the messages under `proto` (a fully qualified package or
    /// message, `.acme.shop.Order`) in `mode`, whatever [`Builder::mode`]
    /// says: the hot messages of a large API in speed mode, for example. The
    /// longest matching prefix wins.
    ///
    /// # Errors
    /// `proto` does not start with `.`.
    pub fn mode_for(mut self, proto: &str, mode: Mode) -> Result<Self, Error> {
        self.options.add_mode_for(proto, mode).map_err(|e| Error::new(e.0))?;
        Ok(self)
    }

    /// Generates proto3 JSON support: `serde::Serialize`, `serde::Deserialize`
    /// and `fastrs::json::JsonMessage` for every message (use
    /// `fastrs::json::to_string` / `from_str`). Needs fastrs's `json` feature.
    /// Embeds the descriptors as [`Builder::file_descriptors`] does: each
    /// package's `register_json_types()` adds them to the process's registry,
    /// where JSON finds the types `Any` holds and the extensions it shows.
    #[must_use]
    pub fn json(mut self) -> Self {
        self.options.json = Some(JsonGate::Always);
        self
    }

    /// As [`Builder::json`], but the JSON code compiles only when the including
    /// crate's cargo feature `feature` is on.
    #[must_use]
    pub fn json_under_feature(mut self, feature: impl Into<String>) -> Self {
        self.options.json = Some(JsonGate::Feature(feature.into()));
        self
    }

    /// Parses with `protoc` instead of the built-in parser: the one in `$PROTOC`,
    /// else `protoc` on `PATH`.
    #[must_use]
    pub fn use_protoc(mut self) -> Self {
        self.protoc = Some(std::env::var_os("PROTOC").map_or_else(|| PathBuf::from("protoc"), PathBuf::from));
        self
    }

    /// Parses with the `protoc` binary at `path`.
    #[must_use]
    pub fn protoc_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.protoc = Some(path.into());
        self
    }

    /// Passes `arg` to `protoc` (with [`Builder::use_protoc`] or
    /// [`Builder::protoc_path`]), before the files: `--experimental_editions`
    /// for `edition = "UNSTABLE"` files, for example. Repeatable.
    #[must_use]
    pub fn protoc_arg(mut self, arg: impl Into<String>) -> Self {
        self.protoc_args.push(arg.into());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` lines (default: when run by Cargo,
    /// that is when `$OUT_DIR` is set).
    #[must_use]
    pub fn cargo_directives(mut self, yes: bool) -> Self {
        self.cargo_directives = Some(yes);
        self
    }

    /// Parses `protos` (searching imports in `includes`), generates, and writes one
    /// file per package. What `protos` import is generated too (as
    /// prost-build does), except the types the runtime ships (well-known and
    /// descriptor types) and those under an [`Builder::extern_path`]. Files
    /// whose contents did not change are left untouched.
    ///
    /// # Errors
    /// Unreadable or invalid schemas (with file and line), generation errors
    /// (naming the element), or an output directory that cannot be written.
    pub fn compile(&self, protos: &[impl AsRef<Path>], includes: &[impl AsRef<Path>]) -> Result<(), Error> {
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::new("OUT_DIR is not set: call from build.rs or set Builder::out_dir"))?,
        };
        if self
            .cargo_directives
            .unwrap_or_else(|| std::env::var_os("OUT_DIR").is_some())
        {
            for path in protos
                .iter()
                .map(AsRef::as_ref)
                .chain(includes.iter().map(AsRef::as_ref))
            {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            println!("cargo:rerun-if-env-changed=PROTOC");
        }
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| Error::new(format!("cannot create `{}`: {e}", out_dir.display())))?;
        for file in self.generate(protos, includes)? {
            let path = out_dir.join(&file.name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| Error::new(format!("cannot create `{}`: {e}", parent.display())))?;
            }
            if std::fs::read_to_string(&path).ok().as_deref() != Some(file.content.as_str()) {
                std::fs::write(&path, &file.content)
                    .map_err(|e| Error::new(format!("cannot write `{}`: {e}", path.display())))?;
            }
        }
        Ok(())
    }

    /// Parses and generates without writing anything.
    ///
    /// # Errors
    /// As [`Builder::compile`], without the writing.
    pub fn generate(
        &self,
        protos: &[impl AsRef<Path>],
        includes: &[impl AsRef<Path>],
    ) -> Result<Vec<GeneratedFile>, Error> {
        let parsed = self.parse(protos, includes)?;
        let files = crate::model::externs::with_imports(&parsed.set.file, &parsed.inputs, &self.options);
        crate::generate(&parsed.set.file, &files, &self.options)
    }

    /// Parses only: the descriptors the generator would see.
    ///
    /// # Errors
    /// Unreadable or invalid schemas.
    pub fn parse(&self, protos: &[impl AsRef<Path>], includes: &[impl AsRef<Path>]) -> Result<Parsed, Error> {
        let protos: Vec<PathBuf> = protos.iter().map(|p| p.as_ref().to_path_buf()).collect();
        let includes: Vec<PathBuf> = includes.iter().map(|p| p.as_ref().to_path_buf()).collect();
        match &self.protoc {
            Some(protoc) => descriptors::parse_protoc(protoc, &self.protoc_args, &protos, &includes),
            None if !self.protoc_args.is_empty() => Err(Error::new(format!(
                "protoc_arg `{}` needs protoc: add Builder::use_protoc() or Builder::protoc_path()",
                self.protoc_args[0]
            ))),
            #[cfg(feature = "pure")]
            None => descriptors::parse_pure(&protos, &includes),
            #[cfg(not(feature = "pure"))]
            None => Err(Error::new(
                "this build of protoc-gen-fastrs has no pure-Rust parser (feature `pure`): \
                 add Builder::use_protoc() or Builder::protoc_path()",
            )),
        }
    }
}
