//! A small markdown table renderer and the number formats the reports use.

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A GitHub-flavoured markdown table.
#[derive(Debug, Clone, Default)]
pub struct Table {
    headers: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn column(mut self, header: &str, align: Align) -> Self {
        self.headers.push((header.to_owned(), align));
        self
    }

    /// Adds a row; missing cells render empty, extra cells are an error of the caller.
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert!(
            cells.len() <= self.headers.len(),
            "row wider than the header"
        );
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let escape = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        let mut out = String::new();
        out.push('|');
        for (h, _) in &self.headers {
            out.push_str(&format!(" {} |", escape(h)));
        }
        out.push_str("\n|");
        for (_, a) in &self.headers {
            out.push_str(match a {
                Align::Left => "---|",
                Align::Right => "---:|",
            });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for i in 0..self.headers.len() {
                out.push_str(&format!(
                    " {} |",
                    escape(row.get(i).map_or("", String::as_str))
                ));
            }
            out.push('\n');
        }
        out
    }
}

/// A number with thousands separators and about three significant digits after the point for
/// small values: 1,435.8 / 31.6 / 0.042 / 12,345,678.
pub fn format_number(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "n/a".into()
        } else {
            "∞".into()
        };
    }
    let decimals = match v.abs() {
        0.0 => 0,
        a if a >= 1000.0 => 0,
        a if a >= 100.0 => 1,
        a if a >= 10.0 => 1,
        a if a >= 1.0 => 2,
        a if a >= 0.01 => 3,
        _ => 4,
    };
    let text = format!("{:.*}", decimals, v.abs());
    let (int, frac) = text
        .split_once('.')
        .map_or((text.as_str(), None), |(i, f)| (i, Some(f)));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if v < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "-"
    } else {
        ""
    };
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A count, whole and grouped: 1 / 500 / 1,000,000 (format_number would give small counts
/// decimals).
pub fn format_count(n: u64) -> String {
    let whole = format_number(n as f64);
    whole.split('.').next().unwrap_or(&whole).to_owned()
}

/// Bytes in B / KiB / MiB.
pub fn format_bytes(bytes: f64) -> String {
    if bytes >= 1024.0 * 1024.0 {
        format!("{} MiB", format_number(bytes / (1024.0 * 1024.0)))
    } else if bytes >= 1024.0 {
        format!("{} KiB", format_number(bytes / 1024.0))
    } else {
        format!("{} B", format_number(bytes))
    }
}

/// A signed percentage: `−23.1 %`, `+62.0 %`.
pub fn format_change(percent: f64) -> String {
    if !percent.is_finite() {
        return "+∞ %".into();
    }
    let sign = if percent < 0.0 { "−" } else { "+" };
    format!("{sign}{:.1} %", percent.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_aligned_table_and_escapes_pipes() {
        let mut t = Table::new()
            .column("Case", Align::Left)
            .column("a|b", Align::Right);
        t.row(vec!["single".into(), "41.1".into()]);
        t.row(vec!["short".into()]);
        assert_eq!(
            t.render(),
            "| Case | a\\|b |\n|---|---:|\n| single | 41.1 |\n| short |  |\n"
        );
    }

    #[test]
    fn numbers_format_with_separators_and_sensible_precision() {
        assert_eq!(format_number(1435.8), "1,436");
        assert_eq!(format_number(31.64), "31.6");
        assert_eq!(format_number(123.45), "123.5");
        assert_eq!(format_number(2.5), "2.50");
        assert_eq!(format_number(0.0421), "0.042");
        assert_eq!(format_number(0.0), "0");
        assert_eq!(format_number(12_345_678.0), "12,345,678");
        assert_eq!(format_number(-1234.0), "-1,234");
        assert_eq!(format_number(f64::NAN), "n/a");
        assert_eq!(format_bytes(2.13 * 1024.0 * 1024.0), "2.13 MiB");
        assert_eq!(format_bytes(512.0), "512.0 B");
        assert_eq!(format_change(-23.06), "−23.1 %");
        assert_eq!(format_change(62.0), "+62.0 %");
    }
}
