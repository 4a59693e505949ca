//! The run's side of the provider's spend gate: every attempt the client
//! sends is counted here (requests, tokens, unknown usage, cost), and with a
//! budget each one is paid for in advance at its worst case, so the run never
//! sends a request that could cross the budget.

use super::price::Price;
use super::writer::WriteCmd;
use crate::domain::Usage;
use crate::provider::spend_gate::{Admission, Outcome, Reservation, SpendGate};
use std::sync::Mutex;
use std::sync::mpsc::Sender;
use tokio::sync::Notify;

pub struct RunLedger {
    budget_usd: Option<f64>,
    state: Mutex<State>,
    writes: Sender<WriteCmd>,
    settled: Notify,
}

#[derive(Default)]
struct State {
    /// What a request costs (a batch run's lines: the batch price; the
    /// requests it sends directly: the model's).
    price: Option<Price>,
    /// What finished attempts cost (usage never reported: their worst case).
    spent: f64,
    /// Worst cases of attempts in flight.
    reserved: f64,
    /// A request came back without usage while a budget is set.
    blind: bool,
    /// Why the gate refused, once it did: (worst case refused, whether for
    /// unknown usage).
    refused: Option<(f64, bool)>,
}

impl RunLedger {
    pub fn new(price: Option<Price>, budget_usd: Option<f64>, writes: Sender<WriteCmd>) -> Self {
        RunLedger {
            budget_usd,
            state: Mutex::new(State {
                price,
                ..State::default()
            }),
            writes,
            settled: Notify::new(),
        }
    }

    /// Why the run stopped for its budget, with what was finally spent once
    /// every request in flight settled (the figure every message uses).
    pub fn final_note(&self) -> Option<String> {
        let s = self.lock();
        let budget = self.budget_usd?;
        let (worst, blind) = s.refused?;
        Some(if blind {
            format!(
                "budget of ${budget:.4}: the server does not report token usage, so spending cannot be tracked; \
                 ${:.4} spent (requests without usage charged at their worst case); run without --budget against this server",
                s.spent
            )
        } else {
            format!(
                "budget of ${budget:.4} reached: ${:.4} spent, and the next request could cost up to ${worst:.4}; stopped before sending it",
                s.spent
            )
        })
    }

    /// Requests from now on cost `price` (what a batch left unanswered and
    /// is asked directly is paid at the model's price, not the batch's).
    pub fn reprice(&self, price: Option<Price>) {
        self.lock().price = price;
    }

    /// Nothing is in flight any more: what was held for requests that will
    /// never settle one by one (the lines of a batch that is over, each
    /// settled at its real cost without its reservation) is given back.
    pub fn release_held(&self) {
        self.lock().reserved = 0.0;
        self.settled.notify_waiters();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

impl SpendGate for RunLedger {
    fn reserve(&self, body_bytes: usize, max_tokens: Option<u32>) -> Admission {
        let Some(budget) = self.budget_usd else {
            return Admission::Granted(Reservation::default());
        };
        let mut s = self.lock();
        // Checked before the run starts; kept here so the gate never lets an
        // unpriceable request through.
        let Some(price) = s.price else {
            return Admission::Refused(format!(
                "budget of ${budget:.4}: the model has no price, so no request can be checked against it"
            ));
        };
        let Some(max_tokens) = max_tokens else {
            return Admission::Refused(format!(
                "budget of ${budget:.4}: a request without max_tokens has no worst case"
            ));
        };
        let worst = price.worst_case(body_bytes, max_tokens);
        if s.blind {
            s.refused.get_or_insert((worst, true));
            return Admission::Refused(format!(
                "budget of ${budget:.4}: the server does not report token usage, so spending cannot be tracked"
            ));
        }
        if s.spent + worst > budget {
            s.refused.get_or_insert((worst, false));
            return Admission::Refused(format!(
                "budget of ${budget:.4} reached: ${:.4} spent, and the next request could cost up to ${worst:.4}",
                s.spent
            ));
        }
        if s.spent + s.reserved + worst > budget {
            // It fits once requests in flight have settled at their real cost.
            return Admission::Wait;
        }
        s.reserved += worst;
        Admission::Granted(Reservation { usd: worst })
    }

    fn settled(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        Box::pin(self.settled.notified())
    }

    fn settle(&self, reservation: Reservation, outcome: Outcome) {
        let (usage, cost) = {
            let mut s = self.lock();
            s.reserved = (s.reserved - reservation.usd).max(0.0);
            if s.reserved < 1e-12 {
                s.reserved = 0.0; // no float residue holding back a request
            }
            self.settled.notify_waiters();
            let price = s.price;
            let priced = |u: Usage| price.map(|p| p.cost(u));
            let (usage, cost) = match outcome {
                Outcome::NotSent => return,
                Outcome::Refused => (None, price.map(|_| 0.0)),
                Outcome::Cut(Some(u)) | Outcome::Answered(Some(u)) => (Some(u), priced(u)),
                // Whatever it generated is unknown: under a budget it is
                // charged at its worst case, so the budget still holds.
                Outcome::Cut(None) => (None, self.budget_usd.and(price).map(|_| reservation.usd)),
                // A complete answer without usage: this server never reports
                // it, so a budget cannot be kept; nothing more is sent.
                Outcome::Answered(None) => {
                    if self.budget_usd.is_some() {
                        s.blind = true;
                    }
                    (None, self.budget_usd.and(price).map(|_| reservation.usd))
                }
            };
            if let Some(c) = cost {
                s.spent += c;
            }
            (usage, cost)
        };
        let _ = self.writes.send(WriteCmd::Request {
            usage,
            cost_usd: cost,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(input: f64, output: f64) -> Price {
        Price {
            input_per_million: input,
            output_per_million: output,
            cached_input_per_million: input,
        }
    }

    #[test]
    fn a_repriced_ledger_charges_later_requests_at_the_new_price() {
        let (tx, rx) = std::sync::mpsc::channel();
        // A batch's lines at half the price, then what is asked directly at the full one.
        let ledger = RunLedger::new(Some(price(1.0, 2.0)), None, tx);
        let usage = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 1_000_000,
            cached_tokens: 0,
        };
        ledger.settle(Reservation::default(), Outcome::Answered(Some(usage)));
        ledger.reprice(Some(price(2.0, 4.0)));
        ledger.settle(Reservation::default(), Outcome::Answered(Some(usage)));
        let costs: Vec<Option<f64>> = rx
            .try_iter()
            .map(|w| match w {
                WriteCmd::Request { cost_usd, .. } => cost_usd,
                _ => None,
            })
            .collect();
        assert_eq!(costs, [Some(3.0), Some(6.0)]);
    }
}
