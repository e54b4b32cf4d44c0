//! `rebound completions` and `rebound man`: what an installed command needs.

use assert_cmd::Command;

fn rebound(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("rebound").unwrap().args(args).output().unwrap()
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for (shell, marker) in
        [("bash", "complete -F _rebound"), ("zsh", "#compdef rebound"), ("fish", "complete -c rebound")]
    {
        let out = rebound(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", String::from_utf8_lossy(&out.stderr));
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell}: no `{marker}`");
        for sub in ["storm", "sweep", "experiment", "completions", "man"] {
            assert!(script.contains(sub), "{shell}: subcommand {sub} missing");
        }
    }
}

#[test]
fn bash_accepts_the_completion_script() {
    let out = rebound(&["completions", "bash"]);
    let check = std::process::Command::new("bash")
        .args(["-n", "-c", &String::from_utf8(out.stdout).unwrap()])
        .output()
        .unwrap();
    assert!(check.status.success(), "bash -n: {}", String::from_utf8_lossy(&check.stderr));
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = rebound(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bash"), "lists the shells");
}

#[test]
fn man_prints_a_roff_page() {
    let out = rebound(&["man"]);
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH rebound 1"), "{page}");
    assert!(page.contains(".TH rebound 1"));
    assert!(page.contains(".SH NAME") && page.contains(".SH SUBCOMMANDS"));
    assert!(page.contains("rebound\\-storm(1)"), "lists the commands' pages");
}

#[test]
fn man_dir_writes_a_page_per_command() {
    let dir = std::env::temp_dir().join(format!("rebound-man-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = rebound(&["man", "--dir", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for page in ["rebound.1", "rebound-storm.1", "rebound-experiment-live.1", "rebound-man.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH"), "{page} is roff");
    }
    std::fs::remove_dir_all(&dir).ok();
    let out = rebound(&["man", "--dir", "/nonexistent/rebound-man"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--dir /nonexistent/rebound-man: not a directory"));
}
