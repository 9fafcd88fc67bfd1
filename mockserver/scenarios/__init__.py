"""Scenario files: the format (schema, model), the loader and the engine that applies them.

schema.py   the JSON Schema QA's editors validate against (`mockserver schema scenario`)
model.py    the typed scenario the loader builds
loader.py   YAML -> schema -> checks -> model, every error as `file:line: message`
files.py    a scenario argument (a path or a shipped name) -> the file to load
matching.py path patterns, header, query and body-subset matchers (pure)
actions.py  setup and timeline actions, checked before anything is applied
engine.py   loaded scenarios: rules, bursts, webhook faults, deprecations, timeline, chaos
chaos.py    the chaos block: its model, the seeded draws and the latency distributions
chaos_loader.py  the checks of the chaos block past the schema
"""
