"""The project's own Neo4j Community server, run from the Maven Central jars.

No Docker or download site is reachable here, so `neo4j/pom.xml` resolves the official
server jars and this module runs `org.neo4j.server.CommunityEntryPoint` on 127.0.0.1 with
authentication on and a generated password kept in a file only the user can read.
"""
from __future__ import annotations

import os
import secrets as _secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from core.config import PROJECT_ROOT, LocalNeo4jSettings, settings
from core.errors import ClauseGraphError

JVM_FLAGS = [
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens=java.base/java.net=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dlog4j2.disable.jmx=true",
]
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
DEFAULT_PASSWORD = "neo4j"


class LocalNeo4jError(ClauseGraphError, RuntimeError):
    """Raised with a message a user can act on."""


@dataclass
class LocalStatus:
    running: bool
    pid: int | None
    uri: str
    home: Path
    version: str | None = None
    edition: str | None = None
    message: str = ""


class LocalNeo4j:
    def __init__(self, cfg: LocalNeo4jSettings | None = None):
        self.cfg = cfg or settings().local

    # -- paths -----------------------------------------------------------------------
    @property
    def home(self) -> Path:
        return self.cfg.home

    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "clausegraph-neo4j.pid"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def console_log(self) -> Path:
        return self.log_dir / "console.log"

    # -- password --------------------------------------------------------------------
    def password(self) -> str:
        """The local password, generated once and readable by the owner only."""
        path = self.cfg.password_file
        if path.is_file():
            return path.read_text(encoding="utf-8").strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        value = _secrets.token_urlsafe(24)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(value + "\n")
        return value

    # -- process ---------------------------------------------------------------------
    def _pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            if ENTRY_POINT.encode() not in cmdline:
                return None
        except OSError:
            pass
        return pid

    def _bolt_open(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.cfg.bolt_port), timeout=1):
                return True
        except OSError:
            return False

    def _java(self) -> str:
        java_home = os.environ.get("JAVA_HOME")
        if java_home and (Path(java_home) / "bin" / "java").exists():
            return str(Path(java_home) / "bin" / "java")
        java = shutil.which("java")
        if not java:
            raise LocalNeo4jError("Java 17 or newer is required (install OpenJDK 17 and Maven).")
        return java

    def ensure_jars(self) -> None:
        lib = self.cfg.lib_dir
        if lib.is_dir() and any(p.name.startswith("neo4j-server-") for p in lib.glob("*.jar")):
            return
        mvn = shutil.which("mvn")
        if not mvn:
            raise LocalNeo4jError(f"Neo4j jars missing in {lib} and Maven is not installed; run `make setup`.")
        proc = subprocess.run([mvn, "-q", "-B", "-f", str(PROJECT_ROOT / "neo4j" / "pom.xml"), "package"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise LocalNeo4jError("Resolving the Neo4j jars with Maven failed:\n" + proc.stdout[-2000:] + proc.stderr[-2000:])

    def _write_conf(self) -> Path:
        conf_dir = self.home / "conf"
        conf_dir.mkdir(parents=True, exist_ok=True)
        lines = [
            "# Written by `python -m core neo4j start`; edits are overwritten.",
            "server.default_listen_address=127.0.0.1",
            f"server.bolt.listen_address=127.0.0.1:{self.cfg.bolt_port}",
            f"server.bolt.advertised_address=127.0.0.1:{self.cfg.bolt_port}",
            "server.bolt.enabled=true",
            "server.http.enabled=false",
            "server.https.enabled=false",
            "dbms.security.auth_enabled=true",
            f"server.memory.pagecache.size={self.cfg.pagecache}",
            f"server.directories.data={self.data_dir}",
            f"server.directories.logs={self.log_dir}",
            f"server.directories.run={self.home / 'run'}",
            "dbms.usage_report.enabled=false",
            "db.tx_log.rotation.retention_policy=100M size",
            "db.transaction.timeout=120s",
            # one cached plan per query text, not one per size bucket of every list parameter:
            # the retrieval templates take lists of 1..n names/types, and re-planning a template
            # because a question named two companies instead of one costs 50-300 ms
            "internal.cypher.use_parameter_size=false",
        ]
        path = conf_dir / "neo4j.conf"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return conf_dir

    def start(self, wait_s: float = 180.0) -> LocalStatus:
        """Start if not running (idempotent); wait until Bolt answers and auth is set."""
        if self._pid() and self._bolt_open():
            self._ensure_password()
            return self.status()
        if self._bolt_open():
            raise LocalNeo4jError(
                f"Port {self.cfg.bolt_port} on 127.0.0.1 is already in use by another process; "
                "set CLAUSEGRAPH_NEO4J_PORT to a free port or NEO4J_URI to use that database.")
        self.ensure_jars()
        java = self._java()
        conf_dir = self._write_conf()
        for d in (self.data_dir, self.log_dir, self.home / "run"):
            d.mkdir(parents=True, exist_ok=True)
        cmd = [java, f"-Xms{self.cfg.heap}", f"-Xmx{self.cfg.heap}", *JVM_FLAGS,
               "-cp", f"{self.cfg.lib_dir}/*", ENTRY_POINT,
               "--home-dir", str(self.home), "--config-dir", str(conf_dir)]
        log = open(self.console_log, "ab")
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=str(self.home), start_new_session=True)
        log.close()
        self.pid_file.write_text(str(proc.pid))
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LocalNeo4jError(f"Neo4j exited during start (code {proc.returncode}); see {self.console_log} "
                                      f"and {self.log_dir / 'neo4j.log'}.")
            if self._bolt_open():
                break
            time.sleep(0.5)
        else:
            raise LocalNeo4jError(f"Neo4j did not open Bolt on port {self.cfg.bolt_port} within {wait_s:.0f}s; "
                                  f"see {self.log_dir / 'neo4j.log'}.")
        self._ensure_password(deadline)
        return self.status()

    def _ensure_password(self, deadline: float | None = None) -> None:
        """Replace the server's default password by the generated one on first start."""
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError, ServiceUnavailable, ClientError

        wanted = self.password()
        deadline = deadline or time.monotonic() + 60
        last: Exception | None = None
        while time.monotonic() < deadline:
            try:
                with GraphDatabase.driver(self.cfg.uri, auth=("neo4j", wanted)) as drv:
                    drv.verify_connectivity()
                    return
            except AuthError as exc:
                last = exc
            except (ServiceUnavailable, OSError) as exc:
                last = exc
                time.sleep(0.5)
                continue
            try:
                with GraphDatabase.driver(self.cfg.uri, auth=("neo4j", DEFAULT_PASSWORD)) as drv:
                    with drv.session(database="system") as session:
                        session.run("ALTER CURRENT USER SET PASSWORD FROM $old TO $new",
                                    old=DEFAULT_PASSWORD, new=wanted).consume()
                continue
            except (AuthError, ClientError) as exc:
                raise LocalNeo4jError(
                    f"The local Neo4j in {self.home} refuses the password in {self.cfg.password_file}: {exc.__class__.__name__}. "
                    "Remove that folder to start afresh.") from exc
            except (ServiceUnavailable, OSError) as exc:
                last = exc
                time.sleep(0.5)
        raise LocalNeo4jError(f"Could not authenticate against the local Neo4j: {last}")

    def stop(self, wait_s: float = 60.0) -> bool:
        pid = self._pid()
        if not pid:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            _reap(pid)
            time.sleep(0.3)
        else:
            os.kill(pid, signal.SIGKILL)
        _reap(pid)
        self.pid_file.unlink(missing_ok=True)
        return True

    def kill(self) -> None:
        """Hard kill, for fault-injection tests."""
        pid = self._pid()
        if pid:
            os.kill(pid, signal.SIGKILL)
            for _ in range(100):
                _reap(pid)
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
        self.pid_file.unlink(missing_ok=True)

    def status(self) -> LocalStatus:
        pid = self._pid()
        st = LocalStatus(running=False, pid=pid, uri=self.cfg.uri, home=self.home)
        if not pid or not self._bolt_open():
            st.message = "stopped"
            return st
        from neo4j import GraphDatabase

        try:
            with GraphDatabase.driver(self.cfg.uri, auth=("neo4j", self.password())) as drv:
                records, _, _ = drv.execute_query("CALL dbms.components() YIELD name, versions, edition "
                                                  "RETURN name, versions[0] AS version, edition", database_="system")
            st.running = True
            st.version = records[0]["version"]
            st.edition = records[0]["edition"]
            st.message = "running"
        except Exception as exc:  # noqa: BLE001 - reported to the user as status
            st.message = f"process {pid} is up but Bolt does not answer yet: {exc.__class__.__name__}"
        return st

    def env_lines(self) -> list[str]:
        return [f"export NEO4J_URI={self.cfg.uri}", "export NEO4J_USER=neo4j",
                f"export NEO4J_PASSWORD={self.password()}", "export NEO4J_DATABASE=neo4j"]


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
