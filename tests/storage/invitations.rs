//! Seats by invitation in the store: a code redeemed once (of concurrent
//! redemptions exactly one wins), and a reissue's generation revoking every
//! earlier token of the seat, recorded in the log in the same transaction.

use chrono::{Duration, Utc};
use serde_json::json;
use umpire_domain::Actor;
use umpire_storage::{hash_token, EventStore, NewEvent, NewInvitation, Redemption, StoreError};
use uuid::Uuid;

use super::{fresh_store, new_game};

fn invitation(code: &str, seat: &str, expires_in: Duration) -> NewInvitation {
    NewInvitation {
        code_hash: hash_token(code),
        seat: seat.into(),
        generation: 0,
        expires_at: Utc::now() + expires_in,
    }
}

fn reissued(seat: &str) -> Vec<NewEvent> {
    vec![NewEvent {
        event_type: "seat_token_reissued".into(),
        payload: json!({"type": "seat_token_reissued", "seat": seat}),
        actor: "umpire".into(),
        action: json!({"type": "reissue_seat_token", "seat": seat}).into(),
        rules_version: 1,
    }]
}

/// Reissues red's token at the log's head, with a new invitation `code`.
async fn reissue_red(store: &EventStore, game_id: Uuid, code: &str) -> u64 {
    let head = store.head(game_id).await.unwrap();
    let (events, head) = store
        .reissue_seat(
            &head,
            reissued("red"),
            "red",
            invitation(code, "red", Duration::days(7)),
        )
        .await
        .expect("reissued");
    assert_eq!(events.len(), 1);
    head.version()
}

/// Stores an invitation of generation 0 for red in `game_id` (as a game's
/// creation would), through a reissue-free path: the store's test of
/// `create_game_inviting` is the HTTP suite's; here a second game is
/// created with invitations.
async fn game_inviting(store: &EventStore, codes: &[(&str, Duration)]) -> Uuid {
    let game_id = Uuid::new_v4();
    let invitations: Vec<NewInvitation> = codes
        .iter()
        .map(|(code, expires_in)| invitation(code, "red", *expires_in))
        .collect();
    store
        .create_game_inviting(
            umpire_storage::NewGame {
                game_id,
                game: "arboretum".into(),
                options: json!({}),
                seed: 1,
                rules_version: 1,
                setup_events: vec![NewEvent {
                    event_type: "dealt".into(),
                    payload: json!({"type": "dealt"}),
                    actor: "system".into(),
                    action: serde_json::Value::Null.into(),
                    rules_version: 1,
                }],
                tokens: vec![umpire_storage::NewToken {
                    token_hash: hash_token("red-secret"),
                    grant: Actor::Seat("red".into()),
                }],
            },
            &invitations,
        )
        .await
        .expect("created");
    game_id
}

#[tokio::test]
async fn a_code_is_redeemed_once_and_its_token_authorises_its_seat() {
    let (store, _) = fresh_store().await;
    let game_id = game_inviting(&store, &[("code-1", Duration::days(7))]).await;
    let now = Utc::now();
    assert_eq!(
        store
            .redeem_invitation(game_id, &hash_token("code-1"), &hash_token("new-red"), now)
            .await
            .unwrap(),
        Redemption::Redeemed { seat: "red".into() }
    );
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("new-red"))
            .await
            .unwrap()
            .map(|grant| grant.actor),
        Some(Actor::Seat("red".into()))
    );
    assert_eq!(
        store
            .redeem_invitation(game_id, &hash_token("code-1"), &hash_token("other"), now)
            .await
            .unwrap(),
        Redemption::Used
    );
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("other"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .redeem_invitation(game_id, &hash_token("no-such-code"), &hash_token("x"), now)
            .await
            .unwrap(),
        Redemption::Unknown
    );
    // Another game's code is unknown in this one.
    let other_game = new_game(&store).await;
    assert_eq!(
        store
            .redeem_invitation(other_game, &hash_token("code-1"), &hash_token("x"), now)
            .await
            .unwrap(),
        Redemption::Unknown
    );
}

#[tokio::test]
async fn an_expired_code_gives_no_token_and_stays_unredeemed() {
    let (store, _) = fresh_store().await;
    let game_id = game_inviting(&store, &[("old", Duration::seconds(-1))]).await;
    for _ in 0..2 {
        assert_eq!(
            store
                .redeem_invitation(game_id, &hash_token("old"), &hash_token("t"), Utc::now())
                .await
                .unwrap(),
            Redemption::Expired
        );
    }
    assert_eq!(
        store.token_grant(game_id, &hash_token("t")).await.unwrap(),
        None
    );
}

