"""A seat that survives (issue 47), at 1400 and 500 px: an invitation opened
in one tab makes the browser the seat — a second tab of the game, and the
browser restarted on the same profile, are still the seat and act from the
page — with no token the page's script can read (the seat's cookie is
HttpOnly, SameSite=Strict, scoped to the game's API). The seat's page makes
a one-time link to another device, which takes the seat there once (the
first device keeps it), leaving this device makes the browser a spectator
in every tab, and the umpire's reissue ends the other device's seat at once.

Run as a section of viewer.py: BROWSER_ONLY=desk_seat_devices."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from viewer import BASE, OUT, browser, call, log, wait_for
from viewer import click_found
from viewer import check as expected

WIDTHS = (1400, 500)
HEIGHT = 900


def as_seat(driver, game_id: str, seat: str, what: str) -> None:
    wait_for(driver, f"return document.body.dataset.viewer === 'seat:{seat}' && document.body.dataset.rendered === 'true'",
             f"{what}: the game's page as seat {seat}")
    wait_for(driver, "return !document.getElementById('play-panel').hidden && !document.getElementById('device-panel').hidden",
             f"{what}: the Play panel and the seat's own panel")


def nothing_readable(driver, what: str) -> None:
    """No token or seat secret the page's script could read."""
    readable = driver.execute_script(
        "return {cookie: document.cookie, session: Object.keys(sessionStorage), local: Object.keys(localStorage)}")
    expected("umpire_seat" not in readable["cookie"], f"{what}: the seat's cookie is not readable by script ({readable['cookie']!r})")
    expected(not any(key.startswith("umpire.token") for key in readable["session"] + readable["local"]),
             f"{what}: no token kept by the page ({readable})")


def the_cookie(driver, game_id: str) -> dict[str, Any] | None:
    cookies = driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
    return next((c for c in cookies if c["name"] == "umpire_seat" and c["path"] == f"/v1/games/{game_id}"), None)


def act_from_the_page(driver, what: str) -> int:
    """Submits a growing legal action from the page (its developer form,
    which sends what the Play panel sends): the version it was accepted at."""
    driver.execute_script("document.getElementById('play-json').open = true")
    index = wait_for(driver, "const b = [...document.querySelectorAll('#legal-actions .legal-action')];"
                             " const i = b.findIndex(x => /\"placements\":\\[\\{/.test(x.textContent)); return i >= 0 ? i + 1 : null",
                     f"{what}: a growing legal action") - 1
    driver.execute_script("document.querySelectorAll('#legal-actions .legal-action')[arguments[0]].click();"
                          " document.querySelector('#submit-form button').click()", index)
    version = wait_for(driver, "return document.querySelector('#submit-result [data-accepted-version]')?.dataset.acceptedVersion",
                       f"{what}: the action accepted")
    driver.execute_script("document.getElementById('play-json').open = false;"
                          " document.getElementById('submit-result').replaceChildren()")
    return int(version)


def light_grows(game_id: str, light: str) -> None:
    legal = call("GET", f"/v1/games/{game_id}/legal-actions", light)["actions"]
    action = next(a for a in legal if a.get("placements"))
    call("POST", f"/v1/games/{game_id}/actions", light, {"action": action})


def no_overflow(driver, what: str) -> None:
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    expected(overflow <= 0, f"{what}: nothing overflows sideways ({overflow} px)")


def shot(driver, name: str, element: str | None = None) -> None:
    if element:
        driver.execute_script(f"document.getElementById('{element}')?.scrollIntoView({{block: 'center'}})")
    else:
        driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(OUT / name))


