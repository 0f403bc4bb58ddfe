//! Telling a wrong method from a path that leads nowhere: a request no route
//! takes is answered 405 `method_not_allowed`, with `Allow` listing what
//! its path answers, when the service serves that path with other methods,
//! and 404 `route_not_found` otherwise. And naming a request's route for its
//! log span before actix has routed it ([`KnownPaths::route`]).
//!
//! actix registers each handler as a route of its own, guarded by its
//! method, so a request whose method no route takes falls through to the
//! default service like an unknown path. The methods of each path are read
//! from the OpenAPI document (every operation) and [`PAGES`] (the rest).

use actix_web::http::Method;
use serde_json::Value;

/// The paths outside the OpenAPI document and the methods each answers, as
/// `startup.rs` registers them (`/docs` redirects whatever the method). A
/// test asks each of them with each method (`tests/http/wrong_methods.rs`).
pub const PAGES: &[(&str, &[Method])] = &[
    ("/", &[Method::GET, Method::HEAD]),
    ("/metrics", &[Method::GET]),
    ("/games", &[Method::GET]),
    ("/games/{id}", &[Method::GET]),
    ("/new", &[Method::GET]),
    ("/join", &[Method::GET]),
    ("/viewer/{name:.*}", &[Method::GET]),
    ("/rules", &[Method::GET]),
    ("/rules/", &[Method::GET]),
    ("/rules/{page}", &[Method::GET]),
    ("/openapi.json", &[Method::GET]),
    ("/docs/{_:.*}", &[Method::GET]),
];

/// The methods an OpenAPI path item may name, in the order `Allow` lists them.
const METHODS: &[Method] = &[
    Method::GET,
    Method::HEAD,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::OPTIONS,
    Method::TRACE,
];

/// Every path the service serves, with the methods it answers.
pub struct KnownPaths {
    routes: Vec<(Template, Vec<Method>)>,
    /// For [`KnownPaths::route`]: at `n`, the routes whose paths have `n`
    /// slashes, and those ending in a tail (which may have more).
    by_slashes: Vec<Vec<usize>>,
}

/// A route's path template, matched segment by segment: `{id}` stands for
/// any one segment, a last `{name:.*}` for whatever follows. Without a
/// regular expression: a burst of wrong methods (10,000 pipelined, in
/// `metrics_bounds.rs`) costs about what as many unknown paths do.
struct Template {
    /// As written: `/v1/games/{id}`.
    text: String,
    segments: Vec<Segment>,
}

enum Segment {
    Literal(String),
    Any,
    Rest,
}

impl Template {
    fn new(path: &str) -> Self {
        let segments = path
            .split('/')
            .map(|segment| match segment {
                s if s.starts_with('{') && s.ends_with(":.*}") => Segment::Rest,
                s if s.starts_with('{') && s.ends_with('}') => Segment::Any,
                s => Segment::Literal(s.to_string()),
            })
            .collect();
        Template {
            text: path.to_string(),
            segments,
        }
    }

    /// Whether a path of `slashes` slashes has as many segments as this
    /// template takes: the cheap test first.
    fn could_match(&self, slashes: usize) -> bool {
        match self.segments.last() {
            Some(Segment::Rest) => slashes + 1 >= self.segments.len() - 1,
            _ => slashes + 1 == self.segments.len(),
        }
    }

