//! Plain-text tables: a header, rows, columns padded to their widest cell (numbers right-aligned).

/// Renders `header` and `rows` as an aligned table, one line per row. Every row has as many
/// cells as `header`.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0))
        .collect();
    let is_number = |s: &str| s.parse::<f64>().is_ok() || s == "-";
    // A column whose cells are all numbers is right-aligned, header included.
    let right: Vec<bool> = (0..header.len()).map(|i| rows.iter().all(|r| is_number(&r[i]))).collect();
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .zip(&right)
            .map(|((c, &w), &r)| if r { format!("{c:>w$}") } else { format!("{c:<w$}") })
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let mut out = vec![line(header.to_vec())];
    out.push(widths.iter().map(|&w| "-".repeat(w)).collect::<Vec<_>>().join("  "));
    out.extend(rows.iter().map(|r| line(r.iter().map(String::as_str).collect())));
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligns_columns() {
        let t = super::render(
            &["policy", "n"],
            &[vec!["fixed".into(), "7".into()], vec!["exp".into(), "12".into()]],
        );
        assert_eq!(t, "policy   n\n------  --\nfixed    7\nexp     12\n");
    }
}
