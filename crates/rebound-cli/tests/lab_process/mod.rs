//! `rebound lab` as a child process on a free loopback port, killed when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running `rebound lab`.
pub struct Lab {
    child: Child,
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
}

impl Lab {
    /// Starts the lab on port 0 and reads the address it prints first.
    pub fn start() -> Lab {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("rebound"))
            .args(["lab", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("rebound lab starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.split_whitespace().find(|w| w.starts_with("http://")).map(str::to_string);
        let Some(url) = url else {
            let _ = child.kill();
            panic!("rebound lab printed no address: {line:?}");
        };
        Lab { child, url }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
