"""Build Your Arboretum on the umpire's desk (issue 33): each arboretum
labelled A–F and 1–6 as the events and refusals write cells, cards that read
"suit W, value 7", every cell, card, bid and special pointable (`data-at`),
the last decision marked on the board, a refused attempt's cell and card
marked disputed, every legal action reachable by its own clicks on things
drawn, a new game played by clicking (choosing the start, bidding, planting,
skipping), a score sheet that adds up to each total; at 1400 and 500 px.

Run by viewer.py (BROWSER_ONLY=desk_arboretum for this section alone)."""

from __future__ import annotations

import json
from typing import Any

from selenium.webdriver.common.by import By

import viewer
from viewer import (OUT, browser, call, import_unfinished, log, open_page, simulated, state, view_as, wait_for,
                    wait_version)
from viewer import click_found

SEATS = ["red", "blue"]
CELLS = [f"{column}{row}" for column in "ABCDEF" for row in range(1, 7)]


def drawn_keys(driver) -> set[str]:
    return set(driver.execute_script("return [...document.querySelectorAll('#board [data-at]')].map(e => e.dataset.at)"))


def marked(driver, cls: str) -> list[str]:
    return driver.execute_script(f"return [...document.querySelectorAll('#board .{cls}')].map(e => e.dataset.at)")


def call_module(driver, function: str, *args: Any) -> Any:
    """One of the game module's functions, called in the page as the page
    loads the module; its result as JSON."""
    answer = driver.execute_async_script(
        "const [name, args, done] = arguments;"
        "import('/viewer/games/arboretum.js').then((m) => done(JSON.stringify(m[name](...args))),"
        " (e) => done(JSON.stringify({ error: String(e) })));", function, list(args))
    return json.loads(answer)


def coordinates(driver, where: str) -> None:
    axes = driver.execute_script("return [...document.querySelectorAll('#board text.axis')].map(t => t.textContent)")
    viewer.check(sorted(axes) == sorted(list("ABCDEF") * 2 + [str(n) for n in range(1, 7)] * 2),
                 f"{where}: each arboretum has its columns A–F and rows 1–6 labelled ({len(axes)} labels)")
    keys = drawn_keys(driver)
    missing = [f"{seat}:{cell}" for seat in SEATS for cell in CELLS if f"{seat}:{cell}" not in keys]
    viewer.check(not missing, f"{where}: every cell of both arboretums is pointable (missing {missing[:4]})")


def readable_cards(driver, view: dict[str, Any], where: str) -> None:
    """Every card drawn says its suit and value in words, and is pointable
    under the key of where the state has it."""
    titles = driver.execute_script(
        "return [...document.querySelectorAll('#board .card[data-piece]')].map(c => c.querySelector('title')?.textContent ?? '')")
    viewer.check(bool(titles) and all(f"{t[:2]}: suit {t[0]}, value {t[1]}" in t for t in titles),
                 f"{where}: each of {len(titles)} cards is titled with its suit and value ({titles[:2]})")
    keys = drawn_keys(driver)
    expected = [f"{seat}:{c['cell']}" for seat in SEATS for c in view[seat]["arboretum"]]
    expected += [f"{seat}:ad:{card}" for seat in SEATS for card in view[seat]["ad_board"]]
    expected += [f"offer:{card}" for card in view["offering_area"]] + [f"refuse:{card}" for card in view["refuse_pile"]]
    expected += [f"{seat}:{what}" for seat in SEATS for what in ("bid", "parrots", "seat", "ad")]
    expected += ["special:dig", "special:hire", "special:start", "deck"]
    missing = [key for key in expected if key not in keys]
    viewer.check(not missing, f"{where}: every card, bid, parrot count and special is pointable (missing {missing[:4]})")
    legend = driver.execute_script("return document.getElementById('legend').textContent")
    viewer.check("card W7: suit W" in legend and "cell C4: column C" in legend,
                 f"{where}: the legend says how cards and cells are written ({legend[:60]!r})")


