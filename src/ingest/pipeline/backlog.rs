//! The parsed documents waiting for the model, bounded by their chunks
//! rather than by their number.
//!
//! The parsers must run ahead of the model by a whole embedding group, so
//! that when the model finishes one group the next is already waiting: a
//! queue of a few documents left the embedding thread to take what little
//! was there and embed groups of ~32 chunks (tldr-like pages make one or
//! two chunks each), each sorted for length on its own, which cost `kb add`
//! about 20% of the model's speed. Counting chunks also keeps memory
//! bounded when one document (a long PDF) makes thousands of them.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

struct State<T> {
    items: VecDeque<(T, usize)>,
    /// Chunks in `items`.
    chunks: usize,
    senders: usize,
    receiver_gone: bool,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Signalled on every change: an item in or out, a side gone.
    changed: Condvar,
    limit: usize,
}

impl<T> Shared<T> {
    /// A panic on another thread cannot leave the queue half-changed (every
    /// change is a single step under the lock), so a poisoned lock is used.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The parsers' end; one clone per parser thread.
pub(super) struct BacklogSender<T> {
    shared: Arc<Shared<T>>,
}

/// The embedding thread's end. Dropping it releases every waiting parser.
pub(super) struct Backlog<T> {
    shared: Arc<Shared<T>>,
}

/// A queue that lets parsers add documents while fewer than `limit` chunks
/// wait in it.
pub(super) fn backlog<T>(limit: usize) -> (BacklogSender<T>, Backlog<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            items: VecDeque::new(),
            chunks: 0,
            senders: 1,
            receiver_gone: false,
        }),
        changed: Condvar::new(),
        limit: limit.max(1),
    });
    (
        BacklogSender {
            shared: shared.clone(),
        },
        Backlog { shared },
    )
}

impl<T> BacklogSender<T> {
    /// Adds a document of `chunks` chunks, waiting while `limit` or more
    /// chunks wait. A document is let in whenever fewer do, however large,
    /// so no document waits for ever. False when the receiver is gone (the
    /// run stopped): the document is dropped.
    pub(super) fn send(&self, item: T, chunks: usize) -> bool {
        let mut state = self.shared.lock();
        while !state.receiver_gone && state.chunks >= self.shared.limit {
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        if state.receiver_gone {
            return false;
        }
        state.chunks += chunks;
        state.items.push_back((item, chunks));
        self.shared.changed.notify_all();
        true
    }
}

impl<T> Clone for BacklogSender<T> {
    fn clone(&self) -> Self {
        self.shared.lock().senders += 1;
        BacklogSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for BacklogSender<T> {
    fn drop(&mut self) {
        self.shared.lock().senders -= 1;
        self.shared.changed.notify_all();
    }
}

impl<T> Backlog<T> {
    /// The next document, waiting for one; `None` once every parser is done
    /// and the queue is empty.
    pub(super) fn recv(&self) -> Option<T> {
        let mut state = self.shared.lock();
        loop {
            if let Some(item) = Self::take(&mut state) {
                self.shared.changed.notify_all();
                return Some(item);
            }
            if state.senders == 0 {
                return None;
            }
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The next document if one is waiting.
    pub(super) fn try_recv(&self) -> Option<T> {
        let item = Self::take(&mut self.shared.lock());
        if item.is_some() {
            self.shared.changed.notify_all();
        }
        item
    }

    fn take(state: &mut State<T>) -> Option<T> {
        let (item, chunks) = state.items.pop_front()?;
        state.chunks -= chunks;
        Some(item)
    }
}

impl<T> Drop for Backlog<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.receiver_gone = true;
        state.items.clear();
        drop(state);
        self.shared.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn documents_come_out_in_order_and_none_after_the_last_sender() {
        let (tx, rx) = backlog::<u32>(10);
        let tx2 = tx.clone();
        assert!(tx.send(1, 3));
        assert!(tx2.send(2, 0));
        assert_eq!(rx.try_recv(), Some(1));
        drop(tx);
        assert_eq!(rx.recv(), Some(2));
        assert_eq!(rx.try_recv(), None);
        drop(tx2);
        assert_eq!(rx.recv(), None);
    }

    #[test]
    fn a_parser_waits_while_the_limit_in_chunks_waits_and_a_big_document_still_enters() {
        let (tx, rx) = backlog::<u32>(4);
        // Fewer than 4 wait: a 100-chunk document enters.
        assert!(tx.send(1, 100));
        let sender = std::thread::spawn(move || {
            assert!(tx.send(2, 1));
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!sender.is_finished(), "100 chunks wait: the next must wait");
        assert_eq!(rx.recv(), Some(1));
        sender.join().unwrap();
        assert_eq!(rx.recv(), Some(2));
        assert_eq!(rx.recv(), None);
    }

    #[test]
    fn a_waiting_parser_is_released_when_the_embedding_thread_stops() {
        let (tx, rx) = backlog::<u32>(1);
        assert!(tx.send(1, 1));
        let sender = std::thread::spawn(move || tx.send(2, 1));
        std::thread::sleep(Duration::from_millis(20));
        drop(rx);
        assert!(
            !sender.join().unwrap(),
            "the document is refused, not queued"
        );
    }
}