#[tokio::test]
async fn of_concurrent_redemptions_of_one_code_exactly_one_wins() {
    let (store, _) = fresh_store().await;
    let game_id = game_inviting(&store, &[("contested", Duration::days(7))]).await;
    let attempts = (0..8).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            let token = format!("token-{i}");
            let outcome = store
                .redeem_invitation(
                    game_id,
                    &hash_token("contested"),
                    &hash_token(&token),
                    Utc::now(),
                )
                .await
                .unwrap();
            (token, outcome)
        })
    });
    let outcomes: Vec<(String, Redemption)> = futures_util::future::join_all(attempts)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let winners: Vec<&String> = outcomes
        .iter()
        .filter(|(_, outcome)| matches!(outcome, Redemption::Redeemed { .. }))
        .map(|(token, _)| token)
        .collect();
    assert_eq!(winners.len(), 1, "{outcomes:?}");
    assert!(outcomes
        .iter()
        .all(|(_, o)| matches!(o, Redemption::Redeemed { .. } | Redemption::Used)));
    for (token, _) in &outcomes {
        let grant = store
            .token_grant(game_id, &hash_token(token))
            .await
            .unwrap();
        assert_eq!(grant.is_some(), token == winners[0], "{token}");
    }
}

#[tokio::test]
async fn a_reissue_revokes_every_earlier_token_of_the_seat_and_earlier_invitations() {
    let (store, _) = fresh_store().await;
    let game_id = game_inviting(
        &store,
        &[("first", Duration::days(7)), ("second", Duration::days(7))],
    )
    .await;
    let now = Utc::now();
    store
        .redeem_invitation(
            game_id,
            &hash_token("first"),
            &hash_token("from-first"),
            now,
        )
        .await
        .unwrap();
    assert!(store
        .token_grant(game_id, &hash_token("red-secret"))
        .await
        .unwrap()
        .is_some());
    assert!(store
        .token_grant(game_id, &hash_token("from-first"))
        .await
        .unwrap()
        .is_some());

    let version = reissue_red(&store, game_id, "third").await;
    assert_eq!(version, 2, "the reissue is the log's next event");
    // Every earlier token of red, the creation's and an invitation's, no
    // longer authorises; the earlier unredeemed invitation is revoked.
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("red-secret"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("from-first"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .redeem_invitation(game_id, &hash_token("second"), &hash_token("s"), now)
            .await
            .unwrap(),
        Redemption::Revoked
    );
    assert_eq!(
        store.token_grant(game_id, &hash_token("s")).await.unwrap(),
        None
    );
    // The new invitation gives a token of the new generation, which works.
    assert_eq!(
        store
            .redeem_invitation(game_id, &hash_token("third"), &hash_token("new"), now)
            .await
            .unwrap(),
        Redemption::Redeemed { seat: "red".into() }
    );
    // Of the generation the reissue made: its version.
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("new"))
            .await
            .unwrap(),
        Some(umpire_storage::TokenGrant {
            actor: Actor::Seat("red".into()),
            generation: version,
        })
    );
    // The log holds the reissue, chained, and no token or code.
    let events = store.read_events(game_id, 0, None, None).await.unwrap();
    assert_eq!(events[1].event_type, "seat_token_reissued");
    umpire_domain::record::verify_chain(&game_id.to_string(), &events).expect("chained");
    let text = serde_json::to_string(&events).unwrap();
    for secret in ["third", "new", "red-secret", &hash_token("third")] {
        assert!(!text.contains(secret), "{secret} in the log");
    }
    // A second reissue revokes the first one's token too.
    reissue_red(&store, game_id, "fourth").await;
    assert_eq!(
        store
            .token_grant(game_id, &hash_token("new"))
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn a_reissue_at_a_stale_head_writes_nothing() {
    let (store, _) = fresh_store().await;
    let game_id = game_inviting(&store, &[]).await;
    let stale = store.head(game_id).await.unwrap();
    reissue_red(&store, game_id, "one").await;
    let refused = store
        .reissue_seat(
            &stale,
            reissued("red"),
            "red",
            invitation("two", "red", Duration::days(7)),
        )
        .await;
    assert!(
        matches!(refused, Err(StoreError::Conflict { .. })),
        "{refused:?}"
    );
    assert_eq!(store.version(game_id).await.unwrap(), 2);
    // The refused reissue's invitation was not stored.
    assert_eq!(
        store
            .redeem_invitation(game_id, &hash_token("two"), &hash_token("t"), Utc::now())
            .await
            .unwrap(),
        Redemption::Unknown
    );
}
