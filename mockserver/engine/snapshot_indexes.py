"""A world's indexes in a snapshot: the seed's indexes plus what changed.

A world built from the seed starts with copies of the seeded indexes (`Pristine.install`) and
changes them little by little: a seeded object copied before its first change takes its
original's place, a new one is appended or added. Written in full, the indexes of a world of a
100,000-document seed would be a few hundred thousand references, each resolved on load. So a
snapshot writes each index of such a world as a reference to the seeded one with its changes
(`patch`), and a restore copies the seeded index (one C-level copy) and applies them (`build`).
An index that changed too much to be worth it is written in full.
"""

from __future__ import annotations

from typing import Any

from mockserver.core.sharded import ShardedDict
from mockserver.domain.store import Pristine, RegionData, World

_REGION_DICTS = ("vaults", "workflows")
_REGION_LISTS = ("vault_order", "doc_order")


def patches(key: tuple[str, str], world: World) -> dict[int, tuple[Any, ...]]:
    """id(index) -> its reference as the seed's index with changes, for each index of
    `world` (made from the seed of `key`) worth writing that way."""
    pristine = world.pristine
    if pristine is None:
        return {}
    refs: dict[int, tuple[Any, ...]] = {}
    for name, mine in world.regions.items():
        base = pristine.regions[name]
        where = (*key, name)
        for field in _REGION_DICTS:
            _add(
                refs,
                getattr(mine, field),
                ("dict", *where, field),
                _dict_changes,
                getattr(base, field),
            )
        for field in _REGION_LISTS:
            _add(
                refs,
                getattr(mine, field),
                ("list", *where, field),
                _list_changes,
                getattr(base, field),
            )
        _add(refs, mine.documents, ("sharded", *where), _sharded_changes, base.documents)
        _add(refs, mine.docs_by_vault, ("by-vault", *where), _by_vault_changes, base.docs_by_vault)
    _add(refs, world.active_workflows, ("active", *key), _dict_changes, pristine.active_workflows)
    return refs


def _add(
    refs: dict[int, tuple[Any, ...]], mine: Any, ref: tuple[Any, ...], diff: Any, base: Any
) -> None:
    changes = diff(mine, base)
    if changes is not None:
        refs[id(mine)] = (*ref, changes)


def _list_changes(mine: list[Any], base: list[Any]) -> tuple[dict[int, Any], list[Any]] | None:
    """(position -> replacement, appended), or None when `mine` is not `base` so changed."""
    if len(mine) < len(base):
        return None
    replaced = {
        i: item for i, (item, was) in enumerate(zip(mine, base, strict=False)) if item is not was
    }
    if len(replaced) > len(base) // 2:
        return None
    return replaced, mine[len(base) :]


def _dict_changes(
    mine: dict[str, Any], base: dict[str, Any]
) -> tuple[dict[str, Any], list[str]] | None:
    """(key -> new or replaced value, removed keys), or None when mostly changed."""
    changed = {k: v for k, v in mine.items() if base.get(k, _MISSING) is not v}
    removed = [k for k in base if k not in mine]
    if len(changed) + len(removed) > max(len(base) // 2, 1):
        return None
    return changed, removed


def _sharded_changes(mine: ShardedDict[Any], base: ShardedDict[Any]) -> Any:
    changed = {k: v for k, v in mine.items() if base.get(k) is not v}
    added = sum(1 for k in changed if k not in base)
    if len(changed) > max(len(base) // 2, 1) or len(mine) - added != len(base):
        return None  # mostly changed, or some seeded entry gone
    return changed


def _by_vault_changes(mine: dict[str, list[Any]], base: dict[str, list[Any]]) -> Any:
    """vault id -> its list's changes (or the whole list of a vault the seed lacks)."""
    if any(k not in mine for k in base):
        return None
    changed: dict[str, Any] = {}
    for vault_id, items in mine.items():
        seeded = base.get(vault_id)
        if seeded is None:
            changed[vault_id] = ("all", items)
        elif items != seeded or len(items) != len(seeded):
            patch = _list_changes(items, seeded)
            changed[vault_id] = ("all", items) if patch is None else ("patch", *patch)
    return changed


_MISSING = object()


def build(pid: tuple[Any, ...], pristine: Pristine) -> Any:
    """The index a `patches` reference stands for: a copy of the seeded one, changed."""
    kind = pid[0]
    if kind == "active":
        return _patched_dict(pristine.active_workflows, pid[3])
    region: RegionData = pristine.regions[pid[3]]
    if kind == "dict":
        return _patched_dict(getattr(region, pid[4]), pid[5])
    if kind == "list":
        return _patched_list(getattr(region, pid[4]), pid[5])
    if kind == "sharded":
        documents = region.documents.copy()
        for doc_id, doc in pid[4].items():
            documents[doc_id] = doc
        return documents
    if kind == "by-vault":
        lists = {vault_id: list(items) for vault_id, items in region.docs_by_vault.items()}
        for vault_id, change in pid[4].items():
            if change[0] == "all":
                lists[vault_id] = change[1]
            else:
                lists[vault_id] = _patched_list(lists[vault_id], change[1:])
        return lists
    raise ValueError(kind)


def _patched_list(base: list[Any], change: tuple[dict[int, Any], list[Any]]) -> list[Any]:
    replaced, appended = change
    items = list(base)
    for index, item in replaced.items():
        items[index] = item
    items.extend(appended)
    return items


def _patched_dict(base: dict[str, Any], change: tuple[dict[str, Any], list[str]]) -> dict[str, Any]:
    changed, removed = change
    items = dict(base)
    for key in removed:
        del items[key]
    items.update(changed)
    return items
