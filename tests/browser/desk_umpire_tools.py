"""The umpire's tools for settling a dispute, at 1400 and 500 px, on an
unfinished Arboretum game: looking as any seat in one click (no token
pasted; the board drawn is exactly that seat's state), the timeline's
recorded times, time taken, filters by who and by round and a jump to a
round, a ruling written onto the record (markup shown as text, seen by
every viewer, upheld by the audit), a dry run at a past version that
appends nothing, the archive downloaded, the link to a version copied, and
diffs and what-ifs said in words beside their JSON. A seat's page has no
"Look as" and a link asking it to look as another seat shows the seat's
own view.

Run as a section of viewer.py: BROWSER_ONLY=desk_umpire_tools."""

from __future__ import annotations

import json
import urllib.error
from typing import Any

from viewer import (BASE, OUT, browser, call, drawn, import_unfinished, log, open_page, pieces, simulated,
                    state, view_as, wait_for, wait_version)
from viewer import click_found
from viewer import check as expected

WIDTHS = (1400, 500)
HEIGHT = 900
SEATS = ["red", "blue"]
# Markup that must stay text wherever a ruling is shown.
RULING = '<script>window.__ruled = 1</script><img src=x onerror="window.__ruled = 2"> & "the card stays"'


def events_of(game_id: str, token: str | None) -> list[dict[str, Any]]:
    return call("GET", f"/v1/games/{game_id}/events?after=0&limit=1000", token)["events"]


def millis(recorded_at: str) -> str:
    """`2026-11-25T03:06:07.500000Z` as the page's `<time datetime>` has it."""
    head, _, rest = recorded_at.partition(".")
    return f"{head}.{(rest.rstrip('Z') + '000')[:3]}Z" if rest else recorded_at.replace("Z", ".000Z")


def shown_as(driver, viewer: str, what: str) -> None:
    wait_for(driver, f"return document.body.dataset.viewer === '{viewer}' && document.body.dataset.rendered === 'true'",
             f"{what}: the page as {viewer}")


def overflow(driver) -> int:
    return driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")


def look_as_every_seat(driver, created: dict[str, Any], width: int) -> None:
    game_id = created["id"]
    buttons = wait_for(driver, "const n = document.getElementById('look-as');"
                               " return !n.hidden && [...n.querySelectorAll('button')].map(b => b.dataset.look)",
                       "the Look as control")
    expected(buttons == ["umpire", *SEATS, "spectator"], f"{width}px: Look as offers umpire, each seat, spectator ({buttons})")
    # A version where red's view and the umpire's differ (a sealed bid, a
    # hand), so that a board drawn as the umpire could not pass for red's.
    umpire = created["umpire_token"]
    latest = call("GET", f"/v1/games/{game_id}")["version"]
    at = next(v for v in range(latest, 0, -1)
              if pieces("arboretum", state(game_id, v, created["seat_tokens"]["red"])["state"], SEATS)
              != pieces("arboretum", state(game_id, v, umpire)["state"], SEATS))
    driver.execute_script("const a = document.getElementById('at'); a.value = arguments[0]; a.dispatchEvent(new Event('change'))", at)
    wait_version(driver, at)
    for seat, token in (("red", created["seat_tokens"]["red"]), ("blue", created["seat_tokens"]["blue"]), ("spectator", None)):
        driver.execute_script("performance.clearResourceTimings(); performance.setResourceTimingBufferSize(2000)")
        click_found(driver, "css selector", f"#look-as button[data-look='{seat}']")
        viewer = "spectator" if seat == "spectator" else f"seat:{seat}"
        shown_as(driver, viewer, f"{width}px: Look as {seat}")
        wait_version(driver, at)
        own = state(game_id, at, token)["state"]
        expected(drawn(driver) == pieces("arboretum", own, SEATS),
                 f"{width}px: looking as {seat}, the board is exactly {seat}'s own state at v{at}")
        kept = driver.execute_script("return Object.keys(sessionStorage).map(k => sessionStorage.getItem(k))")
        expected(kept == [created["umpire_token"]], f"{width}px: looking as {seat} kept only the umpire's token (no seat token pasted)")
        asked = wait_for(driver, "const s = performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/state?'));"
                                 f" return s.some(n => n.endsWith('as={seat}')) && s", f"{width}px: the state asked as {seat}")
        expected(all("&as=" in url for url in asked), f"{width}px: every state read carries as= ({asked[:2]})")
        pressed = driver.execute_script("return document.querySelector('#look-as [aria-pressed=\"true\"]')?.dataset.look")
        expected(pressed == seat, f"{width}px: the {seat} button is shown pressed ({pressed})")
        expected(f"look={seat}" in driver.current_url, f"{width}px: the address says look={seat} ({driver.current_url})")
        if seat == "red":
            expected(driver.execute_script("return document.getElementById('play-panel').hidden"),
                     f"{width}px: the umpire does not play as the seat it looks as")
            driver.save_screenshot(str(OUT / f"umpire-look-as-red-{width}.png"))
    click_found(driver, "css selector", "#look-as button[data-look='umpire']")
    shown_as(driver, "umpire", f"{width}px: back to the umpire")
    own = state(game_id, at, created["umpire_token"])["state"]
    expected(drawn(driver) == pieces("arboretum", own, SEATS), f"{width}px: back as the umpire, the umpire's board")


