//! The checksum of an operation stream, computed the same way on both sides (`labkit.Trace` in
//! Java): a lab's test traces the first operations of a case in Rust and asks the JVM side for
//! the same case's ([`super::trace`]), so the two languages are shown to drive one workload.

/// FNV-1a over 64-bit words (little-endian, byte by byte) and strings (their UTF-8 bytes, then
/// 0xff, which no UTF-8 byte is), of the first `limit` operations; later ones are counted, not
/// hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    limit: u64,
    hash: u64,
    operations: u64,
}

impl Trace {
    pub fn new(limit: u64) -> Self {
        Self {
            limit,
            hash: 0xcbf2_9ce4_8422_2325,
            operations: 0,
        }
    }

    /// Whether the next operation is still hashed.
    pub fn recording(&self) -> bool {
        self.operations < self.limit
    }

    fn byte(&mut self, b: u8) {
        self.hash ^= u64::from(b);
        self.hash = self.hash.wrapping_mul(0x0100_0000_01b3);
    }

    fn word(&mut self, value: u64) -> &mut Self {
        for b in value.to_le_bytes() {
            self.byte(b);
        }
        self
    }

    /// A string argument of the next operation (it goes first).
    pub fn text(&mut self, value: &str) -> &mut Self {
        if !self.recording() {
            return self;
        }
        for &b in value.as_bytes() {
            self.byte(b);
        }
        self.byte(0xff);
        self
    }

    /// One operation: its kind and its arguments.
    pub fn op(&mut self, kind: u64, args: &[u64]) -> &mut Self {
        if self.recording() {
            self.word(kind);
            for &a in args {
                self.word(a);
            }
        }
        self.operations += 1;
        self
    }

    pub fn operations(&self) -> u64 {
        self.operations
    }

    pub fn checksum(&self) -> u64 {
        self.hash
    }
}
