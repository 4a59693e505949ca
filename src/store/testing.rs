//! Tests against a real PostgreSQL (issue 32): `JURY_TEST_POSTGRES_URL`
//! names a server where the tests may create databases (`.ci/postgres.sh`
//! starts one). Each test gets a database of its own, dropped when it ends.
//! Without the variable a PostgreSQL test says it skipped and passes,
//! unless `JURY_REQUIRE_POSTGRES=1` (CI), where it fails.

use super::Store;
#[cfg(feature = "postgres")]
use super::location;
#[cfg(feature = "postgres")]
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a test prints when it cannot reach a PostgreSQL.
pub const SKIPPED: &str =
    "skipped: no PostgreSQL (set JURY_TEST_POSTGRES_URL; .ci/postgres.sh starts one)";

/// The server's superuser URL, or None (said, and a failure when required).
pub fn server_url() -> Option<String> {
    match std::env::var("JURY_TEST_POSTGRES_URL") {
        Ok(u) if !u.trim().is_empty() => Some(u),
        _ => {
            if std::env::var("JURY_REQUIRE_POSTGRES").is_ok_and(|v| v == "1") {
                panic!("JURY_REQUIRE_POSTGRES=1 but JURY_TEST_POSTGRES_URL is not set");
            }
            eprintln!("{SKIPPED}");
            None
        }
    }
}

#[cfg(feature = "postgres")]
/// A database of its own for one test; dropped (with any connection still
/// open to it) when this is dropped.
pub struct TestDatabase {
    server: String,
    name: String,
    /// `postgres://.../NAME`: the store's location.
    pub url: String,
}

#[cfg(feature = "postgres")]
static NEXT: AtomicUsize = AtomicUsize::new(0);

#[cfg(feature = "postgres")]
impl TestDatabase {
    /// A new, empty database on the test server (None: no server; see [`server_url`]).
    pub fn create() -> Option<TestDatabase> {
        let server = server_url()?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let name = format!(
            "jury_t_{}_{}_{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        admin(&server, &format!("CREATE DATABASE {name}"));
        let mut url = reqwest::Url::parse(&server).expect("JURY_TEST_POSTGRES_URL is a URL");
        url.set_path(&format!("/{name}"));
        Some(TestDatabase {
            server,
            name,
            url: url.to_string(),
        })
    }

    /// A jury store in this database (migrated).
    pub fn store(&self) -> Store {
        Store::open_postgres(&self.url).expect("a store on the test PostgreSQL")
    }

    /// Ends every session on this database, as a server restart or a
    /// network cut does to the clients (each one's next call fails).
    pub fn end_sessions(&self) {
        admin(
            &self.server,
            &format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = '{}' AND pid <> pg_backend_pid()",
                self.name
            ),
        );
    }
}

#[cfg(feature = "postgres")]
/// A LOGIN role on the test server for one test (no password: the test
/// cluster trusts loopback), dropped when this is dropped. Roles belong to
/// the whole cluster, not to the test's database: the name starts with the
/// database's, so tests running at once never share a role.
pub struct TestRole {
    server: String,
    database: String,
    /// The test database as the server's superuser.
    database_url: String,
    /// The role's name, what jury stores as `who` for its writes.
    pub name: String,
    /// The test database's URL as this role.
    pub url: String,
}

#[cfg(feature = "postgres")]
impl TestDatabase {
    /// A LOGIN role `<database>_<person>`, member of `groups` (e.g.
    /// `jury_annotator`, made by the store's migrations: open
    /// [`TestDatabase::store`] first).
    pub fn login_role(&self, person: &str, groups: &[&str]) -> TestRole {
        let name = format!("{}_{person}", self.name);
        admin(&self.server, &format!("CREATE ROLE {name} LOGIN"));
        for group in groups {
            admin(&self.server, &format!("GRANT {group} TO {name}"));
        }
        let mut url = reqwest::Url::parse(&self.url).expect("the test database's URL");
        url.set_username(&name).expect("a URL with a user");
        url.set_password(None).expect("a URL without a password");
        TestRole {
            server: self.server.clone(),
            database: self.name.clone(),
            database_url: self.url.clone(),
            name,
            url: url.to_string(),
        }
    }

    /// Makes `role` the owner of this database (what `CREATE DATABASE ...
    /// OWNER` does): it may then create the store's tables.
    pub fn give_to(&self, role: &TestRole) {
        admin(
            &self.server,
            &format!("ALTER DATABASE {} OWNER TO {}", self.name, role.name),
        );
    }
}

