//! The page's closing sections: the verdicts people disagree with (the
//! judge's reasoning beside the people's notes), and where the figures come
//! from (jury's version, the date, the store, the runs with their models
//! and prompt sets, the split, the bootstrap).

use super::super::disagreements::{Disagreements, MAX_SHOWN};
use super::super::page::{MAX_RUNS, Provenance};
use super::{Report, by_name, esc, esc_text, th};

/// Characters of a reasoning or a note shown.
const TEXT_CHARS: usize = 2000;

pub(super) fn disagreements(h: &mut String, d: &Disagreements) {
    h.push_str("<section id=\"disagreements\">\n<h2>Where the judge and people disagree</h2>\n");
    if d.combinations == 0 {
        h.push_str("<p class=\"note\">No standing verdict disagrees with a person's label.</p>\n</section>\n");
        return;
    }
    let rest = if d.combinations > d.shown.len() {
        format!(
            " The first {MAX_SHOWN} are listed; the other {} are in <code>jury export</code> and the workbench's judge≠human filter.",
            d.combinations - d.shown.len()
        )
    } else {
        String::new()
    };
    h.push_str(&format!(
        "<p class=\"note\">{} combination(s) where a judge's standing verdict and a person's label differ ({} judge–person pair(s)), the furthest apart first; each lists the verdicts and the labels that disagree. A red edge: a judge reads the classifier as right where a person reads it as wrong, or the other way round.{rest}</p>\n",
        d.combinations, d.pairs
    ));
    h.push_str(&format!(
        "<table id=\"disagreement-table\"><tr>{}{}{}{}</tr>\n",
        th("item", 18.0, true),
        th("classification", 13.0, true),
        th("the judge says", 39.0, true),
        th("people say", 30.0, true),
    ));
    for x in &d.shown {
        let judges: String = x
            .verdicts
            .iter()
            .map(|v| {
                let reasoning = match &v.reasoning {
                    Some(t) if !t.trim().is_empty() => {
                        format!("<p class=\"text\">{}</p>", esc_text(t, TEXT_CHARS))
                    }
                    Some(_) => "<p class=\"text note\">(no reasoning given)</p>".into(),
                    None => "<p class=\"text note\">(the verdict changed while the report was written)</p>".into(),
                };
                format!(
                    "<div><b>{}</b> · {}{reasoning}</div>",
                    esc(&v.value.as_text()),
                    esc(&v.judge)
                )
            })
            .collect();
        let people: String = x
            .people
            .iter()
            .map(|p| {
                let note = if p.note.trim().is_empty() {
                    "<p class=\"text note\">(no note)</p>".to_string()
                } else {
                    format!("<p class=\"text\">{}</p>", esc_text(&p.note, TEXT_CHARS))
                };
                format!(
                    "<div><b>{}</b> · {}{note}</div>",
                    esc(&p.value.as_text()),
                    esc(&p.who)
                )
            })
            .collect();
        let classifier = match &x.classifier {
            Some(c) => format!("<span class=\"ci\">classifier: {}</span>", esc(c)),
            None => String::new(),
        };
        h.push_str(&format!(
            "<tr{}><td class=\"l\"><b>{}</b><span class=\"ci\">{}</span><span class=\"ci\">as {}</span></td><td class=\"l\">{}{classifier}<span class=\"ci\">{}</span></td><td class=\"l\">{judges}</td><td class=\"l\">{people}</td></tr>\n",
            if x.reading_differs {
                " class=\"differs\""
            } else {
                ""
            },
            esc(&x.item_id),
            esc(&x.title),
            esc(&x.persona),
            esc(&x.classification),
            esc(&x.perspective),
        ));
    }
    h.push_str("</table>\n</section>\n");
}

pub(super) fn provenance(h: &mut String, p: &Provenance, report: &Report) {
    h.push_str("<section id=\"provenance\">\n<h2>Where the figures come from</h2>\n<table id=\"provenance-table\">");
    let row = |h: &mut String, k: &str, v: String| {
        h.push_str(&format!(
            "<tr><th class=\"l\" style=\"width:18%\">{k}</th><td class=\"l\">{v}</td></tr>\n"
        ));
    };
    row(
        h,
        "made",
        format!("{} by jury {}", esc(&p.made_at), esc(&p.version)),
    );
    row(h, "store", format!("<code>{}</code>", esc(&p.store)));
    let side = match report.side {
        Some(s) => format!("the {} side of the held-out split only", s.as_str()),
        None => "every pair".into(),
    };
    let by = report
        .by
        .map_or(String::new(), |b| format!(" · grouped by {}", by_name(b)));
    let resamples = p.resamples.map_or(
        "automatic (1 000, fewer for very many small groups)".to_string(),
        |n| n.to_string(),
    );
    row(
        h,
        "figures",
        format!(
            "on {side}{by} · bootstrap seed {} · resamples {resamples}",
            p.seed
        ),
    );
    let split = match &p.split {
        Some(s) => format!(
            "held out {:.0} % by item, seed {}, made {} ({} train and {} test items fixed then)",
            s.holdout * 100.0,
            s.seed,
            esc(&s.created_at),
            s.items[0],
            s.items[1]
        ),
        None => "none (<code>jury split</code> makes one)".into(),
    };
    row(h, "held-out split", split);
    h.push_str("</table>\n");
    runs(h, p);
    h.push_str("</section>\n");
}

fn runs(h: &mut String, p: &Provenance) {
    h.push_str("<h3>Runs</h3>\n");
    if p.runs.is_empty() {
        h.push_str("<p class=\"note\">No run yet.</p>\n");
        return;
    }
    h.push_str(&format!(
        "<table id=\"runs\"><tr>{}{}{}{}{}{}{}{}{}</tr>\n",
        th("run", 5.0, false),
        th("started", 19.0, true),
        th("status", 8.0, true),
        th("judge", 10.0, true),
        th("persona", 10.0, true),
        th("perspectives", 12.0, true),
        th("model", 14.0, true),
        th("prompt set", 16.0, true),
        th("verdicts", 10.0, false),
    ));
    for r in &p.runs {
        let s = &r.spec;
        let judge = match s.mode {
            Some(m) => format!("{} mode {m}", s.protocol),
            None => s.protocol.to_string(),
        };
        h.push_str(&format!(
            "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\"><code>{}</code></td><td>{} of {}</td></tr>\n",
            r.id,
            esc(&r.created_at),
            r.status.as_str(),
            esc(&judge),
            esc(&s.persona_id),
            esc(&s.perspective_ids.join(", ")),
            esc(&s.model),
            // By name as `jury runs` shows it: `prompts-v2 (34eb1475)`.
            esc(&crate::sanitize::one_line(&r.prompt_version(), 40)),
            r.verdicts,
            r.total
        ));
    }
    h.push_str("</table>\n");
    if p.runs_total > p.runs.len() {
        h.push_str(&format!(
            "<p class=\"note\">The newest {MAX_RUNS} of {} runs; <code>jury runs</code> lists them all.</p>\n",
            p.runs_total
        ));
    }
}
