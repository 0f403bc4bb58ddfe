//! The schema stays distributable by `game_id` (issue 34, Citus-style): a
//! game's rows could live on one shard and everything the service does to a
//! game stays on it. Held over the migrated schema, from PostgreSQL's own
//! catalog, so that a migration breaking it fails here:
//!
//! - every table has `game_id` and a primary key that begins with it, and
//!   every unique index begins with it (uniqueness is then checked within a
//!   game, on its shard);
//! - every foreign key joins on `game_id` (a game's rows refer only to the
//!   same game's);
//! - no sequence or identity column (numbers are per game: `seq`);
//! - every trigger is one this list knows and says why it stays within the
//!   game whose rows fired it.

use std::collections::BTreeMap;

/// The triggers the schema has, each with why it keeps to its own game.
const KNOWN_TRIGGERS: [(&str, &str); 8] = [
    ("events_no_update_or_delete", "refuses; touches nothing"),
    ("events_no_truncate", "refuses; touches nothing"),
    ("games_no_update_or_delete", "refuses; touches nothing"),
    ("games_no_truncate", "refuses; touches nothing"),
    (
        "game_results_no_update_or_delete",
        "refuses; touches nothing",
    ),
    ("game_results_no_truncate", "refuses; touches nothing"),
    (
        "events_announce_appends",
        "NOTIFY on the node that appended, naming the appended games",
    ),
    (
        "events_mark_clock_checks",
        "writes clock_checks rows of the appended games only, by game_id \
         (statement level: sharding would make it per row, or part of the append)",
    ),
];

async fn owner() -> tokio_postgres::Client {
    let database = umpire_storage::testing::fresh_database().await;
    let (client, connection) = tokio_postgres::connect(&database.owner_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

async fn strings(client: &tokio_postgres::Client, sql: &str) -> Vec<(String, String)> {
    client
        .query(sql, &[])
        .await
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect()
}

#[tokio::test]
async fn every_key_leads_with_game_id_and_nothing_crosses_games() {
    let client = owner().await;
    let tables: Vec<String> = client
        .query(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'public' AND c.relkind = 'r'
               AND c.relname <> 'refinery_schema_history'
             ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(tables.len() >= 10, "the schema's tables: {tables:?}");

    // The first column of every primary key and unique index, by index.
    let leading = strings(
        &client,
        "SELECT i.indexrelid::regclass::text, a.attname::text
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
         WHERE n.nspname = 'public' AND i.indisunique
           AND t.relname <> 'refinery_schema_history'",
    )
    .await;
    let not_by_game: Vec<_> = leading
        .iter()
        .filter(|(_, column)| column != "game_id")
        .collect();
    assert!(
        not_by_game.is_empty(),
        "unique keys not led by game_id: {not_by_game:?}"
    );
    let primary: Vec<String> = client
        .query(
            "SELECT t.relname::text FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
             JOIN pg_namespace n ON n.oid = t.relnamespace
             WHERE n.nspname = 'public' AND i.indisprimary",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    for table in &tables {
        assert!(primary.contains(table), "{table} has no primary key");
    }

    // Foreign keys: each joins on game_id, at the same place on both sides.
    let foreign = strings(
        &client,
        "SELECT c.conname::text,
                (SELECT string_agg(a.attname || '=' || b.attname, ',' ORDER BY k.i)
                 FROM unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(own, other, i)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.own
                 JOIN pg_attribute b ON b.attrelid = c.confrelid AND b.attnum = k.other)
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
         WHERE n.nspname = 'public' AND c.contype = 'f'",
    )
    .await;
    assert!(!foreign.is_empty(), "the schema has foreign keys to check");
    for (name, pairs) in &foreign {
        assert!(
            pairs.split(',').any(|pair| pair == "game_id=game_id"),
            "{name} joins {pairs}, not on game_id"
        );
    }

    // No sequence, no identity column: numbers are a game's own.
    let sequences: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'public' AND c.relkind = 'S'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(sequences, 0, "a sequence numbers rows across games");

    // Every trigger is known, with its reason.
    let known: BTreeMap<&str, &str> = KNOWN_TRIGGERS.into_iter().collect();
    let triggers = strings(
        &client,
        "SELECT t.tgname::text, c.relname::text FROM pg_trigger t
         JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND NOT t.tgisinternal",
    )
    .await;
    for (trigger, table) in &triggers {
        assert!(
            known.contains_key(trigger.as_str()),
            "trigger {trigger} on {table} is not known to keep within its game: \
             add it to KNOWN_TRIGGERS with why, or move its work into the append"
        );
    }
    assert_eq!(
        triggers.len(),
        known.len(),
        "KNOWN_TRIGGERS names triggers the schema no longer has: {triggers:?}"
    );
}
