//! `jury export --format label-studio`: the tasks to label ([`super::queue`])
//! as a Label Studio JSON task list (each task's `data` holds the item's
//! content and jury's ids), and the labeling config that shows them: one
//! single-choice `Choices` per scale the tasks are on, named after the scale,
//! and a `note` text area. Import the tasks into a project with that config;
//! its JSON export (`completed_by` as an id or an object with `email`) comes
//! back through `jury import` as labels ([`crate::import`]).
//!
//! Shapes from Label Studio's docs (<https://labelstud.io/guide/task_format>,
//! <https://labelstud.io/tags/choices>), checked with `label-studio-sdk`'s
//! `LabelInterface` (`tests/fixtures/label-studio/make.sh`).

use super::queue::{Task, ids, scales};
use serde_json::{Map, Value, json};

/// The name of the note's text area in the config.
pub const NOTE: &str = "note";

/// The task list: one task per combination.
pub fn tasks_json(tasks: &[Task]) -> Value {
    Value::Array(tasks.iter().map(task).collect())
}

fn task(t: &Task) -> Value {
    let mut data = Map::new();
    for (k, v) in ids(t) {
        data.insert(k.into(), json!(v));
    }
    data.insert("scale".into(), json!(t.scale.as_str()));
    data.insert("title".into(), json!(t.title));
    data.insert("text".into(), json!(t.text));
    data.insert("classification".into(), json!(t.classification));
    data.insert("selected".into(), json!(t.selected));
    data.insert("perspective".into(), json!(t.perspective));
    json!({ "data": data })
}

/// The labeling config (XML) for these tasks.
pub fn config(tasks: &[Task]) -> String {
    let scales = scales(tasks);
    // Several scales: each task answers the one its `scale` names, so no
    // single question can be required.
    let required = scales.len() <= 1;
    let mut x = String::from("<View>\n");
    x.push_str("  <Header value=\"$title\"/>\n  <Text name=\"text\" value=\"$text\"/>\n");
    for (name, header) in [
        ("classification", "Classification"),
        ("selected", "The classifier chose"),
        ("perspective", "Perspective"),
    ] {
        x.push_str(&format!(
            "  <Header value=\"{header}\" size=\"5\"/>\n  <Text name=\"{name}\" value=\"${name}\"/>\n"
        ));
    }
    if !required {
        x.push_str(
            "  <Header value=\"Answer on the scale this task names: $scale\" size=\"5\"/>\n",
        );
    }
    for s in scales {
        x.push_str(&format!(
            "  <Header value=\"{}: {}\" size=\"5\"/>\n  <Choices name=\"{}\" toName=\"text\" choice=\"single\" showInline=\"true\" required=\"{required}\">\n",
            s.as_str(),
            s.expected(),
            s.as_str()
        ));
        for v in s.values() {
            x.push_str(&format!("    <Choice value=\"{}\"/>\n", v.as_text()));
        }
        x.push_str("  </Choices>\n");
    }
    x.push_str(&format!(
        "  <TextArea name=\"{NOTE}\" toName=\"text\" maxSubmissions=\"1\" placeholder=\"Note (optional)\"/>\n</View>\n"
    ));
    x
}
