//! The blocking path's background sender: a thread with its own single-threaded tokio runtime
//! and Redis connection that carries the changes made by `record_failure`/`record_success` to
//! Redis, several at a time (their sum in one script call), and brings back the fleet's count.
//! The thread ends when the budget is dropped.

use crate::shared::Shared;
use crate::store::{BucketConfig, RedisBucket};
use std::sync::Arc;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// Starts the sender; `None` if no thread or runtime could be made (then the blocking path
/// stays local, as when Redis is down).
pub(crate) fn spawn(shared: Arc<Shared>, config: BucketConfig) -> Option<UnboundedSender<i64>> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    let (tx, rx) = unbounded_channel();
    std::thread::Builder::new()
        .name("rebound-redis-sender".into())
        .spawn(move || runtime.block_on(run(&shared, RedisBucket::new(config), rx)))
        .ok()?;
    Some(tx)
}

async fn run(shared: &Shared, bucket: RedisBucket, mut rx: UnboundedReceiver<i64>) {
    while let Some(mut delta) = rx.recv().await {
        while let Ok(more) = rx.try_recv() {
            delta = delta.saturating_add(more);
        }
        if !shared.health.should_try() {
            shared.dropped(delta);
            continue;
        }
        match bucket.add(delta).await {
            Ok(tokens) => {
                shared.health.mark_up();
                shared.confirmed(tokens, delta);
            }
            Err(why) => {
                shared.health.mark_down(&why);
                shared.dropped(delta);
            }
        }
    }
}
