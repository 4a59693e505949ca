//! The statistics against independent reference implementations in Python
//! (`statistics.py` and `ppi.py` beside this file generate the expected
//! values) and published worked examples.

mod active;
mod active_coverage;
mod active_sim;
mod coverage;
mod judge_errors;
mod prevalence;
mod several_raters;
mod sim;
mod statistics;
mod stratified;
