//! Doc comments: the `.proto` comments of each element, keyed by element path
//! (see [`super::locations`]), as lines rustdoc renders as prose.

use std::collections::HashMap;

use fastrs::descriptor::FileDescriptorProto;

/// The comments of one file's elements.
#[derive(Debug, Default)]
pub struct Comments(HashMap<Vec<i32>, Vec<String>>);

impl Comments {
    /// The leading (else trailing) comment of every element of `file` that
    /// has one; empty without source info.
    #[must_use]
    pub fn of(file: &FileDescriptorProto) -> Self {
        let comments = file
            .source_code_info
            .iter()
            .flat_map(|info| &info.location)
            .filter_map(|loc| {
                let text = loc.leading_comments.as_deref().or(loc.trailing_comments.as_deref())?;
                Some((loc.path.clone(), doc_lines(text)))
            })
            .collect();
        Comments(comments)
    }

    /// The doc lines of the element at `path` (none if it has no comment).
    #[must_use]
    pub fn get(&self, path: &[i32]) -> Vec<String> {
        self.0.get(path).cloned().unwrap_or_default()
    }
}

/// Comment text → doc lines that rustdoc renders as prose: leading blanks are
/// trimmed so indented lines do not become doctests, and bare code fences are
/// marked `text`.
fn doc_lines(text: &str) -> Vec<String> {
    let mut in_fence = false;
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| {
            let line = line.trim();
            if line.starts_with("```") {
                in_fence = !in_fence;
                if in_fence && line == "```" {
                    return "```text".to_string();
                }
            }
            line.to_string()
        })
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_lines_are_safe_prose() {
        assert_eq!(
            doc_lines(" A thing.\n\n    indented code\n```\n"),
            ["A thing.", "", "indented code", "```text"]
        );
        assert_eq!(doc_lines("```\nx\n```"), ["```text", "x", "```"]);
    }
}
