//! How the cache's writes reach its stores: here, in the caller's thread, or, once the bake has
//! asked the cache all it will ask ([`super::Cache::write_in_background`]), on a thread of
//! their own, so that the compiles' results and the package go to a server while the bake
//! goes on (more entries arriving, the package being assembled) rather than after it.
//!
//! The thread holds the stores while it writes; the bake takes them back
//! ([`Behind::finish`]) before it reads the cache again or reports its warnings. At most
//! [`QUEUED_BATCHES`] batches wait for it: a bake that gathers faster than the stores take
//! its writes waits for them, as it did when it wrote them itself.

use slangpack_cache::action;
use slangpack_cache::reapi::{ActionResult, Digest};
use slangpack_cache::Store;
use std::sync::mpsc;

/// The stores of a cache, each with whether it is still used (a server that failed is not).
pub(super) type Stores = Vec<(Box<dyn Store>, bool)>;

/// How many batches of writes wait for the writing thread at most.
const QUEUED_BATCHES: usize = 2;

/// An action's result to store, with the blobs it needs (its own and those it names).
pub(super) struct Put {
    pub(super) described: action::Described,
    pub(super) blobs: Vec<(Digest, Vec<u8>)>,
    pub(super) result: ActionResult,
}

/// An action's description, its own blobs and its result, as [`put_all`] takes them.
pub(super) type PutRef<'a> = (
    &'a action::Described,
    &'a [(Digest, Vec<u8>)],
    &'a ActionResult,
);

/// Stores each of `puts` in `store`: first the blobs it lacks (each once), then the results
/// (a result never names a blob that is not there).
///
/// # Errors
/// The store's message when a call fails.
pub(super) fn put_all(store: &mut dyn Store, puts: &[PutRef<'_>]) -> Result<(), String> {
    let mut blobs: Vec<(&Digest, &[u8])> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (described, own, _) in puts {
        for (digest, bytes) in own.iter().chain(&described.blobs) {
            if seen.insert(digest.hash.as_str()) {
                blobs.push((digest, bytes.as_slice()));
            }
        }
    }
    let digests: Vec<Digest> = blobs.iter().map(|(d, _)| (*d).clone()).collect();
    let results: Vec<(&Digest, &ActionResult)> =
        puts.iter().map(|(d, _, r)| (&d.digest, *r)).collect();
    let missing = store.find_missing(&digests)?;
    let missing: std::collections::HashSet<&str> =
        missing.iter().map(|d| d.hash.as_str()).collect();
    blobs.retain(|(d, _)| missing.contains(d.hash.as_str()));
    store.write_blobs(&blobs)?;
    store.update_action_results(&results)
}

/// Notes in `warnings` that store `i` of `stores` failed with `why`; a server is not asked
/// again in this bake.
pub(super) fn failed(stores: &mut Stores, warnings: &mut Vec<String>, i: usize, why: &str) {
    let Some((store, usable)) = stores.get_mut(i) else {
        return;
    };
    let name = store.describe();
    if name.contains("://") {
        *usable = false;
        warnings.push(format!(
            "cache: {name}: {why}; not using it for the rest of this bake"
        ));
    } else {
        warnings.push(format!("cache: {name}: {why}"));
    }
}

/// Stores `puts` in every store of `stores` still used, noting failures in `warnings`.
pub(super) fn write(stores: &mut Stores, warnings: &mut Vec<String>, puts: &[Put]) {
    if puts.is_empty() {
        return;
    }
    let refs: Vec<PutRef<'_>> = puts
        .iter()
        .map(|p| (&p.described, p.blobs.as_slice(), &p.result))
        .collect();
    for i in 0..stores.len() {
        if !stores[i].1 {
            continue;
        }
        if let Err(why) = put_all(&mut *stores[i].0, &refs) {
            failed(stores, warnings, i, &why);
        }
    }
}

/// What the writing thread is sent: first the stores, then batches to write.
enum Message {
    Stores(Stores),
    Puts(Vec<Put>),
}

/// The thread writing to the stores, and the stores with it.
pub(super) struct Behind {
    send: mpsc::SyncSender<Message>,
    thread: std::thread::JoinHandle<(Stores, Vec<String>)>,
}

impl Behind {
    /// A thread writing to `stores` what it is sent; `Err` with the stores when no thread
    /// can be started.
    pub(super) fn start(stores: Stores) -> Result<Behind, Stores> {
        let (send, receive) = mpsc::sync_channel::<Message>(QUEUED_BATCHES);
        let started = std::thread::Builder::new()
            .name("slangpack-cache-write".into())
            .spawn(move || {
                let (mut stores, mut warnings) = (Vec::new(), Vec::new());
                for message in receive {
                    match message {
                        Message::Stores(given) => stores = given,
                        Message::Puts(puts) => write(&mut stores, &mut warnings, &puts),
                    }
                }
                (stores, warnings)
            });
        let Ok(thread) = started else {
            return Err(stores);
        };
        match send.send(Message::Stores(stores)) {
            Ok(()) => Ok(Behind { send, thread }),
            Err(mpsc::SendError(Message::Stores(stores))) => Err(stores),
            Err(mpsc::SendError(Message::Puts(_))) => unreachable!("the stores were sent"),
        }
    }

    /// Hands `puts` to the thread (waiting while [`QUEUED_BATCHES`] batches are queued);
    /// `Err` with them when the thread is gone.
    pub(super) fn send(&self, puts: Vec<Put>) -> Result<(), Vec<Put>> {
        match self.send.send(Message::Puts(puts)) {
            Ok(()) => Ok(()),
            Err(mpsc::SendError(Message::Puts(puts))) => Err(puts),
            Err(mpsc::SendError(Message::Stores(_))) => Err(Vec::new()),
        }
    }

    /// Waits for everything sent to be written; the stores (with whether each is still
    /// used) and what went wrong. `Err` when the thread ended without giving them back.
    pub(super) fn finish(self) -> Result<(Stores, Vec<String>), String> {
        drop(self.send);
        self.thread
            .join()
            .map_err(|_| "the thread writing to the cache stopped".to_string())
    }
}
