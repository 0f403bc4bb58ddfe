"""Seats by invitation on the page (issue 33): a game created on `/new`, a
seat's invitation link opened in the browser lands on the game's page as
that seat, the same link a second time is refused in plain words, and the
umpire's seats panel (`seats.js`) reissues a seat, which the timeline then
shows as the umpire's action.

Run as a section of viewer.py: BROWSER_ONLY=desk_invitations."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from viewer import BASE, OUT, call, log, wait_for
from viewer import click_found
from viewer import check as expected


def the_form(driver) -> None:
    """`/new` for people: games by name, the clock's fields hidden until
    the clock is chosen, a field per option, the umpire's link a link with
    a Copy button, the invitations in the game's seat order."""
    for width in (1400, 500):
        driver.set_window_size(width, 900)
        driver.get(f"{BASE}/new")
        driver.execute_script("sessionStorage.clear()")
        wait_for(driver, "return document.querySelectorAll('#game option').length > 0", "the games to choose from")
        names = driver.execute_script("return [...document.querySelectorAll('#game option')].map((o) => o.textContent)")
        expected("Draft & Cider" in names and not any("_" in n for n in names), f"the games by their names: {names}")
        shown = lambda: driver.execute_script("return document.getElementById('clock-fields').getClientRects().length > 0")  # noqa: E731
        expected(not shown(), f"at {width} px the clock's fields are hidden while 'On the clock' is unchecked")
        click_found(driver, By.ID, "clocked")
        expected(shown(), f"at {width} px the clock's fields show once the clock is chosen")
        click_found(driver, By.ID, "clocked")
        expected(not shown(), f"at {width} px the clock's fields hide again")
        Select(driver.find_element(By.ID, "game")).select_by_value("draft_cider")
        players = wait_for(driver, "return document.getElementById('option-players')", "Draft & Cider's players field")
        expected(players.get_attribute("type") == "number" and players.get_attribute("max") == "6",
                 f"a number of players is a number field, 1–6 ({players.get_attribute('type')}, max {players.get_attribute('max')})")
        kinds = driver.execute_script("return [...document.querySelectorAll('#option-list [data-option]')].map((r) => r.dataset.option)")
        expected({"players", "rounds", "first_picker", "easy", "broken_tree"} <= set(kinds), f"each of Draft & Cider's options has a field: {kinds}")
        players.clear()
        players.send_keys("3")
        expected('"players": 3' in driver.find_element(By.ID, "options").get_attribute("value"),
                 "a field changed is the option sent (the JSON follows it)")
        driver.save_screenshot(str(OUT / f"new-game-form-{width}.png"))
    Select(driver.find_element(By.ID, "game")).select_by_value("arboretum")
    advantage = Select(wait_for(driver, "return document.getElementById('option-dm_advantage')", "Arboretum's DM Advantage field"))
    advantage.select_by_visible_text("blue")
    click_found(driver, By.ID, "create")
    game_id = wait_for(driver, "return document.body.dataset.created", "the Arboretum game to be created")
    expected(call("GET", f"/v1/games/{game_id}/state")["state"].get("dm_advantage") == "blue",
             "the DM Advantage chosen in its field is the game's")
    link = driver.find_element(By.ID, "umpire-link")
    expected(link.tag_name == "a" and link.get_attribute("href") == f"{BASE}/games/{game_id}",
             f"the umpire's link is a link ({link.tag_name}, {link.get_attribute('href')})")
    expected(driver.find_element(By.ID, "umpire-link-copy").text == "Copy", "the umpire's link has a Copy button")
    order = driver.execute_script("return [...document.querySelectorAll('#invitation-links li .who')].map((e) => e.textContent)")
    expected(order == ["red", "blue"], f"the invitations in the game's seat order: {order}")
    driver.save_screenshot(str(OUT / "new-game-created-500.png"))
    driver.set_window_size(1280, 800)


