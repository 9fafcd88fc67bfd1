"""Load seed files: the file's text -> plain objects -> validated `SeedData`, or `file:line:
message`.

The text is parsed by `parser` (YAML, with a JSON shortcut for big seeds) and validated by
`builder`, with the checks of `validation`, on the plain objects. Only when validation finds a
problem is the text composed into YAML nodes, to turn the offending path into a line number.
Seeds that `cache` keeps (big ones, and the packaged default seed) are read from it once
validated; a hit spares the parse and the validation (this module imports the parser, and
with it PyYAML, either way).
"""

from __future__ import annotations

from pathlib import Path

from mockserver.core.errors import SeedError
from mockserver.core.memory import collector_paused
from mockserver.domain.models import SeedData
from mockserver.seeds import cache as seed_cache
from mockserver.seeds.builder import build_seed
from mockserver.seeds.parser import parse
from mockserver.seeds.source_text import read_source
from mockserver.seeds.validation import Invalid


def load_seed(path: Path) -> SeedData:
    """Read and validate a seed file; SeedError names the file and line of every problem.
    A seed the cache keeps comes from `seed_cache` once it has been validated."""
    text, source = read_source(path, SeedError, "seed"), str(path)
    kind = seed_cache.kind_of(text, path)
    if kind is None:
        return load_seed_text(text, source)
    entry = seed_cache.entry_path(text, kind)
    seed = seed_cache.load(entry, source)
    if seed is None:
        seed = load_seed_text(text, source)
        seed_cache.store(entry, seed)
    return seed


def load_seed_text(text: str, source: str) -> SeedData:
    """Parse and validate seed YAML; `source` is the file name errors are reported against."""
    with collector_paused():  # millions of new acyclic objects
        parsed = parse(text, source)
        if parsed.value is None:
            raise SeedError(source, 1, "seed file is empty")
        if type(parsed.value) is not dict:
            raise SeedError(source, 1, "the top level must be a mapping")
        try:
            return build_seed(parsed.value, source)
        except Invalid as exc:
            problems = [
                SeedError(source, parsed.line_of(problem.at), problem.message)
                for problem in (exc, *exc.others)
            ]
            problems.sort(key=lambda problem: problem.line)  # stable: walk order on a line
            raise SeedError.every(problems) from None