def every_action_reachable(driver, view: dict[str, Any], seat: str, actions: list[dict[str, Any]], where: str) -> None:
    """The page offers every legal action, each by its own clicks, none of
    which begins another's, each click on the board on something drawn."""
    wait_for(driver, f"return umpireDesk.play.actions.length === {len(actions)}", f"the {len(actions)} legal actions offered")
    reachable = driver.execute_script("return umpireDesk.play.reachable()")
    viewer.check(reachable == len(actions), f"{where}: {reachable} of the {len(actions)} legal actions are reachable by their own clicks")
    ctx = {"seats": SEATS, "viewer": f"seat:{seat}", "view": view, "seat": seat}
    lists = [call_module(driver, "steps", action, ctx) for action in actions]
    paths = [json.dumps([step.get("at") or f"label:{step['label']}" for step in steps]) for steps in lists]
    viewer.check(len(set(paths)) == len(paths), f"{where}: the {len(actions)} legal actions each have their own clicks")
    prefixes = [p for p in paths for q in paths if p != q and q.startswith(p[:-1] + ",")]
    viewer.check(not prefixes, f"{where}: no action's clicks begin another's ({prefixes[:2]})")
    keys = drawn_keys(driver)
    off_board = {step["at"] for steps in lists for step in steps if step.get("at") and step["at"] not in keys}
    viewer.check(not off_board, f"{where}: every click of every legal action is on something drawn (not: {sorted(off_board)[:4]})")
    words = [call_module(driver, "actionWords", action, ctx) for action in actions[:20]]
    viewer.check(all(w and not w.startswith("{") for w in words), f"{where}: each action in words ({words[:2]})")


def click_steps(driver, action: dict[str, Any], steps: list[dict[str, Any]]) -> None:
    """Takes an action's clicks: on the board where the step names something
    drawn (marked `legal`, then `chosen`), else the choice button with the
    step's label; then submits the action the clicks name."""
    for step in steps:
        at = json.dumps(step.get("at"))
        if step.get("at") and driver.execute_script(f"return !!document.querySelector(`#board [data-at=\"${{CSS.escape({at})}}\"]`)"):
            target = wait_for(driver, f"return document.querySelector(`#board .legal[data-at=\"${{CSS.escape({at})}}\"]`)",
                              f"{step['at']} marked legal")
            driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", target)
            wait_for(driver, f"return !!document.querySelector(`#board .chosen[data-at=\"${{CSS.escape({at})}}\"]`)",
                     f"{step['at']} marked chosen")
        else:
            step_id = json.dumps(f"label:{step['label']}")
            button = wait_for(driver, "return [...document.querySelectorAll('#choices button.choice')]"
                                      f".find(b => b.dataset.step === {step_id})", f"the choice {step['label']!r}")
            button.click()
    submit = wait_for(driver, "return document.querySelector('#play .ready .submit-choice')", "the action named, to submit")
    named = json.loads(submit.get_attribute("data-action"))
    viewer.check(named == action, f"the clicks name {action}, not {named}")
    log(f"by clicking: {submit.text}")
    submit.click()


def played(driver, game_id: str, token: str, seat: str, choose, where: str) -> dict[str, Any]:
    """Checks that every legal action of the seat is reachable, takes the
    clicks of the one `choose(actions)` picks, and waits for it to be
    accepted. Answers the action."""
    before = call("GET", f"/v1/games/{game_id}")["version"]
    wait_version(driver, before)
    view = state(game_id, before, token)["state"]
    actions = call("GET", f"/v1/games/{game_id}/legal-actions", token)["actions"]
    every_action_reachable(driver, view, seat, actions, where)
    # Sized for hands: what the seat may click, and the Play panel in view.
    viewer.targets_fit_a_finger(driver, f"{where}, {seat} at version {before}")
    if driver.execute_script("return window.innerWidth") >= 1400:
        viewer.play_panel_in_view(driver, f"{where}, {seat} at version {before}")
    action = choose(actions)
    steps = call_module(driver, "steps", action, {"seats": SEATS, "viewer": f"seat:{seat}", "view": view, "seat": seat})
    click_steps(driver, action, steps)
    accepted = wait_for(driver, "const v = Number(document.querySelector('#submit-result .accepted')?.dataset.acceptedVersion);"
                                f"return v > {before} ? v : null", f"{action} to be accepted")
    after = call("GET", f"/v1/games/{game_id}")["version"]
    viewer.check(int(accepted) == after > before, f"{where}: {seat}'s {action['type']} chosen by clicking is accepted (version {after})")
    wait_version(driver, after)
    return action


