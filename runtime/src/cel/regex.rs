//! Regular expressions for `matches`: RE2's syntax and linear time (the
//! `regex` crate), compiled once per pattern and kept in a small cache.

use std::collections::HashMap;
use std::string::String;
use std::sync::{Arc, Mutex};

use super::error::EvalError;

/// Patterns kept compiled; past this many the cache starts over.
const CACHE_SIZE: usize = 256;

/// The compiled program's size limit: a pattern that would need more
/// (`(a{1000}){1000}`, say) is an error rather than a large allocation.
const SIZE_LIMIT: usize = 1 << 20;

static CACHE: Mutex<Option<HashMap<String, Arc<regex::Regex>>>> = Mutex::new(None);

/// `pattern`, compiled.
///
/// # Errors
/// A pattern that is not RE2 syntax, or too large.
pub fn compile(pattern: &str) -> Result<Arc<regex::Regex>, EvalError> {
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
pub fn build(pattern: &str) -> Result<regex::Regex, EvalError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| EvalError::new(format!("invalid regular expression {pattern:?}: {e}")))
}
