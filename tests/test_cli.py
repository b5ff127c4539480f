"""The ``calico-bot`` entry point as an operator meets it on a fresh install (issue 20, items
11-13): each command run as a real process (``python -m bot``, what the console script calls)
in an empty folder, judged by what an operator notices: the exit status, the message, the
files created or not, and no traceback and no secret anywhere in the output."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.core.manager import Manager

ROOT = Path(__file__).resolve().parents[1]

# A PostgreSQL URL with a password in both places a URL can hold one (and the other secret
# parameters libpq reads); port 1 on loopback refuses at once.
SECRETS = ("UserSecret42", "QuerySecret42", "SslSecret42", "PassFile42")
SECRET_URL = ("postgresql://calico:UserSecret42@127.0.0.1:1/calico?sslmode=disable"
              "&password=QuerySecret42&sslpassword=SslSecret42&passfile=/etc/PassFile42")


@dataclass
class Ran:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


def calico(*args: str, cwd: Path, **environ: str) -> Ran:
    """``calico-bot ARGS`` in ``cwd``, with only the given settings (no .env, no CALICO_*)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CALICO_") and k != "DISCORD_TOKEN"}
    env.update(environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)
    return Ran(proc.returncode, proc.stdout, proc.stderr)


def files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def no_traceback(ran: Ran) -> None:
    assert "Traceback" not in ran.text, ran.text


def make_database(path: Path) -> None:
    async def create() -> None:
        await (await Manager.open(path)).close()

    asyncio.run(create())


# --------------------------------------------------------------------------- item 11


def test_backup_without_a_database_refuses_and_creates_nothing(tmp_path: Path) -> None:
    ran = calico("backup", "backups/x.sqlite3", cwd=tmp_path)
    assert ran.code != 0
    assert f"no database at {tmp_path / 'calico.sqlite3'}" in ran.err
    assert "integrity check ok" not in ran.text
    no_traceback(ran)
    assert files(tmp_path) == []


def test_backup_into_a_folder_not_made_yet_creates_it(tmp_path: Path) -> None:
    make_database(tmp_path / "calico.sqlite3")
    ran = calico("backup", "backups/nightly/x.sqlite3", cwd=tmp_path)
    assert ran.code == 0, ran.text
    no_traceback(ran)
    assert "integrity check ok" in ran.out
    assert (tmp_path / "backups" / "nightly" / "x.sqlite3").stat().st_size > 0


def test_migrate_db_refuses_a_missing_source_and_creates_nothing(tmp_path: Path) -> None:
    ran = calico("migrate-db", "typo.sqlite3", "out.sqlite3", cwd=tmp_path)
    assert ran.code != 0
    assert f"no database at {tmp_path / 'typo.sqlite3'}" in ran.err
    assert "rows copied" not in ran.text
    no_traceback(ran)
    assert files(tmp_path) == []


@pytest.mark.parametrize("args", [(), ("typo.sqlite3",)], ids=["setting", "argument"])
def test_check_without_a_database_says_so_and_creates_nothing(tmp_path: Path,
                                                              args: tuple[str, ...]) -> None:
    ran = calico("check", *args, cwd=tmp_path)
    assert ran.code != 0
    name = args[0] if args else "calico.sqlite3"
    assert f"no database at {tmp_path / name}" in ran.err
    no_traceback(ran)
    assert files(tmp_path) == []


@pytest.mark.parametrize("players", ["0", "5", "two"])
def test_demo_refuses_a_player_count_outside_1_to_4(tmp_path: Path, players: str) -> None:
    ran = calico("demo", "--players", players, cwd=tmp_path)
    assert ran.code == 2
    assert "--players" in ran.err
    no_traceback(ran)
    assert files(tmp_path) == []


# --------------------------------------------------------------------------- item 12


def test_a_bad_setting_is_one_line_naming_its_variable(tmp_path: Path) -> None:
    ran = calico("check", cwd=tmp_path, CALICO_MAX_LOBBIES="abc", CALICO_HEALTH_PORT="99999")
    assert ran.code == 2
    no_traceback(ran)
    lines = ran.err.strip().splitlines()
    assert len(lines) == 2, ran.err
    assert any("CALICO_MAX_LOBBIES=abc" in line and "integer" in line for line in lines)
    assert any("CALICO_HEALTH_PORT=99999" in line and "65535" in line for line in lines)
    assert "max_lobbies" not in ran.err and "pydantic" not in ran.err
    assert files(tmp_path) == []


def test_a_bad_setting_in_dotenv_names_its_variable(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("CALICO_RETENTION_DAYS=-1\n")
    ran = calico("check", cwd=tmp_path)
    assert ran.code == 2
    no_traceback(ran)
    assert ran.err.strip().splitlines() == [
        "calico-bot: CALICO_RETENTION_DAYS=-1: Input should be greater than 0"]


def test_run_without_a_token_says_a_token_is_needed(tmp_path: Path) -> None:
    ran = calico("run", cwd=tmp_path)
    assert ran.code == 2
    assert "calico-bot run needs a Discord bot token" in ran.err
    assert "DISCORD_TOKEN" in ran.err
    assert "demo" not in ran.text.replace("calico-bot demo", "")  # promises no demo
    no_traceback(ran)
    assert files(tmp_path) == []


def test_no_command_without_a_token_explains_then_plays_the_demo(tmp_path: Path) -> None:
    ran = calico(cwd=tmp_path)
    assert ran.code == 0, ran.text
    assert "needs a Discord bot token" in ran.out
    assert "here is the bot playing a game offline" in ran.out
    assert (tmp_path / "calico-demo" / "transcript.md").is_file()


# --------------------------------------------------------------------------- item 13


@pytest.mark.parametrize("args", [("check",), ("migrate-db", "{url}", "out.sqlite3"),
                                  ("check", "{url}")], ids=["check", "migrate-db", "check-arg"])
def test_operator_commands_never_print_the_database_password(tmp_path: Path,
                                                             args: tuple[str, ...]) -> None:
    ran = calico(*(a.format(url=SECRET_URL) for a in args), cwd=tmp_path, CALICO_DB=SECRET_URL,
                 CALICO_LOG_LEVEL="DEBUG")
    assert ran.code == 1
    assert "cannot connect to postgresql://calico:***@127.0.0.1:1/calico" in ran.text
    assert not [s for s in SECRETS if s in ran.text], ran.text
    no_traceback(ran)