def play_by_clicking(driver, width: int) -> None:
    """A new game played from red's page: red chooses the start by clicking
    its name, bids by the bid's choices, plants by clicking a card then a
    cell, and skips the rest of the round by a choice button."""
    where = f"arboretum played at {width} px"
    created = call("POST", "/v1/games", body={"game": "arboretum"})
    game_id, tokens = created["id"], created["seat_tokens"]
    open_page(driver, game_id)
    driver.execute_script("sessionStorage.clear()")
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
    last = wait_for(driver, "const m = [...document.querySelectorAll('#board .last-action')].map(e => e.dataset.at);"
                            "return m.length ? m : null", "the plant marked")
    viewer.check("red:C4" in last, f"{where}: red's plant of {plant['card']} is marked on C4 ({last})")
    driver.execute_script("document.getElementById('board').scrollIntoView()")
    driver.save_screenshot(str(OUT / f"desk-arboretum-{width}-played.png"))
    played(driver, game_id, tokens["red"], "red", lambda actions: {"type": "skip"}, where)
    log(f"{where}: red chose the start, bid 3 + 2 garden, planted {plant['card']} on C4 and skipped, all by clicking")


def reachable_in_play(driver) -> None:
    """Positions from the middle of games, as the seat to act sees them:
    every legal action reachable, until digging, taking and hiring have all
    been offered (a few games suffice); the first hire offered is clicked."""
    seen: set[str] = set()
    for seed in range(60, 72):
        archive = simulated("arboretum", seed)
        created = import_unfinished(archive, 30 + (seed * 13) % (len(archive["events"]) - 40))
        to_act = call("GET", f"/v1/games/{created['id']}")["status"]["to_act"]
        if not to_act:
            continue
        seat = to_act[0]
        token = created["seat_tokens"][seat]
        actions = call("GET", f"/v1/games/{created['id']}/legal-actions", token)["actions"]
        open_page(driver, created["id"])
        driver.execute_script("sessionStorage.clear()")
        view_as(driver, token, f"seat:{seat}")
        where = f"arboretum {seat} at version {created['version']} of seed {seed}"
        hires = [action for action in actions if action["type"] == "hire"]
        if hires and "hire" not in seen:
            # A hire by clicking: the parrots, then each card, then its button.
            hire = max(hires, key=lambda action: len(action["cards"]))
            played(driver, created["id"], token, seat, lambda actions: hire, where)
        else:
            view = state(created["id"], created["version"], token)["state"]
            every_action_reachable(driver, view, seat, actions, where)
        seen |= {action["type"] for action in actions}
        if {"dig", "take", "hire"} <= seen:
            break
    viewer.check({"dig", "take", "hire", "plant", "start", "skip"} <= seen, f"digging, taking and hiring were offered and reachable ({sorted(seen)})")
    log(f"arboretum: every legal action reachable in positions offering {sorted(seen)}")


def score_explained(driver, game_id: str, version: int, where: str) -> None:
    score = call("GET", f"/v1/games/{game_id}/score?at={version}")["score"]
    lines = wait_for(driver, f"const s = document.querySelectorAll('#score [data-score-version=\"{version}\"] .arboretum-score h4');"
                             "return s.length === 2 ? [...s].map(h => h.textContent) : null", "the arboretum score sheet")
    for seat, line in zip(SEATS, lines):
        mine = score[seat]
        parts = f"{mine['parrot_points']} parrots + {mine['starting_player_points']} start + {mine['suit_points']} suits"
        viewer.check(line.startswith(f"{seat}: {mine['total']} = {parts}"), f"{where}: the sheet says how {seat}'s total is made: {line!r}")
        viewer.check(mine["parrot_points"] + mine["starting_player_points"] + mine["suit_points"] == mine["total"],
                     f"{seat}'s parts add up to its total")
        scored = [f"{suit['suit']} {suit['points']}" for suit in mine["suits"] if suit["points"]]
        viewer.check(all(s in line for s in scored), f"{where}: {seat}'s scoring suits are named ({scored})")
    rows = driver.execute_script("return [...document.querySelectorAll('#score .arboretum-score tbody tr')].map(r => r.textContent)")
    paths = [suit["best_path"] for seat in SEATS for suit in score[seat]["suits"] if suit.get("best_path")]
    link = driver.execute_script("return document.querySelector('#score .arboretum-score a.rule-link')?.getAttribute('href')")
    viewer.check(link == "/rules/arboretum#s5", f"{where}: the sheet links the scoring rule ({link})")
    viewer.check(len(rows) == 2 * 10 and all(any(" ".join(p["cells"]) in row for row in rows) for p in paths),
                 f"{where}: each seat's parrots, start and eight suits are explained, every best path by its cells ({len(rows)} rows)")


