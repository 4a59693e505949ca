//! Tables whose columns give way on a narrow screen: which columns a width
//! holds, in what order they drop, and the other columns a key shows in
//! their place. Shared by the views (what to draw) and update (whether the
//! key has anything to show at this width).

use unicode_width::UnicodeWidthStr;

/// When a column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// In both sets: what tells the rows apart (sides and n, a run's id).
    Both,
    /// Always in the first set; the other set leaves it out for room.
    First,
    /// Only while there is room, the lower rank kept longer.
    Rank(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The header; it also names the column to the code that fills it.
    pub head: &'static str,
    /// Its width; the flexible column's least.
    pub width: u16,
    /// The flexible column grows into what is left, up to this (0: fixed).
    pub max: u16,
    pub right: bool,
    pub keep: Keep,
}

impl Column {
    pub const fn fixed(head: &'static str, width: u16, right: bool, keep: Keep) -> Column {
        Column {
            head,
            width,
            max: 0,
            right,
            keep,
        }
    }
}

/// The agreement view's group table, in the order it is drawn. Kappa, AC1
/// and PABAK carry their 95 % intervals (`.26 [.12,.40]`), kappa a `!` where
/// one value's prevalence makes it misleading. At 80 columns: sides, n,
/// agree, kappa and AC1; the key shows PABAK, agreement with undecided
/// answers read as 0.5, alpha and the scale, then the base rates, the
/// accuracies, the people's agreement and the comparison. At 160 columns
/// all but the comparison (the sides say it) at once, the key shows it.
pub const AGREEMENT: &[Column] = &[
    Column::fixed("comparison", 11, false, Keep::Rank(9)),
    Column {
        head: "sides",
        width: 26,
        max: 44,
        right: false,
        keep: Keep::Both,
    },
    Column::fixed("scale", 9, false, Keep::Rank(4)),
    Column::fixed("n", 6, true, Keep::Both),
    Column::fixed("agree", 6, true, Keep::First),
    Column::fixed("3 as .5", 7, true, Keep::Rank(3)),
    Column::fixed("kappa", FIGURE_WIDTH + 1, true, Keep::First),
    Column::fixed("AC1", FIGURE_WIDTH, true, Keep::Rank(1)),
    Column::fixed("PABAK", FIGURE_WIDTH, true, Keep::Rank(2)),
    Column::fixed("alpha", 6, true, Keep::Rank(5)),
    Column::fixed("base L/R", 9, true, Keep::Rank(6)),
    Column::fixed("acc L/R", 9, true, Keep::Rank(7)),
    Column::fixed("people agree", 12, true, Keep::Rank(8)),
];

/// A figure with its interval as the agreement table writes it, at its
/// widest: `-.33 [-.70,-.05]` (the leading zero dropped, as for any figure
/// that cannot pass 1, so that three of them fit beside the sides).
pub const FIGURE_WIDTH: u16 = 16;

/// The runs view's table: at 80 columns a run's id, status, start, how long
/// it took, its judge (protocol and mode, persona, model), prompt set and
/// verdicts; the key shows the counters and the cost in their place.
pub const RUNS: &[Column] = &[
    Column::fixed("id", 5, true, Keep::Both),
    Column::fixed("status", 10, false, Keep::Both),
    Column::fixed("started (UTC)", 16, false, Keep::First),
    Column::fixed("took", 7, true, Keep::Rank(1)),
    Column {
        head: "judge",
        width: 16,
        max: 48,
        right: false,
        keep: Keep::First,
    },
    Column::fixed("prompts", 8, false, Keep::Rank(2)),
    Column::fixed("verdicts", 9, true, Keep::Both),
    Column::fixed("failed", 6, true, Keep::Rank(3)),
    Column::fixed("cost", 10, true, Keep::Rank(4)),
    Column::fixed("tokens in/out", 14, true, Keep::Rank(5)),
    Column::fixed("requests", 8, true, Keep::Rank(6)),
    Column::fixed("cached", 6, true, Keep::Rank(7)),
    Column::fixed("unknown", 7, true, Keep::Rank(8)),
];

