//! The statistics against independent reference implementations in Python
//! (`statistics.py` and `ppi.py` beside this file generate the expected
//! values) and published worked examples.

mod coverage;
mod prevalence;
mod sim;
mod judge_errors;
mod statistics;
