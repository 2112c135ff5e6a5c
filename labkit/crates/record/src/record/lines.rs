//! The raw results' JSON layout: the result set's fields and each record on a line of their own,
//! everything inside a record on that line. A tenth of the pretty form's size, and a run's diff
//! still reads record by record.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::Formatter;

/// Containers down to this depth (the result set, its records list and its environment) put
/// each member on a line; deeper ones are written inline.
const OPEN_DEPTH: usize = 2;

#[derive(Default)]
struct MemberPerLine {
    /// Per open container: whether it has had a member yet.
    open: Vec<bool>,
}

impl MemberPerLine {
    fn depth(&self) -> usize {
        self.open.len()
    }

    fn newline<W: ?Sized + Write>(w: &mut W, depth: usize) -> io::Result<()> {
        w.write_all(b"\n")?;
        (0..depth).try_for_each(|_| w.write_all(b"  "))
    }

    fn begin<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.open.push(false);
        w.write_all(bracket)
    }

    fn end<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        let depth = self.depth();
        if self.open.pop() == Some(true) && depth <= OPEN_DEPTH {
            Self::newline(w, depth - 1)?;
        }
        w.write_all(bracket)
    }

    fn member<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if let Some(had) = self.open.last_mut() {
            *had = true;
        }
        if !first {
            w.write_all(b",")?;
        }
        match self.depth() {
            depth @ 1..=OPEN_DEPTH => Self::newline(w, depth),
            _ => Ok(()),
        }
    }
}

impl Formatter for MemberPerLine {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.member(w, first)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.begin(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.end(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.member(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(if self.depth() <= OPEN_DEPTH {
            b": "
        } else {
            b":"
        })
    }
}

/// `value` as JSON in the raw results' layout, ending with a newline.
pub fn to_string<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, MemberPerLine::default());
    value.serialize(&mut serializer)?;
    out.push(b'\n');
    // serde_json writes only UTF-8.
    String::from_utf8(out).map_err(|e| serde::ser::Error::custom(e.to_string()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn members_down_to_the_records_take_a_line_each_and_deeper_ones_stay_inline() {
        let value = serde_json::json!({
            "lab": "tiny",
            "empty": [],
            "records": [{"id": "a", "passes": [1.0, 2.0]}, {"id": "b", "passes": []}],
        });
        let text = super::to_string(&value).unwrap();
        let expected = "{\n  \"empty\": [],\n  \"lab\": \"tiny\",\n  \"records\": [\n    \
            {\"id\":\"a\",\"passes\":[1.0,2.0]},\n    {\"id\":\"b\",\"passes\":[]}\n  ]\n}\n";
        assert_eq!(text, expected);
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }
}
