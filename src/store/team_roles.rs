//! Who may write what on a team's PostgreSQL store (migration 21, issue 32).
//!
//! A person is their database role. Two group roles (NOLOGIN) hold the
//! rights, and people's LOGIN roles are made members of them:
//!
//! - `jury_annotator` reads every table; writes its own labels (with their
//!   notes and tags), label history, marks, sample records, workbench
//!   session and leases; and may run the judge (runs, verdicts, failures,
//!   claims, batches). Items, personas, perspectives, splits and
//!   assignments are the owner's (`jury import`, `split`, `assign`).
//! - `jury_adjudicator` is an annotator that may also add adjudications.
//!
//! Row-level security makes "its own" hold whatever SQL a role sends: a row
//! may be inserted, or changed into, only with `who = current_user`, and
//! only such rows may be changed or deleted. Reading is not restricted.
//!
//! The owner of the tables (who ran the migrations, or a member of that
//! role) and superusers are not subject to the policies: RLS is enabled,
//! not FORCEd, on purpose. The owner is the store's administrator: it runs
//! migrations, `jury store copy` into the store (everyone's rows, under
//! their own names) and imports labels other people gave. FORCE would
//! refuse exactly those.

use super::db::Dialect;
use super::{Result, Store};

/// Migration 21 as PostgreSQL runs it (in the migrations' transaction).
/// The group roles are cluster-wide: made by the first store that needs
/// them, and skipped with a warning when the migrating role may not create
/// roles (an administrator then creates them and the owner runs
/// `SELECT jury_grant_team_roles()`).
pub const POSTGRES: &str = r#"
-- Readers need the version table before the last step would create it.
CREATE TABLE IF NOT EXISTS jury_schema (version BIGINT NOT NULL);

DO $jury$
DECLARE r TEXT;
BEGIN
    FOREACH r IN ARRAY ARRAY['jury_annotator', 'jury_adjudicator'] LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r);
        BEGIN
            EXECUTE format('CREATE ROLE %I NOLOGIN', r);
        EXCEPTION
            -- Another database's migration made it meanwhile.
            WHEN duplicate_object OR unique_violation THEN NULL;
            WHEN insufficient_privilege THEN
                RAISE WARNING 'jury: cannot create role % (needs CREATEROLE); an administrator can create it, then the owner runs SELECT jury_grant_team_roles()', r;
        END;
    END LOOP;
END
$jury$;

CREATE OR REPLACE FUNCTION jury_grant_team_roles() RETURNS void LANGUAGE plpgsql AS $jury$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jury_annotator') THEN
        GRANT SELECT ON jury_schema, items, classifications, personas, perspectives, runs,
            verdicts, failures, labels, label_events, label_samples, row_marks, skipped_inputs,
            endpoint_paths, split_rule, split_members, prompt_examples, workbench_sessions,
            run_claims, batch_jobs, batch_requests, adjudications, assignments, leases
            TO jury_annotator;
        -- A person's own writes (row-level security below keeps them their own).
        GRANT INSERT, UPDATE, DELETE ON labels, leases TO jury_annotator;
        GRANT INSERT ON label_events, row_marks TO jury_annotator;
        GRANT INSERT, UPDATE ON label_samples, workbench_sessions TO jury_annotator;
        -- Anyone on the team may run the judge (every command also marks
        -- runs whose process died as interrupted).
        GRANT INSERT, UPDATE, DELETE ON runs, verdicts, failures, run_claims, batch_jobs,
            batch_requests, endpoint_paths, prompt_examples TO jury_annotator;
        -- Tables a later migration adds are readable too.
        EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT ON TABLES TO jury_annotator',
                       current_schema());
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jury_adjudicator') THEN
        GRANT INSERT ON adjudications TO jury_adjudicator;
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'jury_annotator')
           AND NOT pg_has_role('jury_adjudicator', 'jury_annotator', 'MEMBER') THEN
            BEGIN
                GRANT jury_annotator TO jury_adjudicator;
            EXCEPTION
                -- Another database's migration granted it meanwhile.
                WHEN unique_violation OR duplicate_object THEN NULL;
                WHEN insufficient_privilege THEN
                    RAISE WARNING 'jury: cannot make jury_adjudicator a member of jury_annotator; an administrator can: GRANT jury_annotator TO jury_adjudicator';
            END;
        END IF;
    END IF;
