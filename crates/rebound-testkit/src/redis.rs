//! redis-server in the foreground with no persistence, for tests of shared retry budgets.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::process::{find_binary, free_port, stop, wait_ready};

/// A running `redis-server --port P --bind 127.0.0.1 --save '' --appendonly no`, killed on drop.
#[derive(Debug)]
pub struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// Starts redis-server on a free port of 127.0.0.1 and waits (at most 10 s) until it
    /// answers `PING` with `+PONG` over TCP.
    ///
    /// # Panics
    /// If the redis-server binary is missing (searched in `PATH` and `/usr/sbin`), or it exits
    /// or is not ready in time.
    pub fn start() -> RedisServer {
        let binary = find_binary("redis-server", "redis-server");
        let port = free_port();
        let child = Command::new(&binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("rebound-testkit: cannot run {}: {e}", binary.display()));
        let mut server = RedisServer { child, port };
        wait_ready(&mut server.child, "redis-server", String::new, || ping(port));
        server
    }

    /// The TCP port redis-server listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The connection URL: `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Whether the server answers `PING` right now (200 ms timeout).
    pub fn is_alive(&self) -> bool {
        ping(self.port)
    }

    /// Kills the server now (SIGKILL) and reaps it, e.g. to test behaviour when the shared store
    /// disappears. Calling it twice, or dropping afterwards, is harmless.
    pub fn kill(&mut self) {
        stop(&mut self.child);
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Sends an inline `PING` and checks for `+PONG`.
fn ping(port: u16) -> bool {
    let timeout = Duration::from_millis(200);
    let Ok(mut stream) = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), timeout) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(timeout));
    let mut buf = [0u8; 7];
    stream.write_all(b"PING\r\n").is_ok() && stream.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}
