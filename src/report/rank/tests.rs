use super::*;
use crate::domain::{Agreement, ComboKey, Mode, Protocol, Value};
use crate::report::pairs::PairContext;
use std::sync::Arc;

fn pair(judge: &str, mode: Mode, item: usize, who: &str, judge_ok: bool, human_ok: bool) -> Pair {
    pair_as("kenton", judge, mode, item, who, judge_ok, human_ok)
}

fn pair_as(
    persona: &str,
    judge: &str,
    mode: Mode,
    item: usize,
    who: &str,
    judge_ok: bool,
    human_ok: bool,
) -> Pair {
    let ag = |ok: bool| {
        Value::Agreement(if ok {
            Agreement::Agree
        } else {
            Agreement::Disagree
        })
    };
    Pair {
        ctx: PairContext {
            key: Arc::new(ComboKey::new(&format!("i{item}"), "urgency", "p")),
            protocol: Protocol::Awag,
            persona: Arc::from(persona),
            mode: Some(mode),
            model: Arc::from("m"),
            run: None,
        },
        left: Arc::from(judge),
        right: Arc::from(who),
        a: ag(judge_ok),
        b: ag(human_ok),
    }
}

/// Mode 2 agrees with alice on every item; mode 1 on every other one
/// and judged only items 0..60 (mode 2 judged 0..80); mode 3 agrees on
/// all but every tenth.
fn study() -> BTreeMap<Comparison, Vec<Pair>> {
    let mut ps = Vec::new();
    for i in 0..80 {
        let truth = i % 3 != 0;
        ps.push(pair("mode 2", Mode::Two, i, "alice", truth, truth));
        if i < 60 {
            ps.push(pair(
                "mode 1",
                Mode::One,
                i,
                "alice",
                truth ^ (i % 2 == 0),
                truth,
            ));
            ps.push(pair(
                "mode 3",
                Mode::Three,
                i,
                "alice",
                truth ^ (i % 10 == 0),
                truth,
            ));
        }
    }
    BTreeMap::from([(Comparison::JudgeVsHuman, ps)])
}

#[test]
fn configurations_are_ranked_on_the_units_all_of_them_judged() {
    let r = rankings(&study(), None, 500, 42);
    assert_eq!(r.len(), 1);
    let r = &r[0];
    assert_eq!(
        r.n_shared, 60,
        "mode 2's extra 20 items are not in the race"
    );
    let names: Vec<&str> = r.configurations.iter().map(|c| c.judge.as_str()).collect();
    assert_eq!(names, ["mode 2", "mode 3", "mode 1"]);
    let best = &r.configurations[0];
    assert_eq!(best.separation, Separation::Best);
    assert_eq!(best.agreement.value, Some(1.0));
    assert_eq!(best.n_own, 80);
    // Mode 1 is far behind: its paired interval lies below zero.
    let m1 = &r.configurations[2];
    assert_eq!(m1.agreement.value, Some(0.5));
    assert_eq!(m1.separation, Separation::Behind);
    let d = m1.behind_best.as_ref().unwrap();
    assert_eq!(d.n, 60);
    assert!((d.delta_agree.value.unwrap() + 0.5).abs() < 1e-12);
    assert!(d.delta_agree.ci95.unwrap()[1] < 0.0);
    // Mode 3 is 6 units in 60 behind: an interval that includes zero
    // or lies below it, and the summary says which.
    let m3 = &r.configurations[1];
    assert!((m3.agreement.value.unwrap() - 0.9).abs() < 1e-12);
    assert!(r.summary.starts_with("mode 2 as kenton"), "{}", r.summary);
    // No people pairs: the ceiling says so.
    assert_eq!(r.human_ceiling.n, 0);
}

#[test]
fn too_few_shared_units_cannot_separate_anything() {
    let mut all = study();
    all.get_mut(&Comparison::JudgeVsHuman)
        .unwrap()
        .retain(|p| p.ctx.key.item_id.as_str() < "i2");
    // Items i0, i1, i10..i19: 12 shared units, below the floor of 30.
    let r = &rankings(&all, None, 500, 42)[0];
    assert_eq!(r.n_shared, 12);
    for c in &r.configurations[1..] {
        assert_eq!(c.separation, Separation::CannotTell);
        let d = c.behind_best.as_ref().unwrap();
        assert!(d.delta_agree.ci95.is_none() && d.delta_agree.no_ci.is_some());
    }
    assert!(r.summary.contains("cannot separate"), "{}", r.summary);
}

/// Each item judged as its owner (`--persona owner`): modes 1 and 2
/// each played kenton on items 0..40 and maren on 40..80. Split by
/// persona, no configuration shares a unit with every other one and
/// nothing is ranked; each mode is one configuration, "one persona per
/// item", raced on all 80 units.
#[test]
fn a_judge_that_played_each_item_as_one_persona_is_one_configuration() {
    let mut ps = Vec::new();
    for i in 0..80 {
        let persona = if i < 40 { "kenton" } else { "maren" };
        let truth = i % 3 != 0;
        ps.push(pair_as(
            persona,
            "mode 2",
            Mode::Two,
            i,
            "alice",
            truth,
            truth,
        ));
        let m1 = truth ^ (i % 2 == 0);
        ps.push(pair_as(persona, "mode 1", Mode::One, i, "alice", m1, truth));
    }
    let all = BTreeMap::from([(Comparison::JudgeVsHuman, ps)]);
    let r = rankings(&all, None, 500, 42);
    assert_eq!(r.len(), 1);
    let r = &r[0];
    assert_eq!(r.n_shared, 80, "{r:#?}");
    let names: Vec<String> = r
        .configurations
        .iter()
        .map(|c| format!("{} as {}", c.judge, c.persona))
        .collect();
    assert_eq!(
        names,
        [
            "mode 2 as one persona per item (kenton, maren)",
            "mode 1 as one persona per item (kenton, maren)"
        ]
    );
    assert_eq!(r.configurations[1].separation, Separation::Behind);
    assert!(
        r.summary.starts_with("mode 2 as one persona per item"),
        "{}",
        r.summary
    );

    // A persona study (the same items judged as two personas) still
    // ranks each persona played on its own.
    let mut ps = Vec::new();
    for i in 0..40 {
        let truth = i % 3 != 0;
        for persona in ["kenton", "maren"] {
            ps.push(pair_as(
                persona,
                "mode 2",
                Mode::Two,
                i,
                "alice",
                truth,
                truth,
            ));
        }
        ps.push(pair_as(
            "kenton",
            "mode 1",
            Mode::One,
            i,
            "alice",
            !truth,
            truth,
        ));
    }
    let all = BTreeMap::from([(Comparison::JudgeVsHuman, ps)]);
    let r = &rankings(&all, None, 500, 42)[0];
    let personas: Vec<&str> = r
        .configurations
        .iter()
        .map(|c| c.persona.as_str())
        .collect();
    assert_eq!(personas, ["kenton", "maren", "kenton"]);
    assert_eq!(r.n_shared, 40);
}

#[test]
fn one_configuration_alone_is_not_a_ranking() {
    let mut all = study();
    all.get_mut(&Comparison::JudgeVsHuman)
        .unwrap()
        .retain(|p| &*p.left == "mode 2");
    assert!(rankings(&all, None, 100, 1).is_empty());
}
