//! Calibrating a judge on the real binary: the held-out split, few-shot sets
//! from `train` labels, the loop from labels to a report on held-out pairs,
//! confidence (also of verdicts kept from a cut-off answer) and `jury
//! trust` (the paper's thresholds on its own judgements, the choice among
//! configurations, the reachable α, the queue when nothing is trusted), and
//! position bias.

#[path = "../common/mod.rs"]
mod common;

mod active_order;
mod confidence;
mod confidence_cut;
mod fewshot;
mod fewshot_guideline;
mod fewshot_loop;
mod position_bias;
mod split;
mod trust_cascade;
mod trust_choice;
mod trust_grid;
mod trust_limits;
mod trust_needs;
