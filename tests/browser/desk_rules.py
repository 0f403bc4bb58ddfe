"""The rule pages (`/rules/<game>`) and the page's citation links
(`api/viewer/rules.js`) in Chromium: a refusal's `rule_url` opens its
section, marked; the pages load their style sheet under their policy and
nothing overflows a phone's width; `linkCitations` links every citation.
Picked up with the games' desk checks (`desk_*.py`, `check(driver)`)."""

from __future__ import annotations

import json
import urllib.error
from typing import Any

from viewer import BASE, OUT, browser, call, log, wait_for


def refusal_url() -> str:
    """The `rule_url` of a real refusal: blue may not choose who starts."""
    created = call("POST", "/v1/games", body={"game": "arboretum", "seed": 1})
    blue = created["seat_tokens"]["blue"]
    try:
        call("POST", f"/v1/games/{created['id']}/actions", blue,
             {"action": {"type": "choose_start", "seat": "blue"}})
    except urllib.error.HTTPError as error:
        body = json.loads(error.read())
        verdict(error.code == 422, f"the refusal is a 422 ({error.code})")
        return body["rule_url"]
    raise AssertionError("blue chose who starts")


def check(driver: Any) -> None:
    url = refusal_url()
    log(f"a refusal links {url}")
    driver.get(BASE + url)
    anchor = url.split("#", 1)[1]
    target = driver.execute_script("const t = document.querySelector(':target'); return t && [t.tagName, t.id, t.textContent]")
    verdict(target is not None and target[1] == anchor and target[2].startswith("§"),
            f"{url} opens its section, marked as the target ({target})")
    width = driver.execute_script("return getComputedStyle(document.querySelector('main')).maxWidth")
    verdict(width not in ("none", ""), f"the style sheet is applied under the page's policy (main's max-width {width})")
    driver.save_screenshot(str(OUT / "rules.png"))

    phone = browser(390, 844)
    try:
        for page in ("/rules", "/rules/draft_cider", "/rules/flower_fields"):
            phone.get(BASE + page)
            overflow = phone.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
            verdict(overflow <= 0, f"{page}: nothing overflows a phone-width screen sideways ({overflow} px)")
        phone.save_screenshot(str(OUT / "rules-phone.png"))
    finally:
        phone.quit()

    # rules.js on the desk's origin, where scripts may run (the rule pages
    # run none).
    driver.get(f"{BASE}/games/00000000-0000-0000-0000-000000000001")
    nodes = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/viewer/rules.js').then((m) => done(
          m.linkCitations('Bid (§3.2), or time out (clock §4); see treeblox §R.', 'arboretum', ['treeblox'])
            .map((n) => typeof n === 'string' ? n : [n.tagName, n.className, n.getAttribute('href'), n.textContent])),
          (e) => done(String(e)));
    """)
    verdict(nodes == ["Bid (", ["A", "rule-link", "/rules/arboretum#s3-2", "§3.2"], "), or time out (",
                      ["A", "rule-link", "/rules/clock#s4", "clock §4"], "); see ",
                      ["A", "rule-link", "/rules/treeblox#sR", "treeblox §R"], "."],
            f"linkCitations links every citation ({nodes})")
    for _, _, href, _ in [n for n in nodes if isinstance(n, list)]:
        driver.get(BASE + href)
        found = wait_for(driver, "return document.querySelector(':target') !== null", f"{href}'s section")
        verdict(bool(found), f"{href} is a section of its page")


def verdict(condition: bool, message: str) -> None:
    import viewer
    viewer.check(condition, message)
