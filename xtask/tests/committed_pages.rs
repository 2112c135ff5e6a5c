//! The committed results read as the reports promise: each lab's page within 40 KiB, each
//! write-up within 40 lines, each raw result set within 5 MB, no template expression left
//! unrendered, no ratio taken pass by pass printed without saying so (a reader who divides
//! the two printed medians gets another number), and no term of the details on a first screen.

use std::fs;
use std::path::{Path, PathBuf};

const LABS: [&str; 3] = ["coalesce", "dedup", "pending-ack"];

fn results() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-results")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = LABS
        .iter()
        .flat_map(|lab| [format!("{lab}.md"), format!("{lab}-details.md")])
        .map(|name| results().join(name))
        .collect();
    pages.extend(writeups());
    pages
}

fn writeups() -> Vec<PathBuf> {
    let dir = results().join("writeups");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

#[test]
fn pages_write_ups_and_raw_results_stay_within_their_sizes() {
    for lab in LABS {
        let page = results().join(format!("{lab}.md"));
        let bytes = fs::metadata(&page).unwrap().len();
        assert!(bytes <= 40 * 1024, "{}: {bytes} bytes", page.display());
        let raw = results().join(format!("{lab}.json"));
        let bytes = fs::metadata(&raw).unwrap().len();
        assert!(bytes <= 5_000_000, "{}: {bytes} bytes", raw.display());
    }
    let writeups = writeups();
    assert!(!writeups.is_empty());
    for file in writeups {
        let lines = read(&file).lines().count();
        assert!(lines <= 40, "{}: {lines} lines", file.display());
    }
}

#[test]
fn every_report_says_which_verdicts_travelled() {
    for lab in LABS {
        let page = read(&results().join(format!("{lab}.md")));
        assert!(
            page.contains("### Across machines: this run against the one it replaced"),
            "{lab}.md has no travel section"
        );
        let answers = page
            .lines()
            .filter(|l| l.starts_with("| Claim |") || l.starts_with("| The write-up's claim |"));
        for header in answers {
            assert!(
                header.trim_end().ends_with("| Against the last run |"),
                "{lab}.md: an answers table without its travel column: {header}"
            );
        }
        travel_columns_add_up(lab, &page);
    }
}

/// In the travel table, each verdict decided here is held, reversed, same ↔ faster or slower,
/// not decided there, or new: those five columns add up to "decided here".
fn travel_columns_add_up(lab: &str, page: &str) {
    let mut lines = page
        .lines()
        .skip_while(|l| !l.starts_with("| effect here |"));
    let header = lines
        .next()
        .unwrap_or_else(|| panic!("{lab}.md: no travel table"));
    assert!(
        header.starts_with(
            "| effect here | decided here | held | reversed there | same ↔ faster or slower | \
             not decided there | new | decided there only |"
        ),
        "{lab}.md: {header}"
    );
    let rows: Vec<&str> = lines.skip(1).take_while(|l| l.starts_with('|')).collect();
    assert!(!rows.is_empty(), "{lab}.md: an empty travel table");
    for row in rows {
        let counts: Vec<usize> = row
            .split('|')
            .skip(2)
            .take(6)
            .map(|c| {
                c.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{lab}.md: {row}"))
            })
            .collect();
        assert_eq!(
            counts[0],
            counts[1..].iter().sum::<usize>(),
            "{lab}.md: a travel row that does not add up: {row}"
        );
    }
}

#[test]
fn every_template_was_rendered() {
    for page in pages() {
        let text = read(&page);
        for (i, line) in text.lines().enumerate() {
            assert!(
                !line.contains("{{") && !line.contains("{%"),
                "{}:{}: an unrendered template expression: {line}",
                page.display(),
                i + 1
            );
        }
    }
}

/// Whether a cell holds a ratio and a count of agreeing passes (`0.50× … (8/8)`, `faster 8/8`):
/// a ratio taken pass by pass.
fn per_pass_ratio(cell: &str) -> bool {
    let agreeing = cell
        .split(|c: char| !(c.is_ascii_digit() || c == '/'))
        .any(|t| {
            t.split_once('/')
                .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty() && !b.contains('/'))
        });
    cell.contains('×') && agreeing
}

fn cells(line: &str) -> Vec<&str> {
    line.trim()
        .trim_matches('|')
        .split(" | ")
        .map(str::trim)
        .collect()
}

