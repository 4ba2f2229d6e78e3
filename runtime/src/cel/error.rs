//! CEL's errors: in parsing and checking (with where in the source), and
//! in evaluation (a value, never a panic).

use core::fmt;
use std::string::String;
use std::sync::Arc;

/// A syntax error: what and where (line and column, from 1, in code
/// points as cel-go counts them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl ParseError {
    pub(crate) fn new(src: &str, at: u32, message: impl Into<String>) -> Self {
        let (line, column) = line_column(src, at);
        ParseError {
            message: message.into(),
            line,
            column,
        }
    }
}

/// The 1-based line and column of byte offset `at` in `src`.
#[must_use]
pub fn line_column(src: &str, at: u32) -> (u32, u32) {
    let at = (at as usize).min(src.len());
    let before = src.get(..at).unwrap_or(src);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ERROR: <input>:{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A type error found by the checker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// What is wrong.
    pub message: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ERROR: <input>:{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for CheckError {}

/// An expression that does not compile: a syntax or a type error (the
/// checker reports every type error it finds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The source does not parse.
    Parse(ParseError),
    /// The expression does not type-check.
    Check(std::vec::Vec<CheckError>),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Parse(e) => e.fmt(f),
            CompileError::Check(errors) => {
                for (i, e) in errors.iter().enumerate() {
                    if i > 0 {
                        f.write_str("\n")?;
                    }
                    e.fmt(f)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for CompileError {}

impl From<ParseError> for CompileError {
    fn from(e: ParseError) -> Self {
        CompileError::Parse(e)
    }
}

/// An error while evaluating: an overflow, a division by zero, a missing
/// key, no overload for the operands' types, ... It is a value in CEL
/// (`false && error` is `false`), so it is cheap to make and to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    message: Arc<str>,
}

impl EvalError {
    /// An error saying `message`.
    #[must_use]
    pub fn new(message: impl Into<Arc<str>>) -> Self {
        EvalError {
            message: message.into(),
        }
    }

    /// What went wrong.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn overflow(what: &str) -> Self {
        EvalError::new(format!("{what} overflow"))
    }

    pub(crate) fn no_overload(function: &str) -> Self {
        EvalError::new(format!("no such overload: {function}"))
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        assert_eq!(line_column("abc", 0), (1, 1));
        assert_eq!(line_column("a\nbc", 3), (2, 2));
        assert_eq!(line_column("é x", 3), (1, 3));
    }
}
