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
from viewer import check as expected


def check(driver) -> None:
    driver.get(f"{BASE}/new")
    driver.execute_script("sessionStorage.clear()")
    wait_for(driver, "return document.querySelectorAll('#game option').length > 0", "the games to choose from")
    Select(driver.find_element(By.ID, "game")).select_by_value("treeblox")
    defaults = driver.find_element(By.ID, "options").get_attribute("value")
    expected(defaults.strip().startswith("{"), f"the options' defaults are shown as JSON: {defaults!r}")
    driver.find_element(By.ID, "clocked").click()
    driver.find_element(By.ID, "create").click()
    game_id = wait_for(driver, "return document.body.dataset.created", "the game to be created")
    driver.save_screenshot(str(OUT / "new-game.png"))
    summary = call("GET", f"/v1/games/{game_id}")
    expected(summary["status"].get("clock") is not None, "the clock chosen on the page is the game's")
    umpire_link = driver.find_element(By.ID, "umpire-link").get_attribute("value")
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
    driver.find_element(By.CSS_SELECTOR, "#seats button[data-seat=light]").click()
    light_link = wait_for(driver, "return document.getElementById('reissued-light')?.value", "light's new link")
    expected("/join#" in light_link, f"a reissue answers a link, never a token: {light_link}")
    try:
        wait_for(driver, "return document.getElementById('timeline').textContent.includes(\"reissues light's token\")",
                 "the timeline to show the reissue", timeout=10)
    finally:
        driver.execute_script("document.getElementById('seats')?.scrollIntoView()")
        driver.save_screenshot(str(OUT / "seats-panel.png"))
        log(driver.execute_script("return 'timeline ends: ' + document.getElementById('timeline').textContent.slice(-80)"))

