//! Golden files: generated code checked in, so that a change to the
//! generator shows up as a diff to review. `FASTRS_BLESS=1` rewrites them.

use std::fmt::Write as _;
use std::path::Path;

/// The lines around the first and last differences of `expected` and
/// `actual`: enough to review, without printing whole files.
#[must_use]
pub fn diff(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let head = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let tail = e[head..]
        .iter()
        .rev()
        .zip(a[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let from = head.saturating_sub(3);
    let mut out = format!("@@ line {} @@\n", head + 1);
    for line in &e[from..head] {
        let _ = writeln!(out, "  {line}");
    }
    for line in &e[head..e.len() - tail] {
        let _ = writeln!(out, "- {line}");
    }
    for line in &a[head..a.len() - tail] {
        let _ = writeln!(out, "+ {line}");
    }
    for line in e[e.len() - tail..].iter().take(3) {
        let _ = writeln!(out, "  {line}");
    }
    out
}

/// Compares each `(name, content)` with the file `dir/name`, or rewrites
/// them under `FASTRS_BLESS`.
///
/// # Panics
/// A file differs or is missing.
pub fn check_files(dir: &Path, files: &[(String, String)]) {
    let bless = std::env::var_os("FASTRS_BLESS").is_some();
    for (name, content) in files {
        let path = dir.join(name);
        if bless {
            std::fs::create_dir_all(path.parent().expect("a file in a folder")).unwrap();
            std::fs::write(&path, content).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; run with FASTRS_BLESS=1 to create it", path.display()));
        assert!(
            expected == *content,
            "{} is out of date; review the change and rerun with FASTRS_BLESS=1\n{}",
            path.display(),
            diff(&expected, content)
        );
    }
}

/// [`check_files`] for a folder that holds exactly `files`: a golden file
/// no longer generated is an error too (and is removed under `FASTRS_BLESS`).
///
/// # Panics
/// As [`check_files`], or a stale file is left.
pub fn check_dir(dir: &Path, files: &[(String, String)]) {
    let bless = std::env::var_os("FASTRS_BLESS").is_some();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if files.iter().all(|(n, _)| *n != name) {
                assert!(
                    bless,
                    "{} is no longer generated; rerun with FASTRS_BLESS=1",
                    path.display()
                );
                std::fs::remove_file(&path).unwrap();
            }
        }
    }
    check_files(dir, files);
}
