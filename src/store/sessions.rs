//! The workbench's last screen per annotator (persona, mode, filter,
//! selected item...), kept as the workbench's own JSON: the store does not
//! read it, so a newer or older workbench just ignores what it does not know.

use super::db::{OptionalExtension, params};
use super::{Result, Store};

impl Store {
    /// The session `who` last saved here, if any.
    pub fn workbench_session(&self, who: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT state FROM workbench_sessions WHERE who = ?1",
                params![who],
                |r| r.get(0),
            )
            .optional()
    }

    /// Replaces `who`'s saved session.
    pub fn save_workbench_session(&mut self, who: &str, state: &str) -> Result<()> {
        self.write_one(
            "INSERT INTO workbench_sessions (who, state, saved_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(who) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at",
            params![who, state, super::now()],
        )?;
        Ok(())
    }
}
