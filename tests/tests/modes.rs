//! Which messages get speed-mode and which size-mode code: the default by
//! the size of a run, `Builder::mode`, and `Builder::mode_for` prefixes
//! (longest wins). Size-mode messages are the ones with a table (`impl
//! Tabled`).

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

/// True if message `name` gets speed-mode code in `code`: no table.
fn speed(code: &str, name: &str) -> bool {
    assert!(code.contains(&format!("pub struct {name} {{")), "no struct {name}");
    !code.contains(&format!("Tabled for {name} {{"))
}

#[test]
fn a_small_run_is_speed_mode_unless_asked() {
    let code = golden(Builder::new());
    assert!(speed(&code, "User") && speed(&code, "Address"));
    assert!(!code.contains("__private::compact"));

    let code = golden(Builder::new().mode(Mode::Size));
    assert!(!speed(&code, "User") && !speed(&code, "Address"));
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
    assert!(speed(&code, "User"), "under .golden");
    assert!(!speed(&code, "Address"), ".golden.Address is longer");
    // A prefix matches whole name segments only.
    let code = golden(
        Builder::new()
            .mode(Mode::Size)
            .mode_for(".golden.Use", Mode::Speed)
            .unwrap(),
    );
    assert!(!speed(&code, "User"));
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
        assert_eq!(!speed(&code, "M0"), size, "{n} messages");
        // An explicit mode wins over the default.
        let forced: String = Builder::new()
            .mode(Mode::Speed)
            .generate(&[&file], &[&dir])
            .unwrap()
            .into_iter()
            .map(|f| f.content)
            .collect();
        assert!(speed(&forced, "M0"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
