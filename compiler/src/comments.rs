//! Which comments belong to which declaration, by protoc's rules: between
//! the end of one declaration (`;`, `{` or `}`) and the next token, a
//! comment on the same line trails the declaration, comments separated by
//! blank lines are detached, and the last block of comments leads the next
//! declaration — unless the next token closes a scope or sits on the line
//! where the previous one ended.

use crate::lex::{Tok, Token};

/// The comments of one gap between tokens.
#[derive(Debug, Default)]
pub struct Comments {
    /// Trails the token before the gap.
    pub trailing: String,
    /// Belong to neither token.
    pub detached: Vec<String>,
    /// Leads the token after the gap (`Some("")` for `/**/`).
    pub leading: Option<String>,
}

/// The comments between `previous` (`None` at the start of the file) and
/// `next` (`None` at its end), read from the file's characters.
pub fn between(chars: &[char], previous: Option<&Token>, next: Option<&Token>) -> Comments {
    let from = previous.map_or(0, |t| t.to);
    let to = next.map_or(chars.len(), |t| t.from);
    let mut gap = Gap {
        chars: &chars[from..to],
        at: 0,
        line: previous.map_or(0, |t| t.end.line as i64),
    };
    let mut collector = Collector {
        can_attach_to_previous: previous.is_some(),
        ..Collector::default()
    };
    let previous_line = if previous.is_some() { gap.line } else { -1 };
    let mut trailing_end_line = -1;
    if previous.is_some() {
        gap.skip_blanks();
        if gap.starts_with("//") {
            trailing_end_line = gap.line;
            gap.at += 2;
            let text = gap.line_comment();
            collector.line_comment(&text);
            collector.flush();
        } else if gap.starts_with("/*") {
            gap.at += 2;
            let text = gap.block_comment();
            collector.block_comment(&text);
            trailing_end_line = gap.line;
            gap.skip_blanks();
            collector.flush();
        } else if gap.peek() == Some('\n') {
            gap.bump();
        } else {
            // The next token is on the same line: no comments.
            return Comments::default();
        }
    }
    loop {
        gap.skip_blanks();
        if gap.starts_with("//") {
            gap.at += 2;
            let text = gap.line_comment();
            collector.line_comment(&text);
        } else if gap.starts_with("/*") {
            gap.at += 2;
            let text = gap.block_comment();
            collector.block_comment(&text);
            gap.skip_blanks();
            if gap.peek() == Some('\n') {
                gap.bump();
            }
        } else if gap.peek() == Some('\n') {
            gap.bump();
            collector.flush();
            collector.can_attach_to_previous = false;
        } else {
            let closes = next.is_none_or(|t| matches!(t.tok, Tok::Symbol('}' | ']' | ')')));
            if closes {
                collector.flush();
            }
            if let Some(next) = next {
                let line = next.start.line as i64;
                if previous_line == line || trailing_end_line == line {
                    collector.maybe_detach();
                }
            }
            return collector.finish();
        }
    }
}

/// The characters between two tokens, read as protoc's tokenizer reads them.
struct Gap<'a> {
    chars: &'a [char],
    at: usize,
    line: i64,
}

impl Gap<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn starts_with(&self, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(i, c)| self.chars.get(self.at + i) == Some(&c))
    }

    /// Spaces, tabs and the like, but not newlines.
    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r' | '\x0b' | '\x0c')) {
            self.bump();
        }
    }

    /// After `//`: the rest of the line with its newline.
    fn line_comment(&mut self) -> String {
        let rest = &self.chars[self.at..];
        let len = rest.iter().position(|&c| c == '\n').map_or(rest.len(), |n| n + 1);
        let text = rest[..len].iter().collect();
        self.at += len;
        if len > 0 && rest[len - 1] == '\n' {
            self.line += 1;
        }
        text
    }

    /// After `/*`: the text up to `*/`, each line after the first without
    /// its leading blanks and one `*`.
    fn block_comment(&mut self) -> String {
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return text,
                Some('\n') => {
                    self.bump();
                    text.push('\n');
                    self.skip_blanks();
                    if self.peek() == Some('*') {
                        self.bump();
                        if self.peek() == Some('/') {
                            self.bump();
                            return text;
                        }
                    }
                }
                Some('*') if self.chars.get(self.at + 1) == Some(&'/') => {
                    self.at += 2;
                    return text;
                }
                Some(c) => {
                    self.bump();
                    text.push(c);
                }
            }
        }
    }
}

/// protoc's comment collector: the newest comment waits in `buffer` until
/// it is known whether it trails, is detached, or leads.
#[derive(Default)]
struct Collector {
    buffer: String,
    has_comment: bool,
    is_line_comment: bool,
    can_attach_to_previous: bool,
    comments: usize,
    has_trailing: bool,
    out: Comments,
}

impl Collector {
    fn line_comment(&mut self, text: &str) {
        // Consecutive line comments join; a line after a block does not.
        if self.has_comment && !self.is_line_comment {
            self.flush();
        }
        self.has_comment = true;
        self.is_line_comment = true;
        self.buffer.push_str(text);
    }

    fn block_comment(&mut self, text: &str) {
        if self.has_comment {
            self.flush();
        }
        self.has_comment = true;
        self.is_line_comment = false;
        self.buffer.push_str(text);
    }

    /// The buffered comment does not lead the next token.
    fn flush(&mut self) {
        if !self.has_comment {
            return;
        }
        let text = std::mem::take(&mut self.buffer);
        if self.can_attach_to_previous {
            self.out.trailing.push_str(&text);
            self.has_trailing = true;
            self.can_attach_to_previous = false;
        } else {
            self.out.detached.push(text);
        }
        self.has_comment = false;
        self.comments += 1;
    }

    /// A lone comment between two tokens on one line belongs to neither.
    fn maybe_detach(&mut self) {
        let count = self.comments + usize::from(self.has_comment);
        if count != 1 {
            return;
        }
        if self.has_trailing {
            let trailing = std::mem::take(&mut self.out.trailing);
            self.out.detached.insert(0, trailing);
        }
        self.flush();
    }

    fn finish(mut self) -> Comments {
        if self.has_comment {
            self.out.leading = Some(std::mem::take(&mut self.buffer));
        }
        self.out
    }
}
