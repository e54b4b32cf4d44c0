//! A real `redis-server` for tests: started on 127.0.0.1 on a free port with no persistence,
//! killed when dropped. Fails loudly when the binary is missing (`apt-get install redis-server`).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running redis-server.
pub struct RedisServer {
    child: Option<Child>,
    pub port: u16,
}

impl RedisServer {
    pub fn start() -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        Self::start_on(port)
    }

    /// A server on `port` (e.g. to restart one that was killed).
    pub fn start_on(port: u16) -> RedisServer {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .args(["--enable-debug-command", "local"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run redis-server ({e}): install it with `apt-get install -y redis-server`")
            });
        let server = RedisServer { child: Some(child), port };
        let deadline = Instant::now() + Duration::from_secs(5);
        while server.command("PING").as_deref() != Some("+PONG") {
            assert!(Instant::now() < deadline, "redis-server on port {port} not ready after 5 s");
            std::thread::sleep(Duration::from_millis(10));
        }
        server
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Sends one inline command and returns the first line of the answer, if any.
    pub fn command(&self, cmd: &str) -> Option<String> {
        Self::command_on(self.port, cmd)
    }

    /// [`command`](Self::command) to the server on `port`.
    pub fn command_on(port: u16, cmd: &str) -> Option<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(3))).ok()?;
        stream.write_all(format!("{cmd}\r\n").as_bytes()).ok()?;
        let mut buf = [0u8; 256];
        let n = stream.read(&mut buf).ok()?;
        Some(String::from_utf8_lossy(&buf[..n]).lines().next()?.to_owned())
    }

    /// Kills the server now (as a crash would).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().ok();
            child.wait().ok();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
