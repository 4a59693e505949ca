//! How long a wait on a batch holds through failing calls: a 5xx, a 429 or
//! a dropped connection on a status poll or a download is tried again
//! after a pause that doubles, and only a failure that lasts ends the wait.

use super::ApiFault;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The pauses between tries of a call that failed in passing, and how long
/// it may keep failing before the wait is given up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Patience {
    /// The first pause.
    pub first: Duration,
    /// No pause is longer.
    pub longest: Duration,
    /// Failing for this long in a row (pauses included) ends the wait.
    pub give_up_after: Duration,
}

impl Default for Patience {
    fn default() -> Patience {
        Patience {
            first: Duration::from_secs(1),
            longest: Duration::from_secs(5 * 60),
            give_up_after: Duration::from_secs(60 * 60),
        }
    }
}

impl Patience {
    /// The pause after the `tries`-th failure in a row (from 1).
    pub fn pause(&self, tries: u32) -> Duration {
        self.first
            .saturating_mul(1u32 << tries.saturating_sub(1).min(20))
            .min(self.longest)
    }

    /// `call` until it succeeds or fails otherwise than in passing; a
    /// passing failure is tried again after [`Patience::pause`] (each said
    /// through `on_retry`), until failing has lasted
    /// [`Patience::give_up_after`]: then the last failure comes back as
    /// lasting, saying for how long it failed.
    pub async fn hold<T, F, Fut>(
        &self,
        stop: &CancellationToken,
        mut call: F,
        mut on_retry: impl FnMut(&str, Duration),
    ) -> Result<T, ApiFault>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, ApiFault>>,
    {
        let started = tokio::time::Instant::now();
        let mut tries = 0u32;
        loop {
            let why = match call().await {
                Err(ApiFault::Passing(why)) => why,
                other => return other,
            };
            tries += 1;
            let pause = self.pause(tries);
            if started.elapsed() + pause > self.give_up_after {
                return Err(ApiFault::Lasting(format!(
                    "{why} (failing for {} in a row, {tries} tries)",
                    words(started.elapsed())
                )));
            }
            on_retry(&why, pause);
            tokio::select! {
                _ = stop.cancelled() => return Err(ApiFault::Cancelled),
                _ = tokio::time::sleep(pause) => {}
            }
        }
    }
}

/// `90 s`, `61 min`: how long something lasted, for a person.
pub fn words(d: Duration) -> String {
    match d.as_secs() {
        s if s < 120 => format!("{s} s"),
        s => format!("{} min", s / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn pauses_double_up_to_the_longest() {
        let p = Patience::default();
        assert_eq!(p.pause(1), Duration::from_secs(1));
        assert_eq!(p.pause(2), Duration::from_secs(2));
        assert_eq!(p.pause(4), Duration::from_secs(8));
        assert_eq!(p.pause(30), Duration::from_secs(300));
    }

    /// Passing failures are held through, in paused time; a lasting one
    /// ends at once; failing for the whole patience ends as lasting.
    #[tokio::test(start_paused = true)]
    async fn passing_failures_are_held_and_only_a_lasting_one_ends() {
        let p = Patience::default();
        let stop = CancellationToken::new();
        let n = AtomicU32::new(0);
        let got = p
            .hold(
                &stop,
                || async {
                    match n.fetch_add(1, Ordering::SeqCst) {
                        0..=5 => Err(ApiFault::Passing("HTTP 503".into())),
                        _ => Ok(7),
                    }
                },
                |_, _| {},
            )
            .await;
        assert_eq!(got, Ok(7));
        let got: Result<(), _> = p
            .hold(
                &stop,
                || async { Err(ApiFault::Lasting("HTTP 404".into())) },
                |_, _| {},
            )
            .await;
        assert_eq!(got, Err(ApiFault::Lasting("HTTP 404".into())));
        let started = tokio::time::Instant::now();
        let mut said = 0;
        let got: Result<(), _> = p
            .hold(
                &stop,
                || async { Err(ApiFault::Passing("HTTP 503".into())) },
                |_, _| said += 1,
            )
            .await;
        let Err(ApiFault::Lasting(why)) = got else {
            panic!("{got:?}")
        };
        assert!(why.starts_with("HTTP 503 (failing for"), "{why}");
        assert!(
            started.elapsed() <= p.give_up_after,
            "{:?}",
            started.elapsed()
        );
        assert!(started.elapsed() >= p.give_up_after / 2);
        assert!(said > 5, "{said}");
    }
}
