//! The agreement view at 80×24 and 160×45: sides, n, agreement and kappa kept,
//! the confusion matrix unwrapped, the rows below the group table counted.

use super::*;

// ----- the agreement view -----

#[test]
fn the_agreement_table_keeps_sides_n_agreement_kappa_and_ac1_at_80_columns() {
    let (mut app, groups) = agreement(80, 24);
    let s = screen(&app);
    let header = lines(&s)
        .into_iter()
        .find(|l| l.contains("sides"))
        .unwrap_or_else(|| panic!("a header:\n{s}"));
    for want in ["sides", " n", "agree", "kappa", "AC1"] {
        assert!(header.contains(want), "{want}: {header}\n{s}");
    }
    // The first group's row carries its kappa (the leading zero dropped).
    let kappa =
        format!("{:.2}", groups[0].figures.cohen_kappa.value.unwrap()).replacen("0.", ".", 1);
    let row = lines(&s)
        .into_iter()
        .find(|l| l.contains("alice") && l.contains(&kappa))
        .unwrap_or_else(|| panic!("kappa {kappa} on the first row:\n{s}"));
    assert!(row.chars().count() <= 82, "{row}");
    // The other columns are a key away, a set at a time.
    assert!(!header.contains("PABAK"), "{header}");
    let mut shown = Vec::new();
    for want in [
        &["scale", "3 as .5", "PABAK", "alpha"][..],
        &["base L/R", "acc L/R", "people agree", "comparison"][..],
    ] {
        key(&mut app, 'w');
        let other = screen(&app);
        let header = lines(&other)
            .into_iter()
            .find(|l| l.contains("sides"))
            .unwrap_or_else(|| panic!("a header:\n{other}"));
        for want in want {
            assert!(header.contains(want), "{want}: {header}\n{other}");
        }
        shown.push(other);
    }
    insta::assert_snapshot!("agreement_80x24", s);
    insta::assert_snapshot!("agreement_80x24_other_columns", shown[0]);
    insta::assert_snapshot!("agreement_80x24_third_columns", shown[1]);
    // Back again after the last; at 120 columns the figures show at once,
    // the base rates and the rest a key away.
    key(&mut app, 'w');
    assert_eq!(screen(&app), s);
    sized(&mut app, 120, 30);
    let all = screen(&app);
    let header = lines(&all)
        .into_iter()
        .find(|l| l.contains("sides"))
        .unwrap();
    for want in ["agree", "3 as .5", "kappa", "AC1", "PABAK", "alpha"] {
        assert!(header.contains(want), "{want}: {header}\n{all}");
    }
}

#[test]
fn the_confusion_matrix_never_wraps_at_80_columns() {
    let (mut app, groups) = agreement(80, 24);
    // Each group in turn: its matrix's header holds every value name on one
    // row, and each matrix row holds its name and all its counts.
    for (gi, g) in groups.iter().enumerate() {
        let s = screen(&app);
        let k = g.figures.k;
        let names: Vec<String> = g.scale.values().iter().map(|v| v.as_text()).collect();
        if names.len() == k {
            let head = names.join(" ");
            let found = lines(&s).iter().any(|l| {
                l.split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .contains(&head)
            });
            assert!(found, "group {gi}: the header {head:?} on one row:\n{s}");
        }
        for (r, row) in g.figures.confusion_matrix.iter().enumerate() {
            let name = names.get(r).cloned().unwrap_or_else(|| r.to_string());
            let want: Vec<String> = std::iter::once(name)
                .chain(row.iter().map(|c| c.to_string()))
                .collect();
            let want = want.join(" ");
            let found = lines(&s).iter().any(|l| {
                l.trim_matches('"')
                    .trim_matches('│')
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .starts_with(&want)
            });
            assert!(found, "group {gi}: matrix row {want:?} on one row:\n{s}");
        }
        key(&mut app, 'j');
    }
}

#[test]
fn the_group_table_says_how_many_rows_are_below() {
    let (_dir, store) = judged_workspace();
    let report = jury::report::Report::build(&store, None, Some(50), 42, &mut ()).unwrap();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    sized(&mut app, 80, 24);
    key(&mut app, 'A');
    // Three times the groups: more than 80×24 shows.
    let mut groups = report.groups.clone();
    groups.extend(report.groups.clone());
    groups.extend(report.groups.clone());
    let n = groups.len();
    answer_agreement(&mut app, AgreementPart::Figures(Ok(groups)));
    let s = screen(&app);
    let shown = lines(&s)
        .iter()
        .filter(|l| l.contains(" vs ") && !l.contains("confusion"))
        .count();
    assert!(shown < n, "{shown} of {n}:\n{s}");
    let more = format!("↓ {} more", n - shown);
    assert!(s.contains(&more), "{more}:\n{s}");
    // At the last group nothing is below, and the rows above are said.
    key(&mut app, 'G');
    let s = screen(&app);
    assert!(!s.contains("↓"), "{s}");
    assert!(s.contains("↑"), "{s}");
}