/// Columns `cols` shows in `width` columns on page `page` (taken modulo
/// the pages there are), in table order, the flexible one widened into the
/// room left. Page 0 is the first set; each later page the columns no page
/// before it showed (with those kept in both), as many as fit.
pub fn fit(cols: &[Column], width: u16, page: usize) -> Vec<Column> {
    let all = pages(cols, width);
    let heads = &all[page % all.len()];
    let mut shown: Vec<Column> = cols
        .iter()
        .filter(|c| heads.contains(&c.head))
        .copied()
        .collect();
    widen(&mut shown, width);
    shown
}

/// The pages of columns at `width`: the first set, then, while some column
/// is on none, the kept columns with as many of the rest as fit. A column
/// that fits on no page (wider than the screen alone) ends the paging.
pub fn pages(cols: &[Column], width: u16) -> Vec<Vec<&'static str>> {
    let mut pages = vec![heads(&choose(cols, width, |_| true))];
    loop {
        let seen: Vec<&'static str> = pages.iter().flatten().copied().collect();
        if cols.iter().all(|c| seen.contains(&c.head)) {
            return pages;
        }
        let next = heads(&choose(cols, width, |c| {
            c.keep == Keep::Both || !seen.contains(&c.head)
        }));
        if next.iter().all(|h| seen.contains(h)) {
            return pages;
        }
        pages.push(next);
    }
}

fn heads(cols: &[Column]) -> Vec<&'static str> {
    cols.iter().map(|c| c.head).collect()
}

/// The columns the first set leaves out at `width` (what the key shows).
pub fn hidden(cols: &[Column], width: u16) -> Vec<&'static str> {
    let first = fit(cols, width, 0);
    cols.iter()
        .filter(|c| !first.iter().any(|f| f.head == c.head))
        .map(|c| c.head)
        .collect()
}

/// The columns page `page` adds to the kept ones (what the key shows next,
/// said on the page before it).
pub fn page_heads(cols: &[Column], width: u16, page: usize) -> Vec<&'static str> {
    let all = pages(cols, width);
    let kept: Vec<&'static str> = cols
        .iter()
        .filter(|c| c.keep == Keep::Both)
        .map(|c| c.head)
        .collect();
    match page {
        0 => all[0].clone(),
        p => all
            .get(p % all.len())
            .map(|h| h.iter().filter(|h| !kept.contains(h)).copied().collect())
            .unwrap_or_default(),
    }
}

/// What a table draws at a width and what its status line says of the rest.
pub struct Paged {
    /// The columns in view.
    pub cols: Vec<Column>,
    /// The page in view and how many there are (1: every column shows).
    pub page: (usize, usize),
    /// The columns the key shows next (empty on the last page).
    pub next: Vec<&'static str>,
}

/// Page `page` of `cols` at `width`, with what comes next.
pub fn paged(cols: &[Column], width: u16, page: usize) -> Paged {
    let n = pages(cols, width).len();
    let page = page % n;
    Paged {
        cols: fit(cols, width, page),
        page: (page, n),
        next: if page + 1 < n {
            page_heads(cols, width, page + 1)
        } else {
            Vec::new()
        },
    }
}

/// The columns `wanted` admits, the always-kept first and then by rank
/// while they fit, in table order.
fn choose(cols: &[Column], width: u16, wanted: impl Fn(&Column) -> bool) -> Vec<Column> {
    let mut by_rank: Vec<&Column> = cols.iter().filter(|c| wanted(c)).collect();
    by_rank.sort_by_key(|c| match c.keep {
        Keep::Rank(r) => r,
        _ => 0,
    });
    let mut taken: Vec<&'static str> = Vec::new();
    let mut used = 0u16;
    for c in by_rank {
        let need = c.width + u16::from(!taken.is_empty());
        let always = !matches!(c.keep, Keep::Rank(_));
        if always || used + need <= width {
            used += need;
            taken.push(c.head);
        }
    }
    cols.iter()
        .filter(|c| taken.contains(&c.head))
        .copied()
        .collect()
}

