//! Every page, note and cause text is a minijinja template. `{{ name }}` prints a slot the lab
//! fills (a generated table, a row's parameter); the value functions print a measured value:
//! `{{ v("METRIC@ID") }}`, `{{ ratio("A", "B") }}` (with ×), `{{ per("A", "B") }}` (a plain
//! quotient: bytes per allocation) and `{{ minus("A", "B") }}` (in the first value's unit). What
//! a function prints is decided by the caller's [`Resolve`], so this module knows no record.
//!
//! Undefined names are errors, and so is a slot nobody prints: prose and generated tables cannot
//! drift apart silently.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use minijinja::value::{Rest, Value};
use minijinja::{Environment, Error, ErrorKind, UndefinedBehavior};

/// The functions a template may call, with how many arguments each takes: the value functions,
/// and the blocks a page places (`table(METRIC, ROWS)`, `values(METRIC, ROWS)` (the values
/// alone, no ratio to a baseline), `paired(METRIC, ROWS_A, ROWS_B, "A",
/// "B")` (each row of A above its match in B, labelled `row — A` and `row — B`: one case from two
/// sources), `cost_split(ROWS)`,
/// `latencies(OPERATION, ROWS)`, `description(EXPERIMENT)`, `not_faster(DESIGN, "RIVAL …")`, the
/// targets' `targets(NAME)`, `target_misses(NAME)`, `targets_source(NAME)`, `targets_notes(NAME)`
/// and `lines_table(CHART)`; rows as [`crate::rows`] selects).
pub const FUNCTIONS: &[(&str, usize)] = &[
    ("v", 1),
    ("ratio", 2),
    ("per", 2),
    ("minus", 2),
    ("table", 2),
    ("values", 2),
    ("paired", 5),
    ("cost_split", 1),
    ("latencies", 2),
    ("description", 1),
    ("not_faster", 2),
    ("targets", 1),
    ("target_misses", 1),
    ("targets_source", 1),
    ("targets_notes", 1),
    ("lines_table", 1),
];

/// One value function call: its name and its arguments as written (references or numbers).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Call {
    pub function: &'static str,
    pub args: Vec<String>,
}

/// What a value function prints, or why it cannot.
pub type Resolve<'a> = &'a dyn Fn(&Call) -> Result<String, String>;

/// `template` rendered with `slots`; value functions are answered by `resolve` (none allowed
/// when it is `None`). Every slot must be printed, every printed name must be a slot.
pub fn render(
    template: &str,
    slots: &[(&str, String)],
    resolve: Option<Resolve>,
) -> Result<String, String> {
    render_page(template, slots, &[], resolve)
}

/// Items a template loops over (`{% for shape in shapes %}{{ shape.name }}{% endfor %}`), each a
/// few named fields: the lab's experiment groups, so a page repeats a section without Rust.
pub type Groups<'a> = &'a [(&'a str, Vec<Item<'a>>)];

/// One item of a group: its named fields.
pub type Item<'a> = Vec<(&'a str, String)>;

/// [`render`] with `fields` besides the slots: names the template may print or leave out (the
/// workload's settings a page's prose names, a row's parameter).
pub fn render_page(
    template: &str,
    slots: &[(&str, String)],
    fields: &[(&str, String)],
    resolve: Option<Resolve>,
) -> Result<String, String> {
    render_looped(template, slots, fields, &[], resolve)
}

