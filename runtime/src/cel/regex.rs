//! Regular expressions for `matches` and `pattern` rules: RE2's syntax and
//! linear time (the `regex` crate), compiled once per pattern and kept in a
//! small cache.
//!
//! A [`Matcher`] also holds a fully built DFA when the pattern's is small
//! (the short anchored patterns rules use, `^[a-z][a-z0-9-]*$`): it answers
//! `is_match` in a few instructions a byte with no per-call setup, where
//! the regex crate's engine selection and cache pool cost hundreds.

use std::collections::HashMap;
use std::string::String;
use std::sync::{Arc, Mutex};

use super::error::EvalError;

/// Patterns kept compiled; past this many the cache starts over.
const CACHE_SIZE: usize = 256;

/// The compiled program's size limit: a pattern that would need more
/// (`(a{1000}){1000}`, say) is an error rather than a large allocation.
const SIZE_LIMIT: usize = 1 << 20;

/// The largest DFA kept beside the regex: patterns whose DFA would be
/// larger (Unicode classes, long counted repetitions) use the regex alone.
const DFA_LIMIT: usize = 64 << 10;

static CACHE: Mutex<Option<HashMap<String, Arc<Matcher>>>> = Mutex::new(None);

type Dfa = regex_automata::dfa::dense::DFA<std::vec::Vec<u32>>;

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Matcher {
    regex: regex::Regex,
    /// The DFA, and its start state at the start of a haystack.
    dfa: Option<(Dfa, regex_automata::util::primitives::StateID)>,
}

impl Matcher {
    /// True if `s` has a match.
    #[must_use]
    pub fn is_match(&self, s: &str) -> bool {
        use regex_automata::dfa::Automaton as _;
        let Some((dfa, start)) = &self.dfa else {
            return self.regex.is_match(s);
        };
        // A match state shows one transition late, so the end of the
        // haystack takes one more (`next_eoi_state`).
        let mut state = *start;
        for &b in s.as_bytes() {
            state = dfa.next_state(state, b);
            if dfa.is_special_state(state) {
                if dfa.is_match_state(state) {
                    return true;
                }
                if dfa.is_dead_state(state) {
                    return false;
                }
                if dfa.is_quit_state(state) {
                    return self.regex.is_match(s);
                }
            }
        }
        dfa.is_match_state(dfa.next_eoi_state(state))
    }

    /// The pattern.
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.regex.as_str()
    }
}

/// A small DFA of `pattern` and its start state, if it has one (none for
/// what a DFA cannot match, Unicode word boundaries, or past
/// [`DFA_LIMIT`]).
fn small_dfa(pattern: &str) -> Option<(Dfa, regex_automata::util::primitives::StateID)> {
    use regex_automata::dfa::{dense, Automaton as _};
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .accelerate(false)
                .dfa_size_limit(Some(DFA_LIMIT))
                .determinize_size_limit(Some(DFA_LIMIT)),
        )
        .syntax(regex_automata::util::syntax::Config::new().utf8(true))
        .build(pattern)
        .ok()?;
    let start = dfa
        .start_state(&regex_automata::util::start::Config::new().anchored(regex_automata::Anchored::No))
        .ok()?;
    Some((dfa, start))
}

/// `pattern`, compiled.
///
/// # Errors
/// A pattern that is not RE2 syntax, or too large.
pub fn compile(pattern: &str) -> Result<Arc<Matcher>, EvalError> {
    let mut cache = CACHE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let map = cache.get_or_insert_with(HashMap::new);
    if let Some(re) = map.get(pattern) {
        return Ok(re.clone());
    }
    let re = Arc::new(build(pattern)?);
    if map.len() >= CACHE_SIZE {
        map.clear();
    }
    map.insert(pattern.into(), re.clone());
    Ok(re)
}

/// `pattern` compiled on its own (no cache), for patterns known ahead.
///
/// # Errors
/// As [`compile`].
pub fn build(pattern: &str) -> Result<Matcher, EvalError> {
    let regex = regex::RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| EvalError::new(format!("invalid regular expression {pattern:?}: {e}")))?;
    Ok(Matcher {
        dfa: small_dfa(pattern),
        regex,
    })
}

#[cfg(test)]
mod dfa_tests {
    use super::*;

    /// The DFA answers as the regex does, with and without anchors, on
    /// Unicode classes, alternations, empty matches and invalid positions.
    #[test]
    fn the_dfa_agrees_with_the_regex() {
        let patterns = [
            "^[a-z][a-z0-9-]*$",
            "[0-9]+",
            "^$",
            "",
            "a|^b|c$",
            r"\p{Greek}+",
            r"^\w+@\w+\.com$",
            "(?i)hello",
            "^[A-Z]{2}$",
            "x*",
            "é",
            r"\bword\b",
        ];
        let inputs = [
            "",
            "a",
            "ab-9",
            "Ab",
            "-a",
            "123",
            "abc123",
            "b",
            "zc",
            "αβγ",
            "x@y.com",
            "HeLLo there",
            "GB",
            "gb",
            "GBR",
            "café",
            "a word here",
            "words",
        ];
        for p in patterns {
            let m = build(p).unwrap();
            let re = regex::Regex::new(p).unwrap();
            for s in inputs {
                assert_eq!(m.is_match(s), re.is_match(s), "{p:?} on {s:?}");
            }
        }
        assert!(
            build("^[a-z][a-z0-9-]*$").unwrap().dfa.is_some(),
            "a small pattern gets a DFA"
        );
    }
}