def check(driver) -> None:
    the_form(driver)
    driver.get(f"{BASE}/new")
    driver.execute_script("sessionStorage.clear()")
    wait_for(driver, "return document.querySelectorAll('#game option').length > 0", "the games to choose from")
    Select(driver.find_element(By.ID, "game")).select_by_value("treeblox")
    defaults = driver.execute_script("return document.getElementById('options').value")
    expected(defaults.strip().startswith("{"), f"the options' defaults are shown as JSON: {defaults!r}")
    click_found(driver, By.ID, "clocked")
    click_found(driver, By.ID, "create")
    game_id = wait_for(driver, "return document.body.dataset.created", "the game to be created")
    driver.save_screenshot(str(OUT / "new-game.png"))
    summary = call("GET", f"/v1/games/{game_id}")
    expected(summary["status"].get("clock") is not None, "the clock chosen on the page is the game's")
    umpire_link = driver.find_element(By.ID, "umpire-link").get_attribute("href")
    umpire_token = driver.find_element(By.ID, "umpire-token").get_attribute("value")
    dark_link = driver.find_element(By.ID, "invitation-dark").get_attribute("value")
    expected(umpire_link == f"{BASE}/games/{game_id}", f"the umpire's link: {umpire_link}")
    expected(dark_link.startswith(f"{BASE}/join#") and len(dark_link.split("#")[1]) == 64,
             f"an invitation's code is in the link's fragment: {dark_link}")

    # This tab keeps the umpire's token: the umpire's link is the umpire's view.
    driver.get(umpire_link)
    wait_for(driver, "return document.body.dataset.viewer === 'umpire' && document.body.dataset.rendered === 'true'",
             "the game's page as the umpire")

    # A player's tab: the invitation link lands on the game as its seat,
    # and the code is gone from the address.
    driver.execute_script("sessionStorage.clear()")
    driver.get(dark_link)
    wait_for(driver, "return document.body.dataset.viewer === 'seat:dark' && document.body.dataset.rendered === 'true'",
             "the game's page as seat dark")
    expected(driver.current_url.startswith(f"{BASE}/games/{game_id}"), f"landed on the game: {driver.current_url}")
    expected("#" not in driver.current_url, "the code left the address bar")
    driver.save_screenshot(str(OUT / "joined-as-dark.png"))

    # The same link again, in another browser (this one's cookies cleared:
    # this one keeps dark, and would offer to open the game as dark):
    # refused, plainly.
    driver.execute_script("sessionStorage.clear()")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.get(dark_link)
    wait_for(driver, "return document.body.dataset.join === 'refused'", "the second use to be refused")
    said = driver.find_element(By.ID, "join-status").text
    expected(driver.execute_script("return document.body.dataset.refusal") == "invitation_used",
             "the second use is refused as used")
    expected("already been used" in said, f"the refusal says so plainly: {said}")
    driver.save_screenshot(str(OUT / "join-used.png"))
    log(f"a used invitation: {said}")

    # The umpire's seats panel reissues light; the timeline shows it.
    driver.execute_script("sessionStorage.clear()")
    driver.execute_script(f"sessionStorage.setItem('umpire.token.{game_id}', arguments[0])", umpire_token)
    driver.get(umpire_link)
    wait_for(driver, "return document.body.dataset.viewer === 'umpire' && document.body.dataset.rendered === 'true'",
             "the game's page as the umpire again")
    # The desk's own panel, in the umpire's tools; the confirmation accepted.
    wait_for(driver, "return document.querySelector('#seats button[data-seat=light]') !== null", "the seats panel")
    driver.execute_script("window.confirm = () => true")
    click_found(driver, By.CSS_SELECTOR, "#seats button[data-seat=light]")
    light_link = wait_for(driver, "return document.getElementById('reissued-light')?.value", "light's new link")
    expected("/join#" in light_link, f"a reissue answers a link, never a token: {light_link}")
    try:
        wait_for(driver, "return document.getElementById('timeline').textContent.includes(\"reissues light's token\")",
                 "the timeline to show the reissue", timeout=10)
    finally:
        driver.execute_script("document.getElementById('seats')?.scrollIntoView()")
        driver.save_screenshot(str(OUT / "seats-panel.png"))
        log(driver.execute_script("return 'timeline ends: ' + document.getElementById('timeline').textContent.slice(-80)"))

