//! The independent implementations that tests check fastrs against, installed
//! from the project's own pinned files into the Cargo target directory:
//! Python packages (grpcio) into a virtual environment, npm packages (buf,
//! connect-es) from a committed lockfile.
//!
//! A machine without Python or npm, or without access to their registries,
//! cannot run those tests: each helper then prints one line saying what is
//! missing and returns `None`, and the test returns early. With
//! `FASTRS_REQUIRE_EXTERNAL=1` in the environment (CI sets it) a missing
//! tool fails the test instead, so that nothing is skipped there.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One installation at a time within a test process (tests run on threads).
static INSTALLING: Mutex<()> = Mutex::new(());

/// The workspace's target directory (`CARGO_TARGET_DIR`, else `target/`).
#[must_use]
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    )
}

/// True when missing tools must fail tests rather than skip them.
#[must_use]
pub fn required() -> bool {
    std::env::var_os("FASTRS_REQUIRE_EXTERNAL").is_some_and(|v| v != "0" && !v.is_empty())
}

/// Says that `test` cannot run because `why`, in one line, and returns
/// `None`; panics instead under `FASTRS_REQUIRE_EXTERNAL`.
pub fn skip<T>(test: &str, why: &str) -> Option<T> {
    assert!(!required(), "{test}: {why} (FASTRS_REQUIRE_EXTERNAL is set)");
    // Straight to stderr, past the test harness's capture: the line shows
    // in a passing run.
    let _ = writeln!(std::io::stderr(), "skipped {test}: {why}");
    None
}

/// Runs `command`, returning its stderr (and stdout) on failure.
fn run(command: &mut Command) -> Result<(), String> {
    match command.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "{:?} failed: {}{}",
            command.get_program(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
        Err(e) => Err(format!("cannot run {:?}: {e}", command.get_program())),
    }
}

/// The first line of what `program --version` prints, if it runs.
fn version(program: &str) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string()
    })
}

/// Re-installs into `dir` unless `marker` there already records `stamp`
/// (the pinned file's contents): an unchanged pin installs once.
fn install_once(dir: &Path, stamp: &str, install: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    let _guard = INSTALLING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let marker = dir.join(".fastrs-installed");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(stamp) {
        return Ok(());
    }
    install()?;
    std::fs::write(&marker, stamp).map_err(|e| format!("cannot write {}: {e}", marker.display()))
}

/// A Python virtual environment `target/python/NAME` with the packages of
/// `requirements` (a pinned `requirements.txt`) installed; returns its
/// interpreter, or `None` (see [`skip`]) when Python or the packages cannot
/// be had.
#[must_use]
pub fn python_env(test: &str, name: &str, requirements: &Path) -> Option<PathBuf> {
    let Some(python) = ["python3", "python"].into_iter().find(|p| version(p).is_some()) else {
        return skip(test, "no Python 3 on PATH");
    };
    let pins = match std::fs::read_to_string(requirements) {
        Ok(pins) => pins,
        Err(e) => panic!("{}: {e}", requirements.display()),
    };
    let dir = target_dir().join("python").join(name);
    let interpreter = dir.join("bin/python");
    let installed = install_once(&dir, &pins, || {
        let _ = std::fs::remove_dir_all(&dir);
        run(Command::new(python).args(["-m", "venv"]).arg(&dir))?;
        run(Command::new(&interpreter)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(requirements))
    });
    match installed {
        Ok(()) => Some(interpreter),
        Err(why) => skip(test, &format!("cannot install {}: {why}", requirements.display())),
    }
}

/// The npm packages of `package_dir` (its `package.json` and committed
/// `package-lock.json`), installed with `npm ci` into `target/npm/NAME`;
/// returns that directory (binaries in `node_modules/.bin`), or `None` (see
/// [`skip`]) when npm or the packages cannot be had.
#[must_use]
pub fn npm_packages(test: &str, name: &str, package_dir: &Path) -> Option<PathBuf> {
    if version("npm").is_none() {
        return skip(test, "no npm on PATH");
    }
    let read = |file: &str| {
        std::fs::read_to_string(package_dir.join(file))
            .unwrap_or_else(|e| panic!("{}/{file}: {e}", package_dir.display()))
    };
    let (manifest, lock) = (read("package.json"), read("package-lock.json"));
    let dir = target_dir().join("npm").join(name);
    let installed = install_once(&dir, &lock, || {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        std::fs::write(dir.join("package.json"), &manifest).map_err(|e| e.to_string())?;
        std::fs::write(dir.join("package-lock.json"), &lock).map_err(|e| e.to_string())?;
        run(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir))
    });
    match installed {
        Ok(()) => Some(dir),
        Err(why) => skip(test, &format!("cannot install {}: {why}", package_dir.display())),
    }
}

/// A Chromium to run headless: `FASTRS_CHROMIUM`, else `chromium`,
/// `chromium-browser` or `google-chrome` on PATH; `None` (see [`skip`])
/// when there is none. `tests/tools/install-chromium` installs Debian's.
#[must_use]
pub fn chromium(test: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("FASTRS_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    match ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|p| version(p).is_some())
    {
        Some(program) => Some(PathBuf::from(program)),
        None => skip(
            test,
            "no Chromium on PATH (tests/tools/install-chromium installs Debian's)",
        ),
    }
}