#[test]
fn the_agreement_view_at_160_columns_cuts_no_legend() {
    let (app, _) = agreement(160, 45);
    let s = screen(&app);
    let text = pane_text(&s, 1, 159);
    let legend = "acc = the classifier's accuracy as each side reads it";
    assert!(text.contains(legend), "{legend}:\n{s}");
    // The figures' column, from its heading to the chart's border.
    let at = |l: &str, what: &str| l.find(what).map(|b| l[..b].chars().count());
    let from = s.lines().find_map(|l| at(l, "figures · n")).expect(&s);
    let to = s.lines().find_map(|l| at(l, "┌ distributions")).expect(&s);
    let figures = pane_text(&s, from - 1, to - 1);
    let footnote = "[a,b] 95 %: exact for shares, else 1000 resamples (n≥30)";
    assert!(figures.contains(footnote), "{footnote}:\n{figures}\n{s}");
    insta::assert_snapshot!("agreement_160x45", s);
}

/// A kappa that one dominant value makes misleading (90 of 100 pairs both
/// AGREE: agreement 0.95, kappa far below) is marked `!` in the table, the
/// mark is said under it, and the selected group's figures give AC1 and
/// PABAK with their intervals and the report's note, at 160×45 and 80×24.
#[test]
fn a_kappa_one_dominant_value_makes_misleading_is_marked_beside_ac1_and_pabak() {
    let (_dir, store) = judged_workspace();
    let report = jury::report::Report::build(&store, None, Some(1000), 42, &mut ()).unwrap();
    let mut pairs = vec![(0u8, 0u8); 90];
    pairs.extend([(0, 1); 3]);
    pairs.extend([(1, 0); 2]);
    pairs.extend([(1, 1); 5]);
    let figures = jury::analytics::Figures::compute(&pairs, 2, false, 1000, 42).unwrap();
    let note = figures.prevalence.clone().expect("kappa misleads here");
    let mut g = report
        .groups
        .iter()
        .find(|g| g.mapped)
        .expect("a judge group on AGREE/DISAGREE")
        .clone();
    g.figures = figures;
    g.undecided = 0;
    g.agreement_undecided_half = None;
    for (w, h, name) in [
        (160, 45, "agreement_prevalence_160x45"),
        (80, 24, "agreement_prevalence_80x24"),
    ] {
        let mut app = app_with(jury::tui::load(&store).unwrap());
        sized(&mut app, w, h);
        key(&mut app, 'A');
        answer_agreement(&mut app, AgreementPart::Figures(Ok(vec![g.clone()])));
        let s = screen(&app);
        let row = lines(&s)
            .into_iter()
            .find(|l| l.contains(" vs ") && !l.contains("confusion"))
            .unwrap_or_else(|| panic!("the group's row:\n{s}"));
        // Marked right after kappa (here without an interval: few answers
        // off the dominant value).
        let kappa = format!("{:.2}", g.figures.cohen_kappa.value.unwrap()).replacen("0.", ".", 1);
        assert!(
            row.contains(&format!("{kappa} (dominant)!")),
            "kappa marked: {row}\n{s}"
        );
        assert!(s.contains("kappa ! : misleading, one value is most"), "{s}");
        let f = &g.figures;
        for (name, fig) in [("Gwet's AC1", &f.gwet_ac1), ("PABAK", &f.pabak)] {
            let line = format!("{name:<18} {}", jury::report::figure_text(fig));
            assert!(fig.ci95.is_some() && s.contains(&line), "{line}:\n{s}");
        }
        // The note, wrapped in the figures' column.
        let at = |l: &str, what: &str| l.find(what).map(|b| l[..b].chars().count());
        let from = s.lines().find_map(|l| at(l, "figures · n")).expect(&s);
        let to = s
            .lines()
            .find_map(|l| at(l, "┌ distributions"))
            .unwrap_or(usize::from(w));
        let figures = pane_text(&s, from - 1, to - 1);
        assert!(
            figures.contains(&format!("kappa misleads: {note}")),
            "{note}:\n{figures}\n{s}"
        );
        insta::assert_snapshot!(name, s);
    }
}
