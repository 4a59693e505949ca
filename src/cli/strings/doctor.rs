pub const ENDPOINT_SKIPPED: &str = "not checked (--skip-endpoint)";
pub const NO_CONFIG_DIR: &str =
    "no config directory on this platform; settings come from flags and the environment";
pub const KEY_PRIVATE: &str = " holds api_key and is private (0600)";
pub const WAL: &str = "journal mode WAL";
#[cfg(not(unix))]
pub const PERMISSIONS_UNCHECKED: &str = "permissions are not checked on this platform";

pub fn no_config_file(path: &str) -> String {
    format!("no config file at {path} (optional); settings come from flags and the environment")
}
/// `key` is `KEY_PRIVATE` or empty.
pub fn config_valid(path: &str, key: &str) -> String {
    format!("{path} is valid{key}")
}
pub fn config_bad(why: &str) -> String {
    format!("{why}; fix the file (the other checks run without it)")
}
pub fn no_store(path: &str, dir_exists: bool) -> String {
    format!(
        "no store yet at {path}; it is created on first use (e.g. jury import sample-data/){}",
        if dir_exists {
            ""
        } else {
            " together with its directory"
        }
    )
}
pub fn cannot_open(path: &str, why: &str) -> String {
    format!("cannot open {path}: {why}")
}
/// A PostgreSQL store answered (its URL shown without the password).
pub fn postgres_reachable(url: &str) -> String {
    format!("{url}: PostgreSQL reachable")
}
/// Connected as the store's owner or a superuser.
pub fn role_administers(role: &str) -> String {
    format!(
        "connected as {role}, who administers the store (migrations, imports under other names; not bound by row-level security)"
    )
}
/// Connected as a team member's role.
pub fn role_of_team(role: &str) -> String {
    format!(
        "connected as {role}, a team role: labels, notes, marks and tags are stored as {role}'s, and only those can be written"
    )
}
pub fn groups_missing(roles: &str) -> String {
    format!(
        "the group roles {roles} do not exist, so team members get no rights on the store: an administrator creates them (README \"A team on one store\"), then the owner runs SELECT jury_grant_team_roles()"
    )
}
pub fn integrity_ok(path: &str) -> String {
    format!("{path}: integrity ok")
}
pub fn damaged(path: &str, check: &str) -> String {
    format!(
        "{path} is damaged ({check}); do not write to it: copy it together with its -wal file and restore from a backup"
    )
}
pub fn store_error(path: &str, why: &str) -> String {
    format!("{path}: {why}")
}
pub fn not_wal(mode: &str) -> String {
    format!("journal mode is {mode}, not WAL; any jury command that writes switches it back")
}
pub fn schema_current(v: i64) -> String {
    format!("schema version {v}")
}
pub fn schema_older(v: i64, supported: i64) -> String {
    format!("schema version {v}; the next jury command that opens it upgrades it to {supported}")
}
pub fn schema_newer(v: i64, supported: i64) -> String {
    format!("schema version {v} is newer than this jury understands ({supported}); upgrade jury")
}
pub fn others_can_write(path: &str, mode: u32) -> String {
    format!("{path} can be changed by other users (mode {mode:o}); run: chmod 600 {path}")
}
pub fn read_only(path: &str, mode: u32) -> String {
    format!(
        "{path} or its directory is read-only for you (mode {mode:o}); jury needs to write the file and its -wal/-shm files next to it"
    )
}
pub fn permissions_ok(mode: u32) -> String {
    format!("permissions: mode {mode:o}, writable by you only")
}
