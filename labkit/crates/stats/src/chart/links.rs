//! The links to a page's charts.

/// Chart links as `[title](charts/stem.svg)`, joined by ` · `; consecutive titles that end in the
/// same parenthesis (`a (ns/op, median)`, `b (ns/op, median)`) are one group that states it
/// once (`ns/op, median: [a](…) · [b](…)`), each group a paragraph.
pub fn grouped(links: &[(&str, &str)]) -> String {
    let split = |title: &str| -> (String, String) {
        match title.strip_suffix(')').and_then(|t| t.rsplit_once(" (")) {
            Some((name, unit)) => (name.to_owned(), unit.to_owned()),
            None => (title.to_owned(), String::new()),
        }
    };
    let mut groups: Vec<(String, Vec<(String, &str)>)> = Vec::new();
    for (title, stem) in links {
        let (name, unit) = split(title);
        match groups.last_mut() {
            Some((last, members)) if !unit.is_empty() && *last == unit => {
                members.push((name, stem))
            }
            _ => groups.push((unit, vec![(name, stem)])),
        }
    }
    let link = |title: &str, stem: &str| format!("[{title}](charts/{stem}.svg)");
    let paragraphs: Vec<String> = groups
        .iter()
        .map(|(unit, members)| match members.as_slice() {
            [(name, stem)] if unit.is_empty() => link(name, stem),
            [(name, stem)] => link(&format!("{name} ({unit})"), stem),
            _ => {
                let named: Vec<String> = members.iter().map(|(n, s)| link(n, s)).collect();
                format!("{unit}: {}", named.join(" · "))
            }
        })
        .collect();
    paragraphs.join("\n\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn links_sharing_a_unit_state_it_once() {
        let links = [
            ("a (ns/op, median)", "x-a"),
            ("b (ns/op, median)", "x-b"),
            ("bytes per entry", "x-c"),
            ("d (B)", "x-d"),
        ];
        assert_eq!(
            super::grouped(&links),
            "ns/op, median: [a](charts/x-a.svg) · [b](charts/x-b.svg)\n\n\
             [bytes per entry](charts/x-c.svg)\n\n[d (B)](charts/x-d.svg)"
        );
    }
}
