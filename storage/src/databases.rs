//! Databases on a server the store is given: creating one, and a
//! connection string naming another on the same server. What the service
//! and the tests do before a pool connects, whichever server it is (a
//! private cluster's or `DATABASE_URL`'s).

/// Creates `database` unless it exists, connecting to the `postgres` database
/// through `admin_url` (a URL whose `dbname` is replaced).
pub async fn ensure_database(
    admin_url: &str,
    database: &str,
    template: Option<&str>,
) -> Result<(), crate::StoreError> {
    let mut config: tokio_postgres::Config = admin_url
        .parse()
        .map_err(|e: tokio_postgres::Error| crate::StoreError::Unavailable(e.to_string()))?;
    config.dbname("postgres");
    let (client, connection) = config.connect(tokio_postgres::NoTls).await?;
    let connection = tokio::spawn(connection);
    let exists = client
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&database])
        .await?
        .is_some();
    if !exists {
        let quoted = database.replace('"', "\"\"");
        let statement = match template {
            Some(template) => format!(
                "CREATE DATABASE \"{quoted}\" TEMPLATE \"{}\"",
                template.replace('"', "\"\"")
            ),
            None => format!("CREATE DATABASE \"{quoted}\""),
        };
        client.batch_execute(&statement).await?;
    }
    drop(client);
    let _ = connection.await;
    Ok(())
}

/// The same connection string pointing at another database.
pub fn with_database(url: &str, database: &str) -> Result<String, crate::StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        // Replace the path part of a URL.
        let (base, query) = match url.split_once('?') {
            Some((base, query)) => (base, Some(query)),
            None => (url, None),
        };
        let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
        let authority_end = base[scheme_end..]
            .find('/')
            .map(|i| scheme_end + i)
            .unwrap_or(base.len());
        let mut out = format!("{}/{}", &base[..authority_end], database);
        if let Some(query) = query {
            out.push('?');
            out.push_str(query);
        }
        Ok(out)
    } else {
        // A key/value string: a later keyword overrides an earlier one (in
        // libpq and tokio-postgres alike), so the new name is appended
        // rather than the old one cut out of text that may quote spaces.
        Ok(format!("{url} {}", key_value("dbname", database)))
    }
}

/// `key=value` for a libpq key/value connection string, the value quoted
/// (`'…'`, with `\` and `'` escaped) when it is empty or holds a space, a
/// quote or a backslash: so that a name with a space stays one value.
/// Values without any are written as they are. (umpire-pgcluster quotes
/// its URLs the same way; the store itself does not depend on that crate,
/// only its testing support does, so each keeps its own copy.)
fn key_value(key: &str, value: &str) -> String {
    let plain = !value.is_empty()
        && !value
            .chars()
            .any(|c| c.is_whitespace() || c == '\'' || c == '\\');
    if plain {
        return format!("{key}={value}");
    }
    let escaped = value.replace('\\', "\\\\").replace('\'', "\\'");
    format!("{key}='{escaped}'")
}
