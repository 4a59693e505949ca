//! Who a command writes as on a team's PostgreSQL store: the role it
//! connects as (see `domain::who_on_team_store` for the rule). Settled once,
//! before the command opens the store, for the commands that store a name.

use crate::config::Settings;
use crate::store::{Location, Store};

/// Sets `s.who` to the name the store will take from this connection;
/// refuses a `--who`/`JURY_USER` naming someone else than a team role.
/// Nothing changes for a SQLite file.
pub fn settle_who(s: &mut Settings) -> anyhow::Result<()> {
    let Location::Postgres(url) = Location::from(s.db_path.as_path()) else {
        return Ok(());
    };
    let role = Store::postgres_role(&url)?;
    s.who = crate::domain::who_on_team_store(&s.who, s.who_named_by, &role.name, role.administers)
        .map_err(anyhow::Error::msg)?;
    Ok(())
}
