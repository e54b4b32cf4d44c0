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
        Lab::start_with(&[])
    }

    /// [`Lab::start`] with more arguments to `rebound lab`.
    pub fn start_with(args: &[&str]) -> Lab {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("rebound"))
            .args(["lab", "--listen", "127.0.0.1:0"])
            .args(args)
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

impl Lab {
    /// The lab's process id.
    #[allow(dead_code)] // the memory test
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU time (user + system) the lab process has used, read from `/proc/PID/stat`.
    #[allow(dead_code)] // the browser tests' cancel check
    pub fn cpu(&self) -> std::time::Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // Fields after the command name (which may hold spaces) start after the last ')'.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<u64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0)).collect();
        // utime and stime are fields 14 and 15 (1-based); here 12 and 13 (0-based, state first).
        let ticks = f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
        std::time::Duration::from_millis(ticks * 10) // USER_HZ = 100 on Linux
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls a run's result endpoint until it is no longer 202 (bounded: 60 s): its status and body.
#[allow(dead_code)] // tests that only start runs
pub async fn result(url: &str) -> (u16, String) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let r = reqwest::get(url).await.unwrap();
        let status = r.status().as_u16();
        let text = r.text().await.unwrap();
        if status != 202 || std::time::Instant::now() > deadline {
            return (status, text);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
