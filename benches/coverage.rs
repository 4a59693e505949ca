//! The coverage grid of every interval jury prints as valid (issue #30):
//! seeded synthetic studies with a known truth through jury's own reading
//! layer. `cargo bench --bench coverage` prints a table; README's
//! statistics section quotes it. `COVERAGE_STUDIES` sets studies per cell
//! (default 1000); `COVERAGE_ONLY=estimate|rank|kappa|rank-kappa|active` runs one table.

#[path = "../tests/reference/sim.rs"]
mod sim;
// The active order's studies (issue #33).
#[path = "../tests/reference/active_sim.rs"]
mod active_sim;

use sim::*;

fn main() {
    let studies: u64 = std::env::var("COVERAGE_STUDIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let only = std::env::var("COVERAGE_ONLY").unwrap_or_default();
    let wanted = |table: &str| only.is_empty() || only == table;
    if wanted("estimate") {
        estimate_table(studies);
    }
    if wanted("rank") {
        rank_table(studies);
    }
    if wanted("kappa") {
        kappa_table(studies);
    }
    if wanted("rank-kappa") {
        rank_kappa_table(studies);
    }
    if wanted("active") {
        active_table(studies);
    }
}

/// The active interval against uniform PPI++ on the same studies: coverage,
/// mean half-widths, and the labels the active order needs for the uniform
/// width (the squared ratio of the widths).
fn active_table(studies: u64) {
    println!(
        "active order vs uniform PPI++, 95 % nominal, {studies} studies per cell, M = {}",
        active_sim::M
    );
    println!(
        "accuracy judge           budget  active cover  uniform cover  half-width active/uniform  labels active/uniform"
    );
    for &accuracy in &active_sim::ACCURACIES {
        for &judge in &active_sim::JUDGES {
            for &budget in &active_sim::BUDGETS {
                let c = active_sim::cell(accuracy, judge, budget, studies);
                println!(
                    "{accuracy:<8} {:<15} {:>4.0} %  {:>9.1} %  {:>10.1} %   {:.4} / {:.4}            {:.2}",
                    judge.name(),
                    budget * 100.0,
                    100.0 * c.active_coverage,
                    100.0 * c.uniform_coverage,
                    c.active_half,
                    c.uniform_half,
                    c.labels_ratio()
                );
            }
        }
    }
}

fn estimate_table(studies: u64) {
    println!(
        "accuracy intervals (jury estimate), 95 % nominal, {studies} studies per cell, N = 1000 judged only"
    );
    println!("accuracy judge     n    people  labels-alone  PPI++   normal-used  width labels/PPI");
    for &accuracy in &[0.5, 0.7, 0.9, 0.97] {
        for &judge in &[JudgeKind::Balanced, JudgeKind::Leaning, JudgeKind::Hedging] {
            for &n in &[30, 100, 300] {
                for &people in &[1, 3] {
                    let (mut l, mut p, mut normal, mut wl, mut wp) = (0, 0, 0, 0.0, 0.0);
                    for s in 0..studies {
                        let o = estimate_study(
                            accuracy,
                            judge,
                            n,
                            1000,
                            people,
                            1_000_000 * n as u64 + s,
                        );
                        l += usize::from(o.labels_cover);
                        p += usize::from(o.ppi_cover);
                        normal += usize::from(o.normal);
                        wl += o.labels_width;
                        wp += o.ppi_width;
                    }
                    let pct = |k: usize| 100.0 * k as f64 / studies as f64;
                    println!(
                        "{accuracy:<8} {:<9} {n:<4} {people:<7} {:>6.1} %      {:>5.1} %  {:>5.1} %      {:.3} / {:.3}",
                        judge.name(),
                        pct(l),
                        pct(p),
                        pct(normal),
                        wl / studies as f64,
                        wp / studies as f64
                    );
                }
            }
        }
    }
    println!();
}

fn rank_table(studies: u64) {
    println!(
        "ranking of two equal judges (difference interval and each agreement interval), {studies} studies per cell"
    );
    println!("accuracy n    people  difference-covers  behind  agreement-covers  no-interval");
    for &accuracy in &[0.5, 0.7, 0.9, 0.97] {
        for &n in &[30, 100, 300] {
            for &people in &[1, 3] {
                let (mut c, mut b, mut a, mut none) = (0, 0, 0, 0);
                for s in 0..studies {
                    let o = rank_study(accuracy, n, people, 7_000_000 * n as u64 + s);
                    c += usize::from(o.delta_covers);
                    b += usize::from(o.behind);
                    a += usize::from(o.agreement_covers[0]) + usize::from(o.agreement_covers[1]);
                    none += usize::from(!o.has_interval);
                }
                let with = (studies as usize - none).max(1);
                println!(
                    "{accuracy:<8} {n:<4} {people:<7} {:>6.1} %           {:>5.1} %  {:>6.1} %          {none}",
                    100.0 * c as f64 / with as f64,
                    100.0 * b as f64 / studies as f64,
                    50.0 * a as f64 / studies as f64,
                );
            }
        }
    }
    println!();
}

fn kappa_table(studies: u64) {
    println!(
        "kappa, AC1 and PABAK on a binary scale: coverage when an interval is shown (and how often it is), {studies} studies per cell, more (up to 100×) until kappa is shown in {studies}"
    );
    println!(
        "raw-agreement prevalence n    kappa (shown, of studies)  AC1                        PABAK"
    );
    for &(pa, prevalence) in &[(0.95, 0.9), (0.95, 0.5), (0.8, 0.8), (0.8, 0.5)] {
        // Both raters give "right" with `prevalence`; they agree with `pa`.
        let off = (1.0 - pa) / 2.0;
        let (p11, p22) = (prevalence - off, 1.0 - prevalence - off);
        for &n in &[40, 100, 300] {
            let mut t = [(0usize, 0usize); 3];
            // Where kappa is rarely shown its coverage would rest on a few
            // dozen studies: run on until it was shown `studies` times.
            let mut run = 0u64;
            for s in 0..100 * studies {
                if s >= studies && t[0].0 as u64 >= studies {
                    break;
                }
                run += 1;
                let o = kappa_study(p11, p22, n, 11_000_000 * n as u64 + s);
                for (slot, (shown, held)) in t.iter_mut().zip([o.kappa, o.ac1, o.pabak]) {
                    slot.0 += usize::from(shown);
                    slot.1 += usize::from(held);
                }
            }
            // Coverage when shown, how often shown, and in how many studies.
            let cell = |(shown, held): (usize, usize)| {
                format!(
                    "{:>5.1} % ({:>5.1} %, {shown:>4})",
                    100.0 * held as f64 / shown.max(1) as f64,
                    100.0 * shown as f64 / run as f64
                )
            };
            println!(
                "{pa:<13} {prevalence:<10} {n:<4} {}  {}  {}",
                cell(t[0]),
                cell(t[1]),
                cell(t[2])
            );
        }
    }
}

fn rank_kappa_table(studies: u64) {
    println!(
        "the ranking's kappa (two equal judges, combinations resampled with all their people), {studies} studies per cell"
    );
    println!("truth-0 read-right n    people  kappa-covers (shown)   delta-covers (shown)");
    for &(pi, q) in &[(0.8, 0.9), (0.9, 0.95), (0.5, 0.85), (0.5, 0.95)] {
        for &n in &[40, 100, 300] {
            for &people in &[1, 3] {
                let (mut ks, mut kc, mut ds, mut dc) = (0usize, 0usize, 0usize, 0usize);
                for s in 0..studies {
                    let o = rank_kappa_study(pi, q, n, people, 13_000_000 * n as u64 + s);
                    for (shown, covers) in o.kappa {
                        ks += usize::from(shown);
                        kc += usize::from(covers);
                    }
                    ds += usize::from(o.delta.0);
                    dc += usize::from(o.delta.1);
                }
                println!(
                    "{pi:<7} {q:<10} {n:<4} {people:<7} {:>5.1} % ({:>5.1} %)     {:>5.1} % ({:>5.1} %)",
                    100.0 * kc as f64 / ks.max(1) as f64,
                    50.0 * ks as f64 / studies as f64,
                    100.0 * dc as f64 / ds.max(1) as f64,
                    100.0 * ds as f64 / studies as f64,
                );
            }
        }
    }
    println!();
}
