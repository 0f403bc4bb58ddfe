"""Between Flower Fields at the umpire's desk (issue 33): coordinates on
every field, the last decision marked on the board, play by clicking (a
submission: the piece, its two cells, how breaks are paid; the umpire's
timeout: the button, then the seat), every legal action reachable by a step
list of its own, a score sheet that shows how each total is made, and no
secret on the spectator's page — at 1400 and 500 px.

Run by viewer.py (BROWSER_ONLY=desk_flower_fields)."""

from __future__ import annotations

import json
import random
from typing import Any

from selenium.webdriver.common.by import By

import viewer
from viewer import check as verify
from viewer import click_found
from viewer import (OUT, SEEDS, browser, call, import_archive, import_unfinished, log, open_page,
                    simulated, state, view_as, wait_for, wait_version)

GAME = "flower_fields"
SEATS = ["0", "1", "2", "3", "4"]
CELLS = [f"{c}{r}" for c in "ABCDE" for r in range(1, 6)]
MODULE = "/viewer/games/flower_fields.js"


def module_call(driver, function: str, *args: Any) -> Any:
    """Calls one of the module's functions in the page, on JSON arguments."""
    return driver.execute_async_script(
        """const [path, name, args, done] = [arguments[0], arguments[1], arguments[2], arguments[arguments.length - 1]];
        import(path).then((m) => done(JSON.parse(JSON.stringify(m[name](...args)))), (e) => done({error: String(e)}));""",
        MODULE, function, list(args))


def steps_of(driver, actions: list[dict[str, Any]], view: dict[str, Any], seat: str | None) -> list[list[dict[str, str]]]:
    ctx = {"seats": SEATS, "viewer": f"seat:{seat}" if seat else "umpire", "view": view, "seat": seat}
    return driver.execute_async_script(
        """const [path, actions, ctx, done] = arguments;
        import(path).then((m) => done(actions.map((a) => m.steps(a, ctx))), (e) => done({error: String(e)}));""",
        MODULE, actions, ctx)


def step_key(steps: list[dict[str, str]]) -> str:
    return json.dumps([s.get("at") or s.get("label") for s in steps])


def drawn_keys(driver) -> set[str]:
    return set(driver.execute_script("return [...document.querySelectorAll('#board [data-at]')].map((e) => e.dataset.at)"))


def no_overflow(driver, what: str) -> None:
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    verify(overflow <= 0, f"{what}: nothing overflows sideways ({overflow} px)")


def as_spectator(driver, game_id: str) -> None:
    open_page(driver, game_id)
    if driver.execute_script("return document.body.dataset.viewer") != "spectator":
        view_as(driver, None, "spectator")


def coordinates_drawn(driver, what: str) -> None:
    texts = driver.execute_script("return [...document.querySelectorAll('#board svg text')].map((t) => t.textContent.trim())")
    for label in ["A", "B", "C", "D", "E", "1", "2", "3", "4", "5"]:
        verify(texts.count(label) >= 5, f"{what}: the label {label} is drawn beside each of the five fields ({texts.count(label)})")
    keys = drawn_keys(driver)
    missing = [f"field{f}:{c}" for f in range(5) for c in CELLS if f"field{f}:{c}" not in keys]
    verify(not missing, f"{what}: every cell has its data-at key (missing {missing[:5]})")
    # Each cell's key sits on the cell that holds that flower.
    mismatched = driver.execute_script("""return [...document.querySelectorAll('#board [data-piece^="field"]')]
        .filter((e) => !e.dataset.piece.startsWith(e.closest('[data-at]')?.dataset.at + ':')).length""")
    verify(mismatched == 0, f"{what}: each flower lies inside the cell its key names ({mismatched} not)")


