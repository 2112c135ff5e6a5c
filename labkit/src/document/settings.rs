//! The settings a page's prose names ([`super::Document::settings`]), each printed as prose
//! writes it: a duration as `20 s`, `100 ms` or `0.1 ms`, anything else as it displays.

use std::time::Duration;

use crate::table::{format_bytes, format_count};

/// A lab's settings: `settings![stripes = STRIPES, deadline = DEADLINE, …]`, each value printed
/// as prose writes it ([`Prose`]).
#[macro_export]
macro_rules! settings {
    ($($name:ident = $value:expr),* $(,)?) => {
        vec![$((stringify!($name), $crate::document::Prose::prose(&$value))),*]
    };
}

/// A setting as prose writes it.
pub trait Prose {
    fn prose(&self) -> String;
}

impl Prose for Duration {
    /// Whole seconds as `20 s`, anything shorter in milliseconds to the microsecond: `100 ms`,
    /// `0.1 ms`.
    fn prose(&self) -> String {
        if self.subsec_nanos() == 0 {
            return format!("{} s", self.as_secs());
        }
        let ms = self.as_secs_f64() * 1e3;
        format!("{} ms", (ms * 1e3).round() / 1e3)
    }
}

macro_rules! displayed {
    ($($t:ty),*) => {
        $(impl Prose for $t {
            fn prose(&self) -> String {
                self.to_string()
            }
        })*
    };
}

displayed!(str, String, usize, u64, u32, u8);

impl<T: Prose + ?Sized> Prose for &T {
    fn prose(&self) -> String {
        (**self).prose()
    }
}

/// The kit's own settings, which any page may name: the latency histograms' precision, what a
/// p99 and a p99.9 need, and the size from which an allocation counts as large.
pub(super) fn kit() -> Vec<(&'static str, String)> {
    crate::settings![
        hdr_digits = crate::latency::SIGNIFICANT_DIGITS,
        // A p99 may fall among censored values once they are more than 1 − 0.99 of a cell.
        censored_p99 = format!("{:.0} %", (1.0 - 0.99) * 100.0),
        p999_needs = format_count((1.0 / (1.0 - 0.999_f64)).round() as u64),
        large_block = format_bytes(crate::alloc::LARGE_BLOCK as f64),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_as_prose_with_their_unit() {
        let deadline = Duration::from_millis(100);
        let settings = crate::settings![
            cap = Duration::from_secs(20),
            deadline = deadline,
            lag = Duration::from_micros(100),
            users = 300_usize,
            name = "open",
        ];
        let values: Vec<&str> = settings.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(values, ["20 s", "100 ms", "0.1 ms", "300", "open"]);
        assert_eq!(settings[0].0, "cap");
        let kit = kit();
        let get = |name: &str| kit.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
        assert_eq!(get("censored_p99").as_deref(), Some("1 %"));
        assert_eq!(get("p999_needs").as_deref(), Some("1,000"));
    }
}
