//! What the workbench says about "come back later" marks and label tags.

pub const NO_ROW_TO_MARK: &str = "no classification row to mark";
pub const NO_ROW_TO_TAG: &str = "no classification row to tag";
pub const NO_TAGS: &str = "no tags configured: set `tags = [...]` in config.toml";

/// A mark is "a note and no label": a labelled row is not marked.
pub fn already_labelled(undo_key: &str) -> String {
    format!(
        "this row has your label: a mark is for a row left without one ({undo_key} undoes the label)"
    )
}

/// Tags belong to a label.
pub fn label_first(tag_key: &str) -> String {
    format!("label this row first, then tag it ({tag_key})")
}

pub fn marked(what: &str, mark: &str) -> String {
    format!("marked {mark}: {what} (never counted as a label; f lists your marks)")
}

pub fn mark_undone(what: &str, mark: &str, back: Option<&str>) -> String {
    match back {
        Some(b) => format!("undone: {mark} on {what} → back to {b}"),
        None => format!("undone: {mark} on {what} → no mark"),
    }
}

/// A mark refused while the store is away, held for when it is back.
pub fn mark_kept_while_away(n: usize) -> String {
    format!(
        "store unreachable: {n} mark(s) held, saved when it answers (quitting before then loses them)"
    )
}

pub fn mark_not_saved(err: &str) -> String {
    format!("the mark was not saved: {err}")
}

/// The note editor's title for a mark.
pub fn note_title(mark: &str, submit: &str, close: &str) -> String {
    format!(" {mark}: a note for later ({submit} marks, {close} cancels) ")
}

/// The tag picker's title.
pub fn picker_title(toggle: &str, close: &str) -> String {
    format!(" tags: why the judge was wrong ({toggle} toggles, {close} closes) ")
}
