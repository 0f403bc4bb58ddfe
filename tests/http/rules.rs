//! The rule pages as served (`/rules/{page}`, `api/src/routes/rules.rs`):
//! every section a refusal can cite (the list the rule-reference test,
//! `games/registry/tests/rule_reference.rs`, holds to the pages) is an
//! anchor of its page, where the `rule_url` of a refusal leads; the index
//! links every page; the pages link each other; headers as strict as the
//! viewer's.

use std::collections::HashMap;

use reqwest::StatusCode;
use serde_json::{json, Value};
use umpire_domain::violation::rule_url;

use crate::support::{assert_error, TestApp};

fn refusals() -> Vec<(&'static str, &'static [umpire_domain::ViolationKind])> {
    umpire_games::refusals_by_page()
}

/// The words of the heading whose anchor is `anchor` on `html`, if it has one.
fn heading(html: &str, anchor: &str) -> Option<String> {
    (1..=6).find_map(|level| {
        let open = format!("<h{level} id=\"{anchor}\">");
        let start = html.find(&open)? + open.len();
        let end = start + html[start..].find(&format!("</h{level}>"))?;
        Some(html[start..end].to_string())
    })
}

/// Every `href` of `html`.
fn links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|link| link.replace("&amp;", "&"))
        .collect()
}

/// Fetches each page once.
struct Pages<'a> {
    app: &'a TestApp,
    seen: HashMap<String, String>,
}

impl Pages<'_> {
    async fn get(&mut self, path: &str) -> &str {
        if !self.seen.contains_key(path) {
            let response = self.app.get(path, None).await;
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            let html = response.text().await.unwrap();
            self.seen.insert(path.to_string(), html);
        }
        &self.seen[path]
    }

    /// Asserts that `url` (`/rules/arboretum#s3-2`) is a served page with
    /// that anchor on a heading naming `section` (`§3.2`), when given.
    async fn assert_leads_to_a_section(&mut self, url: &str, section: Option<&str>) {
        let (path, anchor) = url.split_once('#').unwrap_or((url, ""));
        let html = self.get(path).await;
        if anchor.is_empty() {
            return;
        }
        let words = heading(html, anchor)
            .unwrap_or_else(|| panic!("{url}: {path} has no heading with the anchor #{anchor}"));
        if let Some(section) = section {
            assert!(
                words.starts_with(&format!("{section} ")),
                "{url} leads to the heading {words:?}, not to {section}"
            );
        }
    }
}

#[tokio::test]
async fn every_rule_a_refusal_can_cite_is_an_anchor_of_its_served_page() {
    let app = TestApp::spawn().await;
    let mut pages = Pages {
        app: &app,
        seen: HashMap::new(),
    };
    let mut cited = 0;
    for (page, kinds) in refusals() {
        // Every game has its page, whether or not it refuses anything.
        pages.get(&format!("/rules/{page}")).await;
        for kind in kinds {
            let url = rule_url(kind.rule)
                .unwrap_or_else(|| panic!("{}: {} makes no link", kind.code, kind.rule));
            assert!(
                url.starts_with(&format!("/rules/{page}#")),
                "{}: {url}",
                kind.code
            );
            let section = kind.rule.strip_prefix(page).map(str::trim);
            pages.assert_leads_to_a_section(&url, section).await;
            cited += 1;
        }
    }
    assert!(cited > 80, "only {cited} refusals cite a rule");
}