def timeline_times_and_filters(driver, created: dict[str, Any], width: int) -> None:
    game_id = created["id"]
    events = events_of(game_id, created["umpire_token"])
    heads = driver.execute_script("""
        return [...document.querySelectorAll('#timeline li.decision')].slice(-40).map(li => ({
          first: Number(li.dataset.first), last: Number(li.dataset.last), actor: li.dataset.actor,
          round: li.dataset.round ?? null,
          at: li.querySelector('time.at')?.getAttribute('datetime'),
          took: li.querySelector('.took')?.dataset.tookMs ?? null }));""")
    expected(len(heads) > 5, f"{width}px: the timeline lists decisions ({len(heads)})")
    wrong = [h for h in heads if h["at"] != millis(events[h["first"] - 1]["recorded_at"])]
    expected(not wrong, f"{width}px: each decision shows its event's recorded time ({wrong[:2]})")
    from datetime import datetime

    def ms(text: str) -> float:
        return datetime.fromisoformat(millis(text).replace("Z", "+00:00")).timestamp() * 1000
    late = [h for previous, h in zip(heads, heads[1:])
            if h["took"] is None or abs(float(h["took"]) - (ms(events[h["first"] - 1]["recorded_at"])
                                                           - ms(events[previous["last"] - 1]["recorded_at"]))) > 1.5]
    expected(not late, f"{width}px: each decision shows the time since the one before it ({late[:2]})")
    live = [h for h in heads if h["took"] is not None and 1000 <= float(h["took"]) < 60_000]
    expected(bool(live), f"{width}px: a decision taken a second after the one before says so ({[h['took'] for h in heads[-3:]]})")
    # By who decided.
    select = "const s = document.getElementById(arguments[0]); s.value = arguments[1]; s.dispatchEvent(new Event('change'));"
    driver.execute_script(select, "timeline-seat", "seat:red")
    shown = driver.execute_script("return [...document.querySelectorAll('#timeline li.decision:not(.filtered-out)')].map(li => li.dataset.actor)")
    expected(bool(shown) and set(shown) == {"seat:red"}, f"{width}px: filtered by red, only red's decisions ({set(shown)})")
    driver.execute_script(select, "timeline-seat", "")
    # By round, and a jump to one.
    starts = {e["payload"]["round"]: e["seq"] for e in events if e["type"] == "round_started"}
    rounds = sorted(starts)
    expected(len(rounds) >= 2, f"{width}px: the game reached two rounds ({rounds})")
    second = rounds[1]
    driver.execute_script(select, "timeline-round", str(second))
    shown = driver.execute_script("return [...document.querySelectorAll('#timeline li.decision:not(.filtered-out)')].map(li => li.dataset.round)")
    expected(bool(shown) and set(shown) == {str(second)}, f"{width}px: filtered by round {second}, only its decisions ({set(shown)})")
    if width == 1400:
        driver.save_screenshot(str(OUT / f"umpire-timeline-round-{width}.png"))
    driver.execute_script(select, "timeline-round", "")
    driver.execute_script(select, "timeline-jump", str(starts[second]))
    wait_version(driver, starts[second])
    log(f"{width}px: jumping to round {second} shows v{starts[second]}")
    # The keys still step from there.
    driver.execute_script("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}))")
    moved = wait_for(driver, f"return document.body.dataset.rendered === 'true' && Number(document.body.dataset.version) > {starts[second]}",
                     "a step with the arrow key")
    expected(bool(moved), f"{width}px: the arrow key steps on from the round's start")


