//! `rebound exec -- curl -fsS URL` against a real nginx that answers 429 until its rate allows.

use assert_cmd::Command;
use rebound_testkit::{Nginx, RateLimit};

#[test]
fn exec_curl_gets_through_a_rate_limiter_after_retries() {
    let curl =
        ["/usr/bin/curl", "/usr/local/bin/curl"].into_iter().find(|p| std::path::Path::new(p).exists());
    let curl = curl.expect("curl is missing: scripts/test.sh installs the Debian package `curl`");
    // 1r/s: the token spent below comes back a second later, so rebound and curl have a whole
    // second (not half of one) to start on a loaded machine.
    let nginx = Nginx::start(RateLimit { per_second: 1, burst: 0, retry_after_s: 1 });
    // Spend the current token, so that the first attempt below is refused.
    let first = std::process::Command::new(curl).args(["-fsS", &nginx.url()]).output().unwrap();
    assert!(first.status.success());
    let out = Command::cargo_bin("rebound")
        .unwrap()
        .args(["exec", "--policy", "constant:base=200ms,max-retries=10", "--", curl, "-fsS", &nginx.url()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("hello from nginx"));
    // curl -f exits 22 on an HTTP error such as 429.
    assert!(stderr.contains("attempt 1 failed (exit status 22)"), "{stderr}");
    // The first curl, one 429 at least, then the 200.
    let statuses = nginx.statuses_at_least(3);
    assert!(statuses.contains(&429) && statuses.iter().filter(|&&s| s == 200).count() == 2, "{statuses:?}");
}
