//! Stopping a call the client cancels. The session has one stop flag: a
//! signal sets it, and an `add` stops after the document it is writing.
//! Calls run one at a time, so while one runs the flag is that call's:
//! each call clears it as it starts (unless a signal set it), and a
//! cancellation sets it only while its own call runs. One lock orders
//! these, so a late cancellation never stops the next call.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub(super) struct Stops {
    flag: Arc<AtomicBool>,
    /// The call running (0: none) and whether a signal came.
    state: Mutex<(u64, bool)>,
    next: AtomicU64,
}

impl Stops {
    /// Over the session's stop flag.
    pub(super) fn new(flag: Arc<AtomicBool>) -> Stops {
        Stops {
            flag,
            state: Mutex::new((0, false)),
            next: AtomicU64::new(0),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, (u64, bool)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A number for a new call.
    pub(super) fn ticket(&self) -> u64 {
        self.next.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// A signal: every call stops, and so does the server.
    pub(super) fn signal(&self) {
        let mut s = self.state();
        s.1 = true;
        self.flag.store(true, Ordering::SeqCst);
    }

    /// Call `id` starts (the session is its): the flag is cleared unless
    /// a signal set it.
    pub(super) fn start(&self, id: u64) {
        let mut s = self.state();
        s.0 = id;
        self.flag.store(s.1, Ordering::SeqCst);
    }

    /// Call `id` ended: a cancellation that comes now stops nothing.
    pub(super) fn finish(&self, id: u64) {
        let mut s = self.state();
        if s.0 == id {
            s.0 = 0;
        }
    }

    /// The client cancelled call `id`: it stops if it is the one running.
    pub(super) fn cancel(&self, id: u64) {
        let s = self.state();
        if s.0 == id {
            self.flag.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancellation_stops_only_its_own_call() {
        let flag = Arc::new(AtomicBool::new(false));
        let stops = Stops::new(flag.clone());
        let (a, b) = (stops.ticket(), stops.ticket());
        stops.start(a);
        stops.cancel(b); // waiting, not running
        assert!(!flag.load(Ordering::SeqCst));
        stops.cancel(a);
        assert!(flag.load(Ordering::SeqCst));
        stops.finish(a);
        stops.cancel(a); // too late
        stops.start(b);
        assert!(!flag.load(Ordering::SeqCst), "the next call starts clear");
        stops.signal();
        assert!(flag.load(Ordering::SeqCst));
        stops.finish(b);
        stops.start(stops.ticket());
        assert!(flag.load(Ordering::SeqCst), "a signal stays");
    }
}
