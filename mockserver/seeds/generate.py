"""Generate the default seed: fixed well-known objects plus realistic Faker-made bulk data.

Every value comes from `random.Random(random_seed)` and Faker instances seeded with the same
number, drawn in a fixed order (name pools, accounts, vaults, the EU account, then the bulk
documents), so the output is byte-identical on every run and everything but the bulk is the same
whatever `documents` is. Workflows draw from a second stream of their own, so adding or changing
them never moves a generated document. Faker is only asked for small name pools up front: calling
its providers per document would make large seeds slow to generate. The YAML is written by the
small emitter at the bottom (bulk records in flow style, one line each), which is much faster
than yaml.dump.

The data tells a consistent story up to `reference_time` (DEFAULT_START_TIME): each document's
workflows are what the API would have recorded on the way to its status, with step conditions
evaluated by the engine's own `conditions` module on the document's metadata.
"""

from __future__ import annotations

import hashlib
import random
import re
import time
import unicodedata
from importlib.metadata import version

from faker import Faker

from mockserver.core.clock import parse_ts
from mockserver.core.config import DEFAULT_RANDOM_SEED, DEFAULT_START_TIME
from mockserver.core.ids import ALPHABET
from mockserver.domain.conditions import parse
from mockserver.domain.models import DOCUMENT_STATUSES
from mockserver.seeds.yaml_writer import Record, emit

faker_version = version("faker")

START = int(parse_ts(DEFAULT_START_TIME))
MINUTE = 60
HOUR = 3600
DAY = 86400