def score_sheet(driver, what: str, game_id: str) -> None:
    """The sheet shows each total as its parts, and the parts add up."""
    panel = driver.find_element(By.ID, "score-panel")
    if not panel.get_attribute("open"):
        click_found(panel, By.TAG_NAME, "summary")
    wait_for(driver, "return !!document.querySelector('#score .ff-score-table')", "the Flower Fields score sheet")
    sheet = driver.execute_script("""
        const rows = [...document.querySelectorAll('#score .ff-score-table tbody tr')];
        const nums = (tr) => [...tr.querySelectorAll('td strong')].map((s) => parseInt(s.textContent.replace('− ', '-')));
        return {
          flowers: rows.filter((r) => r.dataset.flower).map((r) => [r.dataset.flower, nums(r)]),
          fields: nums(rows.find((r) => r.classList.contains('ff-fields'))),
          penalties: nums(rows.find((r) => r.classList.contains('ff-penalties'))),
          totals: nums(rows.find((r) => r.classList.contains('ff-total'))),
          garnets: nums(rows.find((r) => r.classList.contains('ff-garnets'))),
          text: document.querySelector('#score .ff-score').textContent,
        };""")
    seats = len(sheet["totals"])
    verify(seats == 5, f"{what}: the final sheet has a column per seat ({seats})")
    verify(len(sheet["flowers"]) == 6, f"{what}: a row per flower ({len(sheet['flowers'])})")
    for i in range(seats):
        flowers = sum(row[1][i] for row in sheet["flowers"])
        verify(flowers == sheet["fields"][i], f"{what}: seat {i}'s flowers add up to its fields' points ({flowers} vs {sheet['fields'][i]})")
        verify(sheet["fields"][i] + sheet["penalties"][i] == sheet["totals"][i],
              f"{what}: seat {i}'s fields and penalties make its total ({sheet['fields'][i]} {sheet['penalties'][i]} = {sheet['totals'][i]})")
    answer = call("GET", f"/v1/games/{game_id}/score")["score"]
    verify(sheet["totals"] == [line["total"] for line in answer["seats"]] and sheet["garnets"] == [line["garnets"]["balance"] for line in answer["seats"]],
           f"{what}: the sheet's totals and garnets are the score's ({sheet['totals']}, {sheet['garnets']})")
    verify("Garnets are not points" in sheet["text"] and "wins with the highest total" in sheet["text"],
          f"{what}: the sheet says garnets are not in the total and who wins by what")
    log(f"{what}: totals {sheet['totals']} = fields {sheet['fields']} + penalties {sheet['penalties']}; garnets {sheet['garnets']} apart")


def finished_game(driver, width: int, created: dict[str, Any]) -> None:
    what = f"finished game at {width} px"
    as_spectator(driver, created["id"])
    wait_version(driver, created["version"])
    coordinates_drawn(driver, what)
    marked = driver.execute_script("return [...document.querySelectorAll('#board .last-action')].map((e) => e.dataset.at)")
    verify(len(marked) > 0, f"{what}: the last decision's cells or seat carry last-action ({marked})")
    score_sheet(driver, what, created["id"])
    no_overflow(driver, what)
    driver.save_screenshot(str(OUT / f"desk-flower_fields-final-{width}.png"))
    driver.find_element(By.ID, "board").screenshot(str(OUT / f"desk-flower_fields-board-{width}.png"))
    # The whole page, the score sheet under the board, on a tall window.
    driver.set_window_size(width, 2600)
    driver.execute_script("document.getElementById('score-panel').scrollIntoView()")
    driver.find_element(By.ID, "score-panel").screenshot(str(OUT / f"desk-flower_fields-score-{width}.png"))
    driver.set_window_size(width, 900)


def spectator_sees_no_secret(driver, created: dict[str, Any]) -> None:
    """What the drawing adds (keys, ghosts of submissions, hand dominoes)
    names nothing the spectator's view does not hold."""
    as_spectator(driver, created["id"])
    wait_version(driver, created["version"])
    keys = drawn_keys(driver)
    umpire = state(created["id"], created["version"], created["umpire_token"])["state"]
    hands = {f"seat{s['seat']}:hand:{h['piece']}" for s in umpire["seats"] for h in s.get("hand") or []}
    verify(not [k for k in keys if ":hand:" in k or k.endswith(":submission") or k.endswith(":garnets") or k.endswith(":revealed")],
          "the spectator's board has no hand, garnets, submission or revealed piece")
    verify(not [k for k in keys if k.count(":") == 1 and k.startswith("field")],
          "the spectator's board has no cell of an unseen field before the end")
    verify(driver.execute_script("return document.querySelectorAll('#board .pending, #board .piece').length") == 0,
          "the spectator's board draws no pending submission and no piece in a hand")
    page = driver.page_source
    verify(not [h for h in hands if f'"{h}"' in page], "the spectator's page names no hand piece's key")
    log(f"spectator of an unfinished game: {len(keys)} keys drawn, none secret ({len(hands)} hand pieces kept hidden)")


