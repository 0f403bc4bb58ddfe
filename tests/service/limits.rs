//! The per-instance limits of the service: turns at a game, and the budget
//! of refusals per actor.

mod turns {
    use std::time::Instant;

    use std::time::Duration;
    use umpire_service::turns::Turns;
    use uuid::Uuid;

    #[tokio::test]
    async fn a_second_submission_waits_for_the_first_and_times_out_at_its_deadline() {
        let turns = Turns::default();
        let game = Uuid::new_v4();
        let first = turns
            .take(game, Instant::now() + Duration::from_secs(1))
            .await
            .expect("free");
        assert!(turns
            .take(game, Instant::now() + Duration::from_millis(50))
            .await
            .is_err());
        // Another game is not held up.
        assert!(turns
            .take(Uuid::new_v4(), Instant::now() + Duration::from_millis(50))
            .await
            .is_ok());
        drop(first);
        assert!(turns
            .take(game, Instant::now() + Duration::from_millis(50))
            .await
            .is_ok());
    }

    #[tokio::test]
    async fn games_nobody_waits_on_are_swept() {
        let turns = Turns::default();
        for _ in 0..5000 {
            let _turn = turns
                .take(Uuid::new_v4(), Instant::now() + Duration::from_secs(1))
                .await
                .expect("free");
        }
        assert!(turns.tracked() <= 2048, "{} games tracked", turns.tracked());
    }
}

mod refusals {
    use std::time::Instant;

    use std::time::Duration;
    use umpire_service::throttle::{RefusalThrottle, REFUSALS_PER_SECOND, REFUSAL_BURST};
    use uuid::Uuid;

    #[test]
    fn a_burst_is_allowed_then_refusals_wait_for_the_refill() {
        let throttle = RefusalThrottle::default();
        let game = Uuid::new_v4();
        let start = Instant::now();
        for _ in 0..REFUSAL_BURST as usize {
            assert_eq!(throttle.take(game, "seat:red", start), Ok(()));
        }
        assert_eq!(throttle.take(game, "seat:red", start), Err(1));
        assert_eq!(
            throttle.take(game, "seat:blue", start),
            Ok(()),
            "budgets are per actor"
        );
        let later = start + Duration::from_secs_f64(1.0 / REFUSALS_PER_SECOND);
        assert_eq!(throttle.take(game, "seat:red", later), Ok(()));
    }
}
