//! The project's rule pages, at `/rules/{page}`: `docs/rules/*.md` rendered
//! to HTML, so that the section a refusal cites is one click away.
//!
//! The pages are compiled into the binary (`include_dir!`; `build.rs`
//! rebuilds the crate when a page is added): a page's name is its file's,
//! with `_` for `-` (`draft-cider.md` is `/rules/draft_cider`), which is the
//! game's id in the registry and in its refusals' `rule` (`clock.md` is
//! `/rules/clock`); `README.md` is the index, `/rules`. Each heading that
//! names a section (`## §3 Rounds`, `### §3.2 Bidding`) gets the anchor
//! [`section_anchor`] makes of it (`#s3`, `#s3-2`), the one the `rule_url`
//! of an error body points to ([`umpire_domain::violation::rule_url`]);
//! other headings get a slug of their words. Links between the pages
//! (`arboretum.md`) lead to the served pages, and a bare `§3.2` in the text
//! to its section on the same page. Rendered once, on first use.
//!
//! The pages run no script; their one style sheet is `/viewer/rules.css`.
//! Outside `/v1` and so outside the OpenAPI document, like the viewer.

use std::fmt::Write as _;
use std::sync::OnceLock;

use actix_web::http::header::{self, ContentType};
use actix_web::{get, web, HttpResponse};
use include_dir::{include_dir, Dir};
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd, TextMergeStream};
use umpire_domain::violation::section_anchor;

/// Every rule page, as it is in `docs/rules/`.
static RULES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../docs/rules");

/// The index's file: served as `/rules`.
const INDEX_FILE: &str = "README.md";

/// Styles only from this origin, no script at all, no framing.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; \
    img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One rendered page.
struct Page {
    /// `arboretum`; empty for the index.
    name: String,
    /// The whole HTML document.
    html: String,
}

struct Rendered {
    index: Page,
    /// By name.
    pages: Vec<Page>,
    /// Each page's title without its id: `draft_cider` → `Draft & Cider`.
    titles: Vec<(String, String)>,
}

/// The page name of a rule book's file: `draft-cider.md` → `draft_cider`;
/// `None` for the index and for anything that is not a page.
fn page_name(file: &str) -> Option<String> {
    let stem = file.strip_suffix(".md")?;
    let plain = !stem.is_empty()
        && stem
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    (plain && file != INDEX_FILE).then(|| stem.replace('-', "_"))
}

fn rendered() -> &'static Rendered {
    static RENDERED: OnceLock<Rendered> = OnceLock::new();
    RENDERED.get_or_init(|| {
        let mut sources: Vec<(String, &str)> = RULES
            .files()
            .filter_map(|file| {
                let name = page_name(file.path().to_str()?)?;
                Some((name, file.contents_utf8()?))
            })
            .collect();
        sources.sort();
        let titles: Vec<(String, String)> = sources
            .iter()
            .map(|(name, text)| (name.clone(), title_of(text, name)))
            .collect();
        let index_text = RULES
            .get_file(INDEX_FILE)
            .and_then(|file| file.contents_utf8())
            .expect("docs/rules/README.md is compiled in");
        let page = |name: &str, text: &str| Page {
            name: name.to_string(),
            html: document(name, text, &titles),
        };
        Rendered {
            index: page("", index_text),
            pages: sources
                .iter()
                .map(|(name, text)| page(name, text))
                .collect(),
            titles,
        }
    })
}

/// A game's name for people, from its rule page's title (`draft_cider` →
/// `Draft & Cider`); `None` for a game without a rule page.
pub fn game_title(game: &str) -> Option<&'static str> {
    rendered()
        .titles
        .iter()
        .find(|(name, _)| name == game)
        .map(|(_, title)| title.as_str())
}

/// The names of every page, in the order the index's menu lists them.
pub fn page_names() -> Vec<&'static str> {
    rendered()
        .pages
        .iter()
        .map(|page| page.name.as_str())
        .collect()
}

