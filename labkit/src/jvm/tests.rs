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
