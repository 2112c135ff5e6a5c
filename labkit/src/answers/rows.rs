//! How each answer row's verdict fared in the run this one replaced ([`crate::travel`]): the
//! words its row shows and the count the verdict paragraph gives.

use super::*;

/// The column saying how each row's verdict fared in the run this one replaced.
pub(super) const TRAVEL_COLUMN: &str = "Against the last run";

/// How a row's verdict fared in the last run, and the words its row shows.
pub(super) type RowTravel = (Option<Travel>, String);

/// `new` against `old` here and in the run this one replaced, both read at the claim's
/// `resolution`.
pub(super) fn pair_travel(
    set: &ResultSet,
    (old, new): (&Record, &Record),
    now: &Comparison,
    resolution: Resolution,
) -> RowTravel {
    let metric = old.metric;
    let before = travel::before(set, &old.id, &new.id, metric, resolution);
    (
        travel::of(now, before.as_ref()),
        travel::row_text(set, metric, now, before.as_ref()),
    )
}

/// A row's travel from its pairs': a pair that went another way there decides it, then a pair
/// not measured there; held only when every pair held; otherwise the words its pairs give
/// ([`travel::NEITHER`]), or "—" when no pair was measured.
pub(super) fn row_travel(pairs: Vec<RowTravel>) -> RowTravel {
    let find = |t: Travel| pairs.iter().find(|(p, _)| *p == Some(t)).cloned();
    find(Travel::Moved)
        .or_else(|| find(Travel::New))
        .or_else(|| find(Travel::Held))
        .or_else(|| pairs.first().cloned())
        .unwrap_or((None, "—".to_owned()))
}

/// The verb after "N of the write-up's claims": one of them reproduces, two reproduce.
pub(super) fn reproduce_verb(reproducing: usize) -> &'static str {
    if reproducing == 1 {
        "reproduces"
    } else {
        "reproduce"
    }
}

/// The sentence counting the write-up's claims' travel, for the verdict paragraph, which names
/// them just before (the lab's own rows below carry theirs); none without an earlier run (the
/// trust section says so).
pub(super) fn travel_sentence(set: &ResultSet, travel: &[Option<Travel>]) -> String {
    let Some(replaced) = travel::Replaced::of(set) else {
        return String::new();
    };
    let count = |t: Travel| travel.iter().filter(|x| **x == Some(t)).count();
    let new = match count(Travel::New) {
        0 => String::new(),
        n => format!(", {n} new"),
    };
    let (held, moved) = (count(Travel::Held), count(Travel::Moved));
    let run = replaced.named();
    format!(" Last run ({run}): same verdict on {held}, **another on {moved}**{new}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_takes_the_worst_travel_of_its_pairs_and_one_wording_when_none_decided() {
        let pair = |t: Option<Travel>, text: &str| (t, text.to_owned());
        let neither = pair(None, travel::NEITHER);
        assert_eq!(
            row_travel(vec![
                pair(Some(Travel::Held), "held"),
                pair(Some(Travel::Moved), "cpu"),
                pair(Some(Travel::New), "new"),
            ])
            .1,
            "cpu"
        );
        assert_eq!(
            row_travel(vec![neither.clone(), pair(Some(Travel::Held), "held")]).1,
            "held"
        );
        assert_eq!(row_travel(vec![neither.clone()]), neither);
        assert_eq!(row_travel(vec![]), (None, "—".to_owned()));
    }
}
