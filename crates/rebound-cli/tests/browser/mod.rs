//! Headless Chromium driven through chromedriver (WebDriver, fantoccini) against a `rebound lab`
//! child: the harness of the lab's browser tests. Every wait is a bounded poll; tests take a
//! lock so that one Chromium runs at a time (the flows stay fast on a loaded machine).

#![allow(dead_code)]

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use rebound_testkit::{free_port, wait_ready};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../lab_process/mod.rs"]
pub mod lab_process;
pub use lab_process::Lab;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// One browser test at a time in this test binary.
pub static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// chromedriver on a free loopback port, killed (with the browsers it started) when dropped.
pub struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    /// Starts chromedriver; panics with the fix when Chromium is missing.
    pub fn start() -> Driver {
        for bin in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(bin).exists(),
                "{bin} is missing: ./scripts/test.sh installs Debian's chromium and chromium-driver"
            );
        }
        let port = free_port();
        // A process group of its own: the Chromium it starts joins it, and the whole group goes
        // on drop (killing chromedriver alone leaves its browsers running, e.g. after a panic).
        let child = Command::new(CHROMEDRIVER)
            .process_group(0)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let driver = Driver { child, port };
        if !wait_ready(port, Duration::from_secs(20), |_| true) {
            drop(driver);
            panic!("chromedriver did not listen on port {port} within 20 s");
        }
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let group = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// A lab, a driver and a headless Chromium with a fresh profile and download directory.
pub struct Session {
    pub c: Client,
    pub lab: Lab,
    pub downloads: PathBuf,
    profile: PathBuf,
    _driver: Driver,
}

