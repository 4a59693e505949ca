//! A person's name (`--who`, `JURY_USER`, the config's `who`, an imported
//! label's `who`): what it may not be.

/// Why `who` cannot name a person, if it cannot: blank (a label must say
/// who gave it), or holding `:`, which separates the parts of the wide
/// export's column names (`label:WHO:SCALE`): a person named
/// `alice:likert` would take alice's Likert column.
pub fn refused_who(who: &str) -> Option<String> {
    if who.trim().is_empty() {
        return Some("a person's name cannot be empty or blank".into());
    }
    who.contains(':').then(|| {
        format!(
            "'{}' cannot name a person: ':' separates the parts of the wide export's column names (label:WHO:SCALE); use another character, e.g. '{}'",
            crate::sanitize::one_line(who, 60),
            crate::sanitize::one_line(&who.replace(':', "-"), 60)
        )
    })
}

/// The name a person's writes are stored under on a team's PostgreSQL
/// store, where a person is the database role they connect as (`role`).
/// A role that administers the store (its owner, a superuser) keeps
/// `asked`: it may name other people, as an import of their labels does.
/// Any other role writes as itself: a name given explicitly (`named_by`:
/// `--who`, `JURY_USER`, the config's `who`) that is not the role is
/// refused, rather than stored under another name than asked (row-level
/// security would refuse the write anyway); a name only guessed from the
/// login is replaced by the role.
pub fn who_on_team_store(
    asked: &str,
    named_by: Option<&str>,
    role: &str,
    administers: bool,
) -> Result<String, String> {
    if administers {
        return Ok(asked.to_string());
    }
    if let Some(why) = refused_who(role) {
        return Err(format!(
            "the PostgreSQL role you connect as cannot be a person's name in jury: {why}"
        ));
    }
    match named_by {
        Some(source) if asked != role => Err(format!(
            "{source} names '{}', but on a team's PostgreSQL store a person is the role they \
             connect as, here '{}': leave {source} out, or connect as '{}'",
            crate::sanitize::one_line(asked, 60),
            crate::sanitize::one_line(role, 60),
            crate::sanitize::one_line(asked, 60)
        )),
        _ => Ok(role.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_role_writes_as_itself_and_an_owner_names_anyone() {
        // The owner (or a superuser) keeps the name asked for: imports.
        assert_eq!(
            who_on_team_store("alice", Some("--who"), "jury_owner", true),
            Ok("alice".into())
        );
        // A name guessed from the login gives way to the role.
        assert_eq!(
            who_on_team_store("alex", None, "bob", false),
            Ok("bob".into())
        );
        // Naming oneself is fine; naming someone else is refused, saying why.
        assert_eq!(
            who_on_team_store("bob", Some("JURY_USER"), "bob", false),
            Ok("bob".into())
        );
        let refused = who_on_team_store("alice", Some("--who"), "bob", false).unwrap_err();
        assert!(refused.contains("--who names 'alice'"), "{refused}");
        assert!(refused.contains("here 'bob'"), "{refused}");
        // A role whose name jury cannot store (a quoted name with ':').
        let bad = who_on_team_store("x", None, "team:bob", false).unwrap_err();
        assert!(bad.contains("':' separates"), "{bad}");
    }

    #[test]
    fn blank_names_and_colons_are_refused() {
        assert_eq!(refused_who("alice"), None);
        assert_eq!(refused_who("Ana Lima"), None);
        for bad in ["", "  ", "\t", "alice:likert", ":"] {
            assert!(refused_who(bad).is_some(), "{bad:?}");
        }
        assert!(
            refused_who("alice:likert")
                .unwrap()
                .contains("alice-likert")
        );
    }
}
