"""What the abuse scripts share: PASS/FAIL lines (and the failures they
count), timestamped progress lines, and the service process they watch.
Standard library only."""

import os
import time

failures = []


def check(name, ok, detail=""):
    """Prints PASS or FAIL with what was seen; a FAIL is counted."""
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
    if not ok:
        failures.append(name)


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def alive(pid):
    """Whether the process is still there."""
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def status_mib(pid, field):
    """A memory line of /proc/PID/status (VmRSS, VmHWM), in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0