/// [`render_page`] with `groups` to loop over.
pub fn render_looped(
    template: &str,
    slots: &[(&str, String)],
    fields: &[(&str, String)],
    groups: Groups,
    resolve: Option<Resolve>,
) -> Result<String, String> {
    let printed = names_printed(template)?;
    let functions: BTreeSet<&str> = FUNCTIONS.iter().map(|(name, _)| *name).collect();
    if let Some((name, _)) = slots.iter().find(|(name, _)| !printed.contains(*name)) {
        return Err(format!(
            "value `{name}` has no `{{{{ {name} }}}}` slot in the template"
        ));
    }
    let known = |name: &str| {
        slots.iter().chain(fields).any(|(known, _)| *known == name)
            || groups.iter().any(|(known, _)| *known == name)
    };
    if let Some(name) = printed
        .iter()
        .find(|n| !functions.contains(n.as_str()) && !known(n))
    {
        return Err(format!("template slot `{{{{ {name} }}}}` has no value"));
    }
    type Map = std::collections::BTreeMap<String, Value>;
    let item = |fields: &Item| {
        Value::from(
            fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Value::from(v.clone())))
                .collect::<Map>(),
        )
    };
    let context = Value::from(
        fields
            .iter()
            .chain(slots)
            .map(|(name, value)| ((*name).to_owned(), Value::from(value.clone())))
            .chain(
                groups
                    .iter()
                    .map(|(name, items)| ((*name).to_owned(), items.iter().map(item).collect())),
            )
            .collect::<Map>(),
    );
    // The functions must own what they read, and the records are the caller's: a first pass
    // collects the calls, the caller's resolver answers each, a second pass prints the answers.
    // Value functions only print, so both passes take the same path through the template.
    let collected = Arc::new(Mutex::new(BTreeSet::new()));
    let first = environment(Pass::Collect(Arc::clone(&collected)));
    render_with(&first, template, &context)?;
    let calls = std::mem::take(&mut *collected.lock().unwrap_or_else(|e| e.into_inner()));
    let mut answers = HashMap::new();
    for call in calls {
        let resolve = resolve.ok_or_else(|| {
            format!(
                "`{}` reads measured values, which this text cannot",
                call.function
            )
        })?;
        let text = resolve(&call)?;
        answers.insert(call, text);
    }
    render_with(
        &environment(Pass::Print(Arc::new(answers))),
        template,
        &context,
    )
}

/// `template` with the fields of one row (its experiment, its parameter, …) it prints; unlike
/// [`render`]'s slots, a field may go unprinted, and no value function is allowed.
pub fn render_fields(template: &str, fields: &[(&str, String)]) -> Result<String, String> {
    render_page(template, &[], fields, None)
}

/// Names a template prints or calls, for the slot checks.
fn names_printed(template: &str) -> Result<BTreeSet<String>, String> {
    let env = Environment::new();
    let parsed = env.template_from_str(template).map_err(|e| describe(&e))?;
    Ok(parsed.undeclared_variables(false).into_iter().collect())
}

/// What the template functions do in each pass: collect the calls, then print what they resolved to.
#[derive(Clone)]
enum Pass {
    Collect(Arc<Mutex<BTreeSet<Call>>>),
    Print(Arc<HashMap<Call, String>>),
}

fn environment(pass: Pass) -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
            .expect("the default delimiters are valid"),
    );
    for &(function, arity) in FUNCTIONS {
        let pass = pass.clone();
        env.add_function(
            function,
            move |args: Rest<Value>| -> Result<String, Error> {
                if args.len() != arity {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        format!("`{function}` takes {arity} argument(s), not {}", args.len()),
                    ));
                }
                let call = Call {
                    function,
                    args: args.iter().map(argument).collect(),
                };
                match &pass {
                    Pass::Collect(calls) => {
                        calls.lock().unwrap_or_else(|e| e.into_inner()).insert(call);
                        Ok(String::new())
                    }
                    Pass::Print(printed) => printed.get(&call).cloned().ok_or_else(|| {
                        Error::new(ErrorKind::InvalidOperation, "a value the first pass missed")
                    }),
                }
            },
        );
    }
    env
}