#[test]
fn every_ratio_taken_pass_by_pass_says_so() {
    let mut unlabelled = Vec::new();
    for page in pages() {
        let text = read(&page);
        let mut header: Option<Vec<&str>> = None;
        let mut previous = "";
        for line in text.lines() {
            if !line.starts_with('|') {
                header = None;
            } else if line.starts_with("|---") {
                header = Some(cells(previous));
            } else if let Some(header) = &header {
                for (i, cell) in cells(line).iter().enumerate() {
                    let said = cell.contains("per pass")
                        || header.get(i).is_some_and(|h| h.contains("per pass"));
                    if per_pass_ratio(cell) && !said {
                        unlabelled.push(format!("{}: {cell}", page.display()));
                    }
                }
            }
            previous = line;
        }
    }
    assert!(
        unlabelled.is_empty(),
        "{} cells print a per-pass ratio unlabelled, e.g. {:?}",
        unlabelled.len(),
        &unlabelled[..unlabelled.len().min(3)]
    );
}

#[test]
fn the_cell_test_tells_a_per_pass_ratio_from_a_ratio_of_values() {
    assert!(per_pass_ratio(
        "20.0<br>0.50× [0.49–0.51] −50.0 % faster (8/8)"
    ));
    assert!(per_pass_ratio("10 ns → 5 ns (0.50×, faster 8/8)"));
    assert!(!per_pass_ratio(
        "1.00 allocs/op → 0 allocs/op (0.00×, less)"
    ));
    assert!(!per_pass_ratio("2.92 → 2.89 (−1.1 %, less)"));
}

/// The terms `docs/glossary.md` keeps off a page's first screen: the backticked term that opens
/// each row of its second table.
fn kept_off_first_screen() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/glossary.md");
    let glossary = read(&path);
    let section = glossary
        .split("## Terms kept off the first screen")
        .nth(1)
        .unwrap_or_else(|| panic!("{}: no list of terms kept off", path.display()));
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('`').nth(1))
        .map(str::to_owned)
        .collect()
}

/// A page's first screen: all before its answers, then the answers through their first table.
fn first_screen(page: &str) -> &str {
    let Some(answers) = page.find("## Answers") else {
        return page;
    };
    let (mut end, mut in_table) = (answers, false);
    for line in page[answers..].split_inclusive('\n') {
        if line.starts_with('|') {
            in_table = true;
        } else if in_table {
            break;
        }
        end += line.len();
    }
    &page[..end]
}

/// Whether `text` holds `term` (case aside) as a word: where the term begins or ends with a
/// letter or digit, the text's next character there is not one.
fn mentions(text: &str, term: &str) -> bool {
    let (text, term) = (text.to_lowercase(), term.to_lowercase());
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let (open, close) = (word(term.chars().next()), word(term.chars().next_back()));
    text.match_indices(&term).any(|(i, _)| {
        let (before, after) = (
            text[..i].chars().next_back(),
            text[i + term.len()..].chars().next(),
        );
        !(open && word(before) || close && word(after))
    })
}

#[test]
fn first_screens_use_the_glossarys_plain_words() {
    let terms = kept_off_first_screen();
    assert!(
        terms.len() >= 10,
        "the glossary lists {} terms",
        terms.len()
    );
    let mut found = Vec::new();
    for lab in LABS {
        let page = read(&results().join(format!("{lab}.md")));
        let screen = first_screen(&page);
        assert!(screen.contains("## Answers"), "{lab}.md: no answers");
        found.extend(
            terms
                .iter()
                .filter(|term| mentions(screen, term))
                .map(|term| format!("{lab}.md: `{term}`")),
        );
    }
    assert!(
        found.is_empty(),
        "terms of the details on a first screen: {found:?}"
    );
}

#[test]
fn a_term_is_found_as_a_word_only() {
    assert!(mentions("the A/A twin", "a/a"));
    assert!(mentions("case `50k-in-1-keep-1k`", "-in-"));
    assert!(!mentions("a network", "net"));
    assert!(!mentions("upheld", "held"));
    assert!(mentions("0 held, 1 new", "held"));
    let page = "intro\n## Answers\ntext\n| a |\n|---|\n| b |\n\nafter held\n";
    assert_eq!(
        first_screen(page),
        "intro\n## Answers\ntext\n| a |\n|---|\n| b |\n"
    );
}
