//! Why a file could not join a pool.

use core::fmt;
use std::string::{String, ToString};

/// What was wrong with a file given to a [`DescriptorPool`](super::DescriptorPool).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PoolErrorKind {
    /// The bytes are not an encoded `FileDescriptorProto` or
    /// `FileDescriptorSet`.
    Malformed,
    /// A file of this name is in the pool already, with other contents.
    DuplicateFile,
    /// A name is declared twice (in this file, or by it and another).
    DuplicateSymbol,
    /// An import is neither in the pool nor among the files being added.
    MissingImport,
    /// A type name (a field's type, an extendee, a method's input or
    /// output) names nothing of the right kind.
    UnresolvedType,
    /// Two extensions of one message take the same number.
    ConflictingExtension,
    /// A field number is 0, negative or above 536,870,911, or two fields of
    /// one message share a number.
    InvalidFieldNumber,
}

/// A file that could not be added to a pool: what was wrong, in which file,
/// and the symbol concerned. The pool is left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolError {
    kind: PoolErrorKind,
    file: String,
    symbol: String,
}

impl PoolError {
    pub(super) fn new(kind: PoolErrorKind, file: &str, symbol: &str) -> Self {
        PoolError {
            kind,
            file: file.to_string(),
            symbol: symbol.to_string(),
        }
    }

    /// What was wrong.
    #[must_use]
    pub fn kind(&self) -> PoolErrorKind {
        self.kind
    }

    /// The file it was found in (empty when the bytes were not a file).
    #[must_use]
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The name concerned: the symbol declared twice, the import or type
    /// not found, the extension whose number is taken.
    #[must_use]
    pub fn symbol(&self) -> &str {
        &self.symbol
    }
}

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            PoolErrorKind::Malformed => "is not an encoded file descriptor",
            PoolErrorKind::DuplicateFile => "is already in the pool with other contents",
            PoolErrorKind::DuplicateSymbol => "declares a name that is already declared",
            PoolErrorKind::MissingImport => "imports a file that is not in the pool",
            PoolErrorKind::UnresolvedType => "refers to a type that is not in the pool",
            PoolErrorKind::ConflictingExtension => "declares an extension number that is already taken",
            PoolErrorKind::InvalidFieldNumber => "declares an invalid or repeated field number",
        };
        let file = if self.file.is_empty() { "<input>" } else { &self.file };
        write!(f, "{file} {what}")?;
        if !self.symbol.is_empty() {
            write!(f, ": `{}`", self.symbol)?;
        }
        Ok(())
    }
}

impl std::error::Error for PoolError {}
