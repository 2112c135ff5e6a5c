use super::*;

#[test]
fn the_trace_is_fnv_1a_over_words_and_strings() {
    let mut empty = Trace::new(10);
    assert_eq!(empty.checksum(), 0xcbf2_9ce4_8422_2325);
    // FNV-1a of the single byte "a" is a published value; a string adds 0xff after its bytes.
    let mut a = Trace::new(10);
    a.text("a");
    let mut expected = 0xaf63_dc4c_8601_ec8c_u64;
    expected ^= 0xff;
    expected = expected.wrapping_mul(0x0100_0000_01b3);
    assert_eq!(a.checksum(), expected);
    let (mut one, mut two) = (Trace::new(10), Trace::new(10));
    one.text("ab").text("c");
    two.text("a").text("bc");
    assert_ne!(
        one.checksum(),
        two.checksum(),
        "strings cannot run together"
    );
    empty.op(1, &[2, 3]);
    assert_eq!(empty.operations(), 1);
    // Past its limit a trace counts operations and hashes nothing more.
    let mut short = Trace::new(1);
    short.op(1, &[2]);
    let first = short.checksum();
    short.text("more").op(3, &[4]);
    assert_eq!((short.checksum(), short.operations()), (first, 2));
}

/// A lab whose JVM side is written here: `jvm-fast` sums numbers, `jvm-dies` ends its JVM when a
/// case opens.
struct JvmFixture(&'static [(&'static str, &'static str)]);

const FIXTURE_LAB: &str = r#"package fixture;

public final class FixtureLab implements labkit.JvmLab {
    public labkit.Case open(String design, String experiment, String parameter) {
        if (design.equals("jvm-dies")) {
            System.err.println("dying on purpose");
            System.exit(3);
        }
        return (warmUp, ops) -> {
            long start = System.nanoTime();
            long sum = 0;
            for (long i = 0; i < warmUp + ops; i++) {
                sum += i;
            }
            labkit.Sink.consume(sum);
            return new labkit.Sample(Math.max(1, System.nanoTime() - start), 0).count("sums", ops);
        };
    }

    public long trace(String experiment, String parameter, long n) {
        labkit.Trace trace = new labkit.Trace(n);
        for (long i = 0; trace.recording(); i++) {
            trace.text(parameter).op(1, i);
        }
        return trace.checksum();
    }

    public void check(String design) {}
}
"#;

const WORKING: &[(&str, &str)] = &[("fixture/FixtureLab.java", FIXTURE_LAB)];
const BROKEN: &[(&str, &str)] = &[(
    "fixture/FixtureLab.java",
    "package fixture; public final class FixtureLab { not java }",
)];

impl crate::lab::Describe for JvmFixture {
    fn name(&self) -> &'static str {
        "jvm-fixture"
    }
    fn package(&self) -> &'static str {
        "jvm-fixture-lab"
    }
    fn title(&self) -> &'static str {
        "jvm fixture"
    }
    fn implementations(&self) -> Vec<&'static str> {
        vec!["base", "jvm-fast", "jvm-dies"]
    }
    fn experiments(&self) -> &[crate::lab::Experiment] {
        crate::fixture::TINY.experiments()
    }
    fn jvm_designs(&self) -> Vec<&'static str> {
        vec!["jvm-fast", "jvm-dies"]
    }
}

impl Lab for JvmFixture {
    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Box<dyn Runner>, String> {
        crate::fixture::TINY.open(implementation, case)
    }
    fn jvm_sources(&self) -> Option<JvmSources> {
        Some(JvmSources {
            lab_class: "fixture.FixtureLab",
            files: self.0,
        })
    }
}

#[test]
fn a_jvm_design_runs_its_case_and_reports_its_events_the_same_way_as_the_rust_side() {
    if jdk().is_err() {
        return;
    }
    let lab = JvmFixture(WORKING);
    let case = BenchCase::new("op", "small");
    let mut runner = open(&lab, "jvm-fast", Fork::First, &case).unwrap();
    let mut window = crate::lab::EventTally::default();
    let elapsed = runner.run(10, 1000, &mut window);
    assert!(!elapsed.is_zero());
    assert_eq!(window.failure(), None);
    assert_eq!(window.total(EventName::new("sums")), 1000);
    // The same trace in Rust: the parameter, then the operation's index.
    let mut rust = Trace::new(5);
    for i in 0..5 {
        rust.text("small").op(1, &[i]);
    }
    assert_eq!(trace(&lab, &case, 5), Ok(rust.checksum()));
}

#[test]
fn a_jvm_that_dies_or_sources_that_do_not_compile_are_one_error_naming_the_design() {
    if jdk().is_err() {
        return;
    }
    let case = BenchCase::new("op", "small");
    let died = open(&JvmFixture(WORKING), "jvm-dies", Fork::First, &case)
        .err()
        .unwrap();
    assert!(died.starts_with("jvm-dies: the JVM ended"), "{died}");
    assert!(
        died.contains("dying on purpose"),
        "the JVM's own words: {died}"
    );
    let broken = open(&JvmFixture(BROKEN), "jvm-fast", Fork::First, &case)
        .err()
        .unwrap();
    assert!(broken.contains("do not compile"), "{broken}");
}
