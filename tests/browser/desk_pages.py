"""The pages around the desk, and the desk's words, as a person meets them:
a mistyped id in the home page's Open box answers a page with the way back,
Swagger UI is laid out at a phone's width, the home page names games as
people do, an umpire's reissue buttons name numbered seats "seat 0", and
the games' words count right ("1 leaf", "tied", "chooses blue to start").

Run as a section of viewer.py: BROWSER_ONLY=desk_pages."""

from __future__ import annotations

import json
from typing import Any

from selenium.webdriver.common.by import By

from viewer import BASE, OUT, browser, call, log, open_page, view_as, wait_for
from viewer import check as expected


def module(driver, game: str, function: str, *args: Any) -> Any:
    """What a game's module answers, run in the page (a DOM node as its text)."""
    return driver.execute_async_script("""
      const [path, name, args, done] = arguments;
      import(path).then((m) => {
        const out = m[name](...args);
        done(out instanceof Node ? out.textContent : JSON.parse(JSON.stringify(out)));
      }, (e) => done({ error: String(e) }));
    """, f"/viewer/games/{game}.js", function, list(args))


def open_box(driver) -> None:
    driver.get(f"{BASE}/")
    box = driver.find_element(By.ID, "id")
    box.send_keys("not-a-game")
    box.submit()
    wait_for(driver, "return document.readyState === 'complete' && document.getElementById('not-a-game-id') !== null",
             "the page for an id that is not a game's")
    heading = driver.find_element(By.TAG_NAME, "h1").text
    back = driver.execute_script("return [...document.querySelectorAll('main a')].find((a) => a.getAttribute('href') === '/')?.textContent ?? ''")
    expected(heading == "Not a game id" and "Back to the home page" in back,
             f"a bad id in the Open box answers a page that says so, with the way back ({heading!r}, {back!r})")
    driver.save_screenshot(str(OUT / "not-a-game-id.png"))


def swagger_on_a_phone() -> None:
    phone = browser(500, 900)
    try:
        phone.get(f"{BASE}/docs/")
        wait_for(phone, "return document.querySelector('.swagger-ui .info') !== null", "Swagger UI to draw", timeout=30)
        width = phone.execute_script("return document.documentElement.scrollWidth")
        viewport = phone.execute_script("return document.querySelector('meta[name=viewport]')?.content ?? ''")
        expected("width=device-width" in viewport and width <= 500,
                 f"Swagger UI is laid out at a 500 px screen's width ({width} px wide, viewport {viewport!r})")
        phone.save_screenshot(str(OUT / "swagger-500.png"))
    finally:
        phone.quit()


def home_names_games(driver) -> None:
    call("POST", "/v1/games", body={"game": "draft_cider"})
    driver.get(f"{BASE}/")
    cells = driver.execute_script("return [...document.querySelectorAll('table td')].map((td) => td.textContent)")
    expected("Draft & Cider" in cells and "draft_cider" not in cells, f"the home page names games as people do ({cells[:8]})")


def numbered_seats(driver) -> None:
    created = call("POST", "/v1/games", body={"game": "draft_cider", "options": {"players": 3}})
    driver.execute_script("sessionStorage.clear()")
    open_page(driver, created["id"])
    view_as(driver, created["umpire_token"], "umpire")
    labels = wait_for(driver, "const b = [...document.querySelectorAll('#seats button[data-seat]')].map((e) => e.textContent); "
                              "return b.length ? b : null", "the seats panel")
    expected(labels == ["Reissue seat 0's token", "Reissue seat 1's token", "Reissue seat 2's token"],
             f"the reissue buttons name numbered seats as seats ({labels})")
    driver.execute_script("sessionStorage.clear()")


def words(driver) -> None:
    driver.get(f"{BASE}/new")
    tied = module(driver, "treeblox", "scoreSheet", {
        "final": False, "seats": [{"seat": "dark", "active_leaves": 2, "active_leaf_cells": [[0, 0, 1], [1, 1, 1]]},
                                  {"seat": "light", "active_leaves": 2, "active_leaf_cells": [[2, 2, 1], [3, 3, 1]]}]})
    expected("tied" in tied and "ahead" not in tied, f"level seats are tied, not both ahead: {tied!r}")
    ahead = module(driver, "treeblox", "scoreSheet", {
        "final": False, "seats": [{"seat": "dark", "active_leaves": 3, "active_leaf_cells": []},
                                  {"seat": "light", "active_leaves": 1, "active_leaf_cells": []}]})
    expected("ahead" in ahead and "tied" not in ahead, f"a seat in front is ahead: {ahead!r}")
    one = module(driver, "treeblox", "steps", {"type": "grow", "placements": [{"kind": "leaf", "cell": [0, 0, 1]}]},
                 {"view": {"phase": "final_growth"}, "seat": "dark"})
    expected(one[0]["label"] == "final growth: 1 cube (0 branches, 1 leaf)", f"one cube counted in the singular: {one[0]['label']!r}")
    phrase = driver.execute_async_script("""
      const done = arguments[0];
      import('/viewer/games/arboretum.js').then((m) => done(m.phrases.starting_player_chosen({ seat: 'blue' })));
    """)
    expected(phrase == "chooses blue to start", f"the start chosen reads after its chooser's name: {phrase!r}")
    log(f"words: {json.dumps([one[0]['label'], phrase])}")


def check(driver) -> None:
    open_box(driver)
    swagger_on_a_phone()
    home_names_games(driver)
    numbered_seats(driver)
    words(driver)