def ruling_on_the_record(driver, created: dict[str, Any], width: int) -> None:
    game_id = created["id"]
    before = call("GET", f"/v1/games/{game_id}")["version"]
    driver.execute_script("document.getElementById('last').click()")
    wait_version(driver, before)
    field = driver.find_element("id", "ruling-text")
    field.clear()
    text = f"{RULING} ({width}px)"
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", field, text)
    click_found(driver, "css selector", "#ruling-form button[type=submit]")
    version = wait_for(driver, "return document.querySelector('#ruling-result [data-ruling-version]')?.dataset.rulingVersion",
                       f"{width}px: the ruling recorded")
    expected(int(version) == before + 1, f"{width}px: the ruling is at the game's next version ({version})")
    wait_version(driver, before + 1)
    shown = driver.execute_script("const li = document.querySelector('#timeline li.ruling:last-of-type');"
                                  " return li && {words: li.querySelector('.words').textContent, markup: li.querySelectorAll('script, img').length}")
    expected(shown is not None and shown["words"] == f"rules: “{text}”" and shown["markup"] == 0,
             f"{width}px: the timeline shows the ruling's words as text ({shown})")
    expected(driver.execute_script("return window.__ruled === undefined"), f"{width}px: the ruling's markup never ran")
    for token in (None, created["seat_tokens"]["red"], created["seat_tokens"]["blue"]):
        last = events_of(game_id, token)[-1]
        expected(last["type"] == "ruling_recorded" and last["payload"]["text"] == text and last["actor"] == "umpire",
                 f"{width}px: {'a spectator' if token is None else 'a seat'} reads the ruling whole ({last['type']})")
    audit = call("GET", f"/v1/games/{game_id}/audit", created["umpire_token"])
    expected(audit["valid"] and audit["chain"]["intact"], f"{width}px: the audit upholds the log with the ruling")
    driver.execute_script("document.querySelector('#timeline li.ruling:last-of-type').scrollIntoView({block: 'center'})")
    driver.save_screenshot(str(OUT / f"umpire-ruling-{width}.png"))
    # Too long: refused by the service with its code and rule, nothing appended.
    driver.execute_script("arguments[0].value = 'x'.repeat(2001)", field)
    click_found(driver, "css selector", "#ruling-form button[type=submit]")
    code = wait_for(driver, "return document.querySelector('#ruling-result .refusal code')?.textContent", f"{width}px: the refusal")
    link = driver.execute_script("return document.querySelector('#ruling-result a.rule-link')?.getAttribute('href')")
    expected(code == "umpire.ruling_too_long" and link == "/rules/umpire#s1",
             f"{width}px: a ruling over 2,000 characters is refused with its code and rule ({code}, {link})")
    expected(call("GET", f"/v1/games/{game_id}")["version"] == before + 1, f"{width}px: the refused ruling appended nothing")
    driver.execute_script("arguments[0].value = ''", field)


def dry_run_in_the_past(driver, created: dict[str, Any], width: int) -> None:
    game_id = created["id"]
    latest = call("GET", f"/v1/games/{game_id}")["version"]
    events = events_of(game_id, created["umpire_token"])
    # A past version before one of red's own decisions.
    seq = next(e["seq"] for e in events[5:] if e["actor"] == "seat:red" and e.get("action"))
    at = seq - 1
    driver.execute_script("const a = document.getElementById('at'); a.value = arguments[0]; a.dispatchEvent(new Event('change'))", at)
    wait_version(driver, at)
    said = driver.find_element("css selector", "#dry-run .dry-run-at").text
    expected(f"version {at}" in said, f"{width}px: the dry run says it tries at v{at} ({said!r})")
    click_found(driver, "css selector", "#dry-run .suggest")
    click_found(driver, "css selector", "#dry-run-form button[type=submit]")
    verdict = wait_for(driver, "return document.querySelector('#dry-run-result [data-dry-run]')?.dataset.dryRun", f"{width}px: a verdict")
    expected(verdict == "accepted", f"{width}px: red's recorded action, tried again at v{at}, is accepted ({verdict})")
    if width == 1400:
        driver.execute_script("document.getElementById('dry-run').scrollIntoView()")
        driver.save_screenshot(str(OUT / f"umpire-dry-run-{width}.png"))
    # The same action as blue: refused, with the rule that decides.
    driver.execute_script("document.getElementById('dry-run-as').value = 'blue'")
    click_found(driver, "css selector", "#dry-run-form button[type=submit]")
    wait_for(driver, "return document.querySelector('#dry-run-result [data-dry-run=\"refused\"]')", f"{width}px: the refusal")
    code = driver.execute_script("return document.querySelector('#dry-run-result .refusal code')?.textContent")
    link = driver.execute_script("return document.querySelector('#dry-run-result a.rule-link')?.getAttribute('href')")
    expected(bool(code) and code.startswith("arboretum.") and bool(link) and link.startswith("/rules/arboretum#"),
             f"{width}px: blue trying red's move is refused with a rule link ({code}, {link})")
    driver.execute_script("document.getElementById('dry-run-result').scrollIntoView({block: 'end'})")
    driver.save_screenshot(str(OUT / f"umpire-dry-run-refused-{width}.png"))
    expected(call("GET", f"/v1/games/{game_id}")["version"] == latest, f"{width}px: the dry runs appended nothing")