#[tokio::test]
async fn a_refusal_the_api_answers_links_to_its_section() {
    let app = TestApp::spawn().await;
    let mut pages = Pages {
        app: &app,
        seen: HashMap::new(),
    };
    let created = app.create("arboretum", json!({}), 1).await;
    // Red holds the DM Advantage: blue may not choose the starting player.
    let illegal = json!({"type": "choose_start", "seat": "blue"});
    let response = app
        .submit(&created.id, Some(created.token("blue")), illegal.clone())
        .await;
    let body = assert_error(
        response,
        StatusCode::UNPROCESSABLE_ENTITY,
        "arboretum.not_your_turn",
    )
    .await;
    let rule = body["rule"].as_str().unwrap();
    let url = body["rule_url"].as_str().expect("a refusal has a rule_url");
    assert_eq!(rule, "arboretum §2");
    assert_eq!(url, "/rules/arboretum#s2");
    pages.assert_leads_to_a_section(url, Some("§2")).await;

    // Checking the action first says the same.
    let check: Value = app
        .post_json(
            &format!("/v1/games/{}/actions/check", created.id),
            Some(created.token("blue")),
            &json!({ "action": illegal }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(check["legal"], false, "{check}");
    assert_eq!(check["violation"]["rule_url"], url, "{check}");

    // And the audit, for the refusal kept beside the log.
    let audit: Value = app
        .get(
            &format!("/v1/games/{}/audit", created.id),
            Some(&created.umpire_token),
        )
        .await
        .json()
        .await
        .unwrap();
    let rejected = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["kind"] == "rejected")
        .expect("the refusal is in the audit");
    assert_eq!(rejected["violation"]["rule_url"], url, "{rejected}");

    // An error that no rule decided has no link.
    let response = app
        .submit(
            &created.id,
            Some(created.token("red")),
            json!({"type": "no_such_action"}),
        )
        .await;
    let body: Value = response.json().await.unwrap();
    assert!(
        body.get("rule").is_none() && body.get("rule_url").is_none(),
        "{body}"
    );
}

#[tokio::test]
async fn the_index_links_every_page_and_the_pages_link_each_other() {
    let app = TestApp::spawn().await;
    let mut pages = Pages {
        app: &app,
        seen: HashMap::new(),
    };
    let mut names: Vec<&str> = refusals().iter().map(|(page, _)| *page).collect();
    names.sort();
    assert_eq!(umpire_api::routes::rules::page_names(), names);
    for index in ["/rules", "/rules/"] {
        let html = pages.get(index).await.to_string();
        let links = links(&html);
        for name in &names {
            let path = format!("/rules/{name}");
            assert!(links.contains(&path), "{index} does not link {path}");
        }
    }
    let mut paths = vec!["/rules".to_string()];
    paths.extend(names.iter().map(|name| format!("/rules/{name}")));
    for path in paths {
        let html = pages.get(&path).await.to_string();
        assert!(html.contains("<title>"), "{path}");
        for link in links(&html) {
            assert!(
                !link.contains(".md"),
                "{path} links {link}, a file of the repository"
            );
            if let Some(anchor) = link.strip_prefix('#') {
                assert!(
                    heading(&html, anchor).is_some(),
                    "{path} links #{anchor}, which it does not have"
                );
            } else if link.starts_with("/rules") {
                pages.assert_leads_to_a_section(&link, None).await;
            }
        }
    }
    // A section cited in the text links to it.
    let arboretum = pages.get("/rules/arboretum").await;
    assert!(
        arboretum.contains("(<a href=\"#s3-2\">§3.2</a>)"),
        "the bid's section is not linked from §3"
    );
}

#[tokio::test]
async fn an_unknown_page_is_a_404_naming_the_pages_there_are() {
    let app = TestApp::spawn().await;
    for path in [
        "/rules/chess",
        "/rules/draft-cider",
        "/rules/README.md",
        "/rules/arboretum.md",
    ] {
        let response = app.get(path, None).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain"));
        let message = response.text().await.unwrap();
        for name in umpire_api::routes::rules::page_names() {
            assert!(
                message.contains(&format!("/rules/{name}")),
                "{path}: {message}"
            );
        }
    }
}

#[tokio::test]
async fn the_pages_are_served_hardened_and_readable_on_a_phone() {
    let app = TestApp::spawn().await;
    for path in ["/rules", "/rules/treeblox", "/rules/nowhere"] {
        let response = app.get(path, None).await;
        let headers = response.headers();
        let policy = headers["content-security-policy"].to_str().unwrap();
        for directive in [
            "default-src 'none'",
            "style-src 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
        ] {
            assert!(
                policy.contains(directive),
                "{path}: {policy} lacks {directive}"
            );
        }
        // No script at all.
        assert!(!policy.contains("script-src"), "{path}: {policy}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
    }
    let html = app
        .get("/rules/draft_cider", None)
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("<meta name=\"viewport\" content=\"width=device-width"));
    assert!(html.contains("<link rel=\"stylesheet\" href=\"/viewer/rules.css\">"));
    // Every table in a box that scrolls, not the page.
    assert!(html.contains("<table>"));
    assert_eq!(
        html.matches("<table>").count(),
        html.matches("<div class=\"table\">\n<table>").count()
    );
    // HTML written in a page would be shown as text, and no script is there.
    assert!(!html.contains("<script"));
    let style = app.get("/viewer/rules.css", None).await;
    assert_eq!(style.status(), StatusCode::OK);
    assert!(style.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/css"));
    let css = style.text().await.unwrap();
    assert!(css.contains("max-width") && css.contains(".table { overflow-x: auto"));
}
