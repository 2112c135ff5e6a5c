//! Model-based test of every design at its trait, against the oracle: a generation is exactly what
//! the synthetic broker encodes for its number. Random waves of concurrent scrapes, with or
//! without a deadline, with pauses between waves; every answer must be a whole generation equal to
//! the oracle's (checksum included), as fresh as the design promises, and a refusal or timeout
//! only from a design that can give one.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use coalesce_lab::exposition::{Broker, checksum};
use coalesce_lab::{
    Answer, Generator, ImplementationVisitor, MetricsEndpoint, Scrape, for_each_implementation,
};
use futures_util::future::join_all;
use proptest::prelude::*;

/// One run's input: waves of (concurrent scrapes, pause after in ms), and a deadline.
#[derive(Debug, Clone)]
struct Waves {
    waves: Vec<(usize, u64)>,
    deadline: Option<Duration>,
}

struct Check<'a> {
    input: &'a Waves,
    broker: &'a Arc<Broker>,
    oracle: &'a mut HashMap<u64, Vec<u8>>,
}

impl ImplementationVisitor for Check<'_> {
    fn visit<E: MetricsEndpoint>(&mut self) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let generator = Arc::new(Generator::new(Arc::clone(self.broker)));
        let endpoint = runtime.block_on(async { E::new(Arc::clone(&generator)) });
        let mut answers = Vec::new();
        runtime.block_on(async {
            for &(count, pause) in &self.input.waves {
                let wave = (0..count).map(|_| {
                    let arrived = Instant::now();
                    let scrape = Scrape {
                        arrived,
                        deadline: self.input.deadline.map(|d| arrived + d),
                    };
                    let answer = endpoint.scrape(scrape);
                    async move { (arrived, answer.await) }
                });
                answers.extend(join_all(wave).await);
                tokio::time::sleep(Duration::from_millis(pause)).await;
            }
        });
        let spans = generator.spans();
        for (arrived, answer) in answers {
            match answer {
                Answer::Exposition(exposition) => {
                    let expected = self
                        .oracle
                        .entry(exposition.generation)
                        .or_insert_with(|| self.broker.generate(exposition.generation));
                    assert_eq!(
                        &exposition.body[..],
                        &expected[..],
                        "{}: not its generation",
                        E::NAME
                    );
                    assert_eq!(exposition.checksum, checksum(expected), "{}", E::NAME);
                    let span = spans[exposition.generation as usize];
                    assert!(
                        span.finished.is_some(),
                        "answers come from finished generations"
                    );
                    let fresh = E::FRESHNESS.holds(&span, exposition.generation, arrived);
                    assert!(
                        fresh,
                        "{}: generation {} staler than promised: {span:?}, arrived {arrived:?}",
                        E::NAME,
                        exposition.generation,
                    );
                }
                Answer::Overloaded => assert!(E::ADMITS.is_some(), "{} refused", E::NAME),
                Answer::TimedOut => assert!(
                    self.input.deadline.is_some(),
                    "{}: timed out without a deadline",
                    E::NAME
                ),
            }
        }
        drop(endpoint);
        runtime.shutdown_timeout(Duration::from_secs(2));
    }
}

fn waves() -> impl Strategy<Value = Waves> {
    (
        prop::collection::vec((1usize..24, 0u64..4), 1..5),
        prop::option::of((1u64..20).prop_map(Duration::from_millis)),
    )
        .prop_map(|(waves, deadline)| Waves { waves, deadline })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_answer_is_a_whole_generation_as_fresh_as_promised(input in waves()) {
        let broker = Arc::new(Broker::with_topics(5));
        let mut oracle = HashMap::new();
        for_each_implementation(&mut Check { input: &input, broker: &broker, oracle: &mut oracle });
    }
}
