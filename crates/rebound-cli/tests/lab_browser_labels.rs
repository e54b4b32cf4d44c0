//! `rebound lab` in a real browser (headless Chromium through chromedriver): labels a person can
//! trust. Two runs compared show both values and the difference (with intervals from
//! replications) per policy and per service; an edited stack is titled as edited and loses its
//! unused `[server]` table; charts list every policy and export with a title, the scenario,
//! axis units and the full legend; at a phone's 390 px the stack graph runs top to bottom.

mod browser;

use browser::{until, Session, ONE_AT_A_TIME};
use std::time::Duration;

const RUN: Duration = Duration::from_secs(120);

/// Replaces the TOML box's text as a user's paste would.
async fn set_toml(s: &Session, text: &str) {
    let script = format!(
        "const t = document.getElementById('toml'); t.focus(); t.value = {}; t.dispatchEvent(new Event('input'))",
        serde_json::to_string(text).unwrap()
    );
    s.js(&script).await;
}

/// A two-tier stack, cheap enough for replications in seconds: `seed` and `policies` vary.
fn two_tier(seed: u64) -> String {
    format!(
        r#"seed = {seed}
duration = "40s"
policies = ["constant:base=100ms,max-retries=5", "exponential:base=50ms,factor=2,jitter=full,max-retries=3"]
[clients]
count = 200
think = "1s"
[[service]]
name = "api"
workers = 16
[[service.call]]
to = "db"
policy = "constant:base=20ms,max-retries=2"
[[service]]
name = "db"
workers = 8
[outage]
service = "db"
kind = "hard-down"
start = "10s"
end = "20s"
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_shows_a_b_and_the_difference_with_intervals_per_policy_and_service() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = Session::start("labels-compare", 1280).await;
    s.type_into("#runs", "3").await;
    for seed in [1, 10] {
        set_toml(&s, &two_tier(seed)).await;
        until(Duration::from_secs(5), "the policies to follow the TOML", || async {
            (s.texts("input.policy").await.len() == 2).then_some(())
        })
        .await;
        run_or_busy!(s, RUN);
    }
    // With replications the summary says which figures are means and which are run 0's.
    let head = s.texts(".run table.summary thead th").await.join(" | ");
    assert!(head.contains("P(recover), 95 % interval") && head.contains("gave up (run 0)"), "{head}");
    let caption = s.texts(".run table.amplification caption").await.concat();
    assert!(caption.contains("(run 0)"), "{caption}");
    for pick in s.c.find_all(fantoccini::Locator::Css("#history input[type=checkbox]")).await.unwrap() {
        pick.click().await.unwrap();
    }
    s.el("#compare").await.click().await.unwrap();
    let seed = until(Duration::from_secs(10), "the comparison table", || async {
        s.texts("table.diff tr.seed").await.into_iter().next()
    })
    .await;
    assert!(seed.contains("10–12 (3 runs)") && seed.contains("1–3 (3 runs)"), "the seeds: {seed}");
    let row = |css: String| {
        let s = &s;
        async move {
            let cells = s.texts(&format!("{css} td")).await;
            assert_eq!(cells.len(), 3, "{css}: A | B | difference: {cells:?}");
            cells
        }
    };
    let policy = "tr[data-policy='exponential:base=50ms,factor=2,jitter=full,max-retries=3']";
    let p = row(format!("table.diff {policy}[data-metric='P(recover)']")).await;
    assert!(
        p[0].contains('%') && p[0].contains('–') && p[1].contains('%'),
        "both values with intervals: {p:?}"
    );
    assert!(p[2].contains("pts (") && p[2].contains(" to "), "the difference with its interval: {p:?}");
    let a = row(format!("table.diff {policy}[data-metric='attempts per request']")).await;
    assert!(a.iter().all(|c| c.chars().any(|ch| ch.is_ascii_digit())), "{a:?}");
    assert!(a[0].contains('(') && a[2].contains(" to "), "means with intervals and their difference: {a:?}");
    let amp = row(format!("table.diff {policy}[data-service='db']")).await;
    assert!(amp[0].contains("(run 0)") && amp[2].chars().any(|c| c.is_ascii_digit()), "{amp:?}");
    let cells = s.texts("table.diff td").await;
    assert!(cells.iter().all(|c| !c.contains('[') && !c.contains('{')), "no JSON in cells: {cells:?}");
    let width = s.js("return document.querySelector('table.diff').getBoundingClientRect().right").await;
    assert!(width.as_f64().unwrap() <= 1280.0, "A and B on screen: the table ends at {width} px");
    s.screenshot("lab-compare-table.png").await;
    s.close().await;
}

/// The downloaded file `name` once complete.
async fn downloaded(s: &Session, name: &str) -> Vec<u8> {
    let path = s.downloads.join(name);
    until(Duration::from_secs(20), name, || async { std::fs::read(&path).ok().filter(|b| !b.is_empty()) })
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_stack_is_titled_as_edited_and_its_charts_carry_every_label() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = Session::start("labels-title", 1280).await;
    let title = || async { s.texts("#stack-title").await.concat() };
    assert_eq!(title().await, "S5's storm: server paused 15-45 s");
    s.el("#add-service").await.click().await.unwrap();
    let edited = until(Duration::from_secs(5), "the title to follow the edit", || async {
        let t = title().await;
        t.starts_with("1 service").then_some(t)
    })
    .await;
    assert!(edited.ends_with("paused 15s–45s") && !edited.contains("S5's storm"), "{edited}");
    let toml = s.js("return document.getElementById('toml').value").await;
    assert!(!toml.as_str().unwrap().contains("[server]"), "the unused [server] table dropped: {toml}");
    s.type_into("#f-clients-count", "100").await;
    s.type_into("#f-duration", "60s").await;
    run_or_busy!(s, RUN);
    let heading = s.texts(".run h3").await.concat();
    assert!(heading.contains(&edited), "the run is titled as edited: {heading}");
    assert!(s.texts("svg.graph.vertical").await.is_empty(), "left to right at 1280 px");
    // Every one of the 7 policies in each chart's legend (a list, not pages).
    let legends = s.js("return [...document.querySelectorAll('#charts figure.chart')].map(f => f.querySelectorAll('ul.legend li').length)").await;
    let legends: Vec<u64> = legends.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert!(!legends.is_empty() && legends.iter().all(|n| *n == 7), "{legends:?}");
    // The tooltip's time has its unit.
    let tip = "const p = document.querySelector('#charts figure.chart .plot'); p.focus(); \
               const key = (k) => p.dispatchEvent(new KeyboardEvent('keydown', {key: k})); \
               for (let i = 0; i < 10; i++) key('PageDown'); \
               for (let i = 0; i < 5; i++) key('ArrowRight'); \
               return p.innerText";
    let tip = until(Duration::from_secs(5), "the tooltip", || async {
        let t = s.js(tip).await.as_str().unwrap_or("").to_string();
        t.contains("t = ").then_some(t)
    })
    .await;
    assert!(tip.contains("t = 6 s"), "{tip}");
    s.el("#charts figure.chart .export-svg").await.click().await.unwrap();
    s.el("#charts figure.chart .export-png").await.click().await.unwrap();
    let svg = String::from_utf8(downloaded(&s, "rebound-goodput.svg").await).unwrap();
    std::fs::write(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lab-export.svg"), &svg).unwrap();
    let specs = s.js("return [...document.querySelectorAll('input.policy')].map(i => i.value)").await;
    for text in ["Goodput", "OK requests/s", "simulated time (s)", &format!("scenario: {edited}")] {
        assert!(svg.contains(&format!(">{text}<")), "the SVG's text has {text:?}");
    }
    for spec in specs.as_array().unwrap() {
        assert!(svg.contains(spec.as_str().unwrap()), "the full legend has {spec}");
    }
    // The PNG is that figure: its height (IHDR) is twice the SVG's, legend included.
    let png = downloaded(&s, "rebound-goodput.png").await;
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let png_height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    let svg_height: u32 = svg.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    assert_eq!(png_height, 2 * svg_height);
    assert!(svg_height > 300 + 7 * 18, "room for the title, the plot and 7 legend lines: {svg_height}");
    s.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_390_px_the_stack_graph_runs_top_to_bottom() {
    let _one = ONE_AT_A_TIME.lock().await;
    let s = Session::start("labels-phone", 390).await;
    s.builtin("Three tiers, every layer").await;
    let geometry = "return ['users', 'front', 'api', 'db'].map(n => { \
        const r = document.querySelector(`svg.graph g.node[data-name='${n}'] rect`).getBoundingClientRect(); \
        return [r.left, r.top, r.width, r.height]; })";
    let boxes = until(Duration::from_secs(5), "the vertical graph", || async {
        s.el("svg.graph.vertical").await;
        s.js(geometry).await.as_array().cloned()
    })
    .await;
    let boxes: Vec<Vec<f64>> =
        boxes.iter().map(|b| b.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()).collect();
    for pair in boxes.windows(2) {
        assert!(pair[1][1] >= pair[0][1] + pair[0][3], "each tier below the one that calls it: {boxes:?}");
    }
    let inner = s.js("return window.innerWidth").await.as_f64().unwrap();
    assert_eq!(inner, 390.0, "a phone's width");
    for b in &boxes {
        assert!(b[0] >= 0.0 && b[0] + b[2] <= inner, "inside the {inner} px screen: {boxes:?}");
        assert!(b[2] >= 100.0, "readable: a box {} px wide", b[2]);
    }
    s.screenshot("lab-390.png").await;
    s.close().await;
}