#[cfg(feature = "postgres")]
impl Drop for TestRole {
    /// Whatever the role came to own (the database, a store's tables) goes
    /// back to the server's superuser first, or the role could not be
    /// dropped. Never panics: it runs while a failed test unwinds too.
    fn drop(&mut self) {
        let name = &self.name;
        let steps = [
            (
                &self.server,
                format!("ALTER DATABASE {} OWNER TO CURRENT_USER", self.database),
            ),
            (
                &self.database_url,
                format!("REASSIGN OWNED BY {name} TO CURRENT_USER; DROP OWNED BY {name}"),
            ),
            (&self.server, format!("DROP ROLE IF EXISTS {name}")),
        ];
        let mut failed = None;
        for (url, sql) in steps {
            // The database may be gone already: then only the role is left.
            failed = try_admin(url, &sql).err();
        }
        if let Some(e) = failed {
            eprintln!("the test role {name} was not dropped: {e}");
        }
    }
}

#[cfg(feature = "postgres")]
/// As [`admin`], saying what went wrong instead of panicking.
fn try_admin(url: &str, sql: &str) -> super::Result<()> {
    super::db::pg::PgConn::connect(url)?.batch(sql)
}

#[cfg(feature = "postgres")]
impl Drop for TestDatabase {
    fn drop(&mut self) {
        admin(
            &self.server,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

#[cfg(feature = "postgres")]
/// Runs `sql` on the server's own database (outside any transaction).
fn admin(server: &str, sql: &str) {
    let conn = super::db::pg::PgConn::connect(server).unwrap_or_else(|e| {
        panic!(
            "the test PostgreSQL at {}: {e}",
            location::display_url(server)
        )
    });
    conn.batch(sql)
        .unwrap_or_else(|e| panic!("{sql} on the test PostgreSQL: {e}"));
}

/// A fresh store on each backend there is: SQLite in memory, and a
/// database of its own on the test PostgreSQL when there is one. The
/// same test body runs on each (`for (name, store) in backends() {...}`);
/// the database lives as long as its store.
pub fn backends() -> Vec<(&'static str, Store)> {
    #[cfg_attr(not(feature = "postgres"), allow(unused_mut))]
    let mut out = vec![("sqlite", Store::open_in_memory().expect("in-memory store"))];
    #[cfg(feature = "postgres")]
    if let Some(db) = TestDatabase::create() {
        let mut store = db.store();
        store._keep = Some(Box::new(db));
        out.push(("postgres", store));
    }
    out
}

/// Runs `test` on a fresh store of each backend (see [`backends`]); a
/// failure names the backend.
pub fn each_backend(mut test: impl FnMut(&mut Store)) {
    for (name, mut store) in backends() {
        eprintln!("store backend: {name}");
        test(&mut store);
    }
}

#[cfg(feature = "postgres")]
/// A PostgreSQL cluster of its own for a test that stops and starts the
/// server (a restart mid-session): `.ci/postgres.sh` makes it, so no other
/// test's server goes down. Removed when dropped. None (said, a failure
/// under `JURY_REQUIRE_POSTGRES=1`) where the tests have no PostgreSQL.
pub struct OwnCluster {
    /// The superuser's URL (`postgres://jury_test@127.0.0.1:PORT/postgres`).
    pub url: String,
    dir: std::path::PathBuf,
}

#[cfg(feature = "postgres")]
impl OwnCluster {
    pub fn start() -> Option<OwnCluster> {
        server_url()?;
        let out = std::process::Command::new("bash")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/postgres.sh"))
            .output()
            .expect("run .ci/postgres.sh");
        assert!(
            out.status.success(),
            ".ci/postgres.sh: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let var = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("export {name}=")))
                .unwrap_or_else(|| panic!(".ci/postgres.sh said no {name}: {text}"))
                .to_string()
        };
        Some(OwnCluster {
            url: var("JURY_TEST_POSTGRES_URL"),
            dir: var("JURY_TEST_POSTGRES_DIR").into(),
        })
    }

    /// A database on this cluster for the test (as [`TestDatabase::create`]).
    pub fn database(&self) -> TestDatabase {
        let name = format!("jury_own_{}", NEXT.fetch_add(1, Ordering::Relaxed));
        admin(&self.url, &format!("CREATE DATABASE {name}"));
        let mut url = reqwest::Url::parse(&self.url).expect("the cluster's URL");
        url.set_path(&format!("/{name}"));
        TestDatabase {
            server: self.url.clone(),
            name,
            url: url.to_string(),
        }
    }

    /// `pg_ctl` on the cluster as its owner (initdb refuses root).
    fn pg_ctl(&self, args: &[&str]) {
        let owner = std::process::Command::new("stat")
            .args(["-c", "%U"])
            .arg(&self.dir)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .expect("the cluster's owner");
        let bindir = std::fs::read_to_string(self.dir.join("bindir")).expect("bindir");
        let data = self.dir.join("data");
        let status = std::process::Command::new("runuser")
            .args(["-u", &owner, "--"])
            .arg(format!("{}/pg_ctl", bindir.trim()))
            .arg("-D")
            .arg(&data)
            .args(args)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run pg_ctl");
        assert!(status.success(), "pg_ctl {args:?} failed");
    }

    /// Stops the server at once (`-m fast`: sessions ended, the port closed:
    /// a client's connection is refused until [`OwnCluster::start_again`]).
    pub fn stop(&self) {
        self.pg_ctl(&["-m", "fast", "-w", "stop"]);
    }

    /// Starts the server again on the same port, as `.ci/postgres.sh` did.
    pub fn start_again(&self) {
        let port = reqwest::Url::parse(&self.url)
            .ok()
            .and_then(|u| u.port())
            .expect("the cluster's port");
        let opts = format!(
            "-c listen_addresses=127.0.0.1 -p {port} -k {} -c fsync=off -c max_connections=200",
            self.dir.display()
        );
        let log = self.dir.join("server.log");
        self.pg_ctl(&[
            "-l",
            &log.to_string_lossy(),
            "-w",
            "-t",
            "60",
            "-o",
            &opts,
            "start",
        ]);
    }
}

#[cfg(feature = "postgres")]
impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/postgres.sh"))
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

#[cfg(feature = "postgres")]
/// A TCP proxy in front of a test server, to cut the network between jury
/// and PostgreSQL: [`CutProxy::cut`] closes every connection through it and
/// stops listening (a new connection is refused), [`CutProxy::mend`]
/// listens again on the same port. The server itself never notices more
/// than clients going away.
pub struct CutProxy {
    /// The test database's URL through the proxy.
    pub url: String,
    port: u16,
    upstream: std::net::SocketAddr,
    state: std::sync::Arc<ProxyState>,
}

#[cfg(feature = "postgres")]
#[derive(Default)]
struct ProxyState {
    /// Bumped by each cut: a listener of an older generation stops.
    generation: AtomicUsize,
    open: std::sync::Mutex<Vec<std::net::TcpStream>>,
}

#[cfg(feature = "postgres")]
impl CutProxy {
    /// A proxy to the server of `db` on a free loopback port, listening.
    pub fn to(db: &TestDatabase) -> CutProxy {
        let mut url = reqwest::Url::parse(&db.url).expect("the database URL");
        let host = url.host_str().expect("a host").to_string();
        let upstream =
            std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), url.port().unwrap_or(5432)))
                .expect("the server's address")
                .next()
                .expect("an address");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("the proxy's port").port();
        url.set_port(Some(port)).expect("a port");
        let proxy = CutProxy {
            url: url.to_string(),
            port,
            upstream,
            state: Default::default(),
        };
        proxy.serve(listener);
        proxy
    }

