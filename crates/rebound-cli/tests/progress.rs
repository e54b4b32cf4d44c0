//! Long runs (map, sweep, contend) draw a progress bar on a terminal only: piped, or with
//! `--json`, their output has no escape codes or carriage returns. `experiment live` uses the
//! same rule (`progress::bar`); its runs last minutes, so it is not run here.

use assert_cmd::Command;

/// Small but complete runs of the three commands.
const RUNS: [&[&str]; 3] = [
    &["map", "--durations", "2..4:2", "--loads", "60..80:20", "--policy", "constant:base=100ms"],
    &[
        "sweep",
        "--clients",
        "20..40:20",
        "--duration",
        "5s",
        "--warmup",
        "1s",
        "--policy",
        "constant:base=10ms",
    ],
    &["contend", "--clients", "5..10:5", "--runs", "3", "--policy", "full"],
];

fn clean(bytes: &[u8]) -> bool {
    !bytes.contains(&0x1b) && !bytes.contains(&b'\r')
}

#[test]
fn piped_output_has_no_progress_bar() {
    for args in RUNS {
        for json in [false, true] {
            let mut cmd = Command::cargo_bin("rebound").unwrap();
            cmd.args(args);
            if json {
                cmd.arg("--json");
            }
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert!(!out.stdout.is_empty(), "{args:?} printed its results");
            assert!(
                clean(&out.stdout) && clean(&out.stderr),
                "{args:?} json={json}: escape codes when piped"
            );
            assert!(
                out.stderr.is_empty(),
                "{args:?}: nothing on stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// Runs `rebound ARGS` under a pseudo-terminal (util-linux `script`) and returns all it wrote.
fn on_a_terminal(args: &[&str], json: bool) -> String {
    let exe = assert_cmd::cargo::cargo_bin("rebound");
    let mut line = format!("{} {}", exe.display(), args.join(" "));
    if json {
        line += " --json";
    }
    let out = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env("TERM", "xterm")
        .output()
        .expect("util-linux `script` runs commands under a pseudo-terminal");
    assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_terminal_sees_the_bar_unless_json() {
    // The map's bar reads "map [...] N/4 cells, ..." (2 durations x 2 loads).
    let text = on_a_terminal(RUNS[0], false);
    assert!(text.contains("/4 cells,"), "a bar on a terminal:\n{text}");
    assert!(text.contains('\x1b'), "drawn with escape codes:\n{text}");
    let json = on_a_terminal(RUNS[0], true);
    assert!(!json.contains("/4 cells,") && !json.contains('\x1b'), "no bar with --json:\n{json}");
    assert!(json.contains("\"policies\""), "the JSON itself:\n{json}");
}
