"""Draft & Cider's desk (issue 33): readable cards, the deck's honest line,
`data-at` keys on every card and batch, the last action marked, play by
clicking (a card of the hand, then a batch; the umpire's timeout by its
button), every legal action reachable, and a score sheet that adds up —
with 2 and with 6 seats, at 1400 px and at 500 px wide."""

from __future__ import annotations

import json
from typing import Any

from selenium.webdriver.common.by import By

import subprocess
import urllib.error

import viewer
from viewer import BINARY, OUT, browser, call, import_archive, import_unfinished, log, open_page, state, view_as, wait_for, wait_version
from viewer import click_found
from viewer import check as expect

BATCHES = ["monochrome", "feather", "special_tree", "unlucky", "fortepiano", "sweet_couple", "steady", "bad"]
# Seeds apart for every game imported here (an archive keeps its game's
# id, made from its seed): by seats, width and finished or not.
SEEDS = {2: 20_000, 6: 60_000}
# A card's words on the board: its colour, "height 3", "sweetness 5".
CARD_WORDS = """
return [...document.querySelectorAll('#board g.card[data-piece]')].map(g => ({
  piece: g.dataset.piece, at: g.dataset.at,
  words: [...g.querySelectorAll('text')].map(t => t.textContent)}))
"""


def forget(driver) -> None:
    """No token from an earlier page of this browser (a fresh one has none)."""
    if driver.current_url.startswith("http"):
        driver.execute_script("sessionStorage.clear()")


def card_words(card: str) -> list[str]:
    colour, height, sweetness = card.split(" ")
    return [colour, f"height {height[1:]}", f"sweetness {sweetness[1:]}"]


def board_text(driver) -> str:
    return driver.execute_script("return [...document.querySelectorAll('#board text')].map(t => t.textContent).join('\\n')")


def keys_drawn(driver) -> set[str]:
    return set(driver.execute_script("return [...document.querySelectorAll('#board [data-at]')].map(e => e.dataset.at)"))


def readable(driver, game_id: str, at: int, view: dict[str, Any], viewer: str) -> None:
    """Every card spells out what it is; every card and batch has its key;
    the deck's line says what this viewer may know of it."""
    cards = driver.execute_script(CARD_WORDS)
    expect(len(cards) > 0, f"{viewer} at {at}: cards are drawn")
    unread = [c["piece"] for c in cards if c["words"] != card_words(c["piece"].rsplit(":", 1)[-1])]
    expect(not unread, f"{viewer} at {at}: every card names its colour, height and sweetness in words ({unread[:3]})")
    keys = keys_drawn(driver)
    wanted = {"hand"} | {f"hand:{card}" for card in view["communal_hand"]}
    for orchard in view["orchards"]:
        seat = orchard["seat"]
        wanted |= {f"{seat}:{batch}" for batch in BATCHES} | {f"orchard:{seat}"}
        wanted |= {f"{seat}:{batch}:{card}" for batch, held in orchard["batches"].items() for card in held}
    wanted |= {f"deck:{card}" for card in view.get("deck") or []} if view.get("deck") else {"deck"}
    expect(not wanted - keys, f"{viewer} at {at}: every card, batch and pile has its data-at key (missing {sorted(wanted - keys)[:4]})")
    text = board_text(driver)
    per_round = view["cards_per_player"] * view["players"]
    dealt = view["round"] * per_round
    never = 75 - view["rounds"] * per_round
    expect(f"dealt so far: {dealt} " in text and f"never dealt: {never}" in text
          and f"still to come: {view['rounds'] * per_round - dealt}" in text,
          f"{viewer} at {at}: the deck's line says how many cards are dealt, to come and never dealt")
    expect("?" not in text, f"{viewer} at {at}: no card or count reads '?'")
    if view.get("deck"):
        expect("deck: 75 cards, in order" in text, "the umpire sees the deck in order")
    else:
        expect("deck: 75 cards, face down" in text and "the umpire's only" in text,
              f"{viewer} sees the deck face down, told why")
    for name in ("Monochrome", "Feather", "Special Tree", "Unlucky", "Fortepiano", "Sweet Couple", "Steady", "Bad"):
        expect(name in text, f"{viewer} at {at}: the batch {name} is named on the board")