def _ts(moment: int) -> str:
    """clock.format_ts without its range checks: a big seed has hundreds of thousands of times."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


# (metadata kind, title prefix)
KINDS = (
    ("nda", "Mutual NDA"),
    ("msa", "Master Services Agreement"),
    ("sow", "Statement of Work"),
    ("dpa", "Data Processing Agreement"),
    ("order_form", "Order Form"),
    ("amendment", "Amendment"),
    ("license", "Software License Agreement"),
    ("sla", "Service Level Agreement"),
    ("lease", "Office Lease"),
    ("employment", "Employment Agreement"),
)
# The documents of vault_mock_us that tests and scenarios name, each in the status its name says
# (the legal hold one is a draft): (id, status, kind, amount, counterparty, created_at).
WELL_KNOWN_DOCUMENTS = (
    ("doc_mock_draft", "draft", "msa", 120000, "Acme Corp", "2025-06-02T10:00:00Z"),
    ("doc_mock_in_review", "in_review", "nda", 12000, "Globex Corporation", "2025-06-03T10:00:00Z"),
    ("doc_mock_signed", "signed", "sow", 48000, "Initech", _ts(START - 3 * DAY)),
    ("doc_mock_locked", "locked", "dpa", 0, "Umbrella Ltd", "2025-07-01T10:00:00Z"),
    ("doc_mock_legal_hold", "draft", "settlement", 250000, "Hooli Inc.", "2025-08-12T14:00:00Z"),
)
TITLE_SUFFIXES = ("", "", "", "", " (renewal)", " v2", " - Addendum", " - Schedule A")
DEPARTMENTS = ("Sales", "Procurement", "People", "Legal", "Partnerships", "Finance", "Vendors")
LOCK_AFTER_CHOICES = (300, HOUR, DAY, 7 * DAY)
# Bulk statuses: every status appears in the first four documents, then roughly these shares.
STATUS_WEIGHTS = (30, 20, 20, 30)

US_PARTIAL = (
    "documents:read",
    "documents:write",
    "vaults:read",
    "workflows:read",
    "workflows:write",
)
US_AUDITOR = ("audit:read", "documents:read", "vaults:read")
EU_PARTIAL = ("documents:read", "documents:write", "workflows:read", "workflows:write")
ROLES = ("owner", "editor", "viewer", "approver")
INITECH_CONTACT = "peter.gibbons@initech.example"  # the counterparty of the well-known signers
# Step conditions over the metadata every generated document has (kind, amount).
CONDITIONS = (
    "metadata.amount > 50000",
    "metadata.amount >= 250000",
    'metadata.kind in ["msa", "sow", "order_form"]',
    'metadata.amount > 10000 and metadata.kind == "nda"',
    'not (metadata.kind == "nda" or metadata.kind == "amendment")',
)
APPROVE_COMMENTS = (
    "Looks good.",
    "Approved within the delegated budget.",
    "Redlines from the counterparty accepted.",
    "Checked against the pricing policy.",
)
REJECT_COMMENTS = (
    "The liability cap is missing.",
    "Wrong counterparty entity; please fix and resubmit.",
    "Pricing does not match the order form.",
)


def generate_seed(documents: int = 60, random_seed: int = DEFAULT_RANDOM_SEED) -> str:
    """YAML text of a complete, valid seed with `documents` generated documents in acct_mock_us."""
    if documents < 0:
        raise ValueError("documents must be >= 0")
    gen = _Generator(random_seed)
    us_users = gen.users("us", ("all", "read", list(US_PARTIAL), list(US_AUDITOR)))
    eu_users = gen.users("eu", ("all", "read", list(EU_PARTIAL)))
    us_vaults = _well_known_vaults(us_users) + [gen.vault(us_users, i) for i in range(4)]
    eu_vaults = [gen.vault(eu_users, i, region="eu") for i in range(2)]
    eu_flows: list[Record] = []
    eu_docs = [gen.document(eu_vaults, eu_users, i, eu_flows, eu=True) for i in range(10)]
    us_flows = _well_known_workflows(us_users)
    us_docs = _well_known_documents(us_users) + [
        gen.document(us_vaults, us_users, i, us_flows) for i in range(documents)
    ]
    us_account: Record = {
        "id": "acct_mock_us",
        "name": "Mock US Inc.",
        "default_region": "us",
        "users": us_users,
        "keys": [
            _key("sk_test_mock_full", us_users[0]),
            _key("sk_test_mock_readonly", us_users[1], scopes="read"),
            _key("sk_test_mock_revoked", us_users[2], revoked=True),
            _key("sk_live_mock_full", us_users[0]),
        ],
        "oauth_clients": [
            {
                "client_id": "mock_client",
                "client_secret": "mock_secret",
                "name": "Mock App",
                "redirect_uris": ["http://127.0.0.1:8765/callback"],
            }
        ],
        "environments": {"sandbox": _environment(us_vaults, us_docs, us_flows), "live": {}},
    }
    eu_account: Record = {
        "id": "acct_mock_eu",
        "name": "Mock EU GmbH",
        "default_region": "eu",
        "users": eu_users,
        "keys": [_key("sk_test_mock_eu", eu_users[0])],
        "environments": {"sandbox": _environment(eu_vaults, eu_docs, eu_flows)},
    }
    header = (
        "# Generated by `mockserver seed generate > seeds/default.yaml`\n"
        f"# (mockserver.seeds.generate.generate_seed(documents={documents}, "
        f"random_seed={random_seed})).\n"
        f"# Made with Faker {faker_version}; other Faker versions may word titles differently.\n"
        "# Do not edit by hand: change the generator and regenerate.\n"
        "# Times are history up to reference_time; the server shifts them all so that\n"
        "# reference_time falls on its clock's start.\n"
    )
    seed = {"version": 1, "reference_time": DEFAULT_START_TIME}
    return header + emit(seed | {"accounts": [us_account, eu_account]})


class _Generator:
    """The seeded random streams and the Faker-made pools every generated record draws from."""

    def __init__(self, random_seed: int) -> None:
        self.rng = random.Random(random_seed)
        self.flow_rng = random.Random(f"{random_seed}/workflows")
        self.seen_ids: set[str] = set()
        self.conditions = [parse(text) for text in CONDITIONS]
        fakers = {"us": Faker("en_US"), "eu": Faker("de_DE")}
        for fake in fakers.values():
            fake.seed_instance(random_seed)
        self.fakers = fakers
        self.counterparties = {region: _counterparties(fake) for region, fake in fakers.items()}

    def new_id(self, prefix: str, rng: random.Random | None = None) -> str:
        """A fresh `prefix` + 24 base62 id, never repeated within one seed."""
        while True:
            ident = prefix + "".join((rng or self.rng).choices(ALPHABET, k=24))
            if ident not in self.seen_ids:
                self.seen_ids.add(ident)
                return ident

    def users(self, region: str, permissions: tuple[str | list[str], ...]) -> list[Record]:
        """One user per permission set, named by Faker, with emails on `mock-<region>.example`."""
        fake = self.fakers[region]
        users: list[Record] = []
        emails: set[str] = set()
        for perms in permissions:
            first, last = fake.first_name(), fake.last_name()
            local = f"{_slug(first, '')}.{_slug(last, '')}"
            email = f"{local}@mock-{region}.example"
            n = 2
            while email in emails:
                email, n = f"{local}{n}@mock-{region}.example", n + 1
            emails.add(email)
            users.append({"email": email, "name": f"{first} {last}", "permissions": perms})
        return users

    def vault(self, users: list[Record], index: int, region: str | None = None) -> Record:
        """A generated vault, alternating regions unless `region` is given."""
        rng = self.rng
        region = region or ("us", "eu")[index % 2]
        return {
            "id": self.new_id("vault_"),
            "name": f"{rng.choice(DEPARTMENTS)} ({region.upper()})",
            "region": region,
            "created_at": _ts(START - rng.randint(320 * DAY, 360 * DAY)),
            "lock_after": rng.choice(LOCK_AFTER_CHOICES),
            "members": _members(users[: 2 + index % 2]),
        }

    def document(
        self,
        vaults: list[Record],
        users: list[Record],
        index: int,
        workflows: list[Record],
        *,
        eu: bool = False,
    ) -> Record:
        """A generated document, its workflows appended to `workflows`; the first four cover
        every status in order."""
        rng = self.rng
        vault = rng.choice(vaults)
        if index < len(DOCUMENT_STATUSES):
            status = DOCUMENT_STATUSES[index]
        else:
            status = rng.choices(DOCUMENT_STATUSES, weights=STATUS_WEIGHTS)[0]
        kind, label = rng.choice(KINDS)
        company, contact = rng.choice(self.counterparties["eu" if eu else "us"])
        lock_after = vault.get("lock_after", 300)
        signed: int | None = None
        if status == "locked":  # signed long enough ago that the lock is due
            signed = START - rng.randint(lock_after + HOUR, 290 * DAY)
        elif status == "signed":  # signed recently: still inside the lock window at the start
            signed = START - rng.randint(MINUTE, max(MINUTE, lock_after - MINUTE))
        if signed is None:
            created = START - rng.randint(DAY, 300 * DAY)
        else:
            created = signed - rng.randint(DAY, 10 * DAY)
        doc: Record = {
            "id": self.new_id("doc_"),
            "vault_id": vault["id"],
            "title": f"{label} - {company}{rng.choice(TITLE_SUFFIXES)}",
            "status": status,
            "created_at": _ts(created),
            "sha256": f"{rng.getrandbits(256):064x}",
        }
        if rng.randrange(4) == 0:
            doc["version"] = rng.randint(2, 4)
        doc["metadata"] = {
            "kind": kind,
            "amount": rng.randrange(500, 500_000, 500),
            "counterparty": company,
        }
        if signed is not None:
            doc["signers"] = [rng.choice(users)["email"], contact]
            doc["signed_at"] = _ts(signed)
        if rng.randrange(40) == 0:
            doc["legal_hold"] = True
        workflows.extend(self.workflows(doc, users, created, signed))
        return doc

    def workflows(
        self, doc: Record, users: list[Record], created: int, signed: int | None
    ) -> list[Record]:
        """What took `doc` to its status: an in_progress workflow if in_review, a completed one
        approved by exactly its signers if signed or locked, a rejected one for one draft in
        eight, and nothing else."""
        rng, status = self.flow_rng, doc["status"]
        if status == "draft" and rng.random() < 7 / 8:
            return []
        view = {"metadata": doc["metadata"]}
        if signed is None:
            count = rng.randint(1, min(3, len(users)))
            current = rng.randint(1, count)
            roles = [rng.choice(("approve", "approve", "skipped")) for _ in range(current - 1)]
            roles += ["reject" if status == "draft" else "open"] + ["later"] * (count - current)
            assignees = [user["email"] for user in rng.sample(users, count)]
            steps = [self.step(who, role, view) for who, role in zip(assignees, roles, strict=True)]
        else:
            steps = [self.step(who, "approve", view) for who in dict.fromkeys(doc["signers"])]
            if rng.random() < 1 / 3:  # a conditional step that did not apply to this document
                extra = self.step(rng.choice(users)["email"], "skipped", view)
                if extra["decision"] == "skipped":  # not when its condition held after all
                    steps.insert(rng.randrange(len(steps)), extra)
            current = len(steps)
        start = created + rng.randint(5 * MINUTE, 6 * HOUR)
        self.decide(steps, start, signed)
        return [
            {
                "id": self.new_id("wf_", rng),
                "document_id": doc["id"],
                "status": {"in_review": "in_progress", "draft": "rejected"}.get(
                    status, "completed"
                ),
                "created_at": _ts(start),
                "current_step": current,
                "steps": steps,
            }
        ]

    def step(self, assignee: str, role: str, view: Record) -> Record:
        """A step in `role`: approve, skipped or reject (decided), open (the current one) or
        later (after it). Now and then, and always when skipped, it has a condition; on a step
        already reached it holds unless the step was skipped, and a skipped step whose drawn
        condition holds is approved instead, as the engine would have had it."""
        rng = self.flow_rng
        step: Record = {"assignee": assignee}
        if role == "skipped" or rng.random() < 1 / 3:
            index = rng.randrange(len(CONDITIONS))
            holds = role != "later" and self.conditions[index].evaluate(view)
            if role == "skipped" and holds:
                role = "approve"
            if holds or role in ("skipped", "later"):
                step["condition"] = CONDITIONS[index]
        if role in ("approve", "skipped", "reject"):
            step["decision"] = role
        return step

    def decide(self, steps: list[Record], start: int, signed: int | None) -> None:
        """Time the decided steps from `start` on, in order: a skip happens as the step before
        it is decided (or at creation), and a completed workflow's last approval is the
        document's signing. Some decisions get a comment; most rejections do."""
        rng = self.flow_rng
        count = sum(step.get("decision") in ("approve", "reject") for step in steps)
        end = min(START, start + 20 * DAY) if signed is None else signed
        times = sorted(rng.randint(start, end) for _ in range(count))
        if signed is not None:
            times[-1] = signed
        moment, later = start, iter(times)
        for step in steps:
            decision = step.get("decision")
            if decision is None:
                return
            if decision != "skipped":
                moment = next(later)
            step["decided_at"] = _ts(moment)
            if decision == "reject" and rng.random() < 3 / 4:
                step["comment"] = rng.choice(REJECT_COMMENTS)
            elif decision == "approve" and rng.random() < 1 / 4:
                step["comment"] = rng.choice(APPROVE_COMMENTS)


