//! The page's "Recommend": the stack advisor (`rebound advise --scenario`, the same search:
//! [`rebound_sim::tune`]) on the page's stack, under the lab's bounds.
//!
//! Why here and not a run: a search is hundreds of runs, so it is bounded as a whole before it
//! starts — each run within the lab's caps ([`check_bounds`](crate::lab::bounds::check_bounds) on the current configuration,
//! [`BOUNDS`]`.cost` on the costliest candidate) and the whole search within
//! [`MAX_SEARCH_EVENTS`] estimated events — then it goes on a thread of its own, holding one
//! of the lab's slots of runs at once, until [`MAX_WALL_S`], a cancel (`DELETE`), or
//! [`BOUNDS`]`.max_unwatched_s` with nobody polling it. Progress is the runs done of the
//! plan's most; the answer is `advise --json`'s document with the page's draft and the
//! evidence series (see [`crate::advise_stack::lab`]).

mod request;

use super::api::{bad_request, json_response};
use super::bounds::BOUNDS;
use super::runs::Runs;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use rebound_sim::tune::{self, AdviseError};
use rebound_sim::{RunError, Stop};
use request::{parse, Asked};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most events a search in the lab may be estimated to process: 2e10, a fifth of the CLI's
/// [`tune::plan::MAX_SEARCH_EVENTS`]. The estimate takes every retry (the guide's three-tier
/// search with three incidents: 1.7e10 estimated, 1.5e8 processed, 46 s on two cores), so the
/// wall-clock bound [`MAX_WALL_S`] is what holds a search that is costly in fact.
pub const MAX_SEARCH_EVENTS: f64 = 2e10;
/// Wall-clock time a search may take in the lab, in seconds; past it the search fails.
pub const MAX_WALL_S: u64 = 300;
/// Finished searches kept for `GET /api/advise/{id}`.
const KEPT: usize = 16;

/// One search: its stop, progress, end, and when it was last polled.
#[derive(Debug)]
struct Search {
    stop: Stop,
    done: AtomicU64,
    at_most: u64,
    seen: Mutex<Instant>,
    why: Mutex<Option<String>>,
    end: Mutex<Option<Result<Arc<String>, String>>>,
}

/// The lab's searches.
#[derive(Debug)]
pub struct Advisor {
    next: AtomicUsize,
    searches: Mutex<BTreeMap<usize, Arc<Search>>>,
    runs: Arc<Runs>,
}

impl Advisor {
    /// No search yet; searches share `runs`' slots.
    pub fn new(runs: Arc<Runs>) -> Advisor {
        Advisor { next: AtomicUsize::new(0), searches: Mutex::default(), runs }
    }

    fn get(&self, id: usize) -> Option<Arc<Search>> {
        let s = self.searches.lock().unwrap_or_else(|e| e.into_inner()).get(&id)?.clone();
        *s.seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Some(s)
    }
}

/// The routes: `POST /api/advise`, `GET` and `DELETE /api/advise/{id}`.
pub fn router(advisor: Arc<Advisor>) -> Router {
    Router::new()
        .route("/api/advise", post(start))
        .route("/api/advise/{id}", get(status).delete(cancel))
        .with_state(advisor)
}

async fn start(State(advisor): State<Arc<Advisor>>, body: Bytes) -> Response {
    let (asked, plan) = match tokio::task::spawn_blocking(move || parse(&body)).await {
        Ok(Ok(p)) => p,
        Ok(Err(e)) => return bad_request(e),
        Err(e) => return bad_request(format!("the validation of the advise request failed: {e}")),
    };
    let slot = match advisor.runs.slot() {
        Ok(slot) => slot,
        Err(e) => return json_response(StatusCode::TOO_MANY_REQUESTS, &json!({ "error": e })),
    };
    let id = advisor.next.fetch_add(1, Ordering::SeqCst) + 1;
    let search = Arc::new(Search {
        stop: Stop::new().with_limits(&BOUNDS.cost).with_timeout(Duration::from_secs(MAX_WALL_S)),
        done: AtomicU64::new(0),
        at_most: plan.runs,
        seen: Mutex::new(Instant::now()),
        why: Mutex::new(None),
        end: Mutex::new(None),
    });
    {
        let mut all = advisor.searches.lock().unwrap_or_else(|e| e.into_inner());
        all.insert(id, search.clone());
        while all.len() > KEPT {
            all.pop_first();
        }
    }
    let (worker, dog) = (search.clone(), search);
    let spawned = std::thread::Builder::new().name(format!("lab-advise-{id}")).spawn(move || {
        let ended = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| execute(&asked, &worker)));
        let end = ended.unwrap_or_else(|_| Err("the search failed before its answer was ready".into()));
        // The slot is free before anyone can see the end (and start another search at once).
        drop(slot);
        *worker.end.lock().unwrap_or_else(|e| e.into_inner()) = Some(end);
    });
    if let Err(e) = spawned {
        return json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &json!({ "error": format!("cannot start a search: {e}") }),
        );
    }
    let _ = std::thread::Builder::new().name(format!("lab-advise-watch-{id}")).spawn(move || watchdog(&dog));
    json_response(
        StatusCode::ACCEPTED,
        &json!({ "id": id, "plan": plan, "status": format!("/api/advise/{id}") }),
    )
}