def last_action_marked(driver, game_id: str, at: int, token: str | None) -> None:
    """The last pick up to `at` (a decision's pick may be followed by a deal
    or the end) is marked on the board: its card in its batch."""
    events = call("GET", f"/v1/games/{game_id}/events?after={max(0, at - 3)}&limit=3", token)["events"]
    picks = [e["payload"] for e in events if e["payload"]["type"] == "card_picked"]
    expect(bool(picks), f"a pick is among the last events up to {at}")
    if not picks:
        return
    last = picks[-1]
    key = f"{last['seat']}:{last['batch']}:{last['card']}"
    marked = driver.execute_script("return [...document.querySelectorAll('#board .last-action')].map(e => e.dataset.at)")
    expect(key in marked and f"{last['seat']}:{last['batch']}" in marked,
           f"the last pick's card {key} and its batch are marked last-action (marked: {marked[:5]})")


def every_action_reachable(driver, actions: list[dict[str, Any]], seat: str | None) -> None:
    """Each legal action's clicks, by the module itself in the page: all
    different, and each board step is drawn."""
    found = driver.execute_async_script("""
      const [actions, seat, done] = arguments;
      import('/viewer/games/draft_cider.js').then((m) => {
        const paths = actions.map((a) => m.steps(a, { seat, view: null }));
        const ids = paths.map((p) => JSON.stringify(p.map((s) => s.at ?? 'label:' + s.label)));
        const missing = paths.flat().filter((s) => s.at && !document.querySelector(`#board [data-at="${CSS.escape(s.at)}"]`));
        done({ distinct: new Set(ids).size, missing: missing.map((s) => s.at) });
      }, (e) => done({ error: String(e) }));
    """, actions, seat)
    expect(found.get("distinct") == len(actions) and not found.get("missing"),
          f"every one of {len(actions)} legal actions has its own clicks, each on the board: {found}")


