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

/// Comment text → doc lines that rustdoc renders as written: leading blanks
/// are trimmed so indented lines do not become doctests, bare code fences
/// are marked `text`, and outside code the markdown that rustdoc would read
/// as something else is escaped ([`prose`]).
fn doc_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    // Prose lines are escaped a paragraph at a time: a link's text may
    // span lines.
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |paragraph: &mut Vec<&str>, lines: &mut Vec<String>| {
        if !paragraph.is_empty() {
            lines.extend(prose(&paragraph.join("\n")).split('\n').map(str::to_string));
            paragraph.clear();
        }
    };
    let mut in_fence = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("```") {
            flush(&mut paragraph, &mut lines);
            in_fence = !in_fence;
            let bare = in_fence && line == "```";
            lines.push(if bare { "```text".to_string() } else { line.to_string() });
        } else if in_fence {
            lines.push(line.to_string());
        } else if line.is_empty() {
            flush(&mut paragraph, &mut lines);
            lines.push(String::new());
        } else {
            paragraph.push(line);
        }
    }
    flush(&mut paragraph, &mut lines);
    if in_fence {
        // An unclosed fence would swallow what rustdoc adds after the comment.
        lines.push("```".to_string());
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    while lines.first().is_some_and(String::is_empty) {
        lines.remove(0);
    }
    lines
}

/// A paragraph of `.proto` comment as rustdoc markdown that shows the same
/// text, and warns about nothing: bare URLs become autolinks
/// (`<https://…>`), brackets that do not open an inline link (`[Optional]`,
/// which rustdoc would try as an intra-doc link) are escaped, and so is `<`
/// unless it starts an autolink (`<version>` would be read as HTML). Code
/// spans (`` `…` ``) are kept as they are.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            let (code, after) = code_span(rest);
            out.push_str(code);
            rest = after;
        } else if let Some(url) = bare_url(rest, &out) {
            out.push('<');
            out.push_str(url);
            out.push('>');
            rest = &rest[url.len()..];
        } else if let Some(link) = autolink(rest).or_else(|| inline_link(rest)) {
            out.push_str(link);
            rest = &rest[link.len()..];
        } else {
            if matches!(c, '[' | ']' | '<') && !out.ends_with('\\') {
                out.push('\\');
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The code span at the start of `text` (a run of backticks, up to the next
/// run of the same length) and what follows it; a run that is never closed
/// is plain text.
fn code_span(text: &str) -> (&str, &str) {
    let ticks = text.len() - text.trim_start_matches('`').len();
    let body = &text[ticks..];
    let mut from = 0;
    while let Some(i) = body[from..].find('`') {
        let start = from + i;
        let run = body[start..].len() - body[start..].trim_start_matches('`').len();
        if run == ticks {
            let end = ticks + start + run;
            return text.split_at(end);
        }
        from = start + run;
    }
    text.split_at(ticks)
}

/// The URL at the start of `text`, if it is a bare one (not already in an
/// autolink or a link's target, which `before` would end with): up to
/// whitespace, without trailing punctuation or an unbalanced `)`.
fn bare_url<'t>(text: &'t str, before: &str) -> Option<&'t str> {
    if !(text.starts_with("http://") || text.starts_with("https://")) || before.ends_with('<') || before.ends_with("](")
    {
        return None;
    }
    let end = text
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`'))
        .unwrap_or(text.len());
    let mut url = &text[..end];
    loop {
        let trimmed = url.trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '*', '_']);
        let unbalanced = |open: char, close: char| {
            trimmed.ends_with(close) && trimmed.matches(close).count() > trimmed.matches(open).count()
        };
        let trimmed = if unbalanced('(', ')') || unbalanced('[', ']') {
            &trimmed[..trimmed.len() - 1]
        } else {
            trimmed
        };
        if trimmed.len() == url.len() {
            break;
        }
        url = trimmed;
    }
    (url.len() > "https://".len()).then_some(url)
}

/// The autolink at the start of `text` (`<https://example.com>`), if any.
fn autolink(text: &str) -> Option<&str> {
    if !text.starts_with('<') {
        return None;
    }
    let end = text.find('>')?;
    let inner = &text[1..end];
    let scheme = inner.split_once(':')?.0;
    let valid = !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !inner.contains(char::is_whitespace);
    valid.then(|| &text[..=end])
}

/// The inline link at the start of `text` (`[text](target)`), if any.
fn inline_link(text: &str) -> Option<&str> {
    let label_end = text.strip_prefix('[')?.find(']')? + 1;
    let after = text[label_end + 1..].strip_prefix('(')?;
    let target_end = after.find(')')?;
    let target = &after[..target_end];
    let plausible = !target.is_empty() && !target.contains(char::is_whitespace);
    plausible.then(|| &text[..label_end + 2 + target_end + 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_lines_are_safe_prose() {
        assert_eq!(
            doc_lines(" A thing.\n\n    indented code\n```\n"),
            ["A thing.", "", "indented code", "```text", "```"]
        );
        assert_eq!(doc_lines("```\nx [y] <z>\n```"), ["```text", "x [y] <z>", "```"]);
    }

    #[test]
    fn links_may_span_lines() {
        assert_eq!(
            doc_lines("As [Google\nAPIs](https://github.com/googleapis/googleapis), [x]\ny."),
            [
                "As [Google",
                "APIs](https://github.com/googleapis/googleapis), \\[x\\]",
                "y."
            ]
        );
    }

    #[test]
    fn bare_urls_become_autolinks() {
        assert_eq!(
            prose("See https://opentelemetry.io/docs/specs/otel/. Also (http://a.b/c_(d))."),
            "See <https://opentelemetry.io/docs/specs/otel/>. Also (<http://a.b/c_(d)>)."
        );
        assert_eq!(prose("<https://kept.example>"), "<https://kept.example>");
        assert_eq!(
            prose("[the spec](https://kept.example/x)"),
            "[the spec](https://kept.example/x)"
        );
        assert_eq!(prose("`https://in.code`"), "`https://in.code`");
        assert_eq!(prose("https://"), "https://");
    }

    #[test]
    fn brackets_and_angles_that_are_not_markdown_are_escaped() {
        assert_eq!(prose("[Optional] The name."), "\\[Optional\\] The name.");
        assert_eq!(prose("A list [1, 2] or a[i]."), "A list \\[1, 2\\] or a\\[i\\].");
        assert_eq!(prose("Format: <version>/<name>"), "Format: \\<version>/\\<name>");
        assert_eq!(prose("x < y and a -> b"), "x \\< y and a -> b");
        assert_eq!(prose("keep `a[0] <b>` as code"), "keep `a[0] <b>` as code");
        assert_eq!(prose("an ``x ` y`` span"), "an ``x ` y`` span");
        assert_eq!(prose("a lone ` tick [x]"), "a lone ` tick \\[x\\]");
        assert_eq!(prose("already \\[escaped]"), "already \\[escaped\\]");
    }
}
