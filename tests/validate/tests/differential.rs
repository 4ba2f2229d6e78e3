//! fastrs's validation against Buf's own implementations: protovalidate
//! for Python (PyPI's `protovalidate`, a native extension) and for
//! TypeScript (npm's `@bufbuild/protovalidate`), over every message type
//! of protovalidate's conformance case schemas, each with
//! [`PER_TYPE`] random messages drawn near its rules' bounds.
//!
//! Where the two references agree, fastrs must give the same validity and
//! the same violations (rule id, field path with every element's number,
//! name, types and subscript, and `for_key`); differing message texts are
//! reported, not failed. Where the references disagree with each other,
//! the case is counted apart and named in the report.
//!
//! The references install from the project's pinned files
//! (`python/requirements.txt`, `tests/npm`); without them, or without
//! `../shared`, the test says so and passes, unless
//! `FASTRS_REQUIRE_EXTERNAL` is set.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use fastrs::reflect::{DescriptorPool, DynamicMessage};
use fastrs::validate::types::field_path_element::Subscript;
use fastrs::validate::{Error, FieldPath, Validate, ValidateOptions, Violation};
use fastrs::Message;
use fastrs_validate_tests::random;
use serde_json::Value as Json;

/// Messages per type.
const PER_TYPE: usize = 100;

/// What one implementation said of one message.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Valid,
    /// The violations, each as `(rule id, field path, for_key)`, sorted.
    Invalid(Vec<(String, String, bool)>, Vec<String>),
    Error(String),
}

impl Verdict {
    fn kind(&self) -> &'static str {
        match self {
            Verdict::Valid => "valid",
            Verdict::Invalid(..) => "invalid",
            Verdict::Error(_) => "error",
        }
    }

    /// The same outcome: validity, and the same violations if invalid.
    fn agrees(&self, other: &Verdict) -> bool {
        match (self, other) {
            (Verdict::Invalid(a, _), Verdict::Invalid(b, _)) => a == b,
            _ => self.kind() == other.kind(),
        }
    }

    fn messages(&self) -> &[String] {
        match self {
            Verdict::Invalid(_, m) => m,
            _ => &[],
        }
    }
}

/// A field path with all of each element: `name#number:type[key,value]{subscript}`.
fn path_key(path: Option<&FieldPath>) -> String {
    let mut out = String::new();
    for e in path.map(|p| p.elements.as_slice()).unwrap_or_default() {
        let _ = write!(
            out,
            "/{}#{}:{:?}[{:?},{:?}]",
            e.field_name.as_deref().unwrap_or(""),
            e.field_number.unwrap_or(0),
            e.field_type,
            e.key_type,
            e.value_type
        );
        match &e.subscript {
            Some(Subscript::Index(i)) => write!(out, "{{{i}}}"),
            Some(Subscript::BoolKey(b)) => write!(out, "{{{b}}}"),
            Some(Subscript::IntKey(k)) => write!(out, "{{{k}}}"),
            Some(Subscript::UintKey(k)) => write!(out, "{{{k}u}}"),
            Some(Subscript::StringKey(k)) => write!(out, "{{{:?}}}", &**k),
            None => Ok(()),
        }
        .unwrap();
    }
    out
}

fn verdict_of(violations: &[Violation]) -> Verdict {
    let mut keys: Vec<(String, String, bool)> = violations
        .iter()
        .map(|v| {
            (
                v.rule_id.as_deref().unwrap_or("").to_string(),
                path_key(v.field.as_ref()),
                v.for_key.unwrap_or(false),
            )
        })
        .collect();
    keys.sort();
    let mut messages: Vec<String> = violations
        .iter()
        .map(|v| {
            format!(
                "{} {}: {}",
                v.rule_id.as_deref().unwrap_or(""),
                path_key(v.field.as_ref()),
                v.message.as_deref().unwrap_or("")
            )
        })
        .collect();
    messages.sort();
    Verdict::Invalid(keys, messages)
}

fn fastrs_verdict(message: &DynamicMessage) -> Verdict {
    match message.validate() {
        Ok(()) => Verdict::Valid,
        Err(Error::Invalid(v)) => verdict_of(&v.violations),
        Err(e) => Verdict::Error(e.to_string()),
    }
}

/// A reference's answers, line by line.
fn read_answers(path: &Path) -> Vec<Verdict> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| {
            let j: Json = serde_json::from_str(line).unwrap();
            if let Some(list) = j["violations"].as_array() {
                let violations: Vec<Violation> = list
                    .iter()
                    .map(|b| Violation::decode(&base64(b.as_str().unwrap())).unwrap())
                    .collect();
                verdict_of(&violations)
            } else if let Some(e) = j["error"].as_str() {
                Verdict::Error(e.into())
            } else {
                Verdict::Valid
            }
        })
        .collect()
}

