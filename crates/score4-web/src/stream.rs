//! A streamed analysis's events, as axum's server-sent events take them:
//! each state the worker sends, then its final one.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::response::sse::Event;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::pool::Ticket;

/// A streamed analysis's events. Dropped (its client gone), it drops
/// its ticket, which stops the search.
pub(crate) struct States {
    pub(crate) ticket: Ticket,
    pub(crate) states: Option<mpsc::Receiver<Value>>,
    pub(crate) last: Option<oneshot::Receiver<(u16, Value)>>,
}

impl futures_core::Stream for States {
    type Item = Result<Event, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(states) = &mut this.states {
            match states.poll_recv(cx) {
                Poll::Ready(Some(v)) => {
                    return Poll::Ready(Some(Ok(Event::default()
                        .event("analysis")
                        .data(v.to_string()))))
                }
                Poll::Ready(None) => this.states = None,
                Poll::Pending => return Poll::Pending,
            }
        }
        let Some(last) = &mut this.last else {
            return Poll::Ready(None);
        };
        let (status, v) = match Pin::new(last).poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(r) => {
                r.unwrap_or_else(|_| (500, json!({ "error": "the solver failed on this request" })))
            }
        };
        this.last = None;
        this.ticket.finish();
        let name = if status == 200 { "done" } else { "error" };
        Poll::Ready(Some(Ok(Event::default().event(name).data(v.to_string()))))
    }
}
