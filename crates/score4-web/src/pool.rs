//! The solvers: a fixed number of threads, each with its own solver and
//! tables kept between requests, fed through one bounded queue. The
//! asynchronous side never waits on a solver's thread: it hands a task over
//! (or hears at once that the queue is full) and awaits the answer, and a
//! task whose request future is dropped (its client went away) is stopped.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::api;
use score4::StopHandle;

/// The answer to a task whose budget ran out before a solver took it
/// (waiting for a solver, or in the queues before it).
pub(crate) const BUSY: &str = "the time budget ran out before a solver could start; try again";

/// The answer when the queue in front of the solvers is full.
pub(crate) const QUEUE_FULL: &str = "every solver is busy; try again in a second";

/// Past its budget a search stops within milliseconds; this grace covers a
/// task that cannot be stopped (the classic engine at its deepest level).
pub(crate) const GRACE: Duration = Duration::from_secs(5);

/// What a task asks of its worker, and the way back.
pub(crate) enum Work {
    /// One JSON answer.
    Answer {
        query: api::Query,
        reply: oneshot::Sender<(u16, Value)>,
    },
    /// An analysis told as it narrows: `started` is sent once a worker
    /// runs it (dropped unsent if it took it past its deadline), `events`
    /// takes the states (a full channel drops one, as the next tells
    /// more), `last` the final one.
    Stream {
        query: api::Query,
        started: oneshot::Sender<()>,
        events: tokio::sync::mpsc::Sender<Value>,
        last: oneshot::Sender<(u16, Value)>,
    },
}

struct Job {
    work: Work,
    deadline: Instant,
    /// Shared by the request, which may give up on the task, and the
    /// worker running it.
    state: Arc<Mutex<JobState>>,
}

/// Where a task stands, so that a client gone stops only its own search,
/// and a task given up while it waits in the queue is never started.
#[derive(Default)]
struct JobState {
    /// Its request no longer waits for it.
    given_up: bool,
    /// A worker has taken it.
    started: bool,
    /// The solver's stop handle while the task runs.
    running: Option<StopHandle>,
}

/// A task handed to the pool. Dropped before [`finish`](Self::finish) (the
/// request's future dropped, as when its client goes away), it gives the
/// task up: never started if it still waits, stopped if it runs.
pub(crate) struct Ticket {
    state: Arc<Mutex<JobState>>,
    finished: bool,
}

impl Ticket {
    /// Gives the task up if no worker has taken it yet; whether it did.
    pub(crate) fn give_up_unstarted(&mut self) -> bool {
        let Ok(mut s) = self.state.lock() else {
            return false;
        };
        if s.started {
            return false;
        }
        s.given_up = true;
        self.finished = true;
        true
    }

    /// The task's answer has arrived: nothing to give up any more.
    pub(crate) fn finish(&mut self) {
        self.finished = true;
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if let Ok(mut s) = self.state.lock() {
            s.given_up = true;
            if let Some(h) = &s.running {
                h.stop();
            }
        }
    }
}

/// The queue in front of the workers, and their threads.
pub(crate) struct Pool {
    jobs: Option<SyncSender<Job>>,
    threads: Vec<JoinHandle<()>>,
}

/// The pool's side a request uses: cheap to clone.
#[derive(Clone)]
pub(crate) struct Queue {
    jobs: SyncSender<Job>,
    /// Set when the server stops: streamed analyses end early (each with
    /// its last event), so that stopping waits for no long search.
    pub(crate) stopping: Arc<AtomicBool>,
}

impl Pool {
    /// Starts `workers` threads, each with a solver of `table_mb` MiB made
    /// on its first task, behind a queue of `pending` tasks.
    pub(crate) fn start(
        workers: usize,
        pending: usize,
        table_mb: usize,
    ) -> std::io::Result<(Pool, Queue)> {
        let (tx, rx) = mpsc::sync_channel::<Job>(pending);
        let rx = Arc::new(Mutex::new(rx));
        let stopping = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for i in 0..workers.max(1) {
            let rx = Arc::clone(&rx);
            let stopping = Arc::clone(&stopping);
            threads.push(
                std::thread::Builder::new()
                    .name(format!("score4-worker-{i}"))
                    .stack_size(score4::solver::SEARCH_STACK_BYTES)
                    .spawn(move || work(&rx, table_mb, &stopping))?,
            );
        }
        let queue = Queue {
            jobs: tx.clone(),
            stopping,
        };
        Ok((
            Pool {
                jobs: Some(tx),
                threads,
            },
            queue,
        ))
    }

