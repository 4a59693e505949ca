//! The servers a run's requests go to. With one server this is its client
//! and nothing else (no lock, no bookkeeping on the hot path). With several,
//! each request takes a slot on the server with the most free slots (each
//! server has as many as its concurrency), a server that refuses connections
//! or fails several requests in a row is taken out for a while (its requests
//! go to the others) and tried again when the while is over.

use crate::provider::{AnswerPath, Client, ProviderError, server_label, url::shown};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// Requests in a row that failed after the client's own retries before a
/// server is taken out (a refused connection takes it out at once).
const FAILURES_IN_A_ROW: u32 = 3;
/// How long a server is out the first time (unless the run says otherwise);
/// each time again doubles it.
pub const FIRST_TIME_OUT: Duration = Duration::from_secs(30);
const LONGEST_TIME_OUT: Duration = Duration::from_secs(600);
/// How often a request waiting for a slot looks again when none is freed
/// (a server taken out may be back by then).
const SLOT_WAIT: Duration = Duration::from_millis(250);

/// One server: its client and the name verdicts record.
pub(super) struct Server {
    pub client: Client,
    /// The base URL without credentials or query (stored, exported).
    pub label: Arc<str>,
    /// Requests it takes at once.
    capacity: usize,
}

#[derive(Default, Clone)]
struct Health {
    in_flight: usize,
    failures_in_a_row: u32,
    /// Out of the run until then.
    out_until: Option<Instant>,
    /// Times taken out so far (each doubles the next time out).
    times_out: u32,
    /// Why it was last taken out.
    why: String,
    requests: u64,
    /// How its answers came back: what `--structured auto` remembers for it.
    paths: HashMap<AnswerPath, u64>,
}

pub(super) struct Servers {
    list: Vec<Server>,
    health: Mutex<Vec<Health>>,
    freed: Notify,
    /// How long a server is out the first time.
    first_time_out: Duration,
}

/// What became of a server after a request failed there.
pub(super) enum AfterFailure {
    /// Still in the run.
    Kept,
    /// Taken out; others are left. The text says so.
    TakenOut(String),
    /// Taken out, and no server is left: the text names them all.
    NoneLeft(String),
}

impl Servers {
    pub fn new(list: Vec<Server>) -> Servers {
        let health = Mutex::new(vec![Health::default(); list.len()]);
        Servers {
            list,
            health,
            freed: Notify::new(),
            first_time_out: FIRST_TIME_OUT,
        }
    }

    /// A server taken out stays out `first` the first time (twice that the
    /// next, and so on).
    pub fn with_time_out(mut self, first: Duration) -> Servers {
        self.first_time_out = first.max(Duration::from_millis(1));
        self
    }

    /// Each server's client and how its answers came back (several
    /// servers only; one server's are the run's own).
    pub fn paths(&self) -> Vec<(&Client, HashMap<AnswerPath, u64>)> {
        let health = lock(&self.health);
        self.list
            .iter()
            .zip(health.iter())
            .map(|(s, h)| (&s.client, h.paths.clone()))
            .collect()
    }

    /// A server of `client`, taking `capacity` requests at once.
    pub fn server(client: Client, capacity: usize) -> Server {
        Server {
            label: server_label(&client.config().base_url).into(),
            client,
            capacity: capacity.max(1),
        }
    }

    /// More than one: requests are spread and servers may be taken out.
    pub fn several(&self) -> bool {
        self.list.len() > 1
    }

    /// The first server's client: the run's key, model and settings (the
    /// same for all servers).
    pub fn first(&self) -> &Client {
        &self.list[0].client
    }

    pub fn all(&self) -> impl Iterator<Item = &Server> {
        self.list.iter()
    }

    /// Requests in flight at once over all servers (one server given as
    /// `URL#N` takes N, else the run's concurrency).
    pub fn capacity(&self) -> usize {
        self.list.iter().map(|s| s.capacity).sum()
    }

