#!/usr/bin/python3
# Run: /usr/bin/python3 scripts/dev/jsonschema.py SCHEMA FILE...  (Debian's python3 with python3-jsonschema)
"""Check kvtest --json output against a JSON Schema of docs/json/.

Each FILE is JSON lines (every non-blank line one object, as kvtest
prints them) or one whole JSON document; "-" is standard input. Every
object is validated against SCHEMA (draft 2020-12); a "$ref" to another
file ("env.schema.json", "common.schema.json#/$defs/latency") is resolved
among the *.schema.json files beside SCHEMA, nothing is fetched.

One line per failure on standard error:
    FILE:LINE: $.json.path: message
Exit status: 0 every object is valid, 1 some object is not (or a line is
not JSON), 2 bad usage, or SCHEMA (or a FILE) cannot be read, or SCHEMA is
not a valid schema.
"""
import json
import os
import pathlib
import sys

# This file is named jsonschema.py: its own folder must not shadow the
# library when Python puts it first on the path.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import jsonschema  # noqa: E402  (after the path fix above)
from jsonschema import Draft202012Validator, RefResolver  # noqa: E402
from jsonschema.exceptions import best_match  # noqa: E402

PROG = "jsonschema.py"


def usage(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    print("usage: /usr/bin/python3 scripts/dev/jsonschema.py SCHEMA FILE...", file=sys.stderr)
    sys.exit(2)


def load_schema(path):
    """The validator for path, its $refs resolved among its sibling files."""
    p = pathlib.Path(path).resolve()
    try:
        schema = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print(f"{PROG}: {path}: cannot read the schema: {e}", file=sys.stderr)
        sys.exit(2)
    store = {}
    for sib in sorted(p.parent.glob("*.schema.json")):
        try:
            store[sib.as_uri()] = json.loads(sib.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            print(f"{PROG}: {sib}: cannot read the schema: {e}", file=sys.stderr)
            sys.exit(2)
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"{PROG}: {path}: not a valid schema: {e.message}", file=sys.stderr)
        sys.exit(2)
    resolver = RefResolver(base_uri=p.as_uri(), referrer=schema, store=store)
    return Draft202012Validator(schema, resolver=resolver)


def json_path(error):
    s = "$"
    for k in error.absolute_path:
        s += f"[{k}]" if isinstance(k, int) else f".{k}"
    return s


def unique_keys(pairs):
    """An object whose keys are all different: JSON parsers keep one of two
    equal keys, each its own way, so a schema cannot see the other."""
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"duplicate key {k!r} in one object")
        seen[k] = v
    return seen


def parse(text):
    return json.loads(text, object_pairs_hook=unique_keys)


def documents(name, text):
    """(line number, parsed object or None, parse error) for each object."""
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    parsed = []
    for i, ln in lines:
        try:
            parsed.append((i, parse(ln), None))
        except ValueError as e:
            parsed.append((i, None, e))
    if all(err is None for _, _, err in parsed):
        return parsed
    try:  # one whole (pretty-printed) document
        return [(lines[0][0] if lines else 1, parse(text), None)]
    except ValueError:
        return parsed


def report(name, line, path, msg):
    print(f"{name}:{line}: {path}: {msg}", file=sys.stderr)


def check_file(validator, name):
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            with open(name, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"{PROG}: {name}: cannot read: {e}", file=sys.stderr)
        sys.exit(2)
    bad = 0
    docs = documents(name, text)
    if not docs:
        report(name, 1, "$", "no JSON object in the file")
        return 1
    for line, obj, err in docs:
        if err is not None:
            report(name, line, "$", f"not JSON: {err}")
            bad += 1
            continue
        for e in sorted(validator.iter_errors(obj), key=lambda e: list(map(str, e.absolute_path))):
            # oneOf/anyOf: the branch that came closest says what is wrong.
            if e.context:
                e = best_match(e.context)
            report(name, line, json_path(e), e.message)
            bad += 1
    return bad


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        usage("need a SCHEMA and at least one FILE")
    validator = load_schema(argv[0])
    bad = 0
    for name in argv[1:]:
        bad += check_file(validator, name)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
