"""schemathesis hooks for scripts/fuzz-api.sh (loaded through SCHEMATHESIS_HOOKS).

`score_archives` and `import_game` also take JSON Lines
(`application/x-ndjson`: one document a line, each of the schema given for
that media type). schemathesis has no serializer for it: this one sends the
generated document as one line.
"""

import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def json_lines(ctx, value):
    return {"data": (json.dumps(value) + "\n").encode()}