fn hardened(response: actix_web::HttpResponseBuilder) -> actix_web::HttpResponseBuilder {
    crate::security_headers::page(response, CONTENT_SECURITY_POLICY)
}

fn served(page: &'static Page) -> HttpResponse {
    hardened(HttpResponse::Ok())
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .content_type(ContentType::html())
        .body(page.html.as_str())
}

/// The index: what holds for every game, and a link to every page.
#[get("/rules")]
pub async fn index() -> HttpResponse {
    served(&rendered().index)
}

/// The index, as `/rules/` too.
#[get("/rules/")]
pub async fn index_with_slash() -> HttpResponse {
    served(&rendered().index)
}

/// One game's rules (its id in the registry), or the clock's.
#[get("/rules/{page}")]
pub async fn rule_page(name: web::Path<String>) -> HttpResponse {
    let rendered = rendered();
    if let Some(page) = rendered.pages.iter().find(|page| page.name == *name) {
        return served(page);
    }
    let names: Vec<String> = rendered
        .pages
        .iter()
        .map(|page| format!("/rules/{}", page.name))
        .collect();
    hardened(HttpResponse::NotFound())
        .content_type(ContentType::plaintext())
        .body(format!(
            "There is no rule page by that name. The pages are {}, and /rules lists them.\n",
            names.join(", ")
        ))
}

/// The words of a page's first heading, without a trailing `(name)`.
fn title_of(text: &str, name: &str) -> String {
    let mut title = String::new();
    let mut in_first_heading = false;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => in_first_heading = true,
            Event::End(TagEnd::Heading(_)) => break,
            Event::Text(words) | Event::Code(words) if in_first_heading => title.push_str(&words),
            _ => {}
        }
    }
    let suffix = format!(" ({name})");
    match title.strip_suffix(&suffix) {
        Some(short) => short.to_string(),
        None => title,
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The whole HTML document of the page `name` (empty: the index).
fn document(name: &str, text: &str, titles: &[(String, String)]) -> String {
    let title = title_of(text, name);
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} — Umpire's rules</title>\n\
         <link rel=\"stylesheet\" href=\"/viewer/rules.css\">\n</head>\n<body>\n\
         <nav aria-label=\"Rule pages\">",
        escape(&title)
    );
    let current = |here: bool| if here { " aria-current=\"page\"" } else { "" };
    let _ = write!(
        html,
        "<a href=\"/rules\"{}>All rules</a>",
        current(name.is_empty())
    );
    for (page, page_title) in titles {
        let _ = write!(
            html,
            " · <a href=\"/rules/{page}\"{}>{}</a>",
            current(page == name),
            escape(page_title)
        );
    }
    html.push_str("</nav>\n<main>\n");
    pulldown_cmark::html::push_html(&mut html, body(text).into_iter());
    html.push_str("</main>\n</body>\n</html>\n");
    html
}

/// The anchor of a heading whose words are `words`: its section's
/// (`§3.2 Bidding` → `s3-2`), or else a slug of its words.
fn heading_anchor(words: &str) -> String {
    if let Some(anchor) = words.split_whitespace().next().and_then(section_anchor) {
        return anchor;
    }
    let mut slug = String::new();
    for c in words.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_string()
}

/// Where a link of a page leads on the service: another page's file
/// (`clock.md`, `README.md#x`) becomes that page's path; anything else is
/// kept as written.
fn link_target(destination: &str) -> Option<String> {
    let (file, fragment) = match destination.split_once('#') {
        Some((file, fragment)) => (file, format!("#{fragment}")),
        None => (destination, String::new()),
    };
    RULES.get_file(file)?;
    if file == INDEX_FILE {
        return Some(format!("/rules{fragment}"));
    }
    Some(format!("/rules/{}{fragment}", page_name(file)?))
}

