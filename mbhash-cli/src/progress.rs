//! A progress bar on standard error for long runs: bytes, rate and ETA.
//!
//! The workers only add to an atomic counter. A ticker thread follows it
//! and shows the bar once the run has taken [`DELAY`] and standard error is
//! a terminal; only then does it start a thread that adds up the input sizes
//! for the ETA.
//! Output written while the bar is shown goes through [`Progress::around`],
//! which lifts the bar off the terminal for the write.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Adds up the input sizes for the ETA; gives up (`None`) when its argument
/// says the run is over.
pub type Estimate<'a> = &'a (dyn Fn(&dyn Fn() -> bool) -> Option<u64> + Sync);

/// How long a run goes before the bar appears.
pub const DELAY: Duration = Duration::from_secs(1);

/// Shared progress of a run.
#[derive(Debug, Default)]
pub struct Progress {
    enabled: bool,
    done: AtomicU64,
    /// Total input bytes once known.
    total: AtomicU64,
    total_known: AtomicBool,
    finished: Mutex<bool>,
    finished_cv: Condvar,
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress {
    /// Progress that is never shown.
    pub fn hidden() -> Self {
        Self::default()
    }

    /// Counts `n` more bytes hashed.
    #[inline]
    pub fn add(&self, n: u64) {
        if self.enabled {
            self.done.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Runs `f` (a write to the terminal) with the bar lifted off.
    pub fn around<R>(&self, f: impl FnOnce() -> R) -> R {
        if !self.enabled {
            return f();
        }
        let bar = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        match bar.as_ref() {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    fn cancelled(&self) -> bool {
        *self.finished.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sleeps up to `d`; true if the run finished meanwhile.
    fn wait(&self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        let mut fin = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        while !*fin {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            fin = self
                .finished_cv
                .wait_timeout(fin, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    fn tick(&self, estimate: Option<Estimate<'_>>) {
        // The bar follows the run from its start, hidden, so that its rate
        // and ETA have the whole history when it appears.
        let start = Instant::now();
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(unknown_style());
        std::thread::scope(|s| {
            let mut shown = false;
            let mut has_len = false;
            loop {
                if !shown && start.elapsed() >= DELAY {
                    shown = true;
                    if let Some(estimate) = estimate {
                        s.spawn(|| {
                            if let Some(total) = estimate(&|| self.cancelled()) {
                                self.total.store(total, Ordering::Relaxed);
                                self.total_known.store(true, Ordering::Release);
                            }
                        });
                    }
                    bar.set_draw_target(ProgressDrawTarget::stderr());
                    *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
                }
                if !has_len && self.total_known.load(Ordering::Acquire) {
                    bar.set_length(self.total.load(Ordering::Relaxed));
                    bar.set_style(known_style());
                    has_len = true;
                }
                bar.set_position(self.done.load(Ordering::Relaxed));
                if self.wait(Duration::from_millis(100)) {
                    break;
                }
            }
            self.bar.lock().unwrap_or_else(|e| e.into_inner()).take();
            bar.finish_and_clear();
        });
    }
}

fn known_style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ")
}

fn unknown_style() -> ProgressStyle {
    ProgressStyle::with_template("{elapsed_precise} {spinner} {bytes} {binary_bytes_per_sec}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

/// Runs `body` with a [`Progress`] that is shown (when `enabled`) if the run
/// takes longer than [`DELAY`]. `estimate`, if given, adds up the input
/// sizes for the ETA.
pub fn with_progress<R>(
    enabled: bool,
    estimate: Option<Estimate<'_>>,
    body: impl FnOnce(&Progress) -> R,
) -> R {
    if !enabled {
        return body(&Progress::hidden());
    }
    let progress = Progress {
        enabled: true,
        ..Progress::default()
    };
    std::thread::scope(|s| {
        let p = &progress;
        s.spawn(move || p.tick(estimate));
        let r = body(p);
        *p.finished.lock().unwrap_or_else(|e| e.into_inner()) = true;
        p.finished_cv.notify_all();
        r
    })
}
