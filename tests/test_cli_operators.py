"""The operators' rough edges of issue 29 (finding 7), each through the real entry point
(``python -m bot``, what the ``calico-bot`` console script calls), judged by what an operator
sees: the exit status, one plain line, no traceback. The two that need Discord's side (no
voice warnings, a prompt exit when closed before READY) are in
``tests/e2e/test_operator_runs.py``."""

from __future__ import annotations

import fcntl
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import ROOT, Ran, calico, files, make_database, no_traceback

LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def closed_port() -> int:
    """A loopback port nothing listens on (connecting is refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_against(api: str, gateway: str, cwd: Path, **environ: str) -> Ran:
    """``calico-bot run`` with discord.py pointed at ``api`` (never the real Discord)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CALICO_") and k != "DISCORD_TOKEN"}
    env.update(environ, PYTHONPATH=str(ROOT), DISCORD_TOKEN="fake-token",
               FAKEDISCORD_API=api, FAKEDISCORD_GATEWAY=gateway)
    proc = subprocess.run([sys.executable, "-m", "tests.fakediscord.remote", "bot", "run"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    return Ran(proc.returncode, proc.stdout, proc.stderr)


def test_no_network_to_discord_is_one_plain_line_and_a_failure(tmp_path: Path) -> None:
    port = closed_port()
    ran = run_against(f"http://127.0.0.1:{port}/api/v10", f"ws://127.0.0.1:{port}/gateway",
                      tmp_path)
    assert ran.code != 0
    no_traceback(ran)
    # Besides the bot's own timestamped log lines (and the harness's runpy note), one line.
    plain = [line for line in ran.err.splitlines() if line.strip()
             and not LOG_LINE.match(line) and "runpy" not in line]
    assert len(plain) == 1, ran.err
    assert plain[0].startswith("calico-bot: cannot reach Discord (")


@pytest.mark.parametrize("value", ["LOUD", "verbose", "5"])
def test_an_unknown_log_level_is_refused_as_the_readme_says(tmp_path: Path, value: str) -> None:
    ran = calico("check", cwd=tmp_path, CALICO_LOG_LEVEL=value)
    assert ran.code == 2
    no_traceback(ran)
    [line] = ran.err.strip().splitlines()
    assert line.startswith(f"calico-bot: CALICO_LOG_LEVEL={value}: ")
    assert "DEBUG" in line and "ERROR" in line  # says what it may be
    assert files(tmp_path) == []


def test_a_known_log_level_in_any_case_is_taken(tmp_path: Path) -> None:
    ran = calico("check", cwd=tmp_path, CALICO_LOG_LEVEL="warning")
    assert "CALICO_LOG_LEVEL" not in ran.err
    assert "no database at" in ran.err  # it went on to the command


@pytest.mark.parametrize("what", ["devnull", "folder", "empty-setting"])
@pytest.mark.parametrize("command", ["check", "backup"])
def test_what_is_not_a_calico_database_is_refused(tmp_path: Path, what: str,
                                                  command: str) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    location = {"devnull": os.devnull, "folder": str(folder), "empty-setting": ""}[what]
    args = ("backup", "copy.sqlite3") if command == "backup" else ("check",)
    ran = calico(*args, cwd=tmp_path, CALICO_DB=location)
    assert ran.code == 2, ran.text
    no_traceback(ran)
    assert "ok" not in ran.out.split()
    [line] = ran.err.strip().splitlines()
    assert "no database" in line or "not a calico-bot database" in line, line
    assert files(tmp_path) == ["data"]


def test_check_with_dev_null_as_its_argument_is_refused(tmp_path: Path) -> None:
    ran = calico("check", os.devnull, cwd=tmp_path)
    assert ran.code == 2
    no_traceback(ran)
    assert os.devnull in ran.err


def test_migrate_db_refuses_a_database_a_running_bot_holds(tmp_path: Path) -> None:
    db = tmp_path / "calico.sqlite3"
    make_database(db)
    # What a running bot holds (bot.core.storage.sqlite.db: an exclusive flock on the .lock).
    with (tmp_path / "calico.sqlite3.lock").open("a+") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("pid 4242\n")
        held.flush()
        ran = calico("migrate-db", str(db), "out.sqlite3", cwd=tmp_path)
    assert ran.code == 2, ran.text
    no_traceback(ran)
    [line] = ran.err.strip().splitlines()
    assert "running" in line and "stop" in line, line
    assert not (tmp_path / "out.sqlite3").exists()
    # Stopped: the same copy goes through.
    ran = calico("migrate-db", str(db), "out.sqlite3", cwd=tmp_path)
    assert ran.code == 0, ran.text


def test_the_readme_restore_steps_name_the_lock_file() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("To restore")
    steps = readme[start:readme.index("PostgreSQL:", start)]
    assert "calico.sqlite3.lock" in steps
    assert "-wal" in steps and "-shm" in steps


@pytest.mark.parametrize("args", [("--help",), ("run", "--help"), ("migrate-db", "--help")])
def test_help_is_plain_text(tmp_path: Path, args: tuple[str, ...]) -> None:
    ran = calico(*args, cwd=tmp_path)
    assert ran.code == 0
    assert "``" not in ran.out and ":func:" not in ran.out and ":class:" not in ran.out
    assert "calico-bot" in ran.out