def _counterparties(fake: Faker) -> list[tuple[str, str]]:
    """A pool of (company name, contact email) pairs, each on the company's own .example domain."""
    pool: dict[str, str] = {}
    while len(pool) < 300:
        company = str(fake.company())
        if company not in pool:
            contact = f"{_slug(fake.first_name(), '')}.{_slug(fake.last_name(), '')}"
            pool[company] = f"{contact}@{_slug(company, '-')}.example"
    return list(pool.items())


def _well_known_vaults(users: list[Record]) -> list[Record]:
    """The two vaults consumers' tests name; lock_after is the default 300 s."""
    return [
        {
            "id": "vault_mock_us",
            "name": "Contracts (US)",
            "region": "us",
            "created_at": "2025-01-06T09:00:00Z",
            "members": _members(users),
        },
        {
            "id": "vault_mock_eu",
            "name": "Contracts (EU)",
            "region": "eu",
            "created_at": "2025-01-06T09:30:00Z",
            "members": _members(users[:2]),
        },
    ]


def _well_known_documents(users: list[Record]) -> list[Record]:
    """The five documents of vault_mock_us that tests and scenarios name; fixed values only.

    doc_mock_signed is signed one minute before DEFAULT_START_TIME, so a frozen run sees it lock
    240 s in (lock_after 300).
    """
    signers = [users[0]["email"], INITECH_CONTACT]
    extras: dict[str, Record] = {
        "doc_mock_signed": {"signers": signers, "signed_at": _ts(START - MINUTE)},
        "doc_mock_locked": {"version": 2, "signers": signers, "signed_at": "2025-07-04T15:30:00Z"},
        "doc_mock_legal_hold": {"legal_hold": True},
    }
    labels = dict(KINDS) | {"settlement": "Settlement Agreement"}
    documents = []
    for ident, status, kind, amount, counterparty, created in WELL_KNOWN_DOCUMENTS:
        doc: Record = {
            "id": ident,
            "vault_id": "vault_mock_us",
            "title": f"{labels[kind]} - {counterparty}",
            "status": status,
            "created_at": created,
            "sha256": hashlib.sha256(f"{ident}:content".encode()).hexdigest(),
            "metadata": {"kind": kind, "amount": amount, "counterparty": counterparty},
        }
        documents.append(doc | extras.get(ident, {}))
    return documents