def at_width(width: int) -> None:
    created = call("POST", "/v1/games", body={"game": "treeblox"})
    game_id, umpire, light = created["id"], created["umpire_token"], created["seat_tokens"]["light"]
    dark_link = BASE + created["invitations"]["dark"]["link"]
    with tempfile.TemporaryDirectory(prefix="umpire-profile-") as profile:
        first = browser(width, HEIGHT, Path(profile))
        try:
            # One tab joins.
            first.get(dark_link)
            as_seat(first, game_id, "dark", "joined")
            expected("#" not in first.current_url, "the code left the address bar")
            nothing_readable(first, "joined")
            cookie = the_cookie(first, game_id)
            expected(cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict" and not cookie["session"],
                     f"the browser keeps an HttpOnly, SameSite=Strict, lasting cookie for the game's API: {cookie}")
            kept = first.find_element("css selector", "#device .device-held")
            expected(kept.get_attribute("data-kept") == "cookie" and "after a restart" in kept.text,
                     f"the seat's panel says this browser keeps the seat: {kept.text!r}")
            shot(first, f"seat-joined-{width}.png")
            if width == WIDTHS[0]:
                # Light's invitation in this browser: it asks before it
                # ends dark here, and leaves the code unused if told to.
                first.get(BASE + created["invitations"]["light"]["link"])
                wait_for(first, "return document.body.dataset.join === 'choosing'", "the join page's choice")
                said = first.find_element("id", "join-status").text
                expected("already holds seat dark" in said, f"the join page says which seat this browser holds: {said!r}")
                shot(first, "seat-join-choice.png")
                click_found(first, "id", "open-held")
                as_seat(first, game_id, "dark", "opened as the seat held")
            # A second tab of the game is the seat, and acts.
            first.switch_to.new_window("tab")
            first.get(f"{BASE}/games/{game_id}")
            as_seat(first, game_id, "dark", "a second tab")
            version = act_from_the_page(first, "the second tab")
            no_overflow(first, f"the second tab at {width} px")
            shot(first, f"seat-second-tab-{width}.png")
            log(f"{width} px: joined in one tab; a second tab is dark and acted (version {version})")
        finally:
            first.quit()
        light_grows(game_id, light)

        # The browser restarted on the same profile: still the seat.
        restarted = browser(width, HEIGHT, Path(profile))
        try:
            restarted.get(f"{BASE}/games/{game_id}")
            as_seat(restarted, game_id, "dark", "after a restart")
            version = act_from_the_page(restarted, "after a restart")
            nothing_readable(restarted, "after a restart")
            shot(restarted, f"seat-after-restart-{width}.png")
            log(f"{width} px: after a restart, still dark, acted (version {version})")
            light_grows(game_id, light)

            # A link to another device, made from the seat's page.
            click_found(restarted, "id", "device-link")
            link = wait_for(restarted, "return document.getElementById('device-link-url')?.value", "the link to another device")
            said = restarted.find_element("css selector", "#device .device-said").text
            expected(link.startswith(f"{BASE}/join#") and len(link.split("#")[1]) == 64, f"a one-time link, its code in the fragment: {link}")
            expected("works once" in said and "10 minutes" in said and "keeps seat dark" in said,
                     f"the page says the link works once, for 10 minutes, and this device keeps the seat: {said!r}")
            no_overflow(restarted, f"the seat's panel at {width} px")
            shot(restarted, f"seat-device-link-{width}.png", "device-panel")

            other = browser(width, HEIGHT)
            try:
                other.get(link)
                as_seat(other, game_id, "dark", "the other device")
                version = act_from_the_page(other, "the other device")
                shot(other, f"seat-other-device-{width}.png")
                log(f"{width} px: the link took dark to another device, which acted (version {version})")
                third = browser(width, HEIGHT)
                try:
                    third.get(link)
                    wait_for(third, "return document.body.dataset.join === 'refused'", "the link's second use refused")
                    expected(third.execute_script("return document.body.dataset.refusal") == "invitation_used",
                             "a link to another device works once")
                finally:
                    third.quit()

                # Leaving this device: a spectator, in this tab and the next.
                restarted.execute_script("window.confirm = () => true")
                click_found(restarted, "id", "leave-device")
                wait_for(restarted, "return document.body.dataset.viewer === 'spectator' && document.body.dataset.rendered === 'true'",
                         "the page as the spectator after leaving")
                expected(restarted.find_element("id", "play-panel").get_attribute("hidden") is not None,
                         "no Play panel once the device has left")
                expected(the_cookie(restarted, game_id) is None, "leaving clears the seat's cookie")
                shot(restarted, f"seat-left-{width}.png")
                restarted.get(f"{BASE}/games/{game_id}")
                wait_for(restarted, "return document.body.dataset.viewer === 'spectator' && document.body.dataset.rendered === 'true'",
                         "a new load after leaving: the spectator")
                expected(other.execute_script("return document.body.dataset.viewer") == "seat:dark",
                         "the other device keeps the seat")

                # The umpire reissues dark: the other device's page is the
                # spectator's at once (its stream ends, its cookie refused).
                light_grows(game_id, light)
                call("POST", f"/v1/games/{game_id}/seats/dark/reissue", umpire, {})
                wait_for(other, "return document.body.dataset.viewer === 'spectator' && document.body.dataset.rendered === 'true'",
                         "the other device's page after the reissue", timeout=20)
                notice = other.find_element("id", "notice").text
                expected("reissue" in notice, f"the page says why: {notice!r}")
                shot(other, f"seat-reissued-{width}.png")
                log(f"{width} px: left the first device; the reissue ended the other at once ({notice!r})")
            finally:
                other.quit()
        finally:
            restarted.quit()


def check(driver) -> None:
    for width in WIDTHS:
        at_width(width)