/// Gives the flexible column the room the others leave, up to its most.
fn widen(cols: &mut [Column], width: u16) {
    let used: u16 = cols.iter().map(|c| c.width).sum::<u16>() + cols.len().saturating_sub(1) as u16;
    if let Some(c) = cols.iter_mut().find(|c| c.max > 0) {
        c.width = (c.width + width.saturating_sub(used)).min(c.max.max(c.width));
    }
}

/// `text` in a cell `width` columns wide: cut to fit (by display width),
/// padded on the left when `right`, else on the right.
pub fn cell(text: &str, width: u16, right: bool) -> String {
    let width = usize::from(width);
    let mut out = String::new();
    let mut used = 0;
    for ch in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > width {
            break;
        }
        used += w;
        out.push(ch);
    }
    let pad = " ".repeat(width - out.width());
    if right {
        format!("{pad}{out}")
    } else {
        format!("{out}{pad}")
    }
}

/// `text` fitted into `width` by cutting its middle, not its end: the
/// agreement table's sides (`awag mode 2 · gpt-4o-mini · prompts 4ad49c21
/// vs alice`) keep the side after the last ` vs ` — the person, whom rows
/// differ by — whole where it fits, and of the judge side its start (the
/// protocol and mode) and its end (the prompt version, whom a judge's rows
/// differ by): `awag mode 2…pts 4ad49c21 vs alice`.
pub fn elide_middle(text: &str, width: u16) -> String {
    let width = usize::from(width);
    if text.width() <= width || width < 4 {
        return text.to_string();
    }
    match text.rfind(" vs ") {
        Some(i) if text[i..].width() + 3 <= width => {
            let (head, tail) = text.split_at(i);
            format!("{}{tail}", cut_middle(head, width - tail.width()))
        }
        // No sides, or a long right side: cut the whole in its middle.
        _ => cut_middle(text, width),
    }
}

/// `text` in at most `width` columns (at least 2): its start and its end
/// with `…` between them, the start given the larger half.
fn cut_middle(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let room = width.saturating_sub(1);
    let end_room = room / 2;
    let mut start = text.len();
    let mut used = 0;
    for (i, ch) in text.char_indices().rev() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > end_room {
            break;
        }
        used += w;
        start = i;
    }
    let head_room = room - used;
    let mut head = String::new();
    let mut head_used = 0;
    for ch in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if head_used + w > head_room {
            break;
        }
        head_used += w;
        head.push(ch);
    }
    let end = text[start..].trim_start();
    // Spaces beside the `…` are trimmed; they would only pad it.
    format!("{}…{end}", head.trim_end())
}

