//! `fastrs validate`: a message checked by its type's protovalidate rules
//! (`buf.validate` options), one violation per line.

use fastrs::reflect::DynamicMessage;
use fastrs::validate::{path_string, Error, Validate, ValidateOptions};

/// What validating `message` prints (`field.path: message [rule id]` per
/// violation, nothing if it is valid), and whether it is.
///
/// # Errors
/// The rules do not compile, or fail while evaluating.
pub fn report(message: &DynamicMessage, fail_fast: bool) -> Result<(String, bool), String> {
    let options = ValidateOptions {
        fail_fast,
        ..ValidateOptions::default()
    };
    match message.validate_with(&options) {
        Ok(()) => Ok((String::new(), true)),
        Err(Error::Invalid(violations)) => {
            let mut out = String::new();
            for v in &violations.violations {
                let field = v.field.as_ref().map(path_string).unwrap_or_default();
                let message = v.message.as_deref().unwrap_or("");
                let id = v.rule_id.as_deref().unwrap_or("");
                let key = if v.for_key == Some(true) { " (key)" } else { "" };
                if field.is_empty() {
                    out.push_str(&format!("{message} [{id}]\n"));
                } else {
                    out.push_str(&format!("{field}{key}: {message} [{id}]\n"));
                }
            }
            Ok((out, false))
        }
        Err(Error::Compilation(e)) => Err(format!(
            "the rules of {} do not compile: {e}",
            message.descriptor().full_name()
        )),
        Err(Error::Runtime(e)) => Err(format!("a rule failed: {e}")),
    }
}
