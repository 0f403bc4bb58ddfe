//! The OpenAPI document (`/openapi.json`) and Swagger UI (`/docs/`), each
//! written once and served from shared bytes: an answer that a client
//! leaves unread then holds no copy of its own, however many clients ask.

use std::collections::HashMap;
use std::sync::Arc;

use actix_web::http::header;
use actix_web::web::{self, Bytes};
use actix_web::HttpResponse;
use parking_lot::Mutex;
use utoipa_swagger_ui::Config;

/// Swagger UI's files kept once read: the bundle has about a dozen, and
/// every further name found past this many is served without being kept.
const SWAGGER_FILES_KEPT: usize = 32;

/// The fixed documents, shared by every worker.
pub struct Documents {
    openapi: Bytes,
    swagger_config: Arc<Config<'static>>,
    swagger_files: Mutex<HashMap<String, Arc<SwaggerFile>>>,
}

impl std::fmt::Debug for Documents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Documents")
            .field("openapi_bytes", &self.openapi.len())
            .finish()
    }
}

struct SwaggerFile {
    content_type: String,
    gzipped: bool,
    bytes: Bytes,
}

impl Documents {
    pub fn new(openapi: &serde_json::Value) -> Documents {
        Documents {
            openapi: Bytes::from(
                serde_json::to_vec(openapi).expect("the OpenAPI document serialises"),
            ),
            swagger_config: Arc::new(Config::from("/openapi.json")),
            swagger_files: Mutex::new(HashMap::new()),
        }
    }

    fn swagger_file(&self, path: &str) -> Option<Arc<SwaggerFile>> {
        if let Some(file) = self.swagger_files.lock().get(path) {
            return Some(file.clone());
        }
        let file = match utoipa_swagger_ui::serve(path, self.swagger_config.clone()) {
            Ok(Some(file)) => file,
            Ok(None) => return None,
            Err(error) => {
                tracing::error!(%error, path, "Swagger UI could not serve a file of its own");
                return None;
            }
        };
        let mut bytes = file.bytes.into_owned();
        if file.content_type.starts_with("text/html") && !file.gzpipped {
            bytes = with_viewport(bytes);
        }
        let file = Arc::new(SwaggerFile {
            content_type: file.content_type,
            gzipped: file.gzpipped,
            bytes: Bytes::from(bytes),
        });
        let mut kept = self.swagger_files.lock();
        if kept.len() < SWAGGER_FILES_KEPT {
            kept.insert(path.to_owned(), file.clone());
        }
        Some(file)
    }
}

/// Swagger UI's page as a phone shows it: its own `index.html` has no
/// viewport, so a phone lays it out 980 px wide and shrinks it to unreadable.
fn with_viewport(page: Vec<u8>) -> Vec<u8> {
    const VIEWPORT: &[u8] =
        b"\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
    let Some(head) = page
        .windows(6)
        .position(|window| window.eq_ignore_ascii_case(b"<head>"))
    else {
        return page;
    };
    if page
        .windows(15)
        .any(|window| window.eq_ignore_ascii_case(b"name=\"viewport\""))
    {
        return page;
    }
    let mut out = Vec::with_capacity(page.len() + VIEWPORT.len());
    out.extend_from_slice(&page[..head + 6]);
    out.extend_from_slice(VIEWPORT);
    out.extend_from_slice(&page[head + 6..]);
    out
}

/// `GET /openapi.json`.
pub async fn openapi_json(documents: web::Data<Documents>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(documents.openapi.clone())
}

/// `GET /docs/{file}`: Swagger UI, reading `/openapi.json`.
pub async fn swagger_ui(documents: web::Data<Documents>, path: web::Path<String>) -> HttpResponse {
    match documents.swagger_file(&path) {
        Some(file) => {
            let mut response = HttpResponse::Ok();
            if file.gzipped {
                response.insert_header((header::CONTENT_ENCODING, "gzip"));
            }
            response
                .content_type(file.content_type.as_str())
                .body(file.bytes.clone())
        }
        None => HttpResponse::NotFound().finish(),
    }
}