    fn serve(&self, listener: std::net::TcpListener) {
        let (state, upstream) = (self.state.clone(), self.upstream);
        let generation = state.generation.load(Ordering::SeqCst);
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        std::thread::spawn(move || {
            while state.generation.load(Ordering::SeqCst) == generation {
                let client = match listener.accept() {
                    Ok((c, _)) => c,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        continue;
                    }
                    Err(_) => break,
                };
                let _ = client.set_nonblocking(false);
                let Ok(server) = std::net::TcpStream::connect(upstream) else {
                    continue;
                };
                let mut open = state.open.lock().expect("the proxy's connections");
                for s in [&client, &server] {
                    if let Ok(c) = s.try_clone() {
                        open.push(c);
                    }
                }
                drop(open);
                if state.generation.load(Ordering::SeqCst) != generation {
                    // Accepted as the cut came: cut too.
                    let _ = client.shutdown(std::net::Shutdown::Both);
                    let _ = server.shutdown(std::net::Shutdown::Both);
                    break;
                }
                for (mut from, mut to) in [
                    (client.try_clone(), server.try_clone()),
                    (server.try_clone(), client.try_clone()),
                ]
                .into_iter()
                .filter_map(|(a, b)| Some((a.ok()?, b.ok()?)))
                {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
            // The listener is dropped here: new connections are refused.
        });
    }

    /// `url` (the same server, e.g. as another role) through the proxy.
    pub fn route(&self, url: &str) -> String {
        let mut u = reqwest::Url::parse(url).expect("a URL");
        u.set_port(Some(self.port)).expect("a port");
        u.to_string()
    }

    /// Cuts every connection and refuses new ones, and waits until the
    /// port refuses.
    pub fn cut(&self) {
        self.state.generation.fetch_add(1, Ordering::SeqCst);
        for s in self.state.open.lock().expect("connections").drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            assert!(
                std::time::Instant::now() < deadline,
                "the proxy still listens"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// Listens again on the same port.
    pub fn mend(&self) {
        let listener = std::net::TcpListener::bind(("127.0.0.1", self.port)).expect("listen again");
        self.serve(listener);
    }
}

#[cfg(feature = "postgres")]
impl Drop for CutProxy {
    fn drop(&mut self) {
        self.state.generation.fetch_add(1, Ordering::SeqCst);
        for s in self.state.open.lock().expect("connections").drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}
