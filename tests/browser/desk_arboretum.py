"""Build Your Arboretum on the umpire's desk (issue 33): each arboretum
labelled A–F and 1–6 as the events and refusals write cells, cards that read
"suit W, value 7", every cell, card, bid and special pointable (`data-at`),
the last decision marked on the board, every legal action reachable by its
clicks (each its own clicks, each click on something drawn), a game played
by clicking (choosing the start, bidding, planting, skipping), a score sheet
that adds up to each total; at 1400 and 500 px wide.

Run by viewer.py (BROWSER_ONLY=desk_arboretum for this section alone)."""

from __future__ import annotations

import json

import viewer
from typing import Any

from selenium.webdriver.common.by import By

from viewer import (OUT, browser, call, import_unfinished, log, open_page, simulated, state, view_as,
                    wait_for, wait_version)

SEATS = ["red", "blue"]
CELLS = [f"{column}{row}" for column in "ABCDEF" for row in range(1, 7)]


def drawn_keys(driver) -> set[str]:
    return set(driver.execute_script("return [...document.querySelectorAll('#board [data-at]')].map(e => e.dataset.at)"))


def module_call(driver, function: str, *args: Any) -> Any:
    """Calls one of the game module's functions in the page (as the page
    loads it) and answers its JSON-able result."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/viewer/games/arboretum.js').then((m) => done(JSON.stringify(m[arguments[0]](...arguments[1]))),"
        " (e) => done(JSON.stringify({ error: String(e) })));", function, list(args))


def call_module(driver, function: str, *args: Any) -> Any:
    return json.loads(module_call(driver, function, *args))


def coordinates(driver, where: str) -> None:
    axes = driver.execute_script("return [...document.querySelectorAll('#board text.axis')].map(t => t.textContent)")
    viewer.check(sorted(axes) == sorted(list("ABCDEF") * 2 + [str(n) for n in range(1, 7)] * 2),
          f"{where}: each arboretum has its columns A–F and rows 1–6 labelled ({len(axes)} labels)")
    keys = drawn_keys(driver)
    missing = [f"{seat}:{cell}" for seat in SEATS for cell in CELLS if f"{seat}:{cell}" not in keys]
    viewer.check(not missing, f"{where}: every cell of both arboretums is pointable (missing {missing[:4]})")


def readable_cards(driver, view: dict[str, Any], where: str) -> None:
    """Every card drawn says its suit and value in words, and sits where the
    state has it, under its key."""
    titles = driver.execute_script(
        "return [...document.querySelectorAll('#board .card[data-piece]')].map(c => c.querySelector('title')?.textContent ?? '')")
    viewer.check(titles and all(t.split(":")[0] and f"suit {t[0]}, value {t[1]}" in t for t in titles),
          f"{where}: each of {len(titles)} cards is titled with its suit and value ({titles[:2]})")
    keys = drawn_keys(driver)
    expected = [f"{seat}:{c['cell']}" for seat in SEATS for c in view[seat]["arboretum"]]
    expected += [f"{seat}:ad:{card}" for seat in SEATS for card in view[seat]["ad_board"]]
    expected += [f"offer:{card}" for card in view["offering_area"]] + [f"refuse:{card}" for card in view["refuse_pile"]]
    expected += [f"{seat}:{what}" for seat in SEATS for what in ("bid", "parrots", "seat")]
    expected += ["special:dig", "special:hire", "special:start", "deck"]
    missing = [key for key in expected if key not in keys]
    viewer.check(not missing, f"{where}: every card, bid and special is pointable (missing {missing[:4]})")
    legend = driver.execute_script("return document.getElementById('board').textContent")
    viewer.check("card W7: suit W" in legend and "cell C4: column C" in legend, f"{where}: the legend says how cards and cells are written")


def every_action_reachable(driver, view: dict[str, Any], seat: str | None, actions: list[dict[str, Any]], where: str) -> None:
    """Each legal action has its own clicks, and each click on the board is
    on something drawn."""
    ctx = {"seats": SEATS, "viewer": f"seat:{seat}" if seat else "umpire", "view": view, "seat": seat}
    lists = [call_module(driver, "steps", action, ctx) for action in actions]
    paths = [json.dumps([step.get("at") or f"label:{step['label']}" for step in steps]) for steps in lists]
    viewer.check(len(set(paths)) == len(paths), f"{where}: the {len(actions)} legal actions each have their own clicks")
    keys = drawn_keys(driver)
    off_board = {step["at"] for steps in lists for step in steps if step.get("at") and step["at"] not in keys}
    viewer.check(not off_board, f"{where}: every click of every legal action is on something drawn (not: {sorted(off_board)[:4]})")
    words = [call_module(driver, "actionWords", action, ctx) for action in actions[:40]]
    viewer.check(all(w and not w.startswith("{") for w in words), f"{where}: each action in words ({words[:2]})")


def score_explained(driver, game_id: str, version: int, where: str) -> None:
    score = call("GET", f"/v1/games/{game_id}/score?at={version}")["score"]
    lines = wait_for(driver, "const s = document.querySelectorAll('#score .arboretum-score h4');"
                             "return s.length === 2 ? [...s].map(h => h.textContent) : null", "the arboretum score sheet")
    for seat, line in zip(SEATS, lines):
        mine = score[seat]
        expected = f"{seat}: {mine['total']} = {mine['parrot_points']} parrots + {mine['starting_player_points']} start + {mine['suit_points']} suits"
        viewer.check(line.startswith(expected), f"{where}: the sheet says how {seat}'s total is made: {line!r}")
        viewer.check(mine["parrot_points"] + mine["starting_player_points"] + mine["suit_points"] == mine["total"], f"{seat}'s parts add up")
    rows = driver.execute_script("return [...document.querySelectorAll('#score .arboretum-score tbody tr')].map(r => r.textContent)")
    viewer.check(len(rows) == 2 * 10 and any("path" in row for row in rows),
          f"{where}: each seat's parrots, start and eight suits are explained, with the paths ({len(rows)} rows)")


def no_overflow(driver, where: str) -> None:
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    viewer.check(overflow <= 0, f"{where}: nothing overflows sideways ({overflow} px)")


def click_steps(driver, steps: list[dict[str, Any]]) -> None:
    """Takes an action's clicks: on the board where the step names something
    drawn, else the Play panel's button with the step's label; then Submit."""
    for step in steps:
        if step.get("at") and driver.execute_script(f"return !!document.querySelector('#board [data-at=\"{step['at']}\"]')"):
            wait_for(driver, f"return document.querySelector('#board [data-at=\"{step['at']}\"]').classList.contains('legal')",
                     f"{step['at']} marked legal")
            driver.execute_script(f"document.querySelector('#board [data-at=\"{step['at']}\"]')"
                                  ".dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
        else:
            buttons = wait_for(driver, "const b = [...document.querySelectorAll('#play-panel button')]"
                                       f".filter(b => b.textContent.trim() === {json.dumps(step['label'])}); return b.length ? b : null",
                               f"the button {step['label']!r}")
            buttons[0].click()
    driver.find_element(By.CSS_SELECTOR, "#submit-form button[type=submit]").click()


def played(driver, game_id: str, token: str, seat: str, choose, where: str) -> dict[str, Any]:
    """Chooses one of the seat's legal actions (`choose(actions)`), checks
    that every legal action is reachable, clicks the chosen one's steps and
    waits for it to be accepted. Answers the action."""
    before = call("GET", f"/v1/games/{game_id}")["version"]
    wait_version(driver, before)
    view = state(game_id, before, token)["state"]
    actions = call("GET", f"/v1/games/{game_id}/legal-actions", token)["actions"]
    wait_for(driver, "return document.querySelectorAll('#board .legal').length > 0 || "
                     "document.querySelectorAll('#play-panel button').length > 0", "the legal choices")
    every_action_reachable(driver, view, seat, actions, where)
    action = choose(actions)
    steps = call_module(driver, "steps", action, {"seats": SEATS, "viewer": f"seat:{seat}", "view": view, "seat": seat})
    click_steps(driver, steps)
    accepted = wait_for(driver, "return document.querySelector('#submit-result .accepted')?.dataset.acceptedVersion",
                        f"{action} to be accepted")
    after = call("GET", f"/v1/games/{game_id}")["version"]
    viewer.check(int(accepted) == after > before, f"{where}: {seat}'s {action['type']} chosen by clicking is accepted (version {after})")
    wait_version(driver, after)
    return action


def play_by_clicking(driver, width: int) -> None:
    """A new game played from red's page: red chooses the start by clicking
    its name, bids by the bid's buttons, plants by clicking a card and a
    cell, and skips the rest of the round by a button."""
    where = f"arboretum played at {width} px"
    created = call("POST", "/v1/games", body={"game": "arboretum"})
    game_id, tokens = created["id"], created["seat_tokens"]
    driver.execute_script("try { sessionStorage.clear() } catch { }")
    open_page(driver, game_id)
    view_as(driver, tokens["red"], "seat:red")
    played(driver, game_id, tokens["red"], "red", lambda actions: {"type": "choose_start", "seat": "red"}, where)
    bid = played(driver, game_id, tokens["red"], "red",
                 lambda actions: next(a for a in actions if [g["size"] for g in a["groups"]] == [3, 2]
                                      and all(g["plan"] == "garden" for g in a["groups"])), where)
    version = call("GET", f"/v1/games/{game_id}")["version"]
    call("POST", f"/v1/games/{game_id}/actions", tokens["blue"],
         {"action": {"type": "bid", "groups": [{"size": 1, "plan": "garden"}]}, "expected_version": version})
    view = call("GET", f"/v1/games/{game_id}/state", tokens["red"])["state"]
    viewer.check(view["red"]["bid"] == bid["groups"], f"{where}: red's bid is the one clicked ({view['red']['bid']})")
    plant = played(driver, game_id, tokens["red"], "red",
                   lambda actions: next(a for a in actions if a["type"] == "plant" and a["cell"] == "C4"), where)
    marked = wait_for(driver, "const m = [...document.querySelectorAll('#board .last-action')].map(e => e.dataset.at);"
                              "return m.length ? m : null", "the plant marked")
    viewer.check("red:C4" in marked, f"{where}: red's plant of {plant['card']} is marked on C4 ({marked})")
    driver.save_screenshot(str(OUT / f"desk-arboretum-{width}-play.png"))
    played(driver, game_id, tokens["red"], "red", lambda actions: {"type": "skip"}, where)
    log(f"{where}: red chose the start, bid 3 + 2 garden, planted {plant['card']} on C4 and skipped, all by clicking")


def whole_game(driver, width: int) -> None:
    """A whole game, read by the umpire: coordinates, cards, the last
    decision marked, the score sheet; the middle of the game as a seat."""
    archive = simulated("arboretum", 40 + width)
    created = import_unfinished(archive, len(archive["events"]))
    game_id, umpire, last = created["id"], created["umpire_token"], created["version"]
    where = f"arboretum at {width} px"
    driver.execute_script("try { sessionStorage.clear() } catch { }")
    open_page(driver, game_id)
    view_as(driver, umpire, "umpire")
    events = call("GET", f"/v1/games/{game_id}/events?after=0&limit=1000", umpire)["events"]
    planted = [e for e in events if e["type"] == "card_planted"][len(events) // 10]
    version = planted["seq"]
    field = driver.find_element(By.ID, "at")
    field.clear()
    field.send_keys(str(version), "\n")
    wait_version(driver, version)
    view = state(game_id, version, umpire)["state"]
    coordinates(driver, where)
    readable_cards(driver, view, where)
    payload = planted["payload"]
    cell = f"{payload['seat']}:{payload['cell']}"
    marked = wait_for(driver, "return [...document.querySelectorAll('#board .last-action')].map(e => e.dataset.at)",
                      "the last decision marked on the board")
    viewer.check(cell in marked, f"{where}: the last decision ({payload['seat']} plants {payload['card']} on {payload['cell']}) "
                          f"is marked on its cell {cell} ({marked})")
    driver.save_screenshot(str(OUT / f"desk-arboretum-{width}-planted.png"))
    driver.find_element(By.ID, "last").click()
    wait_version(driver, last)
    score_explained(driver, game_id, last, where)
    no_overflow(driver, where)
    driver.execute_script("document.getElementById('score').scrollIntoView()")
    driver.save_screenshot(str(OUT / f"desk-arboretum-{width}-score.png"))
    log(f"{where}: coordinates, {len(drawn_keys(driver))} pointable things, the last plant marked, the score sheet explained")


def check(driver) -> None:
    whole_game(driver, 1400)
    play_by_clicking(driver, 1400)
    narrow = browser(500, 900)
    try:
        whole_game(narrow, 500)
        play_by_clicking(narrow, 500)
    finally:
        narrow.quit()
