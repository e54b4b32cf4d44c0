//! Helpers shared by the Redis tests.

/// Runs one command on the server at `url` (a separate, blocking connection).
pub fn query<T: redis::FromRedisValue>(url: &str, cmd: &mut redis::Cmd) -> T {
    let mut conn = redis::Client::open(url).unwrap().get_connection().unwrap();
    cmd.query(&mut conn).unwrap()
}

/// Makes the server hold every client's commands for `ms` milliseconds (a slow Redis).
pub fn pause(url: &str, ms: u64) {
    query::<()>(url, redis::cmd("CLIENT").arg("PAUSE").arg(ms).arg("ALL"));
}
