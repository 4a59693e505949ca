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

/// The agreement view's group table, in the order it is drawn. At 80
/// columns: comparison, sides, scale, n, agree, kappa; the key shows sides
/// and n with alpha, the base rates, the accuracies and the people's
/// agreement; from 120 columns all of them at once.
pub const AGREEMENT: &[Column] = &[
    Column::fixed("comparison", 15, false, Keep::Rank(2)),
    Column {
        head: "sides",
        width: 26,
        max: 44,
        right: false,
        keep: Keep::Both,
    },
    Column::fixed("scale", 9, false, Keep::Rank(1)),
    Column::fixed("n", 6, true, Keep::Both),
    Column::fixed("agree", 6, true, Keep::First),
    Column::fixed("kappa", 6, true, Keep::First),
    Column::fixed("alpha", 6, true, Keep::Rank(3)),
    Column::fixed("base L/R", 9, true, Keep::Rank(4)),
    Column::fixed("acc L/R", 9, true, Keep::Rank(5)),
    Column::fixed("people agree", 16, true, Keep::Rank(6)),
];

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

/// Columns `cols` shows in `width` columns, in table order, the flexible
/// one widened into the room left. `other`: the columns the first set
/// leaves out (with those kept in both), in their place.
pub fn fit(cols: &[Column], width: u16, other: bool) -> Vec<Column> {
    let first = choose(cols, width, |_| true);
    let left_out: Vec<&'static str> = cols
        .iter()
        .filter(|c| !first.iter().any(|f| f.head == c.head))
        .map(|c| c.head)
        .collect();
    let mut shown = if other && !left_out.is_empty() {
        choose(cols, width, |c| {
            c.keep == Keep::Both || left_out.contains(&c.head)
        })
    } else {
        first
    };
    widen(&mut shown, width);
    shown
}

/// The columns the first set leaves out at `width` (what the key shows).
pub fn hidden(cols: &[Column], width: u16) -> Vec<&'static str> {
    let first = fit(cols, width, false);
    cols.iter()
        .filter(|c| !first.iter().any(|f| f.head == c.head))
        .map(|c| c.head)
        .collect()
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
/// agreement table's sides (`awag mode 2 · gpt-4o-mini vs alice`) keep the
/// side after the last ` vs ` — the person, whom rows differ by — whole
/// where it fits, and as much of the start as is left (`awag mode 2…vs alice`).
pub fn elide_middle(text: &str, width: u16) -> String {
    let width = usize::from(width);
    if text.width() <= width || width < 4 {
        return text.to_string();
    }
    let (head, tail) = match text.rfind(" vs ") {
        Some(i) if text[i..].width() + 3 <= width => (&text[..i], &text[i..]),
        // No sides, or a long right side: keep the end's last half.
        _ => {
            let keep = (width - 1) / 2;
            let mut start = text.len();
            let mut w = 0;
            for (i, ch) in text.char_indices().rev() {
                let cw = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
                if w + cw > keep {
                    break;
                }
                w += cw;
                start = i;
            }
            (&text[..start], &text[start..])
        }
    };
    let room = width - tail.width() - 1;
    let mut out = String::new();
    let mut used = 0;
    for ch in head.chars() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(ch);
    }
    format!("{}…{tail}", out.trim_end())
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
    fn at_80_columns_the_agreement_table_keeps_sides_n_agreement_and_kappa() {
        let first = fit(AGREEMENT, 78, false);
        assert_eq!(
            heads(&first),
            ["comparison", "sides", "scale", "n", "agree", "kappa"]
        );
        let width: u16 = first.iter().map(|c| c.width + 1).sum::<u16>() - 1;
        assert!(width <= 78, "{width}");
        assert_eq!(
            hidden(AGREEMENT, 78),
            ["alpha", "base L/R", "acc L/R", "people agree"]
        );
        let other = fit(AGREEMENT, 78, true);
        assert_eq!(
            heads(&other),
            ["sides", "n", "alpha", "base L/R", "acc L/R", "people agree"]
        );
    }

    #[test]
    fn from_120_columns_every_agreement_column_shows() {
        assert_eq!(fit(AGREEMENT, 118, false).len(), AGREEMENT.len());
        assert!(hidden(AGREEMENT, 118).is_empty());
        // Nothing to show instead: the key changes nothing.
        assert_eq!(fit(AGREEMENT, 118, true), fit(AGREEMENT, 118, false));
    }

    #[test]
    fn a_very_narrow_table_still_has_its_kept_columns() {
        let cols = fit(AGREEMENT, 30, false);
        assert_eq!(heads(&cols), ["sides", "n", "agree", "kappa"]);
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
                eb.ends_with(" vs bob") && eb.starts_with("awag mode 2"),
                "{eb}"
            );
            assert_ne!(ea, eb);
        }
        assert_eq!(elide_middle("short vs x", 26), "short vs x");
        let long = "x".repeat(40);
        assert_eq!(elide_middle(&long, 11).width(), 11);
    }

    #[test]
    fn cells_cut_and_pad_by_display_width() {
        assert_eq!(cell("abcdef", 4, false), "abcd");
        assert_eq!(cell("ab", 4, true), "  ab");
        assert_eq!(cell("日本語", 5, false), "日本 ");
    }
}
