"""Treeblox's desk (issue 33): the tree drawn layer by layer with its axes in
the notation of the timeline and the refusals ([x, y, z]), the last decision
and a refused attempt marked on the board, every legal action reachable by
clicks in every kind of turn (the first turn's leaf, a main turn's one or
two cubes, a pass, the final growth, the umpire's timeout), the score sheet
explaining each total by its active leaves; at 1400 and 500 px wide.

Run by tests/browser/viewer.py (section `desk_treeblox`), against the page's
module `api/viewer/games/treeblox.js`.
"""

from __future__ import annotations

import json
from typing import Any

import viewer
from viewer import OUT, browser, call, import_archive, import_unfinished, log, open_page, simulated, view_as, wait_for, \
    wait_version
from viewer import click_found
from selenium.webdriver.common.by import By

expect = viewer.check

# Seeds of their own: an archive keeps its game's id, and viewer.py imports
# seeds 5 and 105 of Treeblox.
FINISHED_SEED = 223
PLAYED_SEED = 206
NARROW_SEED = 208
FINAL_GROWTH_SEED = 205


def cell_key(cell: list[int]) -> str:
    return "cell:" + ",".join(map(str, cell))


def board_keys(driver) -> set[str]:
    return set(driver.execute_script("return [...document.querySelectorAll('#board [data-at]')].map(e => e.dataset.at)"))


def marked(driver, cls: str) -> set[str]:
    return set(driver.execute_script(
        f"return [...document.querySelectorAll('#board [data-at].{cls}')].map(e => e.dataset.at)"))


def placed_cells(action: dict[str, Any] | None) -> set[str]:
    return {cell_key(p["cell"]) for p in (action or {}).get("placements", [])}


# Where each cube is drawn against the axes: the column's x written above
# and below it, the row's y beside it, the layer titled with its z; a cube
# whose cell lacks a label (or sits under another's) is a failure.
AXES = """
const failures = [];
const near = (a, b) => Math.abs(a - b) < 1.5;
const centre = (e) => { const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
for (const piece of document.querySelectorAll('#board [data-piece^="cube:"]')) {
  const [x, y, z] = piece.dataset.piece.split(':')[1].split(',');
  const cell = piece.closest('[data-at]');
  const layer = piece.closest('g.layer');
  if (!cell || cell.dataset.at !== `cell:${x},${y},${z}`) { failures.push(`${piece.dataset.piece}: in ${cell?.dataset.at}`); continue; }
  if (!layer || layer.dataset.z !== z || !layer.querySelector('.layer-title').textContent.startsWith(`z = ${z}`)) {
    failures.push(`${piece.dataset.piece}: not in a layer titled z = ${z}`); continue;
  }
  const [cx, cy] = centre(cell.querySelector('rect'));
  const columns = [...layer.querySelectorAll('.x-axis')].filter((t) => near(centre(t)[0], cx)).map((t) => t.textContent);
  const rows = [...layer.querySelectorAll('.y-axis')].filter((t) => near(centre(t)[1] - 0, cy) || Math.abs(centre(t)[1] - cy) < 3).map((t) => t.textContent);
  if (columns.length !== 2 || columns.some((c) => c !== x)) failures.push(`${piece.dataset.piece}: column labels ${columns}`);
  if (rows.length !== 2 || rows.some((r) => r !== y)) failures.push(`${piece.dataset.piece}: row labels ${rows}`);
}
return [document.querySelectorAll('#board [data-piece^="cube:"]').length, failures];
"""


def axes_hold(driver, where: str) -> None:
    count, failures = driver.execute_script(AXES)
    expect(count > 0 and not failures,
           f"treeblox {where}: each of the {count} cubes sits under its x, beside its y, in its layer z ({failures[:3]})")