    /// The first server's place, taking no slot: for an answer that came by
    /// another way than a request of this run (a line of a batch's output
    /// file), recorded as the first server's.
    pub fn first_place(&self) -> Lease<'_> {
        Lease {
            servers: self,
            index: 0,
            held: AtomicBool::new(false),
        }
    }

    /// A slot on the server with the most free slots, waiting for one when
    /// all are taken; `None` when every server is out.
    pub async fn acquire(&self) -> Option<Lease<'_>> {
        if !self.several() {
            return Some(Lease {
                servers: self,
                index: 0,
                held: AtomicBool::new(false),
            });
        }
        loop {
            let notified = self.freed.notified();
            match self.try_acquire() {
                Ok(index) => {
                    return Some(Lease {
                        servers: self,
                        index,
                        held: AtomicBool::new(true),
                    });
                }
                Err(false) => return None,
                Err(true) => {
                    let _ = tokio::time::timeout(SLOT_WAIT, notified).await;
                }
            }
        }
    }

    /// `Err(true)`: every server in the run is busy; `Err(false)`: none is in it.
    fn try_acquire(&self) -> Result<usize, bool> {
        let now = Instant::now();
        let mut health = lock(&self.health);
        let mut best: Option<(usize, usize)> = None;
        let mut any_in = false;
        for (i, (s, h)) in self.list.iter().zip(health.iter()).enumerate() {
            if h.out_until.is_some_and(|t| now < t) {
                continue;
            }
            any_in = true;
            let free = s.capacity.saturating_sub(h.in_flight);
            if free > 0 && best.is_none_or(|(_, f)| free > f) {
                best = Some((i, free));
            }
        }
        match best {
            Some((i, _)) => {
                health[i].in_flight += 1;
                health[i].requests += 1;
                Ok(i)
            }
            None => Err(any_in),
        }
    }

    /// The servers and their requests, for the run's record:
    /// `http://a/v1: 120 requests, http://b/v1: 40 requests (taken out once)`.
    pub fn summary(&self) -> String {
        let health = lock(&self.health);
        self.list
            .iter()
            .zip(health.iter())
            .map(|(s, h)| {
                let out = match h.times_out {
                    0 => String::new(),
                    1 => " (taken out once)".into(),
                    n => format!(" (taken out {n} times)"),
                };
                format!(
                    "{}: {} request{}{out}",
                    s.label,
                    h.requests,
                    if h.requests == 1 { "" } else { "s" }
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A request's slot on one server, given back on drop.
pub(super) struct Lease<'s> {
    servers: &'s Servers,
    index: usize,
    /// The slot is still taken (one server: there are no slots).
    held: AtomicBool,
}

impl Lease<'_> {
    pub fn server(&self) -> &Server {
        &self.servers.list[self.index]
    }

    pub fn client(&self) -> &Client {
        &self.server().client
    }

    /// The server answered by `path`: its failures in a row start again
    /// from none, and the path is counted for it.
    pub fn answered(&self, path: AnswerPath) {
        if self.servers.several() {
            let mut health = lock(&self.servers.health);
            let h = &mut health[self.index];
            h.failures_in_a_row = 0;
            *h.paths.entry(path).or_insert(0) += 1;
        }
    }

    /// A request failed here with `e`: a refused connection takes the server
    /// out at once, other failures after [`FAILURES_IN_A_ROW`] in a row.
    pub fn failed(&self, e: &ProviderError) -> AfterFailure {
        if !self.servers.several() {
            return AfterFailure::Kept;
        }
        let now = Instant::now();
        let mut health = lock(&self.servers.health);
        let h = &mut health[self.index];
        if h.out_until.is_some_and(|t| now < t) {
            // Another request already took it out.
            return AfterFailure::Kept;
        }
        h.failures_in_a_row += 1;
        // A server that redirects off its origin answers nothing: out at once.
        let refused = matches!(
            e,
            ProviderError::Unreachable { .. } | ProviderError::Redirected { .. }
        );
        if !refused && h.failures_in_a_row < FAILURES_IN_A_ROW {
            return AfterFailure::Kept;
        }
        let time_out = self
            .servers
            .first_time_out
            .saturating_mul(1 << h.times_out.min(10))
            .min(LONGEST_TIME_OUT);
        h.times_out += 1;
        h.failures_in_a_row = 0;
        h.out_until = Some(now + time_out);
        h.why = if refused {
            e.to_string()
        } else {
            format!("{FAILURES_IN_A_ROW} requests in a row failed, the last: {e}")
        };
        let name = shown(&self.server().client.config().base_url);
        let left: Vec<usize> = (0..health.len())
            .filter(|&i| health[i].out_until.is_none_or(|t| now >= t))
            .collect();
        if left.is_empty() {
            let all: Vec<String> = self
                .servers
                .list
                .iter()
                .zip(health.iter())
                .map(|(s, h)| format!("{} ({})", shown(&s.client.config().base_url), h.why))
                .collect();
            return AfterFailure::NoneLeft(format!("every server is out: {}", all.join("; ")));
        }
        AfterFailure::TakenOut(format!(
            "took {name} out of the run for {}; its requests go to the {} other server{} and it is tried again after that: {}",
            seconds(time_out),
            left.len(),
            if left.len() == 1 { "" } else { "s" },
            health[self.index].why,
        ))
    }
}

impl Lease<'_> {
    /// Gives the slot back before the lease ends: a request that waits for
    /// halves of its batch must not hold a slot they need.
    pub fn release(&self) {
        if self.held.swap(false, Ordering::AcqRel) {
            let mut health = lock(&self.servers.health);
            let h = &mut health[self.index];
            h.in_flight = h.in_flight.saturating_sub(1);
            drop(health);
            self.servers.freed.notify_one();
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        self.release();
    }
}

/// `30s`, `1.5s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s}s")
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ProviderConfig;

    fn pool(caps: &[usize]) -> Servers {
        Servers::new(
            caps.iter()
                .enumerate()
                .map(|(i, &cap)| {
                    let cfg = ProviderConfig::new(format!("http://127.0.0.1:{}/v1", 9 + i), "m");
                    Servers::server(Client::new(cfg).expect("client"), cap)
                })
                .collect(),
        )
    }

    fn refused() -> ProviderError {
        ProviderError::Unreachable {
            url: "http://127.0.0.1:9/v1".into(),
            cause: "connection refused".into(),
        }
    }

    fn exhausted() -> ProviderError {
        ProviderError::RetriesExhausted {
            attempts: 5,
            last: "HTTP 503".into(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn slots_fill_by_free_capacity_and_wait_when_all_are_taken() {
        let servers = pool(&[2, 6]);
        let mut leases = Vec::new();
        for _ in 0..8 {
            leases.push(servers.acquire().await.expect("a slot"));
        }
        let on = |i| leases.iter().filter(|l| l.index == i).count();
        assert_eq!((on(0), on(1)), (2, 6));
        // A ninth waits until a slot is given back, then takes that one.
        let waiting = tokio::time::timeout(Duration::from_secs(5), servers.acquire()).await;
        assert!(waiting.is_err(), "no free slot, so no lease");
        let freed = leases.iter().position(|l| l.index == 0).expect("one on 0");
        drop(leases.remove(freed));
        let next = servers.acquire().await.expect("the freed slot");
        assert_eq!(next.index, 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_refusing_server_is_out_for_a_while_then_tried_again() {
        let servers = pool(&[4, 4]);
        let first = servers.acquire().await.expect("slot");
        let out = first.index;
        match first.failed(&refused()) {
            AfterFailure::TakenOut(text) => {
                assert!(text.contains("out of the run for 30s"), "{text}");
                assert!(text.contains("connection refused"), "{text}");
            }
            _ => panic!("a refused connection takes the server out"),
        }
        drop(first);
        for _ in 0..4 {
            let l = servers.acquire().await.expect("slot");
            assert_ne!(l.index, out, "its work goes to the other");
        }
        tokio::time::advance(FIRST_TIME_OUT + Duration::from_millis(1)).await;
        let back = servers.acquire().await.expect("slot");
        assert_eq!(
            back.index, out,
            "back after its time out, with the most free slots"
        );
        // Out again: twice as long this time.
        match back.failed(&refused()) {
            AfterFailure::TakenOut(text) => assert!(text.contains("for 60s"), "{text}"),
            _ => panic!("taken out again"),
        }
        drop(back);
        assert!(
            servers.summary().contains("(taken out 2 times)"),
            "{}",
            servers.summary()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn failures_in_a_row_take_a_server_out_and_an_answer_resets_them() {
        let servers = pool(&[1, 1]);
        let l = servers.acquire().await.expect("slot");
        assert!(matches!(l.failed(&exhausted()), AfterFailure::Kept));
        assert!(matches!(l.failed(&exhausted()), AfterFailure::Kept));
        l.answered(AnswerPath::ToolCall);
        assert!(matches!(l.failed(&exhausted()), AfterFailure::Kept));
        assert!(matches!(l.failed(&exhausted()), AfterFailure::Kept));
        match l.failed(&exhausted()) {
            AfterFailure::TakenOut(text) => {
                assert!(text.contains("3 requests in a row failed"), "{text}")
            }
            _ => panic!("three in a row take it out"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn when_the_last_server_goes_out_every_one_is_named() {
        let servers = pool(&[1, 1]);
        let a = servers.acquire().await.expect("slot");
        let b = servers.acquire().await.expect("slot");
        assert!(matches!(a.failed(&refused()), AfterFailure::TakenOut(_)));
        match b.failed(&refused()) {
            AfterFailure::NoneLeft(text) => {
                assert!(text.starts_with("every server is out"), "{text}");
                assert!(
                    text.contains("127.0.0.1:9/") && text.contains("127.0.0.1:10/"),
                    "{text}"
                );
            }
            _ => panic!("none left"),
        }
        drop((a, b));
        assert!(servers.acquire().await.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_configured_time_out_is_the_first_and_doubles_from_there() {
        let servers = pool(&[1, 1]).with_time_out(Duration::from_millis(1500));
        let a = servers.acquire().await.expect("slot");
        let out = a.index;
        match a.failed(&refused()) {
            AfterFailure::TakenOut(text) => assert!(text.contains("for 1.5s"), "{text}"),
            _ => panic!("taken out"),
        }
        drop(a);
        tokio::time::advance(Duration::from_millis(1501)).await;
        let back = servers.acquire().await.expect("slot");
        assert_eq!(back.index, out, "back after 1.5s");
        match back.failed(&refused()) {
            AfterFailure::TakenOut(text) => assert!(text.contains("for 3s"), "{text}"),
            _ => panic!("taken out again"),
        }
    }

    #[tokio::test]
    async fn each_server_counts_its_own_answer_paths() {
        let servers = pool(&[1, 1]);
        let a = servers.acquire().await.expect("slot");
        let b = servers.acquire().await.expect("slot");
        assert_ne!(a.index, b.index);
        a.answered(AnswerPath::IgnoredToolChoice);
        b.answered(AnswerPath::ToolCall);
        b.answered(AnswerPath::ToolCall);
        let paths = servers.paths();
        let on = |i: usize, p| paths[i].1.get(&p).copied().unwrap_or(0);
        assert_eq!(on(a.index, AnswerPath::IgnoredToolChoice), 1);
        assert_eq!(on(a.index, AnswerPath::ToolCall), 0);
        assert_eq!(on(b.index, AnswerPath::ToolCall), 2);
    }

    #[tokio::test]
    async fn one_server_keeps_no_slots() {
        let servers = pool(&[2]);
        // `URL#N` alone still sets the run's requests in flight.
        assert_eq!(servers.capacity(), 2);
        assert_eq!(pool(&[2, 6]).capacity(), 8);
        let leases: Vec<_> =
            futures_util::future::join_all((0..10).map(|_| servers.acquire())).await;
        assert!(
            leases
                .iter()
                .all(|l| l.as_ref().is_some_and(|l| l.index == 0))
        );
        assert!(matches!(
            leases[0].as_ref().map(|l| l.failed(&refused())),
            Some(AfterFailure::Kept)
        ));
    }
}