/// The events of a page's body: headings anchored, links between pages
/// rewritten, bare section citations linked, tables in a box that scrolls,
/// and any HTML in the text shown as text.
fn body(text: &str) -> Vec<Event<'_>> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events: Vec<Event<'_>> = TextMergeStream::new(Parser::new_ext(text, options)).collect();
    // The sections this page has, for its bare citations.
    let mut sections = vec![];
    let mut words = String::new();
    let mut in_heading = false;
    for event in &events {
        match event {
            Event::Start(Tag::Heading { .. }) => {
                in_heading = true;
                words.clear();
            }
            Event::End(TagEnd::Heading(_)) => {
                in_heading = false;
                sections.push(heading_anchor(&words));
            }
            Event::Text(text) | Event::Code(text) if in_heading => words.push_str(text),
            _ => {}
        }
    }

    let mut out = Vec::with_capacity(events.len());
    let mut heading: Option<Vec<Event<'_>>> = None;
    let mut in_link = 0usize;
    for event in events {
        if let Some(held) = heading.as_mut() {
            if let Event::End(TagEnd::Heading(_)) = event {
                let mut held = std::mem::take(held);
                let words: String = held
                    .iter()
                    .filter_map(|event| match event {
                        Event::Text(text) | Event::Code(text) => Some(text.as_ref()),
                        _ => None,
                    })
                    .collect();
                let anchor = heading_anchor(&words);
                let mut title = false;
                if let Some(Event::Start(Tag::Heading { id, level, .. })) = held.first_mut() {
                    *id = Some(CowStr::from(anchor.clone()));
                    title = *level == HeadingLevel::H1;
                }
                out.append(&mut held);
                if !title {
                    out.push(Event::InlineHtml(CowStr::from(format!(
                        " <a class=\"here\" href=\"#{anchor}\" aria-label=\"Link to this section\">#</a>"
                    ))));
                }
                out.push(event);
                heading = None;
            } else {
                held.push(plain(event));
            }
            continue;
        }
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(vec![event]),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                in_link += 1;
                let dest_url = match link_target(&dest_url) {
                    Some(target) => CowStr::from(target),
                    None => dest_url,
                };
                out.push(Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }));
            }
            Event::End(TagEnd::Link) => {
                in_link = in_link.saturating_sub(1);
                out.push(event);
            }
            Event::Start(Tag::Table(_)) => {
                out.push(Event::Html(CowStr::Borrowed("<div class=\"table\">\n")));
                out.push(event);
            }
            Event::End(TagEnd::Table) => {
                out.push(event);
                out.push(Event::Html(CowStr::Borrowed("</div>\n")));
            }
            Event::Text(text) if in_link == 0 => cite(text, &sections, &mut out),
            other => out.push(plain(other)),
        }
    }
    out
}

/// HTML written in a page is shown as text: a page's markup is ours.
fn plain(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        other => other,
    }
}

/// `text` with each bare citation of a section of this page (`§3.2`, in
/// `sections` as `s3-2`) a link to it.
fn cite<'a>(text: CowStr<'a>, sections: &[String], out: &mut Vec<Event<'a>>) {
    let mut rest: &str = &text;
    let mut plain_text = String::new();
    while let Some(at) = rest.find('§') {
        let after = &rest[at + '§'.len_utf8()..];
        let length = after
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(after.len());
        let number = after[..length].trim_end_matches('.');
        let citation = &rest[at..at + '§'.len_utf8() + number.len()];
        let anchor = section_anchor(citation).filter(|anchor| sections.contains(anchor));
        plain_text.push_str(&rest[..at]);
        match anchor {
            Some(anchor) => {
                if !plain_text.is_empty() {
                    out.push(Event::Text(CowStr::from(std::mem::take(&mut plain_text))));
                }
                out.push(Event::InlineHtml(CowStr::from(format!(
                    "<a href=\"#{anchor}\">"
                ))));
                out.push(Event::Text(CowStr::from(citation.to_string())));
                out.push(Event::InlineHtml(CowStr::Borrowed("</a>")));
            }
            None => plain_text.push_str(citation),
        }
        rest = &rest[at + citation.len()..];
    }
    plain_text.push_str(rest);
    if !plain_text.is_empty() {
        out.push(Event::Text(CowStr::from(plain_text)));
    }
}