def finished_game(driver) -> dict[str, Any]:
    """A whole game: axes, pieces in their cells, the last decision marked,
    a refused attempt marked, the score sheet."""
    archive = simulated("treeblox", FINISHED_SEED)
    created = import_archive(archive)
    game_id, latest = created["id"], created["version"]
    open_page(driver, game_id)
    wait_version(driver, latest)
    view = call("GET", f"/v1/games/{game_id}/state?at={latest}")["state"]
    axes_hold(driver, "finished game")
    keys = board_keys(driver)
    cubes = {cell_key(c["cell"]) for c in view["cubes"]}
    expect(cubes <= keys, f"treeblox: every cube's cell has its data-at key (missing {sorted(cubes - keys)[:5]})")
    expect({"reserve:dark:branch", "reserve:dark:leaf", "reserve:light:branch", "reserve:light:leaf"} <= keys,
           "treeblox: each seat's reserve of branches and leaves has its data-at key")
    titles = driver.execute_script("return [...document.querySelectorAll('#board .layer-title')].map(t => t.textContent)")
    top = max(c["cell"][2] for c in view["cubes"])
    expect(titles[0] == "z = 0 · the board" and len(titles) == top + 1,
           f"treeblox: one layer per height, z = 0 the board, up to z = {top} ({titles})")
    key_text = driver.execute_script("return document.querySelector('#legend .treeblox-legend')?.textContent ?? ''")
    expect("active leaf" in key_text and "[x, y, z]" in key_text and "board holes" in key_text,
           f"treeblox: the board's key under it explains shapes, colours and cells: {key_text!r}")
    # The last decision: the final growth's placements, and nothing else.
    last_action = archive["events"][-1]["action"]
    expected = placed_cells(last_action)
    expect(bool(expected) and marked(driver, "last-action") == expected,
           f"treeblox: the last decision's cells are marked ({sorted(marked(driver, 'last-action'))} for {sorted(expected)})")
    # The score sheet: one line per seat, its active leaves counted and named.
    wait_for(driver, "return document.querySelector('#score .treeblox-score tbody tr') !== null", "the score sheet")
    score = call("GET", f"/v1/games/{game_id}/score")["score"]
    rows = driver.execute_script(
        "return [...document.querySelectorAll('#score .treeblox-score tbody tr')].map(r => [...r.children].map(c => c.textContent))")
    sheet = driver.find_element(By.CSS_SELECTOR, "#score .treeblox-score").text
    for line, row in zip(score["seats"], rows):
        cells = " ".join("[" + ", ".join(map(str, cell)) + "]" for cell in line["active_leaf_cells"])
        expect(row[0] == line["seat"] and row[1] == str(line["active_leaves"]) and row[2] == cells,
               f"treeblox: {line['seat']}'s total is its active leaves, each named ({row})")
    winner = score["winner"]
    result = driver.find_element(By.CSS_SELECTOR, "#score .treeblox-result").text
    counts = sorted((line["active_leaves"] for line in score["seats"]), reverse=True)
    expect(len(rows) == 2 and "active leaf" in sheet and score["explanation"] in driver.find_element(By.ID, "score").text
           and (winner is None or any(r[0] == winner and r[3] == "wins" for r in rows))
           and (winner is None or result.startswith(f"{winner} wins: {counts[0]} active leaves against")),
           f"treeblox: the sheet says how totals are made and who wins: {result!r}")
    viewer.timeline_spaced(driver, "treeblox's finished game")
    driver.save_screenshot(str(OUT / "desk-treeblox-finished.png"))
    # A refused attempt, selected by the umpire, marks its cells.
    view_as(driver, created["umpire_token"], "umpire")
    wait_for(driver, "return document.querySelectorAll('#timeline .attempt button').length > 0", "a refused attempt")
    attempt = driver.find_element(By.CSS_SELECTOR, "#timeline .attempt button")
    at = int(attempt.find_element(By.XPATH, "..").get_attribute("data-rejected-at"))
    rejected = next(r for r in archive["rejections"] if r["at_version"] == at)
    attempt.click()
    wait_version(driver, at)
    wait_for(driver, "return document.querySelectorAll('#board .disputed').length > 0", "the disputed cells")
    disputed_cells = placed_cells(rejected["action"]) & board_keys(driver)
    expect(bool(disputed_cells) and marked(driver, "disputed") == disputed_cells,
           f"treeblox: the refused attempt's cells are marked disputed ({sorted(marked(driver, 'disputed'))})")
    log(f"treeblox: {len(view['cubes'])} cubes on {top + 1} layers; last decision {sorted(expected)}; "
        f"refusal at v{at} ({rejected['code']}) marks {sorted(disputed_cells)}")
    driver.execute_script("sessionStorage.clear()")
    return created


