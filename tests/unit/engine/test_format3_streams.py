"""Format 3's id streams (a generator already past the words it had not used yet) become plain
generators that give those words first: the stream an old file promised goes on unchanged."""

from __future__ import annotations

import random
from typing import Any

import pytest

from mockserver.core.ids import IdFactory
from mockserver.engine.snapshots.format3_streams import plain_streams


def _format3(name: str, drawn: int, unused: int) -> tuple[dict[str, Any], random.Random]:
    """A stream saved as format 3 did after `drawn` words, the last `unused` of them unused,
    and the generator that goes on from there."""
    generator = random.Random(name)
    words = [generator.getrandbits(32) for _ in range(drawn)]
    bits = sum(word << (32 * i) for i, word in enumerate(words))
    version, state, gauss = generator.getstate()
    saved = {"version": version, "words": list(state), "gauss": gauss}
    stream = {"stream": name, "random": saved, "words": drawn, "used": drawn - unused}
    return {**stream, "bits": format(bits, "x")}, generator


def _resumed(stream: dict[str, Any]) -> random.Random:
    assert stream.keys() == {"stream", "random"}
    generator = random.Random()
    generator.setstate((3, tuple(stream["random"]["words"]), None))
    return generator


# Within the generator's current round of 624 words, across one round, across several, and
# back to exactly a round's first word.
CASES = [(64, 16), (64, 64), (1040, 896), (1248, 624), (1872, 1248), (3000, 1040), (2000, 752)]


@pytest.mark.parametrize(("drawn", "unused"), CASES)
def test_a_migrated_stream_gives_the_unused_words_then_goes_on(drawn: int, unused: int) -> None:
    old, _ = _format3("7:a/b", drawn, unused)
    expected = random.Random("7:a/b")
    [expected.getrandbits(32) for _ in range(drawn - unused)]
    parsed = {"format": 3, "state": {"request_ids": old, "account_ids": dict(old)}}
    resumed = _resumed(plain_streams(parsed)["state"]["request_ids"])
    assert [resumed.getrandbits(32) for _ in range(unused + 700)] == [
        expected.getrandbits(32) for _ in range(unused + 700)
    ]


def test_the_streams_of_records_and_account_sandboxes_are_migrated_too() -> None:
    world, _ = _format3("1:acct/sandbox", 1040, 100)
    book = {"stream": "1:acct/sandbox/webhooks", "random": None, "words": 0, "used": 0, "bits": "0"}
    inner = {"worlds": [[["acct", "sandbox"], {"$": "World", "ids": world}]]}
    state = {
        "worlds": [[["acct", "sandbox"], {"$id": 0, "$": "World", "ids": dict(world)}]],
        "webhooks": {"books": [[["acct", "sandbox"], {"$": "WebhookBook", "ids": book}]]},
        "oauth": {"streams": {"acct": dict(world)}},
        "account_sandboxes": [{"state": inner}],
    }
    migrated = plain_streams({"state": state})["state"]
    assert migrated["webhooks"]["books"][0][1]["ids"] == {
        "stream": "1:acct/sandbox/webhooks",
        "random": None,
    }
    for stream in (
        migrated["worlds"][0][1]["ids"],
        migrated["oauth"]["streams"]["acct"],
        migrated["account_sandboxes"][0]["state"]["worlds"][0][1]["ids"],
    ):
        ids = IdFactory.resumed(stream["stream"], _resumed(stream))
        plain = IdFactory(1, "acct/sandbox")
        plain.randbytes(4 * 940)  # the 940 words format 3 had used
        assert ids.new("doc_") == plain.new("doc_")


def test_unused_words_that_do_not_lead_to_the_generator_are_left_for_the_reader_to_refuse() -> None:
    old, _ = _format3("7:a/b", 1040, 500)
    old["bits"] = format(int(old["bits"], 16) ^ (1 << (32 * 1039 + 31)), "x")
    parsed = plain_streams({"state": {"request_ids": old}})
    assert parsed["state"]["request_ids"] == old