def disputed(driver, game_id: str, umpire: str, width: int, where: str) -> None:
    """A refused attempt, selected in the timeline, marks the places its
    action names (its cell, its card…) as disputed on the board."""
    rejected = [e for e in call("GET", f"/v1/games/{game_id}/audit", umpire)["entries"] if e["kind"] == "rejected"]
    viewer.check(bool(rejected), f"{where}: the game has refused attempts to show")
    if not rejected:
        return
    button = wait_for(driver, "return document.querySelector('#timeline .attempt button')", "a refused attempt in the timeline")
    at = int(driver.execute_script("return arguments[0].closest('.attempt').dataset.rejectedAt", button))
    attempt = next(e for e in rejected if e["at_version"] == at)
    seat = attempt["actor"].removeprefix("seat:")
    button.click()
    wait_version(driver, at)
    view = state(game_id, at, umpire)["state"]
    expected = set(call_module(driver, "touches", attempt["action"], {"seats": SEATS, "viewer": "umpire", "view": view, "seat": seat}))
    shown = set(wait_for(driver, "const m = [...document.querySelectorAll('#board .disputed')].map(e => e.dataset.at);"
                                 "return m.length ? m : null", "the refused attempt marked on the board"))
    viewer.check(expected & drawn_keys(driver) == shown and shown,
                 f"{where}: the refused {attempt['action']} ({attempt['violation']['code']}) marks {sorted(expected)} on the board ({sorted(shown)})")
    driver.execute_script("document.querySelector('#board .disputed').scrollIntoView({block: 'center'})")
    driver.save_screenshot(str(OUT / f"desk-arboretum-{width}-refused.png"))


def no_overflow(driver, where: str) -> None:
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    viewer.check(overflow <= 0, f"{where}: nothing overflows sideways ({overflow} px)")


def whole_game(driver, width: int) -> None:
    """A whole game read by the umpire: coordinates, cards, the last
    decision marked, a refused attempt's places disputed, the score sheet."""
    archive = simulated("arboretum", 40 + width)
    created = import_unfinished(archive, len(archive["events"]))
    game_id, umpire, last = created["id"], created["umpire_token"], created["version"]
    where = f"arboretum at {width} px"
    open_page(driver, game_id)
    driver.execute_script("sessionStorage.clear()")
    view_as(driver, umpire, "umpire")
    events = call("GET", f"/v1/games/{game_id}/events?after=0&limit=1000", umpire)["events"]
    plants = [e for e in events if e["type"] == "card_planted"]
    planted = plants[len(plants) // 3]
    version = planted["seq"]
    field = driver.find_element(By.ID, "at")
    field.clear()
    field.send_keys(str(version), "\n")
    wait_version(driver, version)
    view = state(game_id, version, umpire)["state"]
    coordinates(driver, where)
    readable_cards(driver, view, where)
    no_overflow(driver, where)
    payload = planted["payload"]
    cell = f"{payload['seat']}:{payload['cell']}"
    last_marked = wait_for(driver, "const m = [...document.querySelectorAll('#board .last-action')].map(e => e.dataset.at);"
                                   "return m.length ? m : null", "the last decision marked on the board")
    viewer.check(cell in last_marked, f"{where}: the last decision ({payload['seat']} plants {payload['card']} on {payload['cell']}) "
                                      f"is marked on {cell} ({last_marked})")
    driver.execute_script("document.querySelector('#board .last-action').scrollIntoView({block: 'center'})")
    driver.save_screenshot(str(OUT / f"desk-arboretum-{width}-planted.png"))
    disputed(driver, game_id, umpire, width, where)
    click_found(driver, By.ID, "last")
    wait_version(driver, last)
    score_explained(driver, game_id, last, where)
    no_overflow(driver, where)
    driver.execute_script("document.getElementById('score').scrollIntoView()")
    driver.save_screenshot(str(OUT / f"desk-arboretum-{width}-score.png"))
    log(f"{where}: coordinates, {len(drawn_keys(driver))} pointable things, the last plant marked, the score sheet explained")


def check(_driver) -> None:
    """At 1400 and at 500 px wide, each in a browser of its own."""
    for width in (1400, 500):
        driver = browser(width, 900)
        try:
            whole_game(driver, width)
            play_by_clicking(driver, width)
            if width == 1400:
                reachable_in_play(driver)
        finally:
            driver.quit()