def offered(driver, game_id: str, token: str) -> list[dict[str, Any]]:
    """The legal actions, all offered and each reachable by its own clicks;
    every step a click on the board except the few named in `buttons`."""
    legal = call("GET", f"/v1/games/{game_id}/legal-actions", token)["actions"]
    wait_for(driver, f"return umpireDesk.play.actions.length === {len(legal)}", "the legal actions offered")
    reachable = driver.execute_script("return umpireDesk.play.reachable()")
    expect(reachable == len(legal), f"treeblox: every legal action is reachable by its own clicks ({reachable} of {len(legal)})")
    return legal


def paths(driver) -> list[list[dict[str, Any]]]:
    return driver.execute_script("return umpireDesk.play.paths")


def click_path(driver, path: list[dict[str, Any]], action: dict[str, Any]) -> list[str]:
    """Takes each step (on the board where it is drawn, else its button),
    then submits the action it names."""
    taken = []
    for step in path:
        on_board = driver.find_elements(By.CSS_SELECTOR, f'#board [data-at="{step["at"]}"].legal') if step["at"] else []
        if on_board:
            target = on_board[0]
            taken.append(step["at"])
        else:
            step_id = step["at"] or f"label:{step['label']}"
            buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, "#play .choice") if b.get_attribute("data-step") == step_id]
            expect(bool(buttons), f"treeblox: the step {step} is offered on the board or as a choice")
            if not buttons:
                return taken
            target = buttons[0]
            taken.append(f"button {step['label']!r}")
        driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", target)
    submit = [b for b in driver.find_elements(By.CSS_SELECTOR, "#play .submit-choice")
              if json.loads(b.get_attribute("data-action")) == action]
    expect(len(submit) == 1, f"treeblox: the clicks {taken} name the action {action}")
    if submit:
        taken.append(submit[0].text)
        submit[0].click()
    return taken


def accepted(driver, game_id: str, before: int) -> int:
    version = int(wait_for(driver, "return document.querySelector('#submit-result .accepted')?.dataset.acceptedVersion",
                           "the action to be accepted"))
    after = call("GET", f"/v1/games/{game_id}")["version"]
    expect(version == after and after > before, f"treeblox: the clicked action is accepted (version {before} -> {after})")
    wait_version(driver, after)
    return after


def first_turn(driver) -> None:
    """A new game: dark's first turn is one click on a board hole."""
    created = call("POST", "/v1/games", body={"game": "treeblox"})
    game_id = created["id"]
    open_page(driver, game_id)
    view_as(driver, created["seat_tokens"]["dark"], "seat:dark")
    legal = offered(driver, game_id, created["seat_tokens"]["dark"])
    # Sized for hands: the 16 holes fill the board, the Play panel beside it.
    viewer.targets_fit_a_finger(driver, "treeblox's first turn at 1400 px")
    viewer.play_panel_in_view(driver, "treeblox's first turn at 1400 px")
    driver.save_screenshot(str(OUT / "desk-treeblox-first-turn-1400.png"))
    all_paths = paths(driver)
    expect(len(legal) == 16 and all(len(p) == 1 and p[0]["at"] in board_keys(driver) for p in all_paths),
           "treeblox: a first turn is one click on one of the 16 board holes")
    index = next(i for i, a in enumerate(legal) if a["placements"][0]["cell"] == [1, 2, 0])
    taken = click_path(driver, all_paths[index], legal[index])
    after = accepted(driver, game_id, created["version"])
    expect(marked(driver, "last-action") == {"cell:1,2,0"}, "treeblox: the first leaf is marked as the last action")
    log(f"treeblox first turn: {taken} -> version {after}")
    driver.execute_script("sessionStorage.clear()")


