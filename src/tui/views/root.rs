use crate::tui::app::{App, View};
use crate::tui::layout;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

/// The whole screen.
pub struct Root<'a>(pub &'a App);

impl Widget for Root<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        buf.set_style(area, app.chrome.theme.text);
        let p = layout::panes(area, layout::legend::height(app, area.width));
        let (body, _, _) = layout::body_and_bars(area);
        match &app.chrome.view {
            View::Main => {
                super::list::ListPane(app).render(p.list, buf);
                super::item::ItemPane(app).render(p.item, buf);
                super::verdicts::VerdictPane(app).render(p.verdicts, buf);
                super::legend::Legend(app).render(p.legend, buf);
            }
            View::Compare => super::compare::CompareView(app).render(body, buf),
            View::Personas { cursor } => super::personas::PersonasView {
                app,
                cursor: *cursor,
            }
            .render(body, buf),
            View::Runs(rv) => super::runs::RunsPane { app, view: rv }.render(body, buf),
            View::Agreement(state) => {
                super::agreement::AgreementView { app, state }.render(body, buf)
            }
            View::Prompt { text, scroll } => super::text::TextView {
                app,
                title: " prompt: what is sent for this item (j/k scroll, esc back) ",
                text,
                scroll: *scroll,
            }
            .render(body, buf),
            View::Help { scroll } => super::text::HelpView {
                app,
                scroll: *scroll,
            }
            .render(body, buf),
        }
        super::status::StatusBar(app).render(p.status, buf);
        super::status::MessageLine(app).render(p.message, buf);
        if let Some(popup) = &app.chrome.popup {
            super::popup::PopupView { app, popup }.render(area, buf);
        }
    }
}
