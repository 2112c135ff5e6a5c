//! Where a counted benchmark's instructions are spent: callgrind's self cost of every source
//! line's function, read from the `callgrind.*.out` file gungraun leaves beside each summary, and
//! summed into buckets a lab names by pattern (the allocator, a map crate, the epoch collector, a
//! lock). A design's cost is then shown split by what it pays for, in the same run as its
//! wall time: the measurement behind "papaya-cas is slower because …".
//!
//! Code inlined from a crate is attributed to that crate's source file (callgrind's `fi=`/`fe=`
//! lines), so papaya's probing inlined into a design counts as papaya, not as the design.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// A bucket: instructions whose `file:function` contains any of `patterns`. The first bucket that
/// matches takes a line; what no bucket matches is `rest`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Bucket {
    pub name: String,
    pub patterns: Vec<String>,
}

/// A lab's buckets, in match order, and the name of what is left.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Buckets {
    pub buckets: Vec<Bucket>,
    pub rest: String,
}

impl Buckets {
    pub fn parse(json: &str) -> Result<Self, String> {
        serde_json::from_str(json).map_err(|e| format!("cost buckets: {e}"))
    }

    /// The bucket of `location` (`file:function`).
    pub fn of<'a>(&'a self, location: &str) -> &'a str {
        self.buckets
            .iter()
            .find(|b| b.patterns.iter().any(|p| location.contains(p.as_str())))
            .map_or(self.rest.as_str(), |b| b.name.as_str())
    }

    /// Every bucket's name, `rest` last.
    pub fn names(&self) -> Vec<&str> {
        self.buckets
            .iter()
            .map(|b| b.name.as_str())
            .chain(std::iter::once(self.rest.as_str()))
            .collect()
    }

    /// `profile`'s instructions summed per bucket, in [`Buckets::names`] order.
    pub fn split(&self, profile: &[(String, u64)]) -> Vec<(String, u64)> {
        let mut totals: Vec<(String, u64)> = self
            .names()
            .into_iter()
            .map(|n| (n.to_owned(), 0))
            .collect();
        for (location, instructions) in profile {
            let bucket = self.of(location);
            if let Some(total) = totals.iter_mut().find(|(n, _)| n == bucket) {
                total.1 += instructions;
            }
        }
        totals
    }
}

/// The self cost (instructions, `Ir`) of every `file:function` in a callgrind output file, where
/// `file` is the source file of the code (the inlined one, for inlined code).
pub fn self_costs(text: &str) -> Result<Vec<(String, u64)>, String> {
    let mut files: HashMap<String, String> = HashMap::new();
    let mut functions: HashMap<String, String> = HashMap::new();
    let mut ir_column: Option<usize> = None;
    let mut positions = 1;
    let (mut file, mut inlined, mut function) = (String::new(), None::<String>, String::new());
    let mut after_calls = false;
    let mut costs: HashMap<String, u64> = HashMap::new();
    for line in text.lines() {
        if let Some(spec) = line.strip_prefix("events:") {
            let events: Vec<&str> = spec.split_whitespace().collect();
            ir_column = events.iter().position(|e| *e == "Ir");
        } else if let Some(spec) = line.strip_prefix("positions:") {
            positions = spec.split_whitespace().count().max(1);
        } else if let Some(name) = line.strip_prefix("fl=") {
            file = resolve(&mut files, name);
            inlined = None;
        } else if let Some(name) = line
            .strip_prefix("fi=")
            .or_else(|| line.strip_prefix("fe="))
        {
            let name = resolve(&mut files, name);
            inlined = (name != file).then_some(name);
        } else if let Some(name) = line.strip_prefix("fn=") {
            function = resolve(&mut functions, name);
            inlined = None;
        } else if let Some(name) = line
            .strip_prefix("cfi=")
            .or_else(|| line.strip_prefix("cfl="))
        {
            resolve(&mut files, name);
        } else if let Some(name) = line.strip_prefix("cfn=") {
            resolve(&mut functions, name);
        } else if line.starts_with("calls=") {
            after_calls = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
            // A cost line: positions, then the events' counts (trailing zeros left out). The line
            // right after `calls=` is the call's inclusive cost, not this function's own.
            if std::mem::take(&mut after_calls) {
                continue;
            }
            let column = ir_column.ok_or("a cost line before the `events:` line")?;
            let count = line
                .split_whitespace()
                .nth(positions + column)
                .map_or(Ok(0), str::parse::<u64>)
                .map_err(|e| format!("cost line `{line}`: {e}"))?;
            let source = inlined.as_deref().unwrap_or(&file);
            *costs.entry(format!("{source}:{function}")).or_default() += count;
        }
    }
    if ir_column.is_none() {
        return Err("not a callgrind profile: no `events:` line".into());
    }
    let mut costs: Vec<(String, u64)> = costs.into_iter().filter(|(_, n)| *n > 0).collect();
    costs.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(costs)
}

/// A compressed name (`(12) name` defines id 12, `(12)` refers to it) made whole.
fn resolve(names: &mut HashMap<String, String>, spec: &str) -> String {
    let spec = spec.trim();
    match spec.strip_prefix('(').and_then(|s| s.split_once(')')) {
        Some((id, rest)) => {
            let rest = rest.trim();
            if rest.is_empty() {
                names.get(id).cloned().unwrap_or_default()
            } else {
                names.insert(id.to_owned(), rest.to_owned());
                rest.to_owned()
            }
        }
        None => spec.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: &str = "# callgrind format
version: 1
positions: line
events: Ir Dr
summary: 1000

ob=(1) /bin/x
fl=(1) src/design.rs
fn=(1) design::admit
10 100 3
fi=(2) /cargo/papaya-0.2.5/src/raw.rs
12 40
fe=(1)
13 5
cfl=(3) malloc.c
cfn=(2) malloc
calls=1 0
14 700
fl=(3)
fn=(2)
0 60 1
fn=(1)
+2 7
";

    #[test]
    fn self_costs_follow_inlined_files_and_skip_inclusive_call_costs() {
        let costs = self_costs(PROFILE).unwrap();
        assert_eq!(
            costs,
            [
                ("src/design.rs:design::admit".to_owned(), 105),
                ("malloc.c:malloc".to_owned(), 60),
                (
                    "/cargo/papaya-0.2.5/src/raw.rs:design::admit".to_owned(),
                    40
                ),
                ("malloc.c:design::admit".to_owned(), 7),
            ]
        );
        assert!(self_costs("no profile").is_err());
    }

    #[test]
    fn buckets_take_the_first_match_and_leave_the_rest() {
        let buckets = Buckets::parse(
            r#"{"buckets": [{"name": "allocator", "patterns": ["malloc.c"]},
                            {"name": "papaya", "patterns": ["/papaya-"]}],
                "rest": "the design's own code"}"#,
        )
        .unwrap();
        let split = buckets.split(&self_costs(PROFILE).unwrap());
        assert_eq!(
            split,
            [
                ("allocator".to_owned(), 67),
                ("papaya".to_owned(), 40),
                ("the design's own code".to_owned(), 105),
            ]
        );
        assert_eq!(buckets.of("x:y"), "the design's own code");
    }
}