def main_turns(driver, width: int) -> None:
    """A game in its main turns: a pair of cubes (or one) by clicks on cells
    and on the reserve, refused attempts marked, then the other seat passes."""
    created = import_unfinished(simulated("treeblox", PLAYED_SEED if width > 600 else NARROW_SEED), 60)
    game_id = created["id"]
    summary = call("GET", f"/v1/games/{game_id}")
    seat = summary["status"]["to_act"][0]
    token = created["seat_tokens"][seat]
    open_page(driver, game_id)
    view_as(driver, token, f"seat:{seat}")
    legal = offered(driver, game_id, token)
    viewer.targets_fit_a_finger(driver, f"treeblox's main turn at {width} px")
    if width >= 1400:
        viewer.play_panel_in_view(driver, f"treeblox's main turn at {width} px")
    all_paths = paths(driver)
    keys = board_keys(driver)
    # Every first click is on the board (a cell, or the pass's button).
    first_missing = [p[0] for p in all_paths if p[0]["at"] and p[0]["at"] not in keys]
    expect(not first_missing, f"treeblox: every legal cell is drawn to be clicked ({first_missing[:3]})")
    on_board = sum(1 for p in all_paths for s in p if s["at"] in keys)
    off_board = sum(1 for p in all_paths for s in p if s["at"] and s["at"] not in keys)
    # The choice under way is marked: after a cell, the reserve to take from.
    pairs = [i for i, a in enumerate(legal) if len(a["placements"]) == 2]
    index = pairs[0] if pairs else next(i for i, a in enumerate(legal) if a["placements"])
    action, path = legal[index], all_paths[index]
    cell = driver.find_element(By.CSS_SELECTOR, f'#board [data-at="{path[0]["at"]}"].legal')
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", cell)
    wait_for(driver, f"return document.querySelector('#board [data-at=\"{path[0]['at']}\"]').classList.contains('chosen')",
             "the chosen cell")
    expect(marked(driver, "legal") <= {f"reserve:{seat}:branch", f"reserve:{seat}:leaf"} and marked(driver, "legal"),
           f"treeblox: after a cell, the seat's reserve is offered ({sorted(marked(driver, 'legal'))})")
    viewer.targets_fit_a_finger(driver, f"treeblox's reserve after a cell at {width} px")
    driver.save_screenshot(str(OUT / f"desk-treeblox-play-{width}.png"))
    click_found(driver, By.CSS_SELECTOR, "#play .restart")
    # A refused action marks its cell: a cube into an occupied cell.
    view = call("GET", f"/v1/games/{game_id}/state")["state"]
    occupied = view["cubes"][0]["cell"]
    click_found(driver, By.CSS_SELECTOR, "#play-json summary")
    editor = driver.find_element(By.ID, "action")
    editor.clear()
    editor.send_keys(json.dumps({"type": "grow", "placements": [{"kind": "leaf", "cell": occupied}]}))
    click_found(driver, By.CSS_SELECTOR, "#submit-form button[type=submit]")
    refusal = wait_for(driver, "return document.querySelector('#submit-result .refusal')?.textContent", "the refusal")
    expect("[" + ", ".join(map(str, occupied)) + "]" in refusal and marked(driver, "disputed") == {cell_key(occupied)},
           f"treeblox: a refusal names the cell as the board does, and marks it ({refusal!r}, {sorted(marked(driver, 'disputed'))})")
    click_found(driver, By.CSS_SELECTOR, "#play-json summary")
    taken = click_path(driver, path, action)
    after = accepted(driver, game_id, created["version"])
    expect(marked(driver, "last-action") == placed_cells(action),
           f"treeblox: the cubes just placed are marked ({sorted(marked(driver, 'last-action'))})")
    log(f"treeblox main turn as {seat} at {width} px: {len(legal)} legal actions, {on_board} steps on the board, "
        f"{off_board} second cells beyond it (buttons); {taken} -> version {after}")
    # The other seat passes: a different kind of action, by its button.
    now = call("GET", f"/v1/games/{game_id}")
    if now["status"]["finished"]:
        expect(False, "treeblox: the game goes on after the clicked turn")
        return
    other = now["status"]["to_act"][0]
    driver.execute_script("sessionStorage.clear()")
    open_page(driver, game_id)
    view_as(driver, created["seat_tokens"][other], f"seat:{other}")
    legal = offered(driver, game_id, created["seat_tokens"][other])
    index = legal.index({"type": "grow", "placements": []})
    taken = click_path(driver, paths(driver)[index], legal[index])
    after_pass = accepted(driver, game_id, after)
    last = call("GET", f"/v1/games/{game_id}/events?after={after}&limit=5")["events"][0]
    expect(last["type"] == "turn_passed" and last["payload"]["seat"] == other, f"treeblox: {other} passed by the page ({last['type']})")
    # The umpire's one action, a timeout, is the clock's: a clock control
    # beside the clock, not a move in the Play panel.
    driver.execute_script("sessionStorage.clear()")
    open_page(driver, game_id)
    view_as(driver, created["umpire_token"], "umpire")
    legal = call("GET", f"/v1/games/{game_id}/legal-actions", created["umpire_token"])["actions"]
    labels = wait_for(driver, "const b = [...document.querySelectorAll('#clock-timeouts button.clock-control')]; "
                              "return b.length ? b.map((e) => e.textContent) : null", "the umpire's timeout by the clock")
    moves = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#play .choice")]
    expect(legal[0]["type"] == "timeout" and labels == [f"Time out {legal[0]['seat']}"] and not moves
           and driver.execute_script("return umpireDesk.play.actions.length") == 0,
           f"treeblox: the umpire's timeout is offered by the clock ({labels}), not among the moves ({moves})")
    viewer.targets_fit_a_finger(driver, f"treeblox's umpire at {width} px")
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    expect(overflow <= 0, f"treeblox at {width} px: nothing overflows sideways ({overflow} px)")
    scale = driver.execute_script(
        "const s = document.querySelector('#board svg'); return s.getBoundingClientRect().width / s.viewBox.baseVal.width")
    expect(scale >= 0.75, f"treeblox at {width} px: the board is drawn at {scale:.2f} of its size, readable")
    log(f"treeblox: {other} passed by {taken} -> version {after_pass}; the umpire is offered {labels}; "
        f"board at {scale:.2f} scale, overflow {overflow} px")
    driver.execute_script("sessionStorage.clear()")


