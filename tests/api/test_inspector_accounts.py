"""The inspector's accounts: the overview lists the account sandboxes, and a person picks one to
watch; every view and button is then that account's (its clock, requests, deliveries,
resources), until they go back to the whole server."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope
from tests.support.keys import auth

UI = "/_mock/ui"
START = "2030-01-01T00:00:00Z"


@pytest.fixture
def mock() -> Iterator[httpx.Client]:
    with inprocess_client(create_app(Settings(clock_mode="frozen"))) as client:
        yield client


def test_the_overview_lists_accounts_and_a_person_watches_one(mock: httpx.Client) -> None:
    assert "No account made through the control plane" in mock.get(UI).text
    made = mock.post(
        "/_mock/accounts", json={"name": "Team B", "clock": {"mode": "frozen", "start_time": START}}
    ).json()
    headers = auth(made["keys"]["full"])
    mock.post("/v1/vaults", json={"name": "Only here", "region": "us"}, headers=headers)
    mock.get("/v1/vaults/vault_mock_us", headers=auth())  # the server's own request

    overview = mock.get(UI).text
    assert "Team B" in overview
    assert '<form method="post" action="/_mock/ui/watch"' in overview
    assert f'<input type="hidden" name="account" value="{made["id"]}">' in overview
    assert 'data-testid="watching"' not in overview

    picked = mock.post(f"{UI}/watch", data={"account": made["id"]}, follow_redirects=False)
    assert picked.status_code == 303
    assert picked.cookies["mock_watch"] == made["id"]
    page = mock.get(UI).text
    assert 'data-testid="watching"' in page
    assert START in page  # its clock, not the server's
    assert "Reset the account" in page
    assert 'method="post" action="/_mock/ui/watch">Watching account' in page
    assert '<button type="submit">Watch the whole server</button>' in page
    requests = mock.get(f"{UI}/requests").text
    assert "/v1/vaults" in requests
    assert "vault_mock_us" not in requests  # the server's request is not the account's
    assert "Only here" in mock.get(f"{UI}/resources").text

    # Its buttons steer the account: the clock form moves its clock alone.
    server_before = mock.get("/_mock/clock").json()["now"]
    moved = mock.post(f"{UI}/clock/advance", data={"seconds": "60"}, follow_redirects=False)
    assert moved.status_code == 303
    assert (
        mock.get(f"/_mock/accounts/{made['id']}").json()["clock"]["now"] == "2030-01-01T00:01:00Z"
    )
    assert mock.get("/_mock/clock").json()["now"] == server_before

    back = mock.post(f"{UI}/watch", follow_redirects=False)
    assert back.status_code == 303
    assert 'data-testid="watching"' not in mock.get(UI).text


def test_a_watched_account_that_is_gone_shows_the_server(mock: httpx.Client) -> None:
    made = mock.post("/_mock/accounts", json={"name": "Gone soon"}).json()
    mock.post(f"{UI}/watch", data={"account": made["id"]})
    assert 'data-testid="watching"' in mock.get(UI).text
    mock.delete(f"/_mock/accounts/{made['id']}")
    assert 'data-testid="watching"' not in mock.get(UI).text


@pytest.mark.parametrize(("account", "status"), [("acct_nope", 404), ("acct_mock_us", 409)])
def test_watching_an_account_without_a_sandbox_is_refused(
    mock: httpx.Client, account: str, status: int
) -> None:
    refused = mock.post(f"{UI}/watch", data={"account": account})
    assert refused.status_code == status, refused.text
    assert refused.json()["error"].get("param") == ("account" if status == 409 else None)
    assert mock.get(UI, params={"account": account}).status_code == status


# What a link or an image sends: no Origin; from a page on another port of this loopback host
# (whose requests the control plane lets through), Sec-Fetch-Site: same-site.
LINKED = [
    {},
    {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Dest": "image", "Sec-Fetch-Mode": "no-cors"},
]


@pytest.mark.parametrize("headers", LINKED, ids=["a script", "an image on a local page"])
def test_a_get_neither_chooses_nor_drops_the_watched_account(
    mock: httpx.Client, headers: dict[str, str]
) -> None:
    """Choosing what the inspector shows is a form POST: `GET /_mock/ui/watch` is a URL the
    inspector does not serve with that method (the 404 envelope) and changes nothing."""
    made = mock.post("/_mock/accounts", json={"name": "Team C"}).json()
    chosen = mock.get(f"{UI}/watch", params={"account": made["id"]}, headers=headers)
    assert_envelope(chosen, 404, "not_found")
    assert "set-cookie" not in chosen.headers
    assert 'data-testid="watching"' not in mock.get(UI).text

    mock.post(f"{UI}/watch", data={"account": made["id"]})
    dropped = mock.get(f"{UI}/watch", headers=headers)
    assert_envelope(dropped, 404, "not_found")
    assert "set-cookie" not in dropped.headers
    assert 'data-testid="watching"' in mock.get(UI).text


def test_a_form_of_another_origin_cannot_choose_the_watched_account(mock: httpx.Client) -> None:
    made = mock.post("/_mock/accounts", json={"name": "Team D"}).json()
    local_page = {"Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site"}
    refused = mock.post(f"{UI}/watch", data={"account": made["id"]}, headers=local_page)
    assert_envelope(refused, 403, "permission_error")
    assert 'data-testid="watching"' not in mock.get(UI).text
