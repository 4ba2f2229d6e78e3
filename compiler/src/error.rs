//! Errors as protoc prints them: `file:line:column: message`, one per line.

use std::fmt;

/// Which part of an element an error is reported at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum At {
    Name,
    Number,
    Type,
    Extendee,
    DefaultValue,
    OptionName,
    OptionValue,
    InputType,
    OutputType,
    Editions,
    Other,
}

/// A position in a source file: line and column from 0, as protoc's
/// tokenizer counts them (a tab moves the column to the next multiple of 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

/// A problem found while linking, at a part of an element (by the path of
/// the element's location), to be placed in the file when reported.
#[derive(Clone, Debug)]
pub struct Problem {
    pub path: Vec<i32>,
    pub at: At,
    pub message: String,
}

impl Problem {
    pub fn new(path: &[i32], at: At, message: impl Into<String>) -> Self {
        Problem {
            path: path.to_vec(),
            at,
            message: message.into(),
        }
    }

    /// A problem of the whole file, reported without a place (as protoc's
    /// command line reports its own checks).
    pub fn nowhere(message: impl Into<String>) -> Self {
        Problem {
            path: vec![-1],
            at: At::Other,
            message: message.into(),
        }
    }
}

/// One problem found in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file's name as imported (relative to its include directory).
    pub file: String,
    /// Where, if the problem has a place in the file.
    pub pos: Option<Pos>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(pos) => write!(f, "{}:{}:{}: {}", self.file, pos.line + 1, pos.column + 1, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// The problems of one file, gathered while it is read.
#[derive(Debug, Default)]
pub struct Diagnostics {
    pub file: String,
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new(file: &str) -> Self {
        Diagnostics {
            file: file.to_owned(),
            list: Vec::new(),
        }
    }

    pub fn error(&mut self, at: Pos, message: impl Into<String>) {
        self.list.push(Diagnostic {
            file: self.file.clone(),
            pos: Some(at),
            message: message.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Why a compilation failed: every problem found, in the order found.
///
/// Both `Display` and `Debug` print one `file:line:column: message` line
/// per problem, so that a build script's `main` returning this error with
/// `?` shows the same lines as protoc.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    diagnostics: Vec<Diagnostic>,
}

impl Error {
    pub(crate) fn new(diagnostics: Vec<Diagnostic>) -> Self {
        Error { diagnostics }
    }

    /// Each problem, in the order found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, diagnostic) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{diagnostic}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}