/// A row of cells, one space apart, `text(head)` filling each column.
pub fn row(cols: &[Column], text: impl Fn(&str) -> String) -> String {
    cols.iter()
        .map(|c| cell(&text(c.head), c.width, c.right))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The header row.
pub fn header(cols: &[Column]) -> String {
    row(cols, |h| h.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heads(cols: &[Column]) -> Vec<&'static str> {
        cols.iter().map(|c| c.head).collect()
    }

    #[test]
    fn at_80_columns_the_agreement_table_keeps_sides_n_agreement_kappa_and_ac1() {
        let first = fit(AGREEMENT, 78, 0);
        assert_eq!(heads(&first), ["sides", "n", "agree", "kappa", "AC1"]);
        let width: u16 = first.iter().map(|c| c.width + 1).sum::<u16>() - 1;
        assert!(width <= 78, "{width}");
        assert_eq!(
            hidden(AGREEMENT, 78),
            [
                "comparison",
                "scale",
                "3 as .5",
                "PABAK",
                "alpha",
                "base L/R",
                "acc L/R",
                "people agree"
            ]
        );
        // Every column on some page, each page within the width.
        let pages = pages(AGREEMENT, 78);
        assert_eq!(
            pages,
            [
                vec!["sides", "n", "agree", "kappa", "AC1"],
                vec!["sides", "scale", "n", "3 as .5", "PABAK", "alpha"],
                vec![
                    "comparison",
                    "sides",
                    "n",
                    "base L/R",
                    "acc L/R",
                    "people agree"
                ],
            ]
        );
        for p in 0..pages.len() {
            let cols = fit(AGREEMENT, 78, p);
            let width: u16 = cols.iter().map(|c| c.width + 1).sum::<u16>() - 1;
            assert!(width <= 78, "page {p}: {width}");
        }
        assert_eq!(
            page_heads(AGREEMENT, 78, 1),
            ["scale", "3 as .5", "PABAK", "alpha"]
        );
        // After the last page, the first again.
        assert_eq!(fit(AGREEMENT, 78, 3), first);
    }

    #[test]
    fn at_160_columns_the_agreement_table_shows_all_but_the_comparison() {
        let first = fit(AGREEMENT, 158, 0);
        assert_eq!(first.len(), AGREEMENT.len() - 1);
        assert_eq!(hidden(AGREEMENT, 158), ["comparison"]);
        assert_eq!(pages(AGREEMENT, 158).len(), 2);
        let width: u16 = first.iter().map(|c| c.width + 1).sum::<u16>() - 1;
        assert_eq!(width, 158, "the sides take the room left");
    }

    #[test]
    fn a_very_narrow_table_still_has_its_kept_columns() {
        let cols = fit(AGREEMENT, 30, 0);
        assert_eq!(heads(&cols), ["sides", "n", "agree", "kappa"]);
        // Nothing else fits beside the kept ones: one page.
        assert_eq!(pages(AGREEMENT, 30).len(), 1);
    }

    #[test]
    fn sides_keep_the_person_when_cut() {
        let a = "awag mode 2 · gpt-4o-mini · prompts 4ad49c21 vs alice.long-name";
        let b = "awag mode 2 · gpt-4o-mini · prompts 4ad49c21 vs bob";
        for w in [26, 44] {
            let (ea, eb) = (elide_middle(a, w), elide_middle(b, w));
            assert!(ea.width() <= usize::from(w), "{ea}");
            assert!(ea.ends_with(" vs alice.long-name"), "{ea}");
            assert!(
                eb.ends_with(" vs bob") && eb.starts_with("awag mode"),
                "{eb}"
            );
            assert_ne!(ea, eb);
        }
        assert_eq!(elide_middle("short vs x", 26), "short vs x");
        // Two prompt versions of one judge stay apart when cut.
        let v1 = "awag mode 2 · demo · prompts 34eb1475 vs alice";
        let v2 = "awag mode 2 · demo · prompts 4ad49c21 vs alice";
        let (e1, e2) = (elide_middle(v1, 34), elide_middle(v2, 34));
        assert!(
            e1.width() <= 34 && e1.ends_with("34eb1475 vs alice"),
            "{e1}"
        );
        assert!(
            e2.starts_with("awag mode 2") && e2.ends_with("4ad49c21 vs alice"),
            "{e2}"
        );
        let long = "x".repeat(40);
        assert!(elide_middle(&long, 11).width() <= 11);
    }

    #[test]
    fn cells_cut_and_pad_by_display_width() {
        assert_eq!(cell("abcdef", 4, false), "abcd");
        assert_eq!(cell("ab", 4, true), "  ab");
        assert_eq!(cell("日本語", 5, false), "日本 ");
    }

    #[test]
    fn the_runs_table_shows_every_column_on_some_page_at_80_columns() {
        let pages = pages(RUNS, 78);
        for c in RUNS {
            assert!(pages.iter().flatten().any(|h| *h == c.head), "{}", c.head);
        }
    }
}
