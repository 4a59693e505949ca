use crate::sanitize;
use crate::tui::app::{AgreementRow, App};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget};

/// Judge vs human per classification: n, percent agreement, base rates.
pub struct AgreementView<'a> {
    pub app: &'a App,
    pub rows: &'a [AgreementRow],
}

impl Widget for AgreementView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.app.theme;
        let mut lines = vec![
            Line::styled(
                "every label against the latest verdict on the same item, classification, perspective and persona",
                t.muted,
            ),
            Line::styled(
                "across scales Likert ≥4 = AGREE, ≤2 = DISAGREE, 3 undecided (counted apart)",
                t.muted,
            ),
            Line::raw(""),
            Line::styled(
                format!(
                    "{:<28} {:>6} {:>8} {:>9} {:>10} {:>14} {:>14}",
                    "classification",
                    "n",
                    "agree",
                    "% agree",
                    "undecided",
                    "judge AGREE %",
                    "human AGREE %"
                ),
                t.title,
            ),
        ];
        let pct = |a: usize, n: usize| {
            if n == 0 {
                "–".to_string()
            } else {
                format!("{:.1}", 100.0 * a as f64 / n as f64)
            }
        };
        let (mut tn, mut ta) = (0, 0);
        for r in self.rows {
            tn += r.n;
            ta += r.agree;
            let style = if r.n > 0 && (r.agree as f64) < 0.7 * r.n as f64 {
                t.disagree
            } else {
                t.text
            };
            lines.push(Line::styled(
                format!(
                    "{:<28} {:>6} {:>8} {:>9} {:>10} {:>14} {:>14}",
                    sanitize::one_line(&r.classification, 28),
                    r.n,
                    r.agree,
                    pct(r.agree, r.n),
                    r.undecided,
                    pct(r.judge_agree, r.n),
                    pct(r.human_agree, r.n)
                ),
                style,
            ));
        }
        lines.push(Line::styled(
            format!("{:<28} {:>6} {:>8} {:>9}", "all", tn, ta, pct(ta, tn)),
            t.accent,
        ));
        if self.rows.is_empty() {
            lines.push(Line::styled(
                "no item has both a verdict and a label yet",
                t.muted,
            ));
        }
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .title(" agreement: judge vs human (esc back) ")
                    .border_style(t.border_focused)
                    .title_style(t.title),
            )
            .render(area, buf);
    }
}
