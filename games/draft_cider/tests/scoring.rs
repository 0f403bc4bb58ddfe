//! Table-driven scores of every batch for 0 to 12 cards, against the rule
//! book's sequences computed here independently of the crate (§3).

use umpire_draft_cider::batches::batch_points;
use umpire_draft_cider::{
    DraftCiderBatch, DraftCiderBrokenTree, DraftCiderCard, DraftCiderColour, DraftCiderOptions,
    DraftCiderOrchard,
};

fn make(colour: DraftCiderColour, height: u8, sweetness: u8) -> DraftCiderCard {
    DraftCiderCard::new(colour, height, sweetness).expect("a valid card")
}

fn points(batch: DraftCiderBatch, cards: Vec<DraftCiderCard>, options: &DraftCiderOptions) -> i64 {
    let mut orchard = DraftCiderOrchard::default();
    *orchard.cards_mut(batch) = cards;
    batch_points(&orchard, batch, options).0
}

/// The rule book's printed odd primes, extended by trial division.
fn odd_primes(how_many: usize) -> Vec<i64> {
    let mut found = Vec::new();
    let mut candidate = 3_i64;
    while found.len() < how_many {
        if (2..candidate).all(|divisor| candidate % divisor != 0) {
            found.push(candidate);
        }
        candidate += 2;
    }
    found
}

#[test]
fn the_odd_prime_helper_matches_the_rule_book_list() {
    assert_eq!(
        odd_primes(12),
        vec![3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41]
    );
}

#[test]
fn every_batch_scores_its_sequence_for_zero_to_twelve_cards() {
    let options = DraftCiderOptions::default();
    let easy = DraftCiderOptions {
        easy: true,
        ..DraftCiderOptions::default()
    };
    let primes = odd_primes(12);
    let gold = DraftCiderColour::Gold;
    for count in 0..=12_usize {
        let n = count as i64;
        let triangle: i64 = (1..=n).sum();
        let monochrome: Vec<_> = (0..count)
            .map(|i| make(gold, (i % 5) as u8 + 1, (i / 5) as u8 + 1))
            .collect();
        let feather: Vec<_> = (0..count)
            .map(|i| make(gold, 3, (i % 5) as u8 + 1))
            .collect();
        // Heights alternate 1, 5: every complete pair differs by 4.
        let fortepiano: Vec<_> = (0..count)
            .map(|i| make(gold, if i % 2 == 0 { 1 } else { 5 }, 2))
            .collect();
        let sweet_couple: Vec<_> = (0..count)
            .map(|i| make(gold, 2, (i / 2 % 5) as u8 + 1))
            .collect();
        let steady: Vec<_> = (0..count)
            .map(|i| make(gold, 3, (i % 5) as u8 + 1))
            .collect();
        let bad: Vec<_> = (0..count)
            .map(|i| make(gold, 1, (i % 5) as u8 + 1))
            .collect();
        let expected_steady = if count == 0 { 0 } else { primes[count - 1] };

        let cases = [
            (DraftCiderBatch::Monochrome, monochrome, triangle, &options),
            (
                DraftCiderBatch::Feather,
                feather,
                n * (n - 1).max(0),
                &options,
            ),
            (
                DraftCiderBatch::Fortepiano,
                fortepiano,
                (n / 2) * 2 * 4,
                &options,
            ),
            (
                DraftCiderBatch::SweetCouple,
                sweet_couple,
                7 * (n / 2),
                &options,
            ),
            (DraftCiderBatch::Steady, steady, expected_steady, &options),
            (DraftCiderBatch::Bad, bad.clone(), -n, &options),
            (DraftCiderBatch::Bad, bad, 0, &easy),
        ];
        for (batch, cards, expected, options) in cases {
            assert_eq!(
                points(batch, cards, options),
                expected,
                "{batch:?} with {count} cards"
            );
        }
    }
}

/// Sweetness values within 1 of each other that total exactly 13 with
/// `count` cards, when there are any (none for 1 or 2 cards, none above 13).
fn sweetness_totalling_thirteen(count: usize) -> Option<Vec<u8>> {
    (1..=4_u8).find_map(|low| {
        // `high_cards` cards of low + 1, the rest of low.
        (0..=count).find_map(|high_cards| {
            let total = low as usize * count + high_cards;
            (total == 13).then(|| {
                let mut values = vec![low; count - high_cards];
                values.extend(vec![low + 1; high_cards]);
                values
            })
        })
    })
}

#[test]
fn the_unlucky_batch_scores_the_square_of_its_count_only_when_sweetness_totals_thirteen() {
    let options = DraftCiderOptions::default();
    for count in 0..=12_usize {
        let n = count as i64;
        match sweetness_totalling_thirteen(count) {
            Some(values) => {
                let cards = values
                    .iter()
                    .map(|sweetness| make(DraftCiderColour::Red, 2, *sweetness))
                    .collect();
                assert_eq!(
                    points(DraftCiderBatch::Unlucky, cards, &options),
                    n * n,
                    "{count} cards totalling 13"
                );
            }
            None => assert!(count <= 2, "13 is reachable with {count} cards"),
        }
        // Sweetness 1 throughout totals `count`, never 13 here: worth nothing.
        let ones = (0..count)
            .map(|_| make(DraftCiderColour::Red, 2, 1))
            .collect();
        assert_eq!(
            points(DraftCiderBatch::Unlucky, ones, &options),
            0,
            "{count} ones"
        );
    }
}

#[test]
fn the_special_colour_tree_scores_twenty_zero_or_minus_twenty() {
    for (broken_tree, broken_points) in [
        (DraftCiderBrokenTree::Zero, 0),
        (DraftCiderBrokenTree::MinusTwenty, -20),
    ] {
        let options = DraftCiderOptions {
            broken_tree,
            ..DraftCiderOptions::default()
        };
        let mut orchard = DraftCiderOrchard::default();
        assert_eq!(
            batch_points(&orchard, DraftCiderBatch::SpecialTree, &options).0,
            0
        );
        orchard
            .special_tree
            .push(make(DraftCiderColour::Green, 1, 1));
        orchard.bad.push(make(DraftCiderColour::Green, 2, 1));
        orchard.monochrome.push(make(DraftCiderColour::Red, 2, 1));
        assert_eq!(
            batch_points(&orchard, DraftCiderBatch::SpecialTree, &options).0,
            20
        );
        orchard.steady.push(make(DraftCiderColour::Green, 3, 1));
        assert_eq!(
            batch_points(&orchard, DraftCiderBatch::SpecialTree, &options).0,
            broken_points
        );
    }
}

#[test]
fn fortepiano_scores_twice_each_height_difference() {
    let options = DraftCiderOptions::default();
    for first in 1..=5_u8 {
        for second in (1..=5_u8).filter(|second| *second != first) {
            let cards = vec![
                make(DraftCiderColour::Gold, first, 1),
                make(DraftCiderColour::Gold, second, 2),
            ];
            let expected = 2 * (i64::from(first) - i64::from(second)).abs();
            assert_eq!(
                points(DraftCiderBatch::Fortepiano, cards, &options),
                expected
            );
        }
    }
}