def final_growth(driver) -> None:
    """The final growth: every cube at once, chosen whole by two buttons."""
    archive = simulated("treeblox", FINAL_GROWTH_SEED)
    start = next(e["seq"] for e in archive["events"]
                 if e["payload"]["type"] == "turn_started" and e["payload"]["turn"] == "final_growth")
    created = import_unfinished(archive, start)
    game_id = created["id"]
    seat = call("GET", f"/v1/games/{game_id}")["status"]["to_act"][0]
    open_page(driver, game_id)
    view_as(driver, created["seat_tokens"][seat], f"seat:{seat}")
    legal = offered(driver, game_id, created["seat_tokens"][seat])
    all_paths = paths(driver)
    expect(all(len(p) == 2 and not p[0]["at"] and p[0]["label"].startswith("final growth:") for p in all_paths),
           f"treeblox: a final growth is chosen whole ({all_paths[0]})")
    taken = click_path(driver, all_paths[-1], legal[-1])
    after = accepted(driver, game_id, created["version"])
    expect(call("GET", f"/v1/games/{game_id}")["status"]["finished"], "treeblox: the final growth ends the game")
    expect(marked(driver, "last-action") == placed_cells(legal[-1]) & board_keys(driver) and marked(driver, "last-action"),
           "treeblox: the final growth's cubes are marked")
    driver.save_screenshot(str(OUT / "desk-treeblox-final-growth.png"))
    log(f"treeblox final growth as {seat}: {len(legal)} offered; {taken[0]}, … -> version {after}, finished")
    driver.execute_script("sessionStorage.clear()")