impl Session {
    /// Everything started, the page loaded and ready, the window `width` px wide.
    pub async fn start(name: &str, width: u32) -> Session {
        let lab = Lab::start();
        let driver = Driver::start();
        let dir = std::env::temp_dir().join(format!("rebound-browser-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (profile, downloads) = (dir.join("profile"), dir.join("downloads"));
        std::fs::create_dir_all(&downloads).unwrap();
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ];
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        args.push(format!("--window-size={width},1400"));
        let mut caps = serde_json::json!({ "goog:chromeOptions": { "binary": CHROMIUM, "args": args, "prefs": {
            "download.default_directory": downloads.display().to_string(),
            "download.prompt_for_download": false,
        } } });
        if width < 500 {
            // Chromium's windows are at least 500 px wide: a phone's width is emulated.
            caps["goog:chromeOptions"]["mobileEmulation"] =
                serde_json::json!({ "deviceMetrics": { "width": width, "height": 1400, "pixelRatio": 1.0 } });
        }
        let serde_json::Value::Object(caps) = caps else { unreachable!() };
        let c = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", driver.port))
            .await
            .expect("a WebDriver session in headless Chromium");
        let s = Session { c, lab, downloads, profile: dir, _driver: driver };
        s.open(&s.lab.url.clone()).await;
        s
    }

    /// Loads `url` and waits for the page to be ready.
    pub async fn open(&self, url: &str) {
        self.c.goto(url).await.unwrap();
        self.ready().await;
    }

    /// Waits for the page's `data-ready`.
    pub async fn ready(&self) {
        until(Duration::from_secs(20), "the page to load its defaults", || async {
            let v = self.c.execute("return document.body.dataset.ready || ''", vec![]).await.ok()?;
            (v == "true").then_some(())
        })
        .await;
    }

    /// The element `css` (waiting up to 10 s for it).
    pub async fn el(&self, css: &str) -> Element {
        until(Duration::from_secs(10), css, || async { self.c.find(Locator::Css(css)).await.ok() }).await
    }

    /// Clears the input `css` and types `text` (an input event per key, as a user does).
    pub async fn type_into(&self, css: &str, text: &str) {
        let e = self.el(css).await;
        e.clear().await.unwrap();
        e.send_keys(text).await.unwrap();
    }

    /// Picks the built-in scenario whose name contains `name`.
    pub async fn builtin(&self, name: &str) {
        let options = self.c.find_all(Locator::Css("#builtin option")).await.unwrap();
        for o in options {
            if o.text().await.unwrap().contains(name) {
                o.click().await.unwrap();
                return;
            }
        }
        panic!("no built-in scenario named like {name:?}");
    }

    /// Clicks Run and waits (up to `limit`) for the run to finish: the status line, or
    /// `Err(why)` when the lab refused or stopped the run for this machine's speed ([`busy`]);
    /// any other error fails the test. Tests call it through [`run_or_busy!`].
    pub async fn try_run(&self, limit: Duration) -> Result<String, String> {
        let before = self.js("return document.getElementById('status').textContent").await;
        self.el("#run").await.click().await.unwrap();
        until(limit, "the run to finish", || async {
            let status = self.js("return document.getElementById('status').textContent").await;
            let error = self.js("return document.getElementById('run-error').textContent").await;
            let error = error.as_str().unwrap_or("");
            if let Some(why) = busy(error) {
                return Some(Err(why));
            }
            assert!(error.is_empty(), "the run failed: {error}");
            (status != before && status.as_str()?.contains("done"))
                .then(|| Ok(status.as_str().unwrap().to_string()))
        })
        .await
    }

    /// Runs `script` in the page.
    pub async fn js(&self, script: &str) -> serde_json::Value {
        self.c.execute(script, vec![]).await.unwrap()
    }

    /// The texts of the elements `css`.
    pub async fn texts(&self, css: &str) -> Vec<String> {
        let mut out = Vec::new();
        for e in self.c.find_all(Locator::Css(css)).await.unwrap_or_default() {
            out.push(e.text().await.unwrap_or_default());
        }
        out
    }

    /// A screenshot to the test's temporary directory, and to `docs/img/NAME` when
    /// REBOUND_SCREENSHOT is set (the guide's images in docs/img come from here).
    pub async fn screenshot(&self, name: &str) {
        let png = self.c.screenshot().await.unwrap();
        std::fs::write(Path::new(env!("CARGO_TARGET_TMPDIR")).join(name), &png).unwrap();
        if std::env::var_os("REBOUND_SCREENSHOT").is_some() {
            std::fs::write(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/img").join(name), &png)
                .unwrap();
        }
    }

    /// Closes the browser and removes its profile.
    pub async fn close(self) {
        let _ = self.c.clone().close().await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// The lab's own words when this machine is too slow for a run the test expects to finish (a
/// run helper's caller never provokes a refusal): refused before it starts as "this run would
/// take about 80 s on this machine (… at 0.2 million events/s a core): past the lab's
/// wall-clock bound of 60 s" (its speed measured on a loaded machine), or stopped inside as
/// "the run passed the lab's wall-clock bound of 60 s". The line that says so, else `None`.
pub fn busy(error: &str) -> Option<String> {
    error
        .lines()
        .find(|l| {
            (l.contains("s on this machine (") && l.contains("past the lab's wall-clock bound"))
                || l.contains("passed the lab's wall-clock bound")
        })
        .map(str::to_string)
}

/// Runs the scenario as [`Session::try_run`] does; when this machine is too slow for it (the
/// project's rule: a live test on a busy machine measures the machine, detects it and says
/// so, never fails on it) says "machine too busy: …" on stderr, closes the session and ends
/// the test, passing. Else the status line.
#[macro_export]
macro_rules! run_or_busy {
    ($s:ident, $limit:expr) => {
        match $s.try_run($limit).await {
            Ok(status) => status,
            Err(why) => {
                eprintln!("machine too busy: {why}: not judged");
                $s.close().await;
                return;
            }
        }
    };
}

/// Polls `check` every 100 ms until it returns `Some`, for at most `limit`.
pub async fn until<T, F: std::future::Future<Output = Option<T>>>(
    limit: Duration,
    what: &str,
    mut check: impl FnMut() -> F,
) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out after {limit:?} waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
