//! The watchdog: a rank that waits in one collective (or receive) longer
//! than the limit fails with an error naming the call and the limit, and
//! the job is torn down as for any error, instead of hanging forever when a
//! rank is stopped (SIGSTOP), hung or dead without its launcher noticing.
//!
//! Waiting does not spin: MPI's blocking calls busy-poll (a rank waiting
//! for a stopped peer burns a core), so the collectives are started
//! non-blocking and tested, first back to back for [`SPIN`] (a collective
//! whose peers are ready completes in that time), then with sleeps that
//! grow to [`MAX_PAUSE`].
//!
//! The limit: `--watchdog-s` of `coco-exec`/`coco-run`, else
//! [`WATCHDOG_ENV`], else [`DEFAULT_WATCHDOG_S`]; 0 turns it off.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, Instant},
};

use crate::error::{Error, Result};

/// The environment variable that sets the limit, in seconds.
pub const WATCHDOG_ENV: &str = "COCO_WATCHDOG_S";

/// The limit when neither the flag nor [`WATCHDOG_ENV`] sets one: long
/// enough for any single collective of a real job, short enough that a
/// stuck job does not hold a machine for hours.
pub const DEFAULT_WATCHDOG_S: u64 = 300;

/// How long a wait tests back to back before it starts sleeping.
const SPIN: Duration = Duration::from_millis(2);

/// The longest sleep between two tests.
const MAX_PAUSE: Duration = Duration::from_millis(1);

const UNSET: u64 = u64::MAX;
static LIMIT_S: AtomicU64 = AtomicU64::new(UNSET);

/// The limit from `flag` (`--watchdog-s`), else [`WATCHDOG_ENV`], else the
/// default; an unreadable environment value is an error that names it.
pub fn configure(flag: Option<u64>) -> std::result::Result<u64, String> {
    let seconds = match flag {
        Some(seconds) => seconds,
        None => from_env()?.unwrap_or(DEFAULT_WATCHDOG_S),
    };
    LIMIT_S.store(seconds, Ordering::SeqCst);
    // The launcher's watcher kills a process stopped for twice as long.
    coco_base::job::set_stop_limit(seconds);
    Ok(seconds)
}

fn from_env() -> std::result::Result<Option<u64>, String> {
    match std::env::var(WATCHDOG_ENV) {
        Err(_) => Ok(None),
        Ok(text) => text.trim().parse().map(Some).map_err(|_| {
            format!("{WATCHDOG_ENV}={text}: expected a whole number of seconds (0: no limit)")
        }),
    }
}

/// The limit in seconds (0: none).
pub fn limit_s() -> u64 {
    match LIMIT_S.load(Ordering::SeqCst) {
        UNSET => configure(None).unwrap_or(DEFAULT_WATCHDOG_S),
        seconds => seconds,
    }
}

/// Calls `done` until it returns true, sleeping between calls once the
/// wait is longer than [`SPIN`]; fails with [`Error::Stalled`] naming `call`
/// once the wait is longer than the limit.
pub(crate) fn wait(call: &'static str, mut done: impl FnMut() -> Result<bool>) -> Result<()> {
    let limit = limit_s();
    let start = Instant::now();
    let mut pause = Duration::from_micros(10);
    loop {
        if done()? {
            return Ok(());
        }
        let waited = start.elapsed();
        if waited < SPIN {
            std::thread::yield_now();
            continue;
        }
        if limit > 0 && waited >= Duration::from_secs(limit) {
            return Err(Error::Stalled {
                call,
                seconds: limit,
            });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_that_completes_returns() {
        let mut calls = 0;
        wait("MPI_Test", || {
            calls += 1;
            Ok(calls == 3)
        })
        .unwrap();
        assert_eq!(calls, 3);
    }
}
