//! A pure-Rust `.proto` compiler: proto2, proto3 and editions source in,
//! `google.protobuf.FileDescriptorSet` out, equal byte for byte to what
//! `protoc --descriptor_set_out` writes for the same files.
//!
//! ```no_run
//! let set = fastrs_compiler::Compiler::new()
//!     .include("proto")
//!     .include_imports(true)
//!     .compile(&["shop/orders.proto"])?;
//! # Ok::<(), fastrs_compiler::Error>(())
//! ```
//!
//! The pipeline follows protoc's: `parse` (tokens to a
//! `FileDescriptorProto` with names as written, options uninterpreted and
//! source locations with their comments), `load` (imports, in dependency
//! order), `link` (names resolved, JSON names and defaults filled in),
//! `options` (built-in options, then custom ones, encoded into their
//! messages), `check` (protoc's validation), then `retention` (options as
//! descriptor sets carry them). Errors are placed where protoc places them.
//! The well-known types and the other files protoc ships resolve without
//! an include directory for them.
//!
//! [`Compiler::pool`] gives a [`fastrs::reflect::DescriptorPool`] straight
//! from `.proto` sources, for reflection and `DynamicMessage` on schemas
//! loaded at run time.

mod check;
mod comments;
mod error;
mod lex;
mod link;
mod load;
mod options;
mod parse;
mod retention;
mod schema;
mod source_info;
mod symbols;
mod text;
mod value;
mod walk;

use std::collections::HashMap;
use std::path::PathBuf;

use fastrs::descriptor as d;

pub use error::{Diagnostic, Error, Pos};

/// Compiles `.proto` files: where to find them and what to write.
#[derive(Clone, Debug, Default)]
pub struct Compiler {
    include_dirs: Vec<PathBuf>,
    sources: HashMap<String, String>,
    include_imports: bool,
    include_source_info: bool,
}

impl Compiler {
    /// A compiler with no include directories.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a directory to search for files and imports (`protoc -I`), after
    /// those added before.
    pub fn include(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.include_dirs.push(dir.into());
        self
    }

    /// Gives the contents of the file `name` (as imported), found before
    /// any include directory is searched.
    pub fn source(&mut self, name: impl Into<String>, text: impl Into<String>) -> &mut Self {
        self.sources.insert(name.into(), text.into());
        self
    }

    /// Whether the set holds the files' imports too, dependencies first
    /// (`protoc --include_imports`).
    pub fn include_imports(&mut self, yes: bool) -> &mut Self {
        self.include_imports = yes;
        self
    }

    /// Whether each file keeps its source locations and comments
    /// (`protoc --include_source_info`).
    pub fn include_source_info(&mut self, yes: bool) -> &mut Self {
        self.include_source_info = yes;
        self
    }

    /// Compiles `files` (names relative to an include directory, or paths
    /// inside one), in the order given.
    ///
    /// # Errors
    /// Every problem found, as `file:line:column: message` lines.
    pub fn compile<S: AsRef<str>>(&self, files: &[S]) -> Result<d::FileDescriptorSet, Error> {
        let names: Vec<String> = files.iter().map(|f| self.virtual_name(f.as_ref())).collect();
        let loaded = load::load(self, &names)?;
        let order = loaded.order(&names, self.include_imports);
        let mut set = d::FileDescriptorSet::default();
        let mut files: Vec<_> = loaded.files.into_iter().zip(loaded.locations).map(Some).collect();
        for index in order {
            let Some((mut file, locations)) = files[index].take() else {
                continue;
            };
            if let Some(locations) = locations.filter(|_| self.include_source_info) {
                file.source_code_info = Some(d::SourceCodeInfo {
                    location: locations.list,
                    ..Default::default()
                });
            }
            set.file.push(file);
        }
        Ok(set)
    }

    /// Compiles `files` and their imports into a descriptor pool: the
    /// schema layer of fastrs, ready for reflection, `DynamicMessage`, JSON
    /// and the text format, from `.proto` sources loaded at run time.
    ///
    /// # Errors
    /// As [`Compiler::compile`].
    pub fn pool<S: AsRef<str>>(&self, files: &[S]) -> Result<fastrs::reflect::DescriptorPool, Error> {
        let mut compiler = self.clone();
        compiler.include_imports(true);
        let set = compiler.compile(files)?;
        fastrs::reflect::DescriptorPool::decode(&fastrs::Message::encode_to_vec(&set)).map_err(|e| {
            let file = files.first().map_or("", |f| f.as_ref());
            Error::new(vec![Diagnostic {
                file: file.to_owned(),
                pos: None,
                message: e.to_string(),
            }])
        })
    }

    /// The name a file given on the command line has: a path inside an
    /// include directory loses the directory.
    fn virtual_name(&self, file: &str) -> String {
        let path = std::path::Path::new(file);
        for dir in &self.include_dirs {
            if let Ok(rest) = path.strip_prefix(dir) {
                if !dir.as_os_str().is_empty() && dir != std::path::Path::new(".") {
                    return rest.to_string_lossy().replace('\\', "/");
                }
            }
        }
        file.to_owned()
    }

    /// The text of the file `name`: given, or from the first include
    /// directory that has it; `None` if none has.
    fn read(&self, name: &str) -> Option<Result<String, std::io::Error>> {
        if let Some(text) = self.sources.get(name) {
            return Some(Ok(text.clone()));
        }
        for dir in &self.include_dirs {
            let path = dir.join(name);
            if path.is_file() {
                return Some(std::fs::read_to_string(path));
            }
        }
        None
    }
}