    /// Orders templates from the least specific to the most: compared
    /// segment by segment, a literal over `{id}` over a tail.
    fn specificity(&self) -> impl Iterator<Item = u8> + '_ {
        self.segments.iter().map(|segment| match segment {
            Segment::Literal(_) => 2,
            Segment::Any => 1,
            Segment::Rest => 0,
        })
    }

    fn is_match(&self, path: &str) -> bool {
        // Byte by byte: `str::split` costs ten times as much on paths this
        // short (a route is named on every request).
        let mut parts = Parts(Some(path.as_bytes()));
        for segment in &self.segments {
            match (segment, parts.next()) {
                (Segment::Rest, _) => return true,
                (Segment::Any, Some(part)) if !part.is_empty() => {}
                (Segment::Literal(literal), Some(part)) if literal.as_bytes() == part => {}
                _ => return false,
            }
        }
        parts.next().is_none()
    }

    /// [`Template::is_match`] for a path already split into `parts`. The
    /// segments are compared last first: routes of as many segments
    /// mostly differ in their last (`/state`, `/score`, `/events`).
    fn matches(&self, parts: &[&[u8]]) -> bool {
        // A tail takes whatever follows the segments before it.
        let tail = self
            .segments
            .iter()
            .position(|segment| matches!(segment, Segment::Rest));
        let fixed = match tail {
            Some(at) if parts.len() >= at => &self.segments[..at],
            None if parts.len() == self.segments.len() => &self.segments[..],
            _ => return false,
        };
        fixed
            .iter()
            .zip(parts)
            .rev()
            .all(|(segment, part)| match segment {
                Segment::Literal(literal) => literal.as_bytes() == *part,
                Segment::Any => !part.is_empty(),
                Segment::Rest => unreachable!("only segments before a tail"),
            })
    }
}

/// The most segments [`KnownPaths::route`] splits a path into at once; a
/// longer path (only a tail route can take it) is matched segment by
/// segment against each route instead.
const SPLIT_PARTS: usize = 12;

/// A path's segments, as `str::split('/')` gives them.
struct Parts<'a>(Option<&'a [u8]>);

impl<'a> Iterator for Parts<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.0?;
        match rest.iter().position(|&byte| byte == b'/') {
            Some(at) => {
                self.0 = Some(&rest[at + 1..]);
                Some(&rest[..at])
            }
            None => {
                self.0 = None;
                Some(rest)
            }
        }
    }
}

impl KnownPaths {
    /// The paths of `document` (the OpenAPI document as JSON) and [`PAGES`].
    pub fn new(document: &Value) -> Self {
        let documented = document["paths"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(path, item)| {
                let methods = METHODS
                    .iter()
                    .filter(|method| item.get(method.as_str().to_ascii_lowercase()).is_some())
                    .cloned()
                    .collect();
                (path.as_str(), methods)
            });
        let pages = PAGES
            .iter()
            .map(|(path, methods)| (*path, methods.to_vec()));
        let routes: Vec<(Template, Vec<Method>)> = documented
            .chain(pages)
            .map(|(path, methods)| (Template::new(path), methods))
            .collect();
        let most = routes.iter().map(|(route, _)| route.segments.len()).max();
        let by_slashes = (0..most.unwrap_or(0))
            .map(|slashes| {
                let could_match = routes
                    .iter()
                    .enumerate()
                    .filter(|(_, (route, _))| route.could_match(slashes));
                could_match.map(|(index, _)| index).collect()
            })
            .collect();
        KnownPaths { routes, by_slashes }
    }

    /// The template of the route that answers `method` at `path`, found
    /// without actix's regular expressions (which cost the log span about
    /// 2 % of an action's instructions): of the routes whose path matches
    /// and that answer `method`, the most specific (`/v1/games/import` over
    /// `/v1/games/{id}`), as actix takes the first registered and a literal
    /// route is registered before a template it overlaps. `None` when none
    /// does. A test holds it to the route actix takes for every route and
    /// method (`tests/http/wrong_methods.rs`).
    pub fn route(&self, method: &Method, path: &str) -> Option<&str> {
        // The path split once, not once for each route it is tried against.
        let mut parts: [&[u8]; SPLIT_PARTS] = [&[]; SPLIT_PARTS];
        let mut count = 0;
        for part in Parts(Some(path.as_bytes())) {
            if let Some(slot) = parts.get_mut(count) {
                *slot = part;
            }
            count += 1;
        }
        let split = parts.get(..count);
        let slashes = count - 1;
        // More slashes than any route's path: only a tail can take them.
        let candidates = self
            .by_slashes
            .get(slashes)
            .or(self.by_slashes.last())
            .map_or(&[][..], Vec::as_slice);
        let mut best: Option<&Template> = None;
        for (route, methods) in candidates.iter().map(|&index| &self.routes[index]) {
            if route.could_match(slashes)
                && methods.contains(method)
                && split.map_or_else(|| route.is_match(path), |split| route.matches(split))
                && best.is_none_or(|best| route.specificity().gt(best.specificity()))
            {
                best = Some(route);
            }
        }
        best.map(|route| route.text.as_str())
    }