def ends_live_for_the_umpire(driver) -> None:
    """The umpire's page open while the game ends by the players' own hands:
    the seats panel stops offering reissues, the diff follows the latest
    version, and the sentence under the umpire's own last action follows
    the game on, all by the stream, with no reload."""
    archive = simulated("treeblox", FINAL_GROWTH_SEED + 1000)
    created = import_unfinished(archive, len(archive["events"]) - 1)
    game_id, umpire = created["id"], created["umpire_token"]
    driver.execute_script("sessionStorage.clear()")
    open_page(driver, game_id)
    view_as(driver, umpire, "umpire")
    wait_for(driver, "return document.querySelectorAll('#seats button[data-seat]').length === 2", "the seats panel")
    enabled = driver.execute_script("return [...document.querySelectorAll('#seats button[data-seat]')].filter((b) => !b.disabled).length")
    labels = driver.execute_script("return [...document.querySelectorAll('#seats button[data-seat]')].map((b) => b.textContent)")
    expect(enabled == 2, f"treeblox: while the game runs, each seat may be reissued ({enabled} enabled: {labels})")
    wait_for(driver, "return document.querySelector('#live')?.textContent === 'live'", "the page to follow the game live")
    for _ in range(20):
        now = call("GET", f"/v1/games/{game_id}")
        if now["status"]["finished"]:
            break
        seat = now["status"]["to_act"][0]
        action = call("GET", f"/v1/games/{game_id}/legal-actions", created["seat_tokens"][seat])["actions"][-1]
        call("POST", f"/v1/games/{game_id}/actions", created["seat_tokens"][seat], {"action": action, "expected_version": now["version"]})
    final = call("GET", f"/v1/games/{game_id}")
    expect(final["status"]["finished"], "treeblox: the game ends by the players' actions")
    wait_version(driver, final["version"])
    wait_for(driver, "return document.querySelector('#live')?.textContent === 'finished'", "the page to say the game is finished")
    still = wait_for(driver, "const b = [...document.querySelectorAll('#seats button[data-seat]')]; "
                             "return b.length && b.every((e) => e.disabled) ? b.length : null",
                     "the reissue buttons to be disabled once the game is over", timeout=10)
    note = driver.execute_script("return document.querySelector('#seats .seats-panel p.muted')?.textContent ?? ''")
    expect(still == 2 and "over" in note, f"treeblox: a game over live offers no reissue ({note!r})")
    diff = driver.execute_script("return [document.getElementById('diff-from').value, document.getElementById('diff-to').value]")
    expect(diff == [str(final["version"] - 1), str(final["version"])],
           f"treeblox: the umpire's diff follows the game to its end ({diff}, latest {final['version']})")
    expect(labels == ["Reissue dark's token", "Reissue light's token"], f"treeblox: the reissue buttons name their seats ({labels})")
    driver.save_screenshot(str(OUT / "desk-treeblox-ended-live-umpire.png"))
    log(f"treeblox: ended live at version {final['version']}; the umpire's seats panel closed, the diff at {diff}")
    driver.execute_script("sessionStorage.clear()")


def check(driver) -> None:  # noqa: ARG001 (its own windows, at the two widths)
    wide = browser(1400, 900)
    try:
        finished_game(wide)
        first_turn(wide)
        main_turns(wide, 1400)
        final_growth(wide)
        ends_live_for_the_umpire(wide)
    finally:
        wide.quit()
    narrow = browser(500, 900)
    try:
        main_turns(narrow, 500)
        archive = simulated("treeblox", FINISHED_SEED + 1000)
        finished = import_archive(archive)
        open_page(narrow, finished["id"])
        wait_version(narrow, finished["version"])
        axes_hold(narrow, "finished game at 500 px")
        overflow = narrow.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        expect(overflow <= 0, f"treeblox finished game at 500 px: nothing overflows sideways ({overflow} px)")
        narrow.save_screenshot(str(OUT / "desk-treeblox-500.png"))
    finally:
        narrow.quit()
