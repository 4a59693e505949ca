//! `jury adjudicate`.

pub const NEEDS_VALUE: &str =
    "give ITEM CLASSIFICATION VALUE to adjudicate, or --list for the queue";

pub fn no_labels(item: &str, classification: &str, perspective: &str) -> String {
    format!(
        "no one labelled {item}/{classification} ({perspective}): there is nothing to adjudicate (see `jury adjudicate --list`)"
    )
}
pub fn which_persona(personas: &str) -> String {
    format!(
        "people labelled this combination for several personas ({personas}): say which with --persona"
    )
}
pub fn no_persona_labels(persona: &str) -> String {
    format!("no one labelled this combination for persona '{persona}'")
}
pub fn bad_value(why: &str, scale: &str) -> String {
    format!("{why}; the people's labels here are on the {scale} scale")
}
pub fn adjudicated(
    item: &str,
    classification: &str,
    value: &str,
    scale: &str,
    persona: &str,
    who: &str,
) -> String {
    format!(
        "adjudicated {item}/{classification} as {value} ({scale} scale) for {persona} by {who}: the reference label from now on"
    )
}
pub fn queue_head(n: usize) -> String {
    if n == 0 {
        "no disagreement waits for adjudication".into()
    } else {
        format!("{n} combination(s) people disagree on, not yet adjudicated:")
    }
}
