#!/usr/bin/env python3
"""Replays lines START..START+COUNT of a load plan (driver.py plan) over one
keep-alive connection, in order, and fails if any submission is refused.

    replay.py BASE_URL PLAN_FILE START COUNT
"""

import http.client
import sys
import urllib.parse


def main() -> int:
    base, plan, start, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    url = urllib.parse.urlparse(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=300)
    with open(plan, encoding="utf-8") as lines:
        submissions = lines.read().splitlines()[start : start + count]
    if len(submissions) < count:
        print(f"the plan has only {start + len(submissions)} lines", file=sys.stderr)
        return 1
    for line in submissions:
        path, token, body = line.split("\t", 2)
        connection.request(
            "POST",
            path,
            body=body,
            headers={"Content-Type": "application/json", "Authorization": "Bearer " + token},
        )
        response = connection.getresponse()
        answer = response.read()
        if response.status >= 300:
            print(f"{path}: {response.status} {answer[:300]!r}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