END
$jury$;

SELECT jury_grant_team_roles();

-- Every role reads every row; a row is written only as one's own.
ALTER TABLE labels ENABLE ROW LEVEL SECURITY;
CREATE POLICY jury_read ON labels FOR SELECT USING (true);
CREATE POLICY jury_own_insert ON labels FOR INSERT
    WITH CHECK (who = CAST(current_user AS TEXT));
CREATE POLICY jury_own_update ON labels FOR UPDATE
    USING (who = CAST(current_user AS TEXT)) WITH CHECK (who = CAST(current_user AS TEXT));
CREATE POLICY jury_own_delete ON labels FOR DELETE
    USING (who = CAST(current_user AS TEXT));

-- History and marks are append-only: inserting one's own is all.
ALTER TABLE label_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY jury_read ON label_events FOR SELECT USING (true);
CREATE POLICY jury_own_insert ON label_events FOR INSERT
    WITH CHECK (who = CAST(current_user AS TEXT));

ALTER TABLE row_marks ENABLE ROW LEVEL SECURITY;
CREATE POLICY jury_read ON row_marks FOR SELECT USING (true);
CREATE POLICY jury_own_insert ON row_marks FOR INSERT
    WITH CHECK (who = CAST(current_user AS TEXT));

ALTER TABLE label_samples ENABLE ROW LEVEL SECURITY;
CREATE POLICY jury_read ON label_samples FOR SELECT USING (true);
CREATE POLICY jury_own_insert ON label_samples FOR INSERT
    WITH CHECK (who = CAST(current_user AS TEXT));
CREATE POLICY jury_own_update ON label_samples FOR UPDATE
    USING (who = CAST(current_user AS TEXT)) WITH CHECK (who = CAST(current_user AS TEXT));

ALTER TABLE workbench_sessions ENABLE ROW LEVEL SECURITY;
CREATE POLICY jury_read ON workbench_sessions FOR SELECT USING (true);
CREATE POLICY jury_own_insert ON workbench_sessions FOR INSERT
    WITH CHECK (who = CAST(current_user AS TEXT));
CREATE POLICY jury_own_update ON workbench_sessions FOR UPDATE
    USING (who = CAST(current_user AS TEXT)) WITH CHECK (who = CAST(current_user AS TEXT));

-- A lease whose time ran out is taken over by the next person (the
-- store's upsert decides when), so any lease may be updated, but only
-- into one's own; only one's own is released.
ALTER TABLE leases ENABLE ROW LEVEL SECURITY;
CREATE POLICY jury_read ON leases FOR SELECT USING (true);
CREATE POLICY jury_own_insert ON leases FOR INSERT
    WITH CHECK (who = CAST(current_user AS TEXT));
CREATE POLICY jury_take_update ON leases FOR UPDATE
    USING (true) WITH CHECK (who = CAST(current_user AS TEXT));
CREATE POLICY jury_own_delete ON leases FOR DELETE
    USING (who = CAST(current_user AS TEXT));

-- Adjudications are append-only. An undo puts back the adjudication
-- before it under its author's name: allowed only when that author really
-- gave that value and note on that slot.
ALTER TABLE adjudications ENABLE ROW LEVEL SECURITY;
CREATE POLICY jury_read ON adjudications FOR SELECT USING (true);
CREATE POLICY jury_own_insert ON adjudications FOR INSERT
    WITH CHECK (
        who = CAST(current_user AS TEXT)
        OR (kind = 'undo' AND value IS NOT NULL AND EXISTS (
            SELECT 1 FROM adjudications given
            WHERE given.item_id = adjudications.item_id
              AND given.classification_id = adjudications.classification_id
              AND given.perspective_id = adjudications.perspective_id
              AND given.persona_id = adjudications.persona_id
              AND given.scale = adjudications.scale
              AND given.who = adjudications.who
              AND given.value = adjudications.value
              AND given.note = adjudications.note)));
"#;

/// What a refusal by the server adds (a table not granted, a policy).
#[cfg(feature = "postgres")]
pub const REFUSED: &str = "on a team's PostgreSQL store a role writes only its own labels, notes, \
     marks and tags (and adjudications as a member of jury_adjudicator); imports under other \
     names, `jury assign`, `jury split` and migrations need the store's owner";

/// The role a PostgreSQL store was opened as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectedRole {
    /// `current_user`: the name a team role's writes are stored under.
    pub name: String,
    /// A superuser, a role that bypasses row-level security, or the tables'
    /// owner (or a member of it): the policies do not apply to it, and it
    /// may name other people (imports, copies).
    pub administers: bool,
    /// The group roles migration 21 grants to that do not exist (an owner
    /// that may not create roles skipped them): team roles get no rights.
    pub groups_missing: Vec<String>,
}

