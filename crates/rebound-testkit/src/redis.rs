//! A throwaway redis-server.

use crate::process::{find_binary, free_port, wait_ready};
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `redis-server` on 127.0.0.1 and a free port, without persistence. Killed when
/// dropped, or earlier with [`kill`](RedisServer::kill) (to test what clients do then).
#[derive(Debug)]
pub struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// Starts redis-server and waits (up to 10 s) until it answers `PING`.
    ///
    /// # Panics
    /// If redis-server is not installed, or does not come up.
    pub fn start() -> RedisServer {
        let bin = find_binary("redis-server", "redis-server");
        let port = free_port();
        let child = Command::new(&bin)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        let mut server = RedisServer { child, port };
        if !wait_ready(port, Duration::from_secs(10), |mut s| {
            let _ = s.write_all(b"PING\r\n");
            let mut buf = [0u8; 7];
            s.read(&mut buf).is_ok() && buf.starts_with(b"+PONG")
        }) {
            server.kill();
            panic!("redis-server did not come up on 127.0.0.1:{port}");
        }
        server
    }

    /// The port (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills the server now.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
