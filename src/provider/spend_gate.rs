//! The hook through which every attempt the client sends is counted and, when
//! a budget is set, paid for in advance: the client asks before each HTTP
//! request (retries and fallbacks included) and reports after it.

use crate::domain::Usage;

/// What one attempt may cost at worst, reserved before it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Reservation {
    pub usd: f64,
}

/// The gate's answer before an attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Admission {
    /// Send; this much is reserved until the attempt is settled.
    Granted(Reservation),
    /// Not now: attempts in flight hold the room this one needs. Ask again
    /// once one of them has settled.
    Wait,
    /// Do not send; the text says why (the budget could be crossed).
    Refused(String),
}

pub trait SpendGate: Send + Sync {
    /// Reserve the worst case of one attempt whose body is `body_bytes` long
    /// (an upper bound of its prompt tokens: a token is at least one byte)
    /// and which may answer with `max_tokens`.
    fn reserve(&self, body_bytes: usize, max_tokens: Option<u32>) -> Admission;

    /// Resolves when an attempt in flight has settled (after a `Wait`).
    fn settled(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>>;

    /// The attempt is over: release its reservation and count what it was.
    fn settle(&self, reservation: Reservation, outcome: Outcome);
}

/// How an attempt ended, for counting and paying.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// Never reached a server (no connection, or a connection that was
    /// already dead): not a request.
    NotSent,
    /// The server answered with an error status: a request, usage unknown,
    /// nothing generated (hosted APIs do not bill these).
    Refused,
    /// Sent, and ended without a complete answer (cut off, silent, too
    /// large): a request whose usage is unknown unless it arrived.
    Cut(Option<Usage>),
    /// A complete answer, with the usage the server reported (None: it
    /// reports none).
    Answered(Option<Usage>),
}
