//! Each lab's main chart read as a person reads it: rasterised (resvg, as an image viewer would
//! draw it), its legend names every design the run measured for that chart, and each legend key
//! shows on the image in a colour of its own, so no two designs can be told apart only by name.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use labkit_measure::record::{Metric, ResultSet};
use resvg::{tiny_skia, usvg};

/// Per lab: its main chart, and the experiment and metric the chart draws.
const CHARTS: [(&str, &str, &str, Metric); 3] = [
    (
        "dedup",
        "dedup-admission-ns.svg",
        "admission",
        Metric::NsPerOp,
    ),
    (
        "coalesce",
        "coalesce-goodput.svg",
        "scrape",
        Metric::EventsPerSec(labkit_measure::record::EventName::new("served")),
    ),
    (
        "pending-ack",
        "pending-ack-dispatch-and-ack-cycle-ns.svg",
        "dispatch-and-ack-cycle",
        Metric::NsPerOp,
    ),
];

fn results() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench-results")
}

/// A legend entry: a 12-pixel key and the name beside it.
struct Key {
    name: String,
    x: f32,
    y: f32,
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_owned())
}

/// The legend's keys: each a 12×12 `rect` followed by its `text`.
fn legend(svg: &str) -> Vec<Key> {
    // One element per item, whatever the file's line breaks.
    let elements: Vec<String> = svg
        .split('<')
        .filter(|e| !e.is_empty() && !e.starts_with('/'))
        .map(|e| format!("<{}</text>", e.trim_end()))
        .collect();
    elements
        .windows(2)
        .filter(|pair| {
            pair[0].starts_with("<rect")
                && attribute(&pair[0], "width").as_deref() == Some("12")
                && attribute(&pair[0], "height").as_deref() == Some("12")
                && pair[1].starts_with("<text")
        })
        .map(|pair| {
            let text = &pair[1];
            let name = &text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()];
            let at = |a: &str| attribute(&pair[0], a).unwrap().parse::<f32>().unwrap();
            Key {
                name: name.trim_end_matches(" (baseline)").to_owned(),
                x: at("x") + 6.0,
                y: at("y") + 6.0,
            }
        })
        .collect()
}

/// Whether `svg`'s legend names every one of `measured` and shows each key, rasterised, in a
/// colour of its own.
fn check(svg: &str, measured: &BTreeSet<String>) -> Result<(), String> {
    let keys = legend(svg);
    let named: BTreeSet<String> = keys.iter().map(|k| k.name.clone()).collect();
    let missing: Vec<&String> = measured.difference(&named).collect();
    if !missing.is_empty() {
        return Err(format!("no legend key for {missing:?}"));
    }
    let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut image = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("an empty image")?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut image.as_mut());
    let mut colours = BTreeSet::new();
    for key in &keys {
        let pixel = image
            .pixel(key.x as u32, key.y as u32)
            .ok_or_else(|| format!("the key of {} is outside the image", key.name))?;
        let rgb = (pixel.red(), pixel.green(), pixel.blue());
        if pixel.alpha() != 255 || rgb == (255, 255, 255) {
            return Err(format!("the key of {} does not show", key.name));
        }
        if !colours.insert(rgb) {
            return Err(format!(
                "{} is drawn in another design's colour {rgb:?}",
                key.name
            ));
        }
    }
    Ok(())
}

#[test]
fn each_main_chart_names_every_design_in_a_colour_of_its_own() {
    for (lab, file, experiment, metric) in CHARTS {
        let svg = fs::read_to_string(results().join("charts").join(file)).unwrap();
        let set = ResultSet::load(&results().join(format!("{lab}.json"))).unwrap();
        let measured: BTreeSet<String> = set
            .records
            .iter()
            .filter(|r| r.id.experiment == experiment && r.metric == metric && r.id.is_design())
            .map(|r| r.id.implementation.clone())
            .collect();
        assert!(!measured.is_empty(), "{file}: nothing measured");
        check(&svg, &measured).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
}

#[test]
fn a_shared_colour_or_a_missing_key_is_caught() {
    let chart = |second: &str| {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"40\">\n\
             <rect x=\"8\" y=\"8\" width=\"12\" height=\"12\" fill=\"#4e79a7\"/>\n\
             <text x=\"24\" y=\"18\">a (baseline)</text>\n\
             <rect x=\"50\" y=\"8\" width=\"12\" height=\"12\" fill=\"{second}\"/>\n\
             <text x=\"66\" y=\"18\">b</text>\n</svg>\n"
        )
    };
    let both: BTreeSet<String> = ["a".to_owned(), "b".to_owned()].into();
    assert_eq!(check(&chart("hsl(137.5,55%,38%)"), &both), Ok(()));
    let shared = check(&chart("#4e79a7"), &both).unwrap_err();
    assert!(shared.contains("another design's colour"), "{shared}");
    let three: BTreeSet<String> = ["a", "b", "c"].map(str::to_owned).into();
    let missing = check(&chart("#f28e2b"), &three).unwrap_err();
    assert!(missing.contains("no legend key"), "{missing}");
}