def take_steps(driver, steps: list[dict[str, str]]) -> list[str]:
    """Clicks each step: its element on the board (which must be marked
    legal), else its button in the Play panel. Returns what was clicked."""
    clicked = []
    for step in steps:
        key = step.get("at")
        on_board = key and driver.execute_script(
            "return document.querySelector(`#board [data-at=\"${CSS.escape(arguments[0])}\"]`)", key)
        if on_board:
            wait_for(driver, "return document.querySelector(`#board [data-at=\"${CSS.escape(arguments[0])}\"]`)?.classList.contains('legal')"
                     .replace("arguments[0]", json.dumps(key)), f"{key} to be marked legal")
            driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", on_board)
            clicked.append(f"board {key}")
        else:
            wanted = f"label:{step['label']}"
            button = wait_for(driver, f"return [...document.querySelectorAll('#play .choice')].find((b) => b.dataset.step === {json.dumps(wanted)})",
                              f"the choice {step['label']!r}")
            button.click()
            clicked.append(f"button {step['label']!r}")
    return clicked


def submit_by_clicking(driver, created: dict[str, Any], token: str, seat: str | None, choose, what: str) -> dict[str, Any]:
    """Chooses a legal action (`choose(actions)`), clicks its steps, submits
    it and checks that this very action is accepted."""
    game_id = created["id"]
    before = call("GET", f"/v1/games/{game_id}")["version"]
    # A timeout is the clock's, offered beside the clock (clock_timeout
    # below); the Play panel offers every other legal action.
    legal = [a for a in call("GET", f"/v1/games/{game_id}/legal-actions", token)["actions"] if a["type"] != "timeout"]
    wait_for(driver, f"return JSON.stringify(umpireDesk.play.actions) === JSON.stringify({json.dumps(legal)})",
             "this viewer's legal actions to be offered")
    reachable = driver.execute_script("return umpireDesk.play.reachable()")
    verify(reachable == len(legal), f"{what}: every one of the {len(legal)} legal actions has its own clicks ({reachable})")
    # Sized for hands: what may be clicked now, the Play panel in view.
    viewer.targets_fit_a_finger(driver, what)
    if driver.execute_script("return window.innerWidth") >= 1400:
        viewer.play_panel_in_view(driver, what)
    action = choose(legal)
    view = state(game_id, before, token)["state"]
    steps = steps_of(driver, [action], view, seat)[0]
    clicked = take_steps(driver, steps)
    ready = wait_for(driver, "return document.querySelector('#play .submit-choice')", "the Submit button")
    verify(json.loads(ready.get_attribute("data-action")) == action, f"{what}: the clicks name the action chosen ({ready.get_attribute('data-action')})")
    words = ready.text
    ready.click()
    accepted = wait_for(driver, "const v = document.querySelector('#submit-result .accepted')?.dataset.acceptedVersion;"
                        f"return Number(v) > {before} ? v : null", "the action to be accepted")
    after = call("GET", f"/v1/games/{game_id}")["version"]
    verify(int(accepted) == after > before, f"{what}: accepted, the version advances ({before} → {after})")
    wait_version(driver, after)
    log(f"{what}: {' → '.join(clicked)}; {words!r} accepted at version {after}")
    return action


def clock_timeout(driver, game_id: str, action: dict[str, Any], what: str) -> None:
    """The umpire times a seat out by the clock's button (beside the clock,
    styled as the clock's), never among the moves of the Play panel."""
    before = call("GET", f"/v1/games/{game_id}")["version"]
    button = wait_for(driver, "return [...document.querySelectorAll('#clock-timeouts button.clock-control')]"
                              f".find((b) => JSON.stringify(Object.entries(JSON.parse(b.dataset.action)).sort()) === "
                              f"JSON.stringify(Object.entries({json.dumps(action)}).sort()))", f"{what}: the clock's timeout button")
    moves = [b.get_attribute("data-step") or b.text for b in driver.find_elements(By.CSS_SELECTOR, "#play .choice")]
    verify(not any("time out" in m for m in moves), f"{what}: no timeout among the moves ({moves})")
    viewer.targets_fit_a_finger(driver, what)
    words = button.text
    button.click()
    wait_for(driver, f"return Number(document.body.dataset.version) > {before}", f"{what}: the timeout to be accepted")
    after = call("GET", f"/v1/games/{game_id}")["version"]
    verify(after > before, f"{what}: the timeout clicked is accepted ({before} → {after})")
    log(f"{what}: {words!r} by the clock, accepted at version {after}")


