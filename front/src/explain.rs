//! `datalove explain CODE`: the entry of a diagnostic code in `docs/language.md`, which
//! is built into the compiler so the text is the documentation's, word for word.

use super::suggest;

/// The language reference, as built.
const LANGUAGE_MD: &str = include_str!("../../docs/language.md");

/// One row of a code table: `| `CODE` | meaning | example |`, under its section.
struct Entry<'a> {
    code: &'a str,
    section: &'a str,
    meaning: &'a str,
    example: &'a str,
}

/// Every code the tables of "Diagnostics" list, in order.
fn entries() -> Vec<Entry<'static>> {
    let Some((_, diagnostics)) = LANGUAGE_MD.split_once("\n## Diagnostics\n") else {
        return Vec::new();
    };
    let mut section = "";
    let mut out = Vec::new();
    for line in diagnostics.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            section = heading;
            continue;
        }
        let Some(row) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((code, rest)) = row.split_once("` | ") else {
            continue;
        };
        // The example is the last cell; the meaning may itself hold `|` (escaped `\|`).
        let rest = rest.trim_end().trim_end_matches('|').trim_end();
        let Some((meaning, example)) = rest.rsplit_once(" | ") else {
            continue;
        };
        out.push(Entry {
            code,
            section,
            meaning,
            example,
        });
    }
    out
}

/// Every documented code.
pub fn codes() -> Vec<&'static str> {
    entries().iter().map(|e| e.code).collect()
}

/// The entry of `code` (any case) as `datalove explain` prints it; `Err` says that there
/// is no such code, with the nearest one when there is one.
pub fn explain(code: &str) -> Result<String, String> {
    let wanted = code.to_ascii_uppercase();
    let all = entries();
    let Some(entry) = all.iter().find(|e| e.code == wanted) else {
        let mut why = format!("no diagnostic code `{code}` is documented");
        if let Some(near) = suggest::similar(&wanted, all.iter().map(|e| e.code)) {
            why.push_str(&format!("; a code with a similar name exists: `{near}`"));
        }
        return Err(why);
    };
    let mut text = format!(
        "{}: {}\n({})\n",
        entry.code,
        plain(entry.meaning),
        entry.section.replace('`', "")
    );
    let example = entry.example.trim_matches('`');
    if example != "—" && !example.is_empty() {
        text.push_str("\nFor example:\n\n");
        let example = entry.example.replace("\\|", "|");
        // A program written in code spans, with `⏎` for its line breaks; or prose.
        match example.strip_prefix('`').and_then(|e| e.strip_suffix('`')) {
            Some(program) if !program.contains('`') => {
                for line in program.split('⏎') {
                    text.push_str(&format!("    {line}\n"));
                }
            }
            _ => text.push_str(&format!("    {}\n", plain(&example))),
        }
    }
    text.push_str("\nSee docs/language.md, \"Diagnostics\".\n");
    Ok(text)
}

/// Table text as prose: `\|` unescaped.
fn plain(cell: &str) -> String {
    cell.replace("\\|", "|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_section_has_its_codes() {
        let codes = codes();
        for code in [
            "S001", "S013", "N001", "T009", "F082", "D010", "V001", "B001",
        ] {
            assert!(codes.contains(&code), "{code} missing from {codes:?}");
        }
    }

    #[test]
    fn an_entry_has_its_meaning_and_its_example_as_lines() {
        let text = explain("s008").expect("S008");
        assert!(
            text.starts_with("S008: `set` of something that is not a variable"),
            "{text}"
        );
        assert!(text.contains("(Syntax (S))"), "{text}");
        assert!(text.contains("    set f() = 3\n"), "{text}");
        assert!(text.contains("    end fun\n"), "{text}");
    }

    #[test]
    fn an_unknown_code_names_the_nearest() {
        let why = explain("N0011").unwrap_err();
        assert!(why.contains("no diagnostic code `N0011`"), "{why}");
        assert!(why.contains("`N001`") || why.contains("`N011`"), "{why}");
    }
}
