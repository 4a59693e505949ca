//! A judge that answers 3 whenever it would be wrong must not rank first
//! with agreement 1.00: undecided answers count as half agreement.

use super::*;
use crate::domain::{Agreement, ComboKey, Mode, Protocol, Value};
use crate::report::pairs::PairContext;
use std::sync::Arc;

fn pair(judge: &str, item: usize, a: Value, human_ok: bool) -> Pair {
    Pair {
        ctx: PairContext {
            key: Arc::new(ComboKey::new(&format!("i{item}"), "urgency", "p")),
            protocol: Protocol::Awag,
            persona: Arc::from("kenton"),
            mode: Some(Mode::Two),
            model: Arc::from("m"),
            run: None,
        },
        left: Arc::from(judge),
        right: Arc::from("alice"),
        a,
        b: Value::Agreement(if human_ok {
            Agreement::Agree
        } else {
            Agreement::Disagree
        }),
    }
}

/// Before, the hedger's 3s were left out: it agreed 1.00 on what remained
/// and ranked first, ahead of a judge right 95 % of the time.
#[test]
fn a_judge_that_hedges_on_its_errors_does_not_rank_first() {
    let mut ps = Vec::new();
    for i in 0..100 {
        let truth = i % 3 != 0;
        // Right 80 % of the time; answers 3 on the other 20 %.
        let hedger = if i % 5 == 0 {
            Value::Likert(3)
        } else {
            Value::Likert(if truth { 5 } else { 1 })
        };
        ps.push(pair("hedger", i, hedger, truth));
        let steady = if i % 20 == 0 { !truth } else { truth };
        ps.push(pair(
            "steady",
            i,
            Value::Agreement(if steady {
                Agreement::Agree
            } else {
                Agreement::Disagree
            }),
            truth,
        ));
    }
    let all = BTreeMap::from([(Comparison::JudgeVsHuman, ps)]);
    let r = &rankings(&all, None, 200, 5)[0];
    assert_eq!(r.n_shared, 100, "the hedger's 3s stay in the race");
    assert_eq!(r.configurations[0].judge, "steady");
    let hedger = &r.configurations[1];
    assert!((hedger.agreement.value.unwrap() - 0.9).abs() < 1e-12);
    assert!(
        table(std::slice::from_ref(r))
            .join("\n")
            .contains("read as 0.5")
    );
}