    /// Waits for the workers to finish their tasks and end; every [`Queue`]
    /// must have been dropped, or this waits for ever.
    pub(crate) fn join(mut self) {
        self.jobs = None;
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Queue {
    /// Hands `work` to a worker, or says at once (503) why it cannot.
    pub(crate) fn submit(&self, work: Work, deadline: Instant) -> Result<Ticket, &'static str> {
        let state = Arc::new(Mutex::new(JobState::default()));
        let job = Job {
            work,
            deadline,
            state: Arc::clone(&state),
        };
        match self.jobs.try_send(job) {
            Ok(()) => Ok(Ticket {
                state,
                finished: false,
            }),
            Err(TrySendError::Full(_)) => Err(QUEUE_FULL),
            Err(TrySendError::Disconnected(_)) => Err("the solvers have stopped"),
        }
    }

    /// Answers `query` by `deadline`: the worker's answer, or 503 if no
    /// worker took it in time, 504 if it did not stop within [`GRACE`].
    /// Dropping the future stops the search.
    pub(crate) async fn answer(&self, query: api::Query, deadline: Instant) -> (u16, Value) {
        let (tx, mut rx) = oneshot::channel();
        let mut ticket = match self.submit(Work::Answer { query, reply: tx }, deadline) {
            Ok(t) => t,
            Err(message) => return (503, json!({ "error": message })),
        };
        let deadline = tokio::time::Instant::from_std(deadline);
        let first = tokio::select! {
            answer = &mut rx => Some(answer),
            () = tokio::time::sleep_until(deadline) => None,
        };
        let answer = match first {
            Some(answer) => answer,
            None if ticket.give_up_unstarted() => return (503, json!({ "error": BUSY })),
            None => match tokio::time::timeout_at(deadline + GRACE, rx).await {
                Ok(answer) => answer,
                Err(_) => return (504, json!({ "error": "the solver did not answer in time" })),
            },
        };
        ticket.finish();
        answer.unwrap_or_else(|_| (500, json!({ "error": "the solver failed on this request" })))
    }
}

/// A worker: takes tasks one at a time and answers each with its solver.
fn work(rx: &Mutex<Receiver<Job>>, table_mb: usize, stopping: &AtomicBool) {
    let mut slot = api::Slot::default();
    loop {
        let next = rx.lock().map(|rx| rx.recv());
        let Ok(Ok(job)) = next else { return };
        let taken = job.state.lock().is_ok_and(|mut s| {
            s.started = !s.given_up;
            s.started
        });
        if !taken {
            // Its client left, or its budget ran out, while it waited.
            continue;
        }
        if Instant::now() >= job.deadline {
            if let Work::Answer { reply, .. } = job.work {
                let _ = reply.send((503, json!({ "error": BUSY })));
            }
            // A stream's `started` dropped unsent tells its request so,
            // which refuses it 503 before any event, as a plain request.
            continue;
        }
        let state = Arc::clone(&job.state);
        let mut on_solver = |handle: StopHandle| {
            handle.resume();
            if let Ok(mut s) = state.lock() {
                if s.given_up {
                    handle.stop();
                }
                s.running = Some(handle);
            }
        };
        let failed = || (500, json!({ "error": "internal error while solving" }));
        match job.work {
            Work::Answer { query, reply } => {
                let answer = catch_unwind(AssertUnwindSafe(|| {
                    api::answer(&mut slot, table_mb, &query, job.deadline, &mut on_solver)
                }));
                let answer = answer.unwrap_or_else(|_| {
                    // A solver that panicked mid-search may hold anything:
                    // drop it. (Only where panics unwind: the release build
                    // aborts, which ends the server.)
                    slot = api::Slot::default();
                    failed()
                });
                let _ = reply.send(answer);
            }
            Work::Stream {
                query,
                started,
                events,
                last,
            } => {
                let _ = started.send(());
                let mut emit = |event: Value| {
                    // A full channel: the client reads slowly, and the next
                    // state supersedes this one.
                    let _ = events.try_send(event);
                    !events.is_closed() && !stopping.load(Ordering::Relaxed)
                };
                let answer = catch_unwind(AssertUnwindSafe(|| {
                    api::stream(
                        &mut slot,
                        table_mb,
                        &query,
                        job.deadline,
                        &mut on_solver,
                        &mut emit,
                    )
                }));
                let answer = answer.unwrap_or_else(|_| {
                    slot = api::Slot::default();
                    failed()
                });
                drop(events);
                let _ = last.send(answer);
            }
        }
        let _ = job.state.lock().map(|mut s| s.running = None);
    }
}
