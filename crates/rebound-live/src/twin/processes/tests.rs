use super::*;

fn stack() -> Scenario {
    Scenario::from_toml(
        "[[service]]\nname = \"front\"\nservice_time = \"constant:1ms\"\n[[service.call]]\nto = \"api\"\n\
         [[service]]\nname = \"api\"\nreplicas = 2\nservice_time = \"constant:1ms\"\n[[service.call]]\nto = \"db\"\n\
         [[service]]\nname = \"db\"\nservice_time = \"constant:1ms\"\n",
    )
    .unwrap()
}

#[test]
fn callees_start_first() {
    assert_eq!(callees_first(&stack()), vec![2, 1, 0]);
}

fn script(dir: &std::path::Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake-rebound");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn peers_passed_and_a_child_that_dies_early_is_named() {
    let dir = std::env::temp_dir().join(format!("rebound-twin-processes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A fake service: prints its arguments' peers in its URL's path and waits for stdin EOF.
    let fake = script(&dir, "echo \"listening on http://127.0.0.1:1/$$\"; echo \"$@\" >&2; cat >/dev/null");
    let launch = Launch { exe: fake, scenario_file: dir.join("s.toml"), seed: 7, traces: None };
    let procs = start(&stack(), &launch).unwrap();
    let labels: Vec<_> = procs.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, vec!["db", "api[0]", "api[1]", "front"]);
    let front = &procs[3];
    let args = (0..100)
        .find_map(|_| {
            std::thread::sleep(Duration::from_millis(20));
            Some(front.stderr_tail()).filter(|t| t.contains("--peer"))
        })
        .unwrap();
    let api = |i: usize| format!("--peer api={}", procs[1 + i].url);
    assert!(args.contains(&format!("{} {}", api(0), api(1))), "{args}");
    assert!(args.contains("--seed 10") && args.contains("--service front"), "{args}");
    let pids: Vec<Pid> = procs.iter().map(|p| p.pid).collect();
    drop(procs);
    for pid in pids {
        assert!(kill(pid, None).is_err(), "{pid} reaped");
    }
    let dying = script(&dir, "echo 'error: --peer db: missing' >&2; exit 2");
    let err = start(&stack(), &Launch { exe: dying, ..launch }).unwrap_err().to_string();
    assert!(err.contains("db") && err.contains("exit status: 2") && err.contains("missing"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