def _well_known_workflows(users: list[Record]) -> list[Record]:
    """The workflows of the well-known documents, fixed like them: wf_mock_in_review waits on
    the first of its two steps; wf_mock_completed and wf_mock_locked were approved by their
    documents' signers, the last approval being the signing."""
    flows: list[Record] = [
        {
            "id": "wf_mock_in_review",
            "document_id": "doc_mock_in_review",
            "status": "in_progress",
            "created_at": "2025-06-03T10:05:00Z",
            "current_step": 1,
            "steps": [{"assignee": users[2]["email"]}, {"assignee": users[0]["email"]}],
        }
    ]
    signed_story = (_ts(START - 3 * DAY + HOUR), _ts(START - 2 * DAY), _ts(START - MINUTE))
    locked_story = ("2025-07-01T10:30:00Z", "2025-07-02T09:15:00Z", "2025-07-04T15:30:00Z")
    for ident, doc_id, (created, first, last) in (
        ("wf_mock_completed", "doc_mock_signed", signed_story),
        ("wf_mock_locked", "doc_mock_locked", locked_story),
    ):
        steps = [
            {"assignee": users[0]["email"], "decision": "approve", "decided_at": first},
            {"assignee": INITECH_CONTACT, "decision": "approve", "decided_at": last},
        ]
        steps[0]["comment"] = "Checked against the pricing policy."
        flows.append(
            {
                "id": ident,
                "document_id": doc_id,
                "status": "completed",
                "created_at": created,
                "current_step": 2,
                "steps": steps,
            }
        )
    return flows


def _key(key: str, owner: Record, *, scopes: str = "all", revoked: bool = False) -> Record:
    record: Record = {"key": key, "owner": owner["email"], "scopes": scopes}
    if revoked:
        record["revoked"] = True
    return record


def _members(users: list[Record]) -> list[Record]:
    return [{"email": u["email"], "role": ROLES[i % len(ROLES)]} for i, u in enumerate(users)]


def _environment(vaults: list[Record], documents: list[Record], workflows: list[Record]) -> Record:
    """An environment block with records oldest first, those of one second by id (the loader
    keeps the file's order of those)."""

    def ordered(records: list[Record]) -> list[Record]:
        return sorted(records, key=lambda r: (r["created_at"], r["id"]))

    return {
        "vaults": ordered(vaults),
        "documents": ordered(documents),
        "workflows": ordered(workflows),
    }


def _slug(text: str, sep: str) -> str:
    """Lowercase ASCII letters and digits of `text`, words joined by `sep` (for emails)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return sep.join(re.findall(r"[a-z0-9]+", ascii_text))
