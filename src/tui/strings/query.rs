//! The search field's typed terms: why a term was left out.

fn list(values: &[impl AsRef<str>]) -> String {
    let shown: Vec<&str> = values.iter().take(8).map(AsRef::as_ref).collect();
    let more = if values.len() > 8 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

pub fn unknown_classification(token: &str, cls: &str, known: &[&str]) -> String {
    format!(
        "{token}: no classification \"{cls}\" (known: {})",
        list(known)
    )
}

pub fn no_value(token: &str, values: &[String]) -> String {
    format!("{token}: give a value ({})", list(values))
}

pub fn unknown_value(token: &str, cls: &str, value: &str, values: &[String]) -> String {
    format!("{token}: {cls} has no value \"{value}\" ({})", list(values))
}

pub fn not_a_judge_value(token: &str, value: &str) -> String {
    format!(
        "{token}: \"{value}\" is no judge value (1–5, agree, disagree, 0–9, true, false, no, partially, fully)"
    )
}

pub fn no_annotator(token: &str) -> String {
    format!("{token}: give a name, e.g. by:alice")
}

pub fn no_word(token: &str, prefix: &str) -> String {
    format!("{token}: give a word, e.g. {prefix}invoice")
}

pub fn no_split(token: &str) -> String {
    format!("{token}: this workspace has no held-out split (jury split --holdout 0.3 --seed 1)")
}

pub fn bad_side(token: &str) -> String {
    format!("{token}: the side is test or train")
}

pub fn bad_conf(token: &str) -> String {
    format!(
        "{token}: compare the judge's confidence with a number from 0 to 1, e.g. conf<0.7 or conf>=0.9"
    )
}

/// Shown in the list title when terms were left out.
pub fn ignored(n: usize) -> String {
    format!("{n} term(s) ignored")
}

pub fn unknown_tag(token: &str, tags: &[String]) -> String {
    format!("{token}: not a configured tag ({})", list(tags))
}
