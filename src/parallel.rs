//! The compiler's large inputs split into runs on threads: the parse of a
//! large file, the type check of many hooks and the lowering of many
//! rules. Each run's result comes back in the runs' order, so the output
//! is the one a single thread gives. And the large values a compile is
//! done with freed on a thread of their own ([`drop_aside`]).

/// The threads worth starting for `size` units of work: one below `from`
/// (starting a thread would cost more than it saves), else the machine's
/// cores, at most `max`.
pub(crate) fn threads(size: usize, from: usize, max: usize) -> usize {
    if size < from {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(max))
    }
}

/// `run` on each of `runs`, the first on this thread and each other on a
/// thread of its own; the results in the runs' order. A panic on a thread
/// panics the caller, as it would inline.
pub(crate) fn map_in_order<P: Sync, R: Send>(runs: &[P], run: impl Fn(&P) -> R + Sync) -> Vec<R> {
    let Some((first, rest)) = runs.split_first() else {
        return Vec::new();
    };
    let run = &run;
    std::thread::scope(|scope| {
        let others: Vec<_> = rest
            .iter()
            .map(|part| scope.spawn(move || run(part)))
            .collect();
        let mut results = Vec::with_capacity(runs.len());
        results.push(run(first));
        results.extend(others.into_iter().map(|h| {
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        }));
        results
    })
}

/// Drops `value` on a thread of its own, so that the caller does not wait
/// for it to be freed. The syntax trees and checked rules of 10,000 rules
/// are about a million small allocations: freeing them took 60–80 ms of
/// a 530–600 ms compile, after its result was ready. When no thread can be
/// started, `value` is dropped here, as it would have been.
pub(crate) fn drop_aside<T: Send + 'static>(value: T) {
    // A failed spawn drops the closure, and `value` with it.
    let _detached = std::thread::Builder::new()
        .name("hookc-drop".to_owned())
        .spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_back_in_the_runs_order() {
        let runs: Vec<usize> = (0..5).collect();
        let squares = super::map_in_order(&runs, |&n| {
            // The later runs finish first.
            std::thread::sleep(std::time::Duration::from_millis(5 * (5 - n as u64)));
            n * n
        });
        assert_eq!(squares, [0, 1, 4, 9, 16]);
        assert!(super::map_in_order(&[] as &[usize], |&n| n).is_empty());
    }

    #[test]
    fn a_value_dropped_aside_is_dropped() {
        struct Signal(std::sync::mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Signal {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let (tx, rx) = std::sync::mpsc::channel();
        super::drop_aside(Signal(tx));
        let on = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("dropped");
        assert_ne!(on, std::thread::current().id(), "on another thread");
    }

    #[test]
    fn small_work_stays_on_one_thread() {
        assert_eq!(super::threads(10, 512, 8), 1);
        assert!((1..=8).contains(&super::threads(512, 512, 8)));
    }
}
