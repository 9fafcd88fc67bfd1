"""The OAuth domain without HTTP: PKCE, redirect URIs, parameters, and bounded memory."""

from __future__ import annotations

from mockserver.domain.models import Account, OAuthClient, User
from mockserver.domain.oauth import authorize, single_values, with_query
from mockserver.domain.oauth_state import OAuthState, principal_for_token
from mockserver.domain.oauth_token import exchange, s256
from tests.support.oauth import CHALLENGE, VERIFIER

CLIENT = OAuthClient("app", "secret", "acct_a", ("http://localhost/cb",))
ACCOUNT = Account("acct_a", "A", "us", (User("u@a.example", "U", ("documents:read",)),))


def test_s256_matches_rfc_7636_appendix_b() -> None:
    assert s256(VERIFIER) == CHALLENGE


def test_with_query_keeps_the_existing_query_and_drops_none() -> None:
    assert (
        with_query("http://h/cb?x=1", {"code": "c d", "state": None}) == "http://h/cb?x=1&code=c+d"
    )
    assert with_query("http://h/cb", {"error": "e"}) == "http://h/cb?error=e"


def test_single_values_drops_empty_values_and_reports_repeats() -> None:
    values, repeated = single_values([("a", "1"), ("b", ""), ("a", "2"), ("c", "3")])
    assert values == {"a": "2", "c": "3"}
    assert repeated == {"a"}


def test_principal_of_a_token_is_the_user_in_the_sandbox() -> None:
    state = OAuthState({"app": CLIENT}, 1)
    location = authorize(
        state, {"acct_a": ACCOUNT}, [("client_id", "app"), ("response_type", "code")], 0
    ).location
    code = location.split("code=")[1]
    token = exchange(state, CLIENT, {"grant_type": "authorization_code", "code": code}, 10)
    principal = principal_for_token(state, token.token, 10)
    assert principal.actor == "u@a.example"
    assert (principal.account_id, principal.environment) == ("acct_a", "sandbox")
    assert principal.scopes == frozenset({"documents:read"})
    assert (principal.credential, principal.rate_limit, principal.burst) == (token.token, 120, 200)


def fill(state: OAuthState, count: int, now: int) -> None:
    params = [("client_id", "app"), ("response_type", "code")]
    for _ in range(count):
        authorize(state, {"acct_a": ACCOUNT}, params, now)


def test_expired_codes_are_forgotten_a_day_after_expiry() -> None:
    state = OAuthState({"app": CLIENT}, 1)
    fill(state, 1024, 0)  # sweeps are amortised: the first runs at 1024 entries
    fill(state, 1, 600 + 86_400)
    assert len(state.codes) == 1


def test_codes_expired_less_than_a_day_ago_are_kept() -> None:
    state = OAuthState({"app": CLIENT}, 1)
    fill(state, 1024, 0)
    fill(state, 1, 600 + 86_399)
    assert len(state.codes) == 1025
