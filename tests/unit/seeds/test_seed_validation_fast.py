"""Fast paths of the seed checks give what the plain checks give: same values, same errors."""

from __future__ import annotations

import sys

import pytest

from mockserver.seeds import validation as seed_validation
from mockserver.seeds.validation import Invalid, email


def test_a_remembered_address_is_the_interned_one() -> None:
    address = "".join(["someone", "@example.com"])  # a new object each time
    first = email(address, ("accounts", 0), "owner")
    again = email("".join(["someone", "@example.com"]), ("accounts", 1), "owner")
    assert first is again
    assert first is sys.intern("someone@example.com")


@pytest.mark.parametrize("value", ["no-at-sign", "a@b", "a b@c.d", 42, None, ["x@y.z"]])
def test_an_invalid_address_fails_even_after_valid_ones(value: object) -> None:
    email("valid@example.com", (), "owner")
    with pytest.raises(Invalid) as caught:
        email(value, ("accounts", 0), "owner")
    shown = f"'{value}'" if isinstance(value, str) else seed_validation.show(value)
    assert caught.value.message == f"accounts[0].owner: invalid email {shown}"
    assert caught.value.at == ("accounts", 0, "owner")


def test_the_remembered_addresses_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seed_validation, "_known_emails", {})
    monkeypatch.setattr(seed_validation, "_KNOWN_EMAILS_MAX", 2)
    for number in range(5):
        assert email(f"user{number}@example.com", (), "owner") == f"user{number}@example.com"
    assert len(seed_validation._known_emails) == 2


def test_kept_metadata_shares_repeated_strings_and_copies_the_rest() -> None:
    known: dict[str, str] = {}
    big = 10**12
    first = seed_validation.kept_metadata(
        {"kind": "".join(["s", "la"]), "amount": big, "ok": True}, known
    )
    second = seed_validation.kept_metadata({"kind": "".join(["sl", "a"]), "amount": 7}, known)
    assert first == {"kind": "sla", "amount": big, "ok": True}
    assert second == {"kind": "sla", "amount": 7}
    assert first["kind"] is second["kind"] is sys.intern("sla")
    assert first["amount"] == big
    assert list(first) == ["kind", "amount", "ok"]