fn base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|c| *c != b'=') {
        acc = acc << 6 | ALPHABET.iter().position(|a| *a == c).unwrap() as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn encode_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn fastrs_agrees_with_buf_python_and_typescript() {
    let test = "protovalidate differential";
    let Some(shared) = common::shared() else {
        let _ = writeln!(std::io::stderr(), "no ../shared: {test} not run");
        return;
    };
    let Some(python) = fastrs_test_tools::python_env(
        test,
        "protovalidate",
        &root().join("tests/validate/python/requirements.txt"),
    ) else {
        return;
    };
    let Some(npm) = fastrs_test_tools::npm_packages(test, "tools", &root().join("tests/npm")) else {
        return;
    };
    let dir = fastrs_test_tools::target_dir().join("validate-differential");
    std::fs::create_dir_all(&dir).unwrap();
    let set = common::case_set(&shared);
    std::fs::write(dir.join("cases.pb"), &set).unwrap();
    let pool = DescriptorPool::decode(&set).unwrap();

    // The messages: every type of the case files (not the harness's, nor
    // validate.proto's), PER_TYPE each.
    let messages = case_messages(&pool);
    let mut input = String::new();
    for m in &messages {
        let _ = writeln!(
            input,
            "{}\t{}",
            m.descriptor().full_name(),
            encode_base64(&m.encode_to_vec())
        );
    }
    std::fs::write(dir.join("input.txt"), input).unwrap();

    let script = npm.join("validate.mjs");
    std::fs::copy(root().join("tests/validate/js/validate.mjs"), &script).unwrap();
    let run = |program: &Path, script: &Path, out: &str, cwd: &Path| {
        let status = Command::new(program)
            .arg(script)
            .arg(dir.join("cases.pb"))
            .arg(dir.join("input.txt"))
            .arg(dir.join(out))
            .current_dir(cwd)
            .status()
            .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
        assert!(status.success(), "{} failed", script.display());
    };
    run(
        &python,
        &root().join("tests/validate/python/validate.py"),
        "python.txt",
        &dir,
    );
    run(Path::new("node"), &script, "typescript.txt", &npm);
    let py = read_answers(&dir.join("python.txt"));
    let ts = read_answers(&dir.join("typescript.txt"));
    assert_eq!(py.len(), messages.len());
    assert_eq!(ts.len(), messages.len());

    let mut disagreements: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut references_split: BTreeMap<String, usize> = BTreeMap::new();
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut invalid = 0;
    for (i, m) in messages.iter().enumerate() {
        let ty = m.descriptor().full_name().to_string();
        let ours = fastrs_verdict(m);
        if !py[i].agrees(&ts[i]) {
            *references_split.entry(ty).or_default() += 1;
            continue;
        }
        if matches!(ours, Verdict::Invalid(..)) {
            invalid += 1;
        }
        if !ours.agrees(&py[i]) {
            disagreements
                .entry(ty.clone())
                .or_default()
                .push(format!("#{i}: fastrs {ours:?}\n      python {:?}", py[i]));
        } else if ours.messages() != py[i].messages() || ours.messages() != ts[i].messages() {
            texts.entry(ty).or_insert_with(|| {
                format!(
                    "fastrs {:?} / python {:?} / typescript {:?}",
                    ours.messages(),
                    py[i].messages(),
                    ts[i].messages()
                )
            });
        }
    }
    let mut report = format!(
        "protovalidate differential: {} messages of {} types; {} invalid where all agree; fastrs disagrees on {} types; the references disagree with each other on {} messages of {} types; message texts differ on {} types\n",
        messages.len(),
        messages.len() / PER_TYPE,
        invalid,
        disagreements.len(),
        references_split.values().sum::<usize>(),
        references_split.len(),
        texts.len()
    );
    for (ty, n) in &references_split {
        let _ = writeln!(report, "  references split: {ty} ({n})");
    }
    for (ty, t) in &texts {
        let _ = writeln!(report, "  text: {ty}: {t}");
    }
    std::fs::write(dir.join("report.txt"), &report).unwrap();
    let _ = writeln!(std::io::stderr(), "{}", report.lines().next().unwrap_or(""));
    let shown: Vec<String> = disagreements
        .iter()
        .take(40)
        .map(|(ty, cases)| {
            format!(
                "{ty}:\n    {}",
                cases.iter().take(2).cloned().collect::<Vec<_>>().join("\n    ")
            )
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "fastrs disagrees with both references on {} types (report: {}):\n{}",
        disagreements.len(),
        dir.join("report.txt").display(),
        shown.join("\n")
    );
}

/// The messages of every case type, [`PER_TYPE`] each.
fn case_messages(pool: &DescriptorPool) -> Vec<DynamicMessage> {
    let mut messages = Vec::new();
    for ty in pool.all_messages() {
        let file = ty.file();
        let name = file.name();
        let in_cases = name.starts_with("buf/validate/conformance/cases/") || name.starts_with("tests/example/");
        if in_cases && !ty.is_map_entry() {
            messages.extend(random::messages(&ty, PER_TYPE, 7));
        }
    }
    messages
}

/// A generated type's verdict, as [`fastrs_verdict`] gives the dynamic one.
fn generated_verdict(message: &DynamicMessage, options: &ValidateOptions) -> Verdict {
    let name = message.descriptor().full_name();
    match fastrs_validate_tests::validate_generated(name, &message.encode_to_vec(), options) {
        None => panic!("no generated type {name}"),
        Some(Err(e)) => Verdict::Error(format!("decode: {e}")),
        Some(Ok(Ok(()))) => Verdict::Valid,
        Some(Ok(Err(Error::Invalid(v)))) => verdict_of(&v.violations),
        Some(Ok(Err(e))) => Verdict::Error(e.to_string()),
    }
}

/// The generated validators (`validate=true`) against the dynamic one,
/// over the same messages, with and without fail-fast: the same validity,
/// violations in the same order, the same message texts and errors.
#[test]
fn generated_code_agrees_with_dynamic_messages() {
    let Some(shared) = common::shared() else {
        let _ = writeln!(
            std::io::stderr(),
            "no ../shared: generated-against-dynamic differential not run"
        );
        return;
    };
    let set = common::case_set(&shared);
    let pool = DescriptorPool::decode(&set).unwrap();
    let messages = case_messages(&pool);
    assert!(messages.len() > 50_000, "{} messages", messages.len());
    let now = fastrs::cel::Timestamp::at(1_700_000_000, 0);
    let all = ValidateOptions {
        fail_fast: false,
        now: Some(now),
    };
    let first = ValidateOptions {
        fail_fast: true,
        now: Some(now),
    };
    let mut failures = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let dynamic = match m.validate_with(&all) {
            Ok(()) => Verdict::Valid,
            Err(Error::Invalid(v)) => verdict_of(&v.violations),
            Err(e) => Verdict::Error(e.to_string()),
        };
        let generated = generated_verdict(m, &all);
        // Fail-fast stops at the first violation found, which for a map
        // depends on its order of iteration: one of all the violations.
        let fast = generated_verdict(m, &first);
        let dynamic_fast = match m.validate_with(&first) {
            Ok(()) => Verdict::Valid,
            Err(Error::Invalid(v)) => verdict_of(&v.violations),
            Err(e) => Verdict::Error(e.to_string()),
        };
        let fast_agrees = fast == dynamic_fast
            || match (&fast, &dynamic_fast, &dynamic) {
                (Verdict::Invalid(one, _), Verdict::Invalid(..), Verdict::Invalid(every, _)) => {
                    one.len() == 1 && every.contains(&one[0])
                }
                _ => false,
            };
        if (generated != dynamic || !fast_agrees) && failures.len() < 40 {
            failures.push(format!(
                "#{i} {}:\n    generated {generated:?}\n    fail-fast {fast:?}\n    dynamic   {dynamic:?}",
                m.descriptor().full_name()
            ));
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "generated against dynamic: {} messages of {} types, with and without fail-fast",
        messages.len(),
        messages.len() / PER_TYPE
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What the `validate` fuzz target checks, on damaged encodings of random
/// messages of every case type: generated and dynamic validators agree on
/// whatever decodes.
#[test]
fn generated_and_dynamic_agree_on_damaged_input() {
    let Some(shared) = common::shared() else {
        let _ = writeln!(std::io::stderr(), "no ../shared: damaged-input differential not run");
        return;
    };
    let pool = DescriptorPool::decode(&common::case_set(&shared)).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut failures = Vec::new();
    for m in &case_messages(&pool) {
        let mut bytes = m.encode_to_vec();
        if !bytes.is_empty() {
            let i = (next() as usize) % bytes.len();
            bytes[i] ^= (next() % 255 + 1) as u8;
        }
        if let Err(why) = fastrs_validate_tests::check_against_dynamic(&pool, m.descriptor().full_name(), &bytes) {
            failures.push(why);
        }
    }
    assert!(
        failures.is_empty(),
        "{}",
        failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