def archive_and_link(driver, created: dict[str, Any], width: int) -> None:
    game_id = created["id"]
    click_found(driver, "id", "archive-download")
    size = wait_for(driver, "return document.querySelector('#archive-result [data-archive-bytes]')?.dataset.archiveBytes",
                    f"{width}px: the archive downloaded")
    exported = json.dumps(call("GET", f"/v1/games/{game_id}/export", created["umpire_token"]))
    expected(int(size) > len(exported) // 2, f"{width}px: the downloaded archive is the export ({size} bytes)")
    at = int(driver.execute_script("return document.body.dataset.version"))
    click_found(driver, "css selector", "#look-as button[data-look='blue']")
    shown_as(driver, "seat:blue", f"{width}px: looking as blue for the link")
    click_found(driver, "id", "copy-link")
    link = wait_for(driver, "const f = document.getElementById('copy-link-url'); return !f.hidden && f.value", "the link")
    expected(link.startswith(f"{BASE}/games/{game_id}?") and f"at={at}" in link and "as=umpire" in link and "look=blue" in link,
             f"{width}px: the copied link names the version, the viewer and whom it looks as ({link})")
    driver.get(link)
    shown_as(driver, "seat:blue", f"{width}px: the copied link opened")
    wait_version(driver, at)
    own = state(game_id, at, created["seat_tokens"]["blue"])["state"]
    expected(drawn(driver) == pieces("arboretum", own, SEATS), f"{width}px: the link opens blue's board at v{at}")
    click_found(driver, "css selector", "#look-as button[data-look='umpire']")
    shown_as(driver, "umpire", f"{width}px: the umpire again")


def changes_in_words(driver, created: dict[str, Any], width: int) -> None:
    for field, value in (("diff-from", 10), ("diff-to", 30)):
        driver.find_element("id", field).clear()
        driver.find_element("id", field).send_keys(str(value))
    click_found(driver, "css selector", "#diff-form button")
    words = wait_for(driver, "const w = [...document.querySelectorAll('#diff .in-words li')].map(li => li.textContent); return w.length && w",
                     f"{width}px: the diff in words")
    rows = driver.execute_script("return document.querySelectorAll('#diff details.as-json tbody tr').length")
    folded = driver.execute_script("return !document.querySelector('#diff details.as-json').open")
    expected(rows > 0 and folded, f"{width}px: {len(words)} sentences, the JSON paths folded beneath ({rows})")
    # What a sentence says of a seat's arboretum is what the states hold at
    # that cell: a card planted elsewhere never reads as one that moved.
    import re
    planted = {v: {(seat, c["cell"]): c["card"] for seat in SEATS
                   for c in state(created["id"], v, created["umpire_token"])["state"][seat]["arboretum"]} for v in (10, 30)}
    cells = [re.match(r"^(red|blue)'s arboretum at ([A-F]\d)(?:: now (\w+)|: (\w+), gone| (\w+) → (\w+))$", w) for w in words if "arboretum at" in w]
    expected(bool(cells) and all(m is not None for m in cells), f"{width}px: each arboretum change is named by its cell ({words[:4]})")
    wrong = [m.group(0) for m in cells if m and (planted[30].get((m[1], m[2])) != (m[3] or m[6])
                                                  or planted[10].get((m[1], m[2])) != (m[4] or m[5]))]
    expected(not wrong, f"{width}px: each arboretum change is what the states hold at its cell ({wrong[:2]})")
    expected(all("→" in w or ": now " in w or ", gone" in w for w in words), f"{width}px: each says before and after ({words[:3]})")
    expected(not any(w.split(" ")[0].count(".") > 0 for w in words), f"{width}px: no sentence starts with a JSON path ({words[:3]})")
    expected(any(w.startswith(("red's", "blue's")) for w in words), f"{width}px: a seat's change is named by its seat ({words[:4]})")
    log(f"{width}px: the diff in words begins {words[:3]}")
    patch = driver.find_element("id", "what-if-patch")
    patch.clear()
    patch.send_keys('{"dm_advantage": "blue"}')
    click_found(driver, "css selector", "#what-if-form button")
    said = wait_for(driver, "const w = [...document.querySelectorAll('#what-if .in-words li')].map(li => li.textContent); return w.length && w",
                    f"{width}px: the what-if in words")
    expected(any(s.startswith(("red's score", "blue's score")) for s in said), f"{width}px: the what-if says each seat's score ({said[:4]})")
    driver.execute_script("document.getElementById('diff').scrollIntoView()")
    driver.save_screenshot(str(OUT / f"umpire-diff-words-{width}.png"))


def a_seat_cannot_look_as_another(created: dict[str, Any]) -> None:
    game_id = created["id"]
    red = created["seat_tokens"]["red"]
    try:
        call("GET", f"/v1/games/{game_id}/state?as=blue", red)
        expected(False, "a seat's token looking as another seat is refused")
    except urllib.error.HTTPError as error:
        body = json.loads(error.read())
        expected(error.code == 403 and body["code"] == "umpire_only", f"a seat looking as another: {error.code} {body['code']}")
    driver = browser(1400, HEIGHT)
    try:
        driver.get(f"{BASE}/")
        open_page(driver, game_id)
        view_as(driver, red, "seat:red")
        expected(driver.execute_script("return document.getElementById('look-as').hidden"), "a seat's page has no Look as")
        driver.get(f"{BASE}/games/{game_id}?look=blue")
        shown_as(driver, "seat:red", "a seat's link asking to look as blue")
        at = int(driver.execute_script("return document.body.dataset.version"))
        own = state(game_id, at, red)["state"]
        notice = driver.find_element("id", "notice").text
        expected(drawn(driver) == pieces("arboretum", own, SEATS) and "only the umpire" in notice,
                 f"the seat's page shows its own board and says why ({notice!r})")
    finally:
        driver.quit()


def check(_driver: Any) -> None:
    archive = simulated("arboretum", 41)
    created = import_unfinished(archive, 90)
    # Two decisions taken now, a second apart: real times to show.
    import time
    for _ in range(2):
        time.sleep(1.2)
        summary = call("GET", f"/v1/games/{created['id']}")
        seat = summary["status"]["to_act"][0]
        legal = call("GET", f"/v1/games/{created['id']}/legal-actions", created["seat_tokens"][seat])["actions"]
        call("POST", f"/v1/games/{created['id']}/actions", created["seat_tokens"][seat], {"action": legal[0]})
    log(f"umpire tools on game {created['id']}")
    for width in WIDTHS:
        driver = browser(width, HEIGHT)
        try:
            driver.get(f"{BASE}/")
            driver.execute_script("sessionStorage.clear()")
            open_page(driver, created["id"])
            view_as(driver, created["umpire_token"], "umpire")
            expected(overflow(driver) <= 0, f"{width}px: nothing overflows sideways ({overflow(driver)} px)")
            driver.save_screenshot(str(OUT / f"umpire-tools-{width}.png"))
            look_as_every_seat(driver, created, width)
            timeline_times_and_filters(driver, created, width)
            ruling_on_the_record(driver, created, width)
            dry_run_in_the_past(driver, created, width)
            archive_and_link(driver, created, width)
            changes_in_words(driver, created, width)
            driver.execute_script("document.getElementById('umpire-panel').scrollIntoView()")
            driver.save_screenshot(str(OUT / f"umpire-panel-{width}.png"))
            expected(overflow(driver) <= 0, f"{width}px: nothing overflows sideways with every tool used ({overflow(driver)} px)")
        finally:
            driver.quit()
    a_seat_cannot_look_as_another(created)
