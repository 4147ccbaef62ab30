#!/usr/bin/env python3
"""Checks a JSON document against a JSON Schema, in the subset that
man/profanalyze.schema.json uses: type (a name or a list of names),
enum, const, minimum, required, properties, additionalProperties (false
or a schema) and items. Written here because the jsonschema module is
not everywhere the tests run (Debian packages it as python3-jsonschema,
not installed by scripts/setup-deps); where it is importable, the
document is checked with it too, which also checks this validator.

usage: check-json-schema.py SCHEMA DOCUMENT
Exit 0 when valid; 1 with one line per error.
"""
import json
import sys

TYPES = {
    'object': lambda v: isinstance(v, dict),
    'array': lambda v: isinstance(v, list),
    'string': lambda v: isinstance(v, str),
    'boolean': lambda v: isinstance(v, bool),
    'null': lambda v: v is None,
    'integer': lambda v: isinstance(v, int) and not isinstance(v, bool),
    'number': lambda v: isinstance(v, (int, float)) and
    not isinstance(v, bool),
}
KNOWN = {'$schema', '$id', 'title', 'description', 'type', 'enum', 'const',
         'minimum', 'required', 'properties', 'additionalProperties',
         'items'}


def check(schema, v, path, errors):
    unknown = set(schema) - KNOWN
    if unknown:
        raise SystemExit(f'schema at {path}: unsupported {sorted(unknown)}')
    if 'type' in schema:
        names = schema['type']
        names = [names] if isinstance(names, str) else names
        if not any(TYPES[n](v) for n in names):
            errors.append(f'{path}: {json.dumps(v)[:60]} is not {names}')
            return
    if 'const' in schema and v != schema['const']:
        errors.append(f'{path}: {v!r} is not {schema["const"]!r}')
    if 'enum' in schema and v not in schema['enum']:
        errors.append(f'{path}: {v!r} is none of {schema["enum"]}')
    if 'minimum' in schema and TYPES['number'](v) and v < schema['minimum']:
        errors.append(f'{path}: {v} is below {schema["minimum"]}')
    if isinstance(v, dict):
        for k in schema.get('required', []):
            if k not in v:
                errors.append(f'{path}: missing {k!r}')
        props = schema.get('properties', {})
        extra = schema.get('additionalProperties', True)
        for k, sub in v.items():
            if k in props:
                check(props[k], sub, f'{path}.{k}', errors)
            elif extra is False:
                errors.append(f'{path}: unexpected {k!r}')
            elif isinstance(extra, dict):
                check(extra, sub, f'{path}.{k}', errors)
    if isinstance(v, list) and 'items' in schema:
        for i, sub in enumerate(v):
            check(schema['items'], sub, f'{path}[{i}]', errors)


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding='utf-8', errors='surrogateescape') as f:
        doc = json.load(f)
    errors = []
    check(schema, doc, '$', errors)
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        theirs = sorted(e.message for e in
                        jsonschema.Draft202012Validator(schema)
                        .iter_errors(doc))
        if bool(theirs) != bool(errors):
            errors.append(f'jsonschema disagrees: {theirs[:3]}')
    for e in errors[:20]:
        print(f'{sys.argv[2]}: {e}')
    sys.exit(1 if errors else 0)


main()
