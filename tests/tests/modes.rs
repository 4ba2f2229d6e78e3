//! Which messages get speed-mode and which size-mode code: the default by
//! the size of a run, `Builder::mode`, and `Builder::mode_for` prefixes
//! (longest wins). Speed-mode messages are the ones with a `Recycler`.

use std::path::{Path, PathBuf};

use protoc_gen_fastrs::{Builder, Mode};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto")
}

/// The code generated for `golden/golden.proto` by `builder`.
fn golden(builder: Builder) -> String {
    let root = root();
    let files = builder.generate(&[root.join("golden/golden.proto")], &[&root]).unwrap();
    files.into_iter().map(|f| f.content).collect()
}

/// The struct definition of message `name` in `code`.
fn definition<'c>(code: &'c str, name: &str) -> &'c str {
    let start = code
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("no struct {name}"));
    let end = start + code[start..].find("\n}").expect("the struct's end");
    &code[start..end]
}

fn recycles(code: &str, name: &str) -> bool {
    definition(code, name).contains("Recycler")
}

#[test]
fn a_small_run_is_speed_mode_unless_asked() {
    let code = golden(Builder::new());
    assert!(recycles(&code, "User") && recycles(&code, "Address"));
    assert!(!code.contains("__private::compact"));

    let code = golden(Builder::new().mode(Mode::Size));
    assert!(!recycles(&code, "User") && !recycles(&code, "Address"));
    assert!(!code.contains("Recycler"));
}

#[test]
fn the_longest_prefix_picks_a_messages_mode() {
    let code = golden(
        Builder::new()
            .mode(Mode::Size)
            .mode_for(".golden", Mode::Speed)
            .unwrap()
            .mode_for(".golden.Address", Mode::Size)
            .unwrap(),
    );
    assert!(recycles(&code, "User"), "under .golden");
    assert!(!recycles(&code, "Address"), ".golden.Address is longer");
    // A prefix matches whole name segments only.
    let code = golden(
        Builder::new()
            .mode(Mode::Size)
            .mode_for(".golden.Use", Mode::Speed)
            .unwrap(),
    );
    assert!(!recycles(&code, "User"));
    assert!(Builder::new().mode_for("golden.User", Mode::Speed).is_err());
}

#[test]
fn a_run_of_a_hundred_messages_is_size_mode() {
    let dir = std::env::temp_dir().join(format!("fastrs-modes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = |n: usize| {
        let messages: String = (0..n).map(|i| format!("message M{i} {{ string s = 1; }}\n")).collect();
        format!("syntax = \"proto3\";\npackage many;\n{messages}")
    };
    for (n, size) in [(Mode::AUTO_SIZE_FROM - 1, false), (Mode::AUTO_SIZE_FROM, true)] {
        let file = dir.join(format!("many{n}.proto"));
        std::fs::write(&file, schema(n)).unwrap();
        let code: String = Builder::new()
            .generate(&[&file], &[&dir])
            .unwrap()
            .into_iter()
            .map(|f| f.content)
            .collect();
        assert_eq!(!recycles(&code, "M0"), size, "{n} messages");
        // An explicit mode wins over the default.
        let speed: String = Builder::new()
            .mode(Mode::Speed)
            .generate(&[&file], &[&dir])
            .unwrap()
            .into_iter()
            .map(|f| f.content)
            .collect();
        assert!(recycles(&speed, "M0"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
