//! fastrs-compiler on arbitrary text as a `.proto` file (seeded with the
//! project's schemas, so mutations reach deep into the grammar): it
//! compiles or fails with errors, never panics, and what compiles encodes.
//! libFuzzer's `-timeout` and `-rss_limit_mb` bound time and memory.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut compiler = fastrs_compiler::Compiler::new();
    compiler.source("fuzz.proto", text).include_imports(true).include_source_info(true);
    match compiler.compile(&["fuzz.proto"]) {
        Ok(set) => {
            let _ = fastrs::Message::encode_to_vec(&set);
        }
        Err(error) => assert!(!error.diagnostics().is_empty()),
    }
});