/// An argument as written: a string's text, a number's digits.
fn argument(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

fn render_with(
    env: &Environment<'static>,
    template: &str,
    context: &Value,
) -> Result<String, String> {
    env.render_str(template, context.clone())
        .map_err(|e| describe(&e))
}

/// The engine's error with its cause chain, in one line.
fn describe(error: &Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        pairs.iter().map(|(n, v)| (*n, (*v).to_owned())).collect()
    }

    #[test]
    fn slots_fill_and_must_match_the_template() {
        let filled = render(
            "a {{x}} b {{ y }}.\n",
            &slots(&[("x", "1"), ("y", "2")]),
            None,
        );
        assert_eq!(filled.unwrap(), "a 1 b 2.\n");
        assert!(
            render("{{x}}", &[], None)
                .unwrap_err()
                .contains("has no value")
        );
        let unused = render("none", &slots(&[("x", "1")]), None).unwrap_err();
        assert!(unused.contains("no `{{ x }}` slot"), "{unused}");
        assert!(render("{{x", &slots(&[("x", "1")]), None).is_err());
    }

    #[test]
    fn value_functions_print_what_the_resolver_answers() {
        let resolve = |call: &Call| -> Result<String, String> {
            match call.function {
                "v" => Ok(format!("<{}>", call.args[0])),
                "per" => Ok(format!("{}/{}", call.args[0], call.args[1])),
                _ => Err(format!("no {}", call.function)),
            }
        };
        let text = render(
            "{{ v(\"ns-per-op@a/b/c\") }} and {{ per(100, \"x@y\") }}; {{ v(\"ns-per-op@a/b/c\") }}",
            &[],
            Some(&resolve),
        );
        assert_eq!(
            text.unwrap(),
            "<ns-per-op@a/b/c> and 100/x@y; <ns-per-op@a/b/c>"
        );
        let missing = render("{{ ratio(\"a\", \"b\") }}", &[], Some(&resolve));
        assert_eq!(missing.unwrap_err(), "no ratio");
        let arity = render("{{ v(\"a\", \"b\") }}", &[], Some(&resolve)).unwrap_err();
        assert!(arity.contains("takes 1 argument"), "{arity}");
        let no_values = render("{{ v(\"a\") }}", &[], None).unwrap_err();
        assert!(no_values.contains("cannot"), "{no_values}");
    }

    #[test]
    fn settings_may_go_unprinted_and_slots_may_not() {
        let settings = slots(&[("users", "100"), ("deadline", "1 s")]);
        let page = render_page(
            "{{ t }} for {{ users }}",
            &slots(&[("t", "T")]),
            &settings,
            None,
        );
        assert_eq!(page.unwrap(), "T for 100");
        let unused = render_page("{{ users }}", &slots(&[("t", "T")]), &settings, None);
        assert!(unused.unwrap_err().contains("no `{{ t }}` slot"));
    }

    #[test]
    fn a_page_loops_over_a_group_and_its_calls_are_resolved_per_item() {
        let item = |name: &str, threads: &str| {
            vec![("name", name.to_owned()), ("threads", threads.to_owned())]
        };
        let groups = [("shapes", vec![item("a", "2"), item("b", "3")])];
        let resolve = |call: &Call| Ok(format!("<{}>", call.args.join(",")));
        let page = render_looped(
            "{% for s in shapes %}{{ s.name }} on {{ s.threads }}: {{ table('ns-per-op', s.name) }}\n{% endfor %}end",
            &[],
            &[],
            &groups,
            Some(&resolve),
        );
        assert_eq!(
            page.unwrap(),
            "a on 2: <ns-per-op,a>\nb on 3: <ns-per-op,b>\nend"
        );
        let unknown = render_looped("{% for s in other %}{% endfor %}", &[], &[], &groups, None);
        assert!(unknown.unwrap_err().contains("`{{ other }}` has no value"));
    }

    #[test]
    fn fields_may_go_unprinted() {
        let fields = slots(&[("experiment", "op"), ("parameter", "a")]);
        assert_eq!(render_fields("`{{ parameter }}`", &fields).unwrap(), "`a`");
        assert!(render_fields("{{ other }}", &fields).is_err());
    }

    #[test]
    fn single_braces_and_trailing_newlines_are_text() {
        let text = render("a {b} c\n\n", &[], None).unwrap();
        assert_eq!(text, "a {b} c\n\n");
    }
}
