"""What of a database location may be shown (issue 20, item 13): a PostgreSQL URL's password,
in its userinfo or its query (``password``, ``sslpassword``, ``passfile``), never is."""

from __future__ import annotations

from bot.core.storage.secrets import redact, scrub, url_secrets

SECRETS = ("UserSecret42", "QuerySecret42", "SslSecret42", "PassFile42")
SECRET_URL = ("postgresql://calico:UserSecret42@127.0.0.1:1/calico?sslmode=disable"
              "&password=QuerySecret42&sslpassword=SslSecret42&passfile=/etc/PassFile42")


def test_redact_hides_the_password_in_the_userinfo_and_the_query() -> None:
    shown = redact(SECRET_URL)
    assert not [s for s in SECRETS if s in shown], shown
    assert shown == ("postgresql://calico:***@127.0.0.1:1/calico?sslmode=disable"
                     "&password=***&sslpassword=***&passfile=***")
    assert redact("postgres://u@h/db?PassWord=x%26y&user=u") == \
        "postgres://u@h/db?PassWord=***&user=u"
    assert redact("calico.sqlite3") == "calico.sqlite3"
    # A password holding "/" or "?" is still hidden whole.
    assert redact("postgresql://u:pa/ss?w@h/db") == "postgresql://u:***@h/db"
    assert set(url_secrets(SECRET_URL)) >= {*SECRETS[:3], "/etc/PassFile42"}
    assert scrub(f"failed: {SECRET_URL} (QuerySecret42)", SECRET_URL).count("Secret42") == 0
