use super::*;

const STACK: &str = r#"
[clients]
count = 100
[[service]]
name = "front"
[[service.call]]
to = "api"
[[service]]
name = "api"
[[service.call]]
to = "db"
[[service]]
name = "db"
"#;

fn errors(text: &str) -> Vec<FieldError> {
    check_fields(text, &[]).unwrap_err()
}

fn one(text: &str) -> FieldError {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:?}");
    e.into_iter().next().unwrap()
}

#[test]
fn a_string_for_an_integer_names_the_path_the_value_and_the_range() {
    let e = one(&STACK.replace("name = \"api\"", "name = \"api\"\nworkers = \"abc\""));
    assert_eq!(e.path, "service[1].workers");
    assert_eq!(e.message, "`service[1].workers` = \"abc\": must be an integer in [1, 100000]");
    assert!(!e.message.contains("invalid type"), "{}", e.message);
}

#[test]
fn a_bad_call_policy_is_at_its_call() {
    let text = STACK.replace("to = \"db\"", "to = \"db\"\npolicy = \"exponential:fctor=2\"");
    let e = one(&text);
    assert_eq!(e.path, "service[1].call[0].policy");
    assert!(
        e.message.starts_with("`service[1].call[0].policy`: ") && e.message.contains("fctor"),
        "{}",
        e.message
    );
    assert!(e.message.contains("must be a Rebound spec"), "{}", e.message);
}

#[test]
fn a_negative_duration_names_the_key_and_the_range() {
    let e = one("[clients]\ntimeout = \"-2s\"\n");
    assert_eq!(e.path, "clients.timeout");
    assert!(e.message.contains("`-2s`") && e.message.contains("a duration > 0"), "{}", e.message);
}

#[test]
fn zero_workers_is_located_at_its_service() {
    let e = one(&STACK.replace("name = \"db\"", "name = \"db\"\nworkers = 0"));
    assert_eq!(e.path, "service[2].workers");
    assert_eq!(
        e.message,
        "invalid `service[2].workers` = 0 (service `db`): must be an integer in [1, 100000]"
    );
}

#[test]
fn every_type_error_is_listed_and_unknown_keys_name_the_keys_there() {
    let text = "seed = \"x\"\n[clients]\ncount = -5\nthinktime = \"1s\"\n[outage]\nkind = \"boom\"\n";
    let e = errors(text);
    let paths: Vec<&str> = e.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["clients.count", "clients.thinktime", "outage.kind", "seed"], "{e:?}");
    assert!(e[0].message.contains("-5") && e[0].message.contains("[1, 10000000]"), "{}", e[0].message);
    assert!(
        e[1].message.starts_with("unknown key `clients.thinktime`: the keys here are count,"),
        "{}",
        e[1].message
    );
    assert!(e[2].message.contains("\"boom\": must be one of none, pause"), "{}", e[2].message);
}

#[test]
fn a_call_to_no_service_and_a_bad_request_policy_are_located() {
    let text = STACK.replace("to = \"db\"", "to = \"dbx\"");
    assert_eq!(one(&text).path, "service[1].call[0].to");
    let bad = "constant:base=100ms,max-retries=100000000".parse::<Spec>();
    if let Ok(bad) = bad {
        if crate::check_policy(&bad).is_err() {
            let e = check_fields("", &[bad]).unwrap_err();
            assert_eq!(e[0].path, "policies[0]", "{e:?}");
        }
    }
}

#[test]
fn the_cli_gives_the_same_plain_message() {
    let text = STACK.replace("name = \"api\"", "name = \"api\"\nworkers = \"abc\"");
    let e = Scenario::from_toml(&text).unwrap_err().to_string();
    assert_eq!(e, "bad scenario: `service[1].workers` = \"abc\": must be an integer in [1, 100000]");
    let syntax = Scenario::from_toml("[clients\n").unwrap_err().to_string();
    assert!(syntax.contains("line 1"), "{syntax}");
}

#[test]
fn a_good_scenario_reads_as_from_toml_reads_it() {
    let s = check_fields(STACK, &[]).unwrap();
    assert_eq!(s, Scenario::from_toml(STACK).unwrap());
}