    /// The methods `path` is answered with, in the order `Allow` lists them: empty
    /// when no route serves it. A path two routes serve (`/v1/games/import`
    /// is also `/v1/games/{id}`) answers the methods of both.
    pub fn allowed(&self, path: &str) -> Vec<Method> {
        let matching: Vec<&Method> = self
            .routes
            .iter()
            .filter(|(route, _)| route.is_match(path))
            .flat_map(|(_, methods)| methods)
            .collect();
        METHODS
            .iter()
            .filter(|method| matching.contains(method))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_split_path_matches_a_route_as_the_whole_path_does() {
        let routes = [
            "/",
            "/v1/games",
            "/v1/games/{id}",
            "/v1/games/import",
            "/v1/games/{id}/actions",
            "/v1/games/{id}/actions/check",
            "/docs/{_:.*}",
            "/a/{_:.*}/b",
        ];
        let paths = [
            "",
            "/",
            "//",
            "/v1/games",
            "/v1/games/",
            "/v1/games/g-1",
            "/v1/games/import",
            "/v1/games//actions",
            "/v1/games/g-1/actions",
            "/v1/games/g-1/actions/",
            "/v1/games/g-1/actions/check",
            "/v1/games/g-1/state",
            "/docs",
            "/docs/",
            "/docs/index.html",
            "/docs/a/b/c",
            "/a",
            "/a/x",
            "/a/x/b",
            "v1/games",
        ];
        for route in routes.map(Template::new) {
            for path in paths {
                let parts: Vec<&[u8]> = Parts(Some(path.as_bytes())).collect();
                assert_eq!(
                    route.matches(&parts),
                    route.is_match(path),
                    "{} against {path:?}",
                    route.text
                );
            }
        }
    }

    #[test]
    fn a_path_splits_as_str_split_does() {
        for path in [
            "",
            "/",
            "//",
            "/v1/games/g-1/actions",
            "/docs/",
            "a/b",
            "/é/ü/",
        ] {
            let parts: Vec<&[u8]> = Parts(Some(path.as_bytes())).collect();
            let split: Vec<&[u8]> = path.split('/').map(str::as_bytes).collect();
            assert_eq!(parts, split, "{path:?}");
        }
    }

    #[test]
    fn a_route_is_the_most_specific_that_answers_the_method() {
        let document = json!({"paths": {
            "/v1/games/{id}": {"get": {}},
            "/v1/games/types": {"get": {}},
            "/v1/games/{id}/actions": {"post": {}},
            "/v1/games/import": {"post": {}},
        }});
        let known = KnownPaths::new(&document);
        let cases = [
            (Method::GET, "/v1/games/types", Some("/v1/games/types")),
            (Method::GET, "/v1/games/g-1", Some("/v1/games/{id}")),
            // The literal path's route does not answer GET: the template's does.
            (Method::GET, "/v1/games/import", Some("/v1/games/{id}")),
            (Method::POST, "/v1/games/import", Some("/v1/games/import")),
            (
                Method::POST,
                "/v1/games/g-1/actions",
                Some("/v1/games/{id}/actions"),
            ),
            (Method::GET, "/v1/games/g-1/actions", None),
            (Method::POST, "/v1/games//actions", None),
            (Method::GET, "/viewer/app.js", Some("/viewer/{name:.*}")),
            (Method::GET, "/viewer/a/b.js", Some("/viewer/{name:.*}")),
            (Method::GET, "/v2/nothing", None),
        ];
        for (method, path, route) in cases {
            assert_eq!(known.route(&method, path), route, "{method} {path}");
        }
    }
}
