//! `rebound lab` in a real browser: headless Chromium driven through chromedriver (WebDriver).
//! Runs the default storm from the page, reads the verdicts and the chart, and checks that a bad
//! spec shows the library's error naming the key. Fails loudly when Chromium is missing:
//! `scripts/test.sh` installs Debian's `chromium` and `chromium-driver`.

mod lab_process;

use fantoccini::{Client, ClientBuilder, Locator};
use lab_process::Lab;
use rebound_testkit::{free_port, wait_ready};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// chromedriver on a free loopback port, killed (with the browsers it started) when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    fn start() -> Driver {
        for bin in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(bin).exists(),
                "{bin} is missing: ./scripts/test.sh installs Debian's chromium and chromium-driver"
            );
        }
        let port = free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let mut driver = Driver { child, port };
        if !wait_ready(port, Duration::from_secs(20), |_| true) {
            let _ = driver.child.kill();
            panic!("chromedriver did not listen on port {port} within 20 s");
        }
        driver.port = port;
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn browser(driver: &Driver, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1500",
    ];
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let caps = serde_json::json!({ "goog:chromeOptions": { "binary": CHROMIUM, "args": args } });
    let serde_json::Value::Object(caps) = caps else { unreachable!() };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a WebDriver session in headless Chromium")
}

/// Polls `check` every 100 ms until it returns `Some`, for at most `limit`.
async fn until<T, F: std::future::Future<Output = Option<T>>>(
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

async fn texts(c: &Client, css: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in c.find_all(Locator::Css(css)).await.unwrap_or_default() {
        out.push(e.text().await.unwrap_or_default());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_runs_the_default_storm_and_names_a_bad_specs_key() {
    let lab = Lab::start();
    let driver = Driver::start();
    let profile = std::env::temp_dir().join(format!("rebound-chromium-{}", std::process::id()));
    let c = browser(&driver, &profile).await;
    let outcome = drive(&c, &lab.url).await;
    let _ = c.close().await;
    let _ = std::fs::remove_dir_all(&profile);
    outcome.unwrap();
}

async fn drive(c: &Client, url: &str) -> Result<(), fantoccini::error::CmdError> {
    c.goto(url).await?;
    until(Duration::from_secs(20), "the seven default policies", || async {
        (c.find_all(Locator::Css("input.spec")).await.ok()?.len() == 7).then_some(())
    })
    .await;
    c.find(Locator::Id("run")).await?.click().await?;
    // The whole default storm: seven policies of 1000 clients for 120 s.
    until(Duration::from_secs(120), "a verdict for each of the seven policies", || async {
        (texts(c, ".run td.recovered").await.len() == 7).then_some(())
    })
    .await;
    let verdict = |policy: &'static str| async move {
        let css = format!(".run tr[data-policy=\"{policy}\"] td.recovered");
        c.find(Locator::Css(&css)).await.unwrap().text().await.unwrap()
    };
    assert_eq!(verdict("constant:base=100ms").await, "no", "fixed retries keep the server down");
    let s5 = "exponential:base=100ms,factor=2.71828,cap=5m,jitter=normal:100ms,jitter-after-cap=true";
    assert_eq!(verdict(s5).await, "yes", "S5's exponential backoff lets it recover");
    let lines = c.find_all(Locator::Css(".run figure:first-of-type svg path.series")).await?;
    assert_eq!(lines.len(), 7, "one line per policy in the goodput chart");
    c.execute("document.getElementById('results-h').scrollIntoView()", vec![]).await?;
    let png = c.screenshot().await?;
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lab.png");
    std::fs::write(&shot, &png).unwrap();
    if std::env::var_os("REBOUND_SCREENSHOT").is_some() {
        let dest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/img/lab.png");
        std::fs::write(dest, &png).unwrap();
    }
    // A bad spec: the library's own message, naming the key, appears as it is typed.
    c.find(Locator::Id("add-policy")).await?.click().await?;
    let inputs = c.find_all(Locator::Css("input.spec")).await?;
    inputs.last().unwrap().send_keys("exponential:base=10ms,fctor=2").await?;
    let message = until(Duration::from_secs(20), "the spec error", || async {
        texts(c, ".spec-error").await.into_iter().find(|t| !t.is_empty())
    })
    .await;
    assert!(message.contains("fctor"), "{message}");
    Ok(())
}