/// The search, then the page's document.
fn execute(asked: &Asked, search: &Search) -> Result<Arc<String>, String> {
    let req = asked.request();
    let (_, _, plan) = req.plan().map_err(|e| e.to_string())?;
    let started = Instant::now();
    let tick = || {
        search.done.fetch_add(1, Ordering::Relaxed);
    };
    let advice = tune::advise_with(&req, &tick, &search.stop).map_err(|e| match e {
        AdviseError::Run(RunError::Cancelled) => {
            search.why.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_else(|| "the search was cancelled".into())
        }
        AdviseError::Run(RunError::Deadline { after }) => format!(
            "the search passed the lab's wall-clock bound of {} s after {} of at most {} runs: fewer `advise.candidates`, \
             fewer runs per finalist, or `rebound advise --scenario` for big searches",
            after.as_secs(),
            search.done.load(Ordering::Relaxed),
            search.at_most
        ),
        e => format!("{e} (the lab's bound)"),
    })?;
    let doc =
        crate::advise_stack::lab::document(&asked.text, &asked.scenario, &advice, &plan, started.elapsed())
            .map_err(|e| format!("{e:#}"))?;
    Ok(Arc::new(doc.to_string()))
}

/// Cancels the search once nobody has polled it for [`BOUNDS`]`.max_unwatched_s`.
fn watchdog(search: &Search) {
    let idle = Duration::from_secs(BOUNDS.max_unwatched_s);
    while search.end.lock().unwrap_or_else(|e| e.into_inner()).is_none() {
        std::thread::sleep(Duration::from_millis(200));
        if search.seen.lock().unwrap_or_else(|e| e.into_inner()).elapsed() > idle {
            cancel_search(
                search,
                format!("the search was stopped: nobody polled it for {} s", idle.as_secs()),
            );
        }
    }
}

fn cancel_search(search: &Search, why: String) {
    search.why.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(why);
    search.stop.cancel();
}

fn search_id(id: &str) -> Result<usize, Box<Response>> {
    id.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(|| {
        Box::new(bad_request(format!(
            "invalid search id `{id}`: must be a positive integer, as POST /api/advise answered"
        )))
    })
}

fn not_found(id: usize) -> Response {
    json_response(StatusCode::NOT_FOUND, &json!({ "error": format!("no search {id}") }))
}

async fn status(State(advisor): State<Arc<Advisor>>, Path(id): Path<String>) -> Response {
    let id = match search_id(&id) {
        Ok(id) => id,
        Err(r) => return *r,
    };
    let Some(s) = advisor.get(id) else { return not_found(id) };
    let end = s.end.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match end {
        Some(Ok(doc)) => axum::response::IntoResponse::into_response((
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            doc.as_str().to_string(),
        )),
        Some(Err(e)) => json_response(StatusCode::UNPROCESSABLE_ENTITY, &json!({ "error": e })),
        None => json_response(
            StatusCode::ACCEPTED,
            &json!({ "status": "running", "runs": s.done.load(Ordering::Relaxed), "runs_at_most": s.at_most }),
        ),
    }
}

async fn cancel(State(advisor): State<Arc<Advisor>>, Path(id): Path<String>) -> Response {
    let id = match search_id(&id) {
        Ok(id) => id,
        Err(r) => return *r,
    };
    let Some(s) = advisor.get(id) else { return not_found(id) };
    if s.end.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
        return json_response(StatusCode::CONFLICT, &json!({ "error": format!("search {id} has ended") }));
    }
    cancel_search(&s, format!("the search was cancelled (DELETE /api/advise/{id})"));
    json_response(StatusCode::ACCEPTED, &json!({ "id": id, "status": "cancelling" }))
}