def click_at(driver, key: str) -> None:
    selector = f'#board [data-at="{key}"].legal'
    wait_for(driver, f"return document.querySelector({json.dumps(selector)}) !== null", f"{key} to be offered")
    node = driver.find_element(By.CSS_SELECTOR, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
    node.click()


def submit(driver, game_id: str, before: int) -> int:
    button = wait_for(driver, "return document.querySelector('.submit-choice')", "the submit button")
    words = button.text
    button.click()
    wait_for(driver, f"return document.body.dataset.version === '{before + 1}' || "
             f"Number(document.body.dataset.version) > {before}", "the version to advance")
    after = call("GET", f"/v1/games/{game_id}")["version"]
    expect(after > before, f"the action clicked on the page ({words}) is accepted: version {before} → {after}")
    return after


def play_by_clicking(driver, created: dict[str, Any], width: int, seats: int) -> None:
    game_id = created["id"]
    summary = call("GET", f"/v1/games/{game_id}")
    seat = summary["status"]["to_act"][0]
    token = created["seat_tokens"][seat]
    forget(driver)
    open_page(driver, game_id)
    view_as(driver, token, f"seat:{seat}")
    version = summary["version"]
    wait_version(driver, version)
    view = state(game_id, version, token)["state"]
    readable(driver, game_id, version, view, f"seat {seat}")
    last_action_marked(driver, game_id, version, token)
    actions = call("GET", f"/v1/games/{game_id}/legal-actions", token)["actions"]
    every_action_reachable(driver, actions, seat)
    # Sized for hands: the hand's cards and the batches, the Play panel in view.
    wait_for(driver, "return document.querySelectorAll('#board .legal').length > 0", "the hand offered on the board")
    viewer.targets_fit_a_finger(driver, f"draft_cider {seats} seats at {width} px, seat {seat}")
    if width >= 1400:
        viewer.play_panel_in_view(driver, f"draft_cider {seats} seats at {width} px, seat {seat}")
    # A pick by clicking: a card of the communal hand, then one of the seat's batches.
    pick = actions[len(actions) // 2]
    click_at(driver, f"hand:{pick['card']}")
    wait_for(driver, f"return document.querySelector('#board [data-at=\"hand:{pick['card']}\"].chosen') !== null", "the card chosen")
    click_at(driver, f"{seat}:{pick['batch']}")
    driver.save_screenshot(str(OUT / f"desk-draft_cider-{seats}-seats-{width}-choosing.png"))
    after = submit(driver, game_id, version)
    picked = call("GET", f"/v1/games/{game_id}/events?after={version}&limit=1", token)["events"][0]["payload"]
    expect(picked["type"] == "card_picked" and picked["card"] == pick["card"] and picked["batch"] == pick["batch"]
          and str(picked["seat"]) == seat, f"the pick clicked is the pick made: {picked} for {pick}")
    wait_version(driver, after)
    marked = driver.execute_script("return [...document.querySelectorAll('#board .last-action')].map(e => e.dataset.at)")
    expect(f"{seat}:{pick['batch']}:{pick['card']}" in marked, f"the pick just made is marked on the board: {marked[:4]}")
    # A refused attempt (another seat's pick, out of turn), selected in the
    # umpire's timeline: the card and the batch it names are marked disputed.
    other = next(s for s in created["seat_tokens"] if s != str(call("GET", f"/v1/games/{game_id}")["status"]["to_act"][0]))
    hand = state(game_id, after, None)["state"]["communal_hand"]
    tried = {"type": "pick", "card": hand[0], "batch": "bad"}
    try:
        call("POST", f"/v1/games/{game_id}/actions", created["seat_tokens"][other], {"action": tried})
        expect(False, "a pick out of turn is refused")
    except urllib.error.HTTPError as error:
        expect(error.code in (409, 422), f"a pick out of turn is refused ({error.code})")
    view_as(driver, created["umpire_token"], "umpire")
    wait_version(driver, after)
    wait_for(driver, f"return document.querySelector('#timeline .attempt[data-rejected-at=\"{after}\"] button')", "the refused attempt")
    click_found(driver, By.CSS_SELECTOR, f'#timeline .attempt[data-rejected-at="{after}"] button')
    disputed = wait_for(driver, "const d = [...document.querySelectorAll('#board .disputed')].map(e => e.dataset.at); return d.length ? d : null",
                        "the refused attempt's card and batch marked")
    expect(f"hand:{hand[0]}" in disputed and f"{other}:bad" in disputed,
           f"the refused pick's card and batch are marked disputed: {disputed}")
    driver.save_screenshot(str(OUT / f"desk-draft_cider-{seats}-seats-{width}-disputed.png"))
    # A second, different action: the umpire's timeout, by its button,
    # which is the clock's (beside the clock), not a move in the Play panel.
    umpire_actions = call("GET", f"/v1/games/{game_id}/legal-actions", created["umpire_token"])["actions"]
    expect(umpire_actions and umpire_actions[0]["type"] == "timeout", f"the umpire may time out the seat to pick: {umpire_actions}")
    if not umpire_actions:
        return
    timed = str(umpire_actions[0]["seat"])
    choice = wait_for(driver, f"return document.querySelector('#clock-timeouts button[data-clock-action=\"timeout\"]')",
                      "the timeout's button by the clock")
    expect(choice.text == f"Time out seat {timed}" and "out of time" in (choice.get_attribute("title") or ""),
           f"the clock's button names the seat and says what a timeout does ({choice.text!r}, {choice.get_attribute('title')!r})")
    moves = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#play .choice, #play .submit-choice")]
    expect(not any("out of time" in m or "time out" in m.lower() for m in moves), f"no timeout among the moves ({moves})")
    viewer.targets_fit_a_finger(driver, f"draft_cider {seats} seats at {width} px, the umpire")
    choice.click()
    wait_for(driver, f"return Number(document.body.dataset.version) > {after}", "the version to advance")
    final = call("GET", f"/v1/games/{game_id}")["version"]
    expect(final > after, f"the clock's timeout clicked on the page is accepted: version {after} → {final}")
    forced = call("GET", f"/v1/games/{game_id}/events?after={after}&limit=1", created["umpire_token"])["events"][0]["payload"]
    expect(forced["type"] == "card_picked" and forced["timed_out"] and forced["batch"] == "bad" and str(forced["seat"]) == timed,
          f"the timeout clicked is the timeout made: {forced}")
    wait_version(driver, final)
    readable(driver, game_id, final, state(game_id, final, created["umpire_token"])["state"], "the umpire")
    sheet, _ = sheet_adds_up(driver, game_id, final)
    expect(sheet["text"].startswith("Provisional"), f"a running game's sheet says it is provisional: {sheet['text'][:60]}")
    # The game goes on by another hand: the sentence under the umpire's own
    # last action follows it, by the stream, instead of standing stale.
    accepted_text = driver.execute_script("return document.querySelector('#submit-result .accepted')?.textContent ?? ''")
    expect(f"version {final}" in accepted_text, f"the umpire's timeout is accepted on the page ({accepted_text!r})")
    now = call("GET", f"/v1/games/{game_id}")
    if not now["status"]["finished"] and now["status"]["to_act"]:
        mover = str(now["status"]["to_act"][0])
        move = call("GET", f"/v1/games/{game_id}/legal-actions", created["seat_tokens"][mover])["actions"][0]
        moved = call("POST", f"/v1/games/{game_id}/actions", created["seat_tokens"][mover],
                     {"action": move, "expected_version": now["version"]})["version"]
        followed = wait_for(driver, "const t = document.querySelector('#submit-result .accepted')?.textContent ?? ''; "
                                    f"return t.includes('now at version {moved}') ? t : null",
                            "the accepted sentence to follow the game on", timeout=10)
        expect(f"Accepted at version {final}" in followed, f"the sentence keeps what was accepted and says where the game is: {followed!r}")
    log(f"draft_cider {seats} seats at {width} px: picked {pick['card']} into {pick['batch']} by clicking, "
        f"timed seat {timed} out by its button; {len(actions)} legal picks, each reachable")


def sheet_adds_up(driver, game_id: str, at: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The score sheet at `at`: its totals are the score's, each seat's
    eight batch lines add up to its total, every batch's reason is given."""
    driver.execute_script("const p = document.getElementById('score-panel'); if (!p.open) p.open = true; p.dispatchEvent(new Event('toggle'))")
    wait_for(driver, f"return document.querySelector('#score [data-score-version=\"{at}\"] .dc-score') !== null",
             f"the Draft & Cider score sheet at {at}")
    score = call("GET", f"/v1/games/{game_id}/score?at={at}")["score"]
    sheet = driver.execute_script("""
      const table = document.querySelector('#score .dc-score table');
      const rows = [...table.querySelectorAll('tbody tr[data-batch]')].map(r => [...r.querySelectorAll('td')].map(td => Number(td.textContent)));
      const totals = [...table.querySelectorAll('td[data-total]')].map(td => parseInt(td.textContent, 10));
      return { rows, totals, text: document.querySelector('#score .dc-score').textContent };
    """)
    totals = [seat["total"] for seat in score["seats"]]
    expect(sheet["totals"] == totals, f"the sheet's totals at {at} are the score's: {sheet['totals']} vs {totals}")
    sums = [sum(row[i] for row in sheet["rows"]) for i in range(len(totals))]
    expect(len(sheet["rows"]) == 8 and sums == totals, f"each seat's eight batch lines add up to its total at {at}: {sums} vs {totals}")
    expect(all(b["reason"] in sheet["text"] for seat in score["seats"] for b in seat["batches"]),
           f"the sheet at {at} gives every batch's reason")
    return sheet, score


def score_sheet(driver, created: dict[str, Any], width: int, seats: int) -> None:
    game_id = created["id"]
    latest = created["version"]
    forget(driver)
    open_page(driver, game_id)
    wait_version(driver, latest)
    view = state(game_id, latest, None)["state"]
    readable(driver, game_id, latest, view, "the spectator")
    last_action_marked(driver, game_id, latest, None)
    sheet, score = sheet_adds_up(driver, game_id, latest)
    sentence = sheet["text"].split(".")[0].lower()
    expect(score["final"] and score["winners"] and all(f"seat {w}" in sentence for w in score["winners"])
           and "non-empty batches" in sheet["text"],
          f"the sheet names the winners and the tie-breaker: {sheet['text'][:120]}")
    driver.execute_script("document.getElementById('score-panel').scrollIntoView()")
    driver.save_screenshot(str(OUT / f"desk-draft_cider-{seats}-seats-{width}-score.png"))
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(OUT / f"desk-draft_cider-{seats}-seats-{width}.png"))


def check_draft_cider(driver, width: int) -> None:
    for seats, seed in SEEDS.items():
        finished = import_archive(simulated_with(seats, seed + 2 * width))
        score_sheet(driver, finished, width, seats)
        # Another game, cut just after its second round's deal (a full
        # hand: many legal picks), played on by clicking.
        archive = simulated_with(seats, seed + 2 * width + 1)
        deals = [i for i, e in enumerate(archive["events"]) if e["event_type"] == "round_dealt"]
        unfinished = import_unfinished(archive, deals[1] + 1)
        play_by_clicking(driver, unfinished, width, seats)
        overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        expect(width > 600 or overflow <= 0, f"nothing overflows {width} px sideways with {seats} seats ({overflow} px)")


def simulated_with(seats: int, seed: int) -> dict[str, Any]:
    out = subprocess.run([BINARY, "simulate", "--game", "draft_cider", "--count", "1", "--seed", str(seed),
                          "--options", json.dumps({"players": seats})], check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[0])


def check(driver) -> None:
    """The section's entry point (viewer.py calls it with its own browser;
    this one opens its own at each width)."""
    for width in (1400, 500):
        page = browser(width, 900)
        try:
            check_draft_cider(page, width)
        finally:
            page.quit()
