//! What the process-level tests share: an `interop-server` they start and
//! stop, and the project's paths.

#![allow(dead_code)] // each test file uses a part

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// An `interop-server` process on a free port of 127.0.0.1, killed when
/// dropped.
pub struct ServerProcess {
    child: Child,
    pub addr: SocketAddr,
}

impl ServerProcess {
    pub fn start() -> ServerProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_interop-server"))
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("interop-server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("interop-server says where it listens");
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
        ServerProcess { child, addr }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The workspace's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Copies the connect-es scripts (tests/connect-es) to `npm/connect-es`,
/// under the directory npm installed into, so that they import its
/// packages; returns where they are.
pub fn connect_es_scripts(npm: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/connect-es");
    let to = npm.join("connect-es");
    std::fs::create_dir_all(&to).expect("a scripts directory");
    for script in ["cases.mjs", "client.mjs", "browser.mjs", "server.mjs"] {
        std::fs::copy(from.join(script), to.join(script)).expect("the script copies");
    }
    to
}
