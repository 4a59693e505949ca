//! The agreement view at 80×24 and 160×45: sides, n, agreement and kappa kept,
//! the confusion matrix unwrapped, the rows below the group table counted.

use super::*;

// ----- the agreement view -----

#[test]
fn the_agreement_table_keeps_sides_n_agreement_and_kappa_at_80_columns() {
    let (mut app, groups) = agreement(80, 24);
    let s = screen(&app);
    let header = lines(&s)
        .into_iter()
        .find(|l| l.contains("sides"))
        .unwrap_or_else(|| panic!("a header:\n{s}"));
    for want in ["sides", " n", "agree", "kappa"] {
        assert!(header.contains(want), "{want}: {header}\n{s}");
    }
    // The first group's row carries its kappa.
    let kappa = format!("{:.2}", groups[0].figures.cohen_kappa.value.unwrap());
    let row = lines(&s)
        .into_iter()
        .find(|l| l.contains("alice") && l.contains(&kappa))
        .unwrap_or_else(|| panic!("kappa {kappa} on the first row:\n{s}"));
    assert!(row.chars().count() <= 82, "{row}");
    // The other columns are a key away.
    assert!(!header.contains("people agree"), "{header}");
    key(&mut app, 'w');
    let wide = screen(&app);
    let header = lines(&wide)
        .into_iter()
        .find(|l| l.contains("sides"))
        .unwrap_or_else(|| panic!("a header:\n{wide}"));
    for want in ["alpha", "base L/R", "acc L/R", "people agree"] {
        assert!(header.contains(want), "{want}: {header}\n{wide}");
    }
    insta::assert_snapshot!("agreement_80x24", s);
    insta::assert_snapshot!("agreement_80x24_other_columns", wide);
    // Back again; and from 120 columns every column shows at once.
    key(&mut app, 'w');
    assert_eq!(screen(&app), s);
    sized(&mut app, 120, 30);
    let all = screen(&app);
    let header = lines(&all)
        .into_iter()
        .find(|l| l.contains("sides"))
        .unwrap();
    for want in [
        "agree",
        "kappa",
        "alpha",
        "base L/R",
        "acc L/R",
        "people agree",
    ] {
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
    let footnote = "[a,b] 95 %: Wilson for shares, else 1000 resamples (n≥30)";
    assert!(figures.contains(footnote), "{footnote}:\n{figures}\n{s}");
    insta::assert_snapshot!("agreement_160x45", s);
}
