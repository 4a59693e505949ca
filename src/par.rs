//! A small order-preserving parallel map over scoped threads, for the few
//! CPU-bound passes that split into independent pieces of uneven size (the
//! report's comparisons and groups). No thread pool crate: the pieces are few
//! and large, and the machines have two cores.

/// One thread's share of the items, with their input positions.
type Slot<T> = std::sync::Mutex<Option<Vec<(usize, T)>>>;

/// Maps `items` with `f` on up to `available_parallelism` threads and returns
/// the results in input order. Pieces go to threads largest first, each to
/// the least-loaded thread, by `weight`. A piece whose thread fails to start
/// runs on the calling thread; a panic in `f` propagates.
pub fn map_weighted<T, R, W, F>(items: Vec<T>, weight: W, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    W: Fn(&T) -> usize,
    F: Fn(T) -> R + Sync,
{
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    if threads <= 1 {
        return items.into_iter().map(f).collect();
    }
    let mut order: Vec<(usize, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, t)| (weight(t), i))
        .collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    let mut load = vec![0usize; threads];
    let mut owner = vec![0usize; items.len()];
    for (w, i) in order {
        let t = (0..threads).min_by_key(|&t| load[t]).unwrap_or(0);
        load[t] += w.max(1);
        owner[i] = t;
    }
    let mut shares: Vec<Vec<(usize, T)>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, item) in items.into_iter().enumerate() {
        shares[owner[i]].push((i, item));
    }
    let f = &f;
    let run = move |share: Vec<(usize, T)>| -> Vec<(usize, R)> {
        share.into_iter().map(|(i, t)| (i, f(t))).collect()
    };
    // Each share sits in a slot its thread takes it from, so a thread that
    // cannot be started leaves its share for the calling thread to run.
    let mine = shares.remove(0);
    let slots: Vec<Slot<T>> = shares
        .into_iter()
        .map(|s| std::sync::Mutex::new(Some(s)))
        .collect();
    let take = |slot: &Slot<T>| {
        slot.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .unwrap_or_default()
    };
    let mut out: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = slots
            .iter()
            .map(|slot| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || run(take(slot)))
                    .ok()
            })
            .collect();
        let mut out = run(mine);
        for h in handles.into_iter().flatten() {
            match h.join() {
                Ok(part) => out.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        // Shares whose thread never started (their slot is still full).
        for slot in &slots {
            out.extend(run(take(slot)));
        }
        out
    });
    out.sort_unstable_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// Runs `a` here and `b` on a scoped thread (or here too, after `a`, when
/// no thread can be started) and returns both results; a panic in either
/// propagates.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    // The closure sits in a slot its thread takes it from, so a thread that
    // cannot be started leaves it for this one.
    let slot = std::sync::Mutex::new(Some(b));
    let take = || {
        slot.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    };
    std::thread::scope(|scope| {
        let beside = std::thread::Builder::new()
            .spawn_scoped(scope, || take().map(|b| b()))
            .ok();
        let ra = a();
        let rb = match beside.map(|h| h.join()) {
            Some(Ok(Some(rb))) => rb,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            // Never started (or found the slot empty): run it here.
            Some(Ok(None)) | None => match take() {
                Some(b) => b(),
                None => unreachable!("the closure runs exactly once"),
            },
        };
        (ra, rb)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_maps_everything() {
        let items: Vec<usize> = (0..100).collect();
        let out = map_weighted(items, |&i| (i * 37) % 11, |i| i * 2);
        assert_eq!(out, (0..100).map(|i| i * 2).collect::<Vec<_>>());
        assert!(map_weighted(Vec::<u8>::new(), |_| 1, |x| x).is_empty());
        assert_eq!(map_weighted(vec![5], |_| 0, |x| x + 1), vec![6]);
    }

    #[test]
    fn join_returns_both_results() {
        let v: Vec<u32> = (0..10).collect();
        let (a, b) = join(|| v.iter().sum::<u32>(), || v.len());
        assert_eq!((a, b), (45, 10));
    }
}
