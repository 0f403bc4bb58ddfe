"""schemathesis hooks for scripts/fuzz-api.sh.

`POST /v1/scores` also takes JSON Lines (application/x-ndjson, one archive a
line), which schemathesis cannot serialise by itself: one generated value is
one line.
"""

import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def json_lines(ctx, value):
    return (json.dumps(value) + "\n").encode()