impl Store {
    /// The role this store is connected as; None for a SQLite file (one
    /// person, no roles).
    pub fn connected_role(&self) -> Result<Option<ConnectedRole>> {
        if self.conn.dialect() != Dialect::Postgres {
            return Ok(None);
        }
        role_of(&self.conn).map(Some)
    }

    /// The role `url` connects as, read without migrating (a store not made
    /// yet will be made, and owned, by this role: it administers it).
    #[cfg(feature = "postgres")]
    pub fn postgres_role(url: &str) -> Result<ConnectedRole> {
        role_of(&super::db::Db::Postgres(super::db::pg::PgConn::connect(
            url,
        )?))
    }

    #[cfg(not(feature = "postgres"))]
    pub fn postgres_role(url: &str) -> Result<ConnectedRole> {
        Store::open_postgres(url).map(|_| unreachable!("refused without the postgres feature"))
    }
}

/// Refuses, saying why and who can help, a migration a team role would
/// attempt: migrations are the owner's (a team role may not create or alter
/// tables, and the server's refusal would name only a table or a schema).
/// `found` is the version this role could read (0 also when it may not
/// read the version at all).
pub fn check_may_migrate(db: &super::db::Db, found: i64, location: &str) -> Result<()> {
    let role = role_of(db)?;
    if role.administers {
        return Ok(());
    }
    let name = crate::sanitize::one_line(&role.name, 60);
    Err(super::StoreError::Postgres(if found == 0 {
        format!(
            "{location} holds a jury store that the role {name} may not read: its owner makes the \
             role a member of jury_annotator or jury_adjudicator (if those roles were created after \
             the store, the owner runs SELECT jury_grant_team_roles() once)"
        )
    } else {
        format!(
            "{location} is a jury store of version {found} and this jury needs version {}: its \
             owner opens it once to migrate it (connected as {name}, a team role)",
            super::SCHEMA_VERSION
        )
    }))
}

fn role_of(db: &super::db::Db) -> Result<ConnectedRole> {
    db.query_row(
        "SELECT CAST(current_user AS TEXT),
                r.rolsuper OR r.rolbypassrls
                    OR COALESCE((SELECT pg_has_role(current_user, c.relowner, 'USAGE')
                                 FROM pg_class c WHERE c.oid = to_regclass('labels')), true),
                (SELECT string_agg(g, ',' ORDER BY g)
                 FROM unnest(ARRAY['jury_annotator', 'jury_adjudicator']) AS g
                 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = g))
         FROM pg_roles r WHERE r.rolname = current_user",
        [],
        |r| {
            Ok(ConnectedRole {
                name: r.get(0)?,
                administers: r.get::<_, i64>(1)? != 0,
                groups_missing: r
                    .get::<_, Option<String>>(2)?
                    .map(|g| g.split(',').map(str::to_owned).collect())
                    .unwrap_or_default(),
            })
        },
    )
}
