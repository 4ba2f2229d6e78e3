//! Source locations as protoc's parser records them: a location opens at
//! the current token with its parent's path, may be moved or given more
//! path, and closes at the last token read unless given an end. Comments
//! attach at the ends of declarations. Beside them, the positions protoc
//! reports linking errors at, by element path.

use std::collections::HashMap;

use fastrs::descriptor::source_code_info::Location;

use super::Parser;
use crate::comments::{between, Comments};
use crate::error::{At, Pos};
use crate::lex::Tok;

/// A location being recorded: its index in the file's list.
#[derive(Clone, Copy, Debug)]
pub struct Rec(usize);

/// The locations of one file.
#[derive(Debug, Default)]
pub struct Locations {
    pub list: Vec<Location>,
    /// Where to report a problem with an element, by a hash of its
    /// location path (and the path's length), and the part.
    pub at: HashMap<(u64, usize, At), Pos>,
    /// Where each import (by file name) is written.
    pub imports: HashMap<String, Pos>,
}

impl Locations {
    /// Where to report a problem with the element at `path`: the part
    /// `at`, or else the element itself.
    pub fn find(&self, path: &[i32], at: At) -> Option<Pos> {
        self.at.get(&(path_hash(path), path.len(), at)).copied()
    }
}

/// A hash of a location path: the places of errors are kept by it, so that
/// recording one allocates nothing.
fn path_hash(path: &[i32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut hasher);
    hasher.finish()
}

impl Parser<'_> {
    /// Opens a location at the current token, under `parent`.
    pub(super) fn rec(&mut self, parent: Option<Rec>, path: &[i32]) -> Rec {
        let mut full = parent
            .map(|p| self.locations.list[p.0].path.clone())
            .unwrap_or_default();
        full.extend_from_slice(path);
        let start = self.current().start;
        self.locations.list.push(Location {
            path: full,
            span: vec![start.line as i32, start.column as i32],
            ..Default::default()
        });
        Rec(self.locations.list.len() - 1)
    }

    pub(super) fn add_path(&mut self, rec: Rec, part: i32) {
        self.locations.list[rec.0].path.push(part);
    }

    pub(super) fn path_of(&self, rec: Rec) -> Vec<i32> {
        self.locations.list[rec.0].path.clone()
    }

    /// Moves the start to the token at `index`.
    pub(super) fn start_at(&mut self, rec: Rec, index: usize) {
        let start = self.tokens[index].start;
        let span = &mut self.locations.list[rec.0].span;
        span[0] = start.line as i32;
        span[1] = start.column as i32;
    }

    pub(super) fn start_like(&mut self, rec: Rec, other: Rec) {
        let (line, column) = (
            self.locations.list[other.0].span[0],
            self.locations.list[other.0].span[1],
        );
        let span = &mut self.locations.list[rec.0].span;
        span[0] = line;
        span[1] = column;
    }

    /// Ends the location after the token at `index` (three numbers when it
    /// ends on the line it starts).
    pub(super) fn end_at(&mut self, rec: Rec, index: usize) {
        let end = self.tokens[index].end;
        let span = &mut self.locations.list[rec.0].span;
        if end.line as i32 != span[0] {
            span.push(end.line as i32);
        }
        span.push(end.column as i32);
    }

    /// Closes a location: it ends after the last token read, unless ended.
    pub(super) fn done(&mut self, rec: Rec) {
        if self.locations.list[rec.0].span.len() <= 2 {
            self.end_at(rec, self.at.saturating_sub(1));
        }
    }

    /// Records that errors about the element at `element` are reported where
    /// `rec` starts.
    pub(super) fn error_at(&mut self, rec: Rec, element: Rec, at: At) {
        let span = &self.locations.list[rec.0].span;
        let pos = Pos {
            line: span[0] as u32,
            column: span[1] as u32,
        };
        let path = &self.locations.list[element.0].path;
        let key = (path_hash(path), path.len(), at);
        self.locations.at.insert(key, pos);
    }

    pub(super) fn import_at(&mut self, rec: Rec, name: &str) {
        let span = &self.locations.list[rec.0].span;
        let pos = Pos {
            line: span[0] as u32,
            column: span[1] as u32,
        };
        self.locations.imports.insert(name.to_owned(), pos);
    }

    /// The comments after the current token, which is then passed.
    pub(super) fn advance_with_comments(&mut self) -> Comments {
        let next = self.tokens.get(self.at + 1).filter(|t| t.tok != Tok::Eof);
        let comments = between(&self.chars, Some(&self.tokens[self.at]), next);
        self.advance();
        comments
    }

    /// Reads the comments before the first token.
    pub(super) fn first_comments(&mut self) {
        let first = self.tokens.first().filter(|t| t.tok != Tok::Eof);
        let comments = between(&self.chars, None, first);
        self.upcoming_detached = comments.detached;
        self.upcoming_doc = comments.leading.unwrap_or_default();
    }

    /// Passes `symbol` ending a declaration, attaching comments to `rec`:
    /// those before the declaration lead it, one after the symbol trails it.
    pub(super) fn try_end_of_declaration(&mut self, symbol: char, rec: Option<Rec>) -> bool {
        if !self.looking_at(symbol) {
            return false;
        }
        let comments = self.advance_with_comments();
        let leading = std::mem::replace(&mut self.upcoming_doc, comments.leading.unwrap_or_default());
        match rec {
            Some(rec) => {
                let detached = std::mem::replace(&mut self.upcoming_detached, comments.detached);
                let location = &mut self.locations.list[rec.0];
                if !leading.is_empty() {
                    location.leading_comments = Some(leading.into());
                }
                if !comments.trailing.is_empty() {
                    location.trailing_comments = Some(comments.trailing.into());
                }
                location.leading_detached_comments = detached.into_iter().map(Into::into).collect();
            }
            None if symbol == '}' => self.upcoming_detached = comments.detached,
            None => self.upcoming_detached.extend(comments.detached),
        }
        true
    }
}