def play_by_clicking(driver, width: int) -> None:
    """On a new game: seat 0 submits a piece by clicking it in its hand, its
    two cells and how breaks are paid; the umpire times seat 4 out by its
    button and seat 4's name on the board; once the round resolves, seat 0
    places the piece revealed to it, then its own, all by clicking."""
    created = call("POST", "/v1/games", body={"game": GAME})
    game_id = created["id"]
    tokens = created["seat_tokens"]
    as_spectator(driver, game_id)
    view_as(driver, tokens["0"], "seat:0")

    def a_submission(actions):
        submissions = [a for a in actions if a["type"] == "submit"]
        return submissions[len(submissions) // 2]
    first = submit_by_clicking(driver, created, tokens["0"], "0", a_submission, f"seat 0 at {width} px")
    action = first
    mine = state(game_id, call("GET", f"/v1/games/{game_id}")["version"], tokens["0"])["state"]
    pending = mine["seats"][0].get("submission") or {}
    verify(pending.get("cells") == action["cells"] and pending.get("piece") == action["piece"], f"the seat's submission is the one clicked ({pending})")
    marked = driver.execute_script("return [...document.querySelectorAll('#board .last-action')].map((e) => e.dataset.at)")
    verify(all(f"field{action['field']}:{c}" in marked for c in action["cells"]),
           f"its own submission's cells are marked last-action on the seat's board ({marked})")
    ghosts = driver.execute_script("return document.querySelectorAll('#board .pending').length")
    verify(ghosts == 2, f"the pending submission is drawn on the seat's own board, dashed ({ghosts})")
    driver.save_screenshot(str(OUT / f"desk-flower_fields-play-{width}.png"))

    view_as(driver, created["umpire_token"], "umpire")
    clock_timeout(driver, game_id, {"type": "timeout", "seat": 4}, f"the umpire at {width} px")
    marked = driver.execute_script("return [...document.querySelectorAll('#board .last-action')].map((e) => e.dataset.at)")
    verify("seat:4" in marked, f"the timed-out seat is marked last-action ({marked})")
    no_overflow(driver, f"the umpire's page at {width} px")
    driver.save_screenshot(str(OUT / f"desk-flower_fields-umpire-{width}.png"))

    for seat in ("1", "2", "3"):
        now = call("GET", f"/v1/games/{game_id}")
        first = call("GET", f"/v1/games/{game_id}/legal-actions", tokens[seat])["actions"][0]
        call("POST", f"/v1/games/{game_id}/actions", tokens[seat], {"action": first, "expected_version": now["version"]})
    view_as(driver, tokens["0"], "seat:0")
    wait_version(driver, call("GET", f"/v1/games/{game_id}")["version"])
    verify(driver.execute_script("return !!document.querySelector('#board [data-at=\"field4:revealed\"]')"),
           "seat 4's missed piece is drawn, revealed, in field 4 for seat 0")

    def with_revealed(actions):
        return next(a for a in reversed(actions) if a.get("revealed"))
    action = submit_by_clicking(driver, created, tokens["0"], "0", with_revealed, f"seat 0 with a revealed piece at {width} px")
    verify(bool(action.get("revealed")), "a submission placing a revealed piece is taken by clicking")
    driver.save_screenshot(str(OUT / f"desk-flower_fields-revealed-{width}.png"))

    # A refused attempt: seat 1 plants on field 0's cells seat 0 planted in
    # round 1. The umpire selects it; the board marks those cells disputed.
    legal = call("GET", f"/v1/games/{game_id}/legal-actions", tokens["1"])["actions"]
    attempt = dict(next(a for a in legal if a["type"] == "submit"), cells=first["cells"])
    try:
        call("POST", f"/v1/games/{game_id}/actions", tokens["1"], {"action": attempt})
        verify(False, "planting on planted cells is refused")
    except Exception as error:  # noqa: BLE001 — the refusal is the point
        verify("409" in str(error) or "422" in str(error) or "400" in str(error), f"the attempt is refused ({error})")
    view_as(driver, created["umpire_token"], "umpire")
    button = wait_for(driver, "return document.querySelector('#timeline .rejected button')", "the refused attempt in the timeline")
    button.click()
    disputed = wait_for(driver, "const d = [...document.querySelectorAll('#board .disputed')].map((e) => e.dataset.at);"
                        "return d.length ? d : null", "the disputed cells to be marked")
    verify(all(f"field0:{c}" in disputed for c in first["cells"]), f"the refused attempt's cells are marked disputed ({disputed})")
    driver.save_screenshot(str(OUT / f"desk-flower_fields-disputed-{width}.png"))


def every_action_reachable(driver) -> None:
    """A whole game, played through the API with replacements on and a
    missed submission (so revealed pieces and resubmissions come up): at
    every turn, each legal action of the seat or the umpire has a step list
    of its own, and each step's key is drawn on that viewer's board."""
    rng = random.Random(SEEDS[GAME])
    created = call("POST", "/v1/games", body={"game": GAME, "options": {"starting_garnets": 9, "piece_replacement": True}})
    game_id = created["id"]
    tokens = created["seat_tokens"]
    umpire = created["umpire_token"]
    as_spectator(driver, game_id)
    checked = 0
    kinds: dict[str, int] = {}
    drawn_on = {"seat": False}
    for turn in range(400):
        now = call("GET", f"/v1/games/{game_id}")
        if now["status"]["finished"] or not now["status"]["to_act"]:
            break
        for actor, token in [(s, tokens[s]) for s in now["status"]["to_act"][:1]] + [(None, umpire)]:
            actions = call("GET", f"/v1/games/{game_id}/legal-actions", token)["actions"]
            if not actions:
                continue
            view = state(game_id, now["version"], token)["state"]
            lists = steps_of(driver, actions, view, actor)
            verify(isinstance(lists, list), f"steps run in the page: {lists}")
            distinct = {step_key(s) for s in lists}
            verify(len(distinct) == len(actions), f"turn {turn}: {len(actions)} legal actions have {len(distinct)} distinct step lists")
            for action in actions:
                kinds[action["type"]] = kinds.get(action["type"], 0) + 1
            checked += len(actions)
            if actor and not drawn_on["seat"] and any(a.get("revealed") for a in actions):
                # The seat's own board draws every key its steps click.
                view_as(driver, token, f"seat:{actor}")
                wait_version(driver, now["version"])
                wanted = sorted({s["at"] for steps in lists for s in steps if s.get("at")})
                try:
                    wait_for(driver, "return arguments[0].every((k) => document.querySelector(`#board [data-at=\"${CSS.escape(k)}\"]`))"
                             .replace("arguments[0]", json.dumps(wanted)), "the keys the steps click", timeout=5)
                except AssertionError:
                    pass
                keys = drawn_keys(driver)
                absent = {key for key in wanted if key not in keys}
                verify(not absent, f"every key a step clicks is on seat {actor}'s board (absent {sorted(absent)[:5]})")
                drawn_on["seat"] = True
                view_as(driver, None, "spectator")
        actor = now["status"]["to_act"][0]
        actions = call("GET", f"/v1/games/{game_id}/legal-actions", tokens[actor])["actions"]
        replacements = [a for a in actions if a["type"] == "replace_piece"]
        if now["version"] > 20 and kinds.get("_timeout", 0) == 0:
            # One missed submission: its piece is revealed to the other manager.
            call("POST", f"/v1/games/{game_id}/actions", umpire, {"action": {"type": "timeout", "seat": int(actor)}})
            kinds["_timeout"] = 1
            continue
        choice = replacements[0] if replacements and rng.random() < 0.3 else rng.choice([a for a in actions if a["type"] == "submit"])
        call("POST", f"/v1/games/{game_id}/actions", tokens[actor], {"action": choice})
    verify(kinds.get("replace_piece", 0) > 0 and kinds.get("timeout", 0) > 0 and kinds.get("close_round", 0) > 0,
          f"the game offered replacements and the umpire's actions ({kinds})")
    verify(any(k for k in kinds if k == "submit") and drawn_on["seat"], "a revealed piece came up and was checked on the board")
    log(f"every legal action has its own steps: {checked} actions over a whole game ({kinds})")


def check(driver) -> None:
    final = import_archive(simulated(GAME, SEEDS[GAME] + 300))
    unfinished = import_unfinished(simulated(GAME, SEEDS[GAME] + 301), 140)
    for width in (1400, 500):
        sized = browser(width, 900)
        try:
            finished_game(sized, width, final)
            spectator_sees_no_secret(sized, unfinished)
            play_by_clicking(sized, width)
        finally:
            sized.quit()
    every_action_reachable(driver)
